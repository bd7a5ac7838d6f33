"""Hostile eval logs for every reader, on the command line: bombs, lies, overlaps, nesting, bloat.

Each case is a log written here byte by byte (``tests/hostile_logs.py``) and scored by
``polarscore score LOG -o OUT`` in a subprocess whose address space is capped at 1 GiB
(``RLIMIT_AS``) and whose peak RSS (its ``ru_maxrss``, from ``os.wait4``) must stay under 1 GiB.
The child runs with the environment :data:`CHILD_ENV` adds: without it an ordinary run reserves
1.3 to 2.7 GiB of address space it never touches (glibc's 64 MiB heap per thread, pyarrow's
mimalloc arenas, OpenBLAS' and jemalloc's per-thread buffers, a thread pool per core) and a
1 GiB cap fails it at random (docs/guarantees.md, "Hostile logs"). A case ends with exit 0 and its
rows, or exit 4 and one line on stderr naming the file (and the entry, for an archive); never a
traceback nor exit 1, and the output path holds what it held before unless the run succeeded.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import polars as pl
import pytest
from hypothesis import given
from polars.testing import assert_frame_equal

from polarscore.exceptions import InputFileError
from polarscore.logs._table import JsonTooDeepError
from tests.cli_process import COMMAND, ENV, ROOT
from tests.hostile_logs import (
    DEFLATED,
    HEADER,
    STORED,
    ZSTANDARD,
    Entry,
    entry,
    eval_log,
    nested,
    packed_run,
    sample_text,
    swap,
    tiny_samples,
    zip_archive,
)

LOGS = ROOT / "tests" / "data" / "logs"
GiB = 1 << 30
#: The address space a case may reserve (see the module's docstring).
ADDRESS_SPACE = GiB
#: What the child needs to run within :data:`ADDRESS_SPACE`: one glibc malloc arena (not one of
#: 64 MiB per thread), pyarrow on the system allocator (not mimalloc's arenas), one OpenBLAS
#: thread, one jemalloc arena for Polars, and two threads in Polars' and Rayon's pools whatever
#: the machine's cores.
CHILD_ENV = {
    **ENV,
    "MALLOC_ARENA_MAX": "1",
    "ARROW_DEFAULT_MEMORY_POOL": "system",
    "OPENBLAS_NUM_THREADS": "1",
    "_RJEM_MALLOC_CONF": "narenas:1",
    "POLARS_MAX_THREADS": "2",
    "RAYON_NUM_THREADS": "2",
}
PREVIOUS = b"the previous result"
DEEP = 100_000
#: Inflated size of the bombs: over the 256 MiB default limit on an entry.
BOMB = 300 << 20


@dataclass
class Run:
    code: int
    stderr: str
    peak_rss: int
    output: Path


def _limit_memory() -> None:
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cap = ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(hard, ADDRESS_SPACE)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def score(log: Path, tmp_path: Path, *options: str) -> Run:
    """Score ``log`` in a subprocess limited to 1 GiB of address space; its exit and peak RSS."""
    output = tmp_path / "out" / "scored.parquet"
    output.parent.mkdir(exist_ok=True)
    output.write_bytes(PREVIOUS)
    command = [*COMMAND, "score", str(log), "-o", str(output), "--overwrite", "-q", *options]
    with open(tmp_path / "stderr.txt", "w+") as stderr:
        process = subprocess.Popen(
            command, env=CHILD_ENV, cwd=ROOT, stderr=stderr, preexec_fn=_limit_memory
        )
        killer = threading.Timer(120, process.kill)  # a hang fails the test, never the suite
        killer.start()
        _, status, usage = os.wait4(process.pid, 0)
        killer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        text = stderr.read()
    return Run(process.returncode, text, usage.ru_maxrss * 1024, output)


def assert_refused(run: Run, *needles: str) -> str:
    """Exit 4, one line on stderr holding ``needles``, the output untouched."""
    assert run.code == 4, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("polarscore: error:"), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert run.output.read_bytes() == PREVIOUS
    assert sorted(p.name for p in run.output.parent.iterdir()) == ["scored.parquet"]
    assert run.peak_rss < GiB
    return lines[0]


def assert_read(run: Run, rows: int) -> pl.DataFrame:
    """Exit 0 and ``rows`` rows written."""
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    scored = pl.read_parquet(run.output)
    assert scored.height == rows
    assert run.peak_rss < GiB
    return scored


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# --- inspect-ai .eval: the archive ------------------------------------------------------------


@pytest.mark.parametrize("method", [DEFLATED, ZSTANDARD], ids=["deflate", "zstd"])
def test_a_bomb_declaring_its_size_is_refused_by_the_limit(tmp_path: Path, method: int) -> None:
    packed, crc = packed_run(b" ", BOMB, method)
    bomb = Entry("samples/1_epoch_1.json", packed, method, BOMB, crc)
    log = write(tmp_path / "bomb.eval", eval_log([bomb]))
    assert log.stat().st_size < BOMB // 100
    line = assert_refused(
        score(log, tmp_path), "samples/1_epoch_1.json", f"{BOMB:,}", "--max-entry-bytes"
    )
    assert str(log) in line


@pytest.mark.parametrize("method", [DEFLATED, ZSTANDARD], ids=["deflate", "zstd"])
def test_a_bomb_lying_about_its_size_is_refused(tmp_path: Path, method: int) -> None:
    packed, crc = packed_run(b" ", BOMB, method)
    # The directory declares 1,000 bytes; the entry inflates to 300 MiB.
    liar = Entry("samples/1_epoch_1.json", packed, method, 1_000, crc)
    log = write(tmp_path / "liar.eval", eval_log([liar]))
    line = assert_refused(score(log, tmp_path), "samples/1_epoch_1.json", "1,000 bytes")
    assert "more than" in line
    assert "declares" in line


@pytest.mark.parametrize("method", [DEFLATED, ZSTANDARD], ids=["deflate", "zstd"])
def test_the_limit_is_lifted_by_the_option(tmp_path: Path, method: int) -> None:
    text = sample_text(1, metadata={"pad": " " * (8 << 20)})
    log = write(tmp_path / "big.eval", eval_log([entry("samples/1_epoch_1.json", text, method)]))
    assert_refused(score(log, tmp_path, "--max-entry-bytes", "1000000"), "1,000,000 bytes")
    assert_read(score(log, tmp_path, "--max-entry-bytes", str(len(text))), 1)
    assert_read(score(log, tmp_path, "--max-entry-bytes", "0"), 1)


def test_a_shorter_entry_than_declared_is_refused(tmp_path: Path) -> None:
    text = sample_text(1)
    short = entry("samples/1_epoch_1.json", text, DEFLATED, size=len(text) + 10)
    log = write(tmp_path / "short.eval", eval_log([short]))
    assert_refused(score(log, tmp_path), "samples/1_epoch_1.json", "fewer than the")


def test_entries_sharing_one_kernel_are_refused(tmp_path: Path) -> None:
    # David Fifield's "better zip bomb": many directory records, one compressed kernel.
    kernel = entry("samples/0_epoch_1.json", sample_text(0), DEFLATED)
    header = entry("header.json", HEADER, DEFLATED)
    at = len(zip_archive([header])) - 22 - 46 - len("header.json")  # the kernel's local header
    copies = [
        Entry(f"samples/{i}_epoch_1.json", kernel.packed, DEFLATED, kernel.size, kernel.crc, at)
        for i in range(1, 200)
    ]
    for copy in copies:
        copy.written = False
    log = write(tmp_path / "kernel.eval", zip_archive([header, kernel, *copies]))
    assert_refused(score(log, tmp_path), "overlap", "samples/0_epoch_1.json")


def test_an_entry_inside_another_is_refused(tmp_path: Path) -> None:
    # Fifield's quoted overlap: an entry's local header lies inside the previous entry's data.
    header = entry("header.json", HEADER, STORED)
    inner = entry("samples/2_epoch_1.json", sample_text(2))
    inner_bytes = zip_archive([inner])[: -22 - 46 - len(inner.name)]  # its local header and data
    outer_data = b" " * 10 + inner_bytes
    outer = entry("samples/1_epoch_1.json", outer_data)
    archive = zip_archive([header, outer])
    outer_at = len(zip_archive([header])) - 22 - 46 - len(header.name)
    inner_at = outer_at + 30 + len(outer.name) + 10
    inner.offset, inner.written = inner_at, False
    archive = zip_archive([header, outer, inner])
    log = write(tmp_path / "quoted.eval", archive)
    assert_refused(score(log, tmp_path), "overlap", "samples/2_epoch_1.json")


def test_a_name_twice_is_refused(tmp_path: Path) -> None:
    twice = [entry("samples/1_epoch_1.json", sample_text(i), DEFLATED) for i in (1, 2)]
    log = write(tmp_path / "twice.eval", eval_log(twice))
    assert_refused(score(log, tmp_path), "'samples/1_epoch_1.json' twice")


@pytest.mark.parametrize("method", [DEFLATED, ZSTANDARD], ids=["deflate", "zstd"])
def test_truncated_and_corrupt_entries_are_refused(tmp_path: Path, method: int) -> None:
    text = sample_text(1, metadata={"n": list(range(2000))})
    good = entry("samples/1_epoch_1.json", text, method)
    archive = eval_log([good])
    log = write(tmp_path / "cut.eval", archive[: len(archive) // 2])
    assert_refused(score(log, tmp_path), str(log))
    garbled = bytearray(archive)
    at = archive.index(good.packed) + len(good.packed) // 2
    garbled[at : at + 16] = b"\xff" * 16
    log = write(tmp_path / "garbled.eval", bytes(garbled))
    assert_refused(score(log, tmp_path), "samples/1_epoch_1.json")


@pytest.mark.parametrize(
    "count", [100_000, pytest.param(1_000_000, marks=pytest.mark.slow)], ids=["100k", "1M"]
)
def test_a_million_tiny_entries_are_read(tmp_path: Path, count: int) -> None:
    log = write(tmp_path / "tiny.eval", tiny_samples(count))
    scored = assert_read(score(log, tmp_path), count)
    assert scored["sample_id"].n_unique() == count


# --- inspect-ai .eval: the sample's JSON ------------------------------------------------------


def _one_sample(tmp_path: Path, text: bytes, method: int = ZSTANDARD) -> Path:
    samples = [entry("samples/1_epoch_1.json", text, method)]
    samples += [entry(f"samples/{i}_epoch_1.json", sample_text(i), method) for i in (2, 3)]
    return write(tmp_path / "sample.eval", eval_log(samples, method=method))


@pytest.mark.parametrize("where", ["metadata", "events"])
def test_deep_nesting_where_nothing_is_read_is_skipped(tmp_path: Path, where: str) -> None:
    text = sample_text(1, metadata={"deep": "@DEEP@"})
    if where == "events":
        text = sample_text(1).replace(b'"events":[]', b'"events":' + nested(DEEP))
    else:
        text = swap(text, "@DEEP@", nested(DEEP))
    scored = assert_read(score(_one_sample(tmp_path, text), tmp_path), 3)
    assert scored["sample_id"].to_list() == ["1", "2", "3"]


def test_deep_nesting_in_a_field_read_is_refused(tmp_path: Path) -> None:
    text = swap(sample_text(1, target="@DEEP@"), "@DEEP@", nested(DEEP))
    log = _one_sample(tmp_path, text)
    assert_refused(score(log, tmp_path), str(log), "nests", "samples/1_epoch_1.json")


def test_huge_numbers_and_strings_are_read(tmp_path: Path) -> None:
    digits = b"9" * 100_000
    text = sample_text(1, metadata={"n": "@N@", "x": 1e308}, input="@N2@")
    text = swap(swap(text, "@N@", digits), "@N2@", json.dumps("q" * (20 << 20)).encode())
    text = text.replace(b'"id":1,', b'"id":' + digits + b",")
    scored = assert_read(score(_one_sample(tmp_path, text), tmp_path), 3)
    assert scored["sample_id"][0] == digits.decode()
    assert len(scored["input"][0]) == 20 << 20


def test_bytes_that_are_not_utf8_are_skipped_unread_and_refused_read(tmp_path: Path) -> None:
    text = sample_text(1, metadata={"x": "@BAD@"})
    log = _one_sample(tmp_path, swap(text, "@BAD@", b'"\xff\xfe"'))
    scored = assert_read(score(log, tmp_path), 3)
    assert scored["sample_id"].to_list() == ["1", "2", "3"]
    text = sample_text(1, target="@BAD@")
    log = _one_sample(tmp_path, swap(text, "@BAD@", b'"\xff\xfe"'))
    assert_refused(score(log, tmp_path), "samples/1_epoch_1.json", "not valid JSON")


# --- the JSON logs ----------------------------------------------------------------------------

#: What a hostile field holds, and the words of the refusal when the field is read.
HOSTILE = {"deep": (nested(DEEP), "nests"), "not_utf8": (b'"\xff\xfe"', "not valid JSON")}

Where = tuple[str | int, ...]


@dataclass
class Case:
    """A log made hostile: ``file`` (under ``folder``) is given a field, scored as ``scored``."""

    folder: str
    file: str
    #: Where a field no reader reads goes, and where one a reader reads (keys and list items).
    unread: Where
    read: Where
    #: What is scored: the file (None), the folder ("."), or another file of the folder.
    scored: str | None = None


LM_EVAL_SAMPLES = "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
HELM = "helm/narrative_qa-model=openai_gpt2"
LIGHTEVAL_RESULTS = "results/HuggingFaceTB/SmolLM2-135M/results_2025-06-03T10-11-12.123456.json"
LIGHTEVAL_DETAILS = next((LOGS / "lighteval").rglob("details_*.parquet")).relative_to(
    LOGS / "lighteval"
)

#: Each document and JSON Lines reader; a JSON Lines log's first line for the unread field and
#: its last for the one read (the first tells the format).
CASES = {
    "inspect_json": Case(
        "inspect", "log_formats.json", ("samples", 0, "hostile"), ("samples", 0, "target")
    ),
    "lm_eval_samples": Case("lm_eval", LM_EVAL_SAMPLES, (0, "hostile"), (-1, "target")),
    "lm_eval_results": Case(
        "lm_eval",
        "results_2026-01-21T03-44-18.458309.json",
        ("hostile",),
        ("configs",),
        LM_EVAL_SAMPLES,
    ),
    "lm_eval_array": Case(
        "lm_eval_0.4.2",
        "pretrained__EleutherAI__pythia-160m,dtype__float32_arc_easy.jsonl",
        (1, "hostile"),
        (1, "target"),
    ),
    "promptfoo_jsonl": Case("promptfoo", "results.jsonl", (0, "hostile"), (-1, "response")),
    "promptfoo_json": Case(
        "promptfoo",
        "results.json",
        ("results", "results", 0, "hostile"),
        ("results", "results", 0, "testCase"),
    ),
    "openai_evals": Case(
        "openai_evals",
        "250603101112ABCDEFGH_gpt-3.5-turbo_test-match.jsonl",
        (0, "hostile"),
        (-1, "data"),
    ),
    "helm_state": Case(
        HELM, "scenario_state.json", ("request_states", 0, "hostile"), ("adapter_spec",), "."
    ),
    "helm_stats": Case(HELM, "per_instance_stats.json", (0, "hostile"), (0, "stats"), "."),
    "helm_run_spec": Case(HELM, "run_spec.json", ("hostile",), ("adapter_spec",), "."),
    "lighteval_results": Case(
        "lighteval", LIGHTEVAL_RESULTS, ("hostile",), ("config_general",), str(LIGHTEVAL_DETAILS)
    ),
}


def _make_hostile(path: Path, where: Where, value: bytes) -> None:
    """Give the JSON document (or JSON Lines line) at ``path`` the raw ``value`` at ``where``."""
    text = path.read_bytes()
    lines = path.suffix == ".jsonl" and text.lstrip()[:1] == b"{"
    if lines:
        records = text.splitlines()
        line = where[0]
        assert isinstance(line, int)
        document = json.loads(records[line])
        where = where[1:]
    else:
        document = json.loads(text)
    parent = document
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = "@HOSTILE@"
    made = swap(json.dumps(document).encode(), "@HOSTILE@", value)
    if lines:
        records[line] = made
        made = b"\n".join(records) + b"\n"
    path.write_bytes(made)


@pytest.mark.parametrize("value", list(HOSTILE))
@pytest.mark.parametrize("case", list(CASES))
def test_json_logs_skip_a_hostile_field_unread_and_refuse_it_read(
    tmp_path: Path, case: str, value: str
) -> None:
    import polarscore as ps

    made = CASES[case]
    folder = _copy(LOGS / made.folder, tmp_path)
    path = folder / made.file
    target = folder if made.scored == "." else folder / (made.scored or made.file)
    expected = sorted(map(str, ps.read_log(target)["sample_id"].to_list()))
    original = path.read_bytes()
    raw, words = HOSTILE[value]
    _make_hostile(path, made.unread, raw)
    scored = assert_read(score(target, tmp_path), len(expected))
    assert sorted(map(str, scored["sample_id"].to_list())) == expected
    path.write_bytes(original)
    _make_hostile(path, made.read, raw)
    assert_refused(score(target, tmp_path), str(path), words)


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "logs" / source.name
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.parent.mkdir(exist_ok=True)
        shutil.copy(source, target)
    return target


def test_inspect_json_huge_number_is_read(tmp_path: Path) -> None:
    log = _copy(LOGS / "inspect" / "log_formats.json", tmp_path)
    text = log.read_bytes()
    rows = pl.read_parquet(_scored_rows(log, tmp_path)).height
    document = json.loads(text)
    document["hostile"] = "@N@"
    log.write_bytes(swap(json.dumps(document).encode(), "@N@", b"1" * 100_000))
    assert_read(score(log, tmp_path), rows)


def _scored_rows(log: Path, tmp_path: Path) -> Path:
    run = score(log, tmp_path)
    assert run.code == 0, run.stderr
    return run.output


def test_a_prompt_holding_deep_json_text_is_read(tmp_path: Path) -> None:
    folder = _copy(LOGS / "promptfoo", tmp_path)
    path = folder / "results.jsonl"
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[-1])  # the last: the first line tells the format
    record["prompt"]["raw"] = nested(DEEP).decode()  # text that looks like chat messages
    lines[-1] = json.dumps(record).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")
    scored = assert_read(score(path, tmp_path), len(lines))
    assert scored["input"][-1] == nested(DEEP).decode()


def test_values_nested_just_within_pythons_reach_are_one_line(tmp_path: Path) -> None:
    # 950 levels parse, but a reader walking them (json.dumps of a target list) may not.
    folder = _copy(LOGS / "lm_eval", tmp_path)
    path = folder / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[0])
    record["target"] = "@DEEP@"
    lines[0] = swap(json.dumps(record).encode(), "@DEEP@", b"[" + nested(950) + b"]")
    path.write_bytes(b"\n".join(lines) + b"\n")
    run = score(path, tmp_path)
    if run.code == 0:
        assert_read(run, len(lines))
    else:
        assert_refused(run, str(path), "nests")


def test_the_limit_reads_zip_entries_alike_in_python(tmp_path: Path) -> None:
    """The Python reader's bounded inflation gives back exactly what was stored."""
    from polarscore.logs._zip import ZipLog

    data = json.dumps({"x": list(range(5000))}).encode()
    items = [entry(f"e{m}.json", data, m) for m in (STORED, DEFLATED, ZSTANDARD)]
    log = write(tmp_path / "alike.zip", zip_archive(items))
    archive = ZipLog(log, max_entry_bytes=len(data))
    assert [d for _, d in archive.read_many(list(archive.entries))] == [data] * 3
    assert zlib.crc32(data) == archive.entries["e8.json"].CRC
    too_small = ZipLog(log, max_entry_bytes=len(data) - 1)
    with pytest.raises(Exception, match="over the limit"):
        too_small.read("e0.json")


