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
    return answer_colon(text) or last_letter(text)


#: The harness's second rule as it writes it: the letter after the last "answer:" of a line.
ANSWER_COLON = r".*[aA]nswer:\s*([A-J])"

#: The harness's third rule as it writes it: a standalone letter with none after it.
LAST_LETTER = r"\b[A-J]\b(?!.*\b[A-J]\b)"


def answer_colon(text: str) -> str | None:
    """The harness's second rule, in one pass over the text.

    ``re.search`` retries the greedy ``.*`` from every position of a line (quadratic on long
    lines). What it finds: on the first line where ``[aA]nswer:\\s*[A-J]`` starts, the last start
    on that line (``\\s*`` may run on past the line's end). Overlapping starts count ("Answer:
    Answer: C" gives C), hence the lookahead.
    """
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"(?=[aA]nswer:\s*([A-J]))", text)]
    if not starts:
        return None
    line_end = text.find("\n", starts[0][0])
    return [letter for at, letter in starts if line_end == -1 or at < line_end][-1]


def last_letter(text: str) -> str | None:
    r"""The harness's third rule in one pass: the last standalone letter A-J.

    The harness's lookahead scans the rest of the text again from every letter, which is
    quadratic on long answers (over a minute for the MMLU-Pro logs); the last match of
    ``\b[A-J]\b`` is the same letter. ``tests/test_extraction.py`` checks the two agree.
    """
    letters = re.findall(r"\b[A-J]\b", text)
    return letters[-1] if letters else None


def number(text: str, method: str) -> str | None:
    """The number ``method`` finds, after lm-eval's ignore rules (",", "$", one final ".").

    ``gold`` reads a reference: its ``#### n`` line, else the whole stripped text when it is
    one number. ``final`` reads the final answer's number (``#### n``, ``\\boxed{n}``, "the answer
    is n", else the last number), already in its canonical form.
    """
    found: str | None = None
    if method in ("strict", "gold"):
        match = re.search(r"#### (\-?[0-9\.\,]+)", text)
        found = match.group(1) if match else None
        if found is None and method == "gold":
            whole = re.fullmatch(NUMBER, text.strip())
            found = whole.group(0) if whole else None
    elif method == "final":
        # The final answer's number, read as a careful grader would (tests/oracles/final_answers).
        from tests.oracles.final_answers import final_number

        final = final_number(text)
        found = None if final is None else final[0]
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


def _gold_letter(gold: str) -> str | None:
    """The letter a gold answer names: one ASCII letter, maybe with ``(``, ``)``, ``.`` around."""
    for candidate in (gold, gold.strip("(). ")):
        if len(candidate.encode()) == 1 and candidate.isascii() and candidate.isalpha():
            return candidate.upper()
    return None


def choice_match(
    response: str | None,
    reference: str | None,
    rules: str = "mmlu_pro",
    choices: list[str | None] | None = None,
) -> float | None:
    """1.0 when the extracted letter is the gold letter, 0.0 otherwise; None without gold.

    The gold is stripped; one ASCII letter (maybe as ``(B)`` or ``B.``) compares
    case-insensitively; with ``choices``, any other gold matches the chosen option's text
    (stripped, ASCII case-insensitively), and without them never.
    """
    gold = None if reference is None else reference.strip()
    if not gold:
        return None
    if response is None:
        letter = None
    elif rules == "final":
        from tests.oracles.final_answers import final_choice

        letter = final_choice(response, choices)[0]
    else:
        letter = (mmlu_pro if rules == "mmlu_pro" else answer_is)(response)
    if letter is None:
        return 0.0
    if _gold_letter(gold) is not None or choices is None:
        return float(letter == _gold_letter(gold))
    index = ord(letter) - ord("A")
    own = choices[index] if index < len(choices) else None
    # bytes.lower() folds ASCII only, as the kernel does.
    return float(own is not None and own.strip().encode().lower() == gold.encode().lower())


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
