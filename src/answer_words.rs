//! answer_match's word lists: articles, number and ordinal words, and the stopwords of the
//! token-recall rule.
//!
//! Both the core rules ([`crate::answer_match`]) and the second-round rules
//! ([`crate::answer_rules`]) read them, so they live apart from both.

/// The articles and the number words (the words [`is_article`] and [`number_word`] know).
const LISTED: &[&[u8]] = &[
    b"a",
    b"an",
    b"the",
    b"zero",
    b"one",
    b"first",
    b"two",
    b"second",
    b"three",
    b"third",
    b"four",
    b"fourth",
    b"five",
    b"fifth",
    b"six",
    b"sixth",
    b"seven",
    b"seventh",
    b"eight",
    b"eighth",
    b"nine",
    b"ninth",
    b"ten",
    b"tenth",
    b"eleven",
    b"eleventh",
    b"twelve",
    b"twelfth",
    b"thirteen",
    b"thirteenth",
    b"fourteen",
    b"fourteenth",
    b"fifteen",
    b"fifteenth",
    b"sixteen",
    b"sixteenth",
    b"seventeen",
    b"seventeenth",
    b"eighteen",
    b"eighteenth",
    b"nineteen",
    b"nineteenth",
    b"twenty",
    b"twentieth",
    b"thirty",
    b"forty",
    b"fifty",
    b"sixty",
    b"seventy",
    b"eighty",
    b"ninety",
    b"hundred",
];

/// One bit per (length, first letter, last letter) of the [`LISTED`] words: a word whose
/// bit is clear is none of them.
static LISTED_SHAPES: [[u32; 26]; 12] = {
    let mut table = [[0u32; 26]; 12];
    let mut k = 0;
    while k < LISTED.len() {
        let w = LISTED[k];
        if !w.is_empty() {
            table[w.len()][(w[0] - b'a') as usize] |= 1 << (w[w.len() - 1] - b'a');
        }
        k += 1;
    }
    table
};

/// Whether `word` may be an article or a number word, by its length and its first and last
/// letters (one table look-up).
#[inline]
pub fn may_be_listed(word: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
        return false;
    };
    may_be_listed_shape(word.len(), first, last)
}

/// [`may_be_listed`] of a word of `len` bytes from its first and last bytes.
#[inline(always)]
pub fn may_be_listed_shape(len: usize, first: u8, last: u8) -> bool {
    let (f, l) = (first.wrapping_sub(b'a'), last.wrapping_sub(b'a'));
    f < 26
        && l < 26
        && LISTED_SHAPES
            .get(len)
            .and_then(|row| row.get(usize::from(f)))
            .is_some_and(|bits| bits & (1 << l) != 0)
}

/// [`LISTED_SHAPES`] by the low five bits of the first and last letters (lower-case ones), for
/// a look-up without range checks; rows from 12 on hold no listed word. Beside them, the shape
/// of a word that may be a glued year: more than four bytes from `1` or `2` (the low bits of
/// `q` and `r`), to any last byte (a digit, or anything after a `_`).
static LISTED_LOW_BITS: [[u32; 32]; 16] = {
    let mut table = [[0u32; 32]; 16];
    let mut k = 0;
    while k < LISTED.len() {
        let w = LISTED[k];
        if !w.is_empty() {
            table[w.len()][(w[0] & 31) as usize] |= 1 << (w[w.len() - 1] & 31);
        }
        k += 1;
    }
    let mut len = 5;
    while len < 16 {
        table[len][(b'1' & 31) as usize] = u32::MAX;
        table[len][(b'2' & 31) as usize] = u32::MAX;
        len += 1;
    }
    table
};

/// [`may_be_listed_shape`] for a word of `len` lower-case ASCII letters, or more loosely for a
/// word of other ASCII bytes: true for every listed word, for every word that may be a glued
/// year (more than four bytes, the first `1` or `2`), and for some others (a
/// caller then checks the word in full).
#[inline(always)]
pub fn may_be_listed_letters(len: usize, first: u8, last: u8) -> bool {
    let row = &LISTED_LOW_BITS[len.min(15)];
    row[usize::from(first & 31)] & (1 << (last & 31)) != 0
}

/// Articles, dropped wherever they are (`ARTICLES` in `polarscore/normalize.py`).
#[inline]
pub fn is_article(word: &[u8]) -> bool {
    matches!(word, b"a" | b"an" | b"the")
}

/// Number and ordinal words and the digits they become (`NUMBER_WORDS` in
/// `polarscore/normalize.py`).
pub fn number_word(word: &[u8]) -> Option<&'static str> {
    Some(match word {
        b"zero" => "0",
        b"one" | b"first" => "1",
        b"two" | b"second" => "2",
        b"three" | b"third" => "3",
        b"four" | b"fourth" => "4",
        b"five" | b"fifth" => "5",
        b"six" | b"sixth" => "6",
        b"seven" | b"seventh" => "7",
        b"eight" | b"eighth" => "8",
        b"nine" | b"ninth" => "9",
        b"ten" | b"tenth" => "10",
        b"eleven" | b"eleventh" => "11",
        b"twelve" | b"twelfth" => "12",
        b"thirteen" | b"thirteenth" => "13",
        b"fourteen" | b"fourteenth" => "14",
        b"fifteen" | b"fifteenth" => "15",
        b"sixteen" | b"sixteenth" => "16",
        b"seventeen" | b"seventeenth" => "17",
        b"eighteen" | b"eighteenth" => "18",
        b"nineteen" | b"nineteenth" => "19",
        b"twenty" | b"twentieth" => "20",
        b"thirty" => "30",
        b"forty" => "40",
        b"fifty" => "50",
        b"sixty" => "60",
        b"seventy" => "70",
        b"eighty" => "80",
        b"ninety" => "90",
        b"hundred" => "100",
        _ => return None,
    })
}

