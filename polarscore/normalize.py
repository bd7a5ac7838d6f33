r"""Text normalisation as pure Polars expressions, with Python's character classes.

The reference libraries are written in Python, polarscore runs on Polars (Rust). The two engines
disagree on what whitespace and word characters are, so every recipe here spells
the Python classes out explicitly instead of relying on Rust's ``\s``, ``\w`` or ``str::trim``:

* **Python whitespace** (``str.isspace``, ``str.strip``, ``str.split``, ``re``'s ``\s``) is Unicode
  White_Space *plus* U+001C..U+001F. :data:`PY_WHITESPACE` holds all 29 code points and
  :data:`PY_WS_CLASS` is the matching regex class body ``\s\x1C-\x1F``.
* **Python word characters** (``re``'s ``\w`` on ``str``) are exactly letters, numbers (all three
  number categories, so ``²`` and ``①`` count) and the ASCII underscore: :data:`PY_WORD_CLASS`.
  Combining marks are *not* word characters in Python, although they are in Rust's ``\w``.

Every function takes and returns a ``pl.Expr`` and is elementwise, so it streams. The recipes
that must follow Python character by character run in the native kernels.
"""

from __future__ import annotations

import struct
import unicodedata
from functools import cache

import polars as pl

from polarscore import _internal
from polarscore._typing import IntoExpr
from polarscore._utils import parse_text_expr
from polarscore.kernels._cache import cached_table
from polarscore.kernels._plugin import plugin_call

#: The 29 code points that Python treats as whitespace (``str.isspace``).
PY_WHITESPACE: str = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)

#: Regex class body (without brackets) of Python whitespace, for the Rust regex engine.
PY_WS_CLASS: str = r"\s\x1C-\x1F"

#: Regex class body (without brackets) of Python's ``\w`` on ``str``.
PY_WORD_CLASS: str = r"\p{L}\p{N}_"

# A run of whitespace that is not already a single ASCII space. Replacing only these (instead of
# every run) keeps the common case, a lone space between words, out of the replacement path.
_WS_TO_COLLAPSE = rf"[{PY_WS_CLASS}]{{2,}}|[{PY_WS_CLASS}--[ ]]"


def py_strip(expr: pl.Expr) -> pl.Expr:
    """Strip Python whitespace from both ends, as ``str.strip()`` does."""
    return expr.str.strip_chars(PY_WHITESPACE)


def py_is_blank(expr: pl.Expr) -> pl.Expr:
    """Return True where the text is empty or only Python whitespace; null stays null."""
    return py_strip(expr).str.len_bytes() == 0


def py_collapse_whitespace(expr: pl.Expr) -> pl.Expr:
    r"""Replace each run of Python whitespace with one ASCII space (``re.sub(r"\s+", " ", s)``)."""
    return expr.str.replace_all(_WS_TO_COLLAPSE, " ")


def datarobot_normalize(expr: pl.Expr) -> pl.Expr:
    r"""Normalise text as DataRobot's answer-correctness benchmark does.

    ``lower()``, delete every character that is neither a Python word character nor Python
    whitespace (punctuation is *deleted*, not replaced by a space: ``"U.S.A."`` becomes ``"usa"``),
    collapse whitespace runs to one space, and strip. There is no Unicode normalisation and no
    case folding (``"straße"`` stays distinct from ``"strasse"``).

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.normalize import datarobot_normalize
    >>> df = pl.DataFrame({"text": ["  Don't  STOP!\x1c", "U.S.A.", "x²_①"]})
    >>> df.select(datarobot_normalize(pl.col("text")))
    shape: (3, 1)
    ┌───────────┐
    │ text      │
    │ ---       │
    │ str       │
    ╞═══════════╡
    │ dont stop │
    │ usa       │
    │ x²_①      │
    └───────────┘
    """
    return plugin_call("datarobot_normalize", expr)


def py_lower(expr: pl.Expr) -> pl.Expr:
    """Lower-case text exactly as Python's ``str.lower()`` of the running interpreter does.

    Full case mappings (``"İ"`` becomes ``"i̇"``, two code points), the final-sigma rule
    (``"ΟΔΟΣ"`` becomes ``"οδος"``), and no case folding (``"ß"`` stays ``"ß"``).

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.normalize import py_lower
    >>> pl.select(py_lower(pl.lit("ΟΔΟΣ Straße"))).item()
    'οδος straße'
    """
    return plugin_call("py_lower", expr)


