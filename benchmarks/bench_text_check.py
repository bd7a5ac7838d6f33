"""Overhead of the plan-time text-dtype check on answer_correctness (A/B in one process).

Usage::

    python benchmarks/bench_text_check.py [--rows 200000] [--repeat 5]

Scores the synthetic eval log with ``answer_correctness`` in each match mode twice, interleaved:
once as shipped (inputs go through ``parse_text_expr``, which checks the dtype when the plan is
resolved) and once with the check patched out (plain ``parse_into_expr``). Reports the best CPU
time of each and their ratio; the check runs once per query, not per row, so the ratio should be
1.0 within noise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from unittest import mock

import polars as pl

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
from synthetic import cached_eval_log  # noqa: E402

import polarscore as ps  # noqa: E402
from polarscore import _utils  # noqa: E402
from polarscore.scores import correctness  # noqa: E402


def _best_cpu(frame: pl.DataFrame, mode: str, repeat: int, *, checked: bool) -> float:
    best = float("inf")
    for _ in range(repeat):
        if checked:
            expr = ps.answer_correctness("response", "reference", match_mode=mode)
        else:
            with mock.patch.object(correctness, "parse_text_expr", _utils.parse_into_expr):
                expr = ps.answer_correctness("response", "reference", match_mode=mode)
        start = time.process_time()
        frame.lazy().select(expr).collect(engine="streaming")
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    frame = cached_eval_log(args.rows)
    print(f"{'mode':<11} {'unchecked cpu-s':>16} {'checked cpu-s':>14} {'ratio':>7}")
    for mode in ("exact", "normalized", "contains"):
        unchecked = checked = float("inf")
        for _ in range(2):  # interleave so load changes hit both sides
            unchecked = min(unchecked, _best_cpu(frame, mode, args.repeat, checked=False))
            checked = min(checked, _best_cpu(frame, mode, args.repeat, checked=True))
        print(f"{mode:<11} {unchecked:>16.3f} {checked:>14.3f} {checked / unchecked:>7.3f}")


if __name__ == "__main__":
    main()
