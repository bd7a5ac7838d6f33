from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore.scores.squad import squad_normalize
from tests.engines import Engine
from tests.oracles import squad as oracle
from tests.strategies import TRAP_CHARS, optional_text

EVOUNA = Path(__file__).parent / "data" / "evouna_sample.parquet"

# Text that hits the SQuAD traps: articles next to every kind of separator, ASCII punctuation
# (deleted), Python-only whitespace, and characters that are \w in only one engine.
_PIECES = [" a ", "a", "an", "the", "The", "A", " ", "\x1c", ".", "_", "²", "\u0301", "x", "ab"]
squad_text = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.sampled_from(TRAP_CHARS), st.characters(codec="utf-8")),
    max_size=14,
).map("".join)
optional_squad_text = st.one_of(st.none(), squad_text)


@pytest.fixture(scope="module")
def evouna() -> pl.DataFrame:
    """400 real answers of five QA systems to NQ/TriviaQA questions, with gold aliases."""
    return pl.read_parquet(EVOUNA)


# --- normalisation: the official normalize_answer ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Eiffel Tower", "eiffel tower"),
        ("a an the", ""),
        ("a a a a", ""),  # consecutive articles: every one goes
        ("theater", "theater"),  # whole words only
        ("A.B.", "ab"),  # punctuation deleted before articles: "a.b." -> "ab"
        ("a.", ""),  # ... but "a." -> "a", an article
        ("a_b", "ab"),  # _ is punctuation
        ("a\u0301 b", "\u0301 b"),  # the combining mark is not \w in Python: "a" is a word
        ("²a", "²a"),  # ² is \w in Python: "²a" is one word
        ("x\x1ca\x1cy", "x y"),  # U+001C is whitespace for str.split
        ("l'année", "lannée"),  # only ASCII punctuation
        ("«the»", "« »"),  # « and » are not ASCII punctuation, but they are \W
        ("THE\u3000END", "end"),
    ],
)
def test_normalize_examples(text: str, normalized: str) -> None:
    assert oracle.squad_normalize(text) == normalized
    assert pl.select(squad_normalize(pl.lit(text))).item() == normalized


@given(value=squad_text)
def test_normalize_matches_oracle(value: str) -> None:
    assert pl.select(squad_normalize(pl.lit(value))).item() == oracle.squad_normalize(value)


# --- scores against the oracle ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "reference", "em", "f1"),
    [
        ("The Beatles", "Beatles", 1.0, 1.0),
        ("the beatles band", "The Beatles", 0.0, 2 * (1 / 2) * 1 / (1 / 2 + 1)),
        ("Rolling Stones", "Beatles", 0.0, 0.0),
        ("the", "a", 1.0, 0.0),  # both normalise to "": equal, but no words to share
        ("yes yes no", "yes", 0.0, 0.5),  # multiset: one "yes" in common
        (None, "Beatles", 0.0, 0.0),
        ("x", None, None, None),
        ("x", " \x1c", None, None),  # a blank ground truth is not used
    ],
)
def test_examples(
    response: str | None, reference: str | None, em: float | None, f1: float | None
) -> None:
    df = pl.DataFrame({"r": [response], "g": [reference]}, schema={"r": pl.String, "g": pl.String})
    out = df.select(ps.squad_exact_match("r", "g"), ps.squad_f1("r", "g"))
    assert out.row(0) == (em, pytest.approx(f1) if f1 is not None else None)
    assert oracle.squad_max("em", response, reference)[0] == em
    assert oracle.squad_max("f1", response, reference)[0] == (
        pytest.approx(f1) if f1 is not None else None
    )


