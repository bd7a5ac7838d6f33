"""What the benchmark scripts share: one timed measurement per fresh subprocess.

A benchmark's parent process runs ``run_child(script, [...])``; the child (the same script with
``--child``) loads the data, calls :func:`time_select`, and prints its JSON line. Each child is
a fresh process so that its peak RSS (``ru_maxrss``) is its own; the peak is reported above the
RSS measured after the data was loaded. CPU time counts every thread, which keeps the figures
comparable on a machine shared with other work.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl


def time_select(frame: pl.DataFrame, expr: pl.Expr, *, engine: str, repeat: int) -> None:
    """Select ``expr`` on ``frame`` ``repeat`` times and print the best wall and CPU seconds and
    the peak memory above the current RSS, as one JSON line on stdout.

    ``expr`` first runs once on 100 rows, untimed: the one-off costs of a process (the kernels'
    Unicode tables, about 0.2 s, and the plugin's loading) are not throughput.
    """
    frame.head(100).select(expr)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        if engine == "streaming":
            frame.lazy().select(expr).collect(engine="streaming")
        else:
            frame.select(expr)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": best, "cpu": best_cpu, "peak_mib": (peak - base_rss) / 1024}))


def run_child(script: str | Path, args: list[str]) -> dict[str, float]:
    """Run ``script --child ARGS...`` in a fresh interpreter; return its JSON line."""
    done = subprocess.run(
        [sys.executable, str(script), "--child", *args], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@dataclass(frozen=True)
class CommandCost:
    """What one subprocess cost: wall seconds, CPU seconds (user + system, every thread) and
    peak RSS in MiB."""

    seconds: float
    cpu: float
    peak_rss_mib: float


def run_command(command: list[str], *, root: Path, show_output: bool = True) -> CommandCost:
    """Run ``command`` with ``root`` importable; return its wall time, CPU time and peak RSS.

    The CPU time and the peak RSS are the child's own (``os.wait4``), so they count only its
    work however loaded the machine is. Its stderr is kept for the error message if it fails;
    its stdout is shown unless ``show_output`` is false.
    """
    env = {**os.environ, "PYTHONPATH": str(root)}
    stdout = None if show_output else subprocess.DEVNULL
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return CommandCost(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


#: The baseline of the command-line benchmarks: a streaming copy of a Parquet log (``python -c
#: COPY_SCRIPT SOURCE TARGET``), in a fresh interpreter like the commands it is compared with.
COPY_SCRIPT = """
import sys
import polars as pl
pl.scan_parquet(sys.argv[1]).sink_parquet(sys.argv[2])
"""


def copy_command(source: Path, target: Path) -> list[str]:
    """The streaming copy of ``source`` to ``target`` (:data:`COPY_SCRIPT`)."""
    return [sys.executable, "-c", COPY_SCRIPT, str(source), str(target)]


def score_command(
    source: Path,
    target: Path,
    *,
    response: str = "response",
    reference: str | None = None,
    scorers: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The ``polarscore score`` command line scoring ``source`` into ``target`` with ``scorers``
    (none: the default scorers)."""
    columns = ["--response", response]
    if reference is not None:
        columns += ["--reference", reference]
    scorer_flags = [flag for name in scorers for flag in ("--scorer", name)]
    return [
        sys.executable,
        "-m",
        "polarscore",
        "score",
        str(source),
        "-o",
        str(target),
        "--overwrite",
        "--quiet",
        *columns,
        *scorer_flags,
    ]


def best_of(command: list[str], repeat: int, *, root: Path) -> CommandCost:
    """The best wall time, CPU time and peak RSS of ``repeat`` runs of ``command``."""
    costs = [run_command(command, root=root) for _ in range(repeat)]
    return best_costs(costs)


def best_costs(costs: list[CommandCost]) -> CommandCost:
    """The best wall time, CPU time and peak RSS of several runs of one command (each taken
    separately: on a shared machine the least disturbed run of each is the closest to its
    cost)."""
    return CommandCost(
        min(c.seconds for c in costs),
        min(c.cpu for c in costs),
        min(c.peak_rss_mib for c in costs),
    )


def measure_command(
    command: list[str], *, root: Path, show_output: bool = True
) -> tuple[float, float]:
    """Run ``command`` with ``root`` importable; return its wall time (s) and peak RSS (MiB)."""
    cost = run_command(command, root=root, show_output=show_output)
    return cost.seconds, cost.peak_rss_mib


def text_mib(frame: pl.DataFrame, *columns: str) -> float:
    """The MiB of UTF-8 text in the given string columns."""
    total = frame.select(pl.sum_horizontal(pl.col(c).str.len_bytes().sum() for c in columns))
    return float(total.item()) / 2**20


def benchmark_parser(doc: str | None, *, loop_rows: int, repeat: int) -> argparse.ArgumentParser:
    """The options every benchmark takes (``--rows``, ``--loop-rows``, ``--repeat``), and the
    hidden ``--child`` / ``--engine`` of its measurement subprocesses."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--loop-rows", type=int, default=loop_rows)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine", default="in-memory", help=argparse.SUPPRESS)
    return parser
