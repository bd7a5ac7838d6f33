"""The native reader of ``.eval`` sample entries (``src/evallog/``) against the Python reader.

The Python reader (``EvalArchive.read_python``: ``_parse_sample`` and ``add_sample``) is the
oracle: for every ``.eval`` fixture, the logs inspect-ai writes here, hand-made entries and
random samples, the rows :meth:`EvalArchive.batches` gives (native, with the entries it leaves
read in Python) equal, field for field, the rows the Python reader gives alone. The entries the
native reader must leave to Python (bare-token specials it cannot rewrite, lone surrogates,
attachments, chunked shells, floats and objects written as text, a key twice, corrupt entries)
are checked to be left, and to read the same.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import polars as pl
import pytest
from hypothesis import given

import polarscore as ps
from polarscore._internal import read_eval_samples
from polarscore.exceptions import InputFileError
from polarscore.logs._inspect import EVAL_FORMAT, EvalArchive
from polarscore.logs._zip import ZipLog
from tests.test_logs import INSPECT, _entries, _zip_with_method

EVAL_FIXTURES = sorted(INSPECT.glob("*.eval"))


def _python_rows(archive: EvalArchive, size: int = 2_000) -> pl.DataFrame:
    """The archive's rows as the Python reader alone reads them, batch by batch."""
    chunks = [archive.samples[i : i + size] for i in range(0, len(archive.samples), size)]
    frames = [archive.read_python(chunk) for chunk in chunks]
    return pl.concat(frames) if frames else pl.concat(archive.batches())


def _left(archive: EvalArchive) -> list[str]:
    """The sample entries the native reader leaves to Python (the shells excepted)."""
    infos = archive.zip.sorted_infos([n for n in archive.samples if n not in archive.shells])
    with archive.zip.mapped() as mapped:
        _, left = read_eval_samples(
            mapped,
            archive.zip.records(infos),
            archive.verdicts,
            EVAL_FORMAT,
            archive.task,
            archive.model,
        )
    return [infos[i].filename for i in left]


def _check(path: Path, *, size: int = 2_000) -> EvalArchive:
    archive = EvalArchive(path)
    native = pl.concat(archive.batches(size))
    python = _python_rows(archive, size)
    assert native.schema == python.schema
    assert native.equals(python), (path.name, _first_difference(native, python))
    return archive


def _first_difference(a: pl.DataFrame, b: pl.DataFrame) -> Any:
    for i, (x, y) in enumerate(zip(a.iter_rows(named=True), b.iter_rows(named=True), strict=False)):
        if x != y:
            return i, {k: (x[k], y[k]) for k in x if x[k] != y.get(k)}
    return a.height, b.height


@pytest.mark.parametrize("path", EVAL_FIXTURES, ids=lambda p: p.name)
def test_every_eval_fixture_reads_as_in_python(path: Path) -> None:
    archive = _check(path)
    assert archive.samples
    assert _left(archive) == []


@pytest.mark.parametrize("size", [1, 7, 2_000])
def test_batches_of_any_size(size: int) -> None:
    _check(INSPECT / "popularity_unscored.eval", size=size)


