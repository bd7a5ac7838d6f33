# ruff: noqa: FBT001, FBT003, C901, PLR0915
"""Pure-Python oracles of ``final_choice`` and ``final_number``, written for clarity, not speed.

Each rule of the native kernels (``src/extract/final_choice.rs``, ``final_number.rs``) is written
here the plain way: every candidate position of the text is tried with a slice comparison, the
statements are collected into lists, and the preferred one is picked at the end. The kernels do
the same in one forward pass; the tests check that both read the same answer.
"""

from __future__ import annotations

from fractions import Fraction

# ---------------------------------------------------------------------------------------------
# Final numbers
# ---------------------------------------------------------------------------------------------

NUMBER_FORMS = ("last_number", "answer_line", "answer_is", "hash_line", "json_answer", "boxed")
MINUS = "\u2212".encode()


_WS = b" \t\n\x0c\r"  # Rust's `is_ascii_whitespace` (no vertical tab, unlike bytes.isspace)


def _ws(c: bytes) -> bool:
    return len(c) == 1 and c in _WS


def _digits(b: bytes, at: int) -> int:
    n = 0
    while at + n < len(b) and b[at + n : at + n + 1].isdigit():
        n += 1
    return n


def _negative_before(b: bytes, at: int) -> bool:
    i = at
    if i > 0 and b[i - 1 : i] == b"$":
        i -= 1
    if i >= 1 and b[i - 1 : i] == b"-":
        before = i - 1
    elif i >= 3 and b[i - 3 : i] == MINUS:
        before = i - 3
    else:
        return False
    if before == 0:
        return True
    c = b[before - 1 : before]
    return not (c.isalnum() or c in (b")", b"}"))


def _read_number(b: bytes, at: int) -> tuple[dict[str, object], int] | None:
    lead = _digits(b, at)
    if lead == 0:
        return None
    end, grouped = at + lead, False
    if lead <= 3:
        while True:
            if b[end : end + 1] == b"," and _digits(b, end + 1) == 3:
                end, grouped = end + 4, True
            elif b[end : end + 3] == b"{,}" and _digits(b, end + 3) == 3:
                end, grouped = end + 6, True
            else:
                break
    num: dict[str, object] = {"int": b[at:end], "frac": b"", "den": None}
    if b[end : end + 1] == b"." and _digits(b, end + 1):
        d = _digits(b, end + 1)
        num["frac"] = b[end + 1 : end + 1 + d]
        end += 1 + d
    after_slash = at >= 2 and b[at - 1 : at] == b"/" and b[at - 2 : at - 1].isdigit()
    if not grouped and not after_slash and not num["frac"] and b[end : end + 1] == b"/":
        d = _digits(b, end + 1)
        date = b[end + 1 + d : end + 2 + d] == b"/" and _digits(b, end + 2 + d) > 0
        if d and not date:
            num["den"] = b[end + 1 : end + 1 + d]
            end += 1 + d
    num["negative"] = _negative_before(b, at)
    return num, end


def _latex_fraction(b: bytes, at: int) -> tuple[dict[str, object], int] | None:
    for prefix in (b"\\frac{", b"\\dfrac{", b"\\tfrac{"):
        if b.startswith(prefix, at):
            p = at + len(prefix)
            pd = _digits(b, p)
            if pd == 0 or b[p + pd : p + pd + 2] != b"}{":
                return None
            q = p + pd + 2
            qd = _digits(b, q)
            if qd == 0 or b[q + qd : q + qd + 1] != b"}":
                return None
            num = {"int": b[p : p + pd], "frac": b"", "den": b[q : q + qd]}
            num["negative"] = _negative_before(b, at)
            return num, q + qd + 1
    return None


