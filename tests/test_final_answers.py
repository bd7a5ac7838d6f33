"""final_choice / final_number: the kernels against their pure-Python oracles and real labels.

* Hypothesis draws texts from the grammar's own tokens (statements, letters, wrappers, joiners,
  numbers in every notation, the next-question marker) mixed with random Unicode, and checks
  that each kernel reads exactly what its oracle (``tests/oracles/final_answers.py``) reads.
* ``tests/data/final_{choice,number}_labels.parquet`` (written by
  ``benchmarks/label_final_answers.py``) hold every row of MMLU-Pro and of Faithful-CoT's numeric
  tasks where the source's own grader and the extractor disagree, labelled with a careful
  grader's reading, and a seeded sample of the rows where they agree.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polarscore as ps
from tests.conftest import DATA
from tests.engines import Engine
from tests.oracles import final_answers as oracle
from tests.strategies import trap_chars, unicode_chars

CHOICE_TOKENS = (
    "Answer:", "ANSWER: ", "answer: ", "The answer is ", "the correct answer is ", "answers is",
    "Final Answer:\n", "answer would be ", "answer choice is ", "option is ", "choice is ",
    " closest is ", " is the correct answer", " is the best answer", "then ", "Question: ",
    "\n", " ", "  ", ".", ",", ":", ")", "(", "[", "]", "{", "}", "**", "*", "$", "_", "'",
    "\\boxed{", "\\text{", "\\(", "option ", " and ", " or ", " & ", "/", " is ", " is correct",
    " is incorrect", "A", "B", "C", "D", "I", "J", "Z", "a", "b", "i", "AB", "42", "41", "purple",
    "- 2.21", "-2.21", "slightly increases", "Hand knitting", "é", "x",
)  # fmt: skip
NUMBER_TOKENS = (
    "The answer is ", "the final answer is ", "answer would be ", "answer = ", "Answer: ", "A: ",
    "A:", "\nA: ", "#### ", "####", "##### ", '{"answer": ', '"answer" : "', "\\boxed{", "\\fbox{",
    "}", "{", "\\frac{", "\\dfrac{", "}{", "\\text{ apples}", "=", " = ", "(", ")", "Question:",
    "\nQ: ", "\n", " ", ".", ". ", "!", "?", ",", "$", "-", "\u2212", "%", "/", "x", "apples",
    "0", "7", "12", "007", "1,234", "1{,}234", "5,7,15", "3.50", ".5", "3/4", "6/3", "12/25/2023",
    "10-5", "1.", "99999999999999999999999999999999999999999/3",
)  # fmt: skip
OPTION_TEXTS = ("41", "42", "purple", "green", "-2.21", "- 2.21", "1", "1.732", "Hand knitting", "")


def _text(tokens: tuple[str, ...]) -> st.SearchStrategy[str]:
    piece = st.one_of(
        st.sampled_from(tokens),
        st.sampled_from(tokens),
        st.sampled_from(tokens),
        trap_chars,
        st.text(unicode_chars, max_size=3),
    )
    return st.lists(piece, max_size=30).map("".join)


choice_texts = _text(CHOICE_TOKENS)
number_texts = _text(NUMBER_TOKENS)
option_lists = st.one_of(
    st.none(), st.lists(st.one_of(st.none(), st.sampled_from(OPTION_TEXTS)), max_size=6)
)


@settings(max_examples=400)
@given(rows=st.lists(st.tuples(choice_texts, option_lists), min_size=1, max_size=4))
def test_final_choice_equals_the_oracle(rows: list[tuple[str, list[str | None] | None]]) -> None:
    for text, options in rows:
        frame = pl.DataFrame(
            {"response": [text], "options": [options]},
            schema={"response": pl.String, "options": pl.List(pl.String)},
        )
        choices = "options" if options is not None else None
        got = frame.select(ps.final_choice_details("response", choices=choices)).row(0)[0]
        expected = oracle.final_choice(text, options)
        assert (got["choice"], got["form"], got["reason"]) == expected, (text, options)


@settings(max_examples=400)
@given(texts=st.lists(number_texts, min_size=1, max_size=5))
def test_final_number_equals_the_oracle(texts: list[str]) -> None:
    details = pl.DataFrame({"response": texts}).select(ps.final_number_details("response"))
    for text, got in zip(texts, details.to_series().to_list(), strict=True):
        expected = oracle.final_number(text)
        found = None if got["number"] is None else (got["number"], got["form"])
        assert found == expected, text
        assert (got["reason"] is None) == (expected is not None)


@pytest.mark.parametrize(
    ("text", "choice", "form"),
    [
        ("ANSWER: A", "A", "answer_colon"),
        ("Answer: (X)", "X", "answer_colon"),
        ("(C)", "C", "parenthesized"),
        ("B. Hand knitting", "B", "leading_letter"),
        ("B) 42", "B", "leading_letter"),
        ("so The answer is (D).", "D", "answer_is"),
        ("Thus the correct answer is E", "E", "answer_is"),
        ("I'd go with **F**", "F", "bold"),
        ("**(G) ten**", "G", "bold"),
        ("\\boxed{H}", "H", "boxed"),
        ("\\boxed{\\text{J}}", "J", "boxed"),
        ("Answer: A) text", "A", "answer_colon"),
        ("Option A is wrong because ... The answer is (C).", "C", "answer_is"),
        ("The answer is A. Wait, no: the answer is B.", "B", "answer_is"),
        ("so\n\nD", "D", "bare_letter"),
    ],
)
def test_every_form_models_write(text: str, choice: str, form: str) -> None:
    got = pl.DataFrame({"r": [text]}).select(ps.final_choice_details("r")).row(0)[0]
    assert (got["choice"], got["form"], got["reason"]) == (choice, form, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("The answer is A or C.", "several_letters"),
        ("The answer is (A) and (C).", "several_letters"),
        ("Answer: A, C", "several_letters"),
        ("I have no idea.", "no_letter"),
        ("A person is not an answer.", "no_letter"),
        ("The answer is (B) 43.", "contradiction"),
    ],
)
def test_no_choice_says_why(text: str, reason: str) -> None:
    frame = pl.DataFrame({"r": [text], "o": [["41", "42", "43"]]})
    got = frame.select(ps.final_choice_details("r", choices="o")).row(0)[0]
    assert (got["choice"], got["reason"]) == (None, reason)


def test_option_text_counts_as_its_letter(engine: Engine) -> None:
    frame = pl.DataFrame(
        {
            "response": ["The answer is purple.", "green", "The answer is blue.", None],
            "options": [["green", "purple"]] * 4,
        }
    )
    got = engine(frame, ps.final_choice("response", choices="options"))["final_choice"]
    assert got.to_list() == ["B", "A", None, None]


def _choice_labels() -> pl.DataFrame:
    labels = pl.read_parquet(DATA / "final_choice_labels.parquet")
    return labels.with_columns(ps.final_choice("response", choices="options"))


def test_final_choice_agrees_with_the_careful_grader_on_mmlu_pro() -> None:
    """At least 99.5% of the 20,065 answers: the labelled disagreements and a seeded sample."""
    labels = _choice_labels()
    sample = labels.filter(pl.col("why") == "agrees with the source grader")
    assert sample.height == 600
    # The sample of rows where the harness and the extractor agree: every one is the label.
    assert sample.filter(pl.col("final_choice").ne_missing(pl.col("label"))).height == 0
    disagreements = labels.filter(pl.col("why") != "agrees with the source grader")
    wrong = disagreements.filter(pl.col("final_choice").ne_missing(pl.col("label")))
    total = pl.read_parquet(DATA / "mmlu_pro_extraction.parquet").height
    assert disagreements.height > 1_000
    assert 1 - wrong.height / total >= 0.995
    # The harness's own letter is wrong on every disagreement row but the ones it got right.
    harness_wrong = disagreements.filter(pl.col("orig_pred").ne_missing(pl.col("label"))).height
    assert harness_wrong > 50 * wrong.height


def test_final_number_agrees_with_the_careful_grader_on_faithful_cot() -> None:
    labels = pl.read_parquet(DATA / "final_number_labels.parquet").with_columns(
        ps.final_number("response")
    )
    sample = labels.filter(pl.col("why") == "agrees with the source grader")
    assert sample.height == 600
    assert sample.filter(pl.col("final_number").ne_missing(pl.col("label"))).height == 0
    disagreements = labels.filter(pl.col("why") != "agrees with the source grader")
    wrong = disagreements.filter(pl.col("final_number").ne_missing(pl.col("label")))
    assert disagreements.height > 900
    assert 1 - wrong.height / 23_320 >= 0.995


def test_numeric_match_final_reproduces_openai_gsm8k_verdicts() -> None:
    gsm = pl.read_parquet(DATA / "gsm8k_openai_extraction.parquet")
    got = gsm.select(ps.numeric_match("response", "reference", method="final")).to_series()
    assert ((got == 1.0) == gsm["orig_is_correct"]).all()


@pytest.mark.parametrize(
    ("text", "number", "form"),
    [
        ("so she picks \\boxed{12} apples in 3 days", "12", "boxed"),
        ('{"reasoning": "3 + 4", "answer": 7}', "7", "json_answer"),
        ("3 + 4 = 7\n#### 7", "7", "hash_line"),
        ("The final answer is $1,234.50.", "1234.5", "answer_is"),
        ("So 3 apples.\nA: 3", "3", "answer_line"),
        ("Then 3 + 4 = 7 apples.", "7", "last_number"),
        ("It costs -$5.", "-5", "last_number"),
        ("\\boxed{\\frac{3}{4}}", "0.75", "boxed"),
        ("\\boxed{2/6}", "1/3", "boxed"),
        ("It grew 50%.", "50", "last_number"),
    ],
)
def test_every_number_form(text: str, number: str, form: str) -> None:
    got = pl.DataFrame({"r": [text]}).select(ps.final_number_details("r")).row(0)[0]
    assert (got["number"], got["form"], got["reason"]) == (number, form, None)


def test_list_references_count_their_best_alias(engine: Engine) -> None:
    frame = pl.DataFrame(
        {
            "response": ["ANSWER: B", "ANSWER: B", "\\boxed{0.5}", "It is 3.", "x"],
            "letters": [["A", "B"], ["C"], [], None, ["A"]],
            "numbers": [["1"], ["2", "1/2"], ["0.50"], [None, "3.0"], [" "]],
        }
    )
    got = engine(
        frame,
        ps.choice_match("response", "letters", rules="final"),
        ps.numeric_match("response", "numbers", method="final"),
    )
    assert got["choice_match"].to_list() == [1.0, 0.0, None, None, 0.0]
    assert got["numeric_match"].to_list() == [0.0, 0.0, 1.0, 1.0, None]


def test_choices_of_another_type_are_rejected() -> None:
    frame = pl.DataFrame({"response": ["A"], "options": [3]})
    with pytest.raises(ps.ColumnTypeError, match="choices"):
        frame.select(ps.final_choice("response", choices="options"))
