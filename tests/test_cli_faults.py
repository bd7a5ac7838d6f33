"""The command line under faults: bad inputs, bad outputs, kills. Never a traceback, never a
partial or corrupt output; always a non-zero exit code and a one-line message.

Every input fault is run both ways the command runs: printing a summary (no ``-o``) and writing
a scored log (``-o``), which must then leave the output path exactly as it was and no
temporary file beside it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest

import polarscore as ps
from polarscore import _atomic, cli
from polarscore.datasets import load_sample
from tests.cli_process import COMMAND, ENV, run_cli

PREVIOUS = b"the previous result"


def assert_one_line_failure(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert done.returncode not in (0, None), done
    assert "Traceback" not in done.stderr, done.stderr
    # One line of error; a house-style "Hint:" line may follow it.
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("Hint:")]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("polarscore: error:"), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


class Output:
    """An output path holding a previous result, checked untouched after a failed run."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "out"
        self.folder.mkdir(exist_ok=True)
        self.path = self.folder / "scored.parquet"
        self.path.write_bytes(PREVIOUS)

    def args(self) -> list[str | Path]:
        return ["-o", self.path, "--overwrite"]

    def assert_untouched(self) -> None:
        assert self.path.read_bytes() == PREVIOUS
        assert temporaries(self.folder) == []
        assert sorted(p.name for p in self.folder.iterdir()) == ["scored.parquet"]


