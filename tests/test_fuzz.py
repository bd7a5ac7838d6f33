"""Hypothesis fuzzing of every registered scorer against its oracle, with random options.

Random Unicode (biased towards the Python-vs-Rust traps), random nulls, random references lists
and random option values, valid or not. An invalid option must raise InvalidParameterError when
the expression is built (the only documented exception); otherwise every row must equal the
scorer's pure-Python oracle (so the null rule is the oracle's), with the declared dtype and range.

The default run is short; ``test_fuzz_long`` (marked ``slow``) draws thousands of examples and
runs in CI with a fixed seed::

    python -m pytest -m slow tests/test_fuzz.py -p no:randomly --hypothesis-seed=0
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import polarscore as ps
from tests.scorer_cases import (
    OPTION_CASES,
    ORACLES,
    SCORERS,
    oracle_list_score,
    oracle_score,
    reference_forms,
    same_score,
)
from tests.strategies import optional_text

FUZZED = [spec for spec in SCORERS if spec.name in ORACLES]
FUZZ_IDS = [spec.name for spec in FUZZED]

#: The long run's examples, shared among the scorers: thousands in all, within CI's budget.
LONG_RUN_EXAMPLES = 6000

free_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=40)
cell = st.one_of(optional_text, optional_text, free_text)


@st.composite
def cases(draw: st.DrawFn, spec: ps.ScorerSpec) -> tuple[str, list[Any], dict[str, Any], bool]:
    form = draw(st.sampled_from(reference_forms(spec)))
    if form == "string":
        references: list[Any] = draw(st.lists(cell, min_size=1, max_size=6))
    else:
        references = draw(
            st.lists(st.one_of(st.none(), st.lists(cell, max_size=4)), min_size=1, max_size=6)
        )
    options: dict[str, Any] = {}
    valid = True
    for option, option_cases in OPTION_CASES.get(spec.name, {}).items():
        choice = draw(st.sampled_from(["default", "valid", "valid", "valid", "invalid"]))
        if choice == "valid":
            options[option] = draw(st.sampled_from(option_cases.valid))
        elif choice == "invalid":
            options[option] = draw(st.sampled_from(option_cases.invalid))
            valid = False
    return form, references, options, valid


def _check(spec: ps.ScorerSpec, data: st.DataObject) -> None:
    form, references, options, valid = data.draw(cases(spec))
    responses = data.draw(st.lists(cell, min_size=len(references), max_size=len(references)))
    if not valid:
        with pytest.raises(ps.InvalidParameterError):
            spec.expr("response", "reference", **options)
        return
    try:
        spec.expr("response", "reference", **options)
    except ps.InvalidParameterError:
        # Valid values that are invalid together (answer_match with every rule off): the
        # documented build-time error, never a failure inside the query.
        reject()
    dtype = pl.String if form == "string" else pl.List(pl.String)
    df = pl.DataFrame(
        {"response": responses, "reference": references},
        schema={"response": pl.String, "reference": dtype},
    )
    out = df.select(spec.expr("response", "reference", **options)).to_series()
    assert out.dtype == spec.dtype
    for response, reference, got in zip(responses, references, out.to_list(), strict=True):
        if form == "string":
            expected = oracle_score(spec, response, reference, **options)
        else:
            expected = oracle_list_score(spec, response, reference, **options)
        assert same_score(spec, got, expected), (response, reference, options, got, expected)
        if got is not None:
            assert spec.lower <= got <= spec.upper


@pytest.mark.parametrize("spec", FUZZED, ids=FUZZ_IDS)
@given(data=st.data())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_fuzz(spec: ps.ScorerSpec, data: st.DataObject) -> None:
    _check(spec, data)


@pytest.mark.slow
@pytest.mark.parametrize("spec", FUZZED, ids=FUZZ_IDS)
@given(data=st.data())
@settings(
    max_examples=max(300, LONG_RUN_EXAMPLES // max(1, len(FUZZED))),
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
)
def test_fuzz_long(spec: ps.ScorerSpec, data: st.DataObject) -> None:
    _check(spec, data)


def test_every_scorer_is_fuzzed() -> None:
    assert [spec.name for spec in FUZZED] == ps.available_scorers()
