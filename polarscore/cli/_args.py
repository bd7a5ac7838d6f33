"""The command line's arguments: the parser, scorer options and thresholds read from text."""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore.exceptions import (
    InvalidParameterError,
)
from polarscore.registry import available_scorers, get_scorer
from polarscore.scores.correctness import MATCH_MODES
from polarscore.summary import summarize

_PROG = "polarscore"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Judge-free scoring of LLM answers against reference answers.",
        epilog=(
            "exit codes: 0 ok, 1 unexpected error, 2 bad usage or options, 3 column missing, of "
            "the wrong type or colliding, 4 input missing or unreadable, 5 output not writable "
            "(also a full disk mid-write: the previous output is kept), 6 compare "
            "--fail-if-worse: a named model is significantly worse, 130 interrupted, 143 terminated"
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_score_parser(sub)
    _add_summary_parser(sub)
    _add_report_parser(sub)
    _add_compare_parser(sub)
    sub.add_parser(
        "scorers",
        help="list the registered scorers and their options",
        description="List the registered scorers, their options and defaults.",
    )
    return parser


def _add_score_parser(sub: Any) -> None:
    score = sub.add_parser(
        "score",
        help="add score columns to eval logs (with -o), or print a per-mode summary",
        description=(
            "With -o OUTPUT: score eval logs (Parquet, JSONL or CSV tables, the logs of "
            "inspect-ai, lm-evaluation-harness, HELM, promptfoo, OpenAI evals and lighteval, "
            "globs, or directories of them) and write them with the score columns added, as "
            "Parquet or CSV, streaming with bounded memory. The output appears only when "
            "complete. Without -o: print rows, scored, inconclusive and mean score (and the pass "
            "rate with --threshold) per scorer, by default the headline verdict (correct, graded "
            "as the task's kind says) and answer correctness in every match mode; the bundled "
            "sample is scored against its alias list, beside its human verdicts."
        ),
        epilog=(
            "scorer options: --scorer NAME:key=value,key=value; a value @COLUMN reads the option "
            "per row from a column. Example: --scorer answer_correctness:match_mode=contains. "
            "List scorers and options with 'polarscore scorers'."
        ),
    )
    score.add_argument("inputs", nargs="*", metavar="INPUT", help="eval logs to score")
    score.add_argument(
        "--sample", action="store_true", help="score the bundled TriviaQA sample (3,000 rows)"
    )
    score.add_argument("-o", "--output", type=Path, help="write the scored log here")
    score.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default=None,
        help="output format (default: from the output suffix)",
    )
    score.add_argument(
        "--response", default="response", help="response column (default: %(default)s)"
    )
    score.add_argument(
        "--reference",
        default=None,
        help="reference column: text, or a list of acceptable answers (default: reference)",
    )
    score.add_argument(
        "--references",
        default=None,
        help="list column of acceptable answers (aliases); every scorer then reads it instead "
        "of --reference (default with --sample: references)",
    )
    score.add_argument(
        "--scorer",
        action="append",
        dest="scorers",
        metavar="NAME[:OPTIONS]",
        help="scorer to run, repeatable (default: answer_correctness without -o, the default "
        "scorers with -o; checks such as contains run only when named)",
    )
    score.add_argument(
        "--match-mode",
        choices=[*MATCH_MODES, "all"],
        default=None,
        help="match mode of the scorers that have one (without -o: default every mode)",
    )
    score.add_argument(
        "--mode-column",
        default=None,
        help="column giving a per-row match mode (overrides --match-mode)",
    )
    score.add_argument(
        "--threshold",
        action="append",
        default=None,
        metavar="[NAME=]T",
        help="add a boolean <score>_passed column (score >= T); NAME=T for one scorer",
    )
    score.add_argument("--prefix", default=None, help="prefix of the score column names")
    score.add_argument(
        "--task-kind",
        default=None,
        metavar="KIND",
        help="the task kind 'correct' grades by (multiple_choice, numeric, short_answer, "
        "free_form, none), overriding the logs' (default: read from each log, or told from a "
        "table's gold answers)",
    )
    score.add_argument(
        "--question-id",
        default=None,
        metavar="COLUMN",
        help="column identifying each row's question, recorded in the output so that "
        "'polarscore report' pairs groups on it",
    )
    score.add_argument(
        "--drop", nargs="+", default=[], metavar="COLUMN", help="input columns to leave out"
    )
    score.add_argument(
        "--every-row",
        action="store_true",
        help="score every row of a Parquet log, even where rows repeat (default: a slice "
        "whose rows mostly repeat is scored on its distinct rows; the scores are the same)",
    )
    score.add_argument(
        "--promptfoo-reference",
        action="append",
        default=None,
        metavar="var:NAME|assert:TYPE",
        help="where a promptfoo export's references come from: a test variable or the values "
        "of the test's assertions of a type; repeatable, the first found is used (default: "
        "var:expected, then assert:equals, similar, levenshtein, rouge-n, bleu, factuality)",
    )
    _add_max_entry_bytes(score)
    score.add_argument("--overwrite", action="store_true", help="replace an existing output")
    score.add_argument("-q", "--quiet", action="store_true", help="no progress bar or messages")


