"""Differential fuzzing: every native kernel against its pure-Python oracle, row by row.

The same random rows (the hostile Unicode of ``tests/strategies.py``: Python-only whitespace,
combining marks, digits that are ``\\w`` only in Python, case-mapping and NFKC traps, nulls) go
to a native kernel, through the public expression that calls it, and to the oracle in
``tests/oracles/``; every output field must be equal (floats within the tolerance the
scorer's parity tests use). ``tests/test_fuzz.py`` does the same for every registered scorer's
score with random options; this file covers every kernel the Rust crate exports
(``src/expressions.rs``), including the details structs, the normalisations and the kernels
that only tests call. :data:`NO_ORACLE` lists the kernels without an oracle, and why (none
today); a test checks that no kernel is left out.

The default run draws a few examples per kernel; ``test_differential_long`` (marked ``slow``)
draws hundreds and runs in CI with a fixed seed, next to ``tests/test_fuzz.py``'s long run::

    python -m pytest -m slow tests/test_fuzz.py tests/test_differential.py -p no:randomly \\
        --hypothesis-seed=0

A disagreement found here is fixed, and kept as an ``@example`` of the kernel's case below.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polarscore as ps
from polarscore.frame import resolve_scorers, score_exprs
from polarscore.kernels._plugin import plugin_call
from polarscore.normalize import datarobot_normalize, match_normalize, py_lower
from polarscore.scores.squad import squad_normalize
from tests.oracles import answer_match as oracle_match
from tests.oracles import checks as oracle_checks
from tests.oracles import correct as oracle_correct
from tests.oracles import correctness as oracle_correctness
from tests.oracles import extract as oracle_extract
from tests.oracles import final_answers as oracle_final
from tests.oracles import precision as oracle_precision
from tests.oracles import similarity as oracle_similarity
from tests.oracles import squad as oracle_squad
from tests.strategies import optional_text, text

SRC = Path(__file__).resolve().parents[1] / "src"

#: Kernels the Rust crate exports that have no pure-Python oracle, with the reason.
NO_ORACLE: dict[str, str] = {}


def _number_details(text: str | None) -> dict[str, str | None]:
    """final_number_details' struct as the oracle reads it."""
    if text is None:
        return {"number": None, "form": None, "reason": None}
    found = oracle_final.final_number(text)
    if found is None:
        return {"number": None, "form": None, "reason": "no_number"}
    return {"number": found[0], "form": found[1], "reason": None}


Row = dict[str, Any]


def _number_rule(row: Row) -> dict[str, Any]:
    """correct_number_details' struct as the oracles read it."""
    response, golds = row["response"], row["references"]
    found = None if response is None else oracle_final.final_number(response)
    numbers = [oracle_final.final_number(g) for g in golds or [] if g is not None]
    gold = next((n[0] for n in numbers if n is not None), None)
    reason = (
        "the gold holds no number"
        if gold is None
        else (None if response is None or found is not None else "no_number")
    )
    return {
        "correct": oracle_correct.correct(response, golds, task_kind="numeric"),
        "extracted": None if found is None else found[0],
        "gold": gold,
        "form": None if found is None else found[1],
        "reason": reason,
    }


def _choice_rule(row: Row) -> dict[str, Any]:
    """correct_choice_details' struct as the oracles read it."""
    response, golds = row["response"], row["references"]
    read = (None, None, None) if response is None else oracle_final.final_choice(response)
    first = next((g for g in golds or [] if g is not None and g.strip()), None)
    letter = None if first is None else oracle_correct.gold_letter(first)
    return {
        "correct": oracle_correct.correct(response, golds, task_kind="multiple_choice"),
        "extracted": read[0],
        "gold": letter,
        "form": read[1],
        "reason": "the gold is neither a letter nor one of the options"
        if letter is None
        else read[2],
    }


