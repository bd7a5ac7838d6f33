"""``correct``'s numeric and multiple-choice rules as the plain Polars expressions they once were.

The rules now run as one native pass per row (``src/extract/correct.rs``); these chains of
Polars list expressions around the native extractors are what that pass must reproduce value
for value, nulls included (tests only). Each returns the fields of ``correct_details`` that the
rule fills: ``(correct, extracted, gold, form, reason)``; the golds are a ``List(String)``.
"""

from __future__ import annotations

import polars as pl

import polarscore as ps

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: A gold answer that is a bare option letter: ``B``, ``(B)``, ``B.``, ``b``.
_GOLD_LETTER = r"^\s*\(?([A-Za-z])\)?\.?\s*$"

Fields = tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]


def _norm(text: pl.Expr) -> pl.Expr:
    return text.str.strip_chars().str.to_lowercase().str.replace_all(r"\s+", " ")


def _option_index(choices: pl.Expr, text: pl.Expr) -> pl.Expr:
    listed = choices.list.eval(_norm(pl.element())).list.concat(pl.concat_list(_norm(text)))
    first = listed.list.eval(pl.element() == pl.element().last()).list.arg_max()
    return pl.when(first < choices.list.len()).then(first)


def _letter(index: pl.Expr) -> pl.Expr:
    return pl.lit(_LETTERS).str.slice(index.cast(pl.Int64), 1)


def _gold_letter(gold: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    bare = gold.str.extract(_GOLD_LETTER, 1).str.to_uppercase()
    if choices is None:
        return bare
    return pl.coalesce(bare, _letter(_option_index(choices, gold)))


def choice_rule(response: pl.Expr, references: pl.Expr, choices: pl.Expr | None) -> Fields:
    """The multiple-choice rule's ``(correct, extracted, gold, form, reason)``."""
    if choices is None:
        chosen = ps.final_choice(response)
        details = ps.final_choice_details(response)
    else:
        chosen = ps.final_choice(response, choices=choices)
        details = ps.final_choice_details(response, choices=choices)
        chosen = pl.coalesce(chosen, _letter(_option_index(choices, response)))
    letters = references.list.eval(pl.element().str.extract(_GOLD_LETTER, 1).str.to_uppercase())
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
    first = references.list.eval(pl.element().filter(pl.element().str.strip_chars() != ""))
    gold = _gold_letter(first.list.first(), choices)
    score = pl.when(usable).then(hit.fill_null(value=False)).cast(pl.Float64)
    reason = (
        pl.when(gold.is_null())
        .then(pl.lit("the gold is neither a letter nor one of the options"))
        .otherwise(details.struct.field("reason"))
    )
    return score, chosen, gold, details.struct.field("form"), reason


def number_rule(response: pl.Expr, references: pl.Expr) -> Fields:
    """The numeric rule's ``(correct, extracted, gold, form, reason)``."""
    number = ps.final_number(response)
    golds = references.list.eval(ps.final_number(pl.element()))
    value = number.cast(pl.Float64, strict=False)
    numbers = golds.list.eval(pl.element().cast(pl.Float64, strict=False))
    usable = numbers.list.drop_nulls().list.len() > 0
    listed = numbers.list.concat(pl.concat_list(value))
    first = listed.list.eval(pl.element() == pl.element().last()).list.arg_max()
    hit = (first < numbers.list.len()) & value.is_not_null()
    gold = golds.list.drop_nulls().list.first()
    score = pl.when(usable).then(hit.fill_null(value=False)).cast(pl.Float64)
    details = ps.final_number_details(response)
    reason = (
        pl.when(gold.is_null())
        .then(pl.lit("the gold holds no number"))
        .otherwise(details.struct.field("reason"))
    )
    return score, number, gold, details.struct.field("form"), reason
