"""lighteval and Open LLM Leaderboard details: Parquet, in each of their column layouts.

lighteval writes ``{output_dir}/details/{model}/{time}/details_{task}_{time}.parquet`` beside
``{output_dir}/results/{model}/results_{time}.json``. Its columns changed over the releases:

* ``details`` (up to 0.9, and the Open LLM Leaderboard v1 details): one column per field of its
  ``Detail`` record: ``example`` (the question), ``full_prompt``, ``predictions``, ``gold``,
  ``choices``, ``gold_index``, ``metrics``, ...; some writers stored every value as its Python
  ``str()``, which this reader unpacks;
* ``doc`` (0.10 and later): three struct columns, ``doc`` (``query``, ``choices``,
  ``gold_index``, ``task_name``, ``id``...), ``model_response`` (``text``, ``logprobs``...) and
  ``metric``;
* the Open LLM Leaderboard v2 details are lm-evaluation-harness samples as Parquet (``doc_id``,
  ``arguments``, ``filtered_resps``, ...), read as :mod:`polarscore.logs._lm_eval` reads them.

A generated answer is the first prediction (``predictions[0]``, ``model_response.text[0]``); for a
multiple-choice task scored by loglikelihood it is the choice with the highest one. The references
are the gold answers: ``gold``, else ``choices`` at ``gold_index``. The file is read in batches.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from polarscore.exceptions import InputFileError
from polarscore.logs import _lm_eval
from polarscore.logs._source import BATCH_ROWS, lazy_batches
from polarscore.logs._table import (
    Rows,
    as_text,
    best_choice,
    log_schema,
    read_json_file,
    text_list,
    verdict,
)

FORMAT = "lighteval"

_DETAILS = re.compile(r"^details_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[\d\-:.]+)\.parquet$")
_RECORD_COLUMNS = {"predictions", "metrics"}
_STRUCT_COLUMNS = {"doc", "model_response", "metric"}
_LM_EVAL_COLUMNS = {"doc_id", "arguments"}


def layout(columns: set[str]) -> str | None:
    """Return the details layout of a Parquet file's columns, or None when it is none of them."""
    if columns >= _STRUCT_COLUMNS:
        return "doc"
    if columns >= _RECORD_COLUMNS and ({"example", "full_prompt"} & columns):
        return "details"
    if columns >= _LM_EVAL_COLUMNS and ({"resps", "filtered_resps"} & columns):
        return "lm_eval"
    return None


def _unpack(value: Any) -> Any:
    """Read back a list or dict that some writers stored as its Python ``str()``."""
    if isinstance(value, str) and value[:1] in "[{(" and value[-1:] in "]})":
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
    return value


def _as_list(value: Any) -> list[Any]:
    value = _unpack(value)
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _score(value: Any) -> float | None:
    """Return a loglikelihood: a number, or the first item of ``[logprob, is_greedy]``."""
    value = _unpack(value)
    if isinstance(value, list | tuple) and value:
        value = value[0]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _pick(choices: list[str], scores: list[Any]) -> str | None:
    return best_choice(choices, [_score(s) for s in scores])


def _golds(choices: list[str], gold_index: Any) -> list[str] | None:
    picked = []
    for index in _as_list(gold_index):
        if isinstance(index, int) and 0 <= index < len(choices):
            picked.append(choices[index])
    return picked or None


def _metrics(value: Any) -> dict[str, float | None]:
    value = _unpack(value)
    if not isinstance(value, Mapping):
        return {}
    return {str(k): verdict(v) for k, v in value.items()}


def _details_row(record: Mapping[str, Any]) -> dict[str, Any]:
    choices = [as_text(c) or "" for c in _as_list(record.get("choices"))]
    predictions = _as_list(record.get("predictions"))
    response = predictions[0] if predictions and isinstance(predictions[0], str) else None
    multiple_choice = response is None and bool(choices)
    if multiple_choice:
        # A continuation scored by loglikelihood, without the space that joins it to the prompt.
        choices = [c.strip() for c in choices]
        response = _pick(choices, predictions)
    golds = text_list(_as_list(record.get("gold"))) or None
    if multiple_choice or not golds:
        golds = _golds(choices, record.get("gold_index")) or golds
    question = record.get("example")
    return {
        "task": None,
        "sample_id": None,
        "input": as_text(question if question not in (None, "") else record.get("full_prompt")),
        "response": response,
        "references": golds,
        "choices": choices if multiple_choice else None,
        "verdicts": _metrics(record.get("metrics")),
    }


def _doc_row(record: Mapping[str, Any]) -> dict[str, Any]:
    doc = _unpack(record.get("doc")) or {}
    answer = _unpack(record.get("model_response")) or {}
    doc = doc if isinstance(doc, Mapping) else {}
    answer = answer if isinstance(answer, Mapping) else {}
    choices = [as_text(c) or "" for c in _as_list(doc.get("choices"))]
    texts = [t for t in _as_list(answer.get("text")) if isinstance(t, str)]
    response = texts[0] if texts else None
    multiple_choice = response is None and bool(choices)
    if multiple_choice:
        choices = [c.strip() for c in choices]
        response = _pick(choices, _as_list(answer.get("logprobs")))
    return {
        "task": as_text(doc.get("task_name")),
        "sample_id": as_text(doc.get("id")) or None,
        "input": as_text(doc.get("query")),
        "response": response,
        "references": _golds(choices, doc.get("gold_index")),
        "choices": choices if multiple_choice else None,
        "verdicts": _metrics(record.get("metric")),
    }


