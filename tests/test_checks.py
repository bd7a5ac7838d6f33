"""The ten judge-free checks: parity with eval-ai-library 0.8.2, oracles, per-row options, errors.

``tests/data/deterministic_cases.parquet`` holds 3,000 rows scored by the reference itself
(score, success at the row's threshold, reason). Where the reference silently misreads an option
(``options_valid`` false), polarscore must raise instead.
"""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import polarscore as ps
from polarscore.scores.checks import LANGUAGES
from tests.conftest import DATA
from tests.engines import Engine
from tests.oracles import checks as oracle
from tests.strategies import TRAP_CHARS, text

CASES = pl.read_parquet(DATA / "deterministic_cases.parquet")
METRICS = sorted(CASES["metric"].unique())


def _build(metric: str, options: dict[str, Any]) -> pl.Expr:
    details = getattr(ps, f"{metric}_details")
    if metric == "exact_match":
        return details("response", "reference", **options)
    return details("response", **options)


def _groups(metric: str) -> list[tuple[str, pl.DataFrame]]:
    rows = CASES.filter(pl.col("metric") == metric)
    return [(key[0], group) for key, group in rows.group_by("options", maintain_order=True)]  # type: ignore[misc]


def _raises(metric: str, options: dict[str, Any]) -> bool:
    try:
        _build(metric, options)
    except ps.InvalidParameterError:
        return True
    return False


def test_every_metric_has_parity_rows() -> None:
    assert (
        sorted(n for n in ps.available_scorers() if ps.get_scorer(n).family == "checks") == METRICS
    )
    assert CASES.height == 3000


@pytest.mark.parametrize("metric", METRICS)
def test_parity(metric: str, engine: Engine) -> None:
    """Score, success at the row's threshold and reason equal the reference's on every row."""
    checked = raised = 0
    for options_json, group in _groups(metric):
        options = json.loads(options_json)
        threshold = options.pop("threshold", 0.5)
        valid = group["options_valid"].all()
        assert valid == group["options_valid"].any()  # one verdict per option set
        if not 0 <= threshold <= 1:
            assert not valid
            with pytest.raises(ps.InvalidParameterError, match="threshold"):
                ps.is_passing(pl.col("score"), threshold=threshold)
        if not valid and _raises(metric, options):
            raised += group.height
            continue
        expr = _build(metric, options)
        out = engine(group, expr.struct.unnest())
        scored = group.with_columns(got_score=out["score"], got_reason=out["reason"])
        if 0 <= threshold <= 1:
            scored = scored.with_columns(
                got_success=ps.is_passing(pl.col("got_score"), threshold=threshold)
            )
        else:
            scored = scored.with_columns(got_success=pl.col("got_score") >= threshold)
        bad = scored.filter(
            (pl.col("got_score") != pl.col("score"))
            | (pl.col("got_reason") != pl.col("reason"))
            | (pl.col("got_success") != pl.col("success"))
        )
        assert bad.is_empty(), bad.select("id", "response", "options", "reason", "got_reason")
        checked += group.height
    total = CASES.filter(pl.col("metric") == metric).height
    assert checked + raised == total
    invalid_rows = CASES.filter((pl.col("metric") == metric) & ~pl.col("options_valid")).height
    assert raised <= invalid_rows


def test_parity_counts() -> None:
    """Every row with valid options is scored; the invalid-option rows raise or are thresholds."""
    scored = raised = 0
    for metric in METRICS:
        for options_json, group in _groups(metric):
            options = json.loads(options_json)
            options.pop("threshold", None)
            try:
                _build(metric, options)
                scored += group.height
            except ps.InvalidParameterError:
                raised += group.height
    assert scored + raised == 3000
    assert scored >= CASES["options_valid"].sum()


# --- oracles on hostile Unicode -------------------------------------------------------------

HOSTILE = "ΟΔΟΣΑςσΣİiIıßẞSSſsKkKµμΜﬁ\x1c\x1d\x1e\x1f\u200b\u3000\x85 \n\t٣５𝟓²éé"
hostile_text = st.text(st.sampled_from(HOSTILE + TRAP_CHARS), max_size=12)
hostile = st.one_of(st.none(), hostile_text, text)


def _one(expr: pl.Expr, response: str | None, reference: str | None = None) -> Any:
    df = pl.DataFrame(
        {"response": [response], "reference": [reference]},
        schema={"response": pl.String, "reference": pl.String},
    )
    return df.select(expr.struct.unnest()).row(0)


@given(
    response=hostile,
    keywords=st.lists(hostile_text, max_size=4),
    mode=st.sampled_from(["any", "all", "none"]),
    case_sensitive=st.booleans(),
)
def test_contains_oracle(
    response: str | None, keywords: list[str], mode: str, *, case_sensitive: bool
) -> None:
    expr = ps.contains_details(
        "response", keywords=keywords, mode=mode, case_sensitive=case_sensitive
    )  # type: ignore[arg-type]
    assert _one(expr, response) == oracle.contains(
        response, keywords, mode, case_sensitive=case_sensitive
    )


