r"""Judge-free checks: keywords, prefixes, exact match, length, formats, patterns, JSON, language.

Reproduces the ten deterministic metrics of eval-ai-library 0.8.2 (``ContainsMetric``,
``StartsWithMetric``, ``EndsWithMetric``, ``ExactMatchMetric``, ``NonEmptyMetric``,
``LengthCheckMetric``, ``FormatCheckMetric``, ``RegexMatchMetric``, ``JsonSchemaMetric`` and
``LanguageDetectionMetric``) row for row: the score, and with the ``*_details`` companions the
reference's reason text. Every check scores a null response as the empty string and never returns
null.

Where the reference silently misreads an option (an unknown mode, unit, format or language, a
pattern Python cannot compile, an invalid schema), these functions raise
:class:`~polarscore.InvalidParameterError` when the expression is built.

Most checks are plain Polars expressions with Python's character semantics spelled out (Python's
``str.lower()`` and whitespace); keyword lists run in a native kernel. ``regex_match`` runs a
pattern natively when it provably means the same in the Rust engine and in Python's ``re``
otherwise (compiled once per distinct pattern); ``json_schema`` and ``language_detection`` call
``jsonschema`` and ``langdetect`` once per distinct response of a batch.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import polars as pl

from polarscore._typing import ContainsMode, FormatType, IntoExpr, IntoNumber, LengthUnit
from polarscore._utils import check_same_length, parse_text_expr, parse_text_or_list_expr
from polarscore._validation import check_choice, invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.kernels._regex import native_pattern, py_compile, py_digit_class
from polarscore.normalize import PY_WS_CLASS, py_lower, py_strip

#: The modes of :func:`contains`.
CONTAINS_MODES: tuple[str, ...] = ("any", "all", "none")
#: The units of :func:`length_check`.
LENGTH_UNITS: tuple[str, ...] = ("chars", "words")
#: The formats of :func:`format_check`.
FORMAT_TYPES: tuple[str, ...] = ("email", "url", "phone", "date")
#: The 55 language codes ``langdetect`` 1.0.9 can answer.
LANGUAGES: tuple[str, ...] = (
    "af", "ar", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "es", "et", "fa", "fi",
    "fr", "gu", "he", "hi", "hr", "hu", "id", "it", "ja", "kn", "ko", "lt", "lv", "mk", "ml",
    "mr", "ne", "nl", "no", "pa", "pl", "pt", "ro", "ru", "sk", "sl", "so", "sq", "sv", "sw",
    "ta", "te", "th", "tl", "tr", "uk", "ur", "vi", "zh-cn", "zh-tw",
)  # fmt: skip

#: Default upper bound of :func:`length_check`, as in the reference.
DEFAULT_MAX_LENGTH = 10_000

_EMAIL = r"^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$"
_PHONE = rf"^\+?\(?[0-9]{{1,4}}\)?[0-9./\-{PY_WS_CLASS}]*$"


# --- shared pieces --------------------------------------------------------------------------------


def _response(response: IntoExpr, function: str) -> pl.Expr:
    """Return the response as ``String``, a null read as the empty string (as the reference)."""
    return parse_text_expr(response, function=function, parameter="response").fill_null("")


def _check_bool(value: Any, function: str, parameter: str) -> bool:
    if not isinstance(value, bool):
        raise invalid_parameter(function, parameter, "True or False", value)
    return value


def _text_option(value: Any, function: str, parameter: str) -> pl.Expr | str:
    """Return a literal string option, or a per-row ``String`` expression (null read as ``""``)."""
    if isinstance(value, pl.Expr | pl.Series):
        return parse_text_expr(value, function=function, parameter=parameter).fill_null("")
    if not isinstance(value, str):
        raise invalid_parameter(
            function, parameter, "a string, or a polars expression giving one per row", value
        )
    return value


def _as_expr(value: pl.Expr | str) -> pl.Expr:
    return value if isinstance(value, pl.Expr) else pl.lit(value, dtype=pl.String)


def _binary(flag: pl.Expr) -> pl.Expr:
    return flag.fill_null(value=False).cast(pl.Float64)


def _details(name: str, score: pl.Expr, reason: pl.Expr) -> pl.Expr:
    return pl.struct(score.alias("score"), reason.alias("reason")).alias(f"{name}_details")


def _choose(flag: pl.Expr, yes: pl.Expr | str, no: pl.Expr | str) -> pl.Expr:
    yes_e = pl.lit(yes) if isinstance(yes, str) else yes
    no_e = pl.lit(no) if isinstance(no, str) else no
    return pl.when(flag.fill_null(value=False)).then(yes_e).otherwise(no_e)


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
    _check_bool(case_sensitive, function, "case_sensitive")
    text = _response(response, function)
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
    return _details("contains", score, reason)


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
    _check_bool(case_sensitive, function, "case_sensitive")
    text = _response(response, function)
    given = _text_option(affix, function, parameter)
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
    shown = _as_expr(given)
    reason = _choose(
        test,
        pl.concat_str(pl.lit(f"Output {verb}s with '"), shown, pl.lit("'")),
        pl.concat_str(pl.lit(f"Output does not {verb} with '"), shown, pl.lit("'")),
    )
    return _binary(test), reason


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
    return _details("starts_with", score, reason)


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
    return _details("ends_with", score, reason)


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
    _check_bool(case_sensitive, function, "case_sensitive")
    _check_bool(strip_whitespace, function, "strip_whitespace")
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
    return score, _choose(score == 1.0, "Exact match.", "Output does not match expected.")


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
    return _details("exact_match", score, reason)


# --- non_empty ------------------------------------------------------------------------------------


def _non_empty(response: IntoExpr, function: str) -> tuple[pl.Expr, pl.Expr]:
    text = parse_text_expr(response, function=function, parameter="response")
    score = plugin_call("non_empty_score", text)
    return score, _choose(
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
    return _details("non_empty", score, reason)


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
    text = _response(response, function)
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
        _choose(inside, "within", "outside"),
        low_e,
        high_e,
    )
    return _binary(inside), reason


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
    return _details("length_check", score, reason)


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


def _map_present(
    function: Callable[[str], Any], dtype: pl.DataType
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
            _map_present(_url_is_valid, pl.Boolean()),
            return_dtype=pl.Boolean,
            is_elementwise=True,
        )
    )
    return pl.when(rare).then(python).otherwise(native)


def _format(response: IntoExpr, format_type: str, function: str) -> tuple[pl.Expr, pl.Expr]:
    format_type = check_choice(
        format_type, function=function, parameter="format_type", allowed=FORMAT_TYPES
    )
    text = _response(response, function)
    if format_type == "url":
        valid = _url_valid(text)
    else:
        pattern = {"email": _EMAIL, "phone": _PHONE}.get(format_type) or _date_pattern()
        valid = py_strip(text).str.contains(pattern)
    reason = _choose(
        valid, f"Format '{format_type}' is valid.", f"Format '{format_type}' is invalid."
    )
    return _binary(valid), reason


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
    return _details("format_check", score, reason)


# --- regex_match ----------------------------------------------------------------------------------


def _compile(pattern: str, function: str) -> re.Pattern[str]:
    try:
        return py_compile(pattern)
    except (re.error, OverflowError, RecursionError) as error:
        raise invalid_parameter(
            function, "pattern", f"a pattern Python's re can compile ({error})", pattern
        ) from None


def _regex_literal(text: pl.Expr, pattern: str, *, full_match: bool, function: str) -> pl.Expr:
    compiled = _compile(pattern, function)
    translated = native_pattern(pattern, full_match=full_match)
    if translated is not None:
        return text.str.contains(f"^(?:{translated})$" if full_match else translated)
    test = compiled.fullmatch if full_match else compiled.search
    return text.map_batches(
        _map_present(lambda s: test(s) is not None, pl.Boolean()),
        return_dtype=pl.Boolean,
        is_elementwise=True,
    )


def _regex_per_row(text: pl.Expr, patterns: pl.Expr, *, full_match: bool) -> pl.Expr:
    """One Python ``re`` test per distinct (text, pattern) pair, each pattern compiled once."""
    compiled: dict[str, re.Pattern[str] | None] = {}

    def test(pair: dict[str, str]) -> bool:
        pattern = pair["pattern"]
        if pattern not in compiled:
            try:
                compiled[pattern] = py_compile(pattern)
            except (re.error, OverflowError, RecursionError):
                compiled[pattern] = None
        regex = compiled[pattern]
        if regex is None:
            return False
        found = regex.fullmatch(pair["text"]) if full_match else regex.search(pair["text"])
        return found is not None

    def apply(series: pl.Series) -> pl.Series:
        frame = series.struct.unnest()
        distinct = frame.unique()
        results = pl.Series("match", [test(r) for r in distinct.iter_rows(named=True)])
        joined = frame.join(
            distinct.with_columns(results),
            on=["text", "pattern"],
            how="left",
            maintain_order="left",
        )
        return joined["match"]

    return pl.struct(text.alias("text"), patterns.alias("pattern")).map_batches(
        apply, return_dtype=pl.Boolean, is_elementwise=True
    )


def _regex(
    response: IntoExpr, pattern: str | pl.Expr | pl.Series, *, full_match: bool, function: str
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, pattern=pattern)
    _check_bool(full_match, function, "full_match")
    given = _text_option(pattern, function, "pattern")
    text = _response(response, function)
    if isinstance(given, str):
        matched = _regex_literal(text, given, full_match=full_match, function=function)
    else:
        matched = _regex_per_row(text, given, full_match=full_match)
    shown = _as_expr(given)
    reason = _choose(
        matched,
        pl.concat_str(pl.lit("Pattern matched: "), shown),
        pl.concat_str(pl.lit("Pattern not matched: "), shown),
    )
    return _binary(matched), reason


def regex_match(
    response: IntoExpr,
    *,
    pattern: str | pl.Expr | pl.Series = "",
    full_match: bool = False,
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

    Returns
    -------
    pl.Expr
        ``Float64`` named ``regex_match``, never null.

    Notes
    -----
    Reproduces ``RegexMatchMetric`` of eval-ai-library 0.8.2. A pattern whose meaning is provably
    the same in Polars' Rust engine (see :func:`native_pattern`) runs natively; any other runs in
    Python's ``re``, compiled once, on each distinct response once.

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
    return _regex(response, pattern, full_match=full_match, function="regex_match")[0].alias(
        "regex_match"
    )


def regex_match_details(
    response: IntoExpr,
    *,
    pattern: str | pl.Expr | pl.Series = "",
    full_match: bool = False,
) -> pl.Expr:
    """Score :func:`regex_match` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``regex_match_details``: ``score`` and ``reason``
        (``Pattern matched: ...`` or ``Pattern not matched: ...``).
    """
    score, reason = _regex(response, pattern, full_match=full_match, function="regex_match_details")
    return _details("regex_match", score, reason)


# --- json_schema ----------------------------------------------------------------------------------


def _import_jsonschema(function: str) -> Any:
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the extra is installed in CI
        raise ImportError(
            f"{function} needs the optional dependency jsonschema: pip install 'polarscore[json]'"
        ) from None
    return jsonschema


def _validator(schema: Any, function: str) -> Any:
    if schema is None:
        schema = {}
    if not isinstance(schema, Mapping):
        raise invalid_parameter(
            function,
            "schema",
            "a JSON schema object (a dict; a boolean schema is read as 'accept everything' by "
            "the reference, so it is refused)",
            schema,
        )
    validator, problem = _compile_schema(dict(schema), function)
    if problem is not None:
        raise invalid_parameter(function, "schema", f"a valid JSON schema ({problem})", schema)
    return validator


def _compile_schema(schema: dict[str, Any], function: str) -> tuple[Any, str | None]:
    """Return the schema's validator, or ``None`` and the metaschema's objection."""
    jsonschema = _import_jsonschema(function)
    # An absent or unknown $schema means the latest draft, as jsonschema.validate reads it
    # (without its deprecation warning for the unknown one).
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is None:
        cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as error:
        return None, str(error.message)
    return cls(schema), None


def _json_reason_function(validator: Any) -> Callable[[str], str | None]:
    """Return ``text -> None`` when valid, else the reference's failure message."""
    from jsonschema.exceptions import best_match

    def check(text: str) -> str | None:
        try:
            instance = json.loads(text)
        except json.JSONDecodeError as error:
            return f"Invalid JSON: {error}"
        failure = best_match(validator.iter_errors(instance))
        if failure is None:
            return None
        return f"Schema validation failed: {failure.message}"

    return check


