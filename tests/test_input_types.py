"""Input types and shapes, for every registered scorer.

Text may arrive as String, as Arrow large_string / string_view (Polars reads both as String), as
Categorical or Enum (scored as their strings) or as a Null-typed, all-null column. Anything else
where text is expected is a clear ColumnTypeError naming the function, the parameter, the column
and its dtype, raised when the query is planned (eagerly, lazily and streaming alike). Empty
frames, one-row frames, many-chunk frames and Series arguments all score like the plain case.
The shapes and dtypes are scored on every engine of ``tests/engines.py`` (eager, lazy, streaming,
and Arrow batches through polarscore's Arrow adapter).
"""

from __future__ import annotations

import inspect
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import polarscore as ps
from tests.engines import EAGER, ENGINES, QUERY_ENGINES, Engine
from tests.scorer_cases import IDS, SCORERS, as_form, reference_forms

FRAME = pl.DataFrame(
    {
        "response": ["Paris", "The answer is 42.", None, "", "lyon", "x²", "Paris", "  ", "Paris"],
        "reference": ["paris", "42", "Paris", "Paris", "Paris", "x2", None, " ", "Paris"],
    }
)

CASES = [(spec, form) for spec in SCORERS for form in reference_forms(spec)]
CASE_IDS = [f"{spec.name}-{form}" for spec, form in CASES]


def _score(spec: ps.ScorerSpec, form: str, df: pl.DataFrame, engine: Engine = EAGER) -> pl.Series:
    reference = as_form(pl.col("reference"), form) if form == "list" else "reference"
    return engine.score(df, spec, reference=reference)


def _expected(spec: ps.ScorerSpec, form: str) -> pl.Series:
    return _score(spec, form, FRAME)


def _with_dtype(column: str, dtype: Any) -> pl.DataFrame:
    return FRAME.with_columns(pl.col(column).cast(dtype))


def _enum_of(column: str) -> pl.Enum:
    return pl.Enum(FRAME[column].drop_nulls().unique().sort().to_list())


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("column", ["response", "reference"])
@pytest.mark.parametrize("kind", ["categorical", "enum", "large_string", "string_view"])
def test_text_dtypes_score_as_their_strings(
    spec: ps.ScorerSpec, form: str, column: str, kind: str
) -> None:
    if kind == "categorical":
        df = _with_dtype(column, pl.Categorical)
    elif kind == "enum":
        df = _with_dtype(column, _enum_of(column))
    else:
        arrow_type = pa.large_string() if kind == "large_string" else pa.string_view()
        table = FRAME.to_arrow()
        index = table.schema.get_field_index(column)
        # Built from the values (not cast): pyarrow 16, the oldest supported, has no cast from
        # large_string to string_view.
        values = pa.array(FRAME[column].to_list(), arrow_type)
        table = table.set_column(index, column, values)
        df = pl.from_arrow(table)  # type: ignore[assignment]
    assert isinstance(df, pl.DataFrame)
    for engine in ENGINES:
        assert _score(spec, form, df, engine).equals(_expected(spec, form)), engine


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("column", ["response", "reference"])
def test_null_typed_column_is_all_null_text(spec: ps.ScorerSpec, form: str, column: str) -> None:
    nulls = FRAME.with_columns(pl.lit(None).alias(column))
    assert nulls.schema[column] == pl.Null
    typed = FRAME.with_columns(pl.lit(None, dtype=pl.String).alias(column))
    for engine in ENGINES:
        assert _score(spec, form, nulls, engine).equals(_score(spec, form, typed)), engine


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_arrow_series_arguments(spec: ps.ScorerSpec, form: str) -> None:
    """Series built from Arrow large_string / string_view arrays are accepted as arguments."""
    response = pl.from_arrow(pa.array(FRAME["response"].to_list(), pa.large_string()))
    reference = pl.from_arrow(pa.array(FRAME["reference"].to_list(), pa.string_view()))
    assert isinstance(response, pl.Series)
    assert isinstance(reference, pl.Series)
    ref: Any = reference if form == "string" else as_form(pl.lit(reference), "list")
    out = pl.select(spec.expr(response, ref)).to_series()
    assert out.equals(_expected(spec, form))


BAD_COLUMNS = {
    "Int64": pl.Series([1, 2, 3], dtype=pl.Int64),
    "Float64": pl.Series([1.5, None, 3.0], dtype=pl.Float64),
    "Boolean": pl.Series([True, False, None], dtype=pl.Boolean),
    "Binary": pl.Series([b"a", b"b", None], dtype=pl.Binary),
    "List(Int64)": pl.Series([[1], [2, 3], None], dtype=pl.List(pl.Int64)),
    "Struct": pl.Series([{"a": "x"}, {"a": "y"}, None]),
    "Date": pl.Series(["2024-01-01", "2024-01-02", None]).str.to_date(),
}


