"""promptfoo exports: ``promptfoo eval -o results.json`` and ``-o results.jsonl``.

``results.json`` holds ``evalId``, ``config`` and ``results`` (``version``, ``timestamp``,
``prompts``, ``results``: one ``EvaluateResult`` per test, prompt and provider, and ``stats``); a
``.jsonl`` export holds one result per line. A result holds ``testIdx``, ``promptIdx``,
``testCase`` (``vars`` and the ``assert`` list: ``type`` and ``value``), ``prompt`` (``raw``,
``label``), ``provider`` (``id``, ``label``), ``response.output``, ``success``, ``score`` and
``namedScores``.

promptfoo has no reference field: the acceptable answers come from a test variable
(``var:NAME``) or from the values of the test's assertions of one type (``assert:TYPE``), chosen
with the ``reference`` option; by default the first of :data:`DEFAULT_REFERENCES` the test has.
The row's ``task`` is the prompt's label and its ``model`` the provider, the row and column of
promptfoo's own results table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polarscore.exceptions import InputFileError, InvalidParameterError
from polarscore.logs._source import BATCH_ROWS, lazy_batches
from polarscore.logs._table import (
    Fields,
    Rows,
    as_text,
    json_lines,
    load_json,
    log_schema,
    messages_text,
    read_json_file,
    text_list,
    verdict,
)

FORMAT = "promptfoo"

#: Where the references come from when no ``reference`` is given: the first the test has.
DEFAULT_REFERENCES = (
    "var:expected",
    "assert:equals",
    "assert:similar",
    "assert:levenshtein",
    "assert:rouge-n",
    "assert:bleu",
    "assert:factuality",
)


def parse_reference(spec: str | Sequence[str] | None) -> list[tuple[str, str]]:
    """Parse the ``reference`` option: ``var:NAME`` or ``assert:TYPE`` (or a list of them).

    Examples
    --------
    >>> from polarscore.logs._promptfoo import parse_reference
    >>> parse_reference("assert:contains")
    [('assert', 'contains')]
    """
    items = DEFAULT_REFERENCES if spec is None else [spec] if isinstance(spec, str) else spec
    parsed = []
    for item in items:
        kind, sep, name = str(item).partition(":")
        if not sep or kind not in ("var", "assert") or not name:
            raise InvalidParameterError(
                "The promptfoo reference must be 'var:NAME' (a test variable) or 'assert:TYPE' "
                f"(the values of the test's assertions of that type); got {item!r}."
            )
        parsed.append((kind, name))
    return parsed


#: The fields of a result the reader reads (the rest is pruned from a result Python's JSON
#: reader cannot parse whole: :func:`polarscore.logs._table.load_json`).
RESULT_FIELDS: Fields = {
    **dict.fromkeys(
        (
            "testCase",
            "vars",
            "prompt",
            "success",
            "score",
            "namedScores",
            "evalId",
            "provider",
            "testIdx",
            "promptIdx",
        )
    ),
    "response": {"output": None},
}
#: The fields of a ``results.json`` export the reader reads: its results, under ``results``
#: (or ``results.results``).
EXPORT_FIELDS: Fields = {"results": {**RESULT_FIELDS, "results": RESULT_FIELDS}}


def is_result(record: Any) -> bool:
    """Whether a JSON value is one promptfoo ``EvaluateResult``."""
    return (
        isinstance(record, Mapping)
        and "testCase" in record
        and ("response" in record or "success" in record)
        and ("prompt" in record or "promptIdx" in record)
    )


def results_of(document: Any) -> list[Any] | None:
    """Return the result list of a ``results.json`` document (its ``results.results``)."""
    if not isinstance(document, Mapping):
        return None
    results = document.get("results")
    if isinstance(results, Mapping):
        results = results.get("results")
    return results if isinstance(results, list) else None


def _assertions(test: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    stack = list(test.get("assert") or [])
    while stack:
        item = stack.pop(0)
        if isinstance(item, Mapping):
            if item.get("type") == "assert-set":
                stack[:0] = list(item.get("assert") or [])
            else:
                yield item


def _references(result: Mapping[str, Any], sources: Sequence[tuple[str, str]]) -> list[str] | None:
    test = result.get("testCase")
    test = test if isinstance(test, Mapping) else {}
    variables = result.get("vars") if isinstance(result.get("vars"), Mapping) else test.get("vars")
    for kind, name in sources:
        if kind == "var":
            if isinstance(variables, Mapping) and variables.get(name) is not None:
                return text_list(variables[name])
        else:
            values: list[str] = []
            for assertion in _assertions(test):
                if assertion.get("type") == name and assertion.get("value") is not None:
                    values.extend(text_list(assertion["value"]) or [])
            if values:
                return values
    return None


def _prompt_text(prompt: Any) -> str | None:
    raw = prompt.get("raw") if isinstance(prompt, Mapping) else prompt
    if isinstance(raw, str) and raw.lstrip().startswith("["):
        try:
            messages = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
        if isinstance(messages, list) and all(
            isinstance(m, Mapping) and "role" in m for m in messages
        ):
            return messages_text(messages)
    return as_text(raw)


def _provider(provider: Any) -> str | None:
    if isinstance(provider, Mapping):
        return as_text(provider.get("label") or provider.get("id"))
    return as_text(provider)


def _response(result: Mapping[str, Any]) -> str | None:
    response = result.get("response")
    if not isinstance(response, Mapping):
        return None
    return as_text(response.get("output"))


def _verdicts(result: Mapping[str, Any]) -> dict[str, float | None]:
    out = {"pass": verdict(result.get("success")), "score": verdict(result.get("score"))}
    named = result.get("namedScores")
    if isinstance(named, Mapping):
        out.update({str(k): verdict(v) for k, v in named.items()})
    return out


def _verdict_names(results: Any) -> list[str]:
    names: dict[str, None] = {"pass": None, "score": None}
    for result in results:
        named = result.get("namedScores") if isinstance(result, Mapping) else None
        if isinstance(named, Mapping):
            names.update(dict.fromkeys(str(k) for k in named))
    return list(names)


def _add(rows: Rows, result: Mapping[str, Any], sources: Sequence[tuple[str, str]]) -> None:
    prompt = result.get("prompt")
    label = prompt.get("label") if isinstance(prompt, Mapping) else None
    rows.add(
        task=as_text(label) if label is not None else as_text(result.get("evalId")),
        model=_provider(result.get("provider")),
        sample_id=result.get("testIdx"),
        epoch=1,
        input=_prompt_text(prompt),
        response=_response(result),
        references=_references(result, sources),
        choices=None,
        verdicts=_verdicts(result),
    )


def read_json_export(path: Path, reference: str | Sequence[str] | None = None) -> pl.DataFrame:
    """Read a promptfoo ``results.json`` export into the canonical table."""
    sources = parse_reference(reference)
    document = read_json_file(
        path, what=f"The promptfoo export {str(path)!r}", fields=EXPORT_FIELDS
    )
    results = results_of(document)
    if results is None:
        raise InputFileError(f"The promptfoo export {str(path)!r} has no results list.")
    rows = Rows(FORMAT, _verdict_names(results))
    for index, result in enumerate(results):
        if not isinstance(result, Mapping):
            raise InputFileError(
                f"The promptfoo export {str(path)!r}: result {index} is not a JSON object."
            )
        _add(rows, result, sources)
    return rows.frame()


class JsonlExport:
    """A promptfoo ``.jsonl`` export, read in batches."""

    def __init__(self, path: Path, reference: str | Sequence[str] | None = None) -> None:
        self.path = path
        self.sources = parse_reference(reference)
        # The named scores are the only columns that vary: one pass collects them.
        names: dict[str, None] = {"pass": None, "score": None}
        for _, result in self._results():
            names.update(dict.fromkeys(_verdict_names([result])))
        self.verdicts = list(names)

    def _results(self) -> Iterator[tuple[int, Mapping[str, Any]]]:
        for number, line in json_lines(self.path):
            what = f"Line {number} of {str(self.path)!r}"
            record = load_json(line, what=what, fields=RESULT_FIELDS)
            if not is_result(record):
                raise InputFileError(
                    f"Line {number} of the promptfoo export {str(self.path)!r} is not a "
                    "result (no testCase, prompt and response)."
                )
            yield number, record

    def batches(self, size: int = BATCH_ROWS) -> Iterator[pl.DataFrame]:
        """Yield the results as canonical frames of at most ``size`` rows."""
        rows = Rows(FORMAT, self.verdicts)
        yielded = False
        for _, result in self._results():
            _add(rows, result, self.sources)
            if len(rows) >= size:
                yield rows.frame()
                yielded = True
                rows = Rows(FORMAT, self.verdicts)
        if len(rows) or not yielded:
            yield rows.frame()

    def scan(self) -> pl.LazyFrame:
        """Return the export lazily."""
        return lazy_batches(self.batches, log_schema(self.verdicts))
