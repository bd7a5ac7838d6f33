"""``correct``'s native numeric and multiple-choice rules against the Polars chains they replace.

The oracle (``tests/oracles/correct_polars.py``) is the rules' former chain of Polars list
expressions; the native pass must give the same scores, letters, numbers, golds, forms and
reasons on any rows, nulls included: a null or empty list of golds, null golds among them, a
null response, null options or a null list of options.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polarscore as ps
from tests.oracles import correct_polars as oracle

#: Pieces of answers, golds and options: letters in every form, numbers in every form, option
#: texts, Unicode whitespace (White_Space and Python-only separators), and text that is neither.
PIECES = [
    "The answer is (B).",
    "ANSWER: C",
    "**D**",
    "(a)",
    "b",
    "B",
    " (c). ",
    "B.)",
    "A or C",
    "Answer: 4",
    "12",
    "12.0",
    "#### 1,200",
    "1200",
    "$3.50",
    "2/6",
    "1/3",
    "\\frac{1}{3}",
    "\\boxed{12}",
    "x = 5.0",
    "-0",
    "0",
    "1e5",
    "Paris",
    "paris ",
    "PARIS",
    "Rome\u2003",
    "  rome",
    "New  York",
    "new york",
    "\u00a0",
    "\x1c",
    "\u2028",
    "",
    " ",
    "\t\n",
    "ΣΑΣ",
    "İ",
    "so 3 + 4 = 7.",
]

piece = st.sampled_from(PIECES) | st.text(max_size=6)
text = st.lists(piece, min_size=1, max_size=4).flatmap(
    lambda parts: st.sampled_from([" ", "\n", ""]).map(lambda sep: sep.join(parts))
)
maybe_text = st.none() | text
texts = st.none() | st.lists(st.none() | text, max_size=4)
rows = st.lists(st.tuples(maybe_text, texts, texts, maybe_text), min_size=1, max_size=12)

SCHEMA = {
    "response": pl.String,
    "references": pl.List(pl.String),
    "choices": pl.List(pl.String),
    "reference": pl.String,
}
FIELDS = ("correct", "extracted", "gold", "form", "reason")


def _frame(data: list[tuple[object, ...]]) -> pl.DataFrame:
    return pl.DataFrame(data, schema=SCHEMA, orient="row")


def _rule(kind: str, response: pl.Expr, golds: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    parts = (
        oracle.number_rule(response, golds)
        if kind == "numeric"
        else oracle.choice_rule(response, golds, choices)
    )
    return pl.struct(
        [
            p.cast(pl.String if i else pl.Float64).alias(n)
            for i, (p, n) in enumerate(zip(parts, FIELDS, strict=True))
        ]
    )


def _check(df: pl.DataFrame, kind: str, reference: str, choices: str | None) -> None:
    golds = pl.concat_list(pl.col(reference))
    opts = None if choices is None else pl.col(choices)
    expected = df.select(_rule(kind, pl.col("response"), golds, opts).alias("d")).unnest("d")
    details = ps.correct_details("response", reference, task_kind=kind, choices=choices)
    got = df.select(
        ps.correct("response", reference, task_kind=kind, choices=choices),
        details.struct.field(*FIELDS[1:]),
    )
    assert_frame_equal(got, expected, check_exact=True)
    assert_frame_equal(
        df.select(details.struct.field("correct")), expected.select("correct"), check_exact=True
    )


@given(rows)
@pytest.mark.parametrize("kind", ["numeric", "multiple_choice"])
def test_native_rules_equal_the_polars_expressions(
    kind: str, data: list[tuple[object, ...]]
) -> None:
    df = _frame(data)
    for reference in ("references", "reference"):
        for choices in (None, "choices") if kind == "multiple_choice" else (None,):
            _check(df, kind, reference, choices)


@given(rows, st.lists(st.sampled_from(["numeric", "multiple_choice", "short_answer", None])))
def test_per_row_kinds_equal_the_polars_expressions(
    data: list[tuple[object, ...]], kinds: list[str | None]
) -> None:
    df = _frame(data).with_columns(
        task_kind=pl.Series([kinds[i % len(kinds)] if kinds else None for i in range(len(data))])
    )
    kind = pl.col("task_kind")
    golds = pl.concat_list("references")

    def only(name: str) -> pl.Expr:
        return pl.when(kind == name).then(pl.col("response"))

    expected = df.select(
        pl.when(kind == "multiple_choice")
        .then(_rule("multiple_choice", only("multiple_choice"), golds, pl.col("choices")))
        .when(kind == "numeric")
        .then(_rule("numeric", only("numeric"), golds, None))
        .alias("d")
    ).unnest("d")
    details = ps.correct_details("response", "references", task_kind=kind, choices="choices")
    got = df.select(
        ps.correct("response", "references", task_kind=kind, choices="choices"),
        details.struct.field(*FIELDS[1:]),
    )
    chosen = kind.is_in(["numeric", "multiple_choice"])
    assert_frame_equal(
        got.filter(df.select(chosen).to_series()),
        expected.filter(df.select(chosen).to_series()),
        check_exact=True,
    )


def test_an_option_past_z_is_the_empty_letter() -> None:
    # The rule's letters end at Z: a response stating the 28th option's text chose "".
    options = [f"option {i}" for i in range(28)]
    df = _frame(
        [
            ("option 27", ["B"], options, "option 27"),
            ("option 1", ["option 1"], options, None),
            # A null gold meets a null option (and the null option the response states).
            ("option 1", [None], [None, "x"], None),
            (None, [None], ["x", None], None),
            ("nothing", None, options, None),
        ]
    )
    _check(df, "multiple_choice", "references", "choices")
    got = df.select(
        ps.correct_details(
            "response", "references", task_kind="multiple_choice", choices="choices"
        ).struct.field("correct", "extracted")
    )
    assert got.rows() == [(0.0, ""), (1.0, "B"), (1.0, None), (1.0, None), (None, None)]


def test_numbers_compare_as_numbers_and_fractions_are_not_usable() -> None:
    df = _frame(
        [
            ("so #### 1,200", ["1200.0", None], None, None),
            ("it is 1/3", ["2/6"], None, None),
            ("it is 7", [None, "", "seven", "7"], None, None),
            ("no number", ["7"], None, None),
            (None, ["7"], None, None),
            ("7", [], None, None),
            ("7", None, None, None),
        ]
    )
    _check(df, "numeric", "references", None)
    got = df.select(
        ps.correct_details("response", "references", task_kind="numeric").struct.field(
            "correct", "gold", "reason"
        )
    )
    assert got.rows() == [
        (1.0, "1200", None),
        (None, "1/3", None),
        (1.0, "7", None),
        (0.0, "7", "no_number"),
        (0.0, "7", None),
        (None, None, "the gold holds no number"),
        (None, None, "the gold holds no number"),
    ]
