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
    if text.len() < SHORT_ASCII && text.is_ascii() {
        normalize_ascii_into(text.as_bytes(), out);
        return;
    }
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

/// Below this many bytes an ASCII text (a reference, mostly) is normalised a byte at a time:
/// cheaper than setting up a padded block.
const SHORT_ASCII: usize = 48;

/// [`normalize_bytes_into`] of ASCII `bytes`: the ASCII loop of [`normalize_into`].
fn normalize_ascii_into(bytes: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut pending_space = false;
    for &b in bytes {
        match ASCII_NORMAL.get(usize::from(b)).copied().unwrap_or(0) {
            0 => {}
            SPACE_BYTE => pending_space = !out.is_empty(),
            lower => {
                if pending_space {
                    out.push(b' ');
                    pending_space = false;
                }
                out.push(lower);
            }
        }
    }
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
    let finder = PairFinder::new(needle);
    // The output before `searched` was searched: a match ending past it starts at most
    // `needle.len() - 1` bytes before it.
    let mut searched = 0usize;
    let mut found = false;
    blocks::normalize_bytes_checked(t, text, buf, every, |out| {
        let from = searched.saturating_sub(needle.len().saturating_sub(1));
        found = finder.find(out.get(from..).unwrap_or(&[]));
        searched = out.len();
        !found
    });
    found
}

/// A substring search that costs nothing to set up (a row's needle is searched for in one
/// short text): the places where both the needle's first and last bytes match, sixteen at a
/// time (SSE2 on x86_64), each then compared whole. A haystack where that finds too many
/// candidates goes to `memchr::memmem` instead, so the cost stays linear.
struct PairFinder<'n> {
    needle: &'n [u8],
}

impl<'n> PairFinder<'n> {
    /// Candidates compared in one haystack before it is handed to `memchr::memmem`.
    const MAX_CANDIDATES: usize = 64;

    fn new(needle: &'n [u8]) -> Self {
        PairFinder { needle }
    }

    /// Whether `hay` holds the needle (an empty one is everywhere).
    fn find(&self, hay: &[u8]) -> bool {
        let needle = self.needle;
        let k = needle.len();
        let (Some(&first), Some(&last)) = (needle.first(), needle.last()) else {
            return true;
        };
        if k > hay.len() {
            return false;
        }
        if k == 1 {
            return memchr::memchr(first, hay).is_some();
        }
        // Candidates: the starts `i` with hay[i] == first and hay[i + k - 1] == last, sixteen
        // at a time while both loads lie inside `hay`, then one block ending at its end.
        let (gap, starts) = (k - 1, hay.len() - k + 1);
        let mut candidates = 0usize;
        let mut check = |base: usize, mut bits: u64| -> Option<bool> {
            while bits != 0 {
                let at = base + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if hay.get(at..at + k) == Some(needle) {
                    return Some(true);
                }
                candidates += 1;
                if candidates > Self::MAX_CANDIDATES {
                    let rest = hay.get(at..).unwrap_or(&[]);
                    return Some(memchr::memmem::find(rest, needle).is_some());
                }
            }
            None
        };
        let mut i = 0;
        #[cfg(target_arch = "x86_64")]
        if hay.len() >= gap + 64 && crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2 (checked just above).
            match unsafe { pair_scan_avx2(hay, gap, (first, last), &mut check) } {
                Ok(found) => return found,
                Err(next) => i = next,
            }
        }
        while i + gap + 16 <= hay.len() {
            let bits = pair_bits(hay, i, gap, first, last);
            if bits != 0 {
                if let Some(found) = check(i, bits) {
                    return found;
                }
            }
            i += 16;
        }
        if i >= starts {
            return false;
        }
        if let Some(base) = hay.len().checked_sub(gap + 16) {
            // The last 16 starts, less those already looked at.
            let bits = pair_bits(hay, base, gap, first, last) & (u64::MAX << (i - base));
            return check(base, bits).unwrap_or(false);
        }
        // Fewer than 16 starts in all.
        (i..starts).any(|at| {
            hay.get(at) == Some(&first)
                && hay.get(at + gap) == Some(&last)
                && hay.get(at..at + k) == Some(needle)
        })
    }
}

