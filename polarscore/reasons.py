"""The fixed reason texts of the ``*_details`` scorers, in one place.

The native kernels write these texts (each in its reference library's words); the constants here
name them for callers who test a ``reason`` column, and the tests pin the kernels to them. The
judge-free checks build their reasons from the values they report, in
:mod:`polarscore.scores.checks`.
"""

from __future__ import annotations

#: :func:`polarscore.answer_correctness_details`: no usable reference answer.
CORRECTNESS_INCONCLUSIVE = "no ideal_response provided — cannot score"

#: :func:`polarscore.response_similarity_details`: no usable acceptable answer.
SIMILARITY_INCONCLUSIVE = "no acceptable_responses provided: cannot score"

#: :func:`polarscore.response_similarity_details`: the one-line meaning of each metric, quoted
#: in every reason.
SIMILARITY_EXPLANATIONS: dict[str, str] = {
    "token_recall": "share of the example's words found in the response",
    "token_f1": "word overlap, penalizing words the example doesn't have",
    "rouge_l": "longest run of words shared in the same order",
}

#: :func:`polarscore.answer_precision_diagnostics`: an empty response (scored 0).
PRECISION_EMPTY_ACTUAL = (
    "Assistant returned an empty response, so the metric cannot be evaluated; "
    "defaulting to score 0."
)

#: :func:`polarscore.answer_precision_diagnostics`: no usable reference answer.
PRECISION_NO_EXPECTED = "No expected output provided."

#: :func:`polarscore.answer_precision_diagnostics`: a per-row numeric tolerance that cannot be
#: used.
PRECISION_INVALID_TOLERANCE = (
    "Invalid numeric tolerance (null, NaN, infinite or negative): cannot score."
)

__all__ = [
    "CORRECTNESS_INCONCLUSIVE",
    "PRECISION_EMPTY_ACTUAL",
    "PRECISION_INVALID_TOLERANCE",
    "PRECISION_NO_EXPECTED",
    "SIMILARITY_EXPLANATIONS",
    "SIMILARITY_INCONCLUSIVE",
]