class _Anything:
    """Equal to every value: an output field the oracle does not model."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


ANY = _Anything()

text_list = st.one_of(st.none(), st.lists(optional_text, max_size=4))
modes = st.one_of(
    st.none(), st.sampled_from(["exact", "EXACT", "Contains", "normalized", "fuzzy"]), text
)


@dataclass(frozen=True)
class Case:
    """One kernel's differential check: rows, the expression, and the oracle of one row."""

    columns: dict[str, tuple[pl.DataType, st.SearchStrategy[Any]]]
    options: st.SearchStrategy[dict[str, Any]]
    expr: Callable[..., pl.Expr]
    oracle: Callable[..., Any]
    #: Absolute tolerance on floats (0: equal).
    tol: float = 0.0


def _same(got: Any, expected: Any, tol: float) -> bool:
    if isinstance(got, dict) and isinstance(expected, dict):
        return got.keys() == expected.keys() and all(_same(got[k], expected[k], tol) for k in got)
    if isinstance(got, list) and isinstance(expected, list):
        return len(got) == len(expected) and all(
            _same(g, e, tol) for g, e in zip(got, expected, strict=True)
        )
    if isinstance(got, float) and isinstance(expected, (int, float)):
        if math.isnan(got) or math.isnan(expected):
            return math.isnan(got) and math.isnan(expected)
        return abs(got - expected) <= tol
    return bool(got == expected)


# --- the oracles of one row, shaped as the kernel's output ------------------------------------


def _correctness(row: Row) -> dict[str, Any]:
    score, reason = oracle_correctness.answer_correctness(
        row["response"], row["reference"], row["mode"]
    )
    mode = str(row["mode"] or "normalized").lower()
    mode = mode if mode in ("exact", "normalized", "contains") else "normalized"
    return {
        "score": score,
        "reason": reason,
        "match_mode": mode,
        "reference_index": None if score is None else 0,
    }


def _letter_gold(references: list[str | None] | None) -> bool:
    """Whether a gold is one ASCII letter in marks (``a``, ``(B)``, ``C.``): answer_match's
    letter rule, which the oracle does not restate (tests/test_match_claims.py covers it),
    may then decide the row."""
    marks = set("()[].* :")
    return any(
        ref is not None
        and sum(c.isascii() and c.isalpha() for c in ref) == 1
        and all((c.isascii() and c.isalpha()) or c in marks for c in ref)
        for ref in references or []
    )


def _match(row: Row, **options: Any) -> dict[str, Any]:
    if _letter_gold(row["references"]):
        return dict.fromkeys(("score", "graded_score", "reference_index", "rule", "reason"), ANY)
    d = oracle_match.answer_match(
        row["response"], row["references"], question=row["question"], **options
    )
    return {
        "score": d.score,
        "graded_score": d.graded_score,
        "reference_index": d.reference_index,
        "rule": d.rule,
        "reason": d.reason,
    }


def _precision(row: Row, **options: Any) -> dict[str, Any]:
    p = oracle_precision.answer_precision(row["response"], row["reference"], **options)
    scored = p.path == "scored"
    return {
        "score": p.score,
        "path": p.path,
        "token_recall": p.components["token_recall"] if scored else None,
        "missing_terms": p.missing,
        "extra_terms": p.extra,
        # The oracle words the guards' reasons its own way; scored rows' reasons must agree.
        "reason": p.reason if scored else ANY,
    }


def _squad(row: Row) -> dict[str, Any]:
    refs = row["references"]
    return {
        "em": oracle_squad.squad_max("em", row["response"], refs)[0],
        "f1": oracle_squad.squad_max("f1", row["response"], refs)[0],
    }


def _fused_default_scorers() -> pl.Expr:
    """The default scorers as whole-frame scoring runs them: one fused call, its fields."""
    schema = pl.Schema({"response": pl.String, "reference": pl.String})
    return pl.struct(score_exprs(schema, resolve_scorers(None)))


def _default_scorers(row: Row) -> dict[str, Any]:
    reference = row["reference"]
    references = None if reference is None else [reference]
    listed = {"response": row["response"], "references": references, "question": None}
    squad = _squad(listed)
    return {
        "correct": (
            ANY if _letter_gold(references) else oracle_correct.correct(row["response"], references)
        ),
        "answer_correctness": _correctness({**row, "mode": "normalized"})["score"],
        "answer_match": _match(listed)["score"],
        "answer_precision": _precision(row)["score"],
        "response_similarity": oracle_similarity.response_similarity(
            row["response"], references, "token_recall"
        )[0],
        "squad_exact_match": squad["em"],
        "squad_f1": squad["f1"],
    }


