"""One or several reference answers per row: the shared dtype dispatch behind every scorer.

A reference column may be a ``String`` column (one reference per row) or a ``List(String)``
column (any number of references per row, e.g. the aliases of a QA gold answer). Every native
kernel reads both and, for a list, keeps each row's best reference itself. Which dtype a column
has is only known when the query is planned, so :func:`dispatch_reference` checks it then
(``pl.pipe_with_dtype``), casts the text-like dtypes, and raises a clear error for anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from polarscore._utils import _text_type_error, is_text_dtype

#: The dtype of every ``reference_index`` field: the 0-based position in the row's list.
INDEX_DTYPE = pl.UInt32


def dispatch_reference(
    reference: pl.Expr,
    *,
    build: Callable[[pl.Expr], pl.Expr],
    function: str,
    parameter: str,
    also_reads: Sequence[pl.Expr] = (),
) -> pl.Expr:
    """Build ``build(reference)`` once the reference's dtype is known.

    ``build`` receives the reference cast to ``String`` (a text-like column: String,
    Categorical, Enum, Null) or to ``List(String)`` (a list of them). Any other dtype raises
    :class:`~polarscore.exceptions.ColumnTypeError` when the query is planned. ``also_reads``
    lists the other expressions the built expression reads (the response, per-row options):
    they are declared as inputs, so ``meta.root_names()`` (which adapters use to project
    columns) sees every column before planning.
    """

    def choose(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
        expr, dtype = inputs[0]
        if is_text_dtype(dtype):
            return build(expr.cast(pl.String))
        if isinstance(dtype, pl.List) and is_text_dtype(dtype.inner):
            return build(expr.cast(pl.List(pl.String)))
        raise _text_type_error(
            expr,
            dtype,
            function=function,
            parameter=parameter,
            expected="a String column (one reference per row) or a List(String) column "
            "(several references per row)",
        )

    return pl.pipe_with_dtype([reference, *also_reads], choose)


__all__ = ["INDEX_DTYPE", "dispatch_reference"]
