"""The native kernel of :func:`polarscore.answer_match`: every alias of every row, in Rust.

The per-row work runs in the expression plugin (``src/answer_match.rs``): one pass over each string
to normalise it (see :func:`polarscore.normalize.match_normalize`), the exact and contains rules on
the padded normalised strings, then, only for rows they did not decide, the token-recall rule over
sorted sets of stemmed content tokens. The aliases of a ``List(String)`` reference are handled
inside the kernel (the first alias accepted by the earliest rule wins, then the best graded score,
then the first position), so the expression is elementwise: it runs unchanged on eager frames, lazy
and streaming queries, and Arrow batches of any size.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import polars as pl

from polarscore._multi_reference import INDEX_DTYPE
from polarscore.kernels._plugin import plugin_call
from polarscore.normalize import load_fold_table
from polarscore.stopwords import ANSWER_MATCH_STOPWORDS as STOPWORDS

#: The rules, in the order they are tried; the first one that fires names the match.
RULES: tuple[str, ...] = ("letter", "exact", "contains", "date", "approx_number", "token_recall")

#: The rules that reject a row another rule accepted, checked in this order after it.
REJECTIONS: tuple[str, ...] = ("degenerate", "sweep", "hedge", "negated")

#: ``rule`` when no rule fired, and when the row has no usable reference.
NO_MATCH = "no_match"
NO_REFERENCE = "no_reference"


@dataclass(frozen=True)
class MatchOptions:
    """The switches and thresholds of one :func:`polarscore.answer_match` call."""

    exact: bool
    contains: bool
    token_recall: bool
    min_token_recall: float
    stem_prefix: int | None
    numbers_must_match: bool
    fold_accents: bool
    number_words: bool
    dates: bool
    parentheticals: bool
    repair_mojibake: bool
    approximate_numbers: bool
    glued_words: bool
    hedges: bool
    negations: bool
    sweeps: bool
    degenerate_loops: bool
    letters: bool


def match_expr(
    response: pl.Expr,
    references: pl.Expr,
    question: pl.Expr | None,
    options: MatchOptions,
    *,
    details: bool,
) -> pl.Expr:
    """Call the kernel: the score (``Float64``) or, with ``details``, the details struct.

    ``response`` is a ``String`` expression (null reads as ``""``), ``references`` a ``String``
    or ``List(String)`` one; ``question`` (``String``) is discounted when given.
    """
    load_fold_table()
    extra = [] if question is None else [question]
    if not details:
        return plugin_call("answer_match", response, references, *extra, **asdict(options))
    found = plugin_call("answer_match_details", response, references, *extra, **asdict(options))
    # The kernel gives the position as Int64; every other scorer's is INDEX_DTYPE.
    return found.struct.with_fields(pl.field("reference_index").cast(INDEX_DTYPE))


__all__ = [
    "NO_MATCH",
    "NO_REFERENCE",
    "REJECTIONS",
    "RULES",
    "STOPWORDS",
    "MatchOptions",
    "match_expr",
]