def _number_at(b: bytes, at: int) -> tuple[dict[str, object], int] | None:
    c = b[at : at + 1]
    if c.isdigit() and (at == 0 or not b[at - 1 : at].isdigit()):
        return _read_number(b, at)
    if c == b"." and (at == 0 or not b[at - 1 : at].isdigit()) and b[at + 1 : at + 2].isdigit():
        d = _digits(b, at + 1)
        num = {"int": b"", "frac": b[at + 1 : at + 1 + d], "den": None}
        num["negative"] = _negative_before(b, at)
        return num, at + 1 + d
    if c == b"\\":
        return _latex_fraction(b, at)
    return None


def canonical(num: dict[str, object]) -> str:
    """The canonical text of a read number (see ``final_number``'s docs)."""
    int_part = bytes(c for c in num["int"] if chr(c).isdigit()).decode() or "0"  # type: ignore[attr-defined]
    frac = num["frac"].decode().rstrip("0")  # type: ignore[attr-defined]
    if num["den"] is not None:
        p_text = int_part.lstrip("0") or "0"
        q_text = num["den"].decode().lstrip("0") or "0"  # type: ignore[attr-defined]
        p, q = int(p_text), int(q_text)
        if q == 0 or p >= 2**128 or q >= 2**128:  # the kernel's u128
            body = f"{p_text}/{q_text}"
        else:
            value = Fraction(p, q)
            rest = value.denominator
            for prime in (2, 5):
                while rest % prime == 0:
                    rest //= prime
            places = 0
            while rest == 1 and (value * 10**places).denominator != 1:
                places += 1
            factor = 10**places // value.denominator if rest == 1 else 0
            if rest == 1 and 10**places < 2**128 and value.numerator * factor < 2**128:
                scaled = str(value.numerator * factor).rjust(places + 1, "0")
                ip, fp = scaled[: len(scaled) - places], scaled[len(scaled) - places :]
                fp = fp.rstrip("0")
                body = f"{ip}.{fp}" if fp else ip
            else:
                body = f"{value.numerator}/{value.denominator}"
    else:
        body = int_part.lstrip("0") or "0"
        if frac:
            body += "." + frac
    zero = body == "0" or body.startswith("0/")
    return ("-" if num["negative"] and not zero else "") + body


_FILLER = b' \t\n\r:*$\\("_'


def _number_after_filler(b: bytes, at: int, limit: int) -> dict[str, object] | None:
    i, end = at, min(len(b), at + limit)
    while i < end:
        found = _number_at(b, i)
        if found:
            return found[0]
        if b[i : i + 1] == b"-":
            i += 1
            continue
        if b.startswith(MINUS, i):
            i += 3
            continue
        if b[i : i + 1] not in [bytes([c]) for c in _FILLER]:
            return None
        i += 1
    return None


def _number_in_sentence(b: bytes, at: int, limit: int) -> dict[str, object] | None:
    end, i = min(len(b), at + limit), at
    while i < end:
        found = _number_at(b, i)
        if found:
            return found[0]
        if b[i : i + 1] == b"\n" and i > at and any(c not in _WS for c in b[at:i]):
            return None
        if b[i : i + 1] == b"." and (i + 1 >= len(b) or _ws(b[i + 1 : i + 2])):
            return None
        i += 1
    return None


def _word_at(b: bytes, at: int, word: bytes) -> bool:
    return b[at : at + len(word)].lower() == word and (at == 0 or not b[at - 1 : at].isalpha())


