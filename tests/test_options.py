"""Every option of every registered scorer: invalid values fail when the expression is built.

The invalid values come from two places: the per-option cases of ``tests/scorer_cases.py``
(unknown names, thresholds outside [0, 1], empty weight maps, ...) and generic ones derived from
the option's default (NaN, infinities, a string or a bool where a number is expected; an unknown
name or a number where a name is expected; a non-bool where a bool is expected). Each must raise
InvalidParameterError (a PolarscoreError, itself a ValueError) naming the function, the option,
the value and what is allowed.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest

import polarscore as ps
from tests.scorer_cases import IDS, OPTION_CASES, ORACLES, SCORERS

FRAME = pl.DataFrame({"response": ["Paris", "42 km", None], "reference": ["paris", "42", "x"]})


def _generic_invalid(default: Any) -> tuple[Any, ...]:
    if isinstance(default, bool):
        return ("yes", 2, None)
    if isinstance(default, int | float):
        return (math.nan, math.inf, -math.inf, "0.5", True)
    if isinstance(default, str):
        return ("__no_such_choice__", 42)
    return ()


def _invalid_cases() -> list[tuple[ps.ScorerSpec, str, Any]]:
    cases = []
    for spec in SCORERS:
        declared = OPTION_CASES.get(spec.name, {})
        for option, default in spec.options.items():
            values = list(_generic_invalid(default))
            if option in declared:
                # A generic value the scorer documents as valid (an infinite tolerance) is not
                # invalid for it.
                valid = [v for v in declared[option].valid if not isinstance(v, pl.Expr)]
                values = [v for v in values if v not in valid]
                values += [v for v in declared[option].invalid if v not in values]
            cases += [(spec, option, value) for value in values]
    return cases


INVALID = _invalid_cases()


def _id(value: Any) -> str:
    # An expression's repr holds its address: give it a stable id (pytest-xdist compares ids).
    return "expr" if isinstance(value, pl.Expr) else repr(value)


def test_every_scorer_is_described() -> None:
    """A scorer that lands without an oracle or option cases is not hardened: fail loudly."""
    for spec in SCORERS:
        assert spec.name in ORACLES, f"{spec.name}: add its oracle to tests/scorer_cases.py"
        cases = OPTION_CASES.get(spec.name, {})
        for option in spec.options:
            assert option in cases, f"{spec.name}.{option}: add OptionCases to scorer_cases"
            assert cases[option].invalid, f"{spec.name}.{option}: no invalid example"
            assert cases[option].valid, f"{spec.name}.{option}: no valid example"
        assert set(cases) <= set(spec.options), f"{spec.name}: cases for unknown options"


@pytest.mark.parametrize(
    ("spec", "option", "value"),
    INVALID,
    ids=[f"{s.name}-{o}-{_id(v)}" for s, o, v in INVALID],
)
def test_invalid_option_fails_at_build_time(spec: ps.ScorerSpec, option: str, value: Any) -> None:
    with pytest.raises(ps.InvalidParameterError) as info:
        spec.function("response", "reference", **{option: value})
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert repr(option) in message, message
    assert spec.function.__name__ in message, message
    # The value, or the offending item of a collection or mapping value.
    items = [value]
    if isinstance(value, dict):
        items += [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | frozenset | set):
        items += list(value)
    assert any(repr(item) in message for item in items), message
    assert "must" in message, message


VALID = [
    (spec, option, value)
    for spec in SCORERS
    for option, cases in OPTION_CASES.get(spec.name, {}).items()
    for value in cases.valid
]


@pytest.mark.parametrize(
    ("spec", "option", "value"),
    VALID,
    ids=[f"{s.name}-{o}-{_id(v)}" for s, o, v in VALID],
)
def test_valid_option_scores_within_range(spec: ps.ScorerSpec, option: str, value: Any) -> None:
    reference: Any = "reference"
    if spec.reference_kind == "list":
        reference = pl.concat_list("reference")
    out = FRAME.select(spec.expr("response", reference, **{option: value})).to_series()
    assert out.dtype == spec.dtype
    values = out.drop_nulls()
    assert ((values >= spec.lower) & (values <= spec.upper)).all()


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_unknown_option_name_is_rejected(spec: ps.ScorerSpec) -> None:
    with pytest.raises(TypeError, match="no_such_option"):  # Python's own, on a direct call
        spec.function("response", "reference", no_such_option=1)
    for build in (
        lambda: spec.expr("response", "reference", no_such_option=1),
        lambda: ps.score_frame(FRAME, scorers={spec.name: {"no_such_option": 1}}),
    ):
        with pytest.raises(ps.InvalidParameterError, match=r"'no_such_option'.*known option"):
            build()


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_options_are_keyword_only(spec: ps.ScorerSpec) -> None:
    if not spec.options:
        pytest.skip("no options")
    with pytest.raises(TypeError):
        spec.function("response", "reference", *spec.options.values())


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
@pytest.mark.parametrize("bad", [42, 1.5, None, b"response", ["response"]])
def test_data_argument_of_the_wrong_kind(spec: ps.ScorerSpec, bad: Any) -> None:
    with pytest.raises(ps.InvalidParameterError, match="'response'"):
        spec.function(bad, "reference")


def test_per_row_match_mode_must_be_text() -> None:
    df = pl.DataFrame({"response": ["a"], "reference": ["a"], "mode": [1]})
    with pytest.raises(ps.ColumnTypeError, match=r"'match_mode'.*'mode'.*Int64"):
        df.select(ps.answer_correctness("response", "reference", match_mode=pl.col("mode")))


# --- the options of the functions around the scorers ------------------------------------------

SCORED = FRAME.with_columns(answer_correctness=pl.Series([1.0, 0.0, None]))
UNSCORED_ONLY = FRAME.select("response", "reference")

#: (label, call with the bad value, the option's name as the message gives it)
AROUND: list[tuple[str, Any, str]] = [
    *(
        (f"is_passing-threshold-{v!r}", lambda v=v: ps.is_passing("s", threshold=v), "threshold")
        for v in (-0.1, 1.5, math.nan, math.inf, "0.5", None, True)
    ),
    *(
        (
            f"summarize-threshold-{v!r}",
            lambda v=v: ps.summarize(SCORED, "answer_correctness", threshold=v),
            "threshold",
        )
        for v in (-0.1, 2, math.nan, "0.5", {}, {"answer_correctness": 1.5}, {"bogus": 0.5})
    ),
    *(
        (
            f"summarize-confidence-{v!r}",
            lambda v=v: ps.summarize(SCORED, "answer_correctness", confidence=v),
            "confidence",
        )
        for v in (0, 1, 1.5, -0.5, math.nan, "0.95")
    ),
    *(
        (
            f"summarize-n_bootstrap-{v!r}",
            lambda v=v: ps.summarize(SCORED, "answer_correctness", n_bootstrap=v),
            "n_bootstrap",
        )
        for v in (-1, 1.5, "100", math.nan)
    ),
    *(
        (
            f"summarize-seed-{v!r}",
            lambda v=v: ps.summarize(SCORED, "answer_correctness", seed=v),
            "seed",
        )
        for v in (-1, 0.5, "0")
    ),
    *(
        (
            f"score_frame-thresholds-{v!r}",
            lambda v=v: ps.score_frame(UNSCORED_ONLY, thresholds=v),
            "thresholds",
        )
        for v in (-0.1, 2, math.nan, "0.5", {"bogus": 0.5}, {"answer_correctness": 1.5})
    ),
    *(
        (
            f"score_frame-scorers-{v!r}",
            lambda v=v: ps.score_frame(UNSCORED_ONLY, scorers=v),
            "scorers",
        )
        for v in ({}, [], ["no_such_scorer"], 42)
    ),
    ("score_frame-prefix-1", lambda: ps.score_frame(UNSCORED_ONLY, prefix=1), "prefix"),
]


@pytest.mark.parametrize(("call", "option"), [a[1:] for a in AROUND], ids=[a[0] for a in AROUND])
def test_options_around_the_scorers(call: Any, option: str) -> None:
    with pytest.raises(ps.InvalidParameterError, match=rf"The [\"']{option}\b"):
        call()
