"""Exceptions raised by polarscore.

Every error polarscore raises on purpose derives from :class:`PolarscoreError`, which is itself a
:class:`ValueError`, so ``except ValueError`` keeps working for callers that do not know the
package.
"""

from __future__ import annotations

from collections.abc import Iterable


class PolarscoreError(ValueError):
    """Base class of every error raised by polarscore."""


class InvalidParameterError(PolarscoreError):
    """An option passed to a polarscore function has a value that is not allowed."""


class ColumnNotFoundError(PolarscoreError):
    """A column named by the caller is not in the frame."""

    @classmethod
    def from_missing(
        cls,
        column: str,
        available: Iterable[str],
        *,
        role: str | None = None,
        parameter: str | None = None,
        hint: str | None = None,
    ) -> ColumnNotFoundError:
        """Build the error for ``column`` missing from a frame with ``available`` columns.

        The one wording of a missing column, from Python and from the command line alike.
        ``role`` says what the column is for (a keyword argument's name, or a flag);
        ``parameter`` (default: ``role``) is the keyword argument that names it, which the hint
        points to; ``hint`` replaces that hint (``""`` for none).
        """
        what = f"{role} column" if role else "column"
        names = ", ".join(repr(c) for c in available) or "(none)"
        parameter = parameter or role
        if hint is None:
            hint = f"pass one of them as {parameter}=." if parameter else ""
        tail = f"\nHint: {hint}" if hint else ""
        return cls(f"The {what} {column!r} is not in the input. Available columns: {names}.{tail}")


class ColumnTypeError(PolarscoreError):
    """A column has a data type that the scorer cannot use."""


class ColumnValueError(PolarscoreError):
    """A column's values cannot be used as asked: nulls in a cluster column, repeated keys."""


class ColumnCollisionError(PolarscoreError):
    """An output column would overwrite a column that is already in the frame."""


class BatchScoringError(PolarscoreError):
    """Scoring one record batch failed (Arrow and Spark adapters); says which batch and why."""


class InputFileError(PolarscoreError):
    """An input file is missing, of an unknown kind, unreadable or corrupt."""


class OutputFileError(PolarscoreError):
    """The output cannot be written (it exists without overwrite, or a bad format)."""


class RegexTranslationError(PolarscoreError):
    """The running Python's regular-expression parser is not one polarscore's translation knows.

    The patterns of ``regex_match`` and ``json_schema`` are read with CPython's private parser
    (``re._parser``); a Python whose parser is missing or reads patterns differently is refused
    with this error rather than allowed to match wrongly.
    """


__all__ = [
    "BatchScoringError",
    "ColumnCollisionError",
    "ColumnNotFoundError",
    "ColumnTypeError",
    "ColumnValueError",
    "InputFileError",
    "InvalidParameterError",
    "OutputFileError",
    "PolarscoreError",
    "RegexTranslationError",
]
