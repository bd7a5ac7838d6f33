"""Write the fixture logs of the frameworks that have no real log in this folder.

The records follow each framework's own writer (cited per function), field for field; the values
are made up. Run from the repository root: ``python tests/data/logs/make_fixtures.py``. The
files are committed; this script documents how they were made.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).parent
TIME = "2025-06-03T10-11-12.123456"


def _promptfoo_results() -> list[dict[str, object]]:
    """promptfoo's ``EvaluateResult`` (src/types/index.ts), one per test x prompt x provider."""
    prompts = [
        {"raw": "Answer briefly: {{question}}", "label": "brief"},
        {
            "raw": json.dumps(
                [
                    {"role": "system", "content": "You answer in one word."},
                    {"role": "user", "content": "{{question}}"},
                ]
            ),
            "label": "chat",
        },
    ]
    providers = [{"id": "openai:gpt-4o-mini", "label": ""}, {"id": "anthropic:claude-3-haiku"}]
    tests = [
        {
            "vars": {"question": "What is the capital of France?", "expected": "Paris"},
            "assert": [
                {"type": "equals", "value": "Paris"},
                {"type": "icontains", "value": "paris"},
            ],
        },
        {
            "vars": {"question": "2 + 2?"},
            "assert": [
                {"type": "assert-set", "assert": [{"type": "equals", "value": "4"}]},
                {"type": "javascript", "value": "output.length < 10", "metric": "brevity"},
            ],
        },
        {
            "vars": {"question": "Name a primary colour."},
            "assert": [{"type": "contains-any", "value": ["red", "blue", "yellow"]}],
        },
    ]
    answers = {
        (0, 0): "Paris",
        (0, 1): "Paris.",
        (1, 0): "4",
        (1, 1): "Four",
        (2, 0): "Blue",
        (2, 1): None,  # the provider failed: no output
    }
    results = []
    for prompt_idx, prompt in enumerate(prompts):
        for provider in providers:
            for test_idx, test in enumerate(tests):
                output = answers[(test_idx, prompt_idx)]
                provider_id = provider["id"]
                if output is not None and provider_id.startswith("anthropic"):
                    output = output.lower()
                # promptfoo passes a test when all its assertions pass: equals is exact,
                # icontains ignores case, contains-any does not.
                checks = {
                    0: lambda o: o == "Paris" and "paris" in o.lower(),
                    1: lambda o: o == "4" and len(o) < 10,
                    2: lambda o: any(c in o for c in ("red", "blue", "yellow")),
                }
                success = output is not None and checks[test_idx](output)
                named = {"brevity": 1.0} if test_idx == 1 and output is not None else {}
                result: dict[str, object] = {
                    "id": f"r-{prompt_idx}-{provider_id}-{test_idx}",
                    "evalId": "eval-Xy1-2025-06-03T10:11:12",
                    "promptIdx": prompt_idx,
                    "testIdx": test_idx,
                    "testCase": {**test, "options": {}},
                    "promptId": f"p{prompt_idx}",
                    "provider": provider,
                    "prompt": {
                        "raw": prompt["raw"].replace("{{question}}", str(test["vars"]["question"])),
                        "label": prompt["label"],
                    },
                    "vars": test["vars"],
                    "latencyMs": 321,
                    "cost": 0.0001,
                    "namedScores": named,
                    "success": success,
                    "score": 1 if success else 0,
                    "failureReason": 0 if success else (2 if output is None else 1),
                    "gradingResult": {
                        "pass": success,
                        "score": 1 if success else 0,
                        "reason": "All assertions passed" if success else "Expected output",
                        "namedScores": named,
                        "componentResults": [],
                    },
                    "metadata": {},
                }
                if output is None:
                    result["error"] = "API error: 529 overloaded"
                    result["response"] = {"error": "API error: 529 overloaded"}
                else:
                    result["response"] = {
                        "output": output,
                        "tokenUsage": {"total": 12, "prompt": 10, "completion": 2},
                        "cached": False,
                    }
                results.append(result)
    return results


def promptfoo() -> None:
    """``promptfoo eval -o results.json`` (writeOutput: evalId, results, config, shareableUrl)
    and ``-o results.jsonl`` (one result per line)."""
    folder = HERE / "promptfoo"
    folder.mkdir(exist_ok=True)
    results = _promptfoo_results()
    document = {
        "evalId": "eval-Xy1-2025-06-03T10:11:12",
        "results": {
            "version": 3,
            "timestamp": "2025-06-03T10:11:12.000Z",
            "prompts": [],
            "results": results,
            "stats": {"successes": sum(bool(r["success"]) for r in results), "failures": 0},
        },
        "config": {"description": "capitals and sums", "prompts": [], "providers": [], "tests": []},
        "shareableUrl": None,
    }
    (folder / "results.json").write_text(json.dumps(document, indent=2) + "\n")
    lines = "\n".join(json.dumps(r) for r in results) + "\n"
    (folder / "results.jsonl").write_text(lines)


