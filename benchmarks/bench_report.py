"""Time ``polarscore report`` on a big scored log, against ``polarscore summary`` on the same file.

Usage::

    python benchmarks/bench_report.py [--rows 10000000] [--base-rows 200000] [--workdir DIR]
        [--json OUT.json]

The log is the synthetic eval log of ``benchmarks/synthetic.py`` (``--base-rows`` rows, repeated
to ``--rows``), with what a scored log adds: a question id (five models answer each question),
three score columns of different shapes (binary ``squad_exact_match``, ``answer_match`` on a 0.01
grid, continuous ``answer_precision``) and a human verdict that agrees with them most of the
time. The scores are drawn from a seeded hash of the row number instead of being computed, since
the report's cost, not the scorers', is measured; the file carries a provenance record as if
``polarscore score`` had written it (so the report computes the sampled rows' reasons, as it
would on a real log). It is written once to ``--workdir`` with the streaming engine.

Each command runs in a fresh subprocess so that its peak RSS (``ru_maxrss`` from ``os.wait4``)
is its own; all pay the same interpreter start-up:

* ``summary``: ``polarscore summary LOG --by model`` (the baseline: the same intervals, as text);
* ``report``: ``polarscore report LOG -o OUT.html`` (intervals, histograms, sampled rows);
* ``report-verdict-paired``: the same with ``--verdict human --pair-on question``.

Reported: wall time, peak RSS and the ratio of each report to the summary.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(Path(__file__).parent), str(ROOT)]
from _measure import measure_command  # noqa: E402
from synthetic import MODELS, make_eval_log  # noqa: E402

import polarscore as ps  # noqa: E402

SCORES = ["squad_exact_match", "answer_match", "answer_precision"]


def make_log(n_rows: int, base_rows: int, workdir: Path) -> Path:
    """Write (once) the scored synthetic log of ``n_rows`` rows; return its path."""
    path = workdir / f"scored_{n_rows}.parquet"
    if path.exists():
        return path
    base = workdir / f"base_{base_rows}.parquet"
    if not base.exists():
        make_eval_log(base_rows).drop("model").write_parquet(base)
    copies = math.ceil(n_rows / base_rows)
    row = pl.col("row")
    uniform = [(row.hash(seed) % 10_007).cast(pl.Float64) / 10_006 for seed in (1, 2, 3, 4)]
    skill = (row % len(MODELS)).cast(pl.Float64) * 0.08
    slot = row % len(MODELS)
    log = (
        pl.concat([pl.scan_parquet(base)] * copies)
        .head(n_rows)
        .with_row_index("row")
        .with_columns(
            id=pl.format("q{}:{}", row // len(MODELS), slot),
            question=(row // len(MODELS)).cast(pl.Int64),
            model=slot.replace_strict(dict(enumerate(MODELS)), return_dtype=pl.String),
            squad_exact_match=(uniform[0] < 0.4 + skill).cast(pl.Float64),
            answer_match=((uniform[1] * 0.6 + skill + 0.2).clip(0, 1) * 100).round() / 100,
            answer_precision=(uniform[2] * 0.7 + skill).clip(0, 1),
            human=(uniform[1] * 0.6 + skill + 0.2 + (uniform[3] - 0.5) * 0.3) >= 0.5,
        )
        .drop("row")
    )
    record = ps.scoring_record(scorers=SCORES, references="references")
    tmp = path.with_suffix(".tmp")
    log.sink_parquet(tmp, engine="streaming", metadata={ps.PROVENANCE_KEY: json.dumps(record)})
    tmp.replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--base-rows", type=int, default=200_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.gettempdir()) / "polarscore-bench-report"
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    log = make_log(args.rows, min(args.base_rows, args.rows), workdir)
    print(
        f"log: {log} ({log.stat().st_size / 2**20:,.0f} MiB, {args.rows:,} rows; made or found "
        f"in {time.perf_counter() - start:.0f} s); polars {pl.__version__}"
    )
    page = workdir / "report.html"
    cli = [sys.executable, "-m", "polarscore"]
    runs = {
        "summary": [*cli, "summary", str(log), "--by", "model"],
        "report": [*cli, "report", str(log), "-o", str(page), "--overwrite"],
        "report-verdict-paired": [
            *cli, "report", str(log), "-o", str(page), "--overwrite",
            "--verdict", "human", "--pair-on", "question",
        ],
    }  # fmt: skip
    results: dict[str, dict[str, float]] = {}
    print(f"{'command':<24} {'seconds':>8} {'peak RSS MiB':>12} {'time / summary':>15}")
    for name, command in runs.items():
        seconds, rss = measure_command(command, root=ROOT, show_output=False)
        results[name] = {"seconds": round(seconds, 2), "peak_rss_mib": round(rss)}
        ratio = seconds / results["summary"]["seconds"]
        results[name]["time_over_summary"] = round(ratio, 2)
        print(f"{name:<24} {seconds:>8.1f} {rss:>12,.0f} {ratio:>15.2f}", flush=True)
    print(f"page: {page.stat().st_size / 2**10:,.0f} KiB")
    if args.json:
        args.json.write_text(json.dumps({"rows": args.rows, **results}, indent=2))


if __name__ == "__main__":
    main()