@pytest.fixture(scope="module")
def written_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An .eval log inspect-ai writes here: 40 samples x 2 epochs (tests/inspect_logs.py)."""
    pytest.importorskip("inspect_ai")
    from tests.inspect_logs import write_in_subprocess

    return write_in_subprocess(tmp_path_factory.mktemp("inspect-native"), 40, epochs=2)["eval"]


def test_logs_inspect_writes_read_as_in_python(written_eval: Path) -> None:
    archive = _check(written_eval, size=9)
    assert len(archive.samples) == 80
    # Every kind of sample the canned task writes (NaN scores included) is read natively.
    assert _left(archive) == []


# -- hand-made entries -----------------------------------------------------------------------------


def _sample(i: int, **fields: Any) -> dict[str, Any]:
    sample = {
        "id": i,
        "epoch": 1,
        "input": f"Question {i}?",
        "target": "Paris",
        "messages": [{"role": "user", "content": f"Question {i}?"}],
        "output": {
            "model": "m",
            "choices": [{"message": {"role": "assistant", "content": "Paris"}}],
            "completion": "Paris",
        },
        "scores": {"match": {"value": "C", "answer": "Paris"}},
        "metadata": {},
        "events": [{"event": "sample_init", "value": math.nan}],
    }
    sample.update(fields)
    return sample


def _entry(sample: Any, *, compact: bool = True) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(sample, separators=separators).encode()


def _archive(path: Path, entries: dict[str, bytes], method: int = 8) -> Path:
    base = _entries(INSPECT / "log_streaming.eval")
    content = {n: d for n, d in base.items() if not n.startswith("samples/")} | entries
    _zip_with_method(path, content, method)
    return path


#: Entries the native reader reads, by what they exercise.
NATIVE = {
    "specials in scores": _entry(
        _sample(
            1,
            scores={
                "match": {"value": math.nan},
                "a": {"value": math.inf},
                "b": {"value": {"x": -math.inf, "y": "0.5"}},
            },
        )
    ),
    "spaced JSON": _entry(_sample(2), compact=False),
    "no events": _entry({k: v for k, v in _sample(3).items() if k != "events"}),
    "no output": _entry({k: v for k, v in _sample(4).items() if k != "output"}),
    "empty completion": _entry(
        _sample(
            5,
            output={
                "choices": [{"message": {"content": [{"type": "text", "text": "Lyon"}]}}],
                "completion": "",
            },
        )
    ),
    "chat input and list target": _entry(
        _sample(
            6,
            input=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q"}],
            target=["Paris", "paris", 3, True, None],
            choices=["Paris", "Lyon"],
        )
    ),
    "text verdicts": _entry(
        _sample(
            7,
            scores={
                "match": {"value": " Yes "},
                "a": {"value": "1e-3"},
                "b": {"value": {"x": "maybe", "y": [1]}},
            },
        )
    ),
    "attachment reference without attachments": _entry(_sample(8, input="attachment://abc")),
    "string id, epoch 3": _entry(_sample(9, id="s-9", epoch=3)),
    "no output choices": _entry(_sample(10, output={"choices": [], "completion": ""})),
}

#: Entries the native reader leaves to Python, by why.
LEFT = {
    "a float id": _entry(_sample(21, id=2.5)),
    "a huge integer id": _entry(_sample(22, id=10**30)),
    "an object in the target": _entry(_sample(23, target=[{"text": "Paris"}])),
    "a NaN target": _entry(_sample(24, target=math.nan)),
    "a key twice": b'{"id":25,"id":26,' + _entry(_sample(25))[len(b'{"id":25,') :],
    "a unicode verdict": _entry(_sample(27, scores={"match": {"value": "\u0661"}})),
    "an underscored verdict": _entry(_sample(28, scores={"match": {"value": "1_0"}})),
    "an attachment": _entry(
        _sample(29, input="attachment://abc", attachments={"abc": "The real question?"})
    ),
    "a NUL escape beside a NaN": _entry(
        _sample(30, input="a\x00b", scores={"match": {"value": math.nan}})
    ),
    "a role that is not text": _entry(_sample(31, input=[{"role": 1, "content": "Q"}])),
    "a boolean epoch": _entry(_sample(32, epoch=True)),
}


def test_hand_made_entries_read_as_in_python(tmp_path: Path) -> None:
    entries = {f"samples/{i + 1}_epoch_1.json": e for i, e in enumerate(NATIVE.values())}
    offset = len(entries)
    entries |= {f"samples/{offset + i + 1}_epoch_1.json": e for i, e in enumerate(LEFT.values())}
    for method in (0, 8, 93):
        path = _archive(tmp_path / f"hand-{method}.eval", entries, method)
        archive = _check(path, size=5)
        left = _left(archive)
        assert left == [f"samples/{offset + i + 1}_epoch_1.json" for i in range(len(LEFT))], method
    table = ps.read_log(tmp_path / "hand-8.eval")
    by_id = {row["sample_id"]: row for row in table.iter_rows(named=True)}
    assert by_id["5"]["response"] == "Lyon"  # an empty completion gives way to the choice
    assert by_id["29"]["input"] == "The real question?"  # the attachment, resolved in Python
    assert by_id["1"]["framework_match"] is None  # NaN


def test_chunked_sample_shells_are_read_in_python(tmp_path: Path) -> None:
    shell = _sample(41, input="attachment://0", attachments=None)
    entries = {
        "samples/40_epoch_1.json": _entry(_sample(40)),
        "samples/41_epoch_1/sample.json": _entry(shell),
        "samples/41_epoch_1/attachments/0.json": json.dumps(["The chunked question?"]).encode(),
        "samples/42_epoch_1.json": _entry(_sample(42)),
    }
    path = _archive(tmp_path / "chunked.eval", entries)
    archive = _check(path)
    assert archive.shells == {"samples/41_epoch_1/sample.json": "samples/41_epoch_1"}
    assert ps.read_log(path)["input"].to_list() == [
        "Question 40?",
        "The chunked question?",
        "Question 42?",
    ]


def test_a_lone_surrogate_fails_as_in_python(tmp_path: Path) -> None:
    entry = _entry(_sample(50)).replace(b'"Question 50?"', b'"Question \\ud800?"', 1)
    path = _archive(tmp_path / "surrogate.eval", {"samples/50_epoch_1.json": entry})
    archive = EvalArchive(path)
    assert _left(archive) == ["samples/50_epoch_1.json"]
    with pytest.raises(UnicodeEncodeError) as python:
        archive.read_python(archive.samples)
    with pytest.raises(UnicodeEncodeError) as native:
        list(archive.batches())
    assert str(native.value) == str(python.value)


def _corruptions(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    entries = {f"samples/{i}_epoch_1.json": _entry(_sample(i)) for i in range(1, 4)}
    path = _archive(tmp_path / "good.eval", entries, 93)
    data = path.read_bytes()
    name = b"samples/2_epoch_1.json"
    where = data.index(name) + len(name)
    bad_frame = bytearray(data)
    bad_frame[where + 4 : where + 20] = b"\xff" * 16  # inside the entry's zstd frame
    corrupt = tmp_path / "bad-frame.eval"
    corrupt.write_bytes(bytes(bad_frame))
    yield "zstd frame", corrupt
    not_json = dict(entries)
    not_json["samples/2_epoch_1.json"] = b'{"id": 2, "input": "unfinished'
    yield "not JSON", _archive(tmp_path / "not-json.eval", not_json, 93)
    array = dict(entries)
    array["samples/2_epoch_1.json"] = b"[1, 2]"
    yield "not an object", _archive(tmp_path / "array.eval", array, 8)


def test_corrupt_entries_fail_with_the_python_readers_message(tmp_path: Path) -> None:
    for kind, path in _corruptions(tmp_path):
        archive = EvalArchive(path)
        assert "samples/2_epoch_1.json" in _left(archive), kind
        with pytest.raises(InputFileError) as python:
            archive.read_python(archive.samples)
        with pytest.raises(InputFileError) as native:
            list(archive.batches())
        assert str(native.value) == str(python.value), kind
        assert "samples/2_epoch_1.json" in str(native.value)


def test_a_wrong_crc_fails_with_the_python_readers_message(tmp_path: Path) -> None:
    entries = {f"samples/{i}_epoch_1.json": _entry(_sample(i)) for i in range(1, 4)}
    path = _archive(tmp_path / "crc.eval", entries, 0)
    data = bytearray(path.read_bytes())
    at = data.index(b'"Question 2?"')
    data[at + 1] = ord("q")  # a stored entry's text changed, its CRC-32 not
    path.write_bytes(bytes(data))
    archive = EvalArchive(path)
    assert _left(archive) == ["samples/2_epoch_1.json"]
    with pytest.raises(InputFileError, match="CRC-32") as native:
        list(archive.batches())
    with pytest.raises(InputFileError) as python:
        archive.read_python(archive.samples)
    assert str(native.value) == str(python.value)


# -- random samples --------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(
        ["C", "P", "I", "N", " yes", "FALSE", "0.25", "1e400", "-inf", "attachment://k"]
    ),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["type", "text", "role", "content", "value", "x"]), inner),
    ),
    max_leaves=8,
)
_messages = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "role": st.one_of(st.sampled_from(["user", "system", ""]), _scalars),
            "content": st.one_of(
                st.text(max_size=8),
                st.lists(
                    st.one_of(
                        st.text(max_size=4),
                        st.fixed_dictionaries({}, optional={"type": _values, "text": _values}),
                    ),
                    max_size=3,
                ),
                _values,
            ),
        },
    ),
    max_size=3,
)
_outputs = st.one_of(
    _values,
    st.fixed_dictionaries(
        {},
        optional={
            "choices": st.one_of(
                _values,
                st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "message": st.one_of(
                                _values, st.fixed_dictionaries({}, optional={"content": _values})
                            )
                        },
                    ),
                    max_size=2,
                ),
            ),
            "completion": st.one_of(st.just(""), st.text(max_size=5), _values),
        },
    ),
)
_scores = st.one_of(
    _values,
    st.dictionaries(
        st.sampled_from(["match", "graded", "parts", "parts_x", "other"]),
        st.one_of(_values, st.fixed_dictionaries({"value": _values})),
        max_size=4,
    ),
)
_samples = st.fixed_dictionaries(
    {},
    optional={
        "id": _scalars,
        "epoch": st.one_of(st.integers(0, 5), _scalars),
        "input": st.one_of(st.text(max_size=8), _messages, _values),
        "target": _values,
        "choices": _values,
        "messages": _values,
        "output": _outputs,
        "scores": _scores,
        "metadata": _values,
        "events": _values,
        "attachments": _values,
    },
)


@given(samples=st.lists(_samples, min_size=1, max_size=6), compact=st.booleans())
def test_random_samples_read_as_in_python(
    tmp_path_factory: pytest.TempPathFactory, samples: list[dict[str, Any]], *, compact: bool
) -> None:
    path = tmp_path_factory.mktemp("random") / "random.eval"
    entries = {
        f"samples/{i}_epoch_1.json": _entry(s, compact=compact) for i, s in enumerate(samples)
    }
    _archive(path, entries, 8)
    archive = EvalArchive(path)
    try:
        python = _python_rows(archive, size=4)
    except Exception as error:  # whatever the Python reader raises, the native one must too
        with pytest.raises(type(error)):
            pl.concat(archive.batches(4))
        return
    native = pl.concat(archive.batches(4))
    assert native.equals(python), _first_difference(native, python)


# -- the central directory -------------------------------------------------------------------------


def _directories(path: Path) -> tuple[Any, Any]:
    log = ZipLog(path)
    return log._native_directory(), log._directory()


@pytest.mark.parametrize("path", EVAL_FIXTURES, ids=lambda p: p.name)
def test_the_directory_reads_as_zipfile_reads_it(path: Path) -> None:
    native, python = _directories(path)
    assert native is not None
    assert native == python


def test_archives_written_by_zipfile_read_alike(tmp_path: Path) -> None:
    plain, commented, extra, utf8, prefixed, backslash = (
        tmp_path / f"{n}.zip"
        for n in ("plain", "commented", "extra", "utf8", "prefixed", "backslash")
    )
    for path in (plain, commented, utf8, backslash):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("a.json", b"{}")
            second = {utf8: "caf\u00e9.json", backslash: "b\\c.json"}.get(path, "b.json")
            archive.writestr(second, b"[]")
            archive.writestr("c.json", b"1")
            if path == commented:
                archive.comment = b"a comment"
    with zipfile.ZipFile(extra, "w") as archive:
        info = zipfile.ZipInfo("a.json")
        info.extra = b"\x99\x99\x02\x00ab"
        archive.writestr(info, b"{}")
    prefixed.write_bytes(b"#!/bin/sh\n" + plain.read_bytes())
    native, python = _directories(plain)
    assert native == python
    assert [r.filename for r in native or []] == ["a.json", "b.json", "c.json"]
    native, python = _directories(utf8)
    assert native == python
    # Left to zipfile, which reads them (a backslash: as a slash on Windows).
    for path in (commented, extra, prefixed, backslash):
        native, python = _directories(path)
        assert native is None
        assert python
    shifted = {
        name: record._replace(header_offset=record.header_offset + len(b"#!/bin/sh\n"))
        for name, record in ZipLog(plain).entries.items()
    }
    assert ZipLog(prefixed).entries == shifted


def test_a_truncated_directory_is_zipfiles_error(tmp_path: Path) -> None:
    data = (INSPECT / "log_streaming.eval").read_bytes()
    for cut in (len(data) - 1, len(data) - 30, len(data) // 2, 10, 0):
        path = tmp_path / "cut.eval"
        path.write_bytes(data[:cut])
        with pytest.raises(InputFileError, match="not a complete zip archive"):
            ZipLog(path)


def test_a_zip64_end_record_reads_as_zipfile_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "many.eval"
    # zipfile writes the zip64 end record past 65,535 entries: made to past 2 here.
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in _entries(INSPECT / "log_streaming.eval").items():
            archive.writestr(name, data)
    monkeypatch.undo()
    assert b"PK\x06\x06" in path.read_bytes()[-120:]
    native, python = _directories(path)
    assert native is not None
    assert native == python
    _check(path)
