"""Every stopword list of polarscore, in one place.

* :data:`ANSWER_MATCH_STOPWORDS`: the function words :func:`polarscore.answer_match` ignores.
* :data:`SIMILARITY_STOPWORDS`: the 36 words of :func:`polarscore.response_similarity`'s
  reference.

The rest are the lists of the token components of :func:`polarscore.answer_precision`:

* :data:`REFERENCE_STOPWORDS`: the 26 English words of eval-ai-library 0.8.2's answer precision
  metric (its module-level ``STOPWORDS``), the default.
* Built-in lists selectable by language code (:data:`LANGUAGES`): ``"en"``, ``"ru"``, ``"de"``,
  ``"fr"``, ``"es"``. They are the Snowball project's stop lists (snowballstem.org, BSD-3-Clause,
  Martin Porter and Richard Boulton), as distributed via PostgreSQL's ``snowball/stopwords`` in the
  NLTK ``stopwords`` corpus and in Apache Spark's ``StopWordsRemover`` (the English list with
  NLTK's additions, which include contractions such as ``don't``). The files ship unchanged in
  this package (``polarscore/stopwords/<code>.txt``, one word a line).

Tokens never contain ASCII punctuation or whitespace, so an entry such as ``don't``
could never match one; the built-in lists drop such entries when loaded, and a custom collection
that holds one is an error (nothing is silently ignored).
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Collection
from functools import cache
from importlib.resources import files

from polarscore._validation import invalid_parameter
from polarscore.exceptions import InvalidParameterError

#: Function words that carry no answer content: :func:`polarscore.answer_match`'s token-recall
#: rule ignores them.
ANSWER_MATCH_STOPWORDS: tuple[str, ...] = (
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "by",
    "with",
    "from",
    "and",
    "or",
    "as",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "their",
    "our",
    "your",
    "my",
)


#: The 36 stopwords of :func:`polarscore.response_similarity`'s reference (dropped unless a text
#: has nothing else).
SIMILARITY_STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "but",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "with",
        "as",
        "by",
        "from",
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
    ]
)


#: The reference's 26 stopwords (eval-ai-library 0.8.2, ``answer_precision.STOPWORDS``).
REFERENCE_STOPWORDS: frozenset[str] = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "if",
        "then",
        "else",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "as",
        "by",
        "at",
        "from",
        "that",
        "this",
        "it",
        "is",
        "are",
        "was",
        "were",
    ]
)

#: Language codes of the built-in Snowball lists.
LANGUAGES: tuple[str, ...] = ("de", "en", "es", "fr", "ru")

_PUNCTUATION = frozenset(string.punctuation)


def normalize_stopword(word: str) -> str:
    """Normalise a stopword as the text is normalised: NFKC, ``lower()``, Python ``strip()``.

    Examples
    --------
    >>> from polarscore.stopwords import normalize_stopword
    >>> normalize_stopword(" ＴＨＥ ")
    'the'
    """
    return unicodedata.normalize("NFKC", word).lower().strip()


def _is_token(word: str) -> bool:
    return bool(word) and not any(c in _PUNCTUATION or c.isspace() for c in word)


@cache
def builtin_stopwords(language: str) -> frozenset[str]:
    """Return the built-in Snowball stop list of ``language`` (one of :data:`LANGUAGES`).

    Entries that cannot be a token (with an apostrophe, like ``don't``) are dropped.

    Examples
    --------
    >>> from polarscore.stopwords import builtin_stopwords
    >>> sorted(builtin_stopwords("fr"))[:5]
    ['ai', 'aie', 'aient', 'aies', 'ait']
    >>> "don't" in builtin_stopwords("en"), "the" in builtin_stopwords("en")
    (False, True)
    """
    if language not in LANGUAGES:
        raise invalid_parameter(
            "builtin_stopwords", "language", f"one of {', '.join(map(repr, LANGUAGES))}", language
        )
    text = files("polarscore.stopwords").joinpath(f"{language}.txt").read_text(encoding="utf-8")
    words = (normalize_stopword(line) for line in text.splitlines())
    return frozenset(w for w in words if _is_token(w))


def resolve_stopwords(value: str | Collection[str] | None, *, function: str) -> frozenset[str]:
    """Turn the ``stopwords`` option into the set of normalised tokens to drop.

    ``None`` is the reference's 26 words, a string is a language code, any other collection is
    used as given (normalised like the text). An entry that is not a string, or that does not
    normalise to exactly one token, raises :class:`~polarscore.InvalidParameterError`.
    """
    if value is None:
        return REFERENCE_STOPWORDS
    expected = (
        f"None (the reference's 26 English words), a language code "
        f"({', '.join(map(repr, LANGUAGES))}) or a collection of single-word strings"
    )
    if isinstance(value, str):
        if value not in LANGUAGES:
            raise invalid_parameter(function, "stopwords", expected, value)
        return builtin_stopwords(value)
    if not isinstance(value, Collection):
        raise invalid_parameter(function, "stopwords", expected, value)
    out = set()
    for word in value:
        if not isinstance(word, str) or not _is_token(normalize_stopword(word)):
            raise InvalidParameterError(
                f"The 'stopwords' parameter of {function} must hold strings that are each one "
                "token after normalisation (not empty, no ASCII punctuation, no whitespace "
                f"inside). Got the entry {word!r} instead."
            )
        out.add(normalize_stopword(word))
    return frozenset(out)


__all__ = [
    "ANSWER_MATCH_STOPWORDS",
    "LANGUAGES",
    "REFERENCE_STOPWORDS",
    "SIMILARITY_STOPWORDS",
    "builtin_stopwords",
    "normalize_stopword",
    "resolve_stopwords",
]
