"""Helpers shared by the token-based scorers: dictionary-encoded token lists and F-measure."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Tokens:
    """Dense token ids of many texts in CSR form (text ``i`` owns ``ids[offsets[i]:...]``)."""

    ids: IntArray
    offsets: IntArray

    def part(self, start: int, stop: int) -> tuple[IntArray, IntArray]:
        """Return the ids and offsets of texts ``start:stop``, re-based to start at 0."""
        offsets = self.offsets[start : stop + 1]
        return self.ids[offsets[0] : offsets[-1]], offsets - offsets[0]


def encode(words: pl.Series, keep: npt.NDArray[np.bool_] | None = None) -> Tokens:
    """Dictionary-encode a ``List(String)`` Series of words, optionally keeping only some.

    ``keep`` masks the flattened words. Each call uses a fresh, private category mapping, so the
    ids are exact (no hashing), dense, and freed with the batch.
    """
    lengths = words.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat = words.explode(empty_as_null=False, keep_nulls=False)
    if keep is not None:
        text_of_word = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        flat = flat.filter(pl.Series(keep))
        lengths = np.bincount(text_of_word[keep], minlength=lengths.size).astype(np.int64)
    ids = flat.cast(pl.Categorical(pl.Categories.random())).to_physical().to_numpy()
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return Tokens(ids=ids.astype(np.int64), offsets=offsets)


def f_measure(matched: IntArray, n_response: IntArray, n_reference: IntArray) -> FloatArray:
    """``2PR / (P + R)`` with the references' own float operations; 0.0 when nothing matched."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = matched / n_response
        recall = matched / n_reference
        f: FloatArray = 2 * precision * recall / (precision + recall)
    return np.where(matched == 0, 0.0, f)


__all__ = ["FloatArray", "IntArray", "Tokens", "encode", "f_measure"]
