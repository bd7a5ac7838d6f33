r"""Answer precision: a graded score from several judge-free signals, combined by a power mean.

Reproduces ``AnswerPrecisionMetric`` of eval-ai-library 0.8.2 row for row with
``char_similarity="sequence_matcher"`` and ``missing_expected="zero"``, over whole columns.

Every row is scored by one native kernel (``src/precision/`` of the Rust crate, a Polars
expression plugin) in a single pass over each text: the normalisation (links, URLs, NFKC with
the interpreter's own notion of unassigned characters, Python's ``lower()`` and whitespace),
the token sets, the numbers (Python's ``\d`` and ``float()``) with the greedy nearest-number
matching, and the character similarity (a bit-parallel Indel, or an exact port of CPython's
``difflib.SequenceMatcher``). A ``List(String)`` reference column is handled inside the same
kernel (the first reference with the best score). It streams and works on Arrow batches of any
size; the diagnostics (terms, numeric mismatches, reason texts) come from the same kernel.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import polars as pl

from polarscore._compat import suffix_name
from polarscore._defaults import DEFAULT_MAX_WORK, DEFAULT_THRESHOLD
from polarscore._multi_reference import dispatch_reference
from polarscore._typing import CharSimilarity, IntoExpr, IntoNumber, MissingExpected
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore._validation import check_budget, check_choice, check_number, invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.reasons import (
    PRECISION_EMPTY_ACTUAL as EMPTY_ACTUAL_REASON,
)
from polarscore.reasons import (
    PRECISION_INVALID_TOLERANCE as INVALID_TOLERANCE_REASON,
)
from polarscore.reasons import (
    PRECISION_NO_EXPECTED as NO_EXPECTED_REASON,
)
from polarscore.stopwords import resolve_stopwords

#: The fields of :func:`answer_precision_components`, in order.
COMPONENT_FIELDS: tuple[str, ...] = (
    "exact",
    "normalized",
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "penalty",
    "score",
)

#: Components that may carry a weight, in the order they enter the power mean: the reference's
#: four first (so its sums are reproduced bit for bit), then the three reported-only ones.
WEIGHTABLE: tuple[str, ...] = (
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "exact",
    "normalized",
    "token_recall",
)

#: The reference's weights.
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "contains": 0.48,
    "char_ratio": 0.32,
    "token_precision": 0.15,
    "numeric": 0.35,
}

#: The reference's own pass threshold (``AnswerPrecisionMetric(threshold=0.8)``); polarscore's
#: default is the package-wide :data:`polarscore.DEFAULT_THRESHOLD` (0.5).
REFERENCE_THRESHOLD = 0.8

# --- option parsing -------------------------------------------------------------------------


def _parse_tolerance(value: IntoNumber, *, function: str, parameter: str) -> float | pl.Expr:
    if isinstance(value, pl.Series):
        return pl.lit(value)
    if isinstance(value, pl.Expr):
        return value
    expected = "a finite number >= 0, or a polars expression giving one per row"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid_parameter(function, parameter, expected, value)
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise invalid_parameter(function, parameter, expected, value)
    return number


def _parse_weights(
    weights: Mapping[str, float] | None, *, function: str
) -> tuple[tuple[str, float], ...]:
    if weights is None:
        return tuple(DEFAULT_WEIGHTS.items())
    allowed = ", ".join(map(repr, WEIGHTABLE))
    if not isinstance(weights, Mapping) or not weights:
        raise invalid_parameter(
            function, "weights", f"a non-empty mapping from component names ({allowed})", weights
        )
    for name in weights:
        check_choice(name, function=function, parameter="weights", allowed=WEIGHTABLE)
    values = {
        name: check_number(weights[name], function=function, parameter="weights", minimum=0)
        for name in weights
    }
    if not any(values.values()):
        raise invalid_parameter(function, "weights", "a mapping with a positive weight", weights)
    return tuple((name, values[name]) for name in WEIGHTABLE if name in values)


def _kernel_options(
    function: str,
    *,
    char_similarity: CharSimilarity,
    missing_expected: MissingExpected,
    numeric_tolerance_abs: IntoNumber,
    numeric_tolerance_rel: IntoNumber,
    power_p: float,
    weights: Mapping[str, float] | None,
    stopwords: str | Collection[str] | None,
    max_work: int | None,
) -> tuple[dict[str, Any], list[pl.Expr]]:
    """Check the options; return the kernel's keyword arguments and the per-row tolerances."""
    check_choice(
        char_similarity,
        function=function,
        parameter="char_similarity",
        allowed=("indel", "sequence_matcher"),
    )
    check_choice(
        missing_expected, function=function, parameter="missing_expected", allowed=("null", "zero")
    )
    p = check_number(
        power_p, function=function, parameter="power_p", minimum=0, strict_minimum=True
    )
    tol_abs = _parse_tolerance(
        numeric_tolerance_abs, function=function, parameter="numeric_tolerance_abs"
    )
    tol_rel = _parse_tolerance(
        numeric_tolerance_rel, function=function, parameter="numeric_tolerance_rel"
    )
    options: dict[str, Any] = {
        "char_similarity": char_similarity,
        "missing_expected": missing_expected,
        "power_p": float(p),
        "weights": [[name, float(w)] for name, w in _parse_weights(weights, function=function)],
        "stopwords": sorted(resolve_stopwords(stopwords, function=function)),
        "tol_abs": tol_abs if isinstance(tol_abs, float) else None,
        "tol_rel": tol_rel if isinstance(tol_rel, float) else None,
        "max_work": check_budget(max_work, function=function, parameter="max_work"),
    }
    tolerances = [t.cast(pl.Float64) for t in (tol_abs, tol_rel) if isinstance(t, pl.Expr)]
    return options, tolerances


