"""A realistic synthetic eval log for benchmarks (fixed seed).

Rows mix what real LLM eval logs hold:

* 45% short answers (1-5 words), against a reference that is the same answer, a case or
  punctuation variant, the answer inside a longer phrase, or a different answer;
* 35% one to three sentences with numbers, decimals, percentages and dates;
* 15% markdown answers of 500-3,000 characters with headings, bullet lists, links and URLs;
* 5% edge cells: empty, whitespace-only or null responses and references.

About a third of the rows carry non-ASCII text (accents, Cyrillic, Greek, CJK, Arabic, emoji).
``references`` holds one to three aliases (the first equals ``reference``), ``match_mode`` a mode
per row and ``model`` one of five system names.

Usage: ``python benchmarks/synthetic.py N_ROWS OUT.parquet``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

ASCII_WORDS = [
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
    "approximately",
    "million",
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
    "company",
    "album",
    "song",
    "film",
    "novel",
    "author",
    "physics",
    "chemistry",
    "energy",
    "mass",
    "speed",
    "light",
    "water",
    "carbon",
    "oxygen",
    "first",
    "second",
    "third",
    "largest",
    "smallest",
]
UNICODE_WORDS = [
    "café",
    "naïve",
    "São",
    "Paulo",
    "München",
    "Zürich",
    "Ελλάδα",
    "Αθήνα",
    "Москва",
    "Россия",
    "東京",
    "日本",
    "北京",
    "中国",
    "القاهرة",
    "مصر",
    "İstanbul",
    "straße",
    "Ærø",
    "Łódź",
    "résumé",
    "Dvořák",
    "😀",
    "✓",
    "½",
    "²",
    "①",
    "ﬁle",
    "Ⅻ",
]
MODES = ["exact", "normalized", "contains", None, "EXACT", "Contains"]
MODELS = ["gpt-4", "chatgpt", "gpt-3.5", "fid", "bing"]


def _words(rng: np.random.Generator, n: int, *, non_ascii: bool) -> list[str]:
    pool = UNICODE_WORDS if non_ascii else ASCII_WORDS
    picks = rng.integers(0, len(pool), n)
    out = [pool[i] for i in picks]
    if non_ascii:  # mostly ASCII words around a few non-ASCII ones
        mix = rng.integers(0, len(ASCII_WORDS), n)
        out = [
            w if j % 3 == 0 else ASCII_WORDS[m]
            for j, (w, m) in enumerate(zip(out, mix, strict=True))
        ]
    return out


def _number(rng: np.random.Generator) -> str:
    kind = rng.integers(0, 5)
    if kind == 0:
        return str(int(rng.integers(0, 10_000)))
    if kind == 1:
        return f"{rng.uniform(0, 1000):.2f}"
    if kind == 2:
        return f"{int(rng.integers(1, 100))}%"
    if kind == 3:
        year, month, day = rng.integers(1900, 2030), rng.integers(1, 13), rng.integers(1, 29)
        return f"{year}-{month:02d}-{day:02d}"
    return f"{int(rng.integers(1, 13))}/{int(rng.integers(1, 29))}/{int(rng.integers(1950, 2030))}"


def _short(rng: np.random.Generator, *, non_ascii: bool) -> tuple[str, str]:
    answer = " ".join(_words(rng, int(rng.integers(1, 6)), non_ascii=non_ascii))
    variant = rng.integers(0, 5)
    if variant == 0:
        return answer, answer
    if variant == 1:
        return answer.upper() + ".", answer
    if variant == 2:
        return f"The answer is {answer}.", answer
    if variant == 3:
        return answer.capitalize() + "!", answer.title()
    return " ".join(_words(rng, int(rng.integers(1, 6)), non_ascii=non_ascii)), answer


def _sentences(rng: np.random.Generator, *, non_ascii: bool) -> tuple[str, str]:
    numbers = [_number(rng) for _ in range(int(rng.integers(1, 4)))]
    parts = []
    for number in numbers:
        words = _words(rng, int(rng.integers(4, 14)), non_ascii=non_ascii)
        words.insert(int(rng.integers(0, len(words))), number)
        parts.append(" ".join(words).capitalize() + ".")
    reference = numbers[0] if rng.random() < 0.7 else " ".join(_words(rng, 3, non_ascii=non_ascii))
    return " ".join(parts), reference


def _markdown(rng: np.random.Generator, *, non_ascii: bool) -> tuple[str, str]:
    target = int(rng.integers(500, 3001))
    chunks: list[str] = [f"## {' '.join(_words(rng, 3, non_ascii=non_ascii)).title()}\n"]
    length = len(chunks[0])
    while length < target:
        kind = rng.integers(0, 4)
        if kind == 0:
            line = (
                "- " + " ".join(_words(rng, int(rng.integers(3, 10)), non_ascii=non_ascii)) + "\n"
            )
        elif kind == 1:
            label = " ".join(_words(rng, 2, non_ascii=False))
            line = f"See [{label}](https://example.org/{label.replace(' ', '/')}) for details. "
        elif kind == 2:
            line = f"Source: https://en.wikipedia.org/wiki/Page_{int(rng.integers(0, 10**6))}\n"
        else:
            line = (
                " ".join(_words(rng, int(rng.integers(8, 25)), non_ascii=non_ascii))
                + f" ({_number(rng)}). "
            )
        chunks.append(line)
        length += len(line)
    text = "".join(chunks)[:target]
    reference = " ".join(_words(rng, int(rng.integers(1, 4)), non_ascii=non_ascii))
    return text, reference


def _edge(rng: np.random.Generator) -> tuple[str | None, str | None]:
    cells: list[str | None] = [None, "", "   ", "\t\n", "\x1c", "Paris"]
    return cells[int(rng.integers(0, len(cells)))], cells[int(rng.integers(0, len(cells)))]


def make_eval_log(n_rows: int, *, seed: int = 0) -> pl.DataFrame:
    """Return ``n_rows`` synthetic eval-log rows, identical for the same ``seed``."""
    rng = np.random.default_rng(seed)
    kinds = rng.choice(4, size=n_rows, p=[0.45, 0.35, 0.15, 0.05])
    non_ascii = rng.random(n_rows) < 1 / 3
    responses: list[str | None] = []
    references: list[str | None] = []
    for kind, unicode in zip(kinds.tolist(), non_ascii.tolist(), strict=True):
        if kind == 0:
            response, reference = _short(rng, non_ascii=unicode)
        elif kind == 1:
            response, reference = _sentences(rng, non_ascii=unicode)
        elif kind == 2:
            response, reference = _markdown(rng, non_ascii=unicode)
        else:
            response, reference = _edge(rng)
        responses.append(response)
        references.append(reference)
    n_aliases = rng.integers(1, 4, n_rows)
    alias_words = rng.integers(0, len(ASCII_WORDS), (n_rows, 2))
    aliases = [
        None if ref is None else [ref, *(ASCII_WORDS[w] for w in alias_words[i, : k - 1])]
        for i, (ref, k) in enumerate(zip(references, n_aliases.tolist(), strict=True))
    ]
    modes = rng.integers(0, len(MODES), n_rows)
    models = rng.integers(0, len(MODELS), n_rows)
    return pl.DataFrame(
        {
            "response": responses,
            "reference": references,
            "references": aliases,
            "match_mode": [MODES[m] for m in modes.tolist()],
            "model": [MODELS[m] for m in models.tolist()],
        },
        schema={
            "response": pl.String,
            "reference": pl.String,
            "references": pl.List(pl.String),
            "match_mode": pl.String,
            "model": pl.String,
        },
    )


def cached_eval_log(n_rows: int, *, seed: int = 0) -> pl.DataFrame:
    """Return the log cached on this machine if it was generated before, else make and cache it.

    The cache lives in ``$POLARSCORE_BENCH_CACHE`` (default: ``<tmp>/polarscore-bench``), shared by
    every checkout on the machine: generating 1M rows takes a few minutes.
    """
    default = Path(tempfile.gettempdir()) / "polarscore-bench"
    cache = Path(os.environ.get("POLARSCORE_BENCH_CACHE", default))
    path = cache / f"synthetic_{n_rows}_{seed}.parquet"
    if path.exists():
        return pl.read_parquet(path)
    frame = make_eval_log(n_rows, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
    return frame


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/synthetic.py N_ROWS OUT.parquet")
    make_eval_log(int(sys.argv[1])).write_parquet(sys.argv[2])
