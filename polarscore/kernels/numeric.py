"""Greedy nearest-number matching of SPEC C11, over whole columns at once.

Each row holds a list of actual numbers and a list of expected numbers, both flattened into one
array with offsets (Arrow's list layout). For every expected number *in text order*, the unused
actual number of the same row with the strictly smallest absolute error is taken (the first one
on ties) and consumed, whether or not it then meets the tolerance. Errors that are not finite
(``inf - inf``, an overflowing subtraction) never make a candidate.

The rows are processed together: step ``k`` handles the ``k``-th expected number of every row
that has one, with one segmented NumPy reduction over those rows' actual numbers. The work is the
reference's ``O(n_expected * n_actual)`` per row, and memory at any step is bounded by the actual
numbers of the rows still active, so a row with thousands of numbers costs time, not memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class GreedyMatch:
    """The outcome of :func:`greedy_numeric_match`.

    Attributes
    ----------
    matched
        ``int64`` per row: how many expected numbers found an actual number within tolerance.
    chosen
        ``int64`` per expected number: the index (into the flat actual values) of the actual
        number it took, or -1 when none was left.
    within
        ``bool`` per expected number: whether the taken number met the tolerance.
    error
        ``float64`` per expected number: ``|actual - expected|`` of the taken number (NaN if none).
    """

    matched: NDArray[np.int64]
    chosen: NDArray[np.int64]
    within: NDArray[np.bool_]
    error: NDArray[np.float64]


def _segment_index(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """Concatenate ``arange(s, s + n)`` for every (start, length) pair, without a Python loop."""
    total = int(lengths.sum())
    local_starts = np.cumsum(lengths) - lengths
    shift = np.repeat(starts - local_starts, lengths)
    out: NDArray[np.int64] = np.arange(total, dtype=np.int64) + shift
    return out


def greedy_numeric_match(
    actual: NDArray[np.float64],
    actual_offsets: NDArray[np.int64],
    expected: NDArray[np.float64],
    expected_offsets: NDArray[np.int64],
    tol_abs: NDArray[np.float64],
    tol_rel: NDArray[np.float64],
) -> GreedyMatch:
    """Match expected numbers to actual numbers greedily, row by row, over whole columns.

    Parameters
    ----------
    actual, expected
        The numbers of every row, flattened in row order and text order.
    actual_offsets, expected_offsets
        ``int64`` of length ``n_rows + 1``: row ``i`` owns ``values[offsets[i]:offsets[i + 1]]``.
    tol_abs, tol_rel
        ``float64`` per row. A pair matches if ``err <= tol_abs`` or
        ``err / (|expected| + 1e-12) <= tol_rel``.

    Returns
    -------
    GreedyMatch
        Per-row match counts and, per expected number, the actual number it took.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.kernels import greedy_numeric_match
    >>> # row 0: expected [1, 2], actual [2] -> 1 takes 2 and fails, 2 finds nothing (SPEC C11)
    >>> # row 1: expected [0.2], actual [0.3] with tol_abs 0.1 -> match
    >>> m = greedy_numeric_match(
    ...     np.array([2.0, 0.3]), np.array([0, 1, 2]),
    ...     np.array([1.0, 2.0, 0.2]), np.array([0, 2, 3]),
    ...     np.array([0.0, 0.1]), np.array([0.0, 0.0]),
    ... )
    >>> m.matched.tolist(), m.chosen.tolist()
    ([0, 1], [0, -1, 1])
    """
    n_rows = len(actual_offsets) - 1
    n_actual = np.diff(actual_offsets).astype(np.int64)
    n_expected = np.diff(expected_offsets).astype(np.int64)
    chosen = np.full(len(expected), -1, dtype=np.int64)
    within = np.zeros(len(expected), dtype=bool)
    error = np.full(len(expected), np.nan, dtype=np.float64)
    used = np.zeros(len(actual), dtype=bool)

    rows = np.flatnonzero((n_actual > 0) & (n_expected > 0))
    k = 0
    while rows.size:
        lengths = n_actual[rows]
        starts = actual_offsets[:-1][rows].astype(np.int64)
        index = _segment_index(starts, lengths)
        e_index = expected_offsets[:-1][rows] + k
        e_value = expected[e_index]
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(actual[index] - np.repeat(e_value, lengths))
        usable = ~used[index] & (err < np.inf)
        err = np.where(usable, err, np.inf)
        local_starts = np.cumsum(lengths) - lengths
        best = np.minimum.reduceat(err, local_starts)
        found = best < np.inf
        if found.any():
            is_best = usable & (err == np.repeat(best, lengths))
            positions = np.flatnonzero(is_best)
            segment = np.repeat(np.arange(rows.size), lengths)[positions]
            first = positions[np.r_[True, segment[1:] != segment[:-1]]]
            taken = index[first]
            used[taken] = True
            hit_rows = rows[found]
            hit_e = e_index[found]
            hit_err = best[found]
            chosen[hit_e] = taken
            error[hit_e] = hit_err
            with np.errstate(over="ignore"):
                rel = hit_err / (np.abs(expected[hit_e]) + 1e-12)
            within[hit_e] = (hit_err <= tol_abs[hit_rows]) | (rel <= tol_rel[hit_rows])
        k += 1
        rows = rows[n_expected[rows] > k]

    row_of_expected = np.repeat(np.arange(n_rows), n_expected)
    matched = np.bincount(row_of_expected[within], minlength=n_rows).astype(np.int64)
    return GreedyMatch(matched=matched, chosen=chosen, within=within, error=error)


__all__ = ["GreedyMatch", "greedy_numeric_match"]
