"""Writing the scored log for the command line: its format, and slice-by-slice Parquet writes.

Parquet logs are scored slice by slice so that memory does not grow with their size
(:func:`write_in_slices`). The inputs are read by :mod:`polarscore._inputs`, and every output
goes through :func:`polarscore._atomic.atomic_target`.
"""

from __future__ import annotations

import bisect
import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import polars as pl

from polarscore._typing import OutputFormat
from polarscore.cli._progress import Progress, collect_with_progress
from polarscore.exceptions import OutputFileError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from polarscore.cli._distinct import DistinctScoring

_OUTPUT_SUFFIXES: dict[str, OutputFormat] = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def output_format(path: Path, given: str | None = None) -> OutputFormat:
    """Return the output format: ``given``, or else the target's suffix."""
    if given is not None:
        if given not in ("parquet", "csv"):
            raise OutputFileError(f"The output format must be 'parquet' or 'csv'; got {given!r}.")
        return "parquet" if given == "parquet" else "csv"
    try:
        return _OUTPUT_SUFFIXES[path.suffix.lower()]
    except KeyError:
        raise OutputFileError(
            f"Cannot tell the output format of {str(path)!r}: use a .parquet or .csv suffix, "
            "or pass --format."
        ) from None


def sink(
    frame: pl.LazyFrame,
    path: Path,
    kind: OutputFormat,
    *,
    metadata: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Return the lazy sink query writing ``frame`` to ``path`` as ``kind``.

    ``metadata`` goes into a Parquet file's key-value metadata (CSV has none).
    """
    if kind == "parquet":
        return frame.sink_parquet(path, lazy=True, metadata=dict(metadata or {}))
    return frame.sink_csv(path, lazy=True)


#: Rows scored per query when the input's size is known (Parquet): see :func:`write_in_slices`.
SLICE_ROWS = 250_000
#: The smallest slice :func:`slice_size` cuts a small log into.
MIN_SLICE_ROWS = 25_000
#: The scored bytes a slice aims at (:func:`next_slice_rows`): a log of long rows is cut in
#: slices of fewer rows, so that the peak memory depends neither on the log's size nor on its
#: rows' length.
SLICE_BYTES = 48 << 20
#: The fewest rows :func:`next_slice_rows` cuts a log of very long rows into.
MIN_BYTES_SLICE_ROWS = 1_000


def next_slice_rows(part: pl.DataFrame, most: int, budget: int = SLICE_BYTES) -> int:
    """Return the rows of the next slice of :func:`write_in_slices`.

    About ``budget`` bytes at the size of the rows of ``part`` (the slice just scored), at most
    ``most`` and at least :data:`MIN_BYTES_SLICE_ROWS` (or ``most`` if smaller).
    """
    if part.height == 0:
        return most
    row_bytes = max(part.estimated_size() / part.height, 1.0)
    return max(min(most, int(budget / row_bytes)), min(most, MIN_BYTES_SLICE_ROWS))


def snap_to_row_groups(offset: int, rows: int, ends: Sequence[int], most: int) -> int:
    """Return the rows of a slice from ``offset`` of about ``rows``, ending where a row group does.

    ``ends`` are the row offsets where the input's row groups end, in order. Polars decodes
    every row group a slice touches, so a slice that ends inside a group has the group decoded
    again by the next one: on the synthetic log of ``benchmarks/synthetic.py`` (groups of
    125,000 rows, slices of about 116,000) nearly every group was decoded twice. So a slice ends
    at the last group end from half of ``rows`` on, when the slices after it can go on ending
    where groups do (the next group is at most a quarter more than ``rows``); else at the first
    group end past ``rows`` if that is at most a quarter more (and at most ``most``): the slices
    bound the memory, and a quarter more rows is all they may grow by. Groups larger than that
    are cut as ``rows`` says.
    """
    grow = min(rows + rows // 4, most)
    last = bisect.bisect_right(ends, offset + rows)
    near = last > 0 and ends[last - 1] - offset >= max(rows // 2, 1)
    if near and (last == len(ends) or ends[last] - ends[last - 1] <= grow):
        return ends[last - 1] - offset
    if last < len(ends) and ends[last] - offset <= grow:
        return ends[last] - offset
    return rows


def slice_size(total: int, most: int = SLICE_ROWS) -> int:
    """Return the rows per slice for a ``total``-row log.

    At most ``most``, and a quarter of a smaller log (not under :data:`MIN_SLICE_ROWS`), so that
    writing a slice overlaps scoring the next one even when the whole log would fit in one or two
    slices.
    """
    return min(most, max(MIN_SLICE_ROWS, -(-total // 4)))


def write_in_slices(
    frame: pl.LazyFrame,
    path: Path,
    kind: OutputFormat,
    *,
    total: int,
    progress: Progress,
    slice_rows: int = SLICE_ROWS,
    slice_bytes: int | None = SLICE_BYTES,
    interval: float = 0.2,
    metadata: Mapping[str, str] | None = None,
    distinct: DistinctScoring | None = None,
    row_groups: Callable[[], Sequence[int] | None] | None = None,
) -> None:
    """Score and write ``frame`` (``total`` rows) to ``path``, ``slice_rows`` rows at a time.

    A small log is cut in smaller slices (:func:`slice_size`). With ``slice_bytes``, the first
    slice has at most :data:`MIN_SLICE_ROWS` rows and each next one about ``slice_bytes`` of
    scored data at the size of the rows before it (:func:`next_slice_rows`): long rows make
    slices of fewer rows, so that the peak memory is about the same for every log. ``frame``
    should pass one column through :meth:`Progress.counter`, so that the progress line moves
    while a slice runs. Each slice is its own streaming query, and its result is appended to one
    Parquet (or CSV) file while the next one is scored, so at most two slices are in memory at
    any time; the peak is reached when a slice's result is complete while the one before it is
    still being written. One query
    over the whole log would be simpler, but Polars' Parquet source decodes row groups ahead of a
    slower consumer without bound (pola-rs/polars#28569), and scoring is much slower than
    decoding: the peak memory then grows with the log (1.4 GiB at 1M rows, 2.2 GiB at 3M, with
    ``answer_correctness`` and ``answer_match``; 1.4 GiB at both with slices). Slicing needs the
    row count up front, which Parquet metadata gives for free; Parquet's slice pushdown reads only
    the row groups a slice needs. Each slice runs as :func:`collect_with_progress`: Ctrl-C and
    SIGTERM are handled promptly, and the running query is cancelled and waited for.
    ``metadata`` goes into a Parquet file's key-value metadata (CSV has none). With
    ``distinct``, each slice is read from it instead, its repeated rows scored once
    (:class:`polarscore.cli._distinct.DistinctScoring`); ``frame`` is then the same scored log.
    ``row_groups`` returns where the input's Parquet row groups end (None when unknown), asked
    once, at the second slice: with ``slice_bytes``, slices then end where a group does
    (:func:`snap_to_row_groups`), so that no group is decoded twice.
    """
    slice_rows = slice_size(total, slice_rows)
    ends = functools.cache(lambda: (row_groups() if row_groups else None) or ())
    rows = slice_rows if slice_bytes is None else min(slice_rows, MIN_SLICE_ROWS)
    # A slice is written on a second thread while the next one is scored: the writer (Arrow's
    # Parquet encoder, one thread) would otherwise leave the scoring threads idle. At most one
    # write is in flight, and it is waited for before the next one starts and before the file
    # is closed, on failure too.
    with open(path, "wb") as out, ThreadPoolExecutor(1, "polarscore-writer") as pool:
        writer = _SliceWriter(out, kind, one_slice=total <= rows, metadata=metadata)
        pending: Future[None] | None = None
        if kind == "parquet" and total > rows:
            # pyarrow's import (a tenth of a second or more, numpy's included) runs on the
            # writer thread while the first slice is scored; prepare() imports it again, which
            # waits for this import if it is still running.
            pool.submit(importlib.import_module, "pyarrow.parquet")
        offset = 0
        try:
            while offset < total:
                if distinct is None:
                    part = collect_with_progress(
                        frame.slice(offset, rows), progress, interval=interval
                    )
                else:
                    part = distinct.collect(frame, offset, rows, progress, interval=interval)
                if pending is not None:
                    pending.result()
                # The query's counter (Progress.counter) shows rows while a slice runs; the
                # slice's own height is the exact count once it is done.
                progress.rows = offset + part.height
                pending = pool.submit(writer.prepare(part, offset))
                offset += rows
                if slice_bytes is not None:
                    rows = next_slice_rows(part, slice_rows, slice_bytes)
                    groups = ends() if offset < total else ()  # no import for one slice
                    rows = snap_to_row_groups(offset, rows, groups, slice_rows)
                del part  # held by the writer until written, and no longer
            if pending is not None:
                pending.result()
        except BaseException:
            # A failed or interrupted run: its file is a temporary that is thrown away, so the
            # writer is abandoned, never to write its footer (pyarrow's writer would write it
            # when collected, into the file closed by then, and print an error).
            writer.abandon()
            if pending is not None:
                wait([pending])
            raise
        if pending is not None:
            wait([pending])
        writer.close()
    progress.render(final=True)


class _SliceWriter:
    """Writes the slices of :func:`write_in_slices` to one open file, in order.

    A log of one slice is written by Polars. More slices go to one Parquet file through
    pyarrow's appending writer, imported only then: its import is a third of the CPU time of
    scoring a short log.
    """

    def __init__(
        self,
        out: BinaryIO,
        kind: OutputFormat,
        *,
        one_slice: bool,
        metadata: Mapping[str, str] | None,
    ) -> None:
        self.out = out
        self.kind = kind
        self.one_slice = one_slice
        self.metadata = dict(metadata or {})
        self.parquet: pq.ParquetWriter | None = None
        self.schema: pa.Schema | None = None  # the file's Arrow schema (large types)
        # Per column, whether it is handed to the writer as Arrow views (None: no column is).
        self.views: list[bool] | None = None

    def prepare(self, part: pl.DataFrame, offset: int) -> Callable[[], None]:
        """Make one slice ready to write (``offset``: its first row's index in the log).

        Every call into Polars happens here, on the thread that runs the queries: the returned
        function, which the writer thread runs while the next slice is scored, only writes
        bytes or Arrow tables. On Polars 1.30 a frame exported to Arrow on one thread while
        another starts a query can leave both waiting for ever.
        """
        if self.kind != "parquet":
            text = part.write_csv(include_header=offset == 0).encode()

            def write_text() -> None:
                self.out.write(text)

            return write_text
        if self.one_slice:
            part.write_parquet(self.out, compression="zstd", metadata=self.metadata or None)
            return lambda: None
        import pyarrow.parquet as pq

        if self.parquet is None:
            # The file's Arrow schema: Polars' text as Arrow's large (64-bit offset) types, as
            # Polars' own writer declares it.
            schema = part.head(0).to_arrow().schema
            if self.metadata:
                schema = schema.with_metadata({**(schema.metadata or {}), **self.metadata})
            self.schema = schema
            if _writes_views():
                self.views = _view_columns(part, schema)
            self.parquet = pq.ParquetWriter(
                self.out,
                schema if self.views is None else _arrow_views(part.head(0), self.views).schema,
                compression="zstd",
                use_dictionary=_dictionary_columns(part, schema),
                dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES,
                # With views, the schema (with the metadata) is stored by close(), as the writer
                # would have stored the large types' schema.
                store_schema=self.views is None,
            )
        table = part.to_arrow() if self.views is None else _arrow_views(part, self.views)
        return functools.partial(self.parquet.write_table, table)

    def abandon(self) -> None:
        """Leave the file unfinished: the Parquet writer writes nothing more, footer included.

        One attribute is set, so that an interrupt cannot leave it half done.
        """
        if self.parquet is not None:
            self.parquet.is_open = False

    def close(self) -> None:
        """Write the Parquet footer of a file written in several slices."""
        if self.parquet is not None:
            if self.views is not None and self.schema is not None:
                self.parquet.add_key_value_metadata(_stored_metadata(self.schema))
            self.parquet.close()


def _writes_views() -> bool:
    """Whether pyarrow's Parquet writer takes Arrow's string and binary views (pyarrow 21+).

    Polars holds text as views; handing them over as they are spares converting every slice's
    text to Arrow's large strings (a copy of it, about a tenth of the CPU of reading, slicing
    and writing a log of short answers). The Parquet bytes written are the same.
    """
    import pyarrow as pa

    return int(pa.__version__.split(".")[0]) >= 21


def _large_type(dtype: pa.DataType) -> pa.DataType | None:
    """Return ``dtype`` with Arrow's views as the large types, or None if it is not handled.

    Lists, large lists and fixed-size lists are followed. Structs and dictionaries are not:
    their columns go through Polars' own conversion (pyarrow 26's writer cannot write a struct
    that holds views).
    """
    import pyarrow as pa

    if pa.types.is_string_view(dtype):
        return pa.large_string()
    if pa.types.is_binary_view(dtype):
        return pa.large_binary()
    if pa.types.is_dictionary(dtype) or pa.types.is_struct(dtype):
        return None
    if pa.types.is_large_list(dtype) or pa.types.is_list(dtype):
        inner = _large_type(dtype.value_type)
        if inner is None:
            return None
        field = dtype.value_field.with_type(inner)
        return pa.large_list(field) if pa.types.is_large_list(dtype) else pa.list_(field)
    if pa.types.is_fixed_size_list(dtype):
        inner = _large_type(dtype.value_type)
        if inner is None:
            return None
        return pa.list_(dtype.value_field.with_type(inner), dtype.list_size)
    return None if pa.types.is_nested(dtype) else dtype


def _view_columns(part: pl.DataFrame, schema: pa.Schema) -> list[bool]:
    """Return, per column, whether its views stand for the large types of ``schema``."""
    from polars import CompatLevel

    views = part.head(0).to_arrow(compat_level=CompatLevel.newest()).schema
    return [_large_type(view.type) == field.type for view, field in zip(views, schema, strict=True)]


def _arrow_views(part: pl.DataFrame, views: list[bool]) -> pa.Table:
    """Return ``part`` as an Arrow table, its text as Polars holds it (views), without a copy.

    ``views`` (:func:`_view_columns`) says which columns are handed over as views; the others
    are converted as :meth:`polars.DataFrame.to_arrow` does.
    """
    import pyarrow as pa
    from polars import CompatLevel

    if all(views):
        return part.to_arrow(compat_level=CompatLevel.newest())
    viewed = part.select(c for c, keep in zip(part.columns, views, strict=True) if keep)
    table = viewed.to_arrow(compat_level=CompatLevel.newest())
    converted = part.select(c for c, keep in zip(part.columns, views, strict=True) if not keep)
    rest = converted.to_arrow()
    columns = [
        table.column(name) if keep else rest.column(name)
        for name, keep in zip(part.columns, views, strict=True)
    ]
    return pa.table(columns, names=part.columns)


def _stored_metadata(schema: pa.Schema) -> dict[str, str]:
    """Return the key-value metadata pyarrow's writer would store for ``schema``.

    The schema's own metadata, and its Arrow form (IPC, in base64, its metadata included) under
    ``ARROW:schema``, so that readers give the large types. Given in this order, Arrow's
    writer stores them in the order it stores its own.
    """
    import base64

    stored = {key.decode(): value.decode() for key, value in (schema.metadata or {}).items()}
    stored["ARROW:schema"] = base64.b64encode(schema.serialize().to_pybytes()).decode()
    return stored


#: The largest dictionary page of a column written in slices (Arrow's default is 1 MiB).
DICTIONARY_PAGE_BYTES = 32 << 20
#: A text column is dictionary-encoded when at most this share of its first slice's values are
#: distinct.
DICTIONARY_MAX_DISTINCT = 0.5


def _dictionary_columns(part: pl.DataFrame, schema: pa.Schema) -> list[str]:
    """Return the Parquet leaf columns to dictionary-encode, chosen on the first slice.

    Eval logs repeat long texts: the question, the prompt and the options of each item once per
    model or epoch. Arrow's writer gives up a column's dictionary once its page reaches 1 MiB,
    about a thousand such texts, and zstd's window is too short to find the repeats instead, so
    the scored log came out up to four times the size of its input, and compressing the extra
    bytes cost more CPU than scoring some of the columns. Like Polars' own writer, this keeps a
    dictionary (with a larger page) for the text columns whose values repeat, and none for those
    whose values are mostly distinct (the model's answers), where it is only work thrown away.
    Every column that is not a top-level text column keeps Arrow's default: a dictionary.
    """
    chosen: list[str] = []
    for field in schema:
        dtype = part.schema[field.name]
        if dtype in (pl.String, pl.Binary) and part.height:
            distinct: int = part.select(pl.col(field.name).approx_n_unique()).item()
            if distinct > DICTIONARY_MAX_DISTINCT * part.height:
                continue
        # The leaf columns' paths as Parquet names them ("options.list.element"): the writer
        # takes leaves, and a nested field has one per primitive value it holds.
        chosen.extend(_leaf_paths(field))
    return chosen


def _leaf_paths(field: pa.Field) -> list[str]:
    """Return the Parquet paths of ``field``'s leaf columns, as the writer names them."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    if not pa.types.is_nested(field.type):
        return [field.name]
    # An empty file of this one field. Not pq.write_table nor Schema.empty_table: either imports
    # pandas, a third of a second.
    buffer = io.BytesIO()
    pq.ParquetWriter(buffer, pa.schema([field])).close()
    buffer.seek(0)
    parquet_schema = pq.read_metadata(buffer).schema
    return [parquet_schema.column(i).path for i in range(len(parquet_schema))]


def nested_columns(schema: pl.Schema) -> list[str]:
    """Return the columns a CSV file cannot hold (lists, structs, arrays)."""
    return [name for name, dtype in schema.items() if dtype.is_nested()]