ORDINARY = [
    "inspect/log_streaming.eval",
    "inspect/log_formats.json",
    "lm_eval/" + LM_EVAL_SAMPLES,
    "promptfoo/results.json",
    "openai_evals/250603101112ABCDEFGH_gpt-3.5-turbo_test-match.jsonl",
    HELM,
    "lighteval/" + str(LIGHTEVAL_DETAILS),
]


@pytest.mark.parametrize("log", ORDINARY, ids=lambda log: log.split("/")[0])
def test_ordinary_logs_run_within_the_address_space(tmp_path: Path, log: str) -> None:
    # The cap itself does not fail a run, for any reader.
    assert_read(score(LOGS / log, tmp_path), ps_rows(LOGS / log))


def ps_rows(log: Path) -> int:
    import polarscore as ps

    return ps.read_log(log).height


def test_the_address_space_cap_binds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A cap well below what an ordinary run reserves fails it: the cap is real.
    monkeypatch.setattr(sys.modules[__name__], "ADDRESS_SPACE", 128 << 20)
    run = score(LOGS / "inspect" / "log_streaming.eval", tmp_path)
    assert run.code != 0
    assert run.output.read_bytes() == PREVIOUS


def test_the_python_api_takes_the_limit(tmp_path: Path) -> None:
    import polarscore as ps
    from polarscore.exceptions import InputFileError, InvalidParameterError

    text = sample_text(1, metadata={"pad": " " * 5000})
    log = write(tmp_path / "api.eval", eval_log([entry("samples/1_epoch_1.json", text, DEFLATED)]))
    with pytest.raises(InputFileError, match=r"over the limit of 1,000 bytes.*max_entry_bytes="):
        ps.read_log(log, max_entry_bytes=1_000)
    assert ps.read_log(log, max_entry_bytes=len(text)).height == 1
    assert ps.scan_log(log, max_entry_bytes=None).collect().height == 1
    for bad in (0, -1, 1.5, "1"):
        with pytest.raises(InvalidParameterError, match="'max_entry_bytes' parameter of scan_log"):
            ps.scan_log(log, max_entry_bytes=bad)  # type: ignore[arg-type]


