"""Every kernel on its worst adversarial row: CPU seconds at 4 MB.

Usage::

    python benchmarks/bench_adversarial.py [--size 4e6] [--screen 2.5e5] [--top 2]
                                           [--only extract_choice,...] [--unlike]

The kernels and generators are those of ``tests/test_complexity.py`` (``tests/adversarial.py``):
each registered scorer with the option sets that choose its paths, its companions, every
``extract_choice`` rule set and ``extract_number`` method, against one token of a grammar
repeated on one long line or one a line, on each side the kernel reads. Each case is screened
once at ``--screen`` bytes; each kernel's ``--top`` costliest cases there are then timed at
``--size`` bytes (best of two, CPU seconds of this process), and the costliest is printed: one
Markdown row per kernel with its generator and side. The goal is every kernel under 1 s at 4 MB,
and the ones documented O(n*m) and guarded by ``max_work`` (``answer_precision``'s character
similarity, ROUGE-L) under 10 s.

``--unlike`` adds the guarded kernels on two unlike texts of ``--size`` bytes (random words over
400 CJK ideographs, the work far over ``max_work``): the cost of reaching the guard.

``--worst`` adds each guarded kernel on the inputs that cost it the most (``WORST_PAIRS``: words
of a small vocabulary whose rarer letters difflib does not drop as "popular", unlike CJK text of
100 or 400 ideographs, random characters of a 200-character block; both sides of ``--size``
bytes, or one of them 100 KB), with the default ``max_work``: one row per kernel, its worst
input, its CPU seconds and the work it counted (the goal: under 10 s at 4 MB).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polarscore._internal import long_text_work
from polarscore.kernels._plugin import load_unicode_tables
from tests import adversarial
from tests.adversarial import GENERATORS, Generator, Kernel

#: The goals at 4 MB (CPU seconds): linear kernels, and O(n*m) ones bounded by max_work.
GOAL, GUARDED_GOAL = 1.0, 10.0


#: English letter frequencies (per mille): in words of a small vocabulary the rarest letters
#: stay under difflib's "popular" 1%, so its searches match them.
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_FREQUENCIES = [82, 15, 28, 43, 127, 22, 20, 61, 70, 1.5, 7.7, 40, 24, 67, 75, 19, 1, 60, 63, 91]
_FREQUENCIES += [28, 9.8, 24, 1.5, 20, 0.7]


def _vocabulary(seed: int, size: int, words: int) -> str:
    rng = random.Random(seed)
    pool = [
        "".join(rng.choices(_LETTERS, weights=_FREQUENCIES, k=rng.randint(2, 9)))
        for _ in range(words)
    ]
    return " ".join(rng.choices(pool, k=size // 6 + 1))[:size]


def _ideographs(seed: int, size: int, kinds: int) -> str:
    rng = random.Random(seed)
    alphabet = [chr(0x4E00 + i) for i in range(kinds)]
    pool = ["".join(rng.choices(alphabet, k=rng.randint(1, 3))) for _ in range(2000)]
    return " ".join(rng.choices(pool, k=size // 7))


def _symbols(seed: int, size: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choices([chr(0x100 + i) for i in range(200)], k=size // 2))


#: The inputs that cost the guarded kernels the most (``text(seed, bytes)``).
WORST_PAIRS: dict[str, Callable[[int, int], str]] = {
    "224 words": lambda seed, size: _vocabulary(seed, size, 224),
    "20 words": lambda seed, size: _vocabulary(seed, size, 20),
    "400 ideographs": lambda seed, size: _ideographs(seed, size, 400),
    "100 ideographs": lambda seed, size: _ideographs(seed, size, 100),
    "200 symbols": _symbols,
}
#: The guarded kernels as ``long_text_work`` names them.
GUARDED_KERNELS = ("sequence_matcher", "indel", "rouge_l")


def worst_guarded(size: int) -> None:
    """Each guarded kernel's costliest input at ``size`` bytes a side (or one side 100 KB)."""
    load_unicode_tables()
    print("\nGuarded kernels on their worst inputs (default max_work)\n")
    print("| kernel | input | sizes (MB) | CPU s | work counted | ns a unit | result |")
    print("|---|---|---|---:|---:|---:|---|")
    short = 100_000
    for kernel in GUARDED_KERNELS:
        rows = []
        for name, text in WORST_PAIRS.items():
            for sizes in ((size, size), (short, size), (size, short)):
                a, b = text(1, sizes[0]), text(2, sizes[1])
                start = time.process_time()
                score, work = long_text_work(kernel, a, b, 2_500_000_000)
                cost = time.process_time() - start
                rows.append((cost, name, sizes, work, score))
        cost, name, sizes, work, score = max(rows, key=lambda row: row[0])
        shown = "null" if score is None else f"{score:.4g}"
        print(
            f"| `{kernel}` | {name} | {sizes[0] / 1e6:g} / {sizes[1] / 1e6:g} | {cost:.2f} | "
            f"{work:,} | {cost * 1e9 / max(work, 1):.2f} | {shown} |",
            flush=True,
        )


