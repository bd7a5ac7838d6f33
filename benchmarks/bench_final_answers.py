"""Speed of ``final_choice`` / ``final_number`` against ``extract_choice`` / ``extract_number``.

    python benchmarks/bench_final_answers.py [--rows 200000] [--repeat 5]

Real chains of thought (the MMLU-Pro answers and GSM8K solutions of ``tests/data``), repeated to
``--rows``; each extractor is timed in the same run (best of ``--repeat``), as rows per second
and nanoseconds of CPU per byte of text (CPU time counts every thread, the fairer figure on a
shared machine). Then the linear-time check: one text of repeated ``Answer:``, ``\\boxed{``,
``answer is`` and digits, at n and 4n bytes; a linear scan costs about 4x.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polarscore as ps  # noqa: E402

DATA = ROOT / "tests" / "data"


def _best(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu


def _repeat(frame: pl.DataFrame, rows: int) -> pl.DataFrame:
    copies = -(-rows // frame.height)
    return pl.concat([frame] * copies).head(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    mmlu = _repeat(
        pl.read_parquet(DATA / "mmlu_pro_extraction.parquet", columns=["response"]), args.rows
    )
    gsm = _repeat(
        pl.read_parquet(DATA / "gsm8k_openai_extraction.parquet", columns=["response"]), args.rows
    )
    cases = [
        ("MMLU-Pro", mmlu, "extract_choice (mmlu_pro)", ps.extract_choice("response")),
        ("MMLU-Pro", mmlu, "final_choice", ps.final_choice("response")),
        ("MMLU-Pro", mmlu, "final_choice_details", ps.final_choice_details("response")),
        ("GSM8K", gsm, "extract_number (flexible)", ps.extract_number("response")),
        ("GSM8K", gsm, "final_number", ps.final_number("response")),
        ("GSM8K", gsm, "final_number_details", ps.final_number_details("response")),
        ("MMLU-Pro", mmlu, "final_number", ps.final_number("response")),
    ]
    print(f"{'set':9} {'extractor':28} {'rows/s':>12} {'ns/B wall':>10} {'ns/B CPU':>9}")
    for name, frame, label, expr in cases:
        frame.head(100).select(expr)
        size = frame.select(pl.col("response").str.len_bytes().sum()).item()
        wall, cpu = _best(lambda frame=frame, expr=expr: frame.select(expr), args.repeat)
        print(
            f"{name:9} {label:28} {frame.height / wall:12,.0f} {wall / size * 1e9:10.2f} "
            f"{cpu / size * 1e9:9.2f}"
        )
    print("\nlinear time: one text at n and 4n bytes (ratio ~4 is linear)")
    for piece in ("Answer: ", "\\boxed{", "answer is ", "1234567890", "**(", "\\boxed{\\frac{"):
        times = []
        for n in (250_000, 1_000_000):
            frame = pl.DataFrame({"r": [piece * (n // len(piece))]})
            times.append(
                min(
                    _best(lambda frame=frame: frame.select(ps.final_choice("r")), 3)[1],
                    float("inf"),
                )
                + _best(lambda frame=frame: frame.select(ps.final_number("r")), 3)[1]
            )
        print(
            f"  {piece!r:18} 1 MB: {times[1] * 1e3:8.2f} ms CPU, 4x/1x = {times[1] / times[0]:.2f}"
        )


if __name__ == "__main__":
    main()
