"""Answer correctness: exact, normalized and contains match against a reference answer.

Reproduces the judge-free answer-correctness benchmark of DataRobot's ``datarobot-genai`` 0.31.0
(``eval/benchmarks/answer_correctness.py``) row for row, as native Polars expressions.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polarscore._multi_reference import dispatch_reference
from polarscore._typing import IntoExpr, IntoMatchMode
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore._validation import invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.reasons import CORRECTNESS_INCONCLUSIVE as INCONCLUSIVE_REASON

#: The match modes, in the reference's spelling.
MATCH_MODES: tuple[str, ...] = ("exact", "normalized", "contains")


def _parse_match_mode(match_mode: IntoMatchMode, function: str) -> str | pl.Expr:
    """Return a validated literal mode, or the per-row mode expression (``String``).

    Per-row values are read by the kernel as the reference reads them:
    ``str(mode or "normalized").lower()``, *not* stripped, and anything outside the three modes
    means ``normalized``. A literal is the programmer's own choice, so an unknown literal is a
    typo and raises.
    """
    if isinstance(match_mode, pl.Expr | pl.Series):
        return parse_text_expr(match_mode, function=function, parameter="match_mode")
    if isinstance(match_mode, str) and match_mode.lower() in MATCH_MODES:
        return match_mode.lower()
    raise invalid_parameter(
        function,
        "match_mode",
        "one of 'exact', 'normalized', 'contains' (any case), or a polars expression giving "
        "one mode per row",
        match_mode,
    )


def fused_options(*, match_mode: IntoMatchMode) -> dict[str, Any]:
    """Return the keyword arguments of :func:`answer_correctness` in the fused call.

    ``match_mode`` is a literal, checked as :func:`answer_correctness` checks it.
    """
    return {"mode": _parse_match_mode(match_mode, "answer_correctness")}


def _correctness(
    response: IntoExpr,
    reference: IntoExpr,
    match_mode: IntoMatchMode,
    function: str,
    *,
    details: bool,
) -> pl.Expr:
    """Build the score (or the details struct) for a string or a list reference column."""
    check_same_length(function, response=response, reference=reference, match_mode=match_mode)
    mode = _parse_match_mode(match_mode, function)
    resp = parse_text_expr(response, function=function, parameter="response")
    ref = parse_into_expr(reference, function=function, parameter="reference")
    kernel = "answer_correctness_details" if details else "answer_correctness"
    row_mode = [] if isinstance(mode, str) else [mode]
    literal = mode if isinstance(mode, str) else None

    def score(references: pl.Expr) -> pl.Expr:
        return plugin_call(kernel, resp, references, *row_mode, mode=literal)

    return dispatch_reference(
        ref,
        build=score,
        function=function,
        parameter="reference",
    )


def answer_correctness(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    match_mode: IntoMatchMode = "normalized",
) -> pl.Expr:
    r"""Score whether a response matches the reference answer: 1.0 or 0.0, null if inconclusive.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series. A null response
        is scored as the empty string.
    reference
        The reference (gold) answers: a ``String`` column (one per row) or a ``List(String)``
        column (several acceptable answers per row, e.g. aliases). With a list, the row scores
        1.0 when *any* usable reference matches, and is inconclusive only when none is usable.
    match_mode
        ``"exact"``, ``"normalized"`` (default) or ``"contains"``, case-insensitive, or an
        expression giving one mode per row. Per-row values are read exactly as the reference
        library reads them: lower-cased, *not* stripped, and null, empty or unknown values mean
        ``"normalized"``.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``answer_correctness``: 1.0 for a match, 0.0 otherwise, and null
        (inconclusive, never a failure) where the reference is null, empty or only whitespace
        (with a list: where the list is null or empty, or every item is null or blank).

    Notes
    -----
    Reproduces ``datarobot-genai`` 0.31.0 ``answer_correctness.evaluate_response`` exactly:

    * ``exact``: both sides stripped of Python whitespace (which includes U+001C..U+001F), then
      compared case-sensitively.
    * ``normalized``: lower-case (full Unicode mapping, no case folding), delete every character
      that is neither a Python word character (letter, number, ``_``) nor whitespace, collapse
      whitespace, strip; then compare. Punctuation is deleted, not replaced: ``"U.S.A."`` equals
      ``"usa"``. Combining marks are deleted too, so NFD ``"café"`` equals ``"cafe"``.
    * ``contains``: the normalised reference is a substring of the normalised response (no word
      boundaries: ``"Pariss"`` contains ``"Paris"``). A reference that normalises to nothing
      (``"?"``) is contained in every response.

    A list reference is the reference library's single-reference rule applied to each item, and
    the best item kept: a list of one reference gives exactly the plain-string result, and the
    order of the references does not change the score.

    See Also
    --------
    answer_correctness_details : the same score with the reference's reason text per row.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["Paris.", "It is Paris", "paris", "Lyon"],
    ...         "reference": ["paris", "Paris", None, "Paris"],
    ...     }
    ... )
    >>> df.with_columns(
    ...     normalized=ps.answer_correctness("response", "reference"),
    ...     contains=ps.answer_correctness("response", "reference", match_mode="contains"),
    ... )
    shape: (4, 4)
    ┌─────────────┬───────────┬────────────┬──────────┐
    │ response    ┆ reference ┆ normalized ┆ contains │
    │ ---         ┆ ---       ┆ ---        ┆ ---      │
    │ str         ┆ str       ┆ f64        ┆ f64      │
    ╞═════════════╪═══════════╪════════════╪══════════╡
    │ Paris.      ┆ paris     ┆ 1.0        ┆ 1.0      │
    │ It is Paris ┆ Paris     ┆ 0.0        ┆ 1.0      │
    │ paris       ┆ null      ┆ null       ┆ null     │
    │ Lyon        ┆ Paris     ┆ 0.0        ┆ 0.0      │
    └─────────────┴───────────┴────────────┴──────────┘
    """
    score = _correctness(response, reference, match_mode, "answer_correctness", details=False)
    return score.alias("answer_correctness")


def answer_correctness_details(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    match_mode: IntoMatchMode = "normalized",
) -> pl.Expr:
    """Score answer correctness and explain each row, with the reference's reason texts.

    Parameters
    ----------
    response, reference, match_mode
        As for :func:`answer_correctness`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_correctness_details`` with the fields

        * ``score`` (``Float64``): exactly :func:`answer_correctness`;
        * ``reason`` (``String``): ``"<mode> match"``, ``"no <mode> match"``, or
          ``"no ideal_response provided — cannot score"`` when inconclusive, as the reference
          words them;
        * ``match_mode`` (``String``): the mode the row was scored with, after the per-row
          fallback to ``"normalized"``;
        * ``reference_index`` (``UInt32``): the position of the reference that decided the
          score: the first matching one, or, when none matches, the first usable one (always 0
          for a ``String`` reference); null when inconclusive.

    See Also
    --------
    answer_correctness : the score alone (cheaper: no reason strings are built).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["Paris.", "Paris.", "Lyon"],
    ...         "references": [["Lyon", "paris"], ["paris"], [" ", None]],
    ...         "mode": ["EXACT", "fuzzy", "contains"],
    ...     }
    ... )
    >>> df.select(
    ...     ps.answer_correctness_details("response", "references", match_mode=pl.col("mode"))
    ... ).unnest("answer_correctness_details")
    shape: (3, 4)
    ┌───────┬─────────────────────────────────┬────────────┬─────────────────┐
    │ score ┆ reason                          ┆ match_mode ┆ reference_index │
    │ ---   ┆ ---                             ┆ ---        ┆ ---             │
    │ f64   ┆ str                             ┆ str        ┆ u32             │
    ╞═══════╪═════════════════════════════════╪════════════╪═════════════════╡
    │ 0.0   ┆ no exact match                  ┆ exact      ┆ 0               │
    │ 1.0   ┆ normalized match                ┆ normalized ┆ 0               │
    │ null  ┆ no ideal_response provided — c… ┆ contains   ┆ null            │
    └───────┴─────────────────────────────────┴────────────┴─────────────────┘
    """
    details = _correctness(
        response, reference, match_mode, "answer_correctness_details", details=True
    )
    return details.alias("answer_correctness_details")


__all__ = ["INCONCLUSIVE_REASON", "MATCH_MODES", "answer_correctness", "answer_correctness_details"]
