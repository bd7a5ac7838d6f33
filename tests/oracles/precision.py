"""A slow, obviously-correct pure-Python answer precision (tests only).

Written from eval-ai-library's ``AnswerPrecisionMetric``.

Plain Python throughout: ``re`` with ``str`` patterns (Python's own ``\\s``/``\\d``),
``unicodedata.normalize``, ``str.lower``, ``float()`` and ``difflib``. It shares no code with the
Polars implementation, its regex classes or its kernels.
"""

from __future__ import annotations

import difflib
import math
import re
import string
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from tests.oracles.tokens import lcs_length

#: The 26 words of the reference's module-level STOPWORDS.
REFERENCE_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "if",
        "then",
        "else",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "as",
        "by",
        "at",
        "from",
        "that",
        "this",
        "it",
        "is",
        "are",
        "was",
        "were",
    ]
)
#: The default weights, in the reference's summation order.
DEFAULT_WEIGHTS = {"contains": 0.48, "char_ratio": 0.32, "token_precision": 0.15, "numeric": 0.35}
#: The order in which components enter the power mean (the reference's four first).
ORDER = (
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "exact",
    "normalized",
    "token_recall",
)

_LINK = re.compile(r"\[([^\]]+)\]\(\s*https?://[^)]+\s*\)")
_URL = re.compile(r"https?://\S+")
_NUMBER = re.compile(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?")


def basic_normalize(text: str) -> str:
    """The basic normalisation: links to labels, URLs removed, NFKC, lower, strip, collapse."""
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("", text)
    text = unicodedata.normalize("NFKC", text).lower().strip()
    return re.sub(r"\s+", " ", text)


def tokens(text: str, stopwords: Collection[str] = REFERENCE_STOPWORDS) -> list[str]:
    """Token sets: ASCII punctuation becomes a space, split on spaces, stopwords dropped."""
    norm = basic_normalize(text)
    norm = "".join(" " if c in string.punctuation else c for c in norm)
    norm = re.sub(r"\s+", " ", norm).strip()
    return [t for t in norm.split(" ") if t and t not in stopwords]


def numbers(text: str) -> list[float]:
    """Numbers: the number regex on the raw text, each match through ``float()``."""
    return [float(m) for m in _NUMBER.findall(text)]


def sequence_matcher_ratio(a: str, b: str) -> float:
    """Character similarity: difflib with autojunk on b (the expected side)."""
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b).ratio()


def indel_ratio(a: str, b: str) -> float:
    """2 * LCS / (|a| + |b|) by plain dynamic programming; 1.0 for two empty strings."""
    if not a and not b:
        return 1.0
    return 2 * lcs_length(a, b) / (len(a) + len(b))


@dataclass
class NumericResult:
    score: float
    actual: list[float]
    expected: list[float]
    # (expected, actual or None when no candidate was left, relative error or None)
    mismatches: list[tuple[float | None, float | None, float | None]] = field(default_factory=list)


def numeric_agreement(
    actual: list[float], expected: list[float], tol_abs: float, tol_rel: float
) -> NumericResult:
    """Numeric agreement: greedy nearest unused actual number per expected number, in text order."""
    if not expected:
        if not actual:
            return NumericResult(1.0, actual, expected)
        return NumericResult(0.0, actual, expected, [(None, a, None) for a in actual])
    used: set[int] = set()
    matched = 0
    mismatches: list[tuple[float | None, float | None, float | None]] = []
    for e in expected:
        best, best_err = None, math.inf
        for i, a in enumerate(actual):
            if i in used:
                continue
            err = abs(a - e)
            if err < best_err:
                best, best_err = i, err
        if best is None:
            mismatches.append((e, None, None))
            continue
        used.add(best)
        rel = best_err / (abs(e) + 1e-12)
        if best_err <= tol_abs or rel <= tol_rel:
            matched += 1
        else:
            mismatches.append((e, actual[best], rel))
    return NumericResult(matched / len(expected), actual, expected, mismatches)


def _fmt2(x: float) -> str:
    return f"{x:.2f}"


@dataclass
class Precision:
    path: str  # "scored", "empty_actual_guard", "no_expected"
    score: float | None
    components: dict[str, float] = field(default_factory=dict)
    penalty: float | None = None
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    numeric: NumericResult | None = None
    reason: str = ""


