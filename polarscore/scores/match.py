"""Answer match: does a free-form answer give one of the reference answers? Judge-free.

:func:`answer_match` decides with a short list of general, explainable rules, each of which can be
switched off, over every alias of the reference answer. It was designed against human verdicts on
real QA answers (see ``docs/agreement.md`` for the measured agreement); the rules
hold no answer or question lists and nothing keyed to a data set.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import (
    check_same_length,
    parse_text_expr,
    parse_text_or_list_expr,
)
from polarscore._validation import check_number, invalid_parameter
from polarscore.normalize import load_fold_table
from polarscore.scores._match_kernel import (
    NO_MATCH,
    NO_REFERENCE,
    REJECTIONS,
    RULES,
    STOPWORDS,
    MatchOptions,
    match_expr,
)

#: The default token-recall threshold (tuned on EVOUNA; docs/agreement.md says how it generalises).
DEFAULT_MIN_TOKEN_RECALL = 0.3

#: The default stemming prefix: tokens compare on their first six characters.
DEFAULT_STEM_PREFIX = 6

#: The second-round rules and their defaults, chosen on one half of EVOUNA's questions and
#: checked on the other (``benchmarks/eval_answer_match.py``; ``docs/answer_match.md``).
RULE_DEFAULTS: dict[str, bool] = {
    "dates": True,
    "parentheticals": True,
    "repair_mojibake": True,
    "approximate_numbers": False,
    "glued_words": True,
}

#: The rules that reject an answer which names the gold without asserting it, and the letter
#: rule; each on by default (``docs/answer_match.md``, "Hedges, negations, sweeps and letters").
CLAIM_DEFAULTS: dict[str, bool] = {
    "hedges": True,
    "negations": True,
    "sweeps": True,
    "degenerate_loops": True,
    "letters": True,
}


def _check_flag(value: Any, function: str, parameter: str) -> bool:
    if not isinstance(value, bool):
        raise invalid_parameter(function, parameter, "True or False", value)
    return value


def _match_options(
    function: str,
    *,
    exact: bool,
    contains: bool,
    token_recall: bool,
    min_token_recall: float,
    stem_prefix: int | None,
    numbers_must_match: bool,
    fold_accents: bool,
    number_words: bool,
    dates: bool,
    parentheticals: bool,
    repair_mojibake: bool,
    approximate_numbers: bool,
    glued_words: bool,
    hedges: bool,
    negations: bool,
    sweeps: bool,
    degenerate_loops: bool,
    letters: bool,
) -> MatchOptions:
    """Check the switches and thresholds of one call (``question`` aside) and gather them."""
    flags = {
        "exact": exact,
        "contains": contains,
        "token_recall": token_recall,
        "numbers_must_match": numbers_must_match,
        "fold_accents": fold_accents,
        "number_words": number_words,
        "dates": dates,
        "parentheticals": parentheticals,
        "repair_mojibake": repair_mojibake,
        "approximate_numbers": approximate_numbers,
        "glued_words": glued_words,
        "hedges": hedges,
        "negations": negations,
        "sweeps": sweeps,
        "degenerate_loops": degenerate_loops,
        "letters": letters,
    }
    for name, value in flags.items():
        _check_flag(value, function, name)
    if not (exact or contains or token_recall):
        raise invalid_parameter(
            function,
            "token_recall",
            "True when 'exact' and 'contains' are both False (at least one rule must be on)",
            token_recall,
        )
    threshold = check_number(
        min_token_recall,
        function=function,
        parameter="min_token_recall",
        minimum=0.0,
        maximum=1.0,
        strict_minimum=True,
    )
    if stem_prefix is not None and (
        isinstance(stem_prefix, bool) or not isinstance(stem_prefix, int) or stem_prefix < 1
    ):
        raise invalid_parameter(
            function, "stem_prefix", "a positive integer, or None for no stemming", stem_prefix
        )
    return MatchOptions(
        exact=exact,
        contains=contains,
        token_recall=token_recall,
        min_token_recall=threshold,
        stem_prefix=stem_prefix,
        numbers_must_match=numbers_must_match,
        fold_accents=fold_accents,
        number_words=number_words,
        dates=dates,
        parentheticals=parentheticals,
        repair_mojibake=repair_mojibake,
        approximate_numbers=approximate_numbers,
        glued_words=glued_words,
        hedges=hedges,
        negations=negations,
        sweeps=sweeps,
        degenerate_loops=degenerate_loops,
        letters=letters,
    )


def fused_options(**options: Any) -> dict[str, Any]:
    """Return the keyword arguments of :func:`answer_match` in the fused call.

    The options are literals (no ``question``), checked as :func:`answer_match` checks them.
    """
    load_fold_table()
    return asdict(_match_options("answer_match", **options))


def _match_expr(
    function: str,
    response: IntoExpr,
    references: IntoExpr,
    *,
    question: IntoExpr | None,
    details: bool,
    **flags: Any,
) -> pl.Expr:
    options = _match_options(function, **flags)
    check_same_length(function, response=response, references=references, question=question)
    resp = parse_text_expr(response, function=function, parameter="response")
    refs = parse_text_or_list_expr(references, function=function, parameter="references")
    quest = (
        None
        if question is None
        else parse_text_expr(question, function=function, parameter="question")
    )
    return match_expr(resp, refs, quest, options, details=details)


def answer_match(
    response: IntoExpr,
    references: IntoExpr,
    *,
    question: IntoExpr | None = None,
    exact: bool = True,
    contains: bool = True,
    token_recall: bool = True,
    min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
    stem_prefix: int | None = DEFAULT_STEM_PREFIX,
    numbers_must_match: bool = True,
    fold_accents: bool = True,
    number_words: bool = True,
    dates: bool = True,
    parentheticals: bool = True,
    repair_mojibake: bool = True,
    approximate_numbers: bool = False,
    glued_words: bool = True,
    hedges: bool = True,
    negations: bool = True,
    sweeps: bool = True,
    degenerate_loops: bool = True,
    letters: bool = True,
) -> pl.Expr:
    r"""Score whether a free-form response gives one of the reference answers: 1.0 or 0.0.

    Every alias of the reference is tried with the rules in order (exact, contains, date,
    approximate number, token recall); the row scores 1.0 as soon as one rule accepts one alias.
    All comparisons are made on normalised text (see Notes). ``docs/answer_match.md`` describes
    the date, parenthetical, mojibake, glued-word and number rules with examples.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series. A null response
        is scored as the empty string.
    references
        The gold answers: a ``List(String)`` column of aliases, or a plain ``String`` column (one
        alias per row). Null and blank aliases are ignored.
    question
        Optional questions (a column name, expression or Series). When given, alias words that
        the question already contains are not counted as evidence by the token-recall rule
        (``"Sri Lanka Podujana Peramuna"`` is not matched by echoing "Sri Lanka" from the
        question), unless they are all the alias has.
    exact
        Rule 1: the normalised response equals the normalised alias.
    contains
        Rule 2: the normalised alias occurs in the normalised response on word boundaries
        (``"Paris"`` is in ``"It is Paris."`` but not in ``"Parisian"``).
    token_recall
        Rule 3: at least ``min_token_recall`` of the alias's content words (function words
        ignored, light stemming) occur in the response.
    min_token_recall
        The token-recall threshold, in (0, 1].
    stem_prefix
        Words compare on their first ``stem_prefix`` characters, after dropping a plural ending
        (``"hieroglyphics"`` matches ``"hieroglyphs"``, ``"Acronyms"`` matches ``"acronym"``).
        Numbers are never cut. ``None`` compares whole words.
    numbers_must_match
        The token-recall rule rejects an alias whose numbers are not all in the response
        (``"1,776 steps"`` does not match ``"2,579 steps"`` on the word "steps").
    fold_accents
        Normalise Unicode compatibility forms and drop accents (``"Malmö"`` equals ``"Malmo"``).
    number_words
        Read number and ordinal words as digits (``"seventh"`` equals ``"7th"`` and ``"7"``).
    dates
        Rule ``date``: an alias that is a date matches a response date that agrees at every
        component both state and gives the year (``"January 15, 2007"`` for
        ``"2007-01-15"``); a year or a decade alone (``"2010"``, ``"the 1920s"``) only when the
        question asks when (or none is given). A conflicting date never matches.
    parentheticals
        Also try each alias without its parenthetical qualifiers (``"Shot (unit)"`` as
        ``"Shot"``), and an alias that goes on with a comment after a comma as its head
        (``"Cher, in 1998, with the song Believe"`` as ``"Cher"``).
    repair_mojibake
        Repair UTF-8 read as Latin-1 or cp1252 on both sides, where the text re-encodes cleanly
        (``"DÃ¡in"`` is ``"Dáin"``); see :func:`polarscore.repair_mojibake`.
    approximate_numbers
        Rule ``approx_number`` (off by default): an alias with one number matches the same value
        in any spelling (``"£2.4bn"``), a value the response marks as approximate within 5%
        (``"about 2.4 billion"`` for ``"2.45 billion"``) or rounds (``"760"`` for
        ``"759.9625"``); a unit word after both must agree.
    glued_words
        The exact, contains, date and number rules also read the response with words a chat
        interface glued together split (``"isIdaho1"``, a year and its citation marker
        ``"193912"``), and an alias of several words matches them written as one
        (``"seashells"`` for ``"Sea Shells"``).
    hedges
        Reject (rule ``hedge``) a gold the response names only among other candidates of its
        type: ``"It is either Paris or London."``, a bare list of three or more, candidates
        offered (*maybe*, *possible answers*). A list that names two golds is no hedge.
    negations
        Reject (rule ``negated``) a gold the response denies: ``"Not Paris."``,
        ``"It isn't Paris"``, ``"Paris is wrong"``; ``"Paris, not London"`` still matches Paris.
    sweeps
        Reject (rule ``sweep``) a gold number covered by a run of five or more integers, mostly
        in steps (``"1 2 3 ... 20"`` for 12).
    degenerate_loops
        Reject (rule ``degenerate``) a response that repeats a loop of one to eight words four
        times or more, over twenty words or more.
    letters
        Match a single-letter gold (``"A"``, ``"(B)"``) by the multiple-choice letter the response
        gives (rule ``letter``: ``"ANSWER: A"``, ``"(A)"``, ``"**A**"``, ``"\boxed{A}"``,
        ``"The answer is (A)"``), never by the article *a* or the pronoun *I*.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``answer_match``: 1.0 when a rule accepts an alias, 0.0 when none does,
        and null (inconclusive, never a failure) when the row has no usable reference (null,
        empty list, or only null or blank aliases).

    Raises
    ------
    InvalidParameterError
        When an option has the wrong type or range, or every rule is switched off.

    Notes
    -----
    Normalisation (both sides): NFKD with accents dropped, lower-case, possessive ``'s`` dropped,
    dots and apostrophes inside words deleted (``"U.S.A."`` equals ``"USA"``), thousands
    separators removed, letters glued to digits split (``"Sweden1"``: a citation marker), every
    other punctuation character a word break, ordinal suffixes dropped, number words up to twenty
    and the tens read as digits, and the articles *a*, *an*, *the* dropped wherever they are.

    The rules read the whole response; they do not try to find "the" answer inside a long one.
    A response that names the gold without asserting it (among other candidates, denied, in a
    sweep of numbers or a loop) is rejected by the ``hedges``, ``negations``, ``sweeps`` and
    ``degenerate_loops`` rules, which read the response cut once at its list marks and breaks.
    ``docs/answer_match.md`` shows each with examples.

    Every row runs in polarscore's native kernel (a Polars expression plugin): one pass over
    each string, every alias of the row tried inside the kernel, so the expression is
    elementwise, streams and works on Arrow batches. Character classes, ``lower()`` and accent
    folding follow the running Python's ``unicodedata``.

    See Also
    --------
    answer_match_details : the same decision with a graded score, the matching alias and the rule.
    answer_correctness : single-reference exact / normalized / contains match (DataRobot parity).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": [
    ...             "The capital is Canberra.",
    ...             "It happened in the seventh century",
    ...             "Sydney",
    ...             "Malmo",
    ...             "anything",
    ...         ],
    ...         "references": [
    ...             ["Canberra"],
    ...             ["7th century AD"],
    ...             ["Canberra", "Canberra, ACT"],
    ...             ["Malmö"],
    ...             [],
    ...         ],
    ...     }
    ... )
    >>> df.with_columns(ps.answer_match("response", "references"))
    shape: (5, 3)
    ┌─────────────────────────────────┬───────────────────────────────┬──────────────┐
    │ response                        ┆ references                    ┆ answer_match │
    │ ---                             ┆ ---                           ┆ ---          │
    │ str                             ┆ list[str]                     ┆ f64          │
    ╞═════════════════════════════════╪═══════════════════════════════╪══════════════╡
    │ The capital is Canberra.        ┆ ["Canberra"]                  ┆ 1.0          │
    │ It happened in the seventh cen… ┆ ["7th century AD"]            ┆ 1.0          │
    │ Sydney                          ┆ ["Canberra", "Canberra, ACT"] ┆ 0.0          │
    │ Malmo                           ┆ ["Malmö"]                     ┆ 1.0          │
    │ anything                        ┆ []                            ┆ null         │
    └─────────────────────────────────┴───────────────────────────────┴──────────────┘
    """
    return (
        _match_expr(
            "answer_match",
            response,
            references,
            question=question,
            exact=exact,
            contains=contains,
            token_recall=token_recall,
            min_token_recall=min_token_recall,
            stem_prefix=stem_prefix,
            numbers_must_match=numbers_must_match,
            fold_accents=fold_accents,
            number_words=number_words,
            dates=dates,
            parentheticals=parentheticals,
            repair_mojibake=repair_mojibake,
            approximate_numbers=approximate_numbers,
            glued_words=glued_words,
            hedges=hedges,
            negations=negations,
            sweeps=sweeps,
            degenerate_loops=degenerate_loops,
            letters=letters,
            details=False,
        )
    ).alias("answer_match")


def answer_match_details(
    response: IntoExpr,
    references: IntoExpr,
    *,
    question: IntoExpr | None = None,
    exact: bool = True,
    contains: bool = True,
    token_recall: bool = True,
    min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
    stem_prefix: int | None = DEFAULT_STEM_PREFIX,
    numbers_must_match: bool = True,
    fold_accents: bool = True,
    number_words: bool = True,
    dates: bool = True,
    parentheticals: bool = True,
    repair_mojibake: bool = True,
    approximate_numbers: bool = False,
    glued_words: bool = True,
    hedges: bool = True,
    negations: bool = True,
    sweeps: bool = True,
    degenerate_loops: bool = True,
    letters: bool = True,
) -> pl.Expr:
    """Explain :func:`answer_match`: the decision, a graded score, the matching alias and the rule.

    Parameters
    ----------
    response, references, question, exact, contains, token_recall, min_token_recall
        As for :func:`answer_match`.
    stem_prefix, numbers_must_match, fold_accents, number_words
        As for :func:`answer_match`.
    dates, parentheticals, repair_mojibake, approximate_numbers, glued_words
        As for :func:`answer_match`.
    hedges, negations, sweeps, degenerate_loops, letters
        As for :func:`answer_match`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_match_details`` with the fields

        * ``score`` (``Float64``): exactly :func:`answer_match`;
        * ``graded_score`` (``Float64`` in [0, 1]): 1.0 when the exact or contains rule fired,
          else the best token recall over the aliases (0.0 for an alias whose numbers are
          missing, when ``numbers_must_match``); null when inconclusive;
        * ``reference_index`` (``UInt32``): the position in ``references`` of the alias that
          matched (the first one, by rule order, then by graded score); null when none did;
        * ``rule`` (``String``): ``"letter"``, ``"exact"``, ``"contains"``, ``"date"``,
          ``"approx_number"`` or ``"token_recall"`` (the first rule that accepted the chosen
          alias); ``"hedge"``, ``"negated"``, ``"sweep"`` or ``"degenerate"`` (the rule that
          rejected a row another rule accepted); ``"no_match"``, or ``"no_reference"`` when
          inconclusive;
        * ``reason`` (``String``): the rule, then what was done to the texts for it to accept
          them, each after ``"; "``: ``"parenthetical dropped"``, ``"mojibake repaired"``,
          ``"glued words split"``, ``"comment dropped"``, ``"words joined"``
          (``"exact; parenthetical dropped"``); for a rejection, what the
          rule saw (``"hedge; paris | london"``, ``"sweep; numbers 1 to 20"``).

    See Also
    --------
    answer_match : the decision alone.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["Paris", "I think it is Paris, France.", "Amy Johnson flew", "Lyon"],
    ...         "references": [["Lutetia", "paris"], ["Paris"], ["Amy Mollison"], ["Paris"]],
    ...     }
    ... )
    >>> df.select(ps.answer_match_details("response", "references")).unnest(
    ...     "answer_match_details"
    ... )
    shape: (4, 5)
    ┌───────┬──────────────┬─────────────────┬──────────────┬──────────────┐
    │ score ┆ graded_score ┆ reference_index ┆ rule         ┆ reason       │
    │ ---   ┆ ---          ┆ ---             ┆ ---          ┆ ---          │
    │ f64   ┆ f64          ┆ u32             ┆ str          ┆ str          │
    ╞═══════╪══════════════╪═════════════════╪══════════════╪══════════════╡
    │ 1.0   ┆ 1.0          ┆ 1               ┆ exact        ┆ exact        │
    │ 1.0   ┆ 1.0          ┆ 0               ┆ contains     ┆ contains     │
    │ 1.0   ┆ 0.5          ┆ 0               ┆ token_recall ┆ token_recall │
    │ 0.0   ┆ 0.0          ┆ null            ┆ no_match     ┆ no_match     │
    └───────┴──────────────┴─────────────────┴──────────────┴──────────────┘

    The second-round rules show in ``reason``:

    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["Shot", "It opened in 2010.", "isIdaho1."],
    ...         "references": [["Shot (unit)"], ["8 September 2010"], ["Idaho"]],
    ...         "question": ["what unit?", "when did it open?", "which state?"],
    ...     }
    ... )
    >>> details = ps.answer_match_details("response", "references", question="question")
    >>> df.select(details.struct.field("rule", "reason"))
    shape: (3, 2)
    ┌──────────┬──────────────────────────────┐
    │ rule     ┆ reason                       │
    │ ---      ┆ ---                          │
    │ str      ┆ str                          │
    ╞══════════╪══════════════════════════════╡
    │ exact    ┆ exact; parenthetical dropped │
    │ date     ┆ date                         │
    │ contains ┆ contains; glued words split  │
    └──────────┴──────────────────────────────┘
    """
    return _match_expr(
        "answer_match_details",
        response,
        references,
        question=question,
        exact=exact,
        contains=contains,
        token_recall=token_recall,
        min_token_recall=min_token_recall,
        stem_prefix=stem_prefix,
        numbers_must_match=numbers_must_match,
        fold_accents=fold_accents,
        number_words=number_words,
        dates=dates,
        parentheticals=parentheticals,
        repair_mojibake=repair_mojibake,
        approximate_numbers=approximate_numbers,
        glued_words=glued_words,
        hedges=hedges,
        negations=negations,
        sweeps=sweeps,
        degenerate_loops=degenerate_loops,
        letters=letters,
        details=True,
    ).alias("answer_match_details")


__all__ = [
    "CLAIM_DEFAULTS",
    "DEFAULT_MIN_TOKEN_RECALL",
    "DEFAULT_STEM_PREFIX",
    "NO_MATCH",
    "NO_REFERENCE",
    "REJECTIONS",
    "RULES",
    "RULE_DEFAULTS",
    "STOPWORDS",
    "answer_match",
    "answer_match_details",
]
