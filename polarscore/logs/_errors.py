"""Errors raised while Polars pulls a log's batches, in the words of the reader that raised them.

A reader that yields batches (:mod:`polarscore.logs._source`) runs inside a Polars query, which
wraps the Python error it raises in a Polars error. :func:`reader_error` finds the reader's own
message again, so that a corrupt entry met mid-query is reported as at scan time.
"""

from __future__ import annotations

import re

import polars as pl

from polarscore.exceptions import InputFileError

_MARKER = re.compile(r"\b(?:InputFileError|JsonTooDeepError): ")


def reader_error(error: BaseException) -> InputFileError | None:
    """Return the :class:`InputFileError` a reader raised inside a Polars query, if it did."""
    if isinstance(error, InputFileError):
        return error
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, InputFileError):
            return current
        current = current.__cause__ or current.__context__
    text = str(error)
    found = _MARKER.search(text)
    if found:
        message = text[found.end() :].strip().splitlines()[0]
        return InputFileError(message)
    return None


def collect_log(frame: pl.LazyFrame) -> pl.DataFrame:
    """Collect a scanned log; a reader's error comes out as the :class:`InputFileError` it was."""
    try:
        return frame.collect()
    except (pl.exceptions.PolarsError, InputFileError) as error:
        found = reader_error(error)
        if found is not None:
            raise found from None
        raise
