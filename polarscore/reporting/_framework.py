"""Where polarscore's verdict and the eval framework's own disagree: a section of the report.

A log read from an eval framework (:func:`polarscore.scan_log`) keeps the framework's verdicts as
``framework_<scorer>`` columns. For each of them and each score column, the report counts the
rows where polarscore passes and the framework says wrong, and the other way round (a confusion
matrix, agreement and Cohen's kappa), and shows a seeded sample of both kinds of row. A framework
verdict counts as correct at 0.5 or more (inspect-ai's ``C``, and ``P``, which it reads as 0.5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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
    #: Per score with a details expression (``correct``): its disagreements with the framework,
    #: by reason class, most frequent first: ``(score, reason, rows, example row numbers)``.
    reasons: list[tuple[str, str, int, list[int]]] = field(default_factory=list)


def framework_correct(framework: str) -> pl.Expr:
    """Return whether the framework's verdict says correct (null where it gave none)."""
    return pl.col(framework).cast(pl.Float64).fill_nan(None) >= FRAMEWORK_CORRECT


#: How a final letter or number was written, by the extractors' form names.
_FORM_WORDS = {
    "answer_colon": "an `ANSWER: X` line",
    "answer_is": '"the answer is ..."',
    "boxed": "\\boxed{...}",
    "bold": "bold **...**",
    "parenthesized": "(X)",
    "leading_letter": "a leading letter",
    "bare_letter": "a bare letter",
    "option_text": "the option's text",
    "json_answer": 'an "answer" field',
    "hash_line": "a `#### n` line",
    "answer_line": "a final answer line",
    "last_number": "the last number",
}


def reason_class(details: pl.Expr, passes: pl.Expr) -> pl.Expr:
    """Return why a row's ``correct`` and the framework's verdict differ, in words.

    ``details`` is the row's :func:`polarscore.correct_details` struct, ``passes`` whether
    ``correct`` passes (the framework saying the opposite). The class names what the framework
    read (or missed) against the answer the response finally commits to.
    """
    rule = details.struct.field("rule")
    raw_form = details.struct.field("form")
    form = raw_form.replace_strict(_FORM_WORDS, default=raw_form).fill_null("no form")
    reason = details.struct.field("reason").fill_null("")
    extracted = details.struct.field("extracted")
    choice, number = rule == "final_choice", rule == "final_number"
    text = rule == "answer_match"
    return (
        pl.when(choice & passes & (raw_form == "answer_colon"))
        .then(pl.lit("framework read another letter than the final `ANSWER:` line"))
        .when(choice & passes)
        .then(pl.format("framework read no `ANSWER:` line (the final letter is in {})", form))
        .when(choice & extracted.is_null())
        .then(
            pl.format(
                "the response commits to no single letter ({}); the framework credited one", reason
            )
        )
        .when(choice)
        .then(pl.lit("the response's final letter is not the gold; the framework read another"))
        .when(number & passes & (raw_form == "boxed"))
        .then(pl.lit("framework read a number other than the final boxed answer"))
        .when(number & passes)
        .then(pl.format("framework read a number other than the final answer (in {})", form))
        .when(number & extracted.is_null())
        .then(
            pl.format("the response commits to no number ({}); the framework credited one", reason)
        )
        .when(number)
        .then(
            pl.format(
                "the final answer (in {}) is not the gold; the framework read another number", form
            )
        )
        .when(text & passes)
        .then(
            pl.format(
                "answer_match accepted the answer ({}); the framework's match did not", raw_form
            )
        )
        .when(text)
        .then(pl.format("the framework accepted the answer; answer_match did not ({})", raw_form))
        .otherwise(pl.lit("no rule applied"))
    )


#: Example rows listed per reason.
EXAMPLES = 5


def disagreement_reasons(
    lazy: pl.LazyFrame, *, score: str, details: pl.Expr, framework: str, threshold: float
) -> list[tuple[str, int, list[int]]]:
    """Count the rows where ``score`` and ``framework`` disagree, by :func:`reason_class`.

    Returns ``(reason, rows, examples)``, most frequent first, ``examples`` the first
    :data:`EXAMPLES` row numbers (from 0, in the log's order). The details are computed on the
    disagreeing rows only.
    """
    passes = pl.col(score) >= threshold
    judged = framework_correct(framework)
    disagree = lazy.with_row_index("__polarscore_reason_row").filter(
        pl.col(score).is_not_null() & judged.is_not_null() & (passes != judged)
    )
    counted = (
        disagree.select(
            reason_class(details, passes).alias("reason"), pl.col("__polarscore_reason_row")
        )
        .group_by("reason")
        .agg(pl.len(), pl.col("__polarscore_reason_row").sort().head(EXAMPLES))
        .sort(["len", "reason"], descending=[True, False])
        .collect()
    )
    return [(str(r), int(n), [int(i) for i in rows]) for r, n, rows in counted.iter_rows()]


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
    details: Mapping[str, pl.Expr] | None = None,
) -> list[FrameworkComparison]:
    """Compare each framework column with every score column (lazy aggregations).

    ``details`` maps a score column to its details expression: the scores whose details name
    a rule (``correct``) also get their disagreements counted by reason.
    """
    if len(frameworks) > MAX_FRAMEWORKS:
        notes.append(
            f"The log has {len(frameworks)} framework verdict columns: the report compares the "
            f"first {MAX_FRAMEWORKS}."
        )
    results = []
    for framework in frameworks[:MAX_FRAMEWORKS]:
        correct = framework_correct(framework)
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
        reasons = [
            (score, reason, rows, examples)
            for score, expr in (details or {}).items()
            if score in scores and _names_rule(score)
            for reason, rows, examples in _reasons_or_none(
                lazy, score, expr, framework, thresholds, notes
            )
        ]
        results.append(FrameworkComparison(framework, agreements, samples, reasons))
    return results


