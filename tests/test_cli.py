"""The command line, run as a real subprocess on temporary files."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore import _io, cli
from polarscore.datasets import load_sample
from polarscore.summary import wilson_interval
from tests import oracles_checks
from tests.cli_process import COMMAND, ENV, run_cli

LOG = pl.DataFrame(
    {
        "id": [1, 2, 3, 4, 5, 6],
        "answer": ["Paris.", "It is Paris", "Lyon", "paris", None, "Rome"],
        "gold": ["paris", "Paris", "Paris", None, "Paris", "rome"],
        "mode": ["exact", "contains", "normalized", "exact", None, "EXACT"],
        "model": ["a", "a", "a", "b", "b", "b"],
    }
)


def expected_scores(frame: pl.DataFrame, **kwargs: object) -> pl.DataFrame:
    return ps.score_frame(frame, response="answer", reference="gold", **kwargs)  # type: ignore[arg-type]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_sample_summary_per_mode() -> None:
    result = run_cli("score", "--sample")
    assert result.returncode == 0, result.stderr
    sample = load_sample()
    assert "answer_correctness on triviaqa_sample.parquet" in result.stdout
    for mode in ("exact", "normalized", "contains"):
        mean = sample.select(ps.answer_correctness("response", "reference", match_mode=mode).mean())
        line = next(line for line in result.stdout.splitlines() if f" {mode} " in line)
        assert f"{mean.item():.4f}" in line
        assert "3000" in line


def test_parquet_to_parquet(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    result = run_cli(
        "score",
        source,
        "-o",
        target,
        "--response",
        "answer",
        "--reference",
        "gold",
        "--scorer",
        "answer_correctness:match_mode=contains",
        "--threshold",
        "0.5",
    )
    assert result.returncode == 0, result.stderr
    assert "wrote 6 rows" in result.stderr
    expected = expected_scores(
        LOG, scorers={"answer_correctness": {"match_mode": "contains"}}, thresholds=0.5
    )
    assert_frame_equal(pl.read_parquet(target), expected)
    assert leftovers(tmp_path) == []


def test_jsonl_to_csv_with_mode_column_and_prefix(tmp_path: Path) -> None:
    source, target = tmp_path / "log.jsonl", tmp_path / "scored.csv"
    LOG.write_ndjson(source)
    result = run_cli(
        "score",
        source,
        "-o",
        target,
        "--response",
        "answer",
        "--reference",
        "gold",
        "--scorer",
        "answer_correctness",
        "--mode-column",
        "mode",
        "--prefix",
        "row_",
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = expected_scores(
        LOG, scorers={"answer_correctness": {"match_mode": pl.col("mode")}}, prefix="row_"
    )
    assert_frame_equal(pl.read_csv(target), expected)
    assert pl.read_csv(target)["row_answer_correctness"].to_list() == [
        0.0,
        1.0,
        0.0,
        None,
        0.0,
        0.0,
    ]


def test_csv_input_with_option_read_from_a_column(tmp_path: Path) -> None:
    source, target = tmp_path / "log.csv", tmp_path / "scored.parquet"
    LOG.write_csv(source)
    result = run_cli(
        "score",
        source,
        "-o",
        target,
        "--response=answer",
        "--reference=gold",
        "--scorer",
        "answer_correctness:match_mode=@mode",
        "--threshold",
        "answer_correctness=1",
    )
    assert result.returncode == 0, result.stderr
    expected = expected_scores(
        pl.read_csv(source),
        scorers={"answer_correctness": {"match_mode": pl.col("mode")}},
        thresholds={"answer_correctness": 1.0},
    )
    assert_frame_equal(pl.read_parquet(target), expected)


def test_directory_and_glob_of_parquet(tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    (parts / "day=2").mkdir(parents=True)
    LOG.head(2).write_parquet(parts / "a.parquet")
    LOG.slice(2, 2).write_parquet(parts / "b.parquet")
    LOG.tail(2).write_parquet(parts / "day=2" / "c.parquet")
    (parts / "notes.txt").write_text("not a log")
    target = tmp_path / "scored.parquet"
    common = ["--response", "answer", "--reference", "gold", "--scorer", "answer_correctness"]
    result = run_cli("score", parts, "-o", target, *common)
    assert result.returncode == 0, result.stderr
    expected = expected_scores(LOG, scorers="answer_correctness")
    assert_frame_equal(pl.read_parquet(target).sort("id"), expected)
    glob_target = tmp_path / "glob.parquet"
    result = run_cli("score", str(parts / "*.parquet"), "-o", glob_target, *common)
    assert result.returncode == 0, result.stderr
    assert_frame_equal(pl.read_parquet(glob_target).sort("id"), expected.head(4))


def test_every_default_scorer_by_default(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    result = run_cli("score", source, "-o", target, "--response", "answer", "--reference", "gold")
    assert result.returncode == 0, result.stderr
    assert pl.read_parquet(target).columns == [*LOG.columns, *ps.default_scorers()]


def test_checks_with_options(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    result = run_cli(
        "score",
        source,
        "-o",
        target,
        "--response",
        "answer",
        "--reference",
        "gold",
        "--scorer",
        'contains:keywords=["paris","42"],mode=all',
        "--scorer",
        "regex_match:pattern=\\d+$",
        "--scorer",
        "length_check:min_length=2,unit=words",
    )
    assert result.returncode == 0, result.stderr
    scored = pl.read_parquet(target)
    answers = LOG["answer"].to_list()
    assert scored["contains"].to_list() == [
        oracles_checks.contains(a, ["paris", "42"], "all")[0] for a in answers
    ]
    assert scored["regex_match"].to_list() == [
        oracles_checks.regex_match(a, r"\d+$")[0] for a in answers
    ]
    assert scored["length_check"].to_list() == [
        oracles_checks.length_check(a, 2, unit="words")[0] for a in answers
    ]


def test_existing_output_needs_overwrite(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    target.write_bytes(b"keep me")
    args = ["score", source, "-o", target, "--response", "answer", "--reference", "gold"]
    result = run_cli(*args)
    assert result.returncode == cli.EXIT_OUTPUT
    assert "already exists" in result.stderr
    assert "--overwrite" in result.stderr
    assert target.read_bytes() == b"keep me"
    result = run_cli(*args, "--overwrite")
    assert result.returncode == 0, result.stderr
    assert pl.read_parquet(target).height == LOG.height
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["missing.parquet"], cli.EXIT_INPUT, "'missing.parquet' does not exist"),
        (["corrupt.parquet"], cli.EXIT_INPUT, "Cannot read 'corrupt.parquet'"),
        (["truncated.parquet"], cli.EXIT_INPUT, "Cannot read 'truncated.parquet'"),
        (["log.txt"], cli.EXIT_INPUT, "Cannot tell the format"),
        (["empty_dir"], cli.EXIT_INPUT, "holds no Parquet files"),
        (["nothing*.parquet"], cli.EXIT_INPUT, "matches no file"),
        (
            ["log.parquet", "--response", "reply"],
            cli.EXIT_DATA,
            "The response column 'reply' is not in the frame. Available columns: 'id', 'answer'",
        ),
        (
            ["log.parquet", "--response", "id"],
            cli.EXIT_DATA,
            "The response column 'id' must hold text (String); it is Int64.",
        ),
        (["log.parquet", "--mode-column", "nope"], cli.EXIT_DATA, "'nope' is not in the frame"),
        (["log.parquet", "--scorer", "answer_corectness"], cli.EXIT_USAGE, "answer_correctness"),
        (
            ["log.parquet", "--scorer", "answer_correctness:mode=exact"],
            cli.EXIT_USAGE,
            "no option 'mode'. Its options: 'match_mode'",
        ),
        (
            ["log.parquet", "--scorer", "answer_correctness:match_mode=exakt"],
            cli.EXIT_USAGE,
            "Got 'exakt' instead",
        ),
        (["log.parquet", "--threshold", "high"], cli.EXIT_USAGE, "--threshold value"),
        (["log.parquet", "--threshold", "2"], cli.EXIT_USAGE, "<= 1"),
        (["log.parquet", "-o", "out.json"], cli.EXIT_OUTPUT, "Cannot tell the output format"),
        (["log.parquet", "-o", "no/such/dir/out.parquet"], cli.EXIT_OUTPUT, "does not exist"),
        (["log.parquet", "-o", "nested.csv"], cli.EXIT_DATA, "CSV cannot hold"),
        (["--sample", "log.parquet"], cli.EXIT_USAGE, "either INPUT files or --sample"),
    ],
)
def test_errors(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    LOG.write_parquet(tmp_path / "log.parquet")
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 this is not parquet")
    whole = (tmp_path / "log.parquet").read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "log.txt").write_text("hello")
    (tmp_path / "empty_dir").mkdir()
    if "nested.csv" in args:
        LOG.with_columns(golds=pl.concat_list("gold")).write_parquet(tmp_path / "log.parquet")
    if "-o" not in args and "--sample" not in args:
        args = [*args, "-o", "out.parquet"]
    if "--response" not in args and "--sample" not in args:
        args = [*args, "--response", "answer"]
    result = run_cli("score", *args, "--reference", "gold", cwd=tmp_path)
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert result.stderr.startswith("polarscore: error:") or code == cli.EXIT_USAGE
    assert not (tmp_path / "out.parquet").exists()
    assert leftovers(tmp_path) == []


def test_error_mid_run_leaves_no_output(tmp_path: Path) -> None:
    """A CSV row that breaks the schema inferred from the first rows fails during the scan."""
    source = tmp_path / "log.csv"
    lines = ["n,answer,gold"] + [f"{i},Paris,paris" for i in range(5_000)] + ["oops,Paris,paris"]
    source.write_text("\n".join(lines) + "\n")
    target = tmp_path / "scored.parquet"
    result = run_cli("score", source, "-o", target, "--response", "answer", "--reference", "gold")
    assert result.returncode == cli.EXIT_INPUT, result.stderr
    assert "polarscore: error:" in result.stderr
    assert not target.exists()
    assert leftovers(tmp_path) == []


def _run_on_pty(*args: str | Path) -> tuple[int, str]:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [*COMMAND, *map(str, args)],
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=terminal,
        )
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal closed: the child is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        return process.wait(timeout=120), b"".join(chunks).decode()
    finally:
        os.close(controller)


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    source = tmp_path / "log.parquet"
    LOG.write_parquet(source)
    common = ["--response", "answer", "--reference", "gold"]
    code, shown = _run_on_pty("score", source, "-o", tmp_path / "a.parquet", *common)
    assert code == 0
    assert "6/6 rows (100%)" in shown
    assert "rows/s" in shown
    code, shown = _run_on_pty("score", source, "-o", tmp_path / "b.parquet", *common, "-q")
    assert code == 0
    assert shown == ""
    piped = run_cli("score", source, "-o", tmp_path / "c.parquet", *common)
    assert piped.returncode == 0
    assert "rows/s" not in piped.stderr


def test_summary_table_and_json(tmp_path: Path) -> None:
    scored = expected_scores(LOG, scorers="answer_correctness", thresholds=0.5)
    path = tmp_path / "scored.parquet"
    scored.write_parquet(path)
    table = run_cli("summary", path, "--by", "model")
    assert table.returncode == 0, table.stderr
    assert "pass rate 95% CI" in table.stdout
    line_b = next(line for line in table.stdout.splitlines() if " b " in line)
    low, high = wilson_interval(1, 2)  # model b: 0.0, null, 1.0 at 0.5
    assert f"{low:.4f} – {high:.4f}" in line_b
    assert " 0.5000 " in line_b
    as_json = run_cli("summary", path, "--by", "model", "--json", "--seed", "3")
    assert as_json.returncode == 0, as_json.stderr
    rows = json.loads(as_json.stdout)
    expected = ps.summarize(scored, by="model", seed=3)
    assert rows == expected.to_dicts()
    assert [(r["model"], r["scored"], r["inconclusive"]) for r in rows] == [
        ("a", 3, 0),
        ("b", 2, 1),
    ]


def test_summary_options_and_errors(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {"answer_correctness": [1.0, 0.5, None, 0.0], "kind": ["good", "bad", "good", "bad"]}
    )
    path = tmp_path / "scored.csv"
    frame.write_csv(path)
    result = run_cli("summary", path, "--threshold", "0.6", "--expected-behavior", "kind", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert (row["scored"], row["passed"], row["good_pass_rate"], row["bad_pass_rate"]) == (
        3,
        1,
        1.0,
        0.0,
    )
    missing = run_cli("summary", path, "--by", "team")
    assert missing.returncode == cli.EXIT_DATA
    assert "'team' is not in the frame. Available columns: 'answer_correctness', 'kind'" in (
        missing.stderr
    )
    bad = run_cli("summary", path, "--confidence", "2")
    assert bad.returncode == cli.EXIT_USAGE
    assert "confidence" in bad.stderr
    absent = run_cli("summary", tmp_path / "nope.parquet")
    assert absent.returncode == cli.EXIT_INPUT


def test_scorers_lists_the_registry() -> None:
    result = run_cli("scorers")
    assert result.returncode == 0
    for name in ps.available_scorers():
        assert name in result.stdout
    assert "match_mode='normalized'" in result.stdout


def test_parse_scorer_values() -> None:
    """Option text is read with the type of the option's default (in-process, no subprocess)."""
    assert cli._parse_value("s", "n", "3", 1) == 3
    assert cli._parse_value("s", "x", "0.25", 0.0) == 0.25
    assert cli._parse_value("s", "b", "yes", False) is True
    assert cli._parse_value("s", "w", "[0.5, 0.5]", None) == [0.5, 0.5]
    assert cli._parse_value("s", "w", "plain", None) == "plain"
    assert str(cli._parse_value("s", "m", "@mode", "x")) == str(pl.col("mode"))
    with pytest.raises(ps.InvalidParameterError, match="takes a float"):
        cli._parse_value("s", "x", "high", 0.0)
    assert cli._split_options("a=1,w=[1,2],s='x,y'") == ["a=1", "w=[1,2]", "s='x,y'"]


