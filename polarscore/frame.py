"""Score a whole frame at once: several registered scorers, predictable column names.

:func:`score_frame` is the frame-level entry point the command line is built on. It reads the
scorer registry (:mod:`polarscore.registry`), so a scorer registered there is available here, with
its options, without any change to this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import polars as pl

from polarscore._typing import IntoScorers, IntoThresholds
from polarscore._utils import is_text_dtype, text_column
from polarscore._validation import check_choice, check_number, invalid_parameter
from polarscore.exceptions import ColumnCollisionError
from polarscore.kernels._plugin import plugin_call
from polarscore.logs._task_kind import TASK_KIND_COLUMN, TASK_KINDS, TaskKind, table_kind
from polarscore.registry import ScorerSpec, available_scorers, default_scorers, get_scorer

#: The suffix of the boolean pass columns added for thresholds.
PASS_SUFFIX = "_passed"

_FrameT = TypeVar("_FrameT", pl.DataFrame, pl.LazyFrame)
_FUNCTION = "score_frame"


@dataclass(frozen=True)
class ScorerRequest:
    """One scorer to run: its registry entry, its options, and its output column names."""

    spec: ScorerSpec
    options: Mapping[str, Any]
    column: str
    threshold: float | None = None

    @property
    def pass_column(self) -> str | None:
        """The name of the boolean pass column, or ``None`` without a threshold."""
        return None if self.threshold is None else self.column + PASS_SUFFIX


def _options_pair(item: Any, *, function: str) -> tuple[str, dict[str, Any]]:
    """One item of a scorer sequence: a name, or a ``(name, options)`` pair."""
    if isinstance(item, str):
        return item, {}
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], Mapping)
    ):
        return item[0], dict(item[1])
    raise invalid_parameter(function, "scorers", "scorer names or (name, options) pairs", item)


def _normalize_scorers(
    scorers: IntoScorers | None, *, function: str
) -> list[tuple[str, dict[str, Any]]]:
    if scorers is None:
        return [(name, {}) for name in default_scorers()]
    if isinstance(scorers, str):
        return [(scorers, {})]
    if isinstance(scorers, Mapping):
        if any(o is not None and not isinstance(o, Mapping) for o in scorers.values()):
            raise invalid_parameter(
                function, "scorers", "a mapping of scorer name to an options mapping", scorers
            )
        pairs = [(name, dict(options or {})) for name, options in scorers.items()]
    elif isinstance(scorers, Sequence):
        pairs = [_options_pair(item, function=function) for item in scorers]
    else:
        raise invalid_parameter(
            function,
            "scorers",
            "a scorer name, a sequence of names or (name, options) pairs, or a mapping of "
            "name to options",
            scorers,
        )
    if not pairs:
        raise invalid_parameter(function, "scorers", "at least one scorer", scorers)
    return pairs


def _threshold_for(
    thresholds: IntoThresholds | None, spec: ScorerSpec, *, function: str
) -> float | None:
    if thresholds is None:
        return None
    if isinstance(thresholds, Mapping):
        if spec.name not in thresholds:
            return None
        value = thresholds[spec.name]
        parameter = f"thresholds[{spec.name!r}]"
    else:
        value = thresholds
        parameter = "thresholds"
    return check_number(
        value, function=function, parameter=parameter, minimum=spec.lower, maximum=spec.upper
    )


def resolve_scorers(
    scorers: IntoScorers | None = None,
    *,
    thresholds: IntoThresholds | None = None,
    prefix: str | None = None,
    function: str = _FUNCTION,
) -> list[ScorerRequest]:
    """Validate a scorer selection against the registry and name its output columns.

    This is the one scorer resolution of every entry point: :func:`score_frame`, the command
    line and the Arrow and Spark adapters.

    Parameters
    ----------
    scorers, thresholds, prefix
        As for :func:`score_frame`.
    function
        The public function named in error messages (the adapters pass their own name).

    Returns
    -------
    list[ScorerRequest]
        One request per scorer, in the order given, with the column ``prefix + name``.

    Raises
    ------
    InvalidParameterError
        For an unknown scorer (the message lists the registered ones), an unknown option (the
        message lists the scorer's options), a scorer chosen twice, or a threshold outside the
        scorer's range.

    Examples
    --------
    >>> from polarscore.frame import resolve_scorers
    >>> [r.column for r in resolve_scorers(["answer_correctness"], prefix="ac_")]
    ['ac_answer_correctness']
    """
    if prefix is not None and not isinstance(prefix, str):
        raise invalid_parameter(function, "prefix", "a string or None", prefix)
    pairs = _normalize_scorers(scorers, function=function)
    requests: list[ScorerRequest] = []
    seen: set[str] = set()
    for name, options in pairs:
        check_choice(name, function=function, parameter="scorers", allowed=available_scorers())
        spec = get_scorer(name)
        if name in seen:
            raise invalid_parameter(
                function,
                "scorers",
                "a selection naming each scorer once (score variants in separate calls with "
                "different prefixes)",
                name,
            )
        seen.add(name)
        spec.check_options(options)
        requests.append(
            ScorerRequest(
                spec=spec,
                options=options,
                column=(prefix or "") + name,
                threshold=_threshold_for(thresholds, spec, function=function),
            )
        )
    if isinstance(thresholds, Mapping):
        unused = sorted(set(thresholds) - seen)
        if unused:
            raise invalid_parameter(
                function, "thresholds", "keyed by the scorers being run", unused[0]
            )
    return requests


def output_collision(column: str, existing: Sequence[str], *, hint: str) -> ColumnCollisionError:
    """Return the one error for an output column that is already an input column."""
    return ColumnCollisionError(
        f"The output column {column!r} is already in the frame. Available columns: "
        f"{', '.join(repr(c) for c in existing)}.{hint}"
    )


def _reference_expr(
    spec: ScorerSpec,
    schema: pl.Schema,
    reference: str | None,
    references: str | None,
    *,
    function: str,
) -> pl.Expr:
    """Return the reference argument for ``spec``, checking the column type fits its kind."""
    kind = spec.reference_kind
    if kind == "none":
        return pl.lit(None, dtype=pl.String)  # a check of the response alone
    lists = kind != "string"
    name, parameter = (
        (references, "references") if lists and references is not None else (reference, "reference")
    )
    hint = None
    if not lists and isinstance(name, str) and isinstance(schema.get(name), pl.List):
        hint = (
            f"\nHint: {spec.name} takes one reference per row; pass the list column of "
            "acceptable answers as references=."
        )
    column = text_column(
        schema, name, function=function, parameter=parameter, lists=lists, hint=hint
    )
    if kind == "list" and not isinstance(schema[str(name)], pl.List):
        # One reference answer is a list of one; a null stays null (inconclusive).
        return pl.when(column.is_not_null()).then(pl.concat_list(column))
    return column


def _check_reference_given(requests: Sequence[ScorerRequest], *, function: str) -> None:
    comparing = [r.spec.name for r in requests if r.spec.reference_kind != "none"]
    if comparing:
        raise invalid_parameter(
            function,
            "reference",
            "a reference column, since "
            + ", ".join(comparing)
            + " compare with a reference (only checks of the response alone run without one)",
            None,
        )


#: The start of the temporary struct columns of the fused calls (see :func:`add_scores`).
_FUSED_COLUMN = "__polarscore_fused"


@dataclass(frozen=True)
class _Scoring:
    """The expressions that add the score columns of a set of requests to a frame."""

    #: The fused calls, each a struct column under a temporary name (:attr:`temporary`).
    fused: list[pl.Expr]
    #: One score expression per request, in request order; those of a fused group read its
    #: struct (the temporary column, or the call itself when inline).
    scores: list[pl.Expr]
    passes: list[pl.Expr]
    temporary: list[str]


def _score_calls(
    requests: Sequence[ScorerRequest],
    response: pl.Expr,
    references: Sequence[pl.Expr],
    *,
    taken: set[str],
    inline: bool,
) -> tuple[list[pl.Expr], list[pl.Expr], list[str]]:
    """Build the fused calls, the score expressions and the temporary column names.

    The scorers with a fused form and literal options that read the same reference run in one
    native call per group (of two or more), which returns a struct of their scores; the others
    run in their own. A score built on another's (``ScorerSpec.reads``) reads that one.
    ``inline``: the score expressions read the call itself (one native call only where Polars'
    common-subexpression elimination merges them), else a temporary column named apart from
    ``taken``.
    """
    scores: list[pl.Expr] = []
    groups: dict[str, list[int]] = {}
    kwargs: dict[str, dict[str, Any]] = {}
    for i, (r, ref) in enumerate(zip(requests, references, strict=True)):
        # Built in every case: its options are checked, with its own messages, in request order.
        scores.append(r.spec.expr(response, ref, **r.options).cast(r.spec.dtype).alias(r.column))
        fused = r.spec.fused_kwargs(r.options)
        if fused is not None:
            kwargs[r.spec.name] = fused
            groups.setdefault(str(ref.meta.serialize(format="json")), []).append(i)
    calls: list[pl.Expr] = []
    temporary: list[str] = []
    fused_members: set[int] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        fused_members.update(members)
        names = [requests[i].spec.name for i in members]
        call = plugin_call(
            "fused_scores",
            response,
            references[members[0]],
            scorers=names,
            **{name: kwargs[name] for name in names if kwargs[name]},
        )
        if not inline:
            column = _temporary_column(temporary, taken)
            calls.append(call.alias(column))
            call = pl.col(column)
        for i, name in zip(members, names, strict=True):
            r = requests[i]
            scores[i] = call.struct.field(name).cast(r.spec.dtype).alias(r.column)
    _share_scores(
        requests,
        response,
        references,
        scores,
        calls,
        temporary,
        taken,
        fused_members,
        inline=inline,
    )
    return calls, scores, temporary


def _temporary_column(temporary: list[str], taken: set[str]) -> str:
    """Return (and add to ``temporary``) a new temporary column name, apart from ``taken``."""
    column = f"{_FUSED_COLUMN}_{len(temporary)}"
    while column in taken:
        column = "_" + column
    temporary.append(column)
    return column


def _share_scores(
    requests: Sequence[ScorerRequest],
    response: pl.Expr,
    references: Sequence[pl.Expr],
    scores: list[pl.Expr],
    calls: list[pl.Expr],
    temporary: list[str],
    taken: set[str],
    fused_members: set[int],
    *,
    inline: bool,
) -> None:
    """Build each score that reads another request's (:func:`_read_scores`) on that one."""
    shared: dict[int, pl.Expr] = {}
    for j, i in _read_scores(requests):
        if i not in shared:
            shared[i] = scores[i]
            if not inline and i not in fused_members:
                # A temporary column, like a fused call's: Polars 1.x merges no equal calls
                # that read a text input (polarscore._compat's per-batch function).
                column = _temporary_column(temporary, taken)
                calls.append(scores[i].alias(column))
                shared[i] = pl.col(column)
                scores[i] = shared[i].alias(requests[i].column)
        r = requests[j]
        reading = r.spec.reading
        assert reading is not None  # _read_scores pairs only scorers that have one
        scores[j] = (
            reading(shared[i], response, references[j], **r.options)
            .cast(r.spec.dtype)
            .alias(r.column)
        )


def _read_scores(requests: Sequence[ScorerRequest]) -> list[tuple[int, int]]:
    """Return ``(j, i)`` for each request ``j`` whose score can be built on request ``i``'s.

    ``correct`` grades short answers by ``answer_match`` (``ScorerSpec.reads``): where
    ``answer_match`` runs in a fused call, or ``correct`` reads a per-row task kind, Polars
    cannot see that the two compute the same thing and runs it twice (a quarter of the default
    scorers' time on a log of short answers). The other request must read the same kind of
    reference with the same options, defaults filled in.
    """
    pairs: list[tuple[int, int]] = []
    for j, r in enumerate(requests):
        read = None if r.spec.reads is None or r.spec.reading is None else r.spec.reads(r.options)
        if read is None:
            continue
        name, options = read
        for i, other in enumerate(requests):
            if (
                i != j
                and other.spec.name == name
                and other.spec.reference_kind == r.spec.reference_kind
                and _same_options(
                    {**other.spec.options, **other.options}, {**other.spec.options, **options}
                )
            ):
                pairs.append((j, i))
                break
    return pairs


def _same_options(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two scorers' options are the same: expressions as expressions, other values equal."""
    if a.keys() != b.keys():
        return False
    for name, value in a.items():
        other = b[name]
        if isinstance(value, pl.Expr) or isinstance(other, pl.Expr):
            if not (isinstance(value, pl.Expr) and isinstance(other, pl.Expr)):
                return False
            if not value.meta.eq(other):
                return False
        elif isinstance(value, pl.Series) or isinstance(other, pl.Series):
            if value is not other:
                return False
        elif type(value) is not type(other) or value != other:
            return False
    return True


def _scoring(
    schema: pl.Schema,
    requests: Sequence[ScorerRequest],
    *,
    response: str,
    reference: str | None,
    references: str | None,
    function: str,
    inline: bool,
) -> _Scoring:
    resp = text_column(schema, response, function=function, parameter="response")
    if reference is None and references is None:
        _check_reference_given(requests, function=function)
    outputs = [r.column for r in requests] + [r.pass_column for r in requests if r.pass_column]
    clashes = [name for name in outputs if name in schema]
    if clashes:
        raise output_collision(
            clashes[0],
            schema.names(),
            hint="\nHint: pass prefix= to name the score columns differently.",
        )
    fused, scores, temporary = _score_calls(
        requests,
        resp,
        [
            _reference_expr(r.spec, schema, reference, references, function=function)
            for r in requests
        ],
        taken={*schema.names(), *outputs},
        inline=inline,
    )
    passes = [
        (pl.col(r.column) >= r.threshold).alias(r.pass_column)
        for r in requests
        if r.pass_column is not None and r.threshold is not None
    ]
    return _Scoring(fused, scores, passes, temporary)


def score_exprs(
    schema: pl.Schema,
    requests: Sequence[ScorerRequest],
    *,
    response: str = "response",
    reference: str | None = "reference",
    references: str | None = None,
    function: str = _FUNCTION,
) -> list[pl.Expr]:
    """Build the score (and pass) expressions of ``requests`` against a frame's ``schema``.

    Checks that the columns exist and hold text, and that no output column collides with an
    input column. The scorers with a fused form and literal options share one native call
    (see :func:`score_frame`), whose struct each of their expressions reads: Polars runs it
    once where it merges common subexpressions, which its 1.x streaming engine does not, so
    :func:`add_scores` (what :func:`score_frame`, the command line and the adapters use) adds
    it as a temporary column instead.

    Parameters
    ----------
    schema
        The schema of the frame to score.
    requests
        From :func:`resolve_scorers`.
    response, reference, references
        As for :func:`score_frame`; ``reference`` may be ``None`` when only checks of the
        response alone run.
    function
        The public function named in error messages.

    Returns
    -------
    list[pl.Expr]
        The score expressions, then the pass expressions, each aliased to its column name.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.frame import resolve_scorers, score_exprs
    >>> df = pl.DataFrame({"answer": ["Paris"], "gold": ["paris"]})
    >>> requests = resolve_scorers("answer_correctness", thresholds=0.5)
    >>> exprs = score_exprs(df.schema, requests, response="answer", reference="gold")
    >>> df.with_columns(exprs[:1]).with_columns(exprs[1:]).row(0)
    ('Paris', 'paris', 1.0, True)
    """
    scoring = _scoring(
        schema,
        requests,
        response=response,
        reference=reference,
        references=references,
        function=function,
        inline=True,
    )
    return scoring.scores + scoring.passes


def _with_fused_calls(
    frame: _FrameT,
    requests: Sequence[ScorerRequest],
    *,
    response: str,
    reference: str | None,
    references: str | None,
    function: str,
) -> tuple[_FrameT, _Scoring]:
    """Return ``frame`` with the fused calls' temporary struct columns, and the expressions."""
    scoring = _scoring(
        frame.collect_schema(),
        requests,
        response=response,
        reference=reference,
        references=references,
        function=function,
        inline=False,
    )
    return (frame.with_columns(scoring.fused) if scoring.fused else frame), scoring


def add_scores(
    frame: _FrameT,
    requests: Sequence[ScorerRequest],
    *,
    response: str = "response",
    reference: str | None = "reference",
    references: str | None = None,
    function: str = _FUNCTION,
) -> _FrameT:
    """Add the score (and pass) columns of ``requests`` to ``frame``, as :func:`score_frame` does.

    The scorers that share a fused call run it once per batch: it is added as a temporary
    struct column, which the score columns read and which is then dropped (in one
    ``with_columns``, Polars 1.x's streaming engine would run it once per score column).

    Parameters
    ----------
    frame
        A ``DataFrame`` or ``LazyFrame``; the result has the same type.
    requests
        From :func:`resolve_scorers`.
    response, reference, references, function
        As for :func:`score_exprs`.

    Returns
    -------
    DataFrame or LazyFrame
        ``frame`` with the score columns, in request order, then the pass columns.

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.frame import add_scores, resolve_scorers
    >>> df = pl.DataFrame({"response": ["Paris"], "reference": ["paris"]})
    >>> add_scores(df, resolve_scorers(["squad_exact_match", "squad_f1"])).row(0)
    ('Paris', 'paris', 1.0, 1.0)
    """
    out, scoring = _with_fused_calls(
        frame,
        requests,
        response=response,
        reference=reference,
        references=references,
        function=function,
    )
    out = out.with_columns(scoring.scores)
    if scoring.passes:
        out = out.with_columns(scoring.passes)
    return out.drop(scoring.temporary) if scoring.temporary else out


def select_scores(
    frame: _FrameT,
    requests: Sequence[ScorerRequest],
    *,
    response: str = "response",
    reference: str | None = "reference",
    references: str | None = None,
    function: str = _FUNCTION,
) -> _FrameT:
    """Select the score columns of ``requests`` alone (no pass columns), in request order.

    As :func:`add_scores`, but a ``select``: a score expression that gives one value for a
    whole batch is not broadcast (the Arrow adapter reports it as a batch error).
    """
    out, scoring = _with_fused_calls(
        frame,
        requests,
        response=response,
        reference=reference,
        references=references,
        function=function,
    )
    return out.select(scoring.scores)


#: The columns ``correct`` reads, when the frame has them: its question, and each row's options.
#: ``answer_match`` reads the same question.
QUESTION_COLUMNS = ("question", "input")
CHOICES_COLUMNS = ("choices", "options")


def _question_column(schema: pl.Schema) -> pl.Expr | None:
    """Return the frame's question column (the first text one of :data:`QUESTION_COLUMNS`)."""
    texts = [n for n in QUESTION_COLUMNS if n in schema and is_text_dtype(schema[n])]
    return pl.col(texts[0]) if texts else None


def _read_columns(schema: pl.Schema, options: Mapping[str, Any]) -> dict[str, pl.Expr]:
    """Return ``correct``'s ``choices`` and ``question`` from the frame's columns, if not given."""
    found: dict[str, pl.Expr] = {}
    if "choices" not in options:
        for name in CHOICES_COLUMNS:
            dtype = schema.get(name)
            if isinstance(dtype, pl.List) and is_text_dtype(dtype.inner):
                found["choices"] = pl.col(name)
                break
    if "question" not in options:
        question = _question_column(schema)
        if question is not None:
            found["question"] = question
    return found


def _with_question(
    requests: Sequence[ScorerRequest], question: pl.Expr | None
) -> list[ScorerRequest]:
    """Return ``requests`` with ``question`` as every ``answer_match``'s that names none."""
    out = list(requests)
    if question is not None:
        for i, request in enumerate(out):
            if request.spec.name == "answer_match" and "question" not in request.options:
                out[i] = replace(request, options={**request.options, "question": question})
    return out


def with_frame_options(
    frame: pl.DataFrame | pl.LazyFrame,
    requests: Sequence[ScorerRequest],
    *,
    reference: str | None,
    references: str | None,
    task_kind: str | None = None,
    function: str = _FUNCTION,
) -> tuple[list[ScorerRequest], TaskKind | None]:
    """Fill in the options the frame's columns give: ``correct``'s, and ``answer_match``'s question.

    ``correct``'s kind is ``task_kind`` when given (it overrides any log's); else the frame's
    ``task_kind`` column (the log readers write it: one kind per log, so mixed logs work);
    else a plain table's kind told from its gold answers (:func:`table_kind`, which reads the
    first rows of the reference column). The question is the ``question`` or ``input`` column,
    the options the ``choices`` or ``options`` list column, when the frame has them and the
    request does not name its own. ``answer_match`` gets the same question (unless its request
    names one): the question makes it more exact (it does not count alias words the question
    already holds, and reads what the question asks for), and on short answers ``correct`` and
    ``answer_match`` are then one call that Polars computes once.

    Returns
    -------
    tuple
        The requests (with their options filled in), and the table's kind when it was told from
        the gold answers or given (``None`` when read from a column, or without ``correct``).
    """
    if task_kind is not None:
        check_choice(task_kind, function=function, parameter="task_kind", allowed=TASK_KINDS)
    if not requests:
        return [], None
    schema = frame.collect_schema()
    out = _with_question(requests, _question_column(schema))
    position = next((i for i, r in enumerate(out) if r.spec.name == "correct"), None)
    if position is None:
        return out, None
    request = out[position]
    options = dict(request.options)
    found: TaskKind | None = None
    options.update(_read_columns(schema, options))
    if "task_kind" not in options:
        if task_kind is not None:
            found = TaskKind(task_kind, "given")
            options["task_kind"] = task_kind
        elif TASK_KIND_COLUMN in schema and is_text_dtype(schema[TASK_KIND_COLUMN]):
            options["task_kind"] = pl.col(TASK_KIND_COLUMN)
        else:
            gold = references if references is not None else reference
            if gold is not None and gold in schema:
                choices = options.get("choices")
                found = table_kind(
                    frame,
                    pl.concat_list(pl.col(gold)),
                    choices if isinstance(choices, pl.Expr) else None,
                )
                options["task_kind"] = found.kind if found.kind is not None else "none"
    out[position] = replace(request, options=options)
    return out, found


def score_frame(
    frame: _FrameT,
    *,
    response: str = "response",
    reference: str = "reference",
    references: str | None = None,
    scorers: IntoScorers | None = None,
    thresholds: IntoThresholds | None = None,
    prefix: str | None = None,
    task_kind: str | None = None,
) -> _FrameT:
    """Add several score columns (and optional pass columns) to a frame in one call.

    The scorers run as one native call per batch for those with a fused form and literal
    options that read the same reference column (each row's texts are read once for all of
    them), and as their own expressions otherwise; the scores are the same either way.

    Parameters
    ----------
    frame
        A ``DataFrame`` or ``LazyFrame``; the result has the same type. A ``LazyFrame`` stays
        lazy, so ``score_frame(pl.scan_parquet(...)).sink_parquet(...)`` streams.
    response
        The response column (text).
    reference
        The reference column: text, or a list of text for scorers that take a list of
        acceptable answers.
    references
        Optional list-of-text column of acceptable answers (aliases), used instead of
        ``reference`` by every scorer that accepts a list. Without it, those scorers get
        ``reference``; a scorer that takes *only* a list gets a text reference as a list of one
        answer (a null reference stays null, so the row is inconclusive).
    scorers
        Which registered scorers to run (see :func:`polarscore.available_scorers`): a name, a
        sequence of names or ``(name, options)`` pairs, or a mapping ``{name: options}``. The
        options are the scorer's own keyword options, checked when the expressions are built.
        ``None`` (default) runs every scorer of :func:`polarscore.default_scorers` with its
        default options (the judge-free checks, such as ``contains``, run only when named).
        The frame's ``question`` (else ``input``) text column is the ``question`` of
        ``answer_match`` and ``correct`` unless their options name one; ``correct`` also
        reads the ``choices`` (else ``options``) list column.
    thresholds
        Optional pass thresholds: one number for every scorer, or ``{name: threshold}``. Each
        adds a ``Boolean`` column ``<column>_passed``, true where the score is at least the
        threshold and null where the score is null (inconclusive).
    prefix
        Prepended to every output column name.
    task_kind
        The task kind ``correct`` grades every row by (one of :data:`polarscore.TASK_KINDS`),
        overriding the log's. Default: each row's ``task_kind`` column (the log readers write
        it), else a plain table's kind told from its gold answers (the first 2,000 rows of
        ``references`` or ``reference``: option letters, numbers, or short answers).

    Returns
    -------
    DataFrame or LazyFrame
        ``frame`` with one column per scorer, named ``prefix + scorer name``, in the order
        given, then the pass columns.

    Raises
    ------
    ColumnNotFoundError
        A named column is missing; the message lists the columns that exist.
    ColumnTypeError
        A column does not hold text (or a list of text where a list is expected).
    ColumnCollisionError
        An output column already exists in the frame (pass a ``prefix``).
    InvalidParameterError
        An unknown scorer or option, a bad option value, or a threshold outside the score range.

    See Also
    --------
    polarscore.summarize : summarise the score columns this adds.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame(
    ...     {"response": ["Paris.", "It is Paris", "Lyon"], "reference": ["paris", "Paris", None]}
    ... )
    >>> ps.score_frame(
    ...     df,
    ...     scorers={"answer_correctness": {"match_mode": "contains"}},
    ...     thresholds=0.5,
    ... )
    shape: (3, 4)
    ┌─────────────┬───────────┬────────────────────┬───────────────────────────┐
    │ response    ┆ reference ┆ answer_correctness ┆ answer_correctness_passed │
    │ ---         ┆ ---       ┆ ---                ┆ ---                       │
    │ str         ┆ str       ┆ f64                ┆ bool                      │
    ╞═════════════╪═══════════╪════════════════════╪═══════════════════════════╡
    │ Paris.      ┆ paris     ┆ 1.0                ┆ true                      │
    │ It is Paris ┆ Paris     ┆ 1.0                ┆ true                      │
    │ Lyon        ┆ null      ┆ null               ┆ null                      │
    └─────────────┴───────────┴────────────────────┴───────────────────────────┘
    """
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        raise invalid_parameter(_FUNCTION, "frame", "a polars DataFrame or LazyFrame", frame)
    requests = resolve_scorers(scorers, thresholds=thresholds, prefix=prefix)
    requests, _ = with_frame_options(
        frame, requests, reference=reference, references=references, task_kind=task_kind
    )
    return add_scores(
        frame, requests, response=response, reference=reference, references=references
    )


__all__ = [
    "CHOICES_COLUMNS",
    "PASS_SUFFIX",
    "QUESTION_COLUMNS",
    "IntoScorers",
    "IntoThresholds",
    "ScorerRequest",
    "add_scores",
    "output_collision",
    "resolve_scorers",
    "score_exprs",
    "score_frame",
    "select_scores",
    "with_frame_options",
]
