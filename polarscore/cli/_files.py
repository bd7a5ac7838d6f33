"""Reading eval logs lazily and writing results atomically, for the command line.

Inputs are Parquet, JSON Lines or CSV files, given as paths, globs, or directories of Parquet
files; they are *scanned* (never read whole), and Parquet logs are scored slice by slice so that
memory does not grow with their size (:func:`write_in_slices`). Outputs go to a temporary file in
the target's folder (nameless on Linux, so that even SIGKILL leaves nothing), which replaces the
target in one rename only when the write has finished and is synced: an interrupted or failed run
never leaves a half-written file behind.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import polars as pl

from polarscore._typing import InputFormat, OutputFormat
from polarscore.cli._progress import Progress, collect_with_progress
from polarscore.exceptions import ColumnNotFoundError, InputFileError, OutputFileError

_INPUT_SUFFIXES: dict[str, InputFormat] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "ndjson",
    ".ndjson": "ndjson",
    ".csv": "csv",
}
_OUTPUT_SUFFIXES: dict[str, OutputFormat] = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}


def _glob_chars(text: str) -> bool:
    return any(c in text for c in "*?[")


def resolve_inputs(inputs: Sequence[str | Path]) -> list[Path]:
    """Expand paths, globs and directories (of Parquet files) into a sorted list of files.

    Raises
    ------
    InputFileError
        When a path does not exist, a glob or directory matches no file, or a file has a
        suffix other than ``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` or ``.csv``.
    """
    files: list[Path] = []
    for item in inputs:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in (".parquet", ".pq")
            )
            if not found:
                raise InputFileError(f"The input directory {text!r} holds no Parquet files.")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif _glob_chars(text):
            found = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
            if not found:
                raise InputFileError(f"The input pattern {text!r} matches no file.")
            files.extend(found)
        else:
            raise InputFileError(f"The input file {text!r} does not exist.")
    for file in files:
        input_format(file)
    return files


def input_format(path: Path) -> InputFormat:
    """Return the format of an input file, from its suffix."""
    try:
        return _INPUT_SUFFIXES[path.suffix.lower()]
    except KeyError:
        raise InputFileError(
            f"Cannot tell the format of {str(path)!r}: the suffix must be one of "
            f"{', '.join(_INPUT_SUFFIXES)}."
        ) from None


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


def first_line(error: BaseException) -> str:
    """Return the first line of an error message (Polars errors carry a long context)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_schema(file: Path) -> pl.Schema:
    """Return the schema of one input file, reading only its footer or first rows.

    Raises
    ------
    InputFileError
        When the file cannot be read as its kind, naming the file.
    """
    kind = input_format(file)
    try:
        if kind == "parquet":
            return pl.Schema(pl.read_parquet_schema(file))
        if kind == "ndjson":
            return pl.scan_ndjson(file).collect_schema()
        return pl.scan_csv(file).collect_schema()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise InputFileError(
            f"Cannot read {str(file)!r}: it is not a valid file of its kind ({first_line(error)})."
        ) from error


def union_schema(schemas: Mapping[Path, pl.Schema]) -> pl.Schema:
    """Return the columns of all ``schemas`` by name, in order of first appearance.

    A column that is all-null (``Null``) in some files takes its type from the others.

    Raises
    ------
    InputFileError
        When two files give one column different types, naming the column and both files.
    """
    union: dict[str, pl.DataType] = {}
    origin: dict[str, Path] = {}
    for file, schema in schemas.items():
        for name, dtype in schema.items():
            known = union.get(name)
            if known is None or known == pl.Null:
                union[name] = dtype
                origin[name] = file
            elif dtype != known and dtype != pl.Null:
                raise InputFileError(
                    f"The column {name!r} is {known} in {str(origin[name])!r} but {dtype} in "
                    f"{str(file)!r}; the input files must agree on each column's type."
                )
    return pl.Schema(union)


def scan_inputs(
    files: Sequence[Path], schemas: Mapping[Path, pl.Schema] | None = None
) -> pl.LazyFrame:
    """Scan ``files`` lazily into one frame whose columns are the union of theirs, by name.

    A column absent from a file is null on that file's rows. ``schemas`` (from
    :func:`read_schema`, one per file) is read here when not given; reading it fails early, naming
    the file, when one is corrupt.
    """
    if schemas is None:
        schemas = {file: read_schema(file) for file in files}
    union = union_schema(schemas)
    parts: list[pl.LazyFrame] = []
    parquet = [f for f in files if input_format(f) == "parquet"]
    if parquet:
        parts.append(
            pl.scan_parquet(
                parquet,
                schema=union_schema({f: schemas[f] for f in parquet}),
                missing_columns="insert",
            )
        )
    for file in files:
        kind = input_format(file)
        if kind == "ndjson":
            parts.append(pl.scan_ndjson(file, schema=schemas[file]))
        elif kind == "csv":
            parts.append(pl.scan_csv(file, schema=schemas[file]))
    if len(parts) == 1:
        return parts[0]
    frame = pl.concat(parts, how="diagonal")
    return frame.select(union.names())


def check_columns_in_every_file(
    schemas: Mapping[Path, pl.Schema], columns: Mapping[str, str]
) -> None:
    """Fail when an input file lacks a column that the scoring needs.

    ``columns`` maps each needed column to its role in the message (for example ``--response``).
    Columns missing from *every* file are left to the caller (its message lists the columns).

    Raises
    ------
    polarscore.exceptions.ColumnNotFoundError
        Naming the first file that lacks a needed column that others have.
    """
    if len(schemas) < 2:
        return
    for name, role in columns.items():
        lacking = [file for file, schema in schemas.items() if name not in schema]
        if lacking and len(lacking) < len(schemas):
            others = "" if len(lacking) == 1 else f" (and {len(lacking) - 1} other file(s))"
            raise ColumnNotFoundError(
                f"The input file {str(lacking[0])!r}{others} has no column {name!r} ({role}), "
                "which the other files have and the scorers need."
            )


def file_rows(files: Sequence[Path]) -> dict[Path, int | None]:
    """Return each file's row count where its metadata gives it for free (Parquet), else None."""
    import pyarrow.parquet as pq

    rows: dict[Path, int | None] = {}
    for file in files:
        rows[file] = None
        if input_format(file) == "parquet":
            with contextlib.suppress(Exception):
                rows[file] = int(pq.ParquetFile(file).metadata.num_rows)
    return rows


def count_rows(files: Sequence[Path]) -> int | None:
    """Return the total number of rows when it is cheap to know (Parquet metadata), else None."""
    counts = file_rows(files)
    if not counts or any(n is None for n in counts.values()):
        return None
    return sum(n for n in counts.values() if n is not None)


def check_target(target: Path, *, overwrite: bool, inputs: Sequence[Path] = ()) -> None:
    """Fail early when ``target`` cannot or must not be written.

    That is when it is a directory, exists (without ``overwrite``), is one of the ``inputs``
    (even with ``overwrite``: a scored log never replaces the log it was read from), or its
    folder is missing, not a folder, or not writable.
    """
    if target.is_dir():
        raise OutputFileError(f"The output {str(target)!r} is a directory.")
    if target.exists():
        for source in inputs:
            if _same_file(target, source):
                raise OutputFileError(
                    f"The output {str(target)!r} is also an input ({str(source)!r}).\n"
                    "Hint: write the scored log to another path."
                )
        if not overwrite:
            raise OutputFileError(
                f"The output file {str(target)!r} already exists.\n"
                "Hint: pass --overwrite to replace it."
            )
    folder = target.parent
    if not folder.exists():
        raise OutputFileError(f"The output folder {str(folder)!r} does not exist.")
    if not folder.is_dir():
        raise OutputFileError(f"The output folder {str(folder)!r} is not a folder.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"The output folder {str(folder)!r} is not writable.")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


#: ``O_TMPFILE`` (Linux): a file with no name until it is linked in, so that nothing at all is
#: left behind by a run killed with SIGKILL or the OOM killer. Other systems and file systems
#: without it use a hidden named temporary file, removed on any exception but not on SIGKILL.
_O_TMPFILE: int | None = getattr(os, "O_TMPFILE", None)
_PROC_FD = Path("/proc/self/fd")


def _unnamed_file(folder: Path) -> int | None:
    """Open a nameless file in ``folder``; ``None`` where the system cannot."""
    if _O_TMPFILE is None or not _PROC_FD.is_dir():
        return None
    try:
        return os.open(folder, _O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666)
    except PermissionError:
        raise
    except OSError:  # EOPNOTSUPP, EISDIR, EINVAL: the file system or kernel lacks O_TMPFILE
        return None


def leaves_nothing_when_killed(folder: Path) -> bool:
    """Whether a write into ``folder`` leaves no trace if the process is killed outright."""
    handle = _unnamed_file(folder)
    if handle is None:
        return False
    os.close(handle)
    return True


#: The errors of a write that ran out of room: a full disk, a full quota, or the file-size limit
#: (``ulimit -f``). Reading never fails this way, so they always mean the output.
_NO_ROOM = frozenset(
    code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None), errno.EFBIG) if code
)
#: How Polars' writers end the message of an operating-system error (they set no ``errno``).
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def out_of_room(target: Path, error: BaseException) -> OutputFileError | None:
    """Return the one-line error naming ``target`` when ``error`` is a write out of room, else None.

    ``error`` is an ``OSError`` from Python's own writes (or the sync and rename), or a Polars
    error whose message carries the operating-system error as ``(os error N)``.
    """
    code = error.errno if isinstance(error, OSError) else None
    if code is None:
        found = _OS_ERROR.search(str(error))
        code = int(found.group(1)) if found else None
    if code is None or code not in _NO_ROOM:
        return None
    return OutputFileError(
        f"Cannot write the output {str(target)!r}: {os.strerror(code)} "
        "(the disk, the quota or the file-size limit is full); any previous output is unchanged."
    )


def _write_failure(folder: Path, error: OSError) -> OutputFileError:
    reason = error.strerror or type(error).__name__
    return OutputFileError(f"Cannot write in the output folder {str(folder)!r}: {reason}.")


@contextlib.contextmanager
def atomic_target(target: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``target`` in one rename.

    The temporary file is nameless where the system allows (``O_TMPFILE``; the path yielded is
    its ``/proc/self/fd`` entry) and is given a name beside ``target`` only once complete and
    synced, for the instant before the rename. Elsewhere it is a hidden ``.tmp`` file beside
    ``target``. On any exception (including ``KeyboardInterrupt``) it is removed and ``target``
    is left untouched.
    """
    folder = target.parent
    try:
        handle = _unnamed_file(folder)
    except OSError as error:
        raise _write_failure(folder, error) from error
    if handle is not None:
        unnamed = handle
        try:
            yield _PROC_FD / str(unnamed)
            os.fsync(unnamed)
            _publish(lambda name: _link_descriptor(unnamed, name), target)
        finally:
            os.close(unnamed)
        return
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise _write_failure(folder, error) from error
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        # mkstemp makes the file private (0600); give the result the usual permissions.
        os.chmod(temporary, 0o666 & ~_umask())
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def _link_descriptor(handle: int, name: Path) -> None:
    proc = os.open(_PROC_FD, os.O_RDONLY)
    try:
        os.link(str(handle), name, src_dir_fd=proc, follow_symlinks=True)
    finally:
        os.close(proc)


def _publish(link: Callable[[Path], None], target: Path) -> None:
    """Give the finished file a fresh hidden name beside ``target``, then rename it over."""
    for attempt in range(100):
        name = target.with_name(f".{target.name}.{os.getpid()}.{attempt}.tmp")
        try:
            link(name)
        except FileExistsError:
            continue
        try:
            os.replace(name, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                name.unlink()
            raise
        return
    raise OutputFileError(f"Cannot find a free temporary name beside {str(target)!r}.")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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


def write_in_slices(
    frame: pl.LazyFrame,
    path: Path,
    kind: OutputFormat,
    *,
    total: int,
    progress: Progress,
    slice_rows: int = SLICE_ROWS,
    interval: float = 0.2,
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Score and write ``frame`` (``total`` rows) to ``path``, ``slice_rows`` rows at a time.

    ``frame`` should pass one column through :meth:`Progress.counter`, so that the progress
    line moves while a slice runs. Each slice is its own streaming query, and its result is
    appended to one Parquet (or CSV) file before the next starts, so at most one slice is in
    memory at any time. One query over
    the whole log would be simpler, but Polars' Parquet source decodes row groups ahead of a
    slower consumer without bound (pola-rs/polars#28569), and scoring is much slower than
    decoding: the peak memory then grows with the log (1.4 GiB at 1M rows, 2.2 GiB at 3M, with
    ``answer_correctness`` and ``answer_match``; 1.4 GiB at both with slices). Slicing needs the
    row count up front, which Parquet metadata gives for free; Parquet's slice pushdown reads only
    the row groups a slice needs. Each slice runs as :func:`collect_with_progress`: Ctrl-C and
    SIGTERM are handled promptly, and the running query is cancelled and waited for.
    ``metadata`` goes into a Parquet file's key-value metadata (CSV has none).
    """
    import pyarrow.parquet as pq

    writer: pq.ParquetWriter | None = None
    with open(path, "wb") as out:
        try:
            for offset in range(0, total, slice_rows):
                query = frame.slice(offset, slice_rows)
                part = collect_with_progress(query, progress, interval=interval)
                if kind == "parquet":
                    table = part.to_arrow()
                    if writer is None:
                        schema = table.schema
                        if metadata:
                            schema = schema.with_metadata(
                                {**(schema.metadata or {}), **dict(metadata)}
                            )
                        writer = pq.ParquetWriter(out, schema, compression="zstd")
                    writer.write_table(table)
                else:
                    part.write_csv(out, include_header=offset == 0)
                # The query's counter (Progress.counter) shows rows while a slice runs; the
                # slice's own height is the exact count once it is done.
                progress.rows = offset + part.height
        finally:  # on failure too: the file is then a temporary that is thrown away
            if writer is not None:
                writer.close()
    progress.render(final=True)


def nested_columns(schema: pl.Schema) -> list[str]:
    """Return the columns a CSV file cannot hold (lists, structs, arrays)."""
    return [name for name, dtype in schema.items() if dtype.is_nested()]
