"""The ``polarscore`` command line.

* ``polarscore score --sample`` scores the bundled TriviaQA sample with answer correctness in every
  match mode and prints a per-mode summary (``polarscore score LOG.parquet`` does the same for
  your own log).
* ``polarscore score INPUT... -o OUTPUT`` adds score columns to eval logs (Parquet, JSON Lines or
  CSV; globs and directories of Parquet files) and writes Parquet or CSV, streaming with bounded
  memory, atomically (a temporary file renamed at the end), with a progress bar on a terminal.
* ``polarscore summary SCORED...`` prints scored and inconclusive counts, the mean and the pass
  rate with confidence intervals, as a table or as JSON.
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
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import polars as pl

from polarscore import _io
from polarscore.datasets import sample_path
from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    InvalidParameterError,
    PolarscoreError,
)
from polarscore.frame import resolve_scorers, score_exprs
from polarscore.registry import available_scorers, default_scorers, get_scorer
from polarscore.scores.correctness import MATCH_MODES, answer_correctness
from polarscore.summary import summarize

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INPUT = 4
EXIT_OUTPUT = 5
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

_PROG = "polarscore"


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that the partial output is cleaned up."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Judge-free scoring of LLM answers against reference answers.",
        epilog=(
            "exit codes: 0 ok, 1 unexpected error, 2 bad usage or options, 3 column missing, of "
            "the wrong type or colliding, 4 input missing or unreadable, 5 output not writable, "
            "130 interrupted, 143 terminated"
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_score_parser(sub)
    _add_summary_parser(sub)
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
            "score with answer correctness and print rows, scored, inconclusive and mean score "
            "per match mode."
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
        "--reference", default="reference", help="reference column (default: %(default)s)"
    )
    score.add_argument(
        "--references",
        default=None,
        help="list column of acceptable answers (aliases), for the scorers that accept a list",
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
        "--threshold", type=float, default=0.5, help="pass threshold (default: %(default)s)"
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


def parse_scorer(text: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME`` or ``NAME:key=value,key=value`` against the registry.

    Examples
    --------
    >>> from polarscore.cli import parse_scorer
    >>> parse_scorer("answer_correctness:match_mode=contains")
    ('answer_correctness', {'match_mode': 'contains'})
    """
    name, _, rest = text.partition(":")
    spec = get_scorer(name.strip())
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
            named[get_scorer(name).name] = number
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


def _score_to_file(args: argparse.Namespace) -> int:
    files = [sample_path()] if args.sample else _io.resolve_inputs(args.inputs)
    target: Path = args.output
    kind = _io.output_format(target, args.format)
    _io.check_target(target, overwrite=args.overwrite, inputs=files)
    frame = _io.scan_inputs(files)
    schema = frame.collect_schema()

    selection = [parse_scorer(s) for s in args.scorers] if args.scorers else None
    if selection is None:
        selection = [(name, {}) for name in default_scorers()]
    mode: Any = None
    if args.mode_column is not None:
        mode = pl.col(args.mode_column)
    elif args.match_mode not in (None, "all"):
        mode = args.match_mode
    elif args.match_mode == "all":
        raise InvalidParameterError(
            "--match-mode all applies to the printed summary only; with -o choose one mode "
            "(or give --mode-column)."
        )
    if mode is not None:
        takers = [name for name, _ in selection if "match_mode" in get_scorer(name).options]
        if not takers:
            raise InvalidParameterError(
                "--match-mode/--mode-column apply to scorers with a 'match_mode' option, and "
                "none was selected."
            )
        for name, options in selection:
            if name in takers:
                options.setdefault("match_mode", mode)
    for _, options in selection:
        for column in _option_columns(options):
            if column not in schema:
                raise ColumnNotFoundError.from_missing(column, schema.names(), role="option")
    missing_drop = [c for c in args.drop if c not in schema]
    if missing_drop:
        raise ColumnNotFoundError.from_missing(missing_drop[0], schema.names(), role="--drop")

    requests = resolve_scorers(
        selection, thresholds=_parse_thresholds(args.threshold), prefix=args.prefix
    )
    exprs = score_exprs(
        schema,
        requests,
        response=args.response,
        reference=args.reference,
        references=args.references,
    )
    stream = _io.stderr_if_tty(quiet=args.quiet)
    total = _io.count_rows(files)
    progress = _io.Progress(total, stream=stream)
    # With the row count known (Parquet), the log is scored slice by slice, which keeps memory
    # flat and counts rows as slices finish. Otherwise (CSV, JSON Lines) one streaming query
    # runs, and a pass-through batch function on the first score column counts the rows.
    if not total:
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
    with _io.atomic_target(target) as temporary:
        try:
            if total:
                _io.write_in_slices(scored, temporary, kind, total=total, progress=progress)
            else:
                _io.run_with_progress(_io.sink(scored, temporary, kind), progress)
        except pl.exceptions.PolarsError as error:
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


def _print_mode_summary(args: argparse.Namespace) -> int:
    files = [sample_path()] if args.sample else _io.resolve_inputs(args.inputs)
    modes = MATCH_MODES if args.match_mode in (None, "all") else (args.match_mode,)
    summary = summarize_correctness(
        _io.scan_inputs(files),
        response=args.response,
        reference=args.reference,
        modes=modes,
        mode_column=args.mode_column,
    )
    label = files[0].name if len(files) == 1 else f"{len(files)} files"
    print(f"answer_correctness on {label}")
    with pl.Config(
        tbl_hide_dataframe_shape=True, float_precision=4, tbl_hide_column_data_types=True
    ):
        print(summary)
    return EXIT_OK


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _summary(args: argparse.Namespace) -> int:
    files = _io.resolve_inputs(args.inputs)
    table = summarize(
        _io.scan_inputs(files),
        args.scores,
        by=args.by,
        threshold=args.threshold,
        expected_behavior=args.expected_behavior,
        confidence=args.confidence,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
    )
    if args.json:
        rows = [{k: _json_value(v) for k, v in row.items()} for row in table.to_dicts()]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
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
    except OSError as error:
        _error(str(error))
        return EXIT_ERROR


__all__ = ["main", "parse_scorer", "summarize_correctness"]
