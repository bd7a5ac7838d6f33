"""The one engine harness: every way rows reach a scorer, with results that compare.

An :class:`Engine` runs expressions on a ``pl.DataFrame`` and returns a ``pl.DataFrame`` of the
selected columns, so two engines' results compare with ``DataFrame.equals``:

* ``eager``: ``frame.select(...)``;
* ``lazy``: ``frame.lazy().select(...).collect()``;
* ``streaming``: the same query collected by the streaming engine;
* ``arrow_1``, ``arrow_7``, ``arrow_97``: the frame cut into Arrow record batches of 1, 7 and 97
  rows, as Spark (``mapInArrow``), Ray Data and Dask hand them to Python, each batch scored on its
  own and the parts stitched in order. 97 rows make the 3,000-row parity table span many batches
  of uneven content; 1 and 7 make every small frame span several.

:meth:`Engine.score` runs one registered scorer (a :class:`polarscore.ScorerSpec` and its options)
and returns its column. On the Arrow engines it goes through polarscore's Arrow adapter
(:func:`polarscore.adapters.score_arrow_batches`: the request checked on the schema, each batch
projected to the columns it reads, the score cast to the registry's Arrow type), and checks that
every output batch has its input batch's rows and the declared type. The adapter takes column
names: an expression argument is added to the frame as a column first. Any other expression
(a ``*_details`` struct, an extraction) has no adapter entry; on the Arrow engines it is selected
on each batch as the adapter does.

Tests take the ``engine`` fixture of ``tests/conftest.py`` (one run per engine) or loop over
:data:`ENGINES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import polars as pl
import pyarrow as pa

import polarscore as ps
from polarscore.adapters import score_arrow_batches

#: Put before a scorer's name for the adapter's output column, so it never collides with an input.
_SCORE_PREFIX = "__engine_score__"

Mode = Literal["eager", "lazy", "streaming", "arrow"]


def arrow_batches(frame: pl.DataFrame, rows: int) -> list[pa.RecordBatch]:
    """The frame as Arrow record batches of at most ``rows`` rows (one empty batch if empty)."""
    table = frame.to_arrow()
    return table.to_batches(max_chunksize=rows) or [
        pa.RecordBatch.from_pylist([], schema=table.schema)
    ]


def _from_arrow(batch: pa.RecordBatch) -> pl.DataFrame:
    frame = pl.from_arrow(batch)
    assert isinstance(frame, pl.DataFrame)
    return frame


@dataclass(frozen=True)
class Engine:
    """One way of running a query: eagerly, lazily, streaming, or over Arrow record batches."""

    mode: Mode
    #: Rows per Arrow record batch (the Arrow engines only).
    batch_rows: int | None = None

    @property
    def name(self) -> str:
        return f"arrow_{self.batch_rows}" if self.mode == "arrow" else self.mode

    def __str__(self) -> str:
        return self.name

    def __call__(self, frame: pl.DataFrame, *exprs: pl.Expr) -> pl.DataFrame:
        """``frame.select(*exprs)``, run by this engine."""
        if self.mode == "eager":
            return frame.select(*exprs)
        if self.mode == "lazy":
            return frame.lazy().select(*exprs).collect()
        if self.mode == "streaming":
            return frame.lazy().select(*exprs).collect(engine="streaming")
        assert self.batch_rows is not None
        batches = arrow_batches(frame, self.batch_rows)
        return pl.concat([_from_arrow(b).select(*exprs) for b in batches], how="vertical")

    def score(
        self,
        frame: pl.DataFrame,
        spec: ps.ScorerSpec,
        *,
        response: str | pl.Expr = "response",
        reference: str | pl.Expr = "reference",
        **options: Any,
    ) -> pl.Series:
        """The registered scorer's column (named after it), run by this engine."""
        if self.mode != "arrow":
            return self(frame, spec.expr(response, reference, **options)).to_series()
        assert self.batch_rows is not None
        columns: dict[str, str] = {}
        for role, value in (("response", response), ("reference", reference)):
            if isinstance(value, pl.Expr):
                frame = frame.with_columns(value.alias(f"__engine_{role}__"))
                value = f"__engine_{role}__"
            columns[role] = value
        batches = arrow_batches(frame, self.batch_rows)
        scored = list(
            score_arrow_batches(
                batches,
                schema=batches[0].schema,
                response=columns["response"],
                reference=columns["reference"],
                scorers={spec.name: options},
                prefix=_SCORE_PREFIX,
            )
        )
        assert [b.num_rows for b in scored] == [b.num_rows for b in batches], self.name
        column = pa.Table.from_batches(scored).column(_SCORE_PREFIX + spec.name)
        assert column.type == spec.arrow_type, (self.name, column.type)
        series = pl.from_arrow(column)
        assert isinstance(series, pl.Series)
        return series.alias(spec.name)


EAGER = Engine("eager")
LAZY = Engine("lazy")
STREAMING = Engine("streaming")
#: The engines that run one Polars query over the whole frame.
QUERY_ENGINES: tuple[Engine, ...] = (EAGER, LAZY, STREAMING)
ARROW_1 = Engine("arrow", batch_rows=1)
ARROW_7 = Engine("arrow", batch_rows=7)
ARROW_97 = Engine("arrow", batch_rows=97)
#: The engines that score Arrow record batches one by one (through the Arrow adapter).
ARROW_ENGINES: tuple[Engine, ...] = (ARROW_1, ARROW_7, ARROW_97)
#: Every engine, eager first (the one the others are compared with).
ENGINES: tuple[Engine, ...] = (*QUERY_ENGINES, *ARROW_ENGINES)
