r"""Final-answer extraction for reasoning logs: multiple-choice letters and final numbers.

* :func:`extract_choice` reads the letter the MMLU-Pro harness (TIGER-AI-Lab/MMLU-Pro) reads
  from a chain-of-thought answer; :func:`choice_match` compares it with the gold letter.
* :func:`extract_number` reads a final number by the GSM8K conventions: the ``#### n`` line of
  GSM8K's answers (lm-eval-harness's "strict-match" filter), the ``A: n`` final line of OpenAI's
  model solutions, or the last number of the text (lm-eval-harness's "flexible-extract");
  :func:`numeric_match` compares it with the gold number under answer_precision's tolerance
  rules.

The letter rules need Python's ``\s`` and ``\b`` and run in a native kernel; the number rules
are ASCII-only regular expressions, which mean the same in Polars' engine and in Python's ``re``.
"""

from __future__ import annotations

import polars as pl

from polarscore._typing import ChoiceRules, IntoExpr, IntoNumber, NumberMethod
from polarscore._utils import check_same_length, parse_text_expr
from polarscore._validation import check_choice, check_number
from polarscore.kernels._plugin import plugin_call
from polarscore.normalize import py_strip

#: The letter-extraction rule sets of :func:`extract_choice`.
CHOICE_RULES: tuple[str, ...] = ("mmlu_pro", "answer_is")
#: The number-extraction methods of :func:`extract_number`.
NUMBER_METHODS: tuple[str, ...] = ("strict", "flexible", "answer_line")


def extract_choice(response: IntoExpr, *, rules: ChoiceRules = "mmlu_pro") -> pl.Expr:
    r"""Extract the multiple-choice letter (``A`` to ``J``) the MMLU-Pro harness would read.

    Parameters
    ----------
    response
        The model's chain-of-thought answers (column name, expression or Series).
    rules
        ``"mmlu_pro"``: the harness's three rules, in order: the first ``answer is (X)`` /
        ``answer is X``; else, on the first line that has one, the last ``answer: X`` /
        ``Answer: X`` (whitespace, newlines included, may follow the colon); else the last
        letter standing alone as a word. ``"answer_is"``: the first rule alone, as older
        versions of the harness did.

    Returns
    -------
    pl.Expr
        ``String`` named ``extract_choice``: the letter, or null when no rule finds one (the
        harness then guesses at random; a null here never guesses).

    Notes
    -----
    Python's ``\s`` and ``\b`` are kept exactly: U+001C..U+001F are whitespace, and combining
    marks are not word characters.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["... so the answer is (C).", "Answer: B", "I pick D.", "unsure"]}
    ... )
    >>> df.select(
    ...     full=ps.extract_choice("response"),
    ...     old=ps.extract_choice("response", rules="answer_is"),
    ... ).rows()
    [('C', 'C'), ('B', None), ('D', None), (None, None)]
    """
    rules = check_choice(rules, function="extract_choice", parameter="rules", allowed=CHOICE_RULES)  # type: ignore[assignment]
    text = parse_text_expr(response, function="extract_choice", parameter="response")
    return plugin_call("mmlu_pro_choice", text, rules=rules).alias("extract_choice")


def choice_match(
    response: IntoExpr, reference: IntoExpr, *, rules: ChoiceRules = "mmlu_pro"
) -> pl.Expr:
    """Score whether the extracted letter is the gold letter: 1.0 or 0.0, null if no gold.

    Parameters
    ----------
    response
        The model's chain-of-thought answers.
    reference
        The gold letters (``String``; surrounding Python whitespace is ignored).
    rules
        As for :func:`extract_choice`.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``choice_match``: 1.0 when the letter equals the gold letter, 0.0
        when it differs or none is found (the harness's random guess is not made), null where
        the reference is null or blank.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["the answer is (C)", "so (C)", "no idea"], "gold": ["C", "D", "A"]}
    ... )
    >>> df.select(ps.choice_match("response", "gold"))["choice_match"].to_list()
    [1.0, 0.0, 0.0]
    """
    check_same_length("choice_match", response=response, reference=reference)
    rules = check_choice(rules, function="choice_match", parameter="rules", allowed=CHOICE_RULES)  # type: ignore[assignment]
    text = parse_text_expr(response, function="choice_match", parameter="response")
    gold = py_strip(parse_text_expr(reference, function="choice_match", parameter="reference"))
    letter = plugin_call("mmlu_pro_choice", text, rules=rules)
    score = (letter == gold).fill_null(value=False).cast(pl.Float64)
    usable = gold.str.len_bytes() > 0
    return pl.when(usable).then(score).alias("choice_match")


