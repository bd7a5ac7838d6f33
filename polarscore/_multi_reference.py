"""One or several reference answers per row: the shared dtype dispatch behind every scorer.

A reference column may be a ``String`` column (one reference per row) or a ``List(String)``
column (any number of references per row, e.g. the aliases of a QA gold answer). Every native
kernel reads both and, for a list, keeps each row's best reference itself. Which dtype a column
has is only known when the query is planned, so :func:`dispatch_reference` checks it then
(:mod:`polarscore._compat`), casts the text-like dtypes, and raises a clear error for anything else.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polarscore._utils import _as_text_or_list, _checked_text

#: The dtype of every ``reference_index`` field: the 0-based position in the row's list.
INDEX_DTYPE = pl.UInt32


def dispatch_reference(
    reference: pl.Expr,
    *,
    build: Callable[[pl.Expr], pl.Expr],
    function: str,
    parameter: str,
) -> pl.Expr:
    """Build ``build(reference)`` once the reference's dtype is known.

    ``build`` receives the reference cast to ``String`` (a text-like column: String,
    Categorical, Enum, Null) or to ``List(String)`` (a list of them). Any other dtype raises
    :class:`~polarscore.exceptions.ColumnTypeError` when the query is planned (on Polars 1.x,
    when it runs; see :mod:`polarscore._compat`).
    """
    return build(
        _checked_text(
            reference,
            function=function,
            parameter=parameter,
            target=_as_text_or_list,
            expected="a String column (one reference per row) or a List(String) column "
            "(several references per row)",
        )
    )


__all__ = ["INDEX_DTYPE", "dispatch_reference"]