def openai_evals() -> None:
    """``oaieval`` LocalRecorder (evals/record.py): the spec line, events, the final report."""
    folder = HERE / "openai_evals"
    folder.mkdir(exist_ok=True)
    run = "250603101112ABCDEFGH"
    spec = {
        "spec": {
            "completion_fns": ["gpt-3.5-turbo"],
            "eval_name": "test-match.s1.simple-v0",
            "base_eval": "test-match",
            "split": "s1",
            "run_config": {"completion_fns": ["gpt-3.5-turbo"], "eval_spec": {}},
            "created_by": "",
            "run_id": run,
            "created_at": "2025-06-03 10:11:12.123456",
        }
    }
    events: list[dict[str, object]] = []

    def event(sample: str, kind: str, data: dict[str, object]) -> None:
        events.append(
            {
                "run_id": run,
                "event_id": len(events),
                "sample_id": sample,
                "type": kind,
                "data": data,
                "created_by": "",
                "created_at": "2025-06-03 10:11:13.000000+00:00",
            }
        )

    chat = [
        {"role": "system", "content": "Complete the phrase as concisely as possible."},
        {"role": "user", "content": "Once upon a "},
    ]
    event("test-match.s1.simple-v0.0", "sampling", {"prompt": chat, "sampled": ["time"]})
    event(
        "test-match.s1.simple-v0.1",
        "sampling",
        {"prompt": "The first US president was", "sampled": ["George Washington"]},
    )
    # Samples run concurrently: a match may come after another sample's sampling.
    event(
        "test-match.s1.simple-v0.0",
        "match",
        {
            "correct": True,
            "expected": "time",
            "picked": "time",
            "sampled": "time",
            "options": ["time"],
        },
    )
    event(
        "test-match.s1.simple-v0.1",
        "match",
        {
            "correct": False,
            "expected": ["Washington", "George Washington."],
            "picked": None,
            "sampled": "George Washington",
            "options": ["Washington", "George Washington."],
        },
    )
    event("test-match.s1.simple-v0.2", "sampling", {"prompt": "2+2=", "sampled": ["4"]})
    event("test-match.s1.simple-v0.2", "metrics", {"score": 0.5, "choice": "Y"})
    event(
        "test-match.s1.simple-v0.2",
        "match",
        {"correct": True, "expected": "4", "picked": "4", "sampled": "4"},
    )
    event(
        "test-match.s1.simple-v0.3",
        "sampling",
        {"prompt": "Largest planet?", "sampled": ["Saturn"]},
    )
    lines = [spec, *events, {"final_report": {"accuracy": 2 / 3, "boostrap_std": 0.3}}]
    (folder / f"{run}_gpt-3.5-turbo_test-match.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n"
    )


