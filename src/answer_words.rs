//! answer_match's word lists: articles, number and ordinal words, and the stopwords of the
//! token-recall rule.
//!
//! Both the core rules ([`crate::answer_match`]) and the second-round rules
//! ([`crate::answer_rules`]) read them, so they live apart from both.

/// Articles, dropped wherever they are (`ARTICLES` in `polarscore/normalize.py`).
#[inline]
pub fn is_article(word: &str) -> bool {
    matches!(word, "a" | "an" | "the")
}

/// Number and ordinal words and the digits they become (`NUMBER_WORDS` in
/// `polarscore/normalize.py`).
pub fn number_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "zero" => "0",
        "one" | "first" => "1",
        "two" | "second" => "2",
        "three" | "third" => "3",
        "four" | "fourth" => "4",
        "five" | "fifth" => "5",
        "six" | "sixth" => "6",
        "seven" | "seventh" => "7",
        "eight" | "eighth" => "8",
        "nine" | "ninth" => "9",
        "ten" | "tenth" => "10",
        "eleven" | "eleventh" => "11",
        "twelve" | "twelfth" => "12",
        "thirteen" | "thirteenth" => "13",
        "fourteen" | "fourteenth" => "14",
        "fifteen" | "fifteenth" => "15",
        "sixteen" | "sixteenth" => "16",
        "seventeen" | "seventeenth" => "17",
        "eighteen" | "eighteenth" => "18",
        "nineteen" | "nineteenth" => "19",
        "twenty" | "twentieth" => "20",
        "thirty" => "30",
        "forty" => "40",
        "fifty" => "50",
        "sixty" => "60",
        "seventy" => "70",
        "eighty" => "80",
        "ninety" => "90",
        "hundred" => "100",
        _ => return None,
    })
}

/// Function words ignored by the token-recall rule (`STOPWORDS` in `_match_kernel.py`).
#[inline]
pub fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "the"
            | "of"
            | "in"
            | "on"
            | "at"
            | "to"
            | "for"
            | "by"
            | "with"
            | "from"
            | "and"
            | "or"
            | "as"
            | "is"
            | "are"
            | "was"
            | "were"
            | "be"
            | "been"
            | "it"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "his"
            | "her"
            | "their"
            | "our"
            | "your"
            | "my"
    )
}
