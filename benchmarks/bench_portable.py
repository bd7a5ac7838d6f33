"""The portable path beside the default build: CPU time of each default scorer, same run.

    python benchmarks/bench_portable.py [--rows 20000] [--rounds 2] [--repeat 3]
        [--portable-so PATH] [--target-dir DIR] [--lock FILE]

Builds the extension with the ``portable`` cargo feature (every SIMD path off: the run-time
AVX2/BMI checks of ``src/cpu.rs`` answer no and x86_64's SSE2 paths are compiled out, so this
machine runs the code a processor without them runs, aarch64 today) into ``--target-dir``
(default ``$CARGO_TARGET_DIR-portable``, else ``target/portable``: a target folder of its own,
so that the default build's is not invalidated), under the lock file ``--lock`` when given.
``--portable-so`` skips the build. The default build is the ``.so`` of this checkout's
``polarscore/``.

Each log, scorer and build is timed in a fresh subprocess (one Polars thread, best of
``--repeat``; the builds alternate over ``--rounds`` rounds and the best is kept), which also
checks that both builds give the same scores (a hash of the score columns). Prints the CPU
nanoseconds per response byte and per row of each build and their ratio, portable / default.

The logs: short extractive answers (EVOUNA's FiD rows, about 12 bytes against 14-byte
references), EVOUNA's chat models (100-260 bytes), MMLU-Pro chains of thought, GSM8K solutions,
and long markdown (the synthetic log's markdown rows, 0.5-3 KB), each repeated to ``--rows``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("POLARSCORE_DATA", "/work/shared/data"))
BUILDS = ("default", "portable")
COLUMNS = ["response", "reference", "references"]


def _repeat(frame: pl.DataFrame, rows: int) -> pl.DataFrame:
    copies = -(-rows // frame.height)
    return pl.concat([frame] * copies).head(rows)


def _logs(rows: int) -> dict[str, pl.DataFrame]:
    """The logs, each ``rows`` rows of response, reference and references (list of text)."""
    evouna = pl.read_parquet(DATA / "evouna_nq_tq.parquet")
    logs = {
        "short (EVOUNA FiD)": evouna.filter(pl.col("model_key") == "fid"),
        "chat (EVOUNA)": evouna.filter(pl.col("model_key") != "fid"),
        "MMLU-Pro CoT": pl.read_parquet(DATA / "mmlu_pro_cot.parquet"),
        "GSM8K": pl.read_parquet(DATA / "gsm8k_openai_solutions.parquet"),
    }
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synthetic import make_eval_log

    synthetic = make_eval_log(max(rows // 2, 2_000), seed=44)
    logs["long markdown"] = synthetic.filter(pl.col("response").str.len_bytes() >= 500)
    return {
        name: _repeat(frame.select(COLUMNS).sample(fraction=1.0, shuffle=True, seed=0), rows)
        for name, frame in logs.items()
    }


def _build(target_dir: Path, lock: Path | None) -> Path:
    """Build the portable extension; return the path of the built library."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    env.setdefault("PYO3_PYTHON", sys.executable)
    command = ["cargo", "build", "--release", "--lib", "--features", "extension-module,portable"]
    with open(lock if lock else os.devnull, "w") as handle:
        if lock:
            print(f"waiting for the build lock {lock}...", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        # Another checkout may have built the crate into the same target folder.
        (ROOT / "src" / "lib.rs").touch()
        subprocess.run(command, cwd=ROOT, env=env, check=True)
    return target_dir / "release" / "lib_internal.so"


def _package(so: Path, into: Path) -> Path:
    """A copy of this checkout's ``polarscore`` package with ``so`` as its extension."""
    package = into / "polarscore"
    shutil.copytree(ROOT / "polarscore", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(so, package / "_internal.abi3.so")
    return into


def _child(log: Path, scorers: list[str], repeat: int, expect: str) -> None:
    import polarscore as ps

    if not Path(ps.__file__).resolve().is_relative_to(Path(expect).resolve()):
        raise SystemExit(f"imported {ps.__file__}, expected the package under {expect}")
    frame = pl.read_parquet(log)
    out = {}
    for scorer in scorers:
        names = ps.default_scorers() if scorer == "all" else [scorer]

        def run(frame: pl.DataFrame = frame, names: list[str] = names) -> pl.DataFrame:
            return ps.score_frame(frame, scorers=names, references="references")

        run(frame.head(100))
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            scored = run()
            best = min(best, time.process_time() - start)
        digest = int(scored.drop(COLUMNS).hash_rows(seed=0).sum())
        out[scorer] = {"cpu": best, "hash": digest}
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--portable-so", type=Path)
    parser.add_argument("--target-dir", type=Path)
    parser.add_argument("--lock", type=Path)
    parser.add_argument("--child", nargs=4, metavar=("LOG", "SCORERS", "REPEAT", "PACKAGE"))
    args = parser.parse_args()
    if args.child:
        log, scorers, repeat, package = args.child
        _child(Path(log), scorers.split(","), int(repeat), package)
        return

    so = args.portable_so
    if so is None:
        target = args.target_dir
        if target is None:
            shared = os.environ.get("CARGO_TARGET_DIR")
            target = Path(f"{shared}-portable") if shared else ROOT / "target" / "portable"
        so = _build(target, args.lock)
    default_so = ROOT / "polarscore" / "_internal.abi3.so"
    with tempfile.TemporaryDirectory(prefix="polarscore-portable-") as tmp:
        packages = {
            "default": _package(default_so, Path(tmp) / "default"),
            "portable": _package(so, Path(tmp) / "portable"),
        }
        logs = _logs(args.rows)
        scorers = ["all", *_default_scorers(packages["default"])]
        print(
            f"{'log':20} {'scorer':20} {'B/row':>6} {'default ns/B':>12} {'portable ns/B':>13} "
            f"{'default us/row':>14} {'portable us/row':>15} {'ratio':>6}"
        )
        for index, (name, frame) in enumerate(logs.items()):
            path = Path(tmp) / f"log{index}.parquet"
            frame.write_parquet(path)
            size = frame.select(pl.col("response").str.len_bytes().sum()).item()
            best: dict[str, dict[str, float]] = {b: {} for b in BUILDS}
            hashes: dict[str, dict[str, int]] = {b: {} for b in BUILDS}
            for _ in range(args.rounds):
                for build in BUILDS:
                    result = _run_child(path, scorers, args.repeat, packages[build])
                    for scorer, got in result.items():
                        best[build][scorer] = min(best[build].get(scorer, 1e9), got["cpu"])
                        hashes[build][scorer] = got["hash"]
            for scorer in scorers:
                same = hashes["default"][scorer] == hashes["portable"][scorer]
                d, p = best["default"][scorer], best["portable"][scorer]
                print(
                    f"{name:20} {scorer:20} {size / frame.height:6.0f} {d / size * 1e9:12.2f} "
                    f"{p / size * 1e9:13.2f} {d / frame.height * 1e6:14.2f} "
                    f"{p / frame.height * 1e6:15.2f} {p / d:6.2f}"
                    + ("" if same else "  SCORES DIFFER")
                )


def _default_scorers(package: Path) -> list[str]:
    code = "import polarscore as ps; print(','.join(ps.default_scorers()))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(package), check=True, capture_output=True, text=True
    )
    return done.stdout.strip().split(",")


def _env(package: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(package), POLARS_MAX_THREADS="1")


def _run_child(log: Path, scorers: list[str], repeat: int, package: Path) -> dict[str, dict]:
    args = [str(log), ",".join(scorers), str(repeat), str(package)]
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", *args],
        env=_env(package),
        cwd=package,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, dict] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":
    main()
