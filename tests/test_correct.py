"""Task kinds read from the logs, and the headline ``correct`` column graded by each kind's rule."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polarscore as ps
from polarscore import cli
from polarscore.logs import _task_kind
from polarscore.logs._task_kind import (
    TASK_KINDS,
    helm_kind,
    infer_kind,
    inspect_kind,
    inspect_scorer_kind,
    lighteval_kind,
    lm_eval_kind,
    openai_evals_kind,
    promptfoo_kind,
)

DATA = Path(__file__).parent / "data"
LOGS = DATA / "logs"
LIGHTEVAL = LOGS / "lighteval/details/HuggingFaceTB/SmolLM2-135M/2025-06-03T10-11-12.123456"

#: Every real log of the tests, with the kind its framework's metadata gives.
LOG_KINDS = {
    "inspect/arc_sonnet.json": "multiple_choice",  # scorer choice
    "inspect/pubmedqa_gpt4o_mini.json": "multiple_choice",
    "inspect/mmlu-summary-choices.eval": "multiple_choice",
    "inspect/log_formats.eval": "short_answer",  # scorer match
    "inspect/log_formats.json": "short_answer",
    "inspect/log_streaming.eval": "short_answer",
    "inspect/log_images.json": "short_answer",
    "inspect/popularity_unscored.eval": "short_answer",  # eval.scorers names match, no scores
    "inspect/security-guide.json": "free_form",  # model_graded_fact
    "lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl": "short_answer",
    "lm_eval_0.4.2/pretrained__EleutherAI__pythia-160m,dtype__float32_arc_easy.jsonl": (
        "multiple_choice"
    ),
    "helm/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2": (
        "multiple_choice"
    ),
    "helm/narrative_qa-model=openai_gpt2": "short_answer",
    "promptfoo/results.json": "short_answer",  # equals, icontains
    "promptfoo/results.jsonl": "short_answer",
    "openai_evals/250603101112ABCDEFGH_gpt-3.5-turbo_test-match.jsonl": "short_answer",
    f"{LIGHTEVAL.relative_to(LOGS)}/details_harness|arc:challenge|25_2025-06-03T10-11-12.123456"
    ".parquet": "multiple_choice",
    f"{LIGHTEVAL.relative_to(LOGS)}/details_lighteval|gsm8k|5_2025-06-03T10-11-12.123456"
    ".parquet": "numeric",
    f"{LIGHTEVAL.relative_to(LOGS)}/details_lighteval|triviaqa|0_2025-06-03T10-11-12.123456"
    ".parquet": "short_answer",
}


@pytest.mark.parametrize("name", sorted(LOG_KINDS))
def test_each_log_has_the_kind_its_framework_records(name: str) -> None:
    table = ps.read_log(LOGS / name)
    assert table.height > 0
    assert table.schema["task_kind"] == pl.String
    assert table["task_kind"].unique().to_list() == [LOG_KINDS[name]]


def test_every_test_log_is_listed() -> None:
    found = {str(p.relative_to(LOGS)) for p in ps.logs.log_files(LOGS)}
    assert found == set(LOG_KINDS)


def test_a_folder_of_logs_keeps_each_logs_kind() -> None:
    table = ps.read_log(LOGS / "helm")
    kinds = dict(table.group_by("task").agg(pl.col("task_kind").unique()).iter_rows())
    assert {k for v in kinds.values() for k in v} == {"multiple_choice", "short_answer"}


@pytest.mark.parametrize(
    ("name", "options", "kind"),
    [
        ("choice", {}, "multiple_choice"),
        ("inspect_ai/choice", {}, "multiple_choice"),
        ("match", {}, "short_answer"),
        ("match", {"numeric": True}, "numeric"),
        ("match", {"location": "end", "numeric": False}, "short_answer"),
        ("includes", {}, "short_answer"),
        ("exact", {}, "short_answer"),
        ("f1", {}, "short_answer"),
        ("pattern", {"pattern": r"ANSWER: ([A-J])"}, "multiple_choice"),
        ("pattern", {"pattern": r"#### (-?\d+)"}, "numeric"),
        ("pattern", {"pattern": r"Final: (\w+)"}, "short_answer"),
        ("answer", {"pattern": "letter"}, "multiple_choice"),
        ("answer", {"pattern": "word"}, "short_answer"),
        ("model_graded_qa", {}, "free_form"),
        ("model_graded_fact", {}, "free_form"),
        ("my_rubric", {}, None),
    ],
)
def test_inspect_scorers(name: str, options: dict[str, object], kind: str | None) -> None:
    assert inspect_scorer_kind(name, options).kind == kind


def test_inspect_kind_takes_the_most_specific_of_several_scorers() -> None:
    header = {
        "eval": {
            "scorers": [
                {"name": "model_graded_qa", "options": {}},
                {"name": "match", "options": {"numeric": True}},
            ]
        }
    }
    assert inspect_kind(header).kind == "numeric"
    unknown = inspect_kind({"eval": {"scorers": [{"name": "my_rubric"}]}})
    assert unknown.kind is None
    assert "my_rubric" in unknown.source


def test_lm_eval_kinds() -> None:
    def config(**fields: object) -> dict[str, object]:
        return {"configs": {"t": fields}}

    numeric = config(
        output_type="generate_until",
        filter_list=[{"name": "strict-match"}, {"name": "flexible-extract"}],
        metric_list=[{"metric": "exact_match"}],
    )
    assert lm_eval_kind(numeric, "t").kind == "numeric"
    assert lm_eval_kind(config(output_type="multiple_choice"), "t").kind == "multiple_choice"
    assert lm_eval_kind(config(output_type="loglikelihood_rolling"), "t").kind == "none"
    generate = config(output_type="generate_until", metric_list=[{"metric": "bleu"}])
    assert lm_eval_kind(generate, "t").kind == "short_answer"
    code = config(output_type="generate_until", metric_list=[{"metric": "pass_at_1"}])
    assert lm_eval_kind(code, "t").kind == "none"
    assert lm_eval_kind({"configs": {}}, "t").kind is None


def test_helm_lighteval_promptfoo_openai_kinds() -> None:
    assert helm_kind({"adapter_spec": {"method": "multiple_choice_separate_original"}}).kind == (
        "multiple_choice"
    )
    assert helm_kind({"adapter_spec": {"method": "language_modeling"}}).kind == "none"
    code = {
        "adapter_spec": {"method": "generation"},
        "metric_specs": [{"class_name": "helm.benchmark.metrics.code_metrics.APPSMetric"}],
    }
    assert helm_kind(code).kind == "none"
    assert helm_kind({}).kind is None
    assert lighteval_kind(["perplexity"]).kind == "none"
    assert lighteval_kind(["my_metric"]).kind is None
    assert promptfoo_kind([{"type": "javascript", "value": "x"}]).kind == "none"
    assert promptfoo_kind([{"type": "not-icontains"}, {"type": "llm-rubric"}]).kind == (
        "short_answer"
    )
    assert promptfoo_kind([]).kind is None
    spec = {
        "run_config": {
            "eval_spec": {"cls": "evals.elsuite.modelgraded.classify:ModelBasedClassify"}
        }
    }
    assert openai_evals_kind(spec).kind == "free_form"
    assert openai_evals_kind({}, ["sampling"]).kind is None


def test_infer_kind_row_by_row() -> None:
    df = pl.DataFrame(
        {
            "gold": ["C", "(b)", "-3.5", "$1,200", "#### 18", "Paris", "1996 Olympics", "x", ""],
            "choices": [None, None, None, None, None, None, None, ["w", "x"], None],
        }
    )
    golds = pl.concat_list("gold")
    got = df.select(infer_kind(golds, pl.col("choices")))["task_kind"].to_list()
    assert got == [
        "multiple_choice",
        "short_answer",  # a lower-case letter alone is not read as an option letter
        "numeric",
        "numeric",
        "numeric",
        "short_answer",
        "short_answer",
        "multiple_choice",  # one of the row's options
        None,
    ]


def _kinds_counted_apart(golds: pl.Expr, choices: pl.Expr | None) -> pl.Expr:
    """The kind as infer_kind first told it: golds, letters and numbers counted apart."""
    letter = r"^\s*\(?[A-Z]\)?\.?\s*$"
    number = r"^\s*(?:####\s*)?[-+]?\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?\s*%?\s*$"
    texts = golds.list.eval(
        pl.element().cast(pl.String).str.strip_chars().filter(pl.element().str.strip_chars() != "")
    )
    count = texts.list.len().fill_null(0)
    letters = texts.list.eval(pl.element().str.contains(letter).cast(pl.UInt32)).list.sum()
    numbers = texts.list.eval(
        (pl.element().str.contains(number) & pl.element().str.contains(r"\d")).cast(pl.UInt32)
    ).list.sum()
    choice: pl.Expr = letters == count
    if choices is not None:
        options = choices.list.eval(pl.element().str.strip_chars()).list.unique()
        stated = texts.list.unique().list.set_intersection(options).list.len()
        choice = choice | (stated.fill_null(0) == texts.list.unique().list.len())
    return (
        pl.when(count == 0)
        .then(pl.lit(None, dtype=pl.String))
        .when(choice)
        .then(pl.lit("multiple_choice"))
        .when(numbers == count)
        .then(pl.lit("numeric"))
        .otherwise(pl.lit("short_answer"))
    )


_GOLD_TEXTS = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "\u3000", "B", " (C). ", "b", "18", "1,207", "#### 7", "$5", "50%"]),
    st.sampled_from(["Paris", "x", "y", "1996 Olympics", ".", "-", "+.5", "A\u00a0"]),
    st.text(st.characters(codec="utf-8"), max_size=6),
)


@settings(max_examples=150, deadline=None)
@given(
    golds=st.lists(st.one_of(st.none(), st.lists(_GOLD_TEXTS, max_size=4)), max_size=12),
    choices=st.lists(st.one_of(st.none(), st.lists(_GOLD_TEXTS, max_size=3)), max_size=12),
)
def test_infer_kind_tells_the_kinds_it_told_counting_apart(
    golds: list[list[str | None] | None], choices: list[list[str | None] | None]
) -> None:
    # The kind is told in one pass over a row's golds (one bit each); the same kinds as when
    # the golds, letters and numbers were counted apart, with and without the options.
    rows = min(len(golds), len(choices))
    df = pl.DataFrame(
        {"golds": golds[:rows], "choices": choices[:rows]},
        schema={"golds": pl.List(pl.String), "choices": pl.List(pl.String)},
    )
    for opts in (None, pl.col("choices")):
        got = df.select(infer_kind(pl.col("golds"), opts)).to_series().to_list()
        want = df.select(_kinds_counted_apart(pl.col("golds"), opts)).to_series().to_list()
        assert got == want


# --- correct, by kind ---------------------------------------------------------------------------


def test_multiple_choice_reads_the_final_letter_and_maps_option_texts() -> None:
    df = pl.DataFrame(
        {
            "response": ["ANSWER: A", "The answer is (C).", "whale", "I cannot tell.", "B"],
            "references": [["A"], ["B"], ["whale"], ["A"], ["shark"]],
            "choices": [None, None, ["shark", "whale"], None, ["shark", "whale"]],
        }
    )
    got = df.select(
        ps.correct("response", "references", task_kind="multiple_choice", choices="choices")
    )["correct"].to_list()
    # A as a letter, not an article; the gold given as an option's text maps to its letter.
    assert got == [1.0, 0.0, 1.0, 0.0, 0.0]


def test_numeric_compares_numbers_and_any_alias() -> None:
    df = pl.DataFrame(
        {
            "response": ["So she has 1,200 apples.\n#### 1,200", "It is 12.0", "none", "7"],
            "references": [["1200"], ["12"], ["3"], ["6", "7"]],
        }
    )
    got = df.select(ps.correct("response", "references", task_kind="numeric"))
    assert got["correct"].to_list() == [1.0, 1.0, 0.0, 1.0]


def test_short_answer_is_answer_match_with_the_question() -> None:
    df = pl.DataFrame(
        {
            "question": ["Who wrote Hamlet?", "Capital of France?"],
            "response": ["Shakespeare wrote it.", "Lyon"],
            "references": [["William Shakespeare"], ["Paris"]],
        }
    )
    for kind in ("short_answer", "free_form"):
        got = df.select(
            ps.correct("response", "references", task_kind=kind, question="question"),
            ps.answer_match("response", "references", question="question"),
        )
        assert got["correct"].to_list() == got["answer_match"].to_list()


def test_none_and_unknown_kinds_are_null_with_the_reason() -> None:
    df = pl.DataFrame(
        {
            "response": ["def f(): pass", "Paris"],
            "references": [["def f(): return 1"], ["Paris"]],
            "task_kind": ["none", None],
        }
    )
    kind = pl.col("task_kind")
    got = df.select(
        ps.correct("response", "references", task_kind=kind),
        ps.correct_details("response", "references", task_kind=kind).alias("d"),
    )
    assert got["correct"].to_list() == [None, None]
    details = got["d"].struct.unnest()
    assert details["rule"].to_list() == ["none", "no_kind"]
    assert all(reason for reason in details["reason"])


def test_mixed_kinds_row_by_row_equal_each_kind_alone() -> None:
    df = pl.DataFrame(
        {
            "response": ["ANSWER: B", "#### 42", "It is Paris.", "ANSWER: C", "#### 41"],
            "references": [["B"], ["42"], ["Paris"], ["B"], ["42"]],
            "task_kind": [
                "multiple_choice",
                "numeric",
                "short_answer",
                "multiple_choice",
                "numeric",
            ],
        }
    )
    mixed = df.select(ps.correct("response", "references", task_kind=pl.col("task_kind")))
    alone = [
        df.slice(i, 1).select(ps.correct("response", "references", task_kind=k)).item()
        for i, k in enumerate(df["task_kind"])
    ]
    assert mixed["correct"].to_list() == alone == [1.0, 1.0, 1.0, 0.0, 0.0]
    details = df.select(
        ps.correct_details("response", "references", task_kind=pl.col("task_kind"))
    ).to_series()
    assert details.struct.field("correct").to_list() == alone


def test_a_name_of_ones_choosing_and_a_string_reference() -> None:
    df = pl.DataFrame({"response": ["ANSWER: D"], "gold": ["D"]})
    got = df.select(ps.correct("response", "gold", task_kind="multiple_choice").alias("mine"))
    assert got.columns == ["mine"]
    assert got.item() == 1.0


def test_an_unknown_task_kind_names_the_kinds() -> None:
    with pytest.raises(ps.InvalidParameterError, match="multiple_choice") as error:
        ps.correct("response", "references", task_kind="mcq")
    assert all(kind in str(error.value) for kind in TASK_KINDS)
    with pytest.raises(ps.InvalidParameterError, match="task_kind"):
        ps.score_frame(pl.DataFrame({"response": ["a"], "reference": ["a"]}), task_kind="mcq")


# --- score_frame and plain tables ---------------------------------------------------------------


def test_score_frame_tells_a_plain_tables_kind_from_its_golds() -> None:
    mmlu = pl.read_parquet(DATA / "report_mmlu_pro.parquet")
    gsm8k = pl.read_parquet(DATA / "report_gsm8k.parquet")
    evouna = pl.read_parquet(DATA / "evouna_regression.parquet")
    for frame, kind in ((mmlu, "multiple_choice"), (gsm8k, "numeric"), (evouna, "short_answer")):
        scored = ps.score_frame(frame, references="references", scorers="correct")
        alone = frame.select(
            ps.correct(
                "response",
                "references",
                task_kind=kind,
                question="input" if "input" in frame.columns else None,
            )
        )
        assert scored["correct"].to_list() == alone["correct"].to_list(), kind


@settings(max_examples=60, deadline=None)
@given(
    golds=st.lists(st.sampled_from([None, "", "B", "(C)", "18", "1,207", "Paris"]), max_size=60),
    sample=st.integers(min_value=1, max_value=4),
)
def test_a_plain_tables_kind_reads_its_first_rows_with_a_gold(
    golds: list[str | None], sample: int
) -> None:
    # The rows are read a few at a time until enough have a gold: the same kinds as the kinds
    # of every row with the first ones kept (read here on a sample shrunk to a few rows).
    frame = pl.DataFrame({"gold": golds}, schema={"gold": pl.String})
    kinds = frame.select(infer_kind(pl.concat_list("gold"))).to_series().drop_nulls()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_task_kind, "TABLE_SAMPLE_ROWS", sample)
        for table in (frame, frame.lazy()):
            got = _task_kind._first_kinds(table.lazy(), infer_kind(pl.concat_list("gold")))
            assert got.to_list() == kinds.head(sample).to_list()
            found = _task_kind.table_kind(table, pl.concat_list("gold"), None)
            if kinds.is_empty():
                assert found.kind is None
            else:
                assert f"{min(sample, kinds.len())} " in found.source


@pytest.mark.parametrize("blank_every", [100, 2])
def test_a_plain_tables_kind_reads_no_row_twice_and_few_past_its_sample(blank_every: int) -> None:
    # A few blank golds among the first rows once made the sample be read again from the top,
    # sixteen times as long (32,000 rows for 2,000); now each row is read at most once, and only
    # about as many as the sample needs.
    total = 40_000
    golds = [None if i % blank_every == 0 else f"g{i}" for i in range(total)]
    frame = pl.LazyFrame({"gold": golds, "row": range(total)})
    read: list[int] = []

    def spy(rows: pl.Series) -> pl.Series:
        read.extend(rows.to_list())
        return rows

    index = pl.col("row").map_batches(spy, return_dtype=pl.Int64, is_elementwise=True)
    kind = pl.when(index >= 0).then(pl.col("gold"))
    got = _task_kind._first_kinds(frame, kind)
    want = [g for g in golds if g is not None][: _task_kind.TABLE_SAMPLE_ROWS]
    assert got.to_list() == want
    needed = golds.index(want[-1]) + 1
    assert len(read) == len(set(read))
    assert len(read) <= max(2 * needed, _task_kind.TABLE_SAMPLE_ROWS * 5 // 4)


def test_task_kind_overrides_the_logs() -> None:
    log = ps.read_log(LOGS / "inspect/arc_sonnet.json")
    as_read = ps.score_frame(log, references="references", scorers="correct")
    assert as_read["correct"].to_list() == log["framework_choice"].to_list()
    forced = ps.score_frame(log, references="references", scorers="correct", task_kind="none")
    assert forced["correct"].null_count() == log.height


def test_evouna_correct_agrees_with_humans_no_less_than_answer_match() -> None:
    evouna = pl.read_parquet(DATA / "evouna_regression.parquet")
    scored = ps.score_frame(
        evouna, references="references", scorers=["correct", ("answer_match", {})]
    )
    human = pl.col("human_correct").cast(pl.Float64)
    agree = scored.select(
        (pl.col("correct") == human).sum(), (pl.col("answer_match") == human).sum()
    )
    assert agree["correct"].item() >= agree["answer_match"].item()


# --- the command line on every log format -------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LOG_KINDS))
def test_score_writes_task_kind_and_correct_on_every_log(name: str, tmp_path: Path) -> None:
    target = tmp_path / "out.parquet"
    assert cli.main(["score", str(LOGS / name), "-o", str(target), "-q"]) == 0
    scored = pl.read_parquet(target)
    assert {"task_kind", "correct"} <= set(scored.columns)
    assert scored.schema["correct"] == pl.Float64
    record = ps.read_provenance(target)
    assert record is not None
    assert [k["kind"] for k in record["task_kinds"]] == [LOG_KINDS[name]]


def test_unknown_task_kind_flag_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        [
            "score",
            str(LOGS / "inspect/arc_sonnet.json"),
            "-o",
            str(tmp_path / "o.parquet"),
            "--task-kind",
            "mcq",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert all(kind in err for kind in TASK_KINDS)
    assert not (tmp_path / "o.parquet").exists()


def test_task_kind_flag_overrides_and_is_recorded(tmp_path: Path) -> None:
    target = tmp_path / "o.parquet"
    log = LOGS / "inspect/arc_sonnet.json"
    args = ["score", str(log), "-o", str(target), "-q", "--scorer", "correct"]
    assert cli.main([*args, "--task-kind", "short_answer"]) == 0
    record = ps.read_provenance(target)
    assert record is not None
    assert record["task_kinds"] == [{"path": str(log), "kind": "short_answer", "source": "given"}]
    assert record["scorers"][0]["options"]["task_kind"] == "short_answer"


# --- inspect-ai logs of real answers, graded by inspect-ai's own scorers ------------------------


@pytest.fixture(scope="session")
def graded_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """MMLU-Pro answers graded by ``choice()``, GSM8K solutions by ``match(numeric=True)``."""
    pytest.importorskip("inspect_ai")
    from tests.correct_logs import write_in_subprocess

    return write_in_subprocess(tmp_path_factory.mktemp("graded"))


def test_real_logs_get_their_kind_and_correct(graded_logs: dict[str, Path]) -> None:
    mmlu = ps.score_frame(ps.read_log(graded_logs["mmlu_pro"]), references="references")
    gsm8k = ps.score_frame(ps.read_log(graded_logs["gsm8k"]), references="references")
    assert mmlu["task_kind"].unique().to_list() == ["multiple_choice"]
    assert gsm8k["task_kind"].unique().to_list() == ["numeric"]
    # inspect-ai's choice() reads only `ANSWER: X` lines: a chain of thought ending "the answer
    # is (X)" is marked wrong; correct reads the letter the answer commits to.
    source = pl.read_parquet(DATA / "report_mmlu_pro.parquet").select(
        pl.col("id").alias("sample_id"), "orig_correct"
    )
    joined = mmlu.join(source, on="sample_id")
    harness = pl.col("orig_correct").cast(pl.Float64)
    assert joined.select((pl.col("correct") == harness).mean()).item() >= 0.99
    assert mmlu["correct"].sum() > mmlu["framework_choice"].sum()
    assert gsm8k["correct"].null_count() == 0


def test_summary_and_report_say_why_correct_and_the_framework_disagree(
    graded_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scored, page = tmp_path / "mmlu.parquet", tmp_path / "mmlu.html"
    assert cli.main(["score", str(graded_logs["mmlu_pro"]), "-o", str(scored), "-q"]) == 0
    frame = pl.read_parquet(scored)
    disagree = frame.filter((pl.col("correct") >= 0.5) != (pl.col("framework_choice") >= 0.5))
    assert disagree.height > 0
    capsys.readouterr()
    assert cli.main(["summary", str(scored), "--n-bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "correct: correct(task_kind='multiple_choice'" in out
    assert "threshold 0.5 (none recorded)" in out
    assert "no threshold" not in out
    line = f"correct vs framework_choice: disagree on {disagree.height:,} of {frame.height:,} rows"
    assert line in out
    assert "rows: framework read no `ANSWER:` line" in out
    assert cli.main(["report", str(scored), "-o", str(page), "-q"]) == 0
    html = page.read_text()
    assert "Why they disagree" in html
    assert "framework read no `ANSWER:` line" in html


def test_a_missing_column_reads_the_same_from_python_and_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pl.DataFrame({"id": ["1"], "answer": ["Paris"], "reference": ["Paris"]})
    source = tmp_path / "log.parquet"
    frame.write_parquet(source)
    with pytest.raises(ps.ColumnNotFoundError) as error:
        ps.score_frame(frame, response="reply")
    python = str(error.value).splitlines()[0]
    assert (
        cli.main(["score", str(source), "-o", str(tmp_path / "o.parquet"), "--response", "reply"])
        == 3
    )
    command = capsys.readouterr().err.strip().splitlines()[0]
    assert python == (
        "The response column 'reply' is not in the input. "
        "Available columns: 'id', 'answer', 'reference'."
    )
    assert command.endswith(python.replace("The response column", "The --response column"))


@pytest.mark.parametrize("scorer", ["choice_match", "numeric_match", "choice_match:rules=final"])
@pytest.mark.parametrize("name", sorted(LOG_KINDS))
def test_extraction_scorers_run_on_every_log_with_no_flag(
    name: str, scorer: str, tmp_path: Path
) -> None:
    target = tmp_path / "out.parquet"
    args = ["score", str(LOGS / name), "-o", str(target), "-q", "--scorer", scorer]
    assert cli.main(args) == 0
    column = scorer.split(":")[0]
    scored = pl.read_parquet(target)
    log = ps.read_log(LOGS / name)
    expected = log.select(
        getattr(ps, column)(
            "response", "references", **dict([o.split("=") for o in scorer.split(":")[1:]])
        )
    )
    assert scored[column].to_list() == expected[column].to_list()


def test_a_plain_tables_output_holds_the_kind_told_from_its_golds(tmp_path: Path) -> None:
    source, target = tmp_path / "gsm8k.parquet", tmp_path / "out.parquet"
    pl.read_parquet(DATA / "report_gsm8k.parquet").write_parquet(source)
    args = ["score", str(source), "-o", str(target), "-q", "--references", "references"]
    assert cli.main(args) == 0
    scored = pl.read_parquet(target)
    assert scored["task_kind"].unique().to_list() == ["numeric"]
    record = ps.read_provenance(target)
    assert record is not None
    assert record["task_kinds"][0]["kind"] == "numeric"
    assert "gold answers" in record["task_kinds"][0]["source"]
    override = tmp_path / "over.parquet"
    assert cli.main([*args[:3], str(override), *args[4:], "--task-kind", "short_answer"]) == 0
    assert pl.read_parquet(override)["task_kind"].unique().to_list() == ["short_answer"]


def test_a_log_whose_kind_cannot_be_read_scores_null_with_the_reason(tmp_path: Path) -> None:
    import json

    log = json.loads((LOGS / "inspect/log_formats.json").read_text())
    for entry in log["results"]["scores"]:
        entry["name"] = entry["scorer"] = "my_rubric"
    for sample in log["samples"]:
        sample["scores"] = {"my_rubric": sample["scores"]["match"]}
    source, target = tmp_path / "custom.json", tmp_path / "out.parquet"
    source.write_text(json.dumps(log))
    assert cli.main(["score", str(source), "-o", str(target), "-q"]) == 0
    scored = pl.read_parquet(target)
    assert scored["task_kind"].null_count() == scored.height
    assert scored["correct"].null_count() == scored.height
    record = ps.read_provenance(target)
    assert record is not None
    assert record["task_kinds"][0]["kind"] is None
    assert "my_rubric" in record["task_kinds"][0]["source"]
    details = scored.select(
        ps.correct_details("response", "references", task_kind=pl.col("task_kind"))
    ).to_series()
    assert details.struct.field("rule").unique().to_list() == ["no_kind"]


def test_a_null_gold_beside_a_letter_is_no_match_for_a_missing_answer() -> None:
    """A null or blank gold listed first neither matches an answer that commits to no letter nor
    hides the gold letter from the details."""
    frame = pl.DataFrame(
        {
            "response": [None, "B", "The answer is (C)."],
            "references": [[None, "A"], ["", "B"], [None, "C"]],
        },
        schema={"response": pl.String, "references": pl.List(pl.String)},
    )
    out = frame.select(
        score=ps.correct("response", "references"),
        details=ps.correct_details("response", "references"),
    )
    assert out["score"].to_list() == [0.0, 1.0, 1.0]
    assert out["details"].struct.field("gold").to_list() == ["A", "B", "C"]
    assert out["details"].struct.field("reason").to_list() == [None, None, None]


@pytest.mark.parametrize("with_question", [False, True])
@pytest.mark.parametrize("golds_as", ["text", "list"])
def test_correct_of_short_answers_shares_answer_match_call(
    golds_as: str, *, with_question: bool
) -> None:
    """On a table of short answers, ``correct`` is answer_match's own call, so the default
    scorers run the kernel once for both columns (Polars merges the equal calls), with the
    frame's question column or without one."""
    golds = ["Paris", "Rome"]
    columns: dict[str, object] = {
        "response": ["It is Paris.", "Milan"],
        "reference": [[g] for g in golds] if golds_as == "list" else golds,
    }
    if with_question:
        columns["input"] = ["Capital of France?", "Capital of Italy?"]
    frame = pl.LazyFrame(columns)
    scored = ps.score_frame(frame, scorers=["answer_match", "correct"])
    # correct reads answer_match's score (ScorerSpec.reads), one call for both columns on
    # every Polars (1.x merges no equal calls that read a text input: a temporary column).
    assert scored.explain().count(":answer_match(") == 1
    out = scored.collect()
    assert out["correct"].to_list() == out["answer_match"].to_list() == [1.0, 0.0]
    # With the default scorers answer_match runs in the fused call when no question is given
    # (a question column is an input the fused call does not take), and correct reads it there.
    scored = ps.score_frame(frame)
    plan = scored.explain()
    assert plan.count(":answer_match(") == (1 if with_question else 0)
    assert plan.count(":fused_scores(") == 1
    out = scored.collect()
    assert out["correct"].to_list() == out["answer_match"].to_list() == [1.0, 0.0]


