"""Hostile eval logs, written byte by byte for the hostile-log tests.

:func:`zip_archive` writes a zip archive from entries whose every field the test chooses (the
declared size, the offset of the local header, the compressed bytes), so that an archive can lie
as a crafted one does; the rest builds inspect-ai ``.eval`` logs and JSON documents that nest,
overflow or bloat where a reader looks.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

STORED = 0
DEFLATED = 8
ZSTANDARD = 93

_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_END = struct.Struct("<4sHHHHIIH")
_END64 = struct.Struct("<4sQHHIIQQQQ")
_LOCATOR64 = struct.Struct("<4sIQI")

HEADER = json.dumps(
    {"version": 2, "status": "success", "eval": {"task": "hostile", "model": "m/x"}}
).encode()


@dataclass
class Entry:
    """One entry: its name, its data as stored, and what its directory record declares."""

    name: str
    packed: bytes
    method: int = STORED
    size: int = 0
    crc: int = 0
    #: Where the directory says its local header is (None: where it is written).
    offset: int | None = None
    #: Whether its local header and data are written (False: a record pointing elsewhere).
    written: bool = True
    extra: dict[str, int] = field(default_factory=dict)


def entry(name: str, data: bytes, method: int = STORED, **declared: int) -> Entry:
    """An entry holding ``data`` compressed by ``method``; ``declared`` overrides the record."""
    if method == DEFLATED:
        packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        packed = packer.compress(data) + packer.flush()
    elif method == ZSTANDARD:
        import zstandard

        packed = zstandard.ZstdCompressor().compress(data)
    else:
        packed = data
    made = Entry(name, packed, method, len(data), zlib.crc32(data))
    for key, value in declared.items():
        setattr(made, key, value)
    return made


def packed_run(byte: bytes, size: int, method: int) -> tuple[bytes, int]:
    """``size`` copies of ``byte`` compressed by ``method`` (1 MiB at a time), and their CRC-32."""
    chunk = byte * (1 << 20)
    crc = 0
    parts = []
    if method == DEFLATED:
        packer = zlib.compressobj(1, zlib.DEFLATED, -zlib.MAX_WBITS)
        for start in range(0, size, len(chunk)):
            piece = chunk[: size - start]
            crc = zlib.crc32(piece, crc)
            parts.append(packer.compress(piece))
        parts.append(packer.flush())
    else:
        import zstandard

        stream = zstandard.ZstdCompressor(level=1).compressobj()
        for start in range(0, size, len(chunk)):
            piece = chunk[: size - start]
            crc = zlib.crc32(piece, crc)
            parts.append(stream.compress(piece))
        parts.append(stream.flush())
    return b"".join(parts), crc


def zip_archive(entries: Sequence[Entry]) -> bytes:
    """The bytes of a zip archive of ``entries``, in order (zip64 end records past 65,535)."""
    body = bytearray()
    records = []
    for item in entries:
        name = item.name.encode()
        at = len(body)
        if item.written:
            body += _LOCAL.pack(
                b"PK\x03\x04", 20, 0, item.method, 0, 0x21, item.crc, len(item.packed),
                item.size, len(name), 0,
            )  # fmt: skip
            body += name + item.packed
        offset = at if item.offset is None else item.offset
        records.append(
            _CENTRAL.pack(
                b"PK\x01\x02",
                20,
                20,
                0,
                item.method,
                0,
                0x21,
                item.crc,
                len(item.packed),
                item.size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + name
        )
    return _finish(bytes(body), b"".join(records), len(entries))


def sample(index: int, **fields: object) -> dict[str, object]:
    """A compact inspect-ai sample, as inspect-ai writes it (``events`` after what is read)."""
    return {
        "id": index,
        "epoch": 1,
        "input": f"Question {index}?",
        "target": "A",
        "messages": [],
        "output": {"model": "m/x", "choices": [], "completion": "A"},
        "scores": {"match": {"value": "C"}},
        **fields,
        "events": [],
        "attachments": {},
    }


def sample_text(index: int, **fields: object) -> bytes:
    """The entry text of :func:`sample`, compact (``"@DEEP@"`` values: see :func:`inflate`)."""
    return json.dumps(sample(index, **fields), separators=(",", ":")).encode()


def nested(depth: int) -> bytes:
    """An array nested ``depth`` deep."""
    return b"[" * depth + b"]" * depth


def swap(text: bytes, marker: str, value: bytes) -> bytes:
    """``text`` with the JSON string ``marker`` replaced by the raw JSON ``value``."""
    quoted = json.dumps(marker).encode()
    assert quoted in text, marker
    return text.replace(quoted, value, 1)


def eval_log(samples: Iterable[Entry], *, method: int = DEFLATED) -> bytes:
    """An inspect-ai ``.eval`` archive: its header, then ``samples``."""
    return zip_archive([entry("header.json", HEADER, method), *samples])


def tiny_samples(count: int) -> bytes:
    """An ``.eval`` archive of ``count`` tiny stored sample entries, written in one pass."""
    body = [_local_bytes("header.json", HEADER)]
    central = [_central_bytes("header.json", HEADER, 0)]
    at = len(body[0])
    for index in range(count):
        name = f"samples/{index}_epoch_1.json"
        data = b'{"id":%d,"output":{"completion":"A"}}' % index
        local = _local_bytes(name, data)
        body.append(local)
        central.append(_central_bytes(name, data, at))
        at += len(local)
    return _finish(b"".join(body), b"".join(central), count + 1)


def _local_bytes(name: str, data: bytes) -> bytes:
    raw = name.encode()
    crc, size = zlib.crc32(data), len(data)
    return _LOCAL.pack(b"PK\x03\x04", 20, 0, 0, 0, 0x21, crc, size, size, len(raw), 0) + raw + data


def _central_bytes(name: str, data: bytes, offset: int) -> bytes:
    raw = name.encode()
    crc, size = zlib.crc32(data), len(data)
    return (
        _CENTRAL.pack(
            b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, crc, size, size, len(raw), 0, 0, 0, 0, 0, offset
        )
        + raw
    )


def _finish(body: bytes, directory: bytes, count: int) -> bytes:
    """``body`` then ``directory`` and the end records of ``count`` entries."""
    out = bytearray(body)
    directory_at = len(out)
    out += directory
    if count > 0xFFFF:
        end64_at = len(out)
        out += _END64.pack(
            b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(directory), directory_at
        )
        out += _LOCATOR64.pack(b"PK\x06\x07", 0, end64_at, 1)
        count = 0xFFFF
    out += _END.pack(b"PK\x05\x06", 0, 0, count, count, len(directory), directory_at, 0)
    return bytes(out)
