"""The command line's words for mistakes: columns named by flags, and the library's errors retold.

The library's messages point to keyword arguments (``pass prefix=``, ``pass one of them as
by=``); the command line has flags. Every message or hint that names a flag is written here, so
the library never suggests a flag and the command line never suggests a keyword argument.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import polars as pl

from polarscore.exceptions import (
    ColumnCollisionError,
    ColumnNotFoundError,
    ColumnTypeError,
    InvalidParameterError,
)

_T = TypeVar("_T")

#: The start of the library's message for a bad value: ``The 'option' parameter of function``.
_PYTHON_PARAMETER = re.compile(r"^The '(\w+)' parameter of (\w+) ")
#: The library's hint for a missing column: ``pass one of them as parameter=.``
_KEYWORD_HINT = re.compile(r"pass one of them as (\w+)=\.")


def listing(schema: pl.Schema) -> str:
    """Return the columns of ``schema`` for a message: ``'a', 'b'`` (or ``(none)``)."""
    return ", ".join(repr(c) for c in schema.names()) or "(none)"


def missing_column(
    flag: str, column: str, schema: pl.Schema, *, hint: bool = True
) -> ColumnNotFoundError:
    """Return the error for the column ``column``, named by ``flag``, absent from the input.

    The library's one wording (:meth:`ColumnNotFoundError.from_missing`), its hint naming the
    flag.
    """
    return ColumnNotFoundError.from_missing(
        column, schema.names(), role=flag, hint=f"name one of them with {flag}." if hint else ""
    )


def unconverted_column(
    flag: str, column: str, dtype: pl.DataType, *, expected: str, advice: str
) -> ColumnTypeError:
    """Return the error for a column of the wrong type: the command line never converts one."""
    return ColumnTypeError(
        f"The {flag} column {column!r} holds {dtype}, not {expected}.\n"
        f"Hint: the command line does not convert columns; {advice}"
    )


def flag(keyword: str) -> str:
    """Return the flag that sets the library's keyword argument ``keyword`` (``--pair-on``)."""
    return "--" + keyword.replace("_", "-")


def in_cli_words(build: Callable[[], _T], *, scorer_options: bool = False) -> _T:
    """Run ``build`` (a library call), retelling its errors in the command line's words.

    A missing column's hint points to its flag, and the hint for an output name that is already a
    column to ``--prefix``. With ``scorer_options`` (``build`` makes scorers' expressions), a bad
    parameter value is reported as an option of ``--scorer``.
    """
    try:
        return build()
    except InvalidParameterError as error:
        if not scorer_options:
            raise
        message = _PYTHON_PARAMETER.sub(r"The option \1 of --scorer \2 ", str(error))
        raise InvalidParameterError(message) from error
    except ColumnCollisionError as error:
        message = str(error).replace("Hint: pass prefix= ", "Hint: pass --prefix ")
        raise ColumnCollisionError(message) from error
    except ColumnNotFoundError as error:
        message = _KEYWORD_HINT.sub(
            lambda m: f"name one of them with {flag(m.group(1))}.", str(error)
        )
        raise ColumnNotFoundError(message) from error
