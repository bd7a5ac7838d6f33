"""Shared fixtures: the engine fixture every scorer test runs under, and the parity table."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import hypothesis
import polars as pl
import pyarrow as pa
import pytest

DATA = Path(__file__).parent / "data"

hypothesis.settings.register_profile(
    "ci", max_examples=200, deadline=None, derandomize=True, print_blob=True
)
hypothesis.settings.register_profile("dev", max_examples=100, deadline=None)
hypothesis.settings.load_profile("ci" if os.environ.get("CI") else "dev")

#: Small enough that the parity table (3,000 rows) spans many batches of uneven content.
ARROW_BATCH_ROWS = 97

Engine = Callable[..., pl.DataFrame]


def _eager(df: pl.DataFrame, *exprs: pl.Expr) -> pl.DataFrame:
    return df.select(*exprs)


def _lazy(df: pl.DataFrame, *exprs: pl.Expr) -> pl.DataFrame:
    return df.lazy().select(*exprs).collect()


def _streaming(df: pl.DataFrame, *exprs: pl.Expr) -> pl.DataFrame:
    return df.lazy().select(*exprs).collect(engine="streaming")


def _arrow_batches(df: pl.DataFrame, *exprs: pl.Expr) -> pl.DataFrame:
    """Score each Arrow record batch on its own, as the Spark/Ray adapters do, and stitch."""
    table = df.to_arrow()
    batches = table.to_batches(max_chunksize=ARROW_BATCH_ROWS) or [
        pa.RecordBatch.from_pylist([], schema=table.schema)
    ]
    parts = [pl.from_arrow(batch).select(*exprs) for batch in batches]  # type: ignore[union-attr]
    return pl.concat(parts, how="vertical")


ENGINES: dict[str, Engine] = {
    "eager": _eager,
    "lazy": _lazy,
    "streaming": _streaming,
    "arrow_batches": _arrow_batches,
}


@pytest.fixture(params=list(ENGINES))
def engine(request: pytest.FixtureRequest) -> Engine:
    """Run ``select(*exprs)`` on a DataFrame eagerly, lazily, streaming, or batch by batch."""
    return ENGINES[request.param]


@pytest.fixture(scope="session")
def parity() -> pl.DataFrame:
    """The 3,000 parity cases with the reference libraries' own outputs."""
    return pl.read_parquet(DATA / "parity_cases.parquet")
