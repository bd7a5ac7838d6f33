"""Final-answer extraction: the MMLU-Pro harness's letters and GSM8K's final numbers.

``tests/data/mmlu_pro_extraction.parquet`` holds the 20,065 chain-of-thought answers of five
models from TIGER-AI-Lab/MMLU-Pro's published results (Apache-2.0; data MIT), with the letter the
harness extracted (``orig_pred``). ``tests/data/gsm8k_openai_extraction.parquet`` holds the 5,276
GPT-3 solutions of openai/grade-school-math (MIT) with OpenAI's own ``orig_is_correct`` flag.
"""

from __future__ import annotations

import re

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import polarscore as ps
from polarscore.kernels._plugin import plugin_call
from tests.conftest import DATA
from tests.engines import Engine
from tests.oracles import extract as oracle

MMLU = pl.read_parquet(DATA / "mmlu_pro_extraction.parquet")
GSM8K = pl.read_parquet(DATA / "gsm8k_openai_extraction.parquet")

#: Which version of the harness's extraction produced each model's published letters: the
#: three-rule version, or the first rule alone (the earlier harness).
HARNESS_RULES = {
    "Llama-3.1-8B-Instruct": "mmlu_pro",
    "gemini-1.5-flash-002": "mmlu_pro",
    "Mistral-7B-Instruct-v0.2": "answer_is",
    "Qwen1.5-7B-Chat": "answer_is",
    "gpt-4o-2024-05-13": "answer_is",
}

#: Accuracy of the harness's letters per model (the data's README).
README_ACCURACY = {
    "gpt-4o-2024-05-13": 0.727,
    "gemini-1.5-flash-002": 0.638,
    "Llama-3.1-8B-Instruct": 0.443,
    "Mistral-7B-Instruct-v0.2": 0.301,
    "Qwen1.5-7B-Chat": 0.266,
}


def _harness_letters(engine: Engine) -> pl.DataFrame:
    parts = []
    for model, rules in HARNESS_RULES.items():
        rows = MMLU.filter(pl.col("model") == model)
        got = engine(rows, ps.extract_choice("response", rules=rules))  # type: ignore[arg-type]
        parts.append(rows.with_columns(got=got["extract_choice"]))
    return pl.concat(parts)


def test_mmlu_pro_letters_on_every_row(engine: Engine) -> None:
    scored = _harness_letters(engine)
    assert scored.height == 20_065
    differ = scored.filter(pl.col("got").ne_missing(pl.col("orig_pred")))
    # The only differences: 234 Llama answers where no rule finds a letter. Its published file
    # records "G" for each of them (a fixed stand-in, not a random guess); here they are null.
    assert differ.height == 234
    assert differ["model"].unique().to_list() == ["Llama-3.1-8B-Instruct"]
    assert differ["got"].null_count() == 234
    assert differ["orig_pred"].unique().to_list() == ["G"]


def test_each_model_needs_its_harness_version() -> None:
    """The other rule set does not explain the letters: the version choice is not arbitrary."""
    for model, rules in HARNESS_RULES.items():
        other = "answer_is" if rules == "mmlu_pro" else "mmlu_pro"
        rows = MMLU.filter(pl.col("model") == model)
        got = rows.select(ps.extract_choice("response", rules=other)).to_series()  # type: ignore[arg-type]
        assert (got.ne_missing(rows["orig_pred"])).sum() > 0, model


def test_mmlu_pro_accuracy_per_model() -> None:
    for model, rules in HARNESS_RULES.items():
        rows = MMLU.filter(pl.col("model") == model)
        score = rows.select(ps.choice_match("response", "reference", rules=rules)).to_series()  # type: ignore[arg-type]
        accuracy = score.mean()
        if model == "Llama-3.1-8B-Instruct":
            # The harness's "G" stand-in is right where the gold letter is G.
            stand_in = rows.filter(
                pl.col("response").map_elements(_oracle_full, return_dtype=pl.String).is_null()
                & (pl.col("reference") == "G")
            ).height
            accuracy += stand_in / rows.height  # type: ignore[operator]
        assert round(accuracy, 3) == README_ACCURACY[model], model  # type: ignore[arg-type]


# --- the harness's rules in Python's re, as an oracle ---------------------------------------------


_oracle_answer_is = oracle.answer_is
_oracle_full = oracle.mmlu_pro


PIECES = st.sampled_from(
    ["answer is ", "answer is (", "Answer:", "answer:", "nswer:", "The ", "A", "B", "J", "K",
     "(", ")", " ", "\n", "\x1c", "\u3000", "\u0301", "é", "_", "2", "²", "x", ".", "C."]
)  # fmt: skip
choice_text = st.lists(PIECES, max_size=12).map("".join)


@given(texts=st.lists(st.one_of(st.none(), choice_text), min_size=1, max_size=5))
def test_extract_choice_matches_the_harness_regexes(texts: list[str | None]) -> None:
    df = pl.DataFrame({"response": texts}, schema={"response": pl.String})
    out = df.select(
        full=ps.extract_choice("response"),
        first=ps.extract_choice("response", rules="answer_is"),
    )
    assert out["full"].to_list() == [None if t is None else _oracle_full(t) for t in texts]
    assert out["first"].to_list() == [None if t is None else _oracle_answer_is(t) for t in texts]


@given(text=choice_text)
def test_the_one_pass_rules_are_the_harness_regexes(text: str) -> None:
    """The oracle's one-pass forms of the harness's second and third rules find what the
    harness's own regular expressions find."""
    colon = re.search(oracle.ANSWER_COLON, text)
    assert oracle.answer_colon(text) == (colon.group(1) if colon else None)
    last = re.search(oracle.LAST_LETTER, text, re.DOTALL)
    assert oracle.last_letter(text) == (last.group(0) if last else None)


