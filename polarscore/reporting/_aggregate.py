"""Everything the report shows, computed lazily from a scored log: aggregates and a few rows.

Every query here is a lazy Polars aggregation (run with the streaming engine), so a
``LazyFrame`` over a Parquet log is never collected whole: the results are one row per group and
score column, histograms, (value, count) bins for the bootstraps and the threshold sweep, and a
bounded, seeded sample of rows. Only the sampled rows' text is ever read into Python.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polarscore import _exact
from polarscore.comparison import holm, mcnemar_p_value, paired_difference
from polarscore.exceptions import PolarscoreError
from polarscore.reporting._stats import Confusion
from polarscore.summary import summarize

#: Above this many sampled rows, they are read in one pass over the log instead of one by one.
MAX_ROW_READS = 400
#: Bins of the score histograms on [0, 1].
HISTOGRAM_BINS = 20
#: Groups drawn in the charts (the largest groups by rows when there are more).
MAX_GROUPS = 40
#: Groups compared pairwise (the largest groups by rows when there are more).
MAX_PAIRED_GROUPS = 8
#: Resolution of the (value, count) bins behind the threshold sweep (4 decimals: exact for it).
FINE_BINS = 10_000
#: Thresholds of the sweep.
SWEEP = [round(i / 20, 2) for i in range(21)]

_GROUP = "__polarscore_group"
_SCORE = "__polarscore_score"
_VALUE = "__polarscore_value"
_VERDICT = "__polarscore_verdict"
_ROW = "__polarscore_row"
_KEY = "__polarscore_key"
_BIN = "__polarscore_bin"
_COUNT = "__polarscore_count"
_PART = "__polarscore_part_"

#: How the values of several ``by`` columns are joined into one group label.
GROUP_SEPARATOR = " · "
NULL_LABEL = "(null)"


@dataclass
class Paired:
    """Two groups compared on the questions both answered, for one score column."""

    score: str
    first: str
    second: str
    questions: int
    mean_difference: float
    low: float | None
    high: float | None
    first_pass_rate: float | None
    second_pass_rate: float | None
    only_first: int | None
    only_second: int | None
    p_value: float | None
    #: The paired standard error of the mean difference and the smallest difference detected
    #: at 80% power (:func:`polarscore.comparison.paired_difference`).
    se: float | None = None
    mdd: float | None = None
    #: McNemar's p-value after Holm's correction over the pairs of the score (more than two
    #: groups), else the p-value itself.
    p_adjusted: float | None = None

    def mean_significant(self) -> bool:
        """Whether the interval of the mean difference excludes 0."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def pass_significant(self, alpha: float) -> bool:
        """Whether McNemar's test (Holm-corrected) rejects equal pass rates at level ``alpha``."""
        p = self.p_value if self.p_adjusted is None else self.p_adjusted
        return p is not None and p < alpha


@dataclass
class VerdictAgreement:
    """One score column against the verdict: the confusion matrix and the threshold sweep."""

    score: str
    threshold: float
    confusion: Confusion
    sweep: list[tuple[float, float | None, float | None]]  # (threshold, agreement, kappa)


@dataclass
class RowSample:
    """A seeded sample of the rows of one kind (say failures) for one score column."""

    score: str
    kind: str
    matching: int
    rows: list[dict[str, Any]]


@dataclass
class ReportData:
    """What the page shows; built by :func:`aggregate`."""

    title: str
    source: str
    rows: int
    columns: list[str]
    scores: list[str]
    by: list[str]
    thresholds: dict[str, float]
    confidence: float
    summary: pl.DataFrame
    histograms: dict[str, dict[str, list[int]]]
    groups_shown: list[str]
    groups_total: int
    pair_on: list[str]
    paired: list[Paired]
    paired_groups: list[str]
    verdict: str | None
    verdict_label: str | None
    agreements: list[VerdictAgreement]
    samples: list[RowSample]
    sample_columns: dict[str, str | None]
    provenance: dict[str, Any] | None
    file_info: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The framework verdict columns against the scores (``_framework.FrameworkComparison``).
    frameworks: list[Any] = field(default_factory=list)


def group_label(by: Sequence[str]) -> pl.Expr:
    """Return the group of a row as one string: its ``by`` values joined, nulls as ``(null)``."""
    if not by:
        return pl.lit("all rows", dtype=pl.String)
    parts = [pl.col(c).cast(pl.String).fill_null(NULL_LABEL) for c in by]
    return pl.concat_str(parts, separator=GROUP_SEPARATOR) if len(parts) > 1 else parts[0]


