"""Rows that used to stop a job: every registered scorer meets them, through every entry point.

One response must never stop a million-row job. Each kind of row below once raised past a scorer
(``json_schema``: a ``RecursionError``, Python's 4,300-digit limit, ``int(nan)``, an unresolvable
``$ref``) or ran without end (``regex_match`` on a pattern ``re`` backtracks on, the quadratic
similarities on long texts). Every registered scorer, with the options that reach its hardest
code (patterns, schemas, per-row ones among them), scores a log of all of them: through the
Python API on every engine, the command line (``score``, printed and written, then ``summary``
and ``report``: exit 0, no traceback), the Arrow adapter in batches of 1 and 3 rows, and Spark
(marked ``spark``). Every result has the scorer's type and range; a null only where the scorer
declares one. The exact outcomes are each scorer's own tests' (``tests/test_checks.py``,
``tests/test_regex.py``, ``tests/test_long_text.py``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import polarscore as ps
from polarscore.adapters import score_arrow_batches
from tests.cli_process import run_cli
from tests.engines import EAGER, STREAMING

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]


def _long_text(seed: int, size: int) -> str:
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 8))) for _ in range(500)
    ]
    out: list[str] = []
    total = 0
    while total <= size:  # the join writes one space fewer than the words' count
        out.append(rng.choice(words))
        total += len(out[-1]) + 1
    return " ".join(out)[:size]


#: (kind, response, reference, per-row pattern, per-row schema)
ROWS: list[tuple[str, str | None, str | None, str, str]] = [
    ("nested 100,000 deep", "[" * 100_000 + "]" * 100_000, "[[]]", r"^(\w+\s?)*$", "{}"),
    ("5,000 digits", "1" * 5_000, "1" * 5_000, r"(x+x+)+y\b", '{"type": "integer"}'),
    ("NaN", "NaN", "NaN", r"(?<=a)(b*)*\1c", '{"multipleOf": 0.5}'),
    ("a $ref as data", '{"$ref": "#/nope"}', "{}", "(", '{"$ref": "#/nope"}'),
    ("backtracking bait", f'"{"a" * 64}!"', "x" * 40, r"^(a+)+$", '{"$ref": "http://x.example/s"}'),
    ("x" * 10, "x" * 40, "y", r"^(x+x+)+\1y", "[" * 10_000),
    ("null", None, None, r"\d", "null"),
    ("empty", "", "", "", ""),
    ("long and unlike", _long_text(1, 150_000), _long_text(2, 150_000), r"\bzz\b", "{}"),
    ("long and alike", _long_text(3, 150_000), _long_text(3, 150_000)[:-5] + "!!!!!", "$", "{}"),
]

LOG = pl.DataFrame(
    {
        "kind": [r[0] for r in ROWS],
        "response": [r[1] for r in ROWS],
        "reference": [r[2] for r in ROWS],
        "pattern": [r[3] for r in ROWS],
        "schema": [r[4] for r in ROWS],
    },
    schema={"kind": pl.String, "response": pl.String, "reference": pl.String,
            "pattern": pl.String, "schema": pl.String},
)  # fmt: skip

#: Options that reach each scorer's hardest code; every scorer also runs with its defaults.
HARD_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "regex_match": [
        {"pattern": r"^(\w+\s?)*$"},
        {"pattern": r"(x+x+)+y\b", "full_match": True},
        {"pattern": r"^(a+)+\1$", "step_budget": 10_000},
        {"pattern": pl.col("pattern")},
    ],
    "json_schema": [
        {"schema": {"type": "array"}},
        {"schema": {"type": "integer"}},
        {"schema": {"multipleOf": 0.5}},
        {"schema": {"items": {"$ref": "#"}, "properties": {"k": {"pattern": "^(a+)+$"}}}},
        {"schema": {"patternProperties": {"^(a+)+$": {}}, "unevaluatedProperties": False}},
        {"schema": pl.col("schema")},
    ],
    "answer_precision": [{"char_similarity": "sequence_matcher"}, {"max_work": 1_000_000}],
    "response_similarity": [{"metric": "rouge_l"}, {"metric": "rouge_l", "max_work": 1_000}],
    "answer_correctness": [{"match_mode": "contains"}],
    "contains": [{"keywords": ["[[", "1111", "zz"]}],
    "length_check": [{"unit": "words", "max_length": 10**9}],
    "format_check": [{"format_type": "url"}, {"format_type": "date"}],
}


def option_sets(spec: ps.ScorerSpec) -> list[dict[str, Any]]:
    return [{}, *HARD_OPTIONS.get(spec.name, [])]


def check(spec: ps.ScorerSpec, scores: pl.Series, options: dict[str, Any]) -> None:
    assert scores.len() == LOG.height
    assert scores.dtype == spec.dtype
    values = scores.drop_nulls()
    if values.len():
        assert spec.lower <= values.min() <= values.max() <= spec.upper  # type: ignore[operator]
    if not spec.nullable:
        assert scores.null_count() == 0, (spec.name, options)


CASES = [(spec, i) for spec in SCORERS for i in range(len(option_sets(spec)))]


@pytest.mark.parametrize(("spec", "index"), CASES, ids=[f"{s.name}-{i}" for s, i in CASES])
def test_every_scorer_scores_every_hostile_row(spec: ps.ScorerSpec, index: int) -> None:
    options = option_sets(spec)[index]
    expr = spec.expr("response", "reference", **options)
    eager = EAGER(LOG, expr).to_series()
    check(spec, eager, options)
    assert STREAMING(LOG, expr).to_series().equals(eager)


def test_hostile_rows_get_their_documented_outcomes() -> None:
    """A few outcomes worth pinning here, where the rows are side by side."""
    out = LOG.select(
        json=ps.json_schema_details("response", schema=pl.col("schema")),
        regex=ps.regex_match_details("response", pattern=pl.col("pattern")),
        precision=ps.answer_precision_diagnostics("response", "reference"),
    )
    kinds = LOG["kind"].to_list()
    json_reasons = dict(zip(kinds, [d["reason"] for d in out["json"]], strict=True))
    assert json_reasons["nested 100,000 deep"].startswith("JSON schema not checked: ")
    assert "4300 digits" in json_reasons["5,000 digits"]
    assert json_reasons["NaN"].endswith("nan is not a multiple of 0.5")
    assert "$ref '#/nope' cannot be resolved" in json_reasons["a $ref as data"]
    assert "never fetched" in json_reasons["backtracking bait"]
    regex = dict(zip(kinds, out["regex"].to_list(), strict=True))
    assert regex["5,000 digits"]["score"] == 0.0  # (x+x+)+y\b: linear, no match
    assert regex["x" * 10]["score"] is None  # a back-reference over budget: null, with a reason
    assert regex["x" * 10]["reason"].startswith("Pattern not checked: ")
    assert regex["NaN"]["score"] == 0.0
    assert regex["a $ref as data"]["score"] == 0.0  # "(" does not compile: as the reference
    precision = dict(zip(kinds, out["precision"].to_list(), strict=True))
    assert precision["long and unlike"]["path"] == "scored"  # 150 KB a side: within max_work
    assert precision["long and alike"]["score"] > 0.99


#: Scorer variants the command line runs one call each (a scorer is named once per call).
CLI_VARIANTS = [
    "regex_match:pattern=@pattern",
    r"regex_match:pattern=^(\w+\s?)*$",
    "json_schema:schema=@schema",
    'json_schema:schema={"multipleOf": 0.5}',
    "answer_precision:char_similarity=sequence_matcher",
    "response_similarity:metric=rouge_l",
]


def _cli_ok(*args: str | Path) -> str:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def test_the_command_line_scores_them_all(tmp_path: Path) -> None:
    """score (printed and written), summary (table and JSON), report: exit 0, no traceback."""
    log = tmp_path / "hostile.parquet"
    LOG.write_parquet(log)
    every = [arg for spec in SCORERS for arg in ("--scorer", spec.name)]
    printed = _cli_ok("score", log, *every, "--match-mode", "exact")
    assert all(spec.name in printed for spec in SCORERS)
    scored = tmp_path / "scored.parquet"
    _cli_ok("score", log, *every, "-o", scored, "--quiet")
    for i, variant in enumerate(CLI_VARIANTS):
        _cli_ok("score", log, "--scorer", variant, "--quiet")
        out = tmp_path / f"variant{i}.parquet"
        _cli_ok("score", log, "--scorer", variant, "-o", out, "--quiet", "--prefix", f"v{i}_")
        assert pl.read_parquet(out).height == LOG.height
    written = pl.read_parquet(scored)
    assert written.height == LOG.height
    assert written["regex_match"].null_count() == 0  # the default pattern matches everything
    _cli_ok("summary", scored)
    _cli_ok("summary", scored, "--json")
    _cli_ok("report", scored, "-o", tmp_path / "report.html", "--quiet")
    assert (tmp_path / "report.html").stat().st_size > 0


def _reference_for(spec: ps.ScorerSpec) -> str | None:
    return None if spec.reference_kind == "none" else "reference"


@pytest.mark.parametrize("rows", [1, 3])
def test_the_arrow_adapter_scores_them_all(rows: int) -> None:
    table = LOG.to_arrow()
    for reference in ("reference", None):
        names = [s.name for s in SCORERS if (_reference_for(s) is None) == (reference is None)]
        batches = score_arrow_batches(
            table.to_batches(max_chunksize=rows),
            response="response",
            reference=reference,
            scorers=names,
        )
        got = pl.from_arrow(pa.Table.from_batches(list(batches)))
        assert isinstance(got, pl.DataFrame)
        for name in names:
            spec = ps.get_scorer(name)
            expected = LOG.select(spec.expr("response", "reference")).to_series()
            assert got[name].equals(expected), name


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
)
def test_spark_scores_them_all(spark: Any) -> None:
    from polarscore.adapters.spark import score_spark

    # An Int64 id: PySpark 4.0 (the spark extra's minimum) converts no unsigned Arrow type.
    index = LOG.with_row_index("id").with_columns(pl.col("id").cast(pl.Int64))
    frame = spark.createDataFrame(index.to_arrow())
    for reference in ("reference", None):
        names = [s.name for s in SCORERS if (_reference_for(s) is None) == (reference is None)]
        scored = score_spark(frame, response="response", reference=reference, scorers=names)
        got = pl.from_arrow(scored.toArrow())
        assert isinstance(got, pl.DataFrame)
        got = got.sort("id")
        for name in names:
            spec = ps.get_scorer(name)
            expected = LOG.select(spec.expr("response", "reference")).to_series()
            assert got[name].equals(expected), name


def test_the_rows_are_what_they_say() -> None:
    assert json.loads(LOG["schema"][2]) == {"multipleOf": 0.5}
    long = LOG.filter(pl.col("kind").str.starts_with("long"))
    assert long["response"].str.len_chars().min() == 150_000
