r"""SQuAD exact match and F1: the official SQuAD v1.1 evaluation script's definitions.

``normalize_answer`` lower-cases, deletes the 32 ASCII punctuation characters
(``string.punctuation``), replaces the articles ``a``, ``an``, ``the`` (whole words, by Python's
``\b``) with a space, and collapses whitespace (Python's ``str.split``, which includes
U+001C..U+001F). Exact match compares the normalised strings; F1 is the multiset token F1 of the
normalised words; both take the maximum over the ground truths.

Normalising is pure Polars; F1's overlap counts are NumPy over the whole batch
(:mod:`polarscore.kernels.token_sequences`).
"""

from __future__ import annotations

import string

import numpy as np
import polars as pl

from polarscore._multi_reference import (
    as_reference_list,
    best_per_row,
    dispatch_reference,
    flatten,
)
from polarscore._typing import IntoExpr
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore.kernels.token_sequences import multiset_overlap
from polarscore.normalize import PY_WORD_CLASS, py_collapse_whitespace, py_is_blank, py_strip
from polarscore.scores._lexical import encode, f_measure

_PUNCTUATION = "[" + "".join(f"\\x{ord(c):02X}" for c in string.punctuation) + "]"
# Python's \b(a|an|the)\b, with the boundary characters consumed and put back. A match consumes
# the separator after an article, so a second pass catches an article that started right there
# ("a a a"); after the first pass such articles are always two separators apart.
_ARTICLE = rf"(^|[^{PY_WORD_CLASS}])(?:a|an|the)([^{PY_WORD_CLASS}]|$)"
_ARTICLE_REPLACEMENT = "${1} ${2}"


def squad_normalize(text: pl.Expr) -> pl.Expr:
    r"""Normalise answers as the official SQuAD v1.1 script's ``normalize_answer`` does.

    Parameters
    ----------
    text
        A ``String`` expression.

    Returns
    -------
    pl.Expr
        The normalised text: lower-cased, ASCII punctuation deleted, articles removed, words
        separated by single spaces.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.scores.squad import squad_normalize
    >>> df = pl.DataFrame({"text": ["The Eiffel-Tower!", "a an\x1cthe  A.B.", "l'année"]})
    >>> df.select(squad_normalize(pl.col("text")))
    shape: (3, 1)
    ┌─────────────┐
    │ text        │
    │ ---         │
    │ str         │
    ╞═════════════╡
    │ eiffeltower │
    │ ab          │
    │ lannée      │
    └─────────────┘
    """
    lowered = text.str.to_lowercase().str.replace_all(_PUNCTUATION, "")
    without_articles = lowered.str.replace_all(_ARTICLE, _ARTICLE_REPLACEMENT).str.replace_all(
        _ARTICLE, _ARTICLE_REPLACEMENT
    )
    return py_strip(py_collapse_whitespace(without_articles))


def _usable_normalized(reference: pl.Expr) -> pl.Expr:
    """Normalise a reference, or give null where it is null or blank (unusable)."""
    return pl.when(py_is_blank(reference)).then(None).otherwise(squad_normalize(reference))


def _em_pair(response: pl.Expr, reference: pl.Expr) -> pl.Expr:
    return (squad_normalize(response) == _usable_normalized(reference)).cast(pl.Float64)


def _em_list(response: pl.Expr, references: pl.Expr) -> pl.Expr:
    """Exact match against any usable reference: the response is normalised once per row."""
    normalized = references.list.eval(_usable_normalized(pl.element()))
    usable = normalized.list.drop_nulls().list.len() > 0
    matched = normalized.list.contains(squad_normalize(response), nulls_equal=False)
    return pl.when(usable).then(matched.cast(pl.Float64)).otherwise(None)