@given(response=hostile, affix=hostile_text, case_sensitive=st.booleans())
def test_starts_and_ends_with_oracle(
    response: str | None, affix: str, *, case_sensitive: bool
) -> None:
    start = ps.starts_with_details("response", prefix=affix, case_sensitive=case_sensitive)
    end = ps.ends_with_details("response", suffix=affix, case_sensitive=case_sensitive)
    assert _one(start, response) == oracle.starts_with(
        response, affix, case_sensitive=case_sensitive
    )
    assert _one(end, response) == oracle.ends_with(response, affix, case_sensitive=case_sensitive)


@given(response=hostile, reference=hostile, case_sensitive=st.booleans(), strip=st.booleans())
def test_exact_match_oracle(
    response: str | None, reference: str | None, *, case_sensitive: bool, strip: bool
) -> None:
    expr = ps.exact_match_details(
        "response", "reference", case_sensitive=case_sensitive, strip_whitespace=strip
    )
    assert _one(expr, response, reference) == oracle.exact_match(
        response, reference, case_sensitive=case_sensitive, strip_whitespace=strip
    )


@given(response=hostile, low=st.integers(0, 6), span=st.integers(0, 6), words=st.booleans())
def test_length_and_non_empty_oracle(
    response: str | None, low: int, span: int, *, words: bool
) -> None:
    unit = "words" if words else "chars"
    expr = ps.length_check_details("response", min_length=low, max_length=low + span, unit=unit)
    assert _one(expr, response) == oracle.length_check(response, low, low + span, unit)
    assert _one(ps.non_empty_details("response"), response) == oracle.non_empty(response)


URLISH = st.lists(
    st.sampled_from(
        ["http", "https", "://", ":", "//", "/", "?", "#", "@", "[", "]", "::1", "x.com", "ex℀",
         "a+b", "1", " ", "\t", "\n", "\x00", "\x1c", "é", "％", "www.", "mailto:", "."]
    ),
    max_size=6,
).map("".join)  # fmt: skip
FORMATISH = st.lists(
    st.sampled_from(
        ["a", "Z", "0", "9", "٣", "５", "@", ".", "-", "/", "+", "(", ")", " ", "\x1c", "co",
         "2024", "01", "15", "%", "_", "å", "\n"]
    ),
    max_size=8,
).map("".join)  # fmt: skip


@given(response=st.one_of(URLISH, FORMATISH, hostile))
def test_format_check_oracle(response: str | None) -> None:
    for format_type in ("email", "url", "phone", "date"):
        expr = ps.format_check_details("response", format_type=format_type)  # type: ignore[arg-type]
        assert _one(expr, response) == oracle.format_check(response, format_type), format_type


# Patterns from a small grammar: literals (hostile ones included), classes, groups and
# quantifiers (tests/test_regex.py compares the kernel with re on a larger grammar).
ATOMS = st.sampled_from(
    ["a|b", "\\$",
     "a", "b", "ς", "İ", "ß", ".", r"\d", r"\s", r"\S", r"\D", "[a-c]", "[^a]", r"[\d\s]", r"\.",
     r"\w", r"\b", "$", "^", "(?i)", "x{,2}", "(a|ab)", "(?:b)", r"\n", "[[:alpha:]]"]
)  # fmt: skip
QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "+?"])
patterns = st.lists(st.tuples(ATOMS, QUANTIFIERS), max_size=4).map(
    lambda parts: "".join(a + (q if a not in ("^", "$", "(?i)", r"\b") else "") for a, q in parts)
)
regex_text = st.text(st.sampled_from("abAB ς σΣİiß\n\t٣5._x\x1c"), max_size=10)


@given(pattern=patterns, response=st.one_of(st.none(), regex_text), full=st.booleans())
def test_regex_match_oracle(pattern: str, response: str | None, *, full: bool) -> None:
    try:
        expr = ps.regex_match_details("response", pattern=pattern, full_match=full)
    except ps.InvalidParameterError:
        assert oracle.regex_match("", pattern)[0] == 0.0  # Python cannot compile it
        return
    assert _one(expr, response) == oracle.regex_match(response, pattern, full_match=full)


JSONISH = st.sampled_from(
    ['{"answer": 42}', '{"answer": "42"}', "[1, 1.0]", "[1, true]", "NaN", "1.0", "true",
     '{"a": 1, "a": "x"}', "```json\n{}\n```", "\ufeff{}", " {} ", "\xa0{}", '"\\ud800"', "",
     '{"answer": "١٢"}', '{"answer": 1e400}', "{'a': 1}", "[1,]", "{} {}"]
)  # fmt: skip
SCHEMAS = [
    {},
    {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "integer"}}},
    {"type": "array", "uniqueItems": True},
    {"properties": {"answer": {"type": "string", "pattern": "^\\d+$"}}},
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
    {"type": "integer"},
    {"enum": [1, "x"]},
]


