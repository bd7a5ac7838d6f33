"""The slow, obvious ``correct``: the task kind told from the golds, then the kind's rule.

The letter and the number the response commits to come from the final-answer extractors'
pure-Python oracle (``tests/oracles/final_answers.py``); this oracle adds what ``correct`` does:
the kind, the gold letters and numbers, the comparison and the null rules.
"""

from __future__ import annotations

import re

from tests.oracles import answer_match as oracle_match
from tests.oracles import final_answers as oracle_final

_LETTER = re.compile(r"^\s*\(?([A-Z])\)?\.?\s*$")
_GOLD_LETTER = re.compile(r"^\s*\(?([A-Za-z])\)?\.?\s*$")
_NUMBER = re.compile(r"^\s*(?:####\s*)?[-+]?\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?\s*%?\s*$")


def _strip(text: str) -> str:
    """Polars' ``str.strip_chars()``: Unicode whitespace."""
    return text.strip()


def infer_kind(references: list[str | None] | None) -> str | None:
    golds = [_strip(r) for r in references or [] if r is not None and _strip(r)]
    if not golds:
        return None
    if all(_LETTER.search(g) for g in golds):
        return "multiple_choice"
    if all(_NUMBER.search(g) and re.search(r"\d", g) for g in golds):
        return "numeric"
    return "short_answer"


def _float(number: str | None) -> float | None:
    """A canonical number as a ``float``: a fraction ``p/q`` is none (Polars' cast refuses it)."""
    return None if number is None or "/" in number else float(number)


def gold_letter(gold: str) -> str | None:
    """The letter a gold states as a bare letter (``B``, ``(b)``, ``B.``), else None."""
    found = _GOLD_LETTER.search(gold)
    return None if found is None else found.group(1).upper()


def _choice(text: str | None) -> str | None:
    return None if text is None else oracle_final.final_choice(text)[0]


def _number(text: str | None) -> str | None:
    found = None if text is None else oracle_final.final_number(text)
    return None if found is None else found[0]


def correct(
    response: str | None,
    references: list[str | None] | None,
    *,
    task_kind: str | None = None,
    question: str | None = None,
    choices: list[str] | None = None,
) -> float | None:
    if choices is not None:
        raise NotImplementedError("the oracle reads no options")
    kind = task_kind if task_kind is not None else infer_kind(references)
    if references is None or kind in (None, "none"):
        return None
    if kind == "multiple_choice":
        golds = [letter for r in references if r and (letter := gold_letter(r))]
        if not golds:
            return None
        return float(_choice(response) in golds)
    if kind == "numeric":
        numbers = [_number(r) for r in references if r is not None]
        values = [v for n in numbers if (v := _float(n)) is not None]
        if not values:
            return None
        answer = _float(_number(response))
        return float(answer is not None and answer in values)
    return oracle_match.answer_match(response, references, question=question).score
