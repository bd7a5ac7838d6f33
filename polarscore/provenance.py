"""How a scored log was scored, recorded in the Parquet file it was written to.

``polarscore score -o OUT.parquet`` stores one JSON value under the key ``"polarscore"`` of the
file's key-value metadata: the polarscore version, when the log was scored (UTC), each scorer with
its output column, every option (defaults included) and its pass threshold, the response and
reference columns, the question-id column when one is named, the input files with their row
counts, and when ``correct`` ran each input's task kind and its source (``task_kinds``).
:func:`read_provenance` reads it back (``polarscore summary``
shows it and uses its thresholds); :func:`scoring_record` builds the same record for a frame
scored from Python, to pass to ``write_parquet`` / ``sink_parquet`` as ``metadata``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Any

import polars as pl

from polarscore._validation import invalid_parameter
from polarscore.exceptions import PolarscoreError
from polarscore.frame import IntoScorers, IntoThresholds, ScorerRequest, resolve_scorers

#: The Parquet key-value metadata key holding the record (one JSON value).
PROVENANCE_KEY = "polarscore"

#: The version of the record's layout; it grows only by new keys.
RECORD_VERSION = 1


def _jsonable(value: Any) -> Any:
    """Return ``value`` as JSON can hold it; a column option is ``"@column"``."""
    if isinstance(value, pl.Expr):
        names = value.meta.root_names()
        if value.meta.is_column() and len(names) == 1:
            return "@" + names[0]
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(_jsonable(v) for v in value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def _scorer_entry(request: ScorerRequest) -> dict[str, Any]:
    options = {**request.spec.options, **request.options}
    return {
        "name": request.spec.name,
        "column": request.column,
        "options": {key: _jsonable(value) for key, value in options.items()},
        "threshold": request.threshold,
        "pass_column": request.pass_column,
    }


def utc_timestamp(moment: datetime | None = None) -> str:
    """Return ``moment`` (default: now) as an ISO 8601 UTC timestamp to the second.

    A naive ``datetime`` is refused: its time zone is unknown, so its UTC time is too.

    Examples
    --------
    >>> from datetime import datetime, timezone, timedelta
    >>> from polarscore.provenance import utc_timestamp
    >>> utc_timestamp(datetime(2026, 5, 9, 20, 30, 5, 123456, tzinfo=timezone(timedelta(hours=2))))
    '2026-05-09T18:30:05Z'
    """
    if moment is None:
        moment = datetime.now(UTC)
    if not isinstance(moment, datetime) or moment.utcoffset() is None:
        raise invalid_parameter(
            "scoring_record", "scored_at", "a time-zone-aware datetime (or None for now)", moment
        )
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def record_for_requests(
    requests: list[ScorerRequest],
    *,
    response: str,
    reference: str,
    references: str | None,
    inputs: Mapping[str, int | None] | None = None,
    question_id: str | None = None,
    scored_at: datetime | None = None,
    task_kinds: list[dict[str, str | None]] | None = None,
) -> dict[str, Any]:
    """Build the record for already resolved scorer requests (the command line's path).

    ``task_kinds`` lists each input's task kind (``{path, kind, source}``) when ``correct``
    ran; the record holds it under ``task_kinds``.
    """
    from polarscore import __version__

    if question_id is not None and not isinstance(question_id, str):
        raise invalid_parameter("scoring_record", "question_id", "a column name", question_id)
    return {
        "record_version": RECORD_VERSION,
        "polarscore_version": __version__,
        "scored_at": utc_timestamp(scored_at),
        "scorers": [_scorer_entry(r) for r in requests],
        "response": response,
        "reference": None if references is not None else reference,
        "references": references,
        "question_id": question_id,
        "inputs": [{"path": path, "rows": rows} for path, rows in (inputs or {}).items()],
        **({"task_kinds": task_kinds} if task_kinds is not None else {}),
    }


def scoring_record(
    *,
    response: str = "response",
    reference: str = "reference",
    references: str | None = None,
    scorers: IntoScorers | None = None,
    thresholds: IntoThresholds | None = None,
    prefix: str | None = None,
    inputs: Mapping[str, int | None] | None = None,
    question_id: str | None = None,
    scored_at: datetime | None = None,
) -> dict[str, Any]:
    """Return the provenance record of a :func:`polarscore.score_frame` call.

    Parameters
    ----------
    response, reference, references, scorers, thresholds, prefix
        The arguments given to :func:`polarscore.score_frame`.
    inputs
        Optional ``{path: row count}`` of the files that were scored (``None`` for an unknown
        count).
    question_id
        Optional column identifying the question each row answers; :func:`polarscore.report`
        then compares groups on the questions they share (its ``pair_on``) without being told.
    scored_at
        When the log was scored, a time-zone-aware ``datetime``; default: now.

    Returns
    -------
    dict
        A JSON-ready record: ``record_version``, ``polarscore_version``, ``scored_at`` (ISO 8601
        in UTC, to the second: ``"2026-05-09T18:30:05Z"``), ``scorers`` (each with ``name``,
        ``column``, every option with its default filled in, ``threshold`` and
        ``pass_column``), ``response``, ``reference`` (``None`` when ``references`` was used),
        ``references``, ``question_id`` (``None`` when not given) and ``inputs`` (a list of
        ``{path, rows}``). A per-row option ``pl.col("x")`` is written ``"@x"``.

    Raises
    ------
    InvalidParameterError
        For the same bad selections as :func:`polarscore.score_frame`.

    See Also
    --------
    read_provenance : read the record back from a Parquet file.

    Examples
    --------
    >>> import json
    >>> import polars as pl
    >>> import polarscore as ps
    >>> record = ps.scoring_record(scorers="answer_correctness", thresholds=0.8)
    >>> record["scorers"][0]["options"], record["scorers"][0]["threshold"]
    ({'match_mode': 'normalized'}, 0.8)
    >>> df = pl.DataFrame({"response": ["Paris"], "reference": ["paris"]})
    >>> metadata = {ps.PROVENANCE_KEY: json.dumps(record)}  # for write_parquet(metadata=...)
    """
    requests = resolve_scorers(scorers, thresholds=thresholds, prefix=prefix)
    return record_for_requests(
        requests,
        response=response,
        reference=reference,
        references=references,
        inputs=inputs,
        question_id=question_id,
        scored_at=scored_at,
    )


def read_provenance(path: str | PathLike[str]) -> dict[str, Any] | None:
    """Return the provenance record of a scored Parquet file, or ``None`` if it has none.

    Parameters
    ----------
    path
        A Parquet file written by ``polarscore score -o`` (or with a record from
        :func:`scoring_record` in its metadata).

    Returns
    -------
    dict or None
        The record, as described in :func:`scoring_record`.

    Raises
    ------
    PolarscoreError
        When the file's ``polarscore`` metadata is not a JSON object.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> import polars as pl
    >>> import polarscore as ps
    >>> scored = ps.score_frame(
    ...     pl.DataFrame({"response": ["Paris"], "reference": ["paris"]}),
    ...     scorers="answer_correctness",
    ... )
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scored.parquet"
    >>> record = ps.scoring_record(scorers="answer_correctness")
    >>> scored.write_parquet(path, metadata={ps.PROVENANCE_KEY: json.dumps(record)})
    >>> ps.read_provenance(path)["scorers"][0]["column"]
    'answer_correctness'
    """
    text = pl.read_parquet_metadata(Path(path)).get(PROVENANCE_KEY)
    if text is None:
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        record = None
    if not isinstance(record, dict):
        raise PolarscoreError(
            f"The {PROVENANCE_KEY!r} metadata of {str(path)!r} is not a polarscore record."
        )
    return record


def recorded_thresholds(record: Mapping[str, Any]) -> dict[str, float]:
    """Return ``{score column: pass threshold}`` for the scorers a record gives a threshold.

    Examples
    --------
    >>> import polarscore as ps
    >>> ps.recorded_thresholds(ps.scoring_record(thresholds={"squad_f1": 0.8}))
    {'squad_f1': 0.8}
    """
    return {
        entry["column"]: float(entry["threshold"])
        for entry in record.get("scorers", [])
        if isinstance(entry, Mapping) and entry.get("threshold") is not None
    }


__all__ = [
    "PROVENANCE_KEY",
    "RECORD_VERSION",
    "read_provenance",
    "record_for_requests",
    "recorded_thresholds",
    "scoring_record",
    "utc_timestamp",
]
