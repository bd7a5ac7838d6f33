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
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import check_same_length, parse_text_expr
from polarscore._validation import invalid_parameter
from polarscore.scores.checks._shared import (
    details,
    map_present,
    response_text,
)

#: Reasons of a row, as the first character of a batch function's result (then a colon).
_VALID, _INVALID, _UNCHECKED = "V", "I", "U"

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
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

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


@lru_cache(maxsize=16)
def _validator_class(base: Any) -> Any:
    """Return ``base`` (a jsonschema draft's validator) with the keyword fixes above."""
    jsonschema = _import_jsonschema("json_schema")
    keywords = dict(base.VALIDATORS)
    overrides = {}
    if "multipleOf" in keywords:
        overrides["multipleOf"] = _multiple_of(keywords["multipleOf"])
    if "divisibleBy" in keywords:  # draft 3
        overrides["divisibleBy"] = _multiple_of(keywords["divisibleBy"])
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


def _compile_schema(schema: dict[str, Any], function: str) -> tuple[Any, str | None]:
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
    return _validator_class(base)(schema, registry=_registry()), None


def _validator(schema: Any, function: str) -> Any:
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
    validator, problem = _compile_schema(dict(schema), function)
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


def _json_reason_function(validator: Any) -> Callable[[str], str]:
    """Return ``text -> encoded outcome``: ``"V:"``, ``"I:<message>"`` or ``"U:<why>"``."""
    from jsonschema.exceptions import best_match

    def check(text: str) -> str:
        instance, failed = _load(text)
        if failed is not None:
            return failed
        try:
            failure = best_match(validator.iter_errors(instance))
            if failure is None:
                return f"{_VALID}:"
            return f"{_INVALID}:Schema validation failed: {failure.message}"
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
def _row_check(schema_text: str | None) -> Callable[[str], str]:
    """Return the check of one row's schema (JSON text; null means ``{}``), compiled once.

    A schema that is not a JSON object, that its metaschema rejects or whose ``$ref`` cannot be
    resolved fails every response that parses, with an ``Invalid schema: ...`` message (the
    reference validates the schema when it validates a parsed response).
    """
    if schema_text is None:
        return _json_reason_function(_validator({}, "json_schema"))
    schema, unreadable = _load(schema_text)
    if unreadable is not None:
        problem = "Invalid schema: not JSON (" + unreadable[2:].removeprefix("Invalid JSON: ") + ")"
    elif isinstance(schema, dict):
        validator, objection = _compile_schema(schema, "json_schema")
        if validator is not None:
            return _json_reason_function(validator)
        problem = f"Invalid schema: {objection}"
    else:
        problem = "Invalid schema: a schema must be a JSON object"

    def invalid(text: str) -> str:
        _, failed = _load(text)
        return failed if failed is not None else f"{_INVALID}:{problem}"

    return invalid


def _json_per_row(text: pl.Expr, schemas: pl.Expr) -> pl.Expr:
    """Return each row's encoded outcome against its own schema, each distinct pair once."""

    def check(pair: dict[str, Any]) -> str:
        return _row_check(pair["schema"])(pair["text"])

    return pl.struct(text.alias("text"), schemas.alias("schema")).map_batches(
        map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
    )


def _json(response: IntoExpr, schema: Any, function: str) -> tuple[pl.Expr, pl.Expr]:
    text = response_text(response, function)
    if isinstance(schema, pl.Expr | pl.Series):
        check_same_length(function, response=response, schema=schema)
        _import_jsonschema(function)
        schemas = parse_text_expr(schema, function=function, parameter="schema")
        outcome = _json_per_row(text, schemas)
    else:
        check = _json_reason_function(_validator(schema, function))
        outcome = text.map_batches(
            map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
        )
    kind = outcome.str.head(1)
    message = outcome.str.slice(2)
    score = pl.when(kind == _VALID).then(pl.lit(1.0)).otherwise(pl.lit(0.0))
    reason = (
        pl.when(kind == _VALID)
        .then(pl.lit(VALID_REASON))
        .when(kind == _INVALID)
        .then(pl.concat_str(pl.lit(INVALID_PREFIX), message))
        .otherwise(pl.concat_str(pl.lit(UNCHECKED_PREFIX), message))
    )
    return score, reason


def json_schema(
    response: IntoExpr, *, schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None
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

    Returns
    -------
    pl.Expr
        ``Float64`` named ``json_schema``, never null.

    Notes
    -----
    Reproduces ``JsonSchemaMetric`` of eval-ai-library 0.8.2, with ``jsonschema`` (the optional
    extra ``polarscore[json]``) as the validator: ``format`` is not enforced, ``pattern`` is
    Python's ``re.search``. The schema is checked and compiled once; each distinct response of
    a batch is parsed and validated once.

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
    return _json(response, schema, "json_schema")[0].alias("json_schema")


def json_schema_details(
    response: IntoExpr, *, schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None
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
    score, reason = _json(response, schema, "json_schema_details")
    return details("json_schema", score, reason)
