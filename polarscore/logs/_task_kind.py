"""The kind of task a log holds, read from what the framework recorded about its grading.

A task kind says how an answer is graded without a judge, and so which rule ``correct`` applies
(:func:`polarscore.correct`):

* ``multiple_choice``: the response commits to one option letter (or states the option's text),
  compared with the gold letter;
* ``numeric``: the response's final number, compared with the gold number as numbers;
* ``short_answer``: a short text answer (exact, includes, F1-style grading);
* ``free_form``: a long answer the framework had a model grade;
* ``none``: no judge-free verdict is sound (code execution, open generation, perplexity).

Each reader's metadata gives the kind: inspect-ai's scorers and their options,
lm-evaluation-harness' task config (``output_type``, ``filter_list``, ``metric_list``), HELM's run
spec (the adapter method and the metrics), lighteval's metric names, promptfoo's assertion types,
OpenAI evals' eval class
and events. A log whose metadata names nothing polarscore knows has no kind (null), and its rows'
``correct`` is null with the reason, never 0. A plain table gets its kind row by row from its
columns (:func:`infer_kind`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

import polars as pl

from polarscore.logs._table import Fields, load_json

#: The task kinds, from the most specific rule to the least (the order a log with several
#: scorers is read in: the first kind any of them gives wins).
TASK_KINDS: tuple[str, ...] = ("multiple_choice", "numeric", "short_answer", "free_form", "none")

TaskKindName: TypeAlias = Literal["multiple_choice", "numeric", "short_answer", "free_form", "none"]

#: The column of a log or scored table holding each row's task kind.
TASK_KIND_COLUMN = "task_kind"


@dataclass(frozen=True)
class TaskKind:
    """A log's task kind and what in the log said so.

    Attributes
    ----------
    kind
        One of :data:`TASK_KINDS`, or None when the log records nothing polarscore reads a kind
        from.
    source
        The evidence, in words (``"inspect-ai scorer choice"``), or why there is no kind.
    """

    kind: str | None
    source: str


def _best(readings: Sequence[TaskKind], *, nothing: str) -> TaskKind:
    """Return the reading of the most specific kind (:data:`TASK_KINDS` order), else ``nothing``."""
    found = [r for r in readings if r.kind is not None]
    if not found:
        return TaskKind(None, "; ".join(r.source for r in readings) or nothing)
    return min(found, key=lambda r: TASK_KINDS.index(str(r.kind)))


# --- inspect-ai ---------------------------------------------------------------------------------

#: inspect-ai's built-in scorers, by name, and the kind each grades.
_INSPECT_SCORERS: dict[str, str] = {
    "choice": "multiple_choice",
    "match": "short_answer",
    "includes": "short_answer",
    "exact": "short_answer",
    "f1": "short_answer",
    "pattern": "short_answer",
    "answer": "short_answer",
    "model_graded_qa": "free_form",
    "model_graded_fact": "free_form",
}
#: A regular expression whose capture is one letter of a short range: a multiple-choice answer.
_LETTER_CAPTURE = re.compile(r"\(\[?(?:A-[A-Z]|[A-Z]{2,10})\]?\)|\[A-[A-Z]\]")
_NUMBER_CAPTURE = re.compile(r"\\d|\[0-9|\[-?\\d|-\?\[0-9")


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def inspect_scorer_kind(name: str, options: Mapping[str, Any]) -> TaskKind:
    r"""Return the kind one inspect-ai scorer grades, from its name and options.

    Examples
    --------
    >>> from polarscore.logs._task_kind import inspect_scorer_kind
    >>> inspect_scorer_kind("match", {"numeric": True}).kind
    'numeric'
    >>> inspect_scorer_kind("pattern", {"pattern": r"ANSWER: ([A-D])"}).kind
    'multiple_choice'
    >>> inspect_scorer_kind("answer", {"pattern": "letter"}).kind
    'multiple_choice'
    >>> inspect_scorer_kind("my_scorer", {}).kind is None
    True
    """
    short = name.rsplit("/", 1)[-1]
    kind = _INSPECT_SCORERS.get(short)
    if kind is None:
        return TaskKind(None, f"inspect-ai scorer {name!r} is not one polarscore reads a kind from")
    detail = ""
    if short == "match" and _truthy(options.get("numeric")):
        kind, detail = "numeric", " (numeric=True)"
    elif short == "pattern":
        regex = str(options.get("pattern", ""))
        if _LETTER_CAPTURE.search(regex):
            kind = "multiple_choice"
        elif _NUMBER_CAPTURE.search(regex):
            kind = "numeric"
        detail = f" ({regex!r})" if regex else ""
    elif short == "answer":
        pattern = str(options.get("pattern", ""))
        if pattern == "letter":
            kind = "multiple_choice"
        detail = f" (pattern={pattern!r})" if pattern else ""
    return TaskKind(kind, f"inspect-ai scorer {short}{detail}")


def inspect_kind(header: Mapping[str, Any]) -> TaskKind:
    """Return the kind of an inspect-ai log from its header (``eval.scorers``, else the results).

    Examples
    --------
    >>> from polarscore.logs._task_kind import inspect_kind
    >>> inspect_kind({"eval": {"scorers": [{"name": "choice", "options": {}}]}})
    TaskKind(kind='multiple_choice', source='inspect-ai scorer choice')
    >>> inspect_kind({"results": {"scores": [{"scorer": "match", "params": {"numeric": True}}]}})
    TaskKind(kind='numeric', source='inspect-ai scorer match (numeric=True)')
    >>> inspect_kind({}).kind is None
    True
    """
    run = header.get("eval")
    scorers = run.get("scorers") if isinstance(run, Mapping) else None
    pairs: list[tuple[str, Mapping[str, Any]]] = []
    if isinstance(scorers, list):
        for item in scorers:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                options = item.get("options")
                pairs.append((item["name"], options if isinstance(options, Mapping) else {}))
    if not pairs:
        results = header.get("results")
        scores = results.get("scores") if isinstance(results, Mapping) else None
        for item in scores if isinstance(scores, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("scorer"), str):
                params = item.get("params")
                pairs.append((item["scorer"], params if isinstance(params, Mapping) else {}))
    readings = [inspect_scorer_kind(name, options) for name, options in pairs]
    return _best(readings, nothing="the inspect-ai log records no scorer")


# --- lm-evaluation-harness ----------------------------------------------------------------------

#: lm-evaluation-harness filters that read a final number (GSM8K's ``#### n``, the last number).
_NUMBER_FILTERS = ("strict-match", "flexible-extract", "get-answer", "maj@", "get_number")
_SHORT_METRICS = ("exact_match", "em", "f1", "quasi_exact_match", "bleu", "rouge")


def lm_eval_kind(results: Mapping[str, Any] | None, task: str) -> TaskKind:
    """Return the kind of an lm-evaluation-harness task from its config in the results file.

    Examples
    --------
    >>> from polarscore.logs._task_kind import lm_eval_kind
    >>> gsm8k = {
    ...     "output_type": "generate_until",
    ...     "filter_list": [{"name": "strict-match"}, {"name": "flexible-extract"}],
    ...     "metric_list": [{"metric": "exact_match"}],
    ... }
    >>> lm_eval_kind({"configs": {"gsm8k": gsm8k}}, "gsm8k").kind
    'numeric'
    >>> lm_eval_kind({"configs": {"arc": {"output_type": "multiple_choice"}}}, "arc").kind
    'multiple_choice'
    >>> lm_eval_kind(None, "arc").kind is None
    True
    """
    configs = results.get("configs") if isinstance(results, Mapping) else None
    config = configs.get(task) if isinstance(configs, Mapping) else None
    if not isinstance(config, Mapping):
        return TaskKind(
            None, f"no config of the lm-evaluation-harness task {task!r} (no results file beside)"
        )
    output = config.get("output_type")
    where = f"lm-evaluation-harness output_type {output}"
    if output == "multiple_choice":
        return TaskKind("multiple_choice", where)
    if output in ("loglikelihood", "loglikelihood_rolling"):
        return TaskKind("none", f"{where} (likelihoods, no answer to grade)")
    if output != "generate_until":
        return TaskKind(None, f"lm-evaluation-harness output_type {output!r} is not known")
    filters = config.get("filter_list")
    names = (
        [str(f.get("name")) for f in filters if isinstance(f, Mapping)]
        if isinstance(filters, list)
        else []
    )
    numeric = [n for n in names if n.startswith(_NUMBER_FILTERS)]
    if numeric:
        return TaskKind("numeric", f"{where}, filter {numeric[0]}")
    metrics = config.get("metric_list")
    metric_names = (
        [str(m.get("metric")) for m in metrics if isinstance(m, Mapping)]
        if isinstance(metrics, list)
        else []
    )
    short = [m for m in metric_names if m.startswith(_SHORT_METRICS)]
    if short:
        return TaskKind("short_answer", f"{where}, metric {short[0]}")
    return TaskKind(
        "none", f"{where}, metrics {', '.join(metric_names) or 'none'} (no answer to match)"
    )


# --- HELM ---------------------------------------------------------------------------------------


def helm_kind(run_spec: Mapping[str, Any] | None) -> TaskKind:
    """Return the kind of a HELM run from its ``run_spec.json`` (adapter method and metrics).

    Examples
    --------
    >>> from polarscore.logs._task_kind import helm_kind
    >>> helm_kind({"adapter_spec": {"method": "multiple_choice_joint"}}).kind
    'multiple_choice'
    >>> helm_kind({"adapter_spec": {"method": "generation"}, "metric_specs": []}).kind
    'short_answer'
    """
    adapter = run_spec.get("adapter_spec") if isinstance(run_spec, Mapping) else None
    method = adapter.get("method") if isinstance(adapter, Mapping) else None
    if not isinstance(method, str):
        return TaskKind(None, "the HELM run has no run_spec.json adapter method")
    where = f"HELM adapter method {method}"
    if method.startswith("multiple_choice"):
        return TaskKind("multiple_choice", where)
    if method in ("language_modeling", "ranking_binary"):
        return TaskKind("none", where)
    if method.startswith("generation"):
        specs = run_spec.get("metric_specs") if isinstance(run_spec, Mapping) else None
        classes = (
            " ".join(str(s.get("class_name", "")) for s in specs if isinstance(s, Mapping))
            if isinstance(specs, list)
            else ""
        )
        if "code_metrics" in classes:
            return TaskKind("none", f"{where}, code metrics")
        if "math" in classes.lower():
            return TaskKind("numeric", f"{where}, math metrics")
        return TaskKind("short_answer", where)
    return TaskKind(None, f"HELM adapter method {method!r} is not known")


def read_helm_kind(folder: Path) -> TaskKind:
    """Return the kind of the HELM run in ``folder`` (its ``run_spec.json``)."""
    from polarscore.logs._helm import RUN_SPEC_FIELDS

    try:
        spec = _json((folder / "run_spec.json").read_bytes(), RUN_SPEC_FIELDS)
    except (OSError, ValueError):
        return TaskKind(None, "the HELM run has no readable run_spec.json")
    return helm_kind(spec if isinstance(spec, Mapping) else None)


# --- lighteval ----------------------------------------------------------------------------------

_LIGHTEVAL_CHOICE = ("acc", "loglikelihood_acc", "mc1", "mc2", "pmi")
_LIGHTEVAL_NUMBER = ("gsm8k", "math", "expr_gold", "latex_gold", "math_pass")
_LIGHTEVAL_SHORT = ("exact_match", "quasi_exact_match", "prefix_exact_match", "f1", "em")
_LIGHTEVAL_NONE = ("perplexity", "ppl", "bits_per_byte", "byte_perplexity", "word_perplexity")


def lighteval_kind(metrics: Sequence[str], task: str = "") -> TaskKind:
    """Return the kind of a lighteval details file from its metric names (and task name).

    Examples
    --------
    >>> from polarscore.logs._task_kind import lighteval_kind
    >>> lighteval_kind(["acc", "acc_norm"]).kind
    'multiple_choice'
    >>> lighteval_kind(["quasi_exact_match_gsm8k"]).kind
    'numeric'
    >>> lighteval_kind(["quasi_exact_match", "f1"], "lighteval|triviaqa|0").kind
    'short_answer'
    """
    names = [m.lower() for m in metrics]
    listing = ", ".join(metrics)
    if any(n.startswith(_LIGHTEVAL_CHOICE) for n in names):
        return TaskKind("multiple_choice", f"lighteval metrics {listing}")
    if any(any(k in n for k in _LIGHTEVAL_NUMBER) for n in names) or (
        names and any(k in task.lower() for k in ("gsm8k", "|math"))
    ):
        return TaskKind("numeric", f"lighteval metrics {listing} (task {task})")
    if any(n.startswith(_LIGHTEVAL_SHORT) for n in names):
        return TaskKind("short_answer", f"lighteval metrics {listing}")
    if any(n.startswith(_LIGHTEVAL_NONE) for n in names):
        return TaskKind("none", f"lighteval metrics {listing}")
    if not names:
        return TaskKind(None, "the lighteval details file records no metric")
    return TaskKind(None, f"lighteval metrics {listing} are not ones polarscore reads a kind from")


def read_lighteval_kind(path: Path, verdicts: Sequence[str]) -> TaskKind:
    """Return the kind of a lighteval details file from its metric names (the verdicts read)."""
    task = path.name.removeprefix("details_").rsplit("_", 1)[0]
    return lighteval_kind(verdicts, task)


# --- promptfoo ----------------------------------------------------------------------------------

_PROMPTFOO: dict[str, str] = {
    "equals": "short_answer",
    "contains": "short_answer",
    "icontains": "short_answer",
    "contains-any": "short_answer",
    "icontains-any": "short_answer",
    "contains-all": "short_answer",
    "icontains-all": "short_answer",
    "starts-with": "short_answer",
    "regex": "short_answer",
    "levenshtein": "short_answer",
    "rouge-n": "short_answer",
    "bleu": "short_answer",
    "similar": "free_form",
    "llm-rubric": "free_form",
    "model-graded-closedqa": "free_form",
    "model-graded-factuality": "free_form",
    "factuality": "free_form",
    "answer-relevance": "free_form",
    "g-eval": "free_form",
    "javascript": "none",
    "python": "none",
    "webhook": "none",
    "is-json": "none",
    "contains-json": "none",
    "is-valid-openai-tools-call": "none",
}


def _assert_types(asserts: Any) -> list[str]:
    types: list[str] = []
    for item in asserts if isinstance(asserts, list) else []:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "assert-set":
            types += _assert_types(item.get("assert"))
        elif isinstance(kind, str):
            types.append(kind.removeprefix("not-"))
    return types


def promptfoo_kind(asserts: Any) -> TaskKind:
    """Return the kind of a promptfoo test from its assertion types.

    Examples
    --------
    >>> from polarscore.logs._task_kind import promptfoo_kind
    >>> promptfoo_kind([{"type": "equals", "value": "Paris"}, {"type": "icontains"}]).kind
    'short_answer'
    >>> promptfoo_kind([{"type": "llm-rubric", "value": "is polite"}]).kind
    'free_form'
    """
    readings = [
        TaskKind(_PROMPTFOO.get(t), f"promptfoo assertion {t}")
        if t in _PROMPTFOO
        else TaskKind(None, f"promptfoo assertion {t!r} is not one polarscore reads a kind from")
        for t in _assert_types(asserts)
    ]
    return _best(readings, nothing="the promptfoo test has no assertion")


def read_promptfoo_kind(path: Path) -> TaskKind:
    """Return the kind of a promptfoo export from its first test's assertions."""
    from polarscore.logs._promptfoo import EXPORT_FIELDS, RESULT_FIELDS

    try:
        with open(path, "rb") as handle:
            first = handle.readline()
            try:
                record = _json(first, RESULT_FIELDS)
            except ValueError:
                record = None
            if not (isinstance(record, dict) and "testCase" in record):
                handle.seek(0)
                document = _json(handle.read(), EXPORT_FIELDS)
                results = document.get("results") if isinstance(document, dict) else None
                if isinstance(results, dict):
                    results = results.get("results")
                record = results[0] if isinstance(results, list) and results else None
    except (OSError, ValueError):
        return TaskKind(None, "the promptfoo export cannot be read for its assertions")
    case = record.get("testCase") if isinstance(record, dict) else None
    asserts = case.get("assert") if isinstance(case, dict) else None
    return promptfoo_kind(asserts)


