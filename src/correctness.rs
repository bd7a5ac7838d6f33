//! DataRobot's answer correctness: exact, normalized and contains match, one pass per string.

mod blocks;
#[cfg(feature = "plugin")]
pub(crate) mod expressions;

use crate::pyunicode::{py_is_blank, py_strip, Tables};

/// The three match modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Exact,
    Normalized,
    Contains,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::Normalized => "normalized",
            Mode::Contains => "contains",
        }
    }

    /// Read a per-row mode as the reference does: `str(mode or "normalized").lower()`, not
    /// stripped; anything but the three names means normalized.
    pub fn from_row(t: &Tables, mode: Option<&str>) -> Mode {
        let Some(mode) = mode else {
            return Mode::Normalized;
        };
        if mode.len() > 40 {
            return Mode::Normalized;
        }
        match t.lower(mode).as_str() {
            "exact" => Mode::Exact,
            "contains" => Mode::Contains,
            _ => Mode::Normalized,
        }
    }
}

/// Feed the DataRobot normalisation of `text` to `emit`, one character at a time.
///
/// `lower()`, delete every character that is neither a Python word character nor Python
/// whitespace, collapse whitespace runs to one space, strip. A space is emitted only before a
/// word character that follows some earlier word character, which is the collapse and both
/// strips at once. `emit` returns false to stop early.
#[inline]
pub fn for_each_normalized(t: &Tables, text: &str, mut emit: impl FnMut(char) -> bool) {
    let mut pending_space = false;
    let mut any_word = false;
    let mut push = |c: char| -> bool {
        if t.is_word(c) {
            if pending_space {
                pending_space = false;
                if !emit(' ') {
                    return false;
                }
            }
            any_word = true;
            emit(c)
        } else {
            if any_word && t.is_space(c) {
                pending_space = true;
            }
            true
        }
    };
    if text.is_ascii() {
        for b in text.bytes() {
            if !push(b.to_ascii_lowercase() as char) {
                return;
            }
        }
    } else {
        t.for_each_lower(text, push);
    }
}

/// Per ASCII byte: its lower-case byte, or `SPACE_BYTE` for whitespace, or 0 for a character
/// that normalisation deletes.
const SPACE_BYTE: u8 = 0xFF;
static ASCII_NORMAL: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphanumeric() || c == b'_' {
            c.to_ascii_lowercase()
        } else if matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ') {
            SPACE_BYTE
        } else {
            0
        };
        b += 1;
    }
    table
};

/// The DataRobot normalisation of `text`, written into `out` (cleared first).
///
/// ASCII bytes go through one table look-up each; other characters are decoded and lowered one
/// by one. Only a text holding a capital sigma, whose lower case depends on its neighbours,
/// takes the general path.
pub fn normalize_into(t: &Tables, text: &str, out: &mut String) {
    out.clear();
    let bytes = text.as_bytes();
    if crate::pyunicode::has_capital_sigma(text) {
        for_each_normalized(t, text, |c| {
            out.push(c);
            true
        });
        return;
    }
    let mut pending_space = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            match ASCII_NORMAL[b as usize] {
                0 => {}
                SPACE_BYTE => pending_space = !out.is_empty(),
                lower => {
                    if pending_space {
                        out.push(' ');
                        pending_space = false;
                    }
                    out.push(lower as char);
                }
            }
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        t.lower_char_each(c, |l| {
            if t.is_word(l) {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                out.push(l);
            } else if t.is_space(l) {
                pending_space = !out.is_empty();
            }
        });
    }
}

/// The DataRobot normalisation of `text` as UTF-8 bytes, written into `out` (cleared first): the
/// bytes of [`normalize_into`], sixteen at a time where they are ASCII ([`blocks`]).
pub fn normalize_bytes_into(t: &Tables, text: &str, out: &mut Vec<u8>) {
    if crate::pyunicode::has_capital_sigma(text) {
        out.clear();
        for_each_normalized(t, text, |c| {
            out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes());
            true
        });
        return;
    }
    blocks::normalize_bytes(t, text, out);
}

/// Whether the DataRobot normalisation of `text` holds `needle` (a normalisation, not empty),
/// with `buf` as scratch. The normalisation is searched as it is written, so that it stops once
/// the needle is found.
pub fn normalized_contains(t: &Tables, text: &str, needle: &[u8], buf: &mut Vec<u8>) -> bool {
    normalized_contains_every(t, text, needle, buf, SEARCH_EVERY)
}

