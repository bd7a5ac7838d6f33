"""The report page: one HTML document with inline CSS and inline SVG, no script, no network."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from polarscore.reporting import _svg
from polarscore.reporting._aggregate import HISTOGRAM_BINS, Paired, ReportData
from polarscore.reporting._framework import render_section
from polarscore.reporting._text import cell, esc

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a202c;
  margin: 0; background: #f5f6f8; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 24px 40px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d9dde3; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.lead, p.how { color: #4a5568; margin: 4px 0 10px; }
section.card { background: #fff; border: 1px solid #e2e6ea; border-radius: 6px; padding: 10px 14px;
  margin: 10px 0; overflow-x: auto; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 8px 0; }
.facts div span { color: #4a5568; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0; }
th, td { border-bottom: 1px solid #e2e6ea; padding: 3px 8px; text-align: left;
  vertical-align: top; }
th { background: #f0f2f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 420px; }
table.rows { width: 100%; table-layout: fixed; }
table.rows td { font-size: 12.5px; }
table.overview td:first-child { white-space: nowrap; }
.cut { color: #b7322c; font-style: italic; }
.null { color: #8a94a3; font-style: italic; }
.sig { color: #b7322c; font-weight: 600; }
ul.list { margin: 0; padding-left: 16px; }
.note { background: #fffbea; border: 1px solid #f6e05e; padding: 6px 10px; border-radius: 4px; }
.grid { display: flex; flex-wrap: wrap; gap: 12px 28px; }
code { font-size: 12.5px; background: #f0f2f5; padding: 0 3px; border-radius: 3px; }
svg { max-width: 100%; height: auto; }
footer { color: #8a94a3; margin-top: 30px; font-size: 12px; }
.print-only { display: none; }
@media print {
  body { background: #fff; font-size: 11px; }
  details { display: none; }
  .print-only { display: block; }
  main { max-width: none; padding: 0; }
  section.card { border: none; padding: 0; margin: 6px 0; overflow: visible;
    break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
  td.text { max-width: none; }
  table.rows { break-inside: auto; }
  tr { break-inside: avoid; page-break-inside: avoid; }
}
"""


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _header(data: ReportData) -> str:
    groups = f"{data.groups_total:,} groups by {', '.join(data.by)}" if data.by else "no grouping"
    facts = [
        ("log", data.source),
        ("rows", f"{data.rows:,}"),
        ("score columns", ", ".join(data.scores)),
        ("groups", groups),
        ("verdict", data.verdict or _no_verdict(data)),
        ("intervals", f"{data.confidence:.0%}"),
    ]
    items = "".join(f"<div><span>{esc(k)}:</span> {esc(v)}</div>" for k, v in facts)
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in data.notes)
    return f'<h1>{esc(data.title)}</h1><div class="facts">{items}</div>{notes}'


def _overview(data: ReportData) -> str:
    """One table: a row per group, a column per score, the pass rate and its interval."""
    names = [*data.scores, *([data.verdict_label] if data.verdict_label else [])]
    summary = data.summary.filter(pl.col("group").is_in(data.groups_shown))
    cells = {(r["group"], r["score"]): r for r in summary.iter_rows(named=True)}
    head = "".join(f"<th class='num'>{esc(n)}</th>" for n in names)
    body = []
    for group in data.groups_shown:
        row = [f"<td>{esc(group)}</td>"]
        for name in names:
            r = cells.get((group, name))
            if r is None or r["pass_rate"] is None:
                row.append("<td class='num'>–</td>")
                continue
            shade = r["pass_rate"] * 100
            row.append(
                f"<td class='num' style='background:rgba(43,108,176,{shade / 250:.2f})' "
                f"title='{esc(_interval(r['pass_rate_low'], r['pass_rate_high']))}'>"
                f"{_pct(r['pass_rate'])}</td>"
            )
        body.append(f"<tr>{''.join(row)}</tr>")
    return (
        "<h2>Overview</h2><p class='how'>Pass rate per group and score column (hover a cell "
        "for its interval); details below.</p>"
        f"<section class='card'><table class='overview'><tr><th>group</th>{head}</tr>"
        f"{''.join(body)}</table>"
        "</section>"
    )