/// [`PairFinder::find`]'s candidates 32 starts at a time from the start of `hay`, while both
/// loads lie inside it, each set of them handed to `check` (which may decide: `Ok`); else
/// `Err` of the first start not looked at.
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pair_scan_avx2(
    hay: &[u8],
    gap: usize,
    (first, last): (u8, u8),
    check: &mut impl FnMut(usize, u64) -> Option<bool>,
) -> Result<bool, usize> {
    use std::arch::x86_64::*;
    let (f, l) = (_mm256_set1_epi8(first as i8), _mm256_set1_epi8(last as i8));
    let mut i = 0;
    while let (Some(a), Some(b)) = (
        hay.get(i..).and_then(|r| r.first_chunk::<32>()),
        hay.get(i + gap..).and_then(|r| r.first_chunk::<32>()),
    ) {
        // SAFETY: each unaligned load reads the 32 bytes of a chunk of `hay` just taken; AVX2
        // is the caller's promise.
        let bits = unsafe {
            let a = _mm256_loadu_si256(a.as_ptr().cast());
            let b = _mm256_loadu_si256(b.as_ptr().cast());
            let hit = _mm256_and_si256(_mm256_cmpeq_epi8(a, f), _mm256_cmpeq_epi8(b, l));
            u64::from(_mm256_movemask_epi8(hit) as u32)
        };
        if bits != 0 {
            if let Some(found) = check(i, bits) {
                return Ok(found);
            }
        }
        i += 32;
    }
    Err(i)
}

/// Bit `j` (of 16) set where `hay[i + j] == first` and `hay[i + j + gap] == last` (the caller
/// keeps `i + gap + 16` within `hay`; bytes past it never match).
#[inline(always)]
fn pair_bits(hay: &[u8], i: usize, gap: usize, first: u8, last: u8) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if let (Some(a), Some(b)) = (
        hay.get(i..).and_then(|r| r.first_chunk::<16>()),
        hay.get(i + gap..).and_then(|r| r.first_chunk::<16>()),
    ) {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is enabled for the build (the `cfg`); each unaligned load reads the 16
        // bytes of a chunk of `hay` just taken.
        return unsafe {
            let a = _mm_loadu_si128(a.as_ptr().cast());
            let b = _mm_loadu_si128(b.as_ptr().cast());
            let hit = _mm_and_si128(
                _mm_cmpeq_epi8(a, _mm_set1_epi8(first as i8)),
                _mm_cmpeq_epi8(b, _mm_set1_epi8(last as i8)),
            );
            u64::from(_mm_movemask_epi8(hit) as u16)
        };
    }
    pair_bits_scalar(hay, i, gap, first, last)
}

/// [`pair_bits`] a byte at a time: the portable version, and the tests' check of the SSE2 one.
#[inline(always)]
fn pair_bits_scalar(hay: &[u8], i: usize, gap: usize, first: u8, last: u8) -> u64 {
    let mut bits = 0;
    for j in 0..16 {
        let hit = hay.get(i + j) == Some(&first) && hay.get(i + j + gap) == Some(&last);
        bits |= u64::from(hit) << j;
    }
    bits
}

/// How many bytes of a response are normalised between two searches for the reference.
const SEARCH_EVERY: usize = 256;