def final_number(text: str) -> tuple[str, str] | None:
    """The canonical final number of ``text`` and its form, or None."""
    b = text.encode()
    n = len(b)
    statements: list[tuple[int, dict[str, object]]] = []  # (form rank, number)
    last = None
    sentences: list[dict[str, object]] = []
    sentence: dict[str, object] = {"depth": 0, "first": None, "after": None, "eq": False}

    def end_sentence() -> None:
        nonlocal sentence
        value = sentence["after"] or sentence["first"]
        if value:
            sentences.append(value)  # type: ignore[arg-type]
        sentence = {"depth": 0, "first": None, "after": None, "eq": False}

    box: dict[str, object] | None = None
    line_start = True
    i = 0
    while i < n:
        c = b[i : i + 1]
        if line_start and statements:
            rest = b[i:].lstrip(b" \t")
            if rest.startswith((b"Question:", b"Q:")):
                break
        line_start = c == b"\n"
        found = _number_at(b, i)
        if found:
            num, end = found
            last = num
            if sentence["depth"] == 0:
                sentence["first"] = sentence["first"] or num
                if sentence["eq"] and sentence["after"] is None:
                    sentence["after"] = num
            if box is not None:
                box["first"] = box["first"] or num
                if box["eq"] and box["after"] is None:
                    box["after"] = num
            i = end
            continue
        if c == b"\\" and box is None and b.startswith((b"\\boxed{", b"\\fbox{"), i):
            box = {"depth": 1, "first": None, "after": None, "eq": False}
            i += 7 if b[i + 1 : i + 2] == b"b" else 6
            continue
        if c == b"(":
            sentence["depth"] += 1  # type: ignore[operator]
        elif c == b")":
            sentence["depth"] = max(0, sentence["depth"] - 1)  # type: ignore[operator]
        elif c == b"=" and box is None:
            if sentence["depth"] == 0:
                sentence["eq"], sentence["after"] = True, None
        elif c in (b"\n", b"!", b"?") or (c == b"." and (i + 1 >= n or _ws(b[i + 1 : i + 2]))):
            end_sentence()
        elif c == b"=" and box is not None:
            box["eq"], box["after"] = True, None
        if box is not None and c == b"{":
            box["depth"] += 1  # type: ignore[operator]
        elif box is not None and c == b"}":
            box["depth"] -= 1  # type: ignore[operator]
            if box["depth"] == 0:
                value = box["after"] or box["first"]
                if value:
                    statements.append((5, value))  # type: ignore[arg-type]
                box = None
        elif c == b'"' and b.startswith(b'"answer"', i):
            j = i + 8
            while j < n and _ws(b[j : j + 1]) and j < i + 16:
                j += 1
            if b[j : j + 1] == b":":
                value = _number_after_filler(b, j + 1, 16)
                if value:
                    statements.append((4, value))
        elif c == b"#" and b.startswith(b"####", i) and (i == 0 or b[i - 1 : i] != b"#"):
            j = i + 4
            while b[j : j + 1] == b"#":
                j += 1
            value = _number_after_filler(b, j, 16)
            if value:
                statements.append((3, value))
        elif c in (b"a", b"A") and _word_at(b, i, b"answer"):
            j = i + 6
            if b[j : j + 1] in (b"s", b"S"):
                j += 1
            while j < n and b[j : j + 1] in (b" ", b"*") and j < i + 24:
                j += 1
            for verb in (b"is", b"would be", b"will be", b"should be", b"="):
                after = b[j + len(verb) : j + len(verb) + 1]
                if b[j : j + len(verb)].lower() == verb and not after.isalpha():
                    value = _number_in_sentence(b, j + len(verb), 80)
                    if value:
                        statements.append((2, value))
                    break
            else:
                if b[j : j + 1] == b":":
                    value = _number_after_filler(b, j + 1, 24)
                    if value:
                        statements.append((1, value))
        if c == b"A" and b[i + 1 : i + 2] == b":" and (i == 0 or b[i - 1 : i] == b"\n"):
            value = _number_after_filler(b, i + 2, 24)
            if value:
                statements.append((1, value))
        i += 1
    if box is not None:
        value = box["after"] or box["first"]
        if value:
            statements.append((5, value))  # type: ignore[arg-type]
    end_sentence()
    if statements:
        best = max(rank for rank, _ in statements)
        value = [num for rank, num in statements if rank == best][-1]
        return canonical(value), NUMBER_FORMS[best]
    value = sentences[-1] if sentences else last
    return (canonical(value), "last_number") if value else None


# ---------------------------------------------------------------------------------------------
# Final choices
# ---------------------------------------------------------------------------------------------

