"""Summaries of score columns: counts, mean, pass rate, and how sure we are.

:func:`summarize` reads one or more score columns (optionally per group) and reports what
DataRobot's eval pipeline reports (scored and inconclusive cases, mean score, pass rate at a
threshold, good-case and bad-case pass rates) together with the standard error of the mean, a
Wilson interval for the pass rate and a seeded bootstrap interval for the mean. When rows are not
independent draws (several epochs of one question, questions that share a passage) the standard
error is the clustered one and the bootstrap resamples whole clusters; epochs can instead be
reduced to one score per question first, as inspect-ai does.

Everything except the bootstrap is one lazy aggregation, so a ``LazyFrame`` over a Parquet log is
never collected whole. The bootstrap needs only the empirical distribution of each group's scores,
which is also aggregated lazily: see :func:`summarize` (Notes).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import polars as pl

from polarscore import _exact
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore._typing import FrameT
from polarscore._utils import text_column
from polarscore._validation import check_number, invalid_parameter
from polarscore.exceptions import ColumnNotFoundError, ColumnTypeError, ColumnValueError
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
_BIN = "__polarscore_bin"
_PART = "__polarscore_"
_SUMMED = (
    _exact.COUNT,
    *_exact.PIECES,
    _exact.POS_INF,
    _exact.NEG_INF,
)
_SUM = "__polarscore_sum"
_SIZE = "__polarscore_size"
_PASSES = "__polarscore_passes"
_ORDER = "__polarscore_order"
_TIES = "__polarscore_ties"

#: ``cluster="auto"``: cluster an eval log's rows by question when it holds several epochs.
AUTO_CLUSTER = "auto"
#: The columns of :data:`polarscore.LOG_SCHEMA` that say which question and epoch a row is.
LOG_SAMPLE_COLUMNS = ("task", "sample_id")
LOG_EPOCH_COLUMN = "epoch"

#: The epoch reducers (inspect-ai's names); ``at_least_k`` is written with its k: ``at_least_2``.
EPOCH_REDUCERS = ("mean", "max", "mode", "at_least_k")


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
    cluster: str | Sequence[str] | None = AUTO_CLUSTER,
    epoch_reducer: str | None = None,
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
    cluster
        Column(s) grouping rows that are not independent draws: the epochs of one question
        (``"sample_id"``), questions on one passage or document. The standard error is then the
        clustered one and the bootstrap resamples whole clusters. ``"auto"`` (default): an eval
        log read by :func:`polarscore.read_log` with more than one epoch is clustered by
        question (its ``task`` and ``sample_id``; the ``clusters`` column says so), anything
        else is taken row by row. ``None``: rows are independent. Nulls are refused.
    epoch_reducer
        With a ``cluster``: reduce each cluster's scores to one first, as inspect-ai reduces
        epochs: ``"mean"``, ``"max"``, ``"mode"`` or ``"at_least_K"`` (1 when at least ``K`` of
        the scores reach the threshold). The mean, standard error, bootstrap, ``passed`` and
        pass rate are then over the reduced questions (the counts of rows stay counts of rows).
        ``None`` (default): every row counts, with clustered errors.
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
        * ``clusters`` (``UInt32``): the clusters (questions) behind the errors, null when the
          rows are independent;
        * ``mean``, ``mean_se``, ``mean_low``, ``mean_high``: the mean score over scored rows,
          its standard error (clustered with ``cluster``; null with fewer than two clusters or
          rows) and its bootstrap interval (inside [0, 1] for scores in [0, 1]);
        * ``threshold``, ``passed``, ``pass_rate``, ``pass_rate_low``, ``pass_rate_high``: the
          pass count and rate over scored rows and its Wilson interval (clustered: at the
          effective sample size ``p(1 - p) / SE²`` of the clustered standard error, never above
          the rows);
        * with ``expected_behavior``: ``good_scored``, ``good_pass_rate``, ``bad_scored``,
          ``bad_pass_rate``.

        Rates and bounds are null where no row is scored.

    Notes
    -----
    **Standard error.** :func:`clustered_standard_error`: ``sqrt(G / (G - 1) · Σ_g (Σ_{i∈g}
    (x_i - x̄))²) / n`` over ``G`` clusters, Miller's clustered standard error ("Adding Error
    Bars to Evals", 2024) with the usual ``G / (G - 1)`` small-sample correction: statsmodels'
    cluster-robust standard error of an OLS fit on a constant with its default
    ``use_correction=True``, and inspect-ai's ``stderr(cluster=...)``. Unclustered, each row is
    its own cluster and this is ``std(ddof=1) / sqrt(n)``, inspect-ai's ``stderr()``; with
    ``epoch_reducer``, each question's reduced score is one row, so on equal epochs the mean
    and standard error are exactly what inspect-ai reports for its reducer.

    **Bootstrap.** The percentile bootstrap of a mean depends on the sample only through its
    empirical distribution, so each group's scores are aggregated lazily into (value, count)
    bins and resampled with one multinomial draw per resample (see
    :func:`cluster_bootstrap_interval`): exactly the row-resampling bootstrap, at a cost that
    does not grow with the number of rows. To bound the number of bins, scores are binned to
    ``BOOTSTRAP_DECIMALS`` (4) decimal places (at most 10,001 bins on [0, 1]), and each bin
    stands for its rows with their exact mean, not the rounded value: the resampled means are
    means of actual scores, so the interval never leaves the scores' range (the bounds are also
    clipped to [0, 1] for scores in [0, 1]) and is centred on the exact mean. For scores with
    at most 4 decimals (binary scores, and scorers that round like the reference libraries) the
    binning loses nothing; otherwise it drops the variation within a bin (below 1e-4² / 12), as
    does the unclustered standard error computed from the same bins. Clustered, the clusters
    are resampled, binned the same way by size and mean.

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
    reducer = parse_epoch_reducer(epoch_reducer, function=_FUNCTION)
    cluster_columns = _cluster_columns(
        lazy, schema, cluster, by_columns=by_columns, function=_FUNCTION
    )
    if reducer is not None and not cluster_columns:
        raise invalid_parameter(
            _FUNCTION,
            "epoch_reducer",
            "None when the rows are not clustered (name the question column with cluster=)",
            epoch_reducer,
        )
    if cluster != AUTO_CLUSTER:
        check_no_nulls(lazy, cluster_columns, parameter="cluster")

    # One wide aggregation per group: every count of every score column side by side, with
    # the thresholds as literals. (A long frame with a per-row threshold looked up from the score
    # name is not streamed by Polars: it held the whole unpivoted log in memory.)
    values = {s: pl.col(s).cast(pl.Float64).fill_nan(None) for s in score_columns}
    behavior = pl.col(expected_behavior).cast(pl.String) if expected_behavior is not None else None
    aggregates = _aggregates(values, thresholds, behavior)
    wide_q = lazy.group_by(by_columns).agg(aggregates) if by_columns else lazy.select(aggregates)
    # Each group's distribution of each score: exact integer sums per binary order of magnitude
    # (the mean, the same bits whatever the engine's summation order) and, for the standard
    # error and the bootstrap of independent rows, the same sums per value binned to 4 decimals.
    binned = [] if cluster_columns else [pl.col(_VALUE).round(BOOTSTRAP_DECIMALS).alias(_BIN)]
    queries = [wide_q] + [
        lazy.select(*by_columns, values[name].alias(_VALUE))
        .filter(pl.col(_VALUE).is_not_null())
        .with_columns(_exact.parts(pl.col(_VALUE), _PART))
        .group_by([*by_columns, *binned, _PART + _exact.BUCKET])
        .agg(_exact.sums(_PART))
        .with_columns(pl.lit(name, dtype=pl.String).alias(_SCORE))
        for name in score_columns
    ]
    # Clustered: each cluster's sum, size and passes (or each question's reduced score).
    order = (
        pl.col(LOG_EPOCH_COLUMN) if LOG_EPOCH_COLUMN in schema else pl.int_range(pl.len())
    ).cast(pl.Int64)
    queries += [
        _unit_query(
            lazy,
            [*by_columns, *cluster_columns],
            values[name],
            threshold=thresholds[name],
            reducer=reducer,
            order=order,
        )
        .drop(cluster_columns)
        .with_columns(pl.lit(name, dtype=pl.String).alias(_SCORE))
        for name in (score_columns if cluster_columns else [])
    ]
    collected = pl.collect_all(queries, engine="streaming")
    # Without groups the aggregation has one row even for an empty frame; grouped, none.
    wide = collected[0] if by_columns else collected[0].filter(pl.col("rows") > 0)
    kinds = _KINDS if behavior is not None else ()
    keys = [*by_columns, _SCORE]
    distributions = pl.concat(collected[1 : 1 + len(score_columns)], how="diagonal_relaxed")
    summary = _with_exact_means(_long(wide, by_columns, thresholds, kinds), distributions, keys)
    if cluster_columns:
        units = pl.concat(collected[1 + len(score_columns) :], how="diagonal_relaxed")
    else:
        units = _bins(distributions, keys)
    summary = _with_intervals(
        summary,
        units,
        keys,
        reduced=reducer is not None,
        clustered=bool(cluster_columns),
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    columns: list[Any] = [*by_columns, _SCORE, *_COLUMNS]
    for kind in kinds:
        columns += [
            pl.col(f"{kind}_scored"),
            _rate(f"{kind}_passed", f"{kind}_scored").alias(f"{kind}_pass_rate"),
        ]
    return summary.select(columns)


#: The kinds of case of ``expected_behavior``.
_KINDS = ("good", "bad")

#: The summary's columns after the ``by`` and ``score`` columns.
_COLUMNS = (
    "rows",
    "scored",
    "inconclusive",
    "clusters",
    "mean",
    "mean_se",
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


def _bins(distributions: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Each group's scores binned to 4 decimals: each bin's exact mean (rounded) and count."""
    bucket = _PART + _exact.BUCKET
    return (
        distributions.sort([*keys, _BIN, bucket], nulls_last=True)
        .with_columns(_exact.bucket_value(_PART).alias(_SUM))
        .group_by([*keys, _BIN], maintain_order=True)
        .agg(
            pl.col(_SUM).cum_sum().last().alias(_SUM),
            pl.col(_PART + _exact.COUNT).sum().cast(pl.Int64).alias(_WEIGHT),
        )
        .with_columns(
            (pl.col(_SUM) / pl.col(_WEIGHT)).alias(_SUM), pl.lit(1, dtype=pl.Int64).alias(_SIZE)
        )
    )