@pytest.mark.parametrize("with_question", [False, True])
def test_correct_of_a_per_row_kind_reads_answer_match_on_its_text_rows(
    *, with_question: bool
) -> None:
    """With a task_kind column (as the log readers write it), correct grades its short answers
    by the frame's answer_match column instead of a second answer_match call on those rows; its
    multiple-choice and numeric rows keep their own rules."""
    columns: dict[str, object] = {
        "response": ["It is Paris.", "Milan", "ANSWER: B", "So 3 + 4 = 7.\n#### 7", "x", "Rome"],
        "reference": ["Paris", "Rome", "B", "7", "x", "Rome"],
        "task_kind": ["short_answer", "free_form", "multiple_choice", "numeric", "none", None],
    }
    if with_question:
        columns["input"] = ["Capital of France?", "Of Italy?", "Pick", "Add", "?", "Of Italy?"]
    frame = pl.LazyFrame(columns)
    scored = ps.score_frame(frame)
    plan = scored.explain()
    assert plan.count(":answer_match(") == (1 if with_question else 0)
    assert plan.count(":correct_choice(") == plan.count(":correct_number(") == 1
    out = scored.collect()
    question = "input" if with_question else None
    alone = frame.select(
        ps.correct("response", "reference", task_kind=pl.col("task_kind"), question=question)
    ).collect()
    assert out["correct"].to_list() == alone["correct"].to_list()
    assert out["correct"].to_list() == [1.0, 0.0, 1.0, 1.0, None, None]


