"""The one place polarscore calls Polars differently by version (1.33 through 2.x).

Every scorer checks the dtype of its text inputs and casts the text-like ones (``Categorical``,
``Enum``, ``Null``) to ``String``, so that the native kernels only ever see ``String`` or
``List(String)``: a plugin handed a dtype its Polars crates were built without (``Categorical``,
``Decimal``, ...) aborts the process when the query is planned. Polars 2.0 and later let a library
choose an expression once the plan knows its input's dtype (``Expr.pipe_with_dtype``): the check
then costs nothing per row and fails before any data is read.

Polars 1.x has no such hook. There the cast runs on each batch, in a small Python function over
the whole batch (never per row), which tells the plan the dtype it returns:

* an input whose target dtype is the same for every accepted dtype (a text input is always
  ``String``, a list of text always ``List(String)``) declares it;
* an input that may be text or a list of text (a reference column) lets Polars infer it, by
  calling the function once on two nulls of the input's dtype when the query is planned, which
  Polars does from 1.33 on. Polars 1.30 to 1.32 can neither infer it nor be told it, which is why
  polarscore needs 1.33 or later.

A column of the wrong dtype raises the same error as on Polars 2.x, when the query runs rather
than when it is planned.

Examples
--------
>>> import polars as pl
>>> import polarscore as ps
>>> df = pl.DataFrame({"response": ["Paris"], "reference": ["paris"]})
>>> df.with_columns(ps.answer_correctness("response", pl.col("reference").cast(pl.Categorical)))
shape: (1, 3)
┌──────────┬───────────┬────────────────────┐
│ response ┆ reference ┆ answer_correctness │
│ ---      ┆ ---       ┆ ---                │
│ str      ┆ str       ┆ f64                │
╞══════════╪═══════════╪════════════════════╡
│ Paris    ┆ paris     ┆ 1.0                │
└──────────┴───────────┴────────────────────┘
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

#: The oldest Polars polarscore runs on (pyproject.toml declares the same lower bound).
MINIMUM_POLARS = (1, 33)

#: Whether this Polars resolves dtypes at plan time for a library (``Expr.pipe_with_dtype``,
#: Polars 2.0 and later).
PLAN_TIME_DTYPES: bool = hasattr(pl.Expr, "pipe_with_dtype")

#: Builds the error raised for an input (an expression) of a refused dtype.
Reject = Callable[[pl.Expr, pl.DataType], Exception]


def cast_by_dtype(
    expr: pl.Expr,
    *,
    target: Callable[[pl.DataType], pl.DataType | None],
    reject: Reject,
    fixed: pl.DataType | None = None,
) -> pl.Expr:
    """Cast ``expr`` to ``target(dtype)`` once its dtype is known; raise where that is ``None``.

    Parameters
    ----------
    expr
        The input expression.
    target
        Maps the input's dtype to the dtype the scorer reads, or to ``None`` for a dtype it
        refuses.
    reject
        Builds the exception raised for a refused dtype (see :data:`Reject`).
    fixed
        The one dtype ``target`` gives for every dtype it accepts, if there is one; ``None``
        when it depends on the input (text or a list of text).

    Returns
    -------
    pl.Expr
        ``expr``, cast where needed, under the same output name.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore._compat import cast_by_dtype
    >>> def to_text(dtype):
    ...     return pl.String() if dtype in (pl.String, pl.Categorical) else None
    >>> def refuse(expr, dtype):
    ...     return TypeError(f"not text: {dtype}")
    >>> df = pl.DataFrame({"a": ["x", "y"]}, schema={"a": pl.Categorical})
    >>> df.select(cast_by_dtype(pl.col("a"), target=to_text, reject=refuse, fixed=pl.String))
    shape: (2, 1)
    ┌─────┐
    │ a   │
    │ --- │
    │ str │
    ╞═════╡
    │ x   │
    │ y   │
    └─────┘
    """
    if PLAN_TIME_DTYPES:
        return _at_plan_time(expr, target, reject)
    if fixed is not None:
        return _per_batch_declared(expr, target, reject, fixed)
    return _per_batch_inferred(expr, target, reject)


def _at_plan_time(
    expr: pl.Expr, target: Callable[[pl.DataType], pl.DataType | None], reject: Reject
) -> pl.Expr:
    def resolve(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        wanted = target(dtype)
        if wanted is None:
            raise reject(expr, dtype)
        return expr if dtype == wanted else expr.cast(wanted)

    return expr.pipe_with_dtype(resolve)


def _per_batch_declared(
    expr: pl.Expr,
    target: Callable[[pl.DataType], pl.DataType | None],
    reject: Reject,
    fixed: pl.DataType,
) -> pl.Expr:
    def cast_batch(batch: pl.Series) -> pl.Series:
        wanted = target(batch.dtype)
        if wanted is None:
            raise reject(expr, batch.dtype)
        return batch if batch.dtype == wanted else batch.cast(wanted)

    return expr.map_batches(cast_batch, return_dtype=fixed, is_elementwise=True)


def _per_batch_inferred(
    expr: pl.Expr, target: Callable[[pl.DataType], pl.DataType | None], reject: Reject
) -> pl.Expr:
    def cast_or_stand_in(batch: pl.Series) -> pl.Series:
        wanted = target(batch.dtype)
        if wanted is None:
            # Refused: ``check_batch`` raises on every real batch. Here the plan only learns a
            # dtype every kernel can be planned with (the kernels are never run on it).
            return _nulls(batch)
        return batch if batch.dtype == wanted else batch.cast(wanted)

    def check_batch(batch: pl.Series) -> pl.Series:
        if target(batch.dtype) is None:
            raise reject(expr, batch.dtype)
        return _nulls(batch)

    # Polars infers the cast's dtype by calling it on two nulls at plan time, where an exception
    # would be replaced by Polars' own; the check, of a declared dtype, raises on each batch. Its
    # all-null, Null-typed column fills nothing: coalesce keeps the cast's values and dtype.
    cast = expr.map_batches(cast_or_stand_in, is_elementwise=True)
    check = expr.map_batches(check_batch, return_dtype=pl.Null, is_elementwise=True)
    return pl.coalesce(cast, check)


def _nulls(batch: pl.Series) -> pl.Series:
    # A Series method, not a query: a query run inside a function Polars calls on its own threads
    # waits for those threads, and with as many such functions running as threads, it deadlocks.
    return pl.Series(batch.name, dtype=pl.Null).extend_constant(None, len(batch))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


if _version(pl.__version__) < MINIMUM_POLARS:
    raise ImportError(
        f"polarscore needs Polars {'.'.join(map(str, MINIMUM_POLARS))} or later; this environment "
        f"has Polars {pl.__version__}. Upgrade it: pip install -U polars"
    )


__all__ = ["MINIMUM_POLARS", "PLAN_TIME_DTYPES", "Reject", "cast_by_dtype"]
