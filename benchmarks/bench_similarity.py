"""Benchmark response_similarity and SQuAD EM/F1 against per-row Python loops.

Usage::

    python benchmarks/bench_similarity.py [--rows 1000000] [--loop-rows 20000]
                                          [--rouge-loop-rows 3000] [--repeat 2]

Generates (or reuses) the synthetic eval log of ``benchmarks/synthetic.py`` and scores the response
against its ``references`` list column (one to three aliases per row). In the same run, on the
same data:

* ``reference loop``: the reference semantics as a plain Python loop, row by row, the way the
  reference library scores a row (``re.findall``, ``Counter``, a dynamic-programming LCS for
  rouge_l; the official SQuAD v1.1 functions for SQuAD), on the first ``--loop-rows`` rows
  (``--rouge-loop-rows`` for rouge_l, whose quadratic LCS is slow on long answers);
* ``polarscore``: the whole log, with the in-memory engine and with the streaming engine.

Each polarscore measurement runs in a fresh subprocess, so its peak RSS (``ru_maxrss``) is its
own; the peak is reported above the RSS after loading the data. Both wall-clock and CPU-time
throughput are reported (the machine may be shared; CPU time is the fairer ratio there).
"""

from __future__ import annotations

import argparse
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import polars as pl

# Run from a checkout: the benchmarks and the package beside them, installed or not.
sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
from _measure import benchmark_parser, run_child, time_select  # noqa: E402
from synthetic import cached_eval_log  # noqa: E402

# --- the per-row baselines (reference semantics, written for this benchmark) --------------------

_STOP = frozenset(
    {
        *("a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am"),
        *("of", "to", "in", "on", "at", "for", "and", "or", "but"),
        *("it", "its", "this", "that", "these", "those", "with", "as", "by", "from"),
        *("i", "you", "we", "they", "he", "she"),
    }
)
_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    found = _WORD.findall(text.lower())
    kept = [w for w in found if w not in _STOP]
    return kept or found


def _lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        left = 0
        for j, y in enumerate(b, 1):
            up = row[j]
            row[j] = left + 1 if x == y else max(up, row[j - 1])
            left = up
    return row[-1]


def _f(m: int, a: int, b: int) -> float:
    if m == 0:
        return 0.0
    p, r = m / a, m / b
    return 2 * p * r / (p + r)


def _pair(metric: str, resp: list[str], ref: list[str]) -> float:
    if metric == "token_recall":
        return sum((Counter(resp) & Counter(ref)).values()) / len(ref) if ref else 0.0
    if metric == "token_f1":
        return _f(sum((Counter(resp) & Counter(ref)).values()), len(resp), len(ref))
    return _f(_lcs(resp, ref), len(resp), len(ref))


def similarity_loop(metric: str) -> Callable[[str | None, list[str | None] | None], float | None]:
    def score(response: str | None, acceptable: list[str | None] | None) -> float | None:
        items = [str(v) for v in acceptable or [] if str(v).strip()]
        if not items:
            return None
        tokens = _words(response or "")
        return max(_pair(metric, tokens, _words(item)) for item in items)

    return score


_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _squad_norm(s: str) -> str:
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def _squad_f1(pred: str, gold: str) -> float:
    p, g = _squad_norm(pred).split(), _squad_norm(gold).split()
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def squad_loop(kind: str) -> Callable[[str | None, list[str | None] | None], float | None]:
    def score(response: str | None, golds: list[str | None] | None) -> float | None:
        usable = [g for g in golds or [] if g is not None and g.strip()]
        if not usable:
            return None
        pred = response or ""
        if kind == "em":
            return max(float(_squad_norm(pred) == _squad_norm(g)) for g in usable)
        return max(_squad_f1(pred, g) for g in usable)

    return score


SCORERS: dict[str, tuple[str, Callable[..., Callable[..., float | None]], str]] = {
    # name: (polarscore function, loop factory, loop option)
    "token_recall": ("response_similarity", similarity_loop, "token_recall"),
    "token_f1": ("response_similarity", similarity_loop, "token_f1"),
    "rouge_l": ("response_similarity", similarity_loop, "rouge_l"),
    "squad_exact_match": ("squad_exact_match", squad_loop, "em"),
    "squad_f1": ("squad_f1", squad_loop, "f1"),
}


def _expr(name: str) -> pl.Expr:
    import polarscore as ps

    if name in ("token_recall", "token_f1", "rouge_l"):
        return ps.response_similarity("response", "references", metric=name)  # type: ignore[arg-type]
    return getattr(ps, name)("response", "references")  # type: ignore[no-any-return]


def _child(args: argparse.Namespace) -> None:
    """Run one measurement in this (fresh) process and print a JSON line."""
    frame = cached_eval_log(args.rows)
    expr = _expr(args.scorer)
    time_select(frame, expr, engine=args.engine, repeat=args.repeat)


def _measure(rows: int, scorer: str, engine: str, repeat: int) -> dict[str, float]:
    return run_child(
        __file__,
        ["--rows", str(rows), "--scorer", scorer, "--engine", engine, "--repeat", str(repeat)],
    )


def main() -> None:
    parser = benchmark_parser(__doc__, loop_rows=20_000, repeat=2)
    parser.add_argument("--rouge-loop-rows", type=int, default=3_000)
    parser.add_argument("--only", nargs="*", default=list(SCORERS), choices=list(SCORERS))
    parser.add_argument("--scorer", default="token_recall", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return

    frame = cached_eval_log(args.rows)
    text_mib = (
        frame.select(
            pl.col("response").str.len_bytes().sum()
            + pl.col("references").list.eval(pl.element().str.len_bytes()).list.sum().sum()
        ).item()
        / 2**20
    )
    print(f"synthetic log: {frame.height:,} rows, {text_mib:,.0f} MiB of text (with references)")
    print(
        f"{'scorer':<18} {'what':<24} {'rows':>9} {'rows/s':>11} {'x loop':>8} "
        f"{'rows/cpu-s':>11} {'x loop':>8} {'peak MiB':>9}"
    )
    for name in args.only:
        _, factory, option = SCORERS[name]
        n_loop = args.rouge_loop_rows if name == "rouge_l" else args.loop_rows
        sample = frame.head(n_loop)
        score = factory(option)
        pairs = list(zip(sample["response"].to_list(), sample["references"].to_list(), strict=True))
        start, start_cpu = time.perf_counter(), time.process_time()
        for response, references in pairs:
            score(response, references)
        loop_rate = sample.height / (time.perf_counter() - start)
        loop_cpu = sample.height / (time.process_time() - start_cpu)
        print(
            f"{name:<18} {'reference loop (Python)':<24} {sample.height:>9,} {loop_rate:>11,.0f} "
            f"{1.0:>8.1f} {loop_cpu:>11,.0f} {1.0:>8.1f}"
        )
        for engine in ("in-memory", "streaming"):
            result = _measure(args.rows, name, engine, args.repeat)
            rate, cpu = args.rows / result["seconds"], args.rows / result["cpu"]
            print(
                f"{name:<18} {'polarscore ' + engine:<24} {args.rows:>9,} {rate:>11,.0f} "
                f"{rate / loop_rate:>8.1f} {cpu:>11,.0f} {cpu / loop_cpu:>8.1f} "
                f"{result['peak_mib']:>9,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
