"""The command line, run as a real subprocess on temporary files."""

from __future__ import annotations

import inspect
import itertools
import json
import os
import pty
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore import _inputs, cli
from polarscore.cli import _args, _output, _progress
from polarscore.datasets import load_sample
from polarscore.summary import wilson_interval
from tests.cli_process import COMMAND, ENV, run_cli
from tests.oracles import checks as oracle

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


def _table_rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """Read the printed summary table: (scorer, match_mode) -> the other cells."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("┆")]
        if len(cells) > 2 and cells[0] != "scorer":
            rows[cells[0], cells[1]] = cells[2:]
    return rows


def test_sample_summary_per_mode_against_the_alias_list() -> None:
    result = run_cli("score", "--sample")
    assert result.returncode == 0, result.stderr
    sample = load_sample()
    assert "triviaqa_sample.parquet" in result.stdout
    assert "against references 'references'" in result.stdout
    rows = _table_rows(result.stdout)
    for mode in ("exact", "normalized", "contains"):
        score = ps.answer_correctness("response", "references", match_mode=mode)
        mean = sample.select(score.mean()).item()
        cells = rows["answer_correctness", mode]
        assert cells[0] == "3000"
        assert cells[3] == f"{mean:.4f}"
    # The headline verdict first, graded by the kind the sample's golds tell (short answers).
    correct = ps.score_frame(sample, references="references", scorers=["correct"])["correct"]
    cells = rows["correct", "-"]
    assert cells[1:4] == [str(correct.count()), str(correct.null_count()), f"{correct.mean():.4f}"]
    human = sample["human_correct"]
    cells = rows["human verdict (human_correct)", "-"]
    assert cells[1:4] == [str(human.count()), str(human.null_count()), f"{human.mean():.4f}"]


def test_print_mode_runs_the_chosen_scorers_and_thresholds(tmp_path: Path) -> None:
    source = tmp_path / "log.parquet"
    log = LOG.with_columns(golds=pl.concat_list("gold", pl.lit("Rome")))
    log.write_parquet(source)
    result = run_cli(
        "score",
        source,
        "--response",
        "answer",
        "--references",
        "golds",
        "--scorer",
        "answer_match",
        "--scorer",
        "squad_f1",
        "--threshold",
        "answer_match=0.5",
    )
    assert result.returncode == 0, result.stderr
    rows = _table_rows(result.stdout)
    assert set(rows) == {("answer_match", "-"), ("squad_f1", "-")}
    match = log.select(ps.answer_match("answer", "golds")).to_series()
    f1 = log.select(ps.squad_f1("answer", "golds")).to_series()
    assert rows["answer_match", "-"][3:] == [
        f"{match.mean():.4f}",
        "0.5000",
        f"{(match >= 0.5).sum() / match.count():.4f}",
    ]
    assert rows["squad_f1", "-"][3] == f"{f1.mean():.4f}"
    assert rows["squad_f1", "-"][4:] == ["null", "null"]
    # A list column given as --reference scores like --references, as it does with -o.
    listed = run_cli(
        "score", source, "--response", "answer", "--reference", "golds", "--scorer", "answer_match"
    )
    assert listed.returncode == 0, listed.stderr
    assert _table_rows(listed.stdout)["answer_match", "-"][3] == f"{match.mean():.4f}"


@pytest.mark.parametrize(
    "flags", [["--prefix", "x_"], ["--drop", "id"], ["--format", "csv"], ["--overwrite"]]
)
def test_print_mode_refuses_output_only_flags(tmp_path: Path, flags: list[str]) -> None:
    source = tmp_path / "log.parquet"
    LOG.write_parquet(source)
    result = run_cli("score", source, "--response", "answer", "--reference", "gold", *flags)
    assert result.returncode == cli.EXIT_USAGE
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert flags[0] in result.stderr
    assert "only with -o" in result.stderr


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


def test_files_with_different_columns_are_unioned_by_name(tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    LOG.head(3).drop("model").write_parquet(parts / "a.parquet")
    LOG.tail(3).drop("mode").with_columns(extra=pl.lit(7)).write_parquet(parts / "b.parquet")
    target = tmp_path / "scored.parquet"
    common = ["--response", "answer", "--reference", "gold", "--scorer", "answer_correctness"]
    result = run_cli("score", parts, "-o", target, *common)
    assert result.returncode == 0, result.stderr
    assert "panicked" not in result.stderr
    unioned = pl.concat(
        [LOG.head(3).drop("model"), LOG.tail(3).drop("mode").with_columns(extra=pl.lit(7))],
        how="diagonal",
    )
    expected = expected_scores(unioned, scorers="answer_correctness")
    assert_frame_equal(pl.read_parquet(target), expected)
    # Print mode reads the same union.
    result = run_cli("score", parts, "--response", "answer", "--reference", "gold")
    assert result.returncode == 0, result.stderr


def test_a_file_lacking_a_needed_column_is_named(tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    LOG.head(3).write_parquet(parts / "a.parquet")
    LOG.tail(3).drop("gold").write_parquet(parts / "b.parquet")
    target = tmp_path / "scored.parquet"
    env = {**ENV, "RUST_BACKTRACE": "1"}
    columns = ["--response", "answer", "--reference", "gold"]
    result = subprocess.run(
        [*COMMAND, "score", str(parts), "-o", str(target), *columns],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == cli.EXIT_DATA
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "b.parquet" in lines[0]
    assert "'gold'" in lines[0]
    assert "panicked" not in result.stderr
    assert not target.exists()


def test_files_disagreeing_on_a_column_type_are_refused(tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    LOG.head(3).write_parquet(parts / "a.parquet")
    LOG.tail(3).with_columns(pl.col("id").cast(pl.String)).write_parquet(parts / "b.parquet")
    result = run_cli("score", parts, "-o", tmp_path / "out.parquet", "--response", "answer")
    assert result.returncode == cli.EXIT_INPUT
    assert "'id'" in result.stderr
    assert "b.parquet" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_every_default_scorer_by_default(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    result = run_cli("score", source, "-o", target, "--response", "answer", "--reference", "gold")
    assert result.returncode == 0, result.stderr
    # correct, a default scorer, writes the task kind it graded by (told from the golds)
    assert pl.read_parquet(target).columns == [*LOG.columns, "task_kind", *ps.default_scorers()]


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
        oracle.contains(a, ["paris", "42"], "all")[0] for a in answers
    ]
    assert scored["regex_match"].to_list() == [oracle.regex_match(a, r"\d+$")[0] for a in answers]
    assert scored["length_check"].to_list() == [
        oracle.length_check(a, 2, unit="words")[0] for a in answers
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
            "The --response column 'reply' is not in the input. Available columns: 'id', 'answer'",
        ),
        (
            ["log.parquet", "--response", "id"],
            cli.EXIT_DATA,
            "The --response column 'id' holds Int64, not text (String).\nHint: the command line",
        ),
        (["log.parquet", "--mode-column", "nope"], cli.EXIT_DATA, "'nope' is not in the input"),
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
        (["log.parquet", "--threshold", "2"], cli.EXIT_USAGE, "between 0 and 1"),
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
    # The command line speaks of flags and files, not of Python parameters.
    assert "parameter" not in result.stderr
    assert "frame" not in result.stderr
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
    assert (
        "--by column 'team' is not in the input. Available columns: 'answer_correctness', 'kind'"
        in missing.stderr
    )
    assert "parameter" not in missing.stderr
    bad = run_cli("summary", path, "--confidence", "2")
    assert bad.returncode == cli.EXIT_USAGE
    assert "confidence" in bad.stderr
    absent = run_cli("summary", tmp_path / "nope.parquet")
    assert absent.returncode == cli.EXIT_INPUT


def test_summary_errors_name_flags(tmp_path: Path) -> None:
    path = tmp_path / "log.parquet"
    LOG.write_parquet(path)
    cases = {
        (): "Hint: name the score columns with --scores.",
        ("--scores", "id", "--threshold", "2"): "--threshold must be between 0 and 1",
        ("--scores", "answer"): "The --scores column 'answer' holds String, not numbers.",
        ("--scores", "id", "--n-bootstrap", "-1"): "--n-bootstrap must be 0 or more",
    }
    for flags, message in cases.items():
        result = run_cli("summary", path, *flags)
        assert result.returncode in (cli.EXIT_USAGE, cli.EXIT_DATA), result.stderr
        assert message in result.stderr
        assert "parameter" not in result.stderr
        assert "Got None" not in result.stderr


def test_one_default_threshold() -> None:
    def default(function: object) -> object:
        return inspect.signature(function).parameters["threshold"].default  # type: ignore[arg-type]

    assert default(ps.is_passing) == default(ps.summarize) == ps.DEFAULT_THRESHOLD
    assert _args._build_parser().parse_args(["summary", "x.parquet"]).threshold is None
    help_text = " ".join(run_cli("summary", "--help").stdout.split())
    assert f"recorded in the file by 'polarscore score', else {ps.DEFAULT_THRESHOLD})" in help_text


@pytest.mark.parametrize("suffix", ["parquet", "jsonl"])
def test_scored_file_records_how_it_was_scored(tmp_path: Path, suffix: str) -> None:
    source, target = tmp_path / f"log.{suffix}", tmp_path / "scored.parquet"
    if suffix == "parquet":
        LOG.write_parquet(source)
    else:
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
        "answer_correctness:match_mode=contains",
        "--scorer",
        "squad_f1",
        "--threshold",
        "answer_correctness=0.8",
    )
    assert result.returncode == 0, result.stderr
    record = ps.read_provenance(target)
    assert record is not None
    assert record["polarscore_version"] == ps.__version__
    assert (record["response"], record["reference"], record["references"]) == (
        "answer",
        "gold",
        None,
    )
    correctness, f1 = record["scorers"]
    assert correctness == {
        "name": "answer_correctness",
        "column": "answer_correctness",
        "options": {"match_mode": "contains"},
        "threshold": 0.8,
        "pass_column": "answer_correctness_passed",
    }
    assert (f1["name"], f1["threshold"], f1["pass_column"]) == ("squad_f1", None, None)
    rows = LOG.height if suffix == "parquet" else None
    assert record["inputs"] == [{"path": str(source), "rows": rows}]
    assert ps.recorded_thresholds(record) == {"answer_correctness": 0.8}
    # The Python API builds the same scorer entries.
    same = ps.scoring_record(
        response="answer",
        reference="gold",
        scorers={"answer_correctness": {"match_mode": "contains"}, "squad_f1": None},
        thresholds={"answer_correctness": 0.8},
    )
    assert same["scorers"] == record["scorers"]


def test_record_says_when_and_which_question_column(tmp_path: Path) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    before = datetime.now(UTC).replace(microsecond=0)
    args = ["score", source, "-o", target, "--response", "answer", "--reference", "gold"]
    result = run_cli(*args, "--question-id", "id", "--scorer", "squad_f1")
    after = datetime.now(UTC)
    assert result.returncode == 0, result.stderr
    record = ps.read_provenance(target)
    assert record is not None
    assert record["question_id"] == "id"
    scored_at = datetime.strptime(record["scored_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= scored_at <= after
    shown = run_cli("summary", target)
    assert f"at {record['scored_at']}: response 'answer'" in shown.stdout
    assert "questions identified by 'id'" in shown.stdout
    # Without the flag the key is there, and null; a missing or dropped column is refused.
    plain = run_cli(*args, "--scorer", "squad_f1", "--overwrite")
    assert plain.returncode == 0, plain.stderr
    assert ps.read_provenance(target)["question_id"] is None  # type: ignore[index]
    missing = run_cli(*args, "--question-id", "nope", "--overwrite")
    assert missing.returncode == 3
    assert "--question-id" in missing.stderr
    dropped = run_cli(*args, "--question-id", "id", "--drop", "id", "--overwrite")
    assert dropped.returncode == 2
    assert "--drop" in dropped.stderr
    printing = run_cli(*args[:2], *args[4:], "--question-id", "id")
    assert printing.returncode == 2
    assert "--question-id" in printing.stderr


def test_scoring_record_takes_the_time_and_question_column() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=timezone(timedelta(hours=-5)))
    record = ps.scoring_record(scorers="squad_f1", question_id="qid", scored_at=moment)
    assert (record["scored_at"], record["question_id"]) == ("2026-01-02T08:04:05Z", "qid")
    with pytest.raises(ps.InvalidParameterError, match="scored_at"):
        ps.scoring_record(scored_at=datetime(2026, 1, 2))  # naive: its UTC time is unknown
    with pytest.raises(ps.InvalidParameterError, match="question_id"):
        ps.scoring_record(question_id=3)  # type: ignore[arg-type]


def test_summary_uses_and_shows_the_recorded_thresholds(tmp_path: Path) -> None:
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
        "answer_correctness",
        "--scorer",
        "squad_f1",
        "--threshold",
        "answer_correctness=0.8",
    )
    assert result.returncode == 0, result.stderr
    as_json = run_cli("summary", target, "--json")
    assert as_json.returncode == 0, as_json.stderr
    thresholds = {row["score"]: row["threshold"] for row in json.loads(as_json.stdout)}
    assert thresholds == {"answer_correctness": 0.8, "squad_f1": ps.DEFAULT_THRESHOLD}
    table = run_cli("summary", target)
    assert table.returncode == 0, table.stderr
    assert "answer_correctness: answer_correctness(match_mode='normalized'), threshold 0.8" in (
        table.stdout
    )
    assert f"{source} (6 rows)" in table.stdout
    # A JSON Lines input's rows are not counted before scoring: it is named alone.
    lines, lines_target = tmp_path / "log.jsonl", tmp_path / "lines.parquet"
    LOG.write_ndjson(lines)
    result = run_cli(
        "score", lines, "-o", lines_target, "--response", "answer", "--reference", "gold",
        "--scorer", "squad_f1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    listed = run_cli("summary", lines_target).stdout
    assert f"inputs: {lines}\n" in listed
    assert "?" not in listed
    told = run_cli("summary", target, "--json", "--threshold", "0.3")
    assert {row["threshold"] for row in json.loads(told.stdout)} == {0.3}
    # Two files scored at different thresholds need --threshold.
    other = tmp_path / "other.parquet"
    result = run_cli(
        "score", source, "-o", other, "--response", "answer", "--reference", "gold",
        "--scorer", "answer_correctness", "--threshold", "0.6",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    mixed = run_cli("summary", target, other)
    assert mixed.returncode == cli.EXIT_USAGE
    assert "pass --threshold" in mixed.stderr


def test_scorers_lists_the_registry() -> None:
    result = run_cli("scorers")
    assert result.returncode == 0
    for name in ps.available_scorers():
        assert name in result.stdout
    assert "match_mode='normalized'" in result.stdout


def test_parse_scorer_values() -> None:
    """Option text is read with the type of the option's default (in-process, no subprocess)."""
    assert _args._parse_value("s", "n", "3", 1) == 3
    assert _args._parse_value("s", "x", "0.25", 0.0) == 0.25
    assert _args._parse_value("s", "b", "yes", default=False) is True
    assert _args._parse_value("s", "w", "[0.5, 0.5]", None) == [0.5, 0.5]
    assert _args._parse_value("s", "w", "plain", None) == "plain"
    assert str(_args._parse_value("s", "m", "@mode", "x")) == str(pl.col("mode"))
    with pytest.raises(ps.InvalidParameterError, match="takes a float"):
        _args._parse_value("s", "x", "high", 0.0)
    # None lifts a bound (max_work, step_budget); the scorer says whether an option takes it
    assert _args._parse_value("s", "max_work", "None", 2_500_000_000) is None
    assert _args._parse_value("s", "step_budget", "null", 10_000_000) is None
    assert _args._parse_value("s", "x", "None", "text") == "None"
    assert _args.parse_scorer("answer_precision:max_work=none") == (
        "answer_precision",
        {"max_work": None},
    )
    with pytest.raises(ps.InvalidParameterError, match="'power_p' parameter of answer_precision"):
        ps.get_scorer("answer_precision").expr(
            "r", "e", power_p=_args._parse_value("s", "p", "None", 0.3)
        )
    assert _args._split_options("a=1,w=[1,2],s='x,y'") == ["a=1", "w=[1,2]", "s='x,y'"]


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
        progress = _progress.Progress(expected.height, stream=None)
        _output.write_in_slices(
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


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        (10_000_000, 250_000),
        (1_000_000, 250_000),
        (600_000, 150_000),
        (200_000, 50_000),
        (30_000, 25_000),
        (1_000, 25_000),
    ],
)
def test_small_logs_are_cut_in_four(total: int, expected: int) -> None:
    assert _output.slice_size(total) == expected
    assert _output.slice_size(total, most=7) == 7


