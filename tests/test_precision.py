from __future__ import annotations

import difflib
import math
import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_series_equal

import polarscore as ps
from polarscore.kernels._plugin import plugin_call
from polarscore.scores.precision import (
    COMPONENT_FIELDS,
    EMPTY_ACTUAL_REASON,
    NO_EXPECTED_REASON,
)
from polarscore.stopwords import LANGUAGES, REFERENCE_STOPWORDS, builtin_stopwords
from tests.engines import Engine
from tests.oracles import precision as oracle
from tests.strategies import optional_text, text

PARITY_OPTIONS = {
    "char_similarity": "sequence_matcher",
    "missing_expected": "zero",
    "numeric_tolerance_abs": pl.col("tol_abs"),
    "numeric_tolerance_rel": pl.col("tol_rel"),
}
REFERENCE_COMPONENTS = ("exact", "normalized", "contains", "char_ratio", "token_precision")


def _components(frame: pl.DataFrame, run: Engine | None = None, **options: object) -> pl.DataFrame:
    expr = ps.answer_precision_components("response", "reference", **options)  # type: ignore[arg-type]
    out = run(frame, expr) if run else frame.select(expr)
    return out.unnest("answer_precision_components")


def _assert_parity(out: pl.DataFrame, expected: pl.DataFrame) -> None:
    scores = out["score"].to_list()
    wrong = [
        (i, s, r)
        for i, (s, r) in enumerate(zip(scores, expected["ap_score"].to_list(), strict=True))
        if round(s, 4) != r
    ]
    assert wrong == []
    for name in (*REFERENCE_COMPONENTS, "numeric", "penalty"):
        ours, theirs = out[name].to_list(), expected[f"ap_{name}"].to_list()
        off = [
            (i, a, b)
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True))
            if (a is None) != (b is None) or (b is not None and abs(a - b) > 1e-9)
        ]
        assert off == [], name


def _native_ratio(a: str, b: str, char_similarity: str) -> float:
    """The native kernel's character similarity of one pair."""
    frame = pl.DataFrame({"a": [a], "b": [b]}, schema={"a": pl.String, "b": pl.String})
    value = frame.select(
        plugin_call(
            "precision_char_ratio", pl.col("a"), pl.col("b"), char_similarity=char_similarity
        )
    ).item()
    assert isinstance(value, float)
    return value


# --- parity with eval-ai-library, row for row ---------------------------------------------------


def test_parity_every_row(parity: pl.DataFrame) -> None:
    out = _components(parity, **PARITY_OPTIONS)
    _assert_parity(out, parity)
    # Not required for parity, but true: the unrounded score is bit-identical.
    assert_series_equal(out["score"], parity["ap_unrounded_score"], check_names=False)


def test_parity_paths_and_score_function(parity: pl.DataFrame) -> None:
    parity = parity.filter(pl.col("category") != "long")  # slow rows: see test_parity_every_row
    out = parity.select(
        ps.answer_precision("response", "reference", **PARITY_OPTIONS),  # type: ignore[arg-type]
        ps.answer_precision_diagnostics("response", "reference", **PARITY_OPTIONS).struct.field(  # type: ignore[arg-type]
            "path"
        ),
    )
    assert out["path"].to_list() == parity["ap_path"].to_list()
    assert [round(s, 4) for s in out["answer_precision"]] == parity["ap_score"].to_list()


def test_parity_on_every_engine(parity: pl.DataFrame, engine: Engine) -> None:
    # The 51 "long" rows (references of up to 20,000 characters, difflib with autojunk) take
    # seconds each run; they are covered by test_parity_every_row.
    frame = parity.filter(pl.col("category") != "long")
    _assert_parity(_components(frame, engine, **PARITY_OPTIONS), frame)


