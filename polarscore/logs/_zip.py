"""Reading the entries of a zip archive whose entries may be zstd-compressed.

inspect-ai writes its ``.eval`` logs as zip archives, since version 0.3.206 with zstd-compressed
entries (zip method 93), which Python's :mod:`zipfile` reads only from Python 3.14. The central
directory is read with :mod:`zipfile` (it does not depend on the method); each entry's bytes are
read from its local header and decompressed here: stored, deflate (:mod:`zlib`) or zstd (the
``zstandard`` package). Every entry is checked against the CRC-32 and size the archive records.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from polarscore.exceptions import InputFileError

STORED = 0
DEFLATED = 8
ZSTANDARD = 93

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"


class ZipLog:
    """An open zip archive: its entries by name, and their decompressed bytes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with zipfile.ZipFile(path) as archive:
                infos = archive.infolist()
        except zipfile.BadZipFile as error:
            raise InputFileError(
                f"Cannot read {str(path)!r}: it is not a complete zip archive (truncated or "
                f"corrupt: {error})."
            ) from None
        except OSError as error:
            raise InputFileError(f"Cannot read {str(path)!r}: {error.strerror or error}.") from None
        self.entries: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            # A name written twice: the last one wins, as in every zip reader.
            self.entries[info.filename] = info
        self._decompressor: Any = None

    def names(self) -> list[str]:
        """Return the entry names, in the archive's order."""
        return list(self.entries)

    def read(self, name: str) -> bytes:
        """Return one entry's bytes (decompressed and checked)."""
        with open(self.path, "rb") as handle:
            return self._read(handle, self.entries[name])

    def read_many(self, names: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """Yield ``(name, bytes)`` for ``names``, reading the file once, in order of offset."""
        infos = sorted((self.entries[n] for n in names), key=lambda i: i.header_offset)
        try:
            handle = open(self.path, "rb")  # noqa: SIM115  (closed below, also on error)
        except OSError as error:
            raise InputFileError(
                f"Cannot read {str(self.path)!r}: {error.strerror or error}."
            ) from None
        with handle:
            for info in infos:
                yield info.filename, self._read(handle, info)

    def _fail(self, info: zipfile.ZipInfo, problem: str) -> InputFileError:
        return InputFileError(
            f"Cannot read {str(self.path)!r}: its entry {info.filename!r} {problem}."
        )

    def _read(self, handle: BinaryIO, info: zipfile.ZipInfo) -> bytes:
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise self._fail(info, "has no valid local header (the archive is corrupt)")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        handle.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        raw = handle.read(info.compress_size)
        if len(raw) < info.compress_size:
            raise self._fail(info, "is cut short (the archive is truncated)")
        data = self._decompress(info, raw)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise self._fail(info, "does not match its recorded size and CRC-32 (it is corrupt)")
        return data

    def _decompress(self, info: zipfile.ZipInfo, raw: bytes) -> bytes:
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

    def _zstd(self, info: zipfile.ZipInfo, raw: bytes) -> bytes:
        import zstandard

        if self._decompressor is None:
            self._decompressor = zstandard.ZstdDecompressor()
        parts = []
        remaining = raw
        try:
            # inspect-ai writes big entries as several zstd frames: decompress them all.
            while remaining:
                stream = self._decompressor.decompressobj()
                parts.append(stream.decompress(remaining))
                if not stream.eof:
                    raise zstandard.ZstdError("the last frame is incomplete")
                remaining = stream.unused_data
        except zstandard.ZstdError as error:
            raise self._fail(info, f"does not decompress (zstd: {error})") from None
        return b"".join(parts)
