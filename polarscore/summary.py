"""Summaries of score columns: counts, mean, pass rate, and how sure we are.

:func:`summarize` reads one or more score columns (optionally per group) and reports what
DataRobot's eval pipeline reports (scored and inconclusive cases, mean score, pass rate at a
threshold, good-case and bad-case pass rates) together with a Wilson interval for the pass rate
and a seeded bootstrap interval for the mean.

Everything except the bootstrap is one lazy aggregation, so a ``LazyFrame`` over a Parquet log is
never collected whole. The bootstrap needs only the empirical distribution of each group's scores,
which is also aggregated lazily: see :func:`summarize` (Notes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import polars as pl

from polarscore import _exact
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore._typing import FrameT
from polarscore._utils import text_column
from polarscore._validation import check_number, invalid_parameter
from polarscore.exceptions import ColumnNotFoundError, ColumnTypeError
from polarscore.registry import available_scorers

if TYPE_CHECKING:
    import numpy as np

#: Decimal places the scores are binned to for the bootstrap (the reported mean is exact).
BOOTSTRAP_DECIMALS = 4

#: At most this many draws (resamples x distinct values) are held in memory at once.
_BOOTSTRAP_BLOCK = 2_000_000

_FUNCTION = "summarize"
_SCORE = "score"
_VALUE = "__polarscore_value"
_WEIGHT = "__polarscore_count"
_PART = "__polarscore_"
_SUMMED = (
    _exact.COUNT,
    *_exact.PIECES,
    _exact.POS_INF,
    _exact.NEG_INF,
)


def wilson_interval(passes: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Return the Wilson score interval for a proportion of ``passes`` out of ``n``.

    Parameters
    ----------
    passes
        Number of successes.
    n
        Number of trials; must be positive.
    confidence
        Two-sided confidence level in (0, 1).

    Returns
    -------
    tuple[float, float]
        ``(low, high)``, inside [0, 1].

    Notes
    -----
    With ``p = passes / n`` and ``z`` the standard normal quantile at ``1 - (1 - confidence) / 2``:
    ``(p + z²/2n ± z·sqrt(p(1 - p)/n + z²/4n²)) / (1 + z²/n)``. Unlike the normal (Wald)
    interval it stays inside [0, 1] and is not degenerate at 0 or n passes.

    Examples
    --------
    >>> from polarscore.summary import wilson_interval
    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    if n <= 0:
        raise invalid_parameter("wilson_interval", "n", "a positive count", n)
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    p = passes / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean_interval(
    values: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any],
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of a sample given as distinct values and counts.

    Resampling ``n = counts.sum()`` rows with replacement from a sample with ``counts[k]`` copies
    of ``values[k]`` draws the resampled counts from ``Multinomial(n, counts / n)``, so each
    resample costs one multinomial draw over the distinct values, not one draw per row. The
    draws are made in blocks (vectorised with NumPy) to bound memory.

    Parameters
    ----------
    values, counts
        The distinct values and how many rows hold each (counts positive).
    confidence
        Two-sided confidence level in (0, 1).
    n_bootstrap
        Number of resamples.
    seed
        Seed of the NumPy generator; the same inputs and seed give the same interval.

    Returns
    -------
    tuple[float, float]
        The ``(1 - confidence) / 2`` and ``1 - (1 - confidence) / 2`` quantiles of the resampled
        means.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.summary import bootstrap_mean_interval
    >>> low, high = bootstrap_mean_interval(np.array([0.0, 1.0]), np.array([20, 80]))
    >>> bool(low < 0.8 < high)
    True
    """
    import numpy as np  # imported on demand: scoring never needs it

    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    probabilities = counts / n
    block = max(1, _BOOTSTRAP_BLOCK // max(1, values.size))
    means = np.empty(n_bootstrap, dtype=np.float64)
    for start in range(0, n_bootstrap, block):
        size = min(block, n_bootstrap - start)
        draws = rng.multinomial(n, probabilities, size=size)
        means[start : start + size] = draws @ values / n
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _as_list(value: str | Sequence[str] | None, parameter: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    raise invalid_parameter(_FUNCTION, parameter, "a column name or a list of column names", value)


def _default_scores(schema: pl.Schema) -> list[str]:
    names = available_scorers()
    return [
        column
        for column, dtype in schema.items()
        if dtype.is_float()
        # An eval framework's own verdicts (polarscore.scan_log) are not polarscore's scores,
        # though framework_exact_match ends like one.
        and not column.startswith("framework_")
        and any(column == n or column.endswith("_" + n) for n in names)
    ]


def _thresholds(scores: Sequence[str], threshold: float | Mapping[str, float]) -> dict[str, float]:
    if isinstance(threshold, Mapping):
        unknown = [k for k in threshold if k not in scores]
        if unknown:
            raise invalid_parameter(
                _FUNCTION, "threshold", f"keyed by the score columns {list(scores)}", unknown[0]
            )
        missing = [s for s in scores if s not in threshold]
        if missing:
            raise invalid_parameter(
                _FUNCTION, "threshold", "a threshold for every score column", dict(threshold)
            )
        return {
            s: check_number(
                threshold[s],
                function=_FUNCTION,
                parameter=f"threshold[{s!r}]",
                minimum=0,
                maximum=1,
            )
            for s in scores
        }
    value = check_number(threshold, function=_FUNCTION, parameter="threshold", minimum=0, maximum=1)
    return dict.fromkeys(scores, value)


def summarize(
    frame: FrameT,
    scores: str | Sequence[str] | None = None,
    *,
    by: str | Sequence[str] | None = None,
    threshold: float | Mapping[str, float] = DEFAULT_THRESHOLD,
    expected_behavior: str | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> pl.DataFrame:
    """Summarise score columns: counts, mean, pass rate and their confidence intervals.

    Parameters
    ----------
    frame
        A ``DataFrame`` or ``LazyFrame`` holding score columns (for example the output of
        :func:`polarscore.score_frame`). A ``LazyFrame`` is aggregated lazily, never collected.
    scores
        The score columns (numeric, higher is better). ``None`` (default) takes every float
        column named after a registered scorer (``answer_correctness``, ``x_answer_correctness``).
    by
        Optional grouping column(s): one summary row per group and score column.
    threshold
        A score passes when it is at least this (default 0.5, polarscore's one default
        :data:`polarscore.DEFAULT_THRESHOLD`, as DataRobot's eval pipeline), or
        ``{score column: threshold}`` with one entry per score column; in [0, 1], where every
        polarscore score lies. For a file written by ``polarscore score``, the thresholds it was
        scored with are ``recorded_thresholds(read_provenance(path))``.
    expected_behavior
        Optional column of ``"good"`` / ``"bad"`` labels; adds the pass rates of each kind of
        case (other values and nulls count in neither).
    confidence
        Level of both intervals, in (0, 1).
    n_bootstrap
        Number of bootstrap resamples for the interval of the mean; 0 skips it (null bounds).
    seed
        Seed of the bootstrap; the same data and seed always give the same interval.

    Returns
    -------
    pl.DataFrame
        One row per group (sorted by the ``by`` columns) and score column (in the order given),
        with the ``by`` columns, then:

        * ``score`` (``String``): the score column;
        * ``rows``: rows in the group;
        * ``scored``: rows with a score; ``inconclusive``: rows whose score is null (or NaN),
          which are never failures and never enter the mean;
        * ``mean``, ``mean_low``, ``mean_high``: the mean score over scored rows and its
          bootstrap interval;
        * ``threshold``, ``passed``, ``pass_rate``, ``pass_rate_low``, ``pass_rate_high``: the
          pass count and rate over scored rows and its Wilson interval;
        * with ``expected_behavior``: ``good_scored``, ``good_pass_rate``, ``bad_scored``,
          ``bad_pass_rate``.

        Rates and bounds are null where no row is scored.

    Notes
    -----
    **Bootstrap.** The percentile bootstrap of a mean depends on the sample only through its
    empirical distribution, so each group's scores are aggregated lazily into (distinct value,
    count) pairs and resampled with one multinomial draw per resample (see
    :func:`bootstrap_mean_interval`): exactly the row-resampling bootstrap, at a cost that does
    not grow with the number of rows. To bound the number of distinct values, scores are binned
    to ``BOOTSTRAP_DECIMALS`` (4) decimal places for the resampling only (at most 10,001 bins on
    [0, 1]); the interval is then shifted by the difference between the exact and the binned
    mean. For scores that already have at most 4 decimals (every binary score, and scorers that
    round like the reference libraries) this is exact; otherwise the error is below 5e-5.

    **Wilson interval.** See :func:`wilson_interval`.

    **Reproducible to the bit.** Counts are integers, and each mean is the exact mean of the
    scored values rounded once to a float: the values are summed as integers
    (:mod:`polarscore._exact`), never as floats in the order the streaming engine happens to
    deliver them. So the result is the same bits across runs, engines, thread counts, batch
    sizes and row orders; the bootstrap is seeded.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "a", "b", "b", "b"],
    ...         "answer_correctness": [1.0, 0.0, None, 1.0, 1.0, 0.0],
    ...     }
    ... )
    >>> ps.summarize(df, by="model").select(
    ...     "model", "rows", "scored", "inconclusive", "mean", "pass_rate"
    ... )
    shape: (2, 6)
    ┌───────┬──────┬────────┬──────────────┬──────────┬───────────┐
    │ model ┆ rows ┆ scored ┆ inconclusive ┆ mean     ┆ pass_rate │
    │ ---   ┆ ---  ┆ ---    ┆ ---          ┆ ---      ┆ ---       │
    │ str   ┆ u32  ┆ u32    ┆ u32          ┆ f64      ┆ f64       │
    ╞═══════╪══════╪════════╪══════════════╪══════════╪═══════════╡
    │ a     ┆ 3    ┆ 2      ┆ 1            ┆ 0.5      ┆ 0.5       │
    │ b     ┆ 3    ┆ 3      ┆ 0            ┆ 0.666667 ┆ 0.666667  │
    └───────┴──────┴────────┴──────────────┴──────────┴───────────┘
    """
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        raise invalid_parameter(_FUNCTION, "frame", "a polars DataFrame or LazyFrame", frame)
    lazy = frame.lazy()
    schema = lazy.collect_schema()
    score_columns, by_columns = _check_columns(schema, scores, by)
    if expected_behavior is not None:
        text_column(schema, expected_behavior, function=_FUNCTION, parameter="expected_behavior")
    thresholds = _thresholds(score_columns, threshold)
    _check_interval_options(confidence=confidence, n_bootstrap=n_bootstrap, seed=seed)

    # One wide aggregation per group: every count of every score column side by side, with
    # the thresholds as literals. (A long frame with a per-row threshold looked up from the score
    # name is not streamed by Polars: it held the whole unpivoted log in memory.)
    values = {s: pl.col(s).cast(pl.Float64).fill_nan(None) for s in score_columns}
    behavior = pl.col(expected_behavior).cast(pl.String) if expected_behavior is not None else None
    aggregates = _aggregates(values, thresholds, behavior)
    wide_q = lazy.group_by(by_columns).agg(aggregates) if by_columns else lazy.select(aggregates)
    # Each group's distribution of each score: exact integer sums per binary order of magnitude
    # (the mean, the same bits whatever the engine's summation order) and, for the bootstrap,
    # counts per value binned to 4 decimals.
    binned = [pl.col(_VALUE).round(BOOTSTRAP_DECIMALS)] if n_bootstrap > 0 else []
    queries = [wide_q] + [
        lazy.select(*by_columns, values[name].alias(_VALUE))
        .filter(pl.col(_VALUE).is_not_null())
        .with_columns(_exact.parts(pl.col(_VALUE), _PART))
        .group_by([*by_columns, *binned, _PART + _exact.BUCKET])
        .agg(_exact.sums(_PART))
        .with_columns(pl.lit(name, dtype=pl.String).alias(_SCORE))
        for name in score_columns
    ]
    collected = pl.collect_all(queries, engine="streaming")
    # Without groups the aggregation has one row even for an empty frame; grouped, none.
    wide = collected[0] if by_columns else collected[0].filter(pl.col("rows") > 0)
    kinds = _KINDS if behavior is not None else ()
    keys = [*by_columns, _SCORE]
    distributions = pl.concat(collected[1:], how="diagonal_relaxed")
    summary = _with_exact_means(_long(wide, by_columns, thresholds, kinds), distributions, keys)
    bins = (
        distributions.group_by([*keys, _VALUE]).agg(
            pl.col(_PART + _exact.COUNT).sum().alias(_WEIGHT)
        )
        if n_bootstrap > 0
        else None
    )
    mean_low, mean_high = _bootstrap_bounds(
        summary,
        bins,
        keys,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    pass_low, pass_high = [], []
    for passes, n in zip(summary["passed"], summary["scored"], strict=True):
        low, high = wilson_interval(passes, n, confidence=confidence) if n else (None, None)
        pass_low.append(low)
        pass_high.append(high)
    result = summary.with_columns(
        _rate("passed", "scored").alias("pass_rate"),
        pl.Series("mean_low", mean_low, dtype=pl.Float64),
        pl.Series("mean_high", mean_high, dtype=pl.Float64),
        pl.Series("pass_rate_low", pass_low, dtype=pl.Float64),
        pl.Series("pass_rate_high", pass_high, dtype=pl.Float64),
    )
    columns: list[Any] = [*by_columns, _SCORE, *_COLUMNS]
    for kind in kinds:
        columns += [
            pl.col(f"{kind}_scored"),
            _rate(f"{kind}_passed", f"{kind}_scored").alias(f"{kind}_pass_rate"),
        ]
    return result.select(columns)


#: The kinds of case of ``expected_behavior``.
_KINDS = ("good", "bad")

#: The summary's columns after the ``by`` and ``score`` columns.
_COLUMNS = (
    "rows",
    "scored",
    "inconclusive",
    "mean",
    "mean_low",
    "mean_high",
    "threshold",
    "passed",
    "pass_rate",
    "pass_rate_low",
    "pass_rate_high",
)


def _rate(passed: str, scored: str) -> pl.Expr:
    """Return ``passed / scored``, null where nothing is scored."""
    return pl.when(pl.col(scored) > 0).then(pl.col(passed) / pl.col(scored))


def _check_columns(
    schema: pl.Schema, scores: str | Sequence[str] | None, by: str | Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """Check the score and ``by`` columns of :func:`summarize`; return them as lists."""
    by_columns = _as_list(by, "by")
    score_columns = _as_list(scores, "scores") if scores is not None else _default_scores(schema)
    if not score_columns:
        raise invalid_parameter(
            _FUNCTION,
            "scores",
            "one or more score columns (none was given and no float column is named after a "
            f"registered scorer; columns: {schema.names()})",
            scores,
        )
    for role, names in (("score", score_columns), ("by", by_columns)):
        for name in names:
            if name not in schema:
                raise ColumnNotFoundError.from_missing(
                    name, schema.names(), role=role, parameter="scores" if role == "score" else role
                )
    check_score_types(schema, score_columns, function=_FUNCTION)
    if set(score_columns) & set(by_columns) or _SCORE in by_columns:
        raise invalid_parameter(
            _FUNCTION, "by", f"columns other than the score columns and {_SCORE!r}", by_columns
        )
    return score_columns, by_columns


def check_score_types(schema: pl.Schema, scores: Sequence[str], *, function: str) -> None:
    """Check that the score columns (already known to exist) are numeric and distinct."""
    for name in scores:
        if not schema[name].is_numeric():
            raise ColumnTypeError(
                f"The score column {name!r} must be numeric; it is {schema[name]}.\n"
                f"Hint: cast it first, e.g. pl.col({name!r}).cast(pl.Float64)."
            )
    if len(set(scores)) != len(scores):
        raise invalid_parameter(function, "scores", "distinct column names", list(scores))


def _check_interval_options(*, confidence: float, n_bootstrap: int, seed: int) -> None:
    check_number(
        confidence, function=_FUNCTION, parameter="confidence", minimum=0.0, strict_minimum=True
    )
    if not 0.0 < confidence < 1.0:
        raise invalid_parameter(_FUNCTION, "confidence", "a number in (0, 1)", confidence)
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise invalid_parameter(_FUNCTION, "n_bootstrap", "an integer >= 0", n_bootstrap)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise invalid_parameter(_FUNCTION, "seed", "an integer >= 0", seed)


def _aggregates(
    values: Mapping[str, pl.Expr], thresholds: Mapping[str, float], behavior: pl.Expr | None
) -> list[pl.Expr]:
    """Every count of every score column, named ``<index>:<statistic>`` (the mean is apart)."""
    aggregates: list[pl.Expr] = [pl.len().alias("rows")]
    for index, (name, value) in enumerate(values.items()):
        passed = value >= thresholds[name]
        aggregates += [
            value.count().alias(f"{index}:scored"),
            value.null_count().alias(f"{index}:inconclusive"),
            passed.sum().alias(f"{index}:passed"),
        ]
        if behavior is not None:
            for kind in _KINDS:
                is_kind = (behavior == kind).fill_null(value=False)
                aggregates += [
                    value.filter(is_kind).count().alias(f"{index}:{kind}_scored"),
                    passed.filter(is_kind).sum().alias(f"{index}:{kind}_passed"),
                ]
    return aggregates


def _long(
    wide: pl.DataFrame,
    by_columns: Sequence[str],
    thresholds: Mapping[str, float],
    kinds: Sequence[str],
) -> pl.DataFrame:
    """Turn the wide aggregation into one row per group and score column, in the given order."""
    fields = ["scored", "inconclusive", "passed"]
    fields += [f"{kind}_{what}" for kind in kinds for what in ("scored", "passed")]
    parts = [
        wide.select(
            *by_columns,
            pl.lit(name, dtype=pl.String).alias(_SCORE),
            "rows",
            *[pl.col(f"{index}:{field}").alias(field) for field in fields],
            pl.lit(threshold, dtype=pl.Float64).alias("threshold"),
            pl.lit(index, dtype=pl.Int64).alias("__order"),
        )
        for index, (name, threshold) in enumerate(thresholds.items())
    ]
    counts = ["rows", "scored", "inconclusive", "passed"]
    counts += [f"{kind}_{what}" for kind in kinds for what in ("scored", "passed")]
    return (
        pl.concat(parts)
        .with_columns(pl.col(counts).cast(pl.UInt32))
        .sort([*by_columns, "__order"], nulls_last=True, maintain_order=True)
        .drop("__order")
    )


def _with_exact_means(
    summary: pl.DataFrame, distributions: pl.DataFrame, keys: list[str]
) -> pl.DataFrame:
    """Add each summary row's exact mean (rounded once) after its ``inconclusive`` column.

    ``distributions`` holds :mod:`polarscore._exact`'s integer sums per group, score column and
    bucket (and bin): they are added up per bucket first (exact), then put together in Python.
    """
    bucket = _PART + _exact.BUCKET
    per_bucket = (
        distributions.group_by([*keys, bucket])
        .agg(pl.col(_PART + c).sum() for c in _SUMMED)
        .sort([*keys, bucket], nulls_last=True)
    )
    found = [
        (*key, _exact.exact_mean(rows.iter_rows(named=True), _PART))
        for key, rows in per_bucket.group_by(keys, maintain_order=True)
    ]
    schema = pl.Schema({**per_bucket.select(keys).schema, "mean": pl.Float64()})
    means = pl.DataFrame(found, schema=schema, orient="row")
    joined = summary.join(means, on=keys, how="left", nulls_equal=True, maintain_order="left")
    position = summary.columns.index("inconclusive") + 1
    return joined.select([*summary.columns[:position], "mean", *summary.columns[position:]])


def _bootstrap_bounds(
    summary: pl.DataFrame,
    bins: pl.DataFrame | None,
    keys: list[str],
    *,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> tuple[list[float | None], list[float | None]]:
    """Bootstrap bounds of the mean for each summary row, from its (value, count) bins."""
    import numpy as np  # imported on demand: scoring never needs it

    lows: list[float | None] = [None] * summary.height
    highs: list[float | None] = [None] * summary.height
    if bins is None or bins.height == 0:
        return lows, highs
    # Sorted values: the draws (and so the interval) must not depend on the hash order.
    grouped = (
        bins.sort([*keys, _VALUE], nulls_last=True)
        .group_by(keys, maintain_order=True)
        .agg(pl.col(_VALUE), pl.col(_WEIGHT))
    )
    indexed = (
        summary.select(keys)
        .with_row_index("__row")
        .join(grouped, on=keys, how="inner", nulls_equal=True)
    )
    for row, values, counts in indexed.select("__row", _VALUE, _WEIGHT).iter_rows():
        v = np.asarray(values, dtype=np.float64)
        c = np.asarray(counts, dtype=np.int64)
        low, high = bootstrap_mean_interval(
            v, c, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed
        )
        exact_mean = summary["mean"][row]
        shift = exact_mean - float(v @ c) / float(c.sum())
        lows[row] = low + shift
        highs[row] = high + shift
    return lows, highs


__all__ = ["BOOTSTRAP_DECIMALS", "bootstrap_mean_interval", "summarize", "wilson_interval"]