@lru_cache(maxsize=256)
def _row_check(schema_text: str | None) -> Callable[[str], str | None]:
    """Return the check of one row's schema (JSON text; null means ``{}``), compiled once.

    A schema that is not a JSON object, or that its metaschema rejects, fails every response
    that parses, with the reference's ``Invalid schema: ...`` message (the reference validates
    the schema when it validates a parsed response).
    """
    if schema_text is None:
        return _json_reason_function(_validator({}, "json_schema"))
    try:
        schema = json.loads(schema_text)
    except json.JSONDecodeError as error:
        problem = f"Invalid schema: not JSON ({error})"
    else:
        if isinstance(schema, dict):
            validator, objection = _compile_schema(schema, "json_schema")
            if validator is not None:
                return _json_reason_function(validator)
            problem = f"Invalid schema: {objection}"
        else:
            problem = "Invalid schema: a schema must be a JSON object"

    def invalid(text: str) -> str | None:
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            return f"Invalid JSON: {error}"
        return problem

    return invalid


def _json_per_row(text: pl.Expr, schemas: pl.Expr) -> pl.Expr:
    """Return each row's failure message against its own schema, each distinct pair once."""

    def apply(pairs: pl.Series) -> pl.Series:
        distinct = pairs.unique()
        failures = pl.Series(
            [_row_check(p["schema"])(p["text"]) for p in distinct.to_list()], dtype=pl.String
        )
        return pairs.replace_strict(distinct, failures, return_dtype=pl.String)

    return pl.struct(text.alias("text"), schemas.alias("schema")).map_batches(
        apply, return_dtype=pl.String, is_elementwise=True
    )


