"""One self-contained HTML page from a scored eval log: :func:`report` and :func:`write_report`.

The page shows, per group (model by default): the pass rate with its Wilson interval and the mean
score with its bootstrap interval, the score distributions, paired differences between groups
answering the same questions, agreement with a verdict column (Cohen's kappa, confusion matrix,
threshold sweep), a seeded sample of the rows behind the numbers, and the provenance record of
the log. All aggregation is lazy Polars (:mod:`polarscore.reporting._aggregate`); the page
(:mod:`polarscore.reporting._render`) holds aggregates and a bounded sample, inline CSS and inline
SVG, no script and nothing fetched from the network. Every string from the log is escaped.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import polars as pl

from polarscore import _atomic, _inputs
from polarscore._defaults import DEFAULT_THRESHOLD
from polarscore._validation import check_budget, check_number, invalid_parameter
from polarscore.exceptions import ColumnNotFoundError, ColumnTypeError, PolarscoreError
from polarscore.logs._zip import MAX_ENTRY_BYTES
from polarscore.provenance import read_provenance, recorded_thresholds
from polarscore.reporting._aggregate import ReportData, aggregate
from polarscore.reporting._framework import framework_columns
from polarscore.reporting._render import render
from polarscore.summary import _default_scores, check_score_types

_FUNCTION = "report"

#: Rows shown per score column and kind of row (failures, disagreements...), by default.
DEFAULT_SAMPLE = 5
#: The most rows a page shows per score column and kind.
MAX_SAMPLE = 200

Source = pl.DataFrame | pl.LazyFrame | str | PathLike[str] | Sequence[str | PathLike[str]]


def _names(value: str | Sequence[str] | None, parameter: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    raise invalid_parameter(_FUNCTION, parameter, "a column name or a list of column names", value)


def _load(
    source: Source, max_entry_bytes: int | None
) -> tuple[pl.LazyFrame, str, dict[str, Any] | None, dict[str, Any]]:
    """Return the frame, a label for it, its provenance record and facts about its file."""
    limit = check_budget(max_entry_bytes, function=_FUNCTION, parameter="max_entry_bytes")
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        return source.lazy(), "a Polars frame", None, {}
    if isinstance(source, str | PathLike):
        items: list[str | PathLike[str]] = [source]
    elif isinstance(source, Sequence) and all(isinstance(s, str | PathLike) for s in source):
        items = list(source)
    else:
        raise invalid_parameter(
            _FUNCTION, "source", "a DataFrame, a LazyFrame, or the path(s) of scored logs", source
        )
    if not items:
        raise invalid_parameter(_FUNCTION, "source", "at least one path", source)
    files, frame, _ = _inputs.open_inputs(
        [str(Path(i)) for i in items], max_entry_bytes=0 if limit is None else limit
    )
    record = None
    for file in files:
        if _inputs.is_parquet_table(file):
            record = read_provenance(file)
            if record is not None:
                break
    label = str(files[0]) if len(files) == 1 else f"{files[0]} and {len(files) - 1} more files"
    info: dict[str, Any] = {}
    if len(files) == 1:
        stat = files[0].stat()
        written = dt.datetime.fromtimestamp(stat.st_mtime, tz=dt.UTC)
        info["file"] = files[0].name
        info["file written"] = written.strftime("%Y-%m-%d %H:%M UTC")
        info["size"] = f"{stat.st_size / 2**20:,.1f} MiB"
    return frame, label, record, info


def _check_columns(schema: pl.Schema, names: Sequence[str], role: str, parameter: str) -> None:
    for name in names:
        if name not in schema:
            raise ColumnNotFoundError.from_missing(
                name, schema.names(), role=role, parameter=parameter
            )


def _pick(
    schema: pl.Schema, given: str | None, candidates: Sequence[str | None], parameter: str
) -> str | None:
    if given is not None:
        if not isinstance(given, str):
            raise invalid_parameter(_FUNCTION, parameter, "a column name", given)
        _check_columns(schema, [given], parameter, parameter)
        return given
    return next((c for c in candidates if c is not None and c in schema), None)


def _thresholds(
    scores: Sequence[str],
    threshold: float | Mapping[str, float] | None,
    record: Mapping[str, Any] | None,
) -> dict[str, float]:
    if threshold is None:
        recorded = recorded_thresholds(record) if record is not None else {}
        return {s: recorded.get(s, DEFAULT_THRESHOLD) for s in scores}
    if isinstance(threshold, Mapping):
        unknown = [k for k in threshold if k not in scores]
        if unknown:
            raise invalid_parameter(
                _FUNCTION, "threshold", f"keyed by the score columns {list(scores)}", unknown[0]
            )
        recorded = recorded_thresholds(record) if record is not None else {}
        values = {s: threshold.get(s, recorded.get(s, DEFAULT_THRESHOLD)) for s in scores}
    else:
        values = dict.fromkeys(scores, threshold)
    return {
        s: check_number(v, function=_FUNCTION, parameter="threshold", minimum=0, maximum=1)
        for s, v in values.items()
    }


def _details_exprs(
    record: Mapping[str, Any] | None,
    schema: pl.Schema,
    scores: Sequence[str],
    response: str | None,
    reference: str | None,
) -> dict[str, pl.Expr]:
    """Reason expressions (``*_details``) of the recorded scorers, for the sampled rows only."""
    import polarscore
    from polarscore.frame import _reference_expr
    from polarscore.registry import available_scorers, get_scorer

    if record is None or response is None:
        return {}
    exprs: dict[str, pl.Expr] = {}
    for entry in record.get("scorers", []):
        if not isinstance(entry, Mapping) or entry.get("column") not in scores:
            continue
        name = entry.get("name")
        function = getattr(polarscore, f"{name}_details", None)
        if name not in available_scorers() or function is None:
            continue
        spec = get_scorer(str(name))
        options = {
            k: pl.col(v[1:]) if isinstance(v, str) and v.startswith("@") else v
            for k, v in dict(entry.get("options", {})).items()
        }
        options = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
        try:
            if spec.reference_kind == "none":
                expr = function(pl.col(response), **options)
            else:
                references = record.get("references")
                ref = _reference_expr(
                    spec,
                    schema,
                    reference or "reference",
                    references if isinstance(references, str) else None,
                    function="report",
                )
                expr = function(pl.col(response), ref, **options)
        except (PolarscoreError, TypeError, pl.exceptions.PolarsError):
            continue
        exprs[str(entry["column"])] = expr
    return exprs


def build_report_data(
    source: Source,
    *,
    scores: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    verdict: str | None = None,
    pair_on: str | Sequence[str] | None = None,
    threshold: float | Mapping[str, float] | None = None,
    response: str | None = None,
    reference: str | None = None,
    question: str | None = None,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    title: str | None = None,
    framework: str | Sequence[str] | None = None,
    max_entry_bytes: int | None = MAX_ENTRY_BYTES,
) -> ReportData:
    """Check the arguments of :func:`report` and run its queries; see :func:`report`."""
    lazy, label, record, info = _load(source, max_entry_bytes)
    schema = lazy.collect_schema()
    score_list = _score_list(schema, scores, record)
    by_list = _by_list(schema, by, score_list)
    if verdict is not None:
        _check_verdict(schema, verdict)
    pair_list = _pair_list(schema, pair_on, record, [*by_list, *score_list])
    thresholds = _thresholds(score_list, threshold, record)
    _check_options(
        sample=sample, seed=seed, confidence=confidence, n_bootstrap=n_bootstrap, title=title
    )
    columns = _sample_columns(schema, record, response, reference, question)
    details = _details_exprs(record, schema, score_list, columns["response"], columns["reference"])
    frameworks = _names(framework, "framework")
    if frameworks is None:
        frameworks = [c for c in framework_columns(schema) if c not in score_list]
    _check_columns(schema, frameworks, "framework", "framework")
    check_score_types(schema, frameworks, function=_FUNCTION)
    return aggregate(
        lazy,
        title=title
        or f"Scored eval log: {Path(label).name if isinstance(source, str | PathLike) else label}",
        source=label,
        scores=score_list,
        by=by_list,
        thresholds=thresholds,
        verdict=verdict,
        pair_on=pair_list,
        sample_columns=columns,
        extra_columns=[],
        per_kind=sample,
        details=details,
        confidence=float(confidence),
        n_bootstrap=n_bootstrap,
        seed=seed,
        provenance=record,
        file_info=info,
        frameworks=frameworks,
    )


def _score_list(
    schema: pl.Schema, scores: str | Sequence[str] | None, record: Mapping[str, Any] | None
) -> list[str]:
    """Return the score columns: those given, else those the log records, else the default ones."""
    recorded = [
        e.get("column") for e in (record or {}).get("scorers", []) if isinstance(e, Mapping)
    ]
    score_list = _names(scores, "scores")
    if score_list is None:
        score_list = [c for c in recorded if isinstance(c, str) and c in schema]
        score_list = [c for c in score_list if schema[c].is_numeric()] or _default_scores(schema)
    if not score_list:
        raise invalid_parameter(
            _FUNCTION,
            "scores",
            "one or more score columns (none was given, the log records none, and no float "
            f"column is named after a registered scorer; columns: {schema.names()})",
            scores,
        )
    _check_columns(schema, score_list, "score", "scores")
    check_score_types(schema, score_list, function=_FUNCTION)
    return score_list


def _by_list(
    schema: pl.Schema, by: str | Sequence[str] | None, score_list: Sequence[str]
) -> list[str]:
    """Return the grouping columns: those given, else ``model`` when the log has one."""
    by_list = _names(by, "by")
    if by_list is None:
        by_list = ["model"] if "model" in schema and "model" not in score_list else []
    _check_columns(schema, by_list, "by", "by")
    for name in by_list:
        if schema[name].is_nested():
            raise ColumnTypeError(
                f"The by column {name!r} holds {schema[name]}; group by a column of plain values."
            )
    if set(by_list) & set(score_list):
        raise invalid_parameter(_FUNCTION, "by", "columns other than the score columns", by_list)
    return by_list


def _check_verdict(schema: pl.Schema, verdict: Any) -> None:
    if not isinstance(verdict, str):
        raise invalid_parameter(_FUNCTION, "verdict", "a column name", verdict)
    _check_columns(schema, [verdict], "verdict", "verdict")
    dtype = schema[verdict]
    if not (dtype == pl.Boolean or dtype.is_numeric() or dtype == pl.Null):
        raise ColumnTypeError(
            f"The verdict column {verdict!r} must hold true/false (Boolean) or 1/0; it is "
            f"{dtype}.\nHint: convert it first, e.g. pl.col({verdict!r}) == 'correct'."
        )


def _pair_list(
    schema: pl.Schema,
    pair_on: str | Sequence[str] | None,
    record: Mapping[str, Any] | None,
    taken: Sequence[str],
) -> list[str]:
    """Return the pairing columns: those given, else the question-id column the log records."""
    pair_list = _names(pair_on, "pair_on")
    if pair_list is None:
        recorded_pair = (record or {}).get("question_id")
        pair_list = (
            [recorded_pair] if isinstance(recorded_pair, str) and recorded_pair in schema else []
        )
    _check_columns(schema, pair_list, "pair_on", "pair_on")
    if set(pair_list) & set(taken):
        raise invalid_parameter(
            _FUNCTION, "pair_on", "columns other than the by and score columns", pair_list
        )
    return pair_list


def _check_options(
    *, sample: Any, seed: Any, confidence: Any, n_bootstrap: Any, title: Any
) -> None:
    if isinstance(sample, bool) or not isinstance(sample, int) or not 0 <= sample <= MAX_SAMPLE:
        raise invalid_parameter(_FUNCTION, "sample", f"an integer in [0, {MAX_SAMPLE}]", sample)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise invalid_parameter(_FUNCTION, "seed", "an integer >= 0", seed)
    if not isinstance(confidence, float | int) or not 0.0 < confidence < 1.0:
        raise invalid_parameter(_FUNCTION, "confidence", "a number in (0, 1)", confidence)
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise invalid_parameter(_FUNCTION, "n_bootstrap", "an integer >= 0", n_bootstrap)
    if title is not None and not isinstance(title, str):
        raise invalid_parameter(_FUNCTION, "title", "a string", title)


def _sample_columns(
    schema: pl.Schema,
    record: Mapping[str, Any] | None,
    response: str | None,
    reference: str | None,
    question: str | None,
) -> dict[str, str | None]:
    """Return the columns shown beside the sampled rows: given, recorded, or usual names."""
    references = (record or {}).get("references")
    recorded_reference = references if references is not None else (record or {}).get("reference")
    return {
        "response": _pick(
            schema, response, [(record or {}).get("response"), "response"], "response"
        ),
        "reference": _pick(
            schema, reference, [recorded_reference, "references", "reference"], "reference"
        ),
        "question": _pick(schema, question, ["input", "question", "prompt"], "question"),
        "id": "id" if "id" in schema else "sample_id" if "sample_id" in schema else None,
    }


def report(
    source: Source,
    *,
    scores: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    verdict: str | None = None,
    pair_on: str | Sequence[str] | None = None,
    threshold: float | Mapping[str, float] | None = None,
    response: str | None = None,
    reference: str | None = None,
    question: str | None = None,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    title: str | None = None,
    framework: str | Sequence[str] | None = None,
    max_entry_bytes: int | None = MAX_ENTRY_BYTES,
) -> str:
    r"""Return a self-contained HTML report of a scored eval log.

    Parameters
    ----------
    source
        A ``DataFrame`` or ``LazyFrame`` holding score columns, or the path (or paths, globs,
        folders) of scored logs; a Parquet log written by ``polarscore score -o`` brings its
        provenance record (scorers, options, thresholds), which the page shows and uses.
    scores
        The score columns; default: those the record lists, else every float column named after
        a registered scorer.
    by
        Grouping column(s); default ``"model"`` when the log has it, else none. ``[]`` for none.
    verdict
        Optional column of human or reference verdicts (``Boolean``, or numbers where non-zero is
        true): adds agreement, Cohen's kappa, a confusion matrix per score column and a threshold
        sweep, and the sampled rows become the disagreements.
    pair_on
        Optional column(s) identifying a question: groups are then compared on the questions
        they share (bootstrap interval of the paired mean difference, McNemar's test of the pass
        rates). Default: the record's ``question_id`` column when it has one
        (``polarscore score --question-id``, or ``scoring_record(question_id=...)``).
    threshold
        Pass threshold, one for all or ``{score column: threshold}``; default: the thresholds
        recorded in the log, else 0.5.
    response, reference, question
        Columns shown beside the sampled rows; default: the record's, else ``response``,
        ``references`` / ``reference``, and ``input`` / ``question`` / ``prompt`` when present.
    sample
        Rows shown per score column and kind (failures and inconclusive rows, or the two kinds
        of disagreement with the verdict), at most 200; picked by a seeded hash of the row
        number, so the same log and seed show the same rows.
    seed
        Seed of the bootstraps and of the row sample.
    confidence
        Level of every interval, in (0, 1).
    n_bootstrap
        Bootstrap resamples (0: no interval for the means).
    title
        The page's title.
    framework
        Column(s) of the eval framework's own verdicts to compare with the scores (rows where
        polarscore passes and the framework says wrong, and the other way round, with examples);
        default: every ``framework_*`` column of a log read by :func:`polarscore.scan_log`.
        ``[]`` for none.
    max_entry_bytes
        For eval logs given as paths: the most bytes one entry of an inspect-ai ``.eval``
        archive may inflate to, as for :func:`polarscore.scan_log` (default 256 MiB; None: no
        limit).

    Returns
    -------
    str
        The HTML page: inline CSS and SVG, no script, nothing loaded from the network. Text from
        the log is escaped (``html.escape``), control characters are shown as ``\xNN`` and
        long cells are cut with a visible marker.

    Raises
    ------
    ColumnNotFoundError
        A named column is not in the log.
    ColumnTypeError
        A score column is not numeric, or the verdict is not Boolean or numeric.
    InvalidParameterError
        For a bad option.

    Notes
    -----
    Aggregation is lazy and streams: the page holds one row per group and score column,
    histograms, binned distributions for the bootstraps and the sweep, and the sampled rows.
    Intervals reuse :func:`polarscore.summarize`'s (Wilson for pass rates, a bootstrap over
    the binned empirical distribution for means); paired differences bootstrap the per-question
    differences the same way.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> scored = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "b", "b"],
    ...         "response": ["Paris", "<b>Rome</b>", "Paris", "Lyon"],
    ...         "reference": ["Paris", "Rome", "Paris", "Rome"],
    ...         "answer_correctness": [1.0, 0.0, 1.0, 0.0],
    ...     }
    ... )
    >>> page = ps.report(scored, n_bootstrap=200)
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;Rome&lt;/b&gt;" in page, "<b>Rome" in page
    (True, True, False)
    """
    data = build_report_data(
        source,
        scores=scores,
        by=by,
        verdict=verdict,
        pair_on=pair_on,
        threshold=threshold,
        response=response,
        reference=reference,
        question=question,
        sample=sample,
        seed=seed,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        title=title,
        framework=framework,
        max_entry_bytes=max_entry_bytes,
    )
    from polarscore import __version__

    return render(data, version=__version__)


def write_report(
    source: Source,
    path: str | PathLike[str],
    *,
    overwrite: bool = False,
    **options: Any,
) -> Path:
    """Write :func:`report`'s page to ``path`` atomically; return the path.

    The page is written to a temporary file that replaces ``path`` only once complete, so a
    failed or interrupted run leaves no half-written page (and an existing one unchanged).

    Parameters
    ----------
    source
        As for :func:`report`.
    path
        The HTML file to write.
    overwrite
        Replace ``path`` if it exists (otherwise an existing file is an error).
    **options
        The keyword arguments of :func:`report`.

    Raises
    ------
    OutputFileError
        ``path`` exists (without ``overwrite``), is a folder, or its folder is missing or not
        writable; or the disk is full.
    """
    target = Path(path)
    _atomic.check_target(target, overwrite=overwrite)
    page = report(source, **options)
    try:
        with (
            _atomic.atomic_target(target) as temporary,
            open(temporary, "w", encoding="utf-8") as out,
        ):
            out.write(page)
            out.flush()
            os.fsync(out.fileno())
    except OSError as error:
        full = _atomic.out_of_room(target, error)
        if full is not None:
            raise full from error
        raise
    return target


__all__ = ["DEFAULT_SAMPLE", "report", "write_report"]