def repair_mojibake(text: IntoExpr) -> pl.Expr:
    r"""Undo UTF-8 text that was decoded as Latin-1 or cp1252 (``"DÃ¡in"`` becomes ``"Dáin"``).

    The repair is made only where it is unambiguous: every character of the text must be one
    byte in Latin-1 or cp1252, and those bytes must be valid UTF-8. Correct text almost never
    passes both tests (a lone ``"é"`` is an invalid UTF-8 byte, and a character outside the two
    encodings stops it), so it is returned unchanged, as is ASCII text. This is the repair
    :func:`polarscore.answer_match` makes on both sides with ``repair_mojibake=True``; use it
    to clean a log before scoring or reporting.

    Parameters
    ----------
    text
        A column name, a ``String`` expression or a Series.

    Returns
    -------
    pl.Expr
        ``String`` named ``repair_mojibake``; null stays null.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"gold": ["DÃ¡in", "â€œYesâ€\x9d", "Malmö", "café 東"]})
    >>> df.select(ps.repair_mojibake("gold")).to_series().to_list()
    ['Dáin', '“Yes”', 'Malmö', 'café 東']
    """
    expr = parse_text_expr(text, function="repair_mojibake", parameter="text")
    return plugin_call("repair_mojibake", expr).alias("repair_mojibake")


# --- answer_match's normaliser ---------------------------------------------------------------
# The recipe (match_normalize's Notes) runs in the native kernel, src/answer_match.rs.

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
    >>> from polarscore.normalize import fold_table
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


def _fold_table_bytes() -> bytes:
    """:func:`fold_table` as bytes: the count, the code points, the foldings' ends, the text."""
    code_points, folded = fold_table()
    text = "".join(folded).encode()
    ends, end = [], 0
    for f in folded:
        end += len(f.encode())
        ends.append(end)
    n = len(code_points)
    return struct.pack(f"<I{n}I{n}I", n, *code_points, *ends) + text


def _fold_table_from_bytes(payload: bytes) -> tuple[list[int], list[str]]:
    """Return what :func:`_fold_table_bytes` packed (the extension reads the bytes itself)."""
    n = struct.unpack_from("<I", payload)[0]
    numbers = struct.unpack_from(f"<{2 * n}I", payload, 4)
    code_points, ends = list(numbers[:n]), numbers[n:]
    text = payload[4 + 8 * n :]
    starts = (0, *ends[:-1])
    return code_points, [text[a:b].decode() for a, b in zip(starts, ends, strict=True)]


@cache
def load_fold_table() -> None:
    """Hand the interpreter's accent folding to the native kernel, once per process.

    The table is read from polarscore's cache when it holds one for this interpreter (see
    :mod:`polarscore.kernels._cache`), else built by :func:`fold_table` and cached.
    """
    payload = cached_table("match-fold", _fold_table_bytes, builders=[fold_table])
    _internal.set_match_fold_table(payload)  # unpacked natively: 19,000 str cost 10 ms


def match_normalize(expr: pl.Expr, *, fold_accents: bool, number_words: bool) -> pl.Expr:
    r"""Normalise text for answer matching; the result is padded with one space on each side.

    Parameters
    ----------
    expr
        A ``String`` expression.
    fold_accents
        Apply NFKD and delete combining marks (step 1 of the recipe below).
    number_words
        Turn number and ordinal words into digits and drop ordinal suffixes (step 6).

    Notes
    -----
    The recipe goes beyond SQuAD's (lower-case, drop punctuation and articles) in ways that only
    ever merge spellings of the *same* answer:

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
    6. Ordinal suffixes dropped (``"21st"`` → ``"21"``); number words and ordinal words up to
       twenty, and the tens, become digits (``"seventh"`` → ``"7"``, ``"forty"`` → ``"40"``).
    7. Articles (``a``, ``an``, ``the``) dropped wherever they are.

    The result is padded with one space on each side (``" the words "`` without the article), so
    that "contains on word boundaries" is a plain substring test of padded strings.

    The recipe runs in the Rust kernel (``src/answer_match/normalize.rs``), all steps in one
    forward pass, with Python's own character classes (``re``'s ``\w`` and ``\d``, letters as
    ``[^\W\d_]``, ``str.lower()``). Step 1 reads a table built here from the interpreter's
    ``unicodedata`` (:func:`fold_table`), so accents fold exactly as
    ``unicodedata.normalize("NFKD", text)`` with the marks dropped does on the running Python.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.normalize import match_normalize
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


__all__ = [
    "ARTICLES",
    "NUMBER_WORDS",
    "PY_WHITESPACE",
    "PY_WORD_CLASS",
    "PY_WS_CLASS",
    "datarobot_normalize",
    "fold_table",
    "load_fold_table",
    "match_normalize",
    "py_collapse_whitespace",
    "py_is_blank",
    "py_lower",
    "py_strip",
    "repair_mojibake",
]