def _json(response: IntoExpr, schema: Any, function: str) -> tuple[pl.Expr, pl.Expr]:
    text = _response(response, function)
    if isinstance(schema, pl.Expr | pl.Series):
        check_same_length(function, response=response, schema=schema)
        _import_jsonschema(function)
        schemas = parse_text_expr(schema, function=function, parameter="schema")
        failure = _json_per_row(text, schemas)
    else:
        check = _json_reason_function(_validator(schema, function))
        failure = text.map_batches(
            _map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
        )
    valid = failure.is_null()
    reason = (
        pl.when(valid)
        .then(pl.lit("JSON schema valid."))
        .otherwise(pl.concat_str(pl.lit("JSON schema invalid: "), failure))
    )
    return valid.cast(pl.Float64), reason


def json_schema(
    response: IntoExpr, *, schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None
) -> pl.Expr:
    """Score whether the response is a JSON document valid under a JSON schema: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers, parsed with Python's ``json.loads`` as they are: no code fences
        or surrounding prose are removed (null is read as the empty string, which is invalid).
        ``NaN`` and ``Infinity`` are accepted, as Python accepts them.
    schema
        A JSON schema (a dict); ``None`` or ``{}`` accept every JSON document. The draft comes
        from ``$schema`` (draft 3 to 2020-12; absent means 2020-12). A schema that its
        metaschema rejects, an unknown ``$schema`` and a boolean schema raise. Or a ``String``
        expression (or Series) giving each row's schema as JSON text (null: ``{}``); a row
        whose schema is not a JSON object or is rejected by its metaschema scores 0.0 with the
        reason ``Invalid schema: ...``, as the reference reports it.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``json_schema``, never null.

    Notes
    -----
    Reproduces ``JsonSchemaMetric`` of eval-ai-library 0.8.2, with ``jsonschema`` (the optional
    extra ``polarscore[json]``) as the validator: ``format`` is not enforced, ``pattern`` is
    Python's ``re.search``. The schema is checked and compiled once; each distinct response of
    a batch is parsed and validated once.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ['{"answer": 42}', '{"answer": "42"}', "```json{}```"]})
    >>> schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    >>> df.select(ps.json_schema("response", schema=schema))["json_schema"].to_list()
    [1.0, 0.0, 0.0]
    """
    return _json(response, schema, "json_schema")[0].alias("json_schema")


