"""Answer correctness: exact, normalized and contains match against a reference answer.

Reproduces the judge-free answer-correctness benchmark of DataRobot's ``datarobot-genai`` 0.31.0
(``eval/benchmarks/answer_correctness.py``) row for row, as native Polars expressions.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from polarscore._multi_reference import INDEX_DTYPE, best_over_references, dispatch_reference
from polarscore._typing import IntoExpr, IntoMatchMode
from polarscore._utils import (
    check_same_length,
    contains_literal,
    parse_into_expr,
    parse_text_expr,
)
from polarscore._validation import invalid_parameter
from polarscore.normalize import datarobot_normalize, py_is_blank, py_strip

#: The reason the reference gives when it cannot score a row (no usable reference answer).
INCONCLUSIVE_REASON = "no ideal_response provided — cannot score"

#: The match modes, in the reference's spelling.
MATCH_MODES: tuple[str, ...] = ("exact", "normalized", "contains")

_DEFAULT_MODE = "normalized"


def _parse_match_mode(match_mode: IntoMatchMode, function: str) -> str | pl.Expr:
    """Return a validated literal mode, or a per-row expression of resolved modes.

    Per-row values are read as the reference reads them: ``str(mode or "normalized").lower()``,
    *not* stripped, and anything outside the three modes means ``normalized``. A literal is the
    programmer's own choice, so an unknown literal is a typo and raises.
    """
    if isinstance(match_mode, pl.Expr | pl.Series):
        mode = parse_text_expr(match_mode, function=function, parameter="match_mode")
        mode = mode.str.to_lowercase()
        return (
            pl.when(mode.is_in(MATCH_MODES).fill_null(False))
            .then(mode)
            .otherwise(pl.lit(_DEFAULT_MODE))
        )
    if isinstance(match_mode, str) and match_mode.lower() in MATCH_MODES:
        return match_mode.lower()
    raise invalid_parameter(
        function,
        "match_mode",
        "one of 'exact', 'normalized', 'contains' (any case), or a polars expression giving "
        "one mode per row",
        match_mode,
    )


def _normalize_series(values: pl.Series) -> pl.Series:
    return values.to_frame("text").select(datarobot_normalize(pl.col("text"))).to_series()


def _word_char_count(normalized: pl.Series) -> pl.Series:
    # A normalised string holds only word characters and single spaces.
    return normalized.str.replace_all(" ", "", literal=True).str.len_chars()


def _normalized_equal_batch(pair: pl.Series) -> pl.Series:
    """Kernel: ``normalize(response) == normalize(reference)`` for a batch of rows.

    Equal to the plain expression on every row, but it normalises long responses only when they
    could match. Every character lowercases to at most one Python word character (checked over
    all code points in the tests), so the number of word characters of a normalised prefix never
    exceeds that of the normalised whole. A response whose first few characters already normalise
    to more word characters than the whole normalised reference cannot equal it; only the other
    rows (short answers, in practice) are normalised in full.
    """
    response = pair.struct.field("response")
    reference_norm = _normalize_series(pair.struct.field("reference"))
    # Copy the heads out (concat_str) so later kernels never scan the long originals' buffers.
    head = pl.select(
        pl.concat_str(
            pl.lit(response).str.head(2 * reference_norm.str.len_chars() + 16), pl.lit("")
        )
    ).to_series()
    cannot_match = (
        _word_char_count(_normalize_series(head)) > _word_char_count(reference_norm)
    ).fill_null(False)
    candidates = (~cannot_match).arg_true()
    equal = _normalize_series(response.gather(candidates)) == reference_norm.gather(candidates)
    result = pl.repeat(False, pair.len(), dtype=pl.Boolean, eager=True)
    return result.scatter(candidates, equal) if len(candidates) else result


def _is_match(mode: str, response: pl.Expr, reference: pl.Expr) -> pl.Expr:
    if mode == "exact":
        return py_strip(response) == py_strip(reference)
    if mode == "normalized":
        return pl.struct(response=response, reference=reference).map_batches(
            _normalized_equal_batch, return_dtype=pl.Boolean, is_elementwise=True
        )
    return contains_literal(datarobot_normalize(response), datarobot_normalize(reference))


def _pair(response: pl.Expr, reference: pl.Expr, mode: str | pl.Expr) -> _Pair:
    """Score one response against one (string) reference, with a resolved mode."""
    inconclusive = reference.is_null() | py_is_blank(reference)
    if isinstance(mode, str):
        matched = _is_match(mode, response, reference)
        mode_expr = pl.lit(mode, dtype=pl.String)
    else:
        # Each mode sees only its own rows (the others hold ""), so a row is normalised once.
        def rows_of(value: str, expr: pl.Expr) -> pl.Expr:
            return pl.when(mode == value).then(expr).otherwise(pl.lit(""))

        matched = (
            pl.when(mode == "exact")
            .then(_is_match("exact", rows_of("exact", response), rows_of("exact", reference)))
            .when(mode == "contains")
            .then(
                _is_match("contains", rows_of("contains", response), rows_of("contains", reference))
            )
            .otherwise(
                _is_match(
                    "normalized",
                    rows_of("normalized", response),
                    rows_of("normalized", reference),
                )
            )
        )
        mode_expr = mode
    score = (
        pl.when(inconclusive)
        .then(pl.lit(None, dtype=pl.Float64))
        .otherwise(matched.cast(pl.Float64))
    )
    reason = (
        pl.when(inconclusive)
        .then(pl.lit(INCONCLUSIVE_REASON))
        .otherwise(
            pl.concat_str(
                pl.when(matched).then(pl.lit("")).otherwise(pl.lit("no ")),
                mode_expr,
                pl.lit(" match"),
            )
        )
    )
    return _Pair(score=score, reason=reason, mode=mode_expr)


class _Pair(NamedTuple):
    score: pl.Expr
    reason: pl.Expr
    mode: pl.Expr


_ITEM_DTYPE = pl.Struct({"score": pl.Float64, "reason": pl.String, "match_mode": pl.String})


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
    resp = parse_text_expr(response, function=function, parameter="response").fill_null("")
    ref = parse_into_expr(reference, function=function, parameter="reference")

    def on_string(reference: pl.Expr) -> pl.Expr:
        pair = _pair(resp, reference, mode)
        if not details:
            return pair.score
        index = pl.when(pair.score.is_null()).then(None).otherwise(pl.lit(0, dtype=INDEX_DTYPE))
        return pl.struct(
            pair.score.alias("score"),
            pair.reason.alias("reason"),
            pair.mode.alias("match_mode"),
            index.alias("reference_index"),
        )

    def on_list(references: pl.Expr) -> pl.Expr:
        # A per-row mode is repeated along each row's references; a literal one is built in.
        row_options = {} if isinstance(mode, str) else {"mode": mode}

        def pair_score(
            response: pl.Expr, reference: pl.Expr, mode: pl.Expr | None = None
        ) -> pl.Expr:
            pair = _pair(response, reference, literal_mode if mode is None else mode)
            if not details:
                return pair.score
            return pl.struct(
                pair.score.alias("score"),
                pair.reason.alias("reason"),
                pair.mode.alias("match_mode"),
            )

        literal_mode = mode if isinstance(mode, str) else "normalized"
        item_dtype = _ITEM_DTYPE if details else pl.Float64()
        best = best_over_references(
            resp, references, pair_score, item_dtype=item_dtype, row_options=row_options
        )
        if not details:
            return best.struct.field("score")
        # No usable reference: the reference's inconclusive reason, and the row's mode.
        mode_expr = pl.lit(mode, dtype=pl.String) if isinstance(mode, str) else mode
        return best.struct.with_fields(
            pl.field("reason").fill_null(pl.lit(INCONCLUSIVE_REASON)),
            pl.field("match_mode").fill_null(mode_expr),
        )

    return dispatch_reference(
        ref,
        on_string=on_string,
        on_list=on_list,
        function=function,
        parameter="reference",
        also_reads=[resp] if isinstance(mode, str) else [resp, mode],
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