def _char_ratio(row: Row, char_similarity: str) -> float | None:
    a, b = row["a"], row["b"]
    if a is None or b is None:
        return None
    if char_similarity == "indel":
        return oracle_precision.indel_ratio(a, b)
    return oracle_precision.sequence_matcher_ratio(a, b)


def _contains(row: Row, *, mode: str, case_sensitive: bool) -> dict[str, Any]:
    keywords = [k for k in row["keywords"] or [] if k is not None]
    score, reason = oracle_checks.contains(
        row["response"], keywords, mode=mode, case_sensitive=case_sensitive
    )
    return {"score": score, "reason": reason}


def _numeric_match(row: Row) -> int:
    actual, expected = row["actual"], row["expected"]
    result = oracle_precision.numeric_agreement(actual, expected, row["ta"], row["tr"])
    return round(result.score * len(expected))


def _fields(struct: pl.Expr, names: list[str]) -> pl.Expr:
    return pl.struct(struct.struct.field(name) for name in names)


def _maybe(function: Callable[[str], Any]) -> Callable[[Row], Any]:
    return lambda row: None if row["text"] is None else function(row["text"])


S, L = pl.String(), pl.List(pl.String)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
tolerance = st.sampled_from([0.0, 0.01, 0.5, 2.0])

#: Texts shaped like URLs, with the pieces urlsplit reads (schemes, `//`, netloc ends, brackets).
url_text = st.lists(
    st.sampled_from(
        ["http", "s", "://", ":", "//", "/", "?", "#", "a.b", "[::1]", "[", "]", "é", "1",
         "+", "-", ".", " ", "\t", "\n", "\x01", "\u3000", "@"]
    ),
    max_size=8,
).map("".join)  # fmt: skip
#: Texts shaped like final answers: the pieces of the GSM8K number rules.
number_text = st.lists(
    st.sampled_from(
        ["####", "#### ", "-", "$", ",", ".", "1", "23", "4,567", "8.9", "x", "\n", "A:",
         "A: ", "QA:", " ", "\x1c", "\u3000", "\u2028", "\r", "٣"]
    ),
    max_size=10,
).map("".join)  # fmt: skip
#: Texts shaped like multiple-choice answers: the pieces of final_choice's rules.
final_choice_text = st.lists(
    st.sampled_from(
        ["The answer is ", "ANSWER: ", "Answer:", " is the correct answer", "closest is ",
         "option is ", "then ", "\\boxed{", "}", "**", "(", ")", ".", " ", "\n", " or ", ", ",
         "A", "B", "C", "I", "a", "b", "Question:", " is incorrect", "x", "\x1c", "é"]
    ),
    max_size=12,
).map("".join)  # fmt: skip
#: Gold answers of multiple choice: letters in their marks, blanks, and text that is none.
gold_letter = st.sampled_from(["A", "b", "(C)", "D.", " (e). ", "", " ", "x", "AB", "B)"])
#: Texts that are, or almost are, UTF-8 read as Latin-1 or cp1252.
mojibake_text = st.text(max_size=12).map(lambda t: t.encode("utf-8").decode("latin-1")) | st.text(
    max_size=12
).map(lambda t: t.encode("utf-8", "replace").decode("cp1252", "replace"))