def _value(score: str) -> pl.Expr:
    return pl.col(score).cast(pl.Float64).fill_nan(None)


def _fine_bin(value: pl.Expr) -> pl.Expr:
    # For every threshold t of the sweep, t * 10000 rounds to the integer t * 10000 or above, so
    # a score v >= t always lands in a bin >= t * 10000 (0.35 * 10000 is 3500.0000000000005).
    return (value * FINE_BINS).floor().clip(0, FINE_BINS).cast(pl.Int32)


def _sweep(bins: pl.DataFrame, score: str) -> list[tuple[float, float | None, float | None]]:
    """Agreement and kappa at each threshold of :data:`SWEEP`, from (verdict, bin) counts."""
    import numpy as np  # imported on demand: scoring never needs it

    mine = bins.filter(pl.col(_SCORE) == score)
    correct = np.zeros(FINE_BINS + 1, dtype=np.int64)
    wrong = np.zeros(FINE_BINS + 1, dtype=np.int64)
    for verdict, index, count in mine.select(_VERDICT, _BIN, _COUNT).iter_rows():
        (correct if verdict else wrong)[index] += count
    # passes at threshold t: bins >= t * FINE_BINS; suffix sums give them for every t.
    correct_at_least = np.cumsum(correct[::-1])[::-1]
    wrong_at_least = np.cumsum(wrong[::-1])[::-1]
    total_correct, total_wrong = int(correct.sum()), int(wrong.sum())
    points = []
    for t in SWEEP:
        index = round(t * FINE_BINS)
        true_pass = int(correct_at_least[index])
        false_pass = int(wrong_at_least[index])
        confusion = Confusion(
            true_pass=true_pass,
            false_pass=false_pass,
            false_fail=total_correct - true_pass,
            true_fail=total_wrong - false_pass,
        )
        points.append((t, confusion.agreement, confusion.kappa))
    return points


def _paired(
    lazy: pl.LazyFrame,
    scores: Sequence[str],
    by: Sequence[str],
    pair_on: Sequence[str],
    groups: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    confidence: float,
    n_bootstrap: int,
    seed: int,
) -> list[Paired]:
    """Compare every two of ``groups`` on the ``pair_on`` questions both have a score for.

    For each score column, one streaming aggregation gives each question's mean score in each
    group (a question's repeated rows are averaged, inspect-ai's ``mean`` epoch reducer): a
    table of questions x groups (8 bytes a cell; it grows with the questions, not the rows).
    Each pair is then :func:`polarscore.comparison.paired_difference`, the code behind
    :func:`polarscore.compare`: the mean difference (``math.fsum``'s exactly rounded sum), its
    paired standard error and Student-t interval; the pass rates at the threshold are compared
    with McNemar's exact test, Holm-corrected over the pairs when more than two groups are
    compared. ``n_bootstrap`` and ``seed`` are not used: the interval is analytic.
    """
    import numpy as np  # imported on demand: scoring never needs it

    del n_bootstrap, seed  # the paired interval is the analytic one of polarscore.compare
    label = group_label(by).alias(_GROUP)
    results = []
    for score in scores:
        per_question = _question_means(lazy, pair_on, label, score, groups)
        columns = {
            group: per_question[str(index)].to_numpy().astype(np.float64)
            for index, group in enumerate(groups)
        }
        threshold = thresholds[score]
        mine: list[Paired] = []
        for i, first in enumerate(groups):
            for second in groups[i + 1 :]:
                a, b = columns[first], columns[second]
                both = ~np.isnan(a) & ~np.isnan(b)
                n = int(both.sum())
                if n == 0:
                    continue
                a, b = a[both], b[both]
                stats = paired_difference(a, b, confidence=confidence)
                first_passes, second_passes = a >= threshold, b >= threshold
                only_first = int((first_passes & ~second_passes).sum())
                only_second = int((~first_passes & second_passes).sum())
                mine.append(
                    Paired(
                        score=score,
                        first=first,
                        second=second,
                        questions=n,
                        mean_difference=stats.difference,
                        low=stats.low,
                        high=stats.high,
                        first_pass_rate=float(first_passes.mean()),
                        second_pass_rate=float(second_passes.mean()),
                        only_first=only_first,
                        only_second=only_second,
                        p_value=mcnemar_p_value(only_first, only_second),
                        se=stats.se,
                        mdd=stats.mdd,
                    )
                )
        p_values = [p.p_value for p in mine if p.p_value is not None]
        adjusted = holm(p_values) if len(groups) > 2 else p_values
        for pair, p in zip(mine, adjusted, strict=True):
            pair.p_adjusted = p
        results += mine
    return results


