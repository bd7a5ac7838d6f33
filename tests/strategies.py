"""Hypothesis strategies for random Unicode text that hits the Python-vs-Rust traps."""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

# Characters where Python and Rust/Polars disagree, or that normalisation treats specially:
# Python-only whitespace, blank-looking non-whitespace, combining marks, numbers that are \w only
# in Python, case-mapping traps, NFKC traps, punctuation.
TRAP_CHARS = (
    "\x1c\x1d\x1e\x1f\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u200b\u200c\u200d\u2060\ufeff\u180e"
    "\u0301\u0307\u094d\u093e\u064e\ufe0f\u20dd"
    "²①½¹Ⅻ〇٣５३𝟓"
    "İΣσςẞßKΩÅǅﬁ…‼™"
    "_＿‿Ⓐ.,'-!?\"()[]:/%$«»—😀👨‍👩‍👧"
    "aAbBzZ0123456789"
)


def _assigned_in_python(c: str) -> bool:
    # Python's tables are Unicode 14.0 (3.11), Rust's are newer: only draw characters that
    # both assign, as the parity files do (Python's Unicode tables are older than Rust's).
    return unicodedata.category(c) not in ("Cn", "Cs")


unicode_chars = st.characters(codec="utf-8").filter(_assigned_in_python)
trap_chars = st.sampled_from(TRAP_CHARS)
any_char = st.one_of(trap_chars, trap_chars, unicode_chars)
words = st.sampled_from(["paris", "Paris", "PARIS", "the", "a", "42", "3.5", "café", "cafe"])

text = st.lists(st.one_of(any_char, words), max_size=12).map("".join)
optional_text = st.one_of(st.none(), text)