def _add_max_entry_bytes(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-entry-bytes``, to every command that reads eval logs."""
    from polarscore.logs._zip import MAX_ENTRY_BYTES

    parser.add_argument(
        "--max-entry-bytes",
        type=_entry_bytes,
        default=None,
        metavar="N",
        help="the most bytes one entry of an inspect-ai .eval archive may inflate to; an entry "
        f"declaring more is refused (default: {MAX_ENTRY_BYTES}, {MAX_ENTRY_BYTES >> 20} MiB; "
        "0: no limit)",
    )


def _entry_bytes(text: str) -> int:
    """``--max-entry-bytes``: a count of bytes, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes, got {text!r}")
    return int(text)


def _add_interval_arguments(parser: argparse.ArgumentParser, *, seed_help: str) -> None:
    """Add --confidence, --n-bootstrap and --seed, with :func:`polarscore.summarize`'s defaults."""
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(summarize).parameters.items()
    }
    parser.add_argument(
        "--confidence",
        type=float,
        default=defaults["confidence"],
        help="interval level (default: %(default)s)",
    )
    parser.add_argument(
        "--n-bootstrap",
        type=int,
        default=defaults["n_bootstrap"],
        help="bootstrap resamples (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=defaults["seed"], help=f"{seed_help} (default: %(default)s)"
    )


