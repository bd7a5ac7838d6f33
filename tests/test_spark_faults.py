"""score_spark under faults, on the local Spark session of ``tests/conftest.py``.

* A batch whose data cannot be scored (``on_error="raise"``) fails the job: every attempt of its
  task fails alike, and the error names the batch, the partition, the scorer and the column.
* A Python worker killed in the middle of a task (it kills itself on its first attempt) is
  retried by Spark (the session allows 3 attempts per task): the job recovers, and the retried
  task's scores equal an undisturbed run's and Polars' own.
* A write to a Parquet folder whose job fails commits nothing: no ``_SUCCESS``, no part file.

Like ``tests/test_spark.py``, these run in CI and must never be skipped there.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import polarscore as ps
from polarscore.adapters.spark import score_spark

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # PySpark before 4.3 leaves toArrow()'s collect socket for the garbage collector to close.
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]

SCORERS = ["answer_correctness", "answer_precision", "squad_f1", "response_similarity"]

#: 24 rows in 2 partitions of 12, so 4 batches of 3 rows (SPARK_BATCH_ROWS) per partition.
N_ROWS = 24


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    """Responses and references of varied agreement, with a per-row tolerance as text.

    The tolerance of id 16 is ``"abc"`` (batch 1, rows 3 to 5, of partition 1).
    """
    from pyspark.sql import functions as sf

    words = sf.element_at(
        sf.array(*(sf.lit(w) for w in ("Paris", "paris.", "Lyon 42", "the 41 Lyon", "Σ x²"))),
        (sf.col("id") % 5 + 1).cast("int"),
    )
    return spark.range(0, N_ROWS, numPartitions=2).select(
        "id",
        words.alias("response"),
        sf.when(sf.col("id") % 3 == 0, sf.lit("paris"))
        .otherwise(sf.lit("Lyon, 42"))
        .alias("reference"),
        sf.when(sf.col("id") == 16, sf.lit("abc")).otherwise(sf.lit("0.5")).alias("tol"),
    )


def _scored(df: Any, tol: pl.Expr | float = 0.0) -> Any:
    return score_spark(
        df,
        response="response",
        reference="reference",
        scorers=dict.fromkeys(SCORERS) | {"answer_precision": {"numeric_tolerance_abs": tol}},
        prefix="s_",
    )


def _collect(df: Any) -> pl.DataFrame:
    out = pl.from_arrow(df.toArrow())
    assert isinstance(out, pl.DataFrame)
    return out.sort("id")


STRICT_TOL = pl.col("tol").cast(pl.Float64, strict=True)


def test_bad_data_fails_the_job_naming_batch_and_column(frame: Any) -> None:
    from pyspark.errors import PythonException

    scored = _scored(frame, tol=STRICT_TOL)  # lazy: nothing runs yet
    with pytest.raises(PythonException) as caught:
        scored.collect()
    message = str(caught.value)
    assert (
        "polarscore failed on batch 1 (rows 3 to 5 of Spark partition 1) scoring "
        "answer_precision: InvalidOperationError: conversion from `str` to `f64` failed in "
        "column 'tol'" in message
    ), message
    assert '["abc"]' in message
    assert "BatchScoringError" in message


def _kill_first_attempt(marker_dir: str) -> Any:
    """A ``mapInArrow`` step that passes batches through, except on the very first attempt of
    partition 1's task: there it lets one batch through, then kills its own Python worker.

    Marker files (the folder is shared by the driver and the local workers) make the kill
    happen once in the whole run and record which attempts ran.
    """

    def step(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        context = TaskContext.get()
        assert context is not None
        partition, attempt = context.partitionId(), context.attemptNumber()
        Path(marker_dir, f"ran-{partition}-{attempt}").touch()
        killed = Path(marker_dir, "killed")
        for index, batch in enumerate(batches):
            if partition == 1 and index == 1 and not killed.exists():
                killed.write_text(f"partition {partition}, attempt {attempt}")
                os.kill(os.getpid(), signal.SIGKILL)
            yield batch

    return step


def test_a_killed_worker_is_retried_with_identical_scores(
    spark: Any, frame: Any, tmp_path: Path
) -> None:
    clean = frame.drop("tol")
    undisturbed = _collect(_scored(clean))

    disturbed = clean.mapInArrow(_kill_first_attempt(str(tmp_path)), clean.schema)
    recovered = _collect(_scored(disturbed))

    # The worker did die on the first attempt of partition 1, and a second attempt ran.
    assert (tmp_path / "killed").read_text() == "partition 1, attempt 0"
    assert (tmp_path / "ran-1-0").exists()
    assert (tmp_path / "ran-1-1").exists()
    assert not (tmp_path / "ran-0-1").exists()  # partition 0 was never retried
    assert recovered.equals(undisturbed)
    # ... and both are Polars' own scores of the same rows.
    rows = undisturbed.select("id", "response", "reference")
    expected = rows.select(
        "id",
        *(ps.get_scorer(name).expr("response", "reference").alias(f"s_{name}") for name in SCORERS),
    )
    assert recovered.select(expected.columns).equals(expected)
    assert recovered.height == N_ROWS


def test_a_failed_write_commits_no_output(frame: Any, tmp_path: Path) -> None:
    out = tmp_path / "scored"
    # Spark wraps the executor's error in its job-abort error (its class varies by version).
    with pytest.raises(Exception) as caught:  # noqa: PT011
        _scored(frame, tol=STRICT_TOL).write.mode("overwrite").parquet(str(out))
    assert "conversion from `str` to `f64` failed in column 'tol'" in str(caught.value)
    # Partition 0 scores fine and its task may have finished, but the job never commits:
    # no success marker, no part file in the output folder.
    committed = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert "_SUCCESS" not in committed
    assert [name for name in committed if name.startswith("part-")] == []
    assert list(out.rglob("*.parquet")) == []  # nor any left in a temporary folder
