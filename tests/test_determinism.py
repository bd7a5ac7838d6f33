"""Every registered scorer gives bit-identical results however the rows reach it.

Across the engines of ``tests/engines.py`` (eager, lazy, streaming, and Arrow record batches of
7 and 97 rows through polarscore's Arrow adapter), streaming morsel sizes, one chunk or many, any
row order, and ``POLARS_MAX_THREADS`` of 1 and 2 (in fresh subprocesses, since the thread pool is
fixed at import). The data is the parity table plus a
slice of the synthetic eval log: real traps and realistic long answers.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from benchmarks.synthetic import make_eval_log
from tests.engines import ARROW_97, EAGER, ENGINES, QUERY_ENGINES, STREAMING
from tests.scorer_cases import SCORERS, option_sets, reference_forms

ROOT = Path(__file__).parents[1]
DATA = Path(__file__).parent / "data"

CASES = [(spec, form) for spec in SCORERS for form in reference_forms(spec)]
CASE_IDS = [f"{spec.name}-{form}" for spec, form in CASES]

#: Scorers that call a Python library once per distinct text (``language_detection``: langdetect,
#: about 5 ms a text) run on :data:`PYTHON_ROWS` rows of the frame, the first and the last (parity
#: traps and synthetic answers): the full frame would cost each of them a minute across this
#: module. What these tests check of them is how rows reach the Python function (batches,
#: chunks, threads), which a few hundred rows exercise.
PER_ROW_PYTHON = frozenset({"language_detection"})
PYTHON_ROWS = 400


def load_frame() -> pl.DataFrame:
    parity = pl.read_parquet(DATA / "parity_cases.parquet").select(
        "response", "reference", pl.col("acceptable").alias("references")
    )
    synthetic = make_eval_log(600, seed=9).select("response", "reference", "references")
    return pl.concat([parity, synthetic])


def python_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """The first and the last :data:`PYTHON_ROWS` / 2 rows of ``frame``."""
    half = PYTHON_ROWS // 2
    return pl.concat([frame.head(half), frame.tail(half)])


def rows_for(spec: ps.ScorerSpec, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``, or its :func:`python_rows` for a per-row Python scorer."""
    return python_rows(frame) if spec.name in PER_ROW_PYTHON else frame


