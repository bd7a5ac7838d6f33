"""``polarscore score``: add score columns to eval logs, or print a per-mode summary."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from polarscore import _atomic, _inputs
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore._typing import OutputFormat
from polarscore._utils import is_text_dtype
from polarscore.cli import _output, _progress, _words
from polarscore.cli._args import _parse_thresholds, parse_scorer
from polarscore.cli._distinct import DistinctScoring
from polarscore.cli._exit import EXIT_OK
from polarscore.datasets import sample_path
from polarscore.exceptions import (
    ColumnTypeError,
    InputFileError,
    InvalidParameterError,
)
from polarscore.frame import (
    ScorerRequest,
    resolve_scorers,
    score_exprs,
    score_frame,
    with_frame_options,
)
from polarscore.logs._errors import reader_error
from polarscore.logs._task_kind import TASK_KINDS, TaskKind, recorded_kind
from polarscore.provenance import (
    PROVENANCE_KEY,
    record_for_requests,
)
from polarscore.registry import default_scorers, get_scorer
from polarscore.scores.correctness import MATCH_MODES
from polarscore.summary import summarize


def _option_columns(options: dict[str, Any]) -> list[str]:
    columns = []
    for value in options.values():
        if isinstance(value, pl.Expr):
            columns.extend(value.meta.root_names())
    return columns


#: The bundled sample's list of gold aliases and its human verdicts.
SAMPLE_REFERENCES = "references"
SAMPLE_VERDICT = "human_correct"

#: Flags that shape the written file only; print mode refuses them.
_OUTPUT_ONLY = {
    "format": "--format",
    "prefix": "--prefix",
    "drop": "--drop",
    "overwrite": "--overwrite",
    "question_id": "--question-id",
}


def _reference_columns(args: argparse.Namespace) -> tuple[str, str | None]:
    """Return the ``(reference, references)`` columns the scorers read.

    Every scorer takes a list of acceptable answers, so ``--references`` replaces
    ``--reference``; the bundled sample is scored against its alias list unless told otherwise.
    """
    if args.reference is not None and args.references is not None:
        raise InvalidParameterError(
            "Give --reference or --references, not both: every scorer reads the list column "
            "of --references when it is given."
        )
    references = args.references
    if references is None and args.reference is None and args.sample:
        references = SAMPLE_REFERENCES
    return args.reference or "reference", references


def _log_references(
    args: argparse.Namespace, schema: pl.Schema, references: str | None
) -> str | None:
    """Return the references column, ``references`` of an eval framework's log by default.

    The canonical log table has a ``references`` list and no ``reference``: with neither flag
    given, the scorers read that list.
    """
    if references is None and args.reference is None and "reference" not in schema:
        dtype = schema.get("references")
        if isinstance(dtype, pl.List) and is_text_dtype(dtype.inner):
            return "references"
    return references


def _selection(args: argparse.Namespace, *, printing: bool) -> list[tuple[str, dict[str, Any]]]:
    """Return the ``(scorer, options)`` pairs to run, with the match-mode flags applied.

    Printing, the default is the headline verdict (``correct``, graded by the task's kind) and
    answer correctness, and a scorer with a ``match_mode`` option that neither ``--scorer`` nor a
    flag sets is listed once per mode.
    """
    chosen = [parse_scorer(s) for s in args.scorers] if args.scorers else None
    if chosen is None:
        names = ["correct", "answer_correctness"] if printing else default_scorers()
        chosen = [(name, {}) for name in names]
    mode: Any = None
    if args.mode_column is not None:
        mode = pl.col(args.mode_column)
    elif args.match_mode not in (None, "all"):
        mode = args.match_mode
    elif args.match_mode == "all" and not printing:
        raise InvalidParameterError(
            "--match-mode all applies to the printed summary only; with -o choose one mode "
            "(or give --mode-column)."
        )
    takers = [name for name, _ in chosen if "match_mode" in get_scorer(name).options]
    if (args.mode_column is not None or args.match_mode is not None) and not takers:
        raise InvalidParameterError(
            "--match-mode/--mode-column apply to scorers with a 'match_mode' option, and "
            "none was selected."
        )
    selection: list[tuple[str, dict[str, Any]]] = []
    for name, options in chosen:
        if name in takers and "match_mode" not in options:
            if mode is not None:
                options["match_mode"] = mode
            elif printing:
                selection += [(name, {**options, "match_mode": m}) for m in MATCH_MODES]
                continue
        selection.append((name, options))
    return selection


def _check_input_columns(
    schema: pl.Schema, schemas: dict[Path, pl.Schema], needed: dict[str, str]
) -> None:
    """Check the columns the flags name (``needed``: column -> flag), in the flags' words."""
    for column, flag in needed.items():
        if column not in schema:
            raise _words.missing_column(flag, column, schema)
    _inputs.check_columns_in_every_file(schemas, needed)
    for column, flag in needed.items():
        dtype = schema[column]
        if flag in ("--response", "--mode-column"):
            fits = is_text_dtype(dtype)
            expected = "text (String)"
        elif flag in ("--reference", "--references"):
            fits = is_text_dtype(dtype) or (
                isinstance(dtype, pl.List) and is_text_dtype(dtype.inner)
            )
            expected = "text (String) or a list of text (List(String))"
        else:
            continue
        if not fits:
            raise _words.unconverted_column(
                flag,
                column,
                dtype,
                expected=expected,
                advice="write the log with the column as text "
                f"(in Polars: pl.col({column!r}).cast(pl.String)).",
            )


def _needed_columns(
    args: argparse.Namespace,
    selection: Sequence[tuple[str, dict[str, Any]]],
    reference: str,
    references: str | None,
) -> dict[str, str]:
    needed = {args.response: "--response"}
    if references is not None:
        needed[references] = "--references"
    else:
        needed[reference] = "--reference"
    if args.mode_column is not None:
        needed[args.mode_column] = "--mode-column"
    if getattr(args, "question_id", None) is not None:
        needed.setdefault(args.question_id, "--question-id")
    for _, options in selection:
        for column in _option_columns(options):
            needed.setdefault(column, "--scorer option")
    return needed


def _check_thresholds(
    thresholds: float | dict[str, float] | None, selection: Sequence[tuple[str, Any]]
) -> None:
    """Check ``--threshold`` values against the scores' range and the scorers being run."""
    if thresholds is None:
        return
    values = thresholds.values() if isinstance(thresholds, dict) else [thresholds]
    for value in values:
        if not 0.0 <= value <= 1.0:
            raise InvalidParameterError(
                f"--threshold must be between 0 and 1 (every score lies in [0, 1]); got {value:g}."
            )
    if isinstance(thresholds, dict):
        running = {name for name, _ in selection}
        unused = sorted(set(thresholds) - running)
        if unused:
            raise InvalidParameterError(
                f"--threshold {unused[0]}=... names a scorer that is not being run "
                f"(running: {', '.join(sorted(running))})."
            )


def _check_option_values(selection: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Build each scorer's expression once on placeholder columns: its options are checked then.

    A scorer checks its option values when its expression is built, before any data is read,
    so a bad value is reported before the input or output files are looked at.
    """
    for name, options in selection:
        spec = get_scorer(name)
        _words.in_cli_words(
            partial(spec.expr, pl.col("response"), pl.col("reference"), **options),
            scorer_options=True,
        )


def _check_task_kind(args: argparse.Namespace) -> str | None:
    """Return ``--task-kind``, checked: one line naming the kinds for an unknown one."""
    kind: str | None = getattr(args, "task_kind", None)
    if kind is not None and kind not in TASK_KINDS:
        raise InvalidParameterError(
            f"--task-kind must be one of {', '.join(TASK_KINDS)}; got {kind!r}."
        )
    return kind


def _task_kinds(files: Sequence[Path], found: TaskKind | None) -> list[dict[str, str | None]]:
    """Return each input's task kind and where it came from, for the provenance record."""
    if found is not None:
        return [{"path": str(f), "kind": found.kind, "source": found.source} for f in files]
    out: list[dict[str, str | None]] = []
    for file in files:
        reading = recorded_kind(file)
        if reading is not None:
            out.append({"path": str(file), "kind": reading.kind, "source": reading.source})
        else:
            out.append({"path": str(file), "kind": None, "source": "the task_kind column"})
    return out


def _uniform_kind(files: Sequence[Path], schema: pl.Schema) -> str | None:
    """Return the one task kind every input log records, or None (then read row by row).

    ``correct`` then runs its kind's rule alone, where a ``task_kind`` column makes it choose
    row by row.
    """
    if "task_kind" not in schema:
        return None
    kinds = {getattr(recorded_kind(file), "kind", None) for file in files}
    if len(kinds) == 1:
        kind = kinds.pop()
        return kind if kind in TASK_KINDS else None
    return None


def _score_to_file(args: argparse.Namespace) -> int:
    # Every flag is checked before any file is looked at.
    task_kind = _check_task_kind(args)
    selection = _selection(args, printing=False)
    thresholds = _parse_thresholds(args.threshold)
    _check_thresholds(thresholds, selection)
    reference, references = _reference_columns(args)
    requests = resolve_scorers(selection, thresholds=thresholds, prefix=args.prefix)
    _check_option_values(selection)

    files = [sample_path()] if args.sample else _inputs.resolve_inputs(args.inputs)
    target: Path = args.output
    kind = _output.output_format(target, args.format)
    _atomic.check_target(
        target, overwrite=args.overwrite, inputs=files, overwrite_option="--overwrite"
    )
    frame, schemas = _scan(files, args)
    schema = frame.collect_schema()
    references = _log_references(args, schema, references)
    _check_input_columns(schema, schemas, _needed_columns(args, selection, reference, references))
    for column in args.drop:
        if column not in schema:
            raise _words.missing_column("--drop", column, schema, hint=False)
    if args.question_id is not None and args.question_id in args.drop:
        raise InvalidParameterError(
            f"--question-id {args.question_id!r} names a column that --drop leaves out; the "
            "output must keep it for the report to pair on it."
        )
    total = _inputs.count_rows(files)
    progress = _progress.Progress(total, stream=_progress.stderr_if_tty(quiet=args.quiet))
    requests, found = with_frame_options(
        frame,
        requests,
        reference=reference,
        references=references,
        task_kind=task_kind or _uniform_kind(files, schema),
    )
    if task_kind is None and found is not None and found.source == "given":
        found = None  # the logs' own kinds, one for all: the record names each log's
    if found is not None and "task_kind" not in args.drop:
        # The kind correct applied is a column of the output: given, or told from a table's
        # golds (it replaces a log's own column when --task-kind overrides it).
        frame = frame.with_columns(pl.lit(found.kind, dtype=pl.String).alias("task_kind"))
    # With the row count known (Parquet), the log is scored slice by slice, which keeps memory
    # flat. Otherwise (CSV, JSON Lines) one streaming query runs. Either way a pass-through batch
    # function on the first score column counts the rows as they are scored (one Python call
    # per batch of rows), so the progress line moves while a slice runs.
    first = requests[0]
    options = _with_options(selection, requests)

    def score(rows: pl.LazyFrame) -> pl.LazyFrame:
        scored = _score(
            rows, args, (reference, references), options, thresholds=thresholds, prefix=args.prefix
        )
        return scored.with_columns(
            pl.col(first.column).map_batches(
                progress.counter, return_dtype=first.spec.dtype, is_elementwise=True
            )
        )

    scored = score(frame)
    distinct = None
    if total and not args.every_row:
        # A Parquet log whose rows repeat is scored slice by slice on its distinct rows of
        # the columns the scores read (the same scores; see polarscore.cli._distinct).
        read = _score_inputs(frame.collect_schema(), requests, args.response, reference, references)
        distinct = DistinctScoring.plan(frame, score, read, drop=args.drop)
    if args.drop:
        scored = scored.drop(args.drop)
    _check_csv(scored, kind)
    record = record_for_requests(
        requests,
        response=args.response,
        reference=reference,
        references=references,
        inputs={str(file): rows for file, rows in _inputs.file_rows(files).items()},
        question_id=args.question_id,
        task_kinds=_task_kinds(files, found) if "correct" in dict(selection) else None,
    )
    _write(
        scored,
        target,
        kind,
        total=total,
        progress=progress,
        record=record,
        distinct=distinct,
        row_groups=partial(_inputs.row_group_ends, files),
    )
    if not args.quiet:
        columns = ", ".join(r.column for r in requests)
        print(f"wrote {progress.rows:,} rows to {str(target)!r} ({columns})", file=sys.stderr)
    return EXIT_OK


def _score_inputs(
    schema: pl.Schema,
    requests: Sequence[ScorerRequest],
    response: str,
    reference: str,
    references: str | None,
) -> list[str]:
    """Return the columns the scores of ``requests`` read, the response first."""
    read = {
        name
        for expr in score_exprs(
            schema, requests, response=response, reference=reference, references=references
        )
        for name in expr.meta.root_names()
    }
    return [response, *(name for name in schema if name in read and name != response)]


def _with_options(
    selection: Sequence[tuple[str, dict[str, Any]]], requests: Sequence[ScorerRequest]
) -> list[tuple[str, dict[str, Any]]]:
    """Return ``selection`` with each scorer's options as resolved (``correct``'s filled in)."""
    resolved = {r.spec.name: dict(r.options) for r in requests}
    return [(name, resolved.get(name, options)) for name, options in selection]


def _scan(
    files: Sequence[Path], args: argparse.Namespace
) -> tuple[pl.LazyFrame, dict[Path, pl.Schema]]:
    """Scan the inputs (tables and framework logs) into one frame; return it and each schema."""
    reference = getattr(args, "promptfoo_reference", None)
    limit = getattr(args, "max_entry_bytes", None)
    schemas = {
        file: _inputs.read_schema(file, promptfoo_reference=reference, max_entry_bytes=limit)
        for file in files
    }
    frame = _inputs.scan_inputs(
        files, schemas, promptfoo_reference=reference, max_entry_bytes=limit
    )
    return frame, schemas


def _score(
    frame: pl.LazyFrame,
    args: argparse.Namespace,
    references: tuple[str, str | None],
    selection: Sequence[tuple[str, dict[str, Any]]],
    *,
    thresholds: float | dict[str, float] | None = None,
    prefix: str | None = None,
) -> pl.LazyFrame:
    """Add the score columns of ``selection`` with :func:`polarscore.score_frame`, in CLI words.

    ``references`` is the ``(reference, references)`` pair of :func:`_reference_columns`.
    """
    return _words.in_cli_words(
        partial(
            score_frame,
            frame,
            response=args.response,
            reference=references[0],
            references=references[1],
            scorers=list(selection),
            thresholds=thresholds,
            prefix=prefix,
            task_kind=getattr(args, "task_kind", None),
        ),
        scorer_options=True,
    )


def _check_csv(scored: pl.LazyFrame, kind: str) -> None:
    if kind == "csv":
        nested = _output.nested_columns(scored.collect_schema())
        if nested:
            raise ColumnTypeError(
                f"CSV cannot hold the nested column(s) {', '.join(repr(c) for c in nested)}.\n"
                "Hint: write Parquet, or leave them out with --drop."
            )


def _write(
    scored: pl.LazyFrame,
    target: Path,
    kind: OutputFormat,
    *,
    total: int | None,
    progress: _progress.Progress,
    record: dict[str, Any],
    distinct: DistinctScoring | None = None,
    row_groups: Callable[[], Sequence[int] | None] | None = None,
) -> None:
    """Write the scored log atomically, with its provenance record, drawing ``progress``.

    ``distinct`` scores the slices of a Parquet log on their distinct rows where they repeat;
    ``row_groups`` tells where its row groups end, for slices that end where a group does.
    """
    metadata = {PROVENANCE_KEY: json.dumps(record, ensure_ascii=False)}
    try:
        with _atomic.atomic_target(target) as temporary:
            if total:
                _output.write_in_slices(
                    scored,
                    temporary,
                    kind,
                    total=total,
                    progress=progress,
                    metadata=metadata,
                    distinct=distinct,
                    row_groups=row_groups,
                )
            else:
                _progress.run_with_progress(
                    _output.sink(scored, temporary, kind, metadata=metadata), progress
                )
    except (OSError, pl.exceptions.PolarsError) as error:
        # A full disk fails the write, the sync or the rename; Polars' writers report it as
        # their own error, so it is told apart from an input failure by its errno.
        full = _atomic.out_of_room(target, error)
        if full is not None:
            raise full from error
        if isinstance(error, OSError):
            raise
        found = reader_error(error)
        if found is not None:
            raise found from error
        raise InputFileError(
            f"Scoring stopped while reading or scoring the input: {_inputs.first_line(error)}"
        ) from error


def _mode_label(options: dict[str, Any]) -> str:
    mode = options.get("match_mode")
    if mode is None:
        return "-"
    if isinstance(mode, pl.Expr):
        return "per row: " + ", ".join(mode.meta.root_names())
    return str(mode)


def _print_mode_summary(args: argparse.Namespace) -> int:
    for attribute, flag in _OUTPUT_ONLY.items():
        if getattr(args, attribute) not in (None, False, []):
            raise InvalidParameterError(
                f"{flag} shapes the written file and applies only with -o OUTPUT."
            )
    if args.every_row:
        raise InvalidParameterError(
            "--every-row applies only with -o OUTPUT: the printed summary scores every row."
        )
    _check_task_kind(args)
    selection = _selection(args, printing=True)
    thresholds = _parse_thresholds(args.threshold)
    _check_thresholds(thresholds, selection)
    reference, references = _reference_columns(args)
    # Validate the selection as a whole (unknown options); each row is then built on its own.
    resolve_scorers(list(dict(selection).items()), thresholds=thresholds)
    _check_option_values(selection)

    files = [sample_path()] if args.sample else _inputs.resolve_inputs(args.inputs)
    frame, schemas = _scan(files, args)
    schema = frame.collect_schema()
    references = _log_references(args, schema, references)
    _check_input_columns(schema, schemas, _needed_columns(args, selection, reference, references))

    # Each row of the table is one score column, added by score_frame and summarised by
    # summarize; a column without a threshold is summarised at a placeholder one, whose pass rate
    # is then blanked.
    labels: list[tuple[str, str]] = []
    columns: dict[str, float | None] = {}
    for index, (name, options) in enumerate(selection):
        prefix = f"__polarscore_{index}_"
        frame = _score(frame, args, (reference, references), [(name, options)], prefix=prefix)
        labels.append((name, _mode_label(options)))
        columns[prefix + name] = (
            thresholds.get(name) if isinstance(thresholds, dict) else thresholds
        )
    verdict = SAMPLE_VERDICT if args.sample and SAMPLE_VERDICT in schema else None
    if verdict is not None:
        labels.append((f"human verdict ({verdict})", "-"))
        frame = frame.with_columns(pl.col(verdict).cast(pl.Float64).alias("__polarscore_verdict"))
        columns["__polarscore_verdict"] = None if thresholds is None else 1.0
    table = _summary_table(frame, labels, columns)
    if thresholds is None:
        table = table.drop("threshold", "pass_rate")
    against = f"references {references!r}" if references else f"reference {reference!r}"
    label = files[0].name if len(files) == 1 else f"{len(files)} files"
    print(f"{label}: response {args.response!r} against {against}")
    with pl.Config(
        tbl_hide_dataframe_shape=True,
        float_precision=4,
        tbl_hide_column_data_types=True,
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=200,
    ):
        print(table)
    return EXIT_OK


def _summary_table(
    frame: pl.LazyFrame, labels: Sequence[tuple[str, str]], columns: dict[str, float | None]
) -> pl.DataFrame:
    """Summarise the score ``columns`` (at their thresholds) as the printed table's rows."""
    threshold = {c: DEFAULT_THRESHOLD if t is None else t for c, t in columns.items()}
    summary = summarize(frame, list(columns), threshold=threshold, n_bootstrap=0)
    if summary.height == 0:
        # A log without rows: summarize has no row to give; each scorer still gets its line.
        summary = pl.DataFrame(
            {
                "rows": [0] * len(columns),
                "scored": [0] * len(columns),
                "inconclusive": [0] * len(columns),
                "mean": [None] * len(columns),
                "threshold": list(threshold.values()),
                "pass_rate": [None] * len(columns),
            },
            schema_overrides={"mean": pl.Float64, "pass_rate": pl.Float64},
        )
    given = pl.Series([t is not None for t in columns.values()])
    return pl.DataFrame(
        {"scorer": [n for n, _ in labels], "match_mode": [m for _, m in labels]}
    ).hstack(
        summary.select(
            "rows",
            "scored",
            "inconclusive",
            pl.col("mean").alias("mean_score"),
            pl.when(given).then(pl.col("threshold")).alias("threshold"),
            pl.when(given).then(pl.col("pass_rate")).alias("pass_rate"),
        )
    )