def _question_means(
    lazy: pl.LazyFrame,
    pair_on: Sequence[str],
    label: pl.Expr,
    score: str,
    groups: Sequence[str],
) -> pl.DataFrame:
    """Return each question's mean ``score`` in each of ``groups``, one column per group.

    The columns are ``"0"``, ``"1"``, ...; null where the group has no scored row for the
    question; rows in no set order.

    A question's rows are summed exactly per bucket (:mod:`polarscore._exact`); the buckets of a
    cell, in increasing order, are then added in floating point: the same bits every time.
    """
    bucket = _PART + _exact.BUCKET
    cells = (
        lazy.select(*pair_on, label, _value(score).alias(_VALUE))
        .filter(
            pl.col(_VALUE).is_not_null()
            & pl.all_horizontal(pl.col(c).is_not_null() for c in pair_on)
            & pl.col(_GROUP).is_in(list(groups))
        )
        .with_columns(_exact.parts(pl.col(_VALUE), _PART))
        .group_by([*pair_on, _GROUP, bucket])
        .agg(_exact.sums(_PART))
        .collect(engine="streaming")
        .sort([*pair_on, _GROUP, bucket], nulls_last=True)
    )
    totals = (
        cells.with_columns(_exact.bucket_value(_PART).alias(_VALUE))
        .group_by([*pair_on, _GROUP], maintain_order=True)
        .agg(
            pl.col(_VALUE).cum_sum().last().alias(_VALUE),
            pl.col(_PART + _exact.COUNT).sum().alias(_COUNT),
        )
        .with_columns((pl.col(_VALUE) / pl.col(_COUNT)).alias(_VALUE))
    )
    return (
        totals.group_by(list(pair_on))
        .agg(
            pl.col(_VALUE).filter(pl.col(_GROUP) == group).first().alias(str(index))
            for index, group in enumerate(groups)
        )
        .drop(pair_on)
    )


def _verdict_expr(verdict: str, dtype: pl.DataType) -> pl.Expr:
    if dtype == pl.Boolean:
        return pl.col(verdict)
    return (pl.col(verdict).cast(pl.Float64) != 0).alias(verdict)


def _agreements(
    lazy: pl.LazyFrame,
    scores: Sequence[str],
    verdict: pl.Expr,
    thresholds: Mapping[str, float],
) -> list[VerdictAgreement]:
    # One pair of queries per score column, its threshold a literal (so that Polars streams them).
    queries = []
    for score in scores:
        both = (
            lazy.select(verdict.alias(_VERDICT), _value(score).alias(_VALUE))
            .drop_nulls()
            .with_columns(pl.lit(score, dtype=pl.String).alias(_SCORE))
        )
        passed = (pl.col(_VALUE) >= thresholds[score]).alias("passed")
        queries.append(both.group_by(_SCORE, _VERDICT, passed).agg(pl.len().alias(_COUNT)))
        queries.append(
            both.group_by(_SCORE, _VERDICT, _fine_bin(pl.col(_VALUE)).alias(_BIN)).agg(
                pl.len().alias(_COUNT)
            )
        )
    collected = pl.collect_all(queries, engine="streaming")
    at_threshold = pl.concat(collected[0::2])
    bins = pl.concat(collected[1::2])
    results = []
    for score in scores:
        cells = {
            (v, p): c
            for s, v, p, c in at_threshold.select(_SCORE, _VERDICT, "passed", _COUNT).iter_rows()
            if s == score
        }
        confusion = Confusion(
            true_pass=cells.get((True, True), 0),
            false_pass=cells.get((False, True), 0),
            false_fail=cells.get((True, False), 0),
            true_fail=cells.get((False, False), 0),
        )
        results.append(
            VerdictAgreement(
                score=score,
                threshold=thresholds[score],
                confusion=confusion,
                sweep=_sweep(bins, score),
            )
        )
    return results


def _sample_kinds(
    score: str, threshold: float, verdict: pl.Expr | None
) -> list[tuple[str, pl.Expr]]:
    value = _value(score)
    if verdict is not None:
        return [
            ("fails, but the verdict says correct", (value < threshold) & verdict),
            ("passes, but the verdict says wrong", (value >= threshold) & ~verdict),
        ]
    return [
        (f"fails (score below {threshold:g})", value < threshold),
        ("inconclusive (no score)", value.is_null()),
    ]


