"""A per-interpreter cache of the tables the native kernels read from ``unicodedata``.

The kernels need the running interpreter's Unicode tables (:mod:`polarscore.kernels._plugin`)
and answer_match's accent folding (:func:`polarscore.normalize.fold_table`). Asking the
interpreter about every code point costs about half a second per process, which a short log
should not pay: both are built once per interpreter and Unicode version and kept in a file.

Where: ``$POLARSCORE_CACHE_DIR`` when set, else the user's cache folder (``$XDG_CACHE_HOME``
or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows) under
``polarscore/tables``. A file is named by a digest of everything its content depends on (the
interpreter's build, its ``unicodedata`` version, polarscore's version and the table's format),
written to a temporary file and renamed into place (so a reader never sees half of one), and
read back only if its header, length and checksum agree. The digest also covers the code of
the functions that build the table, so a changed recipe never reads what the old one wrote.
Anything that goes wrong (no home folder, a read-only file system, a damaged or foreign file)
falls back to building the table in the process: the cache can make start-up faster, never
wrong or failing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import CodeType

#: Bump when a cached table's content or layout changes for the same interpreter.
FORMAT = 2

_MAGIC = b"polarscore-table\n"
_DIGEST_SIZE = 4


def cache_dir() -> Path | None:
    """Return the folder of polarscore's cached tables, or ``None`` when there is none.

    Examples
    --------
    >>> import os
    >>> from polarscore.kernels._cache import cache_dir
    >>> os.environ["POLARSCORE_CACHE_DIR"] = "/tmp/polarscore-doc-cache"
    >>> str(cache_dir())
    '/tmp/polarscore-doc-cache'
    >>> del os.environ["POLARSCORE_CACHE_DIR"]
    """
    explicit = os.environ.get("POLARSCORE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base) / "polarscore" / "Cache" / "tables" if base else None
    if sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return root / "polarscore" / "tables"


def _code_identity(code: CodeType, into: list[bytes]) -> None:
    """Append what defines ``code``'s behaviour: its bytecode, names and constants."""
    into.append(code.co_code)
    into.append(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _code_identity(const, into)
        else:
            into.append(repr(const).encode())


def table_key(name: str, builders: Sequence[Callable[..., object]] = ()) -> str:
    """Return the file name of table ``name`` for the running interpreter.

    The name also depends on the code of the functions in ``builders`` that compute the table.
    """
    from polarscore import _internal

    identity = [
        name.encode(),
        str(FORMAT).encode(),
        sys.implementation.name.encode(),
        sys.version.encode(),
        unicodedata.unidata_version.encode(),
        _internal.__version__.encode(),
    ]
    for builder in builders:
        code = getattr(builder, "__code__", None)
        if isinstance(code, CodeType):
            _code_identity(code, identity)
    digest = hashlib.blake2b(b"\0".join(identity), digest_size=12).hexdigest()
    return f"{name}-{digest}.bin"


def _checksum(payload: bytes) -> bytes:
    # CRC-32 finds a damaged or truncated file, which is all this is for (the file's name, not
    # its checksum, says which table it holds). BLAKE2b over the 2.2 MB of the tables was 4% of
    # the instructions of scoring a 1,000-row log (34M); zlib's CRC-32 takes 9.6M.
    return zlib.crc32(payload).to_bytes(_DIGEST_SIZE, "little")


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 8 + _DIGEST_SIZE
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    size = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 8], "little")
    digest = data[len(_MAGIC) + 8 : head]
    payload = data[head:]
    if len(payload) != size or _checksum(payload) != digest:
        return None
    return payload


def _write(path: Path, payload: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_MAGIC)
            out.write(len(payload).to_bytes(8, "little"))
            out.write(_checksum(payload))
            out.write(payload)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def cached_table(
    name: str, build: Callable[[], bytes], *, builders: Sequence[Callable[..., object]] = ()
) -> bytes:
    """Return table ``name``, read from the cache if a valid copy is there.

    Otherwise ``build()`` makes it, and it is cached when the cache folder is writable.

    ``builders`` are the functions whose code decides the table's content (``build`` itself is
    always one): a change to any of them names a new file.

    Examples
    --------
    >>> import os, tempfile
    >>> from polarscore.kernels._cache import cached_table
    >>> os.environ["POLARSCORE_CACHE_DIR"] = tempfile.mkdtemp()
    >>> calls = []
    >>> def build():
    ...     calls.append(1)
    ...     return b"the table"
    >>> cached_table("example", build), cached_table("example", build), len(calls)
    (b'the table', b'the table', 1)
    >>> del os.environ["POLARSCORE_CACHE_DIR"]
    """
    try:
        folder = cache_dir()
    except (OSError, RuntimeError):  # no home folder to put it in
        folder = None
    if folder is None:
        return build()
    path = folder / table_key(name, [build, *builders])
    payload = _read(path)
    if payload is None:
        payload = build()
        _write(path, payload)
    return payload


__all__ = ["FORMAT", "cache_dir", "cached_table", "table_key"]