_WRAPPERS = (
    b"\\boxed{",
    b"\\text{",
    b"\\textbf{",
    b"\\mathrm{",
    b"\\mathbf{",
    b"\\(",
    b"option ",
    b"choice ",
    b"letter ",
    b"**",
)
_CHOICE_VERBS = (b"is", b"would be", b"will be", b"should be", b"must be")


def _is_word(c: bytes) -> bool:
    return len(c) == 1 and (c.isalnum() or c == b"_")


def _choice_word_at(b: bytes, at: int, word: bytes) -> bool:
    return b[at : at + len(word)].lower() == word and (at == 0 or not _is_word(b[at - 1 : at]))


def _letter_at(b: bytes, at: int, wrapped: bool, options: int) -> tuple[str, int] | None:
    c = b[at : at + 1]
    if not c or _is_word(b[at + 1 : at + 2]):
        return None
    upper = c.upper()
    if not (b"A" <= upper <= b"Z") or ord(upper) - ord("A") >= options:
        return None
    if c.islower() and not wrapped and b[at + 1 : at + 2] != b")":
        return None
    return upper.decode(), at + 1


def _second_letter(b: bytes, at: int, first: str, options: int) -> bool:
    limit = min(len(b), at + 24)
    i = at
    while i < limit and b[i : i + 1] == b" ":
        i += 1
    if b[i : i + 3].lower() == b"and":
        joined = 3
    elif b[i : i + 2].lower() == b"or":
        joined = 2
    elif b[i : i + 1] in (b",", b"&", b"/") and i < len(b):
        joined = 1
    else:
        return False
    i += joined
    if joined > 1 and _is_word(b[i : i + 1]):
        return False
    wrapped = False
    while i < limit and b[i : i + 1] in (b" ", b"(", b"*"):
        wrapped |= b[i : i + 1] != b" "
        i += 1
    found = _letter_at(b, i, wrapped, options)
    if found is None:
        return False
    second, end = found
    standing = end >= len(b) or b[end : end + 1] in (
        b")",
        b"*",
        b".",
        b",",
        b" ",
        b"\n",
        b"\r",
        b";",
    )
    return standing and second != first and not (second == "I" and not wrapped)


def _letter_after(b: bytes, at: int, options: int, in_box: bool) -> tuple[str, int, bool] | None:
    limit = min(len(b), at + 40)
    i, wrapped = at, in_box
    while i < limit:
        c = b[i : i + 1]
        if c in (b" ", b"\t", b"\n", b"\r", b":", b"$", b'"', b"'", b"_", b"="):
            i += 1
            continue
        if c in (b"(", b"[", b"{", b"*"):
            wrapped, i = True, i + 1
            continue
        wrapper = next((w for w in _WRAPPERS if b[i : i + len(w)].lower() == w.lower()), None)
        if wrapper is not None:
            wrapped, i = True, i + len(wrapper)
            continue
        break
    if i >= limit:
        return None
    found = _letter_at(b, i, wrapped, options)
    if found is None:
        return None
    letter, end = found
    while end < len(b) and b[end : end + 1] in (b")", b"]", b"}", b"*", b"$") and end < i + 12:
        end += 1
    k = end
    while k < len(b) and b[k : k + 1] == b" " and k < end + 3:
        k += 1
    if _choice_word_at(b, k, b"is"):
        rest = b[k + 2 :]
        rest = rest[1:] if rest.startswith(b" ") else rest
        if rest[:7].lower() != b"correct":
            return None
    return letter, end, _second_letter(b, end, letter, options)


def _letter_before(b: bytes, at: int, options: int) -> tuple[str, int, bool] | None:
    i = at
    while i > 0 and b[i - 1 : i] == b" " and at - i < 4:
        i -= 1
    wrapped = False
    while i > 0 and b[i - 1 : i] in (b")", b"*") and at - i < 8:
        wrapped, i = True, i - 1
    start = i - 1
    if start < 0 or (start > 0 and _is_word(b[start - 1 : start])):
        return None
    found = _letter_at(b, start, wrapped, options)
    if found is None or (found[0] == "I" and not wrapped):
        return None
    return found[0], at, False


