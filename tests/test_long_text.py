"""Long texts: exact scores within the length guard, and a null with its reason past it.

The quadratic similarities (``answer_precision``'s character similarity, Indel or difflib's
SequenceMatcher, and ``response_similarity``'s ROUGE-L) take the blocked bit-parallel
recurrences, Myers' algorithm and the suffix automaton on long texts. Here they meet texts long
enough to take each path (a pattern over 16,384 characters or words, an alphabet of 20,000
characters, two texts that differ little) and must equal the oracles to the bit: the oracles'
own definitions, with their longest common subsequence taken by RapidFuzz (an independent
implementation; the textbook programme would take minutes at these sizes). Past ``max_work``
the row is null with the reason saying so, and the other rows of the batch are scored; ``None``
lifts the guard.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import polars as pl
import pytest
from rapidfuzz.distance import Indel, LCSseq

import polarscore as ps
from tests.oracles import precision as precision_oracle
from tests.oracles import similarity as similarity_oracle


def _lcs(left: Sequence[object], right: Sequence[object]) -> int:
    return int(LCSseq.similarity(left, right))


def _indel_ratio(a: str, b: str) -> float:
    """RapidFuzz's own ``1 - distance / total`` (the oracle's ``2 * lcs / total`` by another
    rounding), the formula the reference library's Indel ratio takes."""
    return 1.0 if not a and not b else float(Indel.normalized_similarity(a, b))


@pytest.fixture
def fast_oracles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracles' longest common subsequence by RapidFuzz: the same number, sooner."""
    monkeypatch.setattr(precision_oracle, "indel_ratio", _indel_ratio)
    monkeypatch.setattr(similarity_oracle, "lcs_length", _lcs)


def _words(seed: int, n_words: int, vocabulary: int = 400) -> list[str]:
    rng = random.Random(seed)
    pool = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
        for _ in range(vocabulary)
    ]
    return [rng.choice(pool) for _ in range(n_words)]


