"""Speed of the judge-free checks and of final-answer extraction, against the reference loop.

Usage::

    python benchmarks/bench_deterministic.py [--rows 1000000] [--loop-rows 20000] [--repeat 3]

For each check, the realistic rows of ``tests/data/deterministic_cases.parquet`` (real model
outputs and LLM-shaped answers) are repeated to ``--rows`` and scored with one option set; the
reference loop (eval-ai-library 0.8.2's per-row rule in plain Python: the oracles of
``tests/oracles/checks.py``, with ``jsonschema.validate`` and ``langdetect.detect`` themselves) runs
on the first ``--loop-rows`` of the same frame in the same process, and the ratio of rows per
second is reported. The loop leaves out eval_lib's own per-call overhead (its metric objects and
logs), so the ratio understates the gain over the library itself.

With ``--eval-lib-python PYTHON`` (an interpreter where ``eval-ai-library`` 0.8.2 is installed; it
is not a dependency of polarscore), the same rows are also scored by the library itself, each
row's ``EvalTestCase`` awaited through the metric's ``evaluate`` in one event loop, its per-row
printing sent to ``/dev/null``: the ``library_rows_per_s`` and ``x_library`` columns. Building the
test cases is left out of its time.

``json_schema`` and ``language_detection`` call their Python validator / detector once per
distinct response of a batch: on repeated rows that is a cache, so they are also timed on the
distinct rows alone (``distinct``), which is the figure to expect on a log without repeats.

Extraction: ``extract_choice`` on the MMLU-Pro answers and ``extract_number`` /
``numeric_match`` on the GSM8K solutions of ``tests/data``, repeated to ``--rows``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import polarscore as ps  # noqa: E402
from polarscore.scores.checks import _language  # noqa: E402
from tests.oracles import checks as oracle_checks  # noqa: E402

DATA = ROOT / "tests" / "data"

#: One option set per check, as a user would pass it (valid options, realistic rows).
OPTIONS: dict[str, dict[str, Any]] = {
    "contains": {"keywords": ["answer", "therefore", "paris"], "mode": "any"},
    "starts_with": {"prefix": "The answer", "case_sensitive": False},
    "ends_with": {"suffix": ".", "case_sensitive": True},
    "exact_match": {"case_sensitive": False},
    "non_empty": {},
    "length_check": {"min_length": 5, "max_length": 200, "unit": "words"},
    "format_check": {"format_type": "url"},
    "regex_match": {"pattern": r"[Tt]he answer is \(?([A-J])\)?"},
    "json_schema": {
        "schema": {"type": "object", "required": ["answer"], "properties": {"answer": {}}}
    },
    "language_detection": {"expected_language": "en"},
}

#: Extra option sets timed for the checks with several code paths.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "regex_match": [{"pattern": r"\d+$"}],  # Python's $: runs in Python's re
    "format_check": [{"format_type": "email"}, {"format_type": "date"}],
}


def _rows(metric: str) -> pl.DataFrame:
    cases = pl.read_parquet(DATA / "deterministic_cases.parquet")
    rows = cases.filter(pl.col("realistic") & (pl.col("metric") == metric))
    if rows.height < 50:  # a thin metric: borrow the realistic responses of every check
        rows = cases.filter(pl.col("realistic"))
    return rows.select("response", "reference")


def _repeat(frame: pl.DataFrame, n: int) -> pl.DataFrame:
    """``frame``'s rows repeated to ``n`` rows, in one chunk as a log read from Parquet would be
    (thousands of tiny chunks would time the per-chunk overhead instead)."""
    times = n // frame.height + 1
    return pl.concat([frame] * times).head(n).rechunk()


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        # language_detection keeps a process-wide cache of detected texts: time it cold.
        _language._detect_language.cache_clear()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def _expr(metric: str, options: dict[str, Any]) -> pl.Expr:
    function = getattr(ps, metric)
    if metric == "exact_match":
        return function("response", "reference", **options)
    return function("response", **options)


def _loop(metric: str, options: dict[str, Any], frame: pl.DataFrame) -> Callable[[], object]:
    oracle = oracle_checks.ORACLES[metric]
    pairs = list(zip(frame["response"].to_list(), frame["reference"].to_list(), strict=True))
    if metric == "exact_match":
        return lambda: [oracle(r, g, **options) for r, g in pairs]
    return lambda: [oracle(r, **options) for r, _ in pairs]


#: eval-ai-library's class per check (its arguments are polarscore's option names).
LIBRARY_CLASSES = {
    "contains": "ContainsMetric",
    "starts_with": "StartsWithMetric",
    "ends_with": "EndsWithMetric",
    "exact_match": "ExactMatchMetric",
    "non_empty": "NonEmptyMetric",
    "length_check": "LengthCheckMetric",
    "format_check": "FormatCheckMetric",
    "regex_match": "RegexMatchMetric",
    "json_schema": "JsonSchemaMetric",
    "language_detection": "LanguageDetectionMetric",
}

#: Run in the library's interpreter: read the rows, build the test cases, time the awaits.
_LIBRARY_RUNNER = """
import asyncio, contextlib, json, os, sys, time
from eval_lib import deterministic_metrics as dm
from eval_lib.testcases_schema import EvalTestCase
job = json.load(open(sys.argv[1]))
metric = getattr(dm, job["cls"])(**job["options"])
cases = [EvalTestCase(input="", actual_output=r, expected_output=g) for r, g in job["rows"]]
async def run():
    for case in cases:
        await metric.evaluate(case)
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    start = time.perf_counter()
    asyncio.run(run())
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds}))
"""


def _library_rows_per_s(
    python: str, metric: str, options: dict[str, Any], frame: pl.DataFrame
) -> float:
    """Rows per second of eval-ai-library's own metric on ``frame``, in its interpreter."""
    rows = [[r or "", g] for r, g in zip(frame["response"], frame["reference"], strict=True)]
    job = {"cls": LIBRARY_CLASSES[metric], "options": options, "rows": rows}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
        json.dump(job, handle)
        handle.flush()
        done = subprocess.run(
            [python, "-c", _LIBRARY_RUNNER, handle.name],
            check=True,
            capture_output=True,
            text=True,
        )
    seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
    return frame.height / seconds


