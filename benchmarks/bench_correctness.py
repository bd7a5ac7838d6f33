"""Benchmark answer_correctness against a per-row Python loop of the reference semantics.

Usage::

    python benchmarks/bench_correctness.py [--rows 1000000] [--loop-rows 50000]

Generates (or reuses) the synthetic eval log of ``benchmarks/synthetic.py``, then measures, in the
same run and on the same data:

* ``reference loop``: the reference behaviour as a plain Python loop (``str.strip``, ``re.sub``),
  the way the reference library scores a row, on the first ``--loop-rows`` rows;
* ``naive port``: the straightforward Polars translation (Rust ``\\w``/``\\s``, a replace for every
  whitespace run), which is also *wrong* on the Unicode traps (Python-only whitespace and word
  characters), for comparison only;
* ``polarscore``: each match mode and the per-row mode column, with the in-memory engine and with
  the streaming engine.

Each polarscore measurement runs in a fresh subprocess so its peak RSS (``ru_maxrss``) is its own;
the peak is reported above the RSS after loading the data. Throughput is given per wall-clock
second (both cores for Polars, one for the loop) and per CPU second (all threads' CPU time), which
stays meaningful on a machine busy with other work.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import polars as pl

# Run from a checkout: the benchmarks and the package beside them, installed or not.
sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
from _measure import benchmark_parser, run_child, time_select  # noqa: E402
from _measure import text_mib as measured_text_mib  # noqa: E402
from synthetic import cached_eval_log  # noqa: E402

_NON_WORD = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


def _normalize(text: str) -> str:
    text = text.lower().strip()
    return _SPACES.sub(" ", _NON_WORD.sub("", text)).strip()


def reference_loop(responses: list[str | None], references: list[str | None], mode: str) -> list:
    """Score rows one by one with the reference semantics (DataRobot's answer correctness)."""
    out: list[float | None] = []
    for response, reference in zip(responses, references, strict=True):
        if reference is None or not reference.strip():
            out.append(None)
            continue
        response = response or ""
        if mode == "exact":
            out.append(float(response.strip() == reference.strip()))
        elif mode == "normalized":
            out.append(float(_normalize(response) == _normalize(reference)))
        else:
            out.append(float(_normalize(reference) in _normalize(response)))
    return out


def naive_port(response: pl.Expr, reference: pl.Expr, mode: str) -> pl.Expr:
    def norm(e: pl.Expr) -> pl.Expr:
        e = e.str.to_lowercase().str.strip_chars().str.replace_all(r"[^\w\s]", "")
        return e.str.replace_all(r"\s+", " ").str.strip_chars()

    resp = response.fill_null("")
    if mode == "exact":
        matched = resp.str.strip_chars() == reference.str.strip_chars()
    elif mode == "contains":
        matched = norm(resp).str.contains(norm(reference), literal=True)
    else:
        matched = norm(resp) == norm(reference)
    blank = reference.is_null() | (reference.str.strip_chars() == "")
    return pl.when(blank).then(None).otherwise(matched.cast(pl.Float64))


def _child(args: argparse.Namespace) -> None:
    """Run one measurement in this (fresh) process and print a JSON line."""
    import polarscore as ps

    frame = cached_eval_log(args.rows)
    if args.what == "naive":
        expr = naive_port(pl.col("response"), pl.col("reference"), args.mode)
    else:
        mode = pl.col("match_mode") if args.mode == "per-row" else args.mode
        expr = ps.answer_correctness("response", "reference", match_mode=mode)
    time_select(frame, expr, engine=args.engine, repeat=args.repeat)


def _measure(rows: int, what: str, mode: str, engine: str, repeat: int) -> dict[str, float]:
    return run_child(
        __file__,
        [
            *("--rows", str(rows), "--what", what, "--mode", mode),
            *("--engine", engine, "--repeat", str(repeat)),
        ],
    )


def main() -> None:
    parser = benchmark_parser(__doc__, loop_rows=50_000, repeat=3)
    parser.add_argument("--what", default="polarscore", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="normalized", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return

    frame = cached_eval_log(args.rows)
    text_mib = measured_text_mib(frame, "response", "reference")
    sample = frame.head(args.loop_rows)
    responses, references = sample["response"].to_list(), sample["reference"].to_list()
    print(
        f"synthetic log: {frame.height:,} rows, {text_mib:,.0f} MiB of text; "
        f"loop sample {sample.height:,} rows"
    )
    print(
        f"{'mode':<11} {'what':<26} {'rows/s':>12} {'x loop':>8} "
        f"{'rows/cpu-s':>12} {'x loop':>8} {'peak MiB':>9}"
    )
    for mode in ("exact", "normalized", "contains", "per-row"):
        loop_mode = "normalized" if mode == "per-row" else mode
        start, start_cpu = time.perf_counter(), time.process_time()
        reference_loop(responses, references, loop_mode)
        loop_rate = sample.height / (time.perf_counter() - start)
        loop_cpu_rate = sample.height / (time.process_time() - start_cpu)
        print(
            f"{mode:<11} {'reference loop (Python)':<26} {loop_rate:>12,.0f} {1.0:>8.1f} "
            f"{loop_cpu_rate:>12,.0f} {1.0:>8.1f}"
        )
        runs = [("naive Polars port", "naive", "in-memory")] if mode != "per-row" else []
        runs += [("polarscore in-memory", "polarscore", "in-memory")]
        runs += [("polarscore streaming", "polarscore", "streaming")]
        for label, what, engine in runs:
            result = _measure(args.rows, what, mode, engine, args.repeat)
            rate = args.rows / result["seconds"]
            cpu_rate = args.rows / result["cpu"]
            print(
                f"{mode:<11} {label:<26} {rate:>12,.0f} {rate / loop_rate:>8.1f} "
                f"{cpu_rate:>12,.0f} {cpu_rate / loop_cpu_rate:>8.1f} {result['peak_mib']:>9,.0f}"
            )


if __name__ == "__main__":
    main()
