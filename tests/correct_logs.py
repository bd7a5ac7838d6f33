"""Write inspect-ai logs of real model answers, graded by inspect-ai's own scorers, offline.

Each task's solver sets ``state.output`` to a real model's answer (MMLU-Pro chain-of-thought
answers, GSM8K model solutions, from ``tests/data/report_*.parquet``) under inspect-ai's
``mockllm/model``, so no model is called; inspect-ai's ``choice()`` (multiple choice) and
``match(numeric=True)`` (numbers) then grade them as they grade any run. The logs are what a
user scoring an MMLU-Pro or GSM8K run with inspect-ai has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
#: MMLU-Pro has ten options (A to J); the option texts are not in the data: placeholders.
OPTIONS = [f"option {letter}" for letter in "ABCDEFGHIJ"]


def _rows(name: str) -> list[dict[str, Any]]:
    import polars as pl

    return pl.read_parquet(DATA / name).to_dicts()


def _canned(answers: dict[str, str]) -> Any:
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import solver

    @solver
    def canned() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            output = ModelOutput.from_content(
                model="mockllm/model", content=answers[str(state.sample_id)]
            )
            state.output = output
            state.messages.append(output.message)
            return state

        return solve

    return canned()


def _mmlu_pro_task() -> Any:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import choice

    rows = _rows("report_mmlu_pro.parquet")
    samples = [
        Sample(
            id=r["id"], input=f"Question {r['question_id']}", target=r["reference"], choices=OPTIONS
        )
        for r in rows
    ]
    answers = {r["id"]: r["response"] for r in rows}
    return Task(dataset=MemoryDataset(samples), solver=_canned(answers), scorer=choice())


def _gsm8k_task() -> Any:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import match

    rows = _rows("report_gsm8k.parquet")
    samples = [
        Sample(id=r["id"], input=f"Problem {r['gsm8k_test_index']}", target=r["reference"])
        for r in rows
    ]
    answers = {r["id"]: r["response"] for r in rows}
    return Task(dataset=MemoryDataset(samples), solver=_canned(answers), scorer=match(numeric=True))


def write_logs(directory: Path) -> dict[str, Path]:
    """Run both tasks with inspect-ai; return the ``.eval`` log of each, by task name."""
    from inspect_ai import eval as inspect_eval

    written = {}
    for name, task in (("mmlu_pro", _mmlu_pro_task()), ("gsm8k", _gsm8k_task())):
        logs = inspect_eval(
            task,
            model="mockllm/model",
            log_format="eval",
            log_dir=str(directory / name),
            display="none",
            max_samples=100,
        )
        written[name] = Path(logs[0].location)
    return written


def write_in_subprocess(directory: Path) -> dict[str, Path]:
    """:func:`write_logs` in a child process (inspect-ai's event loop stays out of the tests')."""
    done = subprocess.run(
        [sys.executable, __file__, str(directory)], check=True, capture_output=True, text=True
    )
    written: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: Path(path) for name, path in written.items()}


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    logs = write_logs(Path(sys.argv[1]))
    print(json.dumps({name: str(path) for name, path in logs.items()}))
