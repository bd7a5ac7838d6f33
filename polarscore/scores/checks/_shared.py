"""Pieces the judge-free checks share.

The response read as the reference reads it, option checks, the score and details columns, and
the batch function that calls Python once per distinct value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import parse_text_expr
from polarscore._validation import invalid_parameter


def response_text(response: IntoExpr, function: str) -> pl.Expr:
    """Return the response as ``String``, a null read as the empty string (as the reference)."""
    return parse_text_expr(response, function=function, parameter="response").fill_null("")


def check_bool(value: Any, function: str, parameter: str) -> bool:
    if not isinstance(value, bool):
        raise invalid_parameter(function, parameter, "True or False", value)
    return value


def text_option(value: Any, function: str, parameter: str) -> pl.Expr | str:
    """Return a literal string option, or a per-row ``String`` expression (null read as ``""``)."""
    if isinstance(value, pl.Expr | pl.Series):
        return parse_text_expr(value, function=function, parameter=parameter).fill_null("")
    if not isinstance(value, str):
        raise invalid_parameter(
            function, parameter, "a string, or a polars expression giving one per row", value
        )
    return value


def as_expr(value: pl.Expr | str) -> pl.Expr:
    return value if isinstance(value, pl.Expr) else pl.lit(value, dtype=pl.String)


def binary(flag: pl.Expr) -> pl.Expr:
    return flag.fill_null(value=False).cast(pl.Float64)


def details(name: str, score: pl.Expr, reason: pl.Expr) -> pl.Expr:
    return pl.struct(score.alias("score"), reason.alias("reason")).alias(f"{name}_details")


def choose(flag: pl.Expr, yes: pl.Expr | str, no: pl.Expr | str) -> pl.Expr:
    yes_e = pl.lit(yes) if isinstance(yes, str) else yes
    no_e = pl.lit(no) if isinstance(no, str) else no
    return pl.when(flag.fill_null(value=False)).then(yes_e).otherwise(no_e)


def map_present(
    function: Callable[[Any], Any], dtype: pl.DataType
) -> Callable[[pl.Series], pl.Series]:
    """Return a batch function applying ``function`` to each distinct non-null value only."""

    def apply(series: pl.Series) -> pl.Series:
        out = pl.Series(series.name, dtype=dtype).extend_constant(None, series.len())
        present = series.drop_nulls()
        if present.len() == 0:
            return out
        distinct = present.unique()
        results = pl.Series([function(v) for v in distinct.to_list()], dtype=dtype)
        # Look up only the present rows, then put them back in place.
        found = present.replace_strict(distinct, results, return_dtype=dtype)
        return out.scatter(series.is_not_null().arg_true(), found)

    return apply
