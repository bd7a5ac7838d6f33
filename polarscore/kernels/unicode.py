r"""Python's own Unicode tables, read from the running interpreter's ``unicodedata``.

Polars runs on Rust, whose Unicode tables are newer than the ones of the Python that the reference
libraries run on (Python 3.11: Unicode 14.0). Normalisation (NFKC) and case mapping of
*assigned* characters are stable across Unicode versions, so Polars and Python agree on every
character that the interpreter knows; they can only disagree on characters that the interpreter
considers unassigned. These tables let the scorers route the rare rows holding such characters to
Python itself, and spell out Python's ``\\d`` (Unicode ``Nd``) explicitly for the Rust regex engine.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache

import numpy as np
from numpy.typing import NDArray


def _ranges(code_points: Sequence[int]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for cp in code_points:
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return tuple(out)


@cache
def _categories() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(unassigned, decimal digits, not printable) code points of the running Python, once."""
    category = unicodedata.category
    unassigned: list[int] = []
    digits: list[int] = []
    hidden: list[int] = []
    for cp in range(0x110000):
        char = chr(cp)
        cat = category(char)
        if cat == "Cn":
            unassigned.append(cp)
        elif cat == "Nd":
            digits.append(cp)
        if not char.isprintable():
            hidden.append(cp)
    return tuple(unassigned), tuple(digits), tuple(hidden)


@cache
def python_unassigned_ranges() -> tuple[tuple[int, int], ...]:
    """Return the inclusive code point ranges that Python's ``unicodedata`` calls unassigned (Cn).

    Examples
    --------
    >>> from polarscore.kernels import python_unassigned_ranges
    >>> (0x0378, 0x0379) in python_unassigned_ranges()
    True
    """
    return _ranges(_categories()[0])


@cache
def python_digit_ranges() -> tuple[tuple[int, int], ...]:
    r"""Return the inclusive code point ranges of Python's ``\\d`` (category Nd).

    Examples
    --------
    >>> from polarscore.kernels import python_digit_ranges
    >>> python_digit_ranges()[0]
    (48, 57)
    """
    return _ranges(_categories()[1])


@cache
def python_unprintable_ranges() -> tuple[tuple[int, int], ...]:
    """Return the code point ranges that ``str.isprintable()`` rejects (``repr`` escapes them).

    Examples
    --------
    >>> from polarscore.kernels import python_unprintable_ranges
    >>> python_unprintable_ranges()[0]
    (0, 31)
    """
    return _ranges(_categories()[2])


def python_repr_escapes(chars: Sequence[str]) -> list[str]:
    r"""Return how ``repr()`` writes each single character inside a string literal.

    Examples
    --------
    >>> from polarscore.kernels import python_repr_escapes
    >>> python_repr_escapes(["\u200d", "\x07", "é"])
    ['\\u200d', '\\x07', 'é']
    """
    return [repr(c)[1:-1] for c in chars]


@cache
def python_digit_map() -> dict[str, str]:
    """Map every non-ASCII decimal digit to its ASCII digit, as Python's ``float()`` reads it.

    Examples
    --------
    >>> from polarscore.kernels import python_digit_map
    >>> python_digit_map()["٣"], python_digit_map()["５"]
    ('3', '5')
    """
    return {chr(cp): str(unicodedata.decimal(chr(cp))) for cp in _categories()[1] if cp > 0x7F}


def nfkc_lower(texts: Sequence[str]) -> list[str]:
    r"""Apply ``unicodedata.normalize("NFKC", t).lower()`` to each text.

    Only for the rare texts holding characters the interpreter considers unassigned; everything
    else is normalised by Polars, which agrees with Python on every assigned character.

    Examples
    --------
    >>> from polarscore.kernels import nfkc_lower
    >>> nfkc_lower(["ＡＢＣ①", "İ"])
    ['abc1', 'i̇']
    """
    normalize = unicodedata.normalize
    return [normalize("NFKC", t).lower() for t in texts]


