//! SQuAD v1.1 exact match and F1, with the official script's `normalize_answer`.
//!
//! `normalize_answer` lower-cases, deletes the 32 ASCII punctuation characters, replaces the
//! articles a / an / the (whole words by Python's `\b`) with a space, and joins
//! `str.split()`'s words with single spaces. After the deletion, `\b(a|an|the)\b` matches
//! exactly the maximal `\w` runs that are an article, so one pass does it all: a `\w` run is
//! written as it is read and taken back if it is an article.

#[cfg(feature = "plugin")]
mod expressions;

use crate::pyunicode::{py_is_blank, Tables};
use crate::tokens::{overlap, Vocab};

/// What an ASCII character is to the normalisation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `\w` and not punctuation: a letter or a digit (`_` is punctuation).
    Word,
    /// `string.punctuation`: deleted, so it joins the `\w` characters around it.
    Punctuation,
    /// `str.isspace()`.
    Space,
    /// The other control characters: `\W`, kept, and not a space.
    Other,
}

const fn ascii_class(b: u8) -> Class {
    match b {
        b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => Class::Word,
        b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ' => Class::Space,
        b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~' => Class::Punctuation,
        _ => Class::Other,
    }
}

static ASCII_CLASS: [Class; 128] = {
    let mut table = [Class::Other; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = ascii_class(b as u8);
        b += 1;
    }
    table
};

#[inline(always)]
fn class(b: u8) -> Class {
    ASCII_CLASS[usize::from(b & 0x7f)]
}

/// The normalisation written straight into its output. A `\w` run (after the deletion) is
/// appended as it is read and taken back if it turns out to be an article; words are joined by
/// single spaces as they arrive.
struct Normalizer<'o> {
    out: &'o mut Vec<u8>,
    /// A space is due before the next kept character (some whitespace or an article was read
    /// since the last one, and something was written before it).
    pending_space: bool,
    /// Inside a `\w` run: where it starts in `out`, and where its separating space starts.
    run: Option<(usize, usize)>,
    /// Stop reading once `out` is longer than this.
    limit: usize,
}

impl Normalizer<'_> {
    #[inline(always)]
    fn begin_run(&mut self) {
        if self.run.is_none() {
            let before = self.out.len();
            if self.pending_space {
                self.out.push(b' ');
                self.pending_space = false;
            }
            self.run = Some((self.out.len(), before));
        }
    }

    /// A `\W` character or the end of the text ends the run; an article becomes a space.
    #[inline(always)]
    fn end_run(&mut self) {
        if let Some((start, before)) = self.run.take() {
            if matches!(&self.out[start..], b"a" | b"an" | b"the") {
                self.out.truncate(before);
                self.pending_space = !self.out.is_empty();
            }
        }
    }

    #[inline(always)]
    fn space(&mut self) {
        self.end_run();
        self.pending_space = !self.out.is_empty();
    }

    /// A kept character that is neither `\w` nor a space.
    #[inline(always)]
    fn other(&mut self, c: char) {
        self.end_run();
        if self.pending_space {
            self.out.push(b' ');
            self.pending_space = false;
        }
        let mut buf = [0; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    /// ASCII text: word characters are copied (lower-cased) a stretch at a time.
    fn ascii(&mut self, text: &[u8]) {
        let mut i = 0;
        while i < text.len() {
            match class(text[i]) {
                Class::Word => {
                    self.begin_run();
                    let mut end = i + 1;
                    while end < text.len() && class(text[end]) == Class::Word {
                        end += 1;
                    }
                    // Letters and digits only: setting bit 5 lower-cases letters and keeps
                    // digits.
                    self.out.extend(text[i..end].iter().map(|&b| b | 0x20));
                    i = end;
                    if self.out.len() > self.limit {
                        return;
                    }
                }
                Class::Punctuation => i += 1,
                Class::Space => {
                    self.space();
                    i += 1;
                }
                Class::Other => {
                    self.other(char::from(text[i]));
                    i += 1;
                }
            }
        }
    }

    /// One character of the lower-cased text.
    #[inline]
    fn lowered(&mut self, t: &Tables, c: char) {
        if c.is_ascii() {
            let mut buf = [0; 4];
            self.ascii(c.encode_utf8(&mut buf).as_bytes());
        } else if t.is_word(c) {
            self.begin_run();
            let mut buf = [0; 4];
            self.out
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        } else if t.is_space(c) {
            self.space();
        } else {
            self.other(c);
        }
    }
}

/// The SQuAD normalisation of `text`, written into `out` (cleared first).
pub fn normalize_into(t: &Tables, text: &str, out: &mut String) {
    normalize_up_to(t, text, usize::MAX, out);
}

/// [`normalize_into`], which may stop reading once the output is longer than `limit` bytes: the
/// output is then a prefix of the normalisation that stays longer than `limit - 4` (taking back
/// an article removes at most four bytes, " the"). A text holding a capital sigma is read whole.
fn normalize_up_to(t: &Tables, text: &str, limit: usize, out: &mut String) {
    let mut bytes = std::mem::take(out).into_bytes();
    bytes.clear();
    let mut n = Normalizer {
        out: &mut bytes,
        pending_space: false,
        run: None,
        limit,
    };
    if memchr::memmem::find(text.as_bytes(), "\u{03A3}".as_bytes()).is_some() {
        // A capital sigma lower-cases by its context: the whole text through `str.lower()`.
        t.for_each_lower(text, |c| {
            n.lowered(t, c);
            true
        });
    } else {
        // Otherwise each character lower-cases on its own: ASCII stretches go a byte class at a
        // time, the other characters one by one.
        let mut rest = text;
        if rest.is_ascii() {
            n.ascii(rest.as_bytes());
            rest = "";
        }
        while !rest.is_empty() && n.out.len() <= limit {
            let ascii = rest
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(rest.len());
            n.ascii(&rest.as_bytes()[..ascii]);
            if n.out.len() > limit {
                // `ascii` stopped inside the stretch: nothing after it may be read.
                break;
            }
            rest = &rest[ascii..];
            let mut chars = rest.chars();
            if let Some(c) = chars.next() {
                t.lower_char_each(c, |l| n.lowered(t, l));
                rest = chars.as_str();
            }
        }
    }
    n.end_run();
    // Only whole UTF-8 sequences were written.
    *out = String::from_utf8(bytes).unwrap_or_default();
}

/// Reusable buffers for scoring many rows.
#[derive(Default)]
pub struct Scratch {
    response: String,
    reference: String,
    /// F1: the references' words, interned together; each reference's word ids one after the
    /// other (`ends` holds where each ends); how often the response holds each word.
    vocab: Vocab,
    ids: Vec<u32>,
    counts: Vec<u32>,
    used: Vec<u32>,
    /// Exact match: the normalised references, one after the other (`ends` holds their ends).
    references: String,
    ends: Vec<usize>,
}

/// Exact match or F1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    ExactMatch,
    F1,
}

