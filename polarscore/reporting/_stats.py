"""The statistics the report adds to :mod:`polarscore.summary`'s: agreement, kappa, McNemar.

Intervals of a pass rate and of a mean are :func:`polarscore.summary.wilson_interval` and
:func:`polarscore.summary.bootstrap_mean_interval`; they are not repeated here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Above this many discordant pairs McNemar's test uses its chi-square form, not the exact sum.
EXACT_MCNEMAR_MAX = 5000


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


def mcnemar_p_value(only_a: int, only_b: int) -> float:
    """Two-sided p-value of McNemar's test from the two discordant counts.

    Parameters
    ----------
    only_a, only_b
        Pairs where only the first (only the second) side passed.

    Returns
    -------
    float
        The exact binomial p-value (``Binomial(only_a + only_b, 1/2)``, doubled, at most 1) up to
        ``EXACT_MCNEMAR_MAX`` discordant pairs, above that the chi-square test with continuity
        correction (the two agree closely there); 1.0 when there is no discordant pair.

    Examples
    --------
    >>> from polarscore.reporting._stats import mcnemar_p_value
    >>> round(mcnemar_p_value(10, 2), 4)
    0.0386
    """
    n = only_a + only_b
    if n == 0:
        return 1.0
    if n > EXACT_MCNEMAR_MAX:
        z = (abs(only_a - only_b) - 1.0) / math.sqrt(n)
        return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))
    k = min(only_a, only_b)
    # log of C(n, i) / 2^n, summed in log space so that large counts neither overflow nor
    # underflow one term at a time.
    log_half = n * math.log(0.5)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(k + 1)]
    top = max(terms)
    tail = math.exp(top + log_half) * sum(math.exp(t - top) for t in terms)
    return min(1.0, 2.0 * tail)
