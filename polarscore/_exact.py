"""Exact sums of ``Float64`` columns inside a streaming aggregation.

Polars' streaming engine sums a group's floats in whatever order its morsels arrive, so the last
bits of a sum (and of a mean) change from run to run, with the thread count and with the batch
size. Integer sums do not: they are exact and associative. So each finite value is cut into
integers, summed as integers, and put back together exactly in Python.

A finite, non-zero ``x`` with ``2**k <= |x| < 2**(k + 1)`` is an integer multiple of
``2**(k - 52)``. Its *bucket* is ``b = floor(k / 32)``, so that ``N = |x| * 2**(53 - 32 b)`` is an
integer below ``2**86`` (``k`` comes from a floating-point ``log2``, which may be off by one next
to a power of two; the bounds allow for that), and ``N`` is three pieces of 29 bits:
``N = p2 * 2**58 + p1 * 2**29 + p0``. Every step is an exact floating-point operation (a
multiplication by a power of two, a floor, a subtraction whose result is representable), the
pieces carry the sign of ``x``, and one group's sum of any piece over up to ``2**34`` rows fits
in an ``Int64``. Zeros add nothing; infinities are counted apart (their sum is an infinity or
NaN, as IEEE arithmetic has it).

The mean that comes out, ``float(Fraction(sum) / n)``, is the exact mean rounded once: the same
bits for any row order, chunking, engine or thread count.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import polars as pl

#: Binary orders of magnitude per bucket.
BUCKET_BITS = 32
#: Bits of each integer piece.
PIECE_BITS = 29
#: ``N = |x| * 2**(SCALE_BITS - BUCKET_BITS * bucket)``.
SCALE_BITS = 53

#: Column names of the parts, with a caller's prefix.
BUCKET = "bucket"
PIECES = ("p0", "p1", "p2")
POS_INF = "pos_inf"
NEG_INF = "neg_inf"
COUNT = "n"


def _power_of_two(exponent: pl.Expr) -> pl.Expr:
    """``2.0 ** exponent`` for an integer exponent in [-1022, 1023] (exact: see the tests)."""
    return pl.lit(2.0, dtype=pl.Float64).pow(exponent.cast(pl.Float64))


def parts(value: pl.Expr, prefix: str) -> list[pl.Expr]:
    """Return the bucket, the three signed pieces and the infinity flags of ``value``.

    ``value`` is a ``Float64`` expression; a null stays null in every part (filter nulls out,
    or let the sums skip them). Zeros and infinities have bucket 0 and pieces 0.
    """
    size = value.abs()
    finite = size.is_finite() & (size > 0)
    bucket = (
        pl.when(finite)
        .then((size.log(2).floor() / BUCKET_BITS).floor())
        .otherwise(pl.lit(0.0))
        .cast(pl.Int32)
    )
    # The scale 2**(53 - 32 b) is out of a double's range for the smallest and largest
    # buckets: apply it as two halves, each a power of two in range.
    shift = SCALE_BITS - BUCKET_BITS * bucket.cast(pl.Int64)
    first = shift.floordiv(2)
    scaled = pl.when(finite).then(size).otherwise(pl.lit(0.0))
    scaled = scaled * _power_of_two(first) * _power_of_two(shift - first)
    sign = pl.when(value < 0).then(pl.lit(-1, dtype=pl.Int64)).otherwise(pl.lit(1, dtype=pl.Int64))
    high = (scaled / float(2 ** (2 * PIECE_BITS))).floor()
    rest = scaled - high * float(2 ** (2 * PIECE_BITS))
    middle = (rest / float(2**PIECE_BITS)).floor()
    low = rest - middle * float(2**PIECE_BITS)
    return [
        bucket.alias(prefix + BUCKET),
        (low.cast(pl.Int64) * sign).alias(prefix + PIECES[0]),
        (middle.cast(pl.Int64) * sign).alias(prefix + PIECES[1]),
        (high.cast(pl.Int64) * sign).alias(prefix + PIECES[2]),
        (value == math.inf).cast(pl.Int64).alias(prefix + POS_INF),
        (value == -math.inf).cast(pl.Int64).alias(prefix + NEG_INF),
    ]


def sums(prefix: str) -> list[pl.Expr]:
    """Return the aggregations of :func:`parts`' columns (group by the bucket too)."""
    return [
        pl.len().alias(prefix + COUNT),
        *[pl.col(prefix + p).sum() for p in PIECES],
        pl.col(prefix + POS_INF).sum(),
        pl.col(prefix + NEG_INF).sum(),
    ]


def exact_sum(rows: Iterable[Mapping[str, Any]], prefix: str = "") -> Fraction | float:
    """Return the exact sum of the values behind ``rows`` (one per bucket, from :func:`sums`).

    A ``Fraction``, or a float infinity or NaN when infinities were summed.
    """
    total = Fraction(0)
    positive = negative = 0
    for row in rows:
        positive += int(row[prefix + POS_INF])
        negative += int(row[prefix + NEG_INF])
        low, middle, high = (int(row[prefix + p]) for p in PIECES)
        whole = (high << (2 * PIECE_BITS)) + (middle << PIECE_BITS) + low
        exponent = BUCKET_BITS * int(row[prefix + BUCKET]) - SCALE_BITS
        total += whole * (Fraction(2) ** exponent)
    if positive and negative:
        return math.nan
    if positive or negative:
        return math.inf if positive else -math.inf
    return total


def exact_mean(rows: Iterable[Mapping[str, Any]], prefix: str = "") -> float | None:
    """Return the mean behind ``rows`` (see :func:`exact_sum`), rounded once; None for no row."""
    rows = list(rows)
    count = sum(int(row[prefix + COUNT]) for row in rows)
    if count == 0:
        return None
    total = exact_sum(rows, prefix)
    if isinstance(total, float):
        return total
    return float(total / count)


def bucket_value(prefix: str = "") -> pl.Expr:
    """Return the sum behind one bucket's aggregated row (:func:`sums`) as a ``Float64``.

    Exact for a single value; a sum that needs more than 53 bits is rounded, always the same way
    (a fixed sequence of floating-point operations on the exact integer sums).
    """
    pieces = [pl.col(prefix + p).cast(pl.Float64) for p in PIECES]
    whole = pieces[2] * float(2 ** (2 * PIECE_BITS)) + pieces[1] * float(2**PIECE_BITS) + pieces[0]
    shift = BUCKET_BITS * pl.col(prefix + BUCKET).cast(pl.Int64) - SCALE_BITS
    first = shift.floordiv(2)
    finite = whole * _power_of_two(first) * _power_of_two(shift - first)
    positive, negative = pl.col(prefix + POS_INF) > 0, pl.col(prefix + NEG_INF) > 0
    return (
        pl.when(positive & negative)
        .then(pl.lit(math.nan))
        .when(positive)
        .then(pl.lit(math.inf))
        .when(negative)
        .then(pl.lit(-math.inf))
        .otherwise(finite)
    )


__all__ = ["bucket_value", "exact_mean", "exact_sum", "parts", "sums"]
