"""Measure ``final_choice`` / ``final_number`` against a careful grader, and write the labels.

    python benchmarks/label_final_answers.py                # reads /work/shared/data by default
    python benchmarks/label_final_answers.py --write        # also rewrites tests/data/final_*

For each real set it compares the extractor with the source's own grader, and labels every row
where they disagree with the verdict of a careful human grader (the answer the response finally
commits to). Labels are given per class of disagreement: each class below was read on a sample
of its rows (all rows of the small classes), and the rows where the extractor's reading was not
the grader's are listed by id in ``OVERRIDES`` with the grader's reading and why. It prints the
agreement per set: rows where the extractor and the source grader agree count as agreeing with
the careful grader (the tests check a seeded sample of them), plus the disagreement rows whose
label is the extractor's reading.

* MMLU-Pro (``mmlu_pro_cot.parquet``): the source grader is the harness's letter (``orig_pred``).
* GSM8K model solutions (``gsm8k_openai_solutions.parquet``): OpenAI's ``orig_is_correct``
  against ``numeric_match(method="final")``.
* Faithful-CoT (``faithful_cot_predictions.parquet``, the numeric tasks GSM8K, SVAMP and
  MultiArith): the repository's ``orig_correct`` against ``numeric_match(method="final")``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

import polarscore as ps

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SEED = 41
SAMPLE_ROWS = 600

#: Rows where the extractor's reading is not a careful grader's: id -> (grader's reading, why).
#: ``None`` is "no answer".
_FEW_SHOT = (
    "five 'The answer is (X)' lines answer the prompt's few-shot questions; the question asked "
    "is left unanswered"
)
CHOICE_OVERRIDES: dict[str, tuple[str | None, str]] = {
    "mmlu-pro:4911:Mistral-7B-Instruct-v0.2": (
        None,
        "names the closest option (G), then concludes that none of the options is correct",
    ),
    "mmlu-pro:4353:gemini-1.5-flash-002": (
        None,
        "ends 'I cannot provide an answer'; the earlier letters answer other questions",
    ),
    "mmlu-pro:8454:Qwen1.5-7B-Chat": (None, "the final answer lists two options, A and H"),
    "mmlu-pro:12102:gemini-1.5-flash-002": (None, _FEW_SHOT),
    "mmlu-pro:579:gemini-1.5-flash-002": (None, _FEW_SHOT),
    "mmlu-pro:636:gemini-1.5-flash-002": (None, _FEW_SHOT),
    "mmlu-pro:3714:gemini-1.5-flash-002": (None, _FEW_SHOT),
}
_STATED_THEN_DERIVED = "states 'The answer is {0}' first, then derives and concludes {1}"
NUMBER_OVERRIDES: dict[str, tuple[str | None, str]] = {
    "faithful-cot:GSM8K:101:gpt-3.5-turbo_standard": ("6", _STATED_THEN_DERIVED.format(8, 6)),
    "faithful-cot:GSM8K:346:gpt-3.5-turbo_standard": ("468", _STATED_THEN_DERIVED.format(71, 468)),
    "faithful-cot:GSM8K:1205:gpt-3.5-turbo_standard": ("4", _STATED_THEN_DERIVED.format(5, 4)),
}


def choice_class(row: dict[str, object]) -> str:
    """The disagreement class of an MMLU-Pro row (harness letter against final_choice)."""
    ours, theirs, reason = row["choice"], row["orig_pred"], row["reason"]
    if theirs is None:
        return f"harness read no letter; the response states {row['form']}"
    if ours is None and reason == "several_letters":
        return "several letters offered as the answer (the harness takes the first)"
    if ours is None and reason == "contradiction":
        return "the letter and the option text written with it name different options"
    if ours is None:
        return "no answer stated (the harness's last-standalone-letter rule, or a G stand-in)"
    return "the harness takes the first 'answer is'; the response's last statement differs"


def number_class(row: dict[str, object]) -> str:
    """The disagreement class of a numeric row (source verdict against numeric_match)."""
    if row["orig_correct"]:
        return "source grader reads the number's first digits (drops the sign or decimals)"
    if row["form"] == "last_number":
        return "source grader marks answers not phrased 'The answer is' invalid"
    return f"source grader misread a {row['form']} answer"


def mmlu(data: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    d = pl.read_parquet(data / "mmlu_pro_cot.parquet").select(
        "id", "model", "response", "options", "reference", "orig_pred"
    )
    d = d.with_columns(ps.final_choice_details("response", choices="options")).unnest(
        "final_choice_details"
    )
    disagree = d.filter(pl.col("choice").ne_missing(pl.col("orig_pred")))
    rows = []
    for row in disagree.iter_rows(named=True):
        label, why = CHOICE_OVERRIDES.get(row["id"], (row["choice"], choice_class(row)))
        rows.append({**row, "label": label, "why": why})
    labelled = pl.DataFrame(rows, schema={**disagree.schema, "label": pl.String, "why": pl.String})
    agree = d.filter(pl.col("choice").eq_missing(pl.col("orig_pred")))
    return d, labelled.vstack(
        agree.sample(SAMPLE_ROWS, seed=SAMPLE_SEED).with_columns(
            label=pl.col("orig_pred"), why=pl.lit("agrees with the source grader")
        )
    )


def numeric(data: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    d = (
        pl.read_parquet(data / "faithful_cot_predictions.parquet")
        .filter(pl.col("task").is_in(["GSM8K", "SVAMP", "MultiArith"]))
        .select("id", "model", "response", "reference", "orig_correct")
    )
    d = d.with_columns(
        ps.final_number_details("response"),
        ps.numeric_match("response", "reference", method="final").alias("ours"),
    ).unnest("final_number_details")
    disagree = d.filter((pl.col("ours") == 1.0) != pl.col("orig_correct"))
    rows = []
    for row in disagree.iter_rows(named=True):
        label, why = NUMBER_OVERRIDES.get(row["id"], (row["number"], number_class(row)))
        rows.append({**row, "label": label, "why": why})
    labelled = pl.DataFrame(rows, schema={**disagree.schema, "label": pl.String, "why": pl.String})
    agree = d.filter((pl.col("ours") == 1.0) == pl.col("orig_correct"))
    return d, labelled.vstack(
        agree.sample(SAMPLE_ROWS, seed=SAMPLE_SEED).with_columns(
            label=pl.col("number"), why=pl.lit("agrees with the source grader")
        )
    )


def report(name: str, total: int, labelled: pl.DataFrame, ours: str) -> None:
    disagree = labelled.filter(pl.col("why") != "agrees with the source grader")
    wrong = disagree.filter(pl.col(ours).ne_missing(pl.col("label")))
    print(
        f"\n{name}: {total:,} rows; the source grader and the extractor disagree on "
        f"{disagree.height:,}"
    )
    for (why,), group in disagree.group_by("why", maintain_order=True):
        bad = group.filter(pl.col(ours).ne_missing(pl.col("label"))).height
        print(f"  {group.height:6,}  {why}  (extractor wrong on {bad})")
    print(
        f"  agreement with the careful grader: {(total - wrong.height) / total:.4%} "
        f"({total - wrong.height:,} of {total:,}); the source grader's: "
        f"{(total - disagree.height + wrong.height) / total:.4%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--write", action="store_true", help="rewrite tests/data/final_*.parquet")
    args = parser.parse_args()
    choice_all, choice_labels = mmlu(args.data)
    report("MMLU-Pro letters", choice_all.height, choice_labels, "choice")
    number_all, number_labels = numeric(args.data)
    report("Faithful-CoT numbers", number_all.height, number_labels, "number")
    gsm = pl.read_parquet(args.data / "gsm8k_openai_solutions.parquet")
    agree = gsm.select(
        (ps.numeric_match("response", "reference", method="final") == 1.0)
        == pl.col("orig_is_correct")
    ).to_series()
    print(
        f"\nGSM8K model solutions: {gsm.height:,} rows; OpenAI's verdict agrees on {agree.sum():,}"
    )
    if args.write:
        choice_labels.select(
            "id", "response", "options", "reference", "orig_pred", "label", "why"
        ).write_parquet(ROOT / "tests/data/final_choice_labels.parquet", compression_level=22)
        number_labels.select(
            "id", "response", "reference", "orig_correct", "label", "why"
        ).write_parquet(ROOT / "tests/data/final_number_labels.parquet", compression_level=22)


if __name__ == "__main__":
    main()
