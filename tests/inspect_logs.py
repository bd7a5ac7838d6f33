"""Write real inspect-ai logs offline, with inspect-ai itself, for the log readers' tests.

A task whose solver sets ``state.output`` from canned answers (``ModelOutput.from_content``) runs
under inspect-ai's ``mockllm/model``, so no model is called and nothing is fetched from the
network (``generate`` would fetch tokenizer data). The samples cover what the reader must handle:
text and chat-message input, list targets, multiple choice, answers as text or as a list of
content parts, samples without any output, epochs, and scores given as grades, numbers,
booleans, dicts and NaN.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

ANSWERS = ["Paris", "The answer is 42", "I don't know", "blue", "Paris, France"]


def _sample(i: int) -> Any:
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    if i % 7 == 3:
        prompt: Any = [
            ChatMessageSystem(content="Answer in a few words."),
            ChatMessageUser(content=f"Question {i}: what is the capital of France?"),
        ]
    else:
        prompt = f"Question {i}: what is the capital of France?"
    target: Any = ["Paris", "paris, france"] if i % 5 == 0 else "Paris"
    choices = ["Paris", "Lyon", "Nice"] if i % 11 == 4 else None
    return Sample(id=i if i % 2 else f"s-{i}", input=prompt, target=target, choices=choices)


def _number(state: Any) -> int:
    return int(str(state.sample_id).removeprefix("s-"))


def _canned() -> Any:
    from inspect_ai.model import ContentText, ModelOutput
    from inspect_ai.solver import solver

    @solver
    def canned() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            i = _number(state)
            if i % 13 == 6:
                return state  # no output at all
            answer = ANSWERS[(i + state.epoch) % len(ANSWERS)]
            output = ModelOutput.from_content(model="mockllm/model", content=answer)
            if i % 4 == 1:  # the answer as a list of content parts
                output.choices[0].message.content = [
                    ContentText(text=answer),
                    ContentText(text="(sure)"),
                ]
                output.completion = ""
            state.output = output
            state.messages.append(output.message)
            return state

        return solve

    return canned()


def _graded_value(i: int) -> Any:
    from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, PARTIAL

    if i % 9 == 2:
        return math.nan
    if i % 9 == 5:
        return i % 2 == 0
    if i % 9 == 7:
        return round(i / 100, 2)
    return [CORRECT, PARTIAL, INCORRECT, NOANSWER][i % 4]


def _scorers() -> list[Any]:
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, includes, match, scorer

    @scorer(metrics=[accuracy()])
    def graded() -> Any:
        async def score(state: Any, target: Any) -> Any:
            return Score(value=_graded_value(_number(state)))

        return score

    @scorer(metrics={"*": [accuracy()]})
    def parts() -> Any:
        async def score(state: Any, target: Any) -> Any:
            i = _number(state)
            return Score(value={"exact": CORRECT if i % 3 else INCORRECT, "close": 0.25 * (i % 5)})

        return score

    return [match(), includes(), graded(), parts()]


def _task(n: int) -> Any:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset

    dataset = MemoryDataset([_sample(i) for i in range(n)])
    return Task(dataset=dataset, solver=_canned(), scorer=_scorers())


def write_inspect_logs(
    directory: Path, n: int, *, epochs: int = 1, formats: tuple[str, ...] = ("eval", "json")
) -> dict[str, Path]:
    """Run the canned task with inspect-ai; return the log written in each format."""
    from inspect_ai import eval as inspect_eval

    written = {}
    for log_format in formats:
        logs = inspect_eval(
            _task(n),
            model="mockllm/model",
            log_format=log_format,
            log_dir=str(directory / log_format),
            display="none",
            epochs=epochs,
            max_samples=max(1, min(n, 500)),
        )
        written[log_format] = Path(logs[0].location)
    return written


def write_in_subprocess(directory: Path, n: int, *, epochs: int = 1) -> dict[str, Path]:
    """:func:`write_inspect_logs` in a child process, so inspect-ai's event loop and the
    streams it leaves to the garbage collector stay out of the caller's process."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, __file__, str(directory), str(n), str(epochs)],
        check=True,
        capture_output=True,
        text=True,
    )
    written: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return {kind: Path(path) for kind, path in written.items()}


if __name__ == "__main__":
    import json
    import sys

    logs = write_inspect_logs(Path(sys.argv[1]), int(sys.argv[2]), epochs=int(sys.argv[3]))
    print(json.dumps({kind: str(path) for kind, path in logs.items()}))
