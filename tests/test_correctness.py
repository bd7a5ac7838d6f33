from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_series_equal

import polarscore as ps
from polarscore.scores.correctness import INCONCLUSIVE_REASON, MATCH_MODES
from tests.engines import Engine
from tests.oracles import correctness as oracle
from tests.strategies import optional_text, text


def _reference_mode(mode: str | None) -> str:
    """How the reference reads a per-row mode (DataRobot's benchmark)."""
    resolved = str(mode or "normalized").lower()
    return resolved if resolved in MATCH_MODES else "normalized"


# --- parity with datarobot-genai, row for row -------------------------------------------------


def test_parity_per_row_mode(parity: pl.DataFrame, engine: Engine) -> None:
    out = engine(
        parity,
        ps.answer_correctness_details("response", "reference", match_mode=pl.col("match_mode")),
    ).unnest("answer_correctness_details")
    assert_series_equal(out["score"], parity["ac_score"], check_names=False)
    assert_series_equal(out["reason"], parity["ac_reason"], check_names=False)


@pytest.mark.parametrize("mode", MATCH_MODES)
def test_parity_literal_mode_per_group(parity: pl.DataFrame, engine: Engine, mode: str) -> None:
    group = parity.filter(
        pl.col("match_mode").map_elements(_reference_mode, return_dtype=pl.String) == mode
    )
    assert group.height > 300
    out = engine(
        group,
        ps.answer_correctness("response", "reference", match_mode=mode),
        ps.answer_correctness_details("response", "reference", match_mode=mode).struct.field(
            "reason"
        ),
    )
    assert_series_equal(out["answer_correctness"], group["ac_score"], check_names=False)
    assert_series_equal(out["reason"], group["ac_reason"], check_names=False)


def test_parity_inconclusive_is_null_never_zero(parity: pl.DataFrame) -> None:
    out = parity.select(ps.answer_correctness("response", "reference", match_mode="contains"))
    inconclusive = parity["ac_reason"] == INCONCLUSIVE_REASON
    assert out["answer_correctness"].is_null().to_list() == inconclusive.to_list()


# --- the reference's documented examples, one line each --------------------------------------


@pytest.mark.parametrize(
    ("response", "reference", "mode", "expected"),
    [
        ("Canberra", "\x1cCanberra\x1e", "exact", 1.0),  # A1: Python whitespace includes \x1c
        ("\x1cParis\x1f", "Paris", "exact", 1.0),
        ("Paris.", "paris", " exact", 1.0),  # B2: unstripped unknown mode means normalized
        ("Paris.", "paris", "EXACT", 0.0),
        ("don't", "dont", "normalized", 1.0),  # B5: punctuation deleted, not replaced
        ("U.S.A.", "usa", "normalized", 1.0),
        ("a - b", "a b", "normalized", 1.0),
        ("cafe\u0301", "cafe", "normalized", 1.0),  # combining mark deleted
        ("café", "cafe", "normalized", 0.0),
        ("İstanbul", "istanbul", "normalized", 1.0),
        ("नमस्ते", "नमसत", "normalized", 1.0),
        ("x²", "x2", "normalized", 0.0),  # ² is \w in Python, kept
        ("E=mc2", "E=mc²", "contains", 0.0),
        ("snake_case", "snake case", "normalized", 0.0),
        ("a＿b", "ab", "normalized", 1.0),
        ("ΟΔΟΣ", "οδος", "normalized", 1.0),
        ("ΟΔΟΣ", "οδοσ", "normalized", 0.0),
        ("straße", "STRASSE", "normalized", 0.0),  # lower, not casefold
        ("ﬁle", "file", "normalized", 0.0),  # no NFKC
        ("👨‍👩‍👧", "", "normalized", None),
        ("Pariss", "Paris", "contains", 1.0),  # B6: no word boundaries
        ("anything", "?", "contains", 1.0),
        ("!!!", "?", "normalized", 1.0),
        ("x", "?", "normalized", 0.0),
        (None, "Paris", "exact", 0.0),  # B3: null response scores as ""
        (None, "?", "normalized", 1.0),
        ("Paris", "\u3000", "normalized", None),  # B1: blank by Python whitespace
        ("Paris", "\x1c", "exact", None),
        ("Paris", "\u200b", "contains", 1.0),  # ZWSP is not whitespace: scored
        ("Paris", "CONTAİNS", "normalized", 0.0),
    ],
)
def test_spec_examples(
    response: str | None, reference: str, mode: str, expected: float | None
) -> None:
    df = pl.DataFrame(
        {"response": [response], "reference": [reference], "mode": [mode]},
        schema={"response": pl.String, "reference": pl.String, "mode": pl.String},
    )
    out = df.select(
        per_row=ps.answer_correctness("response", "reference", match_mode=pl.col("mode")),
    )
    assert out["per_row"].item() == expected
    assert oracle.answer_correctness(response, reference, mode)[0] == expected


