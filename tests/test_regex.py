"""The native regex kernel against Python's ``re``: random patterns, random texts, every construct.

``regex_match`` reads a pattern with Python's parser and runs it natively, in a linear-time
engine or (look-arounds, back-references, ...) a bounded backtracking one. Here both are
compared with ``re.search`` and ``re.fullmatch`` on a generated corpus of patterns and texts
built from the characters where Python's meaning is easy to get wrong (combining marks, which
are word characters for Rust but not for Python, ``²``, case traps, Python-only whitespace, a
final newline for ``$``), wherever Python ends within half a second (a pattern ``re`` backtracks
on for longer is skipped: it has nothing to compare).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import polarscore as ps
from polarscore.kernels._regex import search, translate
from tests.cli_process import ENV, ROOT

#: The characters of the generated patterns and texts.
ALPHABET = "ab_ 1\n\t\x1cé\u0301²ßẞKkKſsİiıΣσς٣\u00a0.-"

literal = st.sampled_from(
    [*"ab_1 .é²ßKkſİıσ٣", "\\n", "\\.", "\u0301", "\\x1c", "\\u00e9", "\\N{KELVIN SIGN}"]
)
escape = st.sampled_from(["\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "."])
klass = st.sampled_from(
    ["[ab]", "[^a]", "[a-z]", "[^\\w\\s]", "[\\d_]", "[é\u0301]", "[K-k]", "[^\\n]", "[\\b]"]
)
anchor = st.sampled_from(["^", "$", "\\A", "\\Z", "\\b", "\\B"])


def _quantified(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    suffix = st.sampled_from(
        ["*", "+", "?", "{2}", "{1,3}", "{,2}", "{2,}", "*?", "+?", "??", "{1,2}?"]
    )
    return st.tuples(inner, suffix).map("".join)


def _regular(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(children, min_size=2, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map("|".join),
        children.map(lambda p: f"({p})"),
        children.map(lambda p: f"(?:{p})"),
        _quantified(children.map(lambda p: f"(?:{p})")),
        st.tuples(st.sampled_from(["i", "m", "s", "a", "u", "im", "ms", "ai"]), children).map(
            lambda t: f"(?{t[0]}:{t[1]})"
        ),
    )


atom = st.one_of(literal, escape, klass, anchor, _quantified(st.one_of(literal, escape, klass)))
REGULAR = st.recursive(atom, _regular, max_leaves=8)


def _backtracking(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        _regular(children),
        children.map(lambda p: f"(?={p})"),
        children.map(lambda p: f"(?!{p})"),
        st.sampled_from(["(?<=a)", "(?<!b)", "(?<=é\u0301)", "(?<!\\d)", "(?<=\\w\\b)"]),
        children.map(lambda p: f"(?>{p})"),
        st.tuples(st.one_of(literal, escape, klass), st.sampled_from(["*+", "++", "?+"])).map(
            "".join
        ),
        children.map(lambda p: f"(a)?{p}(?(1)b|c)"),
        children.map(lambda p: f"({p})\\1"),
        children.map(lambda p: f"(?i:({p})\\1)"),
        children.map(lambda p: f"(?P<n>{p})x?(?P=n)"),
    )


ANY_PATTERN = st.recursive(atom, _backtracking, max_leaves=8)
FLAGS = st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?a)", "(?x)", "(?ims)", "(?ai)"])
TEXTS = st.lists(
    st.lists(st.sampled_from(ALPHABET), max_size=10).map("".join), min_size=1, max_size=12
)


class _SlowError(Exception):
    pass


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Stop Python's ``re`` (which checks signals while it runs) after ``seconds``."""

    def stop(signum: int, frame: object) -> None:
        raise _SlowError

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _python(pattern: str, texts: list[str], *, full_match: bool) -> list[float] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = re.compile(pattern)
    except (re.error, OverflowError, RecursionError):
        return None
    test = compiled.fullmatch if full_match else compiled.search
    try:
        with _within(0.5):
            return [float(test(t) is not None) for t in texts]
    except _SlowError:
        return None


