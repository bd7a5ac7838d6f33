"""Type aliases shared by the public API."""

from __future__ import annotations

from typing import Literal, TypeAlias

import polars as pl

#: Anything a scorer accepts as a data argument: a column name, an expression or a Series.
IntoExpr: TypeAlias = str | pl.Expr | pl.Series

#: The match modes of :func:`polarscore.answer_correctness`.
MatchMode: TypeAlias = Literal["exact", "normalized", "contains"]

#: The lexical metrics of :func:`polarscore.response_similarity`.
SimilarityMetric: TypeAlias = Literal["token_recall", "token_f1", "rouge_l"]

#: A match mode given as a literal, or as an expression that yields one mode per row.
IntoMatchMode: TypeAlias = MatchMode | pl.Expr | pl.Series

#: Anything that can be a numeric option: a literal, or a per-row expression.
IntoNumber: TypeAlias = float | int | pl.Expr | pl.Series

#: Every frame type the frame-level helpers accept (and return unchanged in kind).
FrameT: TypeAlias = pl.DataFrame | pl.LazyFrame

__all__ = ["FrameT", "IntoExpr", "IntoMatchMode", "IntoNumber", "MatchMode", "SimilarityMetric"]
