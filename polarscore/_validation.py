"""Option checks with one message template.

Scorers validate their options when the expression is *built*, so a typo fails at once with a
message that names the function, the parameter, what is allowed and what was given, instead of
deep inside a query.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

import polars as pl

from polarscore.exceptions import InvalidParameterError


def _describe_allowed(allowed: Collection[Any]) -> str:
    items = [repr(a) for a in allowed]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + ", " + items[-1]


def invalid_parameter(
    function: str, parameter: str, expected: str, got: Any
) -> InvalidParameterError:
    """Return the package error for a bad option, in the one house message template.

    The message reads: ``The 'p' parameter of f must be <expected>. Got <got!r> instead.``
    """
    return InvalidParameterError(
        f"The {parameter!r} parameter of {function} must be {expected}. Got {got!r} instead."
    )


def check_choice(value: Any, *, function: str, parameter: str, allowed: Collection[str]) -> str:
    """Check that ``value`` is one of the ``allowed`` strings and return it."""
    if not isinstance(value, str) or value not in allowed:
        raise invalid_parameter(function, parameter, f"one of {_describe_allowed(allowed)}", value)
    return value


def check_number(
    value: Any,
    *,
    function: str,
    parameter: str,
    minimum: float | None = None,
    maximum: float | None = None,
    strict_minimum: bool = False,
) -> float:
    """Check that ``value`` is a finite real number inside the given bounds and return it."""
    bounds = []
    if minimum is not None:
        bounds.append(f"{'>' if strict_minimum else '>='} {minimum:g}")
    if maximum is not None:
        bounds.append(f"<= {maximum:g}")
    expected = "a finite number" + (" " + " and ".join(bounds) if bounds else "")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid_parameter(function, parameter, expected, value)
    number = float(value)
    if not math.isfinite(number):
        raise invalid_parameter(function, parameter, expected, value)
    if minimum is not None and (number <= minimum if strict_minimum else number < minimum):
        raise invalid_parameter(function, parameter, expected, value)
    if maximum is not None and number > maximum:
        raise invalid_parameter(function, parameter, expected, value)
    return number


def check_expr_or_choice(
    value: Any, *, function: str, parameter: str, allowed: Collection[str]
) -> str | pl.Expr:
    """Accept a per-row expression (or Series) as is, else check a literal choice."""
    if isinstance(value, pl.Series):
        return pl.lit(value)
    if isinstance(value, pl.Expr):
        return value
    return check_choice(value, function=function, parameter=parameter, allowed=allowed)


__all__ = ["check_choice", "check_expr_or_choice", "check_number", "invalid_parameter"]


def check_budget(value: Any, *, function: str, parameter: str) -> int | None:
    """Check a work bound (``max_work``, ``step_budget``): a positive integer, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise invalid_parameter(
            function, parameter, "a positive integer, or None for no bound", value
        )
    return value
