r"""Response similarity: graded lexical closeness to the best of several acceptable answers.

Reproduces the lexical metrics of DataRobot's ``datarobot-genai`` 0.31.0 response-similarity
benchmark (``eval/benchmarks/response_similarity.py``) row for row: ``token_recall``,
``token_f1`` and ``rouge_l`` over lower-cased Python ``\w+`` words minus a short stopword list,
the best score over the acceptable answers, and the reference's reason text.

The per-row work is one native kernel (``src/similarity.rs``, a Polars expression plugin): one
pass over each text tokenises it with Python's ``str.lower`` and ``\w``, the response's words
are interned once per row, and each acceptable answer is scored against them (multiset overlap,
or ROUGE-L's longest common subsequence by a bit-parallel algorithm over word ids). It is
elementwise, so it streams and works on Arrow batches of any size.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polarscore._defaults import DEFAULT_MAX_WORK
from polarscore._multi_reference import INDEX_DTYPE, dispatch_reference
from polarscore._typing import IntoExpr, SimilarityMetric
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore._validation import check_budget, check_choice
from polarscore.kernels._plugin import plugin_call
from polarscore.reasons import SIMILARITY_EXPLANATIONS as EXPLANATIONS
from polarscore.reasons import SIMILARITY_INCONCLUSIVE as INCONCLUSIVE_REASON
from polarscore.stopwords import SIMILARITY_STOPWORDS as STOPWORDS

#: The lexical metrics, in the reference's spelling.
METRICS: tuple[str, ...] = ("token_recall", "token_f1", "rouge_l")


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


def _answers(value: IntoExpr, *, function: str, parameter: str) -> pl.Expr:
    """Check an answers input: a ``String`` column (one per row) or ``List(String)``."""
    return dispatch_reference(
        parse_into_expr(value, function=function, parameter=parameter),
        build=lambda answers: answers,
        function=function,
        parameter=parameter,
    )


def fused_options(*, metric: str, max_work: int | None) -> dict[str, Any]:
    """Return the keyword arguments of :func:`response_similarity` in the fused call.

    The options are literals (no ``unacceptable``), checked as :func:`response_similarity`
    checks them.
    """
    function = "response_similarity"
    check_choice(metric, function=function, parameter="metric", allowed=METRICS)
    return {
        "metric": metric,
        "max_work": check_budget(max_work, function=function, parameter="max_work"),
    }


def _similarity_expr(
    response: IntoExpr,
    acceptable: IntoExpr,
    metric: str,
    unacceptable: IntoExpr | None,
    *,
    max_work: int | None,
    function: str,
    details: bool,
) -> pl.Expr:
    check_choice(metric, function=function, parameter="metric", allowed=METRICS)
    budget = check_budget(max_work, function=function, parameter="max_work")
    check_same_length(function, response=response, acceptable=acceptable)
    inputs = [
        parse_text_expr(response, function=function, parameter="response"),
        _answers(acceptable, function=function, parameter="acceptable"),
    ]
    if unacceptable is not None:
        unacceptable_expr = _answers(unacceptable, function=function, parameter="unacceptable")
        if details:
            inputs.append(unacceptable_expr)
    return plugin_call(function, *inputs, metric=metric, max_work=budget)


def response_similarity(
    response: IntoExpr,
    acceptable: IntoExpr,
    *,
    metric: SimilarityMetric = "token_recall",
    unacceptable: IntoExpr | None = None,
    max_work: int | None = DEFAULT_MAX_WORK,
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
    max_work
        ROUGE-L's length guard: the most work (one or two nanoseconds a unit on one core) a
        row's longest common subsequences may take, default 2,500,000,000. ROUGE-L is exact or
        not given: a row that would take more scores null, with the reason ``Texts too long:
        ...``. It costs about ``4 * n * m / 64`` units for ``n`` and ``m`` words that differ
        throughout, and far less for texts that differ little (Myers' algorithm). ``None``
        lifts the guard; the other metrics are linear and never meet it.

    Returns
    -------
    pl.Expr
        ``Float64`` in [0, 1] named ``response_similarity``: the best score over the row's
        acceptable answers; null (inconclusive) when none is usable, or (ROUGE-L) when the row
        is longer than ``max_work`` allows. Unrounded: the reference reports
        ``round(score, 4)``.

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
        response,
        acceptable,
        metric,
        unacceptable,
        max_work=max_work,
        function=function,
        details=False,
    )
    return expr.alias(function)


def response_similarity_details(
    response: IntoExpr,
    acceptable: IntoExpr,
    *,
    metric: SimilarityMetric = "token_recall",
    unacceptable: IntoExpr | None = None,
    max_work: int | None = DEFAULT_MAX_WORK,
) -> pl.Expr:
    """Score response similarity and explain each row, with the reference's reason text.

    Parameters
    ----------
    response, acceptable, metric, max_work
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
          of 2 acceptable: 'Paris'"``, or ``"no acceptable_responses provided: cannot score"``,
          or ``"Texts too long: ..."`` over ``max_work``;
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
        response,
        acceptable,
        metric,
        unacceptable,
        max_work=max_work,
        function=function,
        details=True,
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
