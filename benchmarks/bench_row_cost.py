"""Per-row cost of the scorers on short, medium and long rows, beside Polars' own string kernels.

Usage::

    python benchmarks/bench_row_cost.py [--rows 200000] [--repeat 3] [--lengths short,medium,long]
                                        [--threads 1,default] [--scorers answer_match,...]
                                        [--repeat-refs 1] [--baseline OTHER_CHECKOUT]

A short answer costs a scorer a fixed amount of work per row (reading the inputs, preparing the
reference, setting up its scratch state) on top of the work per byte, and on a log of short
answers (extractive QA, multiple choice) the fixed part is most of it. This measures it: CPU
microseconds per row and CPU nanoseconds per response byte for each scorer, on rows built with a
fixed seed in three length classes:

* ``short``: ASCII responses of about 10 bytes against references of about 43 bytes;
* ``medium``: responses of 150-180 bytes (a sentence or two), the same references;
* ``long``: responses of 1.4-1.7 KB, the same references.

Every row has its own reference, as in a log of distinct questions (``--repeat-refs K`` makes
each reference serve K consecutive rows instead, as when several models answer one question).
``answer_match`` is measured with a ``String`` reference, with a ``List(String)`` of aliases and
with a question; then ``answer_precision``, ``squad_f1``, ``squad_exact_match``,
``response_similarity`` and ``answer_correctness``. The same-run baseline is Polars'
``str.to_lowercase`` and ``str.len_bytes`` on the response column.

``--baseline DIR`` measures every cell a second time with the ``polarscore`` package found in
``DIR`` (a checkout of another commit, with its extension built), in the same run, and prints
the two side by side with their ratio.

Each (length, threads) cell runs in a fresh subprocess: ``POLARS_MAX_THREADS=1`` for one thread,
Polars' default otherwise. Within it every expression first runs once on 100 rows, untimed (the
one-off loading of the plugin and of its Unicode tables is not a per-row cost), then ``--repeat``
times on the whole frame; the best CPU time (every thread's) is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

# Run from a checkout: the package beside the benchmarks, installed or not (or, in a
# measurement subprocess, the one of ``--package``).
_PACKAGE = sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv else None
sys.path[:0] = [_PACKAGE or str(Path(__file__).parents[1])]
import polarscore as ps  # noqa: E402

_WORDS = [
    "paris",
    "london",
    "the",
    "answer",
    "is",
    "capital",
    "city",
    "river",
    "mountain",
    "president",
    "year",
    "population",
    "about",
    "of",
    "in",
    "and",
    "a",
    "was",
    "born",
    "founded",
    "located",
    "north",
    "south",
    "east",
    "west",
    "king",
    "queen",
    "war",
    "battle",
    "treaty",
    "ocean",
    "island",
    "first",
    "second",
    "largest",
    "smallest",
    "oldest",
    "company",
    "engine",
    "theory",
]

_LENGTHS = {"short": (8, 12), "medium": (150, 180), "long": (1400, 1700)}


def _text(rng: np.random.Generator, low: int, high: int) -> str:
    """Words from the vocabulary until the text is between ``low`` and ``high`` bytes."""
    target = int(rng.integers(low, high + 1))
    words: list[str] = []
    size = -1
    while size + 1 < target:
        word = _WORDS[int(rng.integers(len(_WORDS)))]
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:high].rstrip()


def build_rows(length: str, rows: int, *, repeat_refs: int = 1, seed: int = 44) -> pl.DataFrame:
    """``rows`` rows of one length class: response, reference, references (aliases), question."""
    rng = np.random.default_rng(seed)
    low, high = _LENGTHS[length]
    distinct = (rows + repeat_refs - 1) // repeat_refs
    pool = [_text(rng, 40, 46) for _ in range(distinct)]
    reference = [pool[i // repeat_refs] for i in range(rows)]
    # A third of the short responses are (a case variant of) a piece of the reference.
    response = []
    for ref in reference:
        if length == "short" and rng.random() < 1 / 3:
            response.append(ref.split()[-1].title())
        else:
            response.append(_text(rng, low, high))
    return pl.DataFrame(
        {
            "response": response,
            "reference": reference,
            "references": [[r, r.split()[-1]] for r in reference],
            "question": ["What is the " + r.split()[0] + " of it?" for r in reference],
        }
    )


def scorers() -> dict[str, pl.Expr]:
    """The expressions measured, by label; the baselines first."""
    r, ref = pl.col("response"), pl.col("reference")
    return {
        "to_lowercase (Polars)": r.str.to_lowercase(),
        "len_bytes (Polars)": r.str.len_bytes(),
        "answer_match": ps.answer_match(r, ref),
        "answer_match (list)": ps.answer_match(r, pl.col("references")),
        "answer_match (question)": ps.answer_match(r, ref, question=pl.col("question")),
        "answer_precision": ps.answer_precision(r, ref),
        "squad_f1": ps.squad_f1(r, ref),
        "squad_exact_match": ps.squad_exact_match(r, ref),
        "response_similarity": ps.response_similarity(r, pl.col("references")),
        "answer_correctness": ps.answer_correctness(r, ref),
    }


def _cpu(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _child(args: argparse.Namespace) -> None:
    frame = build_rows(args.length, args.rows, repeat_refs=args.repeat_refs)
    nbytes = frame["response"].str.len_bytes().sum()
    wanted = set(args.scorers.split(",")) if args.scorers else None
    out: dict[str, list[float]] = {}
    for label, expr in scorers().items():
        if wanted is not None and label not in wanted and "Polars" not in label:
            continue
        frame.head(100).select(expr)
        cpu = _cpu(lambda expr=expr: frame.select(expr), args.repeat)
        out[label] = [cpu / frame.height * 1e6, cpu / nbytes * 1e9]
    print(json.dumps(out))


def _cell(
    args: argparse.Namespace, length: str, threads: str, package: str | None = None
) -> dict[str, list[float]]:
    env = dict(os.environ)
    if threads == "1":
        env["POLARS_MAX_THREADS"] = "1"
    else:
        env.pop("POLARS_MAX_THREADS", None)
    rows = (
        args.rows if length == "short" else max(args.rows // (4 if length == "medium" else 20), 1)
    )
    command = [sys.executable, __file__, "--child", "--length", length, "--rows", str(rows)]
    command += ["--repeat", str(args.repeat), "--repeat-refs", str(args.repeat_refs)]
    if args.scorers:
        command += ["--scorers", args.scorers]
    if package:
        command += ["--package", package]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--rows", type=int, default=200_000, help="short rows (medium: /4, long: /20)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-refs", type=int, default=1)
    parser.add_argument("--lengths", default="short,medium,long")
    parser.add_argument("--threads", default="1,default")
    parser.add_argument("--scorers", default="", help="comma-separated labels; default: all")
    parser.add_argument("--baseline", default="", help="a checkout to measure beside this one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--package", default="", help=argparse.SUPPRESS)
    parser.add_argument("--length", default="short", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    print(f"polarscore: {Path(ps.__file__).parent}")
    for threads in args.threads.split(","):
        for length in args.lengths.split(","):
            result = _cell(args, length, threads)
            title = f"\n{length} rows, threads={threads}: CPU us per row | CPU ns per response byte"
            if not args.baseline:
                print(title)
                for label, (per_row, per_byte) in result.items():
                    print(f"  {label:<26} {per_row:8.3f} | {per_byte:8.1f}")
                continue
            base = _cell(args, length, threads, package=args.baseline)
            print(f"{title}; baseline ({args.baseline}) first, then this checkout")
            for label, (per_row, per_byte) in result.items():
                b_row, b_byte = base[label]
                print(
                    f"  {label:<26} {b_row:8.3f} -> {per_row:8.3f} us ({per_row / b_row:5.2f}x)"
                    f" | {b_byte:8.1f} -> {per_byte:8.1f} ns/B"
                )


if __name__ == "__main__":
    main()
