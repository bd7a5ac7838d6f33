r"""The thin Python side of the native kernels: plugin registration and the Unicode tables.

Every per-row text kernel of polarscore lives in the compiled extension ``polarscore._internal``
(a Rust crate built by maturin) and runs as a Polars expression plugin: inside Polars' engine, in
parallel, with no Python between batches. :func:`plugin_call` builds such an expression.

The kernels must read text exactly as the Python of the reference libraries does (``str.lower``,
``str.isspace``, ``re``'s ``\w`` and ``\d``), and the running interpreter's Unicode version may
differ from Rust's. So before the first kernel runs, :func:`load_unicode_tables` reads the
interpreter's own ``unicodedata`` once and hands the extension one flag pair per code point.
Reading them takes about 0.2 s, so they are cached per interpreter and Unicode version
(:mod:`polarscore.kernels._cache`): a later process reads a 2 MiB file instead.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from polars.plugins import register_plugin_function

from polarscore import _internal
from polarscore.kernels._cache import cached_table

if TYPE_CHECKING:
    import numpy as np

_LIBRARY = Path(_internal.__file__).parent

# Flag bits, as in ``src/pyunicode.rs``.
WORD = 1
UNASSIGNED = 1 << 1
CASED = 1 << 2
CASE_IGNORABLE = 1 << 3
DIGIT = 1 << 4
SPACE = 1 << 5
UNPRINTABLE = 1 << 6
CHANGES_WHEN_LOWERED = 1 << 7

# Word_Break MidLetter, MidNumLet and Single_Quote: with Mn, Me, Cf, Lm and Sk, they make up
# Unicode's Case_Ignorable, which CPython's final-sigma rule of ``str.lower`` consults.
_WORD_BREAK_MID = (
    "'.:\xb7\u0387\u055f\u05f4\u2018\u2019\u2024\u2027\ufe13\ufe52\ufe55\uff07\uff0e\uff1a"
)
_CASE_IGNORABLE_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Lm", "Sk"})


def unicode_flags() -> np.ndarray[Any, np.dtype[np.uint16]]:
    r"""Return the running interpreter's character flags, one ``uint16`` per code point.

    Bits: ``\w`` (WORD), category Cn (UNASSIGNED), cased (CASED), case-ignorable
    (CASE_IGNORABLE), ``\d`` (DIGIT, decimal value in bits 8-11), ``str.isspace`` (SPACE) and not
    ``str.isprintable`` (UNPRINTABLE), and ``c.lower() != c`` (CHANGES_WHEN_LOWERED).

    Examples
    --------
    >>> from polarscore.kernels._plugin import WORD, unicode_flags
    >>> flags = unicode_flags()
    >>> bool(flags[ord("²")] & WORD), bool(flags[0x0301] & WORD)
    (True, False)
    """
    import numpy as np  # only here: a process that reads the cached tables never needs it

    n = 0x110000
    everything = np.arange(n, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    categories = np.frombuffer(
        "".join(map(unicodedata.category, everything)).encode("ascii"), dtype="S2"
    )
    flags = np.zeros(n, dtype=np.uint16)
    # Unassigned (Cn), private-use (Co) and surrogate (Cs) code points are inert in Python: not
    # printable, no case, not a word character, digit or space. Only the rest (about 150,000 in
    # Unicode 14, against 1.1 million code points) need a question to the interpreter each.
    inert = np.isin(categories, [b"Cn", b"Co", b"Cs"])
    flags[inert] |= UNPRINTABLE
    flags[categories == b"Cn"] |= UNASSIGNED
    assigned = np.flatnonzero(~inert)
    text = assigned.astype("<u4").tobytes().decode("utf-32-le")
    chars = list(text)

    def where(values: Any) -> np.ndarray[Any, np.dtype[np.intp]]:
        selected: np.ndarray[Any, np.dtype[np.intp]] = assigned[
            np.frombuffer(bytes(values), dtype=bool)
        ]
        return selected

    def where_kept(pattern: str) -> np.ndarray[Any, np.dtype[np.intp]]:
        # The code points of `text` that `pattern` (a negated class) leaves in place.
        kept = re.sub(pattern, "\0", text).encode("utf-32-le")
        selected: np.ndarray[Any, np.dtype[np.intp]] = assigned[
            np.frombuffer(kept, dtype="<u4") != 0
        ]
        return selected

    flags[where_kept(r"\W")] |= WORD
    ignorable = np.isin(categories, [b"Mn", b"Me", b"Cf", b"Lm", b"Sk"])
    ignorable[[ord(c) for c in _WORD_BREAK_MID]] = True
    flags[ignorable] |= CASE_IGNORABLE
    flags[where(map(str.islower, chars))] |= CASED
    flags[where(map(str.isupper, chars))] |= CASED
    flags[where(map(str.istitle, chars))] |= CASED
    flags[where(map(str.isspace, chars))] |= SPACE
    flags[where(map(operator.not_, map(str.isprintable, chars)))] |= UNPRINTABLE
    # Each character lower-cased on its own: joined by an unassigned code point (neither cased
    # nor case-ignorable, and unchanged by lower-casing), so the final-sigma rule sees no cased
    # neighbour, as with `c.lower()`.
    separator = chr(int(np.flatnonzero(categories == b"Cn")[0]))
    lowered = separator.join(chars).lower().split(separator)
    flags[where(map(operator.ne, lowered, chars))] |= CHANGES_WHEN_LOWERED
    for cp in where_kept(r"\D").tolist():
        flags[cp] |= DIGIT | (unicodedata.decimal(chr(cp)) << 8)
    return flags


def _flag_bytes() -> bytes:
    return bytes(unicode_flags().astype("<u2").tobytes())


@cache
def load_unicode_tables() -> str:
    """Hand the interpreter's Unicode tables to the native kernels, once per process.

    The tables come from polarscore's cache when it holds them for this interpreter, else from
    :func:`unicode_flags` (then cached). Returns the ``unicodedata`` version the kernels follow.
    """
    version = unicodedata.unidata_version
    flags = cached_table("unicode-flags", _flag_bytes, builders=[unicode_flags])
    _internal.set_unicode_tables(flags, version)
    return version


def plugin_call(function: str, *args: pl.Expr, **kwargs: Any) -> pl.Expr:
    """Call the native kernel ``function`` on ``args``, elementwise; ``kwargs`` are its options."""
    load_unicode_tables()
    return register_plugin_function(
        plugin_path=_LIBRARY,
        function_name=function,
        args=list(args),
        kwargs=kwargs or None,
        is_elementwise=True,
    )


__all__ = ["load_unicode_tables", "plugin_call", "unicode_flags"]
