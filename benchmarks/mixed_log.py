"""A synthetic eval log that no kernel was tuned to (fixed seed), for the benchmark suite.

It is made differently from :mod:`synthetic`'s log on purpose: its words are pseudo-words drawn
from a Zipf law over a generated vocabulary (not a fixed word list), and its mix is the one of
issue 44:

* 30% short answers under 40 bytes (a name, a number, a date, ``The answer is ...``) against a
  reference of about 40 bytes (the answer inside a longer phrase, or another phrase);
* 40% one to three sentences, with numbers, against a short reference;
* 20% long markdown answers of 800 to 2,400 bytes (headings, lists, bold, code, tables, links);
* 10% empty, whitespace-only, null or Unicode-heavy cells (CJK, Hangul, Arabic, Devanagari,
  emoji, combining accents).

Columns: ``id``, ``model``, ``input`` (a question), ``response``, ``reference``; about 390 bytes
of response a row. :func:`long_form_log` makes the suite's long-form log the same way: markdown
answers of 2 to 8 KB against reference answers of 200 to 1,200 bytes.

Usage: ``python benchmarks/mixed_log.py N_ROWS OUT.parquet [--long-form]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import polars as pl

SEED = 44
VOCABULARY = 6_000
CONSONANTS = [*list("bcdfghjklmnprstvwz"), "ch", "sh", "th", "tr", "st"]
VOWELS = [*list("aeiouy"), "ai", "ou", "ea"]
MODELS = ["alpha-7b", "beta-70b-chat", "gamma-mini", "delta-large"]
#: Code points of scripts other than Latin, and emoji, for the Unicode-heavy cells.
UNICODE_RANGES = [
    (0x4E00, 0x9FFF),  # CJK ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0x0627, 0x064A),  # Arabic letters
    (0x0905, 0x0939),  # Devanagari letters
    (0x0410, 0x044F),  # Cyrillic
    (0x1F600, 0x1F64F),  # emoji faces
]


class _Words:
    """Pseudo-words drawn in bulk from a Zipf law over a generated vocabulary."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        words: set[str] = set()
        while len(words) < VOCABULARY:
            syllables = int(rng.integers(1, 5))
            words.add(
                "".join(
                    CONSONANTS[int(rng.integers(len(CONSONANTS)))]
                    + VOWELS[int(rng.integers(len(VOWELS)))]
                    for _ in range(syllables)
                )
            )
        self.vocabulary = sorted(words)
        rng.shuffle(self.vocabulary)
        weights = 1.0 / np.arange(1, VOCABULARY + 1) ** 1.05
        self.weights = weights / weights.sum()
        self.buffer: list[str] = []
        self.next = 0

    def take(self, n: int) -> list[str]:
        """Return the next ``n`` words."""
        if self.next + n > len(self.buffer):
            picks = self.rng.choice(VOCABULARY, size=max(1 << 16, n), p=self.weights)
            self.buffer = [self.vocabulary[i] for i in picks.tolist()]
            self.next = 0
        self.next += n
        return self.buffer[self.next - n : self.next]

    def phrase(self, n: int) -> str:
        return " ".join(self.take(n))


def _number(rng: np.random.Generator) -> str:
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return str(int(rng.integers(0, 100)))
    if kind == 1:
        return f"{int(rng.integers(1_000, 10_000_000)):,}"
    if kind == 2:
        return f"{rng.uniform(0, 100):.1f}%"
    if kind == 3:
        return f"{int(rng.integers(1600, 2030))}"
    if kind == 4:
        return f"${rng.uniform(1, 5000):.2f}"
    months = ["January", "March", "May", "July", "October", "December"]
    return f"{months[int(rng.integers(6))]} {int(rng.integers(1, 29))}, {rng.integers(1800, 2030)}"


