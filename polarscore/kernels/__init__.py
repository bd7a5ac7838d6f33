"""Array-in, array-out kernels with no Polars dependency.

Each kernel works on whole columns (Python lists of ``str`` or NumPy arrays) and is wrapped by a
scorer as one elementwise batch map, so it runs unchanged eagerly, lazily, in the streaming engine
and on Arrow batches. Their slow pure-Python counterparts live in the tests.
"""

from __future__ import annotations

from polarscore.kernels.char_ratio import (
    HAS_CYDIFFLIB,
    indel_similarity,
    sequence_matcher_ratio,
)
from polarscore.kernels.numeric import GreedyMatch, greedy_numeric_match
from polarscore.kernels.unicode import (
    nfkc_lower,
    python_digit_map,
    python_digit_ranges,
    python_repr_escapes,
    python_unassigned_ranges,
    python_unprintable_ranges,
)

__all__ = [
    "HAS_CYDIFFLIB",
    "GreedyMatch",
    "greedy_numeric_match",
    "indel_similarity",
    "nfkc_lower",
    "python_digit_map",
    "python_digit_ranges",
    "python_repr_escapes",
    "python_unassigned_ranges",
    "python_unprintable_ranges",
    "sequence_matcher_ratio",
]
