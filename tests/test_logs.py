"""The eval-log readers: every format field for field, detection by content, bad logs, the CLI.

inspect-ai logs are checked against inspect-ai's own reader (``read_eval_log``) when inspect-ai is
installed (the ``test`` extra): the real logs copied from its test suite, and logs it writes here,
offline, in both formats (``tests/inspect_logs.py``). The other formats are checked against the
raw records of the real logs (lm-evaluation-harness, HELM) and of the fixtures written from each
framework's writer (``tests/data/logs/make_fixtures.py``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polarscore as ps
from polarscore.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, main
from polarscore.exceptions import InputFileError, InvalidParameterError
from polarscore.logs._table import verdict

LOGS = Path(__file__).parent / "data" / "logs"
INSPECT = LOGS / "inspect"
HELM = LOGS / "helm"
MMLU = HELM / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
NARRATIVE = HELM / "narrative_qa-model=openai_gpt2"
LM_EVAL = LOGS / "lm_eval"
LIGHTEVAL = LOGS / "lighteval"


def _inspect_available() -> bool:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        return False
    return True


needs_inspect = pytest.mark.skipif(
    not _inspect_available() and not os.environ.get("CI"),
    reason="inspect-ai is not installed (the test extra installs it; CI requires it)",
)


@pytest.fixture(scope="session")
def written_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Logs inspect-ai writes here, once per session: 60 samples x 2 epochs, .eval and .json."""
    pytest.importorskip("inspect_ai")
    from tests.inspect_logs import write_in_subprocess

    return write_in_subprocess(tmp_path_factory.mktemp("inspect"), 60, epochs=2)


# -- inspect-ai against its own reader ------------------------------------------------------------


def _message_text(message: Any) -> str:
    return f"{message.role}: {message.text}"