def _cut(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` bytes at a space (or hard, if it has none)."""
    if len(text.encode()) <= most:
        return text
    cut = text.encode()[:most].decode(errors="ignore")
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def _short(rng: np.random.Generator, words: _Words) -> tuple[str, str]:
    answer = _number(rng) if rng.random() < 0.3 else words.phrase(int(rng.integers(1, 4))).title()
    form = int(rng.integers(0, 5))
    response = [answer, f"The answer is {answer}.", answer.lower(), f"{answer}.", ""][form]
    if form == 4:
        response = words.phrase(int(rng.integers(1, 4)))
    context = words.phrase(8)
    reference = f"{answer}, {context}" if rng.random() < 0.5 else f"{context} {answer}"
    return _cut(response, 39), _cut(reference, int(rng.integers(34, 47)))


def _sentence(rng: np.random.Generator, words: _Words) -> str:
    parts = words.take(int(rng.integers(5, 19)))
    if rng.random() < 0.6:
        parts.insert(int(rng.integers(0, len(parts))), _number(rng))
    return " ".join(parts).capitalize() + str(rng.choice([".", ".", ".", "!", "?", ";"]))


def _sentences(rng: np.random.Generator, words: _Words) -> tuple[str, str]:
    response = " ".join(_sentence(rng, words) for _ in range(int(rng.integers(1, 4))))
    reference = _number(rng) if rng.random() < 0.4 else words.phrase(int(rng.integers(1, 6)))
    return response, reference


def _markdown(rng: np.random.Generator, words: _Words, low: int, high: int) -> str:
    target = int(rng.integers(low, high + 1))
    chunks = [f"# {words.phrase(int(rng.integers(2, 6))).title()}\n\n"]
    length = len(chunks[0])
    while length < target:
        kind = int(rng.integers(0, 7))
        if kind == 0:
            chunk = f"\n## {words.phrase(int(rng.integers(1, 5))).title()}\n\n"
        elif kind == 1:
            items = int(rng.integers(2, 6))
            chunk = "".join(
                f"- **{words.phrase(2)}**: {_sentence(rng, words)}\n" for _ in range(items)
            )
        elif kind == 2:
            chunk = "".join(
                f"{i}. {_sentence(rng, words)}\n" for i in range(1, int(rng.integers(2, 5)))
            )
        elif kind == 3:
            name = words.take(1)[0]
            chunk = f"```python\n{name} = {_number(rng)!r}\nprint({name})\n```\n"
        elif kind == 4:
            head = words.take(3)
            cells = f"| {_number(rng)} | {words.phrase(2)} | `{words.take(1)[0]}` |\n"
            chunk = f"| {' | '.join(head)} |\n|---|---|---|\n{cells}"
        elif kind == 5:
            page = words.take(1)[0]
            chunk = f"See [{page}](https://docs.example.com/{page}/{int(rng.integers(1000))}). "
        else:
            chunk = " ".join(_sentence(rng, words) for _ in range(int(rng.integers(2, 6)))) + "\n\n"
        chunks.append(chunk)
        length += len(chunk)
    return "".join(chunks)[:target]


def _unicode_heavy(rng: np.random.Generator) -> str:
    low, high = UNICODE_RANGES[int(rng.integers(len(UNICODE_RANGES)))]
    points = rng.integers(low, high + 1, size=int(rng.integers(4, 80)))
    text = "".join(chr(p) for p in points.tolist())
    if rng.random() < 0.3:  # Latin letters with combining accents
        text += " " + "".join("e\u0301a\u0308o\u0302"[int(i)] for i in rng.integers(0, 6, 20))
    if rng.random() < 0.5:  # words split by spaces
        step = int(rng.integers(2, 6))
        text = " ".join(text[i : i + step] for i in range(0, len(text), step))
    return text


def _edge(rng: np.random.Generator, words: _Words) -> tuple[str | None, str | None]:
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return None, words.phrase(2)
    if kind == 1:
        return "", words.phrase(2)
    if kind == 2:
        return str(rng.choice([" ", "\n\n", "\t ", "\u3000"])), None
    if kind == 3:
        return _unicode_heavy(rng), _unicode_heavy(rng)
    if kind == 4:
        return _unicode_heavy(rng), words.phrase(3)
    return _unicode_heavy(rng) + " " + _sentence(rng, words), _unicode_heavy(rng)


def _frame(
    n_rows: int,
    seed: int,
    make_row: Callable[[np.random.Generator, _Words], tuple[str | None, str | None]],
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    words = _Words(rng)
    pairs = [make_row(rng, words) for _ in range(n_rows)]
    questions = [
        f"{words.phrase(int(k)).capitalize()}?" for k in rng.integers(5, 18, n_rows).tolist()
    ]
    models = rng.integers(0, len(MODELS), n_rows).tolist()
    return pl.DataFrame(
        {
            "id": [f"q{seed}-{i}" for i in range(n_rows)],
            "model": [MODELS[m] for m in models],
            "input": questions,
            "response": [p[0] for p in pairs],
            "reference": [p[1] for p in pairs],
        },
        schema=dict.fromkeys(("id", "model", "input", "response", "reference"), pl.String),
    )


def mixed_log(n_rows: int, *, seed: int = SEED) -> pl.DataFrame:
    """Return ``n_rows`` rows of the mixed log, identical for the same ``seed``."""
    kinds = np.random.default_rng(seed + 1).choice(4, size=n_rows, p=[0.3, 0.4, 0.2, 0.1])
    it = iter(kinds.tolist())

    def row(rng: np.random.Generator, words: _Words) -> tuple[str | None, str | None]:
        kind = next(it)
        if kind == 0:
            return _short(rng, words)
        if kind == 1:
            return _sentences(rng, words)
        if kind == 2:
            return _markdown(rng, words, 800, 2400), words.phrase(int(rng.integers(2, 7)))
        return _edge(rng, words)

    return _frame(n_rows, seed, row)


def long_form_log(n_rows: int, *, seed: int = SEED + 100) -> pl.DataFrame:
    """Return ``n_rows`` long-form rows: markdown answers of 2-8 KB against 200-1,200-byte
    reference answers (as in long-form QA), identical for the same ``seed``."""

    def row(rng: np.random.Generator, words: _Words) -> tuple[str, str]:
        reference = " ".join(_sentence(rng, words) for _ in range(int(rng.integers(2, 10))))
        return _markdown(rng, words, 2_000, 8_000), _cut(reference, 1_200)

    return _frame(n_rows, seed, row)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python benchmarks/mixed_log.py N_ROWS OUT.parquet [--long-form]")
    make = long_form_log if sys.argv[3:] == ["--long-form"] else mixed_log
    make(int(sys.argv[1])).write_parquet(sys.argv[2])
