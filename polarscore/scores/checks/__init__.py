r"""Judge-free checks: keywords, prefixes, exact match, length, formats, patterns, JSON, language.

Reproduces the ten deterministic metrics of eval-ai-library 0.8.2 (``ContainsMetric``,
``StartsWithMetric``, ``EndsWithMetric``, ``ExactMatchMetric``, ``NonEmptyMetric``,
``LengthCheckMetric``, ``FormatCheckMetric``, ``RegexMatchMetric``, ``JsonSchemaMetric`` and
``LanguageDetectionMetric``) row for row: the score, and with the ``*_details`` companions the
reference's reason text. Every check scores a null response as the empty string and never returns
null.

Where the reference silently misreads an option (an unknown mode, unit, format or language, a
pattern Python cannot compile, an invalid schema), these functions raise
:class:`~polarscore.InvalidParameterError` when the expression is built.

Most checks are plain Polars expressions with Python's character semantics spelled out (Python's
``str.lower()`` and whitespace); keyword lists run in a native kernel. ``regex_match`` (and
``json_schema``'s patterns) read a pattern with Python's parser and run it natively with ``re``'s
meaning, in linear time, or for look-arounds and back-references by backtracking within a step
budget per row; ``json_schema`` and ``language_detection`` call ``jsonschema`` and
``langdetect`` once per distinct response of a batch.
"""

from polarscore.kernels._regex import DEFAULT_STEP_BUDGET
from polarscore.scores.checks._json import json_schema, json_schema_details
from polarscore.scores.checks._language import (
    LANGUAGES,
    language_detection,
    language_detection_details,
)
from polarscore.scores.checks._patterns import (
    FORMAT_TYPES,
    format_check,
    format_check_details,
    regex_match,
    regex_match_details,
)
from polarscore.scores.checks._text import (
    CONTAINS_MODES,
    DEFAULT_MAX_LENGTH,
    LENGTH_UNITS,
    contains,
    contains_details,
    ends_with,
    ends_with_details,
    exact_match,
    exact_match_details,
    length_check,
    length_check_details,
    non_empty,
    non_empty_details,
    starts_with,
    starts_with_details,
)

__all__ = [
    "CONTAINS_MODES",
    "DEFAULT_MAX_LENGTH",
    "DEFAULT_STEP_BUDGET",
    "FORMAT_TYPES",
    "LANGUAGES",
    "LENGTH_UNITS",
    "contains",
    "contains_details",
    "ends_with",
    "ends_with_details",
    "exact_match",
    "exact_match_details",
    "format_check",
    "format_check_details",
    "json_schema",
    "json_schema_details",
    "language_detection",
    "language_detection_details",
    "length_check",
    "length_check_details",
    "non_empty",
    "non_empty_details",
    "regex_match",
    "regex_match_details",
    "starts_with",
    "starts_with_details",
]
