"""Write inspect-ai logs with several epochs per sample, with inspect-ai itself, for the tests of
clustered errors and epoch reducers: the log's results carry inspect-ai's own reduced accuracy
and standard error, which :func:`polarscore.summarize` must reproduce.

A canned solver answers each sample differently in each epoch (``mockllm/model``, nothing
fetched from the network); a scorer grades 0 / 1, or in steps of a quarter when graded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The reducers the logs are written with (inspect-ai's names).
REDUCERS = ("mean", "max", "mode", "at_least_2")


def _task(n: int, epochs: int, *, graded: bool) -> Any:
    from inspect_ai import Epochs, Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score, accuracy, scorer, stderr
    from inspect_ai.solver import solver

    @solver
    def canned() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            i = int(str(state.sample_id))
            # a per-sample ability, shared by the epochs: their scores are correlated
            right = (i * 7 + state.epoch * 3) % 10 < (i % 5) * 2 + 1
            answer = "yes" if right else "no"
            state.output = ModelOutput.from_content(model="mockllm/model", content=answer)
            return state

        return solve

    @scorer(metrics=[accuracy(), stderr()])
    def verdict() -> Any:
        async def score(state: Any, target: Any) -> Any:
            i = int(str(state.sample_id))
            right = state.output.completion == "yes"
            if graded:
                return Score(value=(0.5 if right else 0.0) + 0.25 * ((i + state.epoch) % 3 == 0))
            return Score(value=1.0 if right else 0.0)

        return score

    dataset = MemoryDataset([Sample(id=i, input=f"Question {i}?", target="yes") for i in range(n)])
    return Task(
        dataset=dataset,
        solver=canned(),
        scorer=verdict(),
        epochs=Epochs(epochs, list(REDUCERS)),
    )


def write_epoch_log(directory: Path, n: int, epochs: int, *, graded: bool = False) -> Path:
    """Run the task with inspect-ai; return the ``.eval`` log."""
    from inspect_ai import eval as inspect_eval

    logs = inspect_eval(
        _task(n, epochs, graded=graded),
        model="mockllm/model",
        log_format="eval",
        log_dir=str(directory),
        display="none",
        max_samples=max(1, min(n, 500)),
    )
    return Path(logs[0].location)


def write_in_subprocess(directory: Path, n: int, epochs: int, *, graded: bool = False) -> Path:
    """:func:`write_epoch_log` in a child process (inspect-ai's event loop stays out of ours)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, __file__, str(directory), str(n), str(epochs), str(int(graded))],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    import sys

    print(
        write_epoch_log(
            Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), graded=sys.argv[4] == "1"
        )
    )