@given(
    rows=st.lists(
        st.tuples(
            optional_squad_text,
            st.one_of(st.none(), st.lists(optional_squad_text, max_size=4)),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_list_references_match_oracle(
    rows: list[tuple[str | None, list[str | None] | None]],
) -> None:
    df = pl.DataFrame(rows, schema={"r": pl.String, "g": pl.List(pl.String)}, orient="row")
    out = df.select(ps.squad_exact_match("r", "g"), ps.squad_f1("r", "g"))
    assert out["squad_exact_match"].to_list() == [oracle.squad_max("em", r, g)[0] for r, g in rows]
    assert out["squad_f1"].to_list() == [oracle.squad_max("f1", r, g)[0] for r, g in rows]


# Long, mostly ASCII text: the kernel reads ASCII 64 bytes at a time, so words cross those
# blocks, runs without a space reach 64 bytes and more, and punctuation inside a word joins its
# letters ("don't" -> "dont") while punctuation around it is only deleted.
_LONG_PIECES = [
    *_PIECES,
    "The",
    "THE",
    "An",
    "word",
    "Paris",
    "x1",
    "3.14",
    "don't",
    "U.S.",
    "(E).",
    "t.h.e",
    "a-n",
    "...",
    ", ",
    "\t",
    "\n",
    "\r\n",
    "\x0b",
    "\x01",
    "\x7f",
    "é",
    "\u3000",
    "abcdefghij" * 7,
]
long_squad_text = st.lists(st.sampled_from(_LONG_PIECES), max_size=80).map("".join)


@given(response=long_squad_text, references=st.lists(long_squad_text, min_size=1, max_size=3))
def test_long_ascii_text_matches_oracle(response: str, references: list[str | None]) -> None:
    df = pl.DataFrame({"r": [response], "g": [references]})
    out = df.select(
        squad_normalize(pl.col("r")).alias("n"),
        ps.squad_exact_match("r", "g"),
        ps.squad_f1("r", "g"),
    )
    assert out["n"].to_list() == [oracle.squad_normalize(response)]
    assert out["squad_exact_match"].to_list() == [oracle.squad_max("em", response, references)[0]]
    assert out["squad_f1"].to_list() == [oracle.squad_max("f1", response, references)[0]]


@given(rows=st.lists(st.tuples(optional_text, optional_squad_text), min_size=1, max_size=12))
def test_string_references_match_oracle(rows: list[tuple[str | None, str | None]]) -> None:
    df = pl.DataFrame(rows, schema={"r": pl.String, "g": pl.String}, orient="row")
    out = df.select(ps.squad_exact_match("r", "g"), ps.squad_f1("r", "g"))
    assert out["squad_exact_match"].to_list() == [oracle.squad_max("em", r, g)[0] for r, g in rows]
    assert out["squad_f1"].to_list() == [oracle.squad_max("f1", r, g)[0] for r, g in rows]


def test_real_answers_match_oracle(evouna: pl.DataFrame, engine: Engine) -> None:
    out = engine(
        evouna,
        ps.squad_exact_match("response", "references"),
        ps.squad_f1("response", "references"),
        ps.squad_exact_match("response", "reference").alias("em_first"),
        ps.squad_f1("response", "reference").alias("f1_first"),
    )
    rows = list(zip(evouna["response"].to_list(), evouna["references"].to_list(), strict=True))
    firsts = evouna["reference"].to_list()
    assert out["squad_exact_match"].to_list() == [oracle.squad_max("em", r, g)[0] for r, g in rows]
    assert out["squad_f1"].to_list() == [oracle.squad_max("f1", r, g)[0] for r, g in rows]
    assert out["em_first"].to_list() == [
        oracle.squad_max("em", r, g)[0] for (r, _), g in zip(rows, firsts, strict=True)
    ]
    assert out["f1_first"].to_list() == [
        oracle.squad_max("f1", r, g)[0] for (r, _), g in zip(rows, firsts, strict=True)
    ]
    # The sample is not degenerate: it has exact matches, partial overlaps and misses.
    assert out["squad_exact_match"].sum() > 10
    assert out.filter((pl.col("squad_f1") > 0) & (pl.col("squad_f1") < 1)).height > 50


def test_engines_on_random_frame(engine: Engine) -> None:
    df = pl.DataFrame(
        {
            "r": ["The Beatles", "a b c", None, "", "x y z"] * 50,
            "g": [["beatles"], ["b", "c"], ["x"], [], None] * 50,
        }
    )
    exprs = [ps.squad_exact_match("r", "g"), ps.squad_f1("r", "g")]
    assert_frame_equal(engine(df, *exprs), df.select(*exprs))


def test_the_best_reference_counts() -> None:
    df = pl.DataFrame({"r": ["the cat sat"], "g": [["cat", "a cat sat"]]})
    assert df.select(ps.squad_exact_match("r", "g")).item() == 1.0
