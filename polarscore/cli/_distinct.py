"""Scoring the distinct rows of a slice once, for logs whose rows repeat.

Eval logs repeat their rows: a task run for several epochs at temperature 0, several runs of one
model concatenated, the same short answer (``B``, ``42``, ``Paris``) to the same item from many
models. Every score is a function of the columns its scorer reads and nothing else (no scorer
looks at other rows), so a slice whose rows repeat is scored on its distinct rows of those
columns, and each row takes its scores from its distinct row by a join on them: the same scores,
bit for bit, at the cost of scoring each distinct row once.

A slice's rows that repeat the slice before it take the scores found there too, so that a log
repeated whole (epoch after epoch) is found when an epoch spans up to a slice of rows.

Where rows do not repeat, this costs next to nothing: each slice is then scored as without it,
by one streaming query from the file, and its responses' hashes, against those of the slice
before it, tell whether the next slice may repeat (an approximate count of the new ones; about
0.2 ns a byte in all). Such a slice (and the first) is read before it is scored; only if at most
:data:`MAX_DISTINCT_SHARE` of its rows are distinct and new (on every column the scorers read)
are those scored alone, and it is scored whole otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl
from polars._typing import PolarsDataType

from polarscore.cli._progress import Progress, collect_with_progress
from polarscore.exceptions import PolarscoreError

#: A slice is scored on its distinct rows when at most this share of its rows are distinct.
MAX_DISTINCT_SHARE = 0.5
#: A slice of fewer rows is scored whole: the unique and the join would cost about what they save.
MIN_ROWS = 1_000


def _keyable(dtype: PolarsDataType) -> bool:
    """Whether rows equal on a column of ``dtype`` are equal as a scorer reads them.

    Text, integers and booleans, and lists and arrays of them. Not floats: a join finds -0.0
    equal to 0.0, which a scorer may tell apart; not structs or objects.
    """
    if isinstance(dtype, pl.List | pl.Array):
        return _keyable(dtype.inner)
    return dtype in (pl.String, pl.Binary, pl.Boolean, pl.Null) or dtype.is_integer()


@dataclass
class DistinctScoring:
    """How :func:`polarscore.cli._output.write_in_slices` scores the slices of a log.

    ``score`` adds the score columns to a frame; ``keys`` are the columns it reads, the
    response first; ``columns`` are the scored log's columns in order, before ``drop`` leaves
    some out. ``repeats`` tells whether the next slice is expected to repeat rows, its own or
    the slice's before it: the first slice is tested, and each next one is expected to do as
    the one before it did.
    """

    source: pl.LazyFrame
    score: Callable[[pl.LazyFrame], pl.LazyFrame]
    keys: tuple[str, ...]
    scores: tuple[str, ...]
    columns: tuple[str, ...]
    drop: tuple[str, ...] = ()
    repeats: bool = True
    #: The hashes of the last slice's responses.
    seen: pl.Series | None = None
    #: The keys and scores of the last slice's distinct rows, when it was scored by them.
    memo: pl.DataFrame | None = None

    @classmethod
    def plan(
        cls,
        source: pl.LazyFrame,
        score: Callable[[pl.LazyFrame], pl.LazyFrame],
        keys: Sequence[str],
        *,
        drop: Sequence[str] = (),
    ) -> DistinctScoring | None:
        """Return the scoring of ``source`` by distinct ``keys``, or None where it cannot hold.

        None unless every key is a column of ``source`` of a dtype rows can be joined on
        (:func:`_keyable`), and ``score`` applied to the keys alone resolves and adds the very
        score columns, of the same dtypes, that it adds to the whole log: a scorer that reads
        a column outside ``keys`` fails to resolve there, so no slice is ever scored without a
        column its scores depend on. The keys are those the scores' expressions read
        (:meth:`polars.Expr.meta.root_names`).
        """
        schema = source.collect_schema()
        keys = tuple(dict.fromkeys(keys))
        if not keys or any(k not in schema or not _keyable(schema[k]) for k in keys):
            return None
        try:
            alone = score(source.select(keys)).collect_schema()
        except (PolarscoreError, pl.exceptions.PolarsError):
            return None  # a column outside the keys is read, or the keys do not fit a scorer
        whole = score(source).collect_schema()
        scores = tuple(name for name in alone if name not in keys)
        expected = [name for name in schema if name not in scores] + list(scores)
        if (
            not scores
            or sorted(whole) != sorted(expected)
            or any(alone[name] != whole[name] for name in scores)
        ):
            return None
        return cls(source, score, keys, scores, tuple(whole), tuple(drop))

    def collect(
        self,
        scored: pl.LazyFrame,
        offset: int,
        rows: int,
        progress: Progress,
        *,
        interval: float = 0.2,
    ) -> pl.DataFrame:
        """Score and return ``rows`` rows of the log from ``offset``.

        ``scored`` is the scored log (``score`` of ``source``, ``drop`` applied). A slice that
        is not expected to repeat is its one streaming query, from the file to the scores, as
        without this class. A slice that is expected to repeat is read first; its distinct
        rows that the slice before it did not hold are scored, if few enough, and the others
        take the scores found for that slice.
        """

        # Every step is a query collected in the background (collect_with_progress), so that
        # Ctrl-C stops it at once and cleanly; an eager join on this thread, interrupted, could
        # raise the interrupt twice.
        def run(query: pl.LazyFrame) -> pl.DataFrame:
            return collect_with_progress(query, progress, interval=interval)

        if not self.repeats:
            self.memo = None
            part = run(scored.slice(offset, rows))
            self._observe(part, run)
            return part
        inputs = run(self.source.slice(offset, rows))
        unique = self._to_score(inputs, run)
        keys = list(self.keys)
        if unique is None:
            part = run(self.score(inputs.lazy()))
            # The next slice may repeat this one's rows (an epoch longer than half a slice).
            self.memo = run(part.lazy().select(*keys, *self.scores).unique(subset=keys))
        else:
            todo, known = unique
            scores = run(self.score(todo.lazy()).select(*keys, *self.scores))
            if known is not None:
                scores = pl.concat([known, scores])
            self.memo = scores
            part = run(
                inputs.lazy()
                .drop([name for name in self.scores if name in inputs.columns])
                .join(scores.lazy(), on=keys, how="left", nulls_equal=True, maintain_order="left")
                .select(self.columns)
            )
        self._observe(inputs, run)
        return part.drop(list(self.drop)) if self.drop else part

    def _observe(self, part: pl.DataFrame, run: Callable[[pl.LazyFrame], pl.DataFrame]) -> None:
        """Tell from ``part``, the slice just scored, whether the next one is to repeat.

        It is when at most :data:`MAX_DISTINCT_SHARE` of ``part``'s responses are neither
        repeated within it nor found in the slice before it (by their hashes, counted
        approximately); and also when ``part`` has no key column left to count. ``run``
        collects a query.
        """
        column = next((key for key in self.keys if key in part.columns), None)
        if column is None:
            self.repeats, self.seen = True, None
            return
        hashes = run(part.lazy().select(pl.col(column).hash().alias("hash"))).get_column("hash")
        fresh = pl.LazyFrame({"hash": hashes})
        if self.seen is not None:
            fresh = fresh.filter(~pl.col("hash").is_in(self.seen.implode()))
        new: int = run(fresh.select(pl.col("hash").approx_n_unique())).item()
        self.repeats = part.height >= MIN_ROWS and new <= MAX_DISTINCT_SHARE * part.height
        self.seen = hashes

    def _to_score(
        self, inputs: pl.DataFrame, run: Callable[[pl.LazyFrame], pl.DataFrame]
    ) -> tuple[pl.DataFrame, pl.DataFrame | None] | None:
        """Return the distinct rows of ``inputs``' keys to score, and the others' scores.

        The rows to score are those the previous slice's distinct rows (``memo``) do not hold;
        the others' scores are None when there is no memo. None if more than
        :data:`MAX_DISTINCT_SHARE` of the slice's rows would be scored. ``run`` collects a
        query.
        """
        if inputs.height < MIN_ROWS:
            return None
        unique = run(inputs.lazy().select(self.keys).unique())
        known = None
        if self.memo is not None:
            keys = list(self.keys)
            memo = self.memo.lazy()
            known = run(unique.lazy().join(memo, on=keys, how="inner", nulls_equal=True))
            unique = run(unique.lazy().join(memo, on=keys, how="anti", nulls_equal=True))
        return (unique, known) if unique.height <= MAX_DISTINCT_SHARE * inputs.height else None
