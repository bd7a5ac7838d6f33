"""Telling an eval log's format from its content (never from its suffix alone).

A file's first bytes say what it is: a zip archive (inspect-ai ``.eval``), a Parquet file (its
columns say whether it is a details file), or JSON, whose first object's top-level keys (read from
the first 64 KiB with a small scanner, so a big log is not parsed to be recognised) name the
framework. A folder holding ``scenario_state.json`` is a HELM run.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from polarscore.exceptions import InputFileError

#: The formats polarscore reads, by the name ``source_format`` gives them.
LOG_FORMATS: dict[str, str] = {
    "inspect_eval": "inspect-ai .eval archive",
    "inspect_json": "inspect-ai .json log",
    "lm_eval": "lm-evaluation-harness --log_samples file (JSON Lines, or the older JSON array)",
    "helm": "HELM run folder (scenario_state.json, per_instance_stats.json)",
    "promptfoo": "promptfoo export (-o results.json or results.jsonl)",
    "openai_evals": "OpenAI evals log (JSON Lines of sampling and match events)",
    "lighteval": "lighteval / Open LLM Leaderboard details Parquet",
}

_HEAD = 65_536
#: JSON strings (escapes included) and the structural characters between them.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],]')
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_PARQUET = b"PAR1"


def formats_listing() -> str:
    """Return the recognised formats, as one line for error messages."""
    return "; ".join(LOG_FORMATS.values())


def _first_object_keys(text: str) -> list[str]:
    r"""Return the top-level keys of the first JSON object in ``text``, as far as it holds them.

    For a top-level array, the keys of its first item.

    Examples
    --------
    >>> from polarscore.logs._detect import _first_object_keys
    >>> _first_object_keys('{"a": {"x": 1}, "b": "}\\"", "c": [1]}\n{"d": 2}')
    ['a', 'b', 'c']
    >>> _first_object_keys('[{"doc_id": 0, "doc": {"q": 1}}, {"doc_id": 1}]')
    ['doc_id', 'doc']
    """
    keys: list[str] = []
    depth = 0
    target = 1
    expecting = False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("{", "["):
            target = 2 if depth == 0 and token == "[" else target
            depth += 1
            expecting = token == "{" and depth == target
        elif token in ("}", "]"):
            depth -= 1
            if depth < target:
                break
        elif token == ",":
            expecting = depth == target
        elif expecting:
            keys.append(token[1:-1])
            expecting = False
    return keys


def _json_format(head: bytes, path: Path) -> str | None:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text or text[0] not in "{[":
        return None
    found = set(_first_object_keys(text))
    if text[0] == "[":
        if {"doc_id", "arguments"} <= found:
            return "lm_eval"
        return None
    if "eval" in found and ("version" in found or "status" in found):
        return "inspect_json"
    if "request_states" in found or "adapter_spec" in found:
        return "helm"
    if "results" in found and ({"evalId", "shareableUrl"} & found):
        return "promptfoo"
    if {"doc_id", "arguments"} <= found and ({"resps", "filtered_resps"} & found):
        return "lm_eval"
    if "spec" in found or {"run_id", "event_id", "sample_id", "type"} <= found:
        return "openai_evals"
    if "testCase" in found and ({"response", "success"} & found):
        return "promptfoo"
    return None


def detect(path: Path) -> str | None:
    """Return the log format of ``path`` (a key of :data:`LOG_FORMATS`), or None.

    None means it is not a log polarscore recognises (for example a plain Parquet, JSON Lines
    or CSV table).

    Raises
    ------
    InputFileError
        When the file cannot be opened.
    """
    if path.is_dir():
        return "helm" if (path / "scenario_state.json").is_file() else None
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError as error:
        raise InputFileError(f"Cannot read {str(path)!r}: {error.strerror or error}.") from None
    if head.startswith(_ZIP):
        inspect_like = (
            path.suffix.lower() == ".eval"
            or b"_journal/" in head
            or b"header.json" in head
            or b"samples/" in head
        )
        return "inspect_eval" if inspect_like else None
    if head.startswith(_PARQUET):
        return _parquet_format(path)
    return _json_format(head, path)


def _parquet_format(path: Path) -> str | None:
    from polarscore.logs._lighteval import layout

    try:
        # Polars reads the footer alone (pyarrow.parquet would cost its import, ~0.1 s, to every
        # run that scores a Parquet table)
        names = set(pl.read_parquet_schema(path))
    except Exception:
        return None
    kind = layout(names)
    return None if kind is None else "lighteval"