def _add_summary_parser(sub: Any) -> None:
    summary = sub.add_parser(
        "summary",
        help="summarise scored logs: counts, mean, pass rate, confidence intervals",
        description=(
            "Print, per score column (and group), the rows, scored and inconclusive cases, the "
            "mean score with a bootstrap interval and the pass rate with a Wilson interval."
        ),
    )
    summary.add_argument("inputs", nargs="+", metavar="SCORED", help="scored logs")
    summary.add_argument(
        "--scores",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="score columns (default: float columns named after a scorer)",
    )
    summary.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COLUMN",
        help="group by, repeatable (default: model, when the log has it)",
    )
    summary.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="pass threshold of every score column (default: the threshold each column was "
        f"scored with, as recorded in the file by 'polarscore score', else {DEFAULT_THRESHOLD})",
    )
    summary.add_argument(
        "--expected-behavior", default=None, metavar="COLUMN", help="column of good/bad labels"
    )
    _add_interval_arguments(summary, seed_help="bootstrap seed")
    _add_cluster_arguments(summary)
    _add_max_entry_bytes(summary)
    summary.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _add_report_parser(sub: Any) -> None:
    report = sub.add_parser(
        "report",
        help="write one self-contained HTML page about scored logs",
        description=(
            "Write an HTML report of scored logs: pass rates and mean scores with intervals per "
            "group, score distributions, paired differences (--pair-on), agreement with a "
            "verdict column (--verdict), a sample of the rows behind the numbers, and how the "
            "log was scored. One file, no script, nothing loaded from the network; aggregated "
            "lazily, so big Parquet logs stay within bounded memory. Written atomically."
        ),
    )
    report.add_argument("inputs", nargs="+", metavar="SCORED", help="scored logs")
    report.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    report.add_argument(
        "--scores",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="score columns (default: those recorded in the log, else float columns named "
        "after a scorer)",
    )
    report.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COLUMN",
        help="group by, repeatable (default: model, when the log has it)",
    )
    report.add_argument(
        "--verdict", default=None, metavar="COLUMN", help="column of human or reference verdicts"
    )
    report.add_argument(
        "--pair-on",
        action="append",
        default=None,
        metavar="COLUMN",
        help="column identifying a question, repeatable: compare groups on shared questions",
    )
    report.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="pass threshold of every score column (default: as recorded in the log, else "
        f"{DEFAULT_THRESHOLD})",
    )
    report.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="rows shown per score column and kind of row (default: 5, at most 200)",
    )
    report.add_argument("--response", default=None, help="response column shown in the rows")
    report.add_argument("--reference", default=None, help="reference column shown in the rows")
    report.add_argument(
        "--question", default=None, help="question column shown in the rows (default: input)"
    )
    report.add_argument("--title", default=None, help="title of the page")
    _add_interval_arguments(report, seed_help="seed of bootstraps and sample")
    _add_max_entry_bytes(report)
    report.add_argument("--overwrite", action="store_true", help="replace an existing output")
    report.add_argument("-q", "--quiet", action="store_true", help="no message on success")


def _add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``summary``'s --cluster and --epoch-reducer (issue 43: clustered error bars)."""
    parser.add_argument(
        "--cluster",
        action="append",
        default=None,
        metavar="COLUMN",
        help="column grouping rows that are not independent (a question's epochs, a passage), "
        "repeatable: clustered standard errors and a bootstrap over clusters (default: an eval "
        "log with more than one epoch is clustered by task and sample_id; 'none' for no "
        "clusters)",
    )
    parser.add_argument(
        "--epoch-reducer",
        default=None,
        metavar="REDUCER",
        help="reduce each cluster's scores to one first, as inspect-ai reduces epochs: mean, "
        "max, mode or at_least_K (default: none, every row counts)",
    )


