"""The statistics the report adds to :mod:`polarscore.summary`'s: agreement and kappa.

Intervals of a pass rate and of a mean are :func:`polarscore.summary.wilson_interval` and
:func:`polarscore.summary.cluster_bootstrap_interval`; paired differences and McNemar's test are
:mod:`polarscore.comparison`'s (:func:`~polarscore.comparison.paired_difference`), the code
behind :func:`polarscore.compare`. None of them is repeated here.
"""

from __future__ import annotations

from dataclasses import dataclass

from polarscore.comparison import mcnemar_p_value

__all__ = ["Confusion", "mcnemar_p_value"]


@dataclass(frozen=True)
class Confusion:
    """Counts of a scorer's pass/fail against a verdict's true/false, over rows with both."""

    true_pass: int
    false_pass: int
    false_fail: int
    true_fail: int

    @property
    def n(self) -> int:
        """Rows with both a score and a verdict."""
        return self.true_pass + self.false_pass + self.false_fail + self.true_fail

    @property
    def agreement(self) -> float | None:
        """Share of rows where the scorer's pass/fail equals the verdict (``None`` if no row)."""
        if self.n == 0:
            return None
        return (self.true_pass + self.true_fail) / self.n

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa of pass/fail against the verdict (``None`` if undefined).

        ``(p_o - p_e) / (1 - p_e)`` with ``p_o`` the agreement and ``p_e`` the agreement expected
        by chance from the two margins; undefined when there is no row or ``p_e`` is 1 (both sides
        constant and equal).
        """
        n = self.n
        if n == 0:
            return None
        observed = (self.true_pass + self.true_fail) / n
        passed = (self.true_pass + self.false_pass) / n
        correct = (self.true_pass + self.false_fail) / n
        expected = passed * correct + (1.0 - passed) * (1.0 - correct)
        if expected >= 1.0:
            return None
        return (observed - expected) / (1.0 - expected)
