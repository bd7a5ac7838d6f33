"""inspect-ai logs: ``.eval`` archives and ``.json`` documents.

An ``.eval`` log is a zip archive: ``header.json`` (the run: ``eval.task``, ``eval.model``, the
results), one entry per sample and epoch (``samples/<id>_epoch_<n>.json``, or for a large sample
the ``samples/<id>_epoch_<n>/`` folder with a ``sample.json`` shell), and ``summaries.json`` (each
sample's scores). Entries are deflate or zstd compressed (:mod:`polarscore.logs._zip`). A ``.json``
log is one document holding the header's fields and a ``samples`` list.

The sample entries of an ``.eval`` archive are read natively (``src/evallog/``, on every core):
the same fields, by the same rules as :func:`add_sample` and :func:`_parse_sample` here, which
read any entry the native reader leaves (see :meth:`EvalArchive._read_batch`) and are the
reference the native reader is tested against (``tests/test_logs_native.py``).

A sample's answer is ``output.completion`` when it is not empty, else the text of
``output.choices[0].message`` (its content a string or a list of parts), as inspect-ai's own
``ModelOutput``; a sample without any choice has no response (null). ``target`` is a string or a
list; ``scores.<scorer>.value`` is a grade (``C``/``P``/``I``/``N``), a number, a boolean, a dict
(one verdict per key: ``framework_<scorer>_<key>``), or NaN. Logs written since mid 2025 may hold
bare ``NaN``/``Infinity`` tokens, which Python's JSON reader accepts.
"""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from polarscore._internal import read_eval_samples
from polarscore.exceptions import InputFileError
from polarscore.logs._source import BATCH_ROWS, lazy_batches
from polarscore.logs._table import (
    Fields,
    JsonTooDeepError,
    Rows,
    content_text,
    load_json,
    log_schema,
    messages_text,
    read_json_file,
    text_list,
    verdict,
)
from polarscore.logs._zip import MAX_ENTRY_BYTES, ZipLog

EVAL_FORMAT = "inspect_eval"
JSON_FORMAT = "inspect_json"

_ATTACHMENT = "attachment://"
#: inspect-ai's grades, the commonest score values (:func:`polarscore.logs._table.verdict`).
_GRADES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_ATTACHMENT_BYTES = b'"attachment://'
_DECODE = json.JSONDecoder().decode
_MONOLITH = re.compile(r"^samples/[^/]+_epoch_\d+\.json$")
_SHELL = re.compile(r"^(samples/[^/]+_epoch_\d+)/sample\.json$")
# In a compact sample entry, every field polarscore reads comes before ``events``, by far its
# largest part: the text up to it is parsed alone (see ``_parse_sample``).
_EVENTS = b',"events":['
_MESSAGES = b',"messages":['
_OUTPUT = b',"output":{'
_CHOICES = b',"choices":['
_COMPLETION = b'],"completion":"'
_QUOTE = ord('"')

#: The fields of a sample :func:`add_sample` reads (the rest is pruned from a sample Python's
#: JSON reader cannot parse whole: :func:`polarscore.logs._table.load_json`).
SAMPLE_FIELDS: Fields = {
    "id": None,
    "epoch": None,
    "input": None,
    "target": None,
    "choices": None,
    "output": {"completion": None, "choices": {"message": {"content": None}}},
    "scores": None,
    "attachments": None,
}
#: The fields of a log's header the readers read (the run, its results: its scorers).
HEADER_FIELDS: Fields = {"eval": None, "results": None}
#: The fields of an inspect-ai ``.json`` log the reader reads.
JSON_LOG_FIELDS: Fields = {**HEADER_FIELDS, "samples": SAMPLE_FIELDS}
_SUMMARY_FIELDS: Fields = {"scores": None}


def _verdicts(scores: Any) -> dict[str, float | None]:
    """Return a sample's verdicts by column name (without the ``framework_`` prefix)."""
    out: dict[str, float | None] = {}
    if type(scores) is not dict:
        return out
    for name, score in scores.items():
        value = score.get("value") if type(score) is dict else score
        if type(value) is dict:
            for key, item in value.items():
                out[f"{name}_{key}"] = verdict(item)
        elif type(value) is str and value in _GRADES:
            out[name] = _GRADES[value]
        elif type(value) is not list:
            out[name] = verdict(value)
    return out


