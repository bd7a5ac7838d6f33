"""The checks on the text itself: keywords, prefix and suffix, exact match, non-empty, length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polarscore._typing import ContainsMode, IntoExpr, IntoNumber, LengthUnit
from polarscore._utils import check_same_length, parse_text_expr, parse_text_or_list_expr
from polarscore._validation import check_choice, invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.normalize import py_lower
from polarscore.scores.checks._shared import (
    as_expr,
    binary,
    check_bool,
    choose,
    details,
    response_text,
    text_option,
)

#: The modes of :func:`contains`.
CONTAINS_MODES: tuple[str, ...] = ("any", "all", "none")
#: The units of :func:`length_check`.
LENGTH_UNITS: tuple[str, ...] = ("chars", "words")

#: Default upper bound of :func:`length_check`, as in the reference.
DEFAULT_MAX_LENGTH = 10_000


# --- contains -------------------------------------------------------------------------------------


def _contains(
    response: IntoExpr,
    keywords: Sequence[str] | pl.Expr | pl.Series,
    mode: str,
    *,
    case_sensitive: bool,
    function: str,
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, keywords=keywords)
    mode = check_choice(mode, function=function, parameter="mode", allowed=CONTAINS_MODES)
    check_bool(case_sensitive, function, "case_sensitive")
    text = response_text(response, function)
    if isinstance(keywords, pl.Expr | pl.Series):
        counted = parse_text_or_list_expr(keywords, function=function, parameter="keywords")
        counts = plugin_call("keywords_found", text, counted, case_sensitive=case_sensitive)
        found = counts.struct.field("found").cast(pl.Int64)
        total = counts.struct.field("total").cast(pl.Int64)
    else:
        if isinstance(keywords, str) or not isinstance(keywords, Sequence):
            raise invalid_parameter(
                function,
                "keywords",
                "a list of strings (a bare string would be read as its characters), or a "
                "polars expression giving a list per row",
                keywords,
            )
        items = list(keywords)
        for item in items:
            if not isinstance(item, str):
                raise invalid_parameter(function, "keywords", "a list of strings", keywords)
        counted = pl.lit(items, dtype=pl.List(pl.String))
        counts = plugin_call("keywords_found", text, counted, case_sensitive=case_sensitive)
        found = counts.struct.field("found").cast(pl.Int64)
        total = counts.struct.field("total").cast(pl.Int64)
    # The score alone in one kernel pass (a plugin's output is not shared between expressions).
    score = plugin_call("keywords_score", text, counted, case_sensitive=case_sensitive, mode=mode)
    reason = pl.format("Found {}/{} keywords (mode={})", found, total, pl.lit(mode))
    return score, reason


def contains(
    response: IntoExpr,
    *,
    keywords: Sequence[str] | pl.Expr | pl.Series = (),
    mode: ContainsMode = "any",
    case_sensitive: bool = False,
) -> pl.Expr:
    """Score whether the response contains the keywords: any, all (a fraction) or none of them.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series. Null is read as
        the empty string.
    keywords
        A list of strings, or a ``List(String)`` (or ``String``) expression giving the keywords
        of each row. Each keyword is a plain substring (no word boundaries, no regex), counted
        on its own, duplicates included; the empty keyword is found in every text. Null items of
        a per-row list are skipped; a null list means no keywords.
    mode
        ``"any"`` (1.0 when one is found), ``"all"`` (the fraction found) or ``"none"`` (1.0 when
        none is found).
    case_sensitive
        When false (the default), the text and each keyword are lowered with Python's
        ``str.lower()``, each on its own (never case folding: ``"ß"`` does not match ``"SS"``).

    Returns
    -------
    pl.Expr
        ``Float64`` in [0, 1] named ``contains``, never null. With no keywords, 1.0 in every
        mode.

    Notes
    -----
    Reproduces ``ContainsMetric`` of eval-ai-library 0.8.2; its unknown modes (which score 0.0)
    raise here instead.

    See Also
    --------
    contains_details : the score with the reference's reason text.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["Paris, France", "Lyon", None]})
    >>> df.with_columns(
    ...     any=ps.contains("response", keywords=["paris", "lyon"]),
    ...     all=ps.contains("response", keywords=["Paris", "France", "x"], mode="all"),
    ... )
    shape: (3, 3)
    ┌───────────────┬─────┬──────────┐
    │ response      ┆ any ┆ all      │
    │ ---           ┆ --- ┆ ---      │
    │ str           ┆ f64 ┆ f64      │
    ╞═══════════════╪═════╪══════════╡
    │ Paris, France ┆ 1.0 ┆ 0.666667 │
    │ Lyon          ┆ 1.0 ┆ 0.0      │
    │ null          ┆ 0.0 ┆ 0.0      │
    └───────────────┴─────┴──────────┘
    """
    score, _ = _contains(
        response, keywords, mode, case_sensitive=case_sensitive, function="contains"
    )
    return score.alias("contains")


def contains_details(
    response: IntoExpr,
    *,
    keywords: Sequence[str] | pl.Expr | pl.Series = (),
    mode: ContainsMode = "any",
    case_sensitive: bool = False,
) -> pl.Expr:
    """Score :func:`contains` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``contains_details``: ``score`` (``Float64``) and ``reason``
        (``String``, e.g. ``Found 1/2 keywords (mode=all)``).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["Paris, France"]})
    >>> df.select(ps.contains_details("response", keywords=["paris", "x"], mode="all")).item()
    {'score': 0.5, 'reason': 'Found 1/2 keywords (mode=all)'}
    """
    score, reason = _contains(
        response, keywords, mode, case_sensitive=case_sensitive, function="contains_details"
    )
    return details("contains", score, reason)


# --- starts_with / ends_with ----------------------------------------------------------------------


def _affix(
    response: IntoExpr,
    affix: str | pl.Expr | pl.Series,
    *,
    case_sensitive: bool,
    function: str,
    parameter: str,
    start: bool,
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, **{parameter: affix})
    check_bool(case_sensitive, function, "case_sensitive")
    text = response_text(response, function)
    given = text_option(affix, function, parameter)
    if case_sensitive:
        test = text.str.starts_with(given) if start else text.str.ends_with(given)
    else:
        wanted = pl.lit(given.lower()) if isinstance(given, str) else py_lower(given)
        if start:
            # Lowers the text only as far as the prefix needs (Python's lower(), final sigma kept).
            test = plugin_call("lower_starts_with", text, wanted)
        else:
            test = py_lower(text).str.ends_with(wanted)
    verb = "start" if start else "end"
    shown = as_expr(given)
    reason = choose(
        test,
        pl.concat_str(pl.lit(f"Output {verb}s with '"), shown, pl.lit("'")),
        pl.concat_str(pl.lit(f"Output does not {verb} with '"), shown, pl.lit("'")),
    )
    return binary(test), reason


def starts_with(
    response: IntoExpr,
    *,
    prefix: str | pl.Expr | pl.Series = "",
    case_sensitive: bool = True,
) -> pl.Expr:
    """Score whether the response starts with a prefix: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string). Nothing is stripped:
        ``" The answer"`` does not start with ``"The"``.
    prefix
        A string, or a ``String`` expression giving one prefix per row (null read as ``""``).
        The empty prefix matches every response.
    case_sensitive
        When false, both sides are lowered with Python's ``str.lower()``, each on its own.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``starts_with``: 1.0 or 0.0, never null.

    Notes
    -----
    Reproduces ``StartsWithMetric`` of eval-ai-library 0.8.2.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["The answer is B.", " The answer is B."]})
    >>> df.select(ps.starts_with("response", prefix="The answer"))["starts_with"].to_list()
    [1.0, 0.0]
    """
    score, _ = _affix(
        response,
        prefix,
        case_sensitive=case_sensitive,
        function="starts_with",
        parameter="prefix",
        start=True,
    )
    return score.alias("starts_with")


def starts_with_details(
    response: IntoExpr,
    *,
    prefix: str | pl.Expr | pl.Series = "",
    case_sensitive: bool = True,
) -> pl.Expr:
    """Score :func:`starts_with` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``starts_with_details``: ``score`` and ``reason``
        (``Output starts with '...'`` or ``Output does not start with '...'``).
    """
    score, reason = _affix(
        response,
        prefix,
        case_sensitive=case_sensitive,
        function="starts_with_details",
        parameter="prefix",
        start=True,
    )
    return details("starts_with", score, reason)


def ends_with(
    response: IntoExpr,
    *,
    suffix: str | pl.Expr | pl.Series = "",
    case_sensitive: bool = True,
) -> pl.Expr:
    r"""Score whether the response ends with a suffix: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string). Nothing is stripped: ``"2.\n"``
        does not end with ``"2."``.
    suffix
        A string, or a ``String`` expression giving one suffix per row (null read as ``""``).
        The empty suffix matches every response.
    case_sensitive
        When false, both sides are lowered with Python's ``str.lower()``, each on its own.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``ends_with``: 1.0 or 0.0, never null.

    Notes
    -----
    Reproduces ``EndsWithMetric`` of eval-ai-library 0.8.2.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["So the answer is yes.", "yes.\n"]})
    >>> df.select(ps.ends_with("response", suffix="yes."))["ends_with"].to_list()
    [1.0, 0.0]
    """
    score, _ = _affix(
        response,
        suffix,
        case_sensitive=case_sensitive,
        function="ends_with",
        parameter="suffix",
        start=False,
    )
    return score.alias("ends_with")


def ends_with_details(
    response: IntoExpr,
    *,
    suffix: str | pl.Expr | pl.Series = "",
    case_sensitive: bool = True,
) -> pl.Expr:
    """Score :func:`ends_with` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``ends_with_details``: ``score`` and ``reason``
        (``Output ends with '...'`` or ``Output does not end with '...'``).
    """
    score, reason = _affix(
        response,
        suffix,
        case_sensitive=case_sensitive,
        function="ends_with_details",
        parameter="suffix",
        start=False,
    )
    return details("ends_with", score, reason)


# --- exact_match ----------------------------------------------------------------------------------


def _exact(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    case_sensitive: bool,
    strip_whitespace: bool,
    function: str,
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, reference=reference)
    check_bool(case_sensitive, function, "case_sensitive")
    check_bool(strip_whitespace, function, "strip_whitespace")
    sides = [
        parse_text_expr(value, function=function, parameter=parameter)
        for value, parameter in ((response, "response"), (reference, "reference"))
    ]
    # Python's strip() and lower() of each side, compared without building either string.
    score = plugin_call(
        "exact_match_score",
        *sides,
        case_sensitive=case_sensitive,
        strip_whitespace=strip_whitespace,
    )
    return score, choose(score == 1.0, "Exact match.", "Output does not match expected.")


def exact_match(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    case_sensitive: bool = True,
    strip_whitespace: bool = True,
) -> pl.Expr:
    r"""Score whether the response equals the reference: 1.0 or 0.0, never null.

    Parameters
    ----------
    response, reference
        Column names, ``String`` expressions or Series; a null on either side is read as the
        empty string, so a missing reference is *not* inconclusive (compare
        :func:`answer_correctness`).
    case_sensitive
        When false, both sides are lowered with Python's ``str.lower()`` (after stripping).
    strip_whitespace
        Strip Python whitespace (29 code points, U+001C..U+001F included) from both ends first.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``exact_match``.

    Notes
    -----
    Reproduces ``ExactMatchMetric`` of eval-ai-library 0.8.2. No Unicode normalisation: NFC and
    NFD forms of a letter differ.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": [" Paris\n", "paris", None], "reference": ["Paris"] * 3})
    >>> df.select(ps.exact_match("response", "reference"))["exact_match"].to_list()
    [1.0, 0.0, 0.0]
    """
    score, _ = _exact(
        response,
        reference,
        case_sensitive=case_sensitive,
        strip_whitespace=strip_whitespace,
        function="exact_match",
    )
    return score.alias("exact_match")


def exact_match_details(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    case_sensitive: bool = True,
    strip_whitespace: bool = True,
) -> pl.Expr:
    """Score :func:`exact_match` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``exact_match_details``: ``score`` and ``reason`` (``Exact match.`` or
        ``Output does not match expected.``).
    """
    score, reason = _exact(
        response,
        reference,
        case_sensitive=case_sensitive,
        strip_whitespace=strip_whitespace,
        function="exact_match_details",
    )
    return details("exact_match", score, reason)


# --- non_empty ------------------------------------------------------------------------------------


def _non_empty(response: IntoExpr, function: str) -> tuple[pl.Expr, pl.Expr]:
    text = parse_text_expr(response, function=function, parameter="response")
    score = plugin_call("non_empty_score", text)
    return score, choose(
        score == 1.0, "Output is non-empty.", "Output is empty or whitespace-only."
    )


def non_empty(response: IntoExpr) -> pl.Expr:
    r"""Score whether the response has anything besides Python whitespace: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers. Null, ``""`` and whitespace-only texts (``"\x1c"``, ``"\u3000"``)
        score 0.0; zero-width characters (``"\u200b"``) are not whitespace and score 1.0.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``non_empty``, never null.

    Notes
    -----
    Reproduces ``NonEmptyMetric`` of eval-ai-library 0.8.2.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["42", " \x1c", None, "\u200b"]})
    >>> df.select(ps.non_empty("response"))["non_empty"].to_list()
    [1.0, 0.0, 0.0, 1.0]
    """
    return _non_empty(response, "non_empty")[0].alias("non_empty")


def non_empty_details(response: IntoExpr) -> pl.Expr:
    """Score :func:`non_empty` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``non_empty_details``: ``score`` and ``reason``.
    """
    score, reason = _non_empty(response, "non_empty_details")
    return details("non_empty", score, reason)


# --- length_check ---------------------------------------------------------------------------------


def _length_bound(value: Any, function: str, parameter: str) -> pl.Expr | int:
    if isinstance(value, pl.Series):
        value = pl.lit(value)
    if isinstance(value, pl.Expr):
        return value.cast(pl.Int64)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid_parameter(
            function,
            parameter,
            "a whole number >= 0, or a polars expression giving one per row",
            value,
        )
    return value


def _length(
    response: IntoExpr,
    min_length: IntoNumber,
    max_length: IntoNumber,
    unit: str,
    function: str,
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, min_length=min_length, max_length=max_length)
    unit = check_choice(unit, function=function, parameter="unit", allowed=LENGTH_UNITS)
    low = _length_bound(min_length, function, "min_length")
    high = _length_bound(max_length, function, "max_length")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        raise invalid_parameter(
            function, "min_length", f"at most max_length ({high}) so that a length can pass", low
        )
    text = response_text(response, function)
    if unit == "words":
        length = plugin_call("py_word_count", text).cast(pl.Int64)
    else:
        length = text.str.len_chars().cast(pl.Int64)
    low_e = pl.lit(low, dtype=pl.Int64) if isinstance(low, int) else low
    high_e = pl.lit(high, dtype=pl.Int64) if isinstance(high, int) else high
    inside = length.is_between(low_e, high_e, closed="both")
    reason = pl.format(
        "Length {} {} is {} range [{}, {}]",
        length,
        pl.lit(unit),
        choose(inside, "within", "outside"),
        low_e,
        high_e,
    )
    return binary(inside), reason


def length_check(
    response: IntoExpr,
    *,
    min_length: IntoNumber = 0,
    max_length: IntoNumber = DEFAULT_MAX_LENGTH,
    unit: LengthUnit = "chars",
) -> pl.Expr:
    r"""Score whether the response's length lies in ``[min_length, max_length]``: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string).
    min_length, max_length
        Inclusive bounds: whole numbers >= 0 with ``min_length <= max_length``, or expressions
        giving them per row. The default maximum (10,000, as in the reference) fails longer
        responses.
    unit
        ``"chars"``: code points (``str.len_chars``). ``"words"``: the items of Python's
        ``str.split()`` (runs of Python whitespace separate words).

    Returns
    -------
    pl.Expr
        ``Float64`` named ``length_check``, never null.

    Notes
    -----
    Reproduces ``LengthCheckMetric`` of eval-ai-library 0.8.2; its fallback of any unknown unit
    to characters raises here instead.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["one two\x1cthree", "one"]})
    >>> df.select(ps.length_check("response", min_length=2, unit="words"))["length_check"]
    shape: (2,)
    Series: 'length_check' [f64]
    [
        1.0
        0.0
    ]
    """
    score, _ = _length(response, min_length, max_length, unit, "length_check")
    return score.alias("length_check")


def length_check_details(
    response: IntoExpr,
    *,
    min_length: IntoNumber = 0,
    max_length: IntoNumber = DEFAULT_MAX_LENGTH,
    unit: LengthUnit = "chars",
) -> pl.Expr:
    """Score :func:`length_check` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``length_check_details``: ``score`` and ``reason``
        (``Length 3 words is within range [2, 10000]``).
    """
    score, reason = _length(response, min_length, max_length, unit, "length_check_details")
    return details("length_check", score, reason)
