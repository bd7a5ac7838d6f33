r"""Answer precision: a graded score from several judge-free signals, combined by a power mean.

Reproduces ``AnswerPrecisionMetric`` of eval-ai-library 0.8.2 row for row with
``char_similarity="sequence_matcher"`` and ``missing_expected="zero"``, over whole columns:

* text normalisation (links, URLs, NFKC, lower, whitespace) and token sets are Polars string and
  list operations; NFKC runs only on the rows that hold non-ASCII text, and rows with characters
  that the interpreter's Unicode tables do not assign go through Python's own ``unicodedata``;
* numbers are extracted with a Polars regex spelling out Python's ``\d``, non-ASCII digits are
  mapped to ASCII as Python's ``float()`` reads them, and the greedy nearest-number matching runs
  over all rows at once in NumPy (:func:`polarscore.kernels.greedy_numeric_match`);
* the character similarity is RapidFuzz's Indel over whole columns (``cpdist``), or difflib's
  Ratcliff/Obershelp (:func:`polarscore.kernels.sequence_matcher_ratio`).

Everything runs inside one elementwise batch map per expression, so it streams, works on Arrow
batches of any size, and computes the shared intermediates (normalised text, token sets) once.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache, partial
from typing import Literal, TypeAlias

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from polarscore._multi_reference import (
    INDEX_DTYPE,
    best_item_per_row,
    dispatch_reference,
    flatten,
)
from polarscore._typing import IntoExpr, IntoNumber
from polarscore._utils import check_same_length, parse_into_expr, parse_text_expr
from polarscore._validation import check_choice, check_number, invalid_parameter
from polarscore.exceptions import ColumnTypeError
from polarscore.kernels.char_ratio import indel_similarity, sequence_matcher_ratio
from polarscore.kernels.numeric import greedy_numeric_match
from polarscore.kernels.unicode import (
    nfkc_lower,
    nfkc_sensitive_table,
    python_digit_map,
    python_digit_ranges,
    python_repr_escapes,
    python_unprintable_ranges,
    rows_with,
    unassigned_table,
)
from polarscore.normalize import PY_WS_CLASS, py_collapse_whitespace, py_is_blank, py_strip
from polarscore.stopwords import resolve_stopwords

CharSimilarity: TypeAlias = Literal["indel", "sequence_matcher"]
MissingExpected: TypeAlias = Literal["null", "zero"]

#: The fields of :func:`answer_precision_components`, in order.
COMPONENT_FIELDS: tuple[str, ...] = (
    "exact",
    "normalized",
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "penalty",
    "score",
)

#: Components that may carry a weight, in the order they enter the power mean: the reference's
#: four first (so its sums are reproduced bit for bit), then the three reported-only ones.
WEIGHTABLE: tuple[str, ...] = (
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "exact",
    "normalized",
    "token_recall",
)

#: The reference's weights.
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "contains": 0.48,
    "char_ratio": 0.32,
    "token_precision": 0.15,
    "numeric": 0.35,
}

#: Rows scored together at most; longer batches are scored slice by slice (bounded memory).
CHUNK_ROWS = 8_192

#: The reference's default pass threshold (``AnswerPrecisionMetric(threshold=0.8)``).
DEFAULT_THRESHOLD = 0.8

#: Reason texts of the rows the reference does not score, in its words.
EMPTY_ACTUAL_REASON = (
    "Assistant returned an empty response, so the metric cannot be evaluated; "
    "defaulting to score 0."
)
NO_EXPECTED_REASON = "No expected output provided."
INVALID_TOLERANCE_REASON = (
    "Invalid numeric tolerance (null, NaN, infinite or negative): cannot score."
)

# The reference's basic normalisation, with Python's \s spelled out for the Rust engine.
_LINK = rf"\[([^\]]+)\]\([{PY_WS_CLASS}]*https?://[^)]+[{PY_WS_CLASS}]*\)"
_URL = rf"https?://[^{PY_WS_CLASS}]+"
# Tokens: the 32 ASCII punctuation characters (string.punctuation) split tokens.
_PUNCTUATION = r"[!-/:-@\[-`{-~]"
_NON_ASCII_DIGIT = r"[^\x00-\x7F]"

_FORMATTED = ("char_ratio", "token_precision", "numeric", "contains")
_MISMATCH = pl.Struct({"expected": pl.Float64, "actual": pl.Float64, "rel_err": pl.Float64})
_COMPONENTS_DTYPE = pl.Struct(dict.fromkeys(COMPONENT_FIELDS, pl.Float64))
_DIAGNOSTICS_DTYPE = pl.Struct(
    {
        "score": pl.Float64,
        "path": pl.String,
        "token_recall": pl.Float64,
        "missing_terms": pl.List(pl.String),
        "extra_terms": pl.List(pl.String),
        "numeric_mismatches": pl.List(_MISMATCH),
        "reason": pl.String,
    }
)


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(
        f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in ranges
    )


@cache
def _unprintable_pattern() -> str:
    """Return a regex matching any character that Python's ``repr`` escapes."""
    return f"[{_class(python_unprintable_ranges())}]"


def _repr_terms(terms: pl.Series) -> pl.Series:
    """Write each term as ``repr`` would inside a list (tokens hold no quotes nor backslashes).

    Only characters that Python does not print need escaping; the few distinct ones of the
    batch are escaped once and replaced everywhere.
    """
    flat = terms.explode(empty_as_null=False).drop_nulls()
    hidden = flat.str.extract_all(_unprintable_pattern()).explode(empty_as_null=False)
    chars = hidden.drop_nulls().unique().sort().to_list()
    if not chars:
        return terms
    escapes = python_repr_escapes(chars)
    return terms.list.eval(pl.element().str.replace_many(chars, escapes))


