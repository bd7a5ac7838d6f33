"""Polarscore on every Polars it supports: the dtype checks of ``polarscore._compat``, and the
default scorers' scores against the newest Polars' (``tests/polars_scores.py``).

The comparison needs the newest Polars' scores, which ``.ci/polars-versions`` and
``.ci/min-versions`` write and name in ``POLARSCORE_NEWEST_SCORES``; without it the test skips.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore import _compat
from tests.polars_scores import default_scores

NEWEST_SCORES = os.environ.get("POLARSCORE_NEWEST_SCORES")


@pytest.mark.skipif(
    not NEWEST_SCORES,
    reason="POLARSCORE_NEWEST_SCORES names no file of the newest Polars' scores "
    "(.ci/polars-versions writes one)",
)
def test_default_scores_equal_the_newest_polars() -> None:
    assert NEWEST_SCORES is not None
    newest = pl.read_parquet(NEWEST_SCORES)
    scores = default_scores()
    assert scores.height == 3000
    assert_frame_equal(scores, newest, check_exact=True)


def test_declared_minimum_polars_is_the_one_checked_at_import() -> None:
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    (polars,) = (d for d in dependencies if re.match(r"polars\b", d))
    lower = re.search(r">=\s*([0-9.]+)", polars)
    assert lower is not None
    assert tuple(int(part) for part in lower.group(1).split(".")) == _compat.MINIMUM_POLARS


def test_plan_time_dtypes_exactly_where_polars_has_pipe_with_dtype() -> None:
    major = int(pl.__version__.split(".")[0])
    assert _compat.PLAN_TIME_DTYPES is (major >= 2)


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        (pl.Series(["paris", None, "x"], dtype=pl.Categorical), [1.0, None, 0.0]),
        (pl.Series(["paris", None, "x"], dtype=pl.Enum(["paris", "x"])), [1.0, None, 0.0]),
        (pl.Series([None, None, None], dtype=pl.Null), [None, None, None]),
        (pl.Series([["a", "paris"], None, ["y"]], dtype=pl.List(pl.Categorical)), [1.0, None, 0.0]),
        (pl.Series([["paris"], None, []], dtype=pl.List(pl.String)), [1.0, None, None]),
    ],
    ids=["categorical", "enum", "null", "list-categorical", "list"],
)
@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_text_like_references_are_cast_on_this_polars(
    reference: pl.Series, expected: list[float | None], engine: str
) -> None:
    frame = pl.LazyFrame({"response": ["Paris", "b", "z"], "reference": reference})
    query = frame.select(ps.answer_correctness("response", "reference"))
    assert query.collect_schema()["answer_correctness"] == pl.Float64
    scored = query.collect(engine=engine)  # type: ignore[call-overload]
    assert scored["answer_correctness"].to_list() == expected


@pytest.mark.parametrize(
    "reference",
    [
        pl.Series([1, 2], dtype=pl.Int64),
        pl.Series([[1], [2]], dtype=pl.List(pl.Int64)),
        pl.Series([b"a", b"b"], dtype=pl.Binary),
        pl.Series([{"a": "x"}, {"a": "y"}]),
    ],
    ids=["int", "list-int", "binary", "struct"],
)
@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_a_non_text_reference_raises_the_same_error_on_this_polars(
    reference: pl.Series, engine: str
) -> None:
    frame = pl.LazyFrame({"response": ["a", "b"], "reference": reference})
    query = frame.select(ps.answer_correctness("response", "reference"))
    with pytest.raises(ps.ColumnTypeError) as info:
        # Polars 2.x raises when the query is planned; 1.x when it runs.
        query.collect(engine=engine)  # type: ignore[call-overload]
    assert str(info.value).startswith(
        "The 'reference' parameter of answer_correctness must be a String column (one reference "
        f"per row) or a List(String) column (several references per row). Got the column "
        f"'reference' of type {reference.dtype} instead."
    )
