"""A pure-Python response similarity (tests only): mirrors ``src/similarity.rs``.

Written from DataRobot's response-similarity behaviour (token recall, token F1, ROUGE-L over its
word lists, and the reason text of the details), with Python's own ``str`` and ``re``, so it
shares no code or character classes with the Polars implementation. The token overlap and LCS
it counts with are :mod:`tests.oracles.tokens`.
"""

from __future__ import annotations

import re

from tests.oracles.tokens import lcs_length, multiset_overlap

# The reference's stopwords: its docs call them 34; its code has these 36.
STOPWORDS = {
    *("a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am"),
    *("of", "to", "in", "on", "at", "for", "and", "or", "but"),
    *("it", "its", "this", "that", "these", "those", "with", "as", "by", "from"),
    *("i", "you", "we", "they", "he", "she"),
}


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
