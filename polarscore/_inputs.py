"""Reading eval logs lazily: paths, globs and folders of tables and of framework logs.

The command line and :func:`polarscore.reporting.write_report` read their inputs here. An input
is either a table (Parquet, JSON Lines or CSV, told by its suffix) or a log an eval framework
wrote (inspect-ai, lm-evaluation-harness, HELM, promptfoo, OpenAI evals, lighteval: told by its
content, :mod:`polarscore.logs`), read as the canonical log table. Inputs are *scanned* (never
read whole) into one frame whose columns are the union of theirs; an input that cannot be read as
its kind fails early, named in the message.
"""

from __future__ import annotations

import contextlib
import functools
import glob
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from polarscore._compat import scan_parquet_files
from polarscore._typing import InputFormat
from polarscore.exceptions import ColumnNotFoundError, InputFileError

_INPUT_SUFFIXES: dict[str, InputFormat] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "ndjson",
    ".ndjson": "ndjson",
    ".csv": "csv",
}


def _glob_chars(text: str) -> bool:
    return any(c in text for c in "*?[")


def _folder_inputs(folder: Path) -> list[Path]:
    """Return the inputs in a folder, recursively: framework logs and Parquet tables.

    A HELM run folder is one input; other files are left out.
    """
    if log_format(folder) is not None:
        return [folder]
    found: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            found.extend(_folder_inputs(path))
        elif (
            path.is_file()
            and path.name != "scenario_state.json"
            and (log_format(path) is not None or path.suffix.lower() in (".parquet", ".pq"))
        ):
            found.append(path)
    return found


def resolve_inputs(inputs: Sequence[str | Path]) -> list[Path]:
    """Expand paths, globs and directories into a sorted list of inputs.

    A directory contributes its framework logs and Parquet files, recursively; a HELM run
    folder is itself one input.

    Raises
    ------
    InputFileError
        When a path does not exist, a glob or directory matches no input, or a file is neither
        a framework log nor has a suffix ``.parquet``/``.pq``, ``.jsonl``/``.ndjson`` or ``.csv``.
    """
    files: list[Path] = []
    for item in inputs:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            found = _folder_inputs(path)
            if not found:
                raise InputFileError(
                    f"The input directory {text!r} holds no Parquet files and no eval log "
                    "polarscore recognises."
                )
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
        if log_format(file) is None:
            input_format(file)
    return files


def input_format(path: Path) -> InputFormat:
    """Return the format of an input table, from its suffix."""
    try:
        return _INPUT_SUFFIXES[path.suffix.lower()]
    except KeyError:
        from polarscore.logs._detect import formats_listing

        raise InputFileError(
            f"Cannot tell the format of {str(path)!r}: it is not an eval log polarscore "
            f"recognises ({formats_listing()}), and a table's suffix must be one of "
            f"{', '.join(_INPUT_SUFFIXES)}."
        ) from None


def log_format(path: Path) -> str | None:
    """Return the framework log format of an input (from its content), or None for a table."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _log_format(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _log_format(path: str, mtime: int, size: int) -> str | None:
    from polarscore.logs._detect import detect

    return detect(Path(path))


@functools.lru_cache(maxsize=64)
def _scan_log(
    path: str, mtime: int, reference: tuple[str, ...] | None, max_entry_bytes: int | None
) -> pl.LazyFrame:
    from polarscore.logs import scan_one

    limits = {} if max_entry_bytes is None else {"max_entry_bytes": max_entry_bytes or None}
    return scan_one(
        Path(path), promptfoo_reference=list(reference) if reference else None, **limits
    )


def scan_log_input(
    path: Path,
    promptfoo_reference: Sequence[str] | str | None = None,
    max_entry_bytes: int | None = None,
) -> pl.LazyFrame:
    """Scan one framework log input (cached: its schema and its rows come from one scan).

    ``max_entry_bytes``: the readers' limit on an archive entry (None: theirs; 0: no limit).
    """
    reference = (
        None
        if promptfoo_reference is None
        else (promptfoo_reference,)
        if isinstance(promptfoo_reference, str)
        else tuple(promptfoo_reference)
    )
    return _scan_log(str(path), path.stat().st_mtime_ns, reference, max_entry_bytes)


def is_parquet_table(path: Path) -> bool:
    """Whether an input is a Parquet table (not a framework log), which may carry provenance."""
    return log_format(path) is None and input_format(path) == "parquet"


def first_line(error: BaseException) -> str:
    """Return the first line of an error message (Polars errors carry a long context)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_schema(
    file: Path,
    *,
    promptfoo_reference: Sequence[str] | str | None = None,
    max_entry_bytes: int | None = None,
) -> pl.Schema:
    """Return the schema of one input file, reading only its footer or first rows.

    Raises
    ------
    InputFileError
        When the file cannot be read as its kind, naming the file.
    """
    if log_format(file) is not None:
        return scan_log_input(file, promptfoo_reference, max_entry_bytes).collect_schema()
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
    files: Sequence[Path],
    schemas: Mapping[Path, pl.Schema] | None = None,
    *,
    promptfoo_reference: Sequence[str] | str | None = None,
    max_entry_bytes: int | None = None,
) -> pl.LazyFrame:
    """Scan ``files`` lazily into one frame whose columns are the union of theirs, by name.

    A column absent from a file is null on that file's rows. ``schemas`` (from
    :func:`read_schema`, one per file) is read here when not given; reading it fails early, naming
    the file, when one is corrupt. Framework logs are read as :func:`polarscore.scan_log` reads
    them (``promptfoo_reference`` and ``max_entry_bytes`` are its options).
    """
    if schemas is None:
        schemas = {
            file: read_schema(
                file, promptfoo_reference=promptfoo_reference, max_entry_bytes=max_entry_bytes
            )
            for file in files
        }
    union = union_schema(schemas)
    parts: list[pl.LazyFrame] = []
    logs = {f for f in files if log_format(f) is not None}
    parquet = [f for f in files if f not in logs and input_format(f) == "parquet"]
    if parquet:
        parts.append(
            scan_parquet_files(parquet, schemas, union_schema({f: schemas[f] for f in parquet}))
        )
    for file in files:
        if file in logs:
            parts.append(scan_log_input(file, promptfoo_reference, max_entry_bytes))
            continue
        kind = input_format(file)
        if kind == "ndjson":
            parts.append(pl.scan_ndjson(file, schema=schemas[file]))
        elif kind == "csv":
            parts.append(pl.scan_csv(file, schema=schemas[file]))
    if len(parts) == 1:
        return parts[0]
    frame = pl.concat(parts, how="diagonal")
    return frame.select(union.names())