def fused_options(**options: Any) -> dict[str, Any]:
    """Return the keyword arguments of :func:`answer_precision` in the fused call.

    The options are literals (no per-row tolerance), checked as :func:`answer_precision`
    checks them.
    """
    kwargs, tolerances = _kernel_options("answer_precision", **options)
    if tolerances:
        raise ValueError("the fused call takes literal tolerances only")
    return kwargs


def _build(
    function: str,
    response: IntoExpr,
    reference: IntoExpr,
    *,
    kernel: str,
    **parameters: Any,
) -> pl.Expr:
    options, tolerances = _kernel_options(function, **parameters)
    check_same_length(function, response=response, reference=reference)
    response_expr = parse_text_expr(response, function=function, parameter="response")

    def score(references: pl.Expr) -> pl.Expr:
        # A List(String) reference column is reduced to each row's best reference natively.
        return plugin_call(kernel, response_expr, references, *tolerances, **options)

    return dispatch_reference(
        parse_into_expr(reference, function=function, parameter="reference"),
        build=score,
        function=function,
        parameter="reference",
    )


# --- public functions -----------------------------------------------------------------------


def answer_precision(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
    max_work: int | None = DEFAULT_MAX_WORK,
) -> pl.Expr:
    r"""Score how precisely a response matches the reference: a graded score in [0, 1].

    A weighted power mean (p = 0.3) of judge-free signals: token containment (overlap
    coefficient), character similarity, token precision and numeric agreement, with a 5% penalty
    for answers padded with many extra tokens.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series.
    reference
        The reference (expected) answers: a ``String`` column, or a ``List(String)`` column of
        several acceptable answers per row, scored against each and the best kept (null when
        none is usable); the component and diagnostic structs then also give its position as
        ``reference_index``.
    char_similarity
        ``"indel"`` (default): RapidFuzz's normalized Indel similarity (2·LCS / total length),
        symmetric and fast. ``"sequence_matcher"``: difflib's Ratcliff/Obershelp ratio exactly as
        the reference computes it, asymmetric and with autojunk on references of 200+ characters.
    missing_expected
        ``"null"`` (default): a null, empty or whitespace-only reference makes the row
        inconclusive (null), as in :func:`answer_correctness`. ``"zero"``: as the reference, a
        null or empty reference scores 0.0 (a whitespace-only one is scored).
    numeric_tolerance_abs, numeric_tolerance_rel
        A number pair matches if ``|a - e| <= abs`` or ``|a - e| / (|e| + 1e-12) <= rel``. A
        finite number >= 0 (NaN, infinite and negative values raise), or an expression with one
        value per row; a per-row value that is null, NaN, infinite or negative makes that row's
        score null (path ``"invalid_tolerance"`` in :func:`answer_precision_diagnostics`). An
        infinite tolerance would make every pair of numbers agree; to leave numbers out of the
        weighted mean, give the ``"numeric"`` weight 0 instead.
    power_p
        The exponent of the power mean; finite and > 0.
    weights
        The weight of each component, replacing the default ``{"contains": 0.48, "char_ratio":
        0.32, "token_precision": 0.15, "numeric": 0.35}``. Keys among ``contains``,
        ``char_ratio``, ``token_precision``, ``numeric``, ``exact``, ``normalized`` and
        ``token_recall`` (|A∩E| / |E|); values finite and >= 0, not all zero. Components that
        are not named carry no weight.
    stopwords
        Tokens dropped before the token components: ``None`` (default) for the reference's 26
        English words, a language code (``"en"``, ``"ru"``, ``"de"``, ``"fr"``, ``"es"``) for a
        built-in Snowball list, or any collection of words (normalised like the text; each must
        be a single token). See :mod:`polarscore.stopwords`.
    max_work
        The length guard: the most work (one or two nanoseconds a unit on one core) the
        character similarity of one pair may take, default 2,500,000,000. The similarity is
        exact or not given: a pair that would take more scores null (path ``"too_long"`` in
        :func:`answer_precision_diagnostics`). Indel costs ``n * m / 64`` units for two texts
        of ``n`` and ``m`` characters that differ throughout (unlike texts of 400,000
        characters a side reach the default), and far less for texts that differ little: a
        shared prefix and suffix are free, and Myers' algorithm costs about ``(n + m) * d`` for
        ``d`` differing characters. ``sequence_matcher`` costs one unit per pair of equal
        characters it compares, or eight per character of a suffix automaton. ``None`` lifts
        the guard.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``answer_precision``, in [0, 1] and unrounded (the reference rounds to
        4 digits when it reports). 0.0 where the response is null, empty or only whitespace;
        null where the reference is missing (``missing_expected="null"``) and where the pair is
        longer than ``max_work`` allows.

    Notes
    -----
    Reproduces ``AnswerPrecisionMetric.evaluate`` of eval-ai-library 0.8.2:
    with ``char_similarity="sequence_matcher"`` and ``missing_expected="zero"``, the score equals
    the reference's on every row (after ``round(x, 4)``), including its Unicode corner cases:

    * **Normalisation**: markdown links ``[label](http...)`` become their label and bare URLs
      are removed (on the raw text, case-sensitively), then NFKC, ``lower()``, Python
      ``strip()``, whitespace runs to one space.
    * **Tokens**: the 32 ASCII punctuation characters split words; Unicode punctuation does not
      (``"«paris»"`` is one token). Token components use *sets*.
    * **Numbers** come from the raw text (no NFKC, URLs included): ``"2024-01-15"`` gives
      2024, -1, -15; Arabic-Indic and fullwidth digits count, ``²`` and ``①`` do not. Each
      expected number greedily takes the nearest unused actual number, in text order.
    * **exact** and **normalized** are reported but carry no weight by default.

    ``char_similarity="indel"`` is the only intended difference from the reference: Indel is
    symmetric (the reference's ``ratio("tide", "diet")`` is 0.25 but ``ratio("diet", "tide")``
    0.5) and has no autojunk, which in the reference collapses the similarity of references of
    200 or more characters (every character occurring more than ``len // 100 + 1`` times cannot
    seed a match: a 200-character reference with every third word changed gets 0.34 instead
    of 0.79).

    See Also
    --------
    answer_precision_components : every component, as a struct.
    answer_precision_diagnostics : missing and extra terms, numeric mismatches, reason text.
    is_passing : score >= threshold (0.5 by default; the reference passes at 0.8).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["The answer is 42.", "Paris", "", "Paris"],
    ...         "reference": ["42", "paris", "Paris", None],
    ...     }
    ... )
    >>> df.with_columns(
    ...     ps.answer_precision("response", "reference").round(4),
    ...     reference=ps.answer_precision(
    ...         "response", "reference", char_similarity="sequence_matcher",
    ...         missing_expected="zero",
    ...     ).round(4),
    ... )
    shape: (4, 3)
    ┌───────────────────┬───────────┬──────────────────┐
    │ response          ┆ reference ┆ answer_precision │
    │ ---               ┆ ---       ┆ ---              │
    │ str               ┆ f64       ┆ f64              │
    ╞═══════════════════╪═══════════╪══════════════════╡
    │ The answer is 42. ┆ 0.6691    ┆ 0.6691           │
    │ Paris             ┆ 1.0       ┆ 1.0              │
    │                   ┆ 0.0       ┆ 0.0              │
    │ Paris             ┆ 0.0       ┆ null             │
    └───────────────────┴───────────┴──────────────────┘
    """
    return _build(
        "answer_precision",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        max_work=max_work,
        kernel="answer_precision",
    ).alias("answer_precision")


