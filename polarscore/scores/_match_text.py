r"""Text normalisation for :func:`polarscore.answer_match`, in the native kernel.

The recipe goes beyond SQuAD's (lower-case, drop punctuation and articles) in ways that only ever
merge spellings of the *same* answer:

1. Unicode compatibility decomposition (NFKD) and removal of combining marks: ``"Malmö"`` and
   ``"Malmo"``, ``"ﬁle"`` and ``"file"``, ``"１２"`` and ``"12"`` compare equal.
2. Lower-case (full Unicode mapping).
3. Possessive ``'s`` dropped (``"Drew's"`` → ``"drew"``); an apostrophe or a dot right after a
   letter deleted (``"U.S.A."`` → ``"usa"``, ``"Li'l"`` → ``"lil"``); thousands separators
   removed (``"1,000,000"`` → ``"1000000"``); a decimal point kept inside its number
   (``"5.97"`` is one word, spelled ``5_97``).
4. A letter glued to a following digit is split off (``"Guyana1"`` → ``"guyana 1"``): chat
   answers glue citation markers to words.
5. Every other character that is not a letter, a number or ``_`` becomes a word break.
6. Ordinal suffixes dropped (``"21st"`` → ``"21"``); number words and ordinal words up to twenty,
   and the tens, become digits (``"seventh"`` → ``"7"``, ``"forty"`` → ``"40"``).
7. Articles (``a``, ``an``, ``the``) dropped wherever they are.

The result is padded with one space on each side (``" the words "`` without the article), so that
"contains on word boundaries" is a plain substring test of padded strings.

The recipe runs in the Rust kernel (``src/answer_match.rs``), one linear pass per step, with
Python's own character classes (``re``'s ``\w`` and ``\d``, letters as ``[^\W\d_]``,
``str.lower()``). Step 1 reads a table built here from the interpreter's ``unicodedata``
(:func:`fold_table`), so accents fold exactly as ``unicodedata.normalize("NFKD", text)`` with the
marks dropped does on the running Python.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import polars as pl

from polarscore import _internal
from polarscore.kernels._plugin import plugin_call

_CARDINALS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_TENS = {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
}
_ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]

#: Number and ordinal words and the digits they become.
NUMBER_WORDS: dict[str, str] = {
    **{word: str(value) for value, word in enumerate(_CARDINALS)},
    **_TENS,
    **{word: str(value) for value, word in enumerate(_ORDINALS, start=1)},
}

#: Articles, dropped wherever they occur.
ARTICLES: tuple[str, ...] = ("a", "an", "the")


def fold_table() -> tuple[list[int], list[str]]:
    """Return accent folding as the running Python does it, for every code point it changes.

    The folding of a character is its NFKD with the combining marks (category ``M*``) dropped.
    Folding a text character by character equals folding it whole because NFKD only reorders
    characters of nonzero combining class, and every such character is a mark; this is checked
    here over every code point, so an interpreter where it fails raises instead of folding
    differently.

    Examples
    --------
    >>> from polarscore.scores._match_text import fold_table
    >>> code_points, folded = fold_table()
    >>> folded[code_points.index(ord("ö"))], folded[code_points.index(0x0301)]
    ('o', '')
    """
    category, combining = unicodedata.category, unicodedata.combining
    code_points: list[int] = []
    folded: list[str] = []
    for cp in range(0x110000):
        char = chr(cp)
        is_mark = category(char)[0] == "M"
        if combining(char) and not is_mark:  # pragma: no cover (no such character up to 16.0)
            msg = f"U+{cp:04X} has a nonzero combining class but is not a mark"
            raise RuntimeError(msg)
        if not is_mark and (0xD800 <= cp < 0xE000 or unicodedata.is_normalized("NFKD", char)):
            continue
        decomposed = unicodedata.normalize("NFKD", char)
        code_points.append(cp)
        folded.append("".join(c for c in decomposed if category(c)[0] != "M"))
    return code_points, folded


@cache
def load_fold_table() -> None:
    """Hand the interpreter's accent folding to the native kernel, once per process."""
    _internal.set_match_fold_table(*fold_table())


def match_normalize(expr: pl.Expr, *, fold_accents: bool, number_words: bool) -> pl.Expr:
    """Normalise text for answer matching; the result is padded with one space on each side.

    Parameters
    ----------
    expr
        A ``String`` expression.
    fold_accents
        Apply NFKD and delete combining marks (step 1 of the module recipe).
    number_words
        Turn number and ordinal words into digits and drop ordinal suffixes (step 6).

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.scores._match_text import match_normalize
    >>> df = pl.DataFrame({"t": ["The U.S.A.'s 1,000 ships", "Malmö, Sweden1.", "the Seventh"]})
    >>> df.select(match_normalize(pl.col("t"), fold_accents=True, number_words=True))
    shape: (3, 1)
    ┌──────────────────┐
    │ t                │
    │ ---              │
    │ str              │
    ╞══════════════════╡
    │  usa 1000 ships  │
    │  malmo sweden 1  │
    │  7               │
    └──────────────────┘
    """
    load_fold_table()
    return plugin_call(
        "match_normalize", expr, fold_accents=fold_accents, number_words=number_words
    )


__all__ = ["ARTICLES", "NUMBER_WORDS", "fold_table", "load_fold_table", "match_normalize"]
