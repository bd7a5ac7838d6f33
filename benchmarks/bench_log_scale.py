"""Read and score a big inspect-ai ``.eval`` log (zstd entries) through the command line.

Usage::

    python benchmarks/bench_log_scale.py [--samples 100000] [--base 2000] [--workdir DIR]
        [--json OUT.json] [--inspect-baseline-max 20000] [--baseline DIR]

Needs inspect-ai (the ``test`` extra): it writes the log. A task whose solver sets canned answers
(``tests/inspect_logs.py``) runs ``--base`` samples under inspect-ai's ``mockllm/model``, offline;
its archive's sample entries, as inspect-ai wrote them, are then repeated (with new sample ids) to
``--samples`` entries in a new archive written with inspect-ai's own zip settings (zstd, zip
method 93), with its header, start journal and summaries. inspect-ai's own writer takes minutes
per ten thousand samples, so it writes only the base log. inspect-ai then reads the header and a
few samples of the result back, as a check that it is a valid log. Both files are cached in
``--workdir``.

Then, each in a fresh subprocess (peak RSS is the child's ``ru_maxrss``, CPU time its user + sys,
from ``os.wait4``):

* ``cli-log``: ``polarscore score LOG.eval -o OUT.parquet --quiet``: read, score with every
  default scorer, write;
* ``cli-parquet``: the same rows (the canonical table of the log, as Parquet) scored the same way:
  the same-run baseline for what reading the log costs over reading a table;
* ``read``: ``ps.scan_log(LOG).collect(engine="streaming")``, reading alone (the archive's
  sample entries are read natively, ``src/evallog/``);
* ``inspect-read`` (up to ``--inspect-baseline-max`` samples): inspect-ai's own
  ``read_eval_log(LOG)``, the same-run baseline for reading;
* with ``--baseline DIR`` (a folder holding another build of the ``polarscore`` package, such as
  the previous release's), ``cli-log`` and ``read`` again with that package imported: an A/B of
  two versions in the same run.

Targets (issue 27): the CLI reads and scores a 100,000-sample log at 50,000 samples/s or more, with
peak RSS under 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]


def base_log(workdir: Path, samples: int) -> Path:
    """Write (once) a ``samples``-sample .eval log with inspect-ai itself."""
    folder = workdir / f"base_{samples}"
    found = sorted(folder.glob("eval/*.eval"))
    if found:
        return found[0]
    from tests.inspect_logs import write_inspect_logs

    return write_inspect_logs(folder, samples, formats=("eval",))["eval"]


def _renamed(entry: bytes, old: str, new: str) -> bytes:
    """A sample entry (compact JSON, ``id`` first) with its ``id`` replaced."""
    prefix = b'{"id":' + json.dumps(json.loads(old) if old.isdigit() else old).encode() + b","
    if not entry.startswith(prefix):
        raise SystemExit(f"unexpected sample entry start: {entry[:40]!r}")
    return b'{"id":' + json.dumps(new).encode() + b"," + entry[len(prefix) :]


def scaled_log(base: Path, samples: int, workdir: Path) -> Path:
    """Write (once) a ``samples``-entry .eval made of the base log's entries, repeated."""
    target = workdir / f"log_{samples}.eval"
    if target.exists():
        return target
    from inspect_ai._util.zipfile import zipfile_compress_kwargs  # zstd in zipfile (< 3.14)

    with zipfile.ZipFile(base) as source:
        names = [n for n in source.namelist() if n.startswith("samples/")]
        entries = {n: source.read(n) for n in names}
        header = source.read("header.json")
        start = source.read("_journal/start.json")
        summaries = json.loads(source.read("summaries.json"))
    by_key = {(str(s["id"]), int(s["epoch"])): s for s in summaries}
    tmp = target.with_suffix(".tmp")
    new_summaries = []
    with zipfile.ZipFile(tmp, "w", **zipfile_compress_kwargs) as out:
        out.writestr("_journal/start.json", start)
        for index in range(samples):
            name = names[index % len(names)]
            old_id, epoch = name.removeprefix("samples/").removesuffix(".json").rsplit("_epoch_")
            new_id = f"{old_id}-{index // len(names)}"
            out.writestr(
                f"samples/{new_id}_epoch_{epoch}.json", _renamed(entries[name], old_id, new_id)
            )
            summary = dict(by_key[(old_id, int(epoch))])
            summary["id"] = new_id
            new_summaries.append(summary)
        out.writestr("summaries.json", json.dumps(new_summaries))
        out.writestr("header.json", header)
    tmp.replace(target)
    _check_with_inspect(target, new_summaries[-1])
    return target


