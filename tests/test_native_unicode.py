"""The native kernels read text as the running Python does, checked over every code point."""

from __future__ import annotations

import re
import sys
import unicodedata

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polarscore.kernels import _plugin
from polarscore.kernels._plugin import load_unicode_tables, unicode_flags
from polarscore.normalize import datarobot_normalize, py_lower

ALL_CHARS = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]


def datarobot_oracle(text: str) -> str:
    text = re.sub(r"[^\w\s]", "", text.lower().strip())
    return re.sub(r"\s+", " ", text).strip()


def _mismatches(expr: pl.Expr, oracle: list[str], inputs: list[str]) -> list[tuple[str, str, str]]:
    got = pl.DataFrame({"text": inputs}).select(expr).to_series().to_list()
    return [(c, g, o) for c, g, o in zip(inputs, got, oracle, strict=True) if g != o][:10]


def test_tables_follow_the_running_interpreter() -> None:
    assert load_unicode_tables() == unicodedata.unidata_version


def _flags_of(c: str) -> int:
    """The flags of one character, asked of the interpreter one property at a time."""
    flags = 0
    category = unicodedata.category(c)
    if re.fullmatch(r"\w", c):
        flags |= _plugin.WORD
    if category == "Cn":
        flags |= _plugin.UNASSIGNED
    if c.islower() or c.isupper() or c.istitle():
        flags |= _plugin.CASED
    if category in ("Mn", "Me", "Cf", "Lm", "Sk") or c in _plugin._WORD_BREAK_MID:
        flags |= _plugin.CASE_IGNORABLE
    if re.fullmatch(r"\d", c):
        flags |= _plugin.DIGIT | unicodedata.decimal(c) << 8
    if c.isspace():
        flags |= _plugin.SPACE
    if not c.isprintable():
        flags |= _plugin.UNPRINTABLE
    if c.lower() != c:
        flags |= _plugin.CHANGES_WHEN_LOWERED
    return flags


def test_flags_equal_the_interpreter_on_every_code_point() -> None:
    # unicode_flags asks only about assigned, non-private characters; this asks about all.
    flags = unicode_flags().tolist()
    wrong = [
        (hex(cp), flags[cp], expected)
        for cp in range(sys.maxunicode + 1)
        if flags[cp] != (expected := _flags_of(chr(cp)))
    ]
    assert wrong[:10] == []


def test_lower_equals_python_on_every_code_point() -> None:
    oracle = [c.lower() for c in ALL_CHARS]
    assert _mismatches(py_lower(pl.col("text")), oracle, ALL_CHARS) == []


def test_datarobot_normalize_equals_python_on_every_code_point() -> None:
    # Each character alone, and between two letters (so that whitespace and deletion show).
    singles = ALL_CHARS
    framed = [f"a{c}b" for c in ALL_CHARS]
    for inputs in (singles, framed):
        oracle = [datarobot_oracle(t) for t in inputs]
        assert _mismatches(datarobot_normalize(pl.col("text")), oracle, inputs) == []


# Greek capitals, sigma's neighbours in the final-sigma rule (cased, case-ignorable, neither).
_TRAPS = "ΣΟΔσς'.:\u0301\u00ad\u02b0\u2019İẞ\x1c\u3000 a\u200b\U000e0001\u0378"
# Unassigned code points (U+0378) included: the kernels must treat them as Python does.
_TEXT = st.text(
    alphabet=st.sampled_from(_TRAPS) | st.characters(exclude_categories=("Cs",)), max_size=40
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_lower_in_context_equals_python(text: str) -> None:
    got = pl.select(py_lower(pl.lit(text, dtype=pl.String))).item()
    assert got == text.lower()


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_datarobot_normalize_in_context_equals_python(text: str) -> None:
    got = pl.select(datarobot_normalize(pl.lit(text, dtype=pl.String))).item()
    assert got == datarobot_oracle(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("ΟΔΟΣ", "οδος"), ("ΟΔΟΣΑ", "οδοσα"), ("Σ", "σ"), ("İ", "i\u0307"), ("ẞ", "ß")],
)
def test_lower_traps(text: str, expected: str) -> None:
    assert pl.select(py_lower(pl.lit(text))).item() == expected
