r"""Response similarity: graded lexical closeness to the best of several acceptable answers.

Reproduces the lexical metrics of DataRobot's ``datarobot-genai`` 0.31.0 response-similarity
benchmark (``eval/benchmarks/response_similarity.py``) row for row: ``token_recall``,
``token_f1`` and ``rouge_l`` over lower-cased Python ``\w+`` words minus a short stopword list,
the best score over the acceptable answers, and the reference's reason text.

Tokenising is Polars (a regex with Python's character classes), the counting is NumPy over the
whole batch, and ROUGE-L's longest common subsequence is one RapidFuzz ``cpdist`` call over token
sequences (:mod:`polarscore.kernels.token_sequences`). Everything runs inside one elementwise
``map_batches`` with a declared dtype, so it streams and works on Arrow batches of any size.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from polarscore._multi_reference import (
    INDEX_DTYPE,
    FlatLists,
    as_reference_list,
    best_per_row,
    flatten,
    position_series,
)
from polarscore._typing import IntoExpr, SimilarityMetric
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore._validation import check_choice
from polarscore.kernels.token_sequences import lcs_lengths, multiset_overlap
from polarscore.normalize import PY_WHITESPACE, PY_WORD_CLASS
from polarscore.scores._lexical import FloatArray, IntArray, Tokens, encode, f_measure

#: The lexical metrics, in the reference's spelling.
METRICS: tuple[str, ...] = ("token_recall", "token_f1", "rouge_l")

#: The reference's 36 stopwords (dropped unless a text has nothing else).
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "but",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "with",
        "as",
        "by",
        "from",
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
    ]
)

#: The reason the reference gives when a row has no usable acceptable answer.
INCONCLUSIVE_REASON = "no acceptable_responses provided: cannot score"

#: The reference's one-line meaning of each metric, quoted in every reason.
EXPLANATIONS: dict[str, str] = {
    "token_recall": "share of the example's words found in the response",
    "token_f1": "word overlap, penalizing words the example doesn't have",
    "rouge_l": "longest run of words shared in the same order",
}

_WARNING = " (WARNING: at least as close as any acceptable example)"
_TRUNCATE_AT = 80
_WORD = rf"[{PY_WORD_CLASS}]+"

DETAILS_DTYPE = pl.Struct(
    {
        "score": pl.Float64,
        "acceptable_index": INDEX_DTYPE,
        "reason": pl.String,
        "unacceptable_score": pl.Float64,
        "unacceptable_index": INDEX_DTYPE,
        "is_closer_to_unacceptable": pl.Boolean,
    }
)


def _tokenize(texts: pl.Series, n_left: int, right_rows: IntArray) -> Tokens:
    r"""``re.findall(r"\w+", text.lower())`` minus stopwords unless none is left, as ids."""
    words = texts.str.to_lowercase().str.extract_all(_WORD)
    lengths = words.list.len().fill_null(0).to_numpy().astype(np.int64)
    text_of_word = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    is_stop = words.explode(empty_as_null=False, keep_nulls=False).is_in(list(STOPWORDS))
    stop = is_stop.to_numpy()
    content = np.bincount(text_of_word[~stop], minlength=lengths.size)
    keep = ~stop | (content[text_of_word] == 0)
    return encode(words, n_left=n_left, right_rows=right_rows, keep=keep)


def _item_scores(
    metric: str, tokens: Tokens, n_rows: int, first: int, flat: FlatLists
) -> FloatArray:
    """Score every item of ``flat`` (texts ``first:first + len``) against its row's response."""
    left_ids, left_offsets = tokens.part(0, n_rows)
    right_ids, right_offsets = tokens.part(first, first + flat.row.size)
    n_reference = tokens.lengths[first : first + flat.row.size]
    n_response = tokens.lengths[:n_rows][flat.row]
    if metric == "rouge_l":
        matched = lcs_lengths(left_ids, left_offsets, right_ids, right_offsets, flat.row)
        return f_measure(matched, n_response, n_reference)
    matched = multiset_overlap(left_ids, left_offsets, right_ids, right_offsets, flat.row)
    if metric == "token_f1":
        return f_measure(matched, n_response, n_reference)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_reference == 0, 0.0, matched / n_reference)


def _usable(flat: FlatLists) -> tuple[pl.Series, npt.NDArray[np.bool_]]:
    """Apply the reference's ``[str(v) for v in items if str(v).strip()]``: values and mask."""
    values = flat.values.fill_null("None")
    usable = (values.str.strip_chars(PY_WHITESPACE).str.len_bytes() > 0).to_numpy()
    return values, usable