def _expected_inspect(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """What inspect-ai's own reader says, in the canonical columns, by (sample id, epoch)."""
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    log = read_eval_log(str(path))
    expected = {}
    for sample in log.samples or []:
        prompt = sample.input
        text = prompt if isinstance(prompt, str) else "\n\n".join(map(_message_text, prompt))
        output = sample.output
        response = output.completion if (output.choices or output.completion) else None
        verdicts: dict[str, float | None] = {}
        for name, score in (sample.scores or {}).items():
            items = score.value.items() if isinstance(score.value, dict) else [(None, score.value)]
            for key, value in items:
                column = name if key is None else f"{name}_{key}"
                number = None if isinstance(value, float) and math.isnan(value) else value
                verdicts[f"framework_{column}"] = None if number is None else to_float(number)
        expected[(str(sample.id), sample.epoch)] = {
            "task": log.eval.task,
            "model": log.eval.model,
            "input": text,
            "response": response,
            "references": [sample.target] if isinstance(sample.target, str) else sample.target,
            "choices": sample.choices,
            **verdicts,
        }
    return expected


def _check_against_inspect(path: Path) -> pl.DataFrame:
    table = ps.read_log(path)
    expected = _expected_inspect(path)
    assert table.height == len(expected)
    assert table.schema["task_kind"] == pl.String
    assert table.drop("task_kind").schema == ps.logs.log_schema(
        [c.removeprefix("framework_") for c in table.columns if c.startswith("framework_")]
    )
    for row in table.iter_rows(named=True):
        want = expected[(row["sample_id"], row["epoch"])]
        for column, value in want.items():
            got = row.get(column)
            assert got == value, (path.name, row["sample_id"], row["epoch"], column, got, value)
        extra = [
            c for c in row if c.startswith("framework_") and c not in want and row[c] is not None
        ]
        assert not extra, (path.name, row["sample_id"], extra)
    return table


@needs_inspect
@pytest.mark.parametrize("name", sorted(p.name for p in INSPECT.iterdir()))
def test_real_inspect_logs_match_inspects_own_reader(name: str) -> None:
    _check_against_inspect(INSPECT / name)


@needs_inspect
@pytest.mark.parametrize("kind", ["eval", "json"])
def test_logs_inspect_writes_match_inspects_own_reader(
    written_logs: dict[str, Path], kind: str
) -> None:
    table = _check_against_inspect(written_logs[kind])
    assert table.height == 120
    assert set(table["epoch"]) == {1, 2}
    # Everything the canned task varies is there: chat input, list targets, choices, parts,
    # no output, and every kind of score value.
    assert table["input"].str.starts_with("system: ").any()
    assert (table["references"].list.len() == 2).any()
    assert table["choices"].is_not_null().any()
    assert table["response"].str.ends_with("(sure)").any()
    assert table["response"].null_count() > 0
    assert set(table["framework_graded"].drop_nulls()) >= {0.0, 0.5, 1.0}
    assert table["framework_graded"].null_count() > 0  # NaN
    assert {"framework_parts_exact", "framework_parts_close"} <= set(table.columns)


@needs_inspect
def test_eval_and_json_of_one_run_agree(written_logs: dict[str, Path]) -> None:
    by_key = ["sample_id", "epoch"]
    archive = ps.read_log(written_logs["eval"]).drop("source_format").sort(by_key)
    document = ps.read_log(written_logs["json"]).drop("source_format").sort(by_key)
    assert archive.equals(document)


def test_the_real_eval_and_json_of_one_run_agree() -> None:
    archive = ps.read_log(INSPECT / "log_formats.eval")
    document = ps.read_log(INSPECT / "log_formats.json")
    assert archive["source_format"].to_list() == ["inspect_eval"]
    assert document["source_format"].to_list() == ["inspect_json"]
    assert archive.drop("source_format").equals(document.drop("source_format"))


def test_inspect_logs_without_completion_and_with_content_parts() -> None:
    # Written by inspect-ai 0.3.108: no output.completion; the answer is the first choice's text.
    old = ps.read_log(INSPECT / "pubmedqa_gpt4o_mini.json")
    raw = json.loads((INSPECT / "pubmedqa_gpt4o_mini.json").read_text())
    assert "completion" not in raw["samples"][0]["output"]
    content = raw["samples"][0]["output"]["choices"][0]["message"]["content"]
    assert old["response"][0] == (content if isinstance(content, str) else content[0]["text"])
    # Message content as a list of parts: the text parts, joined by a newline.
    parts = ps.read_log(INSPECT / "arc_sonnet.json")
    raw = json.loads((INSPECT / "arc_sonnet.json").read_text())
    for row, sample in zip(parts.iter_rows(named=True), raw["samples"], strict=True):
        message = sample["output"]["choices"][0]["message"]["content"]
        texts = (
            [p["text"] for p in message if p.get("type") == "text"]
            if isinstance(message, list)
            else [message]
        )
        assert row["response"] == (sample["output"].get("completion") or "\n".join(texts))


def test_bare_nan_and_infinity_tokens(tmp_path: Path) -> None:
    text = (INSPECT / "log_formats.json").read_text()
    log = json.loads(text)
    log["samples"][0]["scores"]["match"]["value"] = float("nan")
    log["samples"].append({**log["samples"][0], "id": 2})
    log["samples"][1]["scores"] = {"match": {"value": float("inf")}}
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(log))  # Python writes NaN and Infinity as bare tokens
    assert "NaN" in path.read_text()
    assert "Infinity" in path.read_text()
    with pytest.raises(pl.exceptions.ComputeError):
        pl.read_json(path)  # strict JSON readers (Polars' included) reject them
    assert ps.read_log(path)["framework_match"].to_list() == [None, None]


def test_verdicts() -> None:
    values = ["C", "P", "I", "N", True, False, 1, 0.25, "0.75", "yes", "no", None]
    assert [verdict(v) for v in values] == [1, 0.5, 0, 0, 1, 0, 1, 0.25, 0.75, 1, 0, None]
    assert [verdict(v) for v in [math.nan, math.inf, "maybe", [1], {"a": 1}]] == [None] * 5


def test_an_unscored_log_has_no_verdict_column() -> None:
    table = ps.read_log(INSPECT / "popularity_unscored.eval")
    assert table.height == 10
    assert table.columns == [*ps.LOG_SCHEMA.names(), "task_kind"]