# --- OpenAI evals -------------------------------------------------------------------------------

_OPENAI_CLASSES: dict[str, str] = {
    "match": "short_answer",
    "includes": "short_answer",
    "fuzzymatch": "short_answer",
    "fuzzy_match": "short_answer",
    "multiplechoice": "multiple_choice",
    "multiple_choice": "multiple_choice",
    "modelbasedclassify": "free_form",
    "modelgraded": "free_form",
}


def openai_evals_kind(spec: Mapping[str, Any] | None, event_types: Sequence[str] = ()) -> TaskKind:
    """Return the kind of an OpenAI evals log from its eval class, else its event types.

    Examples
    --------
    >>> from polarscore.logs._task_kind import openai_evals_kind
    >>> spec = {"run_config": {"eval_spec": {"cls": "evals.elsuite.basic.includes:Includes"}}}
    >>> openai_evals_kind(spec).kind
    'short_answer'
    >>> openai_evals_kind({}, ["sampling", "match"]).kind
    'short_answer'
    """
    config = spec.get("run_config") if isinstance(spec, Mapping) else None
    eval_spec = config.get("eval_spec") if isinstance(config, Mapping) else None
    cls = eval_spec.get("cls") if isinstance(eval_spec, Mapping) else None
    if isinstance(cls, str) and cls:
        key = cls.rsplit(":", 1)[-1].lower()
        module = cls.split(":", 1)[0].lower()
        for name, kind in _OPENAI_CLASSES.items():
            if name in key or module.endswith(name) or f".{name}." in module:
                return TaskKind(kind, f"OpenAI evals class {cls}")
        return TaskKind(None, f"OpenAI evals class {cls!r} is not one polarscore reads a kind from")
    if "match" in event_types:
        return TaskKind("short_answer", "OpenAI evals match events")
    return TaskKind(None, "the OpenAI evals log names no eval class and has no match events")