def _summary_section(data: ReportData) -> str:
    out = [
        "<h2>Pass rate and mean score</h2>",
        '<p class="how">Per group, sorted by pass rate. The pass rate is the share of scored rows '
        "at or above the threshold, with its Wilson interval; the mean score has a seeded "
        "percentile bootstrap interval. Inconclusive rows (no score) count in neither.</p>",
    ]
    summary = data.summary.filter(pl.col("group").is_in(data.groups_shown))
    names = [*data.scores, *([data.verdict_label] if data.verdict_label else [])]
    for name in names:
        part = summary.filter(pl.col("score") == name).sort(
            ["pass_rate", "mean"], descending=True, nulls_last=True
        )
        if part.height == 0:
            continue
        rows = part.to_dicts()
        labels = [str(r["group"]) for r in rows]
        passes = [
            _svg.Interval(r["pass_rate"], r["pass_rate_low"], r["pass_rate_high"]) for r in rows
        ]
        means = [_svg.Interval(r["mean"], r["mean_low"], r["mean_high"]) for r in rows]
        notes = [
            f"{_pct(r['pass_rate'])} · mean {_num(r['mean'])} · "
            f"{_pct(r['inconclusive'] / r['rows'] if r['rows'] else None)} inconcl."
            for r in rows
        ]
        threshold = rows[0]["threshold"]
        title = f"{name}: pass rate (threshold {threshold:g}) and mean score by group"
        table = "".join(
            f"<tr><td>{esc(r['group'])}</td><td class='num'>{r['rows']:,}</td>"
            f"<td class='num'>{r['scored']:,}</td><td class='num'>{r['inconclusive']:,}</td>"
            f"<td class='num'>{_num(r['pass_rate'])}</td>"
            f"<td class='num'>{_interval(r['pass_rate_low'], r['pass_rate_high'])}</td>"
            f"<td class='num'>{_num(r['mean'])}</td>"
            f"<td class='num'>{_interval(r['mean_low'], r['mean_high'])}</td></tr>"
            for r in rows
        )
        numbers = (
            "<table><tr><th>group</th>"
            "<th class='num'>rows</th><th class='num'>scored</th>"
            "<th class='num'>inconclusive</th><th class='num'>pass rate</th>"
            "<th class='num'>interval</th><th class='num'>mean</th><th class='num'>interval</th>"
            f"</tr>{table}</table>"
        )
        # On screen the table folds away; on paper (where nothing unfolds) it is printed.
        out.append(
            f'<section class="card"><h3>{esc(name)} <small>(pass: score ≥ {threshold:g})</small>'
            f"</h3>{_svg.interval_chart(labels, passes, means, notes, title=title)}"
            f"<details><summary>numbers</summary>{numbers}</details>"
            f'<div class="print-only">{numbers}</div></section>'
        )
    return "".join(out)


def _distribution_section(data: ReportData) -> str:
    out = [
        "<h2>Score distributions</h2>",
        f'<p class="how">{HISTOGRAM_BINS} bins on [0, 1] per score column and group; each row is '
        "scaled to its own tallest bin (hover a bar for its count).</p>",
    ]
    for score in data.scores:
        groups = data.groups_shown
        counts = [data.histograms[score][g] for g in groups]
        out.append(
            f'<section class="card"><h3>{esc(score)}</h3>'
            f"{_svg.histogram_rows(groups, counts, title=f'{score}: score distribution')}"
            "</section>"
        )
    return "".join(out)