def test_eval_entries_are_read_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    from polarscore.logs import _inspect

    archive = _inspect.EvalArchive(INSPECT / "popularity_unscored.eval")
    sizes = [frame.height for frame in archive.batches(size=3)]
    assert sizes == [3, 3, 3, 1]
    lazy = ps.scan_log(INSPECT / "popularity_unscored.eval")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.head(2).collect().height == 2


# -- zstd archives --------------------------------------------------------------------------------


def _zip_with_method(path: Path, entries: dict[str, bytes], method: int) -> None:
    """Write a zip whose entries use ``method`` (93: zstd), as inspect-ai writes them."""
    import zstandard

    compress = {
        0: lambda b: b,
        8: lambda b: (
            zlib.compressobj(6, zlib.DEFLATED, -15).compress(b)
            + zlib.compressobj(6, zlib.DEFLATED, -15).flush()
        ),
        93: zstandard.ZstdCompressor().compress,
    }[method]
    local, central = bytearray(), bytearray()
    for name, data in entries.items():
        packed = compress(data) if method != 8 else zlib.compress(data)[2:-4]
        crc = zlib.crc32(data)
        offset = len(local)
        encoded = name.encode()
        local += (
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                63,
                0,
                method,
                0,
                0,
                crc,
                len(packed),
                len(data),
                len(encoded),
                0,
            )
            + encoded
            + packed
        )
        central += (
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                b"PK\x01\x02",
                63,
                63,
                0,
                method,
                0,
                0,
                crc,
                len(packed),
                len(data),
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(local), 0
    )
    path.write_bytes(bytes(local + central + end))


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


@pytest.mark.parametrize("method", [0, 8, 93])
def test_stored_deflate_and_zstd_entries_read_alike(tmp_path: Path, method: int) -> None:
    pytest.importorskip("zstandard")
    path = tmp_path / "log.eval"
    _zip_with_method(path, _entries(INSPECT / "log_streaming.eval"), method)
    if method == 93 and not hasattr(zipfile, "ZIP_ZSTANDARD"):
        with zipfile.ZipFile(path) as archive, pytest.raises(NotImplementedError):
            archive.read("header.json")  # Python's zipfile cannot, before 3.14
    assert ps.read_log(path).equals(ps.read_log(INSPECT / "log_streaming.eval"))


# -- bad logs --------------------------------------------------------------------------------------


def test_a_truncated_archive(tmp_path: Path) -> None:
    path = tmp_path / "cut.eval"
    data = (INSPECT / "log_streaming.eval").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError, match=r"cut\.eval.*not a complete zip archive"):
        ps.scan_log(path)


