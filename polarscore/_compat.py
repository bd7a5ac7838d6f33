"""The one place polarscore calls Polars differently by version (1.30 through 2.x).

Every scorer checks the dtype of its text inputs and casts the text-like ones (``Categorical``,
``Enum``, ``Null``) to ``String``, so that the native kernels only ever see ``String`` or
``List(String)``: a plugin handed a dtype its Polars crates were built without (``Categorical``,
``Decimal``, ...) cannot read it. Polars 2.0 and later let a library choose an expression once the
plan knows its input's dtype (``Expr.pipe_with_dtype``): the check then costs nothing per row and
fails before any data is read.

Polars 1.x has no such hook. There the cast runs on each batch, in a small Python function over
the whole batch (never per row), whose output dtype the plan must be told beforehand, one dtype
whatever the input's (Polars 1.30 to 1.32 can neither infer it nor be told that it depends on the
input):

* an input whose target dtype is the same for every accepted dtype (a text input is always
  ``String``, a list of text always ``List(String)``) declares it;
* an input that may be text or a list of text (a reference column) declares ``List(String)``:
  a text column becomes one-element lists, and the native function ``compat_text_or_list``
  (``src/compat.rs``), whose output dtype Polars asks for when it plans the query, as it does of
  every plugin, turns them back into ``String`` when the original column is not a list. The
  kernels then read the same column as on Polars 2.x, so they give the same scores.

A column of the wrong dtype raises the same error as on Polars 2.x, when the query runs rather
than when it is planned.

Scanning several Parquet files whose columns differ (:func:`scan_parquet_files`) takes one scan
from Polars 1.31 on, one per file before.

Naming differs too: before 1.32, ``Expr.name.suffix`` names an expression after its first input
column rather than its output (an aliased scorer's name), and must be the expression's last
step. :func:`suffix_name` names the output when the expression has one name.

Examples
--------
>>> import polars as pl
>>> import polarscore as ps
>>> df = pl.DataFrame({"response": ["Paris"], "reference": ["paris"]})
>>> df.with_columns(ps.answer_correctness("response", pl.col("reference").cast(pl.Categorical)))
shape: (1, 3)
┌──────────┬───────────┬────────────────────┐
│ response ┆ reference ┆ answer_correctness │
│ ---      ┆ ---       ┆ ---                │
│ str      ┆ str       ┆ f64                │
╞══════════╪═══════════╪════════════════════╡
│ Paris    ┆ paris     ┆ 1.0                │
└──────────┴───────────┴────────────────────┘
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import polars as pl

#: The oldest Polars polarscore runs on (pyproject.toml declares the same lower bound).
MINIMUM_POLARS = (1, 30)

#: Whether this Polars resolves dtypes at plan time for a library (``Expr.pipe_with_dtype``,
#: Polars 2.0 and later).
PLAN_TIME_DTYPES: bool = hasattr(pl.Expr, "pipe_with_dtype")

#: Builds the error raised for an input (an expression) of a refused dtype.
Reject = Callable[[pl.Expr, pl.DataType], Exception]

#: What a text-or-list input becomes on each batch on Polars 1.x (see the module's doc).
_TEXT_LISTS = pl.List(pl.String)


def cast_by_dtype(
    expr: pl.Expr,
    *,
    target: Callable[[pl.DataType], pl.DataType | None],
    reject: Reject,
    fixed: pl.DataType | None = None,
) -> pl.Expr:
    """Cast ``expr`` to ``target(dtype)`` once its dtype is known; raise where that is ``None``.

    Parameters
    ----------
    expr
        The input expression.
    target
        Maps the input's dtype to the dtype the scorer reads, or to ``None`` for a dtype it
        refuses.
    reject
        Builds the exception raised for a refused dtype (see :data:`Reject`).
    fixed
        The one dtype ``target`` gives for every dtype it accepts, if there is one; ``None``
        when it depends on the input, which is then ``String`` or ``List(String)`` (text or a
        list of text).

    Returns
    -------
    pl.Expr
        ``expr``, cast where needed, under the same output name.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore._compat import cast_by_dtype
    >>> def to_text(dtype):
    ...     return pl.String() if dtype in (pl.String, pl.Categorical) else None
    >>> def refuse(expr, dtype):
    ...     return TypeError(f"not text: {dtype}")
    >>> df = pl.DataFrame({"a": ["x", "y"]}, schema={"a": pl.Categorical})
    >>> df.select(cast_by_dtype(pl.col("a"), target=to_text, reject=refuse, fixed=pl.String))
    shape: (2, 1)
    ┌─────┐
    │ a   │
    │ --- │
    │ str │
    ╞═════╡
    │ x   │
    │ y   │
    └─────┘
    """
    if PLAN_TIME_DTYPES:
        return _at_plan_time(expr, target, reject)
    if fixed is not None:
        return _per_batch_declared(expr, target, reject, fixed)
    return _per_batch_text_or_list(expr, target, reject)


def _at_plan_time(
    expr: pl.Expr, target: Callable[[pl.DataType], pl.DataType | None], reject: Reject
) -> pl.Expr:
    def resolve(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        wanted = target(dtype)
        if wanted is None:
            raise reject(expr, dtype)
        return expr if dtype == wanted else expr.cast(wanted)

    return expr.pipe_with_dtype(resolve)


def _per_batch_declared(
    expr: pl.Expr,
    target: Callable[[pl.DataType], pl.DataType | None],
    reject: Reject,
    fixed: pl.DataType,
) -> pl.Expr:
    def cast_batch(batch: pl.Series) -> pl.Series:
        wanted = target(batch.dtype)
        if wanted is None:
            raise reject(expr, batch.dtype)
        return batch if batch.dtype == wanted else batch.cast(wanted)

    return expr.map_batches(cast_batch, return_dtype=fixed, is_elementwise=True)


def _per_batch_text_or_list(
    expr: pl.Expr, target: Callable[[pl.DataType], pl.DataType | None], reject: Reject
) -> pl.Expr:
    # Imported here: the plugin module loads the native extension, which only this path needs at
    # expression-building time.
    from polarscore.kernels._plugin import plugin_call

    def as_lists(batch: pl.Series) -> pl.Series:
        wanted = target(batch.dtype)
        if wanted is None:
            raise reject(expr, batch.dtype)
        cast = batch if batch.dtype == wanted else batch.cast(wanted)
        if isinstance(wanted, pl.List):
            return cast
        # Series methods, not a query: a query run inside a function Polars calls on its own
        # threads waits for those threads, and with as many such functions running as threads,
        # it deadlocks. A null text becomes a list holding a null, which compat_text_or_list
        # turns back into a null text.
        return cast.reshape((-1, 1)).cast(_TEXT_LISTS)

    lists = expr.map_batches(as_lists, return_dtype=_TEXT_LISTS, is_elementwise=True)
    # The original column tells the native function, when the query is planned, whether it is a
    # list; its values are not read.
    return plugin_call("compat_text_or_list", lists, expr)


def suffix_name(expr: pl.Expr, suffix: str) -> pl.Expr:
    """Name ``expr`` after its output, with ``suffix``: ``expr.name.suffix`` on every Polars.

    An expression with one output is aliased (so further steps may follow on any Polars); one
    with several (a wildcard, a regular expression) keeps ``name.suffix``.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore._compat import suffix_name
    >>> df = pl.DataFrame({"a": [1], "b": [2]})
    >>> df.select(suffix_name(pl.col("a").alias("score") * 2, "_x")).columns
    ['score_x']
    >>> df.select(suffix_name(pl.all(), "_x")).columns
    ['a_x', 'b_x']
    """
    if not expr.meta.has_multiple_outputs():
        try:
            return expr.alias(expr.meta.output_name() + suffix)
        except pl.exceptions.ComputeError:
            pass  # no name known before the query's schema is (a computed one)
    return expr.name.suffix(suffix)


#: Whether ``pl.scan_parquet`` inserts the columns a file lacks as nulls (``missing_columns``,
#: from Polars 1.31).
_SCAN_INSERTS_MISSING: bool = "missing_columns" in inspect.signature(pl.scan_parquet).parameters


def scan_parquet_files(
    files: Sequence[Path], schemas: Mapping[Path, pl.Schema], union: pl.Schema
) -> pl.LazyFrame:
    """Scan Parquet ``files`` (each of schema ``schemas[file]``) as one frame of schema ``union``.

    A column a file lacks is null in its rows. Polars 1.31 and later do it in one scan
    (``missing_columns="insert"``); before, each file is scanned alone and given the union's
    columns, in order, before the scans are concatenated.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polarscore._compat import scan_parquet_files
    >>> folder = Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"a": [1]}).write_parquet(folder / "1.parquet")
    >>> pl.DataFrame({"a": [2], "b": ["x"]}).write_parquet(folder / "2.parquet")
    >>> files = [folder / "1.parquet", folder / "2.parquet"]
    >>> schemas = {f: pl.read_parquet_schema(f) for f in files}
    >>> union = pl.Schema({"a": pl.Int64, "b": pl.String})
    >>> scan_parquet_files(files, schemas, union).collect().rows()
    [(1, None), (2, 'x')]
    """
    if _SCAN_INSERTS_MISSING:
        return pl.scan_parquet(list(files), schema=union, missing_columns="insert")
    return pl.concat(
        [
            pl.scan_parquet(file).select(
                (
                    pl.col(name).cast(dtype)
                    if name in schemas[file]
                    else pl.lit(None, dtype).alias(name)
                )
                for name, dtype in union.items()
            )
            for file in files
        ],
        how="vertical",
    )


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


if _version(pl.__version__) < MINIMUM_POLARS:
    raise ImportError(
        f"polarscore needs Polars {'.'.join(map(str, MINIMUM_POLARS))} or later; this environment "
        f"has Polars {pl.__version__}. Upgrade it: pip install -U polars"
    )


__all__ = [
    "MINIMUM_POLARS",
    "PLAN_TIME_DTYPES",
    "Reject",
    "cast_by_dtype",
    "scan_parquet_files",
    "suffix_name",
]
