"""Kernels over token-id sequences: multiset overlap and longest common subsequence.

Sequences are given in CSR form: a flat ``int64`` array of token ids and an ``offsets`` array of
length ``n + 1`` (sequence ``i`` is ``ids[offsets[i]:offsets[i + 1]]``). Token ids are small
non-negative integers (dense ids from a dictionary encoding), equal ids meaning equal tokens.

Each kernel scores *pairs*: right-hand sequence ``j`` against left-hand sequence
``left_of_right[j]``, so one response (left) can be compared with each of its reference answers
(right) without repeating the response's tokens.

Everything is whole-array NumPy or a single RapidFuzz ``cpdist`` call; nothing loops over rows in
Python. The pure-Python oracles the tests compare against live in ``tests/oracles_similarity.py``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

IntArray = npt.NDArray[np.int64]

# Code points usable as one-character stand-ins for tokens: everything but the surrogates.
_SURROGATE_START = 0xD800
_SURROGATE_COUNT = 0x800
_MAX_ALPHABET = 0x110000 - _SURROGATE_COUNT - 1  # code point 0 is never used


def _sequence_of_token(offsets: IntArray) -> IntArray:
    lengths = np.diff(offsets)
    return np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)


def multiset_overlap(
    left_ids: IntArray,
    left_offsets: IntArray,
    right_ids: IntArray,
    right_offsets: IntArray,
    left_of_right: IntArray,
) -> IntArray:
    """Return the multiset intersection size of each right sequence with its left sequence.

    For right sequence ``j`` this is ``sum((Counter(left) & Counter(right)).values())`` with
    ``left`` the sequence ``left_of_right[j]``.

    Parameters
    ----------
    left_ids, left_offsets
        The left sequences in CSR form.
    right_ids, right_offsets
        The right sequences in CSR form.
    left_of_right
        For each right sequence, the index of the left sequence it is paired with.

    Returns
    -------
    numpy.ndarray
        ``int64`` array with one overlap count per right sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.kernels.token_sequences import multiset_overlap
    >>> left = np.array([0, 0, 1]), np.array([0, 3])
    >>> right = np.array([0, 1, 1, 2, 0, 0, 0]), np.array([0, 3, 4, 7])
    >>> multiset_overlap(*left, *right, np.array([0, 0, 0])).tolist()
    [2, 0, 2]
    """
    n_right = right_offsets.size - 1
    if right_ids.size == 0 or left_ids.size == 0:
        return np.zeros(n_right, dtype=np.int64)
    vocabulary = int(max(left_ids.max(), right_ids.max())) + 1
    # Count each (left sequence, token) and each (right sequence, token) once.
    left_keys, left_counts = np.unique(
        _sequence_of_token(left_offsets) * vocabulary + left_ids, return_counts=True
    )
    right_seq = _sequence_of_token(right_offsets)
    right_keys, right_counts = np.unique(right_seq * vocabulary + right_ids, return_counts=True)
    right_key_seq = right_keys // vocabulary
    # Look each right (sequence, token) up among its left sequence's counts.
    wanted = left_of_right[right_key_seq] * vocabulary + right_keys % vocabulary
    slot = np.searchsorted(left_keys, wanted)
    slot_clipped = np.minimum(slot, left_keys.size - 1)
    found = left_keys[slot_clipped] == wanted
    common = np.where(found, np.minimum(right_counts, left_counts[slot_clipped]), 0)
    return np.bincount(right_key_seq, weights=common, minlength=n_right).astype(np.int64)


def _utf8_strings(code_points: IntArray, offsets: IntArray) -> list[str]:
    """Build one Python string per CSR sequence of code points, without a Python loop."""
    cp = code_points.astype(np.uint32)
    n_bytes = 1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000)
    ends = np.cumsum(n_bytes, dtype=np.int64)
    starts = ends - n_bytes
    data = np.zeros(int(ends[-1]) if ends.size else 0, dtype=np.uint8)
    for width, lead, lead_bits in ((1, 0x00, 7), (2, 0xC0, 5), (3, 0xE0, 4), (4, 0xF0, 3)):
        mask = n_bytes == width
        if not mask.any():
            continue
        points, at = cp[mask], starts[mask]
        shift = 6 * (width - 1)
        data[at] = lead | ((points >> shift) & ((1 << lead_bits) - 1))
        for k in range(1, width):
            shift -= 6
            data[at + k] = 0x80 | ((points >> shift) & 0x3F)
    byte_offsets = np.concatenate(([0], ends))[offsets]
    array = pa.LargeStringArray.from_buffers(
        offsets.size - 1, pa.py_buffer(byte_offsets.astype(np.int64)), pa.py_buffer(data)
    )
    strings: list[str] = array.to_pylist()
    return strings


def _code_points(ids: IntArray) -> IntArray:
    """Map ids ``0..`` to code points ``1..``, skipping the surrogate block."""
    points = ids + 1
    return points + _SURROGATE_COUNT * (points >= _SURROGATE_START)


def _local_ids(
    left_ids: IntArray,
    left_offsets: IntArray,
    right_ids: IntArray,
    right_offsets: IntArray,
    left_of_right: IntArray,
) -> tuple[IntArray, IntArray]:
    """Renumber tokens densely within each group (a left sequence and its right sequences)."""
    group = np.concatenate(
        (_sequence_of_token(left_offsets), left_of_right[_sequence_of_token(right_offsets)])
    )
    ids = np.concatenate((left_ids, right_ids))
    vocabulary = int(ids.max()) + 1
    keys, inverse = np.unique(group * vocabulary + ids, return_inverse=True)
    first_of_group = np.searchsorted(keys // vocabulary, np.arange(left_offsets.size - 1))
    local = inverse.reshape(-1) - first_of_group[group]
    return local[: left_ids.size], local[left_ids.size :]


def lcs_lengths(
    left_ids: IntArray,
    left_offsets: IntArray,
    right_ids: IntArray,
    right_offsets: IntArray,
    left_of_right: IntArray,
) -> IntArray:
    """Return the longest-common-subsequence length of each right sequence with its left one.

    Each token becomes one character (its id mapped to a code point), so RapidFuzz's
    bit-parallel ``LCSseq`` runs over whole token sequences in one ``cpdist`` call.

    Parameters
    ----------
    left_ids, left_offsets, right_ids, right_offsets, left_of_right
        As for :func:`multiset_overlap`.

    Returns
    -------
    numpy.ndarray
        ``int64`` array with one LCS length per right sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from polarscore.kernels.token_sequences import lcs_lengths
    >>> left = np.array([0, 1, 2, 3]), np.array([0, 4])
    >>> right = np.array([0, 2, 3, 3, 2, 1]), np.array([0, 3, 6])
    >>> lcs_lengths(*left, *right, np.array([0, 0])).tolist()
    [3, 1]
    """
    n_right = right_offsets.size - 1
    if n_right == 0 or right_ids.size == 0 or left_ids.size == 0:
        return np.zeros(n_right, dtype=np.int64)
    if int(max(left_ids.max(), right_ids.max())) >= _MAX_ALPHABET:
        # More distinct tokens than code points: only tokens within one pair need distinct
        # characters, so renumber per group.
        left_ids, right_ids = _local_ids(
            left_ids, left_offsets, right_ids, right_offsets, left_of_right
        )
        if int(max(left_ids.max(), right_ids.max())) >= _MAX_ALPHABET:
            msg = "a single response and its references hold more than 1,112,063 distinct tokens"
            raise ValueError(msg)
    left = _utf8_strings(_code_points(left_ids), left_offsets)
    right = _utf8_strings(_code_points(right_ids), right_offsets)
    queries = np.array(left, dtype=object)[left_of_right]
    lengths = process.cpdist(queries, right, scorer=LCSseq.similarity, dtype=np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(n_right)


__all__ = ["lcs_lengths", "multiset_overlap"]
