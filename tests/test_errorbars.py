"""Honest error bars: clustered standard errors, epoch reducers, paired comparisons and power.

The oracles are independent: statsmodels' cluster-robust OLS, ``mcnemar`` and ``multipletests``,
SciPy's Student t, and inspect-ai's own reduced accuracy and standard error in logs it writes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polarscore as ps
from polarscore.comparison import (
    holm,
    mcnemar_p_value,
    paired_difference,
    t_quantile,
    t_two_sided_p,
)
from polarscore.summary import (
    cluster_bootstrap_interval,
    clustered_standard_error,
    clustered_standard_errors,
)
from tests.cli_process import run_cli

LM_EVAL_LOG = (
    Path(__file__).parent
    / "data/logs/lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
)


def _clustered_scores(seed: int, clusters: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Binary scores in clusters of 1 to 6 rows, correlated within a cluster."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, clusters)
    labels = np.repeat(np.arange(clusters), sizes)
    level = rng.random(clusters)[labels]
    return (rng.random(labels.size) < level).astype(np.float64), labels


def _statsmodels_se(x: np.ndarray, groups: np.ndarray | None, *, correction: bool) -> float:
    import statsmodels.api as sm

    model = sm.OLS(x, np.ones_like(x))
    if groups is None:
        return float(model.fit().bse[0])  # the classical (homoskedastic) standard error
    fit = model.fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": correction})
    return float(fit.bse[0])


# ---------------------------------------------------------------- the clustered standard error


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("convention", ["corrected", "as printed"])
def test_clustered_se_equals_statsmodels(seed: int, convention: str) -> None:
    correction = convention == "corrected"
    x, labels = _clustered_scores(seed)
    expected = _statsmodels_se(x, labels, correction=correction)
    got = clustered_standard_error(x, labels, correction=correction)
    assert got == pytest.approx(expected, rel=1e-9)
    if correction:  # summarize uses statsmodels' default convention
        frame = pl.DataFrame({"passage": labels.astype(str), "answer_correctness": x})
        row = ps.summarize(frame, cluster="passage").row(0, named=True)
        assert row["mean_se"] == pytest.approx(expected, rel=1e-9)
        assert row["clusters"] == len(set(labels.tolist()))
    # one row per cluster: the classical standard error, std(ddof=1) / sqrt(n)
    assert clustered_standard_error(x) == pytest.approx(
        _statsmodels_se(x, None, correction=True), rel=1e-9
    )


def test_clustered_se_is_miller_formula() -> None:
    """Miller's (2024) eq.: SE_CLT² + (1/n²) Σ_c Σ_i Σ_{j≠i} (s_ic − s̄)(s_jc − s̄)."""
    x, labels = _clustered_scores(4)
    n, mean = x.size, x.mean()
    clt = ((x - mean) ** 2).sum() / n**2
    cross = 0.0
    for c in np.unique(labels):
        e = x[labels == c] - mean
        cross += (e.sum() ** 2 - (e**2).sum()) / n**2
    miller = math.sqrt(clt + cross)
    assert clustered_standard_error(x, labels, correction=False) == pytest.approx(miller, rel=1e-9)
    g = len(np.unique(labels))
    assert clustered_standard_error(x, labels) == pytest.approx(
        miller * math.sqrt(g / (g - 1)), rel=1e-9
    )


def test_batched_clustered_se_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 5, 12).astype(float)
    sums = rng.random((7, 12)) * sizes
    means = sums.sum(axis=1) / sizes.sum()
    batch = clustered_standard_errors(sums, sizes, means)
    for row, se in zip(sums, batch, strict=True):
        labels = np.repeat(np.arange(12), sizes.astype(int))
        values = np.repeat(row / sizes, sizes.astype(int))
        assert se == pytest.approx(clustered_standard_error(values, labels), rel=1e-9)


