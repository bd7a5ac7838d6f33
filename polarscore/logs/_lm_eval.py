"""lm-evaluation-harness ``--log_samples`` files.

Since release 0.4.3 the harness writes ``samples_<task>_<time>.jsonl`` (one JSON line per document
and filter) beside ``results_<time>.json`` (the run: ``model_name``, ``config``, ``configs``).
Up to 0.4.2 it wrote one pretty-printed JSON array per task under a ``.jsonl`` name
(``<model_args>_<task>.jsonl``) beside ``results.json``. A line holds ``doc_id``, ``doc`` (the
dataset row), ``target`` (``str()`` of the task's target since 0.4.3: a list target is its Python
repr), ``arguments`` (each request's arguments: the prompt, and for a multiple-choice task the
continuation scored), ``resps``, ``filtered_resps`` (after the task's filter, named in
``filter``), ``metrics`` (the names of the per-sample metrics) and one field per metric.

The model name is only in the sibling results file: ``model_name`` (0.4.3 and later), else the
``pretrained=``/``model=``/... argument of ``config.model_args``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polarscore.exceptions import InputFileError
from polarscore.logs._source import BATCH_ROWS, lazy_batches
from polarscore.logs._table import (
    Fields,
    Rows,
    as_text,
    best_choice,
    json_lines,
    load_json,
    log_schema,
    read_json_file,
    text_list,
    verdict,
)

FORMAT = "lm_eval"

_SAMPLES = re.compile(
    r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl?$"
)
#: The keys of a ``model_args`` string that name the model, in the harness's own order.
_MODEL_KEYS = ("peft=", "delta=", "pretrained=", "model=", "path=", "engine=")


#: The fields of a logged sample the reader reads, but its metrics (numbers, which are kept).
_SAMPLE_FIELDS: Fields = dict.fromkeys(
    ("doc_id", "arguments", "resps", "filtered_resps", "target", "filter", "metrics")
)
#: The fields of a results file the readers read (the model, the task configs).
RESULTS_FIELDS: Fields = dict.fromkeys(("model_name", "config", "configs"))


def is_sample(record: Any) -> bool:
    """Whether a JSON value is one logged lm-evaluation-harness sample."""
    return (
        isinstance(record, Mapping)
        and "doc_id" in record
        and ("filtered_resps" in record or "resps" in record)
        and "arguments" in record
    )


def _model_from_args(model_args: Any) -> str | None:
    if not isinstance(model_args, str):
        return None
    for key in _MODEL_KEYS:
        if key in model_args:
            return model_args.split(key, 1)[1].split(",", 1)[0]
    return None


def _results_model(results: Mapping[str, Any]) -> str | None:
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    config = results.get("config")
    if isinstance(config, Mapping):
        found = _model_from_args(config.get("model_args"))
        if found:
            return found
        model = config.get("model")
        if isinstance(model, str):
            return model
    return None


def _results_file(path: Path) -> Path | None:
    """Return the results file of the run that wrote ``path`` (same time, else the only one)."""
    match = _SAMPLES.match(path.name)
    if match:
        same = path.with_name(f"results_{match.group('time')}.json")
        if same.is_file():
            return same
    candidates = sorted(path.parent.glob("results*.json"))
    return candidates[0] if len(candidates) == 1 else None


def _task_name(path: Path, results: Mapping[str, Any] | None) -> str:
    match = _SAMPLES.match(path.name)
    if match:
        return match.group("task")
    configs = results.get("configs") if results else None
    if isinstance(configs, Mapping):
        # Up to 0.4.2: <model_args with / and = as __>_<task>.jsonl
        for task in sorted(configs, key=len, reverse=True):
            if path.stem == task or path.stem.endswith(f"_{task}"):
                return str(task)
    return path.stem


def _parse_target(target: Any) -> list[str] | None:
    """Return the target as a list of text, unpacking the ``str()`` of a list target."""
    if isinstance(target, str) and target.startswith("[") and target.endswith("]"):
        try:
            value = ast.literal_eval(target)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return [target]
        if isinstance(value, list | tuple):
            return text_list(list(value))
    return text_list(target)


def _first_text(value: Any) -> str | None:
    """Return the first text in a (possibly nested) list of responses."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _arguments(record: Mapping[str, Any]) -> list[list[Any]]:
    args = record.get("arguments")
    if isinstance(args, Mapping):  # 0.4.3 and later: {"gen_args_0": {"arg_0": ..., ...}}
        return [
            [v for _, v in sorted(a.items(), key=lambda kv: int(kv[0].rsplit("_", 1)[-1]))]
            if isinstance(a, Mapping)
            else [a]
            for _, a in sorted(args.items(), key=lambda kv: int(kv[0].rsplit("_", 1)[-1]))
        ]
    if isinstance(args, list):  # up to 0.4.2: [[context, continuation], ...]
        return [a if isinstance(a, list) else [a] for a in args]
    return []


