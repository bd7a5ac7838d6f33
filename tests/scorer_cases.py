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
from dataclasses import dataclass
from typing import Any

import polars as pl

import polarscore as ps
from polarscore.scores.match import CLAIM_DEFAULTS
from tests.oracles import answer_match as oracle_match
from tests.oracles import checks as oracle_checks
from tests.oracles import correct as oracle_correct
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
    # The oracle has no rejection rules (hedges, negations, sweeps, loops, letters): it is the
    # kernel with them off, which random text seldom tells apart; tests/test_match_claims.py
    # checks the rules themselves.
    options = {
        name: _literal(value) for name, value in options.items() if name not in CLAIM_DEFAULTS
    }
    return oracle_match.answer_match(response, references, **options).score


def _match(response: str | None, reference: str | None, **options: Any) -> float | None:
    return _match_list(response, [reference], **options)


def _precision(response: str | None, reference: str | None, **options: Any) -> float | None:
    from polarscore.stopwords import resolve_stopwords

    options.pop("max_work", None)  # the valid bounds all let the oracle's rows finish

    stopwords = resolve_stopwords(options.pop("stopwords", None), function="oracle")
    options["tol_abs"] = options.pop("numeric_tolerance_abs", 0.0)
    options["tol_rel"] = options.pop("numeric_tolerance_rel", 0.0)
    return oracle_precision.answer_precision(
        response, reference, stopwords=stopwords, **options
    ).score


def _similarity(response: str | None, acceptable: Any, **options: Any) -> float | None:
    options.pop("max_work", None)  # the valid bounds all let the oracle's rows finish
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
        # Python's re has no step budget; the valid budgets are too large to matter here.
        options.pop("step_budget", None)
        if name == "exact_match":
            return float(check(response, reference, **options)[0])
        return float(check(response, **options)[0])

    return oracle


def _correct_list(
    response: str | None, references: list[str | None] | None, **options: Any
) -> float | None:
    options = {name: _literal(value) for name, value in options.items()}
    return oracle_correct.correct(response, references, **options)


def _correct(response: str | None, reference: str | None, **options: Any) -> float | None:
    return _correct_list(response, [reference], **options)


ORACLES: dict[str, Oracle] = {
    **{name: _check(name) for name in oracle_checks.ORACLES},
    "correct": _correct,
    "answer_correctness": _correctness,
    "answer_match": _match,
    "answer_precision": _precision,
    "response_similarity": _similarity,
    "squad_exact_match": _squad("em"),
    "squad_f1": _squad("f1"),
    "choice_match": oracle_extract.choice_match,
    "numeric_match": oracle_extract.numeric_match,
}

NAN, INF = math.nan, math.inf


@dataclass(frozen=True)
class Invalid:
    """An invalid option value whose error must also hold ``message`` (the offending entry of a
    collection, the rule the value breaks)."""

    value: Any
    message: str


class OptionCases:
    """One option's valid literal values (the fuzz suite draws from them) and invalid ones.

    Every invalid value must raise InvalidParameterError when the expression is built, in the
    house template (``The 'option' parameter of function must be ... Got ... instead.``), its
    message holding each of ``messages`` (what is allowed), and an :class:`Invalid` value's
    message its own fragment too.
    """

    def __init__(
        self,
        valid: tuple[Any, ...],
        invalid: tuple[Any, ...],
        *,
        messages: tuple[str, ...] = (),
    ) -> None:
        self.valid = valid
        self.invalid = tuple(v.value if isinstance(v, Invalid) else v for v in invalid)
        self.messages = messages
        #: (index into ``invalid``, the fragment its message holds).
        self.value_messages = tuple(
            (i, v.message) for i, v in enumerate(invalid) if isinstance(v, Invalid)
        )

    def messages_for(self, index: int) -> tuple[str, ...]:
        """The fragments the error of ``invalid[index]`` must hold."""
        return (*self.messages, *(m for i, m in self.value_messages if i == index))


def _one_of(*choices: str) -> str:
    return f"must be one of {', '.join(map(repr, choices))}."


def _flag(*invalid: Any) -> OptionCases:
    """A True/False option."""
    return OptionCases(valid=(True, False), invalid=invalid, messages=("must be True or False.",))


