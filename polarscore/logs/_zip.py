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

An archive is a shared file, so nothing it declares is trusted: an entry is inflated into at most
the size its directory declares (one more byte tells a lie), and no entry is read that declares
more than ``max_entry_bytes`` (:data:`MAX_ENTRY_BYTES` by default); entries whose data overlap
(David Fifield's "better zip bomb": many directory records sharing one compressed kernel) or that
share a name are refused when the archive is opened.
"""

from __future__ import annotations

import itertools
import mmap
import struct
import zipfile
import zlib
from collections import Counter
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

#: The default limit on one entry's inflated size: 256 MiB. inspect-ai writes a sample whose
#: attachments are big as a folder of chunks, so a real sample entry stays far below it; an entry
#: read in Python may briefly cost about three times its size (its bytes, its text, its values).
MAX_ENTRY_BYTES = 256 << 20
#: The option that lifts the limit, as the messages name it.
LIMIT_OPTION = "max_entry_bytes= in the Python API, --max-entry-bytes on the command line"
_COUNT_CHUNK = 1 << 20


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

    def __init__(self, path: Path, *, max_entry_bytes: int = MAX_ENTRY_BYTES) -> None:
        self.path = path
        self.max_entry_bytes = max_entry_bytes
        records = self._native_directory()
        if records is None:
            records = self._directory()
            with self.mapped() as mapped:
                problem = _overlap(mapped, records)
            if problem is not None:
                raise self._refused(problem)
        self.entries: dict[str, Record] = {r.filename: r for r in records}
        if len(self.entries) != len(records):
            counts = Counter(r.filename for r in records)
            twice = next(name for name, count in counts.items() if count > 1)
            raise self._refused(f"its directory lists the entry {twice!r} twice")

    def _refused(self, problem: str) -> InputFileError:
        return InputFileError(
            f"Cannot read {str(self.path)!r}: {problem} (a crafted or corrupt archive); refused."
        )

    def _native_directory(self) -> list[Record] | None:
        """Return the entries, read natively from a plain archive (None: :mod:`zipfile` must)."""
        try:
            with self.mapped() as mapped:
                found = read_zip_directory(mapped)
        except InputFileError:
            return None
        except ValueError as error:  # entries whose data overlap
            raise self._refused(str(error)) from None
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
        return next(self.read_many([name]))[1]

    def read_many(self, names: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """Yield ``(name, bytes)`` for ``names``, in order of offset, one entry at a time.

        The file is mapped into memory, so reading an entry is a slice. zstd and deflate
        decompression and the CRC-32 release the GIL.
        """
        infos = self.sorted_infos(names)
        # One decompressor per call: a zstd context is not shared between threads.
        self._decompressor: Any = None
        try:
            with (
                open(self.path, "rb") as handle,
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            ):
                for info in infos:
                    yield info.filename, self._read(mapped, info)
        except InputFileError:
            raise
        except (OSError, ValueError) as error:  # ValueError: mmap of an empty file
            raise InputFileError(f"Cannot read {str(self.path)!r}: {error}.") from None

    def check_size(self, info: Record) -> None:
        """Refuse an entry that declares more than :attr:`max_entry_bytes` inflated."""
        if info.file_size > self.max_entry_bytes:
            raise self._fail(
                info,
                f"declares {info.file_size:,} bytes inflated ({info.compress_size:,} "
                f"compressed), over the limit of {self.max_entry_bytes:,} bytes on one entry; "
                f"refused ({LIMIT_OPTION} lifts the limit)",
            )

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
        self.check_size(info)
        raw = mapped[start : start + info.compress_size]
        if len(raw) < info.compress_size:
            raise self._fail(info, "is cut short (the archive is truncated)")
        data = self._decompress(info, raw)
        if len(data) > info.file_size:
            actual = self._inflated_size(info, raw)
            raise self._fail(
                info,
                f"inflates to {actual}, more than the {info.file_size:,} bytes its directory "
                "declares (a crafted or corrupt archive); refused",
            )
        if len(data) < info.file_size:
            raise self._fail(
                info,
                f"inflates to {len(data):,} bytes, fewer than the {info.file_size:,} bytes its "
                "directory declares (it is corrupt or truncated)",
            )
        if zlib.crc32(data) != info.CRC:
            raise self._fail(info, "does not match its recorded size and CRC-32 (it is corrupt)")
        return data

    def _decompress(self, info: Record, raw: bytes) -> bytes:
        """Inflate ``raw`` into at most one byte more than the entry declares."""
        method = info.compress_type
        if method == STORED:
            return raw
        if method == DEFLATED:
            try:
                return zlib.decompressobj(-zlib.MAX_WBITS).decompress(raw, info.file_size + 1)
            except zlib.error as error:
                raise self._fail(info, f"does not decompress (deflate: {error})") from None
        if method == ZSTANDARD:
            return self._zstd(info, raw)
        raise self._fail(
            info,
            f"uses zip compression method {method}, which polarscore cannot read (it reads "
            "stored, deflate and zstd entries)",
        )

    def _inflated_size(self, info: Record, raw: bytes) -> str:
        """Count what an entry inflates to, up to :attr:`max_entry_bytes`, holding 1 MiB at most."""
        total = 0
        try:
            if info.compress_type == DEFLATED:
                stream = zlib.decompressobj(-zlib.MAX_WBITS)
                chunk = stream.decompress(raw, _COUNT_CHUNK)
                while chunk and total <= self.max_entry_bytes:
                    total += len(chunk)
                    chunk = stream.decompress(stream.unconsumed_tail, _COUNT_CHUNK)
            else:
                reader = self._zstd_reader(raw)
                while total <= self.max_entry_bytes and (chunk := reader.read(_COUNT_CHUNK)):
                    total += len(chunk)
        except Exception:  # a stream corrupt further on: the size is what inflated before it
            pass
        if total > self.max_entry_bytes:
            return f"more than {self.max_entry_bytes:,} bytes"
        return f"{total:,} bytes"

    def _zstd_reader(self, raw: bytes) -> Any:
        import zstandard

        if self._decompressor is None:
            self._decompressor = zstandard.ZstdDecompressor()
        # inspect-ai writes a big entry as several zstd frames: read them all.
        return self._decompressor.stream_reader(raw, read_across_frames=True)

    def _zstd(self, info: Record, raw: bytes) -> bytes:
        import zstandard

        wanted = info.file_size + 1
        parts = []
        try:
            reader = self._zstd_reader(raw)
            while wanted > 0 and (chunk := reader.read(wanted)):
                parts.append(chunk)
                wanted -= len(chunk)
        except zstandard.ZstdError as error:
            raise self._fail(info, f"does not decompress (zstd: {error})") from None
        return b"".join(parts)


def _overlap(mapped: mmap.mmap, records: Sequence[Record]) -> str | None:
    """Say which entries' data overlap, or None when none do (:mod:`zipfile`'s directories).

    An entry spans its local header, name, extra field and compressed data; the spans, in order
    of offset, must not overlap (the check Info-ZIP's ``unzip`` makes against overlapped-entry
    bombs). An entry whose local header is missing is left to the read that fails on it.
    """
    spans = []
    for record in records:
        start = record.header_offset
        header = mapped[start : start + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            continue
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        end = start + _LOCAL_HEADER.size + name_length + extra_length + record.compress_size
        spans.append((start, end, record.filename))
    spans.sort()
    for (_, end, first), (start, _, second) in itertools.pairwise(spans):
        if start < end:
            return f"the data of its entries {first!r} and {second!r} overlap"
    return None
