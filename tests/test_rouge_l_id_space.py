"""rouge_l on rows whose words need large ids, against the pure-Python oracle.

The native kernel (``src/tokens.rs``) numbers a response's distinct words from 0 and runs a
bit-parallel LCS over 64-word blocks of the response, each block with its own word -> bit-mask
table. A response with more than 65,536 distinct words needs ids past 16 bits (the old Python
kernel, which encoded words as code points, crashed past 55,295 of them); a response with many
more distinct words than one block holds fills every block's table. The oracle is the textbook
dynamic programme over the words themselves.
"""

from __future__ import annotations

import random

import polars as pl
import pytest

import polarscore as ps
from tests.oracles import similarity as oracle
from tests.oracles import tokens

#: More distinct words than 16-bit ids can number.
MANY = 70_001


def _rouge_l(response: str, reference: str) -> float | None:
    frame = pl.DataFrame({"response": [response], "reference": [reference]})
    out = frame.select(ps.response_similarity("response", "reference", metric="rouge_l"))
    value: float | None = out.item()
    return value


def _word(i: int) -> str:
    return f"w{i}"


def test_more_than_70000_distinct_words_in_one_row() -> None:
    rng = random.Random(18)
    response = [_word(i) for i in range(MANY)]
    # 40 words from past id 65,535 in increasing order (so the LCS is at least 30 however the
    # tail is shuffled), 12 from anywhere, repeats and words the response lacks.
    high = sorted(rng.sample(range(65_536, MANY), 40))
    reference = [_word(i) for i in high + rng.sample(range(MANY), 12)]
    reference += [_word(high[0])] * 3 + ["absent", "missing"] * 2
    tail = reference[30:]
    rng.shuffle(tail)
    reference[30:] = tail
    text, ref_text = " ".join(response), " ".join(reference)
    assert len(set(oracle.words(text))) == MANY
    expected = oracle.response_similarity(text, ref_text, "rouge_l")[0]
    assert _rouge_l(text, ref_text) == expected
    # The words past id 65,535 carry the score: the others alone match at most 12 words.
    low_only = " ".join(w for w in reference if w.startswith("w") and int(w[1:]) < 65_536)
    assert tokens.lcs_length(oracle.words(text), oracle.words(low_only)) <= 12


@pytest.mark.parametrize("seed", range(4))
def test_many_more_distinct_words_than_one_block_holds(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = [_word(i) for i in range(300)]
    response = [rng.choice(vocabulary) for _ in range(1_000)]
    # Each 64-word block of the response holds many distinct words; the reference reuses them
    # in another order, with words the response lacks.
    reference = [rng.choice([*vocabulary, "absent", "other"]) for _ in range(400)]
    text, ref_text = " ".join(response), " ".join(reference)
    assert min(len(set(response[i : i + 64])) for i in range(0, 1_000 - 64, 64)) > 40
    expected = oracle.response_similarity(text, ref_text, "rouge_l")[0]
    assert expected is not None
    assert 0.0 < expected < 1.0
    assert _rouge_l(text, ref_text) == expected