def _resolver(attachments: Any) -> Callable[[Any], Any]:
    """Return a function replacing ``attachment://<key>`` text by its content."""
    if not isinstance(attachments, Mapping) or not attachments:
        return lambda value: value

    def resolve(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(_ATTACHMENT):
            return attachments.get(value[len(_ATTACHMENT) :], value)
        if isinstance(value, list):
            return [resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        return value

    return resolve


def _response(output: Any) -> str | None:
    if type(output) is not dict:
        return None
    completion = output.get("completion")
    if type(completion) is str and completion:
        return completion
    choices = output.get("choices")
    if type(choices) is list and choices:
        first = choices[0]
        message = first.get("message") if type(first) is dict else None
        if type(message) is dict:
            return content_text(message.get("content")) or ""
        return ""
    return None


def add_sample(rows: Rows, sample: dict[str, Any], *, task: str | None, model: str | None) -> None:
    """Append one inspect-ai sample (a parsed ``EvalSample``) to ``rows``."""
    if sample.get("attachments") and _needs_attachments(sample):
        resolve = _resolver(sample["attachments"])
        sample = {k: resolve(sample.get(k)) for k in ("input", "target", "output")} | {
            k: sample.get(k) for k in ("id", "epoch", "choices", "scores")
        }
    prompt = sample.get("input")
    target = sample.get("target")
    choices = sample.get("choices")
    rows.add(
        task=task,
        model=model,
        sample_id=sample.get("id"),
        epoch=sample.get("epoch"),
        input=prompt if type(prompt) is str else messages_text(prompt),
        response=_response(sample.get("output")),
        references=[target] if type(target) is str else text_list(target),
        choices=None if choices is None else text_list(choices),
        verdicts=_verdicts(sample.get("scores")),
    )


def _needs_attachments(sample: dict[str, Any]) -> bool:
    """Whether a field polarscore reads refers to an attachment."""
    text = repr((sample.get("input"), sample.get("target"), sample.get("output")))
    return _ATTACHMENT in text


def _parse_sample(data: bytes, what: str) -> Any:
    """Parse a sample entry, reading only the fields before ``events`` when it can.

    A compact entry (as inspect-ai writes them) lists ``id``, ``epoch``, ``input``, ``choices``,
    ``target``, ``messages``, ``output``, ``scores``, ``metadata`` and ``store`` before
    ``events``, by far its largest part. Cut at the first ``,"events":[`` and closed with ``}``,
    the text is valid JSON only when the cut is at the top level (a cut inside a nested value
    leaves it unbalanced), so a failed or incomplete parse falls back to the whole entry, and so
    does a sample that refers to an attachment (``attachments`` comes after ``events``).

    Examples
    --------
    >>> from polarscore.logs._inspect import _parse_sample
    >>> entry = (
    ...     b'{"id":1,"epoch":1,"input":"Q","target":"A","messages":[{"role":"user",'
    ...     b'"content":"Q"}],"output":{"completion":"A"},"scores":{"m":{"value":"C"}},'
    ...     b'"events":[{"event":"sample_init"}],"attachments":{}}'
    ... )
    >>> sorted(_parse_sample(entry, "entry"))  # no messages, events nor attachments
    ['epoch', 'id', 'input', 'output', 'scores', 'target']
    """
    cut = data.find(_EVENTS)
    if cut > 0 and data.find(_ATTACHMENT_BYTES, 0, cut) < 0:
        pieces = [data[:cut]]
        # ``messages`` (the whole conversation, often most of what precedes ``events``) is not
        # read either, nor ``output.choices`` when a non-empty ``output.completion`` (the first
        # choice's text) follows it (an empty one gives way to the first choice): the same rule
        # catches a cut in the wrong place.
        start = data.find(_MESSAGES, 0, cut)
        end = data.find(_OUTPUT, start, cut)
        if 0 < start < end:
            pieces = [data[:start]]
            choices = data.find(_CHOICES, end, cut)
            completion = data.find(_COMPLETION, choices, cut)
            if 0 < choices < completion and data[completion + len(_COMPLETION)] != _QUOTE:
                pieces += [data[end:choices], data[completion + 1 : cut]]
            else:
                pieces.append(data[end:cut])
        pieces.append(b"}")
        try:
            head = _DECODE(b"".join(pieces).decode())
        except (ValueError, RecursionError):
            head = None
        if type(head) is dict and "output" in head:
            return head
    return load_json(data, what=what, fields=SAMPLE_FIELDS)


def _run(header: Mapping[str, Any]) -> tuple[str | None, str | None]:
    run = header.get("eval")
    if not isinstance(run, Mapping):
        return None, None
    task, model = run.get("task"), run.get("model")
    return (
        task if isinstance(task, str) else None,
        model if isinstance(model, str) else None,
    )


def _header_verdicts(header: Mapping[str, Any]) -> list[str]:
    """Return the verdict columns the header's results list.

    A scalar scorer is listed once under its own name; a dict-valued scorer once per key (its
    columns are ``<scorer>_<key>``).
    """
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    entries = [e for e in scores if isinstance(e, dict)] if isinstance(scores, list) else []
    per_scorer: dict[Any, int] = {}
    for entry in entries:
        per_scorer[entry.get("scorer")] = per_scorer.get(entry.get("scorer"), 0) + 1
    names = []
    for entry in entries:
        name, scorer = entry.get("name"), entry.get("scorer")
        if not isinstance(name, str):
            continue
        if name == scorer or scorer is None:
            names.append(name)
        elif per_scorer[scorer] > 1:
            names.append(f"{scorer}_{name}")
    return names


class JsonLog:
    """An inspect-ai ``.json`` log (one document), parsed once.

    ``header`` holds every field but ``samples`` (the run, its results), for its task kind.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        log = read_json_file(path, what=f"The inspect-ai log {str(path)!r}", fields=JSON_LOG_FIELDS)
        if not isinstance(log, Mapping):
            raise InputFileError(f"The inspect-ai log {str(path)!r} is not a JSON object.")
        samples = log.get("samples") or []
        if not isinstance(samples, list):
            raise InputFileError(
                f"The inspect-ai log {str(path)!r} has a 'samples' that is not a list."
            )
        self.samples: list[Any] = samples
        self.header: Mapping[str, Any] = {k: v for k, v in log.items() if k != "samples"}

    def frame(self) -> pl.DataFrame:
        """Return the samples as the canonical table."""
        task, model = _run(self.header)
        samples = self.samples
        names: dict[str, None] = {} if samples else dict.fromkeys(_header_verdicts(self.header))
        for sample in samples:
            if isinstance(sample, dict):
                names.update(dict.fromkeys(_verdicts(sample.get("scores"))))
        rows = Rows(JSON_FORMAT, list(names))
        for index, sample in enumerate(samples):
            if not isinstance(sample, dict):
                raise InputFileError(
                    f"The inspect-ai log {str(self.path)!r}: sample {index} is not a JSON object."
                )
            add_sample(rows, sample, task=task, model=model)
        return rows.frame()

    def scan(self) -> pl.LazyFrame:
        """Return the log as a lazy frame (read when scanned)."""
        return self.frame().lazy()


class EvalArchive:
    """An inspect-ai ``.eval`` log: its run, its sample entries and its verdict columns."""

    def __init__(self, path: Path, *, max_entry_bytes: int = MAX_ENTRY_BYTES) -> None:
        self.path = path
        self.zip = ZipLog(path, max_entry_bytes=max_entry_bytes)
        names = self.zip.names()
        header_name = "header.json" if "header.json" in self.zip.entries else None
        if header_name is None and "_journal/start.json" in self.zip.entries:
            header_name = "_journal/start.json"  # a log still being written
        if header_name is None:
            raise InputFileError(
                f"Cannot read {str(path)!r} as an inspect-ai log: the archive has neither "
                "header.json nor _journal/start.json."
            )
        header = self._json(header_name, HEADER_FIELDS)
        if not isinstance(header, Mapping):
            raise InputFileError(f"Cannot read {str(path)!r}: its {header_name} is not an object.")
        self.header = header
        self.task, self.model = _run(header)
        self.samples: list[str] = []
        self.shells: dict[str, str] = {}
        for name in names:
            if _MONOLITH.match(name):
                self.samples.append(name)
            else:
                shell = _SHELL.match(name)
                if shell:
                    self.samples.append(name)
                    self.shells[name] = shell.group(1)
        self.verdicts = self._find_verdicts()

    def _json(self, name: str, fields: Fields | None = None) -> Any:
        what = f"The entry {name!r} of {str(self.path)!r}"
        return load_json(self.zip.read(name), what=what, fields=fields)

    def _summaries(self) -> list[Any] | None:
        if "summaries.json" in self.zip.entries:
            found = self._json("summaries.json", _SUMMARY_FIELDS)
            return found if isinstance(found, list) else None
        journal = sorted(
            (n for n in self.zip.entries if n.startswith("_journal/summaries/")),
            key=lambda n: int(re.sub(r"\D", "", n) or 0),
        )
        if not journal:
            return None
        summaries: list[Any] = []
        for name in journal:
            part = self._json(name, _SUMMARY_FIELDS)
            if isinstance(part, list):
                summaries.extend(part)
        return summaries

    def _find_verdicts(self) -> list[str]:
        """Return the verdict columns: the first sample's, then any other the header lists.

        A log still being written has no results in its header: then every sample's scores in
        the summaries written so far.
        """
        names: dict[str, None] = {}
        if self.samples:
            try:
                first = self._sample(self.samples[0], self.zip.read(self.samples[0]))
            except JsonTooDeepError:
                # Python cannot parse it; the native reader skips the fields it does not read
                # (and this entry's error is raised when it is read, if it reaches Python).
                first = {}
            names.update(dict.fromkeys(_verdicts(first.get("scores"))))
        header = _header_verdicts(self.header)
        names.update(dict.fromkeys(header))
        if not header:
            for item in self._summaries() or []:
                if isinstance(item, dict):
                    names.update(dict.fromkeys(_verdicts(item.get("scores"))))
        return list(names)

    def _sample(self, name: str, data: bytes) -> dict[str, Any]:
        sample = _parse_sample(data, f"The sample entry {name!r} of {str(self.path)!r}")
        if type(sample) is not dict:
            raise InputFileError(
                f"Cannot read {str(self.path)!r}: its sample entry {name!r} is not a JSON object."
            )
        if name in self.shells:
            return self._resolve_chunked(self.shells[name], sample)
        return sample

    def _resolve_chunked(self, prefix: str, shell: dict[str, Any]) -> dict[str, Any]:
        """Resolve ``attachment://<index>`` in a chunked sample's shell from its attachments."""
        if not _needs_attachments(shell):
            return shell
        chunks = sorted(
            (n for n in self.zip.entries if n.startswith(f"{prefix}/attachments/")),
            key=lambda n: int(re.sub(r"\D", "", n.rsplit("/", 1)[-1]) or 0),
        )
        contents: dict[str, str] = {}
        for chunk in chunks:
            start = int(re.sub(r"\D", "", chunk.rsplit("/", 1)[-1]) or 0)
            values = self._json(chunk)
            for offset, value in enumerate(values if isinstance(values, list) else []):
                if isinstance(value, str):
                    contents[str(start + offset)] = value
        return {**shell, "attachments": contents}

    def batches(self, size: int = BATCH_ROWS) -> Iterator[pl.DataFrame]:
        """Yield the samples as canonical frames of at most ``size`` rows, in archive order.

        Each batch's entries are read by the native reader (:meth:`_read_batch`), on every core,
        from the archive mapped into memory; the entries it leaves are read here. The archive is
        mapped for one batch at a time: the pages read stay counted in the process's memory
        while they are mapped.
        """
        chunks = [self.samples[i : i + size] for i in range(0, len(self.samples), size)]
        if not chunks:
            yield Rows(EVAL_FORMAT, self.verdicts).frame()
            return
        for chunk in chunks:
            with self.zip.mapped() as mapped:
                frame = self._read_batch(mapped, chunk)
            yield frame

    def _read_batch(self, mapped: mmap.mmap, names: list[str]) -> pl.DataFrame:
        """Return the rows of the sample entries ``names``, in order of offset.

        The native reader reads every entry but the chunked samples' shells; the entries it
        cannot read exactly as :func:`add_sample` would (see ``src/evallog/``), corrupt ones
        included, are read by :meth:`read_python`, which raises their errors.
        """
        infos = self.zip.sorted_infos(names)
        for info in infos:
            self.zip.check_size(info)
        native = [i for i in infos if i.filename not in self.shells]
        rows, left = read_eval_samples(
            mapped,
            self.zip.records(native),
            self.verdicts,
            EVAL_FORMAT,
            self.task,
            self.model,
        )
        frame = pl.DataFrame(rows)
        if len(native) == len(infos) and not left:
            return frame
        by_python = {native[i].filename for i in left} | self.shells.keys()
        positions = [p for p, i in enumerate(infos) if i.filename not in by_python]
        names_left = [i.filename for i in infos if i.filename in by_python]
        positions += [p for p, i in enumerate(infos) if i.filename in by_python]
        combined = pl.concat([frame, self.read_python(names_left)])
        return combined[pl.Series(positions).arg_sort()]

    def read_python(self, names: list[str]) -> pl.DataFrame:
        """Return the rows of the sample entries ``names`` read in Python, in order of offset."""
        rows = Rows(EVAL_FORMAT, self.verdicts)
        for name, data in self.zip.read_many(names):
            add_sample(rows, self._sample(name, data), task=self.task, model=self.model)
        return rows.frame()

    def scan(self) -> pl.LazyFrame:
        """Return the log as a lazy frame, its entries read in batches as Polars asks."""
        return lazy_batches(self.batches, log_schema(self.verdicts))