def cases(kernel: Kernel) -> list[tuple[str, Generator]]:
    return [
        (role, generator)
        for role in kernel.roles
        for generator in GENERATORS
        if role == "response" or generator.layout == "line"
    ]


def worst(kernel: Kernel, screen: int, size: int, top: int) -> tuple[float, str, str, object]:
    screened = []
    for role, generator in cases(kernel):
        data = adversarial.frame(kernel, generator, role, max(1024, int(screen * kernel.scale)))
        cost, _ = adversarial.cpu_seconds(kernel, data, repeat=1)
        screened.append((cost, role, generator))
    screened.sort(key=lambda case: -case[0])
    best: tuple[float, str, str, object] = (0.0, "", "", None)
    for _, role, generator in screened[:top]:
        data = adversarial.frame(kernel, generator, role, max(1024, int(size * kernel.scale)))
        cost, result = adversarial.cpu_seconds(kernel, data, repeat=2)
        if cost >= best[0]:
            best = (cost, generator.name, role, result)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=float, default=4e6)
    parser.add_argument("--screen", type=float, default=2.5e5)
    parser.add_argument("--top", type=int, default=2)
    parser.add_argument("--only", default="", help="kernels whose name starts with one of these")
    parser.add_argument("--unlike", action="store_true")
    parser.add_argument("--worst", action="store_true")
    parser.add_argument("--skip-generators", action="store_true", help="only --unlike/--worst")
    args = parser.parse_args()
    size, screen = int(args.size), int(args.screen)
    only = [name for name in args.only.split(",") if name]
    kernels = [k for k in adversarial.kernels() if not only or k.name.startswith(tuple(only))]

    start = time.process_time()
    if not args.skip_generators:
        print(f"Worst adversarial row per kernel at {size / 1e6:g} MB (CPU seconds, best of 2)\n")
        print("| kernel | generator | long side | size | CPU s | result | goal |")
        print("|---|---|---|---:|---:|---|---|")
    for kernel in [] if args.skip_generators else kernels:
        cost, generator, role, result = worst(kernel, screen, size, args.top)
        # a kernel documented O(n*m) (guarded by max_work) is held to the O(n*m) goal on any side
        goal = GUARDED_GOAL if kernel.guarded else GOAL
        scaled = int(size * kernel.scale)
        verdict = "ok" if cost <= goal * kernel.scale else f"OVER {goal * kernel.scale:g} s"
        shown = "null" if result is None else str(result)[:12]
        print(
            f"| `{kernel.name}` | {generator} | {role} | {scaled / 1e6:.2g} MB | {cost:.3f} | "
            f"{shown} | {verdict} |",
            flush=True,
        )
    if args.unlike:
        print("\nGuarded kernels on two unlike texts (the work far over max_work)\n")
        print("| kernel | size | CPU s | result |")
        print("|---|---:|---:|---|")
        data = adversarial.unlike_pair(size)
        for kernel in kernels:
            if kernel.guarded:
                cost, result = adversarial.cpu_seconds(kernel, data, repeat=1)
                shown = "null" if result is None else str(result)[:12]
                print(f"| `{kernel.name}` | {size / 1e6:g} MB | {cost:.2f} | {shown} |", flush=True)
    if args.worst:
        worst_guarded(size)
    print(f"\n(total {time.process_time() - start:.0f} s of CPU)")


if __name__ == "__main__":
    main()
