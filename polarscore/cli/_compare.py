"""``polarscore compare``: paired comparisons of models on shared questions, and a CI gate."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from functools import partial
from typing import Any

import polars as pl

from polarscore import _inputs
from polarscore.cli import _words
from polarscore.cli._exit import EXIT_OK, EXIT_WORSE
from polarscore.cli._summary import _json_value, _summary_scores
from polarscore.comparison import compare
from polarscore.exceptions import ColumnNotFoundError, InvalidParameterError
from polarscore.summary import AUTO_CLUSTER, _cluster_columns


def _check_compare_flags(args: argparse.Namespace, schema: pl.Schema) -> list[str]:
    """Check the flags in their own words; return the score columns."""
    scores = list(args.scores) if args.scores else _summary_scores(schema)
    if not scores:
        raise ColumnNotFoundError(
            "No score column to compare: no float column is named after a scorer. The "
            f"columns: {_words.listing(schema)}.\nHint: name the score columns with --scores."
        )
    named = [("--scores", c) for c in scores] + [("--by", c) for c in args.by]
    named += [("--pair-on", c) for c in args.pair_on]
    if args.cluster is not None:
        named.append(("--cluster", args.cluster))
    for flag, column in named:
        if column not in schema:
            raise _words.missing_column(flag, column, schema)
    for name, value in (("--confidence", args.confidence), ("--power", args.power)):
        if not 0.0 < value < 1.0:
            raise InvalidParameterError(
                f"{name} must be between 0 and 1 (exclusive); got {value:g}."
            )
    return scores


def _compare(args: argparse.Namespace) -> int:
    _, frame, schema = _inputs.open_inputs(args.inputs, max_entry_bytes=args.max_entry_bytes)
    args.by = args.by or ["model"]
    args.pair_on = args.pair_on or ["sample_id"]
    scores = _check_compare_flags(args, schema)
    notes: list[str] = []
    reducer = args.epoch_reducer
    if reducer is None and _cluster_columns(
        frame, schema, AUTO_CLUSTER, by_columns=args.by, function="compare"
    ):
        reducer = "mean"
        notes.append(
            "the log has more than one epoch per sample: each model's epochs of a question are "
            "averaged first (--epoch-reducer to choose another reducer)"
        )
    baseline = args.baseline
    if args.fail_if_worse and baseline is None:
        groups = (
            frame.select(
                pl.concat_str([pl.col(c).cast(pl.String) for c in args.by], separator=" · ")
            )
            .unique()
            .drop_nulls()
            .collect(engine="streaming")
            .to_series()
            .sort()
            .to_list()
        )
        others = [g for g in groups if g not in args.fail_if_worse]
        if len(groups) != 2 or len(others) != 1:
            raise InvalidParameterError(
                "--fail-if-worse needs --baseline to say which group the others are held to "
                f"(there are {len(groups)} groups: {', '.join(map(repr, groups[:10]))})."
            )
        baseline = others[0]
    for name in args.fail_if_worse:
        if name == baseline:
            raise InvalidParameterError(
                f"--fail-if-worse names the baseline {name!r}: name another group."
            )
    table = _words.in_cli_words(
        partial(
            compare,
            frame,
            scores,
            by=args.by,
            pair_on=args.pair_on,
            cluster=args.cluster,
            epoch_reducer=reducer,
            baseline=baseline,
            threshold=args.threshold,
            confidence=args.confidence,
            power=args.power,
        )
    )
    missing = [g for g in args.fail_if_worse if g not in set(table["first"].to_list())]
    if missing:
        raise InvalidParameterError(
            f"--fail-if-worse names no compared group: {missing[0]!r}. The groups: "
            f"{', '.join(repr(g) for g in sorted({*table['first'], *table['second']}))}."
        )
    if args.json:
        rows = [{k: _json_value(v) for k, v in row.items()} for row in table.to_dicts()]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for note in notes:
            print(f"note: {note}")
        with pl.Config(
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            tbl_cols=-1,
            tbl_rows=-1,
            tbl_width_chars=220,
        ):
            print(_readable(table, confidence=args.confidence))
        for line in _power_lines(table, confidence=args.confidence, power=args.power):
            print(line)
    return _gate(table, args.fail_if_worse, baseline, confidence=args.confidence)


def _gate(
    table: pl.DataFrame, worse: Sequence[str], baseline: str | None, *, confidence: float
) -> int:
    """Return ``EXIT_WORSE`` when a named group is significantly worse than the baseline."""
    failed = False
    for row in table.iter_rows(named=True):
        if row["first"] not in worse or row["second"] != baseline:
            continue
        if row["significant"] and row["difference"] < 0:
            failed = True
            print(
                f"polarscore: {row['first']!r} is significantly worse than {baseline!r} on "
                f"{row['score']}: {row['difference']:+.4f} ({confidence:.0%} interval "
                f"{row['low']:+.4f} to {row['high']:+.4f}, p = {row['p_adjusted']:.3g}, "
                f"{row['test']}) over {row['questions']:,} questions",
                file=sys.stderr,
            )
    return EXIT_WORSE if failed else EXIT_OK


def _number(value: float | None, spec: str = ".4f") -> str:
    return "-" if value is None else format(value, spec)


def _readable(table: pl.DataFrame, *, confidence: float) -> pl.DataFrame:
    """Return the comparison as a compact table: 4 decimals, intervals as ``low – high``."""
    level = f"{confidence:.0%}"
    columns: dict[str, Any] = {
        "score": table["score"],
        "first": table["first"],
        "second": table["second"],
        "questions": table["questions"],
    }
    if table["clusters"].null_count() < table.height:
        columns["clusters"] = table["clusters"]
    columns["first mean"] = [_number(v) for v in table["first_mean"]]
    columns["second mean"] = [_number(v) for v in table["second_mean"]]
    columns["difference"] = [_number(v, "+.4f") for v in table["difference"]]
    columns[f"{level} CI"] = [
        "-" if lo is None else f"{lo:+.4f} – {hi:+.4f}"
        for lo, hi in zip(table["low"], table["high"], strict=True)
    ]
    columns["p"] = [_number(v, ".3g") for v in table["p_value"]]
    if (table["p_adjusted"] != table["p_value"]).any():
        columns["p (Holm)"] = [_number(v, ".3g") for v in table["p_adjusted"]]
    columns["test"] = table["test"]
    columns["significant"] = ["yes" if s else "no" for s in table["significant"]]
    columns["detectable"] = [_number(v, ".4f") for v in table["mdd"]]
    return pl.DataFrame(columns)


def _power_lines(table: pl.DataFrame, *, confidence: float, power: float) -> list[str]:
    """One line per comparison: the smallest difference its questions detect, and at what power."""
    lines = []
    for row in table.iter_rows(named=True):
        if row["mdd"] is None:
            continue
        lines.append(
            f"power: {row['first']} vs {row['second']} on {row['score']}: with "
            f"{row['questions']:,} questions, a true difference of {row['mdd']:.4f} or more is "
            f"detected with {power:.0%} probability at the {1 - confidence:g} level"
        )
    return lines
