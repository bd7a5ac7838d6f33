"""Defaults shared by several parts of polarscore, so that they cannot drift apart."""

from __future__ import annotations

#: The one default pass threshold: a score passes when it is at least this. It is DataRobot's
#: eval-pipeline default, used by :func:`polarscore.summarize`, :func:`polarscore.is_passing`
#: and ``polarscore summary`` (eval-ai-library's ``AnswerPrecisionMetric`` passes at 0.8: give
#: ``threshold=0.8`` for its verdict).
DEFAULT_THRESHOLD = 0.5

__all__ = ["DEFAULT_THRESHOLD"]
