"""The cache of the interpreter's tables: read back only when valid, never a reason to fail."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from polarscore.kernels import _cache
from polarscore.kernels._cache import cached_table, table_key
from polarscore.kernels._plugin import _flag_bytes, unicode_flags
from polarscore.normalize import _fold_table_bytes, _fold_table_from_bytes, fold_table


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POLARSCORE_CACHE_DIR", str(tmp_path))
    return tmp_path


class Builder:
    """Counts its calls; its table is its payload."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.calls = 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.payload


def _build_table() -> bytes:
    return b"\x01\x02" * 1000


def test_a_table_is_built_once_then_read(cache: Path) -> None:
    build = Builder(_build_table())
    first = cached_table("t", build, builders=[_build_table])
    second = cached_table("t", build, builders=[_build_table])
    assert first == second == _build_table()
    assert build.calls == 1
    # One file, named by the table; no temporary left behind.
    assert [p.name for p in cache.iterdir()] == [table_key("t", [build, _build_table])]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1],  # truncated payload
        lambda data: data[:10],  # truncated header
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # a flipped bit
        lambda data: b"not a table" + data,  # a foreign file
        lambda data: b"",
    ],
)
def test_a_damaged_file_is_rebuilt_not_read(cache: Path, damage: object) -> None:
    build = Builder(_build_table())
    cached_table("t", build)
    (path,) = cache.iterdir()
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert cached_table("t", build) == _build_table()
    assert build.calls == 2
    # ... and the rebuilt table replaced the damaged file.
    assert cached_table("t", build) == _build_table()
    assert build.calls == 2


def test_a_changed_builder_names_a_new_file(cache: Path) -> None:
    def old() -> bytes:
        return b"old recipe"

    def new() -> bytes:
        return b"new recipe"

    assert table_key("t", [old]) != table_key("t", [new])
    assert cached_table("t", old) == b"old recipe"
    assert cached_table("t", new) == b"new recipe"


def test_an_unwritable_cache_folder_falls_back_to_building(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    build = Builder(b"payload")
    assert cached_table("t", build) == b"payload"
    assert cached_table("t", build) == b"payload"
    assert build.calls == 2
    assert list(cache.iterdir()) == []


def test_a_failed_rename_leaves_no_temporary(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", refuse)
    assert cached_table("t", Builder(b"payload")) == b"payload"
    assert list(cache.iterdir()) == []


def test_a_cache_folder_that_cannot_exist_falls_back_to_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("POLARSCORE_CACHE_DIR", str(blocker / "tables"))
    build = Builder(b"payload")
    assert cached_table("t", build) == b"payload"
    assert cached_table("t", build) == b"payload"
    assert build.calls == 2


def test_no_home_folder_falls_back_to_building(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("POLARSCORE_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    monkeypatch.setattr(Path, "home", no_home)
    build = Builder(b"payload")
    assert cached_table("t", build) == b"payload"


def test_the_default_folder_is_the_users_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLARSCORE_CACHE_DIR", raising=False)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
        assert _cache.cache_dir() == Path("/somewhere/cache/polarscore/tables")
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
        assert _cache.cache_dir() == Path.home() / ".cache" / "polarscore" / "tables"


def test_cached_unicode_flags_equal_the_interpreters(cache: Path) -> None:
    built = cached_table("unicode-flags", _flag_bytes, builders=[unicode_flags])
    read = cached_table("unicode-flags", _flag_bytes, builders=[unicode_flags])
    assert built == read == unicode_flags().astype("<u2").tobytes()


def test_cached_fold_table_equals_the_interpreters(cache: Path) -> None:
    built = cached_table("match-fold", _fold_table_bytes, builders=[fold_table])
    read = cached_table("match-fold", _fold_table_bytes, builders=[fold_table])
    assert built == read
    assert _fold_table_from_bytes(read) == fold_table()


@pytest.mark.parametrize(
    "payload",
    [
        b"",  # no count
        b"\x05\x00\x00\x00",  # a count with nothing behind it
        b"\x01\x00\x00\x00\xe9\x00\x00\x00\x02\x00\x00\x00e",  # an end past the text
        b"\x01\x00\x00\x00\xe9\x00\x00\x00\x01\x00\x00\x00ee",  # text left over
        b"\x01\x00\x00\x00\xe9\x00\x00\x00\x01\x00\x00\x00\xff",  # not UTF-8
    ],
)
def test_a_malformed_fold_table_is_refused_natively(payload: bytes) -> None:
    """The extension unpacks the cached fold table itself: a damaged one is an error, not a
    table read past its end."""
    from polarscore import _internal

    with pytest.raises(ValueError, match="accent-folding table is malformed"):
        _internal.set_match_fold_table(payload)