def read_openai_evals_kind(path: Path) -> TaskKind:
    """Return the kind of an OpenAI evals log: its spec line, else its first events' types."""
    from polarscore.logs._openai_evals import RECORD_FIELDS

    spec: Mapping[str, Any] | None = None
    types: list[str] = []
    try:
        with open(path, "rb") as handle:
            for number, line in enumerate(handle):
                if number >= 64:
                    break
                try:
                    record = _json(line, RECORD_FIELDS)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                if isinstance(record.get("spec"), dict):
                    spec = record["spec"]
                elif isinstance(record.get("type"), str):
                    types.append(record["type"])
    except OSError:
        return TaskKind(None, "the OpenAI evals log cannot be read")
    return openai_evals_kind(spec, types)


def _json(data: bytes, fields: Fields) -> Any:
    """Parse a log's JSON document or line as its reader does.

    Unread fields are pruned when Python cannot parse it whole (``load_json``); raises
    :class:`~polarscore.exceptions.InputFileError` (a ``ValueError``) when it cannot be read.
    """
    return load_json(data, what="", fields=fields)


# --- plain tables -------------------------------------------------------------------------------

#: A bare option letter, as a gold answer (``B``, ``(B)``, ``B.``).
_LETTER = r"^\s*\(?[A-Z]\)?\.?\s*$"
#: A number as a gold answer (``18``, ``-3.5``, ``1,207``, ``$5``, ``#### 18``, ``50%``).
_NUMBER = r"^\s*(?:####\s*)?[-+]?\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?\s*%?\s*$"