def test_summary_by_group_and_without_clusters() -> None:
    x, labels = _clustered_scores(3)
    model = np.where(np.arange(x.size) % 2 == 0, "a", "b")
    frame = pl.DataFrame({"m": model, "q": labels, "answer_correctness": x})
    out = ps.summarize(frame, by="m", cluster="q")
    for row in out.iter_rows(named=True):
        mine = model == row["m"]
        assert row["mean_se"] == pytest.approx(
            clustered_standard_error(x[mine], labels[mine]), rel=1e-9
        )
    flat = ps.summarize(frame, cluster=None).row(0, named=True)
    assert flat["clusters"] is None
    assert flat["mean_se"] == pytest.approx(x.std(ddof=1) / math.sqrt(x.size), rel=1e-9)


def test_clustered_errors_are_wider_on_correlated_clusters() -> None:
    x, labels = _clustered_scores(5, clusters=200)
    frame = pl.DataFrame({"q": labels, "answer_correctness": x})
    flat = ps.summarize(frame, cluster=None, seed=1).row(0, named=True)
    clustered = ps.summarize(frame, cluster="q", seed=1).row(0, named=True)
    assert clustered["mean"] == flat["mean"]
    assert clustered["mean_se"] > 1.3 * flat["mean_se"]
    width = clustered["mean_high"] - clustered["mean_low"]
    assert width > 1.3 * (flat["mean_high"] - flat["mean_low"])
    pass_width = clustered["pass_rate_high"] - clustered["pass_rate_low"]
    assert pass_width > 1.3 * (flat["pass_rate_high"] - flat["pass_rate_low"])


def test_cluster_bootstrap_resamples_clusters() -> None:
    """The multinomial-over-clusters bootstrap has the distribution of a cluster loop."""
    x, labels = _clustered_scores(6, clusters=80)
    sums = np.bincount(labels, weights=x)
    sizes = np.bincount(labels).astype(float)
    low, high = cluster_bootstrap_interval(sums, sizes, np.ones(sums.size), n_bootstrap=20_000)
    rng = np.random.default_rng(3)
    picks = rng.integers(0, sums.size, size=(20_000, sums.size))
    means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    naive_low, naive_high = np.quantile(means, [0.025, 0.975])
    assert low == pytest.approx(naive_low, abs=0.01)
    assert high == pytest.approx(naive_high, abs=0.01)
    frame = pl.DataFrame({"q": labels, "answer_correctness": x})
    row = ps.summarize(frame, cluster="q", n_bootstrap=20_000).row(0, named=True)
    assert row["mean_low"] == pytest.approx(naive_low, abs=0.01)
    assert row["mean_high"] == pytest.approx(naive_high, abs=0.01)


# ---------------------------------------------------------------- epochs and inspect-ai


@pytest.fixture(scope="module")
def epoch_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    pytest.importorskip("inspect_ai")
    from tests.inspect_epochs import write_in_subprocess

    root = tmp_path_factory.mktemp("epochs")
    return {
        graded: write_in_subprocess(root / str(graded), 45, 3, graded=graded)
        for graded in (False, True)
    }


def _inspect_results(path: Path) -> dict[str, dict[str, float]]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path), header_only=True)
    assert log.results is not None
    return {
        str(score.reducer): {k: float(m.value) for k, m in score.metrics.items()}
        for score in log.results.scores
    }


@pytest.mark.parametrize("kind", ["binary", "graded"])
@pytest.mark.parametrize("reducer", ["mean", "max", "mode", "at_least_2"])
def test_reduced_mean_and_se_equal_inspect_ai(
    epoch_logs: dict[bool, Path], kind: str, reducer: str
) -> None:
    path = epoch_logs[kind == "graded"]
    expected = _inspect_results(path)[reducer]
    frame = ps.read_log(path)
    # inspect-ai's at_least counts the scores of at least 1.0
    row = ps.summarize(
        frame, "framework_verdict", cluster="sample_id", epoch_reducer=reducer, threshold=1.0
    ).row(0, named=True)
    assert row["clusters"] == 45
    assert row["rows"] == 135
    assert row["mean"] == pytest.approx(expected["accuracy"], rel=1e-9, abs=1e-12)
    assert row["mean_se"] == pytest.approx(expected["stderr"], rel=1e-9, abs=1e-12)


