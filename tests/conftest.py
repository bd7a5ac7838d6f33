"""Shared fixtures: the engine fixture every scorer test runs under (the harness of
``tests/engines.py``), the parity table, and the one local Spark session of the Spark tests."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import polars as pl
import pytest

import polarscore as ps
from tests.engines import ENGINES, Engine

DATA = Path(__file__).parent / "data"

# Hypothesis profiles: "dev" (random examples), "ci" (the same number, derandomized: a CI failure
# reproduces), and "versions" for the suites .ci/min-versions and .ci/polars-versions run again
# on other Polars versions, where what can break is the Python glue, not the kernels the newest
# version's run has already searched. POLARSCORE_HYPOTHESIS_PROFILE picks one (.ci/run and those
# scripts set it), else "ci" when the CI variable is set. The depth is in the slow fuzz run
# (tests/test_fuzz.py, tests/test_differential.py), which sets its own example counts.
hypothesis.settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, print_blob=True
)
hypothesis.settings.register_profile(
    "versions", max_examples=25, deadline=None, derandomize=True, print_blob=True
)
hypothesis.settings.register_profile("dev", max_examples=100, deadline=None)
hypothesis.settings.load_profile(
    os.environ.get("POLARSCORE_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(params=ENGINES, ids=str)
def engine(request: pytest.FixtureRequest) -> Engine:
    """Each engine of ``tests/engines.py``: eager, lazy, streaming, Arrow batches of 1, 7, 97."""
    engine: Engine = request.param
    return engine


@pytest.fixture(scope="session")
def parity() -> pl.DataFrame:
    """The 3,000 parity cases with the reference libraries' own outputs."""
    return pl.read_parquet(DATA / "parity_cases.parquet")


#: Rows per Arrow batch inside Spark: small, so every partition spans several batches.
SPARK_BATCH_ROWS = 3


def _spark_or_skip() -> None:
    reason = None
    try:
        import pyspark  # noqa: F401
    except ImportError:
        reason = "pyspark is not installed (pip install 'polarscore[spark]')"
    java_home = os.environ.get("JAVA_HOME")
    if reason is None and not (
        shutil.which("java") or (java_home and (Path(java_home) / "bin" / "java").exists())
    ):
        reason = "no Java found (set JAVA_HOME or put java on PATH)"
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the Spark tests must run in CI, but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One small local Spark session for the whole run, started as fast as this machine allows.

    Shared by ``tests/test_spark.py`` and ``tests/test_spark_faults.py`` (one JVM per run). Two
    cores, and up to 3 attempts per task (``local[2,3]``), as a cluster retries a task whose
    worker died; a task that fails on its data fails all its attempts, so the job still fails.
    """
    _spark_or_skip()
    from pyspark.sql import SparkSession

    # Executors must import this checkout's polarscore even when it is not installed.
    root = str(Path(ps.__file__).resolve().parents[1])
    python_path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        env.setenv("PYSPARK_PYTHON", sys.executable)
        env.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
        env.setenv("PYTHONPATH", python_path)
        session = (
            SparkSession.builder.master("local[2,3]")
            .appName("polarscore-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(SPARK_BATCH_ROWS))
            .config("spark.executorEnv.PYTHONPATH", python_path)
            .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        try:
            yield session
        finally:
            session.stop()
