"""Invariants every registered scorer must keep, read from the registry so none is forgotten."""

from __future__ import annotations

import inspect

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

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


@pytest.mark.parametrize("spec", [s for s in SCORERS if s.nullable], ids=lambda s: s.name)
def test_missing_reference_is_inconclusive(spec: ps.ScorerSpec) -> None:
    out = FRAME.select(spec.expr("response", _reference_column(spec)))
    assert out[spec.name][6] is None  # reference null
    assert out[spec.name][7] is None  # reference blank


@pytest.mark.parametrize("spec", [s for s in SCORERS if not s.nullable], ids=lambda s: s.name)
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


def test_namespace_mirrors_functions() -> None:
    """Every namespace method delegates to the public function of the same name and signature."""
    methods = {
        name: member
        for name, member in inspect.getmembers(ScoreNamespace, inspect.isfunction)
        if not name.startswith("_")
    }
    assert methods, "the namespace exposes no scorer"
    for name, method in methods.items():
        function = getattr(ps, name)
        function_params = list(inspect.signature(function).parameters.values())
        method_params = list(inspect.signature(method).parameters.values())
        assert [p.name for p in method_params][1:] == [p.name for p in function_params][1:], name
        assert [p.default for p in method_params][1:] == [p.default for p in function_params][1:]
    for spec in SCORERS:
        assert spec.name in methods, f"{spec.name} has no namespace method"


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
