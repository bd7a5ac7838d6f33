"""OpenAI evals logs: the JSON Lines ``oaieval`` records (``/tmp/evallogs/<run>.jsonl``).

The first line is ``{"spec": {...}}`` (``completion_fns``, ``eval_name``, ``run_id``...), then one
line per event: ``run_id``, ``event_id``, ``sample_id``, ``type`` and ``data``, and last
``{"final_report": {...}}``. A ``sampling`` event holds the ``prompt`` (text or chat messages) and
what was ``sampled``; a ``match`` event holds ``correct``, ``expected`` (one answer or a list) and
``picked``; a ``metrics`` event holds named numbers; ``pick_option`` holds the ``options`` of a
multiple-choice question. Events are joined on ``sample_id``: one row per sample, in the order
their last event appears, read in batches.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from polarscore.logs._source import BATCH_ROWS, lazy_batches
from polarscore.logs._table import (
    Fields,
    Rows,
    as_text,
    json_lines,
    load_json,
    log_schema,
    messages_text,
    text_list,
    verdict,
)

FORMAT = "openai_evals"


#: The fields of a line the readers read (the rest is pruned from a line Python's JSON reader
#: cannot parse whole: :func:`polarscore.logs._table.load_json`).
RECORD_FIELDS: Fields = dict.fromkeys(("spec", "run_id", "event_id", "sample_id", "type", "data"))


def is_event(record: Any) -> bool:
    """Whether a JSON value is a line of an OpenAI evals log."""
    if not isinstance(record, Mapping):
        return False
    if isinstance(record.get("spec"), Mapping):
        spec = record["spec"]
        return "eval_name" in spec or "completion_fns" in spec or "run_id" in spec
    return {"run_id", "event_id", "sample_id", "type", "data"} <= record.keys()


class _Sample:
    __slots__ = ("choices", "correct", "expected", "metrics", "prompt", "sampled")

    def __init__(self) -> None:
        self.prompt: Any = None
        self.sampled: Any = None
        self.expected: Any = None
        self.correct: Any = None
        self.choices: Any = None
        self.metrics: dict[str, Any] = {}

    def update(self, kind: Any, data: Mapping[str, Any]) -> None:
        """Take in one event of the sample."""
        if kind == "sampling":
            self.prompt = data.get("prompt")
            self.sampled = data.get("sampled")
        elif kind == "pick_option":
            self.choices = data.get("options")
            if self.prompt is None:
                self.prompt = data.get("prompt")
        elif kind == "metrics":
            self.metrics.update(data)
        elif kind == "match":
            self.correct = data.get("correct")
            self.expected = data.get("expected")
            if self.sampled is None:
                self.sampled = data.get("sampled", data.get("picked"))


class EventsLog:
    """One OpenAI evals log."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.spec: Mapping[str, Any] = {}
        names: dict[str, None] = {}
        # One pass for the run spec and the verdict columns: the ``correct`` of match events and
        # the names of metrics events (only those lines are parsed).
        for number, line in self._lines():
            if number == 1 or b'"spec"' in line[:16]:
                record = load_json(
                    line, what=f"Line {number} of {str(path)!r}", fields=RECORD_FIELDS
                )
                if isinstance(record, Mapping) and isinstance(record.get("spec"), Mapping):
                    self.spec = record["spec"]
                    continue
            if b'"match"' in line or b'"metrics"' in line:
                record = load_json(
                    line, what=f"Line {number} of {str(path)!r}", fields=RECORD_FIELDS
                )
                kind = record.get("type") if isinstance(record, Mapping) else None
                data = record.get("data") if isinstance(record, Mapping) else None
                if kind == "match" and isinstance(data, Mapping) and "correct" in data:
                    names["correct"] = None
                elif kind == "metrics" and isinstance(data, Mapping):
                    names.update(
                        dict.fromkeys(k for k, v in data.items() if verdict(v) is not None)
                    )
        self.verdicts = list(names)
        fns = self.spec.get("completion_fns")
        self.model = ",".join(str(f) for f in fns) if isinstance(fns, list) and fns else None
        self.task = as_text(self.spec.get("eval_name") or self.spec.get("base_eval"))

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        yield from json_lines(self.path)

    def batches(self, size: int = BATCH_ROWS) -> Iterator[pl.DataFrame]:
        """Yield one row per sample, joined from its events, in batches of ``size`` rows.

        A sample's row is complete at its ``match`` event (or at the end of the log), so only
        samples still waiting for theirs are held in memory.
        """
        pending: dict[str, _Sample] = {}
        rows = Rows(FORMAT, self.verdicts)
        yielded = False
        for number, line in self._lines():
            what = f"Line {number} of {str(self.path)!r}"
            record = load_json(line, what=what, fields=RECORD_FIELDS)
            if not isinstance(record, Mapping) or "sample_id" not in record:
                continue  # the spec and the final report
            sample_id = as_text(record.get("sample_id"))
            if sample_id is None:
                continue
            data = record.get("data")
            kind = record.get("type")
            pending.setdefault(sample_id, _Sample()).update(
                kind, data if isinstance(data, Mapping) else {}
            )
            if kind == "match":
                self._add(rows, sample_id, pending.pop(sample_id))
                if len(rows) >= size:
                    yield rows.frame()
                    yielded = True
                    rows = Rows(FORMAT, self.verdicts)
        for sample_id, sample in pending.items():
            self._add(rows, sample_id, sample)
        if len(rows) or not yielded:
            yield rows.frame()

    def _add(self, rows: Rows, sample_id: str, sample: _Sample) -> None:
        sampled = sample.sampled
        while isinstance(sampled, list) and sampled:
            sampled = sampled[0]
        verdicts = {k: verdict(v) for k, v in sample.metrics.items()}
        if sample.correct is not None:
            verdicts["correct"] = verdict(sample.correct)
        rows.add(
            task=self.task,
            model=self.model,
            sample_id=sample_id,
            epoch=1,
            input=messages_text(sample.prompt),
            response=as_text(sampled) if not isinstance(sampled, list) else None,
            references=text_list(sample.expected),
            choices=text_list(sample.choices),
            verdicts=verdicts,
        )

    def scan(self) -> pl.LazyFrame:
        """Return the log lazily, read in batches."""
        return lazy_batches(self.batches, log_schema(self.verdicts))