def extract_number(response: IntoExpr, *, method: NumberMethod = "flexible") -> pl.Expr:
    r"""Extract a final numeric answer as text (``"1234.5"``, ``"-3"``), or null.

    Parameters
    ----------
    response
        The model's answers.
    method
        ``"strict"``: the first ``#### n`` (GSM8K's answer format; lm-eval-harness's
        "strict-match" filter). ``"flexible"``: the last number of the text (lm-eval-harness's
        "flexible-extract": the last match of ``(-?[$0-9.,]{2,})|(-?[0-9]+)``).
        ``"answer_line"``: the first number on the final ``A: ...`` line (OpenAI's GSM8K model
        solutions).

    Returns
    -------
    pl.Expr
        ``String`` named ``extract_number``, with thousands separators and ``$`` removed and
        one trailing ``.`` dropped, as lm-eval-harness's GSM8K metric ignores them; null when
        nothing is found.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["So 3 + 4 = 7.\n#### 1,207", "It costs $1,500.", "A: -3"]})
    >>> df.select(
    ...     strict=ps.extract_number("response", method="strict"),
    ...     flexible=ps.extract_number("response"),
    ...     line=ps.extract_number("response", method="answer_line"),
    ... ).rows()
    [('1207', '1207', None), (None, '1500', None), (None, '-3', '-3')]
    """
    method = check_choice(
        method, function="extract_number", parameter="method", allowed=NUMBER_METHODS
    )  # type: ignore[assignment]
    text = parse_text_expr(response, function="extract_number", parameter="response")
    return plugin_call("extract_number", text, method=method).alias("extract_number")


def numeric_match(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    method: NumberMethod = "flexible",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
) -> pl.Expr:
    """Score whether the extracted final number equals the gold number: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers.
    reference
        The gold numbers as text (``"18"``, ``"1,207"``, ``"$5"``; a GSM8K answer with a
        ``#### n`` line is read at that line).
    method
        As for :func:`extract_number`.
    numeric_tolerance_abs, numeric_tolerance_rel
        answer_precision's tolerance rules: a number matches when ``|answer - gold| <= abs`` or
        ``|answer - gold| / (|gold| + 1e-12) <= rel``. Zero (the default) asks for equality.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``numeric_match``: 1.0 or 0.0 (0.0 when no number is found), null
        where the reference holds no number.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["A: 1,200", "A: 1199", "none"], "gold": ["1200"] * 3})
    >>> df.select(ps.numeric_match("response", "gold", method="answer_line")).to_series().to_list()
    [1.0, 0.0, 0.0]
    """
    function = "numeric_match"
    check_same_length(function, response=response, reference=reference)
    method = check_choice(method, function=function, parameter="method", allowed=NUMBER_METHODS)  # type: ignore[assignment]
    tolerances = []
    for name, value in (
        ("numeric_tolerance_abs", numeric_tolerance_abs),
        ("numeric_tolerance_rel", numeric_tolerance_rel),
    ):
        if isinstance(value, pl.Series):
            value = pl.lit(value)
        if isinstance(value, pl.Expr):
            tolerances.append(value.cast(pl.Float64))
        else:
            number = check_number(value, function=function, parameter=name, minimum=0)
            tolerances.append(pl.lit(number, dtype=pl.Float64))
    tol_abs, tol_rel = tolerances
    text = parse_text_expr(response, function=function, parameter="response")
    gold_text = parse_text_expr(reference, function=function, parameter="reference")
    # One pass: the gold's number (its `#### n` line, else the whole stripped text when it is
    # one number) and the answer's, compared with the tolerances.
    return plugin_call("numeric_match", text, gold_text, tol_abs, tol_rel, method=method).alias(
        "numeric_match"
    )


__all__ = [
    "CHOICE_RULES",
    "NUMBER_METHODS",
    "choice_match",
    "extract_choice",
    "extract_number",
    "numeric_match",
]
