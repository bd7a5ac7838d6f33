"""Score a multi-file Parquet eval log with local Spark (score_spark) and with Polars alone.

Both read the same Parquet files, score them with the same scorer and write Parquet. Reported:
wall time, CPU seconds (every process involved: the driver, the Spark JVM and its Python workers,
read from /proc), CPU seconds per million rows, Spark's fixed overhead (starting the session and a
first small job) and the ratio of Spark's per-row CPU to Polars' (target: within 2x).

The log is the shared synthetic eval log (``benchmarks/synthetic.py``, cached per machine), cut into
``--files`` Parquet files; for more rows than the cached log holds, its files are repeated.

Two baselines split Spark's cost: reading and writing the Parquet files alone, and the same with
an identity ``mapInArrow`` (the Arrow round trip to Python and back, no scoring).

Usage::

    python benchmarks/bench_spark.py --rows 2000000 --files 8 [--batch-rows 10000] [--fast-start]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from synthetic import cached_eval_log  # noqa: E402

import polarscore as ps  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BASE_ROWS = 1_000_000


def _stat(pid: int | str) -> tuple[int, list[int]] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    ppid = int(fields[1])
    # utime, stime, cutime, cstime (fields 14-17 of proc(5))
    return ppid, [int(x) for x in fields[11:15]]


def tree_cpu_seconds() -> float:
    """CPU seconds of this process and every descendant, live or already reaped.

    Each live process counts its own time and that of its waited-for children (cutime/cstime),
    which is how the Spark JVM's launcher and Spark's reaped Python workers are included.
    """
    parents: dict[int, int] = {}
    times: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(entry)
            if stat is not None:
                parents[int(entry)], times[int(entry)] = stat
    me = os.getpid()
    tree = {me}
    changed = True
    while changed:
        changed = False
        for pid, ppid in parents.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return sum(sum(times[pid]) for pid in tree if pid in times) / CLOCK_TICKS


def self_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def prepare_log(directory: Path, rows: int, files: int) -> list[Path]:
    """Write ``rows`` rows of the synthetic log as ``files`` Parquet files (reused if present)."""
    marker = directory / f"_rows_{rows}_files_{files}"
    paths = [directory / f"part-{i:03d}.parquet" for i in range(files)]
    if marker.exists():
        return paths
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    base = cached_eval_log(BASE_ROWS).select("response", "reference", "match_mode", "model")
    per_file = -(-rows // files)
    written = 0
    for i, path in enumerate(paths):
        start = (i * per_file) % BASE_ROWS
        n = min(per_file, rows - written)
        chunk = base.slice(start, n)
        if chunk.height < n:  # wrap around the cached log
            chunk = pl.concat([chunk, base.head(n - chunk.height)])
        chunk.write_parquet(path, row_group_size=100_000)
        written += n
    marker.touch()
    return paths


def bench_polars(source: str, out: Path, scorer: str, codec: str) -> dict[str, float]:
    expr = ps.get_scorer(scorer).expr("response", "reference")
    cpu0, wall0 = self_cpu_seconds(), time.perf_counter()
    pl.scan_parquet(source).with_columns(expr).sink_parquet(out, compression=codec)  # type: ignore[arg-type]
    return {"wall_s": time.perf_counter() - wall0, "cpu_s": self_cpu_seconds() - cpu0}


def start_spark(batch_rows: int, executor_threads: int, codec: str, *, fast_start: bool) -> Any:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    os.environ["PYTHONPATH"] = python_path
    from pyspark.sql import SparkSession

    # The tests' start-up flags (C1 only) start faster but run long jobs slower.
    java_options = "-XX:+UseSerialGC" + (" -XX:TieredStopAtLevel=1" if fast_start else "")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("polarscore-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.sql.parquet.compression.codec", codec)
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
        .config("spark.executorEnv.PYTHONPATH", python_path)
        .config("spark.executorEnv.POLARS_MAX_THREADS", str(executor_threads))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def _identity(batches: Any) -> Any:
    yield from batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--batch-rows", type=int, default=10_000, help="maxRecordsPerBatch")
    parser.add_argument("--executor-threads", type=int, default=1, help="POLARS_MAX_THREADS")
    parser.add_argument("--scorer", default="answer_correctness")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ps-spark")
    parser.add_argument("--codec", default="snappy", help="Parquet compression, both sides")
    parser.add_argument(
        "--fast-start", action="store_true", help="the tests' JVM flags (C1 JIT only)"
    )
    parser.add_argument(
        "--skip-baselines", action="store_true", help="skip Spark's read-write baselines"
    )
    args = parser.parse_args()

    log_dir = args.workdir / "log"
    paths = prepare_log(log_dir, args.rows, args.files)
    source = str(log_dir / "*.parquet")
    out = args.workdir / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)

    polars = bench_polars(source, out / "polars.parquet", args.scorer, args.codec)

    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from polarscore.adapters.spark import score_spark

    cpu0, wall0 = tree_cpu_seconds(), time.perf_counter()
    spark = start_spark(
        args.batch_rows, args.executor_threads, args.codec, fast_start=args.fast_start
    )
    cpu_start, wall_start = tree_cpu_seconds(), time.perf_counter()

    def score(path: str, target: Path, limit: int | None = None) -> None:
        frame = spark.read.parquet(path)
        if limit is not None:
            frame = frame.limit(limit)
        scored = score_spark(frame, response="response", reference="reference", scorers=args.scorer)
        scored.write.mode("overwrite").parquet(str(target))

    # A first small job: Python workers start, imports, JIT. Counted as fixed overhead.
    score(str(paths[0]), out / "spark_warmup", limit=1_000)
    cpu_warm, wall_warm = tree_cpu_seconds(), time.perf_counter()
    fixed = {
        "session_start_wall_s": wall_start - wall0,
        "session_start_cpu_s": cpu_start - cpu0,
        "first_small_job_wall_s": wall_warm - wall_start,
        "first_small_job_cpu_s": cpu_warm - cpu_start,
    }

    baselines: dict[str, dict[str, float]] = {}
    if not args.skip_baselines:
        plans = {
            "read_write_only": lambda frame: frame,
            "read_arrow_roundtrip_write": lambda frame: frame.mapInArrow(_identity, frame.schema),
        }
        for name, plan in plans.items():
            plan(spark.read.parquet(source)).write.mode("overwrite").parquet(str(out / name))
            cpu_now, wall_now = tree_cpu_seconds(), time.perf_counter()
            baselines[name] = {"wall_s": wall_now - wall_warm, "cpu_s": cpu_now - cpu_warm}
            cpu_warm, wall_warm = cpu_now, wall_now

    score(source, out / "spark")
    cpu_end, wall_end = tree_cpu_seconds(), time.perf_counter()
    spark.stop()

    # Same results: compare the two outputs' summaries.
    summary = [
        pl.scan_parquet(p).select(
            pl.len(),
            pl.col(args.scorer).null_count().alias("nulls"),
            pl.col(args.scorer).sum().alias("sum"),
        )
        for p in (out / "polars.parquet", str(out / "spark" / "*.parquet"))
    ]
    polars_summary, spark_summary = (s.collect().row(0) for s in summary)
    assert polars_summary == spark_summary, (polars_summary, spark_summary)

    million = args.rows / 1e6
    spark_rows = {"wall_s": wall_end - wall_warm, "cpu_s": cpu_end - cpu_warm}
    report = {
        "rows": args.rows,
        "files": args.files,
        "scorer": args.scorer,
        "batch_rows": args.batch_rows,
        "executor_polars_threads": args.executor_threads,
        "codec": args.codec,
        "jvm_fast_start": args.fast_start,
        "load_average": os.getloadavg(),
        "polars": {**polars, "cpu_s_per_million": polars["cpu_s"] / million},
        "spark_fixed": fixed,
        **{
            f"spark_{name}": {**figures, "cpu_s_per_million": figures["cpu_s"] / million}
            for name, figures in baselines.items()
        },
        "spark_score": {**spark_rows, "cpu_s_per_million": spark_rows["cpu_s"] / million},
        "ratio_spark_to_polars_cpu_per_row": spark_rows["cpu_s"] / polars["cpu_s"],
        **(
            {
                "spark_scoring_beyond_arrow_roundtrip_cpu_s_per_million": (
                    spark_rows["cpu_s"] - baselines["read_arrow_roundtrip_write"]["cpu_s"]
                )
                / million
            }
            if baselines
            else {}
        ),
        "checked_equal_summary": {"rows_nulls_sum": polars_summary},
    }
    print(json.dumps(report, indent=2, default=float))


if __name__ == "__main__":
    main()