def test_parity_diagnostics_match_the_oracle(parity: pl.DataFrame) -> None:
    frame = parity.filter(pl.col("category") != "long")
    out = frame.select(
        ps.answer_precision_diagnostics("response", "reference", **PARITY_OPTIONS)  # type: ignore[arg-type]
    ).unnest("answer_precision_diagnostics")
    rows = zip(frame.iter_rows(named=True), out.iter_rows(named=True), strict=True)
    for row, got in rows:
        want = oracle.answer_precision(
            row["response"],
            row["reference"],
            char_similarity="sequence_matcher",
            missing_expected="zero",
            tol_abs=row["tol_abs"],
            tol_rel=row["tol_rel"],
        )
        assert got["path"] == want.path
        if want.path != "scored":
            continue
        assert got["missing_terms"] == want.missing
        assert got["extra_terms"] == want.extra
        assert got["reason"] == want.reason, row["id"]
        _assert_mismatches(got["numeric_mismatches"], want.numeric)


def _assert_mismatches(
    got: list[dict[str, float | None]], want: oracle.NumericResult | None
) -> None:
    assert want is not None
    expected = [(m["expected"], m["actual"], m["rel_err"]) for m in got]
    assert len(expected) == len(want.mismatches)
    for ours, theirs in zip(expected, want.mismatches, strict=True):
        for a, b in zip(ours, theirs, strict=True):
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert a == b or (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


# --- the reference's documented examples, one line each --------------------------------------


@pytest.mark.parametrize(
    ("response", "reference", "expected"),
    [
        ("The answer is 42.", "42", 0.6691),  # C12
        ("\u200b", "Paris", 0.0126),  # C1: not empty, scored
        ("Paris", "   ", 0.0126),  # C2: whitespace-only expected is scored
        (" \x1c ", "Paris", 0.0),  # C1: Python whitespace guard
        ("\u3000", "Paris", 0.0),
        (None, "Paris", 0.0),  # C3
        ("Paris", None, 0.0),  # C2 (zero mode)
        ("Paris", "", 0.0),
        ("[Paris](HTTPS://EXAMPLE.COM)", "Paris", 0.6696),  # C4: case-sensitive link rule
        ("«Paris»", "Paris", 0.1007),  # C5: Unicode punctuation stays in tokens
        ("x²", "x2", 0.3515),  # C10: tokens from NFKC text, numbers from raw text
        ("٣", "3", 0.0126),
    ],
)
def test_spec_examples(response: str | None, reference: str | None, expected: float) -> None:
    df = pl.DataFrame(
        {"response": [response], "reference": [reference]},
        schema=[("response", pl.String), ("reference", pl.String)],
    )
    score = df.select(
        ps.answer_precision(
            "response", "reference", char_similarity="sequence_matcher", missing_expected="zero"
        )
    ).item()
    assert round(score, 4) == expected


def test_spec_all_stopwords() -> None:
    """C6: "the" vs "of" leaves two empty token sets: contains and token precision are 1.0."""
    df = pl.DataFrame({"response": ["the"], "reference": ["of"]})
    out = _components(df)
    assert (out["contains"].item(), out["token_precision"].item()) == (1.0, 1.0)


def test_spec_autojunk_and_asymmetry() -> None:
    """C9: ratio("tide", "diet") = 0.25 but 0.5 swapped; indel is symmetric."""
    sm = [_native_ratio(a, b, "sequence_matcher") for a, b in (("tide", "diet"), ("diet", "tide"))]
    assert sm == [0.25, 0.5]
    assert [_native_ratio(a, b, "indel") for a, b in (("tide", "diet"), ("diet", "tide"))] == [
        0.5,
        0.5,
    ]
    words = [f"w{i % 7}x{i % 5}" for i in range(60)]
    expected = " ".join(words)[:200]
    actual = " ".join(w if i % 3 else "zz" for i, w in enumerate(expected.split(" ")))
    junked = _native_ratio(actual, expected, "sequence_matcher")
    assert junked == difflib.SequenceMatcher(None, actual, expected).ratio()
    assert junked < _native_ratio(actual, expected, "indel")


@pytest.mark.parametrize(
    ("actual", "expected", "tol_abs", "tol_rel", "numeric"),
    [
        ("2", "1 2", 0.0, 0.0, 0.0),  # greedy, not optimal
        ("1e400", "1e400", 0.0, 0.0, 0.0),  # inf never matches
        ("1e308", "-1e308", sys.float_info.max, 0.0, 0.0),  # an overflowing error never matches
        ("0.3", "0.2", 0.1, 0.0, 1.0),  # 0.09999999999999998 <= 0.1
        ("1.1", "1.0", 0.1, 0.0, 0.0),  # 0.10000000000000009 > 0.1
        ("-0", "0", 0.0, 0.0, 1.0),
        ("0", "1e-13", 0.0, 0.5, 1.0),  # the +1e-12 matters near zero (rel 0.09, not 1)
        ("see https://x.com/page2", "see", 0.0, 0.0, 0.0),  # URL digits count
        ("٣٫٥", "3 5", 0.0, 0.0, 1.0),  # Arabic-Indic digits, U+066B is not a point
        ("−5", "5", 0.0, 0.0, 1.0),  # U+2212 is not a sign
        ("1.5e3.2", "1500 0.2", 0.0, 0.0, 1.0),
        ("2024-01-15", "2024 -1 -15", 0.0, 0.0, 1.0),
    ],
)
def test_spec_numbers(
    actual: str, expected: str, tol_abs: float, tol_rel: float, numeric: float
) -> None:
    df = pl.DataFrame({"response": [actual], "reference": [expected]})
    out = _components(df, numeric_tolerance_abs=tol_abs, numeric_tolerance_rel=tol_rel)
    assert out["numeric"].item() == numeric


# --- hypothesis: the pure-Python oracle of AnswerPrecisionMetric -----------------------------


def _assert_row_matches_oracle(
    response: str | None, reference: str | None, **options: object
) -> None:
    tol_abs = options.pop("tol_abs", 0.0)
    tol_rel = options.pop("tol_rel", 0.0)
    df = pl.DataFrame(
        {"response": [response], "reference": [reference]},
        schema=[("response", pl.String), ("reference", pl.String)],
    )
    got = _components(
        df, numeric_tolerance_abs=tol_abs, numeric_tolerance_rel=tol_rel, **options
    ).row(0, named=True)
    want = oracle.answer_precision(
        response,
        reference,
        tol_abs=tol_abs,
        tol_rel=tol_rel,
        **options,  # type: ignore[arg-type]
    )
    if want.score is None:
        assert got["score"] is None
        return
    assert got["score"] == pytest.approx(want.score, abs=1e-12)
    if want.path != "scored":
        assert all(got[name] is None for name in COMPONENT_FIELDS if name != "score")
        return
    for name in (*REFERENCE_COMPONENTS, "numeric"):
        assert got[name] == pytest.approx(want.components[name], abs=1e-12), name
    assert got["penalty"] == want.penalty


numbers_text = st.lists(
    st.one_of(
        st.sampled_from(["1", "2", "-3", "2.5", "1e5", "1e400", ".5", "٣", "５", "0", "10:30"]),
        st.integers(-50, 50).map(str),
        st.sampled_from([" ", "x", ",", "-", "the", "²"]),
    ),
    max_size=10,
).map(" ".join)
any_text = st.one_of(optional_text, numbers_text)
tolerance = st.sampled_from([0.0, 1e-12, 0.1, 0.5, 1.0, 10.0, 1e308])


@given(response=any_text, reference=any_text, tol_abs=tolerance, tol_rel=tolerance)
def test_components_agree_with_the_oracle_indel(
    response: str | None, reference: str | None, tol_abs: float, tol_rel: float
) -> None:
    _assert_row_matches_oracle(response, reference, tol_abs=tol_abs, tol_rel=tol_rel)


@given(response=any_text, reference=any_text, tol_abs=tolerance)
def test_components_agree_with_the_oracle_reference_mode(
    response: str | None, reference: str | None, tol_abs: float
) -> None:
    _assert_row_matches_oracle(
        response,
        reference,
        tol_abs=tol_abs,
        char_similarity="sequence_matcher",
        missing_expected="zero",
    )


@given(
    response=text,
    reference=text,
    weights=st.dictionaries(
        st.sampled_from(oracle.ORDER), st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0]), min_size=1
    ).filter(lambda w: any(w.values())),
    power_p=st.sampled_from([0.3, 0.5, 1.0, 2.0]),
)
def test_weights_and_power_agree_with_the_oracle(
    response: str, reference: str, weights: dict[str, float], power_p: float
) -> None:
    _assert_row_matches_oracle(response, reference, weights=weights, power_p=power_p)