def json_schema_details(
    response: IntoExpr, *, schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None
) -> pl.Expr:
    """Score :func:`json_schema` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``json_schema_details``: ``score`` and ``reason`` (``JSON schema
        valid.``, or ``JSON schema invalid: Invalid JSON: ...`` / ``... Schema validation
        failed: ...`` with Python's and jsonschema's own messages).
    """
    score, reason = _json(response, schema, "json_schema_details")
    return _details("json_schema", score, reason)


# --- language_detection ---------------------------------------------------------------------------


_LANGDETECT_LOCK = threading.Lock()


def _detector(function: str) -> Callable[[str], str]:
    try:
        from langdetect.detector_factory import init_factory
    except ImportError:
        raise ImportError(
            f"{function} needs the optional dependency langdetect: pip install 'polarscore[lang]'"
        ) from None
    # langdetect loads its profiles on first use, without a lock: two batches detecting at once
    # could load them twice. Load them now, once, before any batch runs.
    with _LANGDETECT_LOCK:
        init_factory()
    return _detect_language


@lru_cache(maxsize=8192)
def _detect_language(text: str) -> str:
    """``langdetect.detect`` seeded with 0 (so deterministic, and cached), or ``"unknown"``."""
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        code: str = detect(text)
    except LangDetectException:
        return "unknown"
    return code