@pytest.fixture(params=["summary", "write"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> Output | None:
    """``None`` for the printed summary, else the :class:`Output` the run must not touch."""
    return Output(tmp_path) if request.param == "write" else None


def score(mode: Output | None, *args: str | Path) -> subprocess.CompletedProcess[str]:
    done = run_cli("score", *args, *(mode.args() if mode else []))
    if mode is not None:
        mode.assert_untouched()
    return done


@pytest.fixture(scope="module")
def good_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "log.parquet"
    pl.DataFrame(
        {"response": ["Paris", "42", None] * 200, "reference": ["paris", "41", "x"] * 200}
    ).write_parquet(path)
    return path


def test_the_good_log_scores(good_log: Path, tmp_path: Path) -> None:
    assert run_cli("score", good_log).returncode == 0
    target = tmp_path / "scored.parquet"
    done = run_cli("score", good_log, "-o", target)
    assert done.returncode == 0, done.stderr
    assert pl.read_parquet(target).height == 600
    assert temporaries(tmp_path) == []


# --- bad inputs -------------------------------------------------------------------------------


def test_missing_input(tmp_path: Path, mode: Output | None) -> None:
    assert_one_line_failure(score(mode, tmp_path / "nope.parquet"), "nope.parquet")


def test_empty_input_file(tmp_path: Path, mode: Output | None) -> None:
    path = tmp_path / "empty.parquet"
    path.write_bytes(b"")
    assert_one_line_failure(score(mode, path), "empty.parquet")


def test_truncated_input(tmp_path: Path, good_log: Path, mode: Output | None) -> None:
    data = good_log.read_bytes()
    for cut in (4, len(data) // 2, len(data) - 9):
        path = tmp_path / f"truncated_{cut}.parquet"
        path.write_bytes(data[:cut])
        assert_one_line_failure(score(mode, path), path.name)


def test_corrupt_input(tmp_path: Path, good_log: Path, mode: Output | None) -> None:
    data = bytearray(good_log.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = os.urandom(64)
    flipped = tmp_path / "flipped.parquet"
    flipped.write_bytes(bytes(data))
    text = tmp_path / "text.parquet"
    text.write_text("response,reference\nParis,paris\n")
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1" + os.urandom(4096) + b"PAR1")
    for path in (text, garbage):
        assert_one_line_failure(score(mode, path), path.name)
    # Flipped bytes inside a data page may decode to other valid values (Parquet pages carry no
    # mandatory checksum); the run must then succeed, and otherwise fail in one line.
    done = run_cli("score", flipped)
    if done.returncode != 0:
        assert_one_line_failure(done, flipped.name)


def test_directory_as_input(tmp_path: Path, mode: Output | None) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_one_line_failure(score(mode, empty), "holds no Parquet files")


def test_wrong_column_type(tmp_path: Path, mode: Output | None) -> None:
    path = tmp_path / "ints.parquet"
    pl.DataFrame({"response": [1, 2], "reference": ["a", "b"]}).write_parquet(path)
    assert_one_line_failure(score(mode, path), "'response'", "Int64")


def test_missing_column(tmp_path: Path, mode: Output | None) -> None:
    path = tmp_path / "cols.parquet"
    pl.DataFrame({"answer": ["a"], "reference": ["a"]}).write_parquet(path)
    assert_one_line_failure(score(mode, path), "'response'", "'answer'")


# --- bad outputs ------------------------------------------------------------------------------


def test_output_folder_is_a_file(good_log: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = run_cli("score", good_log, "-o", blocker / "scored.parquet")
    assert done.returncode == cli.EXIT_OUTPUT
    assert_one_line_failure(done, "is not a folder", "file")
    assert blocker.read_text() == "not a folder"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="permissions do not bind root (the check below covers the folder root cannot write)",
)
def test_unwritable_output_folder(good_log: Path, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        done = run_cli("score", good_log, "-o", folder / "scored.parquet")
    finally:
        folder.chmod(0o700)
    assert done.returncode == cli.EXIT_OUTPUT
    assert_one_line_failure(done, "is not writable", "locked")
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_output_folder_no_one_can_write(good_log: Path) -> None:
    """/proc/self refuses new files even to root: the failure is one line naming the folder."""
    done = run_cli("score", good_log, "-o", "/proc/self/scored.parquet")
    assert done.returncode == cli.EXIT_OUTPUT, done.stderr
    assert_one_line_failure(done, "/proc/self")


@pytest.mark.parametrize("overwrite", [False, True])
def test_output_equal_to_an_input(good_log: Path, tmp_path: Path, *, overwrite: bool) -> None:
    log = tmp_path / "log.parquet"
    log.write_bytes(good_log.read_bytes())
    other = tmp_path / "other.parquet"
    other.write_bytes(good_log.read_bytes())
    link = tmp_path / "alias.parquet"
    link.symlink_to(log)
    for target in (log, link, tmp_path / "." / "log.parquet"):
        args: list[str | Path] = ["score", other, log, "-o", target]
        done = run_cli(*args, *(["--overwrite"] if overwrite else []))
        assert done.returncode == cli.EXIT_OUTPUT
        assert_one_line_failure(done, "is also an input")
        assert log.read_bytes() == good_log.read_bytes()
    done = run_cli("score", tmp_path, "-o", log, "--overwrite")  # the log is in the folder read
    assert_one_line_failure(done, "is also an input")
    assert temporaries(tmp_path) == []


# --- kills in the middle of a run -------------------------------------------------------------


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log large enough that scoring it takes seconds (1.2M rows of the sample)."""
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    pl.concat([load_sample().select("response", "reference")] * 400).write_parquet(
        path, row_group_size=50_000
    )
    return path


def _writing(process: subprocess.Popen[str], folder: Path) -> bool:
    """Whether ``process`` holds a file open in ``folder``: a named temporary, or the nameless
    (O_TMPFILE) one, which /proc shows as ``folder/#inode (deleted)``."""
    if temporaries(folder):
        return True
    fds = Path(f"/proc/{process.pid}/fd")
    try:
        links = [os.readlink(fd) for fd in fds.iterdir()]
    except OSError:
        return False
    return any(link.startswith(f"{folder}/") for link in links)


@pytest.mark.parametrize(
    ("sig", "code"),
    [
        (signal.SIGINT, cli.EXIT_INTERRUPTED),
        (signal.SIGTERM, cli.EXIT_TERMINATED),
        (signal.SIGKILL, -signal.SIGKILL),
    ],
    ids=["SIGINT", "SIGTERM", "SIGKILL"],
)
def test_killed_mid_run_leaves_no_output(
    tmp_path: Path, big_log: Path, sig: signal.Signals, code: int
) -> None:
    target = tmp_path / "scored.parquet"
    target.write_bytes(PREVIOUS)
    process = subprocess.Popen(
        [*COMMAND, "score", big_log, "-o", target, "--overwrite"],
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not _writing(process, tmp_path) and process.poll() is None:
        assert time.monotonic() < deadline, "the run never started writing"
        time.sleep(0.02)
    time.sleep(0.3)  # the query is running and writing the temporary file
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr
    assert target.read_bytes() == PREVIOUS
    if sig != signal.SIGKILL:
        assert stderr.strip().endswith("no output was written"), stderr
        assert temporaries(tmp_path) == []
    elif _atomic.leaves_nothing_when_killed(tmp_path):
        assert temporaries(tmp_path) == []
    else:  # no O_TMPFILE: a hidden .tmp beside the target is all a SIGKILL can leave
        assert all(name.startswith(".scored.parquet.") for name in temporaries(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".tmp")) == [
        "scored.parquet"
    ]


def test_a_signal_while_a_query_starts_is_held_until_its_handle_is_kept() -> None:
    """Ctrl-C or SIGTERM while a background query is being started would drop its handle (a
    Polars panic when the query ends): the signal is held, and raised again, with the handler
    in place before, as the block ends; the handlers are then the ones before."""
    from polarscore.cli._progress import _signals_held

    reached: list[int] = []  # the signals whose block ran to its end

    def signal_self(number: int) -> None:
        with _signals_held():
            os.kill(os.getpid(), number)
            time.sleep(0.05)  # a Python handler would have run by now
            reached.append(number)

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        signal_self(signal.SIGINT)
    assert reached == [signal.SIGINT]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before

    class Terminated(BaseException):
        pass

    def terminate(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        with pytest.raises(Terminated):
            signal_self(signal.SIGTERM)
        assert reached == [signal.SIGINT, signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is terminate
    finally:
        signal.signal(signal.SIGTERM, previous)
    with _signals_held():  # no signal: nothing raised
        pass


# --- a valid log with no rows -----------------------------------------------------------------


def test_a_log_without_rows_goes_through_every_subcommand(tmp_path: Path) -> None:
    """Every scorer, printed and written, then summary (table and JSON) and report: exit 0."""
    empty = tmp_path / "empty.parquet"
    pl.DataFrame(schema={"response": pl.String, "reference": pl.String}).write_parquet(empty)
    scorers = [arg for name in ps.available_scorers() for arg in ("--scorer", name)]
    printed = run_cli("score", empty, *scorers, "--match-mode", "exact")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.count(" 0 ") >= 3 * len(ps.available_scorers())  # rows, scored, ...
    scored = tmp_path / "scored.parquet"
    written = run_cli("score", empty, *scorers, "-o", scored, "--quiet")
    assert written.returncode == 0, written.stderr
    assert pl.read_parquet(scored).height == 0
    assert run_cli("summary", scored).returncode == 0
    as_json = run_cli("summary", scored, "--json")
    assert (as_json.returncode, as_json.stdout.strip()) == (0, "[]"), as_json.stderr
    page = tmp_path / "report.html"
    reported = run_cli("report", scored, "-o", page)
    assert reported.returncode == 0, reported.stderr
    assert "Traceback" not in printed.stderr + written.stderr + reported.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