def score_cases(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every case scored on its rows of ``frame`` (:func:`rows_for`): the native scorers' columns
    on the whole frame, and the per-row Python scorers' on their rows."""
    native = [score_expr(spec, form) for spec, form in CASES if spec.name not in PER_ROW_PYTHON]
    python = [score_expr(spec, form) for spec, form in CASES if spec.name in PER_ROW_PYTHON]
    return frame.select(native), python_rows(frame).select(python)


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return load_frame()


def score_expr(spec: ps.ScorerSpec, form: str, **options: Any) -> pl.Expr:
    reference = "reference" if form == "string" else "references"
    return spec.expr("response", reference, **options).alias(f"{spec.name}-{form}")


#: The engines compared on the whole frame: all but one-row Arrow batches (3,600 batches per
#: scorer would take minutes; one-row batches run on the small frames of ``test_common.py`` and
#: ``test_input_types.py``).
FRAME_ENGINES = [engine for engine in ENGINES if engine.batch_rows != 1]


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_engines_batches_and_morsels_agree(
    spec: ps.ScorerSpec, form: str, frame: pl.DataFrame
) -> None:
    reference = "reference" if form == "string" else "references"
    frame = rows_for(spec, frame)
    expected = EAGER.score(frame, spec, reference=reference)
    for engine in FRAME_ENGINES:
        assert engine.score(frame, spec, reference=reference).equals(expected), engine
    expr = score_expr(spec, form)
    for morsel in (50, 4096):
        with pl.Config(streaming_chunk_size=morsel):
            got = STREAMING(frame, expr)
        assert got.to_series().equals(expected), f"streaming chunk size {morsel}"


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_every_option_set_agrees_across_engines(
    spec: ps.ScorerSpec, form: str, frame: pl.DataFrame
) -> None:
    small = frame.gather(np.random.default_rng(3).permutation(frame.height)[:800])
    small = rows_for(spec, small)
    reference = "reference" if form == "string" else "references"
    for options in option_sets(spec):
        expected = EAGER.score(small, spec, reference=reference, **options)
        assert STREAMING.score(small, spec, reference=reference, **options).equals(expected)
        got = ARROW_97.score(small, spec, reference=reference, **options)
        assert got.equals(expected, check_names=False), options


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_chunking_does_not_matter(spec: ps.ScorerSpec, form: str, frame: pl.DataFrame) -> None:
    frame = rows_for(spec, frame)
    cuts = np.sort(np.random.default_rng(1).choice(frame.height, 40, replace=False))
    bounds = [0, *cuts.tolist(), frame.height]
    chunked = pl.concat(
        [frame.slice(a, b - a) for a, b in itertools.pairwise(bounds)], rechunk=False
    )
    assert chunked.n_chunks() > 30
    expr = score_expr(spec, form)
    expected = frame.rechunk().select(expr)
    for engine in QUERY_ENGINES:
        assert engine(chunked, expr).equals(expected), engine


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_row_order_does_not_matter(spec: ps.ScorerSpec, form: str, frame: pl.DataFrame) -> None:
    frame = rows_for(spec, frame)
    order = np.random.default_rng(2).permutation(frame.height)
    expr = score_expr(spec, form)
    expected = frame.select(expr)
    shuffled = frame.gather(order).select(expr)
    restored = shuffled.with_columns(pl.Series("__i", order)).sort("__i").drop("__i")
    assert restored.equals(expected)


_CHILD = """
import sys
import polars as pl
from tests.test_determinism import load_frame, score_cases
native, python = score_cases(load_frame())
native.with_columns(pl.lit(pl.thread_pool_size()).alias("__threads")).write_parquet(sys.argv[1])
python.write_parquet(sys.argv[2])
"""


def test_batches_split_over_threads_keep_their_rows(frame: pl.DataFrame) -> None:
    """A batch of more than 16,384 rows is split into ranges scored on all cores: each row's
    result must not depend on the range it lands in (nor on the rows scored before it there)."""
    copies = 6  # 21,600 rows: three ranges of 8,192 rows and more
    tiled = pl.concat([frame] * copies)
    # The native kernels split their batches; a per-row Python scorer is one map over the batch.
    exprs = [score_expr(spec, form) for spec, form in CASES if spec.name not in PER_ROW_PYTHON]
    # The variants with reasons, components and diagnostics split their batches too.
    for form in ("reference", "references"):
        exprs += [
            ps.answer_match_details("response", form).alias(f"match-{form}"),
            ps.response_similarity_details("response", form).alias(f"similarity-{form}"),
            ps.answer_precision_components("response", form).alias(f"components-{form}"),
            ps.answer_precision_diagnostics("response", form).alias(f"diagnostics-{form}"),
        ]
    once = frame.select(exprs)
    assert_frame_equal(tiled.select(exprs), pl.concat([once] * copies))


def test_thread_count_does_not_matter(tmp_path: Path, frame: pl.DataFrame) -> None:
    outputs = {}
    for threads in (1, 2):
        paths = [tmp_path / f"threads_{threads}_{part}.parquet" for part in ("native", "python")]
        env = {**os.environ, "POLARS_MAX_THREADS": str(threads), "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [sys.executable, "-c", _CHILD, *map(str, paths)],
            env=env,
            cwd=ROOT,
            check=True,
            timeout=600,
        )
        native, python = (pl.read_parquet(path) for path in paths)
        assert native["__threads"][0] == threads
        outputs[threads] = (native.drop("__threads"), python)
    here = score_cases(frame)
    for threads in (1, 2):
        assert outputs[threads][0].equals(here[0]), threads
        assert outputs[threads][1].equals(here[1]), threads
    assert here[0].width + here[1].width == len(CASES)


def test_summary_and_report_are_the_same_bits_across_threads_and_morsels(tmp_path: Path) -> None:
    """``summary --json`` and ``report`` of one log, run with 1 and 2 threads and small and large
    streaming morsels: byte for byte the same output. Polars' own float sum differs in its last
    bits between these runs (its summation order follows the morsels), so this fails with it."""
    rng = np.random.default_rng(5)
    n = 200_000
    log = tmp_path / "log.parquet"
    pl.DataFrame(
        {
            "model": rng.choice(["a", "b", "c"], n),
            "question": rng.integers(0, 2_000, n),
            "answer_precision": rng.random(n) ** 3,
            "squad_f1": np.round(rng.random(n), 2),
        }
    ).write_parquet(log)
    outputs = []
    for threads, morsel in [(1, 1_000), (2, 50_000), (2, 3_000)]:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "POLARS_MAX_THREADS": str(threads),
            "POLARS_STREAMING_CHUNK_SIZE": str(morsel),
        }
        page = tmp_path / f"report-{threads}-{morsel}.html"
        commands = [
            # 200 resamples, as the report's: 2,000 of 200,000 distinct scores cost 7 s a run.
            ["summary", log, "--by", "model", "--json", "--n-bootstrap", "200"],
            ["report", log, "-o", page, "--pair-on", "question", "--n-bootstrap", "200"],
        ]
        texts = []
        for command in commands:
            done = subprocess.run(
                [sys.executable, "-m", "polarscore", *map(str, command)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
                timeout=600,
            )
            assert done.returncode == 0, done.stderr
            texts.append(done.stdout)
        outputs.append((texts[0], page.read_text(encoding="utf-8").replace(page.name, "")))
    assert outputs[1] == outputs[0]
    assert outputs[2] == outputs[0]


#: References that eval logs repeat row after row (several models answering one question), and
#: responses that take each of answer_match's row-specific paths: words written joined, glued
#: words split, letters, mojibake repaired, hedges and negations.
_REPEATED_REFERENCES = ["Sea Shells", "New York City", "J K L", "B", "1,000"]
_PATH_RESPONSES = [
    "seashells",
    "sea shells",
    "Seashells, sea shells or shells?",
    "It is seashells.",
    "CafÃ© seashells",
    "not seashells, sea shells",
    "SeaShells or NewYorkCity",
    "jkl",
    "JKL or ABC",
    "NewYorkCity",
    "newyorkcity, boston",
    "The answer is (B).",
    "A, B or C",
    "1000 or 2000",
    "",
]


@pytest.mark.parametrize("question", [None, "Which one is it?"])
def test_answer_match_row_does_not_depend_on_the_row_before(question: str | None) -> None:
    # A row scored after any other row (the same references or not) gives what it gives alone:
    # the matcher keeps its prepared references between rows, and a rule that adds a row's own
    # alias (the joined words) must not leave it to the next row.
    rows = list(itertools.product(_PATH_RESPONSES, _REPEATED_REFERENCES))
    pairs = [row for first, second in itertools.product(rows, repeat=2) for row in (first, second)]
    frame = pl.DataFrame(
        {
            "response": [r for r, _ in pairs],
            "reference": [g for _, g in pairs],
            "question": [question] * len(pairs),
        }
    )
    q = None if question is None else "question"
    expr = ps.answer_match_details("response", "reference", question=q).struct.json_encode()
    alone = {
        row: pl.DataFrame(
            {"response": [row[0]], "reference": [row[1]], "question": [question]}
        ).select(expr)[0, 0]
        for row in rows
    }
    scored = frame.select(expr).to_series().to_list()
    after = [(pairs[i - 1], pairs[i], got) for i, got in enumerate(scored) if i % 2 == 1]
    differ = [(before, row, got) for before, row, got in after if got != alone[row]]
    assert not differ, differ[:3]