def _add_compare_parser(sub: Any) -> None:
    """Add ``polarscore compare`` (issue 43: paired comparisons and a CI gate)."""
    compare = sub.add_parser(
        "compare",
        help="compare models on the questions they share: paired differences, tests, power",
        description=(
            "Compare each two groups (models) on the questions both answered: each mean, the "
            "mean difference with its paired (or clustered) standard error and interval, a "
            "p-value (McNemar's exact test for 0/1 scores, else a paired t-test), Holm's "
            "correction with more than two groups, and the smallest difference the questions "
            "can detect. With --fail-if-worse MODEL, exit 6 when MODEL is significantly worse "
            "than the baseline (--baseline, or the other group when there are two)."
        ),
    )
    compare.add_argument("inputs", nargs="+", metavar="LOG", help="scored logs or eval logs")
    compare.add_argument(
        "--scores",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="score columns (default: float columns named after a scorer, then the log's own "
        "framework_* verdicts)",
    )
    compare.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COLUMN",
        help="column naming the groups to compare, repeatable (default: model)",
    )
    compare.add_argument(
        "--pair-on",
        action="append",
        default=None,
        metavar="COLUMN",
        help="column identifying a question, repeatable (default: sample_id)",
    )
    compare.add_argument(
        "--cluster", default=None, metavar="COLUMN", help="column grouping the questions"
    )
    compare.add_argument(
        "--epoch-reducer",
        default=None,
        metavar="REDUCER",
        help="reduce a group's repeated rows of a question first: mean, max, mode or "
        "at_least_K (default: mean when the log has more than one epoch, else none)",
    )
    compare.add_argument(
        "--baseline", default=None, metavar="GROUP", help="compare every group with this one"
    )
    compare.add_argument(
        "--fail-if-worse",
        action="append",
        default=[],
        metavar="GROUP",
        help="exit 6 when GROUP is significantly worse than the baseline on any score, repeatable",
    )
    compare.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help="pass threshold of at_least_K (default: %(default)s)",
    )
    compare.add_argument(
        "--confidence", type=float, default=0.95, help="interval level (default: %(default)s)"
    )
    compare.add_argument(
        "--power",
        type=float,
        default=0.8,
        help="power of the detectable difference (default: %(default)s)",
    )
    _add_max_entry_bytes(compare)
    compare.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _split_options(text: str) -> list[str]:
    """Split ``a=1,b=[1,2]`` on the commas that are not inside brackets or quotes."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current: list[str] = []
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


#: How a boolean option may be written on the command line.
_BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


#: How None (an option's "no bound", as ``max_work=None``) may be written on the command line.
_NONE = frozenset({"none", "null"})


def _parse_bool(text: str) -> bool:
    return _BOOLEANS[text.lower()]


def _parse_value(scorer: str, option: str, text: str, default: Any) -> Any:
    """Read an option value from text, guided by the type of its default."""
    if text.startswith("@") and len(text) > 1:
        return pl.col(text[1:])
    if isinstance(default, str):
        return text
    if isinstance(default, bool | int | float) and text.lower() in _NONE:
        return None  # the scorer says whether the option takes None (max_work=None does)
    if isinstance(default, bool | int | float):
        parse: Callable[[str], Any] = _parse_bool if isinstance(default, bool) else type(default)
        try:
            return parse(text)
        except (KeyError, ValueError):
            raise InvalidParameterError(
                f"The {option!r} option of {scorer} takes a {type(default).__name__}; got {text!r}."
            ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _scorer_name(name: str, flag: str) -> str:
    if name not in available_scorers():
        raise InvalidParameterError(
            f"{flag} names no registered scorer: {name!r}. The scorers: "
            f"{', '.join(available_scorers())} (see 'polarscore scorers')."
        )
    return name


def parse_scorer(text: str) -> tuple[str, dict[str, Any]]:
    """Parse ``NAME`` or ``NAME:key=value,key=value`` against the registry.

    Examples
    --------
    >>> from polarscore.cli import parse_scorer
    >>> parse_scorer("answer_correctness:match_mode=contains")
    ('answer_correctness', {'match_mode': 'contains'})
    """
    name, _, rest = text.partition(":")
    spec = get_scorer(_scorer_name(name.strip(), "--scorer"))
    options: dict[str, Any] = {}
    for item in _split_options(rest):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise InvalidParameterError(
                f"The scorer option {item!r} of {spec.name} must be written key=value."
            )
        if key not in spec.options:
            allowed = ", ".join(repr(o) for o in spec.options) or "none"
            raise InvalidParameterError(
                f"The scorer {spec.name} has no option {key!r}. Its options: {allowed}."
            )
        options[key] = _parse_value(spec.name, key, value.strip(), spec.options[key])
    return spec.name, options


def _parse_thresholds(items: Sequence[str] | None) -> float | dict[str, float] | None:
    if not items:
        return None
    single: float | None = None
    named: dict[str, float] = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise InvalidParameterError(
                f"The --threshold value must be a number or NAME=number; got {item!r}."
            ) from None
        if sep:
            named[_scorer_name(name, "--threshold NAME=T")] = number
        else:
            single = number
    if single is not None and named:
        raise InvalidParameterError(
            "Give --threshold either once as a number for every scorer, or as NAME=number."
        )
    return single if single is not None else named