def _lm_eval_row(record: Mapping[str, Any]) -> dict[str, Any]:
    record = {k: _unpack(v) if k != "target" else v for k, v in record.items()}
    prompt, response, references, choices = _lm_eval._row(record)
    names = _lm_eval._metric_names(record)
    return {
        "task": None,
        "sample_id": as_text(record.get("doc_id")),
        "input": prompt,
        "response": response,
        "references": references,
        "choices": choices,
        "verdicts": {n: verdict(record.get(n)) for n in names},
    }


_ROWS = {"details": _details_row, "doc": _doc_row, "lm_eval": _lm_eval_row}


def _model(path: Path) -> str | None:
    """Return the model: the results file's ``config_general.model_name``, else its folder."""
    parts = path.resolve().parts
    if "details" not in parts[:-2]:
        return None
    top = len(parts) - 1 - parts[::-1].index("details", 2)
    model_parts = parts[top + 1 : -2]
    if not model_parts:
        return None
    results_dir = Path(*parts[:top], "results", *model_parts)
    time = path.parent.name
    candidates = [results_dir / f"results_{time}.json"]
    candidates += sorted(results_dir.glob("results_*.json")) if results_dir.is_dir() else []
    for candidate in candidates:
        if candidate.is_file():
            data = read_json_file(
                candidate,
                what=f"The lighteval results {str(candidate)!r}",
                fields={"config_general": {"model_name": None}},
            )
            general = data.get("config_general") if isinstance(data, Mapping) else None
            if isinstance(general, Mapping) and isinstance(general.get("model_name"), str):
                return str(general["model_name"])
            break
    return "/".join(model_parts)


class DetailsFile:
    """One details Parquet file."""

    def __init__(self, path: Path, kind: str) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.kind = kind
        try:
            self.file = pq.ParquetFile(path)
        except Exception as error:
            raise InputFileError(f"Cannot read {str(path)!r} as Parquet: {error}.") from None
        match = _DETAILS.match(path.name)
        self.task = match.group("task") if match else path.stem
        if kind == "lm_eval":
            lm_match = _lm_eval._SAMPLES.match(path.with_suffix(".jsonl").name)
            self.task = lm_match.group("task") if lm_match else path.stem
        self.model = _model(path)
        self.verdicts = self._find_verdicts()

    def _records(self, columns: list[str] | None = None) -> Iterator[Mapping[str, Any]]:
        try:
            for batch in self.file.iter_batches(batch_size=BATCH_ROWS, columns=columns):
                yield from batch.to_pylist()
        except Exception as error:
            raise InputFileError(f"Cannot read {str(self.path)!r} as Parquet: {error}.") from None

    def _find_verdicts(self) -> list[str]:
        """Return the metric names: the metrics struct's fields, else those of the rows."""
        import pyarrow as pa

        schema = self.file.schema_arrow
        column = {"details": "metrics", "doc": "metric"}.get(self.kind)
        if column is not None:
            field = schema.field(column)
            if pa.types.is_struct(field.type):
                return [field.type.field(i).name for i in range(field.type.num_fields)]
            names: dict[str, None] = {}
            for record in self._records([column]):
                names.update(dict.fromkeys(_metrics(record.get(column))))
            return list(names)
        names = {}
        for record in self._records(["metrics"] if "metrics" in schema.names else None):
            names.update(dict.fromkeys(_lm_eval._metric_names(record)))
            break
        return list(names)

    def batches(self, size: int = BATCH_ROWS) -> Iterator[pl.DataFrame]:
        """Yield the rows as canonical frames of at most ``size`` rows."""
        make = _ROWS[self.kind]
        rows = Rows(FORMAT if self.kind != "lm_eval" else _lm_eval.FORMAT, self.verdicts)
        yielded = False
        for index, record in enumerate(self._records()):
            row = make(record)
            rows.add(
                task=row["task"] or self.task,
                model=self.model,
                sample_id=row["sample_id"] if row["sample_id"] is not None else index,
                epoch=1,
                input=row["input"],
                response=row["response"],
                references=row["references"],
                choices=row["choices"],
                verdicts=row["verdicts"],
            )
            if len(rows) >= size:
                yield rows.frame()
                yielded = True
                rows = Rows(rows.source_format, self.verdicts)
        if len(rows) or not yielded:
            yield rows.frame()

    def scan(self) -> pl.LazyFrame:
        """Return the file lazily, read in batches of row groups."""
        return lazy_batches(self.batches, log_schema(self.verdicts))

    def rows(self) -> int:
        """Return the row count, from the Parquet footer."""
        return int(self.file.metadata.num_rows)