def _set_overlap(a_set: set[str], e_set: set[str]) -> tuple[float, float, float]:
    """Containment, token precision and token recall of two token sets."""
    inter = len(a_set & e_set)
    if not a_set and not e_set:
        contains = 1.0
    elif not a_set or not e_set:
        contains = 0.0
    else:
        contains = inter / min(len(a_set), len(e_set))
    token_precision = (1.0 if not e_set else 0.0) if not a_set else inter / len(a_set)
    token_recall = (1.0 if not a_set else 0.0) if not e_set else inter / len(e_set)
    return contains, token_precision, token_recall


def _power_mean(
    components: dict[str, float], weights: Mapping[str, float] | None, power_p: float
) -> float:
    """The weighted power mean of the clamped components, accumulated in ORDER."""
    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    keys = [k for k in ORDER if k in w]
    total = 0.0
    for k in keys:
        total += w[k]
    acc = 0.0
    for k in keys:
        acc += (w[k] / total) * (min(1.0, max(0.0, components[k])) ** power_p)
    return min(1.0, max(0.0, acc ** (1.0 / power_p)))


def _reason(
    components: dict[str, float],
    num: NumericResult,
    penalty: float,
    power_p: float,
    missing: list[str],
    extra: list[str],
) -> str:
    bits = []
    if components["exact"] == 1.0:
        bits.append("exact match")
    elif components["normalized"] == 1.0:
        bits.append("normalized match")
    else:
        bits += [
            f"char similarity {_fmt2(components['char_ratio'])}",
            f"token precision {_fmt2(components['token_precision'])}",
        ]
    if num.actual or num.expected:
        bits.append(f"numeric agreement {_fmt2(num.score)}")
    contains = components["contains"]
    if contains == 1.0:
        bits.append("full containment")
    elif contains > 0:
        bits.append(f"containment {_fmt2(contains)}")
    if penalty > 0:
        bits.append("penalized for many extra tokens")
    missing_text = f"Missing terms: {missing}" if missing else "Missing terms: none."
    extra_text = f"Extra terms: {extra}" if extra else "Extra terms: none."
    bits.append(f"power-mean aggregation (p={_fmt2(power_p)}); {missing_text} {extra_text}")
    return ", ".join(bits)


def answer_precision(
    actual: str | None,
    expected: str | None,
    *,
    char_similarity: str = "indel",
    missing_expected: str = "null",
    tol_abs: float = 0.0,
    tol_rel: float = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: Collection[str] = REFERENCE_STOPWORDS,
) -> Precision:
    """AnswerPrecisionMetric for one row, with polarscore's options."""
    if missing_expected == "null" and (expected is None or not expected.strip()):
        return Precision("no_expected", None, reason="No expected output provided.")
    if actual is None or not actual.strip():
        return Precision("empty_actual_guard", 0.0, reason="Empty actual output.")
    if not expected:
        return Precision("no_expected", 0.0, reason="No expected output provided.")
    a_norm, e_norm = basic_normalize(actual), basic_normalize(expected)
    a_set, e_set = set(tokens(actual, stopwords)), set(tokens(expected, stopwords))
    contains, token_precision, token_recall = _set_overlap(a_set, e_set)
    ratio = sequence_matcher_ratio if char_similarity == "sequence_matcher" else indel_ratio
    char_ratio = 1.0 if not a_norm and not e_norm else ratio(a_norm, e_norm)
    num = numeric_agreement(numbers(actual), numbers(expected), tol_abs, tol_rel)
    components = {
        "exact": 1.0 if actual == expected else 0.0,
        "normalized": 1.0 if a_norm == e_norm else 0.0,
        "contains": contains,
        "char_ratio": char_ratio,
        "token_precision": token_precision,
        "token_recall": token_recall,
        "numeric": num.score,
    }
    base = _power_mean(components, weights, power_p)
    extra = sorted(a_set - e_set)
    penalty = 0.05 if len(extra) >= 5 and token_precision < 0.7 else 0.0
    score = min(1.0, max(0.0, base * (1.0 - penalty)))
    missing = sorted(e_set - a_set)
    reason = _reason(components, num, penalty, power_p, missing, extra)
    return Precision(
        "scored",
        score,
        components,
        penalty,
        missing,
        extra,
        num,
        reason,
    )
