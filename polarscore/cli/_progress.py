"""The progress line of long CLI runs, fed from inside the streaming query."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import TextIO

import polars as pl


class Cancelled(BaseException):
    """Raised inside the query to stop a run that the user interrupted."""


class Progress:
    """Rows-done counter fed from inside the query, and a one-line progress bar on a terminal.

    :meth:`counter` is an identity batch function: put it on one output column with
    ``map_batches(..., is_elementwise=True)`` and it counts the rows that go through, and raises
    :class:`Cancelled` once :meth:`cancel` was called, which stops the query.
    """

    def __init__(self, total: int | None, *, stream: TextIO | None, label: str = "scored") -> None:
        self.total = total
        self.rows = 0
        self.stream = stream
        self.label = label
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._width = 0

    def counter(self, series: pl.Series) -> pl.Series:
        """Count the rows of ``series`` and return it unchanged (or stop the query)."""
        if self._cancelled.is_set():
            raise Cancelled
        with self._lock:
            self.rows += len(series)
        return series

    def cancel(self) -> None:
        """Make the next batch stop the query."""
        self._cancelled.set()

    def render(self, *, final: bool = False) -> None:
        """Draw the bar (only when there is a stream)."""
        if self.stream is None:
            return
        elapsed = max(time.monotonic() - self._start, 1e-9)
        rate = self.rows / elapsed
        parts = [f"{self.label} {self.rows:,}"]
        if self.total:
            done = min(self.rows / self.total, 1.0)
            bar = "#" * int(done * 24)
            parts = [f"[{bar:<24}] {self.rows:,}/{self.total:,} rows ({done:.0%})"]
        else:
            parts[0] += " rows"
        parts.append(f"{rate:,.0f} rows/s")
        if self.total and rate > 0 and not final:
            remaining = max(self.total - self.rows, 0) / rate
            parts.append(f"ETA {_clock(remaining)}")
        if final:
            parts.append(f"in {_clock(elapsed)}")
        else:
            # The clock keeps the line moving while a slice holds a long row (no row is counted
            # until its batch is done).
            parts.append(f"{_clock(elapsed)} elapsed")
        line = "  ".join(parts)
        padding = " " * max(self._width - len(line), 0)
        self._width = len(line)
        self.stream.write("\r" + line + padding + ("\n" if final else ""))
        self.stream.flush()


def _clock(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def run_with_progress(query: pl.LazyFrame, progress: Progress, *, interval: float = 0.2) -> None:
    """Run a sink ``query`` with the streaming engine in the background, drawing ``progress``."""
    collect_with_progress(query, progress, interval=interval)
    progress.render(final=True)


#: How often :func:`collect_with_progress` looks for the query's result.
_POLL_SECONDS = 0.005


def collect_with_progress(
    query: pl.LazyFrame, progress: Progress, *, interval: float = 0.2
) -> pl.DataFrame:
    """Collect ``query`` with the streaming engine in the background, drawing ``progress``.

    The main thread only waits and draws, so Ctrl-C (``KeyboardInterrupt``) and signal handlers
    run promptly; on any such exception the query is stopped (see :class:`Progress`) and waited
    for before the exception propagates, so no writer is left running.
    """
    handle = query.collect(engine="streaming", background=True)
    ended = False
    next_render = time.monotonic()
    try:
        while True:
            try:
                result = handle.fetch()
            except (Exception, pl.exceptions.PanicException):
                # The query failed and handed over its error: it has ended. Waiting for it
                # again would make Polars panic (its result channel is closed).
                ended = True
                raise
            if result is not None:
                return result
            # Draw every `interval`, but look for the result far more often: a query's end
            # otherwise waits for the next draw, up to `interval` per slice.
            if time.monotonic() >= next_render:
                progress.render()
                next_render = time.monotonic() + interval
            time.sleep(_POLL_SECONDS)
    except BaseException:
        if not ended:
            progress.cancel()
            handle.cancel()
            with contextlib.suppress(BaseException):
                handle.fetch_blocking()
        raise


def stderr_if_tty(*, quiet: bool) -> TextIO | None:
    """Return ``sys.stderr`` for progress output when it is a terminal and not ``quiet``."""
    if quiet or not sys.stderr.isatty():
        return None
    return sys.stderr