def test_epochs_cluster_by_default(epoch_logs: dict[bool, Path], tmp_path: Path) -> None:
    path = epoch_logs[False]
    expected = _inspect_results(path)["mean"]
    frame = ps.read_log(path)
    row = ps.summarize(frame, "framework_verdict").row(0, named=True)
    # equal epochs: the clustered error of the rows is the error of the reduced means
    assert row["clusters"] == 45
    assert row["mean"] == pytest.approx(expected["accuracy"], rel=1e-9)
    assert row["mean_se"] == pytest.approx(expected["stderr"], rel=1e-9)
    rows = ps.summarize(frame, "framework_verdict", cluster=None).row(0, named=True)
    assert rows["clusters"] is None
    assert rows["mean_se"] < row["mean_se"]
    done = run_cli("summary", str(path), "--scores", "framework_verdict")
    assert done.returncode == 0, done.stderr
    assert "errors clustered by task, sample_id" in done.stdout
    done = run_cli("summary", str(path), "--scores", "framework_verdict", "--cluster", "none")
    assert "clustered" not in done.stdout


# ---------------------------------------------------------------- bounds


def test_lm_eval_squad_f1_interval_inside_the_score_range(tmp_path: Path) -> None:
    scored = tmp_path / "scored.parquet"
    done = run_cli("score", str(LM_EVAL_LOG), "-o", str(scored), "-q")
    assert done.returncode == 0, done.stderr
    out = ps.summarize(pl.scan_parquet(scored), ["squad_f1", "answer_precision"], by="model")
    for row in out.iter_rows(named=True):
        assert 0.0 <= row["mean_low"] <= row["mean"] <= row["mean_high"] <= 1.0, row
    done = run_cli("summary", str(scored), "--scores", "squad_f1")
    assert "-0.0000" not in done.stdout


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, 1.0, 1e-9, 0.99999]), st.floats(0.0, 1.0)),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 4),
)
def test_every_interval_inside_zero_one(values: list[float], size: int) -> None:
    frame = pl.DataFrame(
        {"q": [i // size for i in range(len(values))], "answer_correctness": values}
    )
    for cluster in (None, "q"):
        row = ps.summarize(frame, cluster=cluster, n_bootstrap=200).row(0, named=True)
        for low, high in (("mean_low", "mean_high"), ("pass_rate_low", "pass_rate_high")):
            assert 0.0 <= row[low] <= row[high] <= 1.0
        assert min(values) - 1e-12 <= row["mean_low"]
        assert row["mean_high"] <= max(values) + 1e-12


# ---------------------------------------------------------------- McNemar, Holm, Student's t


@pytest.mark.parametrize(
    ("a", "b"),
    [(0, 0), (1, 0), (10, 2), (2, 10), (7, 7), (0, 30), (17, 40), (400, 350), (2, 900),
     (50_000, 50_400), (1_500_000, 1_502_000)],
)  # fmt: skip
def test_mcnemar_equals_statsmodels_exact(a: int, b: int) -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    expected = mcnemar([[5, a], [b, 5]], exact=True).pvalue
    assert mcnemar_p_value(a, b) == pytest.approx(expected, rel=1e-9)


def test_holm_equals_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(1)
    for m in (1, 2, 3, 6, 10):
        p = (rng.random(m) ** 3).tolist()
        expected = multipletests(p, method="holm")[1]
        assert holm(p) == pytest.approx(expected.tolist(), rel=1e-12)


@pytest.mark.parametrize("df", [1, 2, 5, 30, 499, 10_000, 2_000_000])
def test_student_t_equals_scipy(df: int) -> None:
    from scipy import stats

    for t in (0.0, 0.3, 1.0, 1.96, 2.5, 4.0, 12.0):
        assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9, abs=1e-300)
    for q in (0.9, 0.975, 0.995):
        assert t_quantile(q, df) == pytest.approx(stats.t.ppf(q, df), rel=1e-9)


# ---------------------------------------------------------------- paired comparisons


def _two_models(seed: int, questions: int = 400, *, graded: bool = False) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    difficulty = rng.random(questions)
    noise = rng.random((2, questions))
    if graded:
        scores = np.clip(np.round(difficulty + 0.3 * noise - np.array([[0.1], [0.2]]), 3), 0, 1)
    else:
        scores = (noise < difficulty + np.array([[0.08], [0.0]])).astype(float)
    return pl.DataFrame(
        {
            "model": np.repeat(["base", "new"], questions),
            "sample_id": np.tile(np.arange(questions), 2).astype(str),
            "passage": np.tile(np.arange(questions) // 8, 2),
            "answer_correctness": scores.reshape(-1),
        }
    ).sample(fraction=1.0, shuffle=True, seed=seed)  # row order must not matter


def test_compare_binary_is_mcnemar_and_paired_se() -> None:
    frame = _two_models(1)
    (row,) = ps.compare(frame).iter_rows(named=True)
    wide = frame.pivot(on="model", index="sample_id", values="answer_correctness")
    a, b = wide["base"].to_numpy(), wide["new"].to_numpy()
    d = a - b
    assert (row["first"], row["second"], row["questions"]) == ("base", "new", 400)
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-15)
    assert row["se"] == pytest.approx(_statsmodels_se(d, None, correction=True), rel=1e-9)
    assert row["test"] == "mcnemar"
    only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    assert (row["only_first"], row["only_second"]) == (only_a, only_b)
    from statsmodels.stats.contingency_tables import mcnemar

    table = [[0, only_a], [only_b, 0]]
    assert row["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    assert row["p_adjusted"] == row["p_value"]  # two groups: nothing to correct
    assert row["correlation"] == pytest.approx(np.corrcoef(a, b)[0, 1], rel=1e-9)
    assert -1.0 <= row["low"] <= row["difference"] <= row["high"] <= 1.0


def test_compare_graded_is_the_paired_t_test() -> None:
    from scipy import stats

    frame = _two_models(2, graded=True)
    (row,) = ps.compare(frame).iter_rows(named=True)
    wide = frame.pivot(on="model", index="sample_id", values="answer_correctness")
    a, b = wide["base"].to_numpy(), wide["new"].to_numpy()
    expected = stats.ttest_rel(a, b)
    assert row["test"] == "paired t"
    assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-9)
    interval = expected.confidence_interval(0.95)
    assert (row["low"], row["high"]) == pytest.approx((interval.low, interval.high), rel=1e-9)


def test_compare_clustered_equals_statsmodels() -> None:
    frame = _two_models(3)
    (row,) = ps.compare(frame, cluster="passage").iter_rows(named=True)
    wide = frame.pivot(on="model", index=["sample_id", "passage"], values="answer_correctness")
    d = (wide["base"] - wide["new"]).to_numpy()
    expected = _statsmodels_se(d, wide["passage"].to_numpy(), correction=True)
    assert row["test"] == "clustered t"
    assert row["clusters"] == 50
    assert row["se"] == pytest.approx(expected, rel=1e-9)
    t = row["difference"] / row["se"]
    from scipy import stats

    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), 49), rel=1e-9)