@cache
def _number_pattern() -> str:
    r"""Return the number pattern ``[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?`` with Python's ``\d``."""
    digit = f"[{_class(python_digit_ranges())}]"
    return rf"[-+]?{digit}*\.?{digit}+(?:[eE][-+]?{digit}+)?"


@dataclass(frozen=True)
class _Options:
    """Validated options, shared by the batch function."""

    char_similarity: str
    missing_expected: str
    power_p: float
    weights: tuple[tuple[str, float], ...]
    stopwords: tuple[str, ...]
    tol_abs: float | None  # None: per-row column "tol_abs" in the batch
    tol_rel: float | None


# --- option parsing -------------------------------------------------------------------------


def _parse_tolerance(value: IntoNumber, *, function: str, parameter: str) -> float | pl.Expr:
    if isinstance(value, pl.Series):
        return pl.lit(value)
    if isinstance(value, pl.Expr):
        return value
    expected = "a finite number >= 0, or a polars expression giving one per row"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid_parameter(function, parameter, expected, value)
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise invalid_parameter(function, parameter, expected, value)
    return number


def _parse_weights(
    weights: Mapping[str, float] | None, *, function: str
) -> tuple[tuple[str, float], ...]:
    if weights is None:
        return tuple(DEFAULT_WEIGHTS.items())
    allowed = ", ".join(map(repr, WEIGHTABLE))
    if not isinstance(weights, Mapping) or not weights:
        raise invalid_parameter(
            function, "weights", f"a non-empty mapping from component names ({allowed})", weights
        )
    for name in weights:
        check_choice(name, function=function, parameter="weights", allowed=WEIGHTABLE)
    values = {
        name: check_number(weights[name], function=function, parameter="weights", minimum=0)
        for name in weights
    }
    if not any(values.values()):
        raise invalid_parameter(function, "weights", "a mapping with a positive weight", weights)
    return tuple((name, values[name]) for name in WEIGHTABLE if name in values)


def _build(
    function: str,
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity,
    missing_expected: MissingExpected,
    numeric_tolerance_abs: IntoNumber,
    numeric_tolerance_rel: IntoNumber,
    power_p: float,
    weights: Mapping[str, float] | None,
    stopwords: str | Collection[str] | None,
    output: str,
    dtype: pl.DataType,
) -> pl.Expr:
    check_choice(
        char_similarity,
        function=function,
        parameter="char_similarity",
        allowed=("indel", "sequence_matcher"),
    )
    check_choice(
        missing_expected, function=function, parameter="missing_expected", allowed=("null", "zero")
    )
    p = check_number(
        power_p, function=function, parameter="power_p", minimum=0, strict_minimum=True
    )
    tol_abs = _parse_tolerance(
        numeric_tolerance_abs, function=function, parameter="numeric_tolerance_abs"
    )
    tol_rel = _parse_tolerance(
        numeric_tolerance_rel, function=function, parameter="numeric_tolerance_rel"
    )
    options = _Options(
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        power_p=p,
        weights=_parse_weights(weights, function=function),
        stopwords=tuple(sorted(resolve_stopwords(stopwords, function=function))),
        tol_abs=tol_abs if isinstance(tol_abs, float) else None,
        tol_rel=tol_rel if isinstance(tol_rel, float) else None,
    )
    check_same_length(function, response=response, reference=reference)
    response_expr = parse_text_expr(response, function=function, parameter="response")
    tolerances = []
    if isinstance(tol_abs, pl.Expr):
        tolerances.append(tol_abs.cast(pl.Float64).alias("tol_abs"))
    if isinstance(tol_rel, pl.Expr):
        tolerances.append(tol_rel.cast(pl.Float64).alias("tol_rel"))

    def on_string(reference: pl.Expr) -> pl.Expr:
        fields = [response_expr.alias("response"), reference.alias("reference"), *tolerances]
        return pl.struct(fields).map_batches(
            partial(_batch, options=options, output=output),
            return_dtype=dtype,
            is_elementwise=True,
        )

    def on_list(references: pl.Expr) -> pl.Expr:
        # The best reference per row; the structs also say which one (reference_index).
        fields = [response_expr.alias("response"), references.alias("reference"), *tolerances]
        list_dtype = (
            pl.Struct([*dtype.fields, pl.Field("reference_index", INDEX_DTYPE)])
            if isinstance(dtype, pl.Struct)
            else dtype
        )
        return pl.struct(fields).map_batches(
            partial(_list_batch, options=options, output=output),
            return_dtype=list_dtype,
            is_elementwise=True,
        )

    return dispatch_reference(
        parse_into_expr(reference, function=function, parameter="reference"),
        on_string=on_string,
        on_list=on_list,
        function=function,
        parameter="reference",
        also_reads=[response_expr, *tolerances],
    )


# --- the batch computation ------------------------------------------------------------------


def _as_text(series: pl.Series, role: str) -> pl.Series:
    if series.dtype == pl.Null:
        return series.cast(pl.String)
    if series.dtype != pl.String:
        raise ColumnTypeError(
            f"answer_precision needs a String {role} column; got {series.dtype} instead."
        )
    return series


