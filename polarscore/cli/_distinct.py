"""Scoring the distinct rows of a slice once, for logs whose rows repeat.

Eval logs repeat their rows: a task run for several epochs at temperature 0, several runs of one
model concatenated, the same short answer (``B``, ``42``, ``Paris``) to the same item from many
models. Every score is a function of the columns its scorer reads and nothing else (no scorer
looks at other rows), so a slice whose rows repeat is scored on its distinct rows of those
columns (its keys), and each row takes the scores of its distinct row: the same scores, bit for
bit, at the cost of scoring each distinct row once.

Rows are told apart by a 64-bit hash of their keys, and a row takes another's scores only when
their keys are equal, compared value for value: a hash collision costs a score computed twice,
never a wrong one. A slice's rows that the slice before it held take the scores found there too
(the memo), so that a log repeated whole (epoch after epoch) is found when an epoch spans up to
a slice of rows.

Where rows do not repeat, this costs next to nothing: each slice is then scored as without it,
by one streaming query from the file, and the hashes of its rows, against those of the slice
before it, tell whether the next slice may repeat (about 0.1 ns a byte). Such a slice (and the
first) is read before it is scored, its rows looked up in the memo, and only its rows that are
neither there nor repeated in it are scored; if too few rows would be spared that way
(:data:`MIN_SAVED_SHARE`), it is scored whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import polars as pl
from polars._typing import PolarsDataType

from polarscore.cli._progress import Progress, collect_with_progress
from polarscore.exceptions import PolarscoreError

#: The next slice is read first and looked up in the memo when at least this share of a slice's
#: last rows (:data:`TAIL_SHARE`) repeat (a row of the slice before it, or one before it in the
#: slice). Reading a slice first, hashing, looking up and gathering its rows cost about a quarter
#: of what the default scorers cost a row: on ``benchmarks/synthetic.py``'s log, where 14-16% of
#: each slice's rows repeat, a share of 2% made the command line 10-15% slower than scoring
#: every row.
REPEAT_SHARE = 0.25
#: A slice is scored whole when looking its rows up would spare fewer than this share of them
#: (the same break-even as :data:`REPEAT_SHARE`).
MIN_SAVED_SHARE = 0.25
#: The share of a slice's rows, its last, that tells whether the next slice repeats.
TAIL_SHARE = 0.25
#: A slice of fewer rows is scored whole: the look-ups would cost about what they save.
MIN_ROWS = 1_000


def _keyable(dtype: PolarsDataType) -> bool:
    """Whether rows equal on a column of ``dtype`` are equal as a scorer reads them.

    Text, integers and booleans, and lists and arrays of them. Not floats: -0.0 equals 0.0,
    which a scorer may tell apart; not structs or objects.
    """
    if isinstance(dtype, pl.List | pl.Array):
        return _keyable(dtype.inner)
    return dtype in (pl.String, pl.Binary, pl.Boolean, pl.Null) or dtype.is_integer()


def _private_name(stem: str, taken: Sequence[str]) -> str:
    """Return a column name from ``stem`` that is none of ``taken``."""
    name = f"__polarscore_{stem}"
    while name in taken:
        name += "_"
    return name


#: Joins a list's texts for its hash (any separator would do: the hash only finds candidates).
_LIST_SEPARATOR = "\x1f"


def _hashed(name: str, dtype: PolarsDataType, seed: int) -> pl.Expr:
    """Return a 64-bit hash of column ``name`` (of ``dtype``, :func:`_keyable`).

    Polars before 2.0 cannot hash a list of texts (it panics): such a list is hashed as its
    texts joined, and its length. Any list of something else but integers is hashed by its
    length alone. Equal values get equal hashes either way, and rows are compared before they
    share scores, so a weaker hash costs only rows scored again.
    """
    column = pl.col(name)
    if isinstance(dtype, pl.List | pl.Array):
        items = column.list if isinstance(dtype, pl.List) else column.arr
        length = items.len().hash(seed=seed)
        if dtype.inner == pl.String:
            return items.join(_LIST_SEPARATOR).hash(seed=seed).xor(length)
        if not dtype.inner.is_integer():
            return length
    return column.hash(seed=seed)


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
    #: The hashes of the last slice's rows' keys.
    seen: pl.Series | None = None
    #: The last slice's distinct rows (one per hash): hash, keys and scores; None when the
    #: slice did not repeat.
    memo: pl.DataFrame | None = None
    #: The private columns: the keys' hash, a row's index in the memo, the memo's keys.
    hash_name: str = "__polarscore_hash"
    index_name: str = "__polarscore_index"
    memo_names: tuple[str, ...] = ()
    #: Rows scored in each slice read first (None: scored whole), for tests and benchmarks.
    scored_rows: list[int | None] = field(default_factory=list)

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

        None unless every key is a column of ``source`` of a dtype rows can be compared on
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
        taken = list(whole)
        memo_names = []
        for key in keys:
            memo_names.append(_private_name(f"memo_{key}", taken))
            taken.append(memo_names[-1])
        return cls(
            source,
            score,
            keys,
            scores,
            tuple(whole),
            tuple(drop),
            hash_name=_private_name("hash", taken),
            index_name=_private_name("index", taken),
            memo_names=tuple(memo_names),
        )

    def _hash(self) -> pl.Expr:
        """Return the 64-bit hash of a row's keys: each key's, seeded by its place, combined."""
        schema = self.source.collect_schema()
        hashes = [_hashed(key, schema[key], place) for place, key in enumerate(self.keys)]
        combined = hashes[0]
        for more in hashes[1:]:
            combined = combined.xor(more)
        return combined.alias(self.hash_name)

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
        without this class. A slice that is expected to repeat is read first; its rows found
        in the memo take their scores from it, and the others are scored once per distinct
        row (or the whole slice as it is, when that would spare too few rows).
        """

        # Every step is a query collected in the background (collect_with_progress), so that
        # Ctrl-C stops it at once and cleanly; an eager join on this thread, interrupted, could
        # raise the interrupt twice.
        def run(query: pl.LazyFrame) -> pl.DataFrame:
            return collect_with_progress(query, progress, interval=interval)

        if not self.repeats:
            self.memo = None
            part = run(scored.slice(offset, rows))
            if all(name in part.columns for name in (*self.keys, *self.scores)):
                keys = run(part.lazy().select(self._hash(), *self.keys))
                if self._observe(keys.get_column(self.hash_name), run):
                    self.memo = self._memo(keys, part, run)
            else:  # a key left out by --drop: the next slice is read first to tell
                self.repeats, self.seen = True, None
            return part
        inputs = run(self.source.slice(offset, rows).with_columns(self._hash()))
        keys = inputs.select(self.hash_name, *self.keys)
        inputs = inputs.drop(self.hash_name)
        part = self._score_slice(inputs, keys, run)
        if self._observe(keys.get_column(self.hash_name), run):
            self.memo = self._memo(keys, part, run)
        else:
            self.memo = None
        return part.drop(list(self.drop)) if self.drop else part

    def _score_slice(
        self,
        inputs: pl.DataFrame,
        keys: pl.DataFrame,
        run: Callable[[pl.LazyFrame], pl.DataFrame],
    ) -> pl.DataFrame:
        """Return ``inputs``, one slice of the log (read), scored.

        ``keys`` holds its rows' keys and their hash; ``run`` collects a query.
        """
        height = inputs.height
        found: pl.Series | None = None
        unknown = keys
        if self.memo is not None and height:
            found = self._look_up(keys, self.memo, run)
            unknown = keys.filter(found.is_null())
        distinct = None
        if height >= max(MIN_ROWS, 1):
            # One row per hash among the rows the memo does not hold: the rows to score.
            distinct = run(unknown.lazy().unique(subset=self.hash_name, keep="any"))
            if height - distinct.height < MIN_SAVED_SHARE * height:
                distinct = None
        if distinct is None:
            self.scored_rows.append(None)
            return run(self.score(inputs.lazy()))
        self.scored_rows.append(distinct.height)
        # Each row's scores are a row of `table`: the memo's rows, then the distinct rows
        # scored now, then (rarely) rows scored alone, whose hash met another row's keys.
        tables = [] if self.memo is None else [self.memo]
        index = (
            found if found is not None else pl.Series(dtype=pl.Int64).extend_constant(None, height)
        )
        if distinct.height:
            new = self._score_keys(distinct, run)
            there = self._look_up(keys, new, run) + sum(t.height for t in tables)
            index = pl.select(pl.coalesce(index, there)).to_series()
            tables.append(new)
        missing = index.is_null()
        if missing.any():
            alone = self._score_keys(keys.filter(missing), run)
            base = sum(t.height for t in tables)
            at = pl.int_range(base, base + alone.height, dtype=pl.Int64, eager=True)
            index = index.scatter(missing.arg_true(), at)
            tables.append(alone)
        table = pl.concat([t.select(self.scores) for t in tables], how="vertical")
        present = [name for name in self.scores if name in inputs.columns]
        scores = run(table.lazy().select(pl.all().gather(index)))
        return inputs.drop(present).hstack(scores).select(self.columns)

    def _look_up(
        self, rows: pl.DataFrame, table: pl.DataFrame, run: Callable[[pl.LazyFrame], pl.DataFrame]
    ) -> pl.Series:
        """Return, per row of ``rows``, the index of ``table``'s row with the same keys, or null.

        Both hold the keys and their hash, ``table`` one row per hash: a row is found by its
        hash, and taken only if its keys equal the row's, compared value for value.
        """
        memo = dict(zip(self.keys, self.memo_names, strict=True))
        right = (
            table.lazy()
            .select(self.hash_name, *(pl.col(key).alias(memo[key]) for key in self.keys))
            .with_row_index(self.index_name)
        )
        same = pl.all_horizontal(pl.col(key).eq_missing(pl.col(memo[key])) for key in self.keys)
        found = run(
            rows.lazy()
            .select(self.hash_name, *self.keys)
            .join(right, on=self.hash_name, how="left", maintain_order="left")
            .select(pl.when(same).then(pl.col(self.index_name)).cast(pl.Int64))
        )
        return found.to_series()

    def _score_keys(
        self, rows: pl.DataFrame, run: Callable[[pl.LazyFrame], pl.DataFrame]
    ) -> pl.DataFrame:
        """Return ``rows`` (keys and their hash) with their scores."""
        scores = run(self.score(rows.lazy().select(self.keys)).select(self.scores))
        return rows.hstack(scores)

    def _memo(
        self, keys: pl.DataFrame, part: pl.DataFrame, run: Callable[[pl.LazyFrame], pl.DataFrame]
    ) -> pl.DataFrame:
        """Return the memo of a slice: one row per hash, its keys and its scores.

        ``keys`` holds the slice's rows' keys and their hash, ``part`` the slice scored.
        """
        rows = keys.hstack(part.select(self.scores))
        return run(rows.lazy().unique(subset=self.hash_name, keep="any"))

    def _observe(self, hashes: pl.Series, run: Callable[[pl.LazyFrame], pl.DataFrame]) -> bool:
        """Return whether the next slice is to repeat, told from ``hashes``, the last slice's.

        It is when at least :data:`REPEAT_SHARE` of the last :data:`TAIL_SHARE` of the slice's
        rows repeat a row of the slice before it or one before them in the slice (by their
        hashes): the next slice is expected to go on as this one ended. A log repeated with a
        period shorter than a slice (an epoch of a few thousand items) repeats every row past
        its first period, so the slice's end tells it, where its whole would count the first
        period too; a log whose repeats are scattered (the short answers many rows share) ends
        as it began. ``run`` collects a query.
        """
        height = hashes.len()
        tail = max(int(height * TAIL_SHARE), 1)
        repeats = False
        if height >= MIN_ROWS:
            # Only the tail's rows are tested: each against the rows before it in the tail, and
            # against the rows of the slice before the tail and of the last slice that hold a
            # hash of the tail (found by looking them up in a set of the tail's hashes, which
            # is smaller than one of theirs). Marking every row of the slice first distinct or
            # not, to keep the tail's marks, grew a hash set over the whole slice.
            last = hashes.tail(tail)
            before = hashes.head(height - tail)
            if self.seen is not None:
                before = pl.concat([self.seen, before], rechunk=False)
            hash_ = pl.col(self.hash_name)
            earlier = pl.lit(before)
            held = earlier.filter(earlier.is_in(hash_.implode()))
            repeat = ~hash_.is_first_distinct() | hash_.is_in(held.implode())
            frame = pl.LazyFrame({self.hash_name: last})
            share = run(frame.select(repeat.mean())).item()
            repeats = share is not None and share >= REPEAT_SHARE
        self.repeats = repeats
        self.seen = hashes
        return self.repeats
