"""``json_schema``: the response parsed as JSON and validated with ``jsonschema``.

Every row ends in one of three ways, spelled in its reason:

* ``JSON schema valid.`` (1.0);
* ``JSON schema invalid: ...`` (0.0): the reference's own outcomes, ``Invalid JSON: ...``,
  ``Schema validation failed: ...`` and ``Invalid schema: ...``;
* ``JSON schema not checked: ...``: a response Python cannot read or validate at all (nested
  deeper than its parser or the validator can recurse, an integer over Python's 4,300-digit
  limit, ...) scores 0.0; the reference raises on these, which stopped the whole query.

No row raises past the scorer, and no ``$ref`` is ever fetched: the validator's registry holds
the JSON Schema metaschemas only, so a remote reference is unresolvable like a missing local one.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import check_same_length, parse_text_expr
from polarscore._validation import invalid_parameter
from polarscore.kernels import _regex
from polarscore.kernels._regex import DEFAULT_STEP_BUDGET
from polarscore.scores.checks._shared import (
    details,
    map_present,
    response_text,
)

#: Reasons of a row, as the first character of a batch function's result (then a colon).
_VALID, _INVALID, _UNCHECKED, _OVER_BUDGET = "V", "I", "U", "B"

VALID_REASON = "JSON schema valid."
INVALID_PREFIX = "JSON schema invalid: "
UNCHECKED_PREFIX = "JSON schema not checked: "

# --- the validator --------------------------------------------------------------------------------


def _import_jsonschema(function: str) -> Any:
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the extra is installed in CI
        raise ImportError(
            f"{function} needs the optional dependency jsonschema: pip install 'polarscore[json]'"
        ) from None
    return jsonschema


@lru_cache(maxsize=1)
def _registry() -> Any:
    """Return a registry of the metaschemas of every draft, and nothing that could be fetched."""
    from jsonschema_specifications import REGISTRY

    return REGISTRY


def _multiple_of(original: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """``multipleOf`` that judges what the original raises on.

    A float divisor with an infinite or NaN instance (``int(nan)``), or an integer instance too
    large to divide as a float, raised; NaN and the infinities are a multiple of nothing, and a
    large integer is divided exactly. The message is the original's.
    """

    def multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        if isinstance(divisor, float) and validator.is_type(instance, "number"):
            if isinstance(instance, float) and not math.isfinite(instance):
                yield ValidationError(f"{instance!r} is not a multiple of {divisor}")
                return
            try:
                errors = list(original(validator, divisor, instance, schema))
            except OverflowError:
                if (Fraction(instance) / Fraction(divisor)).denominator != 1:
                    yield ValidationError(f"{instance!r} is not a multiple of {divisor}")
                return
            yield from errors
            return
        yield from original(validator, divisor, instance, schema)

    return multiple_of


class _OverBudgetError(Exception):
    """A pattern needed more backtracking steps than the budget on one string."""

    def __init__(self, pattern: str, *, in_python: bool = False) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.in_python = in_python

    def reason(self, budget: int) -> str:
        if self.in_python:
            return (
                f"jsonschema matches the pattern {self.pattern!r} (under unevaluatedProperties) "
                f"with Python's re, which would backtrack more than the step_budget of "
                f"{budget:,} steps on this response"
            )
        return (
            f"the pattern {self.pattern!r} needs backtracking (a look-around or "
            f"back-reference) and took more than the step_budget of {budget:,} steps on this "
            "response"
        )


def _searcher(step_budget: int | None) -> Callable[[str, str], bool]:
    """``re.search(pattern, text) is not None``, natively: linear time, or bounded steps.

    A pattern Python refuses raises ``re.error`` as ``re.search`` would.
    """

    def search(pattern: str, text: str) -> bool:
        found = _regex.search(_regex.translate(pattern), text, step_budget)
        if found is None:
            raise _OverBudgetError(pattern)
        return found

    return search


def _python_would_end(step_budget: int | None) -> Callable[[str, str], None]:
    """Raise :class:`_OverBudgetError` unless ``re`` itself searches ``text`` within the budget.

    For the one keyword whose patterns jsonschema matches deep inside its own code
    (``unevaluatedProperties``, through ``patternProperties``): the backtracking matcher, which
    takes ``re``'s steps, runs first with the budget, and ``re`` only after it has ended.
    """

    def check(pattern: str, text: str) -> None:
        if step_budget is None:
            return
        try:
            program = _regex.translate(pattern)
        except (re.error, RecursionError, OverflowError):
            return  # re.search raises the same error at once
        if _regex.search(program, text, step_budget, backtrack=True) is None:
            raise _OverBudgetError(pattern, in_python=True)

    return check


def _pattern_keyword(search: Callable[[str, str], bool]) -> Callable[..., Iterator[Any]]:
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    return pattern


def _pattern_properties(search: Callable[[str, str], bool]) -> Callable[..., Iterator[Any]]:
    def pattern_properties(
        validator: Any, properties: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for regex, subschema in properties.items():
            for key, value in instance.items():
                if search(regex, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=regex)

    return pattern_properties


def _additional_properties(search: Callable[[str, str], bool]) -> Callable[..., Iterator[Any]]:
    from jsonschema.exceptions import ValidationError

    def additional_properties(
        validator: Any, allowed: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        named = schema.get("properties", {})
        # jsonschema tests a property against the patterns joined into one alternation.
        joined = "|".join(schema.get("patternProperties", {}))
        extras = {
            key for key in instance if key not in named and not (joined and search(joined, key))
        }
        if validator.is_type(allowed, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], allowed, path=extra)
        elif not allowed and extras:
            yield ValidationError(_extras_message(extras, schema))

    return additional_properties


def _extras_message(extras: set[str], schema: Any) -> str:
    """Return jsonschema's message for properties ``additionalProperties: false`` refuses."""
    if "patternProperties" in schema:
        verb = "does" if len(extras) == 1 else "do"
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        regexes = ", ".join(repr(r) for r in sorted(schema["patternProperties"]))
        return f"{listed} {verb} not match any of the regexes: {regexes}"
    shown = sorted(extras, key=str)
    verb = "was" if len(shown) == 1 else "were"
    return (
        "Additional properties are not allowed "
        f"({', '.join(repr(extra) for extra in shown)} {verb} unexpected)"
    )


