"""The first bytes answer_precision's number scan passes over begin no decimal digit.

`src/precision/numbers.rs` skips the characters whose UTF-8 first byte is below 0xD9 or in
0xE2..0xE9 or 0xEB..0xEE without reading them (`may_lead_digit`); the Rust tests run on tables
that know only a few digit blocks, so the interpreter's own `\\d` is checked here.
"""

import re

import polars as pl

import polarscore as ps

PASSED_OVER = set(range(0x80, 0xD9)) | set(range(0xE2, 0xEA)) | set(range(0xEB, 0xEF))


def test_no_decimal_digit_begins_with_a_byte_passed_over() -> None:
    digit = re.compile(r"\d")
    leads = {
        chr(cp).encode()[0]
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp < 0xE000 and digit.match(chr(cp))
    }
    assert leads, "no digit found: the check would pass for nothing"
    assert not leads & PASSED_OVER, sorted(hex(b) for b in leads & PASSED_OVER)


def test_digits_beside_the_skipped_characters_are_read() -> None:
    # CJK, symbols and Hangul (first bytes passed over) right beside digits of several
    # scripts, whose first bytes are read: every expected number is found.
    noisy = "中① 12 ✓٣٤ 한５ 𝟕 ०9"
    df = pl.DataFrame({"response": [noisy], "reference": ["12 34 5 7 9"]})
    out = df.select(ps.answer_precision_components("response", "reference").alias("c"))
    assert out["c"].struct.field("numeric").to_list() == [1.0]