@given(response=text, reference=text)
def test_indel_score_is_in_range(response: str, reference: str) -> None:
    score = (
        pl.DataFrame({"a": [response], "b": [reference]})
        .select(ps.answer_precision("a", "b"))
        .item()
    )
    assert score is None or 0.0 <= score <= 1.0


@given(value=text.filter(lambda s: s.strip() != ""))
def test_identity(value: str) -> None:
    # As in the reference: overflowing numbers (inf) never match, not even themselves.
    assume(all(math.isfinite(x) for x in oracle.numbers(value)))
    df = pl.DataFrame({"a": [value]})
    assert df.select(ps.answer_precision("a", "a")).item() == 1.0


@given(
    words=st.lists(st.sampled_from(["paris", "is", "the", "capital", "France", "of"]), max_size=8)
)
def test_custom_stopwords_are_used(words: list[str]) -> None:
    response = " ".join(words)
    stop = ["Capital", "PARIS"]  # normalised like the text: NFKC + lower
    df = pl.DataFrame({"response": [response], "reference": ["paris"]})
    got = df.select(
        ps.answer_precision_diagnostics("response", "reference", stopwords=stop)
    ).unnest("answer_precision_diagnostics")
    want = oracle.answer_precision(response, "paris", stopwords={"capital", "paris"})
    if want.path != "scored":
        return
    assert got["extra_terms"].item().to_list() == want.extra
    assert "paris" not in got["extra_terms"].item().to_list()
    assert got["score"].item() == pytest.approx(want.score, abs=1e-12)


