"""Score big Parquet eval logs through the CLI (streaming) and compare with scoring in memory.

Usage::

    python benchmarks/bench_cli_scale.py [--sizes 1000000 3000000 10000000]
        [--in-memory-max 3000000] [--scorer NAME ...] [--log LOG.parquet] [--workdir DIR]
        [--json OUT.json] [--compare-read-ahead]

For each size, the input is ``--log`` (a real eval log, e.g. the MMLU-Pro chain-of-thought log
of ``../shared/data``) or else the shared synthetic eval log of ``benchmarks/synthetic.py`` (the
cached 1M-row log), repeated (and cut) to the size, written once to ``--workdir`` as Parquet with
the streaming engine. Then, each in a fresh subprocess so that its peak RSS (``ru_maxrss`` of the
child, from ``os.wait4``) is its own:

* ``cli``: ``python -m polarscore score LOG.parquet -o OUT.parquet --quiet`` (scan, score, sink
  with the streaming engine to a temporary file, rename);
* ``in-memory``: ``pl.read_parquet`` -> ``score_frame`` -> ``write_parquet``: the same work with
  the whole log in memory (skipped above ``--in-memory-max`` rows: it would not fit);
* ``sink-polars-read-ahead`` (with ``--compare-read-ahead``): the CLI's streaming pipeline through
  the library, but with Polars' default Parquet read-ahead instead of the CLI's one row group:
  the same-run baseline for the CLI's peak memory.

Both pay the same interpreter start-up. Reported: wall time, rows/s, peak RSS, and the ratio of
CLI to in-memory wall time. Targets (issue 5): CLI peak RSS < 2 GiB and flat in the input size;
CLI throughput within 1.5x of in-memory.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(Path(__file__).parent), str(ROOT)]
from _measure import measure_command  # noqa: E402
from synthetic import cached_eval_log  # noqa: E402

BASE_ROWS = 1_000_000

#: The CLI's pipeline through the library with Polars' own Parquet read-ahead (the CLI bounds it
#: to one row group; see ``polarscore.cli._main._bound_parquet_read_ahead``): the same-run
#: baseline for the CLI's peak memory.
SINK_DEFAULT_READ_AHEAD = """
import os
import sys
import polars as pl
import polarscore as ps
os.environ.pop("POLARS_ROW_GROUP_PREFETCH_SIZE", None)
source, target, scorers = sys.argv[1], sys.argv[2], sys.argv[3:] or None
ps.score_frame(pl.scan_parquet(source), scorers=scorers).sink_parquet(target)
"""

IN_MEMORY = """
import sys
import polars as pl
import polarscore as ps
source, target, scorers = sys.argv[1], sys.argv[2], sys.argv[3:] or None
frame = pl.read_parquet(source)
ps.score_frame(frame, scorers=scorers).write_parquet(target)
"""


def make_input(n_rows: int, workdir: Path, log: Path | None = None) -> Path:
    """Write (once) an ``n_rows`` log made of ``log`` (a Parquet eval log), or else of the
    cached 1M-row synthetic log, repeated."""
    path = workdir / f"{log.stem if log else 'log'}_{n_rows}.parquet"
    if path.exists():
        return path
    if log is None:
        base_rows = min(n_rows, BASE_ROWS)
        base = workdir / f"base_{base_rows}.parquet"
        if not base.exists():
            cached_eval_log(base_rows).write_parquet(base)
    else:
        base, base_rows = log, pl.scan_parquet(log).select(pl.len()).collect().item()
    copies = math.ceil(n_rows / base_rows)
    tmp = path.with_suffix(".tmp")
    pl.concat([pl.scan_parquet(base)] * copies).head(n_rows).sink_parquet(tmp, engine="streaming")
    tmp.replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 3_000_000])
    parser.add_argument("--in-memory-max", type=int, default=3_000_000)
    parser.add_argument("--scorer", action="append", default=None, help="default: every scorer")
    parser.add_argument(
        "--log",
        type=Path,
        default=None,
        help="a Parquet eval log (response and reference columns) repeated to each size, "
        "instead of the synthetic log; e.g. ../shared/data/mmlu_pro_cot.parquet",
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--compare-read-ahead",
        action="store_true",
        help="also run the same streaming pipeline with Polars' default Parquet read-ahead",
    )
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.gettempdir()) / "polarscore-bench-cli"
    workdir.mkdir(parents=True, exist_ok=True)
    scorers = args.scorer or []
    scorer_flags = [flag for name in scorers for flag in ("--scorer", name)]

    results = []
    print(
        f"log: {args.log or 'synthetic'}; scorers: {', '.join(scorers) or 'every default scorer'}; "
        f"polars {pl.__version__}"
    )
    print(
        f"{'rows':>11} {'mode':<22} {'input MiB':>9} {'seconds':>8} {'rows/s':>10} "
        f"{'peak RSS MiB':>12}"
    )
    for n_rows in args.sizes:
        source = make_input(n_rows, workdir, args.log)
        size_mib = source.stat().st_size / 2**20
        target = workdir / f"scored_{n_rows}.parquet"
        runs = {
            "cli": [
                sys.executable,
                "-m",
                "polarscore",
                "score",
                str(source),
                "-o",
                str(target),
                "--overwrite",
                "--quiet",
                *scorer_flags,
            ]
        }
        if args.compare_read_ahead:
            runs["sink-polars-read-ahead"] = [
                sys.executable,
                "-c",
                SINK_DEFAULT_READ_AHEAD,
                str(source),
                str(target),
                *scorers,
            ]
        if n_rows <= args.in_memory_max:
            runs["in-memory"] = [
                sys.executable,
                "-c",
                IN_MEMORY,
                str(source),
                str(target),
                *scorers,
            ]
        row: dict[str, float | int] = {"rows": n_rows, "input_mib": round(size_mib, 1)}
        for mode, command in runs.items():
            seconds, rss = measure_command(command, root=ROOT)
            row[f"{mode}_seconds"] = round(seconds, 2)
            row[f"{mode}_rows_per_s"] = round(n_rows / seconds)
            row[f"{mode}_peak_rss_mib"] = round(rss)
            print(
                f"{n_rows:>11,} {mode:<22} {size_mib:>9.0f} {seconds:>8.1f} "
                f"{n_rows / seconds:>10,.0f} {rss:>12,.0f}",
                flush=True,
            )
        if "in-memory_seconds" in row:
            row["cli_time_over_in_memory"] = round(row["cli_seconds"] / row["in-memory_seconds"], 2)
        results.append(row)
        target.unlink(missing_ok=True)
    for row in results:
        if "cli_time_over_in_memory" in row:
            print(
                f"{row['rows']:,} rows: the streaming CLI takes "
                f"{row['cli_time_over_in_memory']}x the in-memory time (target <= 1.5)"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