def _with_intervals(
    summary: pl.DataFrame,
    units: pl.DataFrame,
    keys: list[str],
    *,
    reduced: bool,
    clustered: bool,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> pl.DataFrame:
    """Add the standard error, the intervals and the cluster count of each summary row.

    ``units`` holds, per summary row, its clusters (sum, size, passes; with ``reduced``, one
    reduced score per question) or, unclustered, its value bins (mean, count).
    """
    import numpy as np  # imported on demand: scoring never needs it

    if _WEIGHT not in units.columns:
        units = units.with_columns(pl.lit(1, dtype=pl.Int64).alias(_WEIGHT))
    # Sorted by value: the sums (and the bootstrap's draws) must not depend on the hash order.
    grouped = (
        units.sort([*keys, _SIZE, _SUM], nulls_last=True)
        .group_by(keys, maintain_order=True)
        .agg(pl.all().exclude(keys))
    )
    indexed = (
        summary.select(keys)
        .with_row_index("__row")
        .join(grouped, on=keys, how="inner", nulls_equal=True)
    )
    height = summary.height
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    means: list[float | None] = summary["mean"].to_list()
    passed: list[int | None] = summary["passed"].to_list()
    scored: list[int | None] = summary["scored"].to_list()
    clusters: list[int | None] = [None] * height
    se: list[float | None] = [None] * height
    lows: list[float | None] = [None] * height
    highs: list[float | None] = [None] * height
    effective: dict[int, float] = {}
    denominators = list(scored)  # of the pass rate: rows, or reduced questions
    for row in indexed.iter_rows(named=True):
        index = row["__row"]
        sums = np.asarray(row[_SUM], dtype=np.float64)
        sizes = np.asarray(row[_SIZE], dtype=np.float64)
        weights = np.asarray(row[_WEIGHT], dtype=np.float64)
        if reduced:
            means[index] = math.fsum(sums.tolist()) / sums.size if sums.size else None
            passed[index] = int(np.sum(row[_PASSES]))
            denominators[index] = sums.size
        if clustered:
            clusters[index] = sums.size
        if clustered and not reduced and scored[index] and passed[index] is not None:
            # The clustering's design effect on the pass rate: Wilson's interval at the
            # effective sample size p(1 - p) / SE² (Korn and Graubard 1998), never above n.
            rows_scored = float(scored[index] or 0)
            rate = (passed[index] or 0) / rows_scored
            p_se = _clustered_se(np.asarray(row[_PASSES], dtype=np.float64), sizes, weights, rate)
            if p_se is not None and p_se > 0.0:
                effective[index] = min(rows_scored, rate * (1.0 - rate) / (p_se * p_se))
        se[index], lows[index], highs[index] = _interval_of_units(
            sums,
            sizes,
            weights,
            means[index],
            confidence=confidence,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    pass_rate: list[float | None] = [None] * height
    pass_low: list[float | None] = [None] * height
    pass_high: list[float | None] = [None] * height
    for index in range(height):
        denominator, k = denominators[index], passed[index]
        if not denominator or k is None:
            continue
        rate = k / denominator
        pass_rate[index] = rate
        pass_low[index], pass_high[index] = _wilson(
            rate, effective.get(index, float(denominator)), z
        )
    return summary.with_columns(
        pl.Series("passed", passed, dtype=pl.UInt32),
        pl.Series("clusters", clusters, dtype=pl.UInt32),
        pl.Series("mean", means, dtype=pl.Float64),
        pl.Series("mean_se", se, dtype=pl.Float64),
        pl.Series("mean_low", lows, dtype=pl.Float64),
        pl.Series("mean_high", highs, dtype=pl.Float64),
        pl.Series("pass_rate", pass_rate, dtype=pl.Float64),
        pl.Series("pass_rate_low", pass_low, dtype=pl.Float64),
        pl.Series("pass_rate_high", pass_high, dtype=pl.Float64),
    )


def clustered_standard_error(
    values: Any,
    clusters: Any = None,
    *,
    correction: bool = True,
) -> float:
    """Return the standard error of the mean of ``values``, clustered by ``clusters``.

    Parameters
    ----------
    values
        The scores (a 1-D array or sequence of finite numbers).
    clusters
        One cluster label per value (any hashable labels, for example question ids), or
        ``None``: each value its own cluster (independent draws).
    correction
        Multiply the variance by ``G / (G - 1)`` (``G`` clusters), the usual small-sample
        correction (default); ``False`` gives the formula as Miller (2024) prints it.

    Returns
    -------
    float
        ``sqrt(c · Σ_g (Σ_{i∈g} (x_i - x̄))²) / n`` with ``c = G / (G - 1)`` (or 1); NaN for fewer
        than two clusters.

    Notes
    -----
    ``Σ_g (Σ_{i∈g} e_i)² = Σ_i e_i² + Σ_g Σ_{i≠j∈g} e_i e_j``: the independent-draws variance
    plus the within-cluster covariances, Miller's clustered standard error ("Adding Error Bars
    to Evals", 2024, eq. 6). With the correction this is statsmodels' cluster-robust standard
    error of an OLS fit on a constant (``cov_type="cluster"`` with its default
    ``use_correction=True``: ``G / (G - 1) · (n - 1) / (n - k)`` with ``k = 1`` parameter) and
    inspect-ai's ``stderr(cluster=...)``; without clusters it is ``std(ddof=1) / sqrt(n)``, the
    central-limit standard error inspect-ai reports.

    Examples
    --------
    >>> from polarscore.summary import clustered_standard_error
    >>> round(clustered_standard_error([1, 0, 1, 1]), 4)
    0.25
    >>> round(clustered_standard_error([1, 1, 0, 0], ["a", "a", "b", "b"]), 4)
    0.5
    """
    import numpy as np  # imported on demand: scoring never needs it

    x = np.asarray(values, dtype=np.float64)
    if clusters is None:
        sums, sizes = x, np.ones_like(x)
    else:
        codes = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
        sums = np.bincount(codes, weights=x).astype(np.float64)
        sizes = np.bincount(codes).astype(np.float64)
    se = _clustered_se(sums, sizes, np.ones_like(sums), float(x.mean()), correction=correction)
    return math.nan if se is None else se


def _clustered_se(
    sums: np.ndarray[Any, Any],
    sizes: np.ndarray[Any, Any],
    weights: np.ndarray[Any, Any],
    mean: float,
    *,
    correction: bool = True,
) -> float | None:
    """Clustered SE from each cluster's sum and size (``weights`` copies of each); None if G < 2."""
    if float(weights.sum()) < 2 or not math.isfinite(mean):
        return None
    import numpy as np  # imported on demand: scoring never needs it

    se = float(
        clustered_standard_errors(
            sums[np.newaxis, :], sizes, np.array([mean]), weights=weights, correction=correction
        )[0]
    )
    return se if math.isfinite(se) else None


def clustered_standard_errors(
    sums: np.ndarray[Any, Any],
    sizes: np.ndarray[Any, Any],
    means: np.ndarray[Any, Any],
    *,
    weights: np.ndarray[Any, Any] | None = None,
    correction: bool = True,
) -> np.ndarray[Any, Any]:
    """Clustered standard errors of many samples at once, from their cluster sums.

    The kernel of :func:`clustered_standard_error`, vectorised over samples that share their
    clusters' sizes (a simulation, or resamples): one row of ``sums`` per sample.

    Parameters
    ----------
    sums
        ``(samples, clusters)``: each cluster's sum of scores in each sample.
    sizes
        ``(clusters,)``: each cluster's number of rows.
    means
        ``(samples,)``: each sample's mean (``sums.sum(1) / sizes.sum()``, given so that an
        exactly rounded mean can be passed).
    weights
        ``(clusters,)``: how many clusters each column stands for (default: one each).
    correction
        Multiply the variance by ``G / (G - 1)`` (see :func:`clustered_standard_error`).

    Returns
    -------
    numpy.ndarray
        ``(samples,)`` standard errors (NaN with fewer than two clusters).

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.summary import clustered_standard_errors
    >>> sums = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> clustered_standard_errors(sums, np.array([2.0, 2.0]), sums.sum(axis=1) / 4).tolist()
    [0.5, 0.0]
    """
    import numpy as np  # imported on demand: scoring never needs it

    sums = np.asarray(sums, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    w = np.ones(sizes.size) if weights is None else np.asarray(weights, dtype=np.float64)
    clusters = float(w.sum())
    if clusters < 2:
        return np.full(sums.shape[0], np.nan)
    with np.errstate(over="ignore", invalid="ignore"):  # scores near the float range
        deviations = sums - np.asarray(means, dtype=np.float64)[:, np.newaxis] * sizes
        variance = (deviations * deviations) @ w
    if correction:
        variance = variance * (clusters / (clusters - 1.0))
    result: np.ndarray[Any, Any] = np.sqrt(variance) / float(w @ sizes)
    return result


def cluster_bootstrap_interval(
    sums: np.ndarray[Any, Any],
    sizes: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any],
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean, resampling whole clusters.

    Each resample draws as many clusters as there are, with replacement, and takes the mean of
    every row in the drawn clusters: ``Σ w_g S_g / Σ w_g n_g`` for ``w_g`` copies of a cluster
    with sum ``S_g`` over ``n_g`` rows. Clusters that are alike (the same size and sum) are given
    once with their ``counts``, and the copies drawn of each follow ``Multinomial(G, counts /
    G)``: one draw over the distinct clusters per resample, made in blocks of resamples with
    NumPy (no Python loop over resamples). With one-row clusters this is the row bootstrap of
    :func:`bootstrap_mean_interval`, draw for draw.

    Parameters
    ----------
    sums, sizes
        Each distinct cluster's sum of scores and number of rows (sizes positive).
    counts
        How many clusters are like each (positive).
    confidence
        Two-sided confidence level in (0, 1).
    n_bootstrap
        Number of resamples.
    seed
        Seed of the NumPy generator.

    Returns
    -------
    tuple[float, float]
        The ``(1 - confidence) / 2`` and ``1 - (1 - confidence) / 2`` quantiles of the resampled
        means; every resampled mean lies between the smallest and the largest cluster mean.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.summary import cluster_bootstrap_interval
    >>> low, high = cluster_bootstrap_interval(
    ...     np.array([0.0, 1.0, 2.0]), np.array([2, 2, 2]), np.array([30, 40, 30])
    ... )
    >>> bool(0.4 < low < 0.5 < high < 0.6)
    True
    """
    import numpy as np  # imported on demand: scoring never needs it

    sums = np.asarray(sums, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    clusters = int(counts.sum())
    rng = np.random.default_rng(seed)
    probabilities = counts / clusters
    block = max(1, _BOOTSTRAP_BLOCK // max(1, sums.size))
    means = np.empty(n_bootstrap, dtype=np.float64)
    equal_sizes = bool(sizes.size and (sizes == sizes[0]).all())
    for start in range(0, n_bootstrap, block):
        size = min(block, n_bootstrap - start)
        draws = rng.multinomial(clusters, probabilities, size=size)
        # Clusters of one size (rows, or equal epochs): every resample has the same row count.
        rows = clusters * sizes[0] if equal_sizes else draws @ sizes
        means[start : start + size] = (draws @ sums) / rows
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _wilson(rate: float, n: float, z: float) -> tuple[float, float]:
    """Wilson interval of a proportion ``rate`` over a (possibly effective, fractional) ``n``."""
    z2n = z * z / n
    centre = (rate + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(max(rate * (1.0 - rate), 0.0) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_epoch_reducer(value: Any, *, function: str) -> tuple[str, int] | None:
    """Check an ``epoch_reducer`` option; return ``(kind, k)`` (``k`` for ``at_least_k``)."""
    if value is None:
        return None
    if isinstance(value, str):
        if value in ("mean", "max", "mode"):
            return value, 0
        found = re.fullmatch(r"at_least_([1-9][0-9]{0,8})", value)
        if found:
            return "at_least", int(found.group(1))
    raise invalid_parameter(
        function,
        "epoch_reducer",
        "None or one of 'mean', 'max', 'mode', 'at_least_K' (K a positive integer)",
        value,
    )


def reduce_epochs(
    frame: pl.LazyFrame,
    keys: Sequence[str],
    value: pl.Expr,
    *,
    reducer: tuple[str, int],
    threshold: float,
    order: pl.Expr,
) -> pl.LazyFrame:
    """Reduce each question's rows (epochs) to one score, as inspect-ai's reducers do.

    Returns one row per ``keys`` with a score, the score in ``__polarscore_value``: ``mean``
    (of the question's scores, summed in sorted order so the bits do not depend on the row
    order), ``max``, ``mode`` (the most frequent score; a tie goes to the score seen first in
    ``order``, as ``collections.Counter.most_common`` does) or ``at_least_k`` (1.0 when at least
    ``k`` of the question's scores reach ``threshold``, else 0.0). Null scores are left out.
    """
    kind, k = reducer
    rows = frame.select(*keys, value.alias(_VALUE), order.alias(_ORDER)).filter(
        pl.col(_VALUE).is_not_null()
    )
    if kind == "mode":
        counted = rows.group_by([*keys, _VALUE]).agg(
            pl.len().alias(_TIES), pl.col(_ORDER).min().alias(_ORDER)
        )
        return counted.group_by(list(keys)).agg(
            pl.col(_VALUE).sort_by([_TIES, _ORDER], descending=[True, False]).first()
        )
    if kind == "mean":
        reduced = pl.col(_VALUE).sort().sum() / pl.len()
    elif kind == "max":
        reduced = pl.col(_VALUE).max()
    else:
        reduced = ((pl.col(_VALUE) >= threshold).sum() >= k).cast(pl.Float64)
    return rows.group_by(list(keys)).agg(reduced.alias(_VALUE))


def _cluster_columns(
    lazy: pl.LazyFrame,
    schema: pl.Schema,
    cluster: str | Sequence[str] | None,
    *,
    by_columns: Sequence[str],
    function: str,
) -> list[str]:
    """Return the cluster columns: those named, or for ``"auto"`` an eval log's questions.

    ``"auto"`` clusters by ``task`` and ``sample_id`` (those of them the frame has) when the
    frame has :data:`polarscore.LOG_SCHEMA`'s ``sample_id`` and ``epoch`` columns and more than
    one epoch.
    """
    if cluster == AUTO_CLUSTER:
        if "sample_id" not in schema or LOG_EPOCH_COLUMN not in schema:
            return []
        epochs = pl.col(LOG_EPOCH_COLUMN)
        spread = lazy.select((epochs.max() > epochs.min()).alias("x")).collect(engine="streaming")
        if not spread["x"][0]:
            return []
        return [c for c in LOG_SAMPLE_COLUMNS if c in schema and c not in by_columns]
    columns = _as_list(cluster, "cluster")
    for name in columns:
        if name not in schema:
            raise ColumnNotFoundError.from_missing(
                name, schema.names(), role="cluster", parameter="cluster"
            )
    if set(columns) & set(by_columns):
        raise invalid_parameter(function, "cluster", "columns other than the by columns", columns)
    return columns


def check_no_nulls(lazy: pl.LazyFrame, columns: Sequence[str], *, parameter: str) -> None:
    """Raise :class:`ColumnValueError` naming the first of ``columns`` that holds nulls."""
    if not columns:
        return
    nulls = lazy.select(pl.col(c).null_count() for c in columns).collect(engine="streaming")
    for column in columns:
        count = int(nulls[column][0])
        if count:
            raise ColumnValueError(
                f"The {parameter} column {column!r} has {count:,} null value"
                f"{'s' if count != 1 else ''}: every row must say which {parameter} it belongs "
                f"to.\nHint: fill them (pl.col({column!r}).fill_null(...)) or drop those rows."
            )


def _unit_query(
    lazy: pl.LazyFrame,
    keys: Sequence[str],
    value: pl.Expr,
    *,
    threshold: float,
    reducer: tuple[str, int] | None,
    order: pl.Expr,
) -> pl.LazyFrame:
    """Each cluster's (or reduced question's) sum, size and passes, per ``keys``."""
    if reducer is not None:
        reduced = reduce_epochs(
            lazy, keys, value, reducer=reducer, threshold=threshold, order=order
        )
        return reduced.select(
            *keys,
            pl.col(_VALUE).alias(_SUM),
            pl.lit(1, dtype=pl.Int64).alias(_SIZE),
            (pl.col(_VALUE) >= threshold).cast(pl.Int64).alias(_PASSES),
        )
    return (
        lazy.select(*keys, value.alias(_VALUE))
        .filter(pl.col(_VALUE).is_not_null())
        .group_by(list(keys))
        .agg(
            pl.col(_VALUE).sort().sum().alias(_SUM),
            pl.len().cast(pl.Int64).alias(_SIZE),
            (pl.col(_VALUE) >= threshold).sum().cast(pl.Int64).alias(_PASSES),
        )
    )


def _interval_of_units(
    sums: np.ndarray[Any, Any],
    sizes: np.ndarray[Any, Any],
    weights: np.ndarray[Any, Any],
    mean: float | None,
    *,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> tuple[float | None, float | None, float | None]:
    """Return the standard error and bootstrap bounds of a mean from its clusters (or bins).

    The bootstrap's clusters are binned by size and mean (4 decimals); each bin stands for its
    clusters with their exact average sum, so every resampled mean is a mean of actual cluster
    means and the bounds stay between the smallest and largest of them (inside [0, 1] for
    polarscore's scores: they are also clipped there).
    """
    import numpy as np  # imported on demand: scoring never needs it

    if mean is None or not math.isfinite(mean) or sums.size == 0:
        return None, None, None
    se = _clustered_se(sums, sizes, weights, mean)
    if n_bootstrap == 0 or not np.isfinite(sums).all():
        return se, None, None
    cluster_means = sums / sizes
    keys = np.stack([sizes, np.round(cluster_means, BOOTSTRAP_DECIMALS)], axis=1)
    distinct, codes = np.unique(keys, axis=0, return_inverse=True)
    codes = codes.reshape(-1)
    counts = np.bincount(codes, weights=weights)
    representative = np.bincount(codes, weights=weights * sums) / counts
    low, high = cluster_bootstrap_interval(
        representative,
        distinct[:, 0],
        np.rint(counts).astype(np.int64),
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    if cluster_means.min() >= 0.0 and cluster_means.max() <= 1.0:
        low, high = min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)
    return se, low, high


__all__ = [
    "BOOTSTRAP_DECIMALS",
    "EPOCH_REDUCERS",
    "bootstrap_mean_interval",
    "cluster_bootstrap_interval",
    "clustered_standard_error",
    "clustered_standard_errors",
    "summarize",
    "wilson_interval",
]
