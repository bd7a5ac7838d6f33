"""HELM run directories: ``scenario_state.json`` and ``per_instance_stats.json``.

``helm-run`` writes one folder per run (``<scenario>:<args>,model=<model>``, with ``:`` as ``-``
in some copies) holding ``run_spec.json`` (the run's name), ``scenario.json``,
``scenario_state.json`` (``adapter_spec`` and ``request_states``: per instance and train trial,
the ``instance`` with its ``references``, the ``request`` and its ``result.completions``) and
``per_instance_stats.json`` (per instance and train trial, the metrics HELM computed).

The answer is the first completion's text; for multiple-choice adaptation
(``multiple_choice_joint``) HELM maps the letter answered to the choice through the request's
``output_mapping``, and so does this reader. The references are the instance's references tagged
``correct``. The verdicts are HELM's per-instance metrics except its bookkeeping statistics
(token counts, runtimes, finish reasons, costs).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from polarscore.exceptions import InputFileError
from polarscore.logs._table import Fields, Rows, as_text, read_json_file, verdict

FORMAT = "helm"
STATE = "scenario_state.json"
STATS = "per_instance_stats.json"

#: The fields of each file the readers read (the rest is pruned from a file Python's JSON
#: reader cannot parse whole: :func:`polarscore.logs._table.load_json`).
_STATE_FIELDS: Fields = {
    "request_states": {
        "instance": None,
        "request": {"model": None},
        "result": {"completions": {"text": None}},
        "output_mapping": None,
        "train_trial_index": None,
    },
    "adapter_spec": None,
}
_STATS_FIELDS: Fields = dict.fromkeys(("stats", "instance_id", "train_trial_index", "perturbation"))
RUN_SPEC_FIELDS: Fields = dict.fromkeys(("name", "adapter_spec", "metric_specs"))

#: HELM's per-instance statistics that are bookkeeping, not verdicts on the answer.
_BOOKKEEPING_PREFIXES = (
    "num_",
    "finish_reason",
    "training_",
    "inference_",
    "idealized_inference",
    "denoised_inference",
    "estimated_",
    "batch_",
    "prompt_truncated",
    "max_prob",
    "logprob",
)


def _is_verdict(name: str) -> bool:
    return not name.startswith(_BOOKKEEPING_PREFIXES)


def _perturbation(item: Mapping[str, Any]) -> str | None:
    perturbation = item.get("perturbation")
    if isinstance(perturbation, Mapping):
        return as_text(perturbation.get("name"))
    return None


def _key(
    instance_id: Any, trial: Any, perturbation: str | None
) -> tuple[str | None, int, str | None]:
    return as_text(instance_id), int(trial) if isinstance(trial, int) else 0, perturbation


def _stats(
    path: Path,
) -> tuple[dict[tuple[str | None, int, str | None], dict[str, float | None]], list[str]]:
    by_instance: dict[tuple[str | None, int, str | None], dict[str, float | None]] = {}
    names: dict[str, None] = {}
    if not path.is_file():
        return by_instance, []
    data = read_json_file(path, what=f"The HELM statistics {str(path)!r}", fields=_STATS_FIELDS)
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, Mapping):
            continue
        values: dict[str, float | None] = {}
        for stat in item.get("stats") or []:
            name = stat.get("name") if isinstance(stat, Mapping) else None
            if not isinstance(name, Mapping) or name.get("perturbation") is not None:
                continue
            metric = name.get("name")
            if not isinstance(metric, str) or not _is_verdict(metric):
                continue
            values[metric] = verdict(stat.get("mean")) if stat.get("count") else None
            names[metric] = None
        key = _key(item.get("instance_id"), item.get("train_trial_index"), _perturbation(item))
        by_instance[key] = values
    return by_instance, list(names)


def _task(folder: Path) -> str:
    spec = folder / "run_spec.json"
    if spec.is_file():
        data = read_json_file(spec, what=f"The HELM run spec {str(spec)!r}", fields=RUN_SPEC_FIELDS)
        if isinstance(data, Mapping) and isinstance(data.get("name"), str):
            return str(data["name"])
    return folder.name


def read_run(folder: Path) -> pl.DataFrame:
    """Read a HELM run folder into the canonical table."""
    state_path = folder / STATE
    if not state_path.is_file():
        raise InputFileError(f"The HELM run folder {str(folder)!r} has no {STATE}.")
    state = read_json_file(
        state_path, what=f"The HELM scenario state {str(state_path)!r}", fields=_STATE_FIELDS
    )
    requests = state.get("request_states") if isinstance(state, Mapping) else None
    if not isinstance(requests, list):
        raise InputFileError(f"The HELM scenario state {str(state_path)!r} has no request_states.")
    adapter = state.get("adapter_spec") if isinstance(state, Mapping) else None
    default_model = adapter.get("model") if isinstance(adapter, Mapping) else None
    stats, names = _stats(folder / STATS)
    task = _task(folder)
    rows = Rows(FORMAT, names)
    for index, request_state in enumerate(requests):
        if not isinstance(request_state, Mapping):
            raise InputFileError(
                f"The HELM scenario state {str(state_path)!r}: request state {index} is not an "
                "object."
            )
        instance = request_state.get("instance") or {}
        request = request_state.get("request") or {}
        result = request_state.get("result") or {}
        mapping = request_state.get("output_mapping")
        completions = result.get("completions") if isinstance(result, Mapping) else None
        response = None
        if isinstance(completions, list) and completions:
            response = as_text(completions[0].get("text"))
            if isinstance(mapping, Mapping) and response is not None:
                response = as_text(mapping.get(response.strip(), response))
        references = [
            text
            for ref in instance.get("references") or []
            if "correct" in (ref.get("tags") or [])
            and (text := as_text((ref.get("output") or {}).get("text"))) is not None
        ]
        choices = (
            [as_text(v) or "" for v in mapping.values()] if isinstance(mapping, Mapping) else None
        )
        trial = request_state.get("train_trial_index")
        perturbation = _perturbation(instance)
        instance_id = instance.get("id")
        sample_id = as_text(instance_id)
        if perturbation is not None and sample_id is not None:
            sample_id = f"{sample_id}/{perturbation}"
        rows.add(
            task=task,
            model=as_text(request.get("model") or default_model),
            sample_id=sample_id,
            epoch=(trial if isinstance(trial, int) else 0) + 1,
            input=as_text((instance.get("input") or {}).get("text")),
            response=response,
            references=references,
            choices=choices,
            verdicts=stats.get(_key(instance_id, trial, perturbation), {}),
        )
    return rows.frame()