# --- pruning, in process ----------------------------------------------------------------------


@pytest.fixture
def always_pruned(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """A switch making every document a reader parses go through ``prune_json`` first.

    Python's parse of the document as it is fails (a ``RecursionError``), so the reader gets
    the pruned document; one parsed with no fields to prune by fails the test.
    """
    import polarscore._internal as internal
    from polarscore.logs import _table

    real_prune, real_parse = internal.prune_json, _table._parse
    last: list[bytes | None] = [None]

    def prune(text: bytes, fields: dict[str, Any]) -> bytes | None:
        last[0] = real_prune(text, fields)
        return last[0]

    def parse(data: bytes | str) -> Any:
        if data is not last[0]:
            raise RecursionError
        return real_parse(data)

    def switch() -> None:
        monkeypatch.setattr(internal, "prune_json", prune)
        monkeypatch.setattr(_table, "_parse", parse)

    return switch


def _every_log() -> list[Path]:
    from polarscore.logs import folder_logs

    return folder_logs(LOGS)


@pytest.mark.parametrize("log", _every_log(), ids=lambda p: str(p.relative_to(LOGS)))
def test_every_log_reads_alike_pruned(log: Path, always_pruned: Callable[[], None]) -> None:
    # The fields each reader declares are all it reads: pruning the rest changes nothing.
    import polarscore as ps
    from polarscore.logs._inspect import EvalArchive

    whole = ps.read_log(log)
    samples = None
    if log.suffix == ".eval":  # its samples are read natively: in Python too
        archive = EvalArchive(log)
        samples = archive.read_python(archive.samples)
    always_pruned()
    assert_frame_equal(ps.read_log(log), whole)
    if samples is not None:
        archive = EvalArchive(log)
        assert_frame_equal(archive.read_python(archive.samples), samples)


def test_pruning_keeps_read_fields_whole_and_unread_scalars() -> None:
    from polarscore.logs._table import load_json

    text = (
        '{"id": 1, "n": 2.5, "flag": true, "s": "x", "meta": {"a": [1]}, "out": {"text": "A", '
        '"usage": {"t": 1}, "list": [{"text": "B", "x": 1}]}, "deep": ' + "[" * 5000 + "]" * 5000
    ) + "}"
    fields = {"id": None, "out": {"text": None, "list": {"text": None}}}
    assert load_json(text, what="x", fields=fields) == {
        "id": 1,
        "n": 2.5,
        "flag": True,
        "s": None,
        "meta": None,
        "out": {"text": "A", "usage": None, "list": [{"text": "B", "x": 1}]},
        "deep": None,
    }
    with pytest.raises(JsonTooDeepError, match="x nests"):
        load_json(text, what="x", fields={"deep": None})
    with pytest.raises(JsonTooDeepError):
        load_json(text, what="x")  # no fields: nothing is pruned
    bad = b'{"id": 1, "s": "\xff"}'
    assert load_json(bad, what="x", fields={"id": None}) == {"id": 1, "s": None}
    with pytest.raises(InputFileError, match="x is not valid JSON"):
        load_json(bad, what="x", fields={"s": None})
    # Not JSON where nothing is read: Python's own error stands.
    with pytest.raises(InputFileError, match="not valid JSON"):
        load_json(b'{"id": 1, "s": "\xff", "t": [}', what="x", fields={"id": None})


KEYS = ("a", "b", "c", "é", '"', "\\")
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=30,
)
FIELDS = st.recursive(
    st.dictionaries(st.sampled_from(KEYS), st.none(), max_size=4),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), st.none() | inner, max_size=4),
    max_leaves=12,
)


