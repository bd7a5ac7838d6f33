"""Type aliases shared by the public API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

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

#: The modes of :func:`polarscore.contains`.
ContainsMode: TypeAlias = Literal["any", "all", "none"]

#: The units of :func:`polarscore.length_check`.
LengthUnit: TypeAlias = Literal["chars", "words"]

#: The formats of :func:`polarscore.format_check`.
FormatType: TypeAlias = Literal["email", "url", "phone", "date"]

#: The character similarities of :func:`polarscore.answer_precision`.
CharSimilarity: TypeAlias = Literal["indel", "sequence_matcher"]

#: What :func:`polarscore.answer_precision` gives a row without a usable reference.
MissingExpected: TypeAlias = Literal["null", "zero"]

#: The letter-extraction rule sets of :func:`polarscore.extract_choice`.
ChoiceRules: TypeAlias = Literal["mmlu_pro", "answer_is", "final"]

#: The number-extraction methods of :func:`polarscore.extract_number`.
NumberMethod: TypeAlias = Literal["strict", "flexible", "answer_line", "final"]

#: Which reference columns a registered scorer takes (:class:`polarscore.ScorerSpec`).
ReferenceKind: TypeAlias = Literal["string", "list", "string_or_list", "none"]

#: How scorers are chosen: one name, a sequence of names or ``(name, options)`` pairs, or a
#: mapping from name to options (``None`` meaning the defaults).
IntoScorers: TypeAlias = (
    str | Sequence[str | tuple[str, Mapping[str, Any]]] | Mapping[str, Mapping[str, Any] | None]
)

#: The scorer selection of the Arrow and Spark adapters: the same as :data:`IntoScorers`.
ScorerSelection: TypeAlias = IntoScorers

#: One threshold for every scorer, or one per scorer name.
IntoThresholds: TypeAlias = float | Mapping[str, float]

#: What to do when a batch cannot be scored: raise, or write null scores for that batch.
OnError: TypeAlias = Literal["raise", "null"]

#: The input file formats of the command line.
InputFormat: TypeAlias = Literal["parquet", "ndjson", "csv"]

#: The output file formats of the command line.
OutputFormat: TypeAlias = Literal["parquet", "csv"]

__all__ = [
    "CharSimilarity",
    "ChoiceRules",
    "ContainsMode",
    "FormatType",
    "FrameT",
    "InputFormat",
    "IntoExpr",
    "IntoMatchMode",
    "IntoNumber",
    "IntoScorers",
    "IntoThresholds",
    "LengthUnit",
    "MatchMode",
    "MissingExpected",
    "NumberMethod",
    "OnError",
    "OutputFormat",
    "ReferenceKind",
    "ScorerSelection",
    "SimilarityMetric",
]