def answer_precision_components(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
    max_work: int | None = DEFAULT_MAX_WORK,
) -> pl.Expr:
    """Score answer precision and return every component, as a struct.

    Parameters
    ----------
    response, reference, char_similarity, missing_expected, numeric_tolerance_abs, \
numeric_tolerance_rel, power_p, weights, stopwords, max_work
        As for :func:`answer_precision`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_precision_components`` with ``Float64`` fields

        * ``exact``: 1.0 if the raw strings are equal (no strip), else 0.0;
        * ``normalized``: 1.0 if the normalised strings are equal;
        * ``contains``: overlap coefficient of the token sets, |A∩E| / min(|A|, |E|) (1.0 if
          both are empty, 0.0 if one is);
        * ``char_ratio``: character similarity of the normalised strings;
        * ``token_precision``: |A∩E| / |A| (when A is empty: 1.0 if E is, else 0.0);
        * ``numeric``: share of expected numbers matched (no expected numbers: 1.0 if the
          response has none, else 0.0);
        * ``penalty``: 0.05 when there are 5+ extra tokens and token precision < 0.7, else 0.0;
        * ``score``: exactly :func:`answer_precision`.

        The components are null on rows that are not scored (empty response, missing
        reference, invalid per-row tolerance, a pair over ``max_work``), where the score is
        0.0 or null.

    See Also
    --------
    answer_precision : the score alone.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["The answer is 42."], "reference": ["42"]})
    >>> df.select(
    ...     ps.answer_precision_components(
    ...         "response", "reference", char_similarity="sequence_matcher"
    ...     )
    ... ).unnest("answer_precision_components").select(pl.all().round(4))
    shape: (1, 8)
    ┌───────┬────────────┬──────────┬────────────┬─────────────────┬─────────┬─────────┬────────┐
    │ exact ┆ normalized ┆ contains ┆ char_ratio ┆ token_precision ┆ numeric ┆ penalty ┆ score  │
    │ ---   ┆ ---        ┆ ---      ┆ ---        ┆ ---             ┆ ---     ┆ ---     ┆ ---    │
    │ f64   ┆ f64        ┆ f64      ┆ f64        ┆ f64             ┆ f64     ┆ f64     ┆ f64    │
    ╞═══════╪════════════╪══════════╪════════════╪═════════════════╪═════════╪═════════╪════════╡
    │ 0.0   ┆ 0.0        ┆ 1.0      ┆ 0.2105     ┆ 0.5             ┆ 1.0     ┆ 0.0     ┆ 0.6691 │
    └───────┴────────────┴──────────┴────────────┴─────────────────┴─────────┴─────────┴────────┘
    """
    return _build(
        "answer_precision_components",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        max_work=max_work,
        kernel="answer_precision_components",
    ).alias("answer_precision_components")