def _paired_row(p: Paired, alpha: float) -> str:
    mean_sig = p.mean_significant()
    pass_sig = p.pass_significant(alpha)
    mark = ' class="num sig"'
    return (
        f"<tr><td>{esc(p.first)}</td><td>{esc(p.second)}</td>"
        f"<td class='num'>{p.questions:,}</td>"
        f"<td{mark if mean_sig else ' class=num'}>{p.mean_difference:+.3f}"
        f"{' *' if mean_sig else ''}</td>"
        f"<td class='num'>{_interval(p.low, p.high)}</td>"
        f"<td class='num'>{'–' if p.mdd is None else f'±{p.mdd:.3f}'}</td>"
        f"<td class='num'>{_pct(p.first_pass_rate)} vs {_pct(p.second_pass_rate)}</td>"
        f"<td class='num'>{'' if p.only_first is None else f'{p.only_first:,} / {p.only_second:,}'}"
        f"</td><td{mark if pass_sig else ' class=num'}>"
        f"{'–' if p.p_value is None else f'{p.p_value:.2g}'}"
        f"{'' if p.p_adjusted in (None, p.p_value) else f' (Holm {p.p_adjusted:.2g})'}"
        f"{' *' if pass_sig else ''}</td></tr>"
    )


def _paired_section(data: ReportData) -> str:
    out = ["<h2>Paired differences</h2>"]
    if not data.pair_on:
        out.append(
            '<p class="how">Not computed: name the column that identifies a question with '
            "<code>--pair-on COLUMN</code> (<code>pair_on=</code> in Python) to compare groups on "
            "the questions they share.</p>"
        )
        return "".join(out)
    if not data.paired:
        out.append('<p class="how">No two groups share a question with a score.</p>')
        return "".join(out)
    alpha = 1.0 - data.confidence
    holm = len(data.paired_groups) > 2
    out.append(
        f'<p class="how">Each two groups compared on the questions both answered (paired on '
        f"{esc(', '.join(data.pair_on))}; a question's repeated rows are averaged), as "
        "<code>polarscore compare</code> does. Mean difference first − second with the "
        f"Student-t {data.confidence:.0%} interval of its paired standard error, and the "
        "smallest difference the questions can detect at 80% power; pass rates compared with "
        "McNemar's exact test on the discordant questions"
        + (", Holm-corrected over the pairs" if holm else "")
        + f". <span class='sig'>*</span> marks an interval that excludes 0 or p &lt; {alpha:g}."
        "</p>"
    )
    for score in data.scores:
        mine = [p for p in data.paired if p.score == score]
        if not mine:
            continue
        labels = [f"{p.first} − {p.second}" for p in mine]
        diffs = [_svg.Interval(p.mean_difference, p.low, p.high) for p in mine]
        chart = _svg.difference_chart(
            labels,
            diffs,
            [p.mean_significant() for p in mine],
            title=f"{score}: paired mean differences",
        )
        rows = "".join(_paired_row(p, alpha) for p in mine)
        out.append(
            f'<section class="card"><h3>{esc(score)}</h3>{chart}<table><tr><th>first</th>'
            "<th>second</th><th class='num'>questions</th><th class='num'>mean diff.</th>"
            "<th class='num'>interval</th><th class='num'>detectable (80% power)</th>"
            "<th class='num'>pass rates</th>"
            "<th class='num'>only first / only second pass</th><th class='num'>McNemar p</th>"
            f"</tr>{rows}</table></section>"
        )
    return "".join(out)


def _no_verdict(data: ReportData) -> str:
    """Say what the report compares with when no verdict column is named."""
    frameworks = [c.framework for c in data.frameworks]
    if frameworks:
        return (
            f"the framework's own ({', '.join(frameworks)}), compared below; name a human "
            "verdict column with verdict= or --verdict"
        )
    return "none (name a verdict column: verdict= or --verdict)"


