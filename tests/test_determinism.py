"""Every registered scorer gives bit-identical results however the rows reach it.

Across the eager, lazy and streaming engines (and streaming morsel sizes), Arrow record batches of
any size, one chunk or many, any row order, and ``POLARS_MAX_THREADS`` of 1 and 2 (in fresh
subprocesses, since the thread pool is fixed at import). The data is the parity table plus a
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
import pyarrow as pa
import pytest

import polarscore as ps
from benchmarks.synthetic import make_eval_log
from tests.scorer_cases import SCORERS, option_sets, reference_forms

ROOT = Path(__file__).parents[1]
DATA = Path(__file__).parent / "data"

CASES = [(spec, form) for spec in SCORERS for form in reference_forms(spec)]
CASE_IDS = [f"{spec.name}-{form}" for spec, form in CASES]


def load_frame() -> pl.DataFrame:
    parity = pl.read_parquet(DATA / "parity_cases.parquet").select(
        "response", "reference", pl.col("acceptable").alias("references")
    )
    synthetic = make_eval_log(600, seed=9).select("response", "reference", "references")
    return pl.concat([parity, synthetic])


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return load_frame()


def score_expr(spec: ps.ScorerSpec, form: str, **options: Any) -> pl.Expr:
    reference = "reference" if form == "string" else "references"
    return spec.expr("response", reference, **options).alias(f"{spec.name}-{form}")


def _arrow_batches(df: pl.DataFrame, expr: pl.Expr, rows: int) -> pl.DataFrame:
    batches = df.to_arrow().to_batches(max_chunksize=rows)
    parts = [pl.from_arrow(pa.Table.from_batches([b])).select(expr) for b in batches]  # type: ignore[union-attr]
    return pl.concat(parts)


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_engines_batches_and_morsels_agree(
    spec: ps.ScorerSpec, form: str, frame: pl.DataFrame
) -> None:
    expr = score_expr(spec, form)
    expected = frame.select(expr)
    runs = {
        "lazy": lambda: frame.lazy().select(expr).collect(),
        "streaming": lambda: frame.lazy().select(expr).collect(engine="streaming"),
        "arrow_1000": lambda: _arrow_batches(frame, expr, 1000),
        "arrow_61": lambda: _arrow_batches(frame, expr, 61),
    }
    for label, run in runs.items():
        assert run().equals(expected), label
    for morsel in (50, 4096):
        with pl.Config(streaming_chunk_size=morsel):
            got = frame.lazy().select(expr).collect(engine="streaming")
        assert got.equals(expected), f"streaming chunk size {morsel}"


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_every_option_set_agrees_across_engines(
    spec: ps.ScorerSpec, form: str, frame: pl.DataFrame
) -> None:
    small = frame.gather(np.random.default_rng(3).permutation(frame.height)[:800])
    for options in option_sets(spec):
        expr = score_expr(spec, form, **options)
        expected = small.select(expr)
        assert small.lazy().select(expr).collect(engine="streaming").equals(expected), options
        assert _arrow_batches(small, expr, 97).equals(expected), options


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_chunking_does_not_matter(spec: ps.ScorerSpec, form: str, frame: pl.DataFrame) -> None:
    cuts = np.sort(np.random.default_rng(1).choice(frame.height, 40, replace=False))
    bounds = [0, *cuts.tolist(), frame.height]
    chunked = pl.concat(
        [frame.slice(a, b - a) for a, b in itertools.pairwise(bounds)], rechunk=False
    )
    assert chunked.n_chunks() > 30
    expr = score_expr(spec, form)
    expected = frame.rechunk().select(expr)
    assert chunked.select(expr).equals(expected)
    assert chunked.lazy().select(expr).collect(engine="streaming").equals(expected)


@pytest.mark.parametrize(("spec", "form"), CASES, ids=CASE_IDS)
def test_row_order_does_not_matter(spec: ps.ScorerSpec, form: str, frame: pl.DataFrame) -> None:
    order = np.random.default_rng(2).permutation(frame.height)
    expr = score_expr(spec, form)
    expected = frame.select(expr)
    shuffled = frame.gather(order).select(expr)
    restored = shuffled.with_columns(pl.Series("__i", order)).sort("__i").drop("__i")
    assert restored.equals(expected)


_CHILD = """
import sys
import polars as pl
from tests.test_determinism import CASES, load_frame, score_expr
frame = load_frame()
out = frame.select([score_expr(spec, form) for spec, form in CASES])
out = out.with_columns(pl.lit(pl.thread_pool_size()).alias("__threads"))
out.write_parquet(sys.argv[1])
"""


def test_thread_count_does_not_matter(tmp_path: Path, frame: pl.DataFrame) -> None:
    outputs = {}
    for threads in (1, 2):
        path = tmp_path / f"threads_{threads}.parquet"
        env = {**os.environ, "POLARS_MAX_THREADS": str(threads), "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [sys.executable, "-c", _CHILD, str(path)], env=env, cwd=ROOT, check=True, timeout=600
        )
        result = pl.read_parquet(path)
        assert result["__threads"][0] == threads
        outputs[threads] = result.drop("__threads")
    assert outputs[1].equals(outputs[2])
    here = frame.select([score_expr(spec, form) for spec, form in CASES])
    assert outputs[1].equals(here)
