"""A pure-Python SQuAD v1.1 exact match and F1 (tests only): mirrors ``src/squad.rs``.

Written from the definitions of the official SQuAD v1.1 evaluation script (``normalize_answer``,
``exact_match_score``, ``f1_score``, ``metric_max_over_ground_truths``), with Python's own
``str`` and ``re``, so it shares no code or character classes with the Polars implementation.
"""

from __future__ import annotations

import re
import string

from tests.oracles.tokens import multiset_overlap

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