/// The number and ordinal words that [`number_word`] reads as `digits` (`seven` and `seventh`
/// for `7`): where a text may spell a number of its normal form as a word.
pub fn number_spellings(digits: &[u8]) -> impl Iterator<Item = &'static [u8]> + '_ {
    // (Every number word is one of the listed words; the digits they become are 1 to 3 bytes.)
    let maybe = (1..=3).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit);
    LISTED
        .iter()
        .copied()
        .filter(move |w| maybe && number_word(w).is_some_and(|d| d.as_bytes() == digits))
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

/// One bit per (length, second byte, second-to-last byte) of the [`LISTED`] words of two
/// bytes or more, by the low five bits of those bytes (the look-up of [`may_be_inner_listed`]).
static LISTED_INNER_BITS: [[u32; 32]; 12] = {
    let mut table = [[0u32; 32]; 12];
    let mut k = 0;
    while k < LISTED.len() {
        let w = LISTED[k];
        if w.len() >= 2 {
            table[w.len()][(w[1] & 31) as usize] |= 1 << (w[w.len() - 2] & 31);
        }
        k += 1;
    }
    table
};

/// Whether a word of `len` bytes (two or more) whose second byte is `second` and second-to-last
/// byte `penultimate` may be a listed word: false when no listed word of that length has the
/// same low five bits there, so that a word which passes [`may_be_listed_letters`] by its
/// first and last bytes alone (most do, with only those three numbers to tell them apart) needs
/// no full comparison. It says nothing of glued years.
#[inline(always)]
pub fn may_be_inner_listed(len: usize, second: u8, penultimate: u8) -> bool {
    LISTED_INNER_BITS
        .get(len)
        .is_some_and(|row| row[usize::from(second & 31)] & (1 << (penultimate & 31)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_spellings_are_the_words_that_read_as_the_digits() {
        assert_eq!(
            number_spellings(b"7").collect::<Vec<_>>(),
            [&b"seven"[..], b"seventh"]
        );
        assert_eq!(
            number_spellings(b"100").collect::<Vec<_>>(),
            [&b"hundred"[..]]
        );
        assert_eq!(number_spellings(b"21").count(), 0);
        assert_eq!(number_spellings(b"seven").count(), 0);
        // Every number word is found from its digits.
        for w in LISTED.iter().filter(|w| number_word(w).is_some()) {
            let d = number_word(w).unwrap_or("");
            assert!(number_spellings(d.as_bytes()).any(|s| s == *w), "{d}");
        }
    }

    #[test]
    fn the_shape_filter_lets_every_listed_word_through() {
        // The articles and every number word of `number_word` (its arms, one by one).
        assert_eq!(LISTED.len(), 52);
        for word in LISTED {
            assert!(may_be_listed(word), "{word:?}");
            assert!(is_article(word) ^ number_word(word).is_some(), "{word:?}");
        }
        let numbers = LISTED.iter().filter(|w| number_word(w).is_some()).count();
        assert_eq!(numbers, 49);
        for word in [
            &b""[..],
            b"b",
            b"tho",
            b"\xc3\xa9",
            b"sixtyy",
            b"elevenths",
            b"hundreds",
        ] {
            assert!(number_word(word).is_none() && !is_article(word));
        }
        assert!(!may_be_listed(b"paris") && !may_be_listed(b"that") && !may_be_listed(b"of"));
    }

    #[test]
    fn the_letters_filter_agrees_with_the_shape_filter_on_letters() {
        for word in LISTED {
            let (first, last) = (word[0], word[word.len() - 1]);
            assert!(may_be_listed_letters(word.len(), first, last), "{word:?}");
        }
        for len in 1..40 {
            for first in b'a'..=b'z' {
                for last in b'a'..=b'z' {
                    // Besides the listed words, `q` and `r` (the bits of a year's first digit).
                    let year = len > 4 && matches!(first, b'q' | b'r');
                    assert_eq!(
                        may_be_listed_letters(len, first, last),
                        year || (len < 12 && may_be_listed_shape(len, first, last)),
                        "{len} {first} {last}"
                    );
                }
            }
        }
        // Every run of digits that may be a glued year (others may pass too: `398` has the low
        // bits of `six`).
        for len in 1..40 {
            for first in b'0'..=b'9' {
                for last in b'0'..=b'9' {
                    if len > 4 && matches!(first, b'1' | b'2') {
                        assert!(
                            may_be_listed_letters(len, first, last),
                            "{len} {first} {last}"
                        );
                    }
                }
            }
        }
        assert!(!may_be_listed_letters(5, b'5', b'9') && !may_be_listed_letters(4, b'1', b'9'));
    }

    /// Every listed word passes `may_be_inner_listed`.
    #[test]
    fn inner_bytes_tell_most_words_from_the_listed_ones() {
        for w in LISTED.iter().filter(|w| w.len() >= 2) {
            assert!(may_be_inner_listed(w.len(), w[1], w[w.len() - 2]), "{w:?}");
        }
        // `river` and `treaty` pass `may_be_listed_letters` (as `rather` would), not this.
        assert!(may_be_listed_letters(5, b'r', b'r') && !may_be_inner_listed(5, b'i', b'e'));
        assert!(may_be_listed_letters(6, b't', b'y') && !may_be_inner_listed(6, b'r', b't'));
        assert!(!may_be_inner_listed(16, b'i', b'e'));
    }
}
