"""Reading the entries of a zip archive whose entries may be zstd-compressed.

inspect-ai writes its ``.eval`` logs as zip archives, since version 0.3.206 with zstd-compressed
entries (zip method 93), which Python's :mod:`zipfile` reads only from Python 3.14. The central
directory is read natively (``polarscore._internal.read_zip_directory``) when the archive is a
plain one (no comment, no zip64 records, no extra fields: as inspect-ai writes them), else with
:mod:`zipfile`, which raises the errors; it does not depend on the method. Each entry's bytes are
read from its local header and decompressed here: stored, deflate (:mod:`zlib`) or zstd (the
``zstandard`` package). Every entry is checked against the CRC-32 and size the archive records.

The native reader of inspect-ai's sample entries (``polarscore._internal.read_eval_samples``)
does the same from :meth:`ZipLog.mapped` and :meth:`ZipLog.records`; an entry it cannot read is
read here, which raises the error.
"""

from __future__ import annotations

import mmap
import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from polarscore._internal import read_zip_directory
from polarscore.exceptions import InputFileError

STORED = 0
DEFLATED = 8
ZSTANDARD = 93

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"


class Record(NamedTuple):
    """What the central directory records of an entry.

    The fields of :class:`zipfile.ZipInfo` read here, named alike.
    """

    filename: str
    header_offset: int
    compress_size: int
    file_size: int
    CRC: int
    compress_type: int


class ZipLog:
    """An open zip archive: its entries by name, and their decompressed bytes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        records = self._native_directory()
        if records is None:
            records = self._directory()
        # A name written twice: the last one wins, as in every zip reader.
        self.entries: dict[str, Record] = {r.filename: r for r in records}

    def _native_directory(self) -> list[Record] | None:
        """Return the entries, read natively from a plain archive (None: :mod:`zipfile` must)."""
        try:
            with self.mapped() as mapped:
                found = read_zip_directory(mapped)
        except InputFileError:
            return None
        return None if found is None else list(map(Record._make, found))

    def _directory(self) -> list[Record]:
        try:
            with zipfile.ZipFile(self.path) as archive:
                infos = archive.infolist()
        except zipfile.BadZipFile as error:
            raise InputFileError(
                f"Cannot read {str(self.path)!r}: it is not a complete zip archive (truncated or "
                f"corrupt: {error})."
            ) from None
        except OSError as error:
            raise InputFileError(
                f"Cannot read {str(self.path)!r}: {error.strerror or error}."
            ) from None
        return [
            Record(
                i.filename, i.header_offset, i.compress_size, i.file_size, i.CRC, i.compress_type
            )
            for i in infos
        ]

    def names(self) -> list[str]:
        """Return the entry names, in the archive's order."""
        return list(self.entries)

    def sorted_infos(self, names: Sequence[str]) -> list[Record]:
        """Return the entries ``names``, in order of offset (the order :meth:`read_many` reads)."""
        return sorted((self.entries[n] for n in names), key=lambda i: i.header_offset)

    @staticmethod
    def records(infos: Sequence[Record]) -> list[tuple[int, int, int, int, int]]:
        """Return what the native reader needs of each entry.

        That is its header's offset, its compressed size, its size, its CRC-32 and its
        compression method.
        """
        return [i[1:] for i in infos]

    @contextmanager
    def mapped(self) -> Iterator[mmap.mmap]:
        """Map the archive into memory (read-only) for the time of the ``with`` block."""
        try:
            handle = open(self.path, "rb")  # noqa: SIM115
            with handle:
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:  # ValueError: mmap of an empty file
            raise InputFileError(f"Cannot read {str(self.path)!r}: {error}.") from None
        with mapped:
            yield mapped

    def read(self, name: str) -> bytes:
        """Return one entry's bytes (decompressed and checked)."""
        return self.read_many([name])[0][1]

    def read_many(self, names: Sequence[str]) -> list[tuple[str, bytes]]:
        """Return ``(name, bytes)`` for ``names``, in order of offset.

        The file is mapped into memory, so reading an entry is a slice. zstd and deflate
        decompression and the CRC-32 release the GIL, so this can run on a second thread while
        the entries read before are parsed.
        """
        infos = self.sorted_infos(names)
        # One decompressor per call: a zstd context is not shared between threads.
        self._decompressor: Any = None
        try:
            with (
                open(self.path, "rb") as handle,
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            ):
                return [(info.filename, self._read(mapped, info)) for info in infos]
        except InputFileError:
            raise
        except (OSError, ValueError) as error:  # ValueError: mmap of an empty file
            raise InputFileError(f"Cannot read {str(self.path)!r}: {error}.") from None

    def _fail(self, info: Record, problem: str) -> InputFileError:
        return InputFileError(
            f"Cannot read {str(self.path)!r}: its entry {info.filename!r} {problem}."
        )

    def _read(self, mapped: mmap.mmap, info: Record) -> bytes:
        start = info.header_offset
        header = mapped[start : start + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise self._fail(info, "has no valid local header (the archive is corrupt)")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        start += _LOCAL_HEADER.size + name_length + extra_length
        raw = mapped[start : start + info.compress_size]
        if len(raw) < info.compress_size:
            raise self._fail(info, "is cut short (the archive is truncated)")
        data = self._decompress(info, raw)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise self._fail(info, "does not match its recorded size and CRC-32 (it is corrupt)")
        return data

    def _decompress(self, info: Record, raw: bytes) -> bytes:
        method = info.compress_type
        if method == STORED:
            return raw
        if method == DEFLATED:
            try:
                return zlib.decompressobj(-zlib.MAX_WBITS).decompress(raw)
            except zlib.error as error:
                raise self._fail(info, f"does not decompress (deflate: {error})") from None
        if method == ZSTANDARD:
            return self._zstd(info, raw)
        raise self._fail(
            info,
            f"uses zip compression method {method}, which polarscore cannot read (it reads "
            "stored, deflate and zstd entries)",
        )

    def _zstd(self, info: Record, raw: bytes) -> bytes:
        import zstandard

        if self._decompressor is None:
            self._decompressor = zstandard.ZstdDecompressor()
        try:
            data: bytes = self._decompressor.decompress(raw, max_output_size=info.file_size)
            if len(data) == info.file_size or not data:
                return data
            # inspect-ai writes a big entry as several zstd frames: decompress them all.
            parts = []
            remaining = raw
            while remaining:
                stream = self._decompressor.decompressobj()
                parts.append(stream.decompress(remaining))
                if not stream.eof:
                    raise zstandard.ZstdError("the last frame is incomplete")
                remaining = stream.unused_data
        except zstandard.ZstdError as error:
            raise self._fail(info, f"does not decompress (zstd: {error})") from None
        return b"".join(parts)
