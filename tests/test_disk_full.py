"""The command line when the output's disk fills up mid-write.

A full disk is simulated without root by a file-size limit on the CLI subprocess
(``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored so that the write fails with ``EFBIG`` instead of
killing the process), and in-process by making the sync or the rename fail with ``ENOSPC``. Each
runs on both ways :func:`polarscore._atomic.atomic_target` writes: the nameless
``O_TMPFILE`` file (Linux) and the hidden ``.tmp`` file used where that is missing (macOS,
Windows). The run must end with exit code 5 and one line naming the output, keep the previous
output byte for byte, and leave no temporary file.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polarscore import _atomic, cli
from tests.cli_process import ENV
from tests.test_cli_faults import PREVIOUS, assert_one_line_failure

resource = pytest.importorskip("resource")  # POSIX only: file-size limits

#: Bytes a file may grow to in the limited subprocess: far less than the scored log.
LIMIT = 16 * 1024

#: The CLI, with the ``.tmp``-file writer forced when ``fallback`` is passed first.
_RUN = (
    "import sys\n"
    "from polarscore import cli\n"
    "from polarscore import _atomic\n"
    "if sys.argv[1] == 'fallback':\n"
    "    _atomic._O_TMPFILE = None\n"
    "sys.exit(cli.main(sys.argv[2:]))\n"
)


@pytest.fixture(params=["o_tmpfile", "fallback"])
def writer(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which temporary file the writer uses; the nameless one only where the system has it."""
    if request.param == "o_tmpfile":
        if not _atomic.leaves_nothing_when_killed(tmp_path):
            pytest.skip("no O_TMPFILE here")
    else:
        monkeypatch.setattr(_atomic, "_O_TMPFILE", None)
    return str(request.param)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One log of text that compresses badly, as Parquet (scored in slices) and as CSV (one
    Polars streaming sink)."""
    folder = tmp_path_factory.mktemp("logs")
    rng = random.Random(0)
    words = ["".join(rng.choices(string.ascii_lowercase, k=8)) for _ in range(6_000)]
    frame = pl.DataFrame({"response": words[:3_000], "reference": words[3_000:]})
    frame.write_parquet(folder / "log.parquet")
    frame.write_csv(folder / "log.csv")
    return {"parquet": folder / "log.parquet", "csv": folder / "log.csv"}


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _run_limited(writer: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _RUN, writer, *map(str, args)],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=_limit_file_size,
    )


def _assert_previous_kept(folder: Path, target: Path) -> None:
    assert target.read_bytes() == PREVIOUS
    assert sorted(p.name for p in folder.iterdir()) == [target.name]


@pytest.mark.parametrize("output", ["parquet", "csv"])
@pytest.mark.parametrize("source", ["parquet", "csv"])
def test_file_size_limit_mid_write(
    tmp_path: Path, logs: dict[str, Path], writer: str, source: str, output: str
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / f"scored.{output}"
    target.write_bytes(PREVIOUS)
    args = ["score", logs[source], "-o", target, "--overwrite", "--scorer", "answer_correctness"]
    done = _run_limited(writer, *args)
    assert done.returncode == cli.EXIT_OUTPUT, done.stderr
    assert_one_line_failure(done, repr(str(target)), os.strerror(errno.EFBIG))
    _assert_previous_kept(folder, target)


def test_the_limit_leaves_room_for_a_small_output(tmp_path: Path, writer: str) -> None:
    """The limit itself lets a small log through: the failures above come from the size."""
    log = tmp_path / "small.csv"
    pl.DataFrame({"response": ["Paris"], "reference": ["paris"]}).write_csv(log)
    target = tmp_path / "scored.parquet"
    done = _run_limited(writer, "score", log, "-o", target, "--scorer", "answer_correctness")
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert pl.read_parquet(target)["answer_correctness"].to_list() == [1.0]


def _no_space(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("step", ["fsync", "link", "replace"])
def test_disk_full_at_sync_or_rename(
    tmp_path: Path,
    logs: dict[str, Path],
    writer: str,
    step: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A full disk can also fail the sync, the naming (link) or the rename of the finished file."""
    if step == "link" and writer == "fallback":
        pytest.skip("the .tmp file is named from the start: nothing is linked")
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "scored.parquet"
    target.write_bytes(PREVIOUS)
    failing: Callable[..., None] = _no_space
    monkeypatch.setattr(os, step, failing)
    code = cli.main(["score", str(logs["parquet"]), "-o", str(target), "--overwrite", "-q"])
    monkeypatch.undo()
    stderr = capsys.readouterr().err
    assert code == cli.EXIT_OUTPUT, stderr
    done = subprocess.CompletedProcess[str]([], code, "", stderr)
    assert_one_line_failure(done, repr(str(target)), os.strerror(errno.ENOSPC))
    _assert_previous_kept(folder, target)
