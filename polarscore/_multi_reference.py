"""One or several reference answers per row: the shared machinery behind every scorer.

A reference column may be a ``String`` column (one reference per row) or a ``List(String)``
column (any number of references per row, e.g. the aliases of a QA gold answer). Which one it is
is only known when the query is planned, so :func:`dispatch_reference` uses
``pl.pipe_with_dtype`` to choose the expression for the resolved dtype at plan time: the
single-reference path stays a pure Polars expression, and the list path costs nothing when no
list is used. (``list.eval`` cannot read the response, another column, and exploding inside an
expression changes its length, so the list path is a batch kernel instead.)

The list path is generic: :func:`best_over_references` lifts any *pairwise* scorer
``f(response, reference) -> pl.Expr`` to list columns. Inside one elementwise ``map_batches``
(so it streams and runs on Arrow batches of any size), it flattens the lists of the batch,
repeats each row's response (and per-row options) along its references, evaluates ``f`` once
over the flat columns, and keeps, per row, the first reference with the best score. References
whose score is null (unusable, e.g. blank) are skipped; a row with none usable is null.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from polarscore._utils import _describe_input
from polarscore.exceptions import ColumnTypeError

#: The dtype of every ``reference_index`` field: the 0-based position in the row's list.
INDEX_DTYPE = pl.UInt32

_STRING_DTYPES = (pl.String, pl.Null, pl.Categorical, pl.Enum)


def _is_string_dtype(dtype: object) -> bool:
    return any(dtype == candidate or isinstance(dtype, candidate) for candidate in _STRING_DTYPES)


def dispatch_reference(
    reference: pl.Expr,
    *,
    on_string: Callable[[pl.Expr], pl.Expr],
    on_list: Callable[[pl.Expr], pl.Expr],
    function: str,
    parameter: str,
    also_reads: Sequence[pl.Expr] = (),
) -> pl.Expr:
    """Build ``on_string(reference)`` or ``on_list(reference)`` once the dtype is known.

    ``on_string`` receives a ``String`` expression, ``on_list`` a ``List(String)`` one. Any
    other dtype raises :class:`~polarscore.exceptions.ColumnTypeError` when the query is
    planned. ``also_reads`` lists the other expressions the built expression reads (the
    response, per-row options): they are declared as inputs, so ``meta.root_names()`` (which
    adapters use to project columns) sees every column before planning.
    """

    def choose(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
        expr, dtype = inputs[0]
        if _is_string_dtype(dtype):
            return on_string(expr.cast(pl.String))
        if isinstance(dtype, pl.List) and _is_string_dtype(dtype.inner):
            return on_list(expr.cast(pl.List(pl.String)))
        msg = (
            f"The {parameter!r} argument of {function} must be a String column (one reference "
            f"per row) or a List(String) column (several references per row). Got the "
            f"{_describe_input(expr)} of type {dtype} instead."
        )
        raise ColumnTypeError(msg)

    return pl.pipe_with_dtype([reference, *also_reads], choose)


def as_reference_list(
    reference: pl.Expr, *, function: str, parameter: str = "reference"
) -> pl.Expr:
    """Return the references as ``List(String)``: a string becomes a one-item list.

    A null string becomes a null list (no reference), not a list holding a null item.
    """
    return dispatch_reference(
        reference,
        on_string=lambda ref: (
            pl.when(ref.is_null())
            .then(pl.lit(None, dtype=pl.List(pl.String)))
            .otherwise(pl.concat_list(ref))
        ),
        on_list=lambda refs: refs,
        function=function,
        parameter=parameter,
    )


@dataclass(frozen=True)
class FlatLists:
    """The items of a list column laid end to end, with where each came from."""

    values: pl.Series
    """Every item, in row order, then list order."""
    row: npt.NDArray[np.int64]
    """The row of each item."""
    position: npt.NDArray[np.int64]
    """The 0-based position of each item in its row's list."""
    offsets: npt.NDArray[np.int64]
    """``n_rows + 1`` offsets: row ``i`` owns items ``offsets[i]:offsets[i + 1]``."""

    @property
    def n_rows(self) -> int:
        """The number of rows (lists) flattened."""
        return self.offsets.size - 1


def flatten(lists: pl.Series) -> FlatLists:
    """Lay the items of a list Series end to end; a null list counts as empty."""
    lengths = lists.list.len().fill_null(0).to_numpy().astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    row = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    position = np.arange(row.size, dtype=np.int64) - offsets[:-1][row]
    values = lists.explode(empty_as_null=False, keep_nulls=False)
    return FlatLists(values=values, row=row, position=position, offsets=offsets)


