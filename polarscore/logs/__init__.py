"""Reading the eval logs frameworks write, as one canonical table.

:func:`scan_log` and :func:`read_log` read inspect-ai, lm-evaluation-harness, HELM, promptfoo,
OpenAI evals and lighteval logs, recognised by their content (:data:`LOG_FORMATS`), into the
columns of :data:`LOG_SCHEMA` plus the framework's own verdicts as ``framework_<scorer>`` columns,
ready for :func:`polarscore.score_frame` (``response`` against ``references``).
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from os import PathLike
from pathlib import Path

import polars as pl

from polarscore._validation import check_budget
from polarscore.exceptions import InputFileError
from polarscore.logs._detect import LOG_FORMATS, detect, formats_listing
from polarscore.logs._table import FRAMEWORK_PREFIX, LOG_SCHEMA, log_schema, too_deep
from polarscore.logs._zip import MAX_ENTRY_BYTES

LogSource = str | PathLike[str] | Sequence[str | PathLike[str]]


def detect_log_format(path: str | PathLike[str]) -> str | None:
    """Return the format of the eval log at ``path``, or None when it is not one.

    Parameters
    ----------
    path
        A file, or a HELM run folder.

    Returns
    -------
    str or None
        A key of :data:`LOG_FORMATS` (the ``source_format`` the reader writes), from the file's
        content, whatever its suffix.

    Examples
    --------
    >>> import polarscore as ps
    >>> ps.detect_log_format("tests/data/logs/inspect/log_formats.eval")
    'inspect_eval'
    >>> ps.detect_log_format("tests/data/parity_cases.parquet") is None
    True
    """
    return detect(Path(path))


def scan_one(
    path: Path,
    *,
    promptfoo_reference: str | Sequence[str] | None = None,
    max_entry_bytes: int | None = MAX_ENTRY_BYTES,
) -> pl.LazyFrame:
    """Scan one log (a file, or a HELM run folder) whose format is recognised.

    Raises
    ------
    InputFileError
        When the format is not recognised (the message lists those that are) or the log is
        corrupt.
    """
    kind = detect(path)
    if kind is None:
        raise InputFileError(
            f"Cannot tell the format of {str(path)!r}: it is not an eval log polarscore "
            f"recognises ({formats_listing()})."
        )
    limit = check_budget(max_entry_bytes, function="scan_log", parameter="max_entry_bytes")
    try:
        return _scan(path, kind, promptfoo_reference, limit or 1 << 62)
    except RecursionError:  # a value nested too deep for Python, met while a reader walks it
        raise too_deep(f"The log {str(path)!r}") from None


def _scan(
    path: Path, kind: str, promptfoo_reference: str | Sequence[str] | None, max_entry_bytes: int
) -> pl.LazyFrame:
    """Scan the log with its format's reader, and add its task kind (:mod:`._task_kind`)."""
    from polarscore.logs._task_kind import with_task_kind

    reader: object = None
    if kind == "inspect_eval":
        from polarscore.logs import _inspect

        reader = _inspect.EvalArchive(path, max_entry_bytes=max_entry_bytes)
        frame = reader.scan()
    elif kind == "inspect_json":
        from polarscore.logs import _inspect

        reader = _inspect.JsonLog(path)
        frame = reader.scan()
    elif kind == "lm_eval":
        from polarscore.logs import _lm_eval

        with open(path, "rb") as handle:
            first = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        reader = _lm_eval.SamplesLog(path, array=first == b"[")
        frame = reader.scan()
    else:
        frame = _scan_reader(path, kind, promptfoo_reference)
    return with_task_kind(frame, path, kind, reader)


def _scan_reader(
    path: Path, kind: str, promptfoo_reference: str | Sequence[str] | None
) -> pl.LazyFrame:
    from polarscore.logs import _helm, _lighteval, _openai_evals, _promptfoo

    if kind == "helm":
        folder = path if path.is_dir() else path.parent
        return _helm.read_run(folder).lazy()
    if kind == "promptfoo":
        with open(path, "rb") as handle:
            head = handle.read(65_536)
        if _is_jsonl_promptfoo(head):
            return _promptfoo.JsonlExport(path, promptfoo_reference).scan()
        return _promptfoo.read_json_export(path, promptfoo_reference).lazy()
    if kind == "openai_evals":
        return _openai_evals.EventsLog(path).scan()
    if kind == "lighteval":
        import pyarrow.parquet as pq

        layout = _lighteval.layout(set(pq.read_schema(path).names))
        return _lighteval.DetailsFile(path, layout or "details").scan()
    raise InputFileError(f"No reader for the log format {kind!r}.")  # pragma: no cover


