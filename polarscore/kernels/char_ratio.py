"""Character similarity of two aligned columns of normalised strings.

* :func:`indel_similarity`: RapidFuzz's normalized Indel similarity, ``1 - (|a| + |b| - 2 LCS) /
  (|a| + |b|)``, over whole columns with ``rapidfuzz.process.cpdist`` (compiled, multi-threaded).
* :func:`sequence_matcher_ratio`: ``difflib.SequenceMatcher(None, a, b).ratio()`` exactly, the
  reference behaviour (Ratcliff/Obershelp with autojunk on ``b``, asymmetric). It uses
  ``cydifflib``, a compiled drop-in for ``difflib``, when it is installed (``polarscore[fast]``),
  and the standard library otherwise; both give the same numbers. When ``b`` is shorter than
  200 characters (autojunk off, the common case of a short reference) a ``str.find``-based
  Ratcliff/Obershelp (:func:`matching_characters`) gives difflib's exact ratio several times
  faster than either.

Two empty strings have similarity 1.0 under both.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rapidfuzz.distance import Indel
from rapidfuzz.process import cpdist

try:  # pragma: no cover - exercised when the optional extra is installed
    import cydifflib as _cydifflib
except ImportError:  # pragma: no cover
    _cydifflib = None

#: Whether the compiled ``cydifflib`` is importable (``pip install polarscore[fast]``).
HAS_CYDIFFLIB: bool = _cydifflib is not None

# Below this many pairs a thread pool costs more than it saves.
_MIN_ROWS_PER_THREAD = 2_048


def _workers(workers: int | None) -> int:
    if workers is None or workers < 1:
        return os.cpu_count() or 1
    return workers


def indel_similarity(
    a: Sequence[str], b: Sequence[str], *, workers: int | None = None
) -> NDArray[np.float64]:
    """Return RapidFuzz's normalized Indel similarity of each pair ``(a[i], b[i])``.

    Parameters
    ----------
    a, b
        Aligned sequences of strings of equal length.
    workers
        Threads for ``cpdist``; ``None`` (default) uses every core.

    Returns
    -------
    numpy.ndarray
        ``float64`` in [0, 1], 1.0 where both strings are empty.

    Examples
    --------
    >>> from polarscore.kernels import indel_similarity
    >>> indel_similarity(["tide", "", "abc"], ["diet", "", "xyz"]).tolist()
    [0.5, 1.0, 0.0]
    """
    if len(a) == 0:
        return np.empty(0, dtype=np.float64)
    out: NDArray[np.float64] = cpdist(
        a,
        b,
        scorer=Indel.normalized_similarity,
        dtype=np.float64,
        workers=_workers(workers) if len(a) >= _MIN_ROWS_PER_THREAD else 1,
    )
    return out


def _ratio_function(use_cydifflib: bool | None) -> Callable[..., Any]:
    if use_cydifflib is None:
        use_cydifflib = HAS_CYDIFFLIB
    if use_cydifflib:
        if _cydifflib is None:
            raise ImportError("cydifflib is not installed: pip install 'polarscore[fast]'")
        matcher: Callable[..., Any] = _cydifflib.SequenceMatcher
    else:
        matcher = difflib.SequenceMatcher
    return matcher


#: difflib turns autojunk on for a ``b`` of at least this many characters.
AUTOJUNK_MIN_LENGTH = 200


def matching_characters(a: str, b: str) -> int:
    """Return the number of matching characters of difflib's Ratcliff/Obershelp, without junk.

    Equal to ``sum(m.size for m in SequenceMatcher(None, a, b, autojunk=False)
    .get_matching_blocks())``, and so to the reference whenever ``len(b) < 200`` (autojunk only
    starts at 200). The longest common substring of each sub-range is found with ``str.find``
    (compiled) instead of difflib's per-character dictionary walk: ties go to the earliest
    position in ``a``, then in ``b``, as in difflib; then both sides are searched the same way.

    Examples
    --------
    >>> from polarscore.kernels.char_ratio import matching_characters
    >>> matching_characters("tide", "diet"), matching_characters("diet", "tide")
    (1, 2)
    """
    total = 0
    stack = [(0, len(a), 0, len(b))]
    find = a.find
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        best = best_i = best_j = 0
        for j in range(blo, bhi):
            if bhi - j < best:
                break
            # Can b[j:] start a longer common substring than the best so far?
            length = best + 1
            if j + length <= bhi:
                i = find(b[j : j + length], alo, ahi)
                if i >= 0:
                    while j + length < bhi:
                        longer = find(b[j : j + length + 1], alo, ahi)
                        if longer < 0:
                            break
                        length += 1
                        i = longer
                    best, best_i, best_j = length, i, j
                    continue
            # A tie on length goes to the earliest position in a (then in b, by loop order).
            if best:
                i = find(b[j : j + best], alo, ahi)
                if 0 <= i < best_i:
                    best_i, best_j = i, j
        if best:
            total += best
            if alo < best_i and blo < best_j:
                stack.append((alo, best_i, blo, best_j))
            if best_i + best < ahi and best_j + best < bhi:
                stack.append((best_i + best, ahi, best_j + best, bhi))
    return total


def _ratios(matcher: Callable[..., Any], a: Sequence[str], b: Sequence[str]) -> list[float]:
    out = []
    for x, y in zip(a, b, strict=True):
        if not x or not y:
            out.append(1.0 if x == y else 0.0)
        elif len(y) < AUTOJUNK_MIN_LENGTH:
            out.append(2.0 * matching_characters(x, y) / (len(x) + len(y)))
        else:
            out.append(matcher(None, x, y).ratio())
    return out


def sequence_matcher_ratio(
    a: Sequence[str],
    b: Sequence[str],
    *,
    use_cydifflib: bool | None = None,
) -> NDArray[np.float64]:
    """Return ``difflib.SequenceMatcher(None, a[i], b[i]).ratio()`` for each pair.

    Parameters
    ----------
    a, b
        Aligned sequences of strings of equal length; ``b`` is the side autojunk applies to.
    use_cydifflib
        For pairs whose ``b`` has 200 characters or more (autojunk on): ``None`` (default) uses
        ``cydifflib`` when installed, else ``difflib``; ``True`` / ``False`` force one (``True``
        raises ``ImportError`` when it is missing). Shorter ``b`` use :func:`matching_characters`.

    Returns
    -------
    numpy.ndarray
        ``float64`` in [0, 1]; 1.0 where both strings are empty, 0.0 where exactly one is.

    Notes
    -----
    Ratcliff/Obershelp has no array formulation: this is one compiled-library call per pair.
    Both matchers hold the interpreter lock, so threads would only take turns.

    Examples
    --------
    >>> from polarscore.kernels import sequence_matcher_ratio
    >>> sequence_matcher_ratio(["tide", "diet", ""], ["diet", "tide", ""]).tolist()
    [0.25, 0.5, 1.0]
    """
    return np.asarray(_ratios(_ratio_function(use_cydifflib), a, b), dtype=np.float64)


__all__ = [
    "AUTOJUNK_MIN_LENGTH",
    "HAS_CYDIFFLIB",
    "indel_similarity",
    "matching_characters",
    "sequence_matcher_ratio",
]
