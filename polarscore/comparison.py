"""Paired comparisons of groups (models) on the questions they share, and statistical power.

:func:`compare` answers "is model B better than model A, and how sure are we?": each two groups
are compared on the questions both answered, so the question-to-question variation that both
share cancels out of the difference (Miller, "Adding Error Bars to Evals", 2024, section on
paired differences). The standard error of the mean difference is the paired one, clustered when
questions are grouped (a passage, a document), with a p-value from McNemar's exact test (0/1
scores) or a paired t-test (graded scores, or any score when clustered), a Holm correction when
more than two groups are compared, and the smallest difference the data can detect.
:func:`sample_size` says how many questions a difference of a given size needs.

The per-question table is one lazy (streaming) aggregation; the statistics are NumPy over its
columns, with no loop over rows or resamples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import polars as pl

from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore._typing import FrameT
from polarscore._validation import check_number, invalid_parameter
from polarscore.exceptions import ColumnNotFoundError, ColumnValueError
from polarscore.summary import (
    _as_list,
    _clustered_se,
    _default_scores,
    check_no_nulls,
    check_score_types,
    parse_epoch_reducer,
    reduce_epochs,
)

if TYPE_CHECKING:
    import numpy as np

_FUNCTION = "compare"
_GROUP = "__polarscore_group"
_VALUE = "__polarscore_value"
_CLUSTER = "__polarscore_cluster"
_ROWS = "__polarscore_rows"

#: How the values of several ``by`` columns are joined into one group label.
GROUP_SEPARATOR = " · "

#: The tests :func:`compare` reports in its ``test`` column.
TESTS = ("mcnemar", "paired t", "clustered t")


# --- distributions -----------------------------------------------------------------------------


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Return the continued fraction of the regularised incomplete beta function (Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _log_gamma_ratio(a: float, b: float) -> float:
    """Return ``log Γ(a + b) - log Γ(a)`` without the cancellation of two large log-gammas."""
    if a < 20.0:
        return math.lgamma(a + b) - math.lgamma(a)
    n, m = a - 1.0, a + b - 1.0  # Γ(a) = n!, Γ(a + b) = m!
    return (
        _stirling_error(m)
        - _stirling_error(n)
        + (n + 0.5) * math.log1p(b / n)
        + b * math.log(m)
        - b
    )


def _incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """Return the regularised incomplete beta function ``I_x(a, b)``, given ``y = 1 - x`` too."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    large, small = (a, b) if a >= b else (b, a)
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    log_front = _log_gamma_ratio(large, small) - math.lgamma(small) + a * log_x + b * log_y
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees of freedom.

    Examples
    --------
    >>> from polarscore.comparison import t_two_sided_p
    >>> round(t_two_sided_p(2.0, 10), 6)
    0.073388
    """
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    t2 = t * t
    return min(1.0, _incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2)))


def t_quantile(probability: float, df: float) -> float:
    """Return the ``probability`` quantile (above 1/2) of Student t with ``df`` degrees of freedom.

    Examples
    --------
    >>> from polarscore.comparison import t_quantile
    >>> round(t_quantile(0.975, 10), 6)
    2.228139
    """
    tail = 2.0 * (1.0 - probability)
    low, high = 0.0, 1.0
    while t_two_sided_p(high, df) > tail:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_two_sided_p(middle, df) > tail:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return (low + high) / 2.0


def mcnemar_p_value(only_a: int, only_b: int) -> float:
    """Two-sided p-value of McNemar's exact test from the two discordant counts.

    Parameters
    ----------
    only_a, only_b
        Pairs where only the first (only the second) side passed.

    Returns
    -------
    float
        ``2 · P(X <= min(only_a, only_b))`` for ``X ~ Binomial(only_a + only_b, 1/2)``, at most
        1 (statsmodels' ``mcnemar(exact=True)``); 1.0 when there is no discordant pair.

    Notes
    -----
    The largest term comes from Loader's saddle-point form of the binomial probability (as R
    and SciPy compute it) and the others as ratios to it, summed with NumPy in one vectorised
    pass: counts in the millions neither overflow nor underflow, and the p-value keeps about
    12 significant digits.

    Examples
    --------
    >>> from polarscore.comparison import mcnemar_p_value
    >>> round(mcnemar_p_value(10, 2), 4)
    0.0386
    """
    import numpy as np  # imported on demand: scoring never needs it

    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    # P(X = i) / P(X = k) for i <= k: a running product of (i + 1) / (n - i), summed in logs
    # from the top term down, so every term is as exact as its few factors.
    # Terms more than 40 standard deviations below the top one are below e^-3200 of it.
    first = max(0, k - 40 * math.isqrt(n) - 40)
    j = np.arange(first + 1, k + 1, dtype=np.float64)
    steps = np.log(j) - np.log(n - j + 1.0)
    relative = np.zeros(k + 1 - first, dtype=np.float64)
    relative[:-1] = np.cumsum(steps[::-1])[::-1]
    tail = _binomial_half_pmf(n, k) * float(np.exp(relative).sum())
    return min(1.0, 2.0 * tail)


#: The coefficients of the Stirling series of ``log(n!) - log(sqrt(2 pi n) (n / e)^n)``.
_STIRLING = (1.0 / 12.0, 1.0 / 360.0, 1.0 / 1260.0, 1.0 / 1680.0, 1.0 / 1188.0)


def _stirling_error(n: float) -> float:
    """Return ``log(n!) - (n + 1/2) log(n) + n - log(sqrt(2 pi))``, accurately for large ``n``."""
    if n <= 15.0:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2.0 * math.pi)
    nn = n * n
    s0, s1, s2, s3, s4 = _STIRLING
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _deviance_term(x: float, mean: float) -> float:
    """Return ``x log(x / mean) + mean - x`` without cancellation when ``x`` is near ``mean``."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        total = (x - mean) * v
        term = 2.0 * x * v
        v2 = v * v
        for power in range(3, 2000, 2):
            term *= v2
            updated = total + term / power
            if updated == total:
                return total
            total = updated
        return total
    return x * math.log(x / mean) + mean - x


