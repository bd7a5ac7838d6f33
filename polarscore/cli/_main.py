"""The command line's entry point: dispatch, signals, and exit codes for errors."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

import polars as pl

from polarscore import _allocator, _inputs
from polarscore.cli._args import _PROG, _build_parser
from polarscore.cli._compare import _compare
from polarscore.cli._exit import (
    EXIT_DATA,
    EXIT_ERROR,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from polarscore.cli._score import _print_mode_summary, _score_to_file
from polarscore.cli._summary import _list_scorers, _report, _summary
from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    ColumnValueError,
    InputFileError,
    OutputFileError,
    PolarscoreError,
)
from polarscore.logs._errors import reader_error


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that the partial output is cleaned up."""


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
    if args.command == "compare":
        return _compare(args)
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
    logs slice by slice (:func:`polarscore.cli._output.write_in_slices`) so that this cannot grow
    with the log; one row group of read-ahead also keeps each query's own footprint small, at no
    measured cost in speed (``answer_correctness`` over 3M rows in one query: 0.8 GiB instead of
    1.5 GiB). The command line is an application, so it may set this for its own process; the
    library never changes the environment.
    """
    os.environ.setdefault(PARQUET_PREFETCH_VARIABLE, "1")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    _allocator.resume_gc()  # paused while the command line imported (polarscore._allocator)
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
    except InputFileError as error:
        _error(str(error))
        return EXIT_INPUT
    except OutputFileError as error:
        _error(str(error))
        return EXIT_OUTPUT
    except (ColumnNotFoundError, ColumnTypeError, ColumnValueError, ColumnCollisionError) as error:
        _error(str(error))
        return EXIT_DATA
    except PolarscoreError as error:
        _error(str(error))
        return EXIT_USAGE
    except pl.exceptions.PolarsError as error:
        found = reader_error(error)  # a framework log's reader, failing mid-query
        _error(str(found) if found else f"cannot read the input: {_inputs.first_line(error)}")
        return EXIT_INPUT
    except pl.exceptions.PanicException as error:
        _error(f"internal error in Polars: {_inputs.first_line(error)}")
        return EXIT_ERROR
    except OSError as error:
        _error(str(error))
        return EXIT_ERROR