def _check(pattern: str, texts: list[str], *, full_match: bool) -> None:
    expected = _python(pattern, texts, full_match=full_match)
    assume(expected is not None)
    df = pl.DataFrame({"response": texts})
    got = df.select(
        ps.regex_match("response", pattern=pattern, full_match=full_match, step_budget=None)
    ).to_series()
    assert got.to_list() == expected, (pattern, texts)


#: Patterns where ``re.search`` reads the set a pattern starts with under the whole pattern's
#: flags, not its group's (``(?a:\W)`` searched finds no ``é``, a Unicode word character, while
#: ``re.fullmatch`` does), and ``(?u:...)`` inside an ASCII pattern, found by the tests below.
SCOPED_TYPE_FLAGS = [
    r"((?:(?:(?a:\W))))",
    r"(?a:\W)x",
    r"(?a:\W)?x",
    r"(?a:[\W])",
    r"(?a:\d)",
    r"(?a:\D)",
    r"(?a:\S)|b",
    r"(?i)(?a:[\WK])",
    r"(?a)(?u:\w)",
    r"(?a)x(?u:\w)",
    r"(?a)(?u:[^\W\d])\b",
]


@pytest.mark.parametrize("full_match", [False, True])
@pytest.mark.parametrize("pattern", SCOPED_TYPE_FLAGS)
def test_scoped_type_flags_equal_python(pattern: str, *, full_match: bool) -> None:
    texts = ["é", "xé", "éx", "٣", "\u00a0", " ", "K", "k", "\u212a", "a", "_"]
    expected = _python(pattern, texts, full_match=full_match)
    assert expected is not None
    got = pl.DataFrame({"response": texts}).select(
        ps.regex_match("response", pattern=pattern, full_match=full_match, step_budget=None)
    )
    assert got.to_series().to_list() == expected


@settings(max_examples=400)
@given(flags=FLAGS, pattern=REGULAR, texts=TEXTS, full_match=st.booleans())
def test_regular_patterns_equal_python(
    flags: str, pattern: str, texts: list[str], *, full_match: bool
) -> None:
    _check(flags + pattern, texts, full_match=full_match)


@settings(max_examples=400)
@given(flags=FLAGS, pattern=ANY_PATTERN, texts=TEXTS, full_match=st.booleans())
def test_backtracking_patterns_equal_python(
    flags: str, pattern: str, texts: list[str], *, full_match: bool
) -> None:
    _check(flags + pattern, texts, full_match=full_match)


@given(pattern=ANY_PATTERN, texts=TEXTS)
def test_per_row_patterns_equal_python(pattern: str, texts: list[str]) -> None:
    """One pattern per row (a pattern Python cannot compile scores 0.0, as in the reference)."""
    kinds = [pattern, f"(?i){pattern}", f"{pattern}$", "(", f"{pattern}\\b"]
    rows = [(text, kinds[i % len(kinds)]) for i, text in enumerate(texts)]
    expected: list[float] = []
    for text, row_pattern in rows:
        if not _compiles(row_pattern):
            expected.append(0.0)
            continue
        one = _python(row_pattern, [text], full_match=False)
        assume(one is not None)
        expected += one or []
    df = pl.DataFrame({"response": [t for t, _ in rows], "pattern": [p for _, p in rows]})
    got = df.select(ps.regex_match("response", pattern=pl.col("pattern"), step_budget=None))
    assert got.to_series().to_list() == expected


def _compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


# --- the cases worth naming -------------------------------------------------------------------

