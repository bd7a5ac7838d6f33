"""score_spark on a local Spark session: results, schema, driver-side checks, batch failures.

These tests run in CI and must never be skipped there: without Java or pyspark they fail when the
``CI`` environment variable is set, and skip only on a developer machine.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import polarscore as ps
from tests.conftest import DATA, SPARK_BATCH_ROWS

pytestmark = [
    pytest.mark.spark,
    # pyspark warns about pandas 3 when it prepares Arrow UDFs; it does not affect mapInArrow.
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # PySpark before 4.3 leaves toArrow()'s collect socket for the garbage collector to close.
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]

SCORERS = [ps.get_scorer(name) for name in ps.available_scorers()]
IDS = [spec.name for spec in SCORERS]

#: Rows per Arrow batch inside Spark (the shared session's setting).
BATCH_ROWS = SPARK_BATCH_ROWS

# A failing option: parsing the 'mode' column as an integer fails on the row where it is "boom".
FAILING_MODE = pl.col("mode").str.to_integer().cast(pl.String)


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    """Parity inputs plus nulls and blanks, with a string and a list reference column."""
    parity = pl.read_parquet(DATA / "parity_cases.parquet").head(60)
    edge = pl.DataFrame(
        {
            "response": [None, "", "  ", "Paris", "x²", "Paris."],
            "reference": ["Paris", None, " ", "", "x2", "paris"],
            "acceptable": [["Paris"], None, [" "], [""], ["x2", None], ["paris"]],
        }
    )
    frame = pl.concat([parity.select(edge.columns), edge]).with_row_index("id")
    return frame.rename({"acceptable": "references"}).with_columns(pl.col("id").cast(pl.Int64))


@pytest.fixture(scope="module")
def spark_log(spark: Any, log: pl.DataFrame) -> Any:
    frame = spark.createDataFrame(log.to_arrow())
    assert frame.rdd.getNumPartitions() == 2
    return frame


def _reference_for(spec: ps.ScorerSpec) -> str:
    return "references" if spec.reference_kind == "list" else "reference"


@pytest.fixture(scope="module")
def spark_scores(spark_log: Any) -> dict[str, pl.DataFrame]:
    """Every registered scorer scored on Spark: one job per reference kind, sorted by id."""
    results: dict[str, pl.DataFrame] = {}
    for reference in ("reference", "references"):
        names = [s.name for s in SCORERS if _reference_for(s) == reference]
        if not names:
            continue
        scored = ps_spark().score_spark(
            spark_log, response="response", reference=reference, scorers=names
        )
        frame = pl.from_arrow(scored.toArrow())
        assert isinstance(frame, pl.DataFrame)
        frame = frame.sort("id")
        results.update(dict.fromkeys(names, frame))
    return results


def ps_spark() -> Any:
    from polarscore.adapters import spark as module

    return module


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_spark_equals_polars_row_for_row(
    spec: ps.ScorerSpec, log: pl.DataFrame, spark_scores: dict[str, pl.DataFrame]
) -> None:
    expected = log.sort("id").select("id", spec.expr("response", _reference_for(spec)))
    got = spark_scores[spec.name]
    assert got["id"].to_list() == expected["id"].to_list()
    assert got[spec.name].dtype == spec.dtype
    assert got[spec.name].equals(expected[spec.name])
    # the input columns came back unchanged
    assert got.select(log.columns).equals(log.sort("id"))


#: The Spark type each registry dtype must come back as (extend it when a scorer needs a new one).
SPARK_TYPES = {
    pl.Float64: "double",
    pl.Float32: "float",
    pl.Boolean: "boolean",
    pl.Int64: "bigint",
    pl.Int32: "int",
    pl.UInt32: "bigint",
    pl.String: "string",
}


@pytest.mark.parametrize("spec", SCORERS, ids=IDS)
def test_declared_schema(spec: ps.ScorerSpec, spark_log: Any) -> None:
    scored = ps_spark().score_spark(
        spark_log,
        response="response",
        reference=_reference_for(spec),
        scorers={spec.name: None},
        prefix="score_",
    )
    fields = scored.schema.fields
    assert [f.name for f in fields] == [*spark_log.columns, f"score_{spec.name}"]
    assert fields[:-1] == spark_log.schema.fields
    assert fields[-1].dataType.simpleString() == SPARK_TYPES[spec.dtype]  # type: ignore[index]
    assert fields[-1].nullable


def test_collected_types_match_the_declared_schema(spark_log: Any) -> None:
    scored = ps_spark().score_spark(
        spark_log.limit(4), response="response", reference="reference", scorers="answer_correctness"
    )
    table = scored.toArrow()
    assert table.schema.field("answer_correctness").type == pa.float64()
    assert table.num_rows == 4


def _jobs_in_group(spark: Any, group: str) -> list[int]:
    return list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"response": "answer"}, ps.ColumnNotFoundError, "response column 'answer' is not in"),
        ({"reference": "gold"}, ps.ColumnNotFoundError, "Available columns: 'id', 'response'"),
        (
            {"response": "id"},
            ps.ColumnTypeError,
            r"'response' parameter of score_spark must be a text column \(string\)\. "
            "Got the column 'id' of type bigint",
        ),
        ({"response": "references"}, ps.ColumnTypeError, "of type array<string>"),
        (
            {"reference": "id"},
            ps.ColumnTypeError,
            "'reference' parameter of score_spark must be a text column.*"
            "column 'id' of type bigint",
        ),
        ({"scorers": "answer_corectness"}, ps.InvalidParameterError, "'scorers' parameter"),
        (
            {"scorers": {"answer_correctness": {"matchmode": "exact"}}},
            ps.InvalidParameterError,
            "'matchmode' parameter of answer_correctness must be a known option",
        ),
        (
            {"scorers": {"answer_correctness": {"match_mode": "exakt"}}},
            ps.InvalidParameterError,
            "'match_mode' parameter of answer_correctness",
        ),
        (
            {"prefix": "Resp"},
            ps.ColumnCollisionError,
            "(?s)'Respanswer_correctness' is already in the frame.*case-insensitively.*"
            "'RESPanswer_correctness'",
        ),
        (
            {"prefix": ""},
            ps.ColumnCollisionError,
            "output column 'answer_correctness' is already in the frame",
        ),
        ({"on_error": "skip"}, ps.InvalidParameterError, "'on_error' parameter of score_spark"),
    ],
)
def test_driver_side_errors_come_before_any_job(
    spark: Any, spark_log: Any, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    frame = spark_log.withColumn("RESPanswer_correctness", spark_log["response"])
    frame = frame.withColumn("answer_correctness", spark_log["response"])
    request: dict[str, Any] = {
        "response": "response",
        "reference": "reference",
        "scorers": ["answer_correctness"],
        "prefix": "s_",
    }
    request.update(kwargs)
    group = f"polarscore-driver-check-{abs(hash(match))}"
    spark.sparkContext.setJobGroup(group, "driver-side checks")
    try:
        with pytest.raises(error, match=match):
            ps_spark().score_spark(frame, **request)
        assert _jobs_in_group(spark, group) == []
        spark.range(0, 4, numPartitions=2).count()  # the tracker does see jobs of this group
        assert _jobs_in_group(spark, group) != []
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)


def test_not_a_spark_dataframe(spark: Any, log: pl.DataFrame) -> None:
    with pytest.raises(ps.InvalidParameterError, match="'df' parameter of score_spark"):
        ps_spark().score_spark(
            log, response="response", reference="reference", scorers="answer_correctness"
        )


@pytest.fixture(scope="module")
def failing_log(spark: Any) -> Any:
    """12 rows in 2 partitions of 6 (ids 0-5 and 6-11); the 'mode' of id 10 is not an integer.

    With 3 rows per Arrow batch, id 10 is in batch 1 (rows 3 to 5) of partition 1.
    """
    from pyspark.sql import functions as sf

    return spark.range(0, 12, numPartitions=2).select(
        "id",
        sf.when(sf.col("id") % 2 == 0, sf.lit("Paris."))
        .otherwise(sf.lit("Lyon"))
        .alias("response"),
        sf.lit("paris").alias("reference"),
        sf.when(sf.col("id") == 10, sf.lit("boom"))
        .otherwise(sf.col("id").cast("string"))
        .alias("mode"),
    )


def test_a_failing_batch_surfaces_at_the_action(failing_log: Any) -> None:
    from pyspark.errors import PythonException

    scored = ps_spark().score_spark(
        failing_log,
        response="response",
        reference="reference",
        scorers={"answer_correctness": {"match_mode": FAILING_MODE}},
    )  # lazy: nothing fails yet
    with pytest.raises(PythonException) as caught:
        scored.collect()
    message = str(caught.value)
    assert (
        "polarscore failed on batch 1 (rows 3 to 5 of Spark partition 1) scoring "
        "answer_correctness: ComputeError: strict integer parsing failed" in message
    )
    assert '["boom"]' in message
    assert "BatchScoringError" in message


def test_on_error_null_writes_null_scores_for_the_failing_batch(failing_log: Any) -> None:
    scored = ps_spark().score_spark(
        failing_log,
        response="response",
        reference="reference",
        scorers={"answer_correctness": {"match_mode": FAILING_MODE}},
        prefix="s_",
        on_error="null",
    )
    got = pl.from_arrow(scored.toArrow())
    assert isinstance(got, pl.DataFrame)
    got = got.sort("id")
    # the numeric modes are not match modes, so those rows are scored 'normalized'
    expected = got.select(
        pl.when(pl.col("id").is_in([9, 10, 11]))  # the rows of batch 1 of partition 1
        .then(None)
        .otherwise(ps.answer_correctness("response", "reference"))
        .alias("s_answer_correctness")
    ).to_series()
    assert got["s_answer_correctness"].equals(expected)
    assert got["s_answer_correctness"].to_list() == [1.0, 0.0] * 4 + [1.0, None, None, None]


def test_checks_of_the_response_alone_need_no_reference(spark: Any) -> None:
    frame = spark.createDataFrame(pa.table({"response": ["The answer is (B).", "", None]}))
    scored = ps_spark().score_spark(
        frame, response="response", scorers={"non_empty": None, "regex_match": {"pattern": "B"}}
    )
    rows = scored.orderBy("response").collect()
    got = {row["response"]: (row["non_empty"], row["regex_match"]) for row in rows}
    assert got == {None: (0.0, 0.0), "": (0.0, 0.0), "The answer is (B).": (1.0, 1.0)}
    with pytest.raises(ps.InvalidParameterError, match="'reference'"):
        ps_spark().score_spark(frame, response="response", scorers=["answer_match"])


def test_arrow_schema_of_every_spark_column() -> None:
    """The schema the batches are checked against, on the installed PySpark (4.0 to 4.3 differ
    in how the converter is called): timestamps in UTC, and a column with no Arrow counterpart
    typed null and nullable (Arrow rejects a non-nullable null field)."""
    from pyspark.sql import types as t

    from polarscore.adapters.spark import _arrow_schema

    schema = t.StructType(
        [
            t.StructField("response", t.StringType(), nullable=False),
            t.StructField("reference", t.ArrayType(t.StringType()), nullable=True),
            t.StructField("at", t.TimestampType(), nullable=False),
            t.StructField("every", t.CalendarIntervalType(), nullable=False),
        ]
    )
    assert _arrow_schema(schema) == pa.schema(
        [
            pa.field("response", pa.string(), nullable=False),
            pa.field("reference", pa.list_(pa.string()), nullable=True),
            pa.field("at", pa.timestamp("us", tz="UTC"), nullable=False),
            pa.field("every", pa.null(), nullable=True),
        ]
    )
