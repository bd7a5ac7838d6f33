"""Time ``polarscore compare`` on a 1M-row, 2-model scored log, against ``polarscore summary``.

Usage::

    python benchmarks/bench_compare.py [--rows 1000000] [--workdir DIR] [--json OUT.json]

The log holds ``--rows`` rows: two models answer each of ``rows / 2`` questions (``sample_id``),
grouped eight to a passage (``passage``), with a binary ``squad_exact_match`` and a continuous
``answer_precision`` drawn from a seeded hash of the question (a shared difficulty, so the two
models' scores are correlated as real ones are) and a short response text. Scores are drawn, not
computed: the comparison's cost is measured, not the scorers'. The file is written once to
``--workdir``.

Each command runs in a fresh subprocess (its own peak RSS), all paying the same interpreter
start-up:

* ``summary``: ``polarscore summary LOG`` (the baseline: one pass, per-model intervals);
* ``compare``: ``polarscore compare LOG`` (paired on ``sample_id``, both scores: McNemar for the
  binary one, the paired t-test for the continuous one);
* ``compare-clustered``: the same with ``--cluster passage``.

Reported: wall time, peak RSS and each command's time over the summary's. The goal is under 3 s
for ``compare`` on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(Path(__file__).parent), str(ROOT)]
from _measure import measure_command  # noqa: E402

MODELS = ("model-a", "model-b")


def make_log(n_rows: int, workdir: Path) -> Path:
    """Write (once) the scored 2-model log of ``n_rows`` rows; return its path."""
    path = workdir / f"compare_{n_rows}.parquet"
    if path.exists():
        return path
    row = pl.col("row")
    question = row // len(MODELS)
    slot = row % len(MODELS)
    difficulty = (question.hash(1) % 10_007).cast(pl.Float64) / 10_006
    noise = [(row.hash(seed) % 10_007).cast(pl.Float64) / 10_006 for seed in (2, 3)]
    skill = slot.cast(pl.Float64) * 0.03
    log = (
        pl.LazyFrame({"row": pl.int_range(n_rows, eager=True)})
        .with_columns(
            model=slot.replace_strict(dict(enumerate(MODELS)), return_dtype=pl.String),
            sample_id=pl.format("q{}", question),
            passage=(question // 8).cast(pl.Int64),
            response=pl.format("the answer is {}", question % 977),
            squad_exact_match=(noise[0] < difficulty * 0.8 + skill).cast(pl.Float64),
            answer_precision=(difficulty * 0.7 + noise[1] * 0.3 + skill).clip(0, 1),
        )
        .drop("row")
    )
    tmp = path.with_suffix(".tmp")
    log.sink_parquet(tmp, engine="streaming")
    tmp.replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.gettempdir()) / "polarscore-bench-compare"
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    log = make_log(args.rows, workdir)
    print(
        f"log: {log} ({log.stat().st_size / 2**20:,.0f} MiB, {args.rows:,} rows; made or found "
        f"in {time.perf_counter() - start:.1f} s); polars {pl.__version__}"
    )
    cli = [sys.executable, "-m", "polarscore"]
    runs = {
        "summary": [*cli, "summary", str(log)],
        "compare": [*cli, "compare", str(log)],
        "compare-clustered": [*cli, "compare", str(log), "--cluster", "passage"],
    }
    results: dict[str, dict[str, float]] = {}
    print(f"{'command':<20} {'seconds':>8} {'peak RSS MiB':>12} {'time / summary':>15}")
    for name, command in runs.items():
        seconds, rss = measure_command(command, root=ROOT, show_output=False)
        results[name] = {"seconds": round(seconds, 2), "peak_rss_mib": round(rss)}
        ratio = seconds / results["summary"]["seconds"]
        results[name]["time_over_summary"] = round(ratio, 2)
        print(f"{name:<20} {seconds:>8.2f} {rss:>12,.0f} {ratio:>15.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"rows": args.rows, **results}, indent=2))


if __name__ == "__main__":
    main()
