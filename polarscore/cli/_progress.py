"""The progress line of long CLI runs, fed from inside the streaming query."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any, TextIO

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


#: How often :func:`collect_with_progress` looks for the query's result: first after
#: :data:`_FIRST_POLL_SECONDS`, then twice as long each time, up to :data:`_POLL_SECONDS`
#: (a slice's small steps, a look-up or a unique, take a millisecond or two).
_POLL_SECONDS = 0.005
_FIRST_POLL_SECONDS = 0.0002


def collect_with_progress(
    query: pl.LazyFrame, progress: Progress, *, interval: float = 0.2
) -> pl.DataFrame:
    """Collect ``query`` with the streaming engine in the background, drawing ``progress``.

    The main thread only waits and draws, so Ctrl-C (``KeyboardInterrupt``) and signal handlers
    run promptly; on any such exception the query is stopped (see :class:`Progress`) and waited
    for before the exception propagates, so no writer is left running. A signal that comes
    while the query is being started is held until its handle is kept (:func:`_signals_held`):
    a handle dropped unawaited makes Polars panic when the query ends (its result is sent to
    no one), which aborts the process.
    """
    handle = None
    ended = False
    try:
        with _signals_held():
            handle = query.collect(engine="streaming", background=True)
        next_render = time.monotonic()
        pause = _FIRST_POLL_SECONDS
        while True:
            try:
                result = handle.fetch()
            except (Exception, pl.exceptions.PanicException):
                # The query failed and handed over its error: it has ended. Waiting for it
                # again would make Polars panic (its result channel is closed).
                ended = True
                raise
            if result is not None:
                ended = True
                return result
            # Draw every `interval`, but look for the result far more often: a query's end
            # otherwise waits for the next draw, up to `interval` per slice.
            if time.monotonic() >= next_render:
                progress.render()
                next_render = time.monotonic() + interval
            time.sleep(pause)
            pause = min(2 * pause, _POLL_SECONDS)
    except BaseException:
        if handle is not None and not ended:
            progress.cancel()
            handle.cancel()
            with contextlib.suppress(BaseException):
                handle.fetch_blocking()
        raise


#: The signals :func:`_signals_held` holds: Ctrl-C, and the SIGTERM the command line turns into
#: an exception.
_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM inside the block; raise each held one again when it ends.

    Their Python handlers raise an exception at the next bytecode boundary, which inside a
    call that starts a background query (Polars' own Python code included) would drop its
    handle before the caller could keep it. The handlers are put back (each in a ``finally``,
    so that a signal coming meanwhile cannot leave one out) and the held signals raised again,
    so the exception comes out of the block, once the handle is kept. Outside the main thread,
    where handlers cannot be set (nor run), nothing is held.
    """
    held: list[int] = []
    previous: dict[int, Any] = {}

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        for number in _HELD_SIGNALS:
            handler = signal.getsignal(number)
            if callable(handler):  # a Python handler (not SIG_DFL, SIG_IGN or one set in C)
                previous[number] = signal.signal(number, hold)
    except BaseException:
        _restore(list(previous.items()))
        raise
    try:
        yield
    finally:
        _restore(list(previous.items()))
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


def _restore(handlers: list[tuple[int, Any]]) -> None:
    """Put back each signal's handler, every one even if a signal interrupts the first."""
    if not handlers:
        return
    (number, handler), rest = handlers[0], handlers[1:]
    try:
        signal.signal(number, handler)
    finally:
        _restore(rest)


def stderr_if_tty(*, quiet: bool) -> TextIO | None:
    """Return ``sys.stderr`` for progress output when it is a terminal and not ``quiet``."""
    if quiet or not sys.stderr.isatty():
        return None
    return sys.stderr
