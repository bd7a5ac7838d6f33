"""The checks of a response's shape: a known format (email, URL, phone, date) or a regex."""

from __future__ import annotations

import re

import polars as pl

from polarscore._typing import FormatType, IntoExpr
from polarscore._utils import check_same_length
from polarscore._validation import check_choice, invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.kernels._regex import (
    DEFAULT_STEP_BUDGET,
    check_step_budget,
    check_translator,
    py_compile,
    py_digit_class,
    translate,
)
from polarscore.normalize import PY_WS_CLASS, py_strip
from polarscore.scores.checks._shared import (
    as_expr,
    binary,
    check_bool,
    choose,
    details,
    map_present,
    response_text,
    text_option,
)

#: The formats of :func:`format_check`.
FORMAT_TYPES: tuple[str, ...] = ("email", "url", "phone", "date")

_EMAIL = r"^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$"
_PHONE = rf"^\+?\(?[0-9]{{1,4}}\)?[0-9./\-{PY_WS_CLASS}]*$"


# --- format_check ---------------------------------------------------------------------------------


def _date_pattern() -> str:
    d = f"[{py_digit_class()}]"
    return rf"^(?:{d}{{4}}[-/]{d}{{1,2}}[-/]{d}{{1,2}}|{d}{{1,2}}[-/]{d}{{1,2}}[-/]{d}{{2,4}})$"


def _url_is_valid(text: str) -> bool:
    from urllib.parse import urlparse

    try:
        parsed = urlparse(text.strip())
    except ValueError:
        return False
    return bool(parsed.scheme and parsed.netloc)


def _url_valid(text: pl.Expr) -> pl.Expr:
    """``urllib.parse.urlparse`` has a scheme and a netloc; natively, except for rare netlocs.

    The parser raises ValueError only for a netloc with brackets or non-ASCII characters (IPv6
    literals, NFKC checks); the native kernel leaves those rows null, and only they are parsed by
    Python itself.
    """
    native = plugin_call("url_state", text)
    rare = native.is_null()
    python = (
        pl.when(rare)
        .then(text)
        .map_batches(
            map_present(_url_is_valid, pl.Boolean()),
            return_dtype=pl.Boolean,
            is_elementwise=True,
        )
    )
    return pl.when(rare).then(python).otherwise(native)


def _format(response: IntoExpr, format_type: str, function: str) -> tuple[pl.Expr, pl.Expr]:
    format_type = check_choice(
        format_type, function=function, parameter="format_type", allowed=FORMAT_TYPES
    )
    text = response_text(response, function)
    if format_type == "url":
        valid = _url_valid(text)
    else:
        pattern = {"email": _EMAIL, "phone": _PHONE}.get(format_type) or _date_pattern()
        valid = py_strip(text).str.contains(pattern)
    reason = choose(
        valid, f"Format '{format_type}' is valid.", f"Format '{format_type}' is invalid."
    )
    return binary(valid), reason


def format_check(response: IntoExpr, *, format_type: FormatType = "email") -> pl.Expr:
    r"""Score whether the stripped response is an e-mail address, URL, phone number or date.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string), stripped of Python whitespace.
    format_type
        ``"email"`` (ASCII ``local@domain.tld``), ``"url"`` (``urllib.parse.urlparse`` finds a
        scheme and a network location), ``"phone"`` (an optional ``+`` and ``(``, one to four
        ASCII digits, an optional ``)``, then ASCII digits, ``- . /`` and whitespace) or
        ``"date"`` (``YYYY-M-D`` or ``D-M-YY[YY]`` with ``-`` or ``/``, any Unicode digits, no
        calendar check).

    Returns
    -------
    pl.Expr
        ``Float64`` named ``format_check``: 1.0 or 0.0, never null.

    Notes
    -----
    Reproduces ``FormatCheckMetric`` of eval-ai-library 0.8.2 (its URL rule as CPython 3.11.7's
    parser reads it); its unknown formats, always invalid there, raise here.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["a@b.co", "https://x.com", "2024-01-15", "Email: a@b.co"]})
    >>> df.select(
    ...     email=ps.format_check("response"),
    ...     url=ps.format_check("response", format_type="url"),
    ...     date=ps.format_check("response", format_type="date"),
    ... ).rows()
    [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]
    """
    return _format(response, format_type, "format_check")[0].alias("format_check")


def format_check_details(response: IntoExpr, *, format_type: FormatType = "email") -> pl.Expr:
    """Score :func:`format_check` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``format_check_details``: ``score`` and ``reason``
        (``Format 'email' is valid.``).
    """
    score, reason = _format(response, format_type, "format_check_details")
    return details("format_check", score, reason)


# --- regex_match ---------------------------------------------------------------------------------


def _compile(pattern: str, function: str) -> re.Pattern[str]:
    try:
        return py_compile(pattern)
    except (re.error, OverflowError, RecursionError) as error:
        raise invalid_parameter(
            function, "pattern", f"a pattern Python's re can compile ({error})", pattern
        ) from None


