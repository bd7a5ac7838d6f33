"""Pure-Python oracles of final-answer extraction, with Python's ``re``.

The MMLU-Pro harness's letter rules, lm-eval-harness's GSM8K number filters and OpenAI's GSM8K
answer line, written as their own regular expressions; ``choice_match`` and ``numeric_match``
compare their result with a gold answer. The native kernels are checked against these.
"""

from __future__ import annotations

import re

#: OpenAI's GSM8K number: sign, dollar, digits with thousands separators, a fraction.
NUMBER = r"-?\$?[0-9][0-9,]*(?:\.[0-9]+)?"


def answer_is(text: str) -> str | None:
    """The harness's first rule (the earlier harness's only one)."""
    match = re.search(r"answer is \(?([A-J])\)?", text)
    return match.group(1) if match else None


def mmlu_pro(text: str) -> str | None:
    """The harness's three rules, in order."""
    first = answer_is(text)
    if first:
        return first
    match = re.search(r".*[aA]nswer:\s*([A-J])", text)
    if match:
        return match.group(1)
    match = re.search(r"\b[A-J]\b(?!.*\b[A-J]\b)", text, re.DOTALL)
    return match.group(0) if match else None


def number(text: str, method: str) -> str | None:
    """The number ``method`` finds, after lm-eval's ignore rules (",", "$", one final ".").

    ``gold`` reads a reference: its ``#### n`` line, else the whole stripped text when it is
    one number.
    """
    found: str | None = None
    if method in ("strict", "gold"):
        match = re.search(r"#### (\-?[0-9\.\,]+)", text)
        found = match.group(1) if match else None
        if found is None and method == "gold":
            whole = re.fullmatch(NUMBER, text.strip())
            found = whole.group(0) if whole else None
    elif method == "flexible":
        matches = re.findall(r"(-?[$0-9.,]{2,})|(-?[0-9]+)", text)
        found = next((g for g in matches[-1] if g), None) if matches else None
    else:  # answer_line: the line's end is the end of the text only (\Z), as in Polars
        line = re.search(r"A:\s*([^\n]*?)\s*\Z", text)
        hit = re.search(NUMBER, line.group(1)) if line else None
        found = hit.group(0) if hit else None
    if found is None:
        return None
    return re.sub(r"\.$", "", re.sub(r"[,$]", "", found))


def _as_float(text: str | None) -> float | None:
    try:
        return None if text is None else float(text)
    except ValueError:
        return None


def choice_match(
    response: str | None, reference: str | None, rules: str = "mmlu_pro"
) -> float | None:
    """1.0 when the extracted letter is the stripped gold, 0.0 otherwise; None without gold."""
    gold = None if reference is None else reference.strip()
    if not gold:
        return None
    letter = (
        None if response is None else (mmlu_pro if rules == "mmlu_pro" else answer_is)(response)
    )
    return float(letter == gold)


def numeric_match(
    response: str | None,
    reference: str | None,
    method: str = "flexible",
    numeric_tolerance_abs: float = 0.0,
    numeric_tolerance_rel: float = 0.0,
) -> float | None:
    """1.0 when the numbers agree within a tolerance, 0.0 otherwise; None without a gold number."""
    g = None if reference is None else _as_float(number(reference, "gold"))
    if g is None:
        return None
    a = None if response is None else _as_float(number(response, method))
    if a is None:
        return 0.0
    error = abs(a - g)
    return float(
        error <= numeric_tolerance_abs or error / (abs(g) + 1e-12) <= numeric_tolerance_rel
    )