_BOOL = _flag(1, "yes", "no", None)
_MAX_WORK = OptionCases(
    # (every valid bound lets the oracle's rows finish; tests/test_long_text.py runs small ones)
    valid=(10_000_000, 2_500_000_000, None),
    invalid=(0, -1, 2.5, False, "1e9"),
    messages=("must be a positive integer, or None for no bound.",),
)
_STEP_BUDGET = OptionCases(
    # (tests/test_regex.py runs tiny budgets; here every budget lets the oracle's rows finish)
    valid=(1_000_000, 10_000_000, None),
    invalid=(0, -5, 1.5, True, "10", float("inf")),
    messages=("must be a positive integer, or None for no bound.",),
)
# "__no_such_choice__" is the generic invalid string of the option suite; as a prefix or a
# pattern it is an ordinary valid value.
_AFFIX = OptionCases(
    valid=("", "Par", "PARIS", "ΟΔΟΣ", " ", "\x1c", "__no_such_choice__"),
    invalid=(None, 1, 3, ["Par"]),
    messages=("must be a string, or a polars expression giving one per row.",),
)
_TOLERANCE = OptionCases(
    valid=(0.0, 0.5, 2, 0.01),
    invalid=(-1, NAN, INF, "1", None, True),
    messages=("must be a finite number >= 0",),
)
_LENGTH = "must be a whole number >= 0, or a polars expression giving one per row."
_PER_ROW_TOLERANCE = "must be a finite number >= 0, or a polars expression giving one per row."
_COLUMN = "must be a column name, a polars expression or a polars Series."
_COMPILE = "must be a pattern Python's re can compile"
_SCHEMA = "must be a valid JSON schema"

