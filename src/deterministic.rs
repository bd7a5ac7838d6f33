//! Kernels of the judge-free checks whose per-row work needs Python's character semantics.
//!
//! `contains` tests keywords as plain substrings, optionally after Python's `str.lower()` of the
//! text and, separately, of each keyword (eval-ai-library 0.8.2's `ContainsMetric`). The keyword
//! list may differ per row, so it arrives as a `List(String)` column (a literal list broadcasts).

use crate::pyunicode::{is_py_space, Tables};

/// How many of `keywords` occur in `text`, and how many keywords there are (null items skipped).
///
/// Each keyword counts on its own, duplicates included, and the empty keyword is found in every
/// text. With `case_sensitive` false both sides are lowered with Python's `str.lower()`, each on
/// its own (so a keyword's final sigma is decided by the keyword alone).
pub fn keywords_found<'a>(
    t: &Tables,
    text: &str,
    keywords: impl Iterator<Item = Option<&'a str>>,
    case_sensitive: bool,
    scratch: &mut Scratch,
) -> (u32, u32) {
    let haystack: &str = if case_sensitive {
        text
    } else {
        scratch.text.clear();
        t.push_lower(text, &mut scratch.text);
        &scratch.text
    };
    let mut found = 0u32;
    let mut total = 0u32;
    for keyword in keywords.flatten() {
        total = total.saturating_add(1);
        let hit = if case_sensitive {
            memchr::memmem::find(haystack.as_bytes(), keyword.as_bytes()).is_some()
        } else {
            scratch.keyword.clear();
            t.push_lower(keyword, &mut scratch.keyword);
            memchr::memmem::find(haystack.as_bytes(), scratch.keyword.as_bytes()).is_some()
        };
        if hit {
            found = found.saturating_add(1);
        }
    }
    (found, total)
}

/// The number of items of Python's `text.split()`: runs of Python whitespace separate words.
pub fn py_word_count(text: &str) -> u32 {
    if text.is_ascii() {
        // ASCII: whitespace is \t..\r, U+001C..U+001F and the space; one byte per character.
        let mut count = 0u32;
        let mut in_word = false;
        for &b in text.as_bytes() {
            let space = matches!(b, 0x09..=0x0d | 0x1c..=0x20);
            count = count.saturating_add(u32::from(!space && !in_word));
            in_word = !space;
        }
        return count;
    }
    let mut count = 0u32;
    let mut in_word = false;
    for c in text.chars() {
        let space = is_py_space(c);
        if !space && !in_word {
            count = count.saturating_add(1);
        }
        in_word = !space;
    }
    count
}

/// Python's `text.lower().startswith(prefix)`, for a `prefix` already lowered, stopping at the
/// first character that differs instead of lowering the whole text.
pub fn lower_starts_with(t: &Tables, text: &str, prefix: &str) -> bool {
    let mut wanted = prefix.chars();
    let mut matched = true;
    t.for_each_lower(text, |c| match wanted.next() {
        Some(w) if w == c => true,
        Some(_) => {
            matched = false;
            false
        }
        None => false,
    });
    matched && wanted.next().is_none()
}

/// Reusable buffers for [`keywords_found`].
#[derive(Default)]
pub struct Scratch {
    text: String,
    keyword: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn count(text: &str, keywords: &[&str], case_sensitive: bool) -> (u32, u32) {
        let t = test_tables::install();
        let mut scratch = Scratch::default();
        keywords_found(
            t,
            text,
            keywords.iter().map(|k| Some(*k)),
            case_sensitive,
            &mut scratch,
        )
    }

    #[test]
    fn counts_each_keyword_duplicates_included() {
        assert_eq!(
            count("Paris is big", &["paris", "paris", "lyon"], false),
            (2, 3)
        );
        assert_eq!(count("Paris is big", &["paris"], true), (0, 1));
    }

    #[test]
    fn empty_keyword_is_found_everywhere() {
        assert_eq!(count("", &[""], true), (1, 1));
        assert_eq!(count("", &[], false), (0, 0));
    }

    #[test]
    fn lowering_is_per_side() {
        // "ΟΔΟΣ" alone lowers with a final sigma; inside "ΟΔΟΣΑ" it does not.
        assert_eq!(count("ΟΔΟΣΑ", &["ΟΔΟΣ"], false), (0, 1));
        assert_eq!(count("ΟΔΟΣΑ", &["ΟΔΟΣ"], true), (1, 1));
        assert_eq!(count("Straße", &["STRASSE"], false), (0, 1));
    }

    #[test]
    fn words_split_on_python_whitespace() {
        assert_eq!(py_word_count(""), 0);
        assert_eq!(py_word_count(" \x1c "), 0);
        assert_eq!(py_word_count("a\x1cb\u{a0}c"), 3);
        assert_eq!(py_word_count("a\u{200b}b  c\n"), 2);
    }

    #[test]
    fn lowered_prefix_stops_early_and_keeps_final_sigma() {
        let t = test_tables::install();
        assert!(lower_starts_with(t, "The Answer is", "the answer"));
        assert!(!lower_starts_with(t, "The", "the answer"));
        assert!(lower_starts_with(t, "anything", ""));
        // "ΟΔΟΣΑ".lower() is "οδοσα": the lowered prefix "οδος" (final sigma) does not match.
        assert!(!lower_starts_with(t, "ΟΔΟΣΑ", "οδος"));
        assert!(lower_starts_with(t, "ΟΔΟΣ ΑΒ", "οδος"));
        assert!(lower_starts_with(t, "İx", "i\u{307}"));
    }

    #[test]
    fn null_keywords_are_skipped() {
        let t = test_tables::install();
        let mut scratch = Scratch::default();
        let keywords = [Some("a"), None, Some("b")];
        assert_eq!(
            keywords_found(t, "ab", keywords.into_iter(), true, &mut scratch),
            (2, 2)
        );
    }
}
