"""Where polarscore's verdict and the eval framework's own disagree: a section of the report.

A log read from an eval framework (:func:`polarscore.scan_log`) keeps the framework's verdicts as
``framework_<scorer>`` columns. For each of them and each score column, the report counts the
rows where polarscore passes and the framework says wrong, and the other way round (a confusion
matrix, agreement and Cohen's kappa), and shows a seeded sample of both kinds of row. A framework
verdict counts as correct at 0.5 or more (inspect-ai's ``C``, and ``P``, which it reads as 0.5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from polarscore.reporting._aggregate import RowSample, VerdictAgreement, _agreements, _samples
from polarscore.reporting._text import cell, esc

#: A framework verdict at or above this is correct.
FRAMEWORK_CORRECT = 0.5
#: At most this many framework columns are compared (the first ones of the log).
MAX_FRAMEWORKS = 6

_KINDS = {
    "fails, but the verdict says correct": "polarscore fails, the framework says correct",
    "passes, but the verdict says wrong": "polarscore passes, the framework says wrong",
}


@dataclass
class FrameworkComparison:
    """One framework verdict column against polarscore's score columns."""

    framework: str
    agreements: list[VerdictAgreement]
    samples: list[RowSample]


def framework_columns(schema: pl.Schema, prefix: str = "framework_") -> list[str]:
    """Return the numeric framework verdict columns of a log, in order."""
    return [c for c, t in schema.items() if c.startswith(prefix) and t.is_numeric()]


def compare(
    lazy: pl.LazyFrame,
    *,
    frameworks: Sequence[str],
    scores: Sequence[str],
    thresholds: Mapping[str, float],
    columns: Sequence[str],
    per_kind: int,
    seed: int,
    notes: list[str],
) -> list[FrameworkComparison]:
    """Compare each framework column with every score column (lazy aggregations)."""
    if len(frameworks) > MAX_FRAMEWORKS:
        notes.append(
            f"The log has {len(frameworks)} framework verdict columns: the report compares the "
            f"first {MAX_FRAMEWORKS}."
        )
    results = []
    for framework in frameworks[:MAX_FRAMEWORKS]:
        correct = pl.col(framework).cast(pl.Float64).fill_nan(None) >= FRAMEWORK_CORRECT
        agreements = _agreements(lazy, scores, correct, thresholds)
        shown = list(dict.fromkeys([*columns, *scores, framework]))
        samples, _ = _samples(
            lazy,
            scores,
            thresholds,
            correct,
            shown,
            per_kind=per_kind,
            seed=seed,
            details={},
            notes=notes,
        )
        for sample in samples:
            sample.kind = _KINDS.get(sample.kind, sample.kind)
        results.append(FrameworkComparison(framework, agreements, samples))
    return results


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _rows(comparison: FrameworkComparison, columns: Mapping[str, str | None]) -> str:
    out = []
    shown = [
        ("id", columns.get("id")),
        ("question", columns.get("question")),
        ("response", columns.get("response")),
        ("reference", columns.get("reference")),
    ]
    present = [(label, name) for label, name in shown if name is not None]
    for sample in comparison.samples:
        title = f"{esc(sample.score)}: {esc(sample.kind)}"
        if sample.matching == 0:
            out.append(f"<h4>{title}</h4><p>No such row.</p>")
            continue
        head = "".join(f"<th>{esc(label)}</th>" for label, _ in present)
        body = []
        for row in sample.rows:
            cells = "".join(
                f"<td class='text'>{cell(row.get(name), limit=600, items=8)}</td>"
                for _, name in present
            )
            body.append(
                f"<tr><td class='num'>{row['__polarscore_row']:,}</td>{cells}"
                f"<td class='num'>{cell(row.get(sample.score))}</td>"
                f"<td class='num'>{cell(row.get(comparison.framework))}</td></tr>"
            )
        out.append(
            f"<h4>{title} <small>({len(sample.rows)} of {sample.matching:,} rows)</small></h4>"
            f"<table class='rows'><tr><th style='width:5%'>row</th>{head}"
            f"<th style='width:7%'>score</th><th style='width:8%'>framework</th></tr>"
            f"{''.join(body)}</table>"
        )
    return "".join(out)


def render_section(
    comparisons: Sequence[FrameworkComparison], columns: Mapping[str, str | None]
) -> str:
    """Return the report's section on the framework's own verdicts (empty without any)."""
    if not comparisons:
        return ""
    out = [
        "<h2>Against the framework's own verdicts</h2>",
        '<p class="how">The log keeps the verdicts of the eval framework that wrote it. Each '
        "score column's pass/fail against each of them (a framework verdict of 0.5 or more is "
        "correct), over rows with both, and a seeded sample of the rows where they disagree.</p>",
    ]
    for comparison in comparisons:
        lines = []
        for agreement in comparison.agreements:
            c = agreement.confusion
            lines.append(
                f"<tr><td>{esc(agreement.score)}</td><td class='num'>{c.n:,}</td>"
                f"<td class='num'>{_pct(c.agreement)}</td>"
                f"<td class='num'>{'–' if c.kappa is None else f'{c.kappa:.3f}'}</td>"
                f"<td class='num'>{c.true_pass:,}</td><td class='num'>{c.true_fail:,}</td>"
                f"<td class='num'>{c.false_pass:,}</td><td class='num'>{c.false_fail:,}</td></tr>"
            )
        out.append(
            f'<section class="card"><h3>{esc(comparison.framework)}</h3>'
            "<table><tr><th>score</th><th>rows</th><th>agreement</th><th>kappa</th>"
            "<th>both pass</th><th>both fail</th><th>polarscore passes, framework wrong</th>"
            f"<th>polarscore fails, framework correct</th></tr>{''.join(lines)}</table>"
            f"{_rows(comparison, columns)}</section>"
        )
    return "".join(out)