def _basic_normalize(text: pl.Series) -> pl.Series:
    """Normalise non-null text: links and URLs on the raw text, NFKC, lower, strip, collapse.

    Each step touches only the rows it can change: links and URLs only rows holding ``http``;
    ASCII rows are lower-cased with Arrow's ASCII kernel (NFKC is the identity on them); the
    non-ASCII rows get NFKC (Arrow's utf8proc, equal to Python's on every assigned character)
    only if they hold a character that NFKC can change, and Python's full ``lower()`` mapping
    (Polars); rows with characters the interpreter leaves unassigned go through Python itself.
    """
    urls = text.str.contains("http", literal=True).arg_true()
    if urls.len():
        cleaned = (
            text.gather(urls)
            .to_frame("t")
            .select(pl.col("t").str.replace_all(_LINK, "${1}").str.replace_all(_URL, ""))
            .to_series()
        )
        text = text.clone().scatter(urls, cleaned)  # scatter works in place
    non_ascii = (text.str.len_bytes() != text.str.len_chars()).arg_true()
    lowered = _from_arrow(pc.ascii_lower(text.to_arrow()))
    if non_ascii.len():
        subset = text.gather(non_ascii)
        data, offsets = _utf8_buffers(subset)
        # Characters the interpreter does not assign may be assigned (and normalise or lower
        # differently) in newer tables: Python itself handles those rare rows.
        unknown = rows_with(data, offsets, unassigned_table())
        sensitive = rows_with(data, offsets, nfkc_sensitive_table()) & ~unknown
        normalized = subset
        if sensitive.any():
            where = pl.Series(np.flatnonzero(sensitive))
            nfkc = _from_arrow(pc.utf8_normalize(subset.gather(where).to_arrow(), "NFKC"))
            normalized = normalized.clone().scatter(where, nfkc)
        normalized = normalized.str.to_lowercase()
        if unknown.any():
            where = pl.Series(np.flatnonzero(unknown))
            fallback = pl.Series(nfkc_lower(subset.gather(where).to_list()), dtype=pl.String)
            normalized = normalized.scatter(where, fallback)
        lowered = lowered.scatter(non_ascii, normalized)
    return lowered.to_frame("t").select(py_strip(py_collapse_whitespace(pl.col("t")))).to_series()


def _utf8_buffers(text: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """Return the UTF-8 bytes and int64 offsets of a non-null String Series (zero-copy)."""
    array = text.to_arrow()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    array = array.cast(pa.large_string())
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[
        array.offset : array.offset + len(array) + 1
    ]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None
        else np.zeros(0, np.uint8)
    )
    return data, offsets


def _from_arrow(array: pa.Array | pa.ChunkedArray) -> pl.Series:
    series = pl.from_arrow(array)
    assert isinstance(series, pl.Series)  # an Arrow array always converts to a Series
    return series


def _token_sets(normalized: pl.Series, stopwords: tuple[str, ...]) -> pl.Series:
    """Return the set of tokens of each normalised text, stopwords removed.

    After normalisation the only whitespace left is the ASCII space, so replacing the ASCII
    punctuation by spaces and splitting on the space gives the tokens, plus empty strings that
    the set difference drops together with the stopwords.
    """
    drop = pl.lit(pl.Series([["", *stopwords]], dtype=pl.List(pl.String)))
    return (
        normalized.to_frame("t")
        .select(
            pl.col("t").str.replace_all(_PUNCTUATION, " ").str.split(" ").list.set_difference(drop)
        )
        .to_series()
    )


def _numbers(text: pl.Series) -> tuple[np.ndarray, np.ndarray, pl.Series]:
    """Return the numbers of each raw text, as (flat values, offsets, per-row counts)."""
    found = text.str.extract_all(_number_pattern())
    counts = found.list.len().cast(pl.Int64)
    flat = found.explode(empty_as_null=False).drop_nulls()
    odd = flat.str.contains(_NON_ASCII_DIGIT).arg_true()
    if odd.len():
        digits = python_digit_map()
        mapped = flat.gather(odd).str.replace_many(list(digits), list(digits.values()))
        flat = flat.scatter(odd, mapped)
    values = flat.cast(pl.Float64, strict=True).to_numpy()
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts.to_numpy(), out=offsets[1:])
    return values.astype(np.float64, copy=False), offsets, counts


