"""Every option of every registered scorer: invalid values fail when the expression is built.

The invalid values come from two places: the per-option cases of ``tests/scorer_cases.py``
(unknown names, thresholds outside [0, 1], empty weight maps, ...) and generic ones derived from
the option's default (NaN, infinities, a string or a bool where a number is expected; an unknown
name or a number where a name is expected; a non-bool where a bool is expected). Each must raise
InvalidParameterError (a PolarscoreError, itself a ValueError) in the house template, ``The
'option' parameter of function must ... Got value instead.``, naming the value (or its offending
entry) and holding the fragments its OptionCases declare (what is allowed). The same values are
tried on each companion function that takes the option (``*_details``, ``*_components``,
``extract_*``: ``COMPANIONS``), which must name itself; values valid alone but invalid together
are ``INVALID_COMBINATIONS``. The data arguments and the functions around the scorers
(``is_passing``, ``summarize``, ``score_frame``) are checked here too.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polarscore as ps
from polarscore.registry import keyword_defaults
from tests.scorer_cases import (
    COMPANIONS,
    IDS,
    INVALID_COMBINATIONS,
    OPTION_CASES,
    ORACLES,
    SCORERS,
)

FRAME = pl.DataFrame({"response": ["Paris", "42 km", None], "reference": ["paris", "42", "x"]})


def _generic_invalid(default: Any) -> tuple[Any, ...]:
    if isinstance(default, bool):
        return ("yes", 2, None)
    if isinstance(default, int | float):
        return (math.nan, math.inf, -math.inf, "0.5", True)
    if isinstance(default, str):
        return ("__no_such_choice__", 42)
    return ()


def _key(value: Any) -> tuple[type, str]:
    """Tell values apart by type too (``True == 1`` and ``0.0 == 0``, but both must be tried)."""
    return type(value), repr(value)


def _invalid_cases() -> list[tuple[ps.ScorerSpec, str, Any, tuple[str, ...]]]:
    """(scorer, option, invalid value, the fragments its error must hold)."""
    cases = []
    for spec in SCORERS:
        declared = OPTION_CASES.get(spec.name, {})
        for option, default in spec.options.items():
            values = [(v, ()) for v in _generic_invalid(default)]
            if option in declared:
                # A generic value the scorer documents as valid (an infinite tolerance) is not
                # invalid for it.
                option_cases = declared[option]
                valid = {_key(v) for v in option_cases.valid if not isinstance(v, pl.Expr)}
                values = [(v, option_cases.messages) for v, _ in values if _key(v) not in valid]
                seen = {_key(v) for v, _ in values}
                values += [
                    (v, option_cases.messages_for(i))
                    for i, v in enumerate(option_cases.invalid)
                    if _key(v) not in seen
                ]
            cases += [(spec, option, value, fragments) for value, fragments in values]
    return cases


INVALID = _invalid_cases()


def _id(value: Any) -> str:
    # An expression's repr holds its address: give it a stable id (pytest-xdist compares ids).
    return "expr" if isinstance(value, pl.Expr) else repr(value)


def _call(function: Callable[..., pl.Expr], **options: Any) -> pl.Expr:
    """Call a scorer or a companion with column names for its data arguments."""
    data = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty
    ]
    return function(*("response", "reference")[: len(data)], **options)


def _takes(function: Callable[..., pl.Expr], option: str) -> bool:
    return option in inspect.signature(function).parameters


def _assert_invalid(
    function: Callable[..., pl.Expr],
    options: dict[str, Any],
    option: str,
    items: list[Any],
    fragments: tuple[str, ...] = (),
) -> None:
    """Building ``function`` with ``options`` fails in the house template, naming ``option``,
    the function, one of ``items`` (the value or its offending entry) and every fragment."""
    with pytest.raises(ps.InvalidParameterError) as info:
        _call(function, **options)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert message.startswith(f"The {option!r} parameter of {function.__name__} must "), message
    assert any(
        message.endswith((f" Got {item!r} instead.", f" Got the entry {item!r} instead."))
        for item in items
    ), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


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


def test_every_function_with_options_is_a_scorer_or_a_companion() -> None:
    """So the invalid values above reach every public expression function's options."""
    covered = {spec.function.__name__ for spec in SCORERS}
    for spec in SCORERS:
        for companion in COMPANIONS.get(spec.name, ()):
            assert set(keyword_defaults(companion)) <= set(spec.options), companion.__name__
            covered.add(companion.__name__)
    with_options = {
        name
        for name in ps.__all__
        if inspect.isfunction(function := getattr(ps, name))
        and inspect.signature(function).return_annotation in ("pl.Expr", pl.Expr)
        and keyword_defaults(function)
    }
    # is_passing's threshold is checked with the functions around the scorers, below.
    assert with_options - covered == {"is_passing"}


@pytest.mark.parametrize(
    ("spec", "option", "value", "fragments"),
    INVALID,
    ids=[f"{s.name}-{o}-{_id(v)}" for s, o, v, _ in INVALID],
)
def test_invalid_option_fails_at_build_time(
    spec: ps.ScorerSpec, option: str, value: Any, fragments: tuple[str, ...]
) -> None:
    """In the scorer and in each companion that takes the option, named by its own name."""
    # The value, or the offending item of a collection or mapping value.
    items = [value]
    if isinstance(value, dict):
        items += [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | frozenset | set):
        items += list(value)
    companions = [c for c in COMPANIONS.get(spec.name, ()) if _takes(c, option)]
    for function in (spec.function, *companions):
        _assert_invalid(function, {option: value}, option, items, fragments)


@pytest.mark.parametrize(
    ("name", "options", "option"),
    INVALID_COMBINATIONS,
    ids=[f"{name}-{option}" for name, _, option in INVALID_COMBINATIONS],
)
def test_invalid_combination_fails_at_build_time(
    name: str, options: dict[str, Any], option: str
) -> None:
    spec = ps.get_scorer(name)
    for key, value in options.items():  # each value is valid on its own
        _call(spec.function, **{key: value})
    for function in (spec.function, *COMPANIONS.get(name, ())):
        _assert_invalid(function, options, option, [options[option]])


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


#: (scorer, which data argument): the reference of a check of the response alone is not read.
DATA_ARGUMENTS = [
    (spec, position)
    for spec in SCORERS
    for position in (0, 1)
    if position == 0 or spec.reference_kind != "none"
]


@pytest.mark.parametrize(
    ("spec", "position"),
    DATA_ARGUMENTS,
    ids=[f"{s.name}-{('response', 'reference')[i]}" for s, i in DATA_ARGUMENTS],
)
@pytest.mark.parametrize("bad", [42, 1.5, None, b"response", ["response"]])
def test_data_argument_of_the_wrong_kind(spec: ps.ScorerSpec, position: int, bad: Any) -> None:
    """Named by the scorer's own name for it ('references', 'acceptable', ...)."""
    parameter = list(inspect.signature(spec.function).parameters)[position]
    arguments: list[Any] = ["response", "reference"]
    arguments[position] = bad
    with pytest.raises(ps.InvalidParameterError) as info:
        spec.function(*arguments)
    message = str(info.value)
    assert message.startswith(f"The {parameter!r} parameter of {spec.function.__name__} must be ")
    assert message.endswith(f" Got {bad!r} instead."), message


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
    """In the template: the option (or one entry, ``"threshold['name']"``) and the function."""
    template = rf"^The (?:'{option}'|\"{option}\[[^]]+\]\") parameter of \w+ must "
    with pytest.raises(ps.InvalidParameterError, match=template):
        call()
