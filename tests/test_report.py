"""The HTML report: its numbers against independent computations, escaping, the CLI, real logs."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore.comparison import holm
from polarscore.reporting import build_report_data
from polarscore.reporting._aggregate import SWEEP
from polarscore.reporting._stats import Confusion, mcnemar_p_value
from polarscore.reporting._text import cell, esc
from tests.cli_process import run_cli
from tests.conftest import DATA

HOSTILE = [
    "<script>alert(1)</script>",
    "</table></td></tr><h1>broken</h1>",
    '"><img src=x onerror=alert(2)>',
    "]]><svg onload=alert(3)>",
    "a\x00b\x07c\x1bd\x7fe\x85f",
    "<!-- comment --> &amp; &lt; <style>body{display:none}</style>",
    "' onmouseover='alert(4)",
]


class _Tags(HTMLParser):
    """Every start tag and attribute of a page, as the browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser


def scored(frame: pl.DataFrame, path: Path, **options: object) -> Path:
    """Score ``frame`` with answer_match and squad_f1 and write it with its provenance record."""
    scorers = ["answer_match", "squad_f1"]
    out = ps.score_frame(frame, scorers=scorers, references="references", **options)  # type: ignore[arg-type]
    record = ps.scoring_record(scorers=scorers, references="references", **options)  # type: ignore[arg-type]
    out.write_parquet(path, metadata={ps.PROVENANCE_KEY: json.dumps(record)})
    return path