def _loglikelihood(value: Any) -> float | None:
    """Return the loglikelihood of ``[logprob, is_greedy]`` (or its repr), or a bare number."""
    while isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return _loglikelihood(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _row(
    record: Mapping[str, Any],
) -> tuple[str | None, str | None, list[str] | None, list[str] | None]:
    """Return ``(input, response, references, choices)`` of one logged sample."""
    args = _arguments(record)
    prompt = as_text(args[0][0]) if args and args[0] else None
    filtered = record.get("filtered_resps")
    response = _first_text(filtered)
    if response is None:
        response = _first_text(record.get("resps"))
    references = _parse_target(record.get("target"))
    choices = None
    if response is None and len(args) > 1 and all(len(a) > 1 for a in args):
        # A multiple-choice task: one loglikelihood request per choice; the answer is the
        # continuation with the highest loglikelihood, and the target its index.
        choices = [str(a[1]).strip() for a in args]
        scores = [_loglikelihood(r) for r in (filtered if isinstance(filtered, list) else [])]
        response = best_choice(choices, scores)
        references = _choice_references(references, choices)
    return prompt, response, references, choices


def _choice_references(references: list[str] | None, choices: list[str]) -> list[str] | None:
    """Map a multiple-choice target (indices into the choices, or a choice's text) to text."""
    if references is None:
        return None
    out = []
    for item in references:
        text = item.strip()
        if text.lstrip("-").isdigit() and 0 <= int(text) < len(choices):
            out.append(choices[int(text)])
        else:
            out.append(text)
    return out


def _metric_names(record: Mapping[str, Any]) -> list[str]:
    names = record.get("metrics")
    if isinstance(names, list):
        return [str(n) for n in names]
    return []


class SamplesLog:
    """One lm-evaluation-harness samples file (JSON Lines, or the older JSON array)."""

    def __init__(self, path: Path, *, array: bool) -> None:
        self.path = path
        self.array = array
        results_path = _results_file(path)
        self.results: Mapping[str, Any] | None = None
        if results_path is not None:
            found = read_json_file(
                results_path,
                what=f"The results file {str(results_path)!r}",
                fields=RESULTS_FIELDS,
            )
            self.results = found if isinstance(found, Mapping) else None
        self.model = _results_model(self.results) if self.results else None
        self.task = _task_name(path, self.results)
        self.fields: Fields = _SAMPLE_FIELDS
        first = next(self._records(), None)
        self.verdicts = _metric_names(first) if first is not None else []
        if first is not None and not self.verdicts:
            # Up to 0.4.2 no ``metrics`` list: every other number is a metric (NaN included).
            self.verdicts = [
                k for k, v in first.items() if k not in _FIELDS and isinstance(v, int | float)
            ]
        self.fields = {**_SAMPLE_FIELDS, **dict.fromkeys(self.verdicts)}

    def _records(self) -> Iterator[Mapping[str, Any]]:
        if self.array:
            data = read_json_file(
                self.path,
                what=f"The lm-evaluation-harness log {str(self.path)!r}",
                fields=self.fields,
            )
            if not isinstance(data, list):
                raise InputFileError(f"The log {str(self.path)!r} is not a JSON array of samples.")
            for index, record in enumerate(data):
                yield self._check(record, f"item {index}")
            return
        for number, line in json_lines(self.path):
            what = f"Line {number} of {str(self.path)!r}"
            yield self._check(load_json(line, what=what, fields=self.fields), f"line {number}")

    def _check(self, record: Any, where: str) -> Mapping[str, Any]:
        if not is_sample(record):
            raise InputFileError(
                f"The lm-evaluation-harness log {str(self.path)!r}: {where} is not a logged "
                "sample (no doc_id, arguments and resps)."
            )
        return record  # type: ignore[no-any-return]

    def batches(self, size: int = BATCH_ROWS) -> Iterator[pl.DataFrame]:
        """Yield the samples as canonical frames of at most ``size`` rows."""
        rows = Rows(FORMAT, self.verdicts)
        yielded = False
        for record in self._records():
            prompt, response, references, choices = _row(record)
            name = record.get("filter")
            task = self.task if name in (None, "none") else f"{self.task},{name}"
            rows.add(
                task=task,
                model=self.model,
                sample_id=record.get("doc_id"),
                epoch=1,
                input=prompt,
                response=response,
                references=references,
                choices=choices,
                verdicts={v: verdict(record.get(v)) for v in self.verdicts},
            )
            if len(rows) >= size:
                yield rows.frame()
                yielded = True
                rows = Rows(FORMAT, self.verdicts)
        if len(rows) or not yielded:
            yield rows.frame()

    def scan(self) -> pl.LazyFrame:
        """Return the samples lazily (JSON Lines are read in batches)."""
        if self.array:
            return pl.concat(list(self.batches())).lazy()
        return lazy_batches(self.batches, log_schema(self.verdicts))


#: The fields of a logged sample that are not metrics.
_FIELDS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    }
)


__all__: Sequence[str] = ["FORMAT", "SamplesLog", "is_sample"]