/// The normalised words of `normalized` (already joined with single spaces).
#[inline]
fn words(normalized: &str) -> impl Iterator<Item = &str> {
    // Words are short: a plain scan beats a `memchr` call per word.
    let bytes = normalized.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() {
            let from = start;
            let end = bytes[from..]
                .iter()
                .position(|&b| b == b' ')
                .map_or(bytes.len(), |k| from + k);
            start = end + 1;
            if end > from {
                return normalized.get(from..end);
            }
        }
        None
    })
}

/// Exact match over the usable references: they are normalised first, so the response is read
/// only as far as it could still equal one of them (a long answer against a short reference
/// costs a few words).
fn exact_match<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    s.references.clear();
    s.ends.clear();
    for reference in references.flatten().filter(|r| !py_is_blank(r)) {
        normalize_into(t, reference, &mut s.reference);
        s.references.push_str(&s.reference);
        s.ends.push(s.references.len());
    }
    let mut start = 0;
    let longest = s.ends.iter().map(|&end| {
        let len = end - start;
        start = end;
        len
    });
    let limit = longest.max()?.saturating_add(4);
    normalize_up_to(t, response, limit, &mut s.response);
    let mut start = 0;
    let matched = s.ends.iter().any(|&end| {
        let same = s.references.get(start..end) == Some(s.response.as_str());
        start = end;
        same
    });
    Some(if matched { 1.0 } else { 0.0 })
}

/// The best score of `response` (null already read as `""`) over the usable references (not
/// null, not blank); `None` when none is usable.
pub fn best<'a>(
    t: &Tables,
    pair: Pair,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    match pair {
        Pair::ExactMatch => exact_match(t, response, references, s),
        Pair::F1 => f1(t, response, references, s),
    }
}

