"""A lazy frame fed batch by batch from Python: Polars' IO-plugin interface, used by the readers.

A reader that can produce its rows in batches (an ``.eval`` archive's sample entries, the lines of
a JSON Lines log) gives a function returning an iterator of ``DataFrame`` batches of a known
schema; :func:`lazy_batches` turns it into a ``LazyFrame`` that Polars' streaming engine pulls
from, so a log is never held whole in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import polars as pl
from polars.io.plugins import register_io_source

from polarscore.logs._table import too_deep

#: Rows per batch a reader yields.
BATCH_ROWS = 2_000


def lazy_batches(batches: Callable[[], Iterator[pl.DataFrame]], schema: pl.Schema) -> pl.LazyFrame:
    """Return a ``LazyFrame`` of ``schema`` whose rows come from ``batches()``, read on demand.

    Polars asks for a projection, a predicate and a row limit; the batches are cut and filtered
    here (each batch is small), and the reading stops once the limit is reached. A value nested
    too deep for Python (a ``RecursionError`` while a reader walks it) is the reader's
    :class:`~polarscore.exceptions.InputFileError`, naming the log (``batches.__self__.path``).
    """
    owner = getattr(batches, "__self__", None)
    label = f"The log {str(getattr(owner, 'path', ''))!r}"

    def source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        remaining = n_rows
        try:
            yield from _batches(remaining, predicate, with_columns)
        except RecursionError:
            raise too_deep(label) from None

    def _batches(
        remaining: int | None, predicate: pl.Expr | None, with_columns: list[str] | None
    ) -> Iterator[pl.DataFrame]:
        for batch in batches():
            if remaining is not None:
                if remaining <= 0:
                    return
                batch = batch.head(remaining)
                remaining -= batch.height
            if predicate is not None:
                batch = batch.filter(predicate)
            if with_columns is not None:
                batch = batch.select(with_columns)
            yield batch

    return register_io_source(source, schema=dict(schema))
