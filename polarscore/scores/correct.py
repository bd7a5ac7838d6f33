r"""One headline verdict per row, ``correct``, graded by the rule of the row's task kind.

The task kind (:data:`TASK_KINDS`, read from the log by :func:`polarscore.read_log`, told from a
plain table's columns, or given) chooses the rule:

* ``multiple_choice``: the letter the response finally commits to
  (:func:`polarscore.final_choice`, the option's text counting when ``choices`` are given)
  against the gold letter (a gold given as the option's text is mapped to its letter);
* ``numeric``: the final number of the response (:func:`polarscore.final_number`) against the
  gold's, read the same way, equal as numbers;
* ``short_answer`` and ``free_form``: :func:`polarscore.answer_match`, with the question;
* ``none``: null, no judge-free verdict being sound (code execution, open generation).

A row without a kind (its log records nothing polarscore reads one from) is null, with the
reason in :func:`correct_details`, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import (
    check_same_length,
    parse_text_expr,
    parse_text_list_expr,
    parse_text_or_list_expr,
)
from polarscore._validation import invalid_parameter
from polarscore.logs._task_kind import TASK_KINDS, infer_kind
from polarscore.scores.extraction import (
    final_choice,
    final_choice_details,
    final_number,
    final_number_details,
)
from polarscore.scores.match import answer_match, answer_match_details

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: A gold answer that is a bare option letter: ``B``, ``(B)``, ``B.``, ``b``.
_GOLD_LETTER = r"^\s*\(?([A-Za-z])\)?\.?\s*$"
#: The kinds graded by answer_match.
_TEXT_KINDS = ("short_answer", "free_form")


def _kind(
    task_kind: str | pl.Expr | pl.Series | None,
    function: str,
    references: pl.Expr,
    choices: pl.Expr | None,
) -> str | pl.Expr:
    """Return a literal kind (checked), or the per-row kind expression (told from the gold)."""
    if task_kind is None:
        return infer_kind(references, choices)
    if isinstance(task_kind, pl.Series):
        return pl.lit(task_kind)
    if isinstance(task_kind, pl.Expr):
        return task_kind
    if isinstance(task_kind, str) and task_kind in TASK_KINDS:
        return task_kind
    raise invalid_parameter(
        function,
        "task_kind",
        "one of " + ", ".join(repr(k) for k in TASK_KINDS) + ", or a column expression",
        task_kind,
    )


def _as_list(references: IntoExpr, function: str) -> pl.Expr:
    """Return the references as a list of text, one text column read as a list of one."""
    refs = parse_text_or_list_expr(references, function=function, parameter="references")
    return pl.concat_list(refs)


def _norm(text: pl.Expr) -> pl.Expr:
    return text.str.strip_chars().str.to_lowercase().str.replace_all(r"\s+", " ")


def _option_index(choices: pl.Expr, text: pl.Expr) -> pl.Expr:
    """Return the index of the option equal to ``text`` (case and spacing aside), else null."""
    listed = choices.list.eval(_norm(pl.element())).list.concat(pl.concat_list(_norm(text)))
    first = listed.list.eval(pl.element() == pl.element().last()).list.arg_max()
    return pl.when(first < choices.list.len()).then(first)


def _letter(index: pl.Expr) -> pl.Expr:
    return pl.lit(_LETTERS).str.slice(index.cast(pl.Int64), 1)


def _gold_letter(gold: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    """Return the gold letter: a bare letter as given, else the letter of the option it states."""
    bare = gold.str.extract(_GOLD_LETTER, 1).str.to_uppercase()
    if choices is None:
        return bare
    return pl.coalesce(bare, _letter(_option_index(choices, gold)))


def _choice_parts(
    response: pl.Expr, references: pl.Expr, choices: pl.Expr | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """Return ``(score, chosen, gold, details)`` of the multiple-choice rule.

    The score reads :func:`final_choice` (``details`` is only read by :func:`correct_details`).
    """
    if choices is None:
        chosen, details = final_choice(response), final_choice_details(response)
    else:
        chosen = final_choice(response, choices=choices)
        details = final_choice_details(response, choices=choices)
        # An answer that is exactly one option's text (lm-evaluation-harness' and HELM's
        # multiple-choice answers) is that option.
        chosen = pl.coalesce(chosen, _letter(_option_index(choices, response)))
    # Any gold counts: a bare letter, or (with the options) an option's text.
    letters = references.list.eval(pl.element().str.extract(_GOLD_LETTER, 1).str.to_uppercase())
    # A null among the golds' letters (a gold that is no letter) must not match a response
    # that commits to none: `list.contains` counts null as equal to null.
    # (`list.drop_nulls` would type an all-null list `List(Null)` on Polars 1.30.)
    letters = letters.list.eval(pl.element().drop_nulls())
    hit = letters.list.contains(chosen) & chosen.is_not_null()
    usable = letters.list.len() > 0
    if choices is not None:
        index = chosen.replace_strict(
            {letter: i for i, letter in enumerate(_LETTERS)}, default=None, return_dtype=pl.Int64
        )
        stated = _norm(choices.list.get(index, null_on_oob=True))
        golds = references.list.eval(_norm(pl.element()))
        options = choices.list.eval(_norm(pl.element()))
        hit = hit | golds.list.contains(stated)
        usable = usable | (golds.list.set_intersection(options).list.len() > 0)
    # The first gold that is not blank (a log may list a null or empty alias first).
    first = references.list.eval(pl.element().filter(pl.element().str.strip_chars() != ""))
    gold = _gold_letter(first.list.first(), choices)
    score = pl.when(usable).then(hit.fill_null(value=False))
    return score.cast(pl.Float64), chosen, gold, details


def _number_parts(
    response: pl.Expr, references: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """Return ``(score, number, gold, details)`` of the numeric rule (any alias counts).

    The score reads :func:`final_number` (``details`` is only read by :func:`correct_details`).
    """
    number = final_number(response)
    golds = references.list.eval(final_number(pl.element()))
    value = number.cast(pl.Float64, strict=False)
    numbers = golds.list.eval(pl.element().cast(pl.Float64, strict=False))
    usable = numbers.list.drop_nulls().list.len() > 0
    listed = numbers.list.concat(pl.concat_list(value))
    first = listed.list.eval(pl.element() == pl.element().last()).list.arg_max()
    hit = (first < numbers.list.len()) & value.is_not_null()
    gold = golds.list.drop_nulls().list.first()
    score = pl.when(usable).then(hit.fill_null(value=False)).cast(pl.Float64)
    return score, number, gold, final_number_details(response)


def _text_parts(
    response: pl.Expr, references: pl.Expr, question: pl.Expr | None
) -> tuple[pl.Expr, pl.Expr]:
    """Return ``(score, details)`` of answer_match."""
    return (
        answer_match(response, references, question=question).cast(pl.Float64),
        answer_match_details(response, references, question=question),
    )


def _inputs(
    response: IntoExpr,
    references: IntoExpr,
    question: IntoExpr | None,
    choices: IntoExpr | None,
    function: str,
) -> tuple[pl.Expr, pl.Expr, pl.Expr | None, pl.Expr | None]:
    check_same_length(
        function, response=response, references=references, question=question, choices=choices
    )
    resp = parse_text_expr(response, function=function, parameter="response")
    refs = _as_list(references, function)
    quest = (
        None
        if question is None
        else parse_text_expr(question, function=function, parameter="question")
    )
    opts = (
        None
        if choices is None
        else parse_text_list_expr(choices, function=function, parameter="choices")
    )
    return resp, refs, quest, opts


def _per_row(response: pl.Expr, value: pl.Expr) -> pl.Expr:
    """Return ``value`` once per row of ``response`` (a literal alone is one value)."""
    return pl.when(response.is_null() | response.is_not_null()).then(value)


def _only(kind: str | pl.Expr, text: pl.Expr, kinds: Sequence[str]) -> pl.Expr:
    """Keep the text on the rows of ``kinds`` only (null elsewhere: the kernels skip nulls)."""
    if isinstance(kind, str):
        return text
    return pl.when(kind.is_in(list(kinds))).then(text)


def correct(
    response: IntoExpr,
    references: IntoExpr,
    *,
    task_kind: str | pl.Expr | pl.Series | None = None,
    question: IntoExpr | None = None,
    choices: IntoExpr | None = None,
) -> pl.Expr:
    r"""Grade each answer by the rule of its task kind: 1.0 correct, 0.0 wrong, null unknown.

    Parameters
    ----------
    response
        The model's answers (column name, expression or Series).
    references
        The gold answers: a ``List(String)`` of acceptable answers, or one ``String`` per row.
    task_kind
        The kind of every row (one of ``"multiple_choice"``, ``"numeric"``, ``"short_answer"``,
        ``"free_form"``, ``"none"``), or an expression giving each row's kind (such as the
        ``task_kind`` column the log readers write: ``pl.col("task_kind")``). Default: told
        from each row's gold answer: a bare letter, or one of ``choices``, is multiple
        choice; a number is numeric; other text is a short answer.
    question
        Optional question column, read by ``answer_match`` (short answers and free form).
    choices
        Optional ``List(String)`` of each row's option texts, in letter order: an answer or a
        gold stated as an option's text counts as that option's letter.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``correct``: 1.0 or 0.0; null where the row's kind is ``none`` or
        unknown, or its gold holds no letter (multiple choice), no number (numeric) or no
        usable alias (short answer).

    Notes
    -----
    Multiple choice: several letters, none, or a contradiction are wrong, as the frameworks
    grade them. Numeric: the response's final number (a final ``\boxed{}``, an ``"answer":``
    field, ``#### n``, "the answer is n", else the last result) equals the gold's as numbers
    (units, currency signs and thousands separators aside); any alias may match.

    See Also
    --------
    correct_details : the rule and what was extracted, row by row.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["ANSWER: A", "So 3 + 4 = 7.\n#### 7", "It is Paris.", "def f(): ..."],
    ...         "references": [["A"], ["7"], ["Paris"], ["def f(): pass"]],
    ...         "task_kind": ["multiple_choice", "numeric", "short_answer", "none"],
    ...     }
    ... )
    >>> df.select(ps.correct("response", "references", task_kind=pl.col("task_kind")))[
    ...     "correct"
    ... ].to_list()
    [1.0, 1.0, 1.0, None]
    """
    function = "correct"
    resp, refs, quest, opts = _inputs(response, references, question, choices, function)
    kind = _kind(task_kind, function, refs, opts)
    if isinstance(kind, str):
        if kind == "multiple_choice":
            return _choice_parts(resp, refs, opts)[0].alias(function)
        if kind == "numeric":
            return _number_parts(resp, refs)[0].alias(function)
        if kind in _TEXT_KINDS:
            # answer_match reads a text or a list reference alike: given as the caller gave it,
            # the call is the one a frame's answer_match column makes (score_frame's default
            # scorers), and Polars computes it once for both.
            given = parse_text_or_list_expr(references, function=function, parameter="references")
            return _text_parts(resp, given, quest)[0].alias(function)
        return _per_row(resp, pl.lit(None, dtype=pl.Float64)).alias(function)
    choice = _choice_parts(_only(kind, resp, ["multiple_choice"]), refs, opts)[0]
    number = _number_parts(_only(kind, resp, ["numeric"]), refs)[0]
    text = _text_parts(_only(kind, resp, _TEXT_KINDS), refs, quest)[0]
    return (
        pl.when(kind == "multiple_choice")
        .then(choice)
        .when(kind == "numeric")
        .then(number)
        .when(kind.is_in(list(_TEXT_KINDS)))
        .then(text)
        .otherwise(pl.lit(None, dtype=pl.Float64))
        .alias(function)
    )


def correct_details(
    response: IntoExpr,
    references: IntoExpr,
    *,
    task_kind: str | pl.Expr | pl.Series | None = None,
    question: IntoExpr | None = None,
    choices: IntoExpr | None = None,
) -> pl.Expr:
    r"""Explain :func:`correct`: the verdict, the rule, what was extracted, and why.

    Parameters
    ----------
    response, references, task_kind, question, choices
        As for :func:`correct`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``correct_details`` with the fields

        * ``correct`` (``Float64``): as :func:`correct`;
        * ``task_kind`` (``String``): the row's kind (null when unknown);
        * ``rule`` (``String``): ``"final_choice"``, ``"final_number"``, ``"answer_match"``, or
          ``"none"`` (no judge-free verdict) or ``"no_kind"``;
        * ``extracted`` (``String``): the letter or number the response commits to, or the
          alias answer_match matched;
        * ``gold`` (``String``): the gold letter or number;
        * ``form`` (``String``): how the answer was found (the extractor's form, or
          answer_match's rule);
        * ``reason`` (``String``): the extractor's or answer_match's reason, or why the row is
          null.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["The answer is (C)."], "references": [["C"]]})
    >>> details = ps.correct_details("response", "references", task_kind="multiple_choice")
    >>> df.select(details.struct.field("correct", "rule", "extracted", "gold")).row(0)
    (1.0, 'final_choice', 'C', 'C')
    """
    function = "correct_details"
    resp, refs, quest, opts = _inputs(response, references, question, choices, function)
    kind = _kind(task_kind, function, refs, opts)
    kind_expr = pl.lit(kind, dtype=pl.String) if isinstance(kind, str) else kind.cast(pl.String)

    def fields(
        score: pl.Expr, rule: str, extracted: pl.Expr, gold: pl.Expr, form: pl.Expr, reason: pl.Expr
    ) -> list[pl.Expr]:
        return [
            score.cast(pl.Float64),
            pl.lit(rule, dtype=pl.String),
            extracted.cast(pl.String),
            gold.cast(pl.String),
            form.cast(pl.String),
            reason.cast(pl.String),
        ]

    def choice_fields() -> list[pl.Expr]:
        score, chosen, gold, det = _choice_parts(_only(kind, resp, ["multiple_choice"]), refs, opts)
        reason = (
            pl.when(gold.is_null())
            .then(pl.lit("the gold is neither a letter nor one of the options"))
            .otherwise(det.struct.field("reason"))
        )
        return fields(score, "final_choice", chosen, gold, det.struct.field("form"), reason)

    def number_fields() -> list[pl.Expr]:
        score, number, gold, det = _number_parts(_only(kind, resp, ["numeric"]), refs)
        reason = (
            pl.when(gold.is_null())
            .then(pl.lit("the gold holds no number"))
            .otherwise(det.struct.field("reason"))
        )
        return fields(score, "final_number", number, gold, det.struct.field("form"), reason)

    def text_fields() -> list[pl.Expr]:
        score, det = _text_parts(_only(kind, resp, _TEXT_KINDS), refs, quest)
        matched = refs.list.get(det.struct.field("reference_index"), null_on_oob=True)
        return fields(
            score,
            "answer_match",
            matched,
            refs.list.first(),
            det.struct.field("rule"),
            det.struct.field("reason"),
        )

    def null_fields(rule: str, reason: str) -> list[pl.Expr]:
        nothing = _per_row(resp, pl.lit(None, dtype=pl.String))
        return [
            _per_row(resp, pl.lit(None, dtype=pl.Float64)),
            _per_row(resp, pl.lit(rule)),
            nothing,
            nothing,
            nothing,
            _per_row(resp, pl.lit(reason)),
        ]

    none_reason = "no judge-free verdict is sound for this task kind (code, open generation)"
    builders = {
        "multiple_choice": choice_fields,
        "numeric": number_fields,
        "short_answer": text_fields,
        "free_form": text_fields,
    }
    if isinstance(kind, str):
        parts = builders.get(kind, lambda: null_fields("none", none_reason))()
    else:
        choice, numeric, text = choice_fields(), number_fields(), text_fields()
        none = null_fields("none", none_reason)
        unknown = null_fields(
            "no_kind",
            "the task kind is unknown: the log records nothing polarscore reads one from",
        )
        parts = [
            pl.when(kind == "multiple_choice")
            .then(choice[i])
            .when(kind == "numeric")
            .then(numeric[i])
            .when(kind.is_in(list(_TEXT_KINDS)))
            .then(text[i])
            .when(kind == "none")
            .then(none[i])
            .otherwise(unknown[i])
            for i in range(6)
        ]
    names = ("correct", "rule", "extracted", "gold", "form", "reason")
    out = [value.alias(name) for value, name in zip(parts, names, strict=True)]
    out.insert(1, _per_row(resp, kind_expr).alias("task_kind"))
    return pl.struct(out).alias(function)


__all__ = ["TASK_KINDS", "correct", "correct_details"]