/// F1 over the usable references. Their words are interned together; the response's words are
/// only looked up among them (a word no reference has can never match).
fn f1<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    s.vocab.clear();
    s.ids.clear();
    s.ends.clear();
    for reference in references.flatten().filter(|r| !py_is_blank(r)) {
        normalize_into(t, reference, &mut s.reference);
        for w in words(&s.reference) {
            let id = s.vocab.intern(w);
            s.ids.push(id);
        }
        s.ends.push(s.ids.len());
    }
    if s.ends.is_empty() {
        return None;
    }
    normalize_into(t, response, &mut s.response);
    s.counts.clear();
    s.counts.resize(s.vocab.len(), 0);
    let mut n_response = 0;
    for w in words(&s.response) {
        n_response += 1;
        if let Some(count) = s.counts.get_mut(s.vocab.get(w) as usize) {
            *count += 1;
        }
    }
    let mut best: Option<f64> = None;
    let mut start = 0;
    for &end in &s.ends {
        let ids = s.ids.get(start..end).unwrap_or(&[]);
        start = end;
        let same = overlap(&s.counts, &mut s.used, ids);
        let score = if same == 0 {
            0.0
        } else {
            let precision = same as f64 / n_response as f64;
            let recall = same as f64 / ids.len() as f64;
            (2.0 * precision * recall) / (precision + recall)
        };
        if best.is_none_or(|b| score > b) {
            best = Some(score);
        }
    }
    best
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
    fn normalize_examples() {
        for (text, expected) in [
            ("The Eiffel Tower", "eiffel tower"),
            ("a an the", ""),
            ("a a a a", ""),
            ("theater", "theater"),
            ("A.B.", "ab"),
            ("a.", ""),
            ("a_b", "ab"),
            ("a\u{301} b", "\u{301} b"),
            ("²a", "²a"),
            ("x\x1ca\x1cy", "x y"),
            ("l'année", "lannée"),
            ("«the»", "« »"),
            ("THE\u{3000}END", "end"),
            ("an-the", "anthe"),
            ("th", "th"),
            ("at", "at"),
            ("  x  ", "x"),
        ] {
            assert_eq!(norm(text), expected, "{text:?}");
        }
    }

    /// The official script's steps one after the other, on whole strings.
    fn oracle(t: &Tables, text: &str) -> String {
        let lowered = t.lower(text);
        let kept: Vec<char> = lowered
            .chars()
            .filter(|c| !c.is_ascii_punctuation())
            .collect();
        // `\b(a|an|the)\b` matches exactly the maximal `\w` runs that are an article.
        let mut spaced = String::new();
        let mut i = 0;
        while i < kept.len() {
            if t.is_word(kept[i]) {
                let end = (i..kept.len())
                    .find(|&j| !t.is_word(kept[j]))
                    .unwrap_or(kept.len());
                let run: String = kept[i..end].iter().collect();
                if matches!(run.as_str(), "a" | "an" | "the") {
                    spaced.push(' ');
                } else {
                    spaced.push_str(&run);
                }
                i = end;
            } else {
                spaced.push(kept[i]);
                i += 1;
            }
        }
        spaced
            .split(crate::pyunicode::is_py_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn equals_the_official_steps_on_every_short_text() {
        // Every string of up to four characters over the articles' letters, each class of
        // ASCII character, non-ASCII word, space and other characters, and the capital sigma.
        let t = test_tables::install();
        let alphabet: Vec<char> = "aAnThe_.'\x01 \x1cé«\u{3000}İΣ\u{301}".chars().collect();
        let mut text = String::new();
        let mut out = String::new();
        let mut digits: Vec<usize> = Vec::new();
        loop {
            text.clear();
            text.extend(digits.iter().map(|&k| alphabet[k]));
            normalize_into(t, &text, &mut out);
            assert_eq!(out, oracle(t, &text), "{text:?}");
            // The next string: count in base len(alphabet), growing up to four characters.
            let mut k = digits.len();
            loop {
                if k == 0 {
                    if digits.len() == 4 {
                        return;
                    }
                    digits.iter_mut().for_each(|d| *d = 0);
                    digits.push(0);
                    break;
                }
                k -= 1;
                digits[k] += 1;
                if digits[k] < alphabet.len() {
                    break;
                }
                digits[k] = 0;
            }
        }
    }

    #[test]
    fn scores() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut f1 = |r: &str, g: &[Option<&str>]| best(t, Pair::F1, r, g.iter().copied(), &mut s);
        assert_eq!(f1("yes yes no", &[Some("yes")]), Some(0.5));
        assert_eq!(f1("the", &[Some("a")]), Some(0.0));
        assert_eq!(f1("x", &[None, Some(" \x1c")]), None);
        let got = f1("the beatles band", &[Some("The Beatles")]).unwrap();
        assert!((got - 2.0 * 0.5 / 1.5).abs() < 1e-15);
        let mut em =
            |r: &str, g: &[Option<&str>]| best(t, Pair::ExactMatch, r, g.iter().copied(), &mut s);
        assert_eq!(em("the", &[Some("a")]), Some(1.0));
        assert_eq!(
            em("Beatles", &[Some("Stones"), Some("The Beatles!")]),
            Some(1.0)
        );
        assert_eq!(em("x", &[]), None);
        // The response is read only as far as it could still match: an article at the limit
        // is taken back, and a longer response is no match.
        assert_eq!(em("X the", &[Some("x")]), Some(1.0));
        assert_eq!(em("x an", &[Some("x"), Some("")]), Some(1.0));
        assert_eq!(em("x the y", &[Some("x")]), Some(0.0));
        assert_eq!(em(&"word ".repeat(10_000), &[Some("word")]), Some(0.0));
        assert_eq!(em("«é» the", &[Some("«é»")]), Some(1.0));
    }
}
