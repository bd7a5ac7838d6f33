"""The cost of one long row: every registered scorer, from 1 KB to 4 MB per side.

Usage::

    python benchmarks/bench_long_text.py [--sizes 1e3,1.6e4,1.3e5,5e5,1e6,4e6] [--timeout 60]
                                         [--only answer_precision,...]

For each scorer (its default options, and the variants whose cost is not linear: answer
precision with difflib's SequenceMatcher, ROUGE-L) and each size, one row is scored in a fresh
subprocess: a response and a reference of that many characters each, either **unlike** (two
different texts from the same vocabulary) or **alike** (the reference with one word changed in
a thousand). The checks score the response alone (``regex_match`` with a pattern Python's ``re``
backtracks on for ever, ``json_schema`` on a JSON document of that size). The child warms the
kernels on a tiny row first, then reports the CPU seconds (all threads) of the one long row and
what it gave: a score, ``null`` (the length guard: ``max_work``), or nothing within
``--timeout`` seconds (the child is killed). Prints a Markdown table per kind.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: (label, scorer, options); the checks read the response alone.
CONFIGS: list[tuple[str, str, dict[str, Any]]] = [
    ("answer_correctness", "answer_correctness", {}),
    ("answer_correctness contains", "answer_correctness", {"match_mode": "contains"}),
    ("answer_match", "answer_match", {}),
    ("answer_precision (indel)", "answer_precision", {}),
    (
        "answer_precision sequence_matcher",
        "answer_precision",
        {"char_similarity": "sequence_matcher"},
    ),
    ("response_similarity", "response_similarity", {}),
    ("response_similarity rouge_l", "response_similarity", {"metric": "rouge_l"}),
    ("squad_exact_match", "squad_exact_match", {}),
    ("squad_f1", "squad_f1", {}),
    ("choice_match", "choice_match", {}),
    ("numeric_match", "numeric_match", {}),
    ("contains", "contains", {"keywords": ["paris", "zzz"]}),
    ("starts_with", "starts_with", {"prefix": "the"}),
    ("ends_with", "ends_with", {"suffix": "end"}),
    ("exact_match", "exact_match", {}),
    ("non_empty", "non_empty", {}),
    ("length_check words", "length_check", {"unit": "words", "max_length": 10**9}),
    ("format_check url", "format_check", {"format_type": "url"}),
    ("regex_match ^(\\w+\\s?)*$", "regex_match", {"pattern": r"^(\w+\s?)*$"}),
    ("regex_match (?<=\\d)\\b(\\w+) \\1", "regex_match", {"pattern": r"(?<=\d)\b(\w+) \1"}),
    ("json_schema", "json_schema", {"schema": {"items": {"pattern": "^(a+)+$"}}}),
    ("language_detection", "language_detection", {}),
]


def make_texts(size: int, kind: str) -> tuple[str, str]:
    """A response and a reference of ``size`` characters each."""
    rng = random.Random(size)
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé") for _ in range(rng.randint(1, 9)))
        for _ in range(20_000)
    ] + ["Paris", "42", "3.5", "the", "answer", "is", "(B)", "—"]

    def text(seed: int) -> list[str]:
        r = random.Random(seed)
        words: list[str] = []
        total = 0
        while total < size:
            word = r.choice(vocab) + r.choice(["", "", "", ",", ".", "\n"])
            words.append(word)
            total += len(word) + 1
        return words

    response = text(1)
    if kind == "unlike":
        reference = text(2)
    else:
        reference = list(response)
        for i in range(0, len(reference), 1000 // 6):
            reference[i] = rng.choice(vocab)
    return " ".join(response)[:size], " ".join(reference)[:size]


def child(label: str, size: int, kind: str) -> None:
    import polars as pl

    import polarscore as ps

    _, name, options = next(c for c in CONFIGS if c[0] == label)
    spec = ps.get_scorer(name)
    response, reference = make_texts(size, kind)
    if name == "json_schema":
        # An array of strings on which re backtracks for ever under the schema's pattern.
        response = json.dumps(["a" * 50 + "!"] * max(1, size // 56))
    warm = pl.DataFrame({"response": ["warm up"], "reference": ["warm up"]})
    warm.select(spec.expr("response", "reference", **options))
    frame = pl.DataFrame({"response": [response], "reference": [reference]})
    start = time.process_time()
    value = frame.select(spec.expr("response", "reference", **options)).item()
    print(json.dumps({"cpu": time.process_time() - start, "value": value}))


def measure(label: str, size: int, kind: str, timeout: float) -> str:
    command = [sys.executable, __file__, "--child", label, str(size), kind]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except subprocess.TimeoutExpired:
        return f"> {timeout:g} s"
    except subprocess.CalledProcessError as error:
        return f"error: {error.stderr.strip().splitlines()[-1][:60]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    note = " (null)" if result["value"] is None else ""
    return f"{result['cpu']:.2f} s{note}"


def _size_label(size: int) -> str:
    return f"{size / 2**20:g} MB" if size >= 2**20 else f"{size / 1024:g} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,16384,131072,524288,1048576,4194304")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--kinds", default="unlike,alike")
    parser.add_argument("--only", default="", help="comma-separated labels or scorer names")
    parser.add_argument("--child", nargs=3, metavar=("LABEL", "SIZE", "KIND"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    only = {s for s in args.only.split(",") if s}
    configs = [c for c in CONFIGS if not only or c[0] in only or c[1] in only]
    for kind in args.kinds.split(","):
        print(f"\n{kind} texts, CPU seconds for one row (each side that long)\n")
        print("| scorer | " + " | ".join(_size_label(s) for s in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for label, _, _ in configs:
            cells = [measure(label, size, kind, args.timeout) for size in sizes]
            print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