# --- GSM8K ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["answer_line", "flexible"])
def test_openai_flag_on_every_row(method: str, engine: Engine) -> None:
    got = engine(GSM8K, ps.numeric_match("response", "reference", method=method))  # type: ignore[arg-type]
    agree = (got["numeric_match"] == 1.0) == GSM8K["orig_is_correct"]
    assert agree.all(), GSM8K.filter(~agree).head()
    assert GSM8K.height == 5_276


def test_openai_accuracy_per_system() -> None:
    scored = GSM8K.with_columns(ps.numeric_match("response", "reference", method="answer_line"))
    accuracy = dict(scored.group_by("model_key").agg(pl.col("numeric_match").mean()).iter_rows())
    assert {k: round(v, 3) for k, v in accuracy.items()} == {
        "6b_finetuning": 0.217,
        "6b_verification": 0.390,
        "175b_finetuning": 0.347,
        "175b_verification": 0.563,
    }


def _lm_eval(text: str, method: str) -> str | None:
    return oracle.number(text, method)


NUMBER_PIECES = st.sampled_from(
    ["####", " ", "#### ", "-", "$", ",", ".", "1", "23", "4,567", "8.9", "x", "\n", "A: ", "٣",
     "A:", "QA:", "\x1c", "\u3000", "\u2028", "\r", "é", "A"]
)  # fmt: skip
number_text = st.lists(NUMBER_PIECES, max_size=12).map("".join)


@given(texts=st.lists(number_text, min_size=1, max_size=5))
def test_extract_number_matches_lm_eval(texts: list[str]) -> None:
    df = pl.DataFrame({"response": texts})
    for method in ("strict", "flexible", "answer_line"):
        got = df.select(ps.extract_number("response", method=method)).to_series().to_list()  # type: ignore[arg-type]
        assert got == [_lm_eval(t, method) for t in texts], method


@given(golds=st.lists(number_text, min_size=1, max_size=5))
def test_gold_numbers_match_the_reference_rule(golds: list[str]) -> None:
    # numeric_match reads the gold's number with the kernel's "gold" method.
    df = pl.DataFrame({"gold": golds})
    got = df.select(plugin_call("extract_number", pl.col("gold"), method="gold")).to_series()
    assert got.to_list() == [_lm_eval(g, "gold") for g in golds]


def test_tolerance_and_missing_gold() -> None:
    df = pl.DataFrame(
        {
            "response": ["#### 100", "#### 101", "#### 1,000", "no number", "#### 5"],
            "gold": ["100", "100", "#### 1000", "7", None],
        }
    )
    exact = df.select(ps.numeric_match("response", "gold", method="strict")).to_series()
    loose = df.select(
        ps.numeric_match("response", "gold", method="strict", numeric_tolerance_rel=0.01)
    ).to_series()
    assert exact.to_list() == [1.0, 0.0, 1.0, 0.0, None]
    assert loose.to_list() == [1.0, 1.0, 1.0, 0.0, None]


def _numeric_oracle(
    response: str, gold: str, method: str, tol_abs: float, tol_rel: float
) -> float | None:
    return oracle.numeric_match(response, gold, method, tol_abs, tol_rel)


@given(
    rows=st.lists(st.tuples(number_text, number_text), min_size=1, max_size=5),
    method=st.sampled_from(["strict", "flexible", "answer_line"]),
    tol_abs=st.sampled_from([0.0, 0.5, 10.0]),
    tol_rel=st.sampled_from([0.0, 0.01]),
)
def test_numeric_match_matches_the_reference_rule(
    rows: list[tuple[str, str]], method: str, tol_abs: float, tol_rel: float
) -> None:
    df = pl.DataFrame(rows, schema=["response", "gold"], orient="row")
    got = df.select(
        ps.numeric_match(
            "response",
            "gold",
            method=method,  # type: ignore[arg-type]
            numeric_tolerance_abs=tol_abs,
            numeric_tolerance_rel=tol_rel,
        )
    ).to_series()
    assert got.to_list() == [_numeric_oracle(r, g, method, tol_abs, tol_rel) for r, g in rows]


def test_numeric_match_per_row_tolerances() -> None:
    df = pl.DataFrame(
        {
            "response": ["#### 101", "#### 101", "#### 101", "#### 90"],
            "gold": ["100", "100", "100", "100"],
            "tol": [2.0, None, 0.5, None],
        }
    )
    got = df.select(
        ps.numeric_match(
            "response",
            "gold",
            method="strict",
            numeric_tolerance_abs=pl.col("tol"),
            numeric_tolerance_rel=pl.Series([0.0, 0.05, 0.0, None]),
        )
    ).to_series()
    # A null tolerance passes nothing on its own; the other tolerance still can.
    assert got.to_list() == [1.0, 1.0, 0.0, 0.0]


def test_numeric_match_final_agrees_with_its_oracle() -> None:
    # The fuzz suite draws method="final" too; its oracle once read such a response as an
    # answer line, and so scored `0` against the gold `0` as 0.0.
    rows = [
        ("0", "0"),
        ("The answer is $1,000.", "1000"),
        ("\\boxed{42}", "42"),
        ("#### 12", "13"),
        ("x = 3.50", "3.5"),
        ("no number", "7"),
        ("1/2", "0.5"),
    ]
    df = pl.DataFrame({"response": [r for r, _ in rows], "reference": [g for _, g in rows]})
    got = df.select(ps.numeric_match("response", "reference", method="final")).to_series()
    assert got.to_list() == [oracle.numeric_match(r, g, method="final") for r, g in rows]