def _language(
    response: IntoExpr, expected_language: str | pl.Expr | pl.Series, function: str
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, expected_language=expected_language)
    expected = _text_option(expected_language, function, "expected_language")
    if isinstance(expected, str):
        check_choice(expected, function=function, parameter="expected_language", allowed=LANGUAGES)
    detect_one = _detector(function)
    text = _response(response, function)
    detected = text.map_batches(
        _map_present(detect_one, pl.String()), return_dtype=pl.String, is_elementwise=True
    )
    wanted = _as_expr(expected)
    matched = (detected != "unknown") & (detected == wanted)
    reason = pl.concat_str(pl.lit("Detected language: "), detected, pl.lit(", expected: "), wanted)
    return _binary(matched), reason


def language_detection(
    response: IntoExpr, *, expected_language: str | pl.Expr | pl.Series = "en"
) -> pl.Expr:
    """Score whether ``langdetect`` reads the response as the expected language: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string).
    expected_language
        One of the 55 codes ``langdetect`` answers (:data:`LANGUAGES`: lowercase ISO 639-1
        plus ``zh-cn`` and ``zh-tw``), or a ``String`` expression giving one per row.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``language_detection``, never null. A text without letters (empty,
        digits, punctuation, a bare URL) is detected as ``unknown`` and scores 0.0.

    Notes
    -----
    Reproduces ``LanguageDetectionMetric`` of eval-ai-library 0.8.2 with ``langdetect`` 1.0.9
    (the optional extra ``polarscore[lang]``), seeded with 0 for every text, once per distinct
    response of a batch. It is unreliable on short texts (``"Yes"`` is ``tr``, ``"ok"`` is
    ``sk``); see ``docs/checks.md`` for figures.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> text = "The capital of France is Paris, a city on the Seine."
    >>> df = pl.DataFrame({"response": [text, "42"]})
    >>> df.select(ps.language_detection("response"))["language_detection"].to_list()
    [1.0, 0.0]
    """
    score, _ = _language(response, expected_language, "language_detection")
    return score.alias("language_detection")


def language_detection_details(
    response: IntoExpr, *, expected_language: str | pl.Expr | pl.Series = "en"
) -> pl.Expr:
    """Score :func:`language_detection` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``language_detection_details``: ``score`` and ``reason``
        (``Detected language: en, expected: en``).
    """
    score, reason = _language(response, expected_language, "language_detection_details")
    return _details("language_detection", score, reason)


__all__ = [
    "CONTAINS_MODES",
    "DEFAULT_MAX_LENGTH",
    "FORMAT_TYPES",
    "LANGUAGES",
    "LENGTH_UNITS",
    "contains",
    "contains_details",
    "ends_with",
    "ends_with_details",
    "exact_match",
    "exact_match_details",
    "format_check",
    "format_check_details",
    "json_schema",
    "json_schema_details",
    "language_detection",
    "language_detection_details",
    "length_check",
    "length_check_details",
    "native_pattern",
    "non_empty",
    "non_empty_details",
    "py_digit_class",
    "regex_match",
    "regex_match_details",
    "starts_with",
    "starts_with_details",
]
