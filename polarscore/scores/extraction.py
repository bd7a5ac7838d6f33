r"""Final-answer extraction for reasoning logs: multiple-choice letters and final numbers.

* :func:`final_choice` and :func:`final_number` read the answer a response finally commits to,
  as a careful human grader reads it, in every form models write (``ANSWER: X``, ``The answer
  is (X)``, ``**X**``, ``\boxed{X}``, the option's text; ``\boxed{N}``, ``"answer": N``,
  ``#### N``, ``The answer is N``, ``A: N``, the last number). ``*_details`` say which form was
  read, or why nothing was.
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

from polarscore._multi_reference import dispatch_reference
from polarscore._typing import ChoiceRules, IntoExpr, IntoNumber, NumberMethod
from polarscore._utils import (
    check_same_length,
    parse_into_expr,
    parse_text_expr,
    parse_text_list_expr,
)
from polarscore._validation import check_choice, check_number
from polarscore.kernels._plugin import plugin_call

#: The letter-extraction rule sets of :func:`extract_choice` and :func:`choice_match`.
CHOICE_RULES: tuple[str, ...] = ("mmlu_pro", "answer_is", "final")
#: The number-extraction methods of :func:`extract_number` and :func:`numeric_match`.
NUMBER_METHODS: tuple[str, ...] = ("strict", "flexible", "answer_line", "final")

#: The forms :func:`final_choice_details` reports, strongest first.
CHOICE_FORMS: tuple[str, ...] = (
    "answer_colon",
    "answer_is",
    "boxed",
    "bold",
    "parenthesized",
    "leading_letter",
    "bare_letter",
    "option_text",
)
#: Why :func:`final_choice_details` found no choice.
CHOICE_REASONS: tuple[str, ...] = ("no_letter", "several_letters", "contradiction")
#: The forms :func:`final_number_details` reports, in order of preference.
NUMBER_FORMS: tuple[str, ...] = (
    "boxed",
    "json_answer",
    "hash_line",
    "answer_is",
    "answer_line",
    "last_number",
)


def _choice_inputs(response: IntoExpr, choices: IntoExpr | None, function: str) -> list[pl.Expr]:
    """Parse the response (and the options' texts, when given) into plugin inputs."""
    if choices is not None:
        check_same_length(function, response=response, choices=choices)
    inputs = [parse_text_expr(response, function=function, parameter="response")]
    if choices is not None:
        inputs.append(parse_text_list_expr(choices, function=function, parameter="choices"))
    return inputs


def final_choice(response: IntoExpr, *, choices: IntoExpr | None = None) -> pl.Expr:
    r"""Extract the option letter a multiple-choice response finally commits to.

    The answer a careful human grader reads: the last statement of an answer, in every form
    models write, and never a letter of the reasoning ("option A is wrong because ...").

    Parameters
    ----------
    response
        The model's answers (column name, ``String`` expression or Series).
    choices
        Optional ``List(String)`` column (or expression, or Series) of the options' texts in
        letter order. With it, an answer that states an option's text and no letter counts as
        that option, a letter past the options' count is not an option, and a letter followed by
        another option's text is a contradiction.

    Returns
    -------
    pl.Expr
        ``String`` named ``final_choice``: the uppercase letter (``"A"`` to ``"Z"``), or null
        when there is none, several different letters are offered as the answer (``"A or C"``),
        or the final statement contradicts itself. A null response gives null.

    Notes
    -----
    Forms, strongest first (:func:`final_choice_details` names the one read):

    * ``answer_is``, ``answer_colon``, ``boxed``: a statement of the answer (``The answer is
      (X)``, ``the correct answer is X``, ``the best option is X``, ``ANSWER: X``, ``Answer: X)
      text``, ``**Answer:** X``, ``oxed{X}``, ``oxed{	ext{X}}``). The last one in the text
      counts; after one, a line starting ``Question:`` ends the response (the model writing the
      next few-shot question).
    * ``bold``: with no statement, the last ``**X**``, ``**(X) text**`` or ``**X. text**``.
    * ``parenthesized``, ``leading_letter``: the response starts with ``(X)``, or with ``X.``,
      ``X)``, ``X:`` or a lone ``X``.
    * ``bare_letter``: the last line is a lone letter (maybe in parentheses or bold).
    * ``option_text``: with ``choices``, the words after a letterless statement (``The answer is
      80%.``), the whole response or its last line are exactly one option's text (compared
      ASCII-case-insensitively, whitespace runs as one space, ``*``, ``$`` and ``\`` dropped).

    A lowercase letter counts only in parentheses, bold or a box (``(b)``, ``b)``), so the
    article "a" never does. One forward pass over the bytes, linear in the text's length.

    See Also
    --------
    final_choice_details : the same, with the form read or the reason for a null.
    choice_match : compares the choice with the gold letter.
    extract_choice : the MMLU-Pro harness's own letter rules.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": [
    ...             "ANSWER: A",
    ...             "Option A is wrong because ... The answer is (C).",
    ...             "**(B) 42**",
    ...             "It is A or C.",
    ...             "The answer is 43.",
    ...         ],
    ...         "options": [["41", "42", "43"]] * 5,
    ...     }
    ... )
    >>> df.select(ps.final_choice("response", choices="options")).to_series().to_list()
    ['A', 'C', 'B', None, 'C']
    """
    inputs = _choice_inputs(response, choices, "final_choice")
    return plugin_call("final_choice", *inputs).alias("final_choice")


def final_choice_details(response: IntoExpr, *, choices: IntoExpr | None = None) -> pl.Expr:
    r"""Extract the final option letter with the form it was read from, or why none was.

    Parameters
    ----------
    response, choices
        As for :func:`final_choice`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``final_choice_details`` with fields ``choice`` (``String``, as
        :func:`final_choice`), ``form`` (``String``, one of :data:`CHOICE_FORMS`: the form read;
        with ``several_letters`` or ``contradiction``, the statement's form) and ``reason``
        (``String``: null when a choice was found, else ``"no_letter"``, ``"several_letters"``
        or ``"contradiction"``). Every field is null for a null response.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["The answer is (B).", "\\boxed{D}", "(A) or (C)", "?"]})
    >>> details = df.select(ps.final_choice_details("response")).unnest("final_choice_details")
    >>> for row in details.rows():
    ...     print(row)
    ('B', 'answer_is', None)
    ('D', 'boxed', None)
    (None, 'parenthesized', 'several_letters')
    (None, None, 'no_letter')
    """
    inputs = _choice_inputs(response, choices, "final_choice_details")
    return plugin_call("final_choice_details", *inputs).alias("final_choice_details")


def final_number(response: IntoExpr) -> pl.Expr:
    r"""Extract the final numeric answer a response commits to, as canonical decimal text.

    Parameters
    ----------
    response
        The model's answers (column name, ``String`` expression or Series).

    Returns
    -------
    pl.Expr
        ``String`` named ``final_number``: the number without thousands separators, currency
        signs, percent sign or units, with its minus sign and without leading or trailing zeros
        (``"-1234.5"``, ``"12"``, ``"0.75"``); null when the text holds no number (or is null).

    Notes
    -----
    Forms, in order of preference (within one, the last in the text counts):

    1. ``boxed``: the last ``oxed{...}``: its first number after its last ``=``, else its
       first number. A number after the final box is not the answer ("so she picks
       ``oxed{12}`` apples in 3 days" is 12).
    2. ``json_answer``: an ``"answer":`` field of a JSON reply.
    3. ``hash_line``: ``#### N``.
    4. ``answer_is``: ``The (final) answer is N`` (also ``would be``, ``=``; the first number of
       that sentence, within 80 bytes: "The answer is 6 packages").
    5. ``answer_line``: ``A: N`` at a line's start, or ``Answer: N``.
    6. ``last_number``: the last result: the last sentence holding a number, read outside
       parentheses: its first number after its last ``=``, else its first number ("It is 208
       feet (16 x 13)." is 208, "So 24 / 8 = 3 people." is 3).

    After a statement (forms 1 to 5), a line starting ``Question:`` or ``Q:`` ends the response
    (the model writing the next few-shot question). Numbers: ``1,234`` and ``1{,}234`` are one
    number, ``5,7,15`` three; a ``-`` (or U+2212) is a sign only where no digit, letter, ``)`` or
    ``}`` stands before it (``10-5`` ends in 5); ``.5`` is 0.5.

    Fractions (``3/4``, ``rac{3}{4}``) keep their exact value: a fraction whose decimal
    expansion ends is written as that decimal (``"0.75"``, ``6/3`` as ``"2"``), any other as the
    reduced ``"p/q"`` (``"1/3"``, ``"-2/3"``); :func:`numeric_match` compares ``"p/q"`` by its
    value. One forward pass over the bytes, linear in the text's length.

    See Also
    --------
    final_number_details : the same, with the form read.
    numeric_match : compares the number with the gold number (``method="final"``).
    extract_number : lm-eval-harness's and OpenAI's GSM8K number rules.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": [
    ...             "so she picks \\boxed{12} apples in 3 days",
    ...             "Total: 1,200 + 34 = 1,234.\n#### $1,234",
    ...             "The answer is -0.50 dollars. (It took 3 steps.)",
    ...             "x = \\frac{2}{6}",
    ...             "no digits",
    ...         ]
    ...     }
    ... )
    >>> df.select(ps.final_number("response")).to_series().to_list()
    ['12', '1234', '-0.5', '1/3', None]
    """
    text = parse_text_expr(response, function="final_number", parameter="response")
    return plugin_call("final_number", text).alias("final_number")


def final_number_details(response: IntoExpr) -> pl.Expr:
    """Extract the final number with the form it was read from.

    Parameters
    ----------
    response
        As for :func:`final_number`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``final_number_details`` with fields ``number`` (``String``, as
        :func:`final_number`), ``form`` (``String``, one of :data:`NUMBER_FORMS`) and ``reason``
        (``String``: null when a number was found, else ``"no_number"``). Every field is null for
        a null response.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> texts = ["#### 18", "A: 7", "I got 3. Then 3 + 1 = 4 (1 more)", "none"]
    >>> df = pl.DataFrame({"response": texts})
    >>> details = df.select(ps.final_number_details("response")).unnest("final_number_details")
    >>> for row in details.rows():
    ...     print(row)
    ('18', 'hash_line', None)
    ('7', 'answer_line', None)
    ('4', 'last_number', None)
    (None, None, 'no_number')
    """
    text = parse_text_expr(response, function="final_number_details", parameter="response")
    return plugin_call("final_number_details", text).alias("final_number_details")


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
        versions of the harness did. ``"final"``: :func:`final_choice`'s reading.

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
    if rules == "final":
        return plugin_call("final_choice", text).alias("extract_choice")
    return plugin_call("mmlu_pro_choice", text, rules=rules).alias("extract_choice")


def choice_match(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    rules: ChoiceRules = "mmlu_pro",
    choices: IntoExpr | None = None,
) -> pl.Expr:
    """Score whether the extracted letter is the gold letter: 1.0 or 0.0, null if no gold.

    Parameters
    ----------
    response
        The model's chain-of-thought answers.
    reference
        The gold letters: a ``String`` column, or a ``List(String)`` column of acceptable
        answers (the row scores 1.0 when any matches). Surrounding Python whitespace and
        ``(``, ``)``, ``.`` around a letter are ignored, and letters compare case-insensitively;
        with ``choices``, a gold that is not a letter is compared with the chosen option's text.
    rules
        ``"final"``: :func:`final_choice`'s reading (the answer the response finally commits
        to). ``"mmlu_pro"`` (default) and ``"answer_is"``: as for :func:`extract_choice`.
    choices
        Optional ``List(String)`` of the options' texts in letter order, as for
        :func:`final_choice` (read with ``rules="final"``; any rules use it to compare a gold
        option's text).

    Returns
    -------
    pl.Expr
        ``Float64`` named ``choice_match``: 1.0 when the letter is a gold letter (or its option
        is the gold option's text), 0.0 when it is not or none is found (the harness's random
        guess is not made), null where no reference is usable (null or blank).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["the answer is (C)", "so (C)", "no idea", "ANSWER: A"],
    ...         "gold": ["C", "D", "A", "A"],
    ...         "golds": [["C"], ["D", "d"], ["A"], ["B", "A"]],
    ...     }
    ... )
    >>> df.select(
    ...     harness=ps.choice_match("response", "gold"),
    ...     final=ps.choice_match("response", "golds", rules="final"),
    ... ).rows()
    [(1.0, 1.0), (0.0, 0.0), (0.0, 0.0), (1.0, 1.0)]
    """
    function = "choice_match"
    check_same_length(function, response=response, reference=reference)
    rules = check_choice(rules, function=function, parameter="rules", allowed=CHOICE_RULES)  # type: ignore[assignment]
    inputs = _choice_inputs(response, choices, function)
    ref = parse_into_expr(reference, function=function, parameter="reference")

    def score(references: pl.Expr) -> pl.Expr:
        return plugin_call("choice_match", inputs[0], references, *inputs[1:], rules=rules)

    return dispatch_reference(ref, build=score, function=function, parameter="reference").alias(
        function
    )


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
        solutions). ``"final"``: :func:`final_number`'s reading (canonical text).

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
    if method == "final":
        return plugin_call("final_number", text).alias("extract_number")
    return plugin_call("extract_number", text, method=method).alias("extract_number")


