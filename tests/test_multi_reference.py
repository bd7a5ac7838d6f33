"""Several references per row: every scorer takes a List(String) reference column."""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal, assert_series_equal

import polarscore as ps
from polarscore._multi_reference import dispatch_reference
from polarscore.scores.correctness import INCONCLUSIVE_REASON, MATCH_MODES
from tests.engines import EAGER, STREAMING, Engine
from tests.oracles import correctness as oracle
from tests.strategies import optional_text, text

LIST_SCORERS = [
    ps.get_scorer(name)
    for name in ps.available_scorers()
    if ps.get_scorer(name).reference_kind == "string_or_list"
]
IDS = [spec.name for spec in LIST_SCORERS]


def _variants(spec: ps.ScorerSpec) -> list[dict[str, Any]]:
    """The option sets to try for a scorer: its defaults, and each literal choice it has."""
    if spec.name == "answer_correctness":
        return [{"match_mode": mode} for mode in MATCH_MODES] + [
            {"match_mode": pl.col("match_mode")}
        ]
    if spec.name == "response_similarity":
        return [{"metric": metric} for metric in ("token_recall", "token_f1", "rouge_l")]
    return [{}]


def test_every_scorer_takes_lists() -> None:
    """Every registered scorer is list-capable (precision joins when it lands)."""
    assert {"answer_correctness", "response_similarity", "squad_exact_match", "squad_f1"} <= {
        spec.name for spec in LIST_SCORERS
    }


def _check_list_of_one(
    run: Engine, spec: ps.ScorerSpec, frame: pl.DataFrame, **options: Any
) -> None:
    out = run(
        frame,
        spec.expr("response", "reference", **options).alias("plain"),
        spec.expr("response", pl.concat_list("reference"), **options).alias("listed"),
    )
    # A null string is "no reference"; a list holding one null is a list with an unusable
    # item (except for response_similarity, where it is the text "None"): compare the others.
    scored = frame["reference"].is_not_null()
    assert_series_equal(
        out["plain"].filter(scored), out["listed"].filter(scored), check_names=False
    )
    assert out["plain"].filter(scored).null_count() < scored.sum()


@pytest.mark.parametrize("spec", LIST_SCORERS, ids=IDS)
def test_list_of_one_equals_the_plain_string(spec: ps.ScorerSpec, parity: pl.DataFrame) -> None:
    for options in _variants(spec):
        _check_list_of_one(EAGER, spec, parity, **options)


@pytest.mark.parametrize("spec", LIST_SCORERS, ids=IDS)
def test_list_of_one_equals_the_plain_string_on_every_engine(
    spec: ps.ScorerSpec, parity: pl.DataFrame, engine: Engine
) -> None:
    _check_list_of_one(engine, spec, parity.head(500), **_variants(spec)[-1])


@pytest.mark.parametrize("spec", LIST_SCORERS, ids=IDS)
def test_reference_order_does_not_change_the_score(
    spec: ps.ScorerSpec, parity: pl.DataFrame
) -> None:
    shuffled = [
        None if refs is None else random.Random(i).sample(refs, len(refs))
        for i, refs in enumerate(parity["acceptable"].to_list())
    ]
    df = parity.with_columns(
        shuffled=pl.Series(shuffled, dtype=pl.List(pl.String)),
        reversed=pl.col("acceptable").list.reverse(),
    )
    for options in _variants(spec):
        out = df.select(
            spec.expr("response", "acceptable", **options).alias("given"),
            spec.expr("response", "reversed", **options).alias("reversed"),
            spec.expr("response", "shuffled", **options).alias("shuffled"),
        )
        assert_series_equal(out["given"], out["reversed"], check_names=False)
        assert_series_equal(out["given"], out["shuffled"], check_names=False)


# --- answer_correctness with lists --------------------------------------------------------------


def _correctness_oracle(
    response: str | None, references: list[str | None] | None, mode: str | None
) -> tuple[float | None, int | None]:
    scored = [
        (oracle.answer_correctness(response, ref, mode)[0], i)
        for i, ref in enumerate(references or [])
    ]
    usable = [(s, i) for s, i in scored if s is not None]
    if not usable:
        return None, None
    best = max(s for s, _ in usable)
    return best, next(i for s, i in usable if s == best)


