"""Benchmark answer_precision against a per-row Python loop of the reference semantics.

Usage::

    python benchmarks/bench_precision.py [--rows 1000000] [--loop-rows 3000] [--repeat 2]

Generates (or reuses) the synthetic eval log of ``benchmarks/synthetic.py``, then measures, in the
same run and on the same data:

* ``reference loop``: eval-ai-library's AnswerPrecisionMetric as a plain per-row Python loop
  (``tests/oracles/precision.py``: ``re``, ``unicodedata``, ``difflib``, the greedy number loop),
  the way eval-ai-library scores a row, on a random sample of ``--loop-rows`` rows (measured
  twice, around the polarscore runs, keeping the faster rate, since the machine may be busy);
* ``polarscore``: ``answer_precision`` with ``char_similarity="indel"`` and
  ``"sequence_matcher"``, with the in-memory engine and with the streaming engine.

Each polarscore measurement runs in a fresh subprocess so its peak RSS (``ru_maxrss``) is its own;
the peak is reported above the RSS after loading the data, next to the size of the input text.
Throughput is given per wall-clock second and per CPU second (all threads' CPU time), which stays
meaningful on a machine busy with other work.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

# Run from a checkout: the benchmarks and the package beside them, installed or not.
sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
from _measure import benchmark_parser, run_child, time_select  # noqa: E402
from _measure import text_mib as measured_text_mib  # noqa: E402
from synthetic import cached_eval_log  # noqa: E402

from tests.oracles.precision import answer_precision as reference_row  # noqa: E402


def reference_loop(responses: list[str | None], references: list[str | None]) -> list:
    """Score rows one by one with the reference semantics (AnswerPrecisionMetric, difflib)."""
    return [
        reference_row(a, e, char_similarity="sequence_matcher", missing_expected="zero").score
        for a, e in zip(responses, references, strict=True)
    ]


def _timed_loop(sample: pl.DataFrame) -> tuple[float, float]:
    responses, references = sample["response"].to_list(), sample["reference"].to_list()
    start, start_cpu = time.perf_counter(), time.process_time()
    reference_loop(responses, references)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return sample.height / wall, sample.height / cpu


def _child(args: argparse.Namespace) -> None:
    """Run one measurement in this (fresh) process and print a JSON line."""
    import polarscore as ps

    frame = cached_eval_log(args.rows)
    expr = ps.answer_precision("response", "reference", char_similarity=args.char_similarity)
    time_select(frame, expr, engine=args.engine, repeat=args.repeat)


def _measure(rows: int, char_similarity: str, engine: str, repeat: int) -> dict[str, float]:
    return run_child(
        __file__,
        [
            *("--rows", str(rows), "--char-similarity", char_similarity),
            *("--engine", engine, "--repeat", str(repeat)),
        ],
    )


def main() -> None:
    parser = benchmark_parser(__doc__, loop_rows=3_000, repeat=2)
    parser.add_argument("--char-similarity", default="indel", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return

    frame = cached_eval_log(args.rows)
    text_mib = measured_text_mib(frame, "response", "reference")
    sample = frame.sample(min(args.loop_rows, frame.height), seed=1)
    print(
        f"synthetic log: {frame.height:,} rows, {text_mib:,.0f} MiB of text; "
        f"loop sample {sample.height:,} rows"
    )
    first = _timed_loop(sample)
    results = [
        (f"polarscore {similarity} {engine}", _measure(args.rows, similarity, engine, args.repeat))
        for similarity in ("indel", "sequence_matcher")
        for engine in ("in-memory", "streaming")
    ]
    second = _timed_loop(sample)
    loop_rate, loop_cpu_rate = max(first[0], second[0]), max(first[1], second[1])
    print(
        f"{'what':<38} {'rows/s':>10} {'x loop':>8} {'rows/cpu-s':>11} {'x loop':>8} "
        f"{'peak MiB':>9} {'x text':>7}"
    )
    print(
        f"{'reference loop (Python, difflib)':<38} {loop_rate:>10,.0f} {1.0:>8.1f} "
        f"{loop_cpu_rate:>11,.0f} {1.0:>8.1f}"
    )
    for label, result in results:
        rate = args.rows / result["seconds"]
        cpu_rate = args.rows / result["cpu"]
        print(
            f"{label:<38} {rate:>10,.0f} {rate / loop_rate:>8.1f} {cpu_rate:>11,.0f} "
            f"{cpu_rate / loop_cpu_rate:>8.1f} {result['peak_mib']:>9,.0f} "
            f"{result['peak_mib'] / text_mib:>7.2f}"
        )


if __name__ == "__main__":
    main()