def answer_precision_diagnostics(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
    max_work: int | None = DEFAULT_MAX_WORK,
) -> pl.Expr:
    """Score answer precision and explain each row: terms, numbers and a reason text.

    Parameters
    ----------
    response, reference, char_similarity, missing_expected, numeric_tolerance_abs, \
numeric_tolerance_rel, power_p, weights, stopwords, max_work
        As for :func:`answer_precision`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_precision_diagnostics`` with the fields

        * ``score`` (``Float64``): exactly :func:`answer_precision`;
        * ``path`` (``String``): ``"scored"``, ``"empty_actual_guard"``, ``"no_expected"``,
          ``"invalid_tolerance"`` or ``"too_long"`` (over ``max_work``);
        * ``token_recall`` (``Float64``): |A∩E| / |E|, the token containment (null if unscored);
        * ``missing_terms``, ``extra_terms`` (``List(String)``, sorted): reference tokens the
          response lacks, and response tokens the reference lacks (the penalty's false
          positives);
        * ``numeric_mismatches`` (``List(Struct{expected, actual, rel_err})``): each expected
          number that found no match within tolerance, with the number it took (null when none
          was left) and the relative error; when the reference has no numbers, each number of
          the response, with a null ``expected``;
        * ``reason`` (``String``): the reference's reason text: ``"exact match"``,
          ``"normalized match"`` or the char similarity and token precision, then numeric
          agreement, containment, the penalty note and the missing / extra terms.

    Notes
    -----
    The reason follows the reference's wording, its two-decimal formatting (half to even) and
    its Python list printing of the terms (``repr`` escapes for characters such as U+200D).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["Paris has 2 million people"], "reference": ["Paris, 3 million"]}
    ... )
    >>> d = df.select(ps.answer_precision_diagnostics("response", "reference")).unnest(
    ...     "answer_precision_diagnostics"
    ... )
    >>> d["missing_terms"].to_list(), d["extra_terms"].to_list()
    ([['3']], [['2', 'has', 'people']])
    >>> d["numeric_mismatches"].to_list()
    [[{'expected': 3.0, 'actual': 2.0, 'rel_err': 0.3333...}]]
    >>> print(d["reason"].item())
    char similarity 0.67, token precision 0.40, numeric agreement 0.00, containment 0.67,
    power-mean aggregation (p=0.30); Missing terms: ['3'] Extra terms: ['2', 'has', 'people']
    """
    return _build(
        "answer_precision_diagnostics",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        max_work=max_work,
        kernel="answer_precision_diagnostics",
    ).alias("answer_precision_diagnostics")


