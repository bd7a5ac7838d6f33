"""``polarscore summary``, ``polarscore report`` and ``polarscore scorers``."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from polarscore import _atomic, _inputs
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore.cli import _words
from polarscore.cli._exit import EXIT_OK
from polarscore.exceptions import (
    ColumnNotFoundError,
    InvalidParameterError,
)
from polarscore.logs._table import FRAMEWORK_PREFIX
from polarscore.provenance import (
    read_provenance,
    recorded_thresholds,
)
from polarscore.registry import available_scorers, get_scorer
from polarscore.summary import AUTO_CLUSTER, _cluster_columns, _default_scores, summarize


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(files: Sequence[Path]) -> dict[Path, dict[str, Any]]:
    """Return the provenance records of the scored Parquet files that carry one."""
    records = {}
    for file in files:
        if _inputs.is_parquet_table(file):
            record = read_provenance(file)
            if record is not None:
                records[file] = record
    return records


def _summary_thresholds(
    args: argparse.Namespace, scores: Sequence[str], records: dict[Path, dict[str, Any]]
) -> dict[str, float]:
    """``--threshold`` when given; else each score's recorded threshold, else the default."""
    if args.threshold is not None:
        if not 0.0 <= args.threshold <= 1.0:
            raise InvalidParameterError(
                f"--threshold must be between 0 and 1 (every score lies in [0, 1]); "
                f"got {args.threshold:g}."
            )
        return dict.fromkeys(scores, args.threshold)
    recorded: dict[str, tuple[float, Path]] = {}
    for file, record in records.items():
        for column, value in recorded_thresholds(record).items():
            if column in recorded and recorded[column][0] != value:
                first, where = recorded[column]
                raise InvalidParameterError(
                    f"The score column {column!r} was scored with threshold {first:g} in "
                    f"{str(where)!r} but {value:g} in {str(file)!r}.\n"
                    "Hint: pass --threshold to summarise them at one threshold."
                )
            recorded[column] = (value, file)
    return {s: recorded[s][0] if s in recorded else DEFAULT_THRESHOLD for s in scores}


def _summary_scores(schema: pl.Schema) -> list[str]:
    """Return the default score columns: polarscore's, then an eval log's own verdicts."""
    framework = [c for c, t in schema.items() if c.startswith(FRAMEWORK_PREFIX) and t.is_numeric()]
    return _default_scores(schema) + framework


def _check_summary_flags(args: argparse.Namespace, schema: pl.Schema) -> list[str]:
    """Check the summary's flags in their own words; return the score columns."""
    scores = list(args.scores) if args.scores else _summary_scores(schema)
    if not scores:
        raise ColumnNotFoundError(
            "No score column to summarise: no float column is named after a scorer. The "
            f"columns: {_words.listing(schema)}.\nHint: name the score columns with --scores."
        )
    flags = [("--scores", c) for c in scores] + [("--by", c) for c in args.by or []]
    if args.expected_behavior is not None:
        flags.append(("--expected-behavior", args.expected_behavior))
    for flag, column in flags:
        if column not in schema:
            raise _words.missing_column(flag, column, schema)
    for column in scores:
        if not schema[column].is_numeric():
            raise _words.unconverted_column(
                "--scores",
                column,
                schema[column],
                expected="numbers",
                advice="name a numeric score column.",
            )
    if not 0.0 < args.confidence < 1.0:
        raise InvalidParameterError(
            f"--confidence must be between 0 and 1 (exclusive); got {args.confidence:g}."
        )
    if args.n_bootstrap < 0:
        raise InvalidParameterError(f"--n-bootstrap must be 0 or more; got {args.n_bootstrap}.")
    if args.seed < 0:
        raise InvalidParameterError(f"--seed must be 0 or more; got {args.seed}.")
    return scores