def lighteval() -> None:
    """lighteval details: its three column layouts, with the results file beside them."""
    root = HERE / "lighteval"
    model = "HuggingFaceTB/SmolLM2-135M"
    details = root / "details" / model / TIME
    details.mkdir(parents=True, exist_ok=True)
    results = root / "results" / model
    results.mkdir(parents=True, exist_ok=True)
    (results / f"results_{TIME}.json").write_text(
        json.dumps(
            {"config_general": {"model_name": model, "model_sha": "abc"}, "results": {}}, indent=2
        )
    )
    # Up to 0.9: one column per field of DetailsLogger.Detail, sorted; generative task.
    generative = {
        "cont_tokens": [[[1, 2]], [[3]]],
        "choices": [[], []],
        "example": ["What is 6 x 7?", "What is 10 - 3?"],
        "full_prompt": ["Question: What is 6 x 7?\nAnswer:", "Question: What is 10 - 3?\nAnswer:"],
        "gold": [["42"], ["7"]],
        "gold_index": [[], []],
        "input_tokens": [[[5, 6]], [[7]]],
        "instruction": ["", ""],
        "metrics": [
            {"quasi_exact_match": 1.0, "f1": 1.0},
            {"quasi_exact_match": 0.0, "f1": float("nan")},
        ],
        "num_asked_few_shots": [5, 5],
        "num_effective_few_shots": [5, 5],
        "padded": [[0], [0]],
        "pred_logits": [[], []],
        "predictions": [["42"], ["8"]],
        "prediction_logits": [[], []],
        "specifics": [{"id": "a"}, {"id": "b"}],
        "truncated": [[0], [0]],
    }
    pq.write_table(pa.table(generative), details / f"details_lighteval|gsm8k|5_{TIME}.parquet")
    # Open LLM Leaderboard v1 style: every value written as its str(); multiple choice.
    mc_rows = [
        {
            "example": "Which gas do plants absorb?",
            "full_prompt": "Question: Which gas do plants absorb?\nAnswer:",
            "predictions": str([[-3.2, False], [-0.4, True], [-2.9, False]]),
            "choices": str([" oxygen", " carbon dioxide", " helium"]),
            "gold_index": str([1]),
            "gold": str([]),
            "metrics": str({"acc": 1.0, "acc_norm": 1.0}),
        },
        {
            "example": "What is frozen water?",
            "full_prompt": "Question: What is frozen water?\nAnswer:",
            "predictions": str([[-1.0, True], [-0.5, False]]),
            "choices": str([" steam", " ice"]),
            "gold_index": str([1]),
            "gold": str([]),
            "metrics": str({"acc": 1.0, "acc_norm": 0.0}),
        },
    ]
    pq.write_table(
        pa.Table.from_pylist(mc_rows), details / f"details_harness|arc:challenge|25_{TIME}.parquet"
    )
    # 0.10 and later: doc, model_response and metric structs.
    doc_rows = [
        {
            "doc": {
                "query": "Capital of Italy?",
                "choices": ["Rome"],
                "gold_index": [0],
                "task_name": "lighteval|triviaqa|0",
                "id": "q1",
                "instruction": "",
            },
            "model_response": {"text": ["Rome."], "logprobs": [], "input": "Capital of Italy?"},
            "metric": {"em": 0.0, "quasi_em": 1.0},
        },
        {
            "doc": {
                "query": "Largest ocean?",
                "choices": ["Pacific", "Pacific Ocean"],
                "gold_index": [0, 1],
                "task_name": "lighteval|triviaqa|0",
                "id": "q2",
                "instruction": "",
            },
            "model_response": {"text": ["Atlantic"], "logprobs": [], "input": "Largest ocean?"},
            "metric": {"em": 0.0, "quasi_em": 0.0},
        },
        {
            "doc": {
                "query": "2 + 3 =",
                "choices": [" 4", " 5"],
                "gold_index": [1],
                "task_name": "lighteval|arithmetic_mc|0",
                "id": "q3",
                "instruction": "",
            },
            "model_response": {"text": [], "logprobs": [-2.5, -0.1], "input": "2 + 3 ="},
            "metric": {"em": None, "quasi_em": None},
        },
    ]
    pq.write_table(
        pa.Table.from_pylist(doc_rows), details / f"details_lighteval|triviaqa|0_{TIME}.parquet"
    )


def lm_eval_array() -> None:
    """lm-evaluation-harness up to 0.4.2: ``<model_args>_<task>.jsonl`` holding a JSON array
    (``json.dumps(samples, indent=2)``) and ``results.json``; a multiple-choice task."""
    folder = HERE / "lm_eval_0.4.2"
    folder.mkdir(exist_ok=True)
    results = {
        "results": {"arc_easy": {"acc,none": 0.5, "acc_stderr,none": 0.5}},
        "configs": {"arc_easy": {"task": "arc_easy", "output_type": "multiple_choice"}},
        "versions": {"arc_easy": 1.0},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m,dtype=float32"},
    }
    (folder / "results.json").write_text(json.dumps(results, indent=2))
    samples = []
    for doc_id, (question, choices, gold, logprobs) in enumerate(
        [
            ("Which is a mammal?", ["shark", "whale", "trout"], 1, [-4.1, -1.2, -3.3]),
            ("What melts ice?", ["heat", "cold"], 0, [-2.0, -0.7]),
        ]
    ):
        samples.append(
            {
                "doc_id": doc_id,
                "doc": {"question": question, "choices": {"text": choices}, "answerKey": gold},
                "target": gold,
                "arguments": [[f"Question: {question}\nAnswer:", f" {c}"] for c in choices],
                "resps": [[[lp, False]] for lp in logprobs],
                "filtered_resps": [[lp, False] for lp in logprobs],
                "acc": float(max(range(len(choices)), key=lambda i: logprobs[i]) == gold),
                "acc_norm": math.nan,
            }
        )
    (folder / "pretrained__EleutherAI__pythia-160m,dtype__float32_arc_easy.jsonl").write_text(
        json.dumps(samples, indent=2)
    )


if __name__ == "__main__":
    promptfoo()
    openai_evals()
    lighteval()
    lm_eval_array()