def _names_rule(score: str) -> bool:
    """Whether a score column's details say which rule graded the row (``correct``'s do)."""
    return score.endswith("correct")


def _reasons_or_none(
    lazy: pl.LazyFrame,
    score: str,
    details: pl.Expr,
    framework: str,
    thresholds: Mapping[str, float],
    notes: list[str],
) -> list[tuple[str, int, list[int]]]:
    try:
        return disagreement_reasons(
            lazy,
            score=score,
            details=details,
            framework=framework,
            threshold=thresholds.get(score, 0.5),
        )
    except pl.exceptions.PolarsError as error:
        notes.append(f"The reasons {score} and {framework} disagree were not computed: {error}")
        return []


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
            f"{_reasons_table(comparison)}{_rows(comparison, columns)}</section>"
        )
    return "".join(out)


def _reasons_table(comparison: FrameworkComparison) -> str:
    """Return the table of disagreements by reason (empty when none was counted)."""
    if not comparison.reasons:
        return ""
    lines = "".join(
        f"<tr><td>{esc(score)}</td><td class='text'>{esc(reason)}</td>"
        f"<td class='num'>{rows:,}</td><td class='num'>{esc(_examples(examples, rows))}</td></tr>"
        for score, reason, rows, examples in comparison.reasons
    )
    return (
        "<h4>Why they disagree</h4>"
        "<table class='reasons'><tr><th style='width:12%'>score</th><th>reason</th>"
        f"<th style='width:8%'>rows</th><th style='width:16%'>for example, rows</th></tr>"
        f"{lines}</table>"
    )


def _examples(examples: Sequence[int], rows: int) -> str:
    """Return example row numbers as text: ``3, 17, 40 …`` when there are more."""
    shown = ", ".join(f"{r:,}" for r in examples)
    return shown + (" …" if rows > len(examples) else "")


def summary_lines(
    lazy: pl.LazyFrame,
    *,
    scores: Sequence[str],
    frameworks: Sequence[str],
    thresholds: Mapping[str, float],
    details: Mapping[str, pl.Expr],
) -> list[str]:
    """Return the summary's lines on where each score and each framework verdict disagree.

    One line per framework column and score that disagree somewhere (and always for
    ``correct``): the rows both judged and how many they disagree on (the score passing where the
    framework says wrong, and the other way round); for a score with details (``correct``), the
    disagreements by reason, most frequent first.
    """
    pairs = [(f, s) for f in frameworks[:MAX_FRAMEWORKS] for s in scores if s not in frameworks]
    if not pairs:
        return []
    exprs = []
    for index, (framework, score) in enumerate(pairs):
        passes = pl.col(score) >= thresholds.get(score, 0.5)
        judged = framework_correct(framework)
        both = pl.col(score).is_not_null() & judged.is_not_null()
        exprs += [
            both.sum().alias(f"n{index}"),
            (both & passes & ~judged).sum().alias(f"p{index}"),
            (both & ~passes & judged).sum().alias(f"f{index}"),
        ]
    counts = lazy.select(exprs).collect().row(0, named=True)
    lines = [
        "against the framework's own verdicts (one of 0.5 or more is correct), each score at "
        "its threshold:"
    ]
    for index, (framework, score) in enumerate(pairs):
        n, passing, failing = counts[f"n{index}"], counts[f"p{index}"], counts[f"f{index}"]
        if not passing + failing and not _names_rule(score):
            continue  # a score that agrees everywhere: no line, but correct always has its own
        lines.append(
            f"{score} vs {framework}: disagree on {passing + failing:,} of {n:,} rows "
            f"({score} passes where the framework says wrong: {passing:,}; fails where it says "
            f"correct: {failing:,})"
        )
        if score in details and _names_rule(score) and passing + failing:
            reasons = _reasons_or_none(lazy, score, details[score], framework, thresholds, [])
            lines += [
                f"  {rows:,} rows: {reason} (rows {_examples(examples, rows)})"
                for reason, rows, examples in reasons
            ]
    return lines
