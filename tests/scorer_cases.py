"""What the registry-driven suites need to know about each registered scorer, beyond its ScorerSpec.

Its oracle, its options' valid and invalid values, and the tolerances of the comparison with the
oracle. Every table here is keyed by scorer name and checked for completeness against the
registry (see ``test_options.py::test_every_scorer_is_described``), so a scorer that lands
without its entries fails loudly instead of escaping the suites that read them
(``test_options.py``, ``test_input_types.py``, ``test_hostile_text.py``, ``test_fuzz.py``,
``test_determinism.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

import polarscore as ps
from tests.oracles import answer_match as oracle_match
from tests.oracles import checks as oracle_checks
from tests.oracles import correctness as oracle_correctness
from tests.oracles import extract as oracle_extract
from tests.oracles import precision as oracle_precision
from tests.oracles import similarity as oracle_similarity
from tests.oracles import squad as oracle_squad

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]

#: A pure-Python oracle per scorer: ``oracle(response, reference, **options) -> float | None``.
#: ``reference`` is a string or ``None`` (the list forms are built from it by the tests).
Oracle = Callable[..., float | None]


def _correctness(response: str | None, reference: str | None, **options: Any) -> float | None:
    mode = options.get("match_mode", "normalized")
    return oracle_correctness.answer_correctness(response, reference, mode)[0]


def _literal(value: Any) -> Any:
    """An option given as a literal expression (a per-row option), as its Python value."""
    return pl.select(value).item() if isinstance(value, pl.Expr) else value


def _match_list(
    response: str | None, references: list[str | None] | None, **options: Any
) -> float | None:
    options = {name: _literal(value) for name, value in options.items()}
    return oracle_match.answer_match(response, references, **options).score


def _match(response: str | None, reference: str | None, **options: Any) -> float | None:
    return _match_list(response, [reference], **options)


def _precision(response: str | None, reference: str | None, **options: Any) -> float | None:
    from polarscore.stopwords import resolve_stopwords

    stopwords = resolve_stopwords(options.pop("stopwords", None), function="oracle")
    options["tol_abs"] = options.pop("numeric_tolerance_abs", 0.0)
    options["tol_rel"] = options.pop("numeric_tolerance_rel", 0.0)
    return oracle_precision.answer_precision(
        response, reference, stopwords=stopwords, **options
    ).score


def _similarity(response: str | None, acceptable: Any, **options: Any) -> float | None:
    score = oracle_similarity.response_similarity(
        response, acceptable, options.get("metric", "token_recall")
    )[0]
    return None if score is None else round(score, 4)


def _squad(pair: str) -> Oracle:
    def oracle(response: str | None, truths: Any, **options: Any) -> float | None:
        return oracle_squad.squad_max(pair, response, truths)[0]

    return oracle


def _check(name: str) -> Oracle:
    """A judge-free check's oracle: the response alone, or (exact_match) with the reference."""
    check = oracle_checks.ORACLES[name]

    def oracle(response: str | None, reference: str | None, **options: Any) -> float | None:
        options = {option: _literal(value) for option, value in options.items()}
        if name == "exact_match":
            return float(check(response, reference, **options)[0])
        return float(check(response, **options)[0])

    return oracle


ORACLES: dict[str, Oracle] = {
    **{name: _check(name) for name in oracle_checks.ORACLES},
    "answer_correctness": _correctness,
    "answer_match": _match,
    "answer_precision": _precision,
    "response_similarity": _similarity,
    "squad_exact_match": _squad("em"),
    "squad_f1": _squad("f1"),
    "choice_match": oracle_extract.choice_match,
    "numeric_match": oracle_extract.numeric_match,
}

#: Per (scorer, option): valid literal values (the fuzz suite draws from them) and invalid ones
#: (each must raise InvalidParameterError when the expression is built).
NAN, INF = math.nan, math.inf


class OptionCases:
    def __init__(self, valid: tuple[Any, ...], invalid: tuple[Any, ...]) -> None:
        self.valid = valid
        self.invalid = invalid


