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


__all__ = ["ScoreNamespace"]