def open_inputs(
    inputs: Sequence[str | Path],
    *,
    promptfoo_reference: Sequence[str] | str | None = None,
    max_entry_bytes: int | None = None,
) -> tuple[list[Path], pl.LazyFrame, pl.Schema]:
    """Resolve ``inputs`` (:func:`resolve_inputs`) and scan them into one frame.

    Returns the files, the frame (:func:`scan_inputs`, each file's schema read first so that a
    corrupt one fails early, naming it) and its schema. ``promptfoo_reference`` and
    ``max_entry_bytes`` (None: the readers' limit; 0: no limit) are the log readers' options.
    """
    files = resolve_inputs(inputs)
    frame = scan_inputs(
        files, promptfoo_reference=promptfoo_reference, max_entry_bytes=max_entry_bytes
    )
    return files, frame, frame.collect_schema()


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
    rows: dict[Path, int | None] = {}
    for file in files:
        rows[file] = None
        # A framework log's rows are counted as they are read (an .eval archive's slices would
        # each re-read it from the start).
        if log_format(file) is None and input_format(file) == "parquet":
            with contextlib.suppress(Exception):
                stat = file.stat()
                rows[file] = _parquet_rows(str(file), stat.st_mtime_ns, stat.st_size)
    return rows


@functools.lru_cache(maxsize=256)
def _parquet_rows(path: str, mtime: int, size: int) -> int:
    """Return a Parquet file's row count (cached per version of the file: the CLI asks twice).

    Polars answers from the footer alone, and (unlike pyarrow.parquet) costs no import: a short
    log does not pay 0.2 s for its row count.
    """
    return int(pl.scan_parquet(path).select(pl.len()).collect().item())


def row_group_ends(files: Sequence[Path]) -> list[int] | None:
    """Return the row offsets where the Parquet row groups of ``files`` end, read in turn.

    Read from the footers alone (with pyarrow, which slicing imports to write anyway). None
    when a file's row groups cannot be told: they only help :func:`write_in_slices
    <polarscore.cli._output.write_in_slices>` cut slices where a group ends.
    """
    import pyarrow as pa

    ends: list[int] = []
    at = 0
    for file in files:
        try:
            stat = file.stat()
            groups = _parquet_row_groups(str(file), stat.st_mtime_ns, stat.st_size)
        except (OSError, ValueError, pa.ArrowException):
            return None
        for rows in groups:
            at += rows
            ends.append(at)
    return ends


@functools.lru_cache(maxsize=256)
def _parquet_row_groups(path: str, mtime: int, size: int) -> tuple[int, ...]:
    """Return the row counts of a Parquet file's row groups (cached per version of the file)."""
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    return tuple(meta.row_group(i).num_rows for i in range(meta.num_row_groups))


def count_rows(files: Sequence[Path]) -> int | None:
    """Return the total number of rows when it is cheap to know (Parquet metadata), else None."""
    counts = file_rows(files)
    if not counts or any(n is None for n in counts.values()):
        return None
    return sum(n for n in counts.values() if n is not None)