def test_long_rows_make_smaller_slices(tmp_path: Path) -> None:
    """With a byte budget, the first slice is small and each next one holds about the budget at
    the size of the rows before it: a log of long rows is cut in more, smaller slices (the
    Parquet row groups written), a log of short rows in slices of the most rows; the rows are
    those of one query either way."""
    import pyarrow.parquet as pq

    rows = 3_000
    frame = pl.DataFrame(
        {
            "response": [f"{i} " + "long text " * (100 if i >= 1_000 else 1) for i in range(rows)],
            "score": [float(i) for i in range(rows)],
        }
    )
    long_row = frame.tail(1).estimated_size()
    target = tmp_path / "out.parquet"
    _output.write_in_slices(
        frame.lazy(),
        target,
        "parquet",
        total=rows,
        progress=_progress.Progress(rows, stream=None),
        slice_rows=1_000,
        slice_bytes=200 * long_row,
    )
    assert_frame_equal(pl.read_parquet(target), frame)
    metadata = pq.read_metadata(target)
    sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    # the first slice's short rows allow the most rows; the long rows after it, about 200
    assert sizes[:2] == [1_000, 1_000]
    assert all(150 <= n <= 250 for n in sizes[2:-1]), sizes
    assert sum(sizes) == rows


def test_slices_end_where_the_inputs_row_groups_end(tmp_path: Path) -> None:
    """With the input's row groups known, a slice ends where a group does: where one ends from
    half its rows on (when the next group is small enough to end a slice too), or a quarter
    past them at most. The output's row groups are the slices. A group larger than a slice and
    a quarter is cut as the byte budget says, and the rows are those of one query either way.
    The groups' ends are asked for once."""
    import pyarrow.parquet as pq

    rows = 30_000
    frame = pl.DataFrame({"response": [f"{i} text" for i in range(rows)]})
    source = tmp_path / "in.parquet"
    # Groups of 2,400 rows, then one of 15,600 (more than a slice and a quarter).
    groups = [2_400] * 6 + [15_600]
    writer = pq.ParquetWriter(source, frame.to_arrow().schema)
    at = 0
    for n in groups:
        writer.write_table(frame.slice(at, n).to_arrow(), row_group_size=n)
        at += n
    writer.close()
    row = pl.read_parquet(source).estimated_size() / rows  # as the slices read it
    asked: list[int] = []

    def row_groups() -> list[int] | None:
        asked.append(1)
        return _inputs.row_group_ends([source])

    target = tmp_path / "out.parquet"
    _output.write_in_slices(
        pl.scan_parquet(source),
        target,
        "parquet",
        total=rows,
        progress=_progress.Progress(rows, stream=None),
        slice_rows=10_000,
        slice_bytes=int(2_000 * row),
        row_groups=row_groups,
    )
    assert_frame_equal(pl.read_parquet(target), frame)
    metadata = pq.read_metadata(target)
    sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    # The first slice holds the most rows (under the floor of 25,000), past four groups; the
    # next ends with the fifth group (the budget's 2,000 rows end there), the one after with the
    # sixth (2,400 rows, a fifth more); the large group is cut by the budget.
    assert ends[:3] == [10_000, 12_000, 14_400], ends
    steps = [b - a for a, b in itertools.pairwise(ends[2:-1])]
    assert steps, ends
    assert all(1_500 <= step <= 2_500 for step in steps), ends
    assert ends[-1] == rows
    assert asked == [1]