NAMED = [
    # Python's $: the end, or before a final newline; \Z the very end
    (r"a$", ["a", "a\n", "a\n\n", "\na", "ab"]),
    (r"a$\n", ["a\n", "a"]),
    (r"a\Z", ["a", "a\n"]),
    (r"(?m)a$", ["a\nb", "ab\n", "b\na"]),
    (r"(?m)^b", ["a\nb", "ab", "\nb"]),
    (r"(?m:^b)|a$", ["a\n", "x\nb", "ab"]),  # both kinds of anchor: the backtracking path
    # \b and \w by Python's tables: combining marks are not word characters, ² is
    (r"e\b", ["e\u0301", "ee", "e²"]),
    (r"\w+", ["\u0301", "²", "_", "٣"]),
    (r"\B", ["é", "ab", "", "\u0301\u0301"]),
    (r"(?a)\w\b", ["é", "a", "aé"]),
    # case-insensitive matching by re's rules
    (r"(?i)k", ["K", "k", "\u212a", "ĸ"]),
    (r"(?i)s", ["ſ", "S", "ß"]),
    (r"(?i)ß", ["ẞ", "SS", "ss"]),
    (r"(?i)[^k]", ["\u212a", "K", "x"]),
    (r"(?i)σ", ["ς", "Σ"]),
    (r"(?i)i", ["İ", "ı", "I"]),
    (r"(?ai)k", ["\u212a", "K"]),
    # a group's own type flag: (?a:) folds by ASCII's rules; (?u:) in an ASCII pattern
    (r"(?i)(?a:ſ)", ["s", "ſ", "S"]),
    (r"(?i)(?a:k)", ["\u212a", "K"]),
    (r"(?a)(?u:[\wé])", ["é"]),
    (r"(?ai)(?u:ſ)", ["s"]),
    # dot and DOTALL
    (r"^.$", ["\n", "a", "a\n"]),
    (r"(?s)^.$", ["\n"]),
    # everything else Python compiles
    (r"(?<=a)b", ["ab", "b", "cb"]),
    (r"(?<!a)b", ["ab", "b"]),
    (r"(\w)\1", ["aa", "ab", "éé"]),
    (r"(?i)(a)\1", ["aA", "ab"]),
    (r"(?i)(ſ)\1", ["ſs", "ſS"]),
    (r"(?P<x>a)(?P=x)", ["aa"]),
    (r"(a)?(?(1)b|c)", ["ab", "c", "ac"]),
    (r"(?>a+)a", ["aaa"]),
    (r"a++a", ["aaa"]),
    (r"(?=(a+))\1b", ["aab", "ab"]),
    (r"(a|ab)(c|bcd)(d*)", ["abcd"]),
    (r"\N{EM DASH}", ["—"]),
    (r"", ["", "x"]),
]


@pytest.mark.parametrize(("pattern", "texts"), NAMED, ids=[p for p, _ in NAMED])
@pytest.mark.parametrize("full_match", [False, True])
def test_named_cases_equal_python(pattern: str, texts: list[str], *, full_match: bool) -> None:
    expected = _python(pattern, texts, full_match=full_match)
    assert expected is not None
    df = pl.DataFrame({"response": texts})
    got = df.select(ps.regex_match("response", pattern=pattern, full_match=full_match))
    assert got.to_series().to_list() == expected


def test_the_python_side_searches_as_the_kernel() -> None:
    program = translate(r"(?<=a)b|^\d+$")
    assert [search(program, t, None) for t in ["ab", "42\n", "x"]] == [True, True, False]


# --- bounded cost -----------------------------------------------------------------------------

_PROBE = """
import sys, polars as pl, polarscore as ps
pattern, text, per_row = sys.argv[1], eval(sys.argv[2]), sys.argv[3] == "1"
df = pl.DataFrame({"response": [text, "ok"], "pattern": [pattern, "ok"]})
given = pl.col("pattern") if per_row else pattern
out = df.select(ps.regex_match_details("response", pattern=given)).to_series().to_list()
print(out[0]["score"], out[0]["reason"].split(":")[0], sep="|")
"""

#: (pattern, a Python expression for the text, per-row pattern?, outcome)
CATASTROPHIC = [
    # the probes: re backtracks for ever on these
    (r"^(\w+\s?)*$", "'a' * 64 + '!'", False, "0.0|Pattern not matched"),
    (r"(x+x+)+y\b", "'x' * 40", True, "0.0|Pattern not matched"),
    (r"^(a+)+$", "'a' * 5000 + '!'", False, "0.0|Pattern not matched"),
    (r"(a|aa)+$", "'a' * 100_000 + 'b'", True, "0.0|Pattern not matched"),
    (r"^(\d+)*[a-z]$", "'1' * 4_000_000 + '!'", False, "0.0|Pattern not matched"),
    (r"(\w+\s?)+\b!", "'word ' * 800_000", False, "0.0|Pattern not matched"),
    # back-references and look-arounds have no linear engine: the step budget ends them
    (r"^(a+)+\1$", "'a' * 40 + '!'", False, "None|Pattern not checked"),
    (r"(?=(a+)+$)b", "'a' * 40 + '!'", True, "None|Pattern not checked"),
    (r"(.*)(.*)(.*)\3x", "'ab' * 2000", False, "None|Pattern not checked"),
    (r"(?<=a)(b*)*\1c", "'ab' * 2_000_000", False, "None|Pattern not checked"),
]