def test_stopword_choices_change_the_tokens() -> None:
    df = pl.DataFrame({"response": ["Paris is the capital"], "reference": ["paris"]})

    def extra(stopwords: object) -> list[str]:
        out = df.select(
            ps.answer_precision_diagnostics("response", "reference", stopwords=stopwords)
        )  # type: ignore[arg-type]
        return out.item()["extra_terms"]  # type: ignore[no-any-return]

    assert extra(None) == ["capital"]  # "is" and "the" are among the reference's 26
    assert extra(()) == ["capital", "is", "the"]
    assert extra(["capital", "is", "the"]) == []
    assert extra("en") == ["capital"]
    assert extra("ru") == ["capital", "is", "the"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_builtin_stopwords(language: str) -> None:
    words = builtin_stopwords(language)
    assert len(words) > 100
    assert all(w == w.lower() and " " not in w and "'" not in w for w in words)


def test_reference_stopwords() -> None:
    assert len(REFERENCE_STOPWORDS) == 26
    assert REFERENCE_STOPWORDS == oracle.REFERENCE_STOPWORDS


# --- kernels against their plain counterparts ----------------------------------------------------

short_alphabet = st.text(alphabet="ab c", max_size=40)


@given(a=st.one_of(short_alphabet, st.text(max_size=300)), b=st.text(alphabet="ab c", max_size=199))
def test_matching_characters_equals_difflib(a: str, b: str) -> None:
    blocks = difflib.SequenceMatcher(None, a, b).get_matching_blocks()
    matches = sum(block.size for block in blocks)
    expected = 2.0 * matches / (len(a) + len(b)) if a or b else 1.0
    assert _native_ratio(a, b, "sequence_matcher") == expected


@given(
    a=st.text(alphabet="abcde ", max_size=400),
    b=st.text(alphabet="abcde ", min_size=190, max_size=260),
)
def test_sequence_matcher_ratio_equals_difflib_around_autojunk(a: str, b: str) -> None:
    expected = difflib.SequenceMatcher(None, a, b).ratio() if a or b else 1.0
    assert _native_ratio(a, b, "sequence_matcher") == expected


@given(a=st.text(max_size=300), b=st.text(alphabet="abcde éx", min_size=200, max_size=700))
def test_sequence_matcher_ratio_equals_difflib_on_long_text(a: str, b: str) -> None:
    assert _native_ratio(a, b, "sequence_matcher") == difflib.SequenceMatcher(None, a, b).ratio()


@given(a=st.text(max_size=30), b=st.text(max_size=30))
def test_indel_equals_lcs_definition(a: str, b: str) -> None:
    assert _native_ratio(a, b, "indel") == pytest.approx(oracle.indel_ratio(a, b), abs=1e-12)


@given(a=st.text(alphabet="abc é😀", max_size=200), b=st.text(alphabet="abc é😀", max_size=200))
def test_indel_equals_lcs_definition_over_several_words(a: str, b: str) -> None:
    assert _native_ratio(a, b, "indel") == pytest.approx(oracle.indel_ratio(a, b), abs=1e-12)


finite_or_not = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 2.5, math.inf, -math.inf, 1e308, -1e308, 1e-13]),
    st.integers(-5, 5).map(float),
)


