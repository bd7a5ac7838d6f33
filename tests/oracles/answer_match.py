"""A slow, obviously written pure-Python oracle of ``answer_match`` (tests only).

It restates the rules of ``polarscore.scores.match`` row by row with Python's ``re`` and
``unicodedata``. The native kernel reads characters with the running Python's own tables
(``re``'s ``\\w`` and ``\\d``, letters as ``[^\\W\\d_]``, ``str.lower()``, NFKD without marks),
so the two agree on any text, not only on the alphabets the property tests draw from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from polarscore.normalize import ARTICLES, NUMBER_WORDS
from polarscore.scores._match_kernel import NO_MATCH, NO_REFERENCE, STOPWORDS
from polarscore.scores.match import RULE_DEFAULTS as DEFAULTS

_L = r"[^\W\d_]"


#: Rust's ``char::is_ascii_whitespace``, and ASCII's capitals to lower case.
_ASCII_SPACE = " \t\n\x0c\r"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def normalize(text: str, *, fold_accents: bool = True, number_words: bool = True) -> str:
    if fold_accents:
        text = "".join(
            c
            for c in unicodedata.normalize("NFKD", text)
            if not unicodedata.category(c).startswith("M")
        )
    text = text.lower()
    text = re.sub(rf"({_L})(?:\.?['’]s\b|['’.])", r"\1", text)
    text = re.sub(r"(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b", r"\1\2\3\4", text)
    text = re.sub(rf"({_L})(\d)", r"\1 \2", text)
    text = re.sub(r"(\d)\.(\d)", r"\1_\2", text)
    words = [w for w in re.split(r"[^\w]+", text) if w]
    out = []
    for word in words:
        if number_words:
            word = re.sub(r"(\d)(?:st|nd|rd|th)$", r"\1", word)
            word = NUMBER_WORDS.get(word, word)
        if word not in ARTICLES:
            out.append(word)
    return " " + " ".join(out) + " " if out else " "


#: Both suffix rules look at most this many characters from the end of a token ("xxXies" and
#: "xxxXes"), so the oracle applies them to that tail only: Python's backtracking regex takes
#: quadratic time on a long token that fails them (a 1 MB token: hours), while the result of
#: the substitution is the same (what precedes the tail never changes whether or how it matches).
_SUFFIX_WINDOW = 6


def stem(token: str, prefix: int | None) -> str:
    if prefix is None or re.match(r"\d", token):
        return token
    head, tail = token[:-_SUFFIX_WINDOW], token[-_SUFFIX_WINDOW:]
    tail = re.sub(rf"({_L}{{2,}}[^s])ies$", r"\1y", tail, count=1)
    tail = re.sub(rf"({_L}{{3,}}[^s])e?s$", r"\1", tail, count=1)
    return (head + tail)[:prefix]


def content_tokens(text: str, prefix: int | None) -> set[str]:
    return {stem(t, prefix) for t in text.split(" ") if t and t not in STOPWORDS}


# --- the second-round rules --------------------------------------------------------------------

#: The characters cp1252 puts on bytes 0x80-0x9F (the five bytes it leaves undefined are absent).
_CP1252_HIGH = {
    ch: byte
    for byte in range(0x80, 0xA0)
    if (ch := bytes([byte]).decode("cp1252", errors="ignore"))
}


def repair_mojibake(text: str) -> str:
    """UTF-8 read as Latin-1 or cp1252, undone when the text re-encodes cleanly; else unchanged."""
    if text.isascii():
        return text
    raw = bytearray()
    for c in text:
        if ord(c) < 0x100:
            raw.append(ord(c))
        elif c in _CP1252_HIGH:
            raw.append(_CP1252_HIGH[c])
        else:
            return text
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return text


def drop_parentheticals(text: str) -> str:
    """Each innermost ``(...)`` replaced by a space."""
    return re.sub(r"\([^()]*\)", " ", text)


def _words(text: str) -> int:
    return len([w for w in text.split(" ") if w])


#: Words that open a comment on what comes before them (where a reason, a condition or a
#: contrast does not).
COMMENT_WORDS = {
    "who", "whom", "whose", "which", "when", "where", "in", "aka", "also", "born", "known",
    "formerly",
}  # fmt: skip


def alias_head(text: str) -> str | None:
    """The alias before a comment that follows it (``Cher, in 1998, ...``), or None.

    The text before the first ``,`` or ``;`` followed by a space, when the alias has six words or
    more, the head at most half of them and no digit or colon, and the rest opens with a word of
    ``COMMENT_WORDS``.
    """
    mark = re.search(r"[,;] ", text)
    if mark is None:
        return None
    head, tail = text[: mark.start()], text[mark.end() :]
    words, head_words = _words(text), _words(head)
    if words < 6 or head_words == 0 or 2 * head_words > words or re.search(r"[0-9:]", head):
        return None
    first_word = next((w for w in tail.split(" ") if w), "")
    return head if first_word.isascii() and first_word.lower() in COMMENT_WORDS else None


def join_words(normalized: str) -> str | None:
    """A normalised alias of two words or more written as one (``" seashells "``), or None.

    None when a word starts with a digit or the joined word has fewer than three characters.
    """
    words = normalized.split()
    if len(words) < 2 or any(re.match(r"\d", w) for w in words):
        return None
    joined = "".join(words)
    return f" {joined} " if len(joined) >= 3 else None


MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip

#: Question words that ask for a date, so a year alone answers it.
WHEN_WORDS = ("when", "year", "date")


def _day(tok: str | None) -> int | None:
    m = re.fullmatch(r"([0-9]{1,2})(?:st|nd|rd|th)?", tok or "")
    return int(m.group(1)) if m and 1 <= int(m.group(1)) <= 31 else None


def _year(tok: str | None) -> int | None:
    return int(tok) if tok is not None and re.fullmatch(r"[0-9]{3,4}", tok) else None


def find_dates(
    tokens: list[str],
) -> list[tuple[int, int, tuple[int | None, int | None, int | None]]]:
    """The dates in a normalised token list: ``(start, end, (year, month, day))``, left to right."""
    out = []
    n, i = len(tokens), 0
    at = lambda k: tokens[k] if k < n else None  # noqa: E731
    while i < n:
        day, month = _day(at(i)), MONTHS.get(at(i) or "")
        j = i + 2 if at(i + 1) == "of" else i + 1
        if day is not None and MONTHS.get(at(j) or "") is not None:
            m = MONTHS[at(j) or ""]
            y = _year(at(j + 1))
            end = j + 2 if y is not None else j + 1
            out.append((i, end, (y, m, day)))
            i = end
        elif month is not None and _day(at(i + 1)) is not None and _year(at(i + 2)) is not None:
            out.append((i, i + 3, (_year(at(i + 2)), month, _day(at(i + 1)))))
            i += 3
        elif month is not None and _year(at(i + 1)) is not None:
            out.append((i, i + 2, (_year(at(i + 1)), month, None)))
            i += 2
        elif month is not None and _day(at(i + 1)) is not None:
            out.append((i, i + 2, (None, month, _day(at(i + 1)))))
            i += 2
        elif (
            re.fullmatch(r"[0-9]{4}", at(i) or "")
            and re.fullmatch(r"[0-9]{2}", at(i + 1) or "")
            and re.fullmatch(r"[0-9]{2}", at(i + 2) or "")
            and 1 <= int(at(i + 1) or "0") <= 12
            and 1 <= int(at(i + 2) or "0") <= 31
        ):
            out.append((i, i + 3, (int(at(i) or ""), int(at(i + 1) or ""), int(at(i + 2) or ""))))
            i += 3
        elif re.fullmatch(r"[0-9]{4}", at(i) or ""):
            out.append((i, i + 1, (int(at(i) or ""), None, None)))
            i += 1
        else:
            i += 1
    return out


def alias_date(tokens: list[str]) -> tuple[int | None, int | None, int | None] | None:
    """The date an alias is, when it is one date (a year at least) and stop words only."""
    dates = find_dates(tokens)
    if len(dates) != 1:
        return None
    start, end, date = dates[0]
    if any(t not in STOPWORDS for t in tokens[:start] + tokens[end:]):
        return None
    return date


def find_decades(tokens: list[str]) -> list[int]:
    """The decades a normalised text names (``"1920s"`` -> 1920)."""
    return [int(t[:4]) for t in tokens if re.fullmatch(r"(1[0-9]{2}|20[0-9])0s", t)]


def date_matches(
    alias: tuple[int | None, int | None, int | None],
    response_tokens: list[str],
    *,
    asks_when: bool,
) -> bool:
    if asks_when and alias[0] is not None and alias[0] // 10 * 10 in find_decades(response_tokens):
        return True  # "in the 1920s" for a date in that decade, when the question asks when
    for _, _, (y, m, d) in find_dates(response_tokens):
        ay, am, ad = alias
        if any(r is not None and a is not None and r != a for r, a in ((y, ay), (m, am), (d, ad))):
            continue
        if ay is not None and y is None:
            continue  # a year is stated by the alias, not by the response
        if m is None and not asks_when:
            continue  # a year alone answers only a question that asks when
        if ay is None and (m is None or d is None):
            continue
        return True
    return False


SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SUFFIX_SCALES = {"k": 1e3, "m": 1e6, "bn": 1e9}
APPROX_WORDS = (
    "about", "around", "approximately", "roughly", "nearly", "almost", "circa", "ca",
    "approx", "estimated", "some",
)  # fmt: skip


@dataclass
class Number:
    value: float
    precision: float
    approximate: bool
    unit: str | None
    year_like: bool


def find_numbers(tokens: list[str]) -> list[Number]:
    out = []
    for i, tok in enumerate(tokens):
        m = re.fullmatch(r"([0-9]{1,20})(?:_([0-9]{1,12}))?(k|m|bn)?", tok)
        if not m:
            continue
        whole, frac, suffix = m.group(1), m.group(2) or "", m.group(3)
        nxt = i + 1
        scale = 1.0
        if suffix is not None:
            scale = _SUFFIX_SCALES[suffix]
        elif nxt < len(tokens) and tokens[nxt] in SCALES:
            scale = SCALES[tokens[nxt]]
            nxt += 1
        value = float(whole + "." + frac if frac else whole) * scale
        precision = scale / 10.0 ** len(frac)
        approx = (i >= 1 and tokens[i - 1] in APPROX_WORDS) or tokens[max(i - 2, 0) : i] == [
            "close",
            "to",
        ]
        unit = tokens[nxt] if nxt < len(tokens) else None
        if unit is not None and (not re.fullmatch(r"[a-z]+", unit) or unit in STOPWORDS):
            unit = None
        year_like = not frac and scale == 1.0 and len(whole) == 4
        out.append(Number(value, precision, approx, unit, year_like))
    return out


def unglue(text: str) -> str:
    """Split words a chat interface glued together (``"isIdaho"``) on the raw text."""
    return re.sub(r"([a-z])(?=[A-Z])", r"\1 ", text)


def split_year_citations(normalized: str) -> str:
    """Split a citation marker or a glued word off a year in normalised text.

    ``"193912"`` becomes ``"1939 12"``, ``"2011as"`` becomes ``"2011 as"``.
    """
    return re.sub(r"(?<= )(1[0-9]{3}|20[0-9]{2})([1-9][0-9]?|[a-z]{2,})(?= )", r"\1 \2", normalized)


#: A number rounds another when it is less than this many of its last units away (a shade under
#: half, so a tie such as 2.45 against 2.4 never counts as a rounding).
HALF_UNIT = 0.4999

#: How far a number the response marks as approximate may be from the alias's, relatively.
APPROX_TOLERANCE = 0.05


def number_matches(alias_tokens: list[str], response_tokens: list[str]) -> bool:
    numbers = find_numbers(alias_tokens)
    if len(numbers) != 1 or numbers[0].year_like:
        return False
    a = numbers[0]
    for r in find_numbers(response_tokens):
        if r.unit is not None and a.unit is not None and r.unit[:4] != a.unit[:4]:
            continue
        diff = abs(a.value - r.value)
        if diff <= 1e-9 * abs(a.value):
            return True
        if r.year_like:
            continue
        if (
            r.precision > a.precision
            and diff < HALF_UNIT * r.precision
            and diff <= APPROX_TOLERANCE * abs(a.value)
        ):
            return True
        if r.approximate and diff <= APPROX_TOLERANCE * abs(a.value):
            return True
    return False


@dataclass
class Decision:
    score: float | None
    graded_score: float | None
    reference_index: int | None
    rule: str
    reason: str


#: The rules in the order they are tried (their rank), then no match: the first four on the
#: response as written, then again on the response with glued words split, then the alias's
#: words joined (``contains``).
_RULES = [*["exact", "contains", "date", "approx_number"] * 2, "contains", "token_recall", NO_MATCH]


def _alias_variants(
    usable: list[tuple[int, str]], repair: Callable[[str], str], *, parentheticals: bool
) -> list[tuple[int, str, str, bool]]:
    """Each alias as (index, text, what was dropped, repaired), in the order tried."""
    variants = []
    for index, alias in usable:
        fixed = repair(alias)
        variants.append((index, fixed, "", fixed != alias))
        if parentheticals:
            stripped = drop_parentheticals(fixed)
            if stripped != fixed and stripped.strip():
                variants.append((index, stripped, "parenthetical dropped", fixed != alias))
            head = alias_head(fixed)
            if head is not None and head.strip():
                variants.append((index, head, "comment dropped", fixed != alias))
    return variants


def _token_recall(
    ref: str,
    resp_tokens: set[str],
    q_tokens: set[str],
    stem_prefix: int | None,
    *,
    numbers_must_match: bool,
) -> float:
    """The alias's content tokens found in the response (those not in the question first)."""
    tokens = content_tokens(ref, stem_prefix)
    new = tokens - q_tokens
    counted = new if new else tokens
    recall = len(counted & resp_tokens) / len(counted) if counted else 0.0
    if numbers_must_match and any(re.match(r"\d", t) and t not in resp_tokens for t in tokens):
        return 0.0
    return recall


