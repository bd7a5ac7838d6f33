"""Pure-Python oracles of eval-ai-library 0.8.2's ten judge-free checks (tests only).

Each is written from the reference's documented behaviour in plain Python (``str.lower``,
``str.strip``, ``str.split``, ``re``, ``urllib.parse``, ``json``, ``jsonschema``, ``langdetect``),
sharing no code with the Polars implementation. Each returns ``(score, reason)``.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any
from urllib.parse import urlparse

EMAIL = re.compile(r"^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$")
PHONE = re.compile(r"^\+?\(?[0-9]{1,4}\)?[0-9\-./\s]*$")
DATE = re.compile(r"^(\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}[-/]\d{1,2}[-/]\d{2,4})$")


def contains(
    response: str | None,
    keywords: list[str] = (),  # type: ignore[assignment]
    mode: str = "any",
    *,
    case_sensitive: bool = False,
) -> tuple[float, str]:
    text = response or ""
    if not case_sensitive:
        text = text.lower()
    found = [k for k in keywords if (k if case_sensitive else k.lower()) in text]
    total = len(keywords)
    if total == 0:
        score = 1.0
    elif mode == "any":
        score = 1.0 if found else 0.0
    elif mode == "all":
        score = len(found) / total
    elif mode == "none":
        score = 0.0 if found else 1.0
    else:
        score = 0.0
    return score, f"Found {len(found)}/{total} keywords (mode={mode})"


def starts_with(
    response: str | None, prefix: str = "", *, case_sensitive: bool = True
) -> tuple[float, str]:
    text = response or ""
    ok = text.startswith(prefix) if case_sensitive else text.lower().startswith(prefix.lower())
    return (
        (1.0, f"Output starts with '{prefix}'")
        if ok
        else (
            0.0,
            f"Output does not start with '{prefix}'",
        )
    )


def ends_with(
    response: str | None, suffix: str = "", *, case_sensitive: bool = True
) -> tuple[float, str]:
    text = response or ""
    ok = text.endswith(suffix) if case_sensitive else text.lower().endswith(suffix.lower())
    return (
        (1.0, f"Output ends with '{suffix}'")
        if ok
        else (
            0.0,
            f"Output does not end with '{suffix}'",
        )
    )


def exact_match(
    response: str | None,
    reference: str | None,
    *,
    case_sensitive: bool = True,
    strip_whitespace: bool = True,
) -> tuple[float, str]:
    a, b = response or "", reference or ""
    if strip_whitespace:
        a, b = a.strip(), b.strip()
    if not case_sensitive:
        a, b = a.lower(), b.lower()
    return (1.0, "Exact match.") if a == b else (0.0, "Output does not match expected.")


def non_empty(response: str | None) -> tuple[float, str]:
    if (response or "").strip():
        return 1.0, "Output is non-empty."
    return 0.0, "Output is empty or whitespace-only."


def length_check(
    response: str | None, min_length: int = 0, max_length: int = 10000, unit: str = "chars"
) -> tuple[float, str]:
    text = response or ""
    length = len(text.split()) if unit == "words" else len(text)
    inside = min_length <= length <= max_length
    where = "within" if inside else "outside"
    return float(inside), f"Length {length} {unit} is {where} range [{min_length}, {max_length}]"


def format_check(response: str | None, format_type: str = "email") -> tuple[float, str]:
    text = (response or "").strip()
    if format_type == "email":
        ok = EMAIL.match(text) is not None
    elif format_type == "phone":
        ok = PHONE.match(text) is not None
    elif format_type == "date":
        ok = DATE.match(text) is not None
    elif format_type == "url":
        try:
            parsed = urlparse(text)
            ok = bool(parsed.scheme and parsed.netloc)
        except ValueError:
            ok = False
    else:
        ok = False
    return float(ok), f"Format '{format_type}' is {'valid' if ok else 'invalid'}."


def regex_match(
    response: str | None, pattern: str = "", *, full_match: bool = False
) -> tuple[float, str]:
    text = response or ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            compiled = re.compile(pattern)
    except re.error:
        return 0.0, f"Pattern not matched: {pattern}"
    found = compiled.fullmatch(text) if full_match else compiled.search(text)
    if found is not None:
        return 1.0, f"Pattern matched: {pattern}"
    return 0.0, f"Pattern not matched: {pattern}"


def json_schema(response: str | None, schema: Any = None) -> tuple[float, str]:
    import jsonschema

    schema = schema or {}
    try:
        instance = json.loads(response or "")
    except json.JSONDecodeError as error:
        return 0.0, f"JSON schema invalid: Invalid JSON: {error}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            jsonschema.validate(instance, schema)
    except jsonschema.ValidationError as error:
        return 0.0, f"JSON schema invalid: Schema validation failed: {error.message}"
    except jsonschema.SchemaError as error:
        return 0.0, f"JSON schema invalid: Invalid schema: {error.message}"
    return 1.0, "JSON schema valid."


def language_detection(response: str | None, expected_language: str = "en") -> tuple[float, str]:
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        detected = detect(response or "")
    except LangDetectException:
        detected = "unknown"
    ok = detected != "unknown" and detected == expected_language
    return float(ok), f"Detected language: {detected}, expected: {expected_language}"


ORACLES: dict[str, Any] = {
    "contains": contains,
    "starts_with": starts_with,
    "ends_with": ends_with,
    "exact_match": exact_match,
    "non_empty": non_empty,
    "length_check": length_check,
    "format_check": format_check,
    "regex_match": regex_match,
    "json_schema": json_schema,
    "language_detection": language_detection,
}
