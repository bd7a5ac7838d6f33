"""The canonical table every log reader returns, and the helpers the readers share.

Each reader turns its framework's records into rows of :data:`LOG_SCHEMA` plus one ``Float64``
column per verdict the framework recorded (``framework_<scorer>``). Rows are gathered column by
column in a :class:`Rows` and turned into a ``DataFrame`` in one step.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import polars as pl

from polarscore.exceptions import InputFileError

_COLUMNS: dict[str, pl.DataType] = {
    "source_format": pl.String(),
    "task": pl.String(),
    "model": pl.String(),
    "sample_id": pl.String(),
    "epoch": pl.Int64(),
    "input": pl.String(),
    "response": pl.String(),
    "references": pl.List(pl.String),
    "choices": pl.List(pl.String),
}
#: The columns every log reader returns, in this order, then the ``framework_*`` verdicts.
LOG_SCHEMA = pl.Schema(_COLUMNS)

#: The prefix of the columns holding the framework's own verdicts (``Float64``).
FRAMEWORK_PREFIX = "framework_"

#: inspect-ai's letter grades (``CORRECT``, ``PARTIAL``, ``INCORRECT``, ``NOANSWER``).
_GRADES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def framework_column(name: str) -> str:
    """Return the column holding the framework's verdict ``name``."""
    return FRAMEWORK_PREFIX + name


def verdict(value: Any) -> float | None:
    """Return a framework's verdict as a number, or None when it is not one.

    inspect-ai's grades ``C``/``P``/``I``/``N`` are 1 / 0.5 / 0 / 0, booleans 1 / 0, ``yes`` /
    ``true`` and ``no`` / ``false`` 1 / 0 (as inspect-ai's ``value_to_float``), numbers and
    numeric strings themselves; NaN, infinities, null, lists, objects and other text are null.

    Examples
    --------
    >>> from polarscore.logs._table import verdict
    >>> [verdict(v) for v in ["C", "P", "I", "N", True, 0, 0.25, "0.5", float("nan"), "maybe"]]
    [1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.25, 0.5, None, None]
    """
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond a float's range
            return None
        return number if math.isfinite(number) else None
    if isinstance(value, str):
        if value in _GRADES:
            return _GRADES[value]
        text = value.strip().lower()
        if text in _WORDS:
            return _WORDS[text]
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def as_text(value: Any) -> str | None:
    """Return a scalar as text (numbers as written by JSON), None for null."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def text_list(value: Any) -> list[str] | None:
    """Return a reference given as text or a list of text as a list (None stays None)."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [t for t in (as_text(v) for v in value) if t is not None]
    text = as_text(value)
    return None if text is None else [text]


def content_text(content: Any) -> str | None:
    """Return the text of a chat message's content: a string, or the text parts joined.

    A list of content parts gives its ``text`` parts (``{"type": "text", "text": ...}``) joined
    by a newline, as inspect-ai's ``ChatMessage.text``; other parts (images, reasoning) are left
    out.
    """
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type", "text") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return as_text(content)


def messages_text(messages: Any) -> str | None:
    """Return a prompt given as text or as chat messages, as text.

    Chat messages are joined as ``role: text``, one message per paragraph.
    """
    if messages is None or isinstance(messages, str):
        return messages
    if isinstance(messages, list):
        lines = []
        for message in messages:
            if isinstance(message, Mapping):
                text = content_text(message.get("content"))
                role = message.get("role")
                lines.append(f"{role}: {text or ''}" if role else text or "")
            else:
                lines.append(as_text(message) or "")
        return "\n\n".join(lines)
    return as_text(messages)


def best_choice(choices: Sequence[str], scores: Sequence[float | None]) -> str | None:
    """Return the choice with the highest loglikelihood (the first on a tie), or None.

    None when the scores do not pair with the choices or one is missing.
    """
    numbers = [s for s in scores if s is not None]
    if not choices or len(numbers) != len(choices):
        return None
    return choices[max(range(len(numbers)), key=numbers.__getitem__)]


class JsonTooDeepError(InputFileError):
    """A JSON document nested deeper than Python's JSON reader can parse."""


def too_deep(what: str) -> JsonTooDeepError:
    """Return the error for a document or value nested too deep, naming ``what``."""
    return JsonTooDeepError(
        f"{what} nests arrays or objects deeper than polarscore reads (about "
        f"{sys.getrecursionlimit()} levels); refused."
    )


#: The fields of a JSON document a reader reads: each key mapped to the fields it reads in the
#: key's value (a dict), or to None when it reads the value whole; an array's items are read
#: by the array's dict. :func:`load_json` reads a document Python's ``json`` cannot parse whole
#: (nested too deep, not UTF-8) by these fields alone.
Fields: TypeAlias = dict[str, "Fields | None"]


def load_json(data: bytes | str, *, what: str, fields: Fields | None = None) -> Any:
    """Parse one JSON document (bare ``NaN``/``Infinity`` allowed, as Python writes them).

    When the document nests deeper than Python's JSON reader goes, or holds bytes that are not
    UTF-8, and ``fields`` says which fields the reader reads, the document is parsed again
    with every other field pruned to null (numbers, booleans and nulls kept) by a native scan
    that does not recurse (``prune_json``): what is not read cannot fail the document. An
    ordinary document is parsed once, by Python alone.

    Raises
    ------
    InputFileError
        Naming ``what`` (the file, and the entry or line) when the text is not JSON, is not
        UTF-8, or nests deeper than Python's JSON reader can go (:class:`JsonTooDeepError`),
        where the reader reads it.

    Examples
    --------
    >>> from polarscore.logs._table import load_json
    >>> deep = "[" * 100_000 + "]" * 100_000
    >>> load_json('{"id": 1, "meta": ' + deep + "}", what="x", fields={"id": None})
    {'id': 1, 'meta': None}
    """
    try:
        try:
            return _parse(data)
        except (RecursionError, UnicodeDecodeError):
            if fields is None:
                raise
            from polarscore._internal import prune_json

            text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
            pruned = prune_json(text, fields)
            if pruned is None:
                raise
        return _parse(pruned)
    except (ValueError, UnicodeDecodeError) as error:
        raise InputFileError(f"{what} is not valid JSON ({error}).") from None
    except RecursionError:
        raise too_deep(what) from None