@pytest.mark.parametrize(
    ("options", "kind", "calls"),
    [
        ({"hedges": False}, "short_answer", 1),  # another answer_match: correct runs its own
        ({}, "numeric", 0),  # correct grades numbers: no answer_match at all
        ({}, "short_answer", 0),  # the same answer_match: read from the fused call
    ],
)
def test_correct_reads_answer_match_only_when_it_is_the_same_score(
    options: dict[str, object], kind: str, calls: int
) -> None:
    """correct takes the frame's answer_match column only when that column is its own score:
    the same options (a hedge scored 1.0 by answer_match with its hedge rule off stays 0.0 in
    correct) and a text kind."""
    frame = pl.LazyFrame({"response": ["It is either 12 or 13.", "13"], "reference": ["12", "13"]})
    scorers: dict[str, object] = {
        "answer_match": options,
        "answer_precision": None,
        "correct": {"task_kind": kind},
    }
    scored = ps.score_frame(frame, scorers=scorers)
    assert scored.explain().count(":answer_match(") == calls
    out = scored.collect()
    alone = frame.select(ps.correct("response", "reference", task_kind=kind)).collect()
    assert out["correct"].to_list() == alone["correct"].to_list()
    if options:
        assert out["answer_match"].to_list() != out["correct"].to_list()
