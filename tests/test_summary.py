"""summarize: counts, means, pass rates and intervals against hand-computed values."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore.summary import bootstrap_mean_interval, wilson_interval

Z95 = 1.959963984540054  # the standard normal 0.975 quantile, from tables

FRAME = pl.DataFrame(
    {
        "model": ["a", "a", "a", "a", "b", "b", "b", None],
        "split": ["x", "y", "x", "y", "x", "x", "y", "x"],
        "answer_correctness": [1.0, 0.0, None, 1.0, 0.5, float("nan"), 0.25, 1.0],
        "other": [0.2, 0.4, 0.6, 0.8, 1.0, 0.0, None, None],
        "expected": ["good", "bad", "good", "good", "bad", "good", "maybe", None],
    }
)


def wilson_by_formula(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = (z / (1 + z * z / n)) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (8, 10), (0, 50), (37, 120), (999, 1000)])
def test_wilson_matches_its_formula(k: int, n: int) -> None:
    low, high = wilson_interval(k, n)
    expected_low, expected_high = wilson_by_formula(k, n)
    assert low == pytest.approx(max(expected_low, 0.0), abs=1e-12)
    assert high == pytest.approx(min(expected_high, 1.0), abs=1e-12)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_published_value() -> None:
    # 8 of 10 at 95%: 0.4902 to 0.9433 (Newcombe 1998, method 3).
    assert [round(x, 4) for x in wilson_interval(8, 10)] == [0.4902, 0.9433]


def test_wilson_other_confidence() -> None:
    z90 = 1.6448536269514722
    assert wilson_interval(3, 7, confidence=0.9) == pytest.approx(wilson_by_formula(3, 7, z90))


def test_counts_mean_and_pass_rate_by_hand() -> None:
    out = ps.summarize(FRAME, "answer_correctness", n_bootstrap=0)
    row = out.row(0, named=True)
    # 8 rows; null and NaN are inconclusive; scored values 1, 0, 1, .5, .25, 1.
    assert row["rows"] == 8
    assert row["scored"] == 6
    assert row["inconclusive"] == 2
    assert row["mean"] == pytest.approx(3.75 / 6)
    assert row["passed"] == 4  # 1, 1, .5 (at the threshold), 1
    assert row["pass_rate"] == pytest.approx(4 / 6)
    low, high = wilson_by_formula(4, 6)
    assert row["pass_rate_low"] == pytest.approx(low)
    assert row["pass_rate_high"] == pytest.approx(high)
    assert row["mean_low"] is None
    assert row["mean_high"] is None


def test_grouped_several_keys_and_scores() -> None:
    out = ps.summarize(FRAME, ["answer_correctness", "other"], by=["model", "split"], seed=3)
    assert out.columns[:3] == ["model", "split", "score"]
    keys = out.select("model", "split", "score").rows()
    assert keys == [
        ("a", "x", "answer_correctness"),
        ("a", "x", "other"),
        ("a", "y", "answer_correctness"),
        ("a", "y", "other"),
        ("b", "x", "answer_correctness"),
        ("b", "x", "other"),
        ("b", "y", "answer_correctness"),
        ("b", "y", "other"),
        (None, "x", "answer_correctness"),
        (None, "x", "other"),
    ]
    by_key = dict(zip(keys, out.iter_rows(named=True), strict=True))
    ax = by_key[("a", "x", "answer_correctness")]
    assert (ax["rows"], ax["scored"], ax["inconclusive"], ax["mean"]) == (2, 1, 1, 1.0)
    bx = by_key[("b", "x", "other")]
    assert (bx["scored"], bx["mean"], bx["passed"]) == (2, 0.5, 1)
    empty = by_key[("b", "y", "other")]
    assert (empty["scored"], empty["inconclusive"]) == (0, 1)
    for column in ("mean", "mean_low", "pass_rate", "pass_rate_low", "pass_rate_high"):
        assert empty[column] is None


def test_expected_behavior_pass_rates() -> None:
    out = ps.summarize(FRAME, "answer_correctness", expected_behavior="expected", n_bootstrap=0)
    row = out.row(0, named=True)
    # good rows: 1.0 (pass), None, 1.0 (pass), NaN -> scored 2, passed 2.
    assert (row["good_scored"], row["good_pass_rate"]) == (2, 1.0)
    # bad rows: 0.0 (fail), 0.5 (pass) -> 1 / 2. "maybe" and null count in neither.
    assert (row["bad_scored"], row["bad_pass_rate"]) == (2, 0.5)


def test_threshold_per_column() -> None:
    out = ps.summarize(
        FRAME, ["answer_correctness", "other"], threshold={"answer_correctness": 1.0, "other": 0.3}
    )
    assert out["passed"].to_list() == [3, 4]
    assert out["threshold"].to_list() == [1.0, 0.3]


def test_default_scores_are_float_columns_named_after_scorers() -> None:
    frame = FRAME.with_columns(
        v2_answer_correctness=pl.col("answer_correctness"),
        answer_correctness_passed=pl.col("answer_correctness") >= 0.5,
    )
    assert ps.summarize(frame, n_bootstrap=0)["score"].to_list() == [
        "answer_correctness",
        "v2_answer_correctness",
    ]


def test_lazy_equals_eager(tmp_path: Path) -> None:
    eager = ps.summarize(FRAME, by="model", expected_behavior="expected", seed=7)
    lazy = ps.summarize(FRAME.lazy(), by="model", expected_behavior="expected", seed=7)
    assert_frame_equal(lazy, eager)
    path = tmp_path / "scored.parquet"
    FRAME.write_parquet(path)
    scanned = ps.summarize(pl.scan_parquet(path), by="model", expected_behavior="expected", seed=7)
    assert_frame_equal(scanned, eager)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(1)
    frame = pl.DataFrame({"answer_correctness": (rng.random(500) < 0.7).astype(float)})
    first = ps.summarize(frame, seed=11).row(0, named=True)
    again = ps.summarize(frame, seed=11).row(0, named=True)
    other = ps.summarize(frame, seed=12).row(0, named=True)
    assert (first["mean_low"], first["mean_high"]) == (again["mean_low"], again["mean_high"])
    assert (first["mean_low"], first["mean_high"]) != (other["mean_low"], other["mean_high"])
    assert first["mean_low"] < first["mean"] < first["mean_high"]


def test_bootstrap_degenerate_when_all_equal() -> None:
    frame = pl.DataFrame({"answer_correctness": [0.25] * 40})
    row = ps.summarize(frame).row(0, named=True)
    assert row["mean_low"] == pytest.approx(0.25)
    assert row["mean_high"] == pytest.approx(0.25)


def test_bootstrap_from_counts_agrees_with_resampling_rows() -> None:
    """The multinomial-on-counts bootstrap has the distribution of row resampling."""
    rng = np.random.default_rng(5)
    rows = rng.choice([0.0, 0.25, 0.5, 1.0], size=300, p=[0.3, 0.1, 0.2, 0.4])
    values, counts = np.unique(rows, return_counts=True)
    low, high = bootstrap_mean_interval(values, counts, n_bootstrap=20_000, seed=0)
    resampled = rng.choice(rows, size=(20_000, rows.size), replace=True).mean(axis=1)
    naive_low, naive_high = np.quantile(resampled, [0.025, 0.975])
    # Two Monte Carlo estimates of the same quantiles (standard error about 0.002 each).
    assert low == pytest.approx(naive_low, abs=0.01)
    assert high == pytest.approx(naive_high, abs=0.01)


def test_summary_bootstrap_equals_bootstrap_of_value_counts() -> None:
    """For scores with at most 4 decimals, the lazy binning loses nothing."""
    values = [0.0, 0.1234, 0.5, 1.0, 0.1234, 1.0, 1.0, None]
    frame = pl.DataFrame({"answer_correctness": values})
    row = ps.summarize(frame, seed=4, n_bootstrap=500).row(0, named=True)
    distinct, counts = np.unique([v for v in values if v is not None], return_counts=True)
    low, high = bootstrap_mean_interval(distinct, counts, n_bootstrap=500, seed=4)
    assert row["mean_low"] == pytest.approx(low, abs=1e-12)
    assert row["mean_high"] == pytest.approx(high, abs=1e-12)


def test_unrounded_scores_interval_follows_the_exact_mean() -> None:
    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"answer_correctness": rng.random(2_000)})
    row = ps.summarize(frame).row(0, named=True)
    assert row["mean"] == pytest.approx(frame["answer_correctness"].mean())
    assert row["mean_low"] < row["mean"] < row["mean_high"]
    # About 1.96 standard errors each side.
    se = frame["answer_correctness"].std() / math.sqrt(2_000)
    assert row["mean_high"] - row["mean_low"] == pytest.approx(2 * Z95 * se, rel=0.1)


def test_errors() -> None:
    with pytest.raises(ps.ColumnNotFoundError, match=r"'nope'.*'model'"):
        ps.summarize(FRAME, "nope")
    with pytest.raises(ps.ColumnNotFoundError, match="'team'"):
        ps.summarize(FRAME, "other", by="team")
    with pytest.raises(ps.ColumnTypeError, match="numeric"):
        ps.summarize(FRAME, "model")
    with pytest.raises(ps.ColumnTypeError, match="expected_behavior"):
        ps.summarize(FRAME, "other", expected_behavior="other")
    with pytest.raises(ps.ColumnNotFoundError, match="'label'"):
        ps.summarize(FRAME, "other", expected_behavior="label")
    with pytest.raises(ps.InvalidParameterError, match="scores"):
        ps.summarize(FRAME.select("model"))
    with pytest.raises(ps.InvalidParameterError, match="threshold"):
        ps.summarize(FRAME, "other", threshold=float("inf"))
    with pytest.raises(ps.InvalidParameterError, match="threshold"):
        ps.summarize(FRAME, ["other", "answer_correctness"], threshold={"other": 0.5})
    with pytest.raises(ps.InvalidParameterError, match="confidence"):
        ps.summarize(FRAME, "other", confidence=1.0)
    with pytest.raises(ps.InvalidParameterError, match="n_bootstrap"):
        ps.summarize(FRAME, "other", n_bootstrap=-1)
    with pytest.raises(ps.InvalidParameterError, match="by"):
        ps.summarize(FRAME, "other", by="other")
    with pytest.raises(ps.InvalidParameterError, match="frame"):
        ps.summarize({"a": [1.0]}, "a")  # type: ignore[type-var]


def test_on_scored_sample() -> None:
    """The workflow end to end on the bundled sample: one row per model."""
    from polarscore.datasets import load_sample

    scored = ps.score_frame(
        load_sample(lazy=True),
        scorers={"answer_correctness": {"match_mode": "contains"}},
    )
    out = ps.summarize(scored, by="model", n_bootstrap=200)
    assert out.height == 5
    assert out["rows"].sum() == 3000
    expected = (
        load_sample()
        .group_by("model")
        .agg(
            ps.answer_correctness("response", "reference", match_mode="contains").mean().alias("m")
        )
        .sort("model")
    )
    assert out["mean"].to_list() == pytest.approx(expected["m"].to_list())


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.99])
def test_confidence_is_passed_on_to_both_intervals(confidence: float) -> None:
    """A confidence other than the default moves both intervals exactly as the interval functions
    compute them at that confidence (checking only that bad values are refused would let
    ``summarize`` drop the parameter unnoticed)."""
    values = [0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0, 0.25, 1.0, 0.0, None]
    frame = pl.DataFrame({"answer_correctness": values})
    row = ps.summarize(frame, confidence=confidence, n_bootstrap=500, seed=7).row(0, named=True)
    assert (row["passed"], row["scored"]) == (7, 11)  # the default threshold 0.5
    wilson = wilson_interval(7, 11, confidence=confidence)
    assert (row["pass_rate_low"], row["pass_rate_high"]) == pytest.approx(wilson, abs=1e-15)
    assert wilson != pytest.approx(wilson_interval(7, 11))
    distinct, counts = np.unique([v for v in values if v is not None], return_counts=True)
    bootstrap = bootstrap_mean_interval(
        distinct, counts, confidence=confidence, n_bootstrap=500, seed=7
    )
    assert (row["mean_low"], row["mean_high"]) == pytest.approx(bootstrap, abs=1e-12)
    assert bootstrap != pytest.approx(
        bootstrap_mean_interval(distinct, counts, n_bootstrap=500, seed=7)
    )


@pytest.mark.parametrize("by", [None, "model"])
def test_empty_frame_has_no_summary_rows(by: str | None) -> None:
    empty = FRAME.clear()
    assert ps.summarize(empty, "answer_correctness", by=by).height == 0
    assert ps.summarize(empty.lazy(), "answer_correctness", by=by, n_bootstrap=0).height == 0


def _exact_mean(values: list[float]) -> float:
    return float(sum(map(Fraction, values)) / len(values))


def test_mean_is_the_exact_mean_rounded_once() -> None:
    """Summing floats in any order loses the last bits differently; the mean is exact instead."""
    rng = np.random.default_rng(11)
    groups = {
        "unit": (rng.random(5000) ** 3).tolist(),
        "wide": (rng.standard_normal(3000) * 10.0 ** rng.integers(-300, 300, 3000)).tolist(),
        "tiny": [5e-324, 1e-310, -2.5e-320, 1e-300, 0.0, -0.0],
        "huge": [1.7976931348623157e308] * 3 + [-1e308],
        "cancel": [1e16, 1.0, -1e16, 1.0, 3e-17],
    }
    frame = pl.DataFrame(
        {
            "model": [g for g, values in groups.items() for _ in values],
            "score": [v for values in groups.values() for v in values],
        }
    )
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=3)
    out = ps.summarize(shuffled, "score", by="model", n_bootstrap=0)
    got = dict(zip(out["model"], out["mean"], strict=True))
    assert got == {g: _exact_mean(values) for g, values in groups.items()}
    # the naive float sum is off on some of them: the test tells the two apart
    assert any(sum(values) / len(values) != got[g] for g, values in groups.items())


def test_mean_with_infinities_follows_ieee() -> None:
    frame = pl.DataFrame(
        {
            "g": ["a", "a", "b", "b", "c", "c"],
            "score": [math.inf, 1.0, -math.inf, 0.5, math.inf, -math.inf],
        }
    )
    means = ps.summarize(frame, "score", by="g", n_bootstrap=0)["mean"].to_list()
    assert means[:2] == [math.inf, -math.inf]
    assert math.isnan(means[2])