/// [`normalized_contains`], searching every `every` bytes of `text` or so.
fn normalized_contains_every(
    t: &Tables,
    text: &str,
    needle: &[u8],
    buf: &mut Vec<u8>,
    every: usize,
) -> bool {
    if crate::pyunicode::has_capital_sigma(text) {
        normalize_bytes_into(t, text, buf);
        return memchr::memmem::find(buf, needle).is_some();
    }
    // Built for the first long search: `memmem::find` searches a short haystack without one.
    let mut finder = None;
    // The output before `searched` was searched: a match ending past it starts at most
    // `needle.len() - 1` bytes before it.
    let mut searched = 0usize;
    let mut found = false;
    blocks::normalize_bytes_checked(t, text, buf, every, |out| {
        let from = searched.saturating_sub(needle.len().saturating_sub(1));
        let hay = out.get(from..).unwrap_or(&[]);
        found = if hay.len() < 64 {
            memchr::memmem::find(hay, needle).is_some()
        } else {
            let finder = finder.get_or_insert_with(|| memchr::memmem::Finder::new(needle));
            finder.find(hay).is_some()
        };
        searched = out.len();
        !found
    });
    found
}

/// How many bytes of a response are normalised between two searches for the reference.
const SEARCH_EVERY: usize = 256;

/// Whether the normalisation of `text` equals `normalized` (already normalised), stopping at the
/// first character that differs.
pub fn normalized_equals(t: &Tables, text: &str, normalized: &str) -> bool {
    let mut expected = normalized.chars();
    let mut equal = true;
    for_each_normalized(t, text, |c| {
        if expected.next() == Some(c) {
            true
        } else {
            equal = false;
            false
        }
    });
    equal && expected.next().is_none()
}

/// Reusable buffers for scoring many rows.
#[derive(Default)]
pub struct Scratch {
    /// Normalized mode: the reference's normalisation.
    reference: String,
    /// Contains: the response's and the reference's normalisations.
    response_bytes: Vec<u8>,
    reference_bytes: Vec<u8>,
}

/// The outcome of one response against one reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No usable reference (null, empty or whitespace only).
    Inconclusive,
    Match,
    NoMatch,
}

/// Score `response` (null already read as `""`) against one reference with `mode`.
pub fn score_pair(
    t: &Tables,
    response: &str,
    reference: Option<&str>,
    mode: Mode,
    scratch: &mut Scratch,
) -> Outcome {
    let Some(reference) = reference.filter(|r| !py_is_blank(r)) else {
        return Outcome::Inconclusive;
    };
    let matched = match mode {
        Mode::Exact => py_strip(response) == py_strip(reference),
        Mode::Normalized => {
            normalize_into(t, reference, &mut scratch.reference);
            normalized_equals(t, response, &scratch.reference)
        }
        Mode::Contains => {
            normalize_bytes_into(t, reference, &mut scratch.reference_bytes);
            if scratch.reference_bytes.is_empty() {
                true
            } else {
                let needle = &scratch.reference_bytes;
                normalized_contains(t, response, needle, &mut scratch.response_bytes)
            }
        }
    };
    if matched {
        Outcome::Match
    } else {
        Outcome::NoMatch
    }
}