def _is_jsonl_promptfoo(head: bytes) -> bool:
    """Tell a promptfoo ``.jsonl`` export (its first line is a result) from ``results.json``."""
    from polarscore.logs._detect import _first_object_keys

    keys = set(_first_object_keys(head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")))
    return "testCase" in keys


def log_files(source: LogSource) -> list[Path]:
    """Expand paths, globs and folders into the logs they hold (files and HELM run folders).

    A folder is searched recursively for recognised logs; other files in it are left out. A file
    named explicitly must be a log.

    Raises
    ------
    InputFileError
        When a path does not exist, a glob or folder holds no log, or a named file is not one.
    """
    items = [source] if isinstance(source, str | PathLike) else list(source)
    found: list[Path] = []
    for item in items:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            logs = folder_logs(path)
            if not logs:
                raise InputFileError(
                    f"The folder {text!r} holds no eval log polarscore recognises "
                    f"({formats_listing()})."
                )
            found.extend(logs)
        elif path.exists():
            found.append(path)
        elif any(c in text for c in "*?["):
            matches = sorted(Path(p) for p in glob.glob(text, recursive=True))
            if not matches:
                raise InputFileError(f"The pattern {text!r} matches no file.")
            found.extend(matches)
        else:
            raise InputFileError(f"The log {text!r} does not exist.")
    return found


def folder_logs(folder: Path) -> list[Path]:
    """Return the logs in a folder: itself for a HELM run, else those found recursively."""
    if detect(folder) == "helm":
        return [folder]
    logs: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            logs.extend(folder_logs(path))
        elif path.is_file() and path.name != "scenario_state.json" and detect(path) is not None:
            logs.append(path)
    return logs


def scan_log(
    source: LogSource,
    *,
    promptfoo_reference: str | Sequence[str] | None = None,
    max_entry_bytes: int | None = MAX_ENTRY_BYTES,
) -> pl.LazyFrame:
    """Scan eval logs lazily into the canonical table of :data:`LOG_SCHEMA`.

    The format of each log is told from its content (:data:`LOG_FORMATS`). inspect-ai ``.eval``
    archives are read entry by entry in batches, JSON Lines logs line by line in batches and
    Parquet details files by row groups, as Polars pulls rows, so a big log is never held whole
    in memory; a log written as one JSON document (inspect-ai ``.json``, promptfoo
    ``results.json``, HELM's files) is parsed when scanned.

    Parameters
    ----------
    source
        A log file, a HELM run folder, a folder of logs (searched recursively), a glob, or a list
        of them. Several logs are concatenated; a verdict column one lacks is null on its rows.
    promptfoo_reference
        Where a promptfoo export's references come from: ``"var:NAME"`` (a test variable) or
        ``"assert:TYPE"`` (the values of the test's assertions of that type), or a list of them
        tried in order. Default: the first of ``var:expected``, ``assert:equals``,
        ``assert:similar``, ``assert:levenshtein``, ``assert:rouge-n``, ``assert:bleu`` and
        ``assert:factuality`` that the test has.
    max_entry_bytes
        The most bytes one entry of an ``.eval`` archive may inflate to (default 256 MiB); an
        entry declaring more is refused, naming the entry and this option. None: no limit.
        Entries whose data overlap, a name listed twice and an entry inflating to more than its
        declared size are refused whatever the limit (see docs/guarantees.md).

    Returns
    -------
    pl.LazyFrame
        The columns of :data:`LOG_SCHEMA` (``source_format``, ``task``, ``model``, ``sample_id``,
        ``epoch``, ``input``, ``response``, ``references``, ``choices``), then ``task_kind``
        (``String``: how the framework graded the log, read from its metadata, null when it
        records nothing polarscore reads a kind from; see :func:`polarscore.correct`), then the
        framework's own verdicts as ``Float64`` columns ``framework_<scorer>``: inspect-ai's grades
        ``C``/``P``/``I``/``N`` as 1 / 0.5 / 0 / 0, booleans as 1 / 0, NaN as null.

    Raises
    ------
    InputFileError
        A path does not exist, a file is not a log polarscore recognises (the message lists the
        formats), or a log is corrupt: a truncated zip archive, an entry that does not
        decompress, a sample that is not JSON, a field the reader reads that nests too deep
        for Python's JSON reader or is not UTF-8 (a field it does not read is skipped, however
        deep), an entry over ``max_entry_bytes``. The message names the file. (An entry of an
        ``.eval`` archive is only read when the frame is collected: a corrupt one fails the
        query, with the same message.)

    See Also
    --------
    read_log : the same, collected.

    Examples
    --------
    >>> import polarscore as ps
    >>> log = ps.scan_log("tests/data/logs/inspect/log_streaming.eval")
    >>> log.select("sample_id", "epoch", "response", "references", "framework_match").sort(
    ...     "sample_id", "epoch"
    ... ).collect()
    shape: (4, 5)
    ┌───────────┬───────┬──────────┬────────────┬─────────────────┐
    │ sample_id ┆ epoch ┆ response ┆ references ┆ framework_match │
    │ ---       ┆ ---   ┆ ---      ┆ ---        ┆ ---             │
    │ str       ┆ i64   ┆ str      ┆ list[str]  ┆ f64             │
    ╞═══════════╪═══════╪══════════╪════════════╪═════════════════╡
    │ 1         ┆ 1     ┆ No       ┆ [" Yes"]   ┆ 0.0             │
    │ 1         ┆ 2     ┆ Yes.     ┆ [" Yes"]   ┆ 1.0             │
    │ 2         ┆ 1     ┆ No.      ┆ [" No"]    ┆ 1.0             │
    │ 2         ┆ 2     ┆ No       ┆ [" No"]    ┆ 1.0             │
    └───────────┴───────┴──────────┴────────────┴─────────────────┘
    """
    paths = log_files(source)
    frames = [
        scan_one(p, promptfoo_reference=promptfoo_reference, max_entry_bytes=max_entry_bytes)
        for p in paths
    ]
    if len(frames) == 1:
        return frames[0]
    return pl.concat(frames, how="diagonal")


def read_log(
    source: LogSource,
    *,
    promptfoo_reference: str | Sequence[str] | None = None,
    max_entry_bytes: int | None = MAX_ENTRY_BYTES,
) -> pl.DataFrame:
    """Read eval logs into the canonical table; :func:`scan_log`, collected.

    Parameters
    ----------
    source, promptfoo_reference, max_entry_bytes
        As for :func:`scan_log`.

    Returns
    -------
    pl.DataFrame
        As for :func:`scan_log`.

    Raises
    ------
    InputFileError
        As for :func:`scan_log`, corrupt ``.eval`` entries included.

    Examples
    --------
    >>> import polarscore as ps
    >>> log = ps.read_log("tests/data/logs/helm/narrative_qa-model=openai_gpt2")
    >>> log.select("model", "references").head(2)
    shape: (2, 2)
    ┌─────────────┬─────────────────────────────────┐
    │ model       ┆ references                      │
    │ ---         ┆ ---                             │
    │ str         ┆ list[str]                       │
    ╞═════════════╪═════════════════════════════════╡
    │ openai/gpt2 ┆ ["The school Mascot", "the sch… │
    │ openai/gpt2 ┆ ["She is his neice.", "His nie… │
    └─────────────┴─────────────────────────────────┘
    >>> scored = ps.score_frame(log, references="references", scorers="answer_correctness")
    >>> scored.height
    5
    """
    from polarscore.logs._errors import collect_log

    return collect_log(
        scan_log(source, promptfoo_reference=promptfoo_reference, max_entry_bytes=max_entry_bytes)
    )


__all__ = [
    "FRAMEWORK_PREFIX",
    "LOG_FORMATS",
    "LOG_SCHEMA",
    "detect_log_format",
    "log_schema",
    "read_log",
    "scan_log",
]