@given(
    rows=st.lists(
        st.tuples(
            st.lists(finite_or_not, max_size=6),
            st.lists(finite_or_not, max_size=6),
            st.sampled_from([0.0, 0.5, 1.0, math.inf]),
            st.sampled_from([0.0, 0.1, 1.0]),
        ),
        max_size=8,
    )
)
def test_greedy_numeric_match_equals_the_oracle(
    rows: list[tuple[list[float], list[float], float, float]],
) -> None:
    frame = pl.DataFrame(
        {
            "a": [a for a, _, _, _ in rows],
            "e": [e for _, e, _, _ in rows],
            "ta": [t for _, _, t, _ in rows],
            "tr": [t for _, _, _, t in rows],
        },
        schema={
            "a": pl.List(pl.Float64),
            "e": pl.List(pl.Float64),
            "ta": pl.Float64,
            "tr": pl.Float64,
        },
    )
    got = frame.select(
        plugin_call("precision_numeric_match", pl.col("a"), pl.col("e"), pl.col("ta"), pl.col("tr"))
    ).to_series()
    for i, (a, e, ta, tr) in enumerate(rows):
        want = oracle.numeric_agreement(a, e, ta, tr)
        if e:
            assert got[i] / len(e) == want.score


# Each example is one row of over 2**16 pairs, which the brute-force oracle checks pair by pair
# in Python (about 0.15 s an example): 25 examples, not the profile's 100.
@settings(max_examples=25)
@given(
    actual=st.lists(finite_or_not, min_size=200, max_size=400),
    expected=st.lists(finite_or_not, min_size=330, max_size=400),
    tol_abs=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_greedy_numeric_match_sorted_path_equals_the_oracle(
    actual: list[float], expected: list[float], tol_abs: float
) -> None:
    """Rows of more than 2**16 pairs take the exact sorted path: same result as brute force."""
    frame = pl.DataFrame(
        {"a": [actual], "e": [expected], "ta": [tol_abs], "tr": [0.0]},
        schema={
            "a": pl.List(pl.Float64),
            "e": pl.List(pl.Float64),
            "ta": pl.Float64,
            "tr": pl.Float64,
        },
    )
    got = frame.select(
        plugin_call("precision_numeric_match", pl.col("a"), pl.col("e"), pl.col("ta"), pl.col("tr"))
    ).item()
    want = oracle.numeric_agreement(actual, expected, tol_abs, 0.0)
    assert got / len(expected) == want.score


def test_many_numbers_in_one_row() -> None:
    """Thousands of numbers per row: same result as the oracle, without an n*m matrix at once."""
    rng = np.random.default_rng(0)
    actual = " ".join(str(x) for x in rng.integers(0, 500, 3000))
    expected = " ".join(str(x) for x in rng.integers(0, 500, 2000))
    df = pl.DataFrame({"response": [actual, "1 2"], "reference": [expected, "2 1"]})
    out = _components(df, numeric_tolerance_abs=1.0)
    want = oracle.numeric_agreement(oracle.numbers(actual), oracle.numbers(expected), 1.0, 0.0)
    assert out["numeric"].to_list() == [want.score, 1.0]


def test_unassigned_characters_follow_python() -> None:
    """A character unassigned in the interpreter's tables is left alone, as Python does."""
    value = "\U0001e030ＡＢ"  # U+1E030 is assigned (with a decomposition) only after Unicode 14
    df = pl.DataFrame({"response": [value], "reference": [value.upper()]})
    got = _components(df)
    want = oracle.answer_precision(value, value.upper())
    assert got["normalized"].item() == want.components["normalized"]
    assert got["score"].item() == pytest.approx(want.score, abs=1e-12)


# --- engines, nulls, options ---------------------------------------------------------------------

FRAME = pl.DataFrame(
    {
        "response": ["The answer is 42.", "Paris", None, "", "x²", "Paris", "Lyon 3", "  ", "12"],
        "reference": ["42", "paris", "Paris", "Paris", "x2", None, "Paris 3.5", "", "12.5"],
        "tol": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0],
    }
)


