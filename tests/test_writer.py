"""The atomic writer (:func:`polarscore._atomic.atomic_target`) on both of its paths.

Linux uses a nameless ``O_TMPFILE`` file, linked in under a hidden name and renamed over the
target; macOS, Windows and file systems without ``O_TMPFILE`` use a hidden ``.tmp`` file beside
the target. The second path never runs on a Linux test machine unless ``_O_TMPFILE`` is patched to
``None``, which the ``writer`` fixture does here: each test runs on both.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polarscore import _atomic, cli

PREVIOUS = b"the previous result"
NEW = b"the new result, longer than the previous one"


@pytest.fixture(params=["o_tmpfile", "fallback"])
def writer(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """Force one path; the fallback one is checked to make its ``.tmp`` file with mkstemp."""
    if request.param == "o_tmpfile":
        if not _atomic.leaves_nothing_when_killed(tmp_path):
            pytest.skip("no O_TMPFILE here")
        yield "o_tmpfile"
        return
    monkeypatch.setattr(_atomic, "_O_TMPFILE", None)
    made: list[str] = []
    mkstemp = tempfile.mkstemp

    def recording_mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        handle, name = mkstemp(*args, **kwargs)
        made.append(name)
        return handle, name

    monkeypatch.setattr(tempfile, "mkstemp", recording_mkstemp)
    yield "fallback"
    assert made, "the fallback writer did not run"


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _write(target: Path, data: bytes) -> None:
    with _atomic.atomic_target(target) as temporary, open(temporary, "wb") as out:
        out.write(data)


# --- sync before rename -----------------------------------------------------------------------


def test_the_file_is_synced_before_it_is_named_or_renamed(
    tmp_path: Path, writer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the rename but before the data reach the disk would leave an empty or
    partial file under the target's name: the sync must come first."""
    target = tmp_path / "scored.parquet"
    target.write_bytes(PREVIOUS)
    calls: list[tuple[str, Any]] = []

    def recording(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if name == "fsync":
                # What is synced is the finished temporary file, not the target or a folder.
                info = os.fstat(args[0])
                calls.append((name, (stat.S_ISREG(info.st_mode), info.st_size)))
            else:
                calls.append((name, None))
            return original(*args, **kwargs)

        return call

    for name in ("fsync", "link", "replace", "rename"):
        monkeypatch.setattr(os, name, recording(name, getattr(os, name)))
    _write(target, NEW)
    monkeypatch.undo()
    steps = [name for name, _ in calls]
    expected = ["fsync", "link", "replace"] if writer == "o_tmpfile" else ["fsync", "replace"]
    assert steps == expected
    assert calls[0][1] == (True, len(NEW))
    assert target.read_bytes() == NEW


# --- the fallback (and the nameless) path: replace, cleanup, permissions -----------------------


def test_success_replaces_the_target(tmp_path: Path, writer: str) -> None:
    target = tmp_path / "scored.csv"
    _write(target, PREVIOUS)
    assert target.read_bytes() == PREVIOUS
    _write(target, NEW)
    assert target.read_bytes() == NEW
    assert _names(tmp_path) == ["scored.csv"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_failure_removes_the_temporary_file_and_keeps_the_target(
    tmp_path: Path, writer: str, error: type[BaseException]
) -> None:
    target = tmp_path / "scored.csv"
    target.write_bytes(PREVIOUS)

    def stopped_mid_write() -> None:
        with _atomic.atomic_target(target) as temporary:
            with open(temporary, "wb") as out:
                out.write(NEW)
            raise error("stopped mid-write")

    with pytest.raises(error):
        stopped_mid_write()
    assert target.read_bytes() == PREVIOUS
    assert _names(tmp_path) == ["scored.csv"]


@pytest.fixture(params=[0o022, 0o027, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    mask: int = request.param
    previous = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(previous)


def test_permissions_follow_the_umask_as_for_a_file_open_creates(
    tmp_path: Path, writer: str, umask: int
) -> None:
    plain = tmp_path / "plain.csv"
    with open(plain, "wb") as out:
        out.write(NEW)
    target = tmp_path / "scored.csv"
    _write(target, NEW)
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_cli_overwrites_through_either_writer(
    tmp_path: Path, writer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.parquet"
    pl.DataFrame({"response": ["Paris", "Rome"], "reference": ["paris", "Oslo"]}).write_parquet(log)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "scored.parquet"
    target.write_bytes(PREVIOUS)
    args = ["score", str(log), "-o", str(target), "--overwrite", "-q"]
    assert cli.main([*args, "--scorer", "answer_correctness"]) == cli.EXIT_OK, capsys.readouterr()
    assert pl.read_parquet(target)["answer_correctness"].to_list() == [1.0, 0.0]
    plain = out / "plain"
    plain.touch()
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    plain.unlink()
    assert _names(out) == ["scored.parquet"]
    # A run failing mid-write on either writer: tests/test_disk_full.py.