OPTION_CASES: dict[str, Mapping[str, OptionCases]] = {
    "correct": {
        "task_kind": OptionCases(
            valid=("multiple_choice", "numeric", "short_answer", "free_form", "none"),
            invalid=("mcq", "", "Numeric", 42, 1.5),
            messages=("must be one of 'multiple_choice', 'numeric', 'short_answer'",),
        ),
        "question": OptionCases(
            valid=(None, pl.lit("What is the capital of France?")),
            invalid=(42, 1.5, b"question"),
            messages=(_COLUMN,),
        ),
        "choices": OptionCases(
            valid=(None,),
            invalid=(42, 1.5, b"options"),
            messages=(_COLUMN,),
        ),
    },
    "choice_match": {
        "rules": OptionCases(
            valid=("mmlu_pro", "answer_is", "final"),
            invalid=("MMLU", "", None, 1),
            messages=(_one_of("mmlu_pro", "answer_is", "final"),),
        ),
        "choices": OptionCases(valid=(None,), invalid=(42, 1.5), messages=(_COLUMN,)),
    },
    "numeric_match": {
        "method": OptionCases(
            valid=("strict", "flexible", "answer_line", "final"),
            invalid=("last", "Strict", "", None, 1),
            messages=(_one_of("strict", "flexible", "answer_line", "final"),),
        ),
        "numeric_tolerance_abs": _TOLERANCE,
        "numeric_tolerance_rel": _TOLERANCE,
    },
    "contains": {
        "keywords": OptionCases(
            valid=((), ["paris"], ["Paris", "42", ""], ("ß", "İ", "Σ", "ς"), ["a", "a"]),
            invalid=("Paris", [1], ["a", 1], 42, None, ["a", None]),
            messages=("must be a list of strings",),
        ),
        "mode": OptionCases(
            valid=("any", "all", "none"),
            invalid=("ALL", "Any", " all", "", "some", None, 1),
            messages=(_one_of("any", "all", "none"),),
        ),
        "case_sensitive": _BOOL,
    },
    "starts_with": {"prefix": _AFFIX, "case_sensitive": _BOOL},
    "ends_with": {"suffix": _AFFIX, "case_sensitive": _BOOL},
    "exact_match": {"case_sensitive": _BOOL, "strip_whitespace": _BOOL},
    "length_check": {
        "min_length": OptionCases(
            valid=(0, 1, 5), invalid=(-1, 1.5, "3", True, None), messages=(_LENGTH,)
        ),
        "max_length": OptionCases(
            valid=(10000, 5, 100), invalid=(-1, 2.5, "10", False, None), messages=(_LENGTH,)
        ),
        "unit": OptionCases(
            valid=("chars", "words"),
            invalid=("WORDS", "word", "tokens", "", None),
            messages=(_one_of("chars", "words"),),
        ),
    },
    "format_check": {
        "format_type": OptionCases(
            valid=("email", "url", "phone", "date"),
            invalid=("Email", "uri", "", "telephone", None),
            messages=(_one_of("email", "url", "phone", "date"),),
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
            invalid=(
                Invalid("(", f"{_COMPILE} (missing ), unterminated subpattern"),
                Invalid(r"\p{L}", rf"{_COMPILE} (bad escape \p"),
                Invalid(r"\p{L}+", rf"{_COMPILE} (bad escape \p"),
                Invalid("(?<name>x)", f"{_COMPILE} (unknown extension ?<n"),
                Invalid("[", f"{_COMPILE} (unterminated character set"),
                Invalid("a**", f"{_COMPILE} (multiple repeat"),
                Invalid(r"\z", rf"{_COMPILE} (bad escape \z"),
                None,
                1,
            ),
        ),
        "full_match": _BOOL,
        "step_budget": _STEP_BUDGET,
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
            invalid=(
                Invalid(
                    value=False,
                    message="must be a JSON schema object (a dict; a boolean schema is read as "
                    "'accept everything'",
                ),
                True,
                [],
                "x",
                Invalid({"type": "strin"}, f"{_SCHEMA} ('strin' is not valid"),
                Invalid({"minLength": -1}, f"{_SCHEMA} (-1 is less than the minimum of 0)"),
                Invalid({"items": [{"type": "integer"}]}, _SCHEMA),
                Invalid({"required": "answer"}, f"{_SCHEMA} ('answer' is not of type 'array')"),
                Invalid({"$ref": "#/nope"}, f"{_SCHEMA} ($ref '#/nope' cannot be resolved"),
                Invalid({"$ref": "https://example.com/s.json"}, "is never fetched"),
            ),
        ),
        "step_budget": _STEP_BUDGET,
    },
    "language_detection": {
        "expected_language": OptionCases(
            valid=("en", "fr", "zh-cn"),
            invalid=(
                *(
                    Invalid(code, "must be one of 'af', 'ar', 'bg',")
                    for code in ("EN", "english", "zh", "pt-BR", "", " en", "unknown")
                ),
                Invalid(None, "must be a string, or a polars expression giving one per row."),
            ),
        )
    },
    "answer_correctness": {
        "match_mode": OptionCases(
            valid=("exact", "normalized", "contains", "EXACT", "Contains"),
            invalid=("exakt", "", " exact", "fuzzy", None, 1, True, NAN, ["exact"]),
            messages=(
                "must be one of 'exact', 'normalized', 'contains' (any case), or a polars "
                "expression giving one mode per row.",
            ),
        ),
    },
    "response_similarity": {
        "metric": OptionCases(
            valid=("token_recall", "token_f1", "rouge_l"),
            invalid=("bleu", "rouge", "ROUGE_L", None, 1),
            messages=(_one_of("token_recall", "token_f1", "rouge_l"),),
        ),
        "unacceptable": OptionCases(valid=(None,), invalid=(42, 1.5), messages=(_COLUMN,)),
        "max_work": _MAX_WORK,
    },
    "answer_precision": {
        "max_work": _MAX_WORK,
        "char_similarity": OptionCases(
            valid=("indel", "sequence_matcher"),
            invalid=("levenshtein", "Indel", None, 1),
            messages=(_one_of("indel", "sequence_matcher"),),
        ),
        "missing_expected": OptionCases(
            valid=("null", "zero"), invalid=("none", None, 0), messages=(_one_of("null", "zero"),)
        ),
        "numeric_tolerance_abs": OptionCases(
            valid=(0.0, 0, 0.5, 1e-9, 10, 1e308),
            invalid=(-0.1, -1, NAN, INF, -INF, "0.1", None, True),
            messages=(_PER_ROW_TOLERANCE,),
        ),
        "numeric_tolerance_rel": OptionCases(
            valid=(0.0, 0.05, 1, 1e308),
            invalid=(-0.1, NAN, INF, -INF, "0.1", None, False),
            messages=(_PER_ROW_TOLERANCE,),
        ),
        "power_p": OptionCases(
            valid=(0.3, 1.0, 2, 0.05),
            invalid=(0, 0.0, -0.3, NAN, INF, "0.3", None, True),
            messages=("must be a finite number > 0.",),
        ),
        "weights": OptionCases(
            valid=(None, {"contains": 1.0}, {"numeric": 0.5, "char_ratio": 0.5, "exact": 0.1}),
            invalid=(
                Invalid({}, "must be a non-empty mapping from component names ('contains',"),
                Invalid({"bogus": 1.0}, "must be one of 'contains', 'char_ratio',"),
                Invalid({"contains": 1.0, "bogus": 1.0}, "Got 'bogus' instead"),
                Invalid({"contains": -1.0}, "must be a finite number >= 0."),
                Invalid({"contains": NAN}, "must be a finite number >= 0."),
                Invalid({"contains": 0.0, "numeric": 0.0}, "a mapping with a positive weight"),
                Invalid(["contains"], "must be a non-empty mapping"),
            ),
        ),
        "stopwords": OptionCases(
            valid=(None, "en", (), ("paris", "answer")),
            invalid=(
                Invalid("xx", "a language code ('de', 'en', 'es', 'fr', 'ru')"),
                Invalid("english", "a language code ('de', 'en', 'es', 'fr', 'ru')"),
                42,
                ("two words",),
                Invalid(["two words"], "Got the entry 'two words' instead"),
                Invalid(["ok", "don't"], 'Got the entry "don\'t" instead'),
                ("",),
                (42,),
                Invalid([3], "Got the entry 3 instead"),
            ),
        ),
    },
    "answer_match": {
        "question": OptionCases(
            valid=(None, pl.lit("What is the capital of France?"), pl.lit("")),
            invalid=(42, 1.5, b"question", ["q"]),
            messages=(_COLUMN,),
        ),
        "exact": _flag(1, 0, "yes", None),
        "contains": _flag(1, "no", None),
        "token_recall": _flag(0, "true", None),
        "min_token_recall": OptionCases(
            valid=(0.3, 1.0, 1, 0.01),
            invalid=(0, 0.0, -0.1, 1.1, 1.5, NAN, INF, "0.5", "high", None, True),
            messages=("must be a finite number > 0 and <= 1.",),
        ),
        "stem_prefix": OptionCases(
            valid=(6, 1, 100, None),
            invalid=(0, -1, 2.5, 6.0, "6", True, NAN),
            messages=("must be a positive integer, or None for no stemming.",),
        ),
        "numbers_must_match": _flag(1, "yes", None),
        "fold_accents": _flag(0, "no", None),
        "number_words": _flag(1, "x", None),
        "dates": _flag(1, "yes", None),
        "parentheticals": _flag(0, "no", None),
        "repair_mojibake": _flag(1, "x", None),
        "approximate_numbers": _flag(0, "on", None),
        "glued_words": _flag(1, 0, "split", None),
        "hedges": _flag(0, "no", None),
        "negations": _flag(1, "x", None),
        "sweeps": _flag(0, "off", None),
        "degenerate_loops": _flag(1, "yes", None),
        "letters": _flag(0, "no", None),
    },
}

#: Option values each valid alone that are invalid together: (scorer, options, the option the
#: error names). Each must fail when the expression is built, as a single invalid value does.
INVALID_COMBINATIONS: list[tuple[str, dict[str, Any], str]] = [
    ("answer_match", {"exact": False, "contains": False, "token_recall": False}, "token_recall"),
    ("length_check", {"min_length": 10, "max_length": 5}, "min_length"),
]

#: The other public functions that take a scorer's options (its details, components,
#: extraction): every invalid value of an option they take must fail in them too, naming them.
COMPANIONS: dict[str, tuple[Callable[..., pl.Expr], ...]] = {
    "answer_correctness": (ps.answer_correctness_details,),
    "answer_match": (ps.answer_match_details,),
    "correct": (ps.correct_details,),
    "answer_precision": (ps.answer_precision_components, ps.answer_precision_diagnostics),
    "response_similarity": (ps.response_similarity_details,),
    "choice_match": (ps.extract_choice, ps.final_choice, ps.final_choice_details),
    "numeric_match": (ps.extract_number,),
    **{name: (getattr(ps, f"{name}_details"),) for name in oracle_checks.ORACLES},
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
    "correct": _correct_list,
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