def bench_checks(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    for metric, options in OPTIONS.items():
        if args.checks and metric not in args.checks:
            continue
        rows = _rows(metric)
        for opts in [options, *VARIANTS.get(metric, [])]:
            expr = _expr(metric, opts)
            big = _repeat(rows, args.rows)
            seconds = _best(lambda e=expr, b=big: b.select(e), args.repeat)
            loop_n = min(args.loop_rows, args.rows)
            if metric == "language_detection":
                loop_n = min(loop_n, 2_000)
            sample = big.head(loop_n)
            loop_seconds = _best(_loop(metric, opts, sample), 1)
            fast, slow = args.rows / seconds, loop_n / loop_seconds
            result = {
                "check": metric,
                "options": json.dumps(opts)[:60],
                "rows": args.rows,
                "rows_per_s": round(fast),
                "reference_rows_per_s": round(slow),
                "ratio": round(fast / slow, 1),
            }
            if args.eval_lib_python:
                library = _library_rows_per_s(args.eval_lib_python, metric, opts, sample)
                result["library_rows_per_s"] = round(library)
                result["x_library"] = round(fast / library, 1)
            if metric in ("json_schema", "language_detection"):
                distinct = rows.unique("response")
                d_seconds = _best(lambda e=expr, d=distinct: d.select(e), args.repeat)
                d_loop = _best(_loop(metric, opts, distinct), 1)
                result["distinct_rows"] = distinct.height
                result["distinct_ratio"] = round(d_loop / d_seconds, 1)
            results.append(result)
            print(json.dumps(result), flush=True)
    return results


def bench_extraction(args: argparse.Namespace) -> list[dict[str, Any]]:
    mmlu = _repeat(pl.read_parquet(DATA / "mmlu_pro_extraction.parquet"), args.rows)
    gsm = _repeat(pl.read_parquet(DATA / "gsm8k_openai_extraction.parquet"), args.rows)
    cases = {
        "extract_choice (MMLU-Pro)": (mmlu, ps.extract_choice("response")),
        "choice_match (MMLU-Pro)": (mmlu, ps.choice_match("response", "reference")),
        "extract_number flexible (GSM8K)": (gsm, ps.extract_number("response")),
        "extract_number answer_line (GSM8K)": (
            gsm,
            ps.extract_number("response", method="answer_line"),
        ),
        "numeric_match answer_line (GSM8K)": (
            gsm,
            ps.numeric_match("response", "reference", method="answer_line"),
        ),
    }
    results = []
    for name, (frame, expr) in cases.items():
        seconds = _best(lambda f=frame, e=expr: f.select(e), args.repeat)
        mib = frame["response"].str.len_bytes().sum() / 2**20
        result = {
            "extraction": name,
            "rows": args.rows,
            "rows_per_s": round(args.rows / seconds),
            "mib_per_s": round(mib / seconds),
        }
        results.append(result)
        print(json.dumps(result), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--loop-rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["checks", "extraction"], default=None)
    parser.add_argument("--checks", nargs="+", default=None, help="time only these checks")
    parser.add_argument(
        "--eval-lib-python",
        default=None,
        help="an interpreter with eval-ai-library 0.8.2 installed: also time the library itself",
    )
    args = parser.parse_args()
    if args.only != "extraction":
        bench_checks(args)
    if args.only != "checks":
        bench_extraction(args)


if __name__ == "__main__":
    main()