def infer_kind(golds: pl.Expr, choices: pl.Expr | None = None) -> pl.Expr:
    """Return each row's kind, told from its gold answers (and options), as a ``String`` expression.

    ``golds`` is a ``List(String)`` of the row's acceptable answers; its blank items are left
    aside. When every gold is a bare capital letter (``B``, ``(B)``) or one of the row's options
    (``choices``, a list of text), the row is ``multiple_choice``; when every gold is a number
    (``18``, ``-3.5``, ``1,207``, ``$5``, ``#### 18``), ``numeric``; else ``short_answer``; a row
    without a gold has no kind. The order of the golds does not matter.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.logs._task_kind import infer_kind
    >>> df = pl.DataFrame(
    ...     {
    ...         "golds": [["B"], ["1,207", "1207"], ["Paris", "1"], ["y"], [None, " "]],
    ...         "choices": [None, None, None, ["x", "y"], None],
    ...     }
    ... )
    >>> df.select(infer_kind(pl.col("golds"), pl.col("choices")))["task_kind"].to_list()
    ['multiple_choice', 'numeric', 'short_answer', 'multiple_choice', None]
    """
    # Each gold is stripped once and given one bit (1 a letter, 2 a number, 4 other text; null
    # when blank), and a row's kind is the sum of its distinct bits: one pass over its golds,
    # where counting letters, numbers and golds apart stripped and filtered each list again.
    # (The bits are UInt32: Polars 1.30 sums a list of UInt8 as Int64, and panics.)
    text = pl.element()
    stripped = golds.list.eval(text.cast(pl.String).str.strip_chars())
    bit = (
        pl.when(text.str.contains(_LETTER))
        .then(pl.lit(1, dtype=pl.UInt32))
        .when(text.str.contains(_NUMBER) & text.str.contains(r"\d"))
        .then(pl.lit(2, dtype=pl.UInt32))
        .when(text != "")
        .then(pl.lit(4, dtype=pl.UInt32))
    )
    bits = stripped.list.eval(bit).list.unique().list.sum().fill_null(0)
    kind = bits.replace_strict(
        {0: None, 1: "multiple_choice", 2: "numeric"},
        default=pl.lit("short_answer"),
        return_dtype=pl.String,
    )
    if choices is not None:
        texts = stripped.list.eval(text.filter(text != "")).list.unique()
        options = choices.list.eval(text.str.strip_chars()).list.unique()
        stated = texts.list.set_intersection(options).list.len()
        every = stated.fill_null(0) == texts.list.len()
        kind = pl.when(every & (bits != 0)).then(pl.lit("multiple_choice")).otherwise(kind)
    return kind.alias(TASK_KIND_COLUMN)


