"""The typed ``.score`` expression namespace.

``pl.col("response").score.answer_correctness("reference")`` is the same as
``polarscore.answer_correctness(pl.col("response"), "reference")``. Each method is spelled out (no
``__getattr__`` forwarding) so IDEs and type checkers see it, and only delegates; a test keeps the
signatures equal to the functions'.
"""

from __future__ import annotations

import polars as pl

from polarscore._typing import IntoExpr, IntoMatchMode
from polarscore.scores.correctness import answer_correctness, answer_correctness_details
from polarscore.scores.match import (
    DEFAULT_MIN_TOKEN_RECALL,
    DEFAULT_STEM_PREFIX,
    answer_match,
    answer_match_details,
)


@pl.api.register_expr_namespace("score")
class ScoreNamespace:
    """Scorers as methods of a response expression: ``pl.col("response").score.<scorer>(...)``."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def answer_correctness(
        self, reference: IntoExpr, *, match_mode: IntoMatchMode = "normalized"
    ) -> pl.Expr:
        """See :func:`polarscore.answer_correctness`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["Paris."], "reference": ["paris"]})
        >>> df.select(pl.col("response").score.answer_correctness("reference")).item()
        1.0
        """
        return answer_correctness(self._expr, reference, match_mode=match_mode)

    def answer_correctness_details(
        self, reference: IntoExpr, *, match_mode: IntoMatchMode = "normalized"
    ) -> pl.Expr:
        """See :func:`polarscore.answer_correctness_details`."""
        return answer_correctness_details(self._expr, reference, match_mode=match_mode)

    def answer_match(
        self,
        references: IntoExpr,
        *,
        question: IntoExpr | None = None,
        exact: bool = True,
        contains: bool = True,
        token_recall: bool = True,
        min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
        stem_prefix: int | None = DEFAULT_STEM_PREFIX,
        numbers_must_match: bool = True,
        fold_accents: bool = True,
        number_words: bool = True,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_match`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["It is Paris."], "references": [["Lutetia", "Paris"]]})
        >>> df.select(pl.col("response").score.answer_match("references")).item()
        1.0
        """
        return answer_match(
            self._expr,
            references,
            question=question,
            exact=exact,
            contains=contains,
            token_recall=token_recall,
            min_token_recall=min_token_recall,
            stem_prefix=stem_prefix,
            numbers_must_match=numbers_must_match,
            fold_accents=fold_accents,
            number_words=number_words,
        )

    def answer_match_details(
        self,
        references: IntoExpr,
        *,
        question: IntoExpr | None = None,
        exact: bool = True,
        contains: bool = True,
        token_recall: bool = True,
        min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
        stem_prefix: int | None = DEFAULT_STEM_PREFIX,
        numbers_must_match: bool = True,
        fold_accents: bool = True,
        number_words: bool = True,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_match_details`."""
        return answer_match_details(
            self._expr,
            references,
            question=question,
            exact=exact,
            contains=contains,
            token_recall=token_recall,
            min_token_recall=min_token_recall,
            stem_prefix=stem_prefix,
            numbers_must_match=numbers_must_match,
            fold_accents=fold_accents,
            number_words=number_words,
        )


__all__ = ["ScoreNamespace"]
