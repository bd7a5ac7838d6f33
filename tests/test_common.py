"""Invariants every registered scorer must keep, read from the registry so none is forgotten."""

from __future__ import annotations

import inspect
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore.namespace import ScoreNamespace
from polarscore.normalize import PY_WHITESPACE, PY_WORD_CLASS, PY_WS_CLASS
from tests.engines import EAGER, Engine
from tests.strategies import text

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]

# A small frame that exercises nulls, blanks and ordinary rows for every scorer.
FRAME = pl.DataFrame(
    {
        "response": ["Paris", "The answer is 42.", None, "", "lyon", "x²", "Paris", "  "],
        "reference": ["paris", "42", "Paris", "Paris", "Paris", "x2", None, " "],
    }
)


def _reference_column(spec: ps.ScorerSpec) -> pl.Expr:
    if spec.reference_kind == "list":
        return pl.concat_list(pl.col("reference"))
    return pl.col("reference")


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_dtype_range_and_engines(spec: ps.ScorerSpec, engine: Engine) -> None:
    """Every engine gives the declared dtype and range, and exactly the eager result."""
    reference = _reference_column(spec)
    scores = engine.score(FRAME, spec, reference=reference)
    assert scores.dtype == spec.dtype
    values = scores.drop_nulls()
    assert values.len() > 0
    assert values.min() >= spec.lower  # type: ignore[operator]
    assert values.max() <= spec.upper  # type: ignore[operator]
    assert scores.equals(EAGER.score(FRAME, spec, reference=reference))


@pytest.mark.parametrize(
    "spec",
    [s for s in SCORERS if s.nullable and s.reference_kind != "none"],
    ids=lambda s: s.name,
)
def test_missing_reference_is_inconclusive(spec: ps.ScorerSpec) -> None:
    out = FRAME.select(spec.expr("response", _reference_column(spec)))
    assert out[spec.name][6] is None  # reference null
    assert out[spec.name][7] is None  # reference blank


@pytest.mark.parametrize(
    "spec",
    # The checks of the response alone are null only where a pattern's step budget runs out.
    [s for s in SCORERS if not s.nullable or s.reference_kind == "none"],
    ids=lambda s: s.name,
)
def test_never_null(spec: ps.ScorerSpec) -> None:
    out = FRAME.select(spec.expr("response", _reference_column(spec)))
    assert out[spec.name].null_count() == 0


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_row_order_independent(spec: ps.ScorerSpec) -> None:
    expr = spec.expr("response", _reference_column(spec))
    forward = FRAME.with_row_index().select("index", expr)
    backward = FRAME.with_row_index().reverse().select("index", expr).sort("index")
    assert forward.equals(backward)


@pytest.mark.parametrize("spec", [s for s in SCORERS if s.identity], ids=lambda s: s.name)
@given(value=text.filter(lambda s: s.strip() != ""))
def test_identity(spec: ps.ScorerSpec, value: str) -> None:
    df = pl.DataFrame({"a": [value]})
    reference = pl.concat_list("a") if spec.reference_kind == "list" else pl.col("a")
    assert df.select(spec.expr("a", reference)).item() == spec.upper


@pytest.mark.parametrize("spec", [s for s in SCORERS if s.symmetric], ids=lambda s: s.name)
@given(a=text.filter(str.strip), b=text.filter(str.strip))
def test_symmetry(spec: ps.ScorerSpec, a: str, b: str) -> None:
    df = pl.DataFrame({"a": [a], "b": [b]})
    assert df.select(spec.expr("a", "b")).item() == df.select(spec.expr("b", "a")).item()


def test_unknown_scorer_lists_the_known_ones() -> None:
    with pytest.raises(ps.InvalidParameterError, match="answer_correctness"):
        ps.get_scorer("answer_corectness")


def _namespace_methods() -> dict[str, Any]:
    return {
        name: member
        for name, member in inspect.getmembers(ScoreNamespace, inspect.isfunction)
        if not name.startswith("_")
    }