def _binomial_half_pmf(n: int, k: int) -> float:
    """Return ``P(X = k)`` for ``X ~ Binomial(n, 1/2)``, by Loader's (2000) saddle-point form."""
    if k == 0 or k == n:
        return math.exp(n * math.log(0.5))
    half = n / 2.0
    log_pmf = (
        _stirling_error(float(n))
        - _stirling_error(float(k))
        - _stirling_error(float(n - k))
        - _deviance_term(float(k), half)
        - _deviance_term(float(n - k), half)
    )
    return math.exp(log_pmf) * math.sqrt(n / (2.0 * math.pi * k * (n - k)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (family-wise error rate).

    The ``i``-th smallest of ``m`` p-values becomes ``max_{j<=i} min(1, (m - j + 1) p_(j))``;
    reject where the adjusted p-value is below the level. Equal to statsmodels'
    ``multipletests(method="holm")``.

    Examples
    --------
    >>> from polarscore.comparison import holm
    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# --- one paired comparison ---------------------------------------------------------------------


@dataclass(frozen=True)
class PairedDifference:
    """Two groups compared on the questions both answered (see :func:`paired_difference`)."""

    questions: int
    clusters: int | None
    first_mean: float
    second_mean: float
    difference: float
    se: float | None
    low: float | None
    high: float | None
    test: str
    p_value: float | None
    only_first: int | None
    only_second: int | None
    first_sd: float | None
    second_sd: float | None
    correlation: float | None
    sd_difference: float | None
    mdd: float | None


def paired_difference(
    first: np.ndarray[Any, Any],
    second: np.ndarray[Any, Any],
    clusters: np.ndarray[Any, Any] | None = None,
    *,
    confidence: float = 0.95,
    power: float = 0.8,
) -> PairedDifference:
    """Compare two groups' scores on the same questions (aligned arrays, no missing value).

    Parameters
    ----------
    first, second
        Each question's score in the two groups (one value per question, same order).
    clusters
        Optional integer cluster code of each question (questions that share a passage).
    confidence
        Level of the interval; the test's level is ``1 - confidence``.
    power
        Power of the minimum detectable difference.

    Returns
    -------
    PairedDifference
        ``difference = mean(first - second)`` over the questions, its standard error (paired,
        clustered when ``clusters`` are given: :func:`polarscore.summary.clustered_standard_error`
        of the per-question differences), the Student-t interval with ``n - 1`` (``G - 1``)
        degrees of freedom clipped to the differences the scores allow, the p-value (McNemar's
        exact test when every score is 0 or 1 and there are no clusters, else the t-test of the
        same standard error), each side's standard deviation, their correlation, and the
        minimum detectable difference ``(z_{1-α/2} + z_power) · se``.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.comparison import paired_difference
    >>> a = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    >>> b = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    >>> d = paired_difference(a, b)
    >>> d.difference, d.test, d.only_first, d.only_second, round(d.p_value, 4)
    (0.375, 'mcnemar', 3, 0, 0.25)
    """
    import numpy as np  # imported on demand: scoring never needs it

    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    n = int(a.size)
    diff = a - b
    first_mean = math.fsum(a.tolist()) / n
    second_mean = math.fsum(b.tolist()) / n
    mean = math.fsum(diff.tolist()) / n
    if clusters is None:
        se = _clustered_se(diff, np.ones(n), np.ones(n), mean)
        groups: int | None = None
        df = float(n - 1)
    else:
        codes = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
        sums = np.bincount(codes, weights=diff)
        sizes = np.bincount(codes).astype(np.float64)
        se = _clustered_se(sums, sizes, np.ones(sums.size), mean)
        groups = int(sums.size)
        df = float(groups - 1)
    binary = bool(np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all())
    only_first = int(((a == 1.0) & (b == 0.0)).sum()) if binary else None
    only_second = int(((a == 0.0) & (b == 1.0)).sum()) if binary else None
    low = high = p_value = mdd = None
    alpha = 1.0 - confidence
    if se is not None:
        half = t_quantile(1.0 - alpha / 2.0, df) * se
        span = _span(a, b)
        low = min(max(mean - half, span[0]), span[1])
        high = min(max(mean + half, span[0]), span[1])
        normal = NormalDist()
        mdd = (normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)) * se
    if binary and clusters is None and only_first is not None and only_second is not None:
        test = "mcnemar"
        p_value = mcnemar_p_value(only_first, only_second)
    else:
        test = "paired t" if clusters is None else "clustered t"
        if se is not None:
            p_value = t_two_sided_p(mean / se, df) if se > 0.0 else (1.0 if mean == 0.0 else 0.0)
    sd_a = float(a.std(ddof=1)) if n > 1 else None
    sd_b = float(b.std(ddof=1)) if n > 1 else None
    correlation = None
    if sd_a and sd_b:
        covariance = float(((a - first_mean) * (b - second_mean)).sum()) / (n - 1)
        correlation = max(-1.0, min(1.0, covariance / (sd_a * sd_b)))
    return PairedDifference(
        questions=n,
        clusters=groups,
        first_mean=first_mean,
        second_mean=second_mean,
        difference=mean,
        se=se,
        low=low,
        high=high,
        test=test,
        p_value=p_value,
        only_first=only_first,
        only_second=only_second,
        first_sd=sd_a,
        second_sd=sd_b,
        correlation=correlation,
        sd_difference=None if se is None else se * math.sqrt(n),
        mdd=mdd,
    )


def _span(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> tuple[float, float]:
    """Return the range of ``mean(a - b)``: [-1, 1] for [0, 1] scores, else from the observed."""
    low = min(float(a.min()), float(b.min()))
    high = max(float(a.max()), float(b.max()))
    if low >= 0.0 and high <= 1.0:
        low, high = 0.0, 1.0
    return low - high, high - low


# --- power -------------------------------------------------------------------------------------


def sample_size(
    difference: float,
    *,
    sd_difference: float | None = None,
    sd_first: float | None = None,
    sd_second: float | None = None,
    correlation: float = 0.0,
    confidence: float = 0.95,
    power: float = 0.8,
) -> int:
    """Questions needed to detect a true mean difference of ``difference`` between two models.

    Parameters
    ----------
    difference
        The smallest difference worth detecting (in score units: 0.02 is 2 points of accuracy).
    sd_difference
        The standard deviation of a question's paired difference (``compare``'s
        ``sd_difference`` column: it already carries the correlation and any clustering).
    sd_first, sd_second, correlation
        Instead of ``sd_difference``: each model's standard deviation over questions and the
        correlation of their scores (``compare``'s ``first_sd``, ``second_sd``,
        ``correlation``); ``sd_difference² = sd_first² + sd_second² - 2 ρ sd_first sd_second``.
    confidence
        ``1 - α``, the level of the two-sided test.
    power
        The chance of detecting the difference when it is real (default 0.8).

    Returns
    -------
    int
        ``ceil(((z_{1-α/2} + z_power) · sd_difference / difference)²)``: Miller's (2024) sample
        size of a paired comparison, with normal quantiles.

    Examples
    --------
    >>> import polarscore as ps
    >>> ps.sample_size(0.03, sd_first=0.5, sd_second=0.5, correlation=0.5)
    2181
    >>> ps.sample_size(0.03, sd_first=0.5, sd_second=0.5)  # unpaired: twice as many
    4361
    """
    function = "sample_size"
    check_number(
        difference, function=function, parameter="difference", minimum=0.0, strict_minimum=True
    )
    _check_level(confidence, "confidence", function)
    _check_level(power, "power", function)
    if sd_difference is None:
        if sd_first is None or sd_second is None:
            raise invalid_parameter(
                function,
                "sd_difference",
                "given, or else both sd_first and sd_second",
                sd_difference,
            )
        check_number(sd_first, function=function, parameter="sd_first", minimum=0.0)
        check_number(sd_second, function=function, parameter="sd_second", minimum=0.0)
        check_number(
            correlation, function=function, parameter="correlation", minimum=-1.0, maximum=1.0
        )
        variance = sd_first**2 + sd_second**2 - 2.0 * correlation * sd_first * sd_second
        sd_difference = math.sqrt(max(variance, 0.0))
    check_number(sd_difference, function=function, parameter="sd_difference", minimum=0.0)
    normal = NormalDist()
    z = normal.inv_cdf(1.0 - (1.0 - confidence) / 2.0) + normal.inv_cdf(power)
    # a hair below the exact quotient: floating-point noise must not add a question
    return max(1, math.ceil((z * sd_difference / difference) ** 2 * (1.0 - 1e-12)))


def _check_level(value: Any, parameter: str, function: str) -> float:
    number = check_number(
        value, function=function, parameter=parameter, minimum=0.0, strict_minimum=True
    )
    if not number < 1.0:
        raise invalid_parameter(function, parameter, "a number in (0, 1)", value)
    return number


# --- the frame-level comparison ----------------------------------------------------------------


#: The columns of :func:`compare`'s result.
COLUMNS = {
    "score": pl.String(),
    "first": pl.String(),
    "second": pl.String(),
    "questions": pl.UInt32(),
    "clusters": pl.UInt32(),
    "first_mean": pl.Float64(),
    "second_mean": pl.Float64(),
    "difference": pl.Float64(),
    "se": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "test": pl.String(),
    "p_value": pl.Float64(),
    "p_adjusted": pl.Float64(),
    "significant": pl.Boolean(),
    "only_first": pl.UInt32(),
    "only_second": pl.UInt32(),
    "first_sd": pl.Float64(),
    "second_sd": pl.Float64(),
    "correlation": pl.Float64(),
    "sd_difference": pl.Float64(),
    "mdd": pl.Float64(),
}


def group_label(by: Sequence[str]) -> pl.Expr:
    """Return the group of a row as one string: its ``by`` values joined (null if any is)."""
    parts = [pl.col(c).cast(pl.String) for c in by]
    return pl.concat_str(parts, separator=GROUP_SEPARATOR) if len(parts) > 1 else parts[0]


def compare(
    frame: FrameT,
    scores: str | Sequence[str] | None = None,
    *,
    by: str | Sequence[str] = "model",
    pair_on: str | Sequence[str] = "sample_id",
    cluster: str | None = None,
    epoch_reducer: str | None = None,
    baseline: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    confidence: float = 0.95,
    power: float = 0.8,
) -> pl.DataFrame:
    """Compare groups (models) pairwise on the questions they share: differences, errors, tests.

    Parameters
    ----------
    frame
        A ``DataFrame`` or ``LazyFrame`` of scored rows; a ``LazyFrame`` is aggregated lazily.
    scores
        The score columns (numeric, higher is better). ``None`` (default) takes every float
        column named after a registered scorer, as :func:`polarscore.summarize` does.
    by
        The column(s) naming the groups to compare (default ``"model"``). Rows whose group is
        null are left out.
    pair_on
        The column(s) identifying a question (default ``"sample_id"``, as every eval-log reader
        writes it). Each group may answer a question once; rows with a null key are left out.
    cluster
        Optional column grouping the questions (a passage, a document): the standard error is
        then clustered and the p-value the t-test's with ``clusters - 1`` degrees of freedom.
        Constant within a question, never null.
    epoch_reducer
        How a group's repeated rows of one question (epochs) are reduced to one score first:
        ``"mean"``, ``"max"``, ``"mode"`` or ``"at_least_K"`` (as inspect-ai's reducers). ``None``
        (default): a repeated question is an error.
    baseline
        A group to compare every other group with (``first`` is the other group, ``second`` the
        baseline). ``None``: every two groups, in sorted order.
    threshold
        The pass threshold of ``at_least_K`` (a score passes when it is at least this).
    confidence
        Level of the intervals; tests are at ``1 - confidence``.
    power
        Power of the minimum detectable difference (``mdd``).

    Returns
    -------
    pl.DataFrame
        One row per score column and pair of groups (``first``, ``second``): ``questions``
        both answered, ``clusters``, ``first_mean`` and ``second_mean`` over those questions,
        ``difference`` (first − second), its ``se``, ``low`` and ``high``, the ``test`` and its
        ``p_value``, ``p_adjusted`` (Holm over the pairs of the score when more than two
        groups are compared, else the p-value), ``significant`` (``p_adjusted < 1 -
        confidence``), the discordant counts ``only_first`` and ``only_second`` (0/1 scores),
        ``first_sd``, ``second_sd`` and their ``correlation``, ``sd_difference`` (a question's,
        for :func:`sample_size`) and ``mdd``, the smallest true difference detected with
        probability ``power``.

    Raises
    ------
    ColumnNotFoundError
        A named column is missing.
    ColumnValueError
        A question repeated within a group (without ``epoch_reducer``), nulls in the cluster
        column, a cluster that changes within a question, or fewer than two groups.

    Notes
    -----
    See :func:`paired_difference` for the statistics of one pair. Pairing removes what the two
    groups share: ``Var(a - b) = Var(a) + Var(b) - 2 Cov(a, b)``, so the paired interval is
    narrower than two separate ones whenever the models find the same questions hard.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a"] * 6 + ["b"] * 6,
    ...         "sample_id": list("uvwxyz") * 2,
    ...         "answer_correctness": [1.0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0],
    ...     }
    ... )
    >>> ps.compare(df).select("first", "second", "questions", "difference", "test", "p_value")
    shape: (1, 6)
    ┌───────┬────────┬───────────┬────────────┬─────────┬─────────┐
    │ first ┆ second ┆ questions ┆ difference ┆ test    ┆ p_value │
    │ ---   ┆ ---    ┆ ---       ┆ ---        ┆ ---     ┆ ---     │
    │ str   ┆ str    ┆ u32       ┆ f64        ┆ str     ┆ f64     │
    ╞═══════╪════════╪═══════════╪════════════╪═════════╪═════════╡
    │ a     ┆ b      ┆ 6         ┆ 0.5        ┆ mcnemar ┆ 0.25    │
    └───────┴────────┴───────────┴────────────┴─────────┴─────────┘
    """
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        raise invalid_parameter(_FUNCTION, "frame", "a polars DataFrame or LazyFrame", frame)
    lazy = frame.lazy()
    schema = lazy.collect_schema()
    score_columns, by_columns, pair_columns, cluster_columns = _compare_columns(
        schema, scores, by=by, pair_on=pair_on, cluster=cluster
    )
    reducer = parse_epoch_reducer(epoch_reducer, function=_FUNCTION)
    check_number(threshold, function=_FUNCTION, parameter="threshold", minimum=0.0, maximum=1.0)
    _check_level(confidence, "confidence", _FUNCTION)
    _check_level(power, "power", _FUNCTION)
    if baseline is not None and not isinstance(baseline, str):
        raise invalid_parameter(_FUNCTION, "baseline", "a group name (str) or None", baseline)
    check_no_nulls(lazy, cluster_columns, parameter="cluster")

    label = group_label(by_columns).alias(_GROUP)
    keyed = lazy.with_columns(label).filter(
        pl.col(_GROUP).is_not_null()
        & pl.all_horizontal(pl.col(c).is_not_null() for c in pair_columns)
    )
    groups = sorted(
        keyed.select(pl.col(_GROUP).unique()).collect(engine="streaming")[_GROUP].to_list()
    )
    by_text = ", ".join(repr(c) for c in by_columns)
    if len(groups) < 2:
        raise ColumnValueError(
            f"compare needs two or more groups in the by column {by_text}; it has "
            f"{len(groups)}{' (' + repr(groups[0]) + ')' if groups else ''}.\n"
            "Hint: name the column that tells the models apart with by=."
        )
    if baseline is not None and baseline not in groups:
        raise invalid_parameter(_FUNCTION, "baseline", f"one of the groups {groups}", baseline)
    if cluster_columns:
        _check_cluster_constant(keyed, pair_columns, cluster_columns[0])
    order = (pl.col("epoch") if "epoch" in schema else pl.int_range(pl.len())).cast(pl.Int64)
    values = {score: pl.col(score).cast(pl.Float64).fill_nan(None) for score in score_columns}
    cluster_value = [pl.col(c).first().alias(_CLUSTER) for c in cluster_columns]
    if reducer is None:
        # One streaming aggregation per question: every group's score of every score column,
        # and every group's row count (a repeated question is an error).
        tables = [
            keyed.group_by(pair_columns).agg(
                *[
                    values[score].filter(pl.col(_GROUP) == group).first().alias(f"{i}:{j}")
                    for i, score in enumerate(score_columns)
                    for j, group in enumerate(groups)
                ],
                *[(pl.col(_GROUP) == g).sum().alias(f"{_ROWS}:{g}") for g in groups],
                *cluster_value,
            )
        ]
    else:
        tables = [
            _wide(
                reduce_epochs(
                    keyed,
                    [_GROUP, *pair_columns],
                    values[score],
                    reducer=reducer,
                    threshold=threshold,
                    order=order,
                ),
                pair_columns,
                groups,
                prefix=f"{i}:",
            )
            for i, score in enumerate(score_columns)
        ]
        if cluster_columns:
            questions = keyed.group_by(pair_columns).agg(*cluster_value)
            tables = [t.join(questions, on=pair_columns, how="left") for t in tables]
    collected = pl.collect_all(tables, engine="streaming")
    if reducer is None:
        _check_unique(collected[0], pair_columns, groups, by_text)
    rows: list[dict[str, Any]] = []
    for i, score in enumerate(score_columns):
        wide = collected[0] if reducer is None else collected[i]
        rows += _compare_score(
            score,
            {g: wide[f"{i}:{j}"] for j, g in enumerate(groups)},
            wide[_CLUSTER] if cluster_columns else None,
            groups,
            baseline=baseline,
            confidence=confidence,
            power=power,
        )
    return pl.from_dicts(rows, schema=COLUMNS)


def _compare_columns(
    schema: pl.Schema,
    scores: str | Sequence[str] | None,
    *,
    by: str | Sequence[str],
    pair_on: str | Sequence[str],
    cluster: str | None,
) -> tuple[list[str], list[str], list[str], list[str]]:
    """Check :func:`compare`'s columns; return the score, by, pair_on and cluster columns."""
    by_columns = _as_list(by, "by")
    pair_columns = _as_list(pair_on, "pair_on")
    if not by_columns:
        raise invalid_parameter(_FUNCTION, "by", "one or more column names", by)
    if not pair_columns:
        raise invalid_parameter(_FUNCTION, "pair_on", "one or more column names", pair_on)
    cluster_columns = _as_list(cluster, "cluster")
    if len(cluster_columns) > 1:
        raise invalid_parameter(_FUNCTION, "cluster", "one column name, or None", cluster)
    score_columns = _as_list(scores, "scores") if scores is not None else _default_scores(schema)
    if not score_columns:
        raise invalid_parameter(
            _FUNCTION,
            "scores",
            "one or more score columns (none was given and no float column is named after a "
            f"registered scorer; columns: {schema.names()})",
            scores,
        )
    for role, names in (
        ("score", score_columns),
        ("by", by_columns),
        ("pair_on", pair_columns),
        ("cluster", cluster_columns),
    ):
        for name in names:
            if name not in schema:
                raise ColumnNotFoundError.from_missing(
                    name,
                    schema.names(),
                    role=role,
                    parameter="scores" if role == "score" else role,
                )
    check_score_types(schema, score_columns, function=_FUNCTION)
    roles = [*score_columns, *by_columns, *pair_columns, *cluster_columns]
    if len(set(roles)) != len(roles):
        raise invalid_parameter(
            _FUNCTION,
            "pair_on",
            "columns other than the score, by and cluster columns (each column one role)",
            pair_columns,
        )
    return score_columns, by_columns, pair_columns, cluster_columns


def _wide(
    cells: pl.LazyFrame, pair_columns: Sequence[str], groups: Sequence[str], *, prefix: str
) -> pl.LazyFrame:
    """One row per question, one column per group (``prefix`` + its index) of its score."""
    return cells.group_by(list(pair_columns)).agg(
        pl.col(_VALUE).filter(pl.col(_GROUP) == group).first().alias(f"{prefix}{j}")
        for j, group in enumerate(groups)
    )


def _check_unique(
    wide: pl.DataFrame, pair_columns: Sequence[str], groups: Sequence[str], by_text: str
) -> None:
    """Raise when a group has more than one row of a question."""
    counts = [f"{_ROWS}:{g}" for g in groups]
    repeated = wide.select(pl.sum_horizontal((pl.col(c) > 1).cast(pl.Int64) for c in counts))
    total = int(repeated.to_series().sum())
    if total == 0:
        return
    group, column = next(
        (g, c)
        for g, c in zip(groups, counts, strict=True)
        if wide[c].max() > 1  # type: ignore[operator]
    )
    first = wide.filter(pl.col(column) > 1).sort(list(pair_columns)).row(0, named=True)
    key = ", ".join(repr(first[c]) for c in pair_columns)
    columns = ", ".join(repr(c) for c in pair_columns)
    raise ColumnValueError(
        f"The pair_on column {columns} repeats {total:,} key{'s' if total != 1 else ''} within "
        f"a group of {by_text} (group {group!r} has {key} {first[column]} times): each group "
        "must answer a question once to be paired.\nHint: reduce the repeats (epochs) with "
        "epoch_reducer='mean' (--epoch-reducer), or pair on more columns."
    )


def _check_cluster_constant(keyed: pl.LazyFrame, pair_columns: Sequence[str], cluster: str) -> None:
    changing = (
        keyed.group_by(pair_columns)
        .agg(pl.col(cluster).n_unique().alias("n"))
        .filter(pl.col("n") > 1)
        .select(pl.len())
        .collect(engine="streaming")
        .item()
    )
    if changing:
        raise ColumnValueError(
            f"The cluster column {cluster!r} changes within {changing:,} question"
            f"{'s' if changing != 1 else ''} of pair_on: a question belongs to one cluster."
        )


def _compare_score(
    score: str,
    columns: dict[str, pl.Series],
    cluster: pl.Series | None,
    groups: Sequence[str],
    *,
    baseline: str | None,
    confidence: float,
    power: float,
) -> list[dict[str, Any]]:
    """Every pair of groups for one score column, from each group's score per question.

    The questions are put in an order that depends only on the values (cluster, then scores),
    not on the engine's row order, so every floating-point sum is the same bits each run.
    """
    import numpy as np  # imported on demand: scoring never needs it

    arrays = {g: columns[g].cast(pl.Float64).to_numpy() for g in groups}
    codes = None if cluster is None else cluster.rank("dense").to_numpy().astype(np.int64)
    keys = [np.nan_to_num(arrays[g], nan=-np.inf) for g in reversed(groups)]
    order = np.lexsort(keys if codes is None else [*keys, codes])
    arrays = {g: a[order] for g, a in arrays.items()}
    codes = None if codes is None else codes[order]
    if baseline is not None:
        pairs = [(g, baseline) for g in groups if g != baseline]
    else:
        pairs = [(g, h) for i, g in enumerate(groups) for h in groups[i + 1 :]]
    out: list[dict[str, Any]] = []
    for first, second in pairs:
        a, b = arrays[first], arrays[second]
        both = ~np.isnan(a) & ~np.isnan(b)
        if not both.any():
            continue
        result = paired_difference(
            a[both],
            b[both],
            None if codes is None else codes[both],
            confidence=confidence,
            power=power,
        )
        out.append({"score": score, "first": first, "second": second, **asdict(result)})
    p_values = [r["p_value"] for r in out]
    adjusted: list[float | None] = list(p_values)
    if len(groups) > 2 and all(p is not None for p in p_values):
        adjusted = list(holm([p for p in p_values if p is not None]))
    alpha = 1.0 - confidence
    for row, p in zip(out, adjusted, strict=True):
        row["p_adjusted"] = p
        row["significant"] = None if p is None else p < alpha
    return out


__all__ = [
    "COLUMNS",
    "TESTS",
    "PairedDifference",
    "compare",
    "holm",
    "mcnemar_p_value",
    "paired_difference",
    "sample_size",
    "t_quantile",
    "t_two_sided_p",
]
