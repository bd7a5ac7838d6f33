"""The token machinery both word-based oracles share (tests only): mirrors ``src/tokens.rs``.

Response similarity (:mod:`tests.oracles.similarity`) and SQuAD F1 (:mod:`tests.oracles.squad`)
compare token lists by their multiset intersection (``Counter`` ``&``); ROUGE-L by their longest
common subsequence. The kernels do both on interned ids (``Vocab::overlap``, Hyyro's bit-parallel
LCS); these are the textbook definitions, over any hashable tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def multiset_overlap(left: Sequence[object], right: Sequence[object]) -> int:
    """Size of the multiset intersection (Counter ``&``)."""
    common = Counter(left) & Counter(right)
    return sum(common.values())


def lcs_length(left: Sequence[object], right: Sequence[object]) -> int:
    """Longest common subsequence length by the textbook dynamic programme (two rows kept)."""
    previous = [0] * (len(right) + 1)
    for x in left:
        current = [0]
        for j, y in enumerate(right):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]
