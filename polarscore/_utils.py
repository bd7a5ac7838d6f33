"""Input coercion shared by every scorer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from polars._typing import PolarsDataType

from polarscore._compat import cast_by_dtype
from polarscore._typing import IntoExpr
from polarscore._validation import invalid_parameter
from polarscore.exceptions import ColumnNotFoundError, ColumnTypeError, InvalidParameterError

#: What a text input must be, in the one message for a non-text input.
TEXT = "a text column (String, Categorical, Enum or Null)"
#: What a reference that may hold several answers per row must be.
TEXT_OR_LIST = "a text column (String, Categorical, Enum or Null) or a list of text"


def parse_into_expr(value: IntoExpr, *, function: str, parameter: str) -> pl.Expr:
    """Turn a column name, an expression or a Series into an expression.

    A string is a column name (never a literal), as everywhere in Polars.
    """
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Series):
        return pl.lit(value)
    raise invalid_parameter(
        function, parameter, "a column name, a polars expression or a polars Series", value
    )


def is_text_dtype(dtype: Any) -> bool:
    """Return True for the dtypes scored as text: String, Categorical, Enum and Null.

    Arrow's ``large_string`` and ``string_view`` arrive in Polars as ``String``.
    """
    return bool(dtype == pl.String or dtype == pl.Null) or isinstance(
        dtype, pl.Categorical | pl.Enum
    )


def _describe_input(expr: pl.Expr) -> str:
    name = expr.meta.output_name(raise_if_undetermined=False)
    return f"column {name!r}" if name is not None else "expression"


def text_type_error(
    function: str, parameter: str, *, what: str, dtype: object, expected: str, hint: str = ""
) -> ColumnTypeError:
    """Return the one error for an input that is not text (or not a list of text).

    The message reads: ``The 'p' parameter of f must be <expected>. Got the <what> of type
    <dtype> instead.`` followed by ``hint``. Every entry point (the scorers at plan time,
    :func:`polarscore.score_frame`, the Arrow and Spark adapters) raises it.
    """
    return ColumnTypeError(
        f"The {parameter!r} parameter of {function} must be {expected}. "
        f"Got the {what} of type {dtype} instead.{hint}"
    )


def _text_type_error(
    expr: pl.Expr, dtype: pl.DataType, *, function: str, parameter: str, expected: str
) -> ColumnTypeError:
    return text_type_error(
        function,
        parameter,
        what=_describe_input(expr),
        dtype=dtype,
        expected=expected,
        hint=cast_hint(expr, dtype),
    )


def cast_hint(expr: pl.Expr, dtype: PolarsDataType) -> str:
    """Return a ``Hint:`` line saying how to cast a non-text input to text ("" if one cannot)."""
    return column_cast_hint(expr.meta.output_name(raise_if_undetermined=False), dtype)


def column_cast_hint(name: str | None, dtype: PolarsDataType) -> str:
    """Return the ``Hint:`` line of :func:`cast_hint` for the column ``name`` (or an expression)."""
    if dtype.is_nested():
        return ""
    source = f"pl.col({name!r})" if name is not None else "the expression"
    return f"\nHint: cast it to text first: {source}.cast(pl.String)."


def text_column(
    schema: pl.Schema,
    name: Any,
    *,
    function: str,
    parameter: str,
    lists: bool = False,
    hint: str | None = None,
) -> pl.Expr:
    """Check that ``schema`` has a text column ``name``; return it as ``String`` (or a list).

    The eager counterpart of :func:`parse_text_expr` (and, with ``lists``, of
    :func:`parse_text_or_list_expr`), for entry points that know the frame's schema: a missing
    column names the columns that exist, a non-text one gets :func:`text_type_error` (with
    ``hint`` instead of the cast hint when given). The column is cast to ``String`` or
    ``List(String)`` unless it already is one.
    """
    if not isinstance(name, str):
        raise invalid_parameter(function, parameter, "a column name (str)", name)
    if name not in schema:
        raise ColumnNotFoundError.from_missing(name, schema.names(), role=parameter)
    dtype = schema[name]
    wanted = _as_text_or_list(dtype) if lists else _as_text(dtype)
    if wanted is None:
        raise text_type_error(
            function,
            parameter,
            what=f"column {name!r}",
            dtype=dtype,
            expected=TEXT_OR_LIST if lists else TEXT,
            hint=column_cast_hint(name, dtype) if hint is None else hint,
        )
    return pl.col(name) if dtype == wanted else pl.col(name).cast(wanted)


def parse_text_expr(value: IntoExpr, *, function: str, parameter: str) -> pl.Expr:
    """Turn a text input into a ``String`` expression, checking its dtype when the plan resolves.

    ``String`` passes unchanged; ``Categorical``, ``Enum`` (scored as their strings) and ``Null``
    (all null) are cast to ``String``. Any other dtype (integers, floats, binary, lists,
    structs, ...) raises :class:`~polarscore.exceptions.ColumnTypeError` naming the function,
    the parameter, the column and its dtype. The check runs once, when the query is planned
    (on Polars 2.x; see :mod:`polarscore._compat` for 1.x), so it costs nothing per row and fails
    before any data is read.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore._utils import parse_text_expr
    >>> df = pl.DataFrame({"answer": [42]})
    >>> df.select(parse_text_expr("answer", function="f", parameter="response"))
    Traceback (most recent call last):
    ...
    polarscore.exceptions.ColumnTypeError: The 'response' parameter of f must be a text column \
