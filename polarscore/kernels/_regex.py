r"""Python regular expressions, translated for the Rust engine of Polars' ``str.contains``.

:func:`polarscore.regex_match` runs a literal pattern in Rust when :func:`native_pattern` can
translate it to a pattern that matches exactly the same texts there (Python's ``\d``, ``\s`` and
final ``$`` spelled out); anything else stays with Python's ``re``.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Callable
from functools import cache

from polarscore.normalize import PY_WS_CLASS


@cache
def py_digit_class() -> str:
    r"""Regex class body of Python's ``\d`` (Unicode decimal digits of the running interpreter)."""
    digits = [cp for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Nd"]
    ranges: list[tuple[int, int]] = []
    for cp in digits:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)


_SAFE_ESCAPES = frozenset(".^$*+?()[]{}|\\/-")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")
_MAX_NATIVE_REPEAT = 100


def _top_level_alternation(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and class (escapes skipped)."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def _native_escape(pattern: str, i: int, *, in_class: bool = False) -> tuple[str, int] | None:
    r"""Translate the escape at ``i``: punctuation, ``\n \t \r``, and ``\d \D \s \S``."""
    if i + 1 >= len(pattern):
        return None
    e = pattern[i + 1]
    if e in _SAFE_ESCAPES or e in "ntr":
        return "\\" + e, i + 2
    digit, space = py_digit_class(), PY_WS_CLASS
    if in_class:  # inside [...]: the bodies only, and no negated classes
        classes = {"d": digit, "s": space}
    else:
        classes = {"d": f"[{digit}]", "D": f"[^{digit}]", "s": f"[{space}]", "S": f"[^{space}]"}
    return None if e not in classes else (classes[e], i + 2)


def _native_class(pattern: str, i: int) -> tuple[str, int] | None:
    """Translate the class ``[...]`` at ``i`` (no nesting, no set operations)."""
    n = len(pattern)
    j = i + 1
    body: list[str] = []
    if j < n and pattern[j] == "^":
        body.append("^")
        j += 1
    if j < n and pattern[j] == "]":
        return None
    while j < n and pattern[j] != "]":
        if pattern[j] == "[" or pattern.startswith(("&&", "--", "~~"), j):
            return None
        step = (
            _native_escape(pattern, j, in_class=True) if pattern[j] == "\\" else (pattern[j], j + 1)
        )
        if step is None:
            return None
        body.append(step[0])
        j = step[1]
    if j >= n:
        return None
    return "[" + "".join(body) + "]", j + 1


def _native_group(pattern: str, i: int) -> tuple[str, int] | None:
    """Translate a group opening: ``(`` and ``(?:``; any other ``(?`` stays with Python."""
    if pattern.startswith("(?:", i):
        return "(?:", i + 3
    if pattern.startswith("(?", i):
        return None
    return "(", i + 1


def _native_repeat(pattern: str, i: int) -> tuple[str, int] | None:
    """Translate ``{m}``, ``{m,n}`` or ``{m,}`` with bounds the Rust engine accepts."""
    m = _REPEAT.match(pattern, i)
    if m is None or int(m.group(1)) > _MAX_NATIVE_REPEAT:
        return None
    if m.group(3) and int(m.group(3)) > _MAX_NATIVE_REPEAT:
        return None
    return m.group(0), m.end()


def _native_char(pattern: str, i: int) -> tuple[str, int] | None:
    """Keep any other character, except ``$`` and possessive quantifiers."""
    c = pattern[i]
    if c == "$" or (c in "*+?}" and pattern[i + 1 : i + 2] == "+"):
        return None
    return c, i + 1


_NATIVE_TOKENS: dict[str, Callable[[str, int], tuple[str, int] | None]] = {
    "\\": _native_escape,
    "[": _native_class,
    "(": _native_group,
    "{": _native_repeat,
}


def native_pattern(pattern: str, *, full_match: bool = False) -> str | None:
    r"""Translate a Python pattern for the Rust engine, or return None when it may differ.

    Only a conservative subset is translated: literals, ``.``, ``^``, groups ``(...)`` and
    ``(?:...)``, ``|``, the quantifiers ``* + ? {m} {m,n} {m,}`` (greedy or lazy), classes
    without nesting or set operations, the escapes of punctuation, ``\n \t \r``, and ``\d \D
    \s \S`` mapped to Python's own classes, and a final ``$`` (Python's: the end, or just before
    a final newline) when the pattern has no top-level ``|``. Anything else (another ``$``, ``\b``,
    ``\w``, flags, look-arounds, back-references, possessive quantifiers, ``{,n}``) stays with
    Python's ``re``. The result is for ``str.contains`` (search), or, with ``full_match``, for
    wrapping in ``^(?:...)$`` (fullmatch).
    """
    escapes = len(pattern[:-1]) - len(pattern[:-1].rstrip("\\"))
    if pattern.endswith("$") and escapes % 2 == 0:
        # A final "$" (no MULTILINE): the end, or just before a final newline.
        head = native_pattern(pattern[:-1], full_match=full_match)
        if head is None or _top_level_alternation(pattern[:-1]):
            return None
        return head + (r"\z" if full_match else r"\n?\z")
    out: list[str] = []
    i = 0
    while i < len(pattern):
        step = _NATIVE_TOKENS.get(pattern[i], _native_char)(pattern, i)
        if step is None:
            return None
        piece, i = step
        out.append(piece)
    return "".join(out)


def py_compile(pattern: str) -> re.Pattern[str]:
    """``re.compile`` without its FutureWarning about possible future syntax (``[[``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(pattern)


__all__ = ["native_pattern", "py_compile", "py_digit_class"]