def _verdict_section(data: ReportData) -> str:
    out = ["<h2>Agreement with the verdict</h2>"]
    if data.verdict is None:
        out.append(
            '<p class="how">Not computed: name a column of human or reference verdicts '
            "(true/false, or 1/0) with <code>--verdict COLUMN</code> (<code>verdict=</code>).</p>"
        )
        return "".join(out)
    out.append(
        f'<p class="how">Each score column\'s pass/fail against <code>{esc(data.verdict)}</code>, '
        "over rows with both. Cohen's kappa corrects the agreement for chance. The sweep shows "
        "both as the pass threshold moves (the dashed line is the threshold used).</p>"
    )
    cards = []
    for agreement in data.agreements:
        c = agreement.confusion
        best = max(
            (p for p in agreement.sweep if p[2] is not None),
            key=lambda p: p[2] if p[2] is not None else -2.0,
            default=None,
        )
        best_text = (
            f"<br>best kappa on the sweep: {best[2]:.3f} at threshold {best[0]:g}" if best else ""
        )
        matrix = (
            "<table><tr><th></th><th>verdict correct</th><th>verdict wrong</th></tr>"
            f"<tr><th>passes</th><td class='num'>{c.true_pass:,}</td>"
            f"<td class='num'>{c.false_pass:,}</td></tr>"
            f"<tr><th>fails</th><td class='num'>{c.false_fail:,}</td>"
            f"<td class='num'>{c.true_fail:,}</td></tr></table>"
        )
        chart = _svg.sweep_chart(
            agreement.sweep,
            agreement.threshold,
            title=f"{agreement.score}: agreement and kappa against the threshold",
        )
        cards.append(
            f'<section class="card"><h3>{esc(agreement.score)}</h3><div class="grid"><div>'
            f"agreement <b>{_pct(c.agreement)}</b> · kappa <b>{_num(c.kappa)}</b> over "
            f"{c.n:,} rows (threshold {agreement.threshold:g}){best_text}{matrix}</div>"
            f"<div>{chart}</div></div></section>"
        )
    out.extend(cards)
    return "".join(out)


def _rows_section(data: ReportData) -> str:
    out = [
        "<h2>Rows worth reading</h2>",
        '<p class="how">For each score column, a seeded sample of the rows behind the numbers'
        + (
            " where the scorer and the verdict disagree"
            if data.verdict
            else ": failures and inconclusive rows"
        )
        + ". Text is shown as written by the model, escaped, and cut when long.</p>",
    ]
    response = data.sample_columns.get("response")
    reference = data.sample_columns.get("reference")
    question = data.sample_columns.get("question")
    ident = data.sample_columns.get("id")
    for sample in data.samples:
        if sample.matching == 0:
            out.append(
                f'<section class="card"><h3>{esc(sample.score)}: {esc(sample.kind)}</h3>'
                "<p>No such row.</p></section>"
            )
            continue
        heads = [
            "row",
            *(["id"] if ident else []),
            *(["group"] if data.by else []),
            *(["question"] if question else []),
            "response",
            "reference",
            "score",
            *(["verdict"] if data.verdict else []),
            "reason",
        ]
        widths = {"row": "5%", "id": "9%", "group": "9%", "score": "6%", "verdict": "6%"}
        head = "".join(
            f'<th style="width:{widths[h]}">{esc(h)}</th>' if h in widths else f"<th>{esc(h)}</th>"
            for h in heads
        )
        body = []
        for row in sample.rows:
            cells = [f"<td class='num'>{row['__polarscore_row']:,}</td>"]
            if ident:
                cells.append(f"<td class='text'>{cell(row.get(ident), limit=120)}</td>")
            if data.by:
                group = " · ".join("(null)" if row.get(c) is None else str(row[c]) for c in data.by)
                cells.append(f"<td class='text'>{cell(group, limit=120)}</td>")
            if question:
                cells.append(f"<td class='text'>{cell(row.get(question), limit=600)}</td>")
            cells.append(f"<td class='text'>{cell(row.get(response) if response else None)}</td>")
            cells.append(
                f"<td class='text'>{cell(row.get(reference) if reference else None, items=8)}</td>"
            )
            cells.append(f"<td class='num'>{cell(row.get(sample.score))}</td>")
            if data.verdict:
                cells.append(f"<td>{cell(row.get(data.verdict))}</td>")
            reason = row.get(f"{sample.score}_details")
            if isinstance(reason, dict):  # the score is in its own column already
                reason = {k: v for k, v in reason.items() if k != "score"}
            cells.append(f"<td class='text'>{cell(reason)}</td>")
            body.append(f"<tr>{''.join(cells)}</tr>")
        out.append(
            f'<section class="card"><h3>{esc(sample.score)}: {esc(sample.kind)} '
            f"<small>({len(sample.rows)} of {sample.matching:,} rows)</small></h3>"
            f'<table class="rows"><tr>{head}</tr>{"".join(body)}</table></section>'
        )
    return "".join(out)