def test_a_zstd_entry_that_does_not_decompress(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    path = tmp_path / "bad.eval"
    entries = _entries(INSPECT / "log_streaming.eval")
    _zip_with_method(path, entries, 93)
    data = bytearray(path.read_bytes())
    where = data.index(b"samples/1_epoch_2.json") + len("samples/1_epoch_2.json")
    data[where + 4 : where + 40] = b"\xff" * 36  # inside the entry's zstd frame
    path.write_bytes(bytes(data))
    lazy = ps.scan_log(path)  # the header and the first entry read fine
    expected = r"bad\.eval.*samples/1_epoch_2\.json.*(does not decompress|CRC)"
    # Polars 2 re-raises the reader's error; Polars 1 wraps it in a ComputeError with its text.
    with pytest.raises((InputFileError, pl.exceptions.ComputeError), match=expected):
        lazy.collect()
    with pytest.raises(InputFileError, match=expected):
        ps.read_log(path)


def test_a_sample_that_is_not_json(tmp_path: Path) -> None:
    entries = _entries(INSPECT / "log_streaming.eval")
    entries["samples/1_epoch_2.json"] = b'{"id": 1, "epoch": 2, "input": "unfinished'
    path = tmp_path / "broken.eval"
    _zip_with_method(path, entries, 8)
    with pytest.raises(
        InputFileError, match=r"samples/1_epoch_2\.json.*broken\.eval.*not valid JSON"
    ):
        ps.read_log(path)
    lines = (LM_EVAL / next(p.name for p in LM_EVAL.glob("samples_*"))).read_text().splitlines()
    lm = tmp_path / "samples_t_2025-01-01T00-00-00.000001.jsonl"
    lm.write_text("\n".join([lines[0], lines[1][:50], *lines[2:]]) + "\n")
    with pytest.raises(InputFileError, match=r"Line 2 of .*samples_t_.*not valid JSON"):
        ps.read_log(lm)


def test_an_unknown_format_lists_the_formats(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"hello": "world"}')
    with pytest.raises(InputFileError, match=r"notes\.json.*inspect-ai .eval.*HELM.*promptfoo"):
        ps.scan_log(path)
    with pytest.raises(InputFileError, match="does not exist"):
        ps.scan_log(tmp_path / "missing.eval")


# -- detection by content --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (INSPECT / "log_formats.eval", "inspect_eval"),
        (INSPECT / "log_formats.json", "inspect_json"),
        (next(LM_EVAL.glob("samples_*")), "lm_eval"),
        (next(LM_EVAL.glob("results_*")), None),
        (LOGS / "lm_eval_0.4.2" / "results.json", None),
        (MMLU, "helm"),
        (MMLU / "scenario_state.json", "helm"),
        (LOGS / "promptfoo" / "results.json", "promptfoo"),
        (LOGS / "promptfoo" / "results.jsonl", "promptfoo"),
        (next((LOGS / "openai_evals").glob("*.jsonl")), "openai_evals"),
        (next(LIGHTEVAL.rglob("details_lighteval|gsm8k*")), "lighteval"),
        (Path(__file__).parent / "data" / "parity_cases.parquet", None),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else str(v),
)
def test_formats_are_told_by_content(path: Path, kind: str | None, tmp_path: Path) -> None:
    assert ps.detect_log_format(path) == kind
    if path.is_file() and kind is not None:
        renamed = tmp_path / "log.data"  # the suffix says nothing
        shutil.copy(path, renamed)
        assert ps.detect_log_format(renamed) == kind


def test_every_format_gives_the_canonical_schema() -> None:
    for source in [
        INSPECT,
        LM_EVAL,
        LOGS / "lm_eval_0.4.2",
        HELM,
        LOGS / "promptfoo",
        LOGS / "openai_evals",
        LIGHTEVAL,
    ]:
        table = ps.read_log(source)
        assert table.columns[: len(ps.LOG_SCHEMA)] == ps.LOG_SCHEMA.names(), source
        assert all(table.schema[c] == t for c, t in ps.LOG_SCHEMA.items()), source
        assert table.columns[len(ps.LOG_SCHEMA)] == "task_kind", source
        framework = table.columns[len(ps.LOG_SCHEMA) + 1 :]
        assert all(c.startswith("framework_") and table.schema[c] == pl.Float64 for c in framework)
        assert table.height > 0


# -- lm-evaluation-harness -------------------------------------------------------------------------