def _notes(*, dropped: str, repaired: bool, unglued: bool, joined: bool) -> list[str]:
    flags = (
        (dropped == "parenthetical dropped", "parenthetical dropped"),
        (repaired, "mojibake repaired"),
        (unglued, "glued words split"),
        (dropped == "comment dropped", "comment dropped"),
        (joined, "words joined"),
    )
    return [note for flag, note in flags if flag]


def answer_match(
    response: str | None,
    references: list[str | None] | None,
    *,
    question: str | None = None,
    exact: bool = True,
    contains: bool = True,
    token_recall: bool = True,
    min_token_recall: float = 0.3,
    stem_prefix: int | None = 6,
    numbers_must_match: bool = True,
    fold_accents: bool = True,
    number_words: bool = True,
    dates: bool = DEFAULTS["dates"],
    parentheticals: bool = DEFAULTS["parentheticals"],
    repair_mojibake: bool = DEFAULTS["repair_mojibake"],
    approximate_numbers: bool = DEFAULTS["approximate_numbers"],
    glued_words: bool = DEFAULTS["glued_words"],
) -> Decision:
    def norm(text: str) -> str:
        return normalize(text, fold_accents=fold_accents, number_words=number_words)

    def repair(text: str) -> str:
        return globals()["repair_mojibake"](text) if repair_mojibake else text

    usable = [(i, r) for i, r in enumerate(references or []) if r is not None and r.strip()]
    if not usable:
        return Decision(None, None, None, NO_REFERENCE, NO_REFERENCE)
    raw_response = response or ""
    fixed_response = repair(raw_response)
    resp = norm(fixed_response)
    resp_tokens = content_tokens(resp, stem_prefix)
    q_norm = norm(repair(question)) if question is not None else None
    q_tokens = content_tokens(q_norm, stem_prefix) if q_norm is not None else set()
    glued = split_year_citations(norm(unglue(fixed_response))) if glued_words else resp
    asks_when = q_norm is None or any(w in q_norm.split() for w in WHEN_WORDS)

    def hits(ref: str, text: str) -> list[bool]:
        """Exact, contains, date and approximate number, on one reading of the response."""
        date = alias_date(ref.split()) if dates else None
        return [
            exact and ref != " " and text == ref,
            contains and ref != " " and ref in text,
            date is not None and date_matches(date, text.split(), asks_when=asks_when),
            approximate_numbers and number_matches(ref.split(), text.split()),
        ]

    candidates = []
    variants = _alias_variants(usable, repair, parentheticals=parentheticals)
    for order, (index, alias, dropped, repaired) in enumerate(variants):
        ref = norm(alias)
        # An alias that normalises to nothing (an article alone) matches only the response that
        # writes it alone (ASCII white space and case aside), never an empty one.
        written = alias.strip(_ASCII_SPACE).translate(_ASCII_LOWER)
        as_written = (
            exact
            and not dropped
            and ref == resp == " "
            and written != ""
            and written == fixed_response.strip(_ASCII_SPACE).translate(_ASCII_LOWER)
        )
        recall = 0.0
        if token_recall:
            recall = _token_recall(
                ref, resp_tokens, q_tokens, stem_prefix, numbers_must_match=numbers_must_match
            )
        # The same rules again on the response with glued words split (not token recall), read
        # only when no rule accepts the response as written: its ranks come after all of theirs;
        # then the alias's words joined, found in the response as written.
        fallback = 9 if token_recall and recall >= min_token_recall else 10
        joined = join_words(ref) if glued_words and contains else None
        rule = next(
            (
                i
                for i, hit in enumerate(
                    [
                        as_written or hits(ref, resp)[0],
                        *hits(ref, resp)[1:],
                        *hits(ref, glued),
                        joined is not None and joined in resp,
                    ]
                )
                if hit
            ),
            fallback,
        )
        graded = 1.0 if rule < 9 else recall
        notes = _notes(
            dropped=dropped,
            repaired=repaired or fixed_response != raw_response,
            unglued=4 <= rule < 8,
            joined=rule == 8,
        )
        candidates.append((rule, -graded, order, index, notes))
    rule, neg_graded, _, index, notes = min(candidates, key=lambda c: c[:3])
    matched = rule < 10
    name = _RULES[rule]
    reason = "; ".join([name, *notes]) if matched else name
    # The kernel skips the later rules on rows an earlier one decided: their graded score is
    # 1.0 either way.
    return Decision(float(matched), -neg_graded, index if matched else None, name, reason)