(String, Categorical, Enum or Null). Got the column 'answer' of type Int64 instead.
    Hint: cast it to text first: pl.col('answer').cast(pl.String).
    """
    return _checked_text(
        value,
        function=function,
        parameter=parameter,
        target=_as_text,
        expected=TEXT,
        fixed=pl.String(),
    )


def parse_text_list_expr(value: IntoExpr, *, function: str, parameter: str) -> pl.Expr:
    """Turn a list-of-text input into a ``List(String)`` expression, checked at plan time.

    The list's items may be anything :func:`parse_text_expr` accepts; a ``Null``-typed column
    (all null) becomes a null ``List(String)``. Anything else raises
    :class:`~polarscore.exceptions.ColumnTypeError`.
    """
    return _checked_text(
        value,
        function=function,
        parameter=parameter,
        target=_as_text_list,
        expected="a list-of-text column (List(String))",
        fixed=pl.List(pl.String),
    )


def parse_text_or_list_expr(value: IntoExpr, *, function: str, parameter: str) -> pl.Expr:
    """Turn a text or list-of-text input into a ``String`` or ``List(String)`` expression.

    For references that may be one per row or several: text dtypes become ``String`` as in
    :func:`parse_text_expr`, lists of them ``List(String)``; anything else raises
    :class:`~polarscore.exceptions.ColumnTypeError` when the query is planned.
    """
    return _checked_text(
        value,
        function=function,
        parameter=parameter,
        target=_as_text_or_list,
        expected=TEXT_OR_LIST,
    )


def _as_text(dtype: pl.DataType) -> pl.DataType | None:
    return pl.String() if is_text_dtype(dtype) else None


def _as_text_list(dtype: pl.DataType) -> pl.DataType | None:
    if dtype == pl.Null or (isinstance(dtype, pl.List) and is_text_dtype(dtype.inner)):
        return pl.List(pl.String)
    return None


def _as_text_or_list(dtype: pl.DataType) -> pl.DataType | None:
    return _as_text_list(dtype) if isinstance(dtype, pl.List) else _as_text(dtype)


def _checked_text(
    value: IntoExpr,
    *,
    function: str,
    parameter: str,
    target: Callable[[pl.DataType], pl.DataType | None],
    expected: str,
    fixed: pl.DataType | None = None,
) -> pl.Expr:
    """Parse ``value`` and cast it to ``target(dtype)`` once its dtype is known (plan time).

    Raises :class:`~polarscore.exceptions.ColumnTypeError` where ``target`` gives ``None``.
    ``fixed`` is the one dtype ``target`` gives, if there is one (see
    :func:`polarscore._compat.cast_by_dtype`, which also says what differs on Polars 1.x).
    """
    expr = parse_into_expr(value, function=function, parameter=parameter)

    def reject(expr: pl.Expr, dtype: pl.DataType) -> ColumnTypeError:
        return _text_type_error(
            expr, dtype, function=function, parameter=parameter, expected=expected
        )

    return cast_by_dtype(expr, target=target, reject=reject, fixed=fixed)


def check_same_length(function: str, **values: Any) -> None:
    """Raise if several Series inputs of one call have different lengths.

    Polars would broadcast a one-row Series silently, or fail deep inside the query; this fails
    when the expression is built, naming the parameters and their lengths.
    """
    lengths = {name: len(v) for name, v in values.items() if isinstance(v, pl.Series)}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name!r} has {n:,}" for name, n in lengths.items())
        raise InvalidParameterError(
            f"The Series passed to {function} must all have the same length: {described} rows."
        )


__all__ = [
    "TEXT",
    "TEXT_OR_LIST",
    "cast_hint",
    "check_same_length",
    "column_cast_hint",
    "is_text_dtype",
    "parse_into_expr",
    "parse_text_expr",
    "parse_text_list_expr",
    "parse_text_or_list_expr",
    "text_column",
    "text_type_error",
]
