r"""Python regular expressions, translated for polarscore's native regex kernel.

:func:`translate` reads a pattern with Python's own parser (``re._parser``, so exactly the
syntax Python accepts) and writes it as a small program for the kernel (``src/pyregex``), with
every piece of Python's meaning spelled out: each character class, ``\w``, ``\d``, ``\s``, a
literal under ``(?i)`` (with ``re``'s own case rules, checked against ``re`` itself on every
cased code point) and ``.`` become explicit sets of code points; ``^``, ``$``, ``\A``, ``\Z``,
``\b`` and ``\B`` keep their Python meaning under the flags in force where they stand. The kernel
runs the program in a linear-time engine (Rust's ``regex-automata``), or, for what no linear
engine has (look-arounds, back-references, conditionals, atomic groups, possessive quantifiers),
in a backtracking engine with a per-row step budget.

The program (one line of ASCII):

* header ``pyre1;G<groups>;F<0|1 fullmatch>;`` then, only for a case-insensitive back-reference,
  ``L<code point:lowercase,...>;`` (``re``'s own single-character lowercase), then one node;
* nodes: ``e`` (empty), ``c[<lo>-<hi>,...]`` (one character of a set, hexadecimal),
  ``q<n>:`` and ``a<n>:`` followed by ``n`` nodes (sequence, alternation), ``r<min>,<max|*><g|l|p>``
  and a node (greedy, lazy or possessive repetition), ``g<i>:`` and a node (capture group),
  ``k<i><s|u|a>`` (back-reference: case-sensitive, ``(?i)``, ``(?ai)``), ``la``/``ln`` and a node
  (look-ahead, negative), ``lb<width>:``/``lc<width>:`` and a node (look-behind, negative),
  ``t<i>:`` and two nodes (conditional), ``o`` and a node (atomic group), and the assertions
  ``^A`` (start), ``^z`` (end), ``^$`` (Python's ``$``: the end, or before a final newline),
  ``^m``/``^M`` (``(?m)`` ``^``/``$``), ``^b``/``^B`` (``\b``/``\B`` over Python's ``\w``) and
  ``^x``/``^X`` (ASCII ones).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import platform
import re
import warnings
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

from polarscore.exceptions import RegexTranslationError

try:  # CPython's private modules (3.11 on): the one reading of a pattern that is exactly re's
    from re import _compiler, _parser  # type: ignore[attr-defined]
    from re import _constants as _c  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without them is refused by check_translator
    _compiler = _parser = _c = None

#: The version of the program format the kernel reads.
PROGRAM_VERSION = "pyre1"

#: The default ``step_budget`` of ``regex_match`` and ``json_schema``: the steps a pattern that
#: needs backtracking may take on one text (about 0.1 s on one core).
DEFAULT_STEP_BUDGET = 10_000_000

_MAX_CODE = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)

Ranges = list[tuple[int, int]]


@cache
def py_digit_class() -> str:
    r"""Regex class body of Python's ``\d`` (Unicode decimal digits of the running interpreter)."""
    return "".join(
        f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in _category(_c.CATEGORY_DIGIT, ascii_only=False)
    )


def py_compile(pattern: str) -> re.Pattern[str]:
    """``re.compile`` without its FutureWarning about possible future syntax (``[[``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(pattern)


# --- sets of code points --------------------------------------------------------------------------


def _normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sort and merge ``ranges``; surrogates (never in a Polars string) are left out."""
    out: Ranges = []
    for lo, hi in sorted(ranges):
        for a, b in _without_surrogates(lo, hi):
            if out and a <= out[-1][1] + 1:
                if b > out[-1][1]:
                    out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out


def _without_surrogates(lo: int, hi: int) -> list[tuple[int, int]]:
    s_lo, s_hi = _SURROGATES
    if hi < s_lo or lo > s_hi:
        return [(lo, hi)]
    parts = []
    if lo < s_lo:
        parts.append((lo, s_lo - 1))
    if hi > s_hi:
        parts.append((s_hi + 1, hi))
    return parts


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE:
        out.append((start, _MAX_CODE))
    return _normalize(out)


