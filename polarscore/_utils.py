"""Input coercion shared by every scorer."""

from __future__ import annotations

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._validation import invalid_parameter


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


__all__ = ["parse_into_expr"]