def test_compare_three_groups_holm_and_baseline() -> None:
    frame = _two_models(4)
    third = frame.filter(pl.col("model") == "new").with_columns(
        model=pl.lit("zed"), answer_correctness=1.0 - pl.col("answer_correctness")
    )
    both = pl.concat([frame, third])
    out = ps.compare(both)
    assert out.select("first", "second").rows() == [
        ("base", "new"),
        ("base", "zed"),
        ("new", "zed"),
    ]
    assert out["p_adjusted"].to_list() == pytest.approx(holm(out["p_value"].to_list()))
    against = ps.compare(both, baseline="new")
    assert against.select("first", "second").rows() == [("base", "new"), ("zed", "new")]


def test_compare_epochs_reduced_first() -> None:
    frame = _two_models(5)
    epochs = pl.concat([frame.with_columns(epoch=pl.lit(e)) for e in (1, 2)])
    with pytest.raises(ps.ColumnValueError, match=r"'sample_id' repeats 800 keys"):
        ps.compare(epochs)
    reduced = ps.compare(epochs, epoch_reducer="mean")
    assert_same = ps.compare(frame)
    assert reduced["difference"].to_list() == assert_same["difference"].to_list()
    assert reduced["test"].to_list() == ["mcnemar"]


def test_coverage_of_clustered_intervals_in_simulation() -> None:
    """95% intervals cover the true difference in 93-97% of 2,000 clustered data sets.

    Each data set: 40 passages of 10 questions; two models answer each question with a shared
    uniform draw, model A with a per-passage advantage drawn around 0.05 (so the per-question
    differences are correlated within a passage). The true difference is 0.05. The intervals
    are polarscore.compare's (clustered standard error, Student t with G - 1 degrees of freedom),
    computed for all data sets at once with the same kernel; row-level intervals on the same
    data under-cover.
    """
    rng = np.random.default_rng(43)
    sets, passages, per = 2000, 40, 10
    base = rng.uniform(0.3, 0.7, (sets, passages, 1))
    advantage = rng.uniform(-0.15, 0.25, (sets, passages, 1))
    draw = rng.random((sets, passages, per))
    a = (draw < base + advantage).astype(float)
    b = (draw < base).astype(float)
    d = a - b
    means = d.reshape(sets, -1).mean(axis=1)
    clustered = clustered_standard_errors(d.sum(axis=2), np.full(passages, float(per)), means)
    rows = clustered_standard_errors(d.reshape(sets, -1), np.ones(passages * per), means)
    half = t_quantile(0.975, passages - 1) * clustered
    row_half = t_quantile(0.975, passages * per - 1) * rows
    coverage = float(np.mean(np.abs(means - 0.05) <= half))
    row_coverage = float(np.mean(np.abs(means - 0.05) <= row_half))
    assert 0.93 <= coverage <= 0.97
    assert row_coverage < 0.90
    # the vectorised kernel is compare's: the same interval for a few of the data sets
    codes = np.repeat(np.arange(passages), per)
    for i in range(3):
        got = paired_difference(a[i].reshape(-1), b[i].reshape(-1), codes)
        assert (got.low, got.high) == pytest.approx(
            (means[i] - half[i], means[i] + half[i]), rel=1e-12
        )