def _from_code_points(points: Iterable[int]) -> Ranges:
    return _normalize((p, p) for p in points)


@cache
def _every_character() -> str:
    return "".join(chr(c) for c in range(_MAX_CODE + 1) if not 0xD800 <= c <= 0xDFFF)


@cache
def _category(category: Any, *, ascii_only: bool) -> Ranges:
    r"""Return the code points ``re`` puts in ``\d``, ``\w``, ``\s`` or a negation of one."""
    escape = {
        _c.CATEGORY_DIGIT: r"\d",
        _c.CATEGORY_NOT_DIGIT: r"\D",
        _c.CATEGORY_SPACE: r"\s",
        _c.CATEGORY_NOT_SPACE: r"\S",
        _c.CATEGORY_WORD: r"\w",
        _c.CATEGORY_NOT_WORD: r"\W",
    }[category]
    positive = escape.lower()
    found = re.findall(("(?a)" if ascii_only else "") + positive, _every_character())
    ranges = _from_code_points(map(ord, found))
    return ranges if escape == positive else _complement(ranges)


@cache
def _cased() -> str:
    """Every code point ``re``'s case-insensitive matching can treat specially, as one string.

    The code points ``_sre`` calls cased, their single-character lower and upper case, and
    every code point of ``re``'s extra case equivalences. Outside of these, a character matches
    a set case-insensitively exactly when it is in the set.
    """
    points: set[int] = set()
    for code in range(_MAX_CODE + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        if _sre.unicode_iscased(code):
            points.update((code, _sre.unicode_tolower(code), _upper(code)))
    for key, values in _compiler._EXTRA_CASES.items():
        points.add(key)
        points.update(values)
    return "".join(chr(p) for p in sorted(points) if not 0xD800 <= p <= 0xDFFF)


def _upper(code: int) -> int:
    upper = chr(code).upper()
    return ord(upper) if len(upper) == 1 else code


@cache
def _lowercase_table() -> str:
    """``re``'s single-character lowercase of every code point it changes, for the header."""
    pairs = [
        f"{code:x}:{_sre.unicode_tolower(code):x}"
        for code in range(_MAX_CODE + 1)
        if not 0xD800 <= code <= 0xDFFF and _sre.unicode_tolower(code) != code
    ]
    return "L" + ",".join(pairs) + ";"


def _case_closure(ranges: Ranges, items: list[tuple[Any, Any]], flags: int) -> Ranges:
    """Return the set ``items`` (an ``IN`` node's body) matches under ``IGNORECASE``.

    Characters outside :func:`_cased` match exactly when they are in ``ranges`` (the set
    without case folding); each cased one is asked of ``re`` itself, compiled from the same
    parsed set with the same flags.
    """
    state = _parser.State()
    state.flags = flags
    compiled = _compiler.compile(_parser.SubPattern(state, [(_c.IN, items)]), 0)
    universe = _cased() if not flags & _c.SRE_FLAG_ASCII else _ASCII_LETTERS
    matched = {ord(ch) for ch in compiled.findall(universe)}
    kept = _subtract(ranges, _from_code_points(map(ord, universe)))
    return _normalize([*kept, *((p, p) for p in matched)])


_ASCII_LETTERS = "".join(chr(c) for c in range(0x41, 0x5B)) + "".join(
    chr(c) for c in range(0x61, 0x7B)
)


def _subtract(ranges: Ranges, removed: Ranges) -> Ranges:
    return _intersect(ranges, _complement(removed))


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    out: Ranges = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _set_text(ranges: Ranges) -> str:
    return "c[" + ",".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in ranges) + "]"


# --- translation ------------------------------------------------------------------------------