_BOOL = OptionCases(valid=(True, False), invalid=(1, "yes", None))
# "__no_such_choice__" is the generic invalid string of the option suite; as a prefix or a
# pattern it is an ordinary valid value.
_AFFIX = OptionCases(
    valid=("", "Par", "PARIS", "ΟΔΟΣ", " ", "\x1c", "__no_such_choice__"),
    invalid=(None, 1, ["Par"]),
)

_TOLERANCE = OptionCases(valid=(0.0, 0.5, 2, 0.01), invalid=(-1, NAN, INF, "1", None, True))

OPTION_CASES: dict[str, Mapping[str, OptionCases]] = {
    "choice_match": {
        "rules": OptionCases(valid=("mmlu_pro", "answer_is"), invalid=("MMLU", "", None, 1)),
    },
    "numeric_match": {
        "method": OptionCases(
            valid=("strict", "flexible", "answer_line"), invalid=("last", "Strict", "", None, 1)
        ),
        "numeric_tolerance_abs": _TOLERANCE,
        "numeric_tolerance_rel": _TOLERANCE,
    },
    "contains": {
        "keywords": OptionCases(
            valid=((), ["paris"], ["Paris", "42", ""], ("ß", "İ", "Σ", "ς"), ["a", "a"]),
            invalid=("Paris", [1], 42, None, ["a", None]),
        ),
        "mode": OptionCases(
            valid=("any", "all", "none"), invalid=("ALL", "Any", " all", "", "some", None, 1)
        ),
        "case_sensitive": _BOOL,
    },
    "starts_with": {"prefix": _AFFIX, "case_sensitive": _BOOL},
    "ends_with": {"suffix": _AFFIX, "case_sensitive": _BOOL},
    "exact_match": {"case_sensitive": _BOOL, "strip_whitespace": _BOOL},
    "length_check": {
        "min_length": OptionCases(valid=(0, 1, 5), invalid=(-1, 1.5, "3", True, None)),
        "max_length": OptionCases(valid=(10000, 5, 100), invalid=(-1, 2.5, "10", False, None)),
        "unit": OptionCases(
            valid=("chars", "words"), invalid=("WORDS", "word", "tokens", "", None)
        ),
    },
    "format_check": {
        "format_type": OptionCases(
            valid=("email", "url", "phone", "date"),
            invalid=("Email", "uri", "", "telephone", None),
        )
    },
    "regex_match": {
        "pattern": OptionCases(
            valid=(
                "",
                "__no_such_choice__",
                r"\d+$",
                "(?i)paris",
                r"^\w+$",
                r"(?<=\$)\d+",
                "a|ab",
                r"\bcafe\b",
                "[0-9]+",
                r"\s\S",
                "(?a)\\w+",
                "ς|ß",
            ),
            invalid=("(", r"\p{L}", "[", "a**", r"\z", None, 1),
        ),
        "full_match": _BOOL,
    },
    "json_schema": {
        "schema": OptionCases(
            valid=(
                None,
                {},
                {"type": "object"},
                {"type": "integer"},
                {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
                {"type": "string", "pattern": "^\\d+$"},
            ),
            invalid=(False, True, [], "x", {"type": "strin"}, {"minLength": -1}),
        )
    },
    "language_detection": {
        "expected_language": OptionCases(
            valid=("en", "fr", "zh-cn"),
            invalid=("EN", "english", "zh", "", " en", "unknown", None),
        )
    },
    "answer_correctness": {
        "match_mode": OptionCases(
            valid=("exact", "normalized", "contains", "EXACT", "Contains"),
            invalid=("exakt", "", " exact", None, 1, True, NAN, ["exact"]),
        ),
    },
    "response_similarity": {
        "metric": OptionCases(
            valid=("token_recall", "token_f1", "rouge_l"), invalid=("bleu", "ROUGE_L", None, 1)
        ),
        "unacceptable": OptionCases(valid=(None,), invalid=(42, 1.5)),
    },
    "answer_precision": {
        "char_similarity": OptionCases(
            valid=("indel", "sequence_matcher"), invalid=("levenshtein", "Indel", None, 1)
        ),
        "missing_expected": OptionCases(valid=("null", "zero"), invalid=("none", None, 0)),
        "numeric_tolerance_abs": OptionCases(
            valid=(0.0, 0, 0.5, 1e-9, 10, 1e308),
            invalid=(-0.1, -1, NAN, INF, -INF, "0.1", None, True),
        ),
        "numeric_tolerance_rel": OptionCases(
            valid=(0.0, 0.05, 1, 1e308), invalid=(-0.1, NAN, INF, -INF, "0.1", None, False)
        ),
        "power_p": OptionCases(
            valid=(0.3, 1.0, 2, 0.05), invalid=(0, 0.0, -0.3, NAN, INF, "0.3", None, True)
        ),
        "weights": OptionCases(
            valid=(None, {"contains": 1.0}, {"numeric": 0.5, "char_ratio": 0.5, "exact": 0.1}),
            invalid=({}, {"bogus": 1.0}, {"contains": -1.0}, {"contains": NAN}, ["contains"]),
        ),
        "stopwords": OptionCases(
            valid=(None, "en", (), ("paris", "answer")),
            invalid=("xx", 42, ("two words",), ("",), (42,)),
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
        "dates": OptionCases(valid=(True, False), invalid=(1, "yes", None)),
        "parentheticals": OptionCases(valid=(True, False), invalid=(0, "no", None)),
        "repair_mojibake": OptionCases(valid=(True, False), invalid=(1, "x", None)),
        "approximate_numbers": OptionCases(valid=(True, False), invalid=(0, "on", None)),
        "glued_words": OptionCases(valid=(True, False), invalid=(1, "split", None)),
    },
}


def reference_forms(spec: ps.ScorerSpec) -> list[str]:
    """The reference shapes a scorer takes: ``"string"``, ``"list"`` or both."""
    return {
        "string": ["string"],
        "list": ["list"],
        "string_or_list": ["string", "list"],
        "none": ["string"],  # a check of the response alone: the reference is not read
    }[spec.reference_kind]


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
ORACLE_TOLERANCE: dict[str, float] = {
    # Float sums in another order than the oracle's; the scorer's own suite uses 1e-12 too.
    "answer_precision": 1e-12,
    # The reference rounds to 4 digits; Polars' round differs from Python's on near-ties.
    "response_similarity": 1e-4,
}


def same_score(spec: ps.ScorerSpec, got: float | None, expected: float | None) -> bool:
    if got is None or expected is None:
        return got is None and expected is None
    return math.isclose(got, expected, rel_tol=0.0, abs_tol=ORACLE_TOLERANCE.get(spec.name, 0.0))


#: Per scorer, an oracle over a *list* of references, where the single-reference oracle lifted
#: to "the best usable item" is not the reference behaviour.
LIST_ORACLES: dict[str, Callable[..., float | None]] = {
    "answer_match": _match_list,
    "response_similarity": _similarity,
    "squad_exact_match": _squad("em"),
    "squad_f1": _squad("f1"),
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


#: Oracles with quadratic work (a pure-Python character DP): pairs whose length product exceeds
#: this are checked for range and engine agreement only, not against the oracle.
ORACLE_MAX_PRODUCT: dict[str, int] = {
    "answer_precision": 2_000_000,
}


#: Oracles whose regular expressions backtrack quadratically over one long text (the MMLU-Pro
#: harness's `.*[aA]nswer:` and its last-letter look-ahead): longer responses are checked for
#: range and engine agreement only.
ORACLE_MAX_RESPONSE: dict[str, int] = {
    "choice_match": 20_000,
}


def oracle_feasible(spec: ps.ScorerSpec, response: str | None, reference: str | None) -> bool:
    if len(response or "") > ORACLE_MAX_RESPONSE.get(spec.name, len(response or "")):
        return False
    limit = ORACLE_MAX_PRODUCT.get(spec.name)
    return limit is None or len(response or "") * len(reference or "") <= limit
