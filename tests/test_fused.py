"""The fused multi-scorer call: whole-frame scoring equals each scorer's own expression.

``score_frame``, the command line and the Arrow adapter run the scorers that have a fused form
(and literal options) in one native call per batch. Each test here scores a frame that way and
compares it, row for row, with every scorer run alone (its own expression, or the Arrow adapter
with that scorer only), on every engine, with a ``String`` and a ``List(String)`` reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_series_equal

import polarscore as ps
from polarscore.adapters import score_arrow_batches
from polarscore.frame import add_scores, resolve_scorers, score_exprs
from tests.engines import EAGER, STREAMING, Engine, arrow_batches
from tests.strategies import optional_text

#: The scorers with a fused form.
FUSED = [name for name in ps.available_scorers() if ps.get_scorer(name).fused is not None]

RESPONSES = [
    "The Beatles band",
    "Paris.",
    None,
    "",
    "   ",
    "It is 42, not 41.5 (about 40%)",
    "Malmö was founded in 1275; ΣΑΣ",
    "the",
    "Answer: (B) the seventh century",
]
REFERENCES = [
    ["Beatles", "The Beatles"],
    ["paris"],
    ["a"],
    [],
    None,
    ["41.5", None, "42"],
    ["Malmo", "  "],
    ["the"],
    ["7th century", "B"],
]

#: Non-default literal options for every scorer with a fused form.
OPTIONS: dict[str, dict[str, Any]] = {
    "answer_correctness": {"match_mode": "contains"},
    "answer_match": {
        "exact": False,
        "min_token_recall": 0.5,
        "stem_prefix": None,
        "fold_accents": False,
        "number_words": False,
        "approximate_numbers": True,
        "glued_words": False,
    },
    "answer_precision": {
        "char_similarity": "sequence_matcher",
        "missing_expected": "zero",
        "numeric_tolerance_abs": 0.5,
        "numeric_tolerance_rel": 0.05,
        "power_p": 1.0,
        "weights": {"contains": 1.0, "token_recall": 0.5, "exact": 0.25},
        "stopwords": "en",
        "max_work": 200,
    },
    "response_similarity": {"metric": "rouge_l", "max_work": 20},
}

SELECTIONS: dict[str, Any] = {
    "defaults": None,
    "non_default_options": {name: OPTIONS.get(name, {}) for name in FUSED},
    "squad_reversed": ["squad_f1", "answer_precision", "squad_exact_match"],
    "squad_exact_match_alone": ["squad_exact_match", "answer_correctness"],
    "token_f1": {"response_similarity": {"metric": "token_f1"}, "squad_f1": {}},
}


def _frame(*, lists: bool) -> pl.DataFrame:
    frame = pl.DataFrame(
        {"response": RESPONSES, "reference": REFERENCES},
        schema={"response": pl.String, "reference": pl.List(pl.String)},
    )
    if lists:
        return frame
    return frame.with_columns(pl.col("reference").list.first())


def _selection(selection: Any) -> dict[str, Mapping[str, Any]]:
    requests = resolve_scorers(selection)
    return {r.spec.name: r.options for r in requests}


def _scored(engine: Engine, frame: pl.DataFrame, selection: Any) -> pl.DataFrame:
    """The score columns of ``selection``, as whole-frame scoring computes them on ``engine``."""
    names = list(_selection(selection))
    if engine.mode == "arrow":
        assert engine.batch_rows is not None
        batches = arrow_batches(frame, engine.batch_rows)
        scored = score_arrow_batches(
            batches,
            schema=batches[0].schema,
            response="response",
            reference="reference",
            scorers=selection if selection is not None else names,
        )
        table = pa.Table.from_batches(list(scored))
        out = pl.from_arrow(table.select(names))
        assert isinstance(out, pl.DataFrame)
        return out
    requests = resolve_scorers(selection)
    if engine.mode == "eager":
        return add_scores(frame, requests).select(names)
    lazy = add_scores(frame.lazy(), requests).select(names)
    return lazy.collect(engine="streaming" if engine.mode == "streaming" else "auto")


def _assert_fused_equals_alone(engine: Engine, frame: pl.DataFrame, selection: Any) -> None:
    scored = _scored(engine, frame, selection)
    for name, options in _selection(selection).items():
        alone = engine.score(frame, ps.get_scorer(name), **options)
        assert_series_equal(scored[name], alone, check_dtypes=True, check_exact=True)


@pytest.mark.parametrize("kind", ["string", "list"])
@pytest.mark.parametrize("selection", list(SELECTIONS), ids=str)
def test_fused_scores_equal_each_scorer_alone(engine: Engine, selection: str, kind: str) -> None:
    _assert_fused_equals_alone(engine, _frame(lists=kind == "list"), SELECTIONS[selection])


def test_a_larger_frame_split_over_the_cores_equals_each_scorer_alone() -> None:
    # Over 2 x 8,192 rows, a batch is scored in row ranges on all cores.
    frame = pl.concat([_frame(lists=True)] * 2_000)
    for engine in (EAGER, STREAMING):
        _assert_fused_equals_alone(engine, frame, None)


@given(
    responses=st.lists(optional_text, min_size=1, max_size=8),
    references=st.lists(st.one_of(st.none(), st.lists(optional_text, max_size=3)), max_size=8),
    kind=st.sampled_from(["string", "list"]),
    selection=st.sampled_from(["defaults", "non_default_options"]),
)
def test_random_unicode(
    responses: list[str | None],
    references: list[list[str | None] | None],
    kind: str,
    selection: str,
) -> None:
    n = len(responses)
    refs = (references + [None] * n)[:n]
    frame = pl.DataFrame(
        {"response": responses, "reference": refs},
        schema={"response": pl.String, "reference": pl.List(pl.String)},
    )
    if kind == "string":
        frame = frame.with_columns(pl.col("reference").list.first())
    _assert_fused_equals_alone(EAGER, frame, SELECTIONS[selection])


def _fused_calls(plan: str) -> int:
    return plan.count("fused_scores")


def test_the_default_scorers_run_as_one_native_call() -> None:
    lazy = ps.score_frame(_frame(lists=False).lazy(), thresholds=0.5)
    assert _fused_calls(lazy.explain()) == 1
    assert _fused_calls(lazy.explain(engine="streaming")) == 1
    # The temporary struct column is gone; the columns are as before.
    names = ps.default_scorers()
    assert lazy.collect_schema().names() == [
        "response",
        "reference",
        *names,
        *[n + "_passed" for n in names],
    ]


def test_the_temporary_column_never_collides() -> None:
    frame = _frame(lists=False).with_columns(
        pl.lit(1).alias("__polarscore_fused_0"), pl.lit(2).alias("___polarscore_fused_0")
    )
    scored = ps.score_frame(frame)
    assert scored.columns == [*frame.columns, *ps.default_scorers()]
    assert scored["__polarscore_fused_0"].to_list() == [1] * len(frame)


def test_options_from_columns_run_alone() -> None:
    frame = _frame(lists=False).with_columns(
        mode=pl.lit("exact"), question=pl.lit("When was it?"), tol=pl.lit(0.5)
    )
    selection = {
        "answer_correctness": {"match_mode": pl.col("mode")},
        "answer_match": {"question": "question"},
        "answer_precision": {"numeric_tolerance_abs": pl.col("tol")},
        "response_similarity": {"unacceptable": "reference"},
        "squad_f1": {},
    }
    lazy = ps.score_frame(frame.lazy(), scorers=selection)
    # squad_f1 is left alone in its group: no fused call at all.
    assert _fused_calls(lazy.explain()) == 0
    for name, options in selection.items():
        alone = frame.select(ps.get_scorer(name).expr("response", "reference", **options))
        assert_series_equal(lazy.collect()[name], alone.to_series())
    selection["squad_exact_match"] = {}
    assert _fused_calls(ps.score_frame(frame.lazy(), scorers=selection).explain()) == 1


def test_score_exprs_reads_the_call_inline() -> None:
    frame = _frame(lists=True)
    # correct is left out: score_frame tells a plain table's task kind from its rows, which an
    # expression built from the schema alone cannot (it tells each row's kind from its golds).
    fused = [name for name in ps.default_scorers() if name != "correct"]
    requests = resolve_scorers(fused, prefix="x_")
    exprs = score_exprs(frame.schema, requests)
    expected = ps.score_frame(frame, prefix="x_", scorers=fused)
    assert frame.with_columns(exprs).equals(expected)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"answer_correctness": {"match_mode": "exakt"}}, "'match_mode' parameter of answer_"),
        ({"answer_match": {"stem_prefix": 0}}, "'stem_prefix' parameter of answer_match"),
        ({"answer_precision": {"power_p": 0}}, "'power_p' parameter of answer_precision"),
        ({"response_similarity": {"metric": "bleu"}}, "'metric' parameter of response_simil"),
    ],
)
def test_bad_options_raise_the_scorers_own_errors(
    options: dict[str, dict[str, Any]], message: str
) -> None:
    with pytest.raises(ps.InvalidParameterError, match=message):
        ps.score_frame(_frame(lists=False), scorers={"squad_f1": {}, **options})