#: The flags that choose what a character class means; one of them replaces the others.
_TYPE_FLAGS = _c.SRE_FLAG_ASCII | _c.SRE_FLAG_LOCALE | _c.SRE_FLAG_UNICODE


def _combine_flags(flags: int, add: int, remove: int) -> int:
    """Return a group's flags as ``re`` combines them: ``(?a:...)``, ``(?u:...)`` set the type."""
    if add & _TYPE_FLAGS:
        flags &= ~_TYPE_FLAGS
    return (flags | add) & ~remove


@cache
def _first_character_quirk() -> bool:
    r"""Whether ``re.search`` checks a pattern's first character set under the pattern's own flags.

    CPython's search skips ahead to a position whose character is in the set a pattern starts
    with, and compiles that set's ``\w``, ``\d`` and ``\s`` under the flags of the whole pattern,
    not those of the group it stands in. So ``re.search(r"(?a:\W)", "é")`` finds nothing (``é``
    is a Unicode word character) while ``re.fullmatch`` matches. Asked of ``re`` itself, so a
    Python that behaves otherwise gets its own behaviour.
    """
    return re.search(r"(?a:\W)", "\xe9") is None


def _searched_first_set(parsed: Any, flags: int) -> tuple[Any, Ranges] | None:
    """Return the set ``re.search`` asks of a match's first character, where it narrows the pattern.

    Returns the parsed set the pattern starts with and the code points the search lets through
    (the set read under the pattern's own flags, never folding case), or None where the search's
    check is the pattern's own. Mirrors the conditions under which ``re`` compiles the check: a
    pattern that cannot match the empty text and has no literal prefix.
    """
    if not _first_character_quirk() or parsed.getwidth()[0] == 0:
        return None
    if _compiler._get_literal_prefix(parsed, flags)[0]:
        return None
    node = parsed
    while node.data and node.data[0][0] is _c.SUBPATTERN:
        node = node.data[0][1][3]
    if not node.data or node.data[0][0] is not _c.IN:
        return None
    items = node.data[0][1]
    if _compiler._get_charset_prefix(parsed, flags) is not items:
        return None
    return items, _Translator().charset(items, flags & ~_c.SRE_FLAG_IGNORECASE)