def _provenance_section(data: ReportData) -> str:
    out = ["<h2>How the log was scored</h2>"]
    info = "".join(f"<div><span>{esc(k)}:</span> {esc(v)}</div>" for k, v in data.file_info.items())
    if info:
        out.append(f'<div class="facts">{info}</div>')
    record = data.provenance
    if record is None:
        out.append(
            '<p class="how">The log carries no polarscore record (it was not written by '
            "<code>polarscore score -o</code>, or not as Parquet). Thresholds: "
            + esc(", ".join(f"{k} {v:g}" for k, v in data.thresholds.items()))
            + ".</p>"
        )
        return "".join(out)
    against = (
        f"references {record.get('references')!r}"
        if record.get("references") is not None
        else f"reference {record.get('reference')!r}"
    )
    when = record.get("scored_at")
    question = record.get("question_id")
    out.append(
        f"<p>Scored by polarscore {esc(record.get('polarscore_version', '?'))}"
        + ("" if when is None else f" at {esc(when)}")
        + f": response {esc(repr(record.get('response')))} against {esc(against)}"
        + ("" if question is None else f", questions identified by {esc(repr(question))}")
        + f" (record version {esc(record.get('record_version', '?'))}).</p>"
    )
    rows = []
    for entry in record.get("scorers", []):
        if not isinstance(entry, dict):
            continue
        options = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in entry.get("options", {}).items()
        )
        threshold = entry.get("threshold")
        rows.append(
            f"<tr><td>{esc(entry.get('column'))}</td><td>{esc(entry.get('name'))}</td>"
            f"<td class='text'>{esc(options) or '–'}</td>"
            f"<td class='num'>{'–' if threshold is None else esc(threshold)}</td></tr>"
        )
    if rows:
        out.append(
            "<table><tr><th>column</th><th>scorer</th><th>options</th><th>threshold</th></tr>"
            f"{''.join(rows)}</table>"
        )
    inputs = [i for i in record.get("inputs", []) if isinstance(i, dict)]
    if inputs:
        # A row count is recorded only where it was free to know (Parquet metadata).
        listed = "".join(
            f"<li>{esc(i.get('path'))}"
            + ("" if i.get("rows") is None else f" ({i['rows']:,} rows)")
            + "</li>"
            for i in inputs[:20]
        )
        more = f"<li>and {len(inputs) - 20:,} more</li>" if len(inputs) > 20 else ""
        out.append(f"<p>Inputs:</p><ul>{listed}{more}</ul>")
    known = {
        "record_version",
        "polarscore_version",
        "scorers",
        "response",
        "reference",
        "references",
        "inputs",
        "scored_at",
        "question_id",
    }
    extra = {k: v for k, v in record.items() if k not in known}
    if extra:
        out.append(
            f"<p>Other recorded fields:</p><pre>{esc(json.dumps(extra, indent=1, default=str))}"
            "</pre>"
        )
    return "".join(out)


def render(data: ReportData, *, version: str) -> str:
    """Return the report page for ``data`` as one HTML string."""
    body = "".join(
        [
            _header(data),
            _overview(data),
            _summary_section(data),
            _distribution_section(data),
            _paired_section(data),
            _verdict_section(data),
            render_section(data.frameworks, data.sample_columns),
            _rows_section(data),
            _provenance_section(data),
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing on the page may reach the network, run a script or load anything from a log.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(data.title)}</title><style>{_CSS}</style></head><body><main>{body}"
        f"<footer>Made by polarscore {esc(version)}: one self-contained page, no script, "
        "nothing loaded from the network.</footer></main></body></html>\n"
    )