CASES: dict[str, Case] = {
    "answer_correctness_details": Case(
        {"response": (S, optional_text), "reference": (S, optional_text), "mode": (S, modes)},
        st.just({}),
        lambda: ps.answer_correctness_details("response", "reference", match_mode=pl.col("mode")),
        _correctness,
    ),
    "answer_correctness": Case(
        {"response": (S, optional_text), "reference": (S, optional_text), "mode": (S, modes)},
        st.just({}),
        lambda: ps.answer_correctness("response", "reference", match_mode=pl.col("mode")),
        lambda row: _correctness(row)["score"],
    ),
    "py_lower": Case(
        {"text": (S, optional_text)},
        st.just({}),
        lambda: py_lower(pl.col("text")),
        _maybe(str.lower),
    ),
    "datarobot_normalize": Case(
        {"text": (S, optional_text)},
        st.just({}),
        lambda: datarobot_normalize(pl.col("text")),
        _maybe(oracle_correctness.datarobot_normalize),
    ),
    "answer_match_details": Case(
        {
            "response": (S, optional_text),
            "references": (L, text_list),
            "question": (S, optional_text),
        },
        st.fixed_dictionaries(
            {},
            optional={
                "exact": st.booleans(),
                "token_recall": st.booleans(),
                "min_token_recall": st.sampled_from([0.3, 0.5, 1.0]),
                "stem_prefix": st.sampled_from([None, 1, 6]),
                "numbers_must_match": st.booleans(),
                "fold_accents": st.booleans(),
                "number_words": st.booleans(),
            },
        ),
        lambda **o: ps.answer_match_details("response", "references", question="question", **o),
        _match,
    ),
    "answer_match": Case(
        {
            "response": (S, optional_text),
            "references": (L, text_list),
            "question": (S, optional_text),
        },
        st.just({}),
        lambda: ps.answer_match("response", "references", question="question"),
        lambda row: _match(row)["score"],
    ),
    "match_normalize": Case(
        {"text": (S, optional_text)},
        st.fixed_dictionaries({"fold_accents": st.booleans(), "number_words": st.booleans()}),
        lambda **o: match_normalize(pl.col("text"), **o),
        lambda row, **o: None if row["text"] is None else oracle_match.normalize(row["text"], **o),
    ),
    "response_similarity_details": Case(
        {
            "response": (S, optional_text),
            "acceptable": (L, text_list),
            "unacceptable": (L, text_list),
        },
        st.fixed_dictionaries({"metric": st.sampled_from(["token_recall", "token_f1", "rouge_l"])}),
        lambda **o: ps.response_similarity_details(
            "response", "acceptable", unacceptable="unacceptable", **o
        ),
        lambda row, metric: oracle_similarity.similarity_details(
            row["response"], row["acceptable"], row["unacceptable"], metric
        ),
        1e-12,
    ),
    "response_similarity": Case(
        {"response": (S, optional_text), "acceptable": (L, text_list)},
        st.fixed_dictionaries({"metric": st.sampled_from(["token_recall", "token_f1", "rouge_l"])}),
        lambda **o: ps.response_similarity("response", "acceptable", **o),
        lambda row, metric: oracle_similarity.response_similarity(
            row["response"], row["acceptable"], metric
        )[0],
        1e-12,
    ),
    "squad_exact_match": Case(
        {"response": (S, optional_text), "references": (L, text_list)},
        st.just({}),
        lambda: ps.squad_exact_match("response", "references"),
        lambda row: _squad(row)["em"],
    ),
    "squad_f1": Case(
        {"response": (S, optional_text), "references": (L, text_list)},
        st.just({}),
        lambda: ps.squad_f1("response", "references"),
        lambda row: _squad(row)["f1"],
        1e-12,
    ),
    "fused_scores": Case(
        {"response": (S, optional_text), "reference": (S, optional_text)},
        st.just({}),
        _fused_default_scorers,
        _default_scorers,
        1e-12,
    ),
    "squad_normalize": Case(
        {"text": (S, optional_text)},
        st.just({}),
        lambda: squad_normalize(pl.col("text")),
        _maybe(oracle_squad.squad_normalize),
    ),
    "answer_precision_diagnostics": Case(
        {"response": (S, optional_text), "reference": (S, optional_text)},
        st.fixed_dictionaries(
            {},
            optional={
                "char_similarity": st.sampled_from(["indel", "sequence_matcher"]),
                "missing_expected": st.sampled_from(["null", "zero"]),
                "power_p": st.sampled_from([0.3, 1.0, 2.0]),
            },
        ),
        lambda **o: _fields(
            ps.answer_precision_diagnostics("response", "reference", **o),
            ["score", "path", "token_recall", "missing_terms", "extra_terms", "reason"],
        ),
        _precision,
        1e-12,
    ),
    "answer_precision_components": Case(
        {"response": (S, optional_text), "reference": (S, optional_text)},
        st.just({}),
        lambda: ps.answer_precision_components("response", "reference").struct.field("score"),
        lambda row: _precision(row)["score"],
        1e-12,
    ),
    "answer_precision": Case(
        {"response": (S, optional_text), "reference": (S, optional_text)},
        st.fixed_dictionaries(
            {"numeric_tolerance_abs": tolerance, "numeric_tolerance_rel": tolerance}
        ),
        lambda **o: ps.answer_precision("response", "reference", **o),
        lambda row, numeric_tolerance_abs, numeric_tolerance_rel: _precision(
            row, tol_abs=numeric_tolerance_abs, tol_rel=numeric_tolerance_rel
        )["score"],
        1e-12,
    ),
    "precision_normalize": Case(
        {"text": (S, optional_text)},
        st.just({}),
        lambda: plugin_call("precision_normalize", pl.col("text")),
        _maybe(oracle_precision.basic_normalize),
    ),
    "precision_char_ratio": Case(
        {"a": (S, optional_text), "b": (S, optional_text)},
        st.fixed_dictionaries({"char_similarity": st.sampled_from(["indel", "sequence_matcher"])}),
        lambda **o: plugin_call("precision_char_ratio", pl.col("a"), pl.col("b"), **o),
        _char_ratio,
        1e-12,
    ),
    "precision_numeric_match": Case(
        {
            "actual": (pl.List(pl.Float64), st.lists(finite, max_size=6)),
            "expected": (pl.List(pl.Float64), st.lists(finite, max_size=6)),
            "ta": (pl.Float64(), tolerance),
            "tr": (pl.Float64(), tolerance),
        },
        st.just({}),
        lambda: plugin_call(
            "precision_numeric_match",
            pl.col("actual"),
            pl.col("expected"),
            pl.col("ta"),
            pl.col("tr"),
        ).cast(pl.Int64),
        _numeric_match,
    ),
    "keywords_found": Case(
        {"response": (S, optional_text), "keywords": (L, text_list)},
        st.fixed_dictionaries(
            {
                "mode": st.sampled_from(["any", "all", "none"]),
                "case_sensitive": st.booleans(),
            }
        ),
        lambda **o: ps.contains_details("response", keywords=pl.col("keywords"), **o),
        _contains,
    ),
    "keywords_score": Case(
        {"response": (S, optional_text), "keywords": (L, text_list)},
        st.fixed_dictionaries(
            {
                "mode": st.sampled_from(["any", "all", "none"]),
                "case_sensitive": st.booleans(),
            }
        ),
        lambda **o: ps.contains("response", keywords=pl.col("keywords"), **o),
        lambda row, **o: _contains(row, **o)["score"],
    ),
    "py_word_count": Case(
        {"response": (S, optional_text)},
        st.tuples(st.integers(0, 3), st.integers(0, 3)).map(
            lambda t: {"min_length": t[0], "max_length": t[0] + t[1]}
        ),
        lambda **o: ps.length_check_details("response", unit="words", **o),
        lambda row, **o: dict(
            zip(
                ("score", "reason"),
                oracle_checks.length_check(row["response"], unit="words", **o),
                strict=False,
            )
        ),
    ),
    "lower_starts_with": Case(
        {"response": (S, optional_text)},
        st.fixed_dictionaries({"prefix": text}),
        lambda **o: ps.starts_with_details("response", case_sensitive=False, **o),
        lambda row, prefix: dict(
            zip(
                ("score", "reason"),
                oracle_checks.starts_with(row["response"], prefix, case_sensitive=False),
                strict=False,
            )
        ),
    ),
    "exact_match_score": Case(
        {"response": (S, optional_text), "reference": (S, optional_text)},
        st.fixed_dictionaries({"case_sensitive": st.booleans(), "strip_whitespace": st.booleans()}),
        lambda **o: ps.exact_match("response", "reference", **o),
        lambda row, **o: oracle_checks.exact_match(row["response"], row["reference"], **o)[0],
    ),
    "non_empty_score": Case(
        {"response": (S, optional_text)},
        st.just({}),
        lambda: ps.non_empty("response"),
        lambda row: oracle_checks.non_empty(row["response"])[0],
    ),
    "python_regex": Case(
        {"response": (S, optional_text)},
        st.fixed_dictionaries(
            {
                "pattern": st.sampled_from(
                    [r"\bé", r"\w+$", r"(?i)ſ", r"^\s*\d", r"(.)\1", r"(?<=\w)\B", r"[^\W\d]"]
                ),
                "full_match": st.booleans(),
            }
        ),
        lambda **o: ps.regex_match_details("response", **o),
        lambda row, **o: dict(
            zip(("score", "reason"), oracle_checks.regex_match(row["response"], **o), strict=False)
        ),
    ),
    "url_state": Case(
        {"response": (S, st.one_of(optional_text, url_text))},
        st.just({}),
        lambda: ps.format_check("response", format_type="url"),
        lambda row: oracle_checks.format_check(row["response"], format_type="url")[0],
    ),
    "extract_number": Case(
        {"text": (S, st.one_of(optional_text, number_text))},
        st.fixed_dictionaries({"method": st.sampled_from(["strict", "flexible", "answer_line"])}),
        lambda **o: ps.extract_number("text", **o),
        lambda row, method: (
            None if row["text"] is None else oracle_extract.number(row["text"], method)
        ),
    ),
    "numeric_match": Case(
        {
            "response": (S, st.one_of(optional_text, number_text)),
            "reference": (S, st.one_of(optional_text, number_text)),
        },
        st.fixed_dictionaries(
            {
                "method": st.sampled_from(["strict", "flexible", "answer_line"]),
                "numeric_tolerance_abs": tolerance,
                "numeric_tolerance_rel": tolerance,
            }
        ),
        lambda **o: ps.numeric_match("response", "reference", **o),
        lambda row, **o: oracle_extract.numeric_match(row["response"], row["reference"], **o),
    ),
    "repair_mojibake": Case(
        {"text": (S, st.one_of(optional_text, mojibake_text))},
        st.just({}),
        lambda: ps.repair_mojibake("text"),
        _maybe(oracle_match.repair_mojibake),
    ),
    "final_choice": Case(
        {"text": (S, st.one_of(optional_text, final_choice_text))},
        st.just({}),
        lambda: ps.final_choice("text"),
        lambda row: None if row["text"] is None else oracle_final.final_choice(row["text"])[0],
    ),
    "final_choice_details": Case(
        {"text": (S, st.one_of(optional_text, final_choice_text))},
        st.just({}),
        lambda: ps.final_choice_details("text"),
        lambda row: dict(
            zip(
                ("choice", "form", "reason"),
                (None, None, None)
                if row["text"] is None
                else oracle_final.final_choice(row["text"]),
                strict=True,
            )
        ),
    ),
    "final_number": Case(
        {"text": (S, st.one_of(optional_text, number_text))},
        st.just({}),
        lambda: ps.final_number("text"),
        lambda row: (
            None
            if row["text"] is None or (found := oracle_final.final_number(row["text"])) is None
            else found[0]
        ),
    ),
    "final_number_details": Case(
        {"text": (S, st.one_of(optional_text, number_text))},
        st.just({}),
        lambda: ps.final_number_details("text"),
        lambda row: _number_details(row["text"]),
    ),
    "correct_number": Case(
        {
            "response": (S, st.one_of(optional_text, number_text)),
            "references": (L, st.one_of(st.none(), st.lists(st.none() | number_text, max_size=3))),
        },
        st.just({}),
        lambda: plugin_call("correct_number", pl.col("response"), pl.col("references")),
        lambda row: _number_rule(row)["correct"],
    ),
    "correct_number_details": Case(
        {
            "response": (S, st.one_of(optional_text, number_text)),
            "references": (L, st.one_of(st.none(), st.lists(st.none() | number_text, max_size=3))),
        },
        st.just({}),
        lambda: plugin_call("correct_number_details", pl.col("response"), pl.col("references")),
        _number_rule,
    ),
    "correct_choice": Case(
        {
            "response": (S, st.one_of(optional_text, final_choice_text)),
            "references": (L, st.one_of(st.none(), st.lists(st.none() | gold_letter, max_size=3))),
        },
        st.just({}),
        lambda: plugin_call("correct_choice", pl.col("response"), pl.col("references")),
        lambda row: _choice_rule(row)["correct"],
    ),
    "correct_choice_details": Case(
        {
            "response": (S, st.one_of(optional_text, final_choice_text)),
            "references": (L, st.one_of(st.none(), st.lists(st.none() | gold_letter, max_size=3))),
        },
        st.just({}),
        lambda: plugin_call("correct_choice_details", pl.col("response"), pl.col("references")),
        _choice_rule,
    ),
    "choice_match": Case(
        {
            "response": (S, st.one_of(optional_text, final_choice_text)),
            "reference": (
                S,
                st.one_of(optional_text, st.sampled_from(["A", "b", "(C)", "D.", " "])),
            ),
        },
        st.fixed_dictionaries({"rules": st.sampled_from(["mmlu_pro", "answer_is", "final"])}),
        lambda **o: ps.choice_match("response", "reference", **o),
        lambda row, **o: oracle_extract.choice_match(row["response"], row["reference"], **o),
    ),
    "mmlu_pro_choice": Case(
        {
            "text": (
                S,
                st.one_of(
                    optional_text,
                    st.lists(
                        st.sampled_from(
                            [
                                "answer is ",
                                "answer is (",
                                "Answer:",
                                "answer:",
                                "A",
                                "B",
                                "J",
                                "K",
                                "(",
                                ")",
                                " ",
                                "\n",
                                "\u3000",
                                "\u0301",
                                "_",
                                "²",
                                ".",
                            ]
                        ),
                        max_size=10,
                    ).map("".join),
                ),
            )
        },
        st.fixed_dictionaries({"rules": st.sampled_from(["mmlu_pro", "answer_is"])}),
        lambda **o: ps.extract_choice("text", **o),
        lambda row, rules: (
            None
            if row["text"] is None
            else (oracle_extract.mmlu_pro if rules == "mmlu_pro" else oracle_extract.answer_is)(
                row["text"]
            )
        ),
    ),
}