def squad_exact_match(response: IntoExpr, reference: IntoExpr) -> pl.Expr:
    """Score SQuAD exact match: 1.0 when the normalised response equals a normalised reference.

    Parameters
    ----------
    response
        The model's answers (a column name, a ``String`` expression or a Series). A null
        response is scored as the empty string.
    reference
        The ground truths: a ``String`` column (one per row) or a ``List(String)`` column (all
        the accepted answers of a question).

    Returns
    -------
    pl.Expr
        ``Float64`` named ``squad_exact_match``: the maximum over the ground truths of the
        official exact match, 1.0 or 0.0; null (inconclusive) when no ground truth is usable.

    Notes
    -----
    The official SQuAD v1.1 ``exact_match_score`` with ``metric_max_over_ground_truths``, on
    :func:`squad_normalize`'d text. One addition: ground truths that are null, empty or only
    whitespace are not used (the official data has none), so a row without any is null rather
    than a comparison with an empty answer.

    See Also
    --------
    squad_f1 : the official token F1.
    answer_correctness : DataRobot's exact / normalized / contains match.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["The Beatles!", "beatles", "Rolling Stones", "x"],
    ...         "answers": [["Beatles"], ["The Beatles", "Fab Four"], ["Beatles"], []],
    ...     }
    ... )
    >>> df.with_columns(ps.squad_exact_match("response", "answers"))
    shape: (4, 3)
    ┌────────────────┬─────────────────────────────┬───────────────────┐
    │ response       ┆ answers                     ┆ squad_exact_match │
    │ ---            ┆ ---                         ┆ ---               │
    │ str            ┆ list[str]                   ┆ f64               │
    ╞════════════════╪═════════════════════════════╪═══════════════════╡
    │ The Beatles!   ┆ ["Beatles"]                 ┆ 1.0               │
    │ beatles        ┆ ["The Beatles", "Fab Four"] ┆ 1.0               │
    │ Rolling Stones ┆ ["Beatles"]                 ┆ 0.0               │
    │ x              ┆ []                          ┆ null              │
    └────────────────┴─────────────────────────────┴───────────────────┘
    """
    function = "squad_exact_match"
    check_same_length(function, response=response, reference=reference)
    resp = parse_text_expr(response, function=function, parameter="response").fill_null("")
    ref = parse_into_expr(reference, function=function, parameter="reference")
    score = dispatch_reference(
        ref,
        on_string=lambda reference: _em_pair(resp, reference),
        on_list=lambda references: _em_list(resp, references),
        function=function,
        parameter="reference",
        also_reads=[resp],
    )
    return score.alias(function)


def _f1_batch(batch: pl.Series) -> pl.Series:
    columns = batch.struct.unnest()
    responses = columns["response"]
    flat = flatten(columns["references"])
    n_rows = responses.len()
    words = pl.concat([responses, flat.values.fill_null("")]).str.extract_all("[^ ]+")
    tokens = encode(words, n_left=n_rows, right_rows=flat.row)
    left_ids, left_offsets = tokens.part(0, n_rows)
    right_ids, right_offsets = tokens.part(n_rows, n_rows + flat.row.size)
    same = multiset_overlap(left_ids, left_offsets, right_ids, right_offsets, flat.row)
    n_reference = tokens.lengths[n_rows:]
    scores = f_measure(same, tokens.lengths[:n_rows][flat.row], n_reference)
    usable = flat.values.is_not_null().to_numpy()
    best, _ = best_per_row(np.where(usable, scores, np.nan), flat)
    return pl.Series(best, dtype=pl.Float64, nan_to_null=True)


def squad_f1(response: IntoExpr, reference: IntoExpr) -> pl.Expr:
    """Score SQuAD F1: the best token-overlap F1 between the response and a reference.

    Parameters
    ----------
    response, reference
        As for :func:`squad_exact_match`.

    Returns
    -------
    pl.Expr
        ``Float64`` in [0, 1] named ``squad_f1``: the maximum over the ground truths of the
        official F1; null (inconclusive) when no ground truth is usable.

    Notes
    -----
    The official SQuAD v1.1 ``f1_score`` with ``metric_max_over_ground_truths``: the words are
    the :func:`squad_normalize`'d text split on whitespace, precision and recall count common
    words with multiplicity (``Counter`` intersection), and F1 is 0 when no word is shared (so
    also when either side normalises to nothing, e.g. ``"the"``). Ground truths that are null or
    blank are not used, as in :func:`squad_exact_match`.

    See Also
    --------
    squad_exact_match : the official exact match.
    response_similarity : DataRobot's token F1, with its own words and stopwords.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["the Beatles band", "Rolling Stones", None],
    ...         "answer": ["The Beatles", "Beatles", "Beatles"],
    ...     }
    ... )
    >>> df.with_columns(ps.squad_f1("response", "answer"))
    shape: (3, 3)
    ┌──────────────────┬─────────────┬──────────┐
    │ response         ┆ answer      ┆ squad_f1 │
    │ ---              ┆ ---         ┆ ---      │
    │ str              ┆ str         ┆ f64      │
    ╞══════════════════╪═════════════╪══════════╡
    │ the Beatles band ┆ The Beatles ┆ 0.666667 │
    │ Rolling Stones   ┆ Beatles     ┆ 0.0      │
    │ null             ┆ Beatles     ┆ 0.0      │
    └──────────────────┴─────────────┴──────────┘
    """
    function = "squad_f1"
    check_same_length(function, response=response, reference=reference)
    resp = parse_text_expr(response, function=function, parameter="response").fill_null("")
    refs = as_reference_list(
        parse_into_expr(reference, function=function, parameter="reference"), function=function
    )
    inputs = pl.struct(
        squad_normalize(resp).alias("response"),
        refs.list.eval(_usable_normalized(pl.element())).alias("references"),
    )
    return inputs.map_batches(_f1_batch, return_dtype=pl.Float64, is_elementwise=True).alias(
        function
    )


__all__ = ["squad_exact_match", "squad_f1", "squad_normalize"]
