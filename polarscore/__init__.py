"""polarscore: judge-free scoring of LLM answers against reference answers, as Polars expressions.

Every scorer is a function that returns a ``pl.Expr``, so it works in ``select`` and
``with_columns``, on ``DataFrame`` and ``LazyFrame``, and in the streaming engine. Importing the
package also registers the ``.score`` expression namespace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# First, before Polars is imported: the command line's process settings (polarscore._allocator).
from polarscore import _allocator  # noqa: F401  (sets them on import)
from polarscore import namespace as _namespace  # noqa: F401  (registers pl.Expr.score)
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore.comparison import compare, sample_size
from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    ColumnValueError,
    InvalidParameterError,
    PolarscoreError,
)
from polarscore.frame import score_frame
from polarscore.logs import LOG_FORMATS, LOG_SCHEMA, detect_log_format, read_log, scan_log
from polarscore.normalize import repair_mojibake
from polarscore.provenance import (
    PROVENANCE_KEY,
    read_provenance,
    recorded_thresholds,
    scoring_record,
)
from polarscore.registry import ScorerSpec, available_scorers, default_scorers, get_scorer
from polarscore.scores.checks import (
    contains,
    contains_details,
    ends_with,
    ends_with_details,
    exact_match,
    exact_match_details,
    format_check,
    format_check_details,
    json_schema,
    json_schema_details,
    language_detection,
    language_detection_details,
    length_check,
    length_check_details,
    non_empty,
    non_empty_details,
    regex_match,
    regex_match_details,
    starts_with,
    starts_with_details,
)
from polarscore.scores.correct import TASK_KINDS, correct, correct_details
from polarscore.scores.correctness import answer_correctness, answer_correctness_details
from polarscore.scores.extraction import (
    choice_match,
    extract_choice,
    extract_number,
    final_choice,
    final_choice_details,
    final_number,
    final_number_details,
    numeric_match,
)
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

if TYPE_CHECKING:
    from polarscore.reporting import report, write_report

#: Public names imported on first use: the HTML report's modules take about 30 ms to import,
#: which a short log scored from the command line would otherwise pay without writing a report.
_LAZY = {"report": "polarscore.reporting", "write_report": "polarscore.reporting"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'polarscore' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DEFAULT_THRESHOLD",
    "LOG_FORMATS",
    "LOG_SCHEMA",
    "PROVENANCE_KEY",
    "TASK_KINDS",
    "ColumnCollisionError",
    "ColumnNotFoundError",
    "ColumnTypeError",
    "ColumnValueError",
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
    "choice_match",
    "compare",
    "contains",
    "contains_details",
    "correct",
    "correct_details",
    "default_scorers",
    "detect_log_format",
    "ends_with",
    "ends_with_details",
    "exact_match",
    "exact_match_details",
    "extract_choice",
    "extract_number",
    "final_choice",
    "final_choice_details",
    "final_number",
    "final_number_details",
    "format_check",
    "format_check_details",
    "get_scorer",
    "is_passing",
    "json_schema",
    "json_schema_details",
    "language_detection",
    "language_detection_details",
    "length_check",
    "length_check_details",
    "non_empty",
    "non_empty_details",
    "numeric_match",
    "read_log",
    "read_provenance",
    "recorded_thresholds",
    "regex_match",
    "regex_match_details",
    "repair_mojibake",
    "report",
    "response_similarity",
    "response_similarity_details",
    "sample_size",
    "scan_log",
    "score_frame",
    "scoring_record",
    "squad_exact_match",
    "squad_f1",
    "starts_with",
    "starts_with_details",
    "summarize",
    "write_report",
]
