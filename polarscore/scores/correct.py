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

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import (
    check_same_length,
    parse_text_expr,
    parse_text_list_expr,
    parse_text_or_list_expr,
)
from polarscore._validation import invalid_parameter
from polarscore.kernels._plugin import plugin_call
from polarscore.logs._task_kind import TASK_KINDS, infer_kind
from polarscore.scores.match import answer_match, answer_match_details

#: The kinds graded by answer_match.
_TEXT_KINDS = ("short_answer", "free_form")


def reads_answer_match(options: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Return ``("answer_match", its options)`` when ``correct`` with ``options`` can read it.

    Short answers and free form are graded by :func:`~polarscore.answer_match` with the same
    question, so a frame that has both columns computes it once and reads it for ``correct``
    (:func:`correct_reading`; see :func:`polarscore.frame.add_scores`). ``None`` for a literal
    kind that is not graded by it.
    """
    kind = options.get("task_kind")
    if isinstance(kind, str) and kind not in _TEXT_KINDS:
        return None
    question = options.get("question")
    return "answer_match", ({} if question is None else {"question": question})


def correct_reading(
    answer_match_score: pl.Expr, response: IntoExpr, references: IntoExpr, **options: Any
) -> pl.Expr:
    """Return :func:`correct` with its text rows graded by ``answer_match_score``.

    ``answer_match_score`` must be :func:`~polarscore.answer_match` of the same response,
    references and question (:func:`reads_answer_match`), computed on every row: the rows of
    other kinds are graded by their own rules as in :func:`correct`.
    """
    return _correct(response, references, text_score=answer_match_score, **options)


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


def _lower(text: pl.Expr) -> pl.Expr:
    """Return the text stripped and lowercased (the kernels read whitespace runs as one space)."""
    return text.str.strip_chars().str.to_lowercase()


def _choice_inputs(
    response: pl.Expr, references: pl.Expr, choices: pl.Expr | None
) -> list[pl.Expr]:
    """Return the multiple-choice kernels' inputs.

    With the options, the kernels also read the response, golds and options stripped and
    lowercased by Polars (so that letter case follows Polars' Unicode tables); they compare texts
    with each run of whitespace as one space.
    """
    if choices is None:
        return [response, references]
    golds = pl.concat_list(references)
    return [
        response,
        golds,
        choices,
        _lower(response),
        golds.list.eval(_lower(pl.element())),
        choices.list.eval(_lower(pl.element())),
    ]


def _choice_score(response: pl.Expr, references: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    """Return the multiple-choice rule's score, in one native pass per row.

    The letter the response finally commits to (:func:`final_choice`; with the options, an
    answer that is exactly one option's text is that option, as lm-evaluation-harness' and
    HELM's multiple-choice answers are) against any gold's letter: a bare letter, or (with the
    options) the letter of the option a gold states. A gold with no letter never matches a
    response that commits to none.
    """
    return plugin_call("correct_choice", *_choice_inputs(response, references, choices))


def _choice_details(response: pl.Expr, references: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    """Return ``{correct, extracted, gold, form, reason}`` of the multiple-choice rule.

    ``gold`` is the first gold that is not blank (a log may list a null or empty alias first),
    as a letter; ``form`` and ``reason`` are :func:`final_choice_details`' (the reason says when
    the gold is neither a letter nor one of the options).
    """
    return plugin_call("correct_choice_details", *_choice_inputs(response, references, choices))


def _number_score(response: pl.Expr, references: pl.Expr) -> pl.Expr:
    """Return the numeric rule's score, in one native pass per row.

    The final number of the response (:func:`final_number`) against every gold alias's, each
    read as a ``Float64``, equal as numbers (any alias counts; null where none holds one).
    """
    return plugin_call("correct_number", response, references)


def _number_details(response: pl.Expr, references: pl.Expr) -> pl.Expr:
    """Return ``{correct, extracted, gold, form, reason}`` of the numeric rule.

    ``gold`` is the first alias's number; ``form`` and ``reason`` are
    :func:`final_number_details`' (the reason says when the gold holds no number).
    """
    return plugin_call("correct_number_details", response, references)


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
    return _correct(
        response,
        references,
        task_kind=task_kind,
        question=question,
        choices=choices,
        text_score=None,
    )


def _correct(
    response: IntoExpr,
    references: IntoExpr,
    *,
    task_kind: str | pl.Expr | pl.Series | None = None,
    question: IntoExpr | None = None,
    choices: IntoExpr | None = None,
    text_score: pl.Expr | None,
) -> pl.Expr:
    """Return :func:`correct`, its text rows graded by ``text_score`` when given."""
    function = "correct"
    resp, refs, quest, opts = _inputs(response, references, question, choices, function)
    # The native rules read a text or a list reference alike (a text as a list of one).
    given = parse_text_or_list_expr(references, function=function, parameter="references")
    kind = _kind(task_kind, function, refs, opts)
    if isinstance(kind, str):
        if kind == "multiple_choice":
            return _choice_score(resp, given, opts).alias(function)
        if kind == "numeric":
            return _number_score(resp, given).alias(function)
        if kind in _TEXT_KINDS:
            if text_score is not None:
                return text_score.cast(pl.Float64).alias(function)
            # answer_match reads a text or a list reference alike: given as the caller gave it,
            # the call is the one a frame's answer_match column makes, and Polars computes it
            # once for both.
            return _text_parts(resp, given, quest)[0].alias(function)
        return _per_row(resp, pl.lit(None, dtype=pl.Float64)).alias(function)
    choice = _choice_score(_only(kind, resp, ["multiple_choice"]), given, opts)
    number = _number_score(_only(kind, resp, ["numeric"]), given)
    text = (
        _text_parts(_only(kind, resp, _TEXT_KINDS), refs, quest)[0]
        if text_score is None
        else text_score.cast(pl.Float64)
    )
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
    given = parse_text_or_list_expr(references, function=function, parameter="references")
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

    def rule_fields(details: pl.Expr, rule: str) -> list[pl.Expr]:
        field = details.struct.field
        return fields(
            field("correct"),
            rule,
            field("extracted"),
            field("gold"),
            field("form"),
            field("reason"),
        )

    def choice_fields() -> list[pl.Expr]:
        resp_mc = _only(kind, resp, ["multiple_choice"])
        return rule_fields(_choice_details(resp_mc, given, opts), "final_choice")

    def number_fields() -> list[pl.Expr]:
        return rule_fields(_number_details(_only(kind, resp, ["numeric"]), given), "final_number")

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