def _samples(
    lazy: pl.LazyFrame,
    scores: Sequence[str],
    thresholds: Mapping[str, float],
    verdict: pl.Expr | None,
    columns: Sequence[str],
    *,
    per_kind: int,
    seed: int,
    details: Mapping[str, pl.Expr],
    notes: list[str],
) -> tuple[list[RowSample], pl.DataFrame]:
    """Pick ``per_kind`` rows of each kind for each score column (seeded), then read only them."""
    indexed = lazy.with_row_index(_ROW)
    kinds = [
        (score, kind, condition)
        for score in scores
        for kind, condition in _sample_kinds(score, thresholds[score], verdict)
    ]
    if per_kind == 0 or not kinds:
        return [RowSample(s, k, 0, []) for s, k, _ in kinds], pl.DataFrame()
    key = pl.col(_ROW).hash(seed=seed).alias(_KEY)
    picks = [
        indexed.filter(condition.fill_null(value=False))
        .select(_ROW, key)
        .bottom_k(per_kind, by=_KEY)
        for _, _, condition in kinds
    ]
    counts = lazy.select(
        [
            condition.fill_null(value=False).sum().alias(str(i))
            for i, (_, _, condition) in enumerate(kinds)
        ]
    )
    *picked, counted = pl.collect_all([*picks, counts], engine="streaming")
    wanted = sorted({int(r) for frame in picked for r in frame[_ROW]})
    rows = pl.DataFrame()
    # The columns the details read (correct's task kind and options among them) come along.
    read = [n for e in details.values() for n in e.meta.root_names()]
    columns = list(dict.fromkeys([*columns, *(n for n in read if n in lazy.collect_schema())]))
    if len(wanted) > MAX_ROW_READS:
        rows = (
            indexed.filter(pl.col(_ROW).is_in(wanted))
            .select(_ROW, *columns)
            .collect(engine="streaming")
        )
    elif wanted:
        # One slice per row: a Parquet scan then decodes only the row group holding it, instead
        # of every row's text (on a 10M-row log: 0.7 s and 0.2 GB instead of 19 s and 0.8 GB).
        rows = pl.concat(
            pl.collect_all(
                [
                    lazy.slice(row, 1)
                    .select(*columns)
                    .with_columns(pl.lit(row, dtype=pl.Int64).alias(_ROW))
                    for row in wanted
                ]
            )
        )
    for score, expr in details.items():
        if not wanted:
            break
        try:
            rows = rows.with_columns(expr.alias(f"{score}_details"))
        except (PolarscoreError, pl.exceptions.PolarsError, TypeError) as error:
            notes.append(f"The reasons of {score!r} could not be computed: {error}")
    by_row = {r[_ROW]: r for r in rows.iter_rows(named=True)} if wanted else {}
    samples = []
    for index, ((score, kind, _), frame) in enumerate(zip(kinds, picked, strict=True)):
        chosen = sorted(int(r) for r in frame[_ROW])
        samples.append(
            RowSample(
                score=score,
                kind=kind,
                matching=int(counted[str(index)][0]),
                rows=[by_row[r] for r in chosen],
            )
        )
    return samples, rows