def _text(seed: int, n_chars: int) -> str:
    return " ".join(_words(seed, n_chars // 5 + 1))[:n_chars].strip()


def _cjk(seed: int, n_chars: int) -> str:
    """Text over 20,000 distinct characters: more than one block of masks holds."""
    rng = random.Random(seed)
    return "".join(chr(0x4E00 + rng.randrange(20_000)) for _ in range(n_chars))


def _edited(text: str, seed: int, edits: int) -> str:
    rng = random.Random(seed)
    chars = list(text)
    for _ in range(edits):
        at = rng.randrange(len(chars))
        chars[at] = rng.choice("xyz!")
    return "".join(chars)


LONG_PAIRS = {
    "unlike words, 40k and 17k characters": (_text(1, 40_000), _text(2, 17_000)),
    "20,000 distinct characters, 18k and 20k": (_cjk(3, 18_000), _cjk(4, 20_000)),
    "alike, 120k characters, 50 edits": (_text(5, 120_000), _edited(_text(5, 120_000), 6, 50)),
}


@pytest.mark.usefixtures("fast_oracles")
@pytest.mark.parametrize("char_similarity", ["indel", "sequence_matcher"])
def test_long_texts_score_exactly(char_similarity: str) -> None:
    names = list(LONG_PAIRS)
    if char_similarity == "sequence_matcher":
        names.remove("alike, 120k characters, 50 edits")  # difflib itself takes minutes there
    frame = pl.DataFrame(
        {
            "response": [LONG_PAIRS[name][0] for name in names],
            "reference": [LONG_PAIRS[name][1] for name in names],
        }
    )
    got = frame.select(
        ps.answer_precision_components(
            "response",
            "reference",
            char_similarity=char_similarity,  # type: ignore[arg-type]
        )
    ).unnest("answer_precision_components")
    for name, row in zip(names, got.iter_rows(named=True), strict=True):
        expected = precision_oracle.answer_precision(
            *LONG_PAIRS[name], char_similarity=char_similarity
        )
        assert expected.components is not None
        assert row["char_ratio"] == expected.components["char_ratio"], name
        assert row["score"] == expected.score, name


@pytest.mark.usefixtures("fast_oracles")
def test_rouge_l_over_long_word_sequences_is_exact() -> None:
    # over 16,384 words on the pattern side: the blocked recurrence; and two that differ little
    response = " ".join(_words(7, 20_000))
    references = [" ".join(_words(8, 18_000)), _edited(response, 9, 30)]
    frame = pl.DataFrame({"response": [response] * 2, "reference": references})
    got = frame.select(
        ps.response_similarity("response", "reference", metric="rouge_l")
    ).to_series()
    for value, reference in zip(got.to_list(), references, strict=True):
        expected, _ = similarity_oracle.response_similarity(response, [reference], "rouge_l")
        assert value == expected


def _guard_frame() -> pl.DataFrame:
    short = ("The answer is 42 apples.", "42 apples")
    long = (_text(10, 30_000), _text(11, 30_000))
    return pl.DataFrame(
        {"response": [short[0], long[0], None], "reference": [short[1], long[1], "x"]}
    )


def test_a_row_over_max_work_is_null_with_its_reason_and_the_others_are_scored() -> None:
    frame = _guard_frame()
    bounded = 1_000_000
    scores = frame.select(
        score=ps.answer_precision("response", "reference", max_work=bounded),
        unbounded=ps.answer_precision("response", "reference", max_work=None),
        diagnostics=ps.answer_precision_diagnostics("response", "reference", max_work=bounded),
        components=ps.answer_precision_components("response", "reference", max_work=bounded),
    )
    score, unbounded = scores["score"].to_list(), scores["unbounded"].to_list()
    # the short row is scored as without a guard; the long one is null, never a wrong number
    assert score[0] == unbounded[0] is not None
    assert score[1] is None
    assert unbounded[1] is not None
    assert 0.0 < unbounded[1] < 1.0
    diagnostics = scores["diagnostics"].to_list()
    assert diagnostics[1]["path"] == "too_long"
    assert diagnostics[1]["score"] is None
    assert diagnostics[1]["reason"].startswith("Texts too long:")
    assert "max_work" in diagnostics[1]["reason"]
    assert diagnostics[0]["path"] == "scored"
    assert all(value is None for value in scores["components"][1].values())


def test_rouge_l_over_max_work_is_null_with_its_reason() -> None:
    frame = _guard_frame()
    got = frame.select(
        score=ps.response_similarity("response", "reference", metric="rouge_l", max_work=100_000),
        unbounded=ps.response_similarity("response", "reference", metric="rouge_l", max_work=None),
        details=ps.response_similarity_details(
            "response", "reference", metric="rouge_l", max_work=100_000
        ),
        # the linear metrics never meet the guard
        recall=ps.response_similarity("response", "reference", max_work=1),
    )
    assert got["score"][0] == got["unbounded"][0] is not None
    assert got["score"][1] is None
    assert got["unbounded"][1] is not None
    reason = got["details"].struct.field("reason")[1]
    assert reason.startswith("Texts too long:")
    assert "max_work" in reason
    assert got["recall"][1] is not None


def test_the_default_guard_ends_two_megabyte_rows_with_a_reason() -> None:
    # two unlike texts of 2 MB a side: about 10^11 units of Indel's work, over the default
    # (difflib's autojunk leaves SequenceMatcher little to do on these: it scores them)
    frame = pl.DataFrame(
        {
            "response": [_text(12, 2_000_000), "42 apples"],
            "reference": [_text(13, 2_000_000), "42 apples"],
        }
    )
    got = frame.select(ps.answer_precision_diagnostics("response", "reference"))
    diagnostics = got["answer_precision_diagnostics"].to_list()
    assert [row["path"] for row in diagnostics] == ["too_long", "scored"]
    assert diagnostics[0]["score"] is None
    assert diagnostics[0]["reason"].startswith("Texts too long:")
    assert diagnostics[1]["score"] == 1.0
