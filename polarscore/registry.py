"""The scorer registry: metadata every scorer declares once.

The CLI, the frame helpers, the expression namespace tests, the Arrow/Spark adapters and the
common invariance tests all read this table, so a scorer added here is picked up everywhere.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from polarscore._typing import IntoExpr, ReferenceKind
from polarscore._validation import check_choice, invalid_parameter
from polarscore.scores import checks, correctness, match, precision, similarity
from polarscore.scores.correct import correct, correct_reading, reads_answer_match
from polarscore.scores.correctness import answer_correctness
from polarscore.scores.extraction import choice_match, numeric_match
from polarscore.scores.match import answer_match
from polarscore.scores.precision import answer_precision
from polarscore.scores.similarity import response_similarity
from polarscore.scores.squad import squad_exact_match, squad_f1

if TYPE_CHECKING:
    import pyarrow as pa  # imported where it is used: most processes never need it


@dataclass(frozen=True)
class FusedForm:
    """How a scorer runs in the fused multi-scorer call.

    The fused call is one native call per batch for the scorers that read the same response and
    reference columns (see :func:`polarscore.frame.add_scores`).

    Attributes
    ----------
    kwargs
        Maps the scorer's options (all of them, defaults filled in, :attr:`columns` left out) to
        its keyword arguments in the fused call, checking them as the scorer does.
    columns
        The options that name another input (``question``, ``unacceptable``): a scorer given
        one runs on its own, as does one given an option as an expression or a Series.
    """

    kwargs: Callable[..., dict[str, Any]]
    columns: tuple[str, ...] = ()

    def takes(self, options: Mapping[str, Any]) -> bool:
        """Whether the fused call can run the scorer with ``options``: literal values only."""
        return all(options.get(name) is None for name in self.columns) and not any(
            isinstance(value, pl.Expr | pl.Series) for value in options.values()
        )


def _no_options() -> dict[str, Any]:
    return {}


@dataclass(frozen=True, kw_only=True)
class ScorerSpec:
    """What a scorer is, declared once.

    Attributes
    ----------
    name
        The scorer's name: the output column name and the CLI spelling.
    function
        The public function ``f(response, reference, **options) -> pl.Expr``.
    family
        The module family it belongs to (``correctness``, ``precision``, ``similarity``, ...).
    dtype
        The Polars dtype of the result.
    lower, upper
        The declared range of the result (null aside). Higher is better.
    symmetric
        Whether ``f(a, b) == f(b, a)`` for every two non-blank texts (the null rules look at the
        reference alone, so a blank side is not symmetric anywhere).
    identity
        Whether ``f(x, x) == upper`` for every non-blank ``x``.
    null_rule
        When the score is null (inconclusive), in words.
    reference_kind
        Which reference columns it takes: a string column, a list of strings, either, or
        ``"none"`` for a check of the response alone (its :attr:`function` still takes a
        ``reference`` argument, and ignores it, so every scorer is called the same way).
    options
        The keyword options it takes, with their defaults: by default read from the keyword-only
        parameters of :attr:`function`'s signature, so they are declared once, in the function.
    nullable
        Whether the score can be null (inconclusive); the judge-free checks never are.
    default
        Whether it runs when no scorer is chosen (``score_frame`` without ``scorers``, the CLI
        without ``--scorer``). Checks that need options to mean anything, or an optional
        dependency, do not.
    fused
        Its form in the fused multi-scorer call (:class:`FusedForm`), or ``None`` if it has
        none and always runs as its own expression.
    reads
        When its score with given options can be built on another scorer's: a function of the
        options that returns that scorer's name and options, or ``None`` where it cannot. A
        frame scored by both (with those options) computes the other's once and builds this one
        on it with :attr:`reading`.
    reading
        ``f(other_score, response, reference, **options) -> pl.Expr``: the scorer's expression
        on the score :attr:`reads` names.
    """

    name: str
    function: Callable[..., pl.Expr]
    family: str
    dtype: pl.DataType = field(default_factory=pl.Float64)
    lower: float = 0.0
    upper: float = 1.0
    symmetric: bool = False
    identity: bool = True
    null_rule: str = ""
    reference_kind: ReferenceKind = "string"
    options: Mapping[str, Any] = field(default_factory=dict)
    nullable: bool = True
    default: bool = True
    fused: FusedForm | None = None
    reads: Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]] | None] | None = None
    reading: Callable[..., pl.Expr] | None = None

    def __post_init__(self) -> None:
        if not self.options:
            object.__setattr__(self, "options", keyword_defaults(self.function))

    @property
    def arrow_type(self) -> pa.DataType:
        """The Arrow type of the result, for Arrow-batch and Spark adapters."""
        arrow: pa.DataType = pl.Series(dtype=self.dtype).to_arrow().type
        return arrow

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raise :class:`~polarscore.InvalidParameterError` for an option it does not take."""
        for option in options:
            if option not in self.options:
                allowed = ", ".join(repr(o) for o in self.options) or "none"
                raise invalid_parameter(
                    self.name, option, f"a known option (its options: {allowed})", options[option]
                )

    def expr(self, response: IntoExpr, reference: IntoExpr, **options: Any) -> pl.Expr:
        """Build the scorer's expression, aliased to its name.

        Unlike a direct call of :attr:`function` (where Python raises ``TypeError``), an unknown
        option is an :class:`~polarscore.InvalidParameterError` naming the options it takes.
        """
        self.check_options(options)
        return self.function(response, reference, **options).alias(self.name)

    def fused_kwargs(self, options: Mapping[str, Any]) -> dict[str, Any] | None:
        """Return its keyword arguments in the fused call with ``options``.

        ``None`` when it must run on its own: no fused form, or an option that is not a literal.
        """
        if self.fused is None or not self.fused.takes(options):
            return None
        merged = {**self.options, **options}
        for name in self.fused.columns:
            merged.pop(name, None)
        return self.fused.kwargs(**merged)