def _normalized(s: bytes) -> bytes:
    out = bytearray()
    for c in s:
        ch = bytes([c])
        if ch in (b"*", b"$", b"\\"):
            continue
        if ch in _WS:
            if out and out[-1:] not in (b" ", b"-"):
                out += b" "
        else:
            out += ch.lower()
    return bytes(out).rstrip(b" .")


def _ends_phrase(rest: bytes) -> bool:
    if not rest:
        return True
    if rest[:1] in (b".", b","):
        return len(rest) == 1 or not rest[1:2].isdigit()
    if rest[:1] in (b";", b"\n", b")", b"*"):
        return True
    return rest.startswith((b" (", b" but ", b" which ", b" as "))


def _options_starting(stretch: bytes, options: list[bytes]) -> list[int]:
    return [
        k
        for k, o in enumerate(options)
        if o and stretch.startswith(o) and _ends_phrase(stretch[len(o) :])
    ]


def final_choice(
    text: str, options: list[str | None] | None = None
) -> tuple[str | None, str | None, str | None]:
    """``(choice, form, reason)`` as ``final_choice_details`` gives them."""
    b = text.encode()
    n = len(b)
    count = 26 if options is None else min(len(options), 26)
    statements: list[tuple[int, tuple[str, int, bool], str]] = []  # (at, hit, form)
    letterless = None
    bold = None

    def state(at: int, hit: tuple[str, int, bool], form: str) -> None:
        if statements and at < statements[-1][1][1]:
            return
        statements.append((at, hit, form))

    line_start = True
    for i in range(n):
        c = b[i : i + 1]
        if line_start and statements and b[i:].lstrip(b" \t").startswith(b"Question:"):
            break
        line_start = c == b"\n"
        if c in (b"a", b"A") and _choice_word_at(b, i, b"answer"):
            j = i + 6
            if b[j : j + 1] in (b"s", b"S"):
                j += 1
            while j < n and b[j : j + 1] in (b" ", b"*", b"_") and j < i + 20:
                j += 1
            for filler in (b"choice", b"option", b"letter"):
                if _choice_word_at(b, j, filler):
                    j += len(filler)
                    while j < n and b[j : j + 1] == b" ":
                        j += 1
            verb = next(
                (
                    v
                    for v in _CHOICE_VERBS
                    if b[j : j + len(v)].lower() == v
                    and not _is_word(b[j + len(v) : j + len(v) + 1])
                ),
                None,
            )
            if verb is not None:
                form, start = "answer_is", j + len(verb)
            elif b[j : j + 1] == b":":
                form, start = "answer_colon", j + 1
            else:
                form, start = "answer_is", None
            conditional = b"then " in b[max(0, i - 10) : i].lower()
            if start is not None and not conditional:
                hit = _letter_after(b, start, count, False)
                if hit is not None:
                    state(i, hit, form)
                else:
                    letterless = start
        elif c == b"i" and any(
            _choice_word_at(b, i, p)
            for p in (
                b"is the correct answer",
                b"is the correct option",
                b"is the correct choice",
                b"is the best answer",
            )
        ):
            hit = _letter_before(b, i, count)
            if hit is not None:
                state(i, hit, "answer_is")
        elif c in (b"c", b"C") and _choice_word_at(b, i, b"closest is"):
            hit = _letter_after(b, i + 10, count, False)
            if hit is not None:
                state(i, hit, "answer_is")
        elif c in (b"o", b"O", b"c", b"C") and (
            _choice_word_at(b, i, b"option is") or _choice_word_at(b, i, b"choice is")
        ):
            hit = _letter_after(b, i + 9, count, False)
            if hit is not None:
                state(i, hit, "answer_is")
        elif c == b"\\" and b.startswith(b"\\boxed{", i):
            hit = _letter_after(b, i + 7, count, True)
            if hit is not None:
                state(i, hit, "boxed")
        elif c == b"*" and b.startswith(b"**", i) and (i == 0 or b[i - 1 : i] != b"*"):
            j = i + 2
            wrapped = b[j : j + 1] == b"("
            j += int(wrapped)
            found = _letter_at(b, j, True, count)
            if found is not None:
                letter, end = found
                closes = (
                    b[end : end + 1] == b")"
                    if wrapped
                    else b[end : end + 1] in (b"*", b".", b")", b":")
                )
                if closes and (letter != "I" or wrapped or b[end : end + 1] == b"*"):
                    bold = letter
    opts = None
    if options is not None:
        opts = [_normalized((o or "").encode()) for o in options[:26]]
    longest = max((len(o) for o in opts), default=0) if opts is not None else 0
    if statements:
        _, (letter, end, several), form = statements[-1]
        if several:
            return None, form, "several_letters"
        if opts is not None:
            j = end
            while j < n and b[j : j + 1] in (b".", b")", b":", b" ", b"*") and j < end + 6:
                j += 1
            stop = min(n, j + 4 * longest + 16)
            line_end = b.find(b"\n", j, stop)
            named = _options_starting(_normalized(b[j : stop if line_end < 0 else line_end]), opts)
            if named and ord(letter) - ord("A") not in named:
                return None, form, "contradiction"
        return letter, form, None
    if bold is not None:
        return bold, "bold", None
    start = next((k for k in range(n) if b[k] not in _WS), n)
    if start < n:
        paren = b[start : start + 1] == b"("
        found = _letter_at(b, start + int(paren), paren, count)
        if found is not None:
            letter, end = found
            if paren:
                ok = b[end : end + 1] == b")"
            else:
                ok = end >= n or b[end : end + 1] in (b".", b")", b":", b"\n", b"\r")
            line_end = b.find(b"\n", end)
            line_end = n if line_end < 0 else line_end
            rest = b[min(end + 1, line_end) : line_end]
            alone = all(ch in _WS or ch in b".)*" for ch in rest)
            own_text = opts is not None and (ord(letter) - ord("A")) in _options_starting(
                _normalized(rest), opts
            )
            if ok and (alone or own_text or n - start <= 100):
                form = "parenthesized" if paren else "leading_letter"
                if _second_letter(b, end + int(paren), letter, count):
                    return None, form, "several_letters"
                return letter, form, None
    end = max((k + 1 for k in range(n) if b[k] not in _WS), default=0)
    line = b.rfind(b"\n", 0, end) + 1
    last_line = b[line:end]
    marks = _WS + b"*.()"
    core = last_line.strip(marks)
    if len(core) == 1:
        found = _letter_at(core, 0, b"(" in last_line, count)
        if found is not None:
            letter = found[0]
            prev_end = max((k + 1 for k in range(line) if b[k] not in _WS), default=0)
            prev_line = b[b.rfind(b"\n", 0, prev_end) + 1 : prev_end]
            first = prev_line.lstrip(b" *(")[:1]
            if not (letter > "A" and first == chr(ord(letter) - 1).encode()):
                return letter, "bare_letter", None
    if opts is not None:
        candidates = []
        if letterless is not None:
            stop = min(n, letterless + 4 * longest + 16)
            line_end = b.find(b"\n", letterless, stop)
            candidates.append((letterless, stop if line_end < 0 else line_end))
        candidates += [(0, n), (line, end)]
        for start_, stop_ in candidates:
            trimmed = _normalized(b[start_:stop_]).lstrip(b" :")
            equal = [k for k, o in enumerate(opts) if o and o == trimmed]
            if len(equal) == 1:
                return chr(ord("A") + equal[0]), "option_text", None
            if start_ != 0 or stop_ != n:
                named = _options_starting(trimmed, opts)
                if len(named) == 1 and start_ != line:
                    return chr(ord("A") + named[0]), "option_text", None
    return None, None, "no_letter"
