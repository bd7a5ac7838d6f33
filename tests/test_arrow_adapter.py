"""The engine-neutral Arrow core: results, pass-through, schema, up-front checks, batch failures."""

from __future__ import annotations

import logging
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import polarscore as ps
from polarscore.adapters import ArrowScorer, score_arrow_batches, scored_schema
from polarscore.exceptions import BatchScoringError
from tests.conftest import DATA
from tests.engines import ARROW_ENGINES, Engine

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]

# A failing option: parsing the 'mode' column as an integer fails on rows where it is not one.
FAILING_MODE = pl.col("mode").str.to_integer().cast(pl.String)


def _reference_for(spec: ps.ScorerSpec) -> str:
    return "references" if spec.reference_kind == "list" else "reference"


@pytest.fixture(scope="module")
def table() -> pa.Table:
    """Parity inputs plus nulls, blanks and non-text columns that must pass through untouched."""
    parity = pl.read_parquet(DATA / "parity_cases.parquet").head(120)
    edge = pl.DataFrame(
        {
            "response": [None, "", "  ", "Paris", "x²"],
            "reference": ["Paris", None, " ", "", "x2"],
            "acceptable": [["Paris"], None, [" "], [""], ["x2", None]],
        }
    )
    frame = pl.concat([parity.select(edge.columns), edge]).with_row_index("id")
    return (
        frame.rename({"acceptable": "references"})
        .with_columns(
            when=pl.datetime(2024, 1, 1, time_zone="UTC") + pl.duration(hours=pl.col("id")),
            meta=pl.struct(pl.col("id").alias("n"), pl.lit("x").alias("tag")),
        )
        .to_arrow()
    )


def _expected(table: pa.Table, spec: ps.ScorerSpec) -> pl.Series:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame.select(spec.expr("response", _reference_for(spec))).to_series()


