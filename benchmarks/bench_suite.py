"""The benchmark suite: `polarscore score` on eval logs nobody tuned to, against a streaming copy.

Usage::

    python benchmarks/bench_suite.py [--rows N | --scale F] [--log NAME ...] [--repeat N]
        [--no-per-scorer] [--distinct] [--data DIR] [--workdir DIR] [--json OUT.json]

The logs (``--log`` picks some; each is repeated, or generated, to its own default size times
``--scale``, or to ``--rows`` rows):

* ``mix``: :mod:`mixed_log`'s synthetic mix, which no kernel was tuned to (30% short answers
  under 40 bytes against ~40-byte references, 40% one to three sentences, 20% long markdown, 10%
  empty, null or Unicode-heavy cells);
* ``short``: EVOUNA's DPR+FiD rows, NQ and TriviaQA extractive answers of about 12 bytes;
* ``mmlu-pro``: MMLU-Pro chain-of-thought answers against the gold option's text;
* ``gsm8k``: OpenAI's GSM8K model solutions against the final number;
* ``long-form``: :mod:`mixed_log`'s long-form log, markdown answers of 2-8 KB against reference
  answers of 200-1,200 bytes.

The real logs come from ``--data`` (default: the ``shared/data`` folder above this checkout) and
keep their common columns (``id``, ``source``, ``input``, ``response``, ``reference``,
``references``, ``model``). Each log is written once to ``--workdir`` (``bench_cli_scale``'s
machinery, in a child process so that this one never holds a log) and reused by later runs:
delete the folder after changing ``mixed_log.py``. Then, per log, each in a fresh
subprocess (``_measure.run_command``: the child's own wall, CPU and peak RSS), ``--repeat``
rounds of: the streaming copy (``pl.scan_parquet(...).sink_parquet(...)``), ``polarscore score``
with the default scorers, and (unless ``--no-per-scorer``) the CLI with each default scorer
alone, and the CLI's floor (its Parquet path with a constant score column instead of scorers);
and the copy and the CLI on a 1,000-row cut of the log, whose difference is the CLI's fixed cost.
The rounds interleave the commands, so a burst of load from other work hits them all; the
best wall and the best CPU of each command are kept.

A real log repeated to its size repeats every text tens of times, which a Parquet writer stores
once in a dictionary: the copy of GSM8K x57 costs about 5 ns per response byte where a log of
distinct rows costs 15-17. ``--distinct`` marks each repeat (trailing blanks after the texts,
which every scorer strips: the seven default scores of 5,000 rows of each log are the same with
and without) so that the copy does the work a real log of that size would ask. The blanks add 2-7
bytes a row, which matters per byte only on the short answers' log.

Reported per log: CLI / copy (wall and CPU; goal: at most 3x), also without the fixed costs and
with ``--every-row`` (the CLI scores a slice's repeated rows once; this scores each), and each
scorer's CPU per row (us) and per response byte (ns): the CLI with that scorer alone and
``--every-row``, minus the copy, and minus the CLI's floor.
The machine's load (``os.getloadavg``) is printed before and after, and kept in the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(Path(__file__).parent), str(ROOT)]
from _measure import CommandCost, best_costs, copy_command, run_command, score_command  # noqa: E402

#: The rows of the small copy of each log whose CLI-minus-copy CPU is the CLI's fixed cost (its
#: imports, the kernels' tables, the plugin's loading).
FIXED_COST_ROWS = 1_000
#: The CLI's own floor: its Parquet path (slices, progress counter, pyarrow writer) with one
#: constant column for scores, in a fresh interpreter that imports polarscore like the CLI.
CLI_FLOOR_SCRIPT = """
import sys
from pathlib import Path
import polars as pl
from polarscore.cli import _output, _progress
source, target = sys.argv[1:3]
total = pl.scan_parquet(source).select(pl.len()).collect().item()
progress = _progress.Progress(total, stream=None)
counted = pl.col("response").map_batches(
    progress.counter, is_elementwise=True, return_dtype=pl.String
)
frame = pl.scan_parquet(source).with_columns(counted, pl.lit(0.0).alias("score"))
_output.write_in_slices(frame, Path(target), "parquet", total=total, progress=progress)
"""

#: The columns every file of the shared data holds; the suite keeps these.
COMMON_COLUMNS = ["id", "source", "input", "response", "reference", "references", "model"]


@dataclass(frozen=True)
class SuiteLog:
    """One log of the suite: how to make its base rows, and the column the CLI reads."""

    name: str
    description: str
    file: str | None = None  # a file of the shared data; None: generated
    filter: str | None = None  # a SQL condition on that file's rows
    reference: str = "reference"
    generated_rows: int = 0  # rows generated before repeating (generated logs)
    default_rows: int = 300_000  # rows measured unless --rows says otherwise (times --scale)


LOGS = {
    log.name: log
    for log in [
        SuiteLog(
            "mix",
            "synthetic mix nobody tuned to (mixed_log.py)",
            generated_rows=250_000,
        ),
        SuiteLog(
            "short",
            "EVOUNA NQ/TQ, DPR+FiD extractive answers",
            file="evouna_nq_tq.parquet",
            filter="model_key = 'fid'",
            default_rows=1_000_000,
        ),
        SuiteLog(
            "mmlu-pro",
            "MMLU-Pro chain of thought vs the gold option's text",
            file="mmlu_pro_cot.parquet",
            reference="reference_text",
            default_rows=100_000,
        ),
        SuiteLog(
            "gsm8k", "GSM8K solutions vs the final number", file="gsm8k_openai_solutions.parquet"
        ),
        SuiteLog(
            "long-form",
            "long markdown answers vs long references (mixed_log.py)",
            generated_rows=20_000,
            default_rows=20_000,
        ),
    ]
}


def default_data_dir() -> Path:
    """The ``shared/data`` folder of the nearest parent of this checkout that has one."""
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def write_base(log: SuiteLog, data: Path, workdir: Path) -> Path:
    """Write (once) the rows ``log`` is repeated from; return the file."""
    path = workdir / f"suite_{log.name}.parquet"
    if path.exists():
        return path
    if log.file is None:
        from mixed_log import long_form_log, mixed_log

        make = long_form_log if log.name == "long-form" else mixed_log
        frame = make(log.generated_rows)
    else:
        columns = COMMON_COLUMNS + ([log.reference] if log.reference not in COMMON_COLUMNS else [])
        frame = pl.read_parquet(data / log.file)
        if log.filter:
            frame = frame.sql(f"SELECT * FROM self WHERE {log.filter}")
        frame = frame.select(columns)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
    return path


def prepare(
    log: SuiteLog, n_rows: int, data: Path, workdir: Path, *, distinct: bool = False
) -> tuple[Path, int]:
    """Write ``log`` at ``n_rows`` rows in a child process; return its file and response bytes
    (``distinct``: each repeat of a real log's rows marked, ``bench_cli_scale.distinct_copy``)."""
    from bench_cli_scale import make_input_in_child

    done = subprocess.run(
        [sys.executable, __file__, "--write-base", log.name, str(data), str(workdir)],
        check=True,
        capture_output=True,
        text=True,
    )
    base = Path(done.stdout.strip().splitlines()[-1])
    return make_input_in_child(n_rows, workdir, base, "response", distinct=distinct)


def run_log(log: SuiteLog, args: argparse.Namespace, scorers: list[str]) -> dict[str, object]:
    """Measure every command on ``log``; print a line each; return the figures."""
    rows = args.rows or max(1, round(log.default_rows * args.scale))
    source, response_bytes = prepare(log, rows, args.data, args.workdir, distinct=args.distinct)
    response_bytes = max(response_bytes, 1)
    tiny, _ = prepare(log, FIXED_COST_ROWS, args.data, args.workdir)
    target = args.workdir / f"suite_scored_{log.name}.parquet"
    reference = None if log.reference == "reference" else log.reference
    commands = {
        "copy": copy_command(source, target),
        "cli": score_command(source, target, reference=reference),
        # Every row scored, repeats too: the scorers' own cost on a log that repeats its rows.
        "cli-every-row": [*score_command(source, target, reference=reference), "--every-row"],
        "copy-1k": copy_command(tiny, target),
        "cli-1k": score_command(tiny, target, reference=reference),
    }
    if args.per_scorer:
        for name in scorers:
            commands[f"cli:{name}"] = [
                *score_command(source, target, reference=reference, scorers=[name]),
                "--every-row",
            ]
        commands["cli-floor"] = [sys.executable, "-c", CLI_FLOOR_SCRIPT, str(source), str(target)]
    runs: dict[str, list[CommandCost]] = {mode: [] for mode in commands}
    for _ in range(args.repeat):
        for mode, command in commands.items():
            runs[mode].append(run_command(command, root=ROOT))
    target.unlink(missing_ok=True)
    costs = {mode: best_costs(found) for mode, found in runs.items()}
    copy = costs["copy"]
    result: dict[str, object] = {
        "log": log.name,
        "description": log.description,
        "rows": rows,
        "input_mib": round(source.stat().st_size / 2**20, 1),
        "response_bytes": response_bytes,
        "response_bytes_per_row": round(response_bytes / rows, 1),
    }
    for mode, cost in costs.items():
        figures: dict[str, float] = {
            "seconds": round(cost.seconds, 3),
            "cpu_seconds": round(cost.cpu, 3),
            "peak_rss_mib": round(cost.peak_rss_mib),
        }
        per_byte = ""
        if not mode.startswith(("copy-1k", "cli-1k")):
            figures["cpu_ns_per_response_byte"] = round(cost.cpu * 1e9 / response_bytes, 1)
            per_byte = f"{figures['cpu_ns_per_response_byte']:>9.1f}"
        if mode.startswith("cli:"):
            above = (cost.cpu - copy.cpu) * 1e9
            figures["us_per_row_above_copy"] = round(above / rows / 1e3, 3)
            figures["ns_per_byte_above_copy"] = round(above / response_bytes, 2)
            # The same above the CLI's own floor (reading, slicing, writing): the scorer's work.
            above = (cost.cpu - costs["cli-floor"].cpu) * 1e9
            figures["us_per_row_above_floor"] = round(above / rows / 1e3, 3)
            figures["ns_per_byte_above_floor"] = round(above / response_bytes, 2)
        result[mode] = figures
        print(
            f"{log.name:<10} {mode:<30} {cost.seconds:>7.2f} {cost.cpu:>7.2f} "
            f"{cost.peak_rss_mib:>9,.0f} {per_byte}",
            flush=True,
        )
    result["cli_over_copy_wall"] = round(costs["cli"].seconds / copy.seconds, 2)
    result["cli_over_copy_cpu"] = round(costs["cli"].cpu / copy.cpu, 2)
    result["every_row_over_copy_wall"] = round(costs["cli-every-row"].seconds / copy.seconds, 2)
    result["every_row_over_copy_cpu"] = round(costs["cli-every-row"].cpu / copy.cpu, 2)
    result["cli_fixed_cpu_seconds"] = round(costs["cli-1k"].cpu - costs["copy-1k"].cpu, 3)
    if "cli-floor" in costs:
        result["cli_floor_over_copy_cpu"] = round(costs["cli-floor"].cpu / copy.cpu, 2)
    # What a big log converges to: the CLI's CPU above its fixed cost over the copy's above its own.
    result["cli_over_copy_cpu_marginal"] = round(
        (costs["cli"].cpu - costs["cli-1k"].cpu) / max(copy.cpu - costs["copy-1k"].cpu, 1e-9), 2
    )
    return result


def print_tables(results: list[dict[str, object]], scorers: list[str]) -> None:
    """The suite's summary as two Markdown tables: CLI / copy per log, and per-scorer costs."""
    print(
        "\n| log | rows | response bytes/row | copy wall s | copy CPU s | CLI wall s | CLI CPU s "
        "| CLI fixed CPU s | CLI/copy wall | CLI/copy CPU | CLI/copy CPU, fixed costs out "
        "| CLI floor/copy CPU | every row/copy wall | every row/copy CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        copy, cli = r["copy"], r["cli"]
        assert isinstance(copy, dict)
        assert isinstance(cli, dict)
        print(
            f"| {r['log']} | {r['rows']:,} | {r['response_bytes_per_row']} | {copy['seconds']:.2f} "
            f"| {copy['cpu_seconds']:.2f} | {cli['seconds']:.2f} | {cli['cpu_seconds']:.2f} "
            f"| {r['cli_fixed_cpu_seconds']:.2f} | **{r['cli_over_copy_wall']}x** "
            f"| **{r['cli_over_copy_cpu']}x** | {r['cli_over_copy_cpu_marginal']}x "
            f"| {r.get('cli_floor_over_copy_cpu', '–')}x | {r['every_row_over_copy_wall']}x "
            f"| {r['every_row_over_copy_cpu']}x |"
        )
    if not any(f"cli:{name}" in r for r in results for name in scorers):
        return
    for kind, title in [
        ("above_copy", "CPU of the CLI with one scorer above the copy's"),
        ("above_floor", "above the CLI's floor (its reading, slicing and writing)"),
    ]:
        print(f"\n{title}, per row (us) / per response byte (ns):\n")
        print("| scorer | " + " | ".join(str(r["log"]) for r in results) + " |")
        print("|---|" + "---:|" * len(results))
        for name in scorers:
            cells = []
            for r in results:
                single = r.get(f"cli:{name}")
                if isinstance(single, dict):
                    per_row = single[f"us_per_row_{kind}"]
                    per_byte = single[f"ns_per_byte_{kind}"]
                    cells.append(f"{per_row:.2f} / {per_byte:.1f}")
                else:
                    cells.append("–")
            print(f"| {name} | " + " | ".join(cells) + " |")


def parse_args() -> argparse.Namespace:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, default=None, help="rows of every log (default: each log's own size)"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply each log's default size by this"
    )
    parser.add_argument(
        "--log", action="append", choices=list(LOGS), default=None, help="default: every log"
    )
    parser.add_argument("--repeat", type=int, default=2, help="rounds; the best of each kept")
    parser.add_argument(
        "--no-per-scorer",
        dest="per_scorer",
        action="store_false",
        help="skip the runs of the CLI with one scorer at a time",
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="mark each repeat of a real log's rows (trailing blanks) so that no two are equal",
    )
    parser.add_argument("--data", type=Path, default=None, help="the shared data folder")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.repeat < 1 or (args.rows is not None and args.rows < 1) or args.scale <= 0:
        parser.error("--repeat, --rows and --scale: expected positive numbers")
    args.data = args.data or default_data_dir()
    args.workdir = args.workdir or Path(tempfile.gettempdir()) / "polarscore-bench-suite"
    args.workdir.mkdir(parents=True, exist_ok=True)
    return args


def default_scorers() -> list[str]:
    """The CLI's default scorers, asked of a child process (this one stays small)."""
    done = subprocess.run(
        [sys.executable, "-c", "import polarscore as ps; print(*ps.default_scorers())"],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return done.stdout.split()


def main() -> None:
    if sys.argv[1:2] == ["--write-base"]:
        name, data, workdir = sys.argv[2:5]
        print(write_base(LOGS[name], Path(data), Path(workdir)))
        return
    args = parse_args()
    scorers = default_scorers()
    load_before = os.getloadavg()
    print(
        f"polars {pl.__version__}; {os.cpu_count()} CPUs; load {load_before[0]:.2f}; "
        f"best of {args.repeat}; scorers: {', '.join(scorers)}"
    )
    print(f"{'log':<10} {'mode':<30} {'wall s':>7} {'CPU s':>7} {'RSS MiB':>9} {'CPU ns/B':>9}")
    started = time.perf_counter()
    results = [run_log(LOGS[name], args, scorers) for name in args.log or list(LOGS)]
    load_after = os.getloadavg()
    print_tables(results, scorers)
    print(
        f"\nload average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"{time.perf_counter() - started:.0f} s in all"
    )
    if args.json:
        meta = {
            "polars": pl.__version__,
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "repeat": args.repeat,
            "distinct": args.distinct,
            "load_before": load_before,
            "load_after": load_after,
            "scorers": scorers,
        }
        args.json.write_text(json.dumps({"meta": meta, "logs": results}, indent=2))


if __name__ == "__main__":
    main()