@given(response=JSONISH, schema=st.sampled_from(SCHEMAS))
def test_json_schema_oracle(response: str, schema: dict[str, Any]) -> None:
    expr = ps.json_schema_details("response", schema=schema)
    assert _one(expr, response) == oracle.json_schema(response, schema)


#: Schemas the metaschema rejects: a literal one raises, a per-row one fails its rows as the
#: reference reports it.
BAD_SCHEMAS = [{"type": "strin"}, {"required": "answer"}, {"minimum": "3"}]


@given(
    rows=st.lists(
        st.tuples(JSONISH, st.sampled_from([*SCHEMAS, *BAD_SCHEMAS, None])), min_size=1, max_size=6
    )
)
def test_json_schema_per_row_oracle(rows: list[tuple[str, dict[str, Any] | None]]) -> None:
    df = pl.DataFrame(
        {
            "response": [r for r, _ in rows],
            "schema": [None if s is None else json.dumps(s) for _, s in rows],
        },
        schema={"response": pl.String, "schema": pl.String},
    )
    got = df.select(ps.json_schema_details("response", schema=pl.col("schema"))).to_series()
    expected = [oracle.json_schema(r, s) for r, s in rows]
    assert [(d["score"], d["reason"]) for d in got.to_list()] == expected


def test_json_schema_per_row_that_is_not_an_object() -> None:
    df = pl.DataFrame({"response": ["{}", "{}", "nope"], "schema": ["[1]", "{oops", "[1]"]})
    got = df.select(ps.json_schema_details("response", schema=pl.col("schema"))).to_series()
    reasons = [d["reason"] for d in got.to_list()]
    assert reasons[0] == "JSON schema invalid: Invalid schema: a schema must be a JSON object"
    assert reasons[1].startswith("JSON schema invalid: Invalid schema: not JSON (")
    assert reasons[2].startswith("JSON schema invalid: Invalid JSON: ")
    assert [d["score"] for d in got.to_list()] == [0.0, 0.0, 0.0]


#: Responses the reference raises on (out of the whole query), with the outcome polarscore gives.
UNREADABLE = [
    ("[" * 100_000 + "]" * 100_000, {"type": "array"}, "nests arrays or objects deeper than"),
    ("1" * 5000, {"type": "integer"}, "Exceeds the limit (4300 digits)"),
    ("[" * 400 + "]" * 400, {"items": {"$ref": "#"}}, "deeper than the validator can recurse"),
]


@pytest.mark.parametrize(("response", "schema", "why"), UNREADABLE)
def test_json_schema_scores_what_python_cannot_read(
    response: str, schema: dict[str, Any], why: str
) -> None:
    df = pl.DataFrame({"response": [response, "[]", "7"]})
    got = df.select(ps.json_schema_details("response", schema=schema)).to_series().to_list()
    assert got[0]["score"] == 0.0
    assert got[0]["reason"].startswith("JSON schema not checked: ")
    assert why in got[0]["reason"]
    # the rest of the batch is scored as usual
    assert [d["reason"] for d in got[1:]] == [oracle.json_schema(r, schema)[1] for r in ["[]", "7"]]


def test_json_schema_non_finite_numbers_are_a_multiple_of_nothing() -> None:
    df = pl.DataFrame({"response": ["NaN", "Infinity", "-Infinity", "1.5", "1" + "0" * 400]})
    for divisor in (0.5, 2):
        got = df.select(ps.json_schema_details("response", schema={"multipleOf": divisor}))
        rows = got.to_series().to_list()
        assert [d["score"] for d in rows] == [0.0, 0.0, 0.0, float(divisor == 0.5), 1.0]
        shown = ["nan", "inf", "-inf"]
        for d, value in zip(rows[:3], shown, strict=False):
            assert d["reason"] == (
                f"JSON schema invalid: Schema validation failed: {value} is not a multiple of "
                f"{divisor}"
            )


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/nope"},
        {"$ref": "https://example.com/schema.json"},  # never fetched
        {"properties": {"a": {"$ref": "#/$defs/missing"}}},
        {"$id": "https://example.com/root", "items": {"$ref": "other.json"}},
    ],
)
def test_json_schema_unresolvable_ref(schema: dict[str, Any]) -> None:
    with pytest.raises(ps.InvalidParameterError, match=r"'schema'.*cannot be resolved"):
        ps.json_schema("response", schema=schema)
    df = pl.DataFrame({"response": ["{}", "x"], "schema": [json.dumps(schema)] * 2})
    got = df.select(ps.json_schema_details("response", schema=pl.col("schema"))).to_series()
    first, second = got.to_list()
    assert first["score"] == 0.0
    assert first["reason"].startswith("JSON schema invalid: Invalid schema: $ref ")
    assert first["reason"].endswith("cannot be resolved (and is never fetched)")
    assert second["reason"].startswith("JSON schema invalid: Invalid JSON: ")