@pytest.mark.parametrize("engine", ARROW_ENGINES, ids=str)
@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_batch_size_never_changes_a_result(
    table: pa.Table, spec: ps.ScorerSpec, engine: Engine
) -> None:
    """Batches of 1, 7 and 97 rows through the adapter (the harness checks each output batch's
    rows and the declared Arrow type)."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    got = engine.score(frame, spec, reference=_reference_for(spec))
    expected = _expected(table, spec)
    assert got.len() == expected.len() == table.num_rows
    assert got.cast(spec.dtype).equals(expected.cast(spec.dtype), check_names=False)


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_the_whole_table_as_one_batch(table: pa.Table, spec: ps.ScorerSpec) -> None:
    batches = table.to_batches()
    assert len(batches) == 1
    out = score_arrow_batches(
        batches, response="response", reference=_reference_for(spec), scorers=spec.name
    )
    result = pa.Table.from_batches(list(out))
    got = pl.from_arrow(result.column(spec.name))
    assert isinstance(got, pl.Series)
    expected = _expected(table, spec)
    assert got.len() == expected.len() == table.num_rows
    assert got.cast(spec.dtype).equals(expected.cast(spec.dtype), check_names=False)
    assert result.schema.field(spec.name).type == spec.arrow_type


def test_input_columns_pass_through_untouched(table: pa.Table) -> None:
    schema = table.schema.with_metadata({"origin": "eval-log"})
    batch = table.cast(schema).to_batches()[0]
    scorer = ArrowScorer(
        schema, response="response", reference="reference", scorers=["answer_correctness"]
    )
    out = scorer.score_batch(batch)
    assert out.schema.metadata == {b"origin": b"eval-log"}
    assert out.schema.names == [*batch.schema.names, "answer_correctness"]
    for name in batch.schema.names:
        assert out.column(name).equals(batch.column(name))
        assert out.schema.field(name) == batch.schema.field(name)
        # the very same buffers: nothing was converted and back
        source = [b.address if b is not None else None for b in batch.column(name).buffers()]
        passed = [b.address if b is not None else None for b in out.column(name).buffers()]
        assert passed == source


def test_declared_schema_is_what_batches_carry(table: pa.Table) -> None:
    options: dict[str, Any] = {"answer_correctness": {"match_mode": "contains"}}
    declared = scored_schema(
        table.schema, response="response", reference="reference", scorers=options, prefix="s_"
    )
    assert declared.names == [*table.schema.names, "s_answer_correctness"]
    assert declared.field("s_answer_correctness").type == pa.float64()
    assert declared.field("s_answer_correctness").nullable
    out = score_arrow_batches(
        table.to_batches(max_chunksize=50),
        response="response",
        reference="reference",
        scorers=options,
        prefix="s_",
    )
    for batch in out:
        assert batch.schema == declared
    contains = pl.from_arrow(table).select(  # type: ignore[union-attr]
        ps.answer_correctness("response", "reference", match_mode="contains")
    )
    scored = pa.Table.from_batches(
        list(
            score_arrow_batches(
                table.to_batches(max_chunksize=50),
                response="response",
                reference="reference",
                scorers=options,
            )
        )
    )
    assert scored.column("answer_correctness").to_pylist() == contains.to_series().to_list()


def test_option_expressions_are_evaluated_per_batch() -> None:
    table = pa.table(
        {
            "response": ["It is Paris", "It is Paris", "It is Paris"],
            "reference": ["Paris", "Paris", "Paris"],
            "mode": ["contains", "exact", "normalized"],
        }
    )
    out = score_arrow_batches(
        table.to_batches(max_chunksize=1),
        response="response",
        reference="reference",
        scorers={"answer_correctness": {"match_mode": pl.col("mode")}},
    )
    assert pa.Table.from_batches(list(out)).column("answer_correctness").to_pylist() == [
        1.0,
        0.0,
        0.0,
    ]


def test_empty_input() -> None:
    none = score_arrow_batches([], response="r", reference="g", scorers="answer_correctness")
    assert list(none) == []
    with pytest.raises(ps.InvalidParameterError, match="'scorers' parameter"):
        score_arrow_batches([], response="r", reference="g", scorers="answer_corectness")
    schema = pa.schema({"r": pa.string(), "g": pa.string()})
    scorer = ArrowScorer(schema, response="r", reference="g", scorers="answer_correctness")
    out = scorer.score_table(schema.empty_table())
    assert out.num_rows == 0
    assert out.schema == scorer.schema


SCHEMA = pa.schema(
    {
        "response": pa.string(),
        "reference": pa.large_string(),
        "score": pa.int64(),
        "mode": pa.string(),
        "answer_correctness": pa.float64(),
    }
)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"response": "answer"},
            ps.ColumnNotFoundError,
            r"response column 'answer' is not in the input\. Available columns: 'response'",
        ),
        ({"reference": "gold"}, ps.ColumnNotFoundError, "reference column 'gold'"),
        (
            {"response": "score"},
            ps.ColumnTypeError,
            r"'response' parameter of \w+ must be a text column.*column 'score' of type Int64",
        ),
        (
            {"reference": "score"},
            ps.ColumnTypeError,
            r"'reference' parameter of \w+ must be a text column.*column 'score' of type Int64",
        ),
        ({"scorers": "answer_corectness"}, ps.InvalidParameterError, "'answer_correctness'"),
        ({"scorers": []}, ps.InvalidParameterError, "at least one scorer"),
        (
            {"scorers": ["answer_correctness", "answer_correctness"]},
            ps.InvalidParameterError,
            "naming each scorer once",
        ),
        (
            {"scorers": {"answer_correctness": {"mode": "exact"}}},
            ps.InvalidParameterError,
            r"'mode' parameter of answer_correctness must be a known option "
            r"\(its options: 'match_mode'\)",
        ),
        (
            {"scorers": {"answer_correctness": {"match_mode": "exakt"}}},
            ps.InvalidParameterError,
            "'match_mode' parameter of answer_correctness",
        ),
        (
            {"scorers": {"answer_correctness": {"match_mode": pl.col("nope")}}},
            ps.ColumnNotFoundError,
            "'nope' is not in the input",
        ),
        (
            {"scorers": {"answer_correctness": {"match_mode": pl.Series(["exact"])}}},
            ps.InvalidParameterError,
            "Series would be cut differently by every batch",
        ),
        (
            {"scorers": {"answer_correctness": {"match_mode": pl.col("response").str.len_chars()}}},
            ps.ColumnTypeError,
            "'match_mode' parameter of answer_correctness must be a text column.*UInt32",
        ),
        (
            {"prefix": ""},
            ps.ColumnCollisionError,
            "output column 'answer_correctness' is already in the frame",
        ),
        ({"on_error": "ignore"}, ps.InvalidParameterError, "'on_error' parameter.*'raise', 'null'"),
    ],
)
def test_bad_requests_fail_before_any_batch(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    request: dict[str, Any] = {
        "response": "response",
        "reference": "reference",
        "scorers": ["answer_correctness"],
        "prefix": "s_",
    }
    request.update(kwargs)

    def batches() -> Any:
        pytest.fail("a batch was read before the request was checked")
        yield

    with pytest.raises(error, match=match):
        ArrowScorer(SCHEMA, **request)
    with pytest.raises(error, match=match):
        score_arrow_batches(batches(), schema=SCHEMA, **request)


def test_a_prefix_avoids_the_collision() -> None:
    scorer = ArrowScorer(
        SCHEMA,
        response="response",
        reference="reference",
        scorers="answer_correctness",
        prefix="s_",
    )
    assert scorer.schema.names[-1] == "s_answer_correctness"


def _failing_table() -> pa.Table:
    return pa.table(
        {
            "response": ["Paris", "x", "Paris", "Lyon", "Paris"],
            "reference": ["paris", "y", "Paris", "Lyon", "paris"],
            "mode": ["1", "2", "3", "boom", "5"],
        }
    )


def test_a_failing_batch_raises_naming_the_batch() -> None:
    out = score_arrow_batches(
        _failing_table().to_batches(max_chunksize=2),
        response="response",
        reference="reference",
        scorers={"answer_correctness": {"match_mode": FAILING_MODE}},
    )
    first = next(out)  # the first batch is fine
    assert first.column("answer_correctness").to_pylist() == [1.0, 0.0]
    with pytest.raises(BatchScoringError) as caught:
        next(out)
    message = str(caught.value)
    assert message.startswith(
        "polarscore failed on batch 1 (rows 2 to 3) scoring answer_correctness: ComputeError: "
        "strict integer parsing failed"
    )
    assert "boom" in message
    assert isinstance(caught.value.__cause__, pl.exceptions.ComputeError)


def test_on_error_null_writes_null_scores_for_that_batch_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="polarscore"):
        out = score_arrow_batches(
            _failing_table().to_batches(max_chunksize=2),
            response="response",
            reference="reference",
            scorers={"answer_correctness": {"match_mode": FAILING_MODE}},
            on_error="null",
        )
        result = pa.Table.from_batches(list(out))
    assert result.column("answer_correctness").to_pylist() == [1.0, 0.0, None, None, 1.0]
    assert result.column("mode").to_pylist() == ["1", "2", "3", "boom", "5"]
    assert "polarscore failed on batch 1 (rows 2 to 3)" in caplog.text
    assert "on_error='null'" in caplog.text


def _fake_scorer(monkeypatch: pytest.MonkeyPatch, function: Any) -> None:
    """Register a scorer declared Float64 whose expression is ``function(response, reference)``.

    Like every registered scorer, it is called with expressions (as :func:`ps.score_frame` does).
    """
    from polarscore import registry

    spec = ps.ScorerSpec(name="fake_score", function=function, family="test")
    monkeypatch.setitem(registry._SCORERS, "fake_score", spec)


def test_scores_are_cast_to_the_declared_type(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_scorer(monkeypatch, lambda response, reference: response.str.len_chars())
    table = pa.table({"r": ["a", "bb", None], "g": ["x", "y", "z"]})
    out = ArrowScorer(table.schema, response="r", reference="g", scorers="fake_score")
    scored = out.score_table(table)
    assert scored.schema.field("fake_score").type == pa.float64()  # UInt32 from Polars
    assert scored.column("fake_score").to_pylist() == [1.0, 2.0, None]


def test_a_score_that_cannot_be_cast_is_a_batch_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_scorer(monkeypatch, lambda response, reference: response)  # text, not a number
    table = pa.table({"r": ["0.5", "oops"], "g": ["x", "y"]})
    scorer = ArrowScorer(table.schema, response="r", reference="g", scorers="fake_score")
    assert scorer.score_table(table.slice(0, 1)).column("fake_score").to_pylist() == [0.5]
    with pytest.raises(BatchScoringError, match=r"batch 1 \(rows 1 to 1\) scoring fake_score"):
        list(scorer(table.to_batches(max_chunksize=1)))


def test_a_score_of_the_wrong_length_is_a_batch_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_scorer(monkeypatch, lambda response, reference: response.len().cast(pl.Float64))
    table = pa.table({"r": ["a", "b", "c"], "g": ["x", "y", "z"]})
    scorer = ArrowScorer(table.schema, response="r", reference="g", scorers="fake_score")
    with pytest.raises(BatchScoringError, match="fake_score returned 1 values for 3 rows"):
        scorer.score_table(table)


def test_checks_of_the_response_alone_need_no_reference_column() -> None:
    table = pa.table({"response": ["The answer is (B).", "", None]})
    scorer = ArrowScorer(
        table.schema,
        response="response",
        scorers={"non_empty": None, "regex_match": {"pattern": r"\(([A-J])\)"}},
    )
    batch = scorer.score_batch(table.to_batches()[0])
    assert batch.column("non_empty").to_pylist() == [1.0, 0.0, 0.0]
    assert batch.column("regex_match").to_pylist() == [1.0, 0.0, 0.0]
    assert scorer.schema.names == ["response", "non_empty", "regex_match"]


def test_a_scorer_that_compares_needs_the_reference_column() -> None:
    table = pa.table({"response": ["Paris"]})
    with pytest.raises(ps.InvalidParameterError, match=r"'reference'.*answer_correctness"):
        ArrowScorer(table.schema, response="response", scorers=["non_empty", "answer_correctness"])


@pytest.mark.parametrize(
    ("scorer", "options"),
    [
        ("answer_correctness", {"match_mode": pl.lit("exact")}),
        ("answer_match", {"question": pl.lit("What is the capital of France?")}),
        ("answer_precision", {"numeric_tolerance_abs": pl.lit(0.5)}),
        ("json_schema", {"schema": pl.lit("{}")}),
    ],
    ids=["answer_correctness", "answer_match", "answer_precision", "json_schema"],
)
def test_literal_expression_options(scorer: str, options: dict[str, Any]) -> None:
    table = pa.table({"response": ["Paris", "{}"], "reference": ["Paris", "Lyon"]})
    out = score_arrow_batches(
        table.to_batches(max_chunksize=1),
        response="response",
        reference="reference",
        scorers={scorer: options},
    )
    expected = pl.from_arrow(table).select(
        ps.get_scorer(scorer).expr("response", "reference", **options)
    )  # type: ignore[union-attr]
    assert (
        pa.Table.from_batches(list(out)).column(scorer).to_pylist()
        == expected.to_series().to_list()
    )