def _fmt2(values: pl.Series) -> pl.Series:
    """Format numbers in [0, 1] with two decimals exactly as ``f"{x:.2f}"`` does.

    Scaling by 100 and rounding is exact except within a hair of a half-hundredth, where the
    decimal value of the binary number decides; those few distinct values go through Python's
    own formatting.
    """
    scaled = values * 100
    hundredths = scaled.round(0, mode="half_to_even").cast(pl.Int64)
    text = (
        pl.DataFrame({"h": hundredths})
        .select(
            pl.concat_str(
                (pl.col("h") // 100).cast(pl.String),
                pl.lit("."),
                (pl.col("h") % 100).cast(pl.String).str.zfill(2),
            )
        )
        .to_series()
    )
    near_half = ((scaled - scaled.floor() - 0.5).abs() < 1e-6).fill_null(False).arg_true()
    if near_half.len():
        exact = [f"{v:.2f}" for v in values.gather(near_half).to_list()]
        text = text.scatter(near_half, pl.Series(exact, dtype=pl.String))
    return text


def _terms(terms: pl.Expr, label: str) -> pl.Expr:
    return (
        pl.when(terms.list.len() == 0)
        .then(pl.lit(f"{label}: none."))
        .otherwise(pl.concat_str(pl.lit(f"{label}: ['"), terms.list.join("', '"), pl.lit("']")))
    )


def _score_columns(
    response: pl.Series,
    reference: pl.Series,
    tol_abs: np.ndarray,
    tol_rel: np.ndarray,
    options: _Options,
    *,
    diagnostics: bool,
) -> pl.DataFrame:
    """Score aligned columns of non-null, scorable (response, reference) pairs.

    Every row is scored (no guards): the caller picks the rows. Returns the components, the
    score and, with ``diagnostics``, the token-level and numeric details. This is the unit a
    multi-reference scorer reuses: explode the references, repeat the responses, score, reduce.
    """
    n = response.len()
    a_norm = _basic_normalize(response)
    e_norm = _basic_normalize(reference)
    a_set = _token_sets(a_norm, options.stopwords)
    e_set = _token_sets(e_norm, options.stopwords)
    a_values, a_offsets, a_counts = _numbers(response)
    e_values, e_offsets, e_counts = _numbers(reference)
    match = greedy_numeric_match(a_values, a_offsets, e_values, e_offsets, tol_abs, tol_rel)

    a_list, e_list = a_norm.to_list(), e_norm.to_list()
    if options.char_similarity == "indel":
        char_ratio = indel_similarity(a_list, e_list)
    else:
        char_ratio = sequence_matcher_ratio(a_list, e_list)
    del a_list, e_list

    n_e = e_counts.to_numpy()
    numeric = np.where(
        n_e == 0,
        (a_counts.to_numpy() == 0).astype(np.float64),
        match.matched / np.maximum(n_e, 1),
    )
    frame = pl.DataFrame(
        {
            "exact": (response == reference).cast(pl.Float64),
            "normalized": (a_norm == e_norm).cast(pl.Float64),
            "a_set": a_set,
            "e_set": e_set,
            "char_ratio": pl.Series(char_ratio, dtype=pl.Float64),
            "numeric": pl.Series(numeric, dtype=pl.Float64),
        },
        height=n,
    )
    a_n, e_n = pl.col("a_set").list.len(), pl.col("e_set").list.len()
    inter = pl.col("a_set").list.set_intersection("e_set").list.len()
    frame = frame.with_columns(a_n=a_n, e_n=e_n, inter=inter).with_columns(
        contains=pl.when((pl.col("a_n") == 0) & (pl.col("e_n") == 0))
        .then(1.0)
        .when((pl.col("a_n") == 0) | (pl.col("e_n") == 0))
        .then(0.0)
        .otherwise(pl.col("inter") / pl.min_horizontal("a_n", "e_n")),
        token_precision=pl.when(pl.col("a_n") == 0)
        .then((pl.col("e_n") == 0).cast(pl.Float64))
        .otherwise(pl.col("inter") / pl.col("a_n")),
        token_recall=pl.when(pl.col("e_n") == 0)
        .then((pl.col("a_n") == 0).cast(pl.Float64))
        .otherwise(pl.col("inter") / pl.col("e_n")),
    )
    # The reference's aggregation: weights normalised by their sum, terms added in order, clamped.
    total = 0.0
    for _, weight in options.weights:
        total += weight
    p = options.power_p
    acc = pl.lit(0.0)
    for name, weight in options.weights:
        acc = acc + (weight / total) * pl.col(name).clip(0.0, 1.0).pow(p)
    extra_n = pl.col("a_n") - pl.col("inter")
    frame = frame.with_columns(
        base=acc.pow(1.0 / p).clip(0.0, 1.0),
        penalty=pl.when((extra_n >= 5) & (pl.col("token_precision") < 0.7))
        .then(0.05)
        .otherwise(0.0),
    ).with_columns(score=(pl.col("base") * (1.0 - pl.col("penalty"))).clip(0.0, 1.0))
    if not diagnostics:
        return frame.select(COMPONENT_FIELDS)

    mismatches = _numeric_mismatches(
        n, a_values, a_offsets, e_values, e_offsets, match.chosen, match.within, match.error
    )
    frame = frame.with_columns(
        missing_terms=pl.col("e_set").list.set_difference("a_set").list.sort(),
        extra_terms=pl.col("a_set").list.set_difference("e_set").list.sort(),
        numeric_mismatches=mismatches,
        has_numbers=pl.Series((a_counts.to_numpy() + n_e) > 0),
    )
    frame = frame.with_columns(
        missing_repr=_repr_terms(frame["missing_terms"]),
        extra_repr=_repr_terms(frame["extra_terms"]),
        **{f"{name}_2f": _fmt2(frame[name]) for name in _FORMATTED},
    )
    first = (
        pl.when(pl.col("exact") == 1.0)
        .then(pl.lit("exact match"))
        .when(pl.col("normalized") == 1.0)
        .then(pl.lit("normalized match"))
        .otherwise(
            pl.concat_str(
                pl.lit("char similarity "),
                pl.col("char_ratio_2f"),
                pl.lit(", token precision "),
                pl.col("token_precision_2f"),
            )
        )
    )
    numeric_bit = (
        pl.when(pl.col("has_numbers"))
        .then(pl.concat_str(pl.lit(", numeric agreement "), pl.col("numeric_2f")))
        .otherwise(pl.lit(""))
    )
    contains_bit = (
        pl.when(pl.col("contains") == 1.0)
        .then(pl.lit(", full containment"))
        .when(pl.col("contains") > 0)
        .then(pl.concat_str(pl.lit(", containment "), pl.col("contains_2f")))
        .otherwise(pl.lit(""))
    )
    penalty_bit = (
        pl.when(pl.col("penalty") > 0)
        .then(pl.lit(", penalized for many extra tokens"))
        .otherwise(pl.lit(""))
    )
    p_text = f"{p:.2f}"
    reason = pl.concat_str(
        first,
        numeric_bit,
        contains_bit,
        penalty_bit,
        pl.lit(f", power-mean aggregation (p={p_text}); "),
        _terms(pl.col("missing_repr"), "Missing terms"),
        pl.lit(" "),
        _terms(pl.col("extra_repr"), "Extra terms"),
    )
    return frame.with_columns(reason=reason).select(
        *COMPONENT_FIELDS,
        "token_recall",
        "missing_terms",
        "extra_terms",
        "numeric_mismatches",
        "reason",
    )


def _numeric_mismatches(
    n: int,
    a_values: np.ndarray,
    a_offsets: np.ndarray,
    e_values: np.ndarray,
    e_offsets: np.ndarray,
    chosen: np.ndarray,
    within: np.ndarray,
    error: np.ndarray,
) -> pl.Series:
    """List each row's numeric mismatches, as the reference does.

    Those are the expected numbers that found no match (with the number they took, if any), or,
    when nothing was expected, every actual number.
    """
    n_a, n_e = np.diff(a_offsets), np.diff(e_offsets)
    e_row = np.repeat(np.arange(n), n_e)
    miss = ~within
    taken = chosen[miss]
    has = taken >= 0
    actual = np.where(has, a_values[np.where(has, taken, 0)] if len(a_values) else np.nan, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        rel = np.where(has, error[miss] / (np.abs(e_values[miss]) + 1e-12), np.nan)
    unexpected = np.repeat(n_e == 0, n_a)
    a_row = np.repeat(np.arange(n), n_a)
    flat = pl.DataFrame(
        {
            "row": np.concatenate([e_row[miss], a_row[unexpected]]),
            "order": np.concatenate([np.flatnonzero(miss), np.flatnonzero(unexpected)]),
            "expected": np.concatenate([e_values[miss], np.full(unexpected.sum(), np.nan)]),
            "actual": np.concatenate([actual, a_values[unexpected]]),
            "rel_err": np.concatenate([rel, np.full(unexpected.sum(), np.nan)]),
            "has": np.concatenate([has, np.zeros(unexpected.sum(), dtype=bool)]),
            "known": np.concatenate(
                [np.ones(miss.sum(), dtype=bool), np.zeros(unexpected.sum(), dtype=bool)]
            ),
        }
    ).sort("row", "order")
    items = flat.select(
        "row",
        pl.struct(
            expected=pl.when(pl.col("known")).then(pl.col("expected")),
            actual=pl.when(pl.col("has") | ~pl.col("known")).then(pl.col("actual")),
            rel_err=pl.when(pl.col("has")).then(pl.col("rel_err")),
        ).alias("m"),
    )
    grouped = items.group_by("row", maintain_order=True).agg("m")
    out = (
        pl.DataFrame({"row": np.arange(n)})
        .join(grouped, on="row", how="left", maintain_order="left")
        .select(pl.col("m").fill_null(pl.lit([], dtype=pl.List(_MISMATCH))))
        .to_series()
    )
    return out.cast(pl.List(_MISMATCH))


def _tolerance(batch: pl.Series, field: str, literal: float | None) -> pl.Series:
    if literal is not None:
        return pl.Series(np.full(batch.len(), literal), dtype=pl.Float64)
    return batch.struct.field(field)


def _batch(batch: pl.Series, *, options: _Options, output: str) -> pl.Series:
    """Score one batch: the struct of (response, reference[, tol_abs][, tol_rel]) columns."""
    return _score_pairs(
        _as_text(batch.struct.field("response"), "response"),
        _as_text(batch.struct.field("reference"), "reference"),
        _tolerance(batch, "tol_abs", options.tol_abs),
        _tolerance(batch, "tol_rel", options.tol_rel),
        options=options,
        output=output,
    )


def _list_batch(batch: pl.Series, *, options: _Options, output: str) -> pl.Series:
    """Score one batch whose references are lists: every pair, then each row's best."""
    flat = flatten(batch.struct.field("reference"))
    rows = pl.Series(flat.row)
    result = _score_pairs(
        _as_text(batch.struct.field("response"), "response").gather(rows),
        _as_text(flat.values, "reference"),
        _tolerance(batch, "tol_abs", options.tol_abs).gather(rows),
        _tolerance(batch, "tol_rel", options.tol_rel).gather(rows),
        options=options,
        output=output,
    )
    return best_item_per_row(result, flat, with_index=output != "score")


def _score_pairs(
    response: pl.Series,
    reference: pl.Series,
    tol_abs: pl.Series,
    tol_rel: pl.Series,
    *,
    options: _Options,
    output: str,
) -> pl.Series:
    """Score aligned (response, reference) columns, guards included, as ``output`` wants.

    ``output`` is ``"score"`` (Float64), ``"components"`` or ``"diagnostics"`` (structs). This is
    the seam for several references per row: explode the references, repeat the responses and
    tolerances to match, call this, and reduce per original row.

    Long batches are scored in slices of :data:`CHUNK_ROWS` rows, so the intermediates
    (normalised text, token lists, Python strings for the kernels) stay bounded whatever the
    batch size. The streaming engine runs batches on every core.
    """
    n = response.len()
    if n > CHUNK_ROWS:
        starts = range(0, n, CHUNK_ROWS)

        def score_slice(start: int) -> pl.Series:
            return _score_pairs(
                response.slice(start, CHUNK_ROWS),
                reference.slice(start, CHUNK_ROWS),
                tol_abs.slice(start, CHUNK_ROWS),
                tol_rel.slice(start, CHUNK_ROWS),
                options=options,
                output=output,
            )

        # One slice after the other: calling Polars from extra threads while this function
        # itself runs on a Polars worker can starve its thread pool (a deadlock).
        return pl.concat([score_slice(start) for start in starts], rechunk=False)
    frame = pl.DataFrame({"r": response, "e": reference, "ta": tol_abs, "tr": tol_rel}, height=n)
    bad_tol = pl.any_horizontal(
        pl.col(c).is_null() | ~pl.col(c).is_finite() | (pl.col(c) < 0) for c in ("ta", "tr")
    )
    blank_actual = pl.col("r").is_null() | py_is_blank(pl.col("r"))
    if options.missing_expected == "null":
        # Inconclusive, as answer_correctness: a missing or blank reference wins over the guard.
        no_expected = pl.col("e").is_null() | py_is_blank(pl.col("e"))
        path = (
            pl.when(bad_tol)
            .then(pl.lit("invalid_tolerance"))
            .when(no_expected)
            .then(pl.lit("no_expected"))
            .when(blank_actual)
            .then(pl.lit("empty_actual_guard"))
            .otherwise(pl.lit("scored"))
        )
    else:
        # The reference: the empty-actual guard first, then `not expected_output`.
        no_expected = pl.col("e").is_null() | (pl.col("e") == "")
        path = (
            pl.when(bad_tol)
            .then(pl.lit("invalid_tolerance"))
            .when(blank_actual)
            .then(pl.lit("empty_actual_guard"))
            .when(no_expected)
            .then(pl.lit("no_expected"))
            .otherwise(pl.lit("scored"))
        )
    paths = frame.select(path).to_series()
    scored = (paths == "scored").arg_true()
    part = frame[scored] if scored.len() < n else frame
    result = _score_columns(
        part["r"],
        part["e"],
        part["ta"].to_numpy(),
        part["tr"].to_numpy(),
        options,
        diagnostics=output == "diagnostics",
    )
    # Rows that are not scored: score 0.0 (guard, or no expected in "zero" mode) or null.
    zero = (paths == "empty_actual_guard") | (
        (paths == "no_expected") & (options.missing_expected == "zero")
    )
    full = pl.DataFrame({"index": np.arange(n)}).join(
        result.with_columns(index=scored.cast(pl.Int64)),
        on="index",
        how="left",
        maintain_order="left",
    )
    full = full.with_columns(
        score=pl.when(pl.Series(zero)).then(0.0).otherwise(pl.col("score")),
    )
    if output == "score":
        return full["score"]
    if output == "components":
        return full.select(pl.struct(COMPONENT_FIELDS).alias("c")).to_series()
    reasons = {
        "empty_actual_guard": EMPTY_ACTUAL_REASON,
        "no_expected": NO_EXPECTED_REASON,
        "invalid_tolerance": INVALID_TOLERANCE_REASON,
    }
    empty_terms = pl.lit([], dtype=pl.List(pl.String))
    return (
        full.with_columns(path=paths)
        .select(
            pl.struct(
                "score",
                "path",
                "token_recall",
                pl.col("missing_terms").fill_null(empty_terms),
                pl.col("extra_terms").fill_null(empty_terms),
                pl.col("numeric_mismatches").fill_null(pl.lit([], dtype=pl.List(_MISMATCH))),
                pl.col("reason").fill_null(pl.col("path").replace_strict(reasons, default=None)),
            ).alias("d")
        )
        .to_series()
    )


# --- public functions -----------------------------------------------------------------------


def answer_precision(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
) -> pl.Expr:
    r"""Score how precisely a response matches the reference: a graded score in [0, 1].

    A weighted power mean (p = 0.3) of judge-free signals: token containment (overlap
    coefficient), character similarity, token precision and numeric agreement, with a 5% penalty
    for answers padded with many extra tokens.

    Parameters
    ----------
    response
        The model's answers: a column name, a ``String`` expression or a Series.
    reference
        The reference (expected) answers: a ``String`` column, or a ``List(String)`` column of
        several acceptable answers per row, scored against each and the best kept (null when
        none is usable); the component and diagnostic structs then also give its position as
        ``reference_index``.
    char_similarity
        ``"indel"`` (default): RapidFuzz's normalized Indel similarity (2·LCS / total length),
        symmetric and fast. ``"sequence_matcher"``: difflib's Ratcliff/Obershelp ratio exactly as
        the reference computes it, asymmetric and with autojunk on references of 200+ characters.
    missing_expected
        ``"null"`` (default): a null, empty or whitespace-only reference makes the row
        inconclusive (null), as in :func:`answer_correctness`. ``"zero"``: as the reference, a
        null or empty reference scores 0.0 (a whitespace-only one is scored).
    numeric_tolerance_abs, numeric_tolerance_rel
        A number pair matches if ``|a - e| <= abs`` or ``|a - e| / (|e| + 1e-12) <= rel``. A
        finite number >= 0 (NaN, infinite and negative values raise), or an expression with one
        value per row; a per-row value that is null, NaN, infinite or negative makes that row's
        score null (path ``"invalid_tolerance"`` in :func:`answer_precision_diagnostics`). An
        infinite tolerance would make every pair of numbers agree; to leave numbers out of the
        weighted mean, give the ``"numeric"`` weight 0 instead.
    power_p
        The exponent of the power mean; finite and > 0.
    weights
        The weight of each component, replacing the default ``{"contains": 0.48, "char_ratio":
        0.32, "token_precision": 0.15, "numeric": 0.35}``. Keys among ``contains``,
        ``char_ratio``, ``token_precision``, ``numeric``, ``exact``, ``normalized`` and
        ``token_recall`` (|A∩E| / |E|); values finite and >= 0, not all zero. Components that
        are not named carry no weight.
    stopwords
        Tokens dropped before the token components: ``None`` (default) for the reference's 26
        English words, a language code (``"en"``, ``"ru"``, ``"de"``, ``"fr"``, ``"es"``) for a
        built-in Snowball list, or any collection of words (normalised like the text; each must
        be a single token). See :mod:`polarscore.stopwords`.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``answer_precision``, in [0, 1] and unrounded (the reference rounds to
        4 digits when it reports). 0.0 where the response is null, empty or only whitespace;
        null where the reference is missing (``missing_expected="null"``).

    Notes
    -----
    Reproduces ``AnswerPrecisionMetric.evaluate`` of eval-ai-library 0.8.2:
    with ``char_similarity="sequence_matcher"`` and ``missing_expected="zero"``, the score equals
    the reference's on every row (after ``round(x, 4)``), including its Unicode corner cases:

    * **Normalisation**: markdown links ``[label](http...)`` become their label and bare URLs
      are removed (on the raw text, case-sensitively), then NFKC, ``lower()``, Python
      ``strip()``, whitespace runs to one space.
    * **Tokens**: the 32 ASCII punctuation characters split words; Unicode punctuation does not
      (``"«paris»"`` is one token). Token components use *sets*.
    * **Numbers** come from the raw text (no NFKC, URLs included): ``"2024-01-15"`` gives
      2024, -1, -15; Arabic-Indic and fullwidth digits count, ``²`` and ``①`` do not. Each
      expected number greedily takes the nearest unused actual number, in text order.
    * **exact** and **normalized** are reported but carry no weight by default.

    ``char_similarity="indel"`` is the only intended difference from the reference: Indel is
    symmetric (the reference's ``ratio("tide", "diet")`` is 0.25 but ``ratio("diet", "tide")``
    0.5) and has no autojunk, which in the reference collapses the similarity of references of
    200 or more characters (every character occurring more than ``len // 100 + 1`` times cannot
    seed a match: a 200-character reference with every third word changed gets 0.34 instead
    of 0.79).

    See Also
    --------
    answer_precision_components : every component, as a struct.
    answer_precision_diagnostics : missing and extra terms, numeric mismatches, reason text.
    is_passing : score >= threshold (0.8 is the reference's default).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {
    ...         "response": ["The answer is 42.", "Paris", "", "Paris"],
    ...         "reference": ["42", "paris", "Paris", None],
    ...     }
    ... )
    >>> df.with_columns(
    ...     ps.answer_precision("response", "reference").round(4),
    ...     reference=ps.answer_precision(
    ...         "response", "reference", char_similarity="sequence_matcher",
    ...         missing_expected="zero",
    ...     ).round(4),
    ... )
    shape: (4, 3)
    ┌───────────────────┬───────────┬──────────────────┐
    │ response          ┆ reference ┆ answer_precision │
    │ ---               ┆ ---       ┆ ---              │
    │ str               ┆ f64       ┆ f64              │
    ╞═══════════════════╪═══════════╪══════════════════╡
    │ The answer is 42. ┆ 0.6691    ┆ 0.6691           │
    │ Paris             ┆ 1.0       ┆ 1.0              │
    │                   ┆ 0.0       ┆ 0.0              │
    │ Paris             ┆ 0.0       ┆ null             │
    └───────────────────┴───────────┴──────────────────┘
    """
    return _build(
        "answer_precision",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        output="score",
        dtype=pl.Float64(),
    ).alias("answer_precision")


def answer_precision_components(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
) -> pl.Expr:
    """Score answer precision and return every component, as a struct.

    Parameters
    ----------
    response, reference, char_similarity, missing_expected, numeric_tolerance_abs, \
numeric_tolerance_rel, power_p, weights, stopwords
        As for :func:`answer_precision`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_precision_components`` with ``Float64`` fields

        * ``exact``: 1.0 if the raw strings are equal (no strip), else 0.0;
        * ``normalized``: 1.0 if the normalised strings are equal;
        * ``contains``: overlap coefficient of the token sets, |A∩E| / min(|A|, |E|) (1.0 if
          both are empty, 0.0 if one is);
        * ``char_ratio``: character similarity of the normalised strings;
        * ``token_precision``: |A∩E| / |A| (when A is empty: 1.0 if E is, else 0.0);
        * ``numeric``: share of expected numbers matched (no expected numbers: 1.0 if the
          response has none, else 0.0);
        * ``penalty``: 0.05 when there are 5+ extra tokens and token precision < 0.7, else 0.0;
        * ``score``: exactly :func:`answer_precision`.

        The components are null on rows that are not scored (empty response, missing
        reference, invalid per-row tolerance), where the score is 0.0 or null.

    See Also
    --------
    answer_precision : the score alone.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ["The answer is 42."], "reference": ["42"]})
    >>> df.select(
    ...     ps.answer_precision_components(
    ...         "response", "reference", char_similarity="sequence_matcher"
    ...     )
    ... ).unnest("answer_precision_components").select(pl.all().round(4))
    shape: (1, 8)
    ┌───────┬────────────┬──────────┬────────────┬─────────────────┬─────────┬─────────┬────────┐
    │ exact ┆ normalized ┆ contains ┆ char_ratio ┆ token_precision ┆ numeric ┆ penalty ┆ score  │
    │ ---   ┆ ---        ┆ ---      ┆ ---        ┆ ---             ┆ ---     ┆ ---     ┆ ---    │
    │ f64   ┆ f64        ┆ f64      ┆ f64        ┆ f64             ┆ f64     ┆ f64     ┆ f64    │
    ╞═══════╪════════════╪══════════╪════════════╪═════════════════╪═════════╪═════════╪════════╡
    │ 0.0   ┆ 0.0        ┆ 1.0      ┆ 0.2105     ┆ 0.5             ┆ 1.0     ┆ 0.0     ┆ 0.6691 │
    └───────┴────────────┴──────────┴────────────┴─────────────────┴─────────┴─────────┴────────┘
    """
    return _build(
        "answer_precision_components",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        output="components",
        dtype=_COMPONENTS_DTYPE,
    ).alias("answer_precision_components")


def answer_precision_diagnostics(
    response: IntoExpr,
    reference: IntoExpr,
    *,
    char_similarity: CharSimilarity = "indel",
    missing_expected: MissingExpected = "null",
    numeric_tolerance_abs: IntoNumber = 0.0,
    numeric_tolerance_rel: IntoNumber = 0.0,
    power_p: float = 0.3,
    weights: Mapping[str, float] | None = None,
    stopwords: str | Collection[str] | None = None,
) -> pl.Expr:
    """Score answer precision and explain each row: terms, numbers and a reason text.

    Parameters
    ----------
    response, reference, char_similarity, missing_expected, numeric_tolerance_abs, \
numeric_tolerance_rel, power_p, weights, stopwords
        As for :func:`answer_precision`.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``answer_precision_diagnostics`` with the fields

        * ``score`` (``Float64``): exactly :func:`answer_precision`;
        * ``path`` (``String``): ``"scored"``, ``"empty_actual_guard"``, ``"no_expected"`` or
          ``"invalid_tolerance"``;
        * ``token_recall`` (``Float64``): |A∩E| / |E|, the token containment (null if unscored);
        * ``missing_terms``, ``extra_terms`` (``List(String)``, sorted): reference tokens the
          response lacks, and response tokens the reference lacks (the penalty's false
          positives);
        * ``numeric_mismatches`` (``List(Struct{expected, actual, rel_err})``): each expected
          number that found no match within tolerance, with the number it took (null when none
          was left) and the relative error; when the reference has no numbers, each number of
          the response, with a null ``expected``;
        * ``reason`` (``String``): the reference's reason text: ``"exact match"``,
          ``"normalized match"`` or the char similarity and token precision, then numeric
          agreement, containment, the penalty note and the missing / extra terms.

    Notes
    -----
    The reason follows the reference's wording, its two-decimal formatting (half to even) and
    its Python list printing of the terms (``repr`` escapes for characters such as U+200D).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["Paris has 2 million people"], "reference": ["Paris, 3 million"]}
    ... )
    >>> d = df.select(ps.answer_precision_diagnostics("response", "reference")).unnest(
    ...     "answer_precision_diagnostics"
    ... )
    >>> d["missing_terms"].to_list(), d["extra_terms"].to_list()
    ([['3']], [['2', 'has', 'people']])
    >>> d["numeric_mismatches"].to_list()
    [[{'expected': 3.0, 'actual': 2.0, 'rel_err': 0.3333...}]]
    >>> print(d["reason"].item())
    char similarity 0.67, token precision 0.40, numeric agreement 0.00, containment 0.67,
    power-mean aggregation (p=0.30); Missing terms: ['3'] Extra terms: ['2', 'has', 'people']
    """
    return _build(
        "answer_precision_diagnostics",
        response,
        reference,
        char_similarity=char_similarity,
        missing_expected=missing_expected,
        numeric_tolerance_abs=numeric_tolerance_abs,
        numeric_tolerance_rel=numeric_tolerance_rel,
        power_p=power_p,
        weights=weights,
        stopwords=stopwords,
        output="diagnostics",
        dtype=_DIAGNOSTICS_DTYPE,
    ).alias("answer_precision_diagnostics")


def is_passing(score: IntoExpr, *, threshold: float = DEFAULT_THRESHOLD) -> pl.Expr:
    """Return whether each score reaches the threshold: ``score >= threshold``; null stays null.

    Works on any score column in [0, 1] (answer_precision's reference threshold 0.8 is the
    default).

    Parameters
    ----------
    score
        A score column name, expression or Series.
    threshold
        A number in [0, 1] (every polarscore score lies there); a score passes when it is greater
        than or equal to it.

    Returns
    -------
    pl.Expr
        ``Boolean``, named after the score with the suffix ``_passed`` (a column name or a
        scorer's expression); null where the score is null (inconclusive is not a failure).

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["Paris", "Lyon", "Paris"], "reference": ["Paris", "Paris", None]}
    ... )
    >>> df.select(ps.is_passing(ps.answer_precision("response", "reference")))
    shape: (3, 1)
    ┌─────────────────────────┐
    │ answer_precision_passed │
    │ ---                     │
    │ bool                    │
    ╞═════════════════════════╡
    │ true                    │
    │ false                   │
    │ null                    │
    └─────────────────────────┘
    """
    value = check_number(
        threshold, function="is_passing", parameter="threshold", minimum=0, maximum=1
    )
    expr = parse_into_expr(score, function="is_passing", parameter="score")
    return (expr >= value).name.suffix("_passed")


__all__ = [
    "COMPONENT_FIELDS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_WEIGHTS",
    "EMPTY_ACTUAL_REASON",
    "INVALID_TOLERANCE_REASON",
    "NO_EXPECTED_REASON",
    "WEIGHTABLE",
    "CharSimilarity",
    "MissingExpected",
    "answer_precision",
    "answer_precision_components",
    "answer_precision_diagnostics",
    "is_passing",
]