def test_parquet_read_ahead_is_bounded_unless_the_user_chose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI caps Polars' Parquet read-ahead (peak memory flat in the log's size)."""
    monkeypatch.delenv(cli.PARQUET_PREFETCH_VARIABLE, raising=False)
    assert cli.main(["scorers"]) == cli.EXIT_OK
    assert os.environ[cli.PARQUET_PREFETCH_VARIABLE] == "1"
    monkeypatch.setenv(cli.PARQUET_PREFETCH_VARIABLE, "8")
    assert cli.main(["scorers"]) == cli.EXIT_OK
    assert os.environ[cli.PARQUET_PREFETCH_VARIABLE] == "8"


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_slices_join_into_the_one_query_result(tmp_path: Path, kind: str) -> None:
    """Scoring slice by slice (the CLI's path for Parquet inputs) writes exactly what one
    query over the whole log gives, in order, whatever the slice size."""
    source = tmp_path / "log.parquet"
    pl.concat([load_sample().select("response", "reference")] * 2).head(2_003).write_parquet(
        source, row_group_size=400
    )
    scored = ps.score_frame(pl.scan_parquet(source), scorers=["answer_correctness"])
    expected = scored.collect()
    for slice_rows in (1, 499, 2_003, 10_000):
        target = tmp_path / f"out_{slice_rows}.{kind}"
        progress = _io.Progress(expected.height, stream=None)
        _io.write_in_slices(
            scored if slice_rows > 1 else scored.head(20),
            target,
            kind,  # type: ignore[arg-type]
            total=expected.height if slice_rows > 1 else 20,
            progress=progress,
            slice_rows=slice_rows,
        )
        got = pl.read_parquet(target) if kind == "parquet" else pl.read_csv(target)
        want = expected if slice_rows > 1 else expected.head(20)
        assert_frame_equal(got, want, check_dtypes=kind == "parquet")
        assert progress.rows == want.height