def test_the_command_line_cuts_slices_where_the_logs_row_groups_end(tmp_path: Path) -> None:
    """`polarscore score` reads a Parquet log's row-group ends and cuts its slices there (the
    output's row groups are its slices): the first slice holds 25,000 rows, then each ends
    where one of the log's groups of 20,000 does, not 30,000 rows (a quarter of the log) on."""
    import pyarrow.parquet as pq

    rows = 120_000
    log = tmp_path / "log.parquet"
    pl.DataFrame(
        {"response": [f"answer {i % 97}" for i in range(rows)], "reference": ["answer 3"] * rows}
    ).write_parquet(log, row_group_size=20_000)
    assert pq.read_metadata(log).num_row_groups == 6
    out = tmp_path / "out.parquet"
    args = ["score", str(log), "-o", str(out), "--scorer", "squad_exact_match", "--every-row"]
    assert cli.main([*args, "--quiet"]) == cli.EXIT_OK
    metadata = pq.read_metadata(out)
    sizes = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    assert ends == [25_000, 40_000, 60_000, 80_000, 100_000, 120_000]
    assert pl.read_parquet(out).height == rows


@given(
    offset=st.integers(0, 10_000),
    rows=st.integers(1, 5_000),
    sizes=st.lists(st.integers(1, 4_000), min_size=0, max_size=30),
    most=st.integers(1, 20_000),
)
def test_a_snapped_slice_ends_at_a_group_end_near_its_rows(
    offset: int, rows: int, sizes: list[int], most: int
) -> None:
    rows = min(rows, most)
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    got = _output.snap_to_row_groups(offset, rows, ends, most)
    grow = min(rows + rows // 4, most)
    near = [e for e in ends if max(rows // 2, 1) <= e - offset <= rows]
    beyond = [e for e in ends if e - offset > rows]
    # the group after the last end among the slice's rows is small enough to end a slice
    keeps = near and (not beyond or beyond[0] - near[-1] <= grow)
    if keeps:
        assert got == near[-1] - offset  # the last group end among the slice's rows
    elif beyond and beyond[0] - offset <= grow:
        assert got == beyond[0] - offset  # the next one, if the slice grows by a quarter at most
    else:
        assert got == rows
    assert 1 <= got <= max(rows, min(rows + rows // 4, most))


def test_next_slice_rows_is_bounded() -> None:
    part = pl.DataFrame({"text": ["x" * 1_000] * 100})
    row = part.estimated_size() / part.height
    assert _output.next_slice_rows(part, 10_000, budget=int(50 * row)) == 1_000  # the floor
    assert _output.next_slice_rows(part, 500, budget=int(50 * row)) == 500  # never above most
    assert _output.next_slice_rows(part, 1_000_000, budget=int(5_000 * row)) in range(4_990, 5_010)
    assert _output.next_slice_rows(part.clear(), 7) == 7


def test_slices_keep_a_dictionary_for_repeated_texts(tmp_path: Path) -> None:
    """A log written in slices dictionary-encodes the text columns whose values repeat (a
    question asked of several models), also nested and past Arrow's 1 MiB default dictionary
    page, and not the ones whose values are mostly distinct; the rows are unchanged."""
    import pyarrow.parquet as pq

    rows = 6_000
    questions = [f"question {i}: " + "why is the sky blue? " * 64 for i in range(rows // 6)]
    frame = pl.DataFrame(
        {
            "question": [questions[i % len(questions)] for i in range(rows)],
            "options": [[questions[i % len(questions)], "B"] for i in range(rows)],
            "response": [f"answer {i} " * 8 for i in range(rows)],
            "score": [float(i % 3) for i in range(rows)],
        }
    )
    assert frame["question"].head(rows // 6).str.len_bytes().sum() > 1 << 20
    target = tmp_path / "out.parquet"
    _output.write_in_slices(
        frame.lazy(),
        target,
        "parquet",
        total=rows,
        progress=_progress.Progress(rows, stream=None),
        slice_rows=rows // 2,
    )
    assert_frame_equal(pl.read_parquet(target), frame)
    metadata = pq.read_metadata(target)
    assert metadata.num_row_groups == 2
    distinct_bytes = sum(len(q.encode()) for q in questions)
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        chunks = {
            chunk.path_in_schema: chunk
            for chunk in map(row_group.column, range(row_group.num_columns))
        }
        # Each question three times in a slice: stored once in the dictionary, not three times
        # as plain values after the dictionary gave up.
        assert chunks["question"].total_uncompressed_size < 1.5 * distinct_bytes
        assert chunks["options.list.element"].total_uncompressed_size < 1.5 * distinct_bytes
        assert chunks["score"].has_dictionary_page
        assert not chunks["response"].has_dictionary_page


@pytest.mark.skipif(
    int(pa.__version__.split(".")[0]) < 21, reason="pyarrow's writer takes views from 21 on"
)
def test_slices_handed_as_views_write_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Handing Polars' text to pyarrow's writer as Arrow views (no copy) writes the file
    converting it to Arrow's large types wrote, byte for byte: the same rows, Parquet schema,
    Arrow schema (large types) and key-value metadata, for every kind of column, nested ones
    too (those pyarrow cannot write as views are converted)."""
    import pyarrow.parquet as pq

    rows = 4_000
    four = rows // 4
    frame = pl.DataFrame(
        {
            "text": ["a", "bb", None, "é" * 30] * four,
            "repeated": ["why is the sky blue?"] * rows,
            "bytes": [b"x", None, b"yy" * 30, b""] * four,
            "category": pl.Series(["u", "v", "u", None] * four, dtype=pl.Categorical),
            "enum": pl.Series(["u", "v", "u", None] * four, dtype=pl.Enum(["u", "v"])),
            "texts": [["a"], None, [], ["b", None]] * four,
            "pair": pl.Series(
                [["a", "b"], ["c", "d"], None, ["e", None]] * four, dtype=pl.Array(pl.String, 2)
            ),
            "record": [{"p": "q", "n": 1}, None, {"p": None, "n": 2}, {"p": "zz", "n": 3}] * four,
            "records": [[{"k": "v"}], [], None, [{"k": None}]] * four,
            "score": [1.0, None, 0.5, 0.0] * four,
        }
    )
    metadata = {"polarscore": json.dumps({"inputs": "é"}, ensure_ascii=False), "other": "x"}
    written = {}
    for views in (False, True):
        monkeypatch.setattr(_output, "_writes_views", lambda views=views: views)
        target = tmp_path / f"views_{views}.parquet"
        _output.write_in_slices(
            frame.lazy(),
            target,
            "parquet",
            total=rows,
            progress=_progress.Progress(rows, stream=None),
            slice_rows=rows // 3,
            metadata=metadata,
        )
        written[views] = target
    assert written[True].read_bytes() == written[False].read_bytes()
    assert pq.read_metadata(written[True]).num_row_groups == 4  # one per slice
    assert_frame_equal(pl.read_parquet(written[True]), frame)
    schema = pq.read_schema(written[True])
    assert schema.field("text").type == pa.large_string()
    assert schema.field("texts").type == pa.large_list(pa.large_string())
    stored = pq.read_metadata(written[True]).metadata
    assert {key.decode() for key in stored} == {"ARROW:schema", *metadata}
    assert stored[b"polarscore"].decode() == metadata["polarscore"]


def test_a_failed_write_stops_the_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slice is written while the next one is scored: a write that fails stops the run with
    its own error once the next slice is scored, and no later slice is scored or written."""
    import pyarrow.parquet as pq

    source = tmp_path / "log.parquet"
    load_sample().select("response", "reference").head(2_003).write_parquet(source)
    scored = ps.score_frame(pl.scan_parquet(source), scorers=["answer_correctness"])
    written: list[int] = []
    write_table = pq.ParquetWriter.write_table

    def fail_the_second(self: pq.ParquetWriter, table: pa.Table, **kwargs: Any) -> None:
        written.append(table.num_rows)
        if len(written) == 2:
            raise OSError("No space left on device")
        write_table(self, table, **kwargs)

    collected: list[int] = []
    collect = _output.collect_with_progress

    def counted(query: pl.LazyFrame, progress: _progress.Progress, **kwargs: Any) -> pl.DataFrame:
        collected.append(1)
        return collect(query, progress, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", fail_the_second)
    monkeypatch.setattr(_output, "collect_with_progress", counted)
    with pytest.raises(OSError, match="No space left"):
        _output.write_in_slices(
            scored,
            tmp_path / "out.parquet",
            "parquet",
            total=2_003,
            progress=_progress.Progress(2_003, stream=None),
            slice_rows=200,
        )
    assert written == [200, 200]
    assert len(collected) == 3


def test_progress_moves_while_a_slice_runs(tmp_path: Path) -> None:
    """The CLI's query counts rows as batches are scored, not only when a slice ends."""

    class Lines(list[str]):
        def write(self, text: str) -> None:
            self.append(text)

        def flush(self) -> None:
            pass

    def slow(series: pl.Series) -> pl.Series:
        time.sleep(0.3)
        return series

    source = tmp_path / "log.parquet"
    rows = 400_000
    pl.DataFrame({"x": range(rows)}).write_parquet(source, row_group_size=50_000)
    lines = Lines()
    progress = _progress.Progress(rows, stream=lines)  # type: ignore[arg-type]
    counted = pl.col("x").map_batches(slow, is_elementwise=True, return_dtype=pl.Int64)
    counted = counted.map_batches(progress.counter, is_elementwise=True, return_dtype=pl.Int64)
    frame = pl.scan_parquet(source).with_columns(counted.alias("y"))
    _output.write_in_slices(
        frame, tmp_path / "out.parquet", "parquet", total=rows, progress=progress, interval=0.05
    )
    drawn = [int(line.split("]")[1].split("/")[0].replace(",", "")) for line in lines]
    assert any(0 < n < rows for n in drawn), drawn
    assert drawn[-1] == rows
    assert progress.rows == rows
    assert "rows/s" in lines[-1]


def test_the_progress_line_moves_while_a_long_row_is_scored(tmp_path: Path) -> None:
    """One batch that takes a while (a long row): no row is counted until it is done, and the
    line still changes every second, with its clock."""

    class Lines(list[str]):
        def write(self, text: str) -> None:
            self.append(text)

        def flush(self) -> None:
            pass

    def long_row(series: pl.Series) -> pl.Series:
        time.sleep(2.5)
        return series

    lines = Lines()
    progress = _progress.Progress(1, stream=lines)  # type: ignore[arg-type]
    counted = pl.col("x").map_batches(long_row, is_elementwise=True, return_dtype=pl.Int64)
    counted = counted.map_batches(progress.counter, is_elementwise=True, return_dtype=pl.Int64)
    query = pl.LazyFrame({"x": [1]}).with_columns(counted.alias("y"))
    _progress.collect_with_progress(query, progress, interval=0.1)
    before_done = [line.strip() for line in lines if " 0/1 rows" in line]
    assert len(set(before_done)) >= 2, before_done
    assert any("0:00:02 elapsed" in line for line in before_done)


def test_the_cli_query_carries_the_row_counter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = _progress.Progress.counter

    def spy(self: _progress.Progress, series: pl.Series) -> pl.Series:
        calls.append(len(series))
        return original(self, series)

    monkeypatch.setattr(_progress.Progress, "counter", spy)
    source = tmp_path / "log.parquet"
    LOG.write_parquet(source)
    args = ["score", str(source), "-o", str(tmp_path / "out.parquet"), "--response", "answer"]
    assert cli.main([*args, "--reference", "gold", "--scorer", "answer_correctness", "-q"]) == 0
    assert sum(calls) >= LOG.height


@pytest.mark.parametrize(
    "flags",
    [
        ["--scorer", "answer_correctness:match_mode=exakt"],
        ["--scorer", "answer_correctness:mode=exact"],
        ["--scorer", "no_such_scorer"],
        ["--threshold", "2"],
        ["--match-mode", "all"],
    ],
)
def test_flags_are_checked_before_the_files(tmp_path: Path, flags: list[str]) -> None:
    source, target = tmp_path / "log.parquet", tmp_path / "scored.parquet"
    LOG.write_parquet(source)
    target.write_bytes(b"an earlier result")
    result = run_cli("score", source, "-o", target, "--response", "answer", *flags)
    assert result.returncode == cli.EXIT_USAGE, result.stderr
    assert "already exists" not in result.stderr
    assert target.read_bytes() == b"an earlier result"


def test_scoring_a_table_imports_neither_numpy_nor_pyarrow(tmp_path: Path) -> None:
    """A short log must not pay for what only reports need: numpy, pyarrow and the HTML report's
    modules are not imported.

    Importing numpy and pyarrow costs about 0.25 s of CPU, a third of scoring a 1,000-row log end
    to end; the report's modules about 30 ms.
    """
    log = tmp_path / "log.parquet"
    pl.DataFrame({"response": ["Paris", "4"], "reference": ["paris", "5"]}).write_parquet(log)
    out = tmp_path / "out.parquet"
    code = (
        "import sys\n"
        "from polarscore.cli import main\n"
        f"code = main(['score', {str(log)!r}, '-o', {str(out)!r}, '--quiet'])\n"
        "unwanted = ('numpy', 'pyarrow', 'polarscore.reporting')\n"
        "print(code, sorted(m for m in unwanted if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "0 []", done.stdout
