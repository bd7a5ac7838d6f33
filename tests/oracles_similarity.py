"""Pure-Python oracles for response similarity and SQuAD EM/F1 (tests only).

Written from DataRobot's response-similarity behaviour and from the definition of the official
SQuAD v1.1 evaluation script (``normalize_answer``, ``exact_match_score``, ``f1_score``,
``metric_max_over_ground_truths``), with Python's own ``str`` and ``re``, so they share no code or
character classes with the Polars implementation.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

# The reference's stopwords: its docs call them 34; its code has these 36.
STOPWORDS = {
    *("a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am"),
    *("of", "to", "in", "on", "at", "for", "and", "or", "but"),
    *("it", "its", "this", "that", "these", "those", "with", "as", "by", "from"),
    *("i", "you", "we", "they", "he", "she"),
}


def multiset_overlap(left: Sequence[object], right: Sequence[object]) -> int:
    """Size of the multiset intersection (Counter ``&``)."""
    common = Counter(left) & Counter(right)
    return sum(common.values())


def lcs_length(left: Sequence[object], right: Sequence[object]) -> int:
    """Longest common subsequence length by the textbook dynamic programme (two rows kept)."""
    previous = [0] * (len(right) + 1)
    for x in left:
        current = [0]
        for j, y in enumerate(right):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


# --- response similarity (DataRobot) -----------------------------------------------------------


def words(text: str) -> list[str]:
    found = re.findall(r"\w+", text.lower())
    content = [w for w in found if w not in STOPWORDS]
    return content if content else found


def _f(matched: int, n_response: int, n_reference: int) -> float:
    if matched == 0:
        return 0.0
    p = matched / n_response
    r = matched / n_reference
    return 2 * p * r / (p + r)


def pair_similarity(metric: str, response: str, reference: str) -> float:
    resp, ref = words(response), words(reference)
    if metric == "token_recall":
        return multiset_overlap(resp, ref) / len(ref) if ref else 0.0
    if metric == "token_f1":
        return _f(multiset_overlap(resp, ref), len(resp), len(ref))
    return _f(lcs_length(resp, ref), len(resp), len(ref))


def usable_items(value: object) -> list[tuple[int, str]]:
    """(original position, text) of the items the reference scores."""
    if value is None:
        return []
    items = list(value) if isinstance(value, list | tuple) else [value]
    return [(i, str(v)) for i, v in enumerate(items) if str(v).strip()]


def response_similarity(
    response: str | None, acceptable: object, metric: str
) -> tuple[float | None, int | None]:
    """(best score or None, position of the first best acceptable item)."""
    items = usable_items(acceptable)
    if not items:
        return None, None
    scored = [(pair_similarity(metric, response or "", text), i) for i, text in items]
    best = max(score for score, _ in scored)
    return best, next(i for score, i in scored if score == best)


# --- SQuAD v1.1 (official evaluation script's definitions) ---------------------------------------

_PUNCTUATION = set(string.punctuation)


def squad_normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def squad_em_pair(prediction: str, truth: str) -> float:
    return float(squad_normalize(prediction) == squad_normalize(truth))


def squad_f1_pair(prediction: str, truth: str) -> float:
    pred = squad_normalize(prediction).split()
    gold = squad_normalize(truth).split()
    same = multiset_overlap(pred, gold)
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(pred)
    recall = 1.0 * same / len(gold)
    return (2 * precision * recall) / (precision + recall)


def squad_max(
    pair: str, prediction: str | None, truths: str | list[str | None] | None
) -> tuple[float | None, int | None]:
    """Max over usable (non-null, non-blank) ground truths; (None, None) when none is usable."""
    if truths is None:
        return None, None
    items = [truths] if isinstance(truths, str) else truths
    usable = [(i, t) for i, t in enumerate(items) if t is not None and t.strip()]
    if not usable:
        return None, None
    fn = squad_em_pair if pair == "em" else squad_f1_pair
    scored = [(fn(prediction or "", t), i) for i, t in usable]
    best = max(s for s, _ in scored)
    return best, next(i for s, i in scored if s == best)


# --- the reference's reason text -------------------------------------------------------------

EXPLANATIONS = {
    "token_recall": "share of the example's words found in the response",
    "token_f1": "word overlap, penalizing words the example doesn't have",
    "rouge_l": "longest run of words shared in the same order",
}


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def similarity_details(
    response: str | None, acceptable: object, unacceptable: object, metric: str
) -> dict[str, object]:
    """Every field of ``response_similarity_details`` for one row."""
    good = usable_items(acceptable)
    if not good:
        return {
            "score": None,
            "acceptable_index": None,
            "reason": "no acceptable_responses provided: cannot score",
            "unacceptable_score": None,
            "unacceptable_index": None,
            "is_closer_to_unacceptable": None,
        }
    best, best_index = response_similarity(response, acceptable, metric)
    assert best is not None
    best_text = dict(good)[best_index]
    reason = (
        f"{metric} {best:.2f} ({EXPLANATIONS[metric]}); "
        f"closest of {len(good)} acceptable: '{_clip(best_text)}'"
    )
    worst, worst_index, closer = None, None, None
    bad = usable_items(unacceptable)
    if bad:
        worst, worst_index = response_similarity(response, unacceptable, metric)
        assert worst is not None
        reason += f"; closest unacceptable {worst:.2f}: '{_clip(dict(bad)[worst_index])}'"
        closer = worst >= best
        if closer:
            reason += " (WARNING: at least as close as any acceptable example)"
    return {
        "score": best,
        "acceptable_index": best_index,
        "reason": reason,
        "unacceptable_score": worst,
        "unacceptable_index": worst_index,
        "is_closer_to_unacceptable": closer,
    }