class _Translator:
    def __init__(self, first_set: tuple[Any, Ranges] | None = None) -> None:
        self.case_backref = False
        #: The pattern's first set and the code points ``re.search`` lets through it.
        self.first_set = first_set

    def nodes(self, items: Sequence[tuple[Any, Any]], flags: int) -> str:
        parts = [self.node(op, av, flags) for op, av in items]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return "e"
        return f"q{len(parts)}:" + "".join(parts)

    def node(self, op: Any, av: Any, flags: int) -> str:  # noqa: C901
        if op is _c.LITERAL or op is _c.NOT_LITERAL:
            ranges = self.literal(av, flags)
            return _set_text(ranges if op is _c.LITERAL else _complement(ranges))
        if op is _c.ANY:
            newline = [(10, 10)]
            return _set_text(
                _normalize([(0, _MAX_CODE)] if flags & _c.SRE_FLAG_DOTALL else _complement(newline))
            )
        if op is _c.IN:
            ranges = self.charset(av, flags)
            if self.first_set is not None and self.first_set[0] is av:
                ranges = _intersect(ranges, self.first_set[1])
            return _set_text(ranges)
        if op is _c.BRANCH:
            alternatives = [self.nodes(alt, flags) for alt in av[1]]
            return f"a{len(alternatives)}:" + "".join(alternatives)
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, high, item = av
            kind = {_c.MAX_REPEAT: "g", _c.MIN_REPEAT: "l", _c.POSSESSIVE_REPEAT: "p"}[op]
            top = "*" if high == _c.MAXREPEAT else str(high)
            return f"r{low},{top}{kind}" + self.nodes(item, flags)
        if op is _c.SUBPATTERN:
            group, add, remove, item = av
            inner = self.nodes(item, _combine_flags(flags, add, remove))
            return inner if group is None else f"g{group}:{inner}"
        if op is _c.ATOMIC_GROUP:
            return "o" + self.nodes(av, flags)
        if op is _c.GROUPREF:
            if not flags & _c.SRE_FLAG_IGNORECASE:
                return f"k{av}s"
            if flags & _c.SRE_FLAG_ASCII:
                return f"k{av}a"
            self.case_backref = True
            return f"k{av}u"
        if op is _c.GROUPREF_EXISTS:
            group, yes, no = av
            return f"t{group}:" + self.nodes(yes, flags) + (self.nodes(no, flags) if no else "e")
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, item = av
            inner = self.nodes(item, flags)
            positive = op is _c.ASSERT
            if direction >= 0:
                return ("la" if positive else "ln") + inner
            width = item.getwidth()[0]
            return ("lb" if positive else "lc") + f"{width}:" + inner
        if op is _c.AT:
            return "^" + self.at(av, flags)
        raise _UnsupportedError(f"pattern element {op}")

    def literal(self, code: int, flags: int) -> Ranges:
        if not flags & _c.SRE_FLAG_IGNORECASE:
            return [(code, code)]
        return _case_closure([(code, code)], [(_c.LITERAL, code)], flags)

    def charset(self, items: list[tuple[Any, Any]], flags: int) -> Ranges:
        ascii_only = bool(flags & _c.SRE_FLAG_ASCII)
        parts: Ranges = []
        negate = False
        for op, av in items:
            if op is _c.NEGATE:
                negate = True
            elif op is _c.LITERAL:
                parts.append((av, av))
            elif op is _c.RANGE:
                parts.append(av)
            elif op is _c.CATEGORY:
                parts.extend(_category(av, ascii_only=ascii_only))
            else:  # the parser of a Python the translation does not know
                raise _UnsupportedError(f"set element {op}")
        ranges = _normalize(parts)
        if negate:
            ranges = _complement(ranges)
        if flags & _c.SRE_FLAG_IGNORECASE:
            ranges = _case_closure(ranges, items, flags)
        return ranges

    @staticmethod
    def at(code: Any, flags: int) -> str:
        multiline = bool(flags & _c.SRE_FLAG_MULTILINE)
        ascii_only = bool(flags & _c.SRE_FLAG_ASCII)
        if code is _c.AT_BEGINNING:
            return "m" if multiline else "A"
        if code is _c.AT_BEGINNING_STRING:
            return "A"
        if code is _c.AT_END:
            return "M" if multiline else "$"
        if code is _c.AT_END_STRING:
            return "z"
        if code is _c.AT_BOUNDARY:
            return "x" if ascii_only else "b"
        if code is _c.AT_NON_BOUNDARY:
            return "X" if ascii_only else "B"
        raise _UnsupportedError(f"assertion {code}")


@lru_cache(maxsize=512)
def translate(pattern: str, *, full_match: bool = False) -> str:
    r"""Return the kernel's program for ``pattern``: searched, or with ``full_match`` whole.

    Raises what ``re.compile`` raises for a pattern Python refuses (``re.error``, and for absurd
    nesting ``RecursionError`` or ``OverflowError``).

    Examples
    --------
    >>> from polarscore.kernels._regex import translate
    >>> translate(r"a|\Z")
    'pyre1;G1;F0;a2:c[61]^z'
    """
    py_compile(pattern)  # Python's own errors, for a pattern it refuses
    check_translator()
    try:
        return _translate(pattern, full_match=full_match)
    except _UnsupportedError as unknown:
        raise RegexTranslationError(_unknown_parser(f"holds a {unknown}", pattern)) from None


def _translate(pattern: str, *, full_match: bool) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        parsed = _parser.parse(pattern, 0)
    flags = _parser.fix_flags(pattern, parsed.state.flags)
    translator = _Translator(None if full_match else _searched_first_set(parsed, flags))
    body = translator.nodes(parsed.data, flags)
    header = f"{PROGRAM_VERSION};G{parsed.state.groups};F{int(full_match)};"
    if translator.case_backref:
        header += _lowercase_table()
    return header + body


