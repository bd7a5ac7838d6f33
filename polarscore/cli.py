"""The ``polarscore`` command line.

* ``polarscore score --sample`` scores the bundled TriviaQA sample against its alias lists with
  answer correctness in every match mode and prints a per-mode summary beside the sample's human
  verdicts (``polarscore score LOG.parquet`` does the same for your own log; ``--scorer``,
  ``--references`` and ``--threshold`` choose what is printed).
* ``polarscore score INPUT... -o OUTPUT`` adds score columns to eval logs (Parquet, JSON Lines or
  CSV; globs and directories of Parquet files) and writes Parquet or CSV, streaming with bounded
  memory, atomically (a temporary file renamed at the end), with a progress bar on a terminal.
* ``polarscore summary SCORED...`` prints scored and inconclusive counts, the mean and the pass
  rate with confidence intervals, as a table or as JSON, at the thresholds recorded in the
  scored file (:mod:`polarscore.provenance`) unless ``--threshold`` is given.
* ``polarscore report SCORED... -o report.html`` writes one self-contained HTML page about
  scored logs (:mod:`polarscore.reporting`): intervals per group, distributions, paired
  differences, agreement with a verdict, sampled rows and the provenance record.
* ``polarscore scorers`` lists the registered scorers and their options.

Exit codes: 0 success, 1 unexpected error, 2 bad usage or options, 3 a column is missing, of the
wrong type, or would be overwritten, 4 an input is missing, unreadable or corrupt, 5 the output
cannot be written (it exists: pass ``--overwrite``), 130 interrupted (Ctrl-C), 143 terminated.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import polars as pl
from polars._typing import PolarsDataType

from polarscore import _io
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore.datasets import sample_path
from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    InvalidParameterError,
    PolarscoreError,
)
from polarscore.frame import resolve_scorers, score_exprs
from polarscore.provenance import (
    PROVENANCE_KEY,
    read_provenance,
    record_for_requests,
    recorded_thresholds,
)
from polarscore.registry import available_scorers, default_scorers, get_scorer
from polarscore.scores.correctness import MATCH_MODES, answer_correctness
from polarscore.summary import _default_scores, summarize

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INPUT = 4
EXIT_OUTPUT = 5
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

_PROG = "polarscore"
_T = TypeVar("_T")


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that the partial output is cleaned up."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Judge-free scoring of LLM answers against reference answers.",
        epilog=(
            "exit codes: 0 ok, 1 unexpected error, 2 bad usage or options, 3 column missing, of "
            "the wrong type or colliding, 4 input missing or unreadable, 5 output not writable "
            "(also a full disk mid-write: the previous output is kept), 130 interrupted, "
            "143 terminated"
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_score_parser(sub)
    _add_summary_parser(sub)
    _add_report_parser(sub)
    sub.add_parser(
        "scorers",
        help="list the registered scorers and their options",
        description="List the registered scorers, their options and defaults.",
    )
    return parser


def _add_score_parser(sub: Any) -> None:
    score = sub.add_parser(
        "score",
        help="add score columns to eval logs (with -o), or print a per-mode summary",
        description=(
            "With -o OUTPUT: score eval logs (Parquet, JSONL or CSV files, globs, or directories "
            "of Parquet files) and write them with the score columns added, as Parquet or CSV, "
            "streaming with bounded memory. The output appears only when complete. Without -o: "
            "print rows, scored, inconclusive and mean score (and the pass rate with "
            "--threshold) per scorer, by default answer correctness in every match mode; the "
            "bundled sample is scored against its alias list, beside its human verdicts."
        ),
        epilog=(
            "scorer options: --scorer NAME:key=value,key=value; a value @COLUMN reads the option "
            "per row from a column. Example: --scorer answer_correctness:match_mode=contains. "
            "List scorers and options with 'polarscore scorers'."
        ),
    )
    score.add_argument("inputs", nargs="*", metavar="INPUT", help="eval logs to score")
    score.add_argument(
        "--sample", action="store_true", help="score the bundled TriviaQA sample (3,000 rows)"
    )
    score.add_argument("-o", "--output", type=Path, help="write the scored log here")
    score.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default=None,
        help="output format (default: from the output suffix)",
    )
    score.add_argument(
        "--response", default="response", help="response column (default: %(default)s)"
    )
    score.add_argument(
        "--reference",
        default=None,
        help="reference column: text, or a list of acceptable answers (default: reference)",
    )
    score.add_argument(
        "--references",
        default=None,
        help="list column of acceptable answers (aliases); every scorer then reads it instead "
        "of --reference (default with --sample: references)",
    )
    score.add_argument(
        "--scorer",
        action="append",
        dest="scorers",
        metavar="NAME[:OPTIONS]",
        help="scorer to run, repeatable (default: answer_correctness without -o, the default "
        "scorers with -o; checks such as contains run only when named)",
    )
    score.add_argument(
        "--match-mode",
        choices=[*MATCH_MODES, "all"],
        default=None,
        help="match mode of the scorers that have one (without -o: default every mode)",
    )
    score.add_argument(
        "--mode-column",
        default=None,
        help="column giving a per-row match mode (overrides --match-mode)",
    )
    score.add_argument(
        "--threshold",
        action="append",
        default=None,
        metavar="[NAME=]T",
        help="add a boolean <score>_passed column (score >= T); NAME=T for one scorer",
    )
    score.add_argument("--prefix", default=None, help="prefix of the score column names")
    score.add_argument(
        "--drop", nargs="+", default=[], metavar="COLUMN", help="input columns to leave out"
    )
    score.add_argument("--overwrite", action="store_true", help="replace an existing output")
    score.add_argument("-q", "--quiet", action="store_true", help="no progress bar or messages")


def _add_summary_parser(sub: Any) -> None:
    summary = sub.add_parser(
        "summary",
        help="summarise scored logs: counts, mean, pass rate, confidence intervals",
        description=(
            "Print, per score column (and group), the rows, scored and inconclusive cases, the "
            "mean score with a bootstrap interval and the pass rate with a Wilson interval."
        ),
    )
    summary.add_argument("inputs", nargs="+", metavar="SCORED", help="scored logs")
    summary.add_argument(
        "--scores",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="score columns (default: float columns named after a scorer)",
    )
    summary.add_argument(
        "--by", action="append", default=None, metavar="COLUMN", help="group by, repeatable"
    )
    summary.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="pass threshold of every score column (default: the threshold each column was "
        f"scored with, as recorded in the file by 'polarscore score', else {DEFAULT_THRESHOLD})",
    )
    summary.add_argument(
        "--expected-behavior", default=None, metavar="COLUMN", help="column of good/bad labels"
    )
    summary.add_argument(
        "--confidence", type=float, default=0.95, help="interval level (default: %(default)s)"
    )
    summary.add_argument(
        "--n-bootstrap", type=int, default=2000, help="bootstrap resamples (default: %(default)s)"
    )
    summary.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    summary.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _add_report_parser(sub: Any) -> None:
    report = sub.add_parser(
        "report",
        help="write one self-contained HTML page about scored logs",
        description=(
            "Write an HTML report of scored logs: pass rates and mean scores with intervals per "
            "group, score distributions, paired differences (--pair-on), agreement with a "
            "verdict column (--verdict), a sample of the rows behind the numbers, and how the "
            "log was scored. One file, no script, nothing loaded from the network; aggregated "
            "lazily, so big Parquet logs stay within bounded memory. Written atomically."
        ),
    )
    report.add_argument("inputs", nargs="+", metavar="SCORED", help="scored logs")
    report.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    report.add_argument(
        "--scores",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="score columns (default: those recorded in the log, else float columns named "
        "after a scorer)",
    )
    report.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COLUMN",
        help="group by, repeatable (default: model, when the log has it)",
    )
    report.add_argument(
        "--verdict", default=None, metavar="COLUMN", help="column of human or reference verdicts"
    )
    report.add_argument(
        "--pair-on",
        action="append",
        default=None,
        metavar="COLUMN",
        help="column identifying a question, repeatable: compare groups on shared questions",
    )
    report.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="pass threshold of every score column (default: as recorded in the log, else "
        f"{DEFAULT_THRESHOLD})",
    )
    report.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="rows shown per score column and kind of row (default: 5, at most 200)",
    )
    report.add_argument("--response", default=None, help="response column shown in the rows")
    report.add_argument("--reference", default=None, help="reference column shown in the rows")
    report.add_argument(
        "--question", default=None, help="question column shown in the rows (default: input)"
    )
    report.add_argument("--title", default=None, help="title of the page")
    report.add_argument(
        "--confidence", type=float, default=0.95, help="interval level (default: %(default)s)"
    )
    report.add_argument(
        "--n-bootstrap", type=int, default=2000, help="bootstrap resamples (default: %(default)s)"
    )
    report.add_argument("--seed", type=int, default=0, help="seed of bootstraps and sample")
    report.add_argument("--overwrite", action="store_true", help="replace an existing output")
    report.add_argument("-q", "--quiet", action="store_true", help="no message on success")


def _split_options(text: str) -> list[str]:
    """Split ``a=1,b=[1,2]`` on the commas that are not inside brackets or quotes."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current: list[str] = []
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def _parse_value(scorer: str, option: str, text: str, default: Any) -> Any:
    """Read an option value from text, guided by the type of its default."""
    if text.startswith("@") and len(text) > 1:
        return pl.col(text[1:])
    bad = InvalidParameterError(
        f"The {option!r} option of {scorer} takes a {type(default).__name__}; got {text!r}."
    )
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
        raise bad
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise bad from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise bad from None
    if isinstance(default, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _scorer_name(name: str, flag: str) -> str:
    if name not in available_scorers():
        raise InvalidParameterError(
            f"{flag} names no registered scorer: {name!r}. The scorers: "
            f"{', '.join(available_scorers())} (see 'polarscore scorers')."
        )
    return name


def parse_scorer(text: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME`` or ``NAME:key=value,key=value`` against the registry.

    Examples
    --------
    >>> from polarscore.cli import parse_scorer
    >>> parse_scorer("answer_correctness:match_mode=contains")
    ('answer_correctness', {'match_mode': 'contains'})
    """
    name, _, rest = text.partition(":")
    spec = get_scorer(_scorer_name(name.strip(), "--scorer"))
    options: dict[str, Any] = {}
    for item in _split_options(rest):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise InvalidParameterError(
                f"The scorer option {item!r} of {spec.name} must be written key=value."
            )
        if key not in spec.options:
            allowed = ", ".join(repr(o) for o in spec.options) or "none"
            raise InvalidParameterError(
                f"The scorer {spec.name} has no option {key!r}. Its options: {allowed}."
            )
        options[key] = _parse_value(spec.name, key, value.strip(), spec.options[key])
    return spec.name, options


def _parse_thresholds(items: Sequence[str] | None) -> float | dict[str, float] | None:
    if not items:
        return None
    single: float | None = None
    named: dict[str, float] = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise InvalidParameterError(
                f"The --threshold value must be a number or NAME=number; got {item!r}."
            ) from None
        if sep:
            named[_scorer_name(name, "--threshold NAME=T")] = number
        else:
            single = number
    if single is not None and named:
        raise InvalidParameterError(
            "Give --threshold either once as a number for every scorer, or as NAME=number."
        )
    return single if single is not None else named


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


def _selection(args: argparse.Namespace, *, printing: bool) -> list[tuple[str, dict[str, Any]]]:
    """Return the ``(scorer, options)`` pairs to run, with the match-mode flags applied.

    Printing, the default is answer correctness, and a scorer with a ``match_mode`` option
    that neither ``--scorer`` nor a flag sets is listed once per mode.
    """
    chosen = [parse_scorer(s) for s in args.scorers] if args.scorers else None
    if chosen is None:
        names = ["answer_correctness"] if printing else default_scorers()
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


def _listing(schema: pl.Schema) -> str:
    return ", ".join(repr(c) for c in schema.names()) or "(none)"


def _check_input_columns(
    schema: pl.Schema, schemas: dict[Path, pl.Schema], needed: dict[str, str]
) -> None:
    """Check the columns the flags name (``needed``: column -> flag), in the flags' words."""
    for column, flag in needed.items():
        if column not in schema:
            raise ColumnNotFoundError(
                f"The {flag} column {column!r} is not in the input. Its columns: "
                f"{_listing(schema)}.\nHint: name one of them with {flag}."
            )
    _io.check_columns_in_every_file(schemas, needed)
    for column, flag in needed.items():
        dtype = schema[column]
        if flag in ("--response", "--mode-column"):
            fits = _is_text(dtype)
            expected = "text (String)"
        elif flag in ("--reference", "--references"):
            fits = _is_text(dtype) or (isinstance(dtype, pl.List) and _is_text(dtype.inner))
            expected = "text (String) or a list of text (List(String))"
        else:
            continue
        if not fits:
            raise ColumnTypeError(
                f"The {flag} column {column!r} holds {dtype}, not {expected}.\n"
                "Hint: the command line does not convert columns; write the log with the column "
                f"as text (in Polars: pl.col({column!r}).cast(pl.String))."
            )


def _is_text(dtype: PolarsDataType) -> bool:
    return dtype in (pl.String, pl.Null) or isinstance(dtype, pl.Categorical | pl.Enum)


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
        _cli_words(partial(spec.expr, pl.col("response"), pl.col("reference"), **options))


def _score_to_file(args: argparse.Namespace) -> int:
    # Every flag is checked before any file is looked at.
    selection = _selection(args, printing=False)
    thresholds = _parse_thresholds(args.threshold)
    _check_thresholds(thresholds, selection)
    reference, references = _reference_columns(args)
    requests = resolve_scorers(selection, thresholds=thresholds, prefix=args.prefix)
    _check_option_values(selection)

    files = [sample_path()] if args.sample else _io.resolve_inputs(args.inputs)
    target: Path = args.output
    kind = _io.output_format(target, args.format)
    _io.check_target(target, overwrite=args.overwrite, inputs=files)
    schemas = {file: _io.read_schema(file) for file in files}
    frame = _io.scan_inputs(files, schemas)
    schema = frame.collect_schema()
    _check_input_columns(schema, schemas, _needed_columns(args, selection, reference, references))
    for column in args.drop:
        if column not in schema:
            raise ColumnNotFoundError(
                f"The --drop column {column!r} is not in the input. Its columns: "
                f"{_listing(schema)}."
            )
    outputs = [r.column for r in requests] + [r.pass_column for r in requests if r.pass_column]
    clashes = [name for name in outputs if name in schema]
    if clashes:
        raise ColumnCollisionError(
            f"The output column {clashes[0]!r} is already in the input.\n"
            "Hint: pass --prefix to name the score columns differently."
        )

    exprs = _cli_words(
        lambda: score_exprs(
            schema,
            requests,
            response=args.response,
            reference=reference,
            references=references,
        )
    )
    stream = _io.stderr_if_tty(quiet=args.quiet)
    total = _io.count_rows(files)
    progress = _io.Progress(total, stream=stream)
    # With the row count known (Parquet), the log is scored slice by slice, which keeps memory
    # flat. Otherwise (CSV, JSON Lines) one streaming query runs. Either way a pass-through batch
    # function on the first score column counts the rows as they are scored (one Python call
    # per batch of rows), so the progress line moves while a slice runs.
    first = requests[0]
    exprs[0] = (
        exprs[0]
        .map_batches(progress.counter, return_dtype=first.spec.dtype, is_elementwise=True)
        .alias(first.column)
    )
    scored = frame.with_columns(exprs[: len(requests)])
    if len(exprs) > len(requests):
        scored = scored.with_columns(exprs[len(requests) :])
    if args.drop:
        scored = scored.drop(args.drop)
    if kind == "csv":
        nested = _io.nested_columns(scored.collect_schema())
        if nested:
            raise ColumnTypeError(
                f"CSV cannot hold the nested column(s) {', '.join(repr(c) for c in nested)}.\n"
                "Hint: write Parquet, or leave them out with --drop."
            )
    record = record_for_requests(
        requests,
        response=args.response,
        reference=reference,
        references=references,
        inputs={str(file): rows for file, rows in _io.file_rows(files).items()},
    )
    metadata = {PROVENANCE_KEY: json.dumps(record, ensure_ascii=False)}
    try:
        with _io.atomic_target(target) as temporary:
            if total:
                _io.write_in_slices(
                    scored, temporary, kind, total=total, progress=progress, metadata=metadata
                )
            else:
                _io.run_with_progress(
                    _io.sink(scored, temporary, kind, metadata=metadata), progress
                )
    except (OSError, pl.exceptions.PolarsError) as error:
        # A full disk fails the write, the sync or the rename; Polars' writers report it as
        # their own error, so it is told apart from an input failure by its errno.
        full = _io.out_of_room(target, error)
        if full is not None:
            raise full from error
        if isinstance(error, OSError):
            raise
        raise _io.InputFileError(
            f"Scoring stopped while reading or scoring the input: {_io.first_line(error)}"
        ) from error
    if not args.quiet:
        columns = ", ".join(r.column for r in requests)
        print(f"wrote {progress.rows:,} rows to {str(target)!r} ({columns})", file=sys.stderr)
    return EXIT_OK


def summarize_correctness(
    frame: pl.LazyFrame,
    *,
    response: str,
    reference: str,
    modes: Sequence[str],
    mode_column: str | None = None,
) -> pl.DataFrame:
    """Score ``frame`` in each mode and return one summary row per mode."""
    schema = frame.collect_schema()
    columns = {"response": response, "reference": reference}
    if mode_column is not None:
        columns["mode"] = mode_column
    for role, name in columns.items():
        if name not in schema:
            raise ColumnNotFoundError.from_missing(name, schema.names(), role=role)
        dtype = schema[name]
        if dtype not in (pl.String, pl.Null) and not isinstance(dtype, pl.Categorical | pl.Enum):
            raise ColumnTypeError(
                f"The {role} column {name!r} must hold text (String); it is {dtype}."
            )
    resp = pl.col(response).cast(pl.String)
    ref = pl.col(reference).cast(pl.String)
    if mode_column is not None:
        scored = {
            mode_column: answer_correctness(
                resp, ref, match_mode=pl.col(mode_column).cast(pl.String)
            )
        }
    else:
        scored = {mode: answer_correctness(resp, ref, match_mode=mode) for mode in modes}  # type: ignore[arg-type]
    aggregates = [
        pl.struct(
            pl.lit(label).alias("mode"),
            pl.len().alias("rows"),
            expr.count().alias("scored"),
            expr.null_count().alias("inconclusive"),
            expr.mean().alias("mean_score"),
        ).alias(label)
        for label, expr in scored.items()
    ]
    wide = frame.select(aggregates).collect(engine="streaming")
    return pl.concat([wide.select(pl.col(c).struct.unnest()) for c in wide.columns])


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
    selection = _selection(args, printing=True)
    thresholds = _parse_thresholds(args.threshold)
    _check_thresholds(thresholds, selection)
    reference, references = _reference_columns(args)
    # Validate the selection as a whole (unknown options); each row is then built on its own.
    resolve_scorers(list(dict(selection).items()), thresholds=thresholds)
    _check_option_values(selection)

    files = [sample_path()] if args.sample else _io.resolve_inputs(args.inputs)
    schemas = {file: _io.read_schema(file) for file in files}
    frame = _io.scan_inputs(files, schemas)
    schema = frame.collect_schema()
    _check_input_columns(schema, schemas, _needed_columns(args, selection, reference, references))

    labels: list[tuple[str, str]] = []
    aggregates: list[pl.Expr] = []
    for index, (name, options) in enumerate(selection):
        threshold = thresholds.get(name) if isinstance(thresholds, dict) else thresholds
        (request,) = resolve_scorers(
            [(name, options)],
            thresholds=None if threshold is None else {name: threshold},
            prefix=f"__polarscore_{index}_",
        )
        score = _cli_words(
            partial(
                score_exprs,
                schema,
                [request],
                response=args.response,
                reference=reference,
                references=references,
            )
        )[0]
        labels.append((name, _mode_label(options)))
        aggregates.append(_score_aggregate(score, request.threshold, f"__row_{index}"))
    verdict = SAMPLE_VERDICT if args.sample and SAMPLE_VERDICT in schema else None
    if verdict is not None:
        labels.append((f"human verdict ({verdict})", "-"))
        human = pl.col(verdict).cast(pl.Float64)
        verdict_threshold = None if thresholds is None else 1.0
        aggregates.append(_score_aggregate(human, verdict_threshold, f"__row_{len(labels) - 1}"))
    wide = frame.select(aggregates).collect(engine="streaming")
    rows = [wide[column].struct.unnest() for column in wide.columns]
    table = pl.DataFrame(
        {"scorer": [n for n, _ in labels], "match_mode": [m for _, m in labels]}
    ).hstack(pl.concat(rows))
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


def _score_aggregate(score: pl.Expr, threshold: float | None, name: str) -> pl.Expr:
    """One summary row: rows, scored, inconclusive, mean score and, with a threshold, pass rate."""
    passed = (score >= threshold).sum() / score.count() if threshold is not None else None
    return pl.struct(
        pl.len().alias("rows"),
        score.count().alias("scored"),
        score.null_count().alias("inconclusive"),
        score.mean().alias("mean_score"),
        pl.lit(threshold, dtype=pl.Float64).alias("threshold"),
        (pl.lit(None, dtype=pl.Float64) if passed is None else passed).alias("pass_rate"),
    ).alias(name)


_PYTHON_PARAMETER = re.compile(r"^The '(\w+)' parameter of (\w+) ")


def _cli_words(build: Callable[[], _T]) -> _T:
    """Run ``build``; a scorer's bad option value is reported as a ``--scorer`` option."""
    try:
        return build()
    except InvalidParameterError as error:
        message = _PYTHON_PARAMETER.sub(r"The option \1 of --scorer \2 ", str(error))
        raise InvalidParameterError(message) from error


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(files: Sequence[Path]) -> dict[Path, dict[str, Any]]:
    """Return the provenance records of the scored Parquet files that carry one."""
    records = {}
    for file in files:
        if _io.input_format(file) == "parquet":
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


def _check_summary_flags(args: argparse.Namespace, schema: pl.Schema) -> list[str]:
    """Check the summary's flags in their own words; return the score columns."""
    scores = list(args.scores) if args.scores else _default_scores(schema)
    if not scores:
        raise ColumnNotFoundError(
            "No score column to summarise: no float column is named after a scorer. The "
            f"columns: {_listing(schema)}.\nHint: name the score columns with --scores."
        )
    flags = [("--scores", c) for c in scores] + [("--by", c) for c in args.by or []]
    if args.expected_behavior is not None:
        flags.append(("--expected-behavior", args.expected_behavior))
    for flag, column in flags:
        if column not in schema:
            raise ColumnNotFoundError(
                f"The {flag} column {column!r} is not in the input. Its columns: "
                f"{_listing(schema)}.\nHint: name one of them with {flag}."
            )
    for column in scores:
        if not schema[column].is_numeric():
            raise ColumnTypeError(
                f"The --scores column {column!r} holds {schema[column]}, not numbers.\n"
                "Hint: the command line does not convert columns; name a numeric score column."
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


def _describe_record(record: dict[str, Any]) -> list[str]:
    """Return a few lines saying how a scored log was scored."""
    response = record.get("response")
    if record.get("references") is not None:
        against = f"references {record['references']!r}"
    else:
        against = f"reference {record.get('reference')!r}"
    lines = [
        f"scored by polarscore {record.get('polarscore_version', '?')}: response "
        f"{response!r} against {against}"
    ]
    for entry in record.get("scorers", []):
        options = ", ".join(f"{k}={v!r}" for k, v in entry.get("options", {}).items())
        threshold = entry.get("threshold")
        passed = "no threshold" if threshold is None else f"threshold {threshold:g}"
        lines.append(f"  {entry.get('column')}: {entry.get('name')}({options}), {passed}")
    inputs = record.get("inputs", [])
    shown = [
        f"{item.get('path')} ({'?' if item.get('rows') is None else format(item['rows'], ',')} "
        "rows)"
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
    files = _io.resolve_inputs(args.inputs)
    _io.check_target(target, overwrite=args.overwrite, inputs=files)
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
    try:
        write_report(
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
        )
    except ColumnNotFoundError as error:
        # The library's message points to keyword arguments; the command line has flags.
        message = re.sub(r"pass one of them as (\w+)=\.", _flag_hint, str(error))
        raise ColumnNotFoundError(message) from error
    if not args.quiet:
        print(f"wrote {str(target)!r}", file=sys.stderr)
    return EXIT_OK


def _flag_hint(match: re.Match[str]) -> str:
    flag = {"scores": "--scores", "by": "--by", "verdict": "--verdict", "pair_on": "--pair-on"}
    return f"name one of them with {flag.get(match.group(1), '--' + match.group(1))}."


def _summary(args: argparse.Namespace) -> int:
    files = _io.resolve_inputs(args.inputs)
    schemas = {file: _io.read_schema(file) for file in files}
    frame = _io.scan_inputs(files, schemas)
    schema = frame.collect_schema()
    scores = _check_summary_flags(args, schema)
    records = _records(files)
    thresholds = _summary_thresholds(args, scores, records)
    table = summarize(
        frame,
        scores,
        by=args.by,
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
        print("\n".join(_describe_record(record)))
    with pl.Config(
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_cols=-1,
        tbl_rows=-1,
        tbl_width_chars=200,
    ):
        print(_readable(table, by=args.by or [], confidence=args.confidence))
    return EXIT_OK


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
    columns["mean"] = _fixed(table["mean"])
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


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


@contextmanager
def _sigterm_as_exception() -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _error(message: str) -> None:
    print(f"{_PROG}: error: {message}", file=sys.stderr)


def _dispatch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.command == "scorers":
        return _list_scorers()
    if args.command == "summary":
        return _summary(args)
    if args.command == "report":
        return _report(args)
    if args.sample == bool(args.inputs):
        parser.error("score: give either INPUT files or --sample")
    if args.output is None:
        return _print_mode_summary(args)
    return _score_to_file(args)


#: Polars' environment variable for how many Parquet row groups its streaming source decodes ahead.
PARQUET_PREFETCH_VARIABLE = "POLARS_ROW_GROUP_PREFETCH_SIZE"


def _bound_parquet_read_ahead() -> None:
    """Let the Parquet source decode one row group ahead of the scoring, unless the user chose.

    Polars' streaming Parquet source keeps decoding row groups while a slower operator (scoring
    is much slower than decoding) falls behind (pola-rs/polars#28569). The CLI scores Parquet
    logs slice by slice (:func:`polarscore._io.write_in_slices`) so that this cannot grow with
    the log; one row group of read-ahead also keeps each query's own footprint small, at no
    measured cost in speed (``answer_correctness`` over 3M rows in one query: 0.8 GiB instead of
    1.5 GiB). The command line is an application, so it may set this for its own process; the
    library never changes the environment.
    """
    os.environ.setdefault(PARQUET_PREFETCH_VARIABLE, "1")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    _bound_parquet_read_ahead()
    try:
        with _sigterm_as_exception():
            return _dispatch(args, parser)
    except KeyboardInterrupt:
        _error("interrupted; no output was written")
        return EXIT_INTERRUPTED
    except _Terminated:
        _error("terminated; no output was written")
        return EXIT_TERMINATED
    except _io.InputFileError as error:
        _error(str(error))
        return EXIT_INPUT
    except _io.OutputFileError as error:
        _error(str(error))
        return EXIT_OUTPUT
    except (ColumnNotFoundError, ColumnTypeError, ColumnCollisionError) as error:
        _error(str(error))
        return EXIT_DATA
    except PolarscoreError as error:
        _error(str(error))
        return EXIT_USAGE
    except pl.exceptions.PolarsError as error:
        _error(f"cannot read the input: {_io.first_line(error)}")
        return EXIT_INPUT
    except pl.exceptions.PanicException as error:
        _error(f"internal error in Polars: {_io.first_line(error)}")
        return EXIT_ERROR
    except OSError as error:
        _error(str(error))
        return EXIT_ERROR


__all__ = ["main", "parse_scorer", "summarize_correctness"]