def native_kernels() -> list[str]:
    """The names of the ``#[polars_expr]`` functions of the Rust crate (any module)."""
    return [
        name
        for path in sorted(SRC.rglob("*.rs"))
        for name in re.findall(
            r"#\[polars_expr\([^)]*\)\]\s*fn (\w+)", path.read_text(encoding="utf-8")
        )
    ]


def test_every_native_kernel_has_a_differential_case() -> None:
    kernels = native_kernels()
    assert len(kernels) > 20  # the parse found them
    assert sorted({*CASES, *NO_ORACLE}) == sorted(kernels)
    assert not set(CASES) & set(NO_ORACLE)


@st.composite
def rows(draw: st.DrawFn, case: Case) -> tuple[list[Row], dict[str, Any]]:
    n = draw(st.integers(1, 5))
    table = [
        {name: draw(strategy) for name, (_, strategy) in case.columns.items()} for _ in range(n)
    ]
    return table, draw(case.options)


def _check(name: str, data: st.DataObject) -> None:
    case = CASES[name]
    table, options = data.draw(rows(case))
    schema = {column: dtype for column, (dtype, _) in case.columns.items()}
    df = pl.DataFrame(table, schema=schema, orient="row")
    out = df.select(case.expr(**options).alias("out")).to_series().to_list()
    for row, got in zip(table, out, strict=True):
        expected = case.oracle(row, **options)
        assert _same(got, expected, case.tol), (name, row, options, got, expected)


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_differential(name: str, data: st.DataObject) -> None:
    _check(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_differential_long(name: str, data: st.DataObject) -> None:
    _check(name, data)
