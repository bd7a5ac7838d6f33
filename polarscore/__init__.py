"""polarscore: judge-free scoring of LLM answers against reference answers, as Polars expressions.

Every scorer is a function that returns a ``pl.Expr``, so it works in ``select`` and
``with_columns``, on ``DataFrame`` and ``LazyFrame``, and in the streaming engine. Importing the
package also registers the ``.score`` expression namespace.
"""

from __future__ import annotations

from polarscore import namespace as _namespace  # noqa: F401  (registers pl.Expr.score)
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    InvalidParameterError,
    PolarscoreError,
)
from polarscore.frame import score_frame
from polarscore.provenance import (
    PROVENANCE_KEY,
    read_provenance,
    recorded_thresholds,
    scoring_record,
)
from polarscore.registry import ScorerSpec, available_scorers, get_scorer
from polarscore.scores.correctness import answer_correctness, answer_correctness_details
from polarscore.scores.match import answer_match, answer_match_details
from polarscore.scores.precision import (
    answer_precision,
    answer_precision_components,
    answer_precision_diagnostics,
    is_passing,
)
from polarscore.scores.similarity import response_similarity, response_similarity_details
from polarscore.scores.squad import squad_exact_match, squad_f1
from polarscore.summary import summarize

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_THRESHOLD",
    "PROVENANCE_KEY",
    "ColumnCollisionError",
    "ColumnNotFoundError",
    "ColumnTypeError",
    "InvalidParameterError",
    "PolarscoreError",
    "ScorerSpec",
    "__version__",
    "answer_correctness",
    "answer_correctness_details",
    "answer_match",
    "answer_match_details",
    "answer_precision",
    "answer_precision_components",
    "answer_precision_diagnostics",
    "available_scorers",
    "get_scorer",
    "is_passing",
    "read_provenance",
    "recorded_thresholds",
    "response_similarity",
    "response_similarity_details",
    "score_frame",
    "scoring_record",
    "squad_exact_match",
    "squad_f1",
    "summarize",
]
