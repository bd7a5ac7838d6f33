"""Benchmark answer_precision's Indel kernel side by side with polars-ds and RapidFuzz.

Usage::

    python benchmarks/bench_indel_peers.py [--short-pairs 1000000] [--long-pairs 200000]
                                           [--long-form-pairs 4000] [--repeat 5]

The normalized Indel similarity (RapidFuzz's ``fuzz.ratio`` / 100: 2 * LCS / total length) of
the same string pairs, in one process, by:

* ``polarscore``: the kernel answer_precision's ``char_ratio`` component runs
  (``precision_char_ratio``), as a Polars expression;
* ``polars-ds str_fuzz``: polars-ds's expression plugin for the same measure, serial and with
  ``parallel=True``; skipped, with a note, when polars-ds is not installed (it is not a
  polarscore dependency: ``pip install polars-ds==0.13.0 --no-deps`` beside Polars 2.1);
* ``rapidfuzz cpdist``: RapidFuzz's C++ ``process.cpdist`` over the two lists, on every core.

Two sets of pairs from the synthetic eval log of ``benchmarks/synthetic.py``: short texts (its
references against the next row's, up to about 40 characters) and long ones (its responses
against its references after answer_precision's normalisation, the texts the kernel sees),
and long-form ones (``mixed_log``'s long-form log, 2-8 KB markdown answers against 200-1,200-byte
references, normalised the same way: patterns of several words, where the longer text may be
taken as the pattern; ``--long-form-pairs 0`` leaves them out).
Reported: the best of ``--repeat`` runs, in wall-clock and CPU seconds, pairs per second, the
ratio to polarscore's CPU time, and the largest difference from RapidFuzz's result.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
from rapidfuzz import fuzz, process

# Run from a checkout: the benchmarks and the package beside them, installed or not.
sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
from synthetic import cached_eval_log  # noqa: E402

from polarscore.kernels._plugin import plugin_call  # noqa: E402


def _normalized(log: pl.DataFrame) -> pl.DataFrame:
    """The responses and references of ``log`` as answer_precision's Indel sees them."""
    return log.select(
        plugin_call("precision_normalize", pl.col("response").fill_null("")).alias("a"),
        plugin_call("precision_normalize", pl.col("reference").fill_null("")).alias("b"),
    )


def _pairs(short: int, long: int, long_form: int) -> dict[str, pl.DataFrame]:
    """The short, long and long-form pairs, as columns ``a`` and ``b`` with no nulls."""
    log = cached_eval_log(max(short, long) + 1)
    references = log.select(pl.col("reference").fill_null(""))["reference"]
    short_pairs = pl.DataFrame({"a": references.head(short), "b": references.slice(1, short)})
    pairs = {"short": short_pairs, "long": _normalized(log.head(long))}
    if long_form > 0:
        from mixed_log import long_form_log

        pairs["long-form"] = _normalized(long_form_log(long_form))
    return pairs


def _best(run: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """The best wall and CPU seconds of ``repeat`` runs, and the last result."""
    run()  # untimed: plugin loading and the Unicode tables are one-off costs
    best_wall, best_cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best_wall, best_cpu, result


def _contestants(frame: pl.DataFrame) -> dict[str, Callable[[], np.ndarray]]:
    def polarscore() -> np.ndarray:
        expr = plugin_call(
            "precision_char_ratio", pl.col("a"), pl.col("b"), char_similarity="indel"
        )
        return frame.select(expr).to_series().to_numpy()

    runs: dict[str, Callable[[], np.ndarray]] = {"polarscore": polarscore}
    try:
        import polars_ds as pds
    except ImportError:
        print("  (polars-ds is not installed: pip install polars-ds==0.13.0 --no-deps)")
    else:
        for parallel in (False, True):
            name = "polars-ds str_fuzz" + (" parallel" if parallel else "")
            expr = pds.str_fuzz("a", pl.col("b"), parallel=parallel)
            runs[name] = lambda expr=expr: frame.select(expr).to_series().to_numpy()

    a, b = frame["a"].to_list(), frame["b"].to_list()

    def rapidfuzz() -> np.ndarray:
        scores = process.cpdist(a, b, scorer=fuzz.ratio, workers=-1, dtype=np.float64)
        return np.asarray(scores) / 100.0

    runs["rapidfuzz cpdist"] = rapidfuzz
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--short-pairs", type=int, default=1_000_000)
    parser.add_argument("--long-pairs", type=int, default=200_000)
    parser.add_argument("--long-form-pairs", type=int, default=4_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    for name, frame in _pairs(args.short_pairs, args.long_pairs, args.long_form_pairs).items():
        chars = frame.select(
            pl.col("a").str.len_chars().mean() + pl.col("b").str.len_chars().mean()
        )
        print(f"{name} pairs: {frame.height:,}, {chars.item():,.0f} characters per pair on average")
        print(
            f"  {'what':<28} {'wall s':>8} {'cpu s':>8} {'pairs/s':>12} {'pairs/cpu-s':>12} "
            f"{'cpu x polarscore':>17} {'max diff':>9}"
        )
        timed = {label: _best(run, args.repeat) for label, run in _contestants(frame).items()}
        reference = np.asarray(timed["rapidfuzz cpdist"][2])
        base_cpu = timed["polarscore"][1]
        for label, (wall, cpu, result) in timed.items():
            diff = float(np.max(np.abs(np.asarray(result, dtype=np.float64) - reference)))
            print(
                f"  {label:<28} {wall:>8.3f} {cpu:>8.3f} {frame.height / wall:>12,.0f} "
                f"{frame.height / cpu:>12,.0f} {cpu / base_cpu:>17.2f} {diff:>9.1e}"
            )


if __name__ == "__main__":
    main()