def test_json_schema_resolvable_refs_work() -> None:
    schema = {
        "$id": "https://example.com/root",
        "$defs": {"n": {"type": "integer"}},
        "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "root#/$defs/n"}},
        "const": {"$ref": "#/nope"},  # data, not a reference
    }
    df = pl.DataFrame({"response": ['{"a": 1, "b": 2}', '{"a": "1"}']})
    assert df.select(
        ps.json_schema("response", schema={k: v for k, v in schema.items() if k != "const"})
    ).to_series().to_list() == [1.0, 0.0]
    ps.json_schema("response", schema=schema)  # builds
    meta = {"$ref": "https://json-schema.org/draft/2020-12/schema"}  # a metaschema: known
    got = pl.DataFrame({"response": ['{"type": "string"}', '{"type": 3}']}).select(
        ps.json_schema("response", schema=meta)
    )
    assert got.to_series().to_list() == [1.0, 0.0]


@given(response=st.one_of(hostile, st.sampled_from(["Yes", "ok", "I", "A: 42", "Bonjour à tous"])))
def test_language_detection_oracle(response: str | None) -> None:
    expr = ps.language_detection_details("response", expected_language="en")
    assert _one(expr, response) == oracle.language_detection(response, "en")


# --- per-row options ------------------------------------------------------------------------

ROWS = pl.DataFrame(
    {
        "response": ["Paris, France", "ΟΔΟΣΑ", "42\n", None, '{"a": 1}'],
        "keywords": [["paris", "lyon"], ["ΟΔΟΣ"], [], None, ["a", None, "b"]],
        "prefix": ["paris", "ΟΔΟΣ", "4", None, "{"],
        "pattern": [r"\bFrance$", "Σ", r"^\d+$", "(", "a"],
        "low": [1, 2, 3, 0, 1],
        "language": ["en", "fr", "de", "en", "en"],
    }
)


def test_per_row_keywords(engine: Engine) -> None:
    out = engine(ROWS, ps.contains_details("response", keywords=pl.col("keywords"), mode="all"))
    got = out.to_series().to_list()
    expected = [
        oracle.contains(r, [k for k in (kw or []) if k is not None], "all")
        for r, kw in zip(ROWS["response"], ROWS["keywords"].to_list(), strict=True)
    ]
    assert [(g["score"], g["reason"]) for g in got] == expected


def test_per_row_prefix_and_pattern(engine: Engine) -> None:
    out = engine(
        ROWS,
        ps.starts_with("response", prefix=pl.col("prefix"), case_sensitive=False),
        ps.regex_match("response", pattern=pl.col("pattern")),
        ps.length_check("response", min_length=pl.col("low")),
    )
    rows = ROWS.to_dicts()
    assert out["starts_with"].to_list() == [
        oracle.starts_with(r["response"], r["prefix"] or "", case_sensitive=False)[0] for r in rows
    ]
    assert out["regex_match"].to_list() == [
        oracle.regex_match(r["response"], r["pattern"])[0] for r in rows
    ]
    assert out["length_check"].to_list() == [
        oracle.length_check(r["response"], r["low"])[0] for r in rows
    ]


def test_per_row_language() -> None:
    df = pl.DataFrame(
        {
            "response": [
                "The capital of France is Paris, a large city.",
                "Bonjour à tous les amis",
            ],
            "language": ["en", "fr"],
        }
    )
    got = df.select(ps.language_detection("response", expected_language=pl.col("language")))
    assert got.to_series().to_list() == [
        oracle.language_detection(r, lang)[0]
        for r, lang in zip(df["response"], df["language"], strict=True)
    ]


def test_score_frame_equals_the_function() -> None:
    df = pl.DataFrame({"response": ["The answer is (B).", "no"], "reference": ["x", "no"]})
    direct = df.select(ps.regex_match("response", pattern=r"\(([A-J])\)"))
    framed = ps.score_frame(df, scorers={"regex_match": {"pattern": r"\(([A-J])\)"}})
    assert framed["regex_match"].equals(direct["regex_match"])
    assert direct["regex_match"].to_list() == [1.0, 0.0]


def test_languages_are_langdetects() -> None:
    from pathlib import Path

    import langdetect

    profiles = Path(langdetect.__file__).parent / "profiles"
    assert sorted(p.name for p in profiles.iterdir()) == list(LANGUAGES)
