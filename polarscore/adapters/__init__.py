"""Adapters that run polarscore inside other engines.

:mod:`polarscore.adapters.arrow` is the engine-neutral core (a stream of Arrow record batches in,
scored batches out); :mod:`polarscore.adapters.spark` builds on it for Apache Spark.
"""

from __future__ import annotations

from polarscore.adapters.arrow import (
    ON_ERROR_CHOICES,
    ArrowScorer,
    OnError,
    ScoreColumn,
    ScorerSelection,
    score_arrow_batches,
    scored_schema,
)

__all__ = [
    "ON_ERROR_CHOICES",
    "ArrowScorer",
    "OnError",
    "ScoreColumn",
    "ScorerSelection",
    "score_arrow_batches",
    "scored_schema",
]
