"""Score eval logs inside Apache Spark, through Arrow batches.

:func:`score_spark` adds one score column per scorer to a Spark DataFrame. It runs the
engine-neutral Arrow core (:mod:`polarscore.adapters.arrow`) inside ``DataFrame.mapInArrow``, so
the scoring is the very same Polars expressions as everywhere else, executed on the executors
batch by batch, and the result is an ordinary lazy DataFrame with a declared schema. It uses only
the DataFrame API, so it works on classic Spark and on Spark Connect.

``pyspark`` is not a dependency of polarscore (clusters bring their own): it is imported only when
:func:`score_spark` is called. Install ``polarscore[spark]`` to get a local one.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from polarscore._utils import text_type_error
from polarscore._validation import invalid_parameter
from polarscore.adapters.arrow import ArrowScorer, OnError, ScorerSelection
from polarscore.exceptions import ColumnNotFoundError
from polarscore.frame import output_collision

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def _spark_arrow_type(arrow_type: pa.DataType) -> pa.DataType:
    """Return the Arrow type Spark reads back for a score of type ``arrow_type``.

    Spark has no unsigned integers and reads plain (not large or view) strings and lists, so
    scores are widened or narrowed to the matching Spark-readable type, losslessly.
    """
    widen = {
        pa.uint8(): pa.int16(),
        pa.uint16(): pa.int32(),
        pa.uint32(): pa.int64(),
        pa.large_string(): pa.string(),
        pa.string_view(): pa.string(),
    }
    if arrow_type in widen:
        return widen[arrow_type]
    if pa.types.is_uint64(arrow_type):
        return pa.decimal128(20, 0)
    if (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or pa.types.is_list_view(arrow_type)
        or pa.types.is_large_list_view(arrow_type)
    ):
        return pa.list_(_spark_arrow_type(arrow_type.value_type))
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(_spark_arrow_type(f.type)) for f in arrow_type])
    return arrow_type


#: What a Spark text column must be, in Spark's type names.
_TEXT = "a text column (string)"
_TEXT_OR_LIST = "a text column (string) or a list of text (array<string>)"


def _spark_type_name(data_type: Any) -> str:
    return str(data_type.simpleString())


def _check_spark_column(schema: Any, column: Any, *, role: str, allow_list: bool) -> None:
    """Check a column on the Spark schema, so messages speak Spark's type names."""
    from pyspark.sql.types import ArrayType, StringType

    if not isinstance(column, str):
        raise invalid_parameter("score_spark", role, "a column name (str)", column)
    names = schema.fieldNames()
    if column not in names:
        raise ColumnNotFoundError.from_missing(column, names, role=role)
    data_type = schema[column].dataType
    if isinstance(data_type, StringType):
        return
    if (
        allow_list
        and isinstance(data_type, ArrayType)
        and isinstance(data_type.elementType, StringType)
    ):
        return
    raise text_type_error(
        "score_spark",
        role,
        what=f"column {column!r}",
        dtype=_spark_type_name(data_type),
        expected=_TEXT_OR_LIST if allow_list else _TEXT,
    )


def _to_arrow_type(data_type: Any) -> pa.DataType:
    """Return the Arrow type Spark's Arrow batches carry for ``data_type``, timestamps in UTC.

    PySpark's converter changed its keywords within 4.x (4.0 to 4.2 take ``timestamp_utc``,
    default true; 4.3 takes ``timezone``), so the call is made the way the installed one takes it.
    """
    from pyspark.sql.pandas.types import to_arrow_type

    if "timezone" in inspect.signature(to_arrow_type).parameters:
        return to_arrow_type(data_type, timezone="UTC")
    return to_arrow_type(data_type)


def _arrow_schema(schema: Any) -> pa.Schema:
    """Return the Arrow schema Spark hands ``mapInArrow`` for a Spark schema (best effort).

    Only the scored columns (and those named in option expressions) are read by polarscore; a
    field whose type PySpark cannot convert to Arrow is typed ``null`` (nullable, as Arrow
    requires of a null field), which is fine as long as no scorer reads it.
    """
    from pyspark.errors import PySparkException

    fields = []
    for field in schema.fields:
        try:
            fields.append(pa.field(field.name, _to_arrow_type(field.dataType), field.nullable))
        except PySparkException:  # a type with no Arrow counterpart in this PySpark
            fields.append(pa.field(field.name, pa.null(), nullable=True))
    return pa.schema(fields)


