"""score_frame: several registry scorers at once, names, thresholds, and clear errors."""

from __future__ import annotations

import re

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore import registry
from polarscore.frame import resolve_scorers
from tests.engines import Engine

DATA = pl.DataFrame(
    {
        "response": ["Paris.", "It is Paris", "Lyon", "paris", None],
        "reference": ["paris", "Paris", "Paris", None, "Paris"],
        "mode": ["exact", "contains", "normalized", "exact", None],
        "model": ["a", "a", "b", "b", "b"],
    }
)
# Hand-derived from DataRobot's answer-correctness rules.
NORMALIZED = [1.0, 0.0, 0.0, None, 0.0]
CONTAINS = [1.0, 1.0, 0.0, None, 0.0]
PER_ROW = [0.0, 1.0, 0.0, None, 0.0]  # "Paris." vs "paris" is 0.0 in exact mode


def _list_scorer(response: pl.Expr, reference: pl.Expr, *, scale: float = 1.0) -> pl.Expr:
    """A toy list scorer: ``scale`` when the response is one of the references."""
    hit = reference.list.contains(response).cast(pl.Float64) * scale
    usable = reference.is_not_null()
    return pl.when(usable).then(hit).alias("toy_list")


@pytest.fixture
def toy_list_scorer(monkeypatch: pytest.MonkeyPatch) -> ps.ScorerSpec:
    """Register a list-taking scorer with an option, as other families do."""
    spec = ps.ScorerSpec(
        name="toy_list",
        function=_list_scorer,
        family="test",
        reference_kind="list",
        options={"scale": 1.0},
    )
    monkeypatch.setitem(registry._SCORERS, spec.name, spec)
    return spec


@pytest.fixture
def toy_text_scorer(monkeypatch: pytest.MonkeyPatch) -> ps.ScorerSpec:
    """Register a scorer that takes only a text reference."""
    spec = ps.ScorerSpec(
        name="toy_text",
        function=lambda response, reference: (response == reference).cast(pl.Float64),
        family="test",
        reference_kind="string",
    )
    monkeypatch.setitem(registry._SCORERS, spec.name, spec)
    return spec


def test_adds_columns_in_order_with_options() -> None:
    out = ps.score_frame(
        DATA,
        scorers=[
            ("answer_correctness", {"match_mode": "contains"}),
        ],
        prefix="c_",
    )
    assert isinstance(out, pl.DataFrame)
    assert out.columns == [*DATA.columns, "c_answer_correctness"]
    assert out["c_answer_correctness"].to_list() == CONTAINS


def test_mapping_form_and_defaults() -> None:
    out = ps.score_frame(DATA, scorers={"answer_correctness": None})
    assert out["answer_correctness"].to_list() == NORMALIZED
    out = ps.score_frame(DATA, scorers="answer_correctness")
    assert out["answer_correctness"].to_list() == NORMALIZED


def test_per_row_option_expression() -> None:
    out = ps.score_frame(DATA, scorers={"answer_correctness": {"match_mode": pl.col("mode")}})
    assert out["answer_correctness"].to_list() == PER_ROW


def test_lazy_in_lazy_out_and_equal() -> None:
    lazy = ps.score_frame(DATA.lazy(), scorers=["answer_correctness"], thresholds=0.5)
    assert isinstance(lazy, pl.LazyFrame)
    eager = ps.score_frame(DATA, scorers=["answer_correctness"], thresholds=0.5)
    assert_frame_equal(lazy.collect(engine="streaming"), eager)


def test_every_default_scorer_by_default(engine: Engine) -> None:
    exprs = ps.score_frame(DATA.lazy(), thresholds=0.5).collect_schema()
    names = ps.default_scorers()
    assert [c for c in exprs.names() if c not in DATA.columns] == [
        *names,
        *[n + "_passed" for n in names],
    ]
    scored = ps.score_frame(DATA)
    for name in names:
        spec = ps.get_scorer(name)
        assert scored[name].dtype == spec.dtype
        assert scored[name][3] is None  # reference null: inconclusive for every scorer
    # The frame-level columns equal each scorer's own expression under every engine.
    text = pl.col("reference")
    as_list = pl.when(text.is_not_null()).then(pl.concat_list(text))  # score_frame's list of one
    direct = engine(
        DATA,
        *(
            ps.get_scorer(n).expr("response", as_list if kind == "list" else text)
            for n, kind in ((n, ps.get_scorer(n).reference_kind) for n in names)
        ),
    )
    assert_frame_equal(scored.select(names), direct, check_dtypes=False)


def test_checks_run_when_named_without_a_reference_column() -> None:
    """A check of the response alone needs no reference column."""
    df = pl.DataFrame({"response": ["Paris", "", None]})
    scored = ps.score_frame(
        df, scorers={"non_empty": None, "contains": {"keywords": ["paris"]}}, thresholds=0.5
    )
    assert scored["non_empty"].to_list() == [1.0, 0.0, 0.0]
    assert scored["contains"].to_list() == [1.0, 0.0, 0.0]
    assert scored["contains_passed"].to_list() == [True, False, False]
    assert "contains" not in ps.default_scorers()