def test_namespace_mirrors_functions() -> None:
    """Every namespace method delegates to the public function of the same name and signature."""
    methods = _namespace_methods()
    assert methods, "the namespace exposes no scorer"
    for name, method in methods.items():
        function = getattr(ps, name)
        function_params = list(inspect.signature(function).parameters.values())
        method_params = list(inspect.signature(method).parameters.values())
        assert [p.name for p in method_params][1:] == [p.name for p in function_params][1:], name
        assert [p.default for p in method_params][1:] == [p.default for p in function_params][1:]
    for spec in SCORERS:
        assert spec.name in methods, f"{spec.name} has no namespace method"


#: Rows for the namespace cases: texts, lists of references, and per-row option columns, chosen
#: so that every case's options change some row's result (see test_namespace_cases_use_options).
NAMESPACE_FRAME = pl.DataFrame(
    [
        ("Paris.", "paris", ["paris"], ["Lyon"], "What is the capital of France?", "exact"),
        ("x", "y", ["y", "x"], None, None, None),
        ("The answer is (B). It is 42.", "B", ["B", "42"], ["A"], "Which one?", "contains"),
        ("a b", "b c", ["b c"], ["a b"], "", "normalized"),
        ("the cat sat", "cat", ["cat", "a cat sat"], [], "Who sat?", "exact"),
        ("DÃ¡in", "Dáin", ["Dáin"], ["x"], None, None),
        ("PARIS", "paris", ["paris"], None, None, None),
        ("Lyon ", "Lyon", ["Lyon"], None, None, None),
        ("Answer: C", "C", ["C"], None, None, None),
        ("#### 5, or about 41.8", "5", ["42", None], None, None, None),
        ("[1, 2]", "x", [], None, None, None),
        ("https://example.org", None, None, None, None, None),
        ("It is 42.", "42", ["42"], None, None, None),
        ("about 41.8", "42", ["42"], None, None, None),
        (
            "Elections in Sri Lanka in 2018 were local elections.",
            "Sri Lanka Podujana Peramuna",
            ["Sri Lanka Podujana Peramuna"],
            None,
            "who will win the 2018 election in sri lanka",
            None,
        ),
    ],
    schema={
        "response": pl.String,
        "reference": pl.String,
        "references": pl.List(pl.String),
        "unacceptable": pl.List(pl.String),
        "question": pl.String,
        "mode": pl.String,
    },
    orient="row",
)

#: Per namespace method: the arguments after the response and the options it is called with
#: (per-row options as columns where it takes them). Every method needs a case.
NAMESPACE_CASES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "answer_correctness": (("reference",), {"match_mode": pl.col("mode")}),
    "answer_correctness_details": (("references",), {"match_mode": pl.col("mode")}),
    "correct": (("references",), {"task_kind": "short_answer", "question": "question"}),
    "correct_details": (("references",), {"task_kind": "multiple_choice"}),
    "answer_match": (("references",), {"question": "question"}),
    "answer_match_details": (("references",), {"question": "question", "exact": False}),
    "answer_precision": (("reference",), {"numeric_tolerance_abs": 0.5}),
    "answer_precision_components": (("reference",), {"numeric_tolerance_abs": 0.5}),
    "answer_precision_diagnostics": (("references",), {"numeric_tolerance_rel": 0.05}),
    "response_similarity": (("references",), {"metric": "rouge_l"}),
    "response_similarity_details": (
        ("references",),
        {"metric": "token_f1", "unacceptable": "unacceptable"},
    ),
    "squad_exact_match": (("references",), {}),
    "squad_f1": (("references",), {}),
    "contains": ((), {"keywords": ["paris", "42"], "mode": "any"}),
    "contains_details": ((), {"keywords": ["paris", "42"], "mode": "all"}),
    "starts_with": ((), {"prefix": "the", "case_sensitive": False}),
    "starts_with_details": ((), {"prefix": "Paris"}),
    "ends_with": ((), {"suffix": "."}),
    "ends_with_details": ((), {"suffix": "SAT", "case_sensitive": False}),
    "exact_match": (("reference",), {"case_sensitive": False}),
    "exact_match_details": (("reference",), {"strip_whitespace": False}),
    "non_empty": ((), {}),
    "non_empty_details": ((), {}),
    "length_check": ((), {"min_length": 2, "unit": "words"}),
    "length_check_details": ((), {"max_length": 5}),
    "format_check": ((), {"format_type": "url"}),
    "format_check_details": ((), {"format_type": "date"}),
    "regex_match": ((), {"pattern": r"\(([A-J])\)"}),
    "regex_match_details": ((), {"pattern": r"\w+", "full_match": True}),
    "json_schema": ((), {"schema": {"type": "object"}}),
    "json_schema_details": ((), {"schema": {"type": "string"}}),
    "language_detection": ((), {"expected_language": "de"}),
    "language_detection_details": ((), {"expected_language": "fr"}),
    "extract_choice": ((), {"rules": "answer_is"}),
    "choice_match": (("reference",), {"rules": "answer_is"}),
    "final_choice": ((), {"choices": pl.lit(["ab", "cd"])}),
    "final_choice_details": ((), {"choices": pl.lit(["x", "paris"])}),
    "final_number": ((), {}),
    "final_number_details": ((), {}),
    "repair_mojibake": ((), {}),
    "extract_number": ((), {"method": "answer_line"}),
    "numeric_match": (("reference",), {"method": "strict"}),
}


