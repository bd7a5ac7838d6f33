r"""Python's own Unicode tables, read from the running interpreter's ``unicodedata``.

Polars runs on Rust, whose Unicode tables are newer than the ones of the Python that the reference
libraries run on (Python 3.11: Unicode 14.0, SPEC A5). Normalisation (NFKC) and case mapping of
*assigned* characters are stable across Unicode versions, so Polars and Python agree on every
character that the interpreter knows; they can only disagree on characters that the interpreter
considers unassigned. These tables let the scorers route the rare rows holding such characters to
Python itself, and spell out Python's ``\\d`` (Unicode ``Nd``) explicitly for the Rust regex engine.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache


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
    (0, 32)
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
    >>> nfkc_lower(["ＡＢＣ①", "\\U000e0080x"])
    ['abc1', '\\U000e0080x']
    """
    normalize = unicodedata.normalize
    return [normalize("NFKC", t).lower() for t in texts]


__all__ = [
    "nfkc_lower",
    "python_digit_map",
    "python_digit_ranges",
    "python_repr_escapes",
    "python_unassigned_ranges",
    "python_unprintable_ranges",
]