def test_lm_eval_samples_against_their_records() -> None:
    path = next(LM_EVAL.glob("samples_*"))
    table = ps.read_log(path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    results = json.loads(next(LM_EVAL.glob("results_*")).read_text())
    assert table.height == len(records)
    for row, record in zip(table.iter_rows(named=True), records, strict=True):
        assert row["task"] == "math_perturbed_full"
        assert row["model"] == results["model_name"]
        assert row["sample_id"] == str(record["doc_id"])
        assert row["input"] == record["arguments"]["gen_args_0"]["arg_0"]
        assert row["response"] == record["filtered_resps"][0]
        assert row["references"] == [record["target"]]
        assert row["framework_exact_match"] == record["exact_match"]


def test_lm_eval_json_array_multiple_choice() -> None:
    table = ps.read_log(LOGS / "lm_eval_0.4.2")
    assert table["model"].to_list() == ["EleutherAI/pythia-160m"] * 2  # from config.model_args
    assert table["task"].to_list() == ["arc_easy"] * 2
    assert table["choices"].to_list() == [["shark", "whale", "trout"], ["heat", "cold"]]
    assert table["response"].to_list() == ["whale", "cold"]  # the highest loglikelihood
    assert table["references"].to_list() == [["whale"], ["heat"]]  # the target's index
    assert table["framework_acc"].to_list() == [1.0, 0.0]
    assert table["framework_acc_norm"].to_list() == [None, None]  # NaN


def test_lm_eval_filters_and_list_targets(tmp_path: Path) -> None:
    path = next(LM_EVAL.glob("samples_*"))
    record = json.loads(path.read_text().splitlines()[0])
    strict = {
        **record,
        "filter": "strict-match",
        "filtered_resps": ["[invalid]"],
        "target": "['3', 'three']",
    }
    target = tmp_path / path.name
    target.write_text(json.dumps(record) + "\n" + json.dumps(strict) + "\n")
    shutil.copy(next(LM_EVAL.glob("results_*")), tmp_path)
    table = ps.read_log(target)
    assert table["task"].to_list() == ["math_perturbed_full", "math_perturbed_full,strict-match"]
    assert table["response"][1] == "[invalid]"
    assert table["references"][1].to_list() == ["3", "three"]


# -- HELM ------------------------------------------------------------------------------------------


def test_helm_runs_against_their_files() -> None:
    for folder in (MMLU, NARRATIVE):
        table = ps.read_log(folder)
        state = json.loads((folder / "scenario_state.json").read_text())
        stats = json.loads((folder / "per_instance_stats.json").read_text())
        name = json.loads((folder / "run_spec.json").read_text())["name"]
        exact = {
            (s["instance_id"], s["train_trial_index"]): next(
                x["mean"] for x in s["stats"] if x["name"]["name"] == "exact_match"
            )
            for s in stats
        }
        assert table.height == len(state["request_states"])
        for row, request in zip(table.iter_rows(named=True), state["request_states"], strict=True):
            instance = request["instance"]
            text = request["result"]["completions"][0]["text"]
            mapping = request.get("output_mapping")
            assert row["task"] == name
            assert row["model"] == request["request"]["model"]
            assert row["sample_id"] == instance["id"]
            assert row["epoch"] == request["train_trial_index"] + 1
            assert row["input"] == instance["input"]["text"]
            assert row["response"] == (mapping.get(text.strip(), text) if mapping else text)
            assert row["references"] == [
                r["output"]["text"] for r in instance["references"] if "correct" in r["tags"]
            ]
            assert row["choices"] == (list(mapping.values()) if mapping else None)
            assert (
                row["framework_exact_match"]
                == exact[(instance["id"], request["train_trial_index"])]
            )
        assert not any(c.startswith("framework_num_") for c in table.columns)


# -- promptfoo -------------------------------------------------------------------------------------


def test_promptfoo_json_and_jsonl_agree() -> None:
    document = ps.read_log(LOGS / "promptfoo" / "results.json")
    lines = ps.read_log(LOGS / "promptfoo" / "results.jsonl")
    assert document.equals(lines)
    raw = json.loads((LOGS / "promptfoo" / "results.json").read_text())["results"]["results"]
    for row, result in zip(document.iter_rows(named=True), raw, strict=True):
        assert row["model"] == (result["provider"].get("label") or result["provider"]["id"])
        assert row["task"] == result["prompt"]["label"]
        assert row["sample_id"] == str(result["testIdx"])
        assert row["response"] == result["response"].get("output")
        assert row["framework_pass"] == float(result["success"])
        assert row["framework_score"] == float(result["score"])
    chat = document.filter(pl.col("task") == "chat")["input"][0]
    assert chat.startswith("system: You answer in one word.\n\nuser: ")


def test_promptfoo_references_from_a_variable_or_an_assertion() -> None:
    path = LOGS / "promptfoo" / "results.json"
    default = ps.read_log(path)["references"].to_list()[:3]
    assert default == [["Paris"], ["4"], None]  # var:expected, then the nested equals
    by_type = ps.read_log(path, promptfoo_reference="assert:contains-any")["references"]
    assert by_type.to_list()[:3] == [None, None, ["red", "blue", "yellow"]]
    in_order = ps.read_log(path, promptfoo_reference=["assert:icontains", "assert:equals"])
    assert in_order["references"].to_list()[:2] == [["paris"], ["4"]]
    with pytest.raises(InvalidParameterError, match=r"'var:NAME'.*'assert:TYPE'"):
        ps.read_log(path, promptfoo_reference="expected")


# -- OpenAI evals ----------------------------------------------------------------------------------


def test_openai_evals_joins_sampling_and_match() -> None:
    path = next((LOGS / "openai_evals").glob("*.jsonl"))
    table = ps.read_log(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    spec = lines[0]["spec"]
    assert set(table["task"]) == {spec["eval_name"]}
    assert set(table["model"]) == {"gpt-3.5-turbo"}
    rows = {r["sample_id"]: r for r in table.iter_rows(named=True)}
    for event in lines[1:-1]:
        row = rows[event["sample_id"]]
        if event["type"] == "sampling":
            assert row["response"] == event["data"]["sampled"][0]
        elif event["type"] == "match":
            expected = event["data"]["expected"]
            assert row["references"] == (expected if isinstance(expected, list) else [expected])
            assert row["framework_correct"] == float(event["data"]["correct"])
    assert rows["test-match.s1.simple-v0.0"]["input"].startswith("system: Complete the phrase")
    assert rows["test-match.s1.simple-v0.2"]["framework_score"] == 0.5
    assert rows["test-match.s1.simple-v0.3"]["framework_correct"] is None  # never matched


# -- lighteval -------------------------------------------------------------------------------------


def test_lighteval_column_layouts() -> None:
    table = ps.read_log(LIGHTEVAL)
    assert set(table["model"]) == {"HuggingFaceTB/SmolLM2-135M"}  # from the results file
    by_task = {t: table.filter(pl.col("task") == t) for t in table["task"].unique()}
    gsm8k = by_task["lighteval|gsm8k|5"]
    assert gsm8k["response"].to_list() == ["42", "8"]
    assert gsm8k["references"].to_list() == [["42"], ["7"]]
    assert gsm8k["framework_quasi_exact_match"].to_list() == [1.0, 0.0]
    assert gsm8k["framework_f1"].to_list() == [1.0, None]  # NaN
    arc = by_task["harness|arc:challenge|25"]  # every value stored as its str()
    assert arc["response"].to_list() == ["carbon dioxide", "ice"]
    assert arc["references"].to_list() == [["carbon dioxide"], ["ice"]]
    assert arc["framework_acc_norm"].to_list() == [1.0, 0.0]
    trivia = by_task["lighteval|triviaqa|0"]
    assert trivia["sample_id"].to_list() == ["q1", "q2"]
    assert trivia["references"].to_list() == [["Rome"], ["Pacific", "Pacific Ocean"]]
    mc = by_task["lighteval|arithmetic_mc|0"]
    assert mc["response"].to_list() == ["5"]
    assert mc["choices"].to_list() == [["4", "5"]]


# -- the command line ------------------------------------------------------------------------------


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "source",
    [
        INSPECT / "log_streaming.eval",
        LM_EVAL,
        MMLU,
        LOGS / "promptfoo" / "results.jsonl",
        LOGS / "openai_evals",
        LIGHTEVAL,
    ],
    ids=lambda p: p.name,
)
def test_cli_scores_a_log_with_no_flags(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.parquet"
    code, err = _run(
        ["score", str(source), "-o", str(out), "--scorer", "answer_correctness", "-q"], capsys
    )
    assert code == EXIT_OK, err
    scored = pl.read_parquet(out)
    log = ps.read_log(source)
    assert scored.select(log.columns).equals(log)
    expected = ps.score_frame(log, references="references", scorers="answer_correctness")
    assert scored["answer_correctness"].equals(expected["answer_correctness"])
    assert {"sample_id", "epoch", "model"} <= set(scored.columns)


def test_cli_scores_a_folder_and_a_glob_of_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.parquet"
    code, err = _run(
        ["score", str(LOGS), "-o", str(out), "--scorer", "answer_correctness", "-q"], capsys
    )
    assert code == EXIT_OK, err
    formats = set(pl.read_parquet(out)["source_format"])
    assert formats == {
        "inspect_eval",
        "inspect_json",
        "lm_eval",
        "helm",
        "promptfoo",
        "openai_evals",
        "lighteval",
    }
    code, err = _run(
        ["score", str(INSPECT / "*.eval"), "-o", str(out), "--overwrite", "-q"], capsys
    )
    assert code == EXIT_OK, err
    assert set(pl.read_parquet(out)["source_format"]) == {"inspect_eval"}


@pytest.mark.parametrize("problem", ["truncated", "zstd", "not-json", "unknown"])
def test_cli_bad_logs_exit_4_and_write_nothing(
    problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = _entries(INSPECT / "log_streaming.eval")
    path = tmp_path / "log.eval"
    if problem == "truncated":
        data = (INSPECT / "log_streaming.eval").read_bytes()
        path.write_bytes(data[: len(data) - 300])
    elif problem == "zstd":
        pytest.importorskip("zstandard")
        _zip_with_method(path, entries, 93)
        data = bytearray(path.read_bytes())
        where = data.index(b"samples/1_epoch_2.json") + len("samples/1_epoch_2.json")
        data[where + 4 : where + 40] = b"\xff" * 36
        path.write_bytes(bytes(data))
    elif problem == "not-json":
        entries["samples/2_epoch_1.json"] = b"{not json"
        _zip_with_method(path, entries, 8)
    else:
        path = tmp_path / "log.txt"
        path.write_text("just some text\n")
    out = tmp_path / "scored.parquet"
    code, err = _run(["score", str(path), "-o", str(out)], capsys)
    assert code == EXIT_INPUT
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0]
    assert "Traceback" not in err
    assert not out.exists()
    assert os.listdir(tmp_path) == [path.name]


def test_cli_promptfoo_reference_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scored.parquet"
    source = str(LOGS / "promptfoo" / "results.json")
    flags = ["--promptfoo-reference", "assert:contains-any", "--scorer", "answer_correctness", "-q"]
    code, err = _run(["score", source, "-o", str(out), *flags], capsys)
    assert code == EXIT_OK, err
    assert pl.read_parquet(out)["references"].to_list()[2] == ["red", "blue", "yellow"]
    code, err = _run(
        ["score", source, "-o", str(out), "--promptfoo-reference", "x", "--overwrite"], capsys
    )
    assert code == EXIT_USAGE
    assert "'var:NAME'" in err


def test_cli_summary_groups_by_model_with_the_framework_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.parquet"
    source = str(LOGS / "promptfoo" / "results.json")
    assert (
        _run(["score", source, "-o", str(out), "--scorer", "answer_correctness", "-q"], capsys)[0]
        == 0
    )
    code = main(["summary", str(out), "--json", "--n-bootstrap", "0"])
    rows = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK
    assert {r["model"] for r in rows} == {"openai:gpt-4o-mini", "anthropic:claude-3-haiku"}
    assert {r["score"] for r in rows} == {
        "answer_correctness",
        "framework_pass",
        "framework_score",
        "framework_brevity",
    }
    table = pl.read_parquet(out)
    for row in rows:
        group = table.filter(pl.col("model") == row["model"])[row["score"]]
        assert row["rows"] == group.len()
        assert row["scored"] == group.count()


def test_report_shows_where_polarscore_and_the_framework_disagree(tmp_path: Path) -> None:
    log = ps.read_log(LOGS / "promptfoo" / "results.json")
    scored = ps.score_frame(log, references="references", scorers="answer_correctness")
    page = ps.report(scored, n_bootstrap=0)
    assert "Against the framework's own verdicts" in page
    assert "polarscore passes, the framework says wrong" in page
    assert "polarscore fails, the framework says correct" in page
    both = scored.drop_nulls(["answer_correctness", "framework_pass"])
    disagree = both.filter(
        (pl.col("answer_correctness") >= 0.5) != (pl.col("framework_pass") >= 0.5)
    )
    assert disagree.height > 0  # "paris" fails promptfoo's exact equals, passes normalized
    from polarscore.reporting import build_report_data

    data = build_report_data(scored, n_bootstrap=0)
    frameworks = {c.framework: c for c in data.frameworks}
    assert set(frameworks) == {"framework_pass", "framework_score", "framework_brevity"}
    confusion = frameworks["framework_pass"].agreements[0].confusion
    assert confusion.n == both.height
    assert confusion.false_pass + confusion.false_fail == disagree.height
    assert data.by == ["model"]
    assert ps.report(scored, n_bootstrap=0, framework=[]).count("framework_pass") < page.count(
        "framework_pass"
    )