def _check_with_inspect(path: Path, last: dict[str, object]) -> None:
    from inspect_ai.log import read_eval_log, read_eval_log_sample

    header = read_eval_log(str(path), header_only=True)
    sample = read_eval_log_sample(str(path), id=str(last["id"]), epoch=int(str(last["epoch"])))
    if header.eval.model != "mockllm/model" or str(sample.id) != str(last["id"]):
        raise SystemExit("inspect-ai does not read the scaled log back")


def canonical_parquet(log: Path, workdir: Path) -> Path:
    """The log's canonical table as Parquet (once): the baseline's input."""
    target = log.with_suffix(".parquet")
    if not target.exists():
        _run([sys.executable, "-c", _WRITE_CANONICAL, str(log), str(target)])
    return target


_WRITE_CANONICAL = """
import sys
import polarscore as ps
ps.scan_log(sys.argv[1]).sink_parquet(sys.argv[2])
"""

_READ = """
import sys
import polars as pl
import polarscore as ps
print(ps.scan_log(sys.argv[1]).collect(engine="streaming").height)
"""

_INSPECT_READ = """
import sys
from inspect_ai.log import read_eval_log
print(len(read_eval_log(sys.argv[1]).samples))
"""


def _run(command: list[str], root: Path = ROOT) -> dict[str, float]:
    """Run ``command`` with ``root`` importable; return wall and CPU seconds, peak MiB."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    # From ``root`` too: ``python -c`` and ``-m`` put the working folder first on sys.path.
    process = subprocess.Popen(
        command, env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return {
        "seconds": wall,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--base", type=int, default=2_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--inspect-baseline-max", type=int, default=20_000)
    parser.add_argument("--baseline", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.gettempdir()) / "polarscore-bench-logs"
    workdir.mkdir(parents=True, exist_ok=True)

    log = scaled_log(base_log(workdir, args.base), args.samples, workdir)
    table = canonical_parquet(log, workdir)
    out = workdir / "scored.parquet"
    runs = {
        "cli-log": [sys.executable, "-m", "polarscore", "score", str(log), "-o", str(out)],
        "cli-parquet": [sys.executable, "-m", "polarscore", "score", str(table), "-o", str(out)],
        "read": [sys.executable, "-c", _READ, str(log)],
    }
    for command in (runs["cli-log"], runs["cli-parquet"]):
        command += ["--overwrite", "--quiet", "--references", "references"]
    if args.samples <= args.inspect_baseline_max:
        runs["inspect-read"] = [sys.executable, "-c", _INSPECT_READ, str(log)]
    roots = dict.fromkeys(runs, ROOT)
    if args.baseline is not None:
        for mode in ("cli-log", "read"):
            runs[f"baseline {mode}"] = runs[mode]
            roots[f"baseline {mode}"] = args.baseline.resolve()
    size = log.stat().st_size / 2**20
    print(f"log: {log} ({args.samples:,} samples, {size:,.0f} MiB zstd)")
    heads = ("seconds", "CPU s", "samples/s", "per CPU s", "peak MiB")
    print(f"{'mode':<20} " + " ".join(f"{h:>10}" for h in heads))
    results: dict[str, dict[str, float]] = {}
    for mode, command in runs.items():
        result = _run(command, roots[mode])
        results[mode] = result
        print(
            f"{mode:<20} {result['seconds']:>10.2f} {result['cpu_seconds']:>10.2f} "
            f"{args.samples / result['seconds']:>10,.0f} "
            f"{args.samples / result['cpu_seconds']:>10,.0f} {result['peak_rss_mib']:>10,.0f}",
            flush=True,
        )
    ratio = results["cli-log"]["cpu_seconds"] / results["cli-parquet"]["cpu_seconds"]
    print(f"scoring the log costs {ratio:.2f}x the CPU time of scoring its rows from Parquet")
    if "inspect-read" in results:
        speedup = results["inspect-read"]["cpu_seconds"] / results["read"]["cpu_seconds"]
        print(f"polarscore reads the log with {speedup:.1f}x less CPU time than inspect-ai")
    if "baseline read" in results:
        for mode in ("cli-log", "read"):
            gain = results[f"baseline {mode}"]["cpu_seconds"] / results[mode]["cpu_seconds"]
            print(f"{mode}: {gain:.2f}x less CPU time than the baseline")
    out.unlink(missing_ok=True)
    if args.json:
        args.json.write_text(json.dumps({"samples": args.samples, **results}, indent=2))


if __name__ == "__main__":
    main()
