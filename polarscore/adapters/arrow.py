"""The engine-neutral Arrow core: score a stream of Arrow record batches.

Spark (``mapInArrow``), Ray Data (``map_batches(batch_format="pyarrow")``), Dask and any other
engine that hands Python a stream of :class:`pyarrow.RecordBatch` use this one core. Each batch
comes back with its input columns passed through untouched (the very same Arrow arrays) and one
column appended per requested scorer, cast to the Arrow type the scorer registry declares for it.
Every scorer is a row-wise expression, so how the rows are cut into batches never changes a
result.

Everything that can be checked without data is checked when an :class:`ArrowScorer` is built
(on the driver, for a distributed engine): the columns exist and hold text, the scorers and
their options exist, the option values are valid, the expressions resolve on the input schema and
no output name collides with an input column.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from polarscore._typing import OnError, ScorerSelection
from polarscore._validation import check_choice, invalid_parameter
from polarscore.exceptions import BatchScoringError, ColumnNotFoundError, InvalidParameterError
from polarscore.frame import ScorerRequest, resolve_scorers, score_exprs, select_scores
from polarscore.registry import ScorerSpec, get_scorer

ON_ERROR_CHOICES: tuple[str, ...] = ("raise", "null")

_LOG = logging.getLogger("polarscore")


@dataclass(frozen=True)
class ScoreColumn:
    """One output column: which scorer makes it, with which options, and its Arrow type.

    Attributes
    ----------
    name
        The output column name (the prefix followed by the scorer's name).
    scorer
        The registry name of the scorer.
    options
        The keyword options the scorer is called with (only those the caller gave).
    arrow_type
        The Arrow type the column is cast to, from :attr:`ScorerSpec.arrow_type`.
    """

    name: str
    scorer: str
    options: Mapping[str, Any]
    arrow_type: pa.DataType

    @property
    def spec(self) -> ScorerSpec:
        """The registry entry of the scorer."""
        return get_scorer(self.scorer)

    @property
    def request(self) -> ScorerRequest:
        """The frame API's request for this column (:func:`polarscore.frame.score_exprs`)."""
        return ScorerRequest(spec=self.spec, options=self.options, column=self.name)


def _empty_table(schema: pa.Schema) -> pa.Table:
    """Return a table of no rows of ``schema``.

    Built from ``pa.nulls``, not ``schema.empty_table()``: pyarrow 16 (the oldest supported) has
    no converter that builds an empty list of dictionaries from its type.
    """
    return pa.table([pa.nulls(0, field.type) for field in schema], schema=schema)


def _polars_schema(schema: pa.Schema) -> pl.Schema:
    """Return the Polars schema of ``schema``'s fields, so the frame API's checks apply.

    Arrow's ``large_string`` and ``string_view`` become ``String``, its dictionaries of strings
    ``Categorical`` (``Enum`` when Polars wrote them); a field Polars cannot read is ``Unknown``
    (never text, so an error names it if a scorer reads it).
    """
    dtypes: dict[str, pl.DataType] = {}
    for field in schema:
        try:
            frame = pl.from_arrow(_empty_table(pa.schema([field])))
        except Exception:
            dtypes[field.name] = pl.Unknown()
            continue
        assert isinstance(frame, pl.DataFrame)
        dtypes[field.name] = frame.schema[field.name]
    return pl.Schema(dtypes)


def _check_no_series(requests: Sequence[ScorerRequest], *, function: str) -> None:
    """Refuse a Series option: every batch would cut it differently."""
    for request in requests:
        for option, value in request.options.items():
            if isinstance(value, pl.Series):
                raise invalid_parameter(
                    function,
                    f"scorers[{request.spec.name!r}][{option!r}]",
                    "a literal or an expression over the input columns (a Series would be cut "
                    "differently by every batch: add it as a column instead)",
                    "a polars Series",
                )


class ArrowScorer:
    """Score Arrow record batches with registered scorers; built once, applied to every batch.

    Parameters
    ----------
    schema
        The Arrow schema of the input batches.
    response
        The column holding the responses (text).
    reference
        The column holding the reference answers: text, or a list of strings for scorers whose
        registry entry takes a list. ``None`` (the default) when only checks of the response
        alone run (``contains``, ``regex_match``, ...: registry ``reference_kind="none"``).
    scorers
        Which scorers to run: a name, a sequence of names, or a mapping
        ``{name: {option: value}}`` (``None`` for the defaults). See
        :func:`polarscore.available_scorers`.
    prefix
        Put before each scorer's name to make its output column name.
    on_error
        ``"raise"`` (default): a batch that cannot be scored raises
        :class:`BatchScoringError`, naming the batch and the original error. ``"null"``: the
        failing scorer's column is null on that batch (logged as a warning on logger
        ``polarscore``), and the other batches and scorers are kept.
    function
        The public function named in error messages, for wrappers such as
        :func:`polarscore.adapters.spark.score_spark`.

    Raises
    ------
    ColumnNotFoundError, ColumnTypeError
        A column is missing, or does not hold text.
    ColumnCollisionError
        An output name is already a column (pass another ``prefix``).
    InvalidParameterError
        An unknown scorer, option or ``on_error``, or a bad option value.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from polarscore.adapters import ArrowScorer
    >>> table = pa.table({"response": ["Paris.", "Lyon"], "reference": ["paris", "Paris"]})
    >>> scorer = ArrowScorer(
    ...     table.schema, response="response", reference="reference", scorers="answer_correctness"
    ... )
    >>> scorer.schema.field("answer_correctness")
    pyarrow.Field<answer_correctness: double>
    >>> scorer.score_batch(table.to_batches()[0]).column("answer_correctness").to_pylist()
    [1.0, 0.0]
    """

    def __init__(
        self,
        schema: pa.Schema,
        *,
        response: str,
        reference: str | None = None,
        scorers: ScorerSelection,
        prefix: str = "",
        on_error: OnError = "raise",
        function: str = "ArrowScorer",
    ) -> None:
        if not isinstance(schema, pa.Schema):
            raise invalid_parameter(function, "schema", "a pyarrow.Schema", schema)
        if not isinstance(prefix, str):
            raise invalid_parameter(function, "prefix", "a string", prefix)
        self.on_error: OnError = check_choice(  # type: ignore[assignment]
            on_error, function=function, parameter="on_error", allowed=ON_ERROR_CHOICES
        )
        requests = resolve_scorers(scorers, prefix=prefix, function=function)
        _check_no_series(requests, function=function)
        self.response = response
        self.reference = reference
        self.input_schema = schema
        self.function = function
        self._polars_input = _polars_schema(schema)
        self.columns: tuple[ScoreColumn, ...] = tuple(
            ScoreColumn(r.column, r.spec.name, r.options, r.spec.arrow_type) for r in requests
        )
        # Build every expression now (the frame API checks the columns, their types, the
        # output names and the option values), then resolve them on an empty frame of the
        # input schema, so a missing column or a type error in an option expression raises
        # here too, before any data is read.
        exprs = self._exprs(self.columns)
        needed = {response} if reference is None else {response, reference}
        for expr in exprs:
            needed.update(expr.meta.root_names())
        missing = sorted(needed - set(schema.names))
        if missing:
            raise ColumnNotFoundError.from_missing(missing[0], schema.names)
        self._needed = [name for name in schema.names if name in needed]
        empty = pl.from_arrow(self._project(_empty_table(schema)))
        assert isinstance(empty, pl.DataFrame)
        try:
            empty.select(exprs)
        except pl.exceptions.PolarsError as error:
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise InvalidParameterError(
                f"The scorers of {function} cannot be computed on these columns: {message}"
            ) from error

    def _exprs(self, columns: Sequence[ScoreColumn]) -> list[pl.Expr]:
        """Build the columns' expressions with the frame API, on the input schema."""
        return score_exprs(
            self._polars_input,
            [column.request for column in columns],
            response=self.response,
            reference=self.reference,
            function=self.function,
        )

    def _project(self, data: pa.RecordBatch | pa.Table) -> pa.RecordBatch | pa.Table:
        return data.select(self._needed)

    @property
    def fields(self) -> list[pa.Field]:
        """The appended output fields, in order (nullable, typed from the registry)."""
        return [pa.field(c.name, c.arrow_type, nullable=True) for c in self.columns]

    @property
    def schema(self) -> pa.Schema:
        """The output schema: the input schema followed by one field per scorer."""
        schema = self.input_schema
        for field in self.fields:
            schema = schema.append(field)
        return schema

    def _score_columns(self, batch: pa.RecordBatch, columns: Sequence[ScoreColumn]) -> list[Any]:
        frame = pl.from_arrow(self._project(batch))
        assert isinstance(frame, pl.DataFrame)
        # As score_frame does: each fused call once per batch (a temporary struct column).
        scored = select_scores(
            frame,
            [column.request for column in columns],
            response=self.response,
            reference=self.reference,
            function=self.function,
        )
        arrays = []
        for column in columns:
            array = scored.get_column(column.name).to_arrow().cast(column.arrow_type, safe=True)
            if len(array) != batch.num_rows:
                raise BatchScoringError(
                    f"{column.scorer} returned {len(array)} values for {batch.num_rows} rows"
                )
            arrays.append(array)
        return arrays

    def score_batch(self, batch: pa.RecordBatch, *, where: str = "") -> pa.RecordBatch:
        """Score one record batch: its own columns untouched, then one column per scorer.

        Parameters
        ----------
        batch
            A record batch with (at least) the columns of the schema the scorer was built for.
        where
            Where the batch comes from, for error messages (for example ``"batch 3 of
            partition 0"``).

        Raises
        ------
        BatchScoringError
            Scoring failed (only when ``on_error="raise"``); chained to the original error.
        """
        try:
            arrays = self._score_columns(batch, self.columns)
        except Exception as error:
            arrays = self._recover(batch, error, where=where)
        schema = batch.schema
        for field in self.fields:
            schema = schema.append(field)
        return pa.RecordBatch.from_arrays([*batch.columns, *arrays], schema=schema)

    def _recover(self, batch: pa.RecordBatch, error: Exception, *, where: str) -> list[Any]:
        """Score each scorer alone to find the failing ones; raise, or null them out."""
        arrays: list[Any] = []
        failures: list[tuple[ScoreColumn, BaseException]] = []
        for column in self.columns:
            try:
                arrays.extend(self._score_columns(batch, [column]))
            except Exception as one_error:
                failures.append((column, one_error))
                arrays.append(pa.nulls(batch.num_rows, type=column.arrow_type))
        if not failures:  # only the combined query failed
            failures = [(column, error) for column in self.columns]
            arrays = [pa.nulls(batch.num_rows, type=c.arrow_type) for c in self.columns]
        names = ", ".join(c.scorer for c, _ in failures)
        first = failures[0][1]
        label = where or f"a batch of {batch.num_rows} rows"
        # Polars appends the whole expression tree to its messages: keep the first line here
        # (the chained original error keeps the rest).
        detail = str(first).strip().splitlines()[0] if str(first).strip() else ""
        message = f"polarscore failed on {label} scoring {names}: {type(first).__name__}: {detail}"
        if self.on_error == "raise":
            raise BatchScoringError(message) from first
        _LOG.warning("%s (writing null scores for it, on_error='null')", message)
        return arrays

    def __call__(
        self, batches: Iterable[pa.RecordBatch], *, where: str = ""
    ) -> Iterator[pa.RecordBatch]:
        """Score a stream of batches lazily, one output batch per input batch.

        Parameters
        ----------
        batches
            The input record batches.
        where
            Appended to each batch's label in error messages (for example ``"of Spark
            partition 3"``).
        """
        offset = 0
        for index, batch in enumerate(batches):
            rows = batch.num_rows
            span = f"rows {offset} to {offset + rows - 1}" if rows else f"no rows, at row {offset}"
            label = f"batch {index} ({span}{' ' + where if where else ''})"
            yield self.score_batch(batch, where=label)
            offset += rows

    def score_table(self, table: pa.Table) -> pa.Table:
        """Score a whole table (chunk by chunk), for engines that hand over tables (Ray Data).

        Examples
        --------
        >>> import pyarrow as pa
        >>> from polarscore.adapters import ArrowScorer
        >>> table = pa.table({"response": ["Paris."], "reference": ["paris"]})
        >>> scorer = ArrowScorer(
        ...     table.schema, response="response", reference="reference",
        ...     scorers={"answer_correctness": {"match_mode": "exact"}}, prefix="score_",
        ... )
        >>> scorer.score_table(table).to_pylist()
        [{'response': 'Paris.', 'reference': 'paris', 'score_answer_correctness': 0.0}]
        """
        batches = table.to_batches() or [pa.RecordBatch.from_pylist([], schema=table.schema)]
        return pa.Table.from_batches(list(self(batches)), schema=self.schema)


def scored_schema(
    schema: pa.Schema,
    *,
    response: str,
    reference: str | None = None,
    scorers: ScorerSelection,
    prefix: str = "",
) -> pa.Schema:
    """Return the schema of scored batches, checking the request against the input schema.

    Parameters
    ----------
    schema, response, reference, scorers, prefix
        As for :class:`ArrowScorer`.

    Returns
    -------
    pa.Schema
        The input fields followed by one nullable field per scorer, named ``prefix + name`` and
        typed from the registry.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from polarscore.adapters import scored_schema
    >>> schema = pa.schema({"id": pa.int64(), "answer": pa.string(), "gold": pa.string()})
    >>> scored_schema(schema, response="answer", reference="gold", scorers=["answer_correctness"])
    id: int64
    answer: string
    gold: string
    answer_correctness: double
    """
    return ArrowScorer(
        schema,
        response=response,
        reference=reference,
        scorers=scorers,
        prefix=prefix,
        function="scored_schema",
    ).schema


def score_arrow_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    response: str,
    reference: str | None = None,
    scorers: ScorerSelection,
    prefix: str = "",
    on_error: OnError = "raise",
    schema: pa.Schema | None = None,
) -> Iterator[pa.RecordBatch]:
    """Score a stream of Arrow record batches, appending one column per scorer.

    The request is checked at once (not at the first ``next``); the batches are then scored
    lazily, one output batch per input batch, with the input columns passed through untouched.

    Parameters
    ----------
    batches
        The input record batches (any iterable; consumed lazily).
    response, reference, scorers, prefix, on_error
        As for :class:`ArrowScorer`.
    schema
        The input schema. By default, that of the first batch (which is then read at once).

    Returns
    -------
    Iterator[pa.RecordBatch]
        The scored batches, with the schema of :func:`scored_schema`.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from polarscore.adapters import score_arrow_batches
    >>> table = pa.table(
    ...     {"response": ["Paris.", "Lyon", "x"], "reference": ["paris", "Paris", None]}
    ... )
    >>> out = score_arrow_batches(
    ...     table.to_batches(max_chunksize=2),
    ...     response="response", reference="reference", scorers=["answer_correctness"],
    ... )
    >>> pa.Table.from_batches(out).column("answer_correctness").to_pylist()
    [1.0, 0.0, None]
    """
    resolve_scorers(scorers, prefix=prefix, function="score_arrow_batches")  # even without batches
    iterator = iter(batches)
    first: pa.RecordBatch | None = None
    if schema is None:
        first = next(iterator, None)
        if first is None:
            return iter(())
        schema = first.schema
    scorer = ArrowScorer(
        schema,
        response=response,
        reference=reference,
        scorers=scorers,
        prefix=prefix,
        on_error=on_error,
        function="score_arrow_batches",
    )
    return scorer(iterator if first is None else _chain(first, iterator))


def _chain(first: pa.RecordBatch, rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield first
    yield from rest


__all__ = [
    "ON_ERROR_CHOICES",
    "ArrowScorer",
    "OnError",
    "ScoreColumn",
    "ScorerSelection",
    "score_arrow_batches",
    "scored_schema",
]