#: The rows a plain table's kind is told from, and the share of them that must agree.
TABLE_SAMPLE_ROWS = 2_000
_TABLE_AGREEMENT = 0.9


def _first_kinds(frame: pl.LazyFrame, kind: pl.Expr) -> pl.Series:
    """Return the non-null ``kind`` of the first :data:`TABLE_SAMPLE_ROWS` rows that have one.

    The rows are read from the top, a quarter more than :data:`TABLE_SAMPLE_ROWS` first (a few
    blank golds among them then cost no second read), and each time too few of them have a gold,
    the rows after them: about twice as many as the golds found so far say the missing ones
    need, sixteen times as many as were read when none had one. A log of a million rows is not
    read whole (its references' kinds cost a third of a second) to look at its first two
    thousand, and rows are never read twice: a second read from the top of a log whose first
    rows hold a few blank golds once cost the command line more than its Parquet reading.
    """
    found: list[pl.Series] = []
    have = 0
    offset = 0
    rows = TABLE_SAMPLE_ROWS + TABLE_SAMPLE_ROWS // 4
    while True:
        read = frame.slice(offset, rows).select(kind).collect().to_series()
        kinds = read.drop_nulls()
        found.append(kinds)
        have += kinds.len()
        offset += read.len()
        if have >= TABLE_SAMPLE_ROWS or read.len() < rows:
            return pl.concat(found).head(TABLE_SAMPLE_ROWS)
        missing = TABLE_SAMPLE_ROWS - have
        grown = 16 * offset
        rows = grown if have == 0 else min(grown, max(-(-2 * missing * offset // have), 64))


def table_kind(
    frame: pl.DataFrame | pl.LazyFrame, golds: pl.Expr, choices: pl.Expr | None
) -> TaskKind:
    """Return the kind of a plain table (no framework metadata), told from its gold answers.

    The first :data:`TABLE_SAMPLE_ROWS` rows with a gold answer are read (one column, or two):
    when at least 90% of them are multiple choice by :func:`infer_kind` (a bare letter, or one
    of the options), the table is ``multiple_choice``; when 90% are numbers, ``numeric``; else
    ``short_answer`` (so a few numeric golds among open questions, "1996", stay short answers).

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.logs._task_kind import table_kind
    >>> df = pl.DataFrame({"gold": ["18", "1,207", "-3"], "other": ["Paris", "1996", "Lyon"]})
    >>> table_kind(df, pl.concat_list("gold"), None)
    TaskKind(kind='numeric', source='the gold answers of the table (3 of 3 rows read: numbers)')
    >>> table_kind(df, pl.concat_list("other"), None).kind
    'short_answer'
    """
    kinds = _first_kinds(frame.lazy(), infer_kind(golds, choices))
    if kinds.is_empty():
        return TaskKind(None, "the table has no gold answer to tell its task kind from")
    counts = kinds.value_counts()
    found = dict(zip(counts[TASK_KIND_COLUMN].to_list(), counts["count"].to_list(), strict=True))
    for kind, words in (("multiple_choice", "option letters"), ("numeric", "numbers")):
        if found.get(kind, 0) >= _TABLE_AGREEMENT * len(kinds):
            return TaskKind(
                kind,
                f"the gold answers of the table ({found[kind]} of {len(kinds)} rows read: {words})",
            )
    return TaskKind(
        "short_answer",
        f"the gold answers of the table ({len(kinds)} rows read: neither option letters nor "
        "numbers throughout)",
    )


#: The kind read from each log scanned in this process, by path (for the provenance record).
_READ: dict[str, TaskKind] = {}


def recorded_kind(path: Path | str) -> TaskKind | None:
    """Return the kind read from the log at ``path`` when it was scanned, or None."""
    return _READ.get(str(path))


def log_kind(
    path: Path, source_format: str, reader: Any = None, verdicts: Sequence[str] = ()
) -> TaskKind:
    """Return the kind of one log, from the metadata its format records.

    ``reader`` is the reader object when the caller has one (an inspect-ai archive's header, an
    lm-evaluation-harness samples log's results), so nothing is read twice; ``verdicts`` are the
    names of the framework's verdict columns (lighteval's metrics).
    """
    reading = _read_kind(path, source_format, reader, verdicts)
    _READ[str(path)] = reading
    return reading


def _read_kind(path: Path, source_format: str, reader: Any, verdicts: Sequence[str]) -> TaskKind:
    if source_format in ("inspect_eval", "inspect_json"):
        header = getattr(reader, "header", None)
        return inspect_kind(header if isinstance(header, Mapping) else {})
    if source_format == "lm_eval":
        return lm_eval_kind(getattr(reader, "results", None), str(getattr(reader, "task", "")))
    if source_format == "helm":
        return read_helm_kind(path if path.is_dir() else path.parent)
    if source_format == "lighteval":
        return read_lighteval_kind(path, verdicts)
    if source_format == "promptfoo":
        return read_promptfoo_kind(path)
    if source_format == "openai_evals":
        return read_openai_evals_kind(path)
    return TaskKind(None, f"no task kind is read from {source_format} logs")


def with_task_kind(
    frame: pl.LazyFrame, path: Path, source_format: str, reader: Any
) -> pl.LazyFrame:
    """Return a log's frame with its ``task_kind`` column, after the canonical columns."""
    names = frame.collect_schema().names()
    verdicts = [n.removeprefix("framework_") for n in names if n.startswith("framework_")]
    reading = log_kind(path, source_format, reader, verdicts)
    at = names.index("choices") + 1 if "choices" in names else len(names)
    kind = pl.lit(reading.kind, dtype=pl.String).alias(TASK_KIND_COLUMN)
    return frame.select(*names[:at], kind, *names[at:])


__all__ = [
    "TABLE_SAMPLE_ROWS",
    "TASK_KINDS",
    "TASK_KIND_COLUMN",
    "TaskKind",
    "TaskKindName",
    "helm_kind",
    "infer_kind",
    "inspect_kind",
    "lighteval_kind",
    "lm_eval_kind",
    "log_kind",
    "openai_evals_kind",
    "promptfoo_kind",
    "recorded_kind",
    "table_kind",
    "with_task_kind",
]