def _bad_frame(bad: str, column: str) -> pl.DataFrame:
    df = pl.DataFrame({"response": ["a", "b", "c"], "reference": ["a", "x", "c"]})
    return df.with_columns(BAD_COLUMNS[bad].alias("bad_" + column)).drop(column)


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
@pytest.mark.parametrize("column", ["response", "reference"])
@pytest.mark.parametrize("bad", list(BAD_COLUMNS))
@pytest.mark.parametrize("engine", QUERY_ENGINES, ids=str)
def test_non_text_column_is_a_clear_error(
    spec: ps.ScorerSpec, column: str, bad: str, engine: Engine
) -> None:
    if column == "reference" and spec.reference_kind == "none":
        pytest.skip("a check of the response alone does not read the reference")
    df = _bad_frame(bad, column)
    names = {"response": "response", "reference": "reference", column: "bad_" + column}
    expr = spec.expr(names["response"], names["reference"])
    with pytest.raises(ps.ColumnTypeError) as info:
        engine(df, expr)
    message = str(info.value).splitlines()[0]
    # The scorer's own name for the parameter (e.g. 'references' for a list-taking scorer).
    parameter = list(inspect.signature(spec.function).parameters)[0 if column == "response" else 1]
    assert message.startswith(f"The {parameter!r} parameter of {spec.function.__name__} must be ")
    dtype = df.schema["bad_" + column]
    assert message.endswith(f" Got the column {'bad_' + column!r} of type {dtype} instead."), (
        message
    )


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_list_rejected_where_a_string_is_expected(spec: ps.ScorerSpec) -> None:
    """Only references may be lists (every scorer takes several); a response may not."""
    df = pl.DataFrame({"responses": [["a"]], "reference": ["a"]})
    with pytest.raises(ps.ColumnTypeError, match=r"'responses'.*List\(String\)"):
        df.select(spec.expr("responses", "reference"))


@pytest.mark.parametrize(
    "spec", [s for s in SCORERS if s.reference_kind not in ("string", "none")], ids=lambda s: s.name
)
def test_list_reference_of_non_text_is_a_clear_error(spec: ps.ScorerSpec) -> None:
    df = pl.DataFrame({"response": ["a"], "refs": [[1]]})
    with pytest.raises(ps.ColumnTypeError) as info:
        df.select(spec.expr("response", "refs"))
    # Polars 1.x, which raises it when the query runs, appends lines saying where in the query.
    message = str(info.value).splitlines()[0]
    parameter = list(inspect.signature(spec.function).parameters)[1]
    assert message.startswith(f"The {parameter!r} parameter of {spec.function.__name__} must be ")
    assert message.endswith(" Got the column 'refs' of type List(Int64) instead."), message


def _polars_version() -> tuple[int, ...]:
    return tuple(int(part) for part in pl.__version__.split(".")[:2])


@pytest.mark.parametrize(
    "spec", [s for s in SCORERS if s.reference_kind != "string"], ids=lambda s: s.name
)
@pytest.mark.parametrize("inner", ["categorical", "null", "large_string"])
def test_list_reference_of_other_text_dtypes(spec: ps.ScorerSpec, inner: str) -> None:
    if inner == "large_string" and _polars_version() < (1, 44):
        # Seen on 1.33, not on 1.44: Polars keeps Arrow's large_list<large_string> with its
        # LargeUtf8 items, and its own list builder panics when the column is combined.
        pytest.xfail("Polars before 1.44 cannot combine this Arrow list layout (a Polars bug)")
    refs = FRAME.select(as_form(pl.col("reference"), "list").alias("reference"))["reference"]
    if inner == "categorical":
        other = refs.cast(pl.List(pl.Categorical))
    elif inner == "null":
        refs = pl.Series("reference", [None, [], [None]], dtype=pl.List(pl.String))
        other = pl.Series("reference", [None, [], [None]], dtype=pl.List(pl.Null))
    else:
        arrow = pa.array(refs.to_list(), pa.large_list(pa.large_string()))
        other = pl.from_arrow(arrow).alias("reference")  # type: ignore[union-attr]
    response = pl.Series("response", ["Paris"] * refs.len())
    expected = pl.DataFrame([response, refs]).select(spec.expr("response", "reference"))
    got = pl.DataFrame([response, other]).select(spec.expr("response", "reference"))
    assert got.equals(expected)


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_empty_frame(spec: ps.ScorerSpec, form: str, engine: Engine) -> None:
    out = _score(spec, form, FRAME.clear(), engine)
    assert out.len() == 0
    assert out.dtype == spec.dtype


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_every_one_row_frame(spec: ps.ScorerSpec, form: str, engine: Engine) -> None:
    expected = _expected(spec, form)
    for i in range(FRAME.height):
        assert _score(spec, form, FRAME.slice(i, 1), engine).equals(expected.slice(i, 1)), i


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_many_chunks(spec: ps.ScorerSpec, form: str) -> None:
    chunked = pl.concat([FRAME.slice(i, 1) for i in range(FRAME.height)], rechunk=False)
    assert chunked.n_chunks() == FRAME.height
    for engine in ENGINES:
        assert _score(spec, form, chunked, engine).equals(_expected(spec, form)), engine


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_series_arguments(spec: ps.ScorerSpec) -> None:
    out = pl.select(spec.expr(FRAME["response"], FRAME["reference"])).to_series()
    assert out.equals(FRAME.select(spec.expr("response", "reference")).to_series())


@pytest.mark.parametrize(
    "spec", [s for s in SCORERS if s.reference_kind != "none"], ids=lambda s: s.name
)
@pytest.mark.parametrize("lengths", [(2, 3), (1, 3), (3, 0)])
def test_series_of_different_lengths(spec: ps.ScorerSpec, lengths: tuple[int, int]) -> None:
    """Never broadcast a one-row Series silently, never fail deep in the query."""
    response = FRAME["response"].head(lengths[0])
    reference = FRAME["reference"].head(lengths[1])
    with pytest.raises(ps.InvalidParameterError, match=f"{lengths[0]}.*{lengths[1]}"):
        spec.expr(response, reference)
