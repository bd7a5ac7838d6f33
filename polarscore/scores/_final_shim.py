"""TEMPORARY, never committed: stand-ins for the final-answer extractors another branch builds."""

from __future__ import annotations

import polars as pl

from polarscore.scores.extraction import extract_choice, extract_number


def final_choice(response, *, choices=None):  # type: ignore[no-untyped-def]
    return extract_choice(response).alias("final_choice")


def final_choice_details(response, *, choices=None):  # type: ignore[no-untyped-def]
    c = extract_choice(response)
    return pl.struct(
        c.alias("choice"),
        pl.when(c.is_null()).then(pl.lit("none")).otherwise(pl.lit("mmlu_pro")).alias("form"),
        pl.when(c.is_null()).then(pl.lit("no letter")).otherwise(pl.lit("")).alias("reason"),
    ).alias("final_choice_details")


def final_number(response):  # type: ignore[no-untyped-def]
    return extract_number(response).alias("final_number")


def final_number_details(response):  # type: ignore[no-untyped-def]
    n = extract_number(response)
    return pl.struct(
        n.alias("number"),
        pl.when(n.is_null()).then(pl.lit("none")).otherwise(pl.lit("last")).alias("form"),
        pl.when(n.is_null()).then(pl.lit("no number")).otherwise(pl.lit("")).alias("reason"),
    ).alias("final_number_details")