def _pattern_keywords(step_budget: int | None) -> dict[str, Callable[..., Iterator[Any]]]:
    """Return ``pattern``, ``patternProperties`` and ``additionalProperties`` run natively.

    What each reports is jsonschema's: the same errors, in the same order, with the same
    messages; only the regular expressions run elsewhere.
    """
    search = _searcher(step_budget)
    return {
        "pattern": _pattern_keyword(search),
        "patternProperties": _pattern_properties(search),
        "additionalProperties": _additional_properties(search),
    }


def _bounded_unevaluated(
    original: Callable[..., Iterator[Any]], step_budget: int | None
) -> Callable[..., Iterator[Any]]:
    """``unevaluatedProperties`` whose ``re.search`` calls are known to end first.

    jsonschema matches the ``patternProperties`` of the schema (and of the subschemas it
    reaches) against the instance's keys inside its own code; every such pattern of the whole
    schema is tried against every key first, within the step budget.
    """
    check = _python_would_end(step_budget)

    def unevaluated(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            for regex in _all_pattern_properties(validator.schema):
                for key in instance:
                    check(regex, key)
        yield from original(validator, value, instance, schema)

    return unevaluated


def _all_pattern_properties(schema: Any) -> list[str]:
    """Every key of every ``patternProperties`` object anywhere in ``schema``."""
    found: dict[str, None] = {}
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            regexes = node.get("patternProperties")
            if isinstance(regexes, Mapping):
                found.update(dict.fromkeys(k for k in regexes if isinstance(k, str)))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return list(found)


@lru_cache(maxsize=64)
def _validator_class(base: Any, step_budget: int | None) -> Any:
    """Return ``base`` (a jsonschema draft's validator) with the keyword fixes above."""
    from jsonschema import _keywords

    jsonschema = _import_jsonschema("json_schema")
    keywords = dict(base.VALIDATORS)
    overrides: dict[str, Callable[..., Iterator[Any]]] = {}
    if "multipleOf" in keywords:
        overrides["multipleOf"] = _multiple_of(keywords["multipleOf"])
    if "divisibleBy" in keywords:  # draft 3
        overrides["divisibleBy"] = _multiple_of(keywords["divisibleBy"])
    for keyword, function in _pattern_keywords(step_budget).items():
        # Only where the draft uses jsonschema's own function, whose behaviour is mirrored.
        if keywords.get(keyword) is getattr(_keywords, keyword, None):
            overrides[keyword] = function
    if "unevaluatedProperties" in keywords:
        overrides["unevaluatedProperties"] = _bounded_unevaluated(
            keywords["unevaluatedProperties"], step_budget
        )
    return jsonschema.validators.extend(base, overrides)


def _unresolvable(schema: Mapping[str, Any], base: Any) -> str | None:
    """Return the first ``$ref`` (or ``$dynamicRef``) of ``schema`` that cannot be resolved.

    The references are looked up as jsonschema looks them up (from the resource they are in,
    with the metaschemas registered and nothing fetched); a schema with one that never resolves
    fails on every response that reaches it.
    """
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import specification_with

    specification = specification_with(base.META_SCHEMA.get("$schema", ""))
    root = specification.create_resource(schema)
    resolver = _registry().resolver_with_root(root)
    stack = [(resolver, root)]
    while stack:
        resolver, resource = stack.pop()
        contents = resource.contents
        if isinstance(contents, Mapping):
            for keyword in ("$ref", "$dynamicRef"):
                reference = contents.get(keyword)
                if isinstance(reference, str):
                    try:
                        resolver.lookup(reference)
                    except Unresolvable:
                        return f"{keyword} {reference!r} cannot be resolved (and is never fetched)"
        stack.extend(
            (resolver.in_subresource(sub), sub) for sub in reversed(list(resource.subresources()))
        )
    return None


def _compile_schema(
    schema: dict[str, Any], function: str, step_budget: int | None = DEFAULT_STEP_BUDGET
) -> tuple[Any, str | None]:
    """Return the schema's validator, or ``None`` and what is wrong with the schema."""
    jsonschema = _import_jsonschema(function)
    # An absent or unknown $schema means the latest draft, as jsonschema.validate reads it
    # (without its deprecation warning for the unknown one).
    base = jsonschema.validators.validator_for(schema, default=None)
    if base is None:
        base = jsonschema.Draft202012Validator
    try:
        base.check_schema(schema)
    except jsonschema.SchemaError as error:
        return None, str(error.message)
    except RecursionError:
        return None, "nested deeper than the validator can recurse"
    try:
        unresolvable = _unresolvable(schema, base)
    except RecursionError:
        return None, "nested deeper than the validator can recurse"
    if unresolvable is not None:
        return None, unresolvable
    return _validator_class(base, step_budget)(schema, registry=_registry()), None


def _validator(schema: Any, function: str, step_budget: int | None = DEFAULT_STEP_BUDGET) -> Any:
    if schema is None:
        schema = {}
    if not isinstance(schema, Mapping):
        raise invalid_parameter(
            function,
            "schema",
            "a JSON schema object (a dict; a boolean schema is read as 'accept everything' by "
            "the reference, so it is refused)",
            schema,
        )
    validator, problem = _compile_schema(dict(schema), function, step_budget)
    if problem is not None:
        raise invalid_parameter(function, "schema", f"a valid JSON schema ({problem})", schema)
    return validator


# --- one row --------------------------------------------------------------------------------------


def _load(text: str) -> tuple[Any, str | None]:
    """Parse ``text`` as ``json.loads`` does; return the document, or the encoded outcome."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, f"{_INVALID}:Invalid JSON: {error}"
    except RecursionError:
        return None, (
            f"{_UNCHECKED}:the response nests arrays or objects deeper than Python's json "
            "parser can read (RecursionError)"
        )
    except ValueError as error:  # an integer over Python's limit of digits
        return None, f"{_UNCHECKED}:Python's json parser cannot read the response ({error})"


def _json_reason_function(validator: Any, step_budget: int | None) -> Callable[[str], str]:
    """Return ``text -> encoded outcome``.

    The outcome is ``"V:"``, ``"I:<message>"``, ``"U:<why>"`` or ``"B:<why>"`` (a pattern over
    its step budget).
    """
    from jsonschema.exceptions import best_match

    budget = step_budget or 0

    def check(text: str) -> str:
        instance, failed = _load(text)
        if failed is not None:
            return failed
        try:
            failure = best_match(validator.iter_errors(instance))
            if failure is None:
                return f"{_VALID}:"
            return f"{_INVALID}:Schema validation failed: {failure.message}"
        except _OverBudgetError as over:
            return f"{_OVER_BUDGET}:{over.reason(budget)}"
        except RecursionError:
            return (
                f"{_UNCHECKED}:the response nests deeper than the validator can recurse "
                "(RecursionError)"
            )
        except Exception as error:  # one row must never stop the batch
            return (
                f"{_UNCHECKED}:the validator failed on this response "
                f"({type(error).__name__}: {_first_line(error)})"
            )

    return check


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "no message"


@lru_cache(maxsize=256)
def _row_check(schema_text: str | None, step_budget: int | None) -> Callable[[str], str]:
    """Return the check of one row's schema (JSON text; null means ``{}``), compiled once.

    A schema that is not a JSON object, that its metaschema rejects or whose ``$ref`` cannot be
    resolved fails every response that parses, with an ``Invalid schema: ...`` message (the
    reference validates the schema when it validates a parsed response).
    """
    if schema_text is None:
        return _json_reason_function(_validator({}, "json_schema"), step_budget)
    schema, unreadable = _load(schema_text)
    if unreadable is not None:
        problem = "Invalid schema: not JSON (" + unreadable[2:].removeprefix("Invalid JSON: ") + ")"
    elif isinstance(schema, dict):
        validator, objection = _compile_schema(schema, "json_schema", step_budget)
        if validator is not None:
            return _json_reason_function(validator, step_budget)
        problem = f"Invalid schema: {objection}"
    else:
        problem = "Invalid schema: a schema must be a JSON object"

    def invalid(text: str) -> str:
        _, failed = _load(text)
        return failed if failed is not None else f"{_INVALID}:{problem}"

    return invalid


def _json_per_row(text: pl.Expr, schemas: pl.Expr, step_budget: int | None) -> pl.Expr:
    """Return each row's encoded outcome against its own schema, each distinct pair once."""

    def check(pair: dict[str, Any]) -> str:
        return _row_check(pair["schema"], step_budget)(pair["text"])

    return pl.struct(text.alias("text"), schemas.alias("schema")).map_batches(
        map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
    )


def _has_patterns(schema: Any) -> bool:
    """Whether a literal schema holds a ``pattern`` or ``patternProperties`` keyword."""
    stack, seen = [schema], 0
    while stack and seen < 100_000:
        node = stack.pop()
        seen += 1
        if isinstance(node, Mapping):
            if "pattern" in node or "patternProperties" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return bool(stack)  # too large to walk: check as if it had some


def _json(
    response: IntoExpr, schema: Any, step_budget: Any, function: str
) -> tuple[pl.Expr, pl.Expr]:
    budget = _regex.check_step_budget(step_budget, function)
    text = response_text(response, function)
    if isinstance(schema, pl.Expr | pl.Series) or _has_patterns(schema):
        _regex.check_translator()  # a Python whose re parser is unknown: refused, not guessed
    if isinstance(schema, pl.Expr | pl.Series):
        check_same_length(function, response=response, schema=schema)
        _import_jsonschema(function)
        schemas = parse_text_expr(schema, function=function, parameter="schema")
        outcome = _json_per_row(text, schemas, budget)
    else:
        check = _json_reason_function(_validator(schema, function, budget), budget)
        outcome = text.map_batches(
            map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
        )
    kind = outcome.str.head(1)
    message = outcome.str.slice(2)
    score = (
        pl.when(kind == _VALID)
        .then(pl.lit(1.0))
        .when(kind == _OVER_BUDGET)
        .then(pl.lit(None, dtype=pl.Float64))
        .otherwise(pl.lit(0.0))
    )
    reason = (
        pl.when(kind == _VALID)
        .then(pl.lit(VALID_REASON))
        .when(kind == _INVALID)
        .then(pl.concat_str(pl.lit(INVALID_PREFIX), message))
        .otherwise(pl.concat_str(pl.lit(UNCHECKED_PREFIX), message))
    )
    return score, reason


def json_schema(
    response: IntoExpr,
    *,
    schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None,
    step_budget: int | None = DEFAULT_STEP_BUDGET,
) -> pl.Expr:
    """Score whether the response is a JSON document valid under a JSON schema: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers, parsed with Python's ``json.loads`` as they are: no code fences
        or surrounding prose are removed (null is read as the empty string, which is invalid).
        ``NaN`` and ``Infinity`` are accepted, as Python accepts them.
    schema
        A JSON schema (a dict); ``None`` or ``{}`` accept every JSON document. The draft comes
        from ``$schema`` (draft 3 to 2020-12; absent means 2020-12). A schema that its
        metaschema rejects, an unknown ``$schema``, a boolean schema and a ``$ref`` that cannot
        be resolved (remote references are never fetched) raise. Or a ``String`` expression (or
        Series) giving each row's schema as JSON text (null: ``{}``); a row whose schema is not
        a JSON object, is rejected by its metaschema or has an unresolvable ``$ref`` scores 0.0
        with the reason ``Invalid schema: ...``, as the reference reports an invalid schema.
    step_budget
        The most steps a ``pattern`` or ``patternProperties`` regex that needs backtracking (a
        look-around or back-reference) may take on one string of a response, as
        :func:`regex_match`'s; a response that would take more scores null, with the reason
        ``JSON schema not checked: ...``. ``None`` lifts the bound.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``json_schema``: 1.0 or 0.0, null only where ``step_budget`` ran out.

    Notes
    -----
    Reproduces ``JsonSchemaMetric`` of eval-ai-library 0.8.2, with ``jsonschema`` (the optional
    extra ``polarscore[json]``) as the validator: ``format`` is not enforced, ``pattern`` is
    Python's ``re.search``, run natively in linear time (or, for a look-around or
    back-reference, backtracking within ``step_budget``), so no pattern and no response can
    hang the query. The schema is checked and compiled once; each distinct response of a batch
    is parsed and validated once.

    Where the reference raises out of the whole query, one row is scored 0.0 with a reason
    ``JSON schema not checked: ...``: a response nested deeper than Python's parser or the
    validator can recurse, or holding an integer of more than 4,300 digits (Python's limit).
    ``NaN`` and the infinities are a multiple of no ``multipleOf``.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> df = pl.DataFrame({"response": ['{"answer": 42}', '{"answer": "42"}', "```json{}```"]})
    >>> schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    >>> df.select(ps.json_schema("response", schema=schema))["json_schema"].to_list()
    [1.0, 0.0, 0.0]
    """
    return _json(response, schema, step_budget, "json_schema")[0].alias("json_schema")


def json_schema_details(
    response: IntoExpr,
    *,
    schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None,
    step_budget: int | None = DEFAULT_STEP_BUDGET,
) -> pl.Expr:
    """Score :func:`json_schema` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``json_schema_details``: ``score`` and ``reason`` (``JSON schema
        valid.``, or ``JSON schema invalid: Invalid JSON: ...`` / ``... Schema validation
        failed: ...`` with Python's and jsonschema's own messages, or ``JSON schema not
        checked: ...`` for a response Python cannot read or validate).
    """
    score, reason = _json(response, schema, step_budget, "json_schema_details")
    return details("json_schema", score, reason)
