r"""Text normalisation for :func:`polarscore.answer_match`, as pure Polars expressions.

The recipe goes beyond SQuAD's (lower-case, drop punctuation and articles) in ways that only ever
merge spellings of the *same* answer:

1. Unicode compatibility decomposition (NFKD) and removal of combining marks: ``"Malmö"`` and
   ``"Malmo"``, ``"ﬁle"`` and ``"file"``, ``"１２"`` and ``"12"`` compare equal.
2. Lower-case (full Unicode mapping).
3. Possessive ``'s`` dropped (``"Drew's"`` → ``"drew"``); an apostrophe or a dot right after a
   letter deleted (``"U.S.A."`` → ``"usa"``, ``"Li'l"`` → ``"lil"``); thousands separators
   removed (``"1,000,000"`` → ``"1000000"``); a decimal point kept inside its number
   (``"5.97"`` is one word, spelled ``5_97``).
4. A letter glued to a following digit is split off (``"Guyana1"`` → ``"guyana 1"``): chat
   answers glue citation markers to words.
5. Every other character that is not a letter, a number or ``_`` becomes a word break.
6. Ordinal suffixes dropped (``"21st"`` → ``"21"``); number words and ordinal words up to twenty,
   and the tens, become digits (``"seventh"`` → ``"7"``, ``"forty"`` → ``"40"``).
7. Articles (``a``, ``an``, ``the``) dropped wherever they are.

The result is padded with one space on each side (``" the words "`` without the article), so that
"contains on word boundaries" is a plain substring test of padded strings.
"""

from __future__ import annotations

import polars as pl

_CARDINALS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_TENS = {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
}
_ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]

#: Number and ordinal words and the digits they become.
NUMBER_WORDS: dict[str, str] = {
    **{word: str(value) for value, word in enumerate(_CARDINALS)},
    **_TENS,
    **{word: str(value) for value, word in enumerate(_ORDINALS, start=1)},
}

#: Articles, dropped wherever they occur.
ARTICLES: tuple[str, ...] = ("a", "an", "the")

# Tokens are separated by four spaces while the word tables are applied, so that every token
# carries its own two spaces on each side and consecutive tokens are all replaced in one pass.
_ARTICLE_TABLE = {f"  {word}  ": "  " for word in ARTICLES}
_NUMBER_TABLE = {f"  {word}  ": f"  {digits}  " for word, digits in NUMBER_WORDS.items()}
# The Rust regex engine runs a pattern with a Unicode word boundary (\b) through its slow
# engine over the whole text, about 20 times slower than its DFA. So "followed by a non-word
# character or the end" is spelled out as a capture group and written back.
_END = r"([^\p{L}\p{N}_]|$)"
_INNER = rf"(\p{{L}})(?:\.?['’]s{_END}|['’.])"
_INNER_REPLACEMENT = "$1$2"
_THOUSANDS = r",(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?"
_NUMBERS = {
    False: rf"(\d)(?:{_THOUSANDS}){_END}",
    True: rf"(\d)(?:{_THOUSANDS}|st|nd|rd|th){_END}",
}
_NUMBERS_REPLACEMENT = "$1$2$3$4$5"
_TABLES: dict[bool, tuple[list[str], list[str]]] = {
    False: (list(_ARTICLE_TABLE), list(_ARTICLE_TABLE.values())),
    True: (
        [*_ARTICLE_TABLE, *_NUMBER_TABLE],
        [*_ARTICLE_TABLE.values(), *_NUMBER_TABLE.values()],
    ),
}


def match_normalize(expr: pl.Expr, *, fold_accents: bool, number_words: bool) -> pl.Expr:
    """Normalise text for answer matching; the result is padded with one space on each side.

    Parameters
    ----------
    expr
        A ``String`` expression.
    fold_accents
        Apply NFKD and delete combining marks (step 1 of the module recipe).
    number_words
        Turn number and ordinal words into digits and drop ordinal suffixes (step 6).

    Examples
    --------
    >>> import polars as pl
    >>> from polarscore.scores._match_text import match_normalize
    >>> df = pl.DataFrame({"t": ["The U.S.A.'s 1,000 ships", "Malmö, Sweden1.", "the Seventh"]})
    >>> df.select(match_normalize(pl.col("t"), fold_accents=True, number_words=True))
    shape: (3, 1)
    ┌──────────────────┐
    │ t                │
    │ ---              │
    │ str              │
    ╞══════════════════╡
    │  usa 1000 ships  │
    │  malmo sweden 1  │
    │  7               │
    └──────────────────┘
    """
    text = expr
    if fold_accents:
        text = text.str.normalize("NFKD").str.replace_all(r"\p{M}+", "")
    # After a letter: a possessive 's goes, and so does an apostrophe or a dot (u.s.a -> usa).
    text = text.str.to_lowercase().str.replace_all(_INNER, _INNER_REPLACEMENT)
    # Thousands separators go (and, with number_words, ordinal suffixes) in one pass.
    text = text.str.replace_all(_NUMBERS[number_words], _NUMBERS_REPLACEMENT)
    text = text.str.replace_all(r"(\p{L})(\p{N})", "$1 $2")
    # A decimal point joins its digits with "_" (a word character, as in Python's \w); every
    # other character breaks words, and both ends are padded.
    text = text.str.replace_all(r"(\d)\.(\d)", "${1}_$2")
    text = text.str.replace_all(r"[^\p{L}\p{N}_]+", "    ")
    text = pl.concat_str(text, pl.lit("    ")).str.replace("^", "    ")
    text = text.str.replace_many(*_TABLES[number_words])
    return text.str.replace_all(" {2,}", " ")


__all__ = ["ARTICLES", "NUMBER_WORDS", "match_normalize"]