def _describe_record(record: dict[str, Any], applied: dict[str, float] | None = None) -> list[str]:
    """Return a few lines saying how a scored log was scored, and the thresholds applied."""
    response = record.get("response")
    if record.get("references") is not None:
        against = f"references {record['references']!r}"
    else:
        against = f"reference {record.get('reference')!r}"
    when = record.get("scored_at")
    question = record.get("question_id")
    lines = [
        f"scored by polarscore {record.get('polarscore_version', '?')}"
        + ("" if when is None else f" at {when}")
        + f": response {response!r} against {against}"
        + ("" if question is None else f", questions identified by {question!r}")
    ]
    for entry in record.get("scorers", []):
        options = ", ".join(f"{k}={v!r}" for k, v in entry.get("options", {}).items())
        threshold = entry.get("threshold")
        used = (applied or {}).get(str(entry.get("column")))
        if threshold is None:
            passed = "no threshold" if used is None else f"threshold {used:g} (none recorded)"
        else:
            passed = f"threshold {threshold:g}"
        lines.append(f"  {entry.get('column')}: {entry.get('name')}({options}), {passed}")
    inputs = record.get("inputs", [])
    # A row count is recorded only where it was free to know (Parquet metadata); a log or a text
    # file is named alone rather than with a question mark.
    shown = [
        str(item.get("path")) + ("" if item.get("rows") is None else f" ({item['rows']:,} rows)")
        for item in inputs[:3]
    ]
    if len(inputs) > 3:
        shown.append(f"and {len(inputs) - 3} more")
    if shown:
        lines.append("  inputs: " + ", ".join(shown))
    return lines


def _report(args: argparse.Namespace) -> int:
    from polarscore.reporting import DEFAULT_SAMPLE, write_report

    target: Path = args.output
    files = _inputs.resolve_inputs(args.inputs)
    _atomic.check_target(
        target, overwrite=args.overwrite, inputs=files, overwrite_option="--overwrite"
    )
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise InvalidParameterError(
            f"--threshold must be between 0 and 1 (every score lies in [0, 1]); "
            f"got {args.threshold:g}."
        )
    if not 0.0 < args.confidence < 1.0:
        raise InvalidParameterError(
            f"--confidence must be between 0 and 1 (exclusive); got {args.confidence:g}."
        )
    if args.sample is not None and not 0 <= args.sample <= 200:
        raise InvalidParameterError(f"--sample must be between 0 and 200; got {args.sample}.")
    if args.n_bootstrap < 0:
        raise InvalidParameterError(f"--n-bootstrap must be 0 or more; got {args.n_bootstrap}.")
    if args.seed < 0:
        raise InvalidParameterError(f"--seed must be 0 or more; got {args.seed}.")
    _words.in_cli_words(
        partial(
            write_report,
            files,
            target,
            overwrite=args.overwrite,
            scores=args.scores,
            by=args.by,
            verdict=args.verdict,
            pair_on=args.pair_on,
            threshold=args.threshold,
            response=args.response,
            reference=args.reference,
            question=args.question,
            sample=DEFAULT_SAMPLE if args.sample is None else args.sample,
            seed=args.seed,
            confidence=args.confidence,
            n_bootstrap=args.n_bootstrap,
            title=args.title,
            max_entry_bytes=_entry_limit(args.max_entry_bytes),
        )
    )
    if not args.quiet:
        print(f"wrote {str(target)!r}", file=sys.stderr)
    return EXIT_OK


def _entry_limit(option: int | None) -> int | None:
    """``--max-entry-bytes`` (None: the default; 0: no limit) as the Python API's option."""
    from polarscore.logs._zip import MAX_ENTRY_BYTES

    return MAX_ENTRY_BYTES if option is None else option or None


def _summary(args: argparse.Namespace) -> int:
    files, frame, schema = _inputs.open_inputs(args.inputs, max_entry_bytes=args.max_entry_bytes)
    scores = _check_summary_flags(args, schema)
    # Grouped by model when the log has that column, unless --by says otherwise.
    by = args.by if args.by is not None else ["model"] if "model" in schema else []
    records = _records(files)
    thresholds = _summary_thresholds(args, scores, records)
    cluster, note = _summary_cluster(args, frame, schema, by)
    table = summarize(
        frame,
        scores,
        by=by or None,
        cluster=cluster,
        epoch_reducer=args.epoch_reducer,
        threshold=thresholds,
        expected_behavior=args.expected_behavior,
        confidence=args.confidence,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
    )
    if args.json:
        rows = [{k: _json_value(v) for k, v in row.items()} for row in table.to_dicts()]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
    shown: list[dict[str, Any]] = []
    for file, record in records.items():
        if record in shown:
            continue
        shown.append(record)
        if len(files) > 1:
            print(f"{file}:")
        print("\n".join(_describe_record(record, thresholds)))
    if note:
        print(note)
    with pl.Config(
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_cols=-1,
        tbl_rows=-1,
        tbl_width_chars=200,
    ):
        print(_readable(table, by=by, confidence=args.confidence))
    print("\n".join(_framework_lines(frame, files, records, scores, thresholds)))
    return EXIT_OK


