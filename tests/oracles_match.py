"""A slow, obviously written pure-Python oracle of ``answer_match`` (tests only).

It restates the rules of ``polarscore.scores.match`` row by row with Python's ``re`` and
``unicodedata``. The native kernel reads characters with the running Python's own tables
(``re``'s ``\\w`` and ``\\d``, letters as ``[^\\W\\d_]``, ``str.lower()``, NFKD without marks),
so the two agree on any text, not only on the alphabets the property tests draw from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from polarscore.scores._match_kernel import NO_MATCH, NO_REFERENCE, STOPWORDS
from polarscore.scores._match_text import ARTICLES, NUMBER_WORDS

_L = r"[^\W\d_]"


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


@dataclass
class Decision:
    score: float | None
    graded_score: float | None
    reference_index: int | None
    rule: str


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
) -> Decision:
    def norm(text: str) -> str:
        return normalize(text, fold_accents=fold_accents, number_words=number_words)

    usable = [(i, r) for i, r in enumerate(references or []) if r is not None and r.strip()]
    if not usable:
        return Decision(None, None, None, NO_REFERENCE)
    resp = norm(response or "")
    resp_tokens = content_tokens(resp, stem_prefix)
    q_tokens = content_tokens(norm(question), stem_prefix) if question is not None else set()
    candidates = []
    for index, alias in usable:
        ref = norm(alias)
        is_exact = exact and resp == ref
        is_contained = contains and ref != " " and ref in resp
        recall = 0.0
        if token_recall:
            tokens = content_tokens(ref, stem_prefix)
            new = tokens - q_tokens
            counted = new if new else tokens
            if counted:
                recall = len(counted & resp_tokens) / len(counted)
            if numbers_must_match and any(
                re.match(r"\d", t) and t not in resp_tokens for t in tokens
            ):
                recall = 0.0
        if is_exact:
            rule = 0
        elif is_contained:
            rule = 1
        elif token_recall and recall >= min_token_recall:
            rule = 2
        else:
            rule = 3
        graded = 1.0 if (is_exact or is_contained) else recall
        candidates.append((rule, -graded, index))
    rule, neg_graded, index = min(candidates)
    names = ["exact", "contains", "token_recall", NO_MATCH]
    matched = rule < 3
    # The kernel skips token recall on rows an exact or contains rule decided: their graded
    # score is 1.0 either way.
    return Decision(float(matched), -neg_graded, index if matched else None, names[rule])