def _program_or_none(pattern: str, *, full_match: bool) -> str | None:
    """Return the kernel's program of a per-row pattern, or None if Python cannot compile it."""
    try:
        return translate(pattern, full_match=full_match)
    except (re.error, OverflowError, RecursionError):
        return None


def _regex_codes(
    text: pl.Expr,
    pattern: str | pl.Expr,
    *,
    full_match: bool,
    step_budget: int | None,
    function: str,
) -> pl.Expr:
    """Per row: 1 matched, 0 not (or a per-row pattern Python cannot compile), -1 over budget."""
    if isinstance(pattern, str):
        _compile(pattern, function)
        program = translate(pattern, full_match=full_match)
        return plugin_call("python_regex", text, program=program, step_budget=step_budget)
    check_translator()  # a Python whose re parser is unknown: refused here, not row by row
    programs = pattern.map_batches(
        map_present(lambda p: _program_or_none(p, full_match=full_match), pl.String()),
        return_dtype=pl.String,
        is_elementwise=True,
    )
    codes = plugin_call("python_regex", text, programs, program=None, step_budget=step_budget)
    return codes.fill_null(0)


def _regex(
    response: IntoExpr,
    pattern: str | pl.Expr | pl.Series,
    *,
    full_match: bool,
    step_budget: int | None,
    function: str,
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, pattern=pattern)
    check_bool(full_match, function, "full_match")
    budget = check_step_budget(step_budget, function)
    given = text_option(pattern, function, "pattern")
    text = response_text(response, function)
    codes = _regex_codes(text, given, full_match=full_match, step_budget=budget, function=function)
    shown = as_expr(given)
    over = (
        f"took more than {budget:,} backtracking steps on this response (step_budget)"
        if budget is not None
        else "did not finish"
    )
    score = pl.when(codes >= 0).then(codes.cast(pl.Float64))
    reason = (
        pl.when(codes == 1)
        .then(pl.concat_str(pl.lit("Pattern matched: "), shown))
        .when(codes == 0)
        .then(pl.concat_str(pl.lit("Pattern not matched: "), shown))
        .otherwise(
            pl.concat_str(
                pl.lit("Pattern not checked: "),
                shown,
                pl.lit(f" needs backtracking (a look-around or back-reference) and {over}"),
            )
        )
    )
    return score, reason


def regex_match(
    response: IntoExpr,
    *,
    pattern: str | pl.Expr | pl.Series = "",
    full_match: bool = False,
    step_budget: int | None = DEFAULT_STEP_BUDGET,
) -> pl.Expr:
    r"""Score whether a Python regular expression matches the response: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string).
    pattern
        A pattern in Python's ``re`` syntax and semantics (``\d`` is any Unicode digit, ``$``
        also matches before a final newline, look-arounds and back-references work), or a
        ``String`` expression giving one pattern per row. A literal pattern that Python cannot
        compile raises; a per-row one scores 0.0, as in the reference.
    full_match
        ``re.fullmatch`` instead of ``re.search``.
    step_budget
        The most steps a pattern that needs backtracking (a look-around, back-reference,
        conditional, atomic group or possessive quantifier) may take on one response; a
        response that would take more scores null, with the reason ``Pattern not checked:
        ...``. The default, 10,000,000, is about a tenth of a second on one core. ``None``
        lifts the bound. Every other pattern runs in time linear in the response and never
        meets it.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``regex_match``: 1.0 or 0.0, null only where ``step_budget`` ran out.

    Notes
    -----
    Reproduces ``RegexMatchMetric`` of eval-ai-library 0.8.2. The pattern is read by Python's
    own parser and run natively with ``re``'s exact meaning, in a linear-time engine when it is
    regular (nearly every pattern, including the ones on which ``re`` backtracks for ever, such
    as ``^(\w+\s?)*$``), else by a backtracking matcher with ``re``'s semantics and the step
    budget above. See ``docs/checks.md``.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["42\n", "A: ٤٢", "no"]})
    >>> df.select(
    ...     search=ps.regex_match("response", pattern=r"\d+$"),
    ...     full=ps.regex_match("response", pattern=r"\d+$", full_match=True),
    ... ).rows()
    [(1.0, 0.0), (1.0, 0.0), (0.0, 0.0)]
    """
    score, _ = _regex(
        response, pattern, full_match=full_match, step_budget=step_budget, function="regex_match"
    )
    return score.alias("regex_match")


def regex_match_details(
    response: IntoExpr,
    *,
    pattern: str | pl.Expr | pl.Series = "",
    full_match: bool = False,
    step_budget: int | None = DEFAULT_STEP_BUDGET,
) -> pl.Expr:
    """Score :func:`regex_match` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``regex_match_details``: ``score`` and ``reason``
        (``Pattern matched: ...`` or ``Pattern not matched: ...``; ``Pattern not checked:
        ...`` where the step budget ran out).
    """
    score, reason = _regex(
        response,
        pattern,
        full_match=full_match,
        step_budget=step_budget,
        function="regex_match_details",
    )
    return details("regex_match", score, reason)