@pytest.mark.parametrize(("pattern", "text", "per_row", "expected"), CATASTROPHIC)
def test_catastrophic_patterns_end(
    pattern: str, text: str, *, per_row: bool, expected: str
) -> None:
    """Each probe in its own process with a generous limit: it ends, with its outcome.

    (No timing is asserted; the benchmark script measures them.)"""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, pattern, text, str(int(per_row))],
        env=ENV,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_step_budget_is_an_option() -> None:
    df = pl.DataFrame({"response": ["a" * 25 + "!", "aab"]})
    pattern = r"^(a+)+\1$|aab"
    tight = df.select(ps.regex_match_details("response", pattern=pattern, step_budget=1_000))
    rows = tight.to_series().to_list()
    assert rows[0]["score"] is None
    assert rows[0]["reason"] == (
        f"Pattern not checked: {pattern} needs backtracking (a look-around or back-reference) "
        "and took more than 1,000 backtracking steps on this response (step_budget)"
    )
    assert rows[1]["score"] == 1.0
    lifted = df.select(ps.regex_match("response", pattern=pattern, step_budget=None))
    assert lifted.to_series().to_list() == [0.0, 1.0]
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(ps.InvalidParameterError, match="step_budget"):
            ps.regex_match("response", pattern="a", step_budget=bad)  # type: ignore[arg-type]


# --- a Python whose re parser the translation does not know ------------------------------------


@pytest.fixture
def fresh_translation() -> Iterator[None]:
    """Forget the once-per-process check and the cached programs, before and after."""
    from polarscore.kernels import _regex

    for cached in (_regex.check_translator, _regex.translate):
        cached.cache_clear()
    yield
    for cached in (_regex.check_translator, _regex.translate):
        cached.cache_clear()


def _refused(expr_builder: object) -> str:
    assert callable(expr_builder)
    with pytest.raises(ps.exceptions.RegexTranslationError) as caught:
        expr_builder()
    return str(caught.value)


@pytest.mark.usefixtures("fresh_translation")
def test_a_missing_parser_is_refused_when_the_expression_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polarscore.kernels import _regex

    monkeypatch.setattr(_regex, "_parser", None)
    for build in (
        lambda: ps.regex_match("response", pattern="a"),
        lambda: ps.regex_match("response", pattern=pl.col("pattern")),
        lambda: ps.json_schema("response", schema={"properties": {"k": {"pattern": "a"}}}),
        lambda: ps.json_schema("response", schema=pl.col("schema")),
    ):
        message = _refused(build)
        assert "re._parser" in message
        assert _regex.TESTED_PYTHONS in message
    # a schema without patterns needs no translation
    frame = pl.DataFrame({"response": ['{"k": 1}', "x"]})
    assert frame.select(
        ps.json_schema("response", schema={"type": "object"})
    ).to_series().to_list() == [1.0, 0.0]


@pytest.mark.usefixtures("fresh_translation")
def test_a_parser_that_reads_otherwise_is_refused_not_matched_wrongly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polarscore.kernels import _regex

    # a parser whose assertions mean something else: "$" read as "\A", say
    monkeypatch.setattr(_regex._Translator, "at", staticmethod(lambda code, flags: "A"))
    message = _refused(lambda: ps.regex_match("response", pattern="b$"))
    assert "reads it otherwise" in message


@pytest.mark.usefixtures("fresh_translation")
def test_an_element_the_translation_does_not_know_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from polarscore.kernels import _regex

    # a parser writing a literal as an opcode of its own
    constants = SimpleNamespace(**vars(vars(_regex)["_c"]))
    constants.LITERAL = object()
    monkeypatch.setattr(_regex, "_c", constants)
    message = _refused(lambda: _regex.translate("a"))
    assert "on the pattern" in message