# ---------------------------------------------------------------- power


def test_sample_size_and_detectable_difference_agree() -> None:
    frame = _two_models(6)
    (row,) = ps.compare(frame).iter_rows(named=True)
    assert ps.sample_size(row["mdd"], sd_difference=row["sd_difference"]) == row["questions"]
    from_parts = ps.sample_size(
        row["mdd"],
        sd_first=row["first_sd"],
        sd_second=row["second_sd"],
        correlation=row["correlation"],
    )
    assert from_parts == row["questions"]
    # Miller's example shape: halving the difference needs four times the questions
    n = ps.sample_size(0.02, sd_difference=0.5)
    assert ps.sample_size(0.01, sd_difference=0.5) in (4 * n - 3, 4 * n - 2, 4 * n - 1, 4 * n)
    z = 1.959963984540054 + 0.8416212335729143
    assert n == math.ceil((z * 0.5 / 0.02) ** 2)


# ---------------------------------------------------------------- bad input


def test_bad_input_messages() -> None:
    frame = _two_models(7)
    with pytest.raises(ps.ColumnValueError, match=r"one group|1 \('base'\)"):
        ps.compare(frame.filter(pl.col("model") == "base"))
    duplicated = pl.concat([frame, frame.head(3)])
    with pytest.raises(ps.ColumnValueError, match=r"'sample_id' repeats 3 keys within a group"):
        ps.compare(duplicated)
    holes = frame.with_columns(
        passage=pl.when(pl.col("sample_id").is_in(["1", "2"])).then(None).otherwise("passage")
    )
    with pytest.raises(ps.ColumnValueError, match=r"cluster column 'passage' has 4 null values"):
        ps.compare(holes, cluster="passage")
    with pytest.raises(ps.ColumnValueError, match=r"cluster column 'passage' has 4 null values"):
        ps.summarize(holes, "answer_correctness", cluster="passage")
    with pytest.raises(ps.ColumnNotFoundError, match="'nope'"):
        ps.compare(frame, pair_on="nope")
    with pytest.raises(ps.InvalidParameterError, match="epoch_reducer"):
        ps.summarize(frame, "answer_correctness", cluster="passage", epoch_reducer="median")
    with pytest.raises(ps.InvalidParameterError, match="baseline"):
        ps.compare(frame, baseline="other")