def test_thresholds_add_pass_columns_with_null_for_inconclusive() -> None:
    out = ps.score_frame(
        DATA,
        scorers={"answer_correctness": {"match_mode": "contains"}},
        thresholds={"answer_correctness": 1.0},
    )
    assert out["answer_correctness_passed"].dtype == pl.Boolean
    assert out["answer_correctness_passed"].to_list() == [True, True, False, None, False]


def test_threshold_at_the_boundary_passes() -> None:
    out = ps.score_frame(DATA, scorers="answer_correctness", thresholds=0.0)
    assert out["answer_correctness_passed"].to_list() == [True, True, True, None, True]


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), "0.5", True])
def test_bad_threshold(threshold: object) -> None:
    with pytest.raises(ps.InvalidParameterError, match="thresholds"):
        ps.score_frame(DATA, scorers="answer_correctness", thresholds=threshold)  # type: ignore[arg-type]


def test_threshold_for_a_scorer_not_run() -> None:
    with pytest.raises(ps.InvalidParameterError, match="thresholds"):
        ps.score_frame(DATA, scorers="answer_correctness", thresholds={"nope": 0.5})


def test_collision_is_an_error_unless_prefixed() -> None:
    scored = ps.score_frame(DATA, scorers="answer_correctness")
    with pytest.raises(ps.ColumnCollisionError, match=r"(?s)'answer_correctness'.*prefix"):
        ps.score_frame(scored, scorers="answer_correctness")
    again = ps.score_frame(scored, scorers="answer_correctness", prefix="v2_")
    assert again["v2_answer_correctness"].to_list() == NORMALIZED
    with pytest.raises(ps.ColumnCollisionError, match="answer_correctness_passed"):
        ps.score_frame(
            scored.rename({"answer_correctness": "x"}).with_columns(
                answer_correctness_passed=pl.lit(True)
            ),
            scorers="answer_correctness",
            thresholds=0.5,
        )


def test_same_scorer_twice_is_an_error() -> None:
    with pytest.raises(ps.InvalidParameterError, match="once"):
        ps.score_frame(DATA, scorers=["answer_correctness", "answer_correctness"])


def test_missing_column_names_existing_ones() -> None:
    with pytest.raises(ps.ColumnNotFoundError) as info:
        ps.score_frame(DATA, response="answer", scorers="answer_correctness")
    message = str(info.value)
    assert "'answer'" in message
    for column in DATA.columns:
        assert repr(column) in message
    with pytest.raises(ps.ColumnNotFoundError, match="'gold'"):
        ps.score_frame(DATA, reference="gold", scorers="answer_correctness")


def test_wrong_column_type() -> None:
    frame = DATA.with_columns(pl.int_range(pl.len()).alias("response"))
    with pytest.raises(
        ps.ColumnTypeError,
        match=r"'response' parameter of score_frame.*column 'response' of type Int64",
    ):
        ps.score_frame(frame, scorers="answer_correctness")


def test_list_reference_for_a_text_only_scorer(toy_text_scorer: ps.ScorerSpec) -> None:
    frame = DATA.with_columns(pl.concat_list("reference").alias("reference"))
    with pytest.raises(ps.ColumnTypeError, match=r"(?s)'reference'.*toy_text.*references"):
        ps.score_frame(frame, scorers="toy_text")


def test_categorical_and_null_columns_are_text() -> None:
    cat = DATA.with_columns(pl.col("response", "reference").cast(pl.Categorical))
    assert (
        ps.score_frame(cat, scorers="answer_correctness")["answer_correctness"].to_list()
        == NORMALIZED
    )
    nulls = DATA.with_columns(reference=pl.lit(None))
    assert (
        ps.score_frame(nulls, scorers="answer_correctness")["answer_correctness"].null_count() == 5
    )


def test_unknown_scorer_and_option() -> None:
    with pytest.raises(ps.InvalidParameterError, match="answer_correctness"):
        ps.score_frame(DATA, scorers="answer_corectness")
    with pytest.raises(ps.InvalidParameterError, match=r"'mode'.*'match_mode'"):
        ps.score_frame(DATA, scorers={"answer_correctness": {"mode": "exact"}})
    with pytest.raises(ps.InvalidParameterError, match="exakt"):
        ps.score_frame(DATA, scorers={"answer_correctness": {"match_mode": "exakt"}})


@pytest.mark.parametrize("scorers", [[], 3, [("answer_correctness", "exact")], {"a": 1}])
def test_bad_selection(scorers: object) -> None:
    with pytest.raises(ps.InvalidParameterError, match="scorers"):
        ps.score_frame(DATA, scorers=scorers)  # type: ignore[arg-type]


def test_not_a_frame() -> None:
    with pytest.raises(ps.InvalidParameterError, match="frame"):
        ps.score_frame(DATA.to_dict(), scorers="answer_correctness")  # type: ignore[type-var]