def best_per_row(
    scores: npt.NDArray[np.float64], flat: FlatLists
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Return, per row, the best item score and the flat index of the first item reaching it.

    NaN scores are unusable items and are skipped. Rows without a usable item get NaN and
    index ``-1``.
    """
    best = np.full(flat.n_rows, np.nan)
    index = np.full(flat.n_rows, -1, dtype=np.int64)
    usable = ~np.isnan(scores)
    if not usable.any():
        return best, index
    items = np.flatnonzero(usable)
    # Sort usable items by row, then best score first, then list position (first wins ties).
    order = items[np.lexsort((flat.position[items], -scores[items], flat.row[items]))]
    rows = flat.row[order]
    first = np.concatenate(([True], rows[1:] != rows[:-1]))
    best[rows[first]] = scores[order[first]]
    index[rows[first]] = order[first]
    return best, index


def position_series(index: npt.NDArray[np.int64], flat: FlatLists, name: str) -> pl.Series:
    """Turn flat item indices (``-1`` for none) into ``UInt32`` list positions with nulls."""
    positions = np.zeros(index.size, dtype=np.int64)
    found = index >= 0
    positions[found] = flat.position[index[found]]
    return pl.Series(name, positions, dtype=INDEX_DTYPE).scatter(np.flatnonzero(index < 0), None)


def best_item_per_row(result: pl.Series, flat: FlatLists, *, with_index: bool = True) -> pl.Series:
    """Reduce per-item results to each row's best item.

    Parameters
    ----------
    result
        One result per item of ``flat``: a ``Float64`` score, or a ``Struct`` with a ``score``
        field. A null score marks an unusable item.
    flat
        Where each item came from.
    with_index
        Add the best item's position in its row's list as the ``UInt32`` field
        ``reference_index`` (a bare score becomes the field ``score``).

    Returns
    -------
    pl.Series
        One value per row: the result of the row's first item with the best score (all null
        when no item is usable), as a ``Struct`` when ``with_index`` or when ``result`` is one.
    """
    is_struct = isinstance(result.dtype, pl.Struct)
    score = result.struct.field("score") if is_struct else result
    _, index = best_per_row(score.cast(pl.Float64).fill_null(np.nan).to_numpy(), flat)
    if result.len():
        chosen = pl.Series(np.maximum(index, 0)).scatter(np.flatnonzero(index < 0), None)
        best = result.gather(chosen)
    else:
        best = pl.repeat(None, flat.n_rows, dtype=result.dtype, eager=True)
    if not with_index:
        return best
    fields = best.struct.unnest().get_columns() if is_struct else [best.alias("score")]
    return pl.struct(*fields, position_series(index, flat, "reference_index"), eager=True)


def best_over_references(
    response: pl.Expr,
    references: pl.Expr,
    pair_score: Callable[..., pl.Expr],
    *,
    item_dtype: pl.DataType,
    row_options: Mapping[str, pl.Expr] | None = None,
) -> pl.Expr:
    """Lift a pairwise scorer to a list of references: the best reference per row.

    Parameters
    ----------
    response
        The responses (``String``).
    references
        The references (``List(String)``).
    pair_score
        ``pair_score(response, reference, **row_options) -> pl.Expr``, elementwise over one
        response and one reference per row; its result is either a ``Float64`` score or a
        ``Struct`` with a ``score`` field. A null score marks an unusable reference.
    item_dtype
        The dtype ``pair_score`` returns.
    row_options
        Per-row expressions (e.g. a per-row mode) that ``pair_score`` needs, by keyword; each is
        repeated along the row's references.

    Returns
    -------
    pl.Expr
        ``Struct`` with the fields of the best reference's result (a bare score becomes the
        field ``score``) and ``reference_index`` (``UInt32``, its position in the list). All
        fields are null where no reference is usable.
    """
    options = dict(row_options or {})
    fields = list(item_dtype.fields) if isinstance(item_dtype, pl.Struct) else []
    out_fields = fields or [pl.Field("score", pl.Float64)]
    out_dtype = pl.Struct([*out_fields, pl.Field("reference_index", INDEX_DTYPE)])
    inner = pair_score(
        pl.col("response"), pl.col("reference"), **{name: pl.col(name) for name in options}
    )

    def kernel(batch: pl.Series) -> pl.Series:
        columns = batch.struct.unnest()
        flat = flatten(columns["references"])
        rows = pl.Series(flat.row)
        items = pl.DataFrame(
            {
                "response": columns["response"].gather(rows),
                "reference": flat.values,
                **{name: columns[name].gather(rows) for name in options},
            }
        )
        result = items.select(inner.alias("result")).to_series().cast(item_dtype)
        return best_item_per_row(result, flat).cast(out_dtype)

    struct = pl.struct(
        response.alias("response"),
        references.alias("references"),
        *(expr.alias(name) for name, expr in options.items()),
    )
    return struct.map_batches(kernel, return_dtype=out_dtype, is_elementwise=True)


__all__ = [
    "INDEX_DTYPE",
    "FlatLists",
    "as_reference_list",
    "best_item_per_row",
    "best_over_references",
    "best_per_row",
    "dispatch_reference",
    "flatten",
    "position_series",
]