def _summary_cluster(
    args: argparse.Namespace, frame: pl.LazyFrame, schema: pl.Schema, by: Sequence[str]
) -> tuple[list[str] | None, str | None]:
    """Return the cluster columns of ``summary`` and the line that says how errors are computed."""
    named = args.cluster or []
    if [c.lower() for c in named] == ["none"]:
        return None, None
    for column in named:
        if column not in schema:
            raise _words.missing_column("--cluster", column, schema)
    if named:
        columns = list(named)
        how = "as --cluster says"
    else:
        columns = _cluster_columns(frame, schema, AUTO_CLUSTER, by_columns=by, function="summary")
        how = "the log has more than one epoch per sample (--cluster none to count rows apart)"
    if not columns:
        return None, None
    reduced = (
        f"; each cluster reduced to one score by {args.epoch_reducer}" if args.epoch_reducer else ""
    )
    return columns, (f"errors clustered by {', '.join(columns)}: {how}{reduced}")


def _framework_lines(
    frame: pl.LazyFrame,
    files: Sequence[Path],
    records: dict[Path, dict[str, Any]],
    scores: Sequence[str],
    thresholds: dict[str, float],
) -> list[str]:
    """Return the lines on where the scores and the framework's verdicts disagree, and why."""
    from polarscore.reporting import _details_exprs
    from polarscore.reporting._framework import summary_lines

    frameworks = [c for c in scores if c.startswith(FRAMEWORK_PREFIX)]
    if not frameworks:
        return []
    schema = frame.collect_schema()
    record = next(iter(records.values()), None) if len(records) == len(files) == 1 else None
    response = (record or {}).get("response")
    details = _details_exprs(
        record, schema, scores, response if isinstance(response, str) else None, None
    )
    return summary_lines(
        frame, scores=scores, frameworks=frameworks, thresholds=thresholds, details=details
    )


def _fixed(values: pl.Series) -> list[str]:
    return ["-" if v is None else f"{v:.4f}" for v in values]


def _readable(table: pl.DataFrame, *, by: Sequence[str], confidence: float) -> pl.DataFrame:
    """Return the summary as a compact table: 4 decimals, intervals as ``low – high``."""
    level = f"{confidence:.0%}"

    def interval(low: str, high: str) -> list[str]:
        return [
            "-" if lo is None else f"{lo:.4f} – {hi:.4f}"
            for lo, hi in zip(table[low], table[high], strict=True)
        ]

    columns: dict[str, Any] = {c: table[c] for c in (*by, "score", "rows", "scored")}
    columns["inconclusive"] = table["inconclusive"]
    if table["clusters"].null_count() < table.height:
        columns["clusters"] = table["clusters"]
    columns["mean"] = _fixed(table["mean"])
    columns["se"] = _fixed(table["mean_se"])
    columns[f"mean {level} CI"] = interval("mean_low", "mean_high")
    columns["threshold"] = table["threshold"]
    columns["pass rate"] = _fixed(table["pass_rate"])
    columns[f"pass rate {level} CI"] = interval("pass_rate_low", "pass_rate_high")
    for kind in ("good", "bad"):
        if f"{kind}_pass_rate" in table.columns:
            columns[f"{kind}-case pass rate"] = _fixed(table[f"{kind}_pass_rate"])
    return pl.DataFrame(columns)


def _list_scorers() -> int:
    for name in available_scorers():
        spec = get_scorer(name)
        options = ", ".join(f"{k}={v!r}" for k, v in spec.options.items()) or "(no options)"
        print(f"{name:<28} {spec.family:<14} {options}")
    return EXIT_OK
