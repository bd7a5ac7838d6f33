"""The progress line of long CLI runs, fed from inside the streaming query."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

import polars as pl

if TYPE_CHECKING:
    from polars.lazyframe.in_process import InProcessQuery


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


def collect_with_progress(
    query: pl.LazyFrame, progress: Progress, *, interval: float = 0.2
) -> pl.DataFrame:
    """Collect ``query`` with the streaming engine in the background, drawing ``progress``.

    A helper thread waits for the query's result; the main thread only draws every
    ``interval`` and waits, so Ctrl-C (``KeyboardInterrupt``) and signal handlers run promptly.
    On any such exception the query is stopped (see :class:`Progress`) and waited for before the
    exception propagates, so no writer is left running.
    """
    handle = query.collect(engine="streaming", background=True)
    waiter = _ResultWaiter(handle)
    try:
        progress.render()
        # Woken by the result at once: a slice's end does not wait for the next draw. The main
        # thread used to look for the result every 5 ms instead, which cost a tenth of a second
        # of CPU per million rows scored.
        while not waiter.done.wait(interval):
            progress.render()
    except BaseException:
        progress.cancel()
        handle.cancel()
        with contextlib.suppress(BaseException):
            waiter.join()
        raise
    return waiter.outcome()


class _ResultWaiter(threading.Thread):
    """Waits, on its own thread, for a background query's result (or its error).

    The result is asked for once only: asking a query that ended again makes Polars panic (its
    result channel is closed).
    """

    def __init__(self, handle: InProcessQuery) -> None:
        super().__init__(name="polarscore-query", daemon=True)
        self.handle = handle
        self.done = threading.Event()
        self.result: pl.DataFrame | None = None
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.result = self.handle.fetch_blocking()
        except BaseException as error:  # Polars' panics derive from BaseException
            self.error = error
        finally:
            self.done.set()

    def outcome(self) -> pl.DataFrame:
        """Return the query's result, or raise its error (once it is done)."""
        self.join()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        if self.result is None:  # pragma: no cover - a finished query always hands a frame
            raise RuntimeError("The query ended without a result.")
        return self.result


def stderr_if_tty(*, quiet: bool) -> TextIO | None:
    """Return ``sys.stderr`` for progress output when it is a terminal and not ``quiet``."""
    if quiet or not sys.stderr.isatty():
        return None
    return sys.stderr
