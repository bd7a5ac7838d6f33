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

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import parse_text_expr
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


__all__ = [
    "PY_WHITESPACE",
    "PY_WORD_CLASS",
    "PY_WS_CLASS",
    "datarobot_normalize",
    "py_collapse_whitespace",
    "py_is_blank",
    "py_lower",
    "py_strip",
    "repair_mojibake",
]