class SparkBatchScorer:
    """The function ``mapInArrow`` runs on the executors: one partition's batches in, scored out.

    It lives in the installed package (not in user code) so executors can unpickle it, and it
    holds only the checked request (column names, scorer names, options, types): the Polars
    expressions are rebuilt on the executor from the scorer registry.
    """

    def __init__(self, scorer: ArrowScorer) -> None:
        self.scorer = scorer

    def __call__(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """Score one partition's batches, naming the partition in error messages."""
        from pyspark import TaskContext

        context = TaskContext.get()
        where = f"of Spark partition {context.partitionId()}" if context is not None else ""
        return self.scorer(batches, where=where)


def score_spark(
    df: DataFrame,
    *,
    response: str,
    reference: str | None = None,
    scorers: ScorerSelection,
    prefix: str = "",
    on_error: OnError = "raise",
) -> DataFrame:
    """Add one score column per scorer to a Spark DataFrame, lazily, through Arrow batches.

    Parameters
    ----------
    df
        A ``pyspark.sql.DataFrame`` (classic or Spark Connect).
    response
        The column holding the responses (``string``).
    reference
        The column holding the reference answers: ``string``, or ``array<string>`` for scorers
        whose registry entry takes a list of references. ``None`` (the default) when only
        checks of the response alone run.
    scorers
        Which scorers to run: a name, a sequence of names, or a mapping
        ``{name: {option: value}}`` (``None`` for the defaults). Option values may be literals
        or Polars expressions over the frame's columns (``pl.col("match_mode")``). See
        :func:`polarscore.available_scorers`.
    prefix
        Put before each scorer's name to make its output column name.
    on_error
        ``"raise"`` (default): a batch that cannot be scored fails the Spark job; the action
        raises Spark's ``PythonException``, whose message reads ``polarscore failed on batch
        <i> (rows <a> to <b> of Spark partition <p>) scoring <scorer>: <original error>``.
        ``"null"``: the failing scorer's column is null on that batch, everything else is kept
        (a warning is logged on the executor).

    Returns
    -------
    pyspark.sql.DataFrame
        ``df``'s columns, untouched, followed by one nullable column per scorer, named
        ``prefix + name``, typed from the scorer registry (``double`` for scores). Nothing runs
        until an action.

    Raises
    ------
    ColumnNotFoundError, ColumnTypeError
        A column is missing, or does not hold text. Raised here, before any Spark job.
    ColumnCollisionError
        An output name already exists (compared case-insensitively, as Spark resolves names).
        Raised here.
    InvalidParameterError
        An unknown scorer, option or ``on_error``, or a bad option value. Raised here.

    Notes
    -----
    Each Arrow batch is scored on its own, and every scorer is row-wise, so the batch size
    (``spark.sql.execution.arrow.maxRecordsPerBatch``) changes speed, never results. Scores are
    cast to the declared Arrow type in Python, so a type problem surfaces as a polarscore error,
    not a JVM schema error. Give each executor's Python worker ``POLARS_MAX_THREADS`` equal to its
    cores per task (usually 1) so Polars does not oversubscribe the executor.

    Examples
    --------
    Not run as a doctest (it needs a Spark session)::

        from pyspark.sql import SparkSession
        from polarscore.adapters.spark import score_spark

        spark = SparkSession.builder.getOrCreate()
        log = spark.read.parquet("eval_log/")
        scored = score_spark(
            log,
            response="response",
            reference="reference",
            scorers={"answer_correctness": {"match_mode": "contains"}},
        )
        scored.write.mode("overwrite").parquet("scored/")
    """
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    if not isinstance(df, SparkDataFrame):
        raise invalid_parameter("score_spark", "df", "a pyspark.sql.DataFrame", type(df).__name__)
    spark_schema = df.schema
    _check_spark_column(spark_schema, response, role="response", allow_list=False)
    if reference is not None:
        _check_spark_column(spark_schema, reference, role="reference", allow_list=True)
    scorer = ArrowScorer(
        _arrow_schema(spark_schema),
        response=response,
        reference=reference,
        scorers=scorers,
        prefix=prefix,
        on_error=on_error,
        function="score_spark",
    )
    existing = {name.lower(): name for name in spark_schema.fieldNames()}
    for column in scorer.columns:
        clash = existing.get(column.name.lower())
        if clash is not None:
            raise output_collision(
                column.name,
                spark_schema.fieldNames(),
                hint=f"\nHint: Spark resolves names case-insensitively, so it is the column "
                f"{clash!r}; pass prefix= to name the score columns differently.",
            )
    scorer.columns = tuple(
        dataclasses.replace(column, arrow_type=_spark_arrow_type(column.arrow_type))
        for column in scorer.columns
    )
    output = StructType(
        [
            *spark_schema.fields,
            *(StructField(f.name, from_arrow_type(f.type), nullable=True) for f in scorer.fields),
        ]
    )
    return df.mapInArrow(SparkBatchScorer(scorer), output)


__all__ = ["SparkBatchScorer", "score_spark"]