def _format_2f(values: FloatArray) -> pl.Series:
    """``f"{v:.2f}"`` for each value (NaN gives null), formatting each distinct value once."""
    finite = ~np.isnan(values)
    distinct, inverse = np.unique(values[finite], return_inverse=True)
    formatted = pl.Series([f"{v:.2f}" for v in distinct.tolist()], dtype=pl.String)
    if formatted.len() == 0:
        return pl.repeat(None, values.size, dtype=pl.String, eager=True)
    index = np.zeros(values.size, dtype=np.int64)
    index[finite] = inverse.reshape(-1)
    return formatted.gather(index).scatter(np.flatnonzero(~finite), None)


def _quoted(texts: pl.Series) -> pl.Series:
    """``'<text>'`` with the reference's truncation to 80 characters."""
    frame = texts.to_frame("t").select(
        pl.concat_str(
            pl.lit("'"),
            pl.when(pl.col("t").str.len_chars() <= _TRUNCATE_AT)
            .then(pl.col("t"))
            .otherwise(pl.col("t").str.slice(0, _TRUNCATE_AT - 3) + "..."),
            pl.lit("'"),
        )
    )
    return frame.to_series()


def _pick(values: pl.Series, index: IntArray) -> pl.Series:
    """``values[index]`` with null where the index is -1."""
    chosen = pl.Series(np.maximum(index, 0)).scatter(np.flatnonzero(index < 0), None)
    if values.len() == 0:
        return pl.repeat(None, index.size, dtype=values.dtype, eager=True)
    return values.gather(chosen)


def _similarity_batch(
    batch: pl.Series, *, metric: str, details: bool, with_unacceptable: bool
) -> pl.Series:
    columns = batch.struct.unnest()
    responses = columns["response"].fill_null("")
    n_rows = responses.len()
    acceptable = flatten(columns["acceptable"])
    acc_values, acc_usable = _usable(acceptable)
    texts, rows = [responses, acc_values], [acceptable.row]
    if with_unacceptable:
        unacceptable = flatten(columns["unacceptable"])
        unacc_values, unacc_usable = _usable(unacceptable)
        texts.append(unacc_values)
        rows.append(unacceptable.row)
    tokens = _tokenize(pl.concat(texts), n_rows, np.concatenate(rows))

    acc_scores = _item_scores(metric, tokens, n_rows, n_rows, acceptable)
    best, best_item = best_per_row(np.where(acc_usable, acc_scores, np.nan), acceptable)
    score = pl.Series("score", best, dtype=pl.Float64, nan_to_null=True)
    if not details:
        return score

    parts: dict[str, pl.Series | npt.NDArray[np.int64] | npt.NDArray[np.str_]] = {
        "value": _format_2f(best),
        "count": np.bincount(acceptable.row[acc_usable], minlength=n_rows),
        "closest": _quoted(_pick(acc_values, best_item)),
    }
    worst = np.full(n_rows, np.nan)
    unacceptable_index = pl.repeat(None, n_rows, dtype=INDEX_DTYPE, eager=True)
    if with_unacceptable:
        first = n_rows + acceptable.row.size
        unacc_scores = _item_scores(metric, tokens, n_rows, first, unacceptable)
        worst, worst_item = best_per_row(np.where(unacc_usable, unacc_scores, np.nan), unacceptable)
        # The reference only looks at unacceptable answers on rows it can score.
        worst_item = np.where(np.isnan(best), -1, worst_item)
        worst = np.where(np.isnan(best), np.nan, worst)
        parts["worst_value"] = _format_2f(worst)
        parts["worst_closest"] = _quoted(_pick(unacc_values, worst_item))
        parts["warning"] = np.where(worst >= best, _WARNING, "")
        unacceptable_index = position_series(worst_item, unacceptable, "unacceptable_index")
    reason = pl.DataFrame(parts).select(
        pl.concat_str(
            pl.lit(f"{metric} "),
            "value",
            pl.lit(f" ({EXPLANATIONS[metric]}); closest of "),
            "count",
            pl.lit(" acceptable: "),
            "closest",
            *(
                [
                    pl.concat_str(
                        pl.lit("; closest unacceptable "),
                        "worst_value",
                        pl.lit(": "),
                        "worst_closest",
                        "warning",
                    ).fill_null("")
                ]
                if with_unacceptable
                else []
            ),
        ).fill_null(INCONCLUSIVE_REASON)
    )
    has_worst = ~np.isnan(worst)
    is_closer = pl.Series("is_closer_to_unacceptable", worst >= best).scatter(
        np.flatnonzero(~has_worst), None
    )
    return pl.struct(
        score,
        position_series(best_item, acceptable, "acceptable_index"),
        reason.to_series().alias("reason"),
        pl.Series("unacceptable_score", worst, dtype=pl.Float64, nan_to_null=True),
        unacceptable_index.alias("unacceptable_index"),
        is_closer,
        eager=True,
    ).cast(DETAILS_DTYPE)