def test_list_scorer_gets_text_reference_as_list_of_one(toy_list_scorer: ps.ScorerSpec) -> None:
    frame = pl.DataFrame({"response": ["a", "b", "c"], "reference": ["a", "x", None]})
    out = ps.score_frame(frame, scorers={"toy_list": {"scale": 0.5}})
    assert out["toy_list"].to_list() == [0.5, 0.0, None]  # a null reference stays inconclusive


def test_list_scorer_uses_references_column(
    toy_list_scorer: ps.ScorerSpec, toy_text_scorer: ps.ScorerSpec
) -> None:
    frame = pl.DataFrame(
        {
            "response": ["a", "b", "c"],
            "reference": ["z", "z", "z"],
            "acceptable": [["z", "a"], ["b"], None],
        }
    )
    out = ps.score_frame(
        frame,
        references="acceptable",
        scorers=["toy_list", "toy_text"],
    )
    assert out["toy_list"].to_list() == [1.0, 1.0, None]
    assert out["toy_text"].to_list() == [0.0, 0.0, 0.0]  # a text-only scorer keeps `reference`
    # A list column given as `reference` also works for a list scorer.
    out = ps.score_frame(frame.drop("reference"), reference="acceptable", scorers="toy_list")
    assert out["toy_list"].to_list() == [1.0, 1.0, None]
    with pytest.raises(ps.ColumnTypeError, match="acceptable"):
        ps.score_frame(
            frame.with_columns(acceptable=pl.lit(1)), references="acceptable", scorers="toy_list"
        )


def test_resolve_scorers_names() -> None:
    requests = resolve_scorers({"answer_correctness": {}}, thresholds=0.25, prefix="p_")
    assert [(r.column, r.pass_column, r.threshold) for r in requests] == [
        ("p_answer_correctness", "p_answer_correctness_passed", 0.25)
    ]


# --- errors speak the caller's language -------------------------------------------------------


def test_python_errors_name_parameters_not_flags() -> None:
    df = pl.DataFrame({"answer": ["Paris"], "gold": ["paris"], "model": ["a"], "n": [1]})
    with pytest.raises(ps.ColumnNotFoundError) as missing:
        ps.score_frame(df, reference="gold")
    assert "--" not in str(missing.value)
    assert "Hint: pass one of them as response=." in str(missing.value)
    scored = ps.score_frame(df, response="answer", reference="gold", scorers="answer_correctness")
    with pytest.raises(ps.ColumnNotFoundError) as by:
        ps.summarize(scored, by="modle")
    assert "--" not in str(by.value)
    assert "Hint: pass one of them as by=." in str(by.value)
    with pytest.raises(ps.ColumnCollisionError) as clash:
        ps.score_frame(scored, response="answer", reference="gold", scorers="answer_correctness")
    assert "--" not in str(clash.value)


def test_a_non_text_column_error_says_how_to_cast() -> None:
    df = pl.DataFrame({"answer": [42], "gold": ["42"]})
    cast = "pl.col('answer').cast(pl.String)"
    with pytest.raises(ps.ColumnTypeError, match=re.escape(cast)):
        ps.score_frame(df, response="answer", reference="gold", scorers="answer_correctness")
    with pytest.raises(ps.ColumnTypeError, match=re.escape(cast)):
        df.select(ps.answer_correctness("answer", "gold"))
    with pytest.raises(ps.ColumnTypeError, match=re.escape("pl.col('answer').cast(pl.String)")):
        df.select(ps.answer_match("gold", "answer"))
    fixed = df.with_columns(pl.col("answer").cast(pl.String))
    assert fixed.select(ps.answer_correctness("answer", "gold")).item() == 1.0


def test_answer_match_reads_the_frames_question() -> None:
    # The question makes answer_match more exact: an answer that echoes the question's words
    # ("Sri Lanka") does not match an alias made of them.
    df = pl.DataFrame(
        {
            "input": ["Which party won in Sri Lanka?", "who played the lead?", None],
            "response": ["Sri Lanka", "It was Tom Hanks", "Sri Lanka"],
            "reference": [
                "Sri Lanka Podujana Peramuna",
                "Tom Hanks",
                "Sri Lanka Podujana Peramuna",
            ],
        }
    )
    with_question = df.select(ps.answer_match("response", "reference", question="input"))
    without = df.select(ps.answer_match("response", "reference"))
    assert with_question.to_series().to_list() != without.to_series().to_list()
    out = ps.score_frame(df, scorers=["answer_match", "correct"])
    assert out["answer_match"].to_list() == with_question.to_series().to_list()
    # A `question` column comes before `input`; a question the request names is kept.
    both = df.with_columns(question=pl.lit("unrelated"))
    out = ps.score_frame(both, scorers=["answer_match"])
    assert out["answer_match"].to_list() == without.to_series().to_list()
    named = ps.score_frame(df, scorers={"answer_match": {"question": pl.lit(None, pl.String)}})
    assert named["answer_match"].to_list() == without.to_series().to_list()
