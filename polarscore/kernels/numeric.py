"""Greedy nearest-number matching (eval-ai-library's numeric agreement), over whole columns.

Each row holds a list of actual numbers and a list of expected numbers, both flattened into one
array with offsets (Arrow's list layout). For every expected number *in text order*, the unused
actual number of the same row with the strictly smallest absolute error is taken (the first one
on ties) and consumed, whether or not it then meets the tolerance. Errors that are not finite
(``inf - inf``, an overflowing subtraction) never make a candidate.

The rows are processed together: step ``k`` handles the ``k``-th expected number of every row
that has one, with one segmented NumPy reduction over those rows' actual numbers. That is the
reference's ``O(n_expected * n_actual)`` work per row, so it is kept for rows where the product
is at most :data:`MAX_VECTORIZED_PAIRS` and ``n_expected`` at most :data:`MAX_VECTORIZED_STEPS`.
Larger rows (say 100k numbers on each side, 10^10 pairs for the reference) take an exact
``O((n_actual + n_expected) log n_actual)`` path instead: the actual numbers sorted once, the
nearest unused one on each side of every expected number found through skip pointers, and ties
(equal values, or distinct values whose rounded errors are equal) resolved to the first in text
order with a segment tree of smallest unused indices. Memory is ``O(n_actual + n_expected)`` for
every row, on both paths.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: Rows with more (expected x actual) number pairs than this take the exact sorted path.
MAX_VECTORIZED_PAIRS = 1 << 16
#: Rows with more expected numbers than this take the exact sorted path (one NumPy step each).
MAX_VECTORIZED_STEPS = 256


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


def _find(parent: list[int], i: int) -> int:
    """Root of ``i`` in a skip-pointer forest, compressing the path on the way."""
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        parent[i], i = root, parent[i]
    return root


def _first_within(values: list[float], e: float, best: float, lo: int, hi: int) -> int:
    """Smallest ``q`` in ``[lo, hi]`` with ``|values[q] - e| <= best``; ``hi`` satisfies it.

    Left of ``e`` the rounded error never increases towards ``e``, so the predicate is monotone.
    """
    while lo < hi:
        mid = (lo + hi) // 2
        if abs(values[mid] - e) <= best:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last_within(values: list[float], e: float, best: float, lo: int, hi: int) -> int:
    """Largest ``q`` in ``[lo, hi]`` with ``|values[q] - e| <= best``; ``lo`` satisfies it."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if abs(values[mid] - e) <= best:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _MinIndexTree:
    """Segment tree: the smallest original index among the unused sorted positions."""

    _NONE = 1 << 62

    def __init__(self, indices: list[int]) -> None:
        size = 1
        while size < len(indices):
            size *= 2
        self.size = size
        self.tree = [self._NONE] * (2 * size)
        self.tree[size : size + len(indices)] = indices
        for i in range(size - 1, 0, -1):
            self.tree[i] = min(self.tree[2 * i], self.tree[2 * i + 1])

    def smallest(self, lo: int, hi: int) -> int:
        """Return the smallest unused index at sorted positions ``lo..hi`` (inclusive)."""
        tree, best = self.tree, self._NONE
        lo += self.size
        hi += self.size + 1
        while lo < hi:
            if lo & 1:
                best = min(best, tree[lo])
                lo += 1
            if hi & 1:
                hi -= 1
                best = min(best, tree[hi])
            lo >>= 1
            hi >>= 1
        return best

    def remove(self, position: int) -> None:
        tree = self.tree
        i = position + self.size
        tree[i] = self._NONE
        i >>= 1
        while i:
            tree[i] = min(tree[2 * i], tree[2 * i + 1])
            i >>= 1


def _greedy_row_sorted(
    actual: NDArray[np.float64], expected: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Match one row greedily in ``O((n + m) log n)``.

    Returns, per expected number, the index of the actual number it took (-1 if none) and the
    error.
    Exactly the semantics of the vectorised path. Only finite actual numbers can ever be
    candidates (an infinite one gives an infinite or NaN error), so they are sorted by value,
    ties in text order. For an expected number ``e`` the nearest unused number below and at or
    above ``e`` are found through skip pointers; the rounded error ``|a - e|`` is monotone on
    each side, so every unused number with the smallest error lies in one contiguous sorted range
    per side (usually a run of equal values), and the first in text order is the smallest
    original index there (segment tree).
    """
    chosen = np.full(expected.size, -1, dtype=np.int64)
    error = np.full(expected.size, np.nan)
    finite = np.flatnonzero(np.isfinite(actual))
    order = finite[np.argsort(actual[finite], kind="stable")]
    values: list[float] = actual[order].tolist()
    original: list[int] = order.tolist()
    n = len(values)
    tree = _MinIndexTree(original)
    position_of = {index: position for position, index in enumerate(original)}
    after = list(range(n + 1))  # root of i: first unused position >= i (n: none)
    before = list(range(n + 1))  # root of i + 1: last unused position <= i, plus one (0: none)
    remaining = n
    for k, e in enumerate(expected.tolist()):
        if remaining == 0:
            break
        if not math.isfinite(e):
            continue
        p = bisect_left(values, e)
        right = _find(after, p)
        left = _find(before, p) - 1
        err_left = abs(values[left] - e) if left >= 0 else math.inf
        err_right = abs(values[right] - e) if right < n else math.inf
        best = min(err_left, err_right)
        if not best < math.inf:  # every error overflows
            continue
        index = tree._NONE
        if err_left == best:
            lo = bisect_left(values, values[left])
            if lo > 0 and abs(values[lo - 1] - e) <= best:  # distinct values, equal errors
                lo = _first_within(values, e, best, 0, lo - 1)
            index = tree.smallest(lo, left)
        if err_right == best:
            hi = bisect_right(values, values[right]) - 1
            if hi + 1 < n and abs(values[hi + 1] - e) <= best:
                hi = _last_within(values, e, best, hi + 1, n - 1)
            index = min(index, tree.smallest(right, hi))
        position = position_of[index]
        tree.remove(position)
        after[position] = position + 1
        before[position + 1] = position
        remaining -= 1
        chosen[k] = index
        error[k] = best
    return chosen, error


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
    >>> # row 0: expected [1, 2], actual [2] -> 1 takes 2 and fails, 2 finds nothing
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

    large = (n_actual * n_expected > MAX_VECTORIZED_PAIRS) | (n_expected > MAX_VECTORIZED_STEPS)
    for row in np.flatnonzero(large & (n_actual > 0) & (n_expected > 0)):
        a_start, e_start, e_stop = (
            actual_offsets[row],
            expected_offsets[row],
            expected_offsets[row + 1],
        )
        local, err = _greedy_row_sorted(
            actual[a_start : actual_offsets[row + 1]], expected[e_start:e_stop]
        )
        hit = np.flatnonzero(local >= 0)
        chosen[e_start + hit] = a_start + local[hit]
        error[e_start + hit] = err[hit]
        with np.errstate(over="ignore"):
            rel = err[hit] / (np.abs(expected[e_start + hit]) + 1e-12)
        within[e_start + hit] = (err[hit] <= tol_abs[row]) | (rel <= tol_rel[row])

    rows = np.flatnonzero((n_actual > 0) & (n_expected > 0) & ~large)
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