def numeric_match(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    method: NumberMethod = "flexible",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
) -> pl.Expr:
    r"""Score whether the extracted final number equals the gold number: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers.
    reference
        The gold numbers as text (``"18"``, ``"1,207"``, ``"$5"``; a GSM8K answer with a
        ``#### n`` line is read at that line): a ``String`` column, or a ``List(String)``
        column of acceptable answers (the row scores 1.0 when any matches).
    method
        ``"final"``: :func:`final_number`'s reading (the final number the response commits
        to; a fraction is compared by its value). ``"strict"``, ``"flexible"`` (default),
        ``"answer_line"``: as for :func:`extract_number`.
    numeric_tolerance_abs, numeric_tolerance_rel
        answer_precision's tolerance rules: a number matches when ``|answer - gold| <= abs`` or
        ``|answer - gold| / (|gold| + 1e-12) <= rel``. Zero (the default) asks for equality.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``numeric_match``: 1.0 or 0.0 (0.0 when no number is found), null
        where no reference holds a number.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["A: 1,200", "A: 1199", "none"], "gold": ["1200"] * 3})
    >>> df.select(ps.numeric_match("response", "gold", method="answer_line")).to_series().to_list()
    [1.0, 0.0, 0.0]
    >>> boxed = pl.DataFrame({"response": ["so \\boxed{12} apples in 3 days"], "gold": [["12.0"]]})
    >>> boxed.select(ps.numeric_match("response", "gold", method="final")).item()
    1.0
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
    ref = parse_into_expr(reference, function=function, parameter="reference")

    # One pass: each gold's number (its `#### n` line, else the whole stripped text when it is
    # one number) and the answer's, compared with the tolerances.
    def score(references: pl.Expr) -> pl.Expr:
        return plugin_call("numeric_match", text, references, tol_abs, tol_rel, method=method)

    return dispatch_reference(ref, build=score, function=function, parameter="reference").alias(
        function
    )


__all__ = [
    "CHOICE_FORMS",
    "CHOICE_REASONS",
    "CHOICE_RULES",
    "NUMBER_FORMS",
    "NUMBER_METHODS",
    "choice_match",
    "extract_choice",
    "extract_number",
    "final_choice",
    "final_choice_details",
    "final_number",
    "final_number_details",
    "numeric_match",
]
