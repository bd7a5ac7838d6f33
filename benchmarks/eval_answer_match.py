"""Evaluate ``answer_match`` against human verdicts, with honest generalisation figures.

One command reproduces every figure of the README's *Answer match* section::

    python benchmarks/eval_answer_match.py                # reads ../shared/data by default
    python benchmarks/eval_answer_match.py --data DIR --speed-rows 200000

It reports, on EVOUNA (NQ and TriviaQA answers of five QA systems with human verdicts):

1. agreement, Cohen's kappa, precision and recall (positive = "correct") per system and overall,
   for ``answer_match`` (with and without the optional question) and three simple baselines
   implemented here: normalized match over the aliases, normalized alias contained in the
   response, and token recall >= 0.5;
2. leave-one-system-out: ``min_token_recall`` tuned on four systems, tested on the fifth;
3. NQ vs TriviaQA: tuned on one data set, tested on the other;
4. two other data sets as a sanity check of generality (GSM8K final numbers, MMLU-Pro letters),
   against the verdicts shipped with them;
5. speed in rows/s on short synthetic answers, with ``answer_correctness`` measured in the same
   run as the baseline, and ``answer_match`` with the second-round rules off (the speed before
   them) against it with its defaults;
6. the second-round rules (dates, parentheticals, mojibake, approximate numbers, glued words),
   honestly: the questions are split in two halves by a stable hash (CRC-32 of the question); a
   rule is on by default only if it gains more rows than it costs on the tuning half (or changes
   none there), and every figure is then reported on the held-out half, per rule alone (from
   all of them off) and left out of the full set, with the per-system minimum.

Tuning uses one fact of the scorer: with every rule on, ``answer_match`` at threshold ``t`` is
exactly ``graded_score >= t`` (exact and contains matches have a graded score of 1.0), so one
``answer_match_details`` run scores every threshold. The script checks this at the default.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polarscore as ps
from polarscore.normalize import datarobot_normalize
from polarscore.scores.match import DEFAULT_MIN_TOKEN_RECALL, RULE_DEFAULTS

GRID = [round(0.05 * k, 2) for k in range(2, 21)]  # 0.10 .. 1.00
SYSTEMS = ["fid", "gpt35", "chatgpt", "gpt4", "newbing"]


# --- metrics ----------------------------------------------------------------------------------


def metrics(pred: pl.Series, truth: pl.Series) -> dict[str, float]:
    """Agreement, Cohen's kappa, precision and recall of boolean predictions."""
    p = pred.cast(pl.Boolean).fill_null(value=False).to_numpy()
    t = truth.cast(pl.Boolean).to_numpy()
    n = len(t)
    tp = float((p & t).sum())
    fp = float((p & ~t).sum())
    fn = float((~p & t).sum())
    agreement = float((p == t).mean())
    expected = (p.mean() * t.mean()) + ((1 - p.mean()) * (1 - t.mean()))
    kappa = (agreement - expected) / (1 - expected) if expected < 1 else 1.0
    return {
        "n": n,
        "agreement": agreement,
        "kappa": float(kappa),
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / (tp + fn) if tp + fn else float("nan"),
    }