__all__ = [
    "nfkc_lower",
    "nfkc_sensitive_table",
    "python_digit_map",
    "python_digit_ranges",
    "python_repr_escapes",
    "python_unassigned_ranges",
    "python_unprintable_ranges",
    "rows_with",
    "unassigned_table",
]


@cache
def unassigned_table() -> NDArray[np.bool_]:
    """Return a lookup table over code points: True where Python's ``unicodedata`` says Cn."""
    table = np.zeros(0x110000, dtype=bool)
    table[np.asarray(_categories()[0], dtype=np.int64)] = True
    return table


@cache
def nfkc_sensitive_table() -> NDArray[np.bool_]:
    """Return a lookup table over code points: True where a character can change under NFKC.

    A superset of the characters whose NFKC quick check is not "Yes": those that NFKC maps to
    something else, every combining mark (canonical reordering), every character that is the
    second half of a canonical pair (it may compose with the one before), and the Hangul vowel
    and trailing jamo. A text without any of them is its own NFKC form.
    """
    table = np.zeros(0x110000, dtype=bool)
    normalize, combining, decomposition = (
        unicodedata.normalize,
        unicodedata.combining,
        unicodedata.decomposition,
    )
    for cp in range(0x80, 0x110000):
        char = chr(cp)
        if 0xD800 <= cp < 0xE000:
            continue
        if combining(char) or normalize("NFKC", char) != char:
            table[cp] = True
        mapping = decomposition(char)
        if mapping and not mapping.startswith("<"):
            parts = mapping.split()
            if len(parts) == 2:
                table[int(parts[1], 16)] = True
    table[0x1161:0x1176] = True  # Hangul V jamo compose with a leading L
    table[0x11A8:0x11C3] = True  # Hangul T jamo compose with an LV syllable
    return table


def rows_with(
    data: NDArray[np.uint8], offsets: NDArray[np.int64], table: NDArray[np.bool_]
) -> NDArray[np.bool_]:
    """Return, per UTF-8 string, whether any of its code points is True in ``table``.

    ``data`` and ``offsets`` are an Arrow (large) string array's value bytes and offsets. The
    UTF-8 is decoded with array arithmetic, never a Python loop.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.kernels.unicode import rows_with
    >>> raw = "abcé😀".encode()
    >>> table = np.zeros(0x110000, dtype=bool)
    >>> table[0x1F600] = True
    >>> rows_with(np.frombuffer(raw, np.uint8), np.array([0, 3, len(raw)]), table).tolist()
    [False, True]
    """
    n_rows = len(offsets) - 1
    start, stop = int(offsets[0]), int(offsets[-1])
    raw = data[start:stop]
    # Only multi-byte characters can be in the tables (ASCII never is): decode just those.
    lead = np.flatnonzero(raw >= 0xC0)
    first = raw[lead].astype(np.uint32)
    last = len(raw) - 1

    def cont(k: int) -> NDArray[np.uint32]:
        out = raw[np.minimum(lead + k, last)].astype(np.uint32) & np.uint32(0x3F)
        return out.astype(np.uint32)

    c1 = cont(1)
    two = ((first & 0x1F) << 6) | c1
    three = ((first & 0x0F) << 12) | (c1 << 6) | cont(2)
    cp = np.where(first < 0xE0, two, three)
    four = first >= 0xF0
    if four.any():
        sub = np.flatnonzero(four)
        c2 = raw[np.minimum(lead[sub] + 2, last)].astype(np.uint32) & 0x3F
        c3 = raw[np.minimum(lead[sub] + 3, last)].astype(np.uint32) & 0x3F
        cp[sub] = ((first[sub] & 0x07) << 18) | (c1[sub] << 12) | (c2 << 6) | c3
    hit = table[np.minimum(cp, 0x10FFFF)]
    row = np.searchsorted(offsets[1:] - start, lead[hit], side="right")
    out = np.zeros(n_rows, dtype=bool)
    out[row] = True
    return out