@given(
    rows=st.lists(
        st.tuples(
            optional_text,
            st.one_of(st.none(), st.lists(optional_text, max_size=4)),
            st.one_of(st.none(), st.sampled_from(["exact", "CONTAINS", "normalized", " exact"])),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_correctness_lists_match_oracle(
    rows: list[tuple[str | None, list[str | None] | None, str | None]],
) -> None:
    df = pl.DataFrame(
        rows, schema={"r": pl.String, "g": pl.List(pl.String), "m": pl.String}, orient="row"
    )
    out = df.select(ps.answer_correctness_details("r", "g", match_mode=pl.col("m"))).unnest(
        "answer_correctness_details"
    )
    expected = [_correctness_oracle(r, g, m) for r, g, m in rows]
    assert out.select("score", "reference_index").rows() == expected
    inconclusive = [score is None for score, _ in expected]
    assert (out["reason"] == INCONCLUSIVE_REASON).to_list() == inconclusive


def test_correctness_any_match_and_index(engine: Engine) -> None:
    df = pl.DataFrame(
        {
            "r": ["It is Paris", "Lyon", "x", "y", "Paris"],
            "g": [["London", "paris", "Paris"], ["Paris", " "], [None, "\x1c"], [], None],
        }
    )
    out = engine(df, ps.answer_correctness_details("r", "g", match_mode="contains")).unnest(
        "answer_correctness_details"
    )
    assert out.rows() == [
        (1.0, "contains match", "contains", 1),
        (0.0, "no contains match", "contains", 0),
        (None, INCONCLUSIVE_REASON, "contains", None),
        (None, INCONCLUSIVE_REASON, "contains", None),
        (None, INCONCLUSIVE_REASON, "contains", None),
    ]


def test_correctness_per_row_mode_is_repeated_along_the_list() -> None:
    df = pl.DataFrame(
        {"r": ["Paris.", "Paris."], "g": [["x", "paris"], ["x", "paris"]], "m": ["EXACT", None]}
    )
    out = df.select(ps.answer_correctness("r", "g", match_mode=pl.col("m")))
    assert out.to_series().to_list() == [0.0, 1.0]


def test_similarity_index_points_into_the_original_list() -> None:
    """Dropped blank items still count in the position."""
    df = pl.DataFrame({"r": ["Paris"], "a": [[" ", None, "Lyon", "Paris", "Paris"]]})
    out = df.select(ps.response_similarity_details("r", "a")).unnest("response_similarity_details")
    assert out["acceptable_index"].item() == 3
    assert "closest of 4 acceptable: 'Paris'" in out["reason"].item()  # " " is dropped


# --- the generic mechanism ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "values", "cast_to", "expected"),
    [
        (pl.Null, [None, None], pl.String, [None, None]),
        (pl.Categorical(), ["a", None], pl.String, ["a", None]),
        (pl.List(pl.Null), [[None], None], pl.List(pl.String), [[None], None]),
    ],
)
def test_string_like_reference_dtypes_are_accepted(
    dtype: pl.DataType, values: list[Any], cast_to: pl.DataType, expected: list[Any]
) -> None:
    df = pl.DataFrame({"r": ["a", "b"], "g": pl.Series(values, dtype=dtype)})
    expr = dispatch_reference(pl.col("g"), build=lambda g: g, function="f", parameter="g")
    out = df.select(expr).to_series()
    assert out.dtype == cast_to
    assert out.to_list() == expected


def test_other_reference_dtypes_fail_when_planned() -> None:
    df = pl.DataFrame({"r": ["a"], "g": [1.5]})
    query = df.lazy().select(ps.answer_correctness("r", "g"))  # building is fine
    with pytest.raises(ps.ColumnTypeError, match="'reference' parameter of answer_correctness"):
        query.collect()


def test_list_path_streams_over_many_batches() -> None:
    n = 20_000
    df = pl.DataFrame(
        {
            "r": [f"answer {i % 7}" for i in range(n)],
            "g": [[f"answer {i % 5}", f"Answer {i % 7}."] if i % 3 else [] for i in range(n)],
        }
    )
    exprs = [
        ps.answer_correctness_details("r", "g"),
        ps.response_similarity_details("r", "g", metric="rouge_l"),
        ps.squad_f1("r", "g"),
    ]
    assert_frame_equal(STREAMING(df, *exprs), EAGER(df, *exprs))
    assert df.select(ps.answer_correctness("r", "g")).to_series().sum() == (n - (n + 2) // 3)


@given(refs=st.lists(text, min_size=1, max_size=5), response=text)
def test_duplicate_references_do_not_change_the_score(refs: list[str], response: str) -> None:
    df = pl.DataFrame({"r": [response], "g": [refs], "gg": [refs + refs]})
    once = df.select(spec.expr("r", "g").alias(spec.name) for spec in LIST_SCORERS)
    twice = df.select(spec.expr("r", "gg").alias(spec.name) for spec in LIST_SCORERS)
    assert_frame_equal(once, twice)


@pytest.mark.parametrize("spec", LIST_SCORERS, ids=IDS)
def test_the_plan_time_dispatch_declares_every_column_it_reads(spec: ps.ScorerSpec) -> None:
    """Adapters project the columns of ``meta.root_names()``; none may hide behind the dispatch."""
    for options in _variants(spec):
        roots = set(spec.expr("response", "reference", **options).meta.root_names())
        expected = {"response", "reference"}
        if any(isinstance(value, pl.Expr) for value in options.values()):
            expected.add("match_mode")
        assert roots == expected


def test_precision_takes_the_best_reference_and_says_which() -> None:
    df = pl.DataFrame({"r": ["The answer is 42."], "g": [["Lyon", "42", None, " "]]})
    components = df.select(ps.answer_precision_components("r", "g")).unnest(
        "answer_precision_components"
    )
    assert components["reference_index"].item() == 1
    best = df.select(ps.answer_precision("r", pl.lit("42"))).item()
    assert components["score"].item() == best
    assert df.select(ps.answer_precision("r", "g")).item() == best
    nothing = pl.DataFrame({"r": ["x"], "g": [[None, " "]]})
    assert nothing.select(ps.answer_precision("r", "g")).item() is None
