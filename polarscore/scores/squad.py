r"""SQuAD exact match and F1: the official SQuAD v1.1 evaluation script's definitions.

``normalize_answer`` lower-cases, deletes the 32 ASCII punctuation characters
(``string.punctuation``), replaces the articles ``a``, ``an``, ``the`` (whole words, by Python's
``\b``) with a space, and collapses whitespace (Python's ``str.split``, which includes
U+001C..U+001F). Exact match compares the normalised strings; F1 is the multiset token F1 of the
normalised words; both take the maximum over the ground truths.

Normalising and scoring are one native kernel (``src/squad.rs``, a Polars expression plugin):
one pass over each text normalises it with Python's ``str.lower`` and ``\b``, and the F1's word
overlap counts each row's response words once. A ``List(String)`` of ground truths is handled
inside the kernel, per row.
"""

from __future__ import annotations

import polars as pl

from polarscore._multi_reference import dispatch_reference
from polarscore._typing import IntoExpr
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore.kernels._plugin import plugin_call


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
    return plugin_call("squad_normalize", text)


def _squad(function: str, response: IntoExpr, reference: IntoExpr) -> pl.Expr:
    """Score with the native kernel ``function``, for a string or a list reference column."""
    check_same_length(function, response=response, reference=reference)
    resp = parse_text_expr(response, function=function, parameter="response")
    ref = parse_into_expr(reference, function=function, parameter="reference")

    def score(references: pl.Expr) -> pl.Expr:
        return plugin_call(function, resp, references)

    return dispatch_reference(
        ref,
        build=score,
        function=function,
        parameter="reference",
    ).alias(function)


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
    return _squad("squad_exact_match", response, reference)


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
    return _squad("squad_f1", response, reference)


__all__ = ["squad_exact_match", "squad_f1", "squad_normalize"]