# ---------------------------------------------------------------- the command line


def test_cli_compare_and_fail_if_worse(tmp_path: Path) -> None:
    path = tmp_path / "scored.parquet"
    _two_models(8, questions=600).write_parquet(path)
    done = run_cli("compare", str(path))
    assert done.returncode == 0, done.stderr
    assert "mcnemar" in done.stdout
    assert "power: base vs new" in done.stdout
    done = run_cli("compare", str(path), "--json", "--cluster", "passage")
    rows = json.loads(done.stdout)
    expected = ps.compare(pl.read_parquet(path), cluster="passage").to_dicts()
    assert [(r["first"], r["second"], r["clusters"]) for r in rows] == [("base", "new", 75)]
    assert rows[0]["se"] == expected[0]["se"]
    # "new" is drawn 8 points worse than "base" over 600 questions: the gate fails
    done = run_cli("compare", str(path), "--fail-if-worse", "new")
    assert done.returncode == 6, done.stderr
    assert "'new' is significantly worse than 'base'" in done.stderr
    done = run_cli("compare", str(path), "--fail-if-worse", "base")
    assert done.returncode == 0, done.stderr
    done = run_cli("compare", str(path), "--pair-on", "passage")
    assert done.returncode == 3
    assert "repeats" in done.stderr


def test_cli_compare_reduces_epochs_and_says_so(tmp_path: Path) -> None:
    frame = _two_models(9)
    epochs = pl.concat([frame.with_columns(epoch=pl.lit(e, dtype=pl.Int64)) for e in (1, 2)])
    path = tmp_path / "epochs.parquet"
    epochs.write_parquet(path)
    done = run_cli("compare", str(path), "--json")
    rows = json.loads(done.stdout)
    assert rows[0]["difference"] == ps.compare(frame).row(0, named=True)["difference"]
    done = run_cli("compare", str(path))
    assert "note: the log has more than one epoch per sample" in done.stdout


def test_report_paired_section_is_compare() -> None:
    from polarscore.reporting import build_report_data

    frame = _two_models(10, graded=True)
    data = build_report_data(frame, scores="answer_correctness", pair_on="sample_id", sample=0)
    (pair,) = data.paired
    row = ps.compare(frame).row(0, named=True)
    assert (pair.first, pair.second) == (row["first"], row["second"])
    assert (pair.mean_difference, pair.se, pair.low, pair.high, pair.mdd) == pytest.approx(
        (row["difference"], row["se"], row["low"], row["high"], row["mdd"]), rel=1e-12
    )