@pytest.fixture(scope="module")
def sample_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled TriviaQA sample, scored by the command line (it records its provenance)."""
    path = tmp_path_factory.mktemp("sample") / "sample.parquet"
    done = run_cli("score", "--sample", "-o", path, "--quiet")
    assert done.returncode == 0, done.stderr
    return path


# ---------------------------------------------------------------- statistics


def test_kappa_and_agreement_match_their_definition() -> None:
    c = Confusion(true_pass=20, false_pass=5, false_fail=10, true_fail=15)
    n = 50
    observed = (20 + 15) / n
    chance = (25 / n) * (30 / n) + (25 / n) * (20 / n)
    assert c.agreement == pytest.approx(observed)
    assert c.kappa == pytest.approx((observed - chance) / (1 - chance))
    assert Confusion(3, 0, 0, 0).kappa is None  # both sides constant: kappa undefined
    assert Confusion(0, 0, 0, 0).agreement is None


@pytest.mark.parametrize(("a", "b"), [(0, 0), (10, 2), (2, 10), (7, 7), (0, 30), (400, 350)])
def test_mcnemar_exact_is_the_binomial_tail(a: int, b: int) -> None:
    n = a + b
    tail = sum(math.comb(n, i) for i in range(min(a, b) + 1)) / 2**n if n else 0.5
    assert mcnemar_p_value(a, b) == pytest.approx(min(1.0, 2 * tail), rel=1e-9)


def test_mcnemar_large_counts_stay_exact() -> None:
    # No chi-square switch: the exact binomial tail, from integer arithmetic.
    a, b = 3_000, 2_800
    n = a + b
    tail = Fraction(sum(math.comb(n, i) for i in range(b + 1)), 2**n)
    assert mcnemar_p_value(a, b) == pytest.approx(float(2 * tail), rel=1e-12)


# ---------------------------------------------------------------- numbers of the report


def _paired_frame(seed: int = 1, questions: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    quality = {"a": 0.65, "b": 0.55, "c": 0.55}
    rows = []
    for q in range(questions):
        difficulty = rng.uniform(-0.3, 0.3)
        for model, level in quality.items():
            score = float(np.clip(level + difficulty + rng.normal(0, 0.2), 0, 1))
            rows.append((q, model, round(score, 3), bool(rng.uniform() < level + difficulty)))
    return pl.DataFrame(
        rows, schema=["question", "model", "answer_match", "human"], orient="row"
    ).with_columns(response=pl.lit("r"), reference=pl.lit("r"))


def test_summary_is_summarize() -> None:
    frame = _paired_frame()
    data = build_report_data(frame, n_bootstrap=300, sample=0)
    expected = ps.summarize(frame, "answer_match", by="model", n_bootstrap=300)
    got = data.summary.filter(pl.col("score") == "answer_match").sort("model")
    # Exact sums: the same bits however the engine orders its morsels.
    assert_frame_equal(got.select(expected.columns), expected.sort("model"), check_exact=True)


def test_paired_differences_against_a_direct_bootstrap() -> None:
    frame = _paired_frame()
    data = build_report_data(frame, pair_on="question", n_bootstrap=2000, sample=0)
    pair = next(p for p in data.paired if {p.first, p.second} == {"a", "b"})
    wide = frame.pivot(on="model", index="question", values="answer_match")
    sign = 1.0 if pair.first == "a" else -1.0
    diff = sign * (wide["a"] - wide["b"]).to_numpy()
    assert pair.questions == 300
    assert pair.mean_difference == math.fsum(diff) / diff.size
    # the interval is polarscore.compare's: the Student-t one of the paired standard error,
    # which a row bootstrap of the differences agrees with
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    assert pair.se == pytest.approx(se, rel=1e-12)
    rng = np.random.default_rng(7)
    means = diff[rng.integers(0, diff.size, size=(4000, diff.size))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    assert pair.low == pytest.approx(low, abs=0.006)
    assert pair.high == pytest.approx(high, abs=0.006)
    assert pair.mean_significant()
    passed = wide.select(pl.col("a") >= 0.5, pl.col("b") >= 0.5)
    only_a = int((passed["a"] & ~passed["b"]).sum())
    only_b = int((~passed["a"] & passed["b"]).sum())
    got = (pair.only_first, pair.only_second)
    assert got == ((only_a, only_b) if sign > 0 else (only_b, only_a))
    assert pair.p_value == pytest.approx(mcnemar_p_value(only_a, only_b))
    # three groups: Holm's correction over the three pairs
    raw = [p.p_value for p in data.paired if p.score == "answer_match"]
    assert [p.p_adjusted for p in data.paired if p.score == "answer_match"] == holm(raw)
    # b and c are drawn alike: their difference is small, rarely significant
    same = next(p for p in data.paired if {p.first, p.second} == {"b", "c"})
    assert abs(same.mean_difference) < abs(pair.mean_difference)


def test_paired_averages_repeated_rows_and_skips_unshared_questions() -> None:
    frame = pl.DataFrame(
        {
            "question": [1, 1, 1, 2, 2, 3],
            "model": ["a", "a", "b", "a", "b", "a"],
            "answer_match": [1.0, 0.0, 0.25, 1.0, 0.0, 1.0],
        }
    )
    (pair,) = build_report_data(frame, pair_on="question", n_bootstrap=0, sample=0).paired
    assert pair.questions == 2  # question 3 has no b
    assert pair.mean_difference == ((0.5 - 0.25) + (1.0 - 0.0)) / 2
    assert pair.low is not None  # analytic: no bootstrap needed


def test_the_recorded_question_column_pairs_by_default(tmp_path: Path) -> None:
    frame = _paired_frame(questions=40)
    path = tmp_path / "scored.parquet"
    record = ps.scoring_record(scorers="answer_match", question_id="question")
    frame.write_parquet(path, metadata={ps.PROVENANCE_KEY: json.dumps(record)})
    recorded = build_report_data(path, n_bootstrap=0, sample=0)
    assert recorded.pair_on == ["question"]
    told = build_report_data(frame, pair_on="question", n_bootstrap=0, sample=0)
    assert [(p.first, p.second, p.mean_difference) for p in recorded.paired] == [
        (p.first, p.second, p.mean_difference) for p in told.paired
    ]
    page = ps.report(path, n_bootstrap=0, sample=0)
    assert f"at {record['scored_at']}" in page
    assert "questions identified by &#x27;question&#x27;" in page


def test_verdict_agreement_and_sweep_against_direct_counts() -> None:
    frame = _paired_frame().with_columns(
        # values exactly on the sweep's grid must pass at their own threshold
        pl.when(pl.col("question") % 7 == 0)
        .then(pl.lit(0.35))
        .otherwise(pl.col("answer_match"))
        .alias("answer_match")
    )
    data = build_report_data(frame, verdict="human", threshold=0.6, n_bootstrap=0, sample=0)
    (agreement,) = data.agreements

    def confusion(t: float) -> Confusion:
        passes, human = frame["answer_match"] >= t, frame["human"]
        return Confusion(
            true_pass=int((passes & human).sum()),
            false_pass=int((passes & ~human).sum()),
            false_fail=int((~passes & human).sum()),
            true_fail=int((~passes & ~human).sum()),
        )

    assert agreement.confusion == confusion(0.6)
    assert [t for t, _, _ in agreement.sweep] == SWEEP
    for t, share, kappa in agreement.sweep:
        assert share == pytest.approx(confusion(t).agreement), t
        assert kappa == pytest.approx(confusion(t).kappa), t


def test_verdict_may_be_numeric_and_nulls_are_left_out() -> None:
    frame = pl.DataFrame(
        {"answer_match": [1.0, 0.0, 1.0, None, 0.0], "verdict": [1, 0, 0, 1, None]}
    )
    (agreement,) = build_report_data(frame, verdict="verdict", n_bootstrap=0).agreements
    assert agreement.confusion == Confusion(true_pass=1, false_pass=1, false_fail=0, true_fail=1)


def test_sample_is_bounded_seeded_and_of_the_right_rows() -> None:
    frame = _paired_frame()
    first = build_report_data(frame, verdict="human", sample=4, seed=3, n_bootstrap=0)
    again = build_report_data(frame.lazy(), verdict="human", sample=4, seed=3, n_bootstrap=0)
    other = build_report_data(frame, verdict="human", sample=4, seed=4, n_bootstrap=0)
    rows = [[r["__polarscore_row"] for r in s.rows] for s in first.samples]
    assert rows == [[r["__polarscore_row"] for r in s.rows] for s in again.samples]
    assert rows != [[r["__polarscore_row"] for r in s.rows] for s in other.samples]
    fails, passes = first.samples
    assert fails.matching == int(((frame["answer_match"] < 0.5) & frame["human"]).sum())
    assert passes.matching == int(((frame["answer_match"] >= 0.5) & ~frame["human"]).sum())
    assert all(len(s.rows) == 4 for s in first.samples)
    assert all(r["answer_match"] < 0.5 and r["human"] for r in fails.rows)
    assert all(r["answer_match"] >= 0.5 and not r["human"] for r in passes.rows)


def test_without_verdict_the_sample_is_failures_and_inconclusive_rows() -> None:
    frame = pl.DataFrame({"answer_match": [0.1, 0.9, None, 0.2], "response": list("abcd")})
    data = build_report_data(frame, sample=5, n_bootstrap=0)
    fails, inconclusive = data.samples
    assert sorted(r["response"] for r in fails.rows) == ["a", "d"]
    assert [r["response"] for r in inconclusive.rows] == ["c"]


def test_reasons_come_from_the_log_or_are_computed_for_the_sample(sample_log: Path) -> None:
    data = build_report_data(sample_log, scores="answer_match", sample=3, n_bootstrap=0)
    rows = [r for s in data.samples for r in s.rows]
    assert rows
    for row in rows:
        details = row["answer_match_details"]
        expected = pl.DataFrame({"r": [row["response"]], "refs": [row["references"]]}).select(
            ps.answer_match_details("r", "refs")
        )
        assert details == expected.item(), row["__polarscore_row"]


def test_recorded_thresholds_and_scores_are_used(tmp_path: Path) -> None:
    frame = pl.read_parquet(DATA / "evouna_regression.parquet")
    path = scored(frame, tmp_path / "t.parquet", thresholds={"squad_f1": 0.8})
    data = build_report_data(path, sample=0, n_bootstrap=0)
    assert data.scores == ["answer_match", "squad_f1"]
    assert data.thresholds == {"answer_match": 0.5, "squad_f1": 0.8}
    assert data.provenance is not None
    assert data.provenance["scorers"][1]["threshold"] == 0.8
    assert data.by == []  # no model column: no grouping by default


# ---------------------------------------------------------------- escaping


def test_escape_helpers() -> None:
    assert esc('<a href="x">\'&') == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;"
    assert esc("a\x00b\x1bc\x9f") == "a\\x00b\\x1bc\\x9f"
    assert esc("tab\tnew\nline") == "tab\tnew\nline"
    long = "x" * 5000
    shown = cell(long, limit=100)
    assert shown.count("x") == 100 + 0  # the marker says how much, in words
    assert "4,900 more characters" in shown
    assert cell(list("abcdef"), items=2).count("<li>") == 2
    assert "4 more items" in cell(list("abcdef"), items=2)


def test_log_text_is_escaped_everywhere() -> None:
    n = len(HOSTILE)
    huge = "<script>" + "y" * 1_000_000
    frame = pl.DataFrame(
        {
            "id": HOSTILE,
            "model": HOSTILE,  # group labels go into SVG text and titles
            "input": HOSTILE,
            "response": [*HOSTILE[:-1], huge],
            "references": [[h, h] for h in HOSTILE],
            "question": list(range(n)),
            HOSTILE[2]: [0.0] * n,  # a hostile score column name
            "answer_match": [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            "human": [True, False, True, False, True, True, True],
        }
    )
    page = ps.report(
        frame,
        scores=["answer_match", HOSTILE[2]],
        by="model",
        verdict="human",
        pair_on=None,
        sample=20,
        title=HOSTILE[0],
        n_bootstrap=50,
    )
    tags = parse(page)
    assert set(tags.tags) <= {
        "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "div",
        "span", "p", "section", "table", "tr", "th", "td", "small", "details", "summary",
        "svg", "g", "text", "line", "rect", "circle", "polyline", "ul", "li", "b", "br", "code",
        "footer", "pre",
    }  # fmt: skip
    assert not {a for a in tags.attributes if a.startswith("on")}
    assert tags.tags.count("style") == 1
    assert page.count("<table") == page.count("</table>")
    text = "".join(tags.text)
    for hostile in HOSTILE[:4]:
        assert hostile in text  # shown as text, whole
    assert "a\\x00b\\x07c\\x1bd\\x7fe\\x85f" in text
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", page)
    assert len(page) < 400_000  # the huge response is cut...
    assert "more characters]" in page  # ...with a visible marker


# ---------------------------------------------------------------- errors


def test_errors_name_the_parameter() -> None:
    frame = pl.DataFrame({"answer_match": [1.0], "model": ["a"], "text": ["x"]})
    with pytest.raises(ps.ColumnNotFoundError, match=r"'nope'.*Available columns"):
        ps.report(frame, verdict="nope")
    with pytest.raises(ps.ColumnNotFoundError, match="by column 'nope'"):
        ps.report(frame, by="nope")
    with pytest.raises(ps.ColumnTypeError, match="verdict column 'text'"):
        ps.report(frame, verdict="text")
    with pytest.raises(ps.ColumnTypeError, match="score column 'text' must be numeric"):
        ps.report(frame, scores="text")
    with pytest.raises(ps.InvalidParameterError, match="'sample' parameter of report"):
        ps.report(frame, sample=1000)
    with pytest.raises(ps.InvalidParameterError, match="'threshold' parameter of report"):
        ps.report(frame, threshold=2.0)
    with pytest.raises(ps.InvalidParameterError, match="'source' parameter of report"):
        ps.report(42)  # type: ignore[arg-type]
    with pytest.raises(ps.InvalidParameterError, match="'scores' parameter of report"):
        ps.report(pl.DataFrame({"x": [1.0]}))


def test_write_report_is_atomic_and_refuses_to_overwrite(tmp_path: Path) -> None:
    frame = pl.DataFrame({"answer_match": [1.0, 0.0]})
    target = tmp_path / "r.html"
    ps.write_report(frame, target, n_bootstrap=0)
    first = target.read_text(encoding="utf-8")
    # The hint names the function's own argument, not the command line's flag.
    with pytest.raises(ps.PolarscoreError, match=r"(?s)already exists.*pass overwrite=True"):
        ps.write_report(frame, target)
    with pytest.raises(ps.ColumnNotFoundError):
        ps.write_report(frame, target, overwrite=True, verdict="nope")
    assert target.read_text(encoding="utf-8") == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


# ---------------------------------------------------------------- the command line


def test_cli_report_of_the_bundled_sample(sample_log: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    args = ["report", sample_log, "-o", out, "--verdict", "human_correct"]
    done = run_cli(*args, "--pair-on", "question_index", "--sample", "3")
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    for heading in (
        "Overview",
        "Pass rate and mean score",
        "Score distributions",
        "Paired differences",
        "Agreement with the verdict",
        "Rows worth reading",
        "How the log was scored",
    ):
        assert f"<h2>{heading}</h2>" in page
    # The numbers on the page are the log's: each model's answer_match pass rate.
    log = pl.read_parquet(sample_log)
    rates = log.group_by("model").agg((pl.col("answer_match") >= 0.5).mean().alias("rate"))
    for model, rate in rates.iter_rows():
        assert f"{esc(model)}</td>" in page
        assert f"{rate:.1%}" in page
    assert "McNemar" in page
    assert "kappa" in page
    # the same command again: exit 5 without --overwrite, and the page is unchanged
    again = run_cli(*args)
    assert again.returncode == 5
    assert "--overwrite" in again.stderr
    assert out.read_text(encoding="utf-8") == page


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (["--verdict", "nope"], 3, "--verdict"),
        (["--by", "nope"], 3, "--by"),
        (["--sample", "900"], 2, "--sample"),
        (["--threshold", "2"], 2, "--threshold"),
        (["--verdict", "response"], 3, "must hold true/false"),
    ],
)
def test_cli_report_errors(
    sample_log: Path, tmp_path: Path, flags: list[str], code: int, message: str
) -> None:
    out = tmp_path / "r.html"
    done = run_cli("report", sample_log, "-o", out, *flags)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
    assert not out.exists()


def test_cli_report_missing_input(tmp_path: Path) -> None:
    done = run_cli("report", tmp_path / "none.parquet", "-o", tmp_path / "r.html")
    assert done.returncode == 4
    assert "does not exist" in done.stderr


# ---------------------------------------------------------------- real logs


def _evouna(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    frame = pl.read_parquet(DATA / "evouna_regression.parquet").with_columns(
        question=pl.col("id").str.extract(r"^evouna:(\w+:\d+):")
    )
    options = {"by": "model_key", "verdict": "human_correct", "pair_on": "question"}
    return scored(frame, tmp_path / "evouna.parquet"), options


def _mmlu(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    frame = pl.read_parquet(DATA / "report_mmlu_pro.parquet")
    options = {"verdict": "orig_correct", "pair_on": "question_id"}
    return scored(frame, tmp_path / "mmlu.parquet"), options


def _gsm8k(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    frame = pl.read_parquet(DATA / "report_gsm8k.parquet")
    options = {"verdict": "orig_is_correct", "pair_on": "gsm8k_test_index"}
    return scored(frame, tmp_path / "gsm8k.parquet"), options


def _faithful(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    frame = pl.read_parquet(DATA / "report_faithful_cot.parquet")
    options = {
        "by": ["model", "prompt_style"],
        "verdict": "orig_correct",
        "pair_on": ["task", "example_id"],
    }
    return scored(frame, tmp_path / "faithful.parquet"), options


@pytest.mark.parametrize("log", [_evouna, _mmlu, _gsm8k, _faithful])
def test_real_logs_render_with_their_verdicts(log, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path, options = log(tmp_path)
    data = build_report_data(path, n_bootstrap=200, **options)  # type: ignore[arg-type]
    frame = pl.read_parquet(path)
    verdict = str(options["verdict"])
    for agreement in data.agreements:
        both = frame.filter(pl.col(verdict).is_not_null() & pl.col(agreement.score).is_not_null())
        passes = both[agreement.score] >= agreement.threshold
        assert agreement.confusion.true_pass == int((passes & both[verdict]).sum())
        assert agreement.confusion.n == both.height
    assert data.paired, "models answered the same questions"
    assert data.groups_total == frame.select(data.by).unique().height
    page = ps.report(path, n_bootstrap=200, **options)  # type: ignore[arg-type]
    assert "<script" not in page
    assert "http://" not in page.replace("http://www.w3.org/", "")


def test_sampled_rows_read_one_by_one_or_in_one_pass_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import polarscore.reporting._aggregate as aggregate

    frame = _paired_frame().with_columns(response=pl.format("answer {}", pl.col("question")))
    one_by_one = build_report_data(frame.lazy(), verdict="human", sample=6, n_bootstrap=0)
    monkeypatch.setattr(aggregate, "MAX_ROW_READS", 0)
    one_pass = build_report_data(frame.lazy(), verdict="human", sample=6, n_bootstrap=0)
    assert [s.rows for s in one_by_one.samples] == [s.rows for s in one_pass.samples]
    for sample in one_pass.samples:
        for row in sample.rows:
            assert row["response"] == f"answer {row['question']}"
            assert frame.row(row["__polarscore_row"], named=True)["response"] == row["response"]
