"""Defaults shared by several parts of polarscore, so that they cannot drift apart."""

from __future__ import annotations

#: The one default pass threshold: a score passes when it is at least this. It is DataRobot's
#: eval-pipeline default, used by :func:`polarscore.summarize`, :func:`polarscore.is_passing`
#: and ``polarscore summary`` (eval-ai-library's ``AnswerPrecisionMetric`` passes at 0.8: give
#: ``threshold=0.8`` for its verdict).
DEFAULT_THRESHOLD = 0.5

#: The length guard of the quadratic similarities (``answer_precision``'s character similarity,
#: ``response_similarity``'s ROUGE-L): the units of work (one or two nanoseconds each on one
#: core) one row may take before it is left null with a reason. Texts that differ little cost
#: far less than their lengths suggest; unlike ones of 400,000 characters (or words) a side
#: reach it.
DEFAULT_MAX_WORK = 2_500_000_000

__all__ = ["DEFAULT_MAX_WORK", "DEFAULT_THRESHOLD"]