def _parse(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        # An integer of thousands of digits (Python refuses to convert them, as a guard
        # against quadratic work): kept as its digits, the text it would be written as.
        return json.loads(data, parse_int=_integer)


def _integer(digits: str) -> int | str:
    return int(digits) if len(digits) < 4_000 else digits


def json_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Yield each non-blank line of a JSON Lines file with its number (from 1), unparsed.

    Raises
    ------
    InputFileError
        Naming the file when it cannot be opened.
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise InputFileError(f"Cannot read {str(path)!r}: {error.strerror or error}.") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line


def read_json_file(path: Path, *, what: str | None = None, fields: Fields | None = None) -> Any:
    """Read a whole JSON file (:func:`load_json`, by ``fields``); errors name the file."""
    label = what or f"The log {str(path)!r}"
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputFileError(f"Cannot read {str(path)!r}: {error.strerror or error}.") from None
    return load_json(data, what=label, fields=fields)


class _TextLists:
    """A ``List(String)`` column built from flat values and offsets.

    Polars builds a list column from Python lists of lists one element at a time, 20 times
    slower.
    """

    def __init__(self) -> None:
        self.values: list[str] = []
        self.offsets: list[int] = [0]
        self.valid: list[bool] = []

    def append(self, items: list[str] | None) -> None:
        if items is None:
            self.valid.append(False)
        else:
            self.valid.append(True)
            self.values.extend(items)
        self.offsets.append(len(self.values))

    def series(self, name: str) -> pl.Series:
        import pyarrow as pa

        values = pa.array(self.values, type=pa.string_view())  # Polars 1.30 panics on large_string
        offsets = pa.array(self.offsets, type=pa.int64())
        mask = None if all(self.valid) else pa.array([not v for v in self.valid])
        array = pa.LargeListArray.from_arrays(offsets, values, mask=mask)
        return pl.Series(name, pl.from_arrow(array), dtype=pl.List(pl.String))


class Rows:
    """Rows of the canonical table, gathered column by column.

    ``verdicts`` names the ``framework_*`` columns (without the prefix), in order; a verdict
    outside them is left out (a reader knows its columns up front, for lazy scans).
    """

    def __init__(self, source_format: str, verdicts: Sequence[str] = ()) -> None:
        self.source_format = source_format
        self.task: list[str | None] = []
        self.model: list[str | None] = []
        self.sample_id: list[str | None] = []
        self.epoch: list[int] = []
        self.input: list[str | None] = []
        self.response: list[str | None] = []
        self.references = _TextLists()
        self.choices = _TextLists()
        self.verdicts = list(dict.fromkeys(verdicts))
        self.scores: dict[str, list[float | None]] = {v: [] for v in self.verdicts}

    def __len__(self) -> int:
        return len(self.sample_id)

    def add(
        self,
        *,
        task: str | None,
        model: str | None,
        sample_id: Any,
        epoch: int | None,
        input: str | None,
        response: str | None,
        references: list[str] | None,
        choices: list[str] | None,
        verdicts: Mapping[str, float | None] | None = None,
    ) -> None:
        """Append one row; ``verdicts`` maps names in :attr:`verdicts` to numbers."""
        self.task.append(task)
        self.model.append(model)
        self.sample_id.append(sample_id if type(sample_id) is str else as_text(sample_id))
        self.epoch.append(1 if epoch is None else epoch)
        self.input.append(input)
        self.response.append(response)
        for lists, items in ((self.references, references), (self.choices, choices)):
            if items is None:
                lists.valid.append(False)
            else:
                lists.valid.append(True)
                lists.values.extend(items)
            lists.offsets.append(len(lists.values))
        if verdicts:
            for name, values in self.scores.items():
                values.append(verdicts.get(name))
        else:
            for values in self.scores.values():
                values.append(None)

    def frame(self) -> pl.DataFrame:
        """Return the rows as a frame of :func:`log_schema` for this reader's verdicts."""
        n = len(self)
        columns = [
            pl.Series("source_format", [self.source_format] * n, dtype=pl.String),
            pl.Series("task", self.task, dtype=pl.String),
            pl.Series("model", self.model, dtype=pl.String),
            pl.Series("sample_id", self.sample_id, dtype=pl.String),
            pl.Series("epoch", self.epoch, dtype=pl.Int64),
            pl.Series("input", self.input, dtype=pl.String),
            pl.Series("response", self.response, dtype=pl.String),
            self.references.series("references"),
            self.choices.series("choices"),
        ]
        columns += [
            pl.Series(framework_column(v), values, dtype=pl.Float64)
            for v, values in self.scores.items()
        ]
        return pl.DataFrame(columns)


def log_schema(verdicts: Iterable[str] = ()) -> pl.Schema:
    """Return :data:`LOG_SCHEMA` followed by one ``Float64`` column per framework verdict."""
    schema: dict[str, pl.DataType] = dict(LOG_SCHEMA)
    schema.update({framework_column(v): pl.Float64() for v in verdicts})
    return pl.Schema(schema)


def empty_log(verdicts: Iterable[str] = ()) -> pl.DataFrame:
    """Return an empty canonical frame."""
    return pl.DataFrame(schema=log_schema(verdicts))