def test_both_functions_on_every_engine(engine: Engine) -> None:
    options = {"numeric_tolerance_abs": pl.col("tol")}
    out = engine(
        FRAME,
        ps.answer_precision("response", "reference", **options),  # type: ignore[arg-type]
        ps.answer_precision_components("response", "reference", **options),  # type: ignore[arg-type]
        ps.answer_precision_diagnostics("response", "reference", **options),  # type: ignore[arg-type]
    )
    eager = FRAME.select(ps.answer_precision_components("response", "reference", **options))  # type: ignore[arg-type]
    assert_series_equal(out["answer_precision_components"], eager.to_series())
    components = out["answer_precision_components"].struct.unnest()
    assert_series_equal(out["answer_precision"], components["score"], check_names=False)
    paths = out["answer_precision_diagnostics"].struct.field("path").to_list()
    assert paths == [
        "scored",
        "scored",
        "empty_actual_guard",
        "empty_actual_guard",
        "scored",
        "no_expected",
        "scored",
        "no_expected",
        "invalid_tolerance",
    ]
    assert out["answer_precision"].to_list()[2:4] == [0.0, 0.0]
    assert out["answer_precision"].to_list()[5] is None
    assert out["answer_precision"].to_list()[7:] == [None, None]


def test_missing_expected_modes() -> None:
    df = pl.DataFrame(
        {"response": ["Paris", "Paris", "", "Paris"], "reference": [None, "", None, " "]}
    )
    null_mode = df.select(ps.answer_precision("response", "reference")).to_series().to_list()
    zero_mode = df.select(
        ps.answer_precision("response", "reference", missing_expected="zero")
    ).to_series()
    assert null_mode == [None, None, None, None]
    assert zero_mode.to_list()[:3] == [0.0, 0.0, 0.0]
    assert round(zero_mode[3], 4) == 0.0126  # a whitespace-only reference is scored
    reasons = (
        df.select(ps.answer_precision_diagnostics("response", "reference", missing_expected="zero"))
        .to_series()
        .struct.field("reason")
    )
    assert reasons.to_list()[:3] == [NO_EXPECTED_REASON, NO_EXPECTED_REASON, EMPTY_ACTUAL_REASON]


def test_registry_entry() -> None:
    spec = ps.get_scorer("answer_precision")
    assert spec.family == "precision"
    assert spec.function is ps.answer_precision