def aggregate(
    lazy: pl.LazyFrame,
    *,
    title: str,
    source: str,
    scores: Sequence[str],
    by: Sequence[str],
    thresholds: Mapping[str, float],
    verdict: str | None,
    pair_on: Sequence[str],
    sample_columns: Mapping[str, str | None],
    extra_columns: Sequence[str],
    per_kind: int,
    details: Mapping[str, pl.Expr],
    confidence: float,
    n_bootstrap: int,
    seed: int,
    provenance: dict[str, Any] | None,
    file_info: dict[str, Any],
    frameworks: Sequence[str] = (),
) -> ReportData:
    """Run the report's queries over ``lazy`` (columns already checked) and gather the results."""
    schema = lazy.collect_schema()
    notes: list[str] = []
    verdict_expr = _verdict_expr(verdict, schema[verdict]) if verdict is not None else None
    verdict_label = f"verdict: {verdict}" if verdict is not None else None
    summary_input = lazy
    summary_scores = list(scores)
    summary_thresholds = dict(thresholds)
    if verdict_expr is not None and verdict_label is not None:
        if verdict_label in schema:
            raise PolarscoreError(f"The column name {verdict_label!r} is taken; rename it.")
        summary_input = lazy.with_columns(verdict_expr.cast(pl.Float64).alias(verdict_label))
        summary_scores.append(verdict_label)
        summary_thresholds[verdict_label] = 0.5
    summary = summarize(
        summary_input,
        summary_scores,
        by=list(by) or None,
        threshold=summary_thresholds,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    summary = summary.with_columns(group_label(by).alias("group"))
    sizes = (
        summary.group_by("group", maintain_order=True)
        .agg(pl.col("rows").first())
        .sort("rows", descending=True, maintain_order=True)
    )
    all_groups = sizes["group"].to_list()
    shown = all_groups[:MAX_GROUPS]
    if len(all_groups) > MAX_GROUPS:
        notes.append(
            f"{len(all_groups):,} groups: the charts show the {MAX_GROUPS} with the most rows."
        )
    rows = int(summary.group_by("group").agg(pl.col("rows").first())["rows"].sum())

    long = lazy.select(group_label(by).alias(_GROUP), *[_value(s).alias(s) for s in scores])
    long = long.filter(pl.col(_GROUP).is_in(shown)).unpivot(
        on=list(scores), index=_GROUP, variable_name=_SCORE, value_name=_VALUE
    )
    bin_expr = (pl.col(_VALUE) * HISTOGRAM_BINS).floor().clip(0, HISTOGRAM_BINS - 1).cast(pl.Int32)
    histogram = (
        long.drop_nulls(_VALUE)
        .group_by(_GROUP, _SCORE, bin_expr.alias(_BIN))
        .agg(pl.len().alias(_COUNT))
        .collect(engine="streaming")
    )
    histograms: dict[str, dict[str, list[int]]] = {
        s: {g: [0] * HISTOGRAM_BINS for g in shown} for s in scores
    }
    for group, score, index, count in histogram.select(_GROUP, _SCORE, _BIN, _COUNT).iter_rows():
        histograms[score][group][index] += count

    paired: list[Paired] = []
    paired_groups = [g for g in all_groups if g != NULL_LABEL][:MAX_PAIRED_GROUPS]
    if pair_on:
        if len(all_groups) < 2:
            notes.append(
                "Paired differences need two or more groups (--by); there is one, so none is shown."
            )
        else:
            if len(all_groups) > MAX_PAIRED_GROUPS:
                notes.append(
                    f"Paired differences compare the {MAX_PAIRED_GROUPS} largest of "
                    f"{len(all_groups):,} groups."
                )
            paired = _paired(
                lazy,
                scores,
                by,
                pair_on,
                paired_groups,
                thresholds,
                confidence=confidence,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
    agreements = (
        _agreements(lazy, scores, verdict_expr, thresholds) if verdict_expr is not None else []
    )
    shown_columns = list(
        dict.fromkeys(
            [
                *extra_columns,
                *by,
                *pair_on,
                *[c for c in sample_columns.values() if c is not None],
                *scores,
                *([verdict] if verdict is not None else []),
                *[f"{s}_details" for s in scores if f"{s}_details" in schema],
            ]
        )
    )
    samples, _ = _samples(
        lazy,
        scores,
        thresholds,
        verdict_expr,
        shown_columns,
        per_kind=per_kind,
        seed=seed,
        details={s: e for s, e in details.items() if f"{s}_details" not in schema},
        notes=notes,
    )
    from polarscore.reporting._framework import compare

    comparisons = compare(
        lazy,
        frameworks=frameworks,
        scores=scores,
        thresholds=thresholds,
        columns=[*by, *[c for c in sample_columns.values() if c is not None]],
        per_kind=per_kind,
        seed=seed,
        notes=notes,
        details=details,
    )
    return ReportData(
        frameworks=comparisons,
        title=title,
        source=source,
        rows=rows,
        columns=schema.names(),
        scores=list(scores),
        by=list(by),
        thresholds=dict(thresholds),
        confidence=confidence,
        summary=summary,
        histograms=histograms,
        groups_shown=shown,
        groups_total=len(all_groups),
        pair_on=list(pair_on),
        paired=paired,
        paired_groups=paired_groups if paired else [],
        verdict=verdict,
        verdict_label=verdict_label,
        agreements=agreements,
        samples=samples,
        sample_columns=dict(sample_columns),
        provenance=provenance,
        file_info=file_info,
        notes=notes,
    )


def finite(value: float | None) -> bool:
    """Whether ``value`` is a finite number (not ``None``, NaN or infinite)."""
    return value is not None and math.isfinite(value)


__all__ = ["ReportData", "aggregate", "group_label"]