@pytest.mark.parametrize(
    ("mode", "resolved"),
    [
        (None, "normalized"),
        ("", "normalized"),
        ("EXACT", "exact"),
        ("cOnTaInS", "contains"),
        (" exact", "normalized"),
        ("exact ", "normalized"),
        ("exact\u200b", "normalized"),
        ("ｅｘａｃｔ", "normalized"),
        ("CONTAİNS", "normalized"),
        ("fuzzy", "normalized"),
    ],
)
def test_per_row_mode_is_read_like_the_reference(mode: str | None, resolved: str) -> None:
    df = pl.DataFrame({"r": ["x"], "ref": ["x"], "m": [mode]}, schema_overrides={"m": pl.String})
    out = df.select(ps.answer_correctness_details("r", "ref", match_mode=pl.col("m")))
    assert out.item()["match_mode"] == resolved


# --- the oracle, on random Unicode -------------------------------------------------------------


@given(
    rows=st.lists(
        st.tuples(
            optional_text,
            optional_text,
            st.one_of(
                st.none(), st.sampled_from(["exact", "EXACT", "contains", "normalized"]), text
            ),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_matches_oracle_on_random_unicode(
    rows: list[tuple[str | None, str | None, str | None]],
) -> None:
    df = pl.DataFrame(
        rows,
        schema={"response": pl.String, "reference": pl.String, "mode": pl.String},
        orient="row",
    )
    out = df.select(
        ps.answer_correctness_details("response", "reference", match_mode=pl.col("mode"))
    ).unnest("answer_correctness_details")
    expected = [oracle.answer_correctness(r, ref, m) for r, ref, m in rows]
    assert out["score"].to_list() == [e[0] for e in expected]
    assert out["reason"].to_list() == [e[1] for e in expected]


@given(response=optional_text, reference=optional_text, mode=st.sampled_from(MATCH_MODES))
def test_literal_mode_equals_per_row_mode(
    response: str | None, reference: str | None, mode: str
) -> None:
    df = pl.DataFrame(
        {"r": [response], "ref": [reference]}, schema={"r": pl.String, "ref": pl.String}
    )
    literal = df.select(ps.answer_correctness("r", "ref", match_mode=mode)).item()
    per_row = df.select(ps.answer_correctness("r", "ref", match_mode=pl.lit(mode))).item()
    assert literal == per_row == oracle.answer_correctness(response, reference, mode)[0]


@given(value=text.filter(lambda s: s.strip() != ""), mode=st.sampled_from(MATCH_MODES))
def test_identity_scores_one(value: str, mode: str) -> None:
    df = pl.DataFrame({"a": [value]})
    assert df.select(ps.answer_correctness("a", "a", match_mode=mode)).item() == 1.0


# --- API -----------------------------------------------------------------------------------------


def test_works_on_all_engines(engine: Engine) -> None:
    df = pl.DataFrame({"response": ["Paris.", "Lyon", None], "reference": ["paris", "Paris", ""]})
    out = engine(df, ps.answer_correctness("response", "reference"))
    assert out["answer_correctness"].to_list() == [1.0, 0.0, None]
    assert out.schema["answer_correctness"] == pl.Float64


def test_accepts_expressions_and_series() -> None:
    df = pl.DataFrame({"response": ["PARIS"], "reference": ["paris"]})
    by_expr = df.select(
        ps.answer_correctness(
            pl.col("response").str.to_lowercase(), "reference", match_mode="exact"
        )
    )
    by_series = df.select(ps.answer_correctness(df["response"], df["reference"]))
    assert by_expr.item() == 1.0
    assert by_series.item() == 1.0


def test_literal_mode_is_case_insensitive() -> None:
    df = pl.DataFrame({"response": ["Paris."], "reference": ["paris"]})
    assert (
        df.select(ps.answer_correctness("response", "reference", match_mode="EXACT")).item() == 0.0
    )


def test_two_scores_of_one_column_do_not_collide() -> None:
    df = pl.DataFrame({"response": ["Paris"], "reference": ["Paris"]})
    out = df.with_columns(
        ps.answer_correctness("response", "reference"),
        ps.answer_correctness_details("response", "reference"),
    )
    assert out.columns == [
        "response",
        "reference",
        "answer_correctness",
        "answer_correctness_details",
    ]


# --- the pruned normalized-match kernel ----------------------------------------------------------


def test_lowercase_yields_at_most_one_word_character_per_character() -> None:
    """The invariant the normalized-match pruning rests on, over every code point."""
    import re
    import unicodedata

    word = re.compile(r"\w")
    offenders = [
        hex(c)
        for c in range(0x110000)
        if not 0xD800 <= c < 0xE000
        and unicodedata.category(chr(c)) != "Cn"
        and len(word.findall(chr(c).lower())) > 1
    ]
    assert offenders == []


@given(
    rows=st.lists(
        st.tuples(text, st.integers(0, 40), text, st.sampled_from(["", " ", "!", "-", "\n"])),
        min_size=1,
        max_size=8,
    )
)
def test_long_responses_match_oracle(rows: list[tuple[str, int, str, str]]) -> None:
    """Responses far longer than the reference take the pruned path; results stay exact."""
    responses = [(unit + sep) * repeat + unit for unit, repeat, _, sep in rows]
    references = [ref if i % 2 else unit for i, (unit, _, ref, _) in enumerate(rows)]
    df = pl.DataFrame({"response": responses, "reference": references})
    out = df.select(ps.answer_correctness("response", "reference", match_mode="normalized"))
    expected = [
        oracle.answer_correctness(r, ref, "normalized")[0]
        for r, ref in zip(responses, references, strict=True)
    ]
    assert out["answer_correctness"].to_list() == expected


@given(
    rows=st.lists(
        st.tuples(
            st.lists(
                st.sampled_from(["Word", "w_1", " ", "  ", ". ", "\n", "-", "é", "İ", "😀", "Σ"]),
                max_size=400,
            ),
            st.integers(0, 400),
            text,
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_contains_in_long_responses_matches_oracle(
    rows: list[tuple[list[str], int, str, bool]],
) -> None:
    """Contains is normalised in 64-byte blocks and searched as it goes: a reference at any
    offset of a long response, across block and search edges, scores as the oracle does."""
    responses = []
    for pieces, at, reference, inside in rows:
        filler = "".join(pieces)
        cut = min(at, len(filler))
        responses.append(filler[:cut] + (reference if inside else "") + filler[cut:])
    references = [reference for _, _, reference, _ in rows]
    df = pl.DataFrame({"response": responses, "reference": references})
    out = df.select(ps.answer_correctness("response", "reference", match_mode="contains"))
    expected = [
        oracle.answer_correctness(r, ref, "contains")[0]
        for r, ref in zip(responses, references, strict=True)
    ]
    assert out["answer_correctness"].to_list() == expected


def test_empty_frame() -> None:
    df = pl.DataFrame(
        {"response": [], "reference": []}, schema={"response": pl.String, "reference": pl.String}
    )
    for mode in MATCH_MODES:
        out = df.select(ps.answer_correctness("response", "reference", match_mode=mode))
        assert out.height == 0
        assert out.schema["answer_correctness"] == pl.Float64
