//! Kernels of the judge-free checks whose per-row work needs Python's character semantics.
//!
//! `contains` tests keywords as plain substrings, optionally after Python's `str.lower()` of the
//! text and, separately, of each keyword (eval-ai-library 0.8.2's `ContainsMetric`). The keyword
//! list may differ per row, so it arrives as a `List(String)` column (a literal list broadcasts).

#[cfg(feature = "plugin")]
mod expressions;

use crate::pyunicode::{is_py_space, py_strip, Tables};

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

/// How many of `finders` occur in `text` (the keywords of a literal list, lowered already when
/// `case_sensitive` is false), stopping at the first hit when `first_only`.
pub fn count_found(
    t: &Tables,
    text: &str,
    finders: &[memchr::memmem::Finder<'static>],
    case_sensitive: bool,
    first_only: bool,
    scratch: &mut Scratch,
) -> u32 {
    let haystack: &[u8] = if case_sensitive {
        text.as_bytes()
    } else {
        scratch.text.clear();
        t.push_lower(text, &mut scratch.text);
        scratch.text.as_bytes()
    };
    let mut found = 0u32;
    for finder in finders {
        if finder.find(haystack).is_some() {
            found = found.saturating_add(1);
            if first_only {
                break;
            }
        }
    }
    found
}

/// Python whitespace among ASCII bytes: `\t`..`\r`, U+001C..U+001F and the space.
const fn ascii_space_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0x09;
    while b <= 0x0d {
        table[b] = true;
        b += 1;
    }
    let mut b = 0x1c;
    while b <= 0x20 {
        table[b] = true;
        b += 1;
    }
    table
}

static ASCII_SPACE: [bool; 256] = ascii_space_table();

/// The number of items of Python's `text.split()`: runs of Python whitespace separate words.
pub fn py_word_count(text: &str) -> u32 {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        // A word starts at each non-space byte that follows a space (or starts the text);
        // counted over byte pairs without a loop-carried state, which vectorises.
        let first = bytes
            .first()
            .map_or(0, |&b| u32::from(!ASCII_SPACE[usize::from(b)]));
        let starts = bytes
            .windows(2)
            .map(|w| u32::from(ASCII_SPACE[usize::from(w[0])] & !ASCII_SPACE[usize::from(w[1])]))
            .sum::<u32>();
        return first + starts;
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

/// `text.strip() != ""`: anything besides Python whitespace.
#[inline]
pub fn non_blank(text: &str) -> bool {
    !text.chars().all(is_py_space)
}

/// ExactMatchMetric's test: the two sides equal after Python's `strip()` (when `strip`) and
/// `lower()` of each (when not `case_sensitive`).
pub fn exact_equal(
    t: &Tables,
    a: &str,
    b: &str,
    case_sensitive: bool,
    strip: bool,
    scratch: &mut Scratch,
) -> bool {
    let (a, b) = if strip {
        (py_strip(a), py_strip(b))
    } else {
        (a, b)
    };
    if case_sensitive {
        return a == b;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    // Lowering may change lengths and reach ASCII from outside it (`K`, U+212A, gives `k`).
    scratch.text.clear();
    t.push_lower(a, &mut scratch.text);
    scratch.keyword.clear();
    t.push_lower(b, &mut scratch.keyword);
    scratch.text == scratch.keyword
}

/// What CPython 3.11's `urlparse` makes of a stripped response: `Some(scheme and netloc are
/// both non-empty)`, or `None` when the netloc holds `[`, `]` or a non-ASCII character, where
/// Python's own checks (IPv6 brackets, NFKC) decide.
///
/// `urlsplit` strips leading C0 controls and spaces, removes every tab, CR and LF, reads a
/// scheme (an ASCII letter, then letters, digits, `+`, `-`, `.`) up to the first `:`, and a
/// netloc after `//` up to the first `/`, `?` or `#`.
pub fn url_state(text: &str) -> Option<bool> {
    let start = text.bytes().position(|b| b > 0x20).unwrap_or(text.len());
    let mut bytes = text
        .as_bytes()
        .get(start..)
        .unwrap_or_default()
        .iter()
        .copied()
        .filter(|&b| !matches!(b, b'\t' | b'\r' | b'\n'));
    if !bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) {
        return Some(false);
    }
    loop {
        match bytes.next() {
            Some(b':') => break,
            Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') => {}
            _ => return Some(false),
        }
    }
    if bytes.next() != Some(b'/') || bytes.next() != Some(b'/') {
        return Some(false);
    }
    let mut netloc = 0usize;
    for b in bytes {
        match b {
            b'/' | b'?' | b'#' => break,
            b'[' | b']' => return None,
            b if !b.is_ascii() => return None,
            _ => netloc += 1,
        }
    }
    Some(netloc > 0)
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
    fn url_state_follows_urlsplit() {
        assert_eq!(url_state("https://example.com/x"), Some(true));
        assert_eq!(url_state("\x01 ht\ttp://\nexample.com"), Some(true));
        assert_eq!(url_state("mailto:someone@example.com"), Some(false));
        assert_eq!(url_state("1http://example.com"), Some(false));
        assert_eq!(url_state("http:///path"), Some(false));
        assert_eq!(url_state("http://[::1]/"), None);
        assert_eq!(url_state("http://bücher.de"), None);
        assert_eq!(url_state(""), Some(false));
    }

    #[test]
    fn exact_equal_lowers_each_side_with_python() {
        let t = test_tables::install();
        let mut scratch = Scratch::default();
        assert!(exact_equal(
            t,
            " Paris\n",
            "paris",
            false,
            true,
            &mut scratch
        ));
        assert!(!exact_equal(
            t,
            " Paris\n",
            "paris",
            true,
            true,
            &mut scratch
        ));
        assert!(exact_equal(t, "\u{212A}", "k", false, true, &mut scratch));
        assert!(!exact_equal(t, "a ", "a", false, false, &mut scratch));
        assert!(non_blank("\u{200b}"));
        assert!(!non_blank(" \u{1c}\u{3000}"));
    }

    #[test]
    fn word_count_ascii_and_not() {
        assert_eq!(py_word_count(""), 0);
        assert_eq!(py_word_count("  a  bb\x1cc "), 3);
        assert_eq!(py_word_count("a\u{3000}b é"), 3);
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