def keyword_defaults(function: Callable[..., Any]) -> dict[str, Any]:
    """Return the keyword-only parameters of ``function`` and their defaults, in order."""
    return {
        name: parameter.default
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.default is not parameter.empty
    }


def _response_only(function: Callable[..., pl.Expr]) -> Callable[..., pl.Expr]:
    """Give a check of the response alone the registry's ``f(response, reference, **options)``."""

    def scorer(response: IntoExpr, reference: IntoExpr, **options: Any) -> pl.Expr:
        return function(response, **options)

    scorer.__name__ = function.__name__
    scorer.__qualname__ = function.__qualname__
    scorer.__doc__ = function.__doc__
    return scorer


def _check(
    function: Callable[..., pl.Expr],
    *,
    identity: bool = False,
    default: bool = False,
    null_rule: str | None = None,
) -> ScorerSpec:
    return ScorerSpec(
        name=function.__name__,
        function=_response_only(function),
        family="checks",
        identity=identity,
        null_rule=null_rule or "never null (a null response is read as the empty string)",
        reference_kind="none",
        options=keyword_defaults(function),
        nullable=null_rule is not None,
        default=default,
    )


#: The null rule of the checks that run patterns.
_PATTERN_BUDGET = (
    "a pattern that needs backtracking (a look-around or back-reference) spent its "
    "step_budget on the response"
)


_CHECKS: tuple[ScorerSpec, ...] = (
    _check(
        checks.contains,
        identity=True,  # no keywords: 1.0
    ),
    _check(checks.starts_with, identity=True),
    _check(checks.ends_with, identity=True),
    ScorerSpec(
        name="exact_match",
        function=checks.exact_match,
        family="checks",
        symmetric=True,  # both sides stripped and lowered alike, then compared
        null_rule="never null (a null response or reference is read as the empty string)",
        reference_kind="string",
        nullable=False,
        default=False,
    ),
    _check(checks.non_empty, identity=True),
    _check(
        checks.length_check,
    ),
    _check(checks.format_check),
    _check(checks.regex_match, identity=True, null_rule=_PATTERN_BUDGET),
    _check(checks.json_schema, null_rule=_PATTERN_BUDGET),
    _check(checks.language_detection),
)


#: Final-answer extraction compared with a gold answer (reasoning logs).
_EXTRACTION: tuple[ScorerSpec, ...] = (
    ScorerSpec(
        name="choice_match",
        function=choice_match,
        family="extraction",
        identity=False,  # a response is not its own gold letter
        null_rule="reference null, empty or only Python whitespace",
        reference_kind="string_or_list",
        default=False,
    ),
    ScorerSpec(
        name="numeric_match",
        function=numeric_match,
        family="extraction",
        identity=False,  # the gold's first `#### n` against the response's last number
        null_rule="the reference holds no number (its `#### n` line, or the whole stripped text)",
        reference_kind="string_or_list",
        default=False,
    ),
)


