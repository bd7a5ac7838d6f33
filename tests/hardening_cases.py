"""What the hardening suites need to know about each registered scorer, beyond its ScorerSpec.

Every table here is keyed by scorer name and checked for completeness against the registry (see
``test_hardening_options.py::test_every_scorer_is_described``), so a scorer that lands without
its entries fails loudly instead of escaping the hardening suites.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

import polarscore as ps
from tests import oracles, oracles_match

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]

#: A pure-Python oracle per scorer: ``oracle(response, reference, **options) -> float | None``.
#: ``reference`` is a string or ``None`` (the list forms are built from it by the tests).
Oracle = Callable[..., float | None]


def _correctness(response: str | None, reference: str | None, **options: Any) -> float | None:
    mode = options.get("match_mode", "normalized")
    return oracles.answer_correctness(response, reference, mode)[0]


def _literal(value: Any) -> Any:
    """An option given as a literal expression (a per-row option), as its Python value."""
    return pl.select(value).item() if isinstance(value, pl.Expr) else value


def _match_list(
    response: str | None, references: list[str | None] | None, **options: Any
) -> float | None:
    options = {name: _literal(value) for name, value in options.items()}
    return oracles_match.answer_match(response, references, **options).score


def _match(response: str | None, reference: str | None, **options: Any) -> float | None:
    return _match_list(response, [reference], **options)


ORACLES: dict[str, Oracle] = {
    "answer_correctness": _correctness,
    "answer_match": _match,
}

#: Per (scorer, option): valid literal values (the fuzz suite draws from them) and invalid ones
#: (each must raise InvalidParameterError when the expression is built).
NAN, INF = math.nan, math.inf


class OptionCases:
    def __init__(self, valid: tuple[Any, ...], invalid: tuple[Any, ...]) -> None:
        self.valid = valid
        self.invalid = invalid


OPTION_CASES: dict[str, Mapping[str, OptionCases]] = {
    "answer_correctness": {
        "match_mode": OptionCases(
            valid=("exact", "normalized", "contains", "EXACT", "Contains"),
            invalid=("exakt", "", " exact", None, 1, True, NAN, ["exact"]),
        ),
    },
    "answer_match": {
        "question": OptionCases(
            valid=(None, pl.lit("What is the capital of France?"), pl.lit("")),
            invalid=(42, 1.5, b"question", ["q"]),
        ),
        "exact": OptionCases(valid=(True, False), invalid=(1, 0, "yes", None)),
        "contains": OptionCases(valid=(True, False), invalid=(1, "no", None)),
        "token_recall": OptionCases(valid=(True, False), invalid=(0, "true", None)),
        "min_token_recall": OptionCases(
            valid=(0.3, 1.0, 1, 0.01), invalid=(0, 0.0, -0.1, 1.1, NAN, INF, "0.5", None, True)
        ),
        "stem_prefix": OptionCases(valid=(6, 1, 100, None), invalid=(0, -1, 2.5, "6", True, NAN)),
        "numbers_must_match": OptionCases(valid=(True, False), invalid=(1, "yes", None)),
        "fold_accents": OptionCases(valid=(True, False), invalid=(0, "no", None)),
        "number_words": OptionCases(valid=(True, False), invalid=(1, "x", None)),
    },
}


def reference_forms(spec: ps.ScorerSpec) -> list[str]:
    """The reference shapes a scorer takes: ``"string"``, ``"list"`` or both."""
    return {"string": ["string"], "list": ["list"], "string_or_list": ["string", "list"]}[
        spec.reference_kind
    ]


def as_form(reference: pl.Expr, form: str) -> pl.Expr:
    """A string reference column as the given form (a list holds the one reference)."""
    if form == "string":
        return reference
    return pl.when(reference.is_null()).then(None).otherwise(pl.concat_list(reference))


def oracle_score(
    spec: ps.ScorerSpec, response: str | None, reference: str | None, **options: Any
) -> float | None:
    return ORACLES[spec.name](response, reference, **options)


def option_sets(spec: ps.ScorerSpec) -> list[dict[str, Any]]:
    """The default options, then each declared valid value of each option on its own."""
    sets: list[dict[str, Any]] = [{}]
    for option, cases in OPTION_CASES.get(spec.name, {}).items():
        default = spec.options.get(option)
        sets += [
            {option: value}
            for value in cases.valid
            if isinstance(value, pl.Expr) or type(value) is not type(default) or value != default
        ]
    return sets


#: Absolute tolerance of the comparison with the oracle, per scorer (exact unless stated).
ORACLE_TOLERANCE: dict[str, float] = {}


def same_score(spec: ps.ScorerSpec, got: float | None, expected: float | None) -> bool:
    if got is None or expected is None:
        return got is None and expected is None
    return math.isclose(got, expected, rel_tol=0.0, abs_tol=ORACLE_TOLERANCE.get(spec.name, 0.0))


#: Per scorer, an oracle over a *list* of references, where the single-reference oracle lifted
#: to "the best usable item" is not the reference behaviour.
LIST_ORACLES: dict[str, Callable[..., float | None]] = {
    "answer_match": _match_list,
}


def oracle_list_score(
    spec: ps.ScorerSpec, response: str | None, references: list[str | None] | None, **options: Any
) -> float | None:
    """The oracle on a list of references: the best score of the usable (non-null) items."""
    if spec.name in LIST_ORACLES:
        return LIST_ORACLES[spec.name](response, references, **options)
    if references is None:
        return None
    scores = [ORACLES[spec.name](response, ref, **options) for ref in references]
    usable = [s for s in scores if s is not None]
    return max(usable) if usable else None
