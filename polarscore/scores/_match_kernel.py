"""The batch kernel of :func:`polarscore.answer_match`: every (response, alias) pair at once.

The input is one batch of already normalised text (see :mod:`polarscore.scores._match_text`); the
kernel explodes it into (row, alias) pairs and (pair, token) rows, decides each pair with joins and
group-bys over the whole batch (no per-row Python), keeps the best alias per row and returns one
struct per input row. It is wrapped as an elementwise ``map_batches``, so it runs unchanged on
eager frames, lazy and streaming queries, and Arrow batches of any size.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polarscore._utils import contains_literal
from polarscore.normalize import py_is_blank
from polarscore.scores._match_text import match_normalize

#: Function words that carry no answer content; they are ignored by the token-recall rule.
STOPWORDS: tuple[str, ...] = (
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "by",
    "with",
    "from",
    "and",
    "or",
    "as",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "their",
    "our",
    "your",
    "my",
)

#: The rules, in the order they are tried; the first one that fires names the match.
RULES: tuple[str, ...] = ("exact", "contains", "token_recall")

#: ``rule`` when no rule fired, and when the row has no usable reference.
NO_MATCH = "no_match"
NO_REFERENCE = "no_reference"

DETAILS_DTYPE = pl.Struct(
    {
        "score": pl.Float64,
        "graded_score": pl.Float64,
        "reference_index": pl.Int64,
        "rule": pl.String,
    }
)


@dataclass(frozen=True)
class MatchOptions:
    """The switches and thresholds of one :func:`polarscore.answer_match` call."""

    exact: bool
    contains: bool
    token_recall: bool
    min_token_recall: float
    stem_prefix: int | None
    numbers_must_match: bool
    discount_question: bool
    fold_accents: bool
    number_words: bool


def _stem(token: pl.Expr, prefix: int | None) -> pl.Expr:
    """Light stemming: a plural ending dropped, then the first ``prefix`` characters.

    Numbers are kept whole.
    """
    if prefix is None:
        return token
    stemmed = (
        token.str.replace(r"(\p{L}{2,}[^s])ies$", "${1}y")
        .str.replace(r"(\p{L}{3,}[^s])e?s$", "$1")
        .str.slice(0, prefix)
    )
    return pl.when(token.str.contains(r"^\p{N}")).then(token).otherwise(stemmed)


def _tokens(frame: pl.DataFrame, key: str, text: str, prefix: int | None) -> pl.DataFrame:
    """Content tokens of ``text``, one row per distinct (key, token)."""
    return (
        frame.select(key, token=pl.col(text).str.strip_chars(" ").str.split(" "))
        .explode("token")
        .filter(pl.col("token").is_not_null() & (pl.col("token") != ""))
        .filter(~pl.col("token").is_in(STOPWORDS))
        .with_columns(_stem(pl.col("token"), prefix))
        .unique()
    )


def _token_recall(pairs: pl.DataFrame, rows: pl.DataFrame, options: MatchOptions) -> pl.DataFrame:
    """Per pair: the share of the alias's content tokens that the response has.

    Question words are discounted, and the share is 0.0 when ``numbers_must_match`` and a
    number of the alias is missing from the response.
    """
    prefix = options.stem_prefix
    rows = rows.filter(pl.col("row").is_in(pairs.get_column("row").unique().implode()))
    alias_tokens = _tokens(pairs, "pair", "ref", prefix).join(
        pairs.select("pair", "row"), on="pair", how="left"
    )
    response_tokens = _tokens(rows, "row", "response", prefix).with_columns(hit=pl.lit(True))
    joined = alias_tokens.join(response_tokens, on=["row", "token"], how="left")
    hit = pl.col("hit").fill_null(False)
    if options.discount_question:
        questions = rows.drop_nulls("question").select(
            "row",
            match_normalize(
                pl.col("question"),
                fold_accents=options.fold_accents,
                number_words=options.number_words,
            ),
        )
        question_tokens = _tokens(questions, "row", "question", prefix)
        joined = joined.join(
            question_tokens.with_columns(given=pl.lit(True)), on=["row", "token"], how="left"
        )
    else:
        joined = joined.with_columns(given=pl.lit(False))
    given = pl.col("given").fill_null(False)
    is_number = pl.col("token").str.contains(r"^\p{N}")
    per_pair = joined.group_by("pair").agg(
        n_all=pl.len(),
        hits_all=hit.sum(),
        n_new=(~given).sum(),
        hits_new=(hit & ~given).sum(),
        numbers_missing=(is_number & ~hit).sum(),
    )
    # Tokens the question already gives away are no evidence, unless they are all there is.
    recall = (
        pl.when(pl.col("n_new") > 0)
        .then(pl.col("hits_new") / pl.col("n_new"))
        .otherwise(pl.col("hits_all") / pl.col("n_all"))
    )
    if options.numbers_must_match:
        recall = pl.when(pl.col("numbers_missing") > 0).then(0.0).otherwise(recall)
    return per_pair.select("pair", recall=recall.cast(pl.Float64))


def match_batch(batch: pl.Series, options: MatchOptions) -> pl.Series:
    """Decide every row of one batch.

    ``batch`` is a struct of the normalised ``response`` (a padded string), the raw
    ``references`` (a list of strings) and the raw ``question`` (null when not given).
    """
    rows = batch.struct.unnest().with_row_index("row")
    if rows.schema["references"] == pl.List(pl.Null):  # e.g. a column of empty lists
        rows = rows.with_columns(pl.col("references").cast(pl.List(pl.String)))
    n_rows = rows.height
    pairs = (
        rows.select(
            "row",
            ref=pl.col("references"),
            alias=pl.int_ranges(pl.col("references").list.len()),
        )
        .explode("ref", "alias")
        .filter(pl.col("ref").is_not_null() & ~py_is_blank(pl.col("ref")))
        .with_row_index("pair")
    )
    # Eval logs repeat their references (one question, several systems or prompts): normalise
    # each distinct alias once.
    distinct = pairs.get_column("ref").unique().to_frame()
    distinct = distinct.with_columns(
        match_normalize(
            pl.col("ref"), fold_accents=options.fold_accents, number_words=options.number_words
        ).alias("normalized")
    )
    pairs = (
        pairs.join(distinct, on="ref", how="left", maintain_order="left")
        .drop("ref")
        .rename({"normalized": "ref"})
        .with_columns(rows.get_column("response").gather(pairs.get_column("row")).alias("response"))
    )
    has_content = pl.col("ref") != " "
    exact = (pl.col("response") == pl.col("ref")) if options.exact else pl.lit(False)
    contains = (
        has_content & contains_literal(pl.col("response"), pl.col("ref"))
        if options.contains
        else pl.lit(False)
    )
    pairs = pairs.with_columns(exact=exact, contains=contains)
    if options.token_recall:
        # Rows already matched by the exact or contains rule need no token recall.
        matched_rows = pairs.filter(pl.col("exact") | pl.col("contains")).get_column("row")
        undecided = pairs.filter(~pl.col("row").is_in(matched_rows.implode()))
        recall = _token_recall(undecided, rows, options)
        pairs = pairs.join(recall, on="pair", how="left", maintain_order="left").with_columns(
            pl.col("recall").fill_null(0.0)
        )
        by_recall = pl.col("recall") >= options.min_token_recall
    else:
        pairs = pairs.with_columns(recall=pl.lit(0.0))
        by_recall = pl.lit(False)
    rule = (
        pl.when("exact")
        .then(pl.lit(0))
        .when("contains")
        .then(pl.lit(1))
        .when(by_recall)
        .then(pl.lit(2))
        .otherwise(pl.lit(3))
    )
    graded = pl.when(pl.col("exact") | pl.col("contains")).then(1.0).otherwise(pl.col("recall"))
    best = (
        pairs.select("row", "alias", rule=rule, graded=graded)
        .sort(["row", "rule", "graded", "alias"], descending=[False, False, True, False])
        .filter(pl.col("row").is_first_distinct())
    )
    names = dict(enumerate((*RULES, NO_MATCH)))
    matched = pl.col("rule") < len(RULES)
    out = (
        pl.DataFrame({"row": pl.int_range(n_rows, dtype=pl.UInt32, eager=True)})
        .join(best, on="row", how="left", maintain_order="left")
        .select(
            score=pl.when(pl.col("rule").is_not_null()).then(matched.cast(pl.Float64)),
            graded_score=pl.col("graded").cast(pl.Float64),
            reference_index=pl.when(matched).then(pl.col("alias")).cast(pl.Int64),
            rule=pl.when(pl.col("rule").is_null())
            .then(pl.lit(NO_REFERENCE))
            .otherwise(pl.col("rule").replace_strict(names, return_dtype=pl.String)),
        )
    )
    return out.to_struct(batch.name)


__all__ = [
    "DETAILS_DTYPE",
    "NO_MATCH",
    "NO_REFERENCE",
    "RULES",
    "STOPWORDS",
    "MatchOptions",
    "match_batch",
]