def _similarity_expr(
    response: IntoExpr,
    acceptable: IntoExpr,
    metric: str,
    unacceptable: IntoExpr | None,
    *,
    function: str,
    details: bool,
) -> pl.Expr:
    check_choice(metric, function=function, parameter="metric", allowed=METRICS)
    check_same_length(function, response=response, acceptable=acceptable)
    inputs = [
        parse_text_expr(response, function=function, parameter="response").alias("response"),
        as_reference_list(
            parse_into_expr(acceptable, function=function, parameter="acceptable"),
            function=function,
            parameter="acceptable",
        ).alias("acceptable"),
    ]
    with_unacceptable = details and unacceptable is not None
    if unacceptable is not None:
        unacceptable_expr = parse_into_expr(
            unacceptable, function=function, parameter="unacceptable"
        )
        if with_unacceptable:
            inputs.append(
                as_reference_list(
                    unacceptable_expr, function=function, parameter="unacceptable"
                ).alias("unacceptable")
            )

    def kernel(batch: pl.Series) -> pl.Series:
        return _similarity_batch(
            batch, metric=metric, details=details, with_unacceptable=with_unacceptable
        )

    return pl.struct(inputs).map_batches(
        kernel, return_dtype=DETAILS_DTYPE if details else pl.Float64, is_elementwise=True
    )


def response_similarity(
    response: IntoExpr,
    acceptable: IntoExpr,
    *,
    metric: SimilarityMetric = "token_recall",
    unacceptable: IntoExpr | None = None,
) -> pl.Expr:
    r"""Score how close a response is to the closest acceptable answer, by shared words.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series. A null response
        is scored as the empty string (it has no words, so it scores 0.0).
    acceptable
        The acceptable (example) answers: a ``List(String)`` column, or a ``String`` column for
        one answer per row.
    metric
        ``"token_recall"`` (default): the share of the answer's words found in the response;
        ``"token_f1"``: word-overlap F1; ``"rouge_l"``: ROUGE-L F-measure, from the longest
        common subsequence of words.
    unacceptable
        Example *wrong* answers. They never change the score (as in the reference); see
        :func:`response_similarity_details` for the flag they raise.

    Returns
    -------
    pl.Expr
        ``Float64`` in [0, 1] named ``response_similarity``: the best score over the row's
        acceptable answers; null (inconclusive) when none is usable. Unrounded: the reference
        reports ``round(score, 4)``.

    Notes
    -----
    Reproduces the lexical metrics of ``datarobot-genai`` 0.31.0
    ``response_similarity.evaluate_response`` exactly:

    * **Acceptable answers**: a null list or string means none. Items that are blank by Python's
      ``str.strip`` (which includes U+001C..U+001F) are dropped; a null item becomes the text
      ``"None"`` and is scored, as ``str(None)`` is in the reference.
    * **Words**: ``re.findall(r"\w+", text.lower())`` with Python's ``\w`` (letters, numbers
      including ``²`` and ``①``, and ``_``; not combining marks) and no Unicode normalisation,
      minus 36 stopwords (a, an, the, is, are, was, were, be, been, being, am, of, to, in, on,
      at, for, and, or, but, it, its, this, that, these, those, with, as, by, from, i, you, we,
      they, he, she), unless that leaves no word, in which case all are kept.
    * **token_recall** = multiset overlap / answer words (0.0 if the answer has none);
      **token_f1** and **rouge_l** = 2PR / (P + R) with the multiset overlap or the LCS length,
      0.0 when it is 0.

    See Also
    --------
    response_similarity_details : the same score with the best answer's index and the reason.
    squad_f1 : SQuAD's token F1, with its own normalisation.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["The capital is Paris", "Lyon", "yes", "Paris"],
    ...         "acceptable": [["Paris", "Paris, France"], ["Paris"], ["yes yes"], [" "]],
    ...     }
    ... )
    >>> df.with_columns(
    ...     recall=ps.response_similarity("response", "acceptable"),
    ...     f1=ps.response_similarity("response", "acceptable", metric="token_f1"),
    ... )
    shape: (4, 4)
    ┌──────────────────────┬────────────────────────────┬────────┬──────────┐
    │ response             ┆ acceptable                 ┆ recall ┆ f1       │
    │ ---                  ┆ ---                        ┆ ---    ┆ ---      │
    │ str                  ┆ list[str]                  ┆ f64    ┆ f64      │
    ╞══════════════════════╪════════════════════════════╪════════╪══════════╡
    │ The capital is Paris ┆ ["Paris", "Paris, France"] ┆ 1.0    ┆ 0.666667 │
    │ Lyon                 ┆ ["Paris"]                  ┆ 0.0    ┆ 0.0      │
    │ yes                  ┆ ["yes yes"]                ┆ 0.5    ┆ 0.666667 │
    │ Paris                ┆ [" "]                      ┆ null   ┆ null     │
    └──────────────────────┴────────────────────────────┴────────┴──────────┘
    """
    function = "response_similarity"
    expr = _similarity_expr(
        response, acceptable, metric, unacceptable, function=function, details=False
    )
    return expr.alias(function)