def pruned_oracle(value: Any, fields: dict[str, Any] | None) -> Any:
    """What ``prune_json`` leaves of ``value``, written plainly (recursive: small values only)."""
    if fields is None:
        return value
    if isinstance(value, list):
        return [pruned_oracle(item, fields) for item in value]
    if isinstance(value, dict):
        return {
            key: pruned_oracle(item, fields[key])
            if key in fields
            else item
            if item is None or isinstance(item, bool | int | float)
            else None
            for key, item in value.items()
        }
    return value


@given(value=VALUES, fields=FIELDS, ascii=st.booleans())
def test_pruning_agrees_with_its_oracle(*, value: Any, fields: dict[str, Any], ascii: bool) -> None:
    from polarscore._internal import prune_json

    text = json.dumps(value, ensure_ascii=ascii).encode()
    pruned = prune_json(text, fields)
    assert pruned is not None
    assert json.loads(pruned) == pruned_oracle(value, fields)
    every: dict[str, Any] | None = None
    for _ in range(4):  # every key, four objects deep, then whole: nothing is pruned
        every = dict.fromkeys(KEYS, every)
    assert every is not None
    assert json.loads(prune_json(text, every) or b"") == value


# --- the limit on every command and function that reads logs -----------------------------------


def test_every_command_reading_inputs_takes_the_limit() -> None:
    import argparse

    from polarscore.cli._args import _build_parser

    commands = next(
        a for a in _build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices
    reading = [name for name, p in commands.items() if any(a.dest == "inputs" for a in p._actions)]
    assert {"score", "summary", "report", "compare"} <= set(reading)
    for name in reading:
        options = [o for a in commands[name]._actions for o in a.option_strings]
        assert "--max-entry-bytes" in options, name


@pytest.mark.parametrize("command", ["summary", "report", "compare"])
def test_the_limit_is_an_option_of_every_command(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from polarscore.cli import main

    text = sample_text(1, metadata={"pad": " " * 5000})
    log = write(tmp_path / "big.eval", eval_log([entry("samples/1_epoch_1.json", text, DEFLATED)]))
    extra = ["-o", str(tmp_path / "page.html"), "-q", "--overwrite"] if command == "report" else []
    extra += ["--scores", "framework_match"]
    code = main([command, str(log), *extra, "--max-entry-bytes", "1000"])
    err = capsys.readouterr().err
    assert code == 4, err
    assert "over the limit of 1,000 bytes" in err
    assert "--max-entry-bytes" in err
    code = main([command, str(log), *extra, "--max-entry-bytes", str(len(text))])
    err = capsys.readouterr().err
    assert "over the limit" not in err
    if command != "compare":  # one model: nothing to compare, but the log was read
        assert code == 0, err


def test_report_takes_the_limit(tmp_path: Path) -> None:
    import polarscore as ps
    from polarscore.exceptions import InvalidParameterError

    text = sample_text(1, metadata={"pad": " " * 5000})
    log = write(tmp_path / "api.eval", eval_log([entry("samples/1_epoch_1.json", text, DEFLATED)]))
    with pytest.raises(InputFileError, match=r"over the limit of 1,000 bytes.*max_entry_bytes="):
        ps.report(log, max_entry_bytes=1_000, n_bootstrap=0, scores="framework_match")
    assert ps.report(
        log, max_entry_bytes=len(text), n_bootstrap=0, scores="framework_match"
    ).startswith("<!DOCTYPE")
    assert ps.report(log, max_entry_bytes=None, n_bootstrap=0, scores="framework_match").startswith(
        "<!DOCTYPE"
    )
    with pytest.raises(InvalidParameterError, match="'max_entry_bytes' parameter of report"):
        ps.report(log, max_entry_bytes=0, n_bootstrap=0, scores="framework_match")
