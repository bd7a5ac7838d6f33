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
    """Dense token ids of many texts in CSR form, and each text's true token count.

    Text ``i`` owns ``ids[offsets[i]:offsets[i + 1]]``. Left-hand texts (responses) keep only
    the tokens that also occur in some right-hand text (reference): the others can never match,
    so they are dropped before encoding, and ``lengths`` keeps the counts from before the drop.
    """

    ids: IntArray
    offsets: IntArray
    lengths: IntArray

    def part(self, start: int, stop: int) -> tuple[IntArray, IntArray]:
        """Return the ids and offsets of texts ``start:stop``, re-based to start at 0."""
        offsets = self.offsets[start : stop + 1]
        return self.ids[offsets[0] : offsets[-1]], offsets - offsets[0]


def encode(
    words: pl.Series,
    *,
    n_left: int,
    right_rows: IntArray,
    keep: npt.NDArray[np.bool_] | None = None,
) -> Tokens:
    """Dictionary-encode a ``List(String)`` Series of words.

    The first ``n_left`` texts are the left ones (responses, one per row); right text ``j``
    (reference) belongs to row ``right_rows[j]``. ``keep`` masks the flattened words (e.g.
    stopwords). A left word is only kept if its row's right texts may hold it: a 64-bit hash of
    (row, word) pre-filters, so a collision can only keep a word, never lose one. Each call uses
    a fresh, private category mapping, so the ids are exact, dense, and freed with the batch.
    """
    n_texts = words.len()
    lengths = words.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat = words.explode(empty_as_null=False, keep_nulls=False)
    text_of_word = np.repeat(np.arange(n_texts, dtype=np.int64), lengths)
    if keep is not None:
        flat = flat.filter(pl.Series(keep))
        text_of_word = text_of_word[keep]
        lengths = np.bincount(text_of_word, minlength=n_texts).astype(np.int64)
    row_of_text = np.concatenate((np.arange(n_left, dtype=np.int64), right_rows))
    keys = flat.hash(seed=0).to_numpy() ^ (
        row_of_text[text_of_word].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    )
    n_left_words = int(lengths[:n_left].sum())
    relevant = np.ones(flat.len(), dtype=bool)
    relevant[:n_left_words] = (
        pl.Series(keys[:n_left_words]).is_in(pl.Series(keys[n_left_words:]).implode()).to_numpy()
    )
    flat = flat.filter(pl.Series(relevant))
    kept = np.bincount(text_of_word[relevant], minlength=n_texts)
    ids = flat.cast(pl.Categorical(pl.Categories.random())).to_physical().to_numpy()
    offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
    return Tokens(ids=ids.astype(np.int64), offsets=offsets, lengths=lengths)


def f_measure(matched: IntArray, n_response: IntArray, n_reference: IntArray) -> FloatArray:
    """``2PR / (P + R)`` with the references' own float operations; 0.0 when nothing matched."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = matched / n_response
        recall = matched / n_reference
        f: FloatArray = 2 * precision * recall / (precision + recall)
    return np.where(matched == 0, 0.0, f)


__all__ = ["FloatArray", "IntArray", "Tokens", "encode", "f_measure"]
