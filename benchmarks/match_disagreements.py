"""Tabulate where ``answer_match`` and EVOUNA's human graders disagree, by probable cause.

Each disagreement is put in the first cause whose test it meets (the tests are simple, readable
heuristics, meant to find rule-shaped groups worth a new rule, not to explain every row)::

    python benchmarks/match_disagreements.py                 # reads ../shared/data by default
    python benchmarks/match_disagreements.py --rules-off     # as before the second-round rules
    python benchmarks/match_disagreements.py --examples 3    # a few rows per cause

"Missed" rows are answers the graders accepted and ``answer_match`` rejected; "false pass" rows
the other way round.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polarscore as ps
from polarscore.scores.match import RULE_DEFAULTS

_ALIASES = pl.col("references").list.join(" | ")
_MONTH = r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d"

#: (cause, test) for missed rows, tried in order.
MISSED: list[tuple[str, pl.Expr]] = [
    (
        "response declines or hedges",
        pl.col("response").str.contains(
            r"(?i)\b(?:I'm sorry|as an AI|cannot|can't|not sure|no information|unable to|"
            r"I don't|not possible|difficult to)"
        ),
    ),
    ("gold is a date", _ALIASES.str.contains(_MONTH) | _ALIASES.str.contains(r"\b1\d{3}\b|20\d\d")),
    ("gold is a number", _ALIASES.str.contains(r"\d")),
    ("gold has a parenthetical", _ALIASES.str.contains(r"\(")),
    ("words glued together (chat UI)", pl.col("response").str.contains(r"[a-z][A-Z]|[a-z]\d\b")),
    ("some alias words in the response", pl.col("graded_score") > 0),
    ("no alias word in the response", pl.lit(True)),
]

#: (cause, test) for false passes, tried in order.
FALSE_PASS: list[tuple[str, pl.Expr]] = [
    (
        "response negates or hedges",
        pl.col("response").str.contains(r"(?i)\b(?:not|no|never|neither|nor|unclear)\b"),
    ),
    ("response lists alternatives", pl.col("response").str.contains(r"(?i)\bor\b|, (?:and|or)\b")),
    ("long response (> 300 characters)", pl.col("response").str.len_chars() > 300),
    ("accepted by partial token recall", pl.col("rule") == "token_recall"),
    ("other", pl.lit(True)),
]


def _first_cause(causes: list[tuple[str, pl.Expr]]) -> pl.Expr:
    expr: pl.Expr = pl.lit(None, dtype=pl.String)
    for name, test in reversed(causes):
        expr = pl.when(test).then(pl.lit(name)).otherwise(expr)
    return expr


def tabulate(df: pl.DataFrame, *, rules: dict[str, bool], examples: int) -> None:
    details = df.select(
        ps.answer_match_details("response", "references", question="input", **rules)
    ).unnest("answer_match_details")
    scored = pl.concat([df, details], how="horizontal").with_columns(pred=pl.col("score") == 1.0)
    total = scored.height
    missed = scored.filter(pl.col("human_correct") & ~pl.col("pred"))
    false_pass = scored.filter(~pl.col("human_correct") & pl.col("pred"))
    agreement = 1 - (missed.height + false_pass.height) / total
    print(f"agreement {agreement:.4f} on {total:,} rows")
    print(f"missed (graders accept, answer_match rejects): {missed.height:,}")
    print(f"false passes (graders reject, answer_match accepts): {false_pass.height:,}\n")
    for label, part, causes in (
        ("missed", missed, MISSED),
        ("false pass", false_pass, FALSE_PASS),
    ):
        tagged = part.with_columns(cause=_first_cause(causes))
        table = (
            tagged.group_by("cause")
            .agg(
                rows=pl.len(),
                **{
                    system: (pl.col("model_key") == system).sum()
                    for system in ("fid", "gpt35", "chatgpt", "gpt4", "newbing")
                },
                NQ=(pl.col("dataset") == "NQ").sum(),
                TQ=(pl.col("dataset") == "TQ").sum(),
            )
            .sort("rows", descending=True)
        )
        print(f"## {label}, by cause\n")
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_hide_dataframe_shape=True,
            tbl_hide_column_data_types=True,
            tbl_formatting="MARKDOWN",
            fmt_str_lengths=60,
        ):
            print(table)
        if examples:
            with pl.Config(fmt_str_lengths=120, tbl_rows=-1, tbl_width_chars=220):
                for (cause,), group in tagged.group_by("cause"):
                    print(f"\n{label} / {cause}:")
                    print(
                        group.head(examples).select(
                            "model_key",
                            pl.col("input").str.slice(0, 60),
                            pl.col("response").str.slice(0, 120),
                            _ALIASES.str.slice(0, 60).alias("aliases"),
                            "reason",
                        )
                    )
        print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parents[1] / ".." / "shared" / "data",
        help="directory holding evouna_nq_tq.parquet (default: ../shared/data from the repo)",
    )
    parser.add_argument("--rules-off", action="store_true", help="second-round rules off")
    parser.add_argument("--examples", type=int, default=0, help="example rows per cause")
    args = parser.parse_args(argv)
    df = pl.read_parquet(args.data / "evouna_nq_tq.parquet").filter(
        pl.col("human_correct").is_not_null()
    )
    rules = dict.fromkeys(RULE_DEFAULTS, False) if args.rules_off else RULE_DEFAULTS
    tabulate(df, rules=rules, examples=args.examples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
