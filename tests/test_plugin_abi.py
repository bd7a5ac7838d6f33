"""The native extension's side of Polars' expression-plugin ABI (``src/plugin/``).

Polars reads a failed plugin call's error through the library's last-error message. A kernel's
error must reach Python as a ``ComputeError`` with its text, and a panic (a bug) as Polars' "the
plugin panicked" error, never as an aborted process: those run in a child process, so that an
abort fails the test instead of ending the run.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap

import polars as pl
import pytest

import polarscore as ps
from polarscore import _internal
from polarscore.kernels._plugin import plugin_call
from polarscore.scores.correctness import INCONCLUSIVE_REASON


def test_the_library_speaks_plugin_abi_0_1() -> None:
    library = ctypes.CDLL(_internal.__file__)
    version = library._polars_plugin_get_version
    version.restype = ctypes.c_uint32
    assert divmod(version(), 1 << 16) == (0, 1)


def test_a_kernel_error_is_a_compute_error_with_its_message() -> None:
    frame = pl.DataFrame({"response": [1, 2], "reference": ["a", "b"]})
    with pytest.raises(pl.exceptions.ComputeError, match="response must be a String column"):
        frame.select(
            plugin_call("answer_correctness", pl.col("response"), pl.col("reference"), mode="exact")
        )


def test_keyword_arguments_of_the_wrong_type_are_a_clear_error() -> None:
    frame = pl.DataFrame({"response": ["a"], "reference": ["a"]})
    expr = plugin_call("answer_correctness", pl.col("response"), pl.col("reference"), mode=5)
    with pytest.raises(
        pl.exceptions.ComputeError, match="could not read the plugin's keyword arguments"
    ):
        frame.select(expr)


def _child(code: str, *, verbose: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "POLARS_VERBOSE"}
    if verbose:
        env["POLARS_VERBOSE"] = "1"
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


# A kernel given one input where it reads two indexes past the end: a panic in a batch.
PANIC_IN_BATCH = """
    import polars as pl
    from polarscore.kernels._plugin import plugin_call

    frame = pl.DataFrame({"response": ["a", "b"]})
    try:
        frame.select(plugin_call("answer_correctness", pl.col("response"), mode="exact"))
    except pl.exceptions.ComputeError as error:
        print("raised:", str(error).splitlines()[0])
"""

# A Categorical column handed to a kernel directly (polarscore's scorers cast it first): the
# plugin's Polars crates have no Categorical, so reading the field panics when the query is planned.
PANIC_IN_FIELD = """
    import polars as pl
    from polarscore.kernels._plugin import plugin_call

    frame = pl.LazyFrame({"response": ["a"], "reference": ["a"]})
    response = pl.col("response").cast(pl.Categorical)
    try:
        frame.select(plugin_call("answer_correctness", response, pl.col("reference"))).collect()
    except pl.exceptions.ComputeError as error:
        print("raised:", str(error).splitlines()[0])
"""


@pytest.mark.parametrize("code", [PANIC_IN_BATCH, PANIC_IN_FIELD], ids=["batch", "field"])
def test_a_panic_is_reported_not_an_abort(code: str) -> None:
    quiet = _child(code, verbose=False)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.strip() == "raised: the plugin panicked"
    # Its message goes to stderr only when Polars is verbose, as Polars' error says.
    assert "panicked at" not in quiet.stderr
    verbose = _child(code, verbose=True)
    assert verbose.returncode == 0, verbose.stderr
    assert verbose.stdout.strip() == "raised: the plugin panicked"
    assert "panicked at" in verbose.stderr


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_a_struct_output_with_nulls_crosses_both_ways(engine: str) -> None:
    # The field function's struct dtype (when the query is planned) must be the batch's, and the
    # nulls inside it (an inconclusive row's score and reference index) must survive the export.
    frame = pl.LazyFrame({"response": ["Paris.", "Lyon", "x"], "reference": ["paris", None, "y"]})
    query = frame.select(ps.answer_correctness_details("response", "reference"))
    planned = query.collect_schema()
    scored = query.collect(engine=engine)  # type: ignore[call-overload]
    assert scored.schema == planned
    assert planned["answer_correctness_details"] == pl.Struct(
        {
            "score": pl.Float64,
            "reason": pl.String,
            "match_mode": pl.String,
            "reference_index": pl.UInt32,
        }
    )
    rows = scored.unnest("answer_correctness_details")
    assert rows["score"].to_list() == [1.0, None, 0.0]
    assert rows["reason"].to_list() == [
        "normalized match",
        INCONCLUSIVE_REASON,
        "no normalized match",
    ]
    assert rows["reference_index"].to_list() == [0, None, 0]


def test_keyword_arguments_reach_the_kernel() -> None:
    frame = pl.DataFrame({"response": ["the capital is Paris"], "reference": ["paris"]})
    scores = [
        frame.select(
            plugin_call("answer_correctness", pl.col("response"), pl.col("reference"), mode=mode)
        ).item()
        for mode in ("exact", "contains")
    ]
    assert scores == [0.0, 1.0]