def is_passing(score: IntoExpr, *, threshold: float = DEFAULT_THRESHOLD) -> pl.Expr:
    """Return whether each score reaches the threshold: ``score >= threshold``; null stays null.

    Works on any score column in [0, 1]. The default is polarscore's one default threshold,
    0.5 (:data:`polarscore.DEFAULT_THRESHOLD`, as :func:`polarscore.summarize` and the command
    line); eval-ai-library's ``AnswerPrecisionMetric`` passes at ``threshold=0.8``
    (``REFERENCE_THRESHOLD``).

    Parameters
    ----------
    score
        A score column name, expression or Series.
    threshold
        A number in [0, 1] (every polarscore score lies there); a score passes when it is greater
        than or equal to it. Default 0.5.

    Returns
    -------
    pl.Expr
        ``Boolean``, named after the score with the suffix ``_passed`` (a column name or a
        scorer's expression); null where the score is null (inconclusive is not a failure).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["Paris", "Lyon", "Paris"], "reference": ["Paris", "Paris", None]}
    ... )
    >>> df.select(ps.is_passing(ps.answer_precision("response", "reference")))
    shape: (3, 1)
    ┌─────────────────────────┐
    │ answer_precision_passed │
    │ ---                     │
    │ bool                    │
    ╞═════════════════════════╡
    │ true                    │
    │ false                   │
    │ null                    │
    └─────────────────────────┘
    """
    value = check_number(
        threshold, function="is_passing", parameter="threshold", minimum=0, maximum=1
    )
    expr = parse_into_expr(score, function="is_passing", parameter="score")
    return suffix_name(expr >= value, "_passed")


__all__ = [
    "COMPONENT_FIELDS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_WEIGHTS",
    "EMPTY_ACTUAL_REASON",
    "INVALID_TOLERANCE_REASON",
    "NO_EXPECTED_REASON",
    "REFERENCE_THRESHOLD",
    "WEIGHTABLE",
    "CharSimilarity",
    "MissingExpected",
    "answer_precision",
    "answer_precision_components",
    "answer_precision_diagnostics",
    "is_passing",
]
