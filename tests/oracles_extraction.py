"""The MMLU-Pro harness's answer extraction in Python's ``re``, as an oracle (tests only)."""

from __future__ import annotations

import re


def answer_is(text: str) -> str | None:
    """The first rule alone: ``answer is (X)`` / ``answer is X``."""
    match = re.search(r"answer is \(?([A-J])\)?", text)
    return match.group(1) if match else None


def mmlu_pro(text: str) -> str | None:
    """The three rules of the current harness, in order."""
    first = answer_is(text)
    if first:
        return first
    match = re.search(r".*[aA]nswer:\s*([A-J])", text)
    if match:
        return match.group(1)
    match = re.search(r"\b[A-J]\b(?!.*\b[A-J]\b)", text, re.DOTALL)
    return match.group(0) if match else None