def _namespace_case(name: str, *, options: bool = True) -> tuple[pl.Expr, pl.Expr]:
    """The case's expression through the namespace and through the function."""
    args, kwargs = NAMESPACE_CASES[name]
    kwargs = kwargs if options else {}
    return (
        getattr(pl.col("response").score, name)(*args, **kwargs),
        getattr(ps, name)("response", *args, **kwargs),
    )


def test_every_namespace_method_has_a_case() -> None:
    assert sorted(NAMESPACE_CASES) == sorted(_namespace_methods())


@pytest.mark.parametrize("name", sorted(NAMESPACE_CASES))
def test_namespace_equals_function(name: str) -> None:
    """``pl.col(...).score.<name>(...)`` gives exactly ``ps.<name>(...)``'s result."""
    via_namespace, via_function = _namespace_case(name)
    assert_frame_equal(NAMESPACE_FRAME.select(via_namespace), NAMESPACE_FRAME.select(via_function))


@pytest.mark.parametrize("name", sorted(n for n, (_, kw) in NAMESPACE_CASES.items() if kw))
def test_namespace_cases_use_options(name: str) -> None:
    """A case's options change its result, so a method that dropped one would fail above."""
    _, with_options = _namespace_case(name)
    _, defaults = _namespace_case(name, options=False)
    assert not NAMESPACE_FRAME.select(with_options).equals(NAMESPACE_FRAME.select(defaults))


def test_python_character_classes_cover_every_code_point() -> None:
    """The Rust regex classes equal Python's whitespace and \\w on Unicode 14.0 code points."""
    import unicodedata

    chars = [
        chr(c)
        for c in range(0x110000)
        if not 0xD800 <= c < 0xE000 and unicodedata.category(chr(c)) != "Cn"
    ]
    series = pl.Series(chars)
    ws = series.str.contains(f"^[{PY_WS_CLASS}]$").to_list()
    word = series.str.contains(f"^[{PY_WORD_CLASS}]$").to_list()
    assert [c for c, w in zip(chars, ws, strict=True) if w] == [c for c in chars if c.isspace()]
    assert sorted(PY_WHITESPACE) == [c for c in chars if c.isspace()]
    mismatched = [c for c, w in zip(chars, word, strict=True) if w != (c.isalnum() or c == "_")]
    assert mismatched == []


@given(value=st.text())
def test_py_strip_equals_python_strip(value: str) -> None:
    from polarscore.normalize import py_strip

    assert pl.select(py_strip(pl.lit(value))).item() == value.strip()
