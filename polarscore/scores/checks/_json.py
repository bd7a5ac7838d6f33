"""``json_schema``: the response parsed as JSON and validated with ``jsonschema``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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

# --- json_schema ----------------------------------------------------------------------------------


def _import_jsonschema(function: str) -> Any:
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the extra is installed in CI
        raise ImportError(
            f"{function} needs the optional dependency jsonschema: pip install 'polarscore[json]'"
        ) from None
    return jsonschema


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


def _compile_schema(schema: dict[str, Any], function: str) -> tuple[Any, str | None]:
    """Return the schema's validator, or ``None`` and the metaschema's objection."""
    jsonschema = _import_jsonschema(function)
    # An absent or unknown $schema means the latest draft, as jsonschema.validate reads it
    # (without its deprecation warning for the unknown one).
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is None:
        cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as error:
        return None, str(error.message)
    return cls(schema), None


def _json_reason_function(validator: Any) -> Callable[[str], str | None]:
    """Return ``text -> None`` when valid, else the reference's failure message."""
    from jsonschema.exceptions import best_match

    def check(text: str) -> str | None:
        try:
            instance = json.loads(text)
        except json.JSONDecodeError as error:
            return f"Invalid JSON: {error}"
        failure = best_match(validator.iter_errors(instance))
        if failure is None:
            return None
        return f"Schema validation failed: {failure.message}"

    return check


@lru_cache(maxsize=256)
def _row_check(schema_text: str | None) -> Callable[[str], str | None]:
    """Return the check of one row's schema (JSON text; null means ``{}``), compiled once.

    A schema that is not a JSON object, or that its metaschema rejects, fails every response
    that parses, with the reference's ``Invalid schema: ...`` message (the reference validates
    the schema when it validates a parsed response).
    """
    if schema_text is None:
        return _json_reason_function(_validator({}, "json_schema"))
    try:
        schema = json.loads(schema_text)
    except json.JSONDecodeError as error:
        problem = f"Invalid schema: not JSON ({error})"
    else:
        if isinstance(schema, dict):
            validator, objection = _compile_schema(schema, "json_schema")
            if validator is not None:
                return _json_reason_function(validator)
            problem = f"Invalid schema: {objection}"
        else:
            problem = "Invalid schema: a schema must be a JSON object"

    def invalid(text: str) -> str | None:
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            return f"Invalid JSON: {error}"
        return problem

    return invalid


def _json_per_row(text: pl.Expr, schemas: pl.Expr) -> pl.Expr:
    """Return each row's failure message against its own schema, each distinct pair once."""

    def check(pair: dict[str, Any]) -> str | None:
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
        failure = _json_per_row(text, schemas)
    else:
        check = _json_reason_function(_validator(schema, function))
        failure = text.map_batches(
            map_present(check, pl.String()), return_dtype=pl.String, is_elementwise=True
        )
    valid = failure.is_null()
    reason = (
        pl.when(valid)
        .then(pl.lit("JSON schema valid."))
        .otherwise(pl.concat_str(pl.lit("JSON schema invalid: "), failure))
    )
    return valid.cast(pl.Float64), reason


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
        metaschema rejects, an unknown ``$schema`` and a boolean schema raise. Or a ``String``
        expression (or Series) giving each row's schema as JSON text (null: ``{}``); a row
        whose schema is not a JSON object or is rejected by its metaschema scores 0.0 with the
        reason ``Invalid schema: ...``, as the reference reports it.

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
        failed: ...`` with Python's and jsonschema's own messages).
    """
    score, reason = _json(response, schema, "json_schema_details")
    return details("json_schema", score, reason)
