"""The ``polarscore`` command line.

``polarscore score --sample`` scores the bundled TriviaQA sample with answer correctness in every
match mode and prints a per-mode summary; ``polarscore score LOG.parquet`` does the same for your
own eval log.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from polarscore.datasets import sample_path
from polarscore.exceptions import ColumnNotFoundError, ColumnTypeError, PolarscoreError
from polarscore.scores.correctness import MATCH_MODES, answer_correctness

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_DATA = 3


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polarscore",
        description="Judge-free scoring of LLM answers against reference answers.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score = sub.add_parser(
        "score",
        help="score an eval log with answer correctness and print a per-mode summary",
        description=(
            "Score the responses of an eval log (Parquet) against its reference answers with "
            "answer correctness, and print rows, scored, inconclusive and mean score per mode."
        ),
    )
    source = score.add_mutually_exclusive_group(required=True)
    source.add_argument("input", nargs="?", type=Path, help="eval log to score (Parquet)")
    source.add_argument(
        "--sample", action="store_true", help="score the bundled TriviaQA sample (3,000 rows)"
    )
    score.add_argument(
        "--response", default="response", help="response column (default: %(default)s)"
    )
    score.add_argument(
        "--reference", default="reference", help="reference column (default: %(default)s)"
    )
    score.add_argument(
        "--match-mode",
        choices=[*MATCH_MODES, "all"],
        default="all",
        help="match mode to score with (default: every mode)",
    )
    score.add_argument(
        "--mode-column",
        default=None,
        help="column giving a per-row match mode (overrides --match-mode)",
    )
    return parser


def _check_columns(frame: pl.LazyFrame, columns: dict[str, str]) -> None:
    schema = frame.collect_schema()
    for role, name in columns.items():
        if name not in schema:
            raise ColumnNotFoundError.from_missing(name, schema.names(), role=role)
        dtype = schema[name]
        if dtype not in (pl.String, pl.Null) and not isinstance(dtype, pl.Categorical | pl.Enum):
            raise ColumnTypeError(
                f"The {role} column {name!r} must hold text (String); it is {dtype}."
            )


def summarize_correctness(
    frame: pl.LazyFrame,
    *,
    response: str,
    reference: str,
    modes: Sequence[str],
    mode_column: str | None = None,
) -> pl.DataFrame:
    """Score ``frame`` in each mode and return one summary row per mode."""
    columns = {"response": response, "reference": reference}
    if mode_column is not None:
        columns["mode"] = mode_column
    _check_columns(frame, columns)
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
    aggregates = []
    for label, expr in scored.items():
        aggregates.append(
            pl.struct(
                pl.lit(label).alias("mode"),
                pl.len().alias("rows"),
                expr.count().alias("scored"),
                expr.null_count().alias("inconclusive"),
                expr.mean().alias("mean_score"),
            ).alias(label)
        )
    wide = frame.select(aggregates).collect(engine="streaming")
    return pl.concat([wide.select(pl.col(c).struct.unnest()) for c in wide.columns])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    args = _build_parser().parse_args(argv)
    path: Path = sample_path() if args.sample else args.input
    if not path.exists():
        print(f"polarscore: error: input file {str(path)!r} does not exist", file=sys.stderr)
        return EXIT_USAGE
    modes = MATCH_MODES if args.match_mode == "all" else (args.match_mode,)
    try:
        summary = summarize_correctness(
            pl.scan_parquet(path),
            response=args.response,
            reference=args.reference,
            modes=modes,
            mode_column=args.mode_column,
        )
    except PolarscoreError as error:
        print(f"polarscore: error: {error}", file=sys.stderr)
        return EXIT_DATA
    except pl.exceptions.PolarsError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"polarscore: error: cannot read {str(path)!r}: {message}", file=sys.stderr)
        return EXIT_DATA
    print(f"answer_correctness on {path.name}")
    with pl.Config(
        tbl_hide_dataframe_shape=True, float_precision=4, tbl_hide_column_data_types=True
    ):
        print(summary)
    return EXIT_OK


__all__ = ["main", "summarize_correctness"]