_SCORERS: dict[str, ScorerSpec] = {
    spec.name: spec
    for spec in (
        ScorerSpec(
            name="answer_correctness",
            function=answer_correctness,
            family="correctness",
            symmetric=False,  # contains is one-way; exact and normalized are symmetric
            null_rule="reference null, empty or only Python whitespace",
            reference_kind="string_or_list",
            fused=FusedForm(correctness.fused_options),
        ),
        ScorerSpec(
            name="answer_match",
            function=answer_match,
            family="match",
            symmetric=False,  # aliases are contained in the response, not the other way round
            null_rule="no usable reference: null, empty list, or only null or blank aliases",
            reference_kind="string_or_list",
            fused=FusedForm(match.fused_options, columns=("question",)),
        ),
        ScorerSpec(
            name="answer_precision",
            function=answer_precision,
            family="precision",
            symmetric=False,  # token precision, the penalty and numeric agreement are one-way
            reference_kind="string_or_list",
            fused=FusedForm(precision.fused_options),
            null_rule=(
                "reference null, empty or only Python whitespace (missing_expected='null'); "
                "a per-row numeric tolerance that is null, NaN, infinite or negative; "
                "a pair whose character similarity would take more than max_work"
            ),
        ),
        ScorerSpec(
            name="response_similarity",
            function=response_similarity,
            family="similarity",
            identity=False,  # a text without words ("?") scores 0.0 against itself
            null_rule=(
                "no acceptable answer, or every one blank by Python whitespace; "
                "rouge_l over max_work"
            ),
            reference_kind="string_or_list",
            fused=FusedForm(similarity.fused_options, columns=("unacceptable",)),
        ),
        ScorerSpec(
            name="squad_exact_match",
            function=squad_exact_match,
            family="squad",
            symmetric=True,  # equality of the normalised texts
            null_rule="no reference, or every reference null or blank by Python whitespace",
            reference_kind="string_or_list",
            fused=FusedForm(_no_options),
        ),
        ScorerSpec(
            name="correct",
            function=correct,
            family="correct",
            identity=False,  # an answer is not its own gold letter or number
            null_rule=(
                "the row's task kind is 'none' or unknown; no gold letter (multiple choice), "
                "no gold number (numeric) or no usable alias (short answer, free form)"
            ),
            reference_kind="string_or_list",
            reads=reads_answer_match,
            reading=correct_reading,
        ),
        *_CHECKS,
        *_EXTRACTION,
        ScorerSpec(
            name="squad_f1",
            function=squad_f1,
            family="squad",
            symmetric=True,  # precision and recall swap; their harmonic mean does not change
            identity=False,  # a text that normalises to nothing ("the") has F1 0.0 with itself
            null_rule="no reference, or every reference null or blank by Python whitespace",
            reference_kind="string_or_list",
            fused=FusedForm(_no_options),
        ),
    )
}


def available_scorers() -> list[str]:
    """Return the names of every registered scorer, sorted.

    Examples
    --------
    >>> import polarscore as ps
    >>> "answer_correctness" in ps.available_scorers()
    True
    """
    return sorted(_SCORERS)


def default_scorers() -> list[str]:
    """Return the names of the scorers run when none is chosen, sorted.

    The judge-free checks (``contains``, ``regex_match``, ...) are left out: without options
    most of them score every row alike, and two need optional dependencies.

    Examples
    --------
    >>> import polarscore as ps
    >>> "contains" in ps.available_scorers(), "contains" in ps.default_scorers()
    (True, False)
    """
    return sorted(name for name, spec in _SCORERS.items() if spec.default)


def get_scorer(name: str) -> ScorerSpec:
    """Return the registered :class:`ScorerSpec` called ``name``.

    Raises
    ------
    InvalidParameterError
        If no scorer has that name; the message lists the ones that exist.
    """
    check_choice(name, function="get_scorer", parameter="name", allowed=available_scorers())
    return _SCORERS[name]


__all__ = [
    "FusedForm",
    "ReferenceKind",
    "ScorerSpec",
    "available_scorers",
    "default_scorers",
    "get_scorer",
]