/// The first character of the DataRobot normalisation of `text` (a word character), or `None`
/// when it is empty: the ASCII bytes before the first word character are skipped by a table
/// look-up each, and a text whose first word character is not ASCII goes to
/// [`for_each_normalized`], which stops after it.
#[inline]
pub fn first_normalized(t: &Tables, text: &str) -> Option<char> {
    for &b in text.as_bytes() {
        if b >= 0x80 {
            let mut first = None;
            for_each_normalized(t, text, |c| {
                first = Some(c);
                false
            });
            return first;
        }
        match ASCII_NORMAL.get(usize::from(b)).copied().unwrap_or(0) {
            0 | SPACE_BYTE => {}
            lower => return Some(char::from(lower)),
        }
    }
    None
}

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
            // Two texts whose normalisations start differently differ: most pairs are told
            // apart by their first word characters, without normalising either.
            first_normalized(t, response) == first_normalized(t, reference) && {
                normalize_into(t, reference, &mut scratch.reference);
                normalized_equals(t, response, &scratch.reference)
            }
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
    fn the_first_normalised_character_decides_as_the_whole_normalisations_do() {
        // score_pair's normalized mode turns a pair away by the first characters of the two
        // normalisations: each must be the first of normalize_into's, and the outcome the
        // comparison of the whole normalisations, on random texts of ASCII and other pieces.
        let t = test_tables::install();
        let pieces = [
            "", " ", "  ", "\t", "\x1c", "-", ".", "'", "_", "a", "A", "Paris", "paris", "7",
            "ΣΑΣ", "Σ", "σ", "ς", "İ", "é", "É", "½", "\u{a0}", "\u{3000}", "日本", "😀", "ﬁ", "x",
        ];
        let mut next = crate::testing::lcg(71);
        let text = |next: &mut dyn FnMut() -> usize| {
            let mut out = String::new();
            for _ in 0..next() % 5 {
                out.push_str(pieces[next() % pieces.len()]);
            }
            out
        };
        let mut s = Scratch::default();
        let (mut a, mut b) = (String::new(), String::new());
        let mut same = 0;
        for _ in 0..50_000 {
            let (response, reference) = (text(&mut next), text(&mut next));
            normalize_into(t, &response, &mut a);
            normalize_into(t, &reference, &mut b);
            assert_eq!(
                first_normalized(t, &response),
                a.chars().next(),
                "{response:?}"
            );
            let want = if py_is_blank(&reference) {
                Outcome::Inconclusive
            } else if a == b {
                same += 1;
                Outcome::Match
            } else {
                Outcome::NoMatch
            };
            let got = score_pair(t, &response, Some(&reference), Mode::Normalized, &mut s);
            assert_eq!(got, want, "{response:?} {reference:?}");
        }
        assert!(same > 100, "{same}");
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
    fn short_ascii_texts_normalise_as_the_blocks_do() {
        // Every text of up to four bytes over the classes that matter, and random longer ones
        // around the cut (47, 48, 49 bytes), against the block path.
        let t = test_tables::install();
        let alphabet = [
            b'a', b'Z', b'_', b'7', b' ', b'\t', b'.', b'\x1c', b'\x00', b'\x7f',
        ];
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=4u32 {
            for code in 0..alphabet.len().pow(len) {
                let mut c = code;
                let text = (0..len)
                    .map(|_| {
                        let b = alphabet[c % alphabet.len()];
                        c /= alphabet.len();
                        b
                    })
                    .collect();
                texts.push(text);
            }
        }
        let mut next = crate::testing::lcg(67);
        for _ in 0..3_000 {
            let len = [next() % 60, 47, 48, 49][next() % 4];
            texts.push(
                (0..len)
                    .map(|_| alphabet[next() % alphabet.len()])
                    .collect(),
            );
        }
        for text in &texts {
            let text = std::str::from_utf8(text).unwrap_or("");
            normalize_ascii_into(text.as_bytes(), &mut fast);
            blocks::normalize_bytes(t, text, &mut slow);
            assert_eq!(fast, slow, "{text:?}");
            normalize_bytes_into(t, text, &mut fast);
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    #[test]
    fn pair_finder_agrees_with_memmem() {
        // Haystacks of a small alphabet (many candidates, the fallback too) and needles of 1 to
        // 20 bytes, at lengths around the 16-byte steps; SSE2 lanes against the scalar ones.
        let mut next = crate::testing::lcg(71);
        for round in 0..20_000 {
            let letters: &[u8] = if round % 3 == 0 { b"ab" } else { b"abcdefgh " };
            let len = [next() % 200, 15, 16, 17, 31, 32, 33, 63, 64, 65][next() % 10];
            let hay: Vec<u8> = (0..len).map(|_| letters[next() % letters.len()]).collect();
            let k = 1 + next() % 20;
            let needle: Vec<u8> = if next().is_multiple_of(2) && len >= k {
                let at = next() % (len - k + 1);
                hay[at..at + k].to_vec()
            } else {
                (0..k).map(|_| letters[next() % letters.len()]).collect()
            };
            let want = memchr::memmem::find(&hay, &needle).is_some();
            assert_eq!(
                PairFinder::new(&needle).find(&hay),
                want,
                "{hay:?} {needle:?}"
            );
            for i in 0..len {
                let gap = k - 1;
                assert_eq!(
                    pair_bits(&hay, i, gap, needle[0], needle[gap]),
                    pair_bits_scalar(&hay, i, gap, needle[0], needle[gap])
                );
            }
        }
        assert!(PairFinder::new(b"").find(b""));
        assert!(!PairFinder::new(b"ab").find(b"a"));
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