class _UnsupportedError(Exception):
    """A parsed element the translation does not know (another Python's parser)."""


#: The Python versions whose ``re._parser`` the translation is tested on.
TESTED_PYTHONS = "CPython 3.11"

#: Patterns reaching every kind of element the translation writes, and texts each must (or must
#: not) match as ``re.search`` does: :func:`check_translator` runs them once per process.
_CANARIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"(?i)ß|[^\W\d_]x\b", ("SS", "ẞ", "éx y", "9x", "_x", "ax1")),
    (r"^a.c$|\Aq\Z", ("abc\n", "abc\n\n", "a\nc", "q", "q\n")),
    (r"(?m)^m$", ("x\nm\ny", "xm")),
    (r"(?s)a.c|x{2,3}?y|\d+?\s\B", ("a\nc", "xy", "xxy", "١٢ ", "7 a")),
    (r"(a)(?(1)b|c)\1|(?<=x)y(?!z)|(?>d+)e|f*+f", ("aba", "ab", "xy", "xyz", "dde", "fff")),
    (r"(?ai)\w(?-i:K)|[\x80-\xff]", ("ék", "ak", "aK", "\x99")),
    (r"(?a:\W)", ("é", " ")),
    (r"(?a)(?u:\w)", ("é", "a")),
    (r"(?a)x?(?u:\w)", ("é", "a", " ")),
)


@cache
def check_translator() -> None:
    """Refuse, with a clear error, a Python whose ``re`` parser the translation does not know.

    Runs once per process: the parser must be there, and a few patterns covering every element
    the translation writes must match, natively, exactly where ``re.search`` does.
    """
    if _parser is None or _compiler is None or _c is None:
        raise RegexTranslationError(_unknown_parser("is missing (re._parser)", None))
    for pattern, texts in _CANARIES:
        try:
            program = _translate(pattern, full_match=False)
        except (_UnsupportedError, AttributeError, TypeError, ValueError, re.error) as error:
            raise RegexTranslationError(_unknown_parser(f"fails ({error})", pattern)) from None
        for text in texts:
            if search(program, text, None) != (re.search(pattern, text) is not None):
                raise RegexTranslationError(
                    _unknown_parser(f"reads it otherwise (on {text!r})", pattern)
                )


def _unknown_parser(what: str, pattern: str | None) -> str:
    python = f"{platform.python_implementation()} {platform.python_version()}"
    where = "" if pattern is None else f" on the pattern {pattern!r}"
    return (
        f"regex_match and json_schema read patterns with Python's own parser, whose reading "
        f"{what}{where} on this Python ({python}); polarscore's translation is tested on "
        f"{TESTED_PYTHONS}, so it refuses to match rather than risk a wrong match"
    )


def check_step_budget(value: Any, function: str) -> int | None:
    """Check a ``step_budget`` option: a positive integer, or None for no bound."""
    from polarscore._validation import check_budget

    return check_budget(value, function=function, parameter="step_budget")


def search(
    program: str, text: str, step_budget: int | None, *, backtrack: bool = False
) -> bool | None:
    """Run a program on one text from Python: True, False, or None when over budget.

    With ``backtrack`` the backtracking path runs whatever the pattern: whether it ends within
    ``step_budget`` tells whether ``re``'s own backtracking would end in comparable time.
    """
    from polarscore import _internal
    from polarscore.kernels._plugin import load_unicode_tables

    load_unicode_tables()
    code = _internal.regex_search(program, text, step_budget, backtrack)
    return None if code < 0 else code == 1


__all__ = [
    "DEFAULT_STEP_BUDGET",
    "PROGRAM_VERSION",
    "TESTED_PYTHONS",
    "check_step_budget",
    "check_translator",
    "py_compile",
    "py_digit_class",
    "search",
    "translate",
]