/// Score `response` against several references: the first matching one wins, else the first
/// usable one; `None` when none is usable. Returns the outcome and the reference's position.
pub fn score_many<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    mode: Mode,
    scratch: &mut Scratch,
) -> (Outcome, Option<u32>) {
    let mut first_usable = None;
    // The response is normalised once for contains, whatever the number of references.
    let mut response_done = false;
    for (i, reference) in references.enumerate() {
        let Some(reference) = reference.filter(|r| !py_is_blank(r)) else {
            continue;
        };
        let matched = match mode {
            Mode::Contains => {
                normalize_bytes_into(t, reference, &mut scratch.reference_bytes);
                if scratch.reference_bytes.is_empty() {
                    true
                } else {
                    if !response_done {
                        normalize_bytes_into(t, response, &mut scratch.response_bytes);
                        response_done = true;
                    }
                    memchr::memmem::find(&scratch.response_bytes, &scratch.reference_bytes)
                        .is_some()
                }
            }
            _ => score_pair(t, response, Some(reference), mode, scratch) == Outcome::Match,
        };
        if matched {
            return (Outcome::Match, Some(i as u32));
        }
        first_usable.get_or_insert(i as u32);
    }
    match first_usable {
        Some(i) => (Outcome::NoMatch, Some(i)),
        None => (Outcome::Inconclusive, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn norm(s: &str) -> String {
        let t = test_tables::install();
        let mut out = String::new();
        normalize_into(t, s, &mut out);
        out
    }

    #[test]
    fn normalisation_deletes_punctuation_and_collapses_space() {
        assert_eq!(norm("  Don't  STOP!\x1c"), "dont stop");
        assert_eq!(norm("U.S.A."), "usa");
        assert_eq!(norm("a - b"), "a b");
        assert_eq!(norm("a-b"), "ab");
        assert_eq!(norm("!!!"), "");
        assert_eq!(norm("ΟΔΟΣ"), "οδος");
    }

    #[test]
    fn pairs() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut score = |r: &str, g: Option<&str>, m| score_pair(t, r, g, m, &mut s);
        assert_eq!(
            score("Paris.", Some("paris"), Mode::Normalized),
            Outcome::Match
        );
        assert_eq!(
            score("Pariss", Some("Paris"), Mode::Contains),
            Outcome::Match
        );
        assert_eq!(score("x", Some("?"), Mode::Contains), Outcome::Match);
        assert_eq!(score("!!!", Some("?"), Mode::Normalized), Outcome::Match);
        assert_eq!(score("x", Some("\x1c"), Mode::Exact), Outcome::Inconclusive);
        assert_eq!(
            score("\x1cParis\x1f", Some("Paris"), Mode::Exact),
            Outcome::Match
        );
        assert_eq!(score("Paris", Some("paris"), Mode::Exact), Outcome::NoMatch);
        assert_eq!(
            score("Paris and more", Some("Paris"), Mode::Normalized),
            Outcome::NoMatch
        );
    }

    #[test]
    fn contains_stops_at_the_reference_and_agrees_with_a_whole_search() {
        let t = test_tables::install();
        let mut next = crate::testing::lcg(61);
        let pieces = [
            "Paris", " ", "the", ". ", "\n", "-", "é", "x_1", "  ", "😀", "İ", "Σ", "ΟΔΟΣ",
        ];
        let (mut whole, mut needle, mut buf) = (String::new(), String::new(), Vec::new());
        for round in 0..3_000 {
            // Long texts, so the search runs several times before the end.
            let len = if round % 3 == 0 {
                next() % 800
            } else {
                next() % 60
            };
            // A capital sigma (the whole text normalised first) in a tenth of them.
            let kinds = if round % 10 == 0 {
                pieces.len()
            } else {
                pieces.len() - 2
            };
            let text: String = (0..len).map(|_| pieces[next() % kinds]).collect();
            normalize_into(t, &text, &mut whole);
            // A needle from the text's own normalisation (found), or from another's.
            let cut =
                |s: &str, a: usize, b: usize| -> String { s.chars().skip(a).take(b).collect() };
            let chars = whole.chars().count();
            let other = [pieces[next() % pieces.len()], pieces[next() % pieces.len()]].concat();
            let source = if next().is_multiple_of(4) {
                other
            } else {
                text.clone()
            };
            normalize_into(t, &source, &mut needle);
            if source == text && chars > 0 {
                let a = next() % chars;
                needle = cut(&whole, a, 1 + next() % 40);
            }
            if needle.is_empty() {
                continue;
            }
            let want = whole.contains(needle.as_str());
            // Searches at every block, so that matches straddle them, or as in use.
            let every = if round % 2 == 0 { 1 } else { SEARCH_EVERY };
            let got = normalized_contains_every(t, &text, needle.as_bytes(), &mut buf, every);
            assert_eq!(got, want, "{text:?} {needle:?}");
        }
    }

    #[test]
    fn many_references() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let refs = [None, Some(" "), Some("Lyon"), Some("paris")];
        let got = score_many(t, "Paris.", refs.into_iter(), Mode::Normalized, &mut s);
        assert_eq!(got, (Outcome::Match, Some(3)));
        let refs = [None, Some(" "), Some("Lyon")];
        let got = score_many(t, "Paris.", refs.into_iter(), Mode::Normalized, &mut s);
        assert_eq!(got, (Outcome::NoMatch, Some(2)));
        let got = score_many(t, "Paris.", [None].into_iter(), Mode::Normalized, &mut s);
        assert_eq!(got, (Outcome::Inconclusive, None));
    }
}