def _table(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "(no rows)"
    cols = list(rows[0])
    cells = [[_fmt(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    lines += [
        "| " + " | ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


# --- baselines, implemented locally (SQuAD-style normalisation over every alias) ---------------


def _squad_norm(expr: pl.Expr) -> pl.Expr:
    text = datarobot_normalize(expr)
    return (
        text.str.replace_all(r"\b(?:a|an|the)\b", " ")
        .str.replace_all(" +", " ")
        .str.strip_chars(" ")
    )


def baselines(df: pl.DataFrame) -> pl.DataFrame:
    """Per row: normalized match, contains and token recall >= 0.5, best over the aliases."""
    pairs = (
        df.select("rid", "response", ref=pl.col("references"))
        .explode("ref")
        .drop_nulls("ref")
        .with_columns(resp=_squad_norm(pl.col("response")), ref=_squad_norm(pl.col("ref")))
        .filter(pl.col("ref") != "")
    )
    rtoks = pl.col("ref").str.split(" ")
    stoks = pl.col("resp").str.split(" ")
    pairs = pairs.with_columns(
        normalized_match=pl.col("resp") == pl.col("ref"),
        contains=pl.col("resp").str.contains(pl.col("ref"), literal=True),
    )
    recall = (  # with multiplicity, as SQuAD-style recall counts it
        pairs.with_row_index("pair")
        .select("pair", tok=rtoks, resp_tok=stoks)
        .explode("tok")
        .with_columns(hit=pl.col("tok").is_in(pl.col("resp_tok")))
        .group_by("pair", maintain_order=True)
        .agg(recall=pl.col("hit").mean())
    )
    pairs = pairs.with_row_index("pair").join(recall, on="pair", how="left")
    per_row = pairs.group_by("rid").agg(
        pl.col("normalized_match").any(),
        pl.col("contains").any(),
        token_recall_05=(pl.col("recall") >= 0.5).any(),
    )
    return df.select("rid").join(per_row, on="rid", how="left").fill_null(value=False)


# --- EVOUNA -----------------------------------------------------------------------------------


def load_evouna(data: Path) -> pl.DataFrame:
    return (
        pl.read_parquet(data / "evouna_nq_tq.parquet")
        .filter(pl.col("human_correct").is_not_null())
        .with_row_index("rid")
    )


def score_evouna(df: pl.DataFrame) -> pl.DataFrame:
    details = df.select(
        "rid",
        plain=ps.answer_match_details("response", "references").struct.field("graded_score"),
        with_q=ps.answer_match_details("response", "references", question="input").struct.field(
            "graded_score"
        ),
        default_plain=ps.answer_match("response", "references"),
        default_q=ps.answer_match("response", "references", question="input"),
    )
    # The tuning shortcut must be exact: answer_match == graded_score >= threshold.
    for graded, direct in (("plain", "default_plain"), ("with_q", "default_q")):
        shortcut = (details[graded] >= DEFAULT_MIN_TOKEN_RECALL).cast(pl.Float64)
        assert shortcut.equals(details[direct], check_names=False), graded
    return df.join(details, on="rid").join(baselines(df), on="rid")


def _best_threshold(frame: pl.DataFrame, graded: str) -> float:
    truth = frame["human_correct"]
    scores = [(metrics(frame[graded] >= t, truth)["agreement"], -t) for t in GRID]
    return -max(scores)[1]


def report_evouna(scored: pl.DataFrame) -> None:
    scorers = {
        "normalized match (baseline)": pl.col("normalized_match"),
        "contains (baseline)": pl.col("contains"),
        "token recall >= 0.5 (baseline)": pl.col("token_recall_05"),
        "answer_match": pl.col("default_plain") == 1.0,
        "answer_match, question=": pl.col("default_q") == 1.0,
    }
    print("## EVOUNA: agreement with human verdicts\n")
    rows = []
    for name, pred in scorers.items():
        for system in [*SYSTEMS, "overall"]:
            part = scored if system == "overall" else scored.filter(pl.col("model_key") == system)
            m = metrics(part.select(pred).to_series(), part["human_correct"])
            rows.append({"scorer": name, "system": system, **m})
    print(_table(rows))
    print("\n### agreement, scorer x system\n")
    wide = []
    for name in scorers:
        entry: dict[str, object] = {"scorer": name}
        for r in rows:
            if r["scorer"] == name:
                entry[str(r["system"])] = r["agreement"]
        wide.append(entry)
    print(_table(wide))

    for graded, label in (("plain", "answer_match"), ("with_q", "answer_match, question=")):
        print(f"\n## Leave-one-system-out ({label}): min_token_recall tuned on four systems\n")
        in_t = _best_threshold(scored, graded)
        loso_rows = []
        held_preds = []
        for system in SYSTEMS:
            train = scored.filter(pl.col("model_key") != system)
            test = scored.filter(pl.col("model_key") == system)
            t = _best_threshold(train, graded)
            held = test[graded] >= t
            held_preds.append(test.select("rid").with_columns(held=held))
            loso_rows.append(
                {
                    "held-out system": system,
                    "tuned threshold": t,
                    "held-out agreement": metrics(held, test["human_correct"])["agreement"],
                    "in-sample agreement": metrics(test[graded] >= in_t, test["human_correct"])[
                        "agreement"
                    ],
                    "default agreement": metrics(
                        test[graded] >= DEFAULT_MIN_TOKEN_RECALL, test["human_correct"]
                    )["agreement"],
                }
            )
        pooled = scored.join(pl.concat(held_preds), on="rid")
        loso_rows.append(
            {
                "held-out system": "overall (pooled)",
                "tuned threshold": in_t,
                "held-out agreement": metrics(pooled["held"], pooled["human_correct"])["agreement"],
                "in-sample agreement": metrics(scored[graded] >= in_t, scored["human_correct"])[
                    "agreement"
                ],
                "default agreement": metrics(
                    scored[graded] >= DEFAULT_MIN_TOKEN_RECALL, scored["human_correct"]
                )["agreement"],
            }
        )
        print(_table(loso_rows))

        print(f"\n## NQ vs TriviaQA ({label}): tuned on one, tested on the other\n")
        cross = []
        for train_name, test_name in (("NQ", "TQ"), ("TQ", "NQ")):
            train = scored.filter(pl.col("dataset") == train_name)
            test = scored.filter(pl.col("dataset") == test_name)
            t = _best_threshold(train, graded)
            t_self = _best_threshold(test, graded)
            cross.append(
                {
                    "tuned on": train_name,
                    "tested on": test_name,
                    "threshold": t,
                    "cross agreement": metrics(test[graded] >= t, test["human_correct"])[
                        "agreement"
                    ],
                    "tuned-on-test agreement": metrics(
                        test[graded] >= t_self, test["human_correct"]
                    )["agreement"],
                }
            )
        print(_table(cross))


def report_ablations(df: pl.DataFrame) -> None:
    """Agreement (with question=) with one switch changed, and with answer extraction."""
    truth = df["human_correct"]

    def agreement(response: pl.Expr | str = "response", **options: object) -> float:
        pred = df.select(
            ps.answer_match(response, "references", question="input", **options) == 1.0
        ).to_series()
        return metrics(pred, truth)["agreement"]

    base = agreement()
    variants: dict[str, dict[str, object]] = {
        "exact=False": {"exact": False},
        "contains=False": {"contains": False},
        "token_recall=False": {"token_recall": False},
        "stem_prefix=None": {"stem_prefix": None},
        "numbers_must_match=False": {"numbers_must_match": False},
        "fold_accents=False": {"fold_accents": False},
        "number_words=False": {"number_words": False},
        "min_token_recall=0.5": {"min_token_recall": 0.5},
        "min_token_recall=1.0": {"min_token_recall": 1.0},
    }
    response = pl.col("response")
    extractions = {
        "first sentence only": response.str.extract(r"^(?s)(.*?[.!?])(?:\s|$)", 1),
        "first two sentences only": response.str.extract(
            r"^(?s)(.*?[.!?](?:\s+.*?[.!?])?)(?:\s|$)", 1
        ),
        "first paragraph only": response.str.extract(r"^(?s)(.*?)\n\s*\n", 1),
        "first 300 characters only": response.str.slice(0, 300),
    }
    rows: list[dict[str, object]] = [{"variant": "all rules on (default)", "agreement": base}]
    for name, options in variants.items():
        a = agreement(**options)
        rows.append({"variant": name, "agreement": a, "change": f"{a - base:+.4f}"})
    for name, expr in extractions.items():
        a = agreement(expr.fill_null(response))
        rows.append({"variant": name, "agreement": a, "change": f"{a - base:+.4f}"})
    rows[0]["change"] = ""
    print("\n## What each switch is worth (answer_match, question=)\n")
    print(_table(rows))


# --- the second-round rules, tuned on one half of the questions, reported on the other -------

#: Every second-round rule off: answer_match as it was before them.
RULES_OFF: dict[str, bool] = dict.fromkeys(RULE_DEFAULTS, False)


def question_half(question: str) -> int:
    """0 for the tuning half, 1 for the held-out half: a stable hash of the question text."""
    return zlib.crc32(question.encode("utf-8")) % 2


def report_rules(df: pl.DataFrame) -> None:
    """Gain (newly agreed rows) and cost (newly disagreeing rows) of each rule, by half."""
    df = df.with_columns(
        half=pl.col("input").map_elements(question_half, return_dtype=pl.Int64),
    )
    truth = pl.col("human_correct")

    def predict(rules: dict[str, bool]) -> pl.Series:
        expr = ps.answer_match("response", "references", question="input", **rules) == 1.0
        return df.select(expr).to_series()

    base = predict(RULES_OFF)
    all_on = predict(dict.fromkeys(RULE_DEFAULTS, True))
    frame = df.select("half", "model_key", truth).with_columns(base=base, all_on=all_on)

    def gain_cost(pred: pl.Series, ref: pl.Series, half: int) -> tuple[int, int]:
        part = frame.with_columns(p=pred, r=ref).filter(pl.col("half") == half)
        changed = part.filter(pl.col("p") != pl.col("r"))
        gain = changed.filter(pl.col("p") == truth).height
        return gain, changed.height - gain

    rows = []
    chosen: dict[str, bool] = {}
    for rule in RULE_DEFAULTS:
        alone = predict({**RULES_OFF, rule: True})
        without = predict({**dict.fromkeys(RULE_DEFAULTS, True), rule: False})
        tune_gain, tune_cost = gain_cost(alone, base, 0)
        held_gain, held_cost = gain_cost(alone, base, 1)
        # In the full set: what the rule adds on top of all the others.
        full_gain, full_cost = gain_cost(all_on, without, 1)
        # On when it gains more than it costs on the tuning half; a rule that changes no tuning
        # row either way (a repair of text that cannot be right) is kept on.
        chosen[rule] = tune_gain > tune_cost or tune_gain == tune_cost == 0
        rows.append(
            {
                "rule": rule,
                "tuning gain": tune_gain,
                "tuning cost": tune_cost,
                "on by tuning": chosen[rule],
                "default": RULE_DEFAULTS[rule],
                "held-out gain": held_gain,
                "held-out cost": held_cost,
                "held-out net": held_gain - held_cost,
                "in full set: held-out gain": full_gain,
                "in full set: held-out cost": full_cost,
            }
        )
    print("\n## Second-round rules: chosen on the tuning half, measured on the held-out half\n")
    n0 = frame.filter(pl.col("half") == 0).height
    n1 = frame.filter(pl.col("half") == 1).height
    print(
        f"tuning half: {n0:,} rows; held-out half: {n1:,} rows (split by CRC-32 of the question)\n"
    )
    print(_table(rows))
    if chosen != RULE_DEFAULTS:
        print(f"\nNOTE: the tuning half chooses {chosen}, the defaults are {RULE_DEFAULTS}")

    variants = {
        "all second-round rules off (before)": RULES_OFF,
        "defaults (chosen on the tuning half)": RULE_DEFAULTS,
        "every second-round rule on": dict.fromkeys(RULE_DEFAULTS, True),
    }
    summary = []
    for name, rules in variants.items():
        pred = predict(rules)
        scored = frame.with_columns(p=pred)
        for half, label in ((0, "tuning"), (1, "held-out"), (None, "all")):
            part = scored if half is None else scored.filter(pl.col("half") == half)
            per_system = [
                metrics(g["p"], g["human_correct"])["agreement"]
                for _, g in part.group_by("model_key")
            ]
            m = metrics(part["p"], part["human_correct"])
            summary.append(
                {
                    "variant": name,
                    "half": label,
                    "agreement": m["agreement"],
                    "kappa": m["kappa"],
                    "per-system minimum": min(per_system),
                }
            )
    print("\n### Agreement by half (answer_match, question=)\n")
    print(_table(summary))


# --- other data sets --------------------------------------------------------------------------


def report_others(data: Path) -> None:
    print("\n## Other data sets (verdicts shipped with the data, not human labels)\n")
    rows = []
    gsm = data / "gsm8k_openai_solutions.parquet"
    if gsm.exists():
        df = pl.read_parquet(gsm)
        final = pl.col("response").str.extract(r"A:\s*([^\n]*)\s*$", 1).fill_null("")
        for label, response in (("whole solution", pl.col("response")), ("final `A:` line", final)):
            pred = df.select(
                ps.answer_match(response, "references").fill_null(0.0) == 1.0
            ).to_series()
            rows.append(
                {"data": "GSM8K", "response": label, **metrics(pred, df["orig_is_correct"])}
            )
    mmlu = data / "mmlu_pro_cot.parquet"
    if mmlu.exists():
        df = pl.read_parquet(mmlu).filter(pl.col("orig_pred").is_not_null())
        for label, refs in (
            ("gold letter", pl.col("references")),
            ("gold option text", pl.col("reference_text")),
        ):
            pred = df.select(ps.answer_match("response", refs).fill_null(0.0) == 1.0).to_series()
            rows.append(
                {"data": "MMLU-Pro", "response": label, **metrics(pred, df["orig_correct"])}
            )
    print(_table(rows))


# --- speed ------------------------------------------------------------------------------------


def report_speed(n_rows: int, evouna: pl.DataFrame) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from synthetic import make_eval_log  # type: ignore[import-not-found]

    log = make_eval_log(n_rows, seed=0)
    short = log.filter(pl.col("response").str.len_chars() <= 40)
    print(f"\n## Speed ({short.height:,} short synthetic rows, best of 3)\n")
    exprs = {
        "answer_correctness (baseline)": ps.answer_correctness("response", "reference"),
        "answer_match, string reference": ps.answer_match("response", "reference"),
        "answer_match, list of aliases": ps.answer_match("response", "references"),
        "answer_match, no token_recall": ps.answer_match(
            "response", "references", token_recall=False
        ),
        "answer_match, second-round rules off (before)": ps.answer_match(
            "response", "references", **RULES_OFF
        ),
        "answer_match, every second-round rule on": ps.answer_match(
            "response", "references", **dict.fromkeys(RULE_DEFAULTS, True)
        ),
    }
    rows = []
    base = None
    for name, expr in exprs.items():
        best, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            short.select(expr)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        rate, cpu_rate = short.height / best, short.height / best_cpu
        base = base or cpu_rate
        rows.append(
            {
                "scorer": name,
                "rows/s (wall)": f"{rate:,.0f}",
                "rows/CPU-s": f"{cpu_rate:,.0f}",
                "vs answer_correctness (CPU)": cpu_rate / base,
            }
        )
    print(_table(rows))
    print()
    rates = {}
    for label, rules in (("second-round rules off (before)", RULES_OFF), ("defaults", {})):
        best, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            evouna.select(ps.answer_match("response", "references", question="input", **rules))
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        rate, cpu_rate = evouna.height / best, evouna.height / best_cpu
        rates[label] = cpu_rate
        print(
            f"EVOUNA (real answers, 6.6 aliases per row, question=), {label}: "
            f"{rate:,.0f} rows/s wall, {cpu_rate:,.0f} rows/CPU-s"
        )
    ratio = rates["defaults"] / rates["second-round rules off (before)"]
    print(f"\nEVOUNA rows/CPU-s, defaults vs before: {ratio:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(__file__).resolve().parents[1] / ".." / "shared" / "data",
        help="directory holding evouna_nq_tq.parquet (default: ../shared/data from the repo)",
    )
    parser.add_argument("--speed-rows", type=int, default=100_000, help="synthetic log size")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument(
        "--rules-only", action="store_true", help="only the second-round rules' section"
    )
    args = parser.parse_args(argv)
    evouna = load_evouna(args.data)
    report_rules(evouna)
    if args.rules_only:
        return 0
    scored = score_evouna(evouna)
    report_evouna(scored)
    report_ablations(evouna)
    report_others(args.data)
    if not args.skip_speed:
        report_speed(args.speed_rows, evouna)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
