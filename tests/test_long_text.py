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
import time
from collections.abc import Sequence

import hypothesis
import polars as pl
import pytest
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, LCSseq

import polarscore as ps
from polarscore._internal import long_text_work as _long_text_work
from polarscore.kernels._plugin import load_unicode_tables
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


# --- the guard is a bound: the work counted follows the time taken -------------------------------

#: The guard's price of a unit of work: ``max_work``'s default (2,500,000,000) within 10 s.
SECONDS_PER_UNIT = 10.0 / 2_500_000_000
#: What the kernels do not count, their linear passes over the texts (ids, tables, the common
#: ends), allowed per character on top of the counted work, and a floor for the process's clock.
SECONDS_PER_CHARACTER = 200e-9
CLOCK_FLOOR = 0.02

#: Scripts for the worst cases: lower-case Latin (a few letters each under difflib's "popular"
#: 1%), CJK ideographs (every one of them rare), and symbols of a 200-character block.
_SCRIPTS = {
    "latin": "etaoinshrdlcumwfgypbvkjxqz",
    "cjk": "".join(chr(0x4E00 + i) for i in range(400)),
    "symbols": "".join(chr(0x100 + i) for i in range(200)),
}


@st.composite
def _worst_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """Two long texts built to cost the quadratic kernels the most: words of a small vocabulary
    (Zipf-like letters, so a few are rare), repetitions of a short unit, or random characters of
    a script, on each side with its own seed, and either side the long one."""
    script = _SCRIPTS[draw(st.sampled_from(sorted(_SCRIPTS)))]
    kind = draw(st.sampled_from(["vocabulary", "repetition", "characters"]))
    seed = draw(st.integers(0, 2**16))
    sizes = draw(st.sampled_from([(60_000, 60_000), (150_000, 150_000), (5_000, 200_000)]))
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) for k in range(len(script))]
    vocabulary = [
        "".join(rng.choices(script, weights=weights, k=rng.randint(1, 8)))
        for _ in range(draw(st.integers(2, 300)))
    ]
    unit = "".join(rng.choices(script, k=draw(st.integers(1, 12))))

    def text(n: int) -> str:
        if kind == "vocabulary":
            return " ".join(rng.choices(vocabulary, k=n // 5 + 1))[:n]
        if kind == "repetition":
            repeated = unit * (n // len(unit))
            return "".join(rng.choice(script) if rng.random() < 0.01 else c for c in repeated)
        return "".join(rng.choices(script, weights=weights, k=n))

    a, b = text(sizes[0]), text(sizes[1])
    return (a, b) if draw(st.booleans()) else (b, a)


def long_text_work(kernel: str, a: str, b: str, max_work: int | None) -> tuple[float | None, int]:
    """``kernel``'s score of ``a`` against ``b`` and the units of work it counted."""
    load_unicode_tables()
    score, work = _long_text_work(kernel, a, b, max_work)
    return score, work


@pytest.mark.parametrize("kernel", ["sequence_matcher", "indel", "rouge_l"])
@hypothesis.settings(max_examples=12, deadline=None)
@hypothesis.given(pair=_worst_pairs())
def test_the_work_counted_follows_the_time_taken(kernel: str, pair: tuple[str, str]) -> None:
    """On the worst inputs, each unit of counted work costs at most the guard's price: the
    CPU time of a row (within 300,000,000 units, 1.2 s at that price) stays within the price
    of the work the kernel counted, plus its linear passes. A kernel that did more than it
    counts (difflib's search over texts of a small vocabulary, of old) fails here."""
    a, b = pair
    start = time.process_time()
    score, work = long_text_work(kernel, a, b, 300_000_000)
    taken = time.process_time() - start
    allowed = work * SECONDS_PER_UNIT + (len(a) + len(b)) * SECONDS_PER_CHARACTER + CLOCK_FLOOR
    assert taken <= allowed, f"{taken:.3f} s for {work:,} units ({len(a):,}, {len(b):,} chars)"
    # a row scores exactly when its work fits: within the bound or stopped at it
    assert score is None or 0.0 <= score <= 1.0
    assert score is not None or work <= 300_000_000


@hypothesis.settings(max_examples=8, deadline=None)
@hypothesis.given(pair=_worst_pairs())
def test_a_worst_row_past_max_work_is_null_with_the_reason_named(pair: tuple[str, str]) -> None:
    """The same worst inputs over a small ``max_work``: difflib's search (whose first step reads
    every character of a) ends null with the companions naming the guard; Indel and ROUGE-L end
    so too, or, where their work fits (the common ends cut off, Myers' algorithm), give the
    unbounded score: never a wrong number."""
    a, b = pair
    frame = pl.DataFrame({"response": [a], "reference": [b]})
    bound = 1_000
    got = frame.select(
        indel=ps.answer_precision_diagnostics("response", "reference", max_work=bound),
        indel_unbounded=ps.answer_precision("response", "reference", max_work=None),
        difflib=ps.answer_precision_diagnostics(
            "response", "reference", char_similarity="sequence_matcher", max_work=bound
        ),
        rouge=ps.response_similarity_details(
            "response", "reference", metric="rouge_l", max_work=bound
        ),
        rouge_unbounded=ps.response_similarity(
            "response", "reference", metric="rouge_l", max_work=None
        ),
    ).row(0, named=True)
    stopped = [got["difflib"]]
    assert got["difflib"]["path"] == "too_long"
    if got["indel"]["path"] == "too_long":
        stopped.append(got["indel"])
    else:
        assert got["indel"]["score"] == got["indel_unbounded"]
    if got["rouge"]["score"] is None:
        stopped.append(got["rouge"])
    else:
        assert got["rouge"]["score"] == got["rouge_unbounded"]
    for row in stopped:
        assert row["score"] is None
        assert row["reason"].startswith("Texts too long:")
        assert "max_work" in row["reason"]