def test_infinite_per_row_tolerance_makes_its_row_inconclusive() -> None:
    """An infinite tolerance makes every pair of numbers agree: a per-row value makes its row
    inconclusive, as NaN and negative values do (a literal one raises: test_options.py)."""
    df = pl.DataFrame(
        {"response": ["7", "7", "7"], "reference": ["3", "3", "3"], "tol": [math.inf, 1e308, 0]}
    )
    out = df.select(
        ps.answer_precision("response", "reference", numeric_tolerance_abs=pl.col("tol")),
        ps.answer_precision_diagnostics(
            "response", "reference", numeric_tolerance_rel=pl.col("tol")
        ).struct.field("path"),
    )
    assert out["answer_precision"][0] is None
    assert (
        out["answer_precision"][1]
        == ps.answer_precision_components(pl.lit("7"), pl.lit("3"), numeric_tolerance_abs=1e308)
        .struct.field("score")
        .pipe(pl.select)
        .item()
    )
    assert out["path"].to_list() == ["invalid_tolerance", "scored", "scored"]


# --- pass / fail -------------------------------------------------------------------------------


def test_is_passing() -> None:
    df = pl.DataFrame({"s": [0.49, 0.5, 1.0, None]})
    assert df.select(ps.is_passing("s")).to_series().to_list() == [False, True, True, None]
    assert df.select(ps.is_passing("s", threshold=0.9)).columns == ["s_passed"]
    scored = FRAME.select(ps.is_passing(ps.answer_precision("response", "reference")))
    assert scored.columns == ["answer_precision_passed"]
    assert scored.to_series()[5] is None  # inconclusive stays null


@given(
    scores=st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=20), threshold=st.floats(0, 1)
)
def test_is_passing_is_a_comparison(scores: list[float | None], threshold: float) -> None:
    out = pl.DataFrame({"s": scores}, schema={"s": pl.Float64}).select(
        ps.is_passing("s", threshold=threshold)
    )
    assert out.to_series().to_list() == [None if s is None else s >= threshold for s in scores]


# --- Unicode: Python's own semantics on every assigned code point -----------------------------


def _native_normalize(values: list[str]) -> list[str]:
    frame = pl.DataFrame({"t": values}, schema={"t": pl.String})
    return frame.select(plugin_call("precision_normalize", pl.col("t"))).to_series().to_list()


def test_normalisation_equals_python_on_every_code_point() -> None:
    """``unicodedata.normalize("NFKC", c).lower()`` (stripped, whitespace collapsed) of every
    code point, unassigned ones included: the native NFKC follows the running Python."""
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    got = _native_normalize(chars)
    wrong = [c for c, g in zip(chars, got, strict=True) if g != oracle.basic_normalize(c)]
    assert wrong == []


@given(value=st.text(alphabet=st.characters(codec="utf-8"), max_size=24))
def test_normalisation_equals_python_on_text(value: str) -> None:
    assert _native_normalize([value]) == [oracle.basic_normalize(value)]


@given(
    value=st.lists(
        st.sampled_from(
            ["[a](http://x.y)", "[", "](", "http://", "https://q", " ", "\u3000", "x", ")"]
        ),
        max_size=10,
    ).map("".join)
)
def test_links_and_urls_equal_python(value: str) -> None:
    assert _native_normalize([value]) == [oracle.basic_normalize(value)]


def test_scoring_in_slices_changes_nothing(parity: pl.DataFrame) -> None:
    frame = parity.filter(pl.col("category") != "long").head(600)
    exprs = [
        ps.answer_precision_components("response", "reference", **PARITY_OPTIONS),  # type: ignore[arg-type]
        ps.answer_precision_diagnostics("response", "reference", **PARITY_OPTIONS),  # type: ignore[arg-type]
    ]
    whole = frame.select(exprs)
    sliced = pl.concat([frame.slice(start, 37).select(exprs) for start in range(0, 600, 37)])
    assert sliced.equals(whole)