def response_similarity_details(
    response: IntoExpr,
    acceptable: IntoExpr,
    *,
    metric: SimilarityMetric = "token_recall",
    unacceptable: IntoExpr | None = None,
) -> pl.Expr:
    """Score response similarity and explain each row, with the reference's reason text.

    Parameters
    ----------
    response, acceptable, metric
        As for :func:`response_similarity`.
    unacceptable
        Example wrong answers (``List(String)``, or ``String`` for one per row), read like
        ``acceptable``. The reference reports the closest one and warns when the response is at
        least as close to it as to the best acceptable answer.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``response_similarity_details`` with the fields

        * ``score`` (``Float64``): exactly :func:`response_similarity`;
        * ``acceptable_index`` (``UInt32``): the position, in the row's list, of the first
          acceptable answer with the best score; null when inconclusive;
        * ``reason`` (``String``): the reference's text, e.g.
          ``"token_recall 1.00 (share of the example's words found in the response); closest
          of 2 acceptable: 'Paris'"``, or ``"no acceptable_responses provided: cannot score"``;
        * ``unacceptable_score`` (``Float64``) and ``unacceptable_index`` (``UInt32``): the same
          for the closest unacceptable answer; null without one (or when inconclusive);
        * ``is_closer_to_unacceptable`` (``Boolean``): ``unacceptable_score >= score``, the
          reference's warning; null without an unacceptable answer.

    See Also
    --------
    response_similarity : the score alone (cheaper: no reason strings are built).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["It is Lyon", "Paris"],
    ...         "acceptable": [["Paris", "Paris, France"], ["paris"]],
    ...         "wrong": [["Lyon"], []],
    ...     }
    ... )
    >>> out = df.select(
    ...     ps.response_similarity_details("response", "acceptable", unacceptable="wrong")
    ... ).unnest("response_similarity_details")
    >>> out.drop("reason")
    shape: (2, 5)
    ┌───────┬──────────────────┬────────────────────┬────────────────────┬───────────────────────────┐
    │ score ┆ acceptable_index ┆ unacceptable_score ┆ unacceptable_index ┆ is_closer_to_unacceptable │
    │ ---   ┆ ---              ┆ ---                ┆ ---                ┆ ---                       │
    │ f64   ┆ u32              ┆ f64                ┆ u32                ┆ bool                      │
    ╞═══════╪══════════════════╪════════════════════╪════════════════════╪═══════════════════════════╡
    │ 0.0   ┆ 0                ┆ 1.0                ┆ 0                  ┆ true                      │
    │ 1.0   ┆ 0                ┆ null               ┆ null               ┆ null                      │
    └───────┴──────────────────┴────────────────────┴────────────────────┴───────────────────────────┘
    >>> print(out["reason"][0])
    token_recall 0.00 (share of the example's words found in the response); closest of 2 acceptable: 'Paris'; closest unacceptable 1.00: 'Lyon' (WARNING: at least as close as any acceptable example)
    """  # noqa: E501
    function = "response_similarity_details"
    expr = _similarity_expr(
        response, acceptable, metric, unacceptable, function=function, details=True
    )
    return expr.alias(function)


__all__ = [
    "DETAILS_DTYPE",
    "EXPLANATIONS",
    "INCONCLUSIVE_REASON",
    "METRICS",
    "STOPWORDS",
    "response_similarity",
    "response_similarity_details",
]
