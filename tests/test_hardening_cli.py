"""The command line under faults: bad inputs, bad outputs, kills. Never a traceback, never a
partial or corrupt output; always a non-zero exit code and a one-line message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_cli(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polarscore", *map(str, args)],
        env=ENV,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


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


@pytest.fixture(scope="module")
def good_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "log.parquet"
    pl.DataFrame(
        {"response": ["Paris", "42", None] * 200, "reference": ["paris", "41", "x"] * 200}
    ).write_parquet(path)
    return path


def test_the_good_log_scores(good_log: Path) -> None:
    done = run_cli("score", good_log)
    assert done.returncode == 0, done.stderr


def test_missing_input(tmp_path: Path) -> None:
    assert_one_line_failure(run_cli("score", tmp_path / "nope.parquet"), "nope.parquet")


def test_empty_input_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.parquet"
    path.write_bytes(b"")
    assert_one_line_failure(run_cli("score", path), "empty.parquet")


def test_truncated_input(tmp_path: Path, good_log: Path) -> None:
    data = good_log.read_bytes()
    for cut in (4, len(data) // 2, len(data) - 9):
        path = tmp_path / f"truncated_{cut}.parquet"
        path.write_bytes(data[:cut])
        assert_one_line_failure(run_cli("score", path), path.name)


def test_corrupt_input(tmp_path: Path, good_log: Path) -> None:
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
        assert_one_line_failure(run_cli("score", path), path.name)
    # Flipped bytes inside a data page may decode to other valid values (Parquet pages carry no
    # mandatory checksum); the run must then succeed, and otherwise fail in one line.
    done = run_cli("score", flipped)
    if done.returncode != 0:
        assert_one_line_failure(done, flipped.name)


def test_directory_as_input(tmp_path: Path) -> None:
    assert_one_line_failure(run_cli("score", tmp_path))


def test_wrong_column_type(tmp_path: Path) -> None:
    path = tmp_path / "ints.parquet"
    pl.DataFrame({"response": [1, 2], "reference": ["a", "b"]}).write_parquet(path)
    assert_one_line_failure(run_cli("score", path), "'response'", "Int64")


def test_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "cols.parquet"
    pl.DataFrame({"answer": ["a"], "reference": ["a"]}).write_parquet(path)
    assert_one_line_failure(run_cli("score", path), "'response'", "'answer'")
