//! The normalisation of answer_match as a port of its recipe step by step, one pass per
//! regular expression: the reference the one-pass [`super::Normalizer`] is tested against
//! (`cargo test` and the fuzz target), not used to score.

use super::{is_digit, is_letter, FoldTable};
use crate::answer_words::{is_article, number_word};
use crate::pyunicode::Tables;

/// A text unit the normalisation steps run over: a `char` (any text, classified by the
/// interpreter's tables) or a byte of an ASCII text (classified by ASCII rules, which agree with
/// Python's on ASCII). The steps are written once, generic over both.
trait Unit: Copy + PartialEq {
    /// An ASCII character as a unit.
    fn ascii(b: u8) -> Self;
    fn is_letter(self, t: &Tables) -> bool;
    fn is_digit(self, t: &Tables) -> bool;
    fn is_word(self, t: &Tables) -> bool;
    /// `'` or `’`.
    fn is_apostrophe(self) -> bool;
    fn to_char(self) -> char;
    /// The first apostrophe or dot in `a` from `from` on (what step 2 acts on).
    fn find_mark(a: &[Self], from: usize) -> Option<usize>;
    /// The first comma in `a` from `from` on (what step 3 acts on).
    fn find_comma(a: &[Self], from: usize) -> Option<usize>;
    /// The first decimal digit in `a` from `from` on (what step 4 acts on).
    fn find_digit(a: &[Self], from: usize, t: &Tables) -> Option<usize>;
}

impl Unit for char {
    #[inline]
    fn ascii(b: u8) -> Self {
        b as char
    }
    #[inline]
    fn is_letter(self, t: &Tables) -> bool {
        is_letter(t, self)
    }
    #[inline]
    fn is_digit(self, t: &Tables) -> bool {
        is_digit(t, self)
    }
    #[inline]
    fn is_word(self, t: &Tables) -> bool {
        t.is_word(self)
    }
    #[inline]
    fn is_apostrophe(self) -> bool {
        matches!(self, '\'' | '\u{2019}')
    }
    #[inline]
    fn to_char(self) -> char {
        self
    }
    fn find_mark(a: &[Self], from: usize) -> Option<usize> {
        let rest = a.get(from..)?;
        Some(from + rest.iter().position(|&c| c == '.' || c.is_apostrophe())?)
    }
    fn find_comma(a: &[Self], from: usize) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(|&c| c == ',')?)
    }
    fn find_digit(a: &[Self], from: usize, t: &Tables) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(|&c| is_digit(t, c))?)
    }
}

impl Unit for u8 {
    #[inline]
    fn ascii(b: u8) -> Self {
        b
    }
    #[inline]
    fn is_letter(self, _: &Tables) -> bool {
        self.is_ascii_alphabetic()
    }
    #[inline]
    fn is_digit(self, _: &Tables) -> bool {
        self.is_ascii_digit()
    }
    #[inline]
    fn is_word(self, _: &Tables) -> bool {
        self.is_ascii_alphanumeric() || self == b'_'
    }
    #[inline]
    fn is_apostrophe(self) -> bool {
        self == b'\''
    }
    #[inline]
    fn to_char(self) -> char {
        self as char
    }
    fn find_mark(a: &[Self], from: usize) -> Option<usize> {
        Some(from + memchr::memchr2(b'.', b'\'', a.get(from..)?)?)
    }
    fn find_comma(a: &[Self], from: usize) -> Option<usize> {
        Some(from + memchr::memchr(b',', a.get(from..)?)?)
    }
    fn find_digit(a: &[Self], from: usize, _: &Tables) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(u8::is_ascii_digit)?)
    }
}

/// Reusable buffers of the normalisation.
#[derive(Default)]
pub struct StepNormalizer {
    folded: String,
    a: Vec<char>,
    b: Vec<char>,
    ascii_a: Vec<u8>,
    ascii_b: Vec<u8>,
}

impl StepNormalizer {
    /// Write the answer-match normalisation of `text` into `out` (cleared first): the words
    /// separated by one space, with one space on each side (`" "` when there is no word).
    ///
    /// `fold` is the accent-folding table, or `None` for no folding. An ASCII text stays bytes
    /// throughout (folding and lowering cannot take it out of ASCII).
    pub fn normalize_into(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        text: &str,
        out: &mut String,
    ) {
        if text.is_ascii() {
            let (a, b) = (&mut self.ascii_a, &mut self.ascii_b);
            a.clear();
            a.extend_from_slice(text.as_bytes());
            a.make_ascii_lowercase();
            steps(t, number_words, a, b, out);
            return;
        }
        // 1. NFKD without marks, then str.lower().
        self.a.clear();
        let source = match fold {
            Some(fold) => {
                self.folded.clear();
                for c in text.chars() {
                    match fold.get(c) {
                        Some(f) => self.folded.push_str(f),
                        None => self.folded.push(c),
                    }
                }
                self.folded.as_str()
            }
            None => text,
        };
        let a = &mut self.a;
        t.for_each_lower(source, |c| {
            a.push(c);
            true
        });
        steps(t, number_words, &mut self.a, &mut self.b, out);
    }
}

/// Steps 2-5 of the normalisation, from the lowered text in `a` (`b` is scratch).
///
/// Steps 2-4 each copy the text in bulk between the characters they act on (apostrophes and
/// dots, commas, digits), which they find with a search; what a backtracking pass would do at
/// each such character depends only on its neighbours and on whether the character before it
/// was read as itself (not dropped or consumed by the previous rewrite), which each step tracks.
fn steps<U: Unit>(
    t: &Tables,
    number_words: bool,
    a: &mut Vec<U>,
    b: &mut Vec<U>,
    out: &mut String,
) {
    // 2. After a letter: a possessive 's goes, and so does an apostrophe or a dot.
    drop_inner_marks(t, a, b);
    // 3. Thousands separators.
    drop_thousands_separators(t, b, a);
    // 4. A letter glued to a digit is split off; a decimal point becomes "_".
    split_and_join_numbers(t, a, b);
    // 5. Words, ordinal suffixes and number words, articles.
    write_words(t, number_words, b, out);
}

/// `re.sub(r"([^\W\d_])(?:\.?['’]s\b|['’.])", r"\1", text)`.
fn drop_inner_marks<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let dot = U::ascii(b'.');
    // `a[..copied]` is handled; `a[fresh]` follows a dropped stretch (or starts the text), so
    // no letter before it was read.
    let (mut copied, mut fresh, mut from) = (0, 0, 0);
    while let Some(p) = U::find_mark(a, from) {
        from = p + 1;
        if p == fresh || !a.get(p - 1).is_some_and(|c| c.is_letter(t)) {
            continue;
        }
        let mut k = p;
        if a.get(k) == Some(&dot) {
            k += 1;
        }
        let end = if a.get(k).is_some_and(|x| x.is_apostrophe())
            && a.get(k + 1) == Some(&U::ascii(b's'))
            && a.get(k + 2).is_none_or(|&c| !c.is_word(t))
        {
            k + 2
        } else {
            p + 1
        };
        out.extend_from_slice(a.get(copied..p).unwrap_or(&[]));
        (copied, fresh, from) = (end, end, end);
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// Whether `a[k..k + 4]` is `,` and three decimal digits.
#[inline]
fn group_at<U: Unit>(t: &Tables, a: &[U], k: usize) -> bool {
    a.get(k) == Some(&U::ascii(b','))
        && a.get(k + 1..k + 4)
            .is_some_and(|g| g.iter().all(|&c| c.is_digit(t)))
}

/// Where `(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b` matches from `i` (a digit), in the order a
/// backtracking engine tries the optional groups.
fn thousands_end<U: Unit>(t: &Tables, a: &[U], i: usize) -> Option<usize> {
    if !group_at(t, a, i + 1) {
        return None;
    }
    let boundary = |e: usize| a.get(e).is_none_or(|&c| !c.is_word(t));
    let e1 = i + 5;
    if group_at(t, a, e1) {
        let e2 = e1 + 4;
        if group_at(t, a, e2) && boundary(e2 + 4) {
            return Some(e2 + 4);
        }
        if boundary(e2) {
            return Some(e2);
        }
    }
    boundary(e1).then_some(e1)
}

/// `re.sub(r"(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b", r"\1\2\3\4", text)`.
fn drop_thousands_separators<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let comma = U::ascii(b',');
    // `a[..copied]` is handled (a match consumed up to `copied`).
    let (mut copied, mut from) = (0, 0);
    while let Some(p) = U::find_comma(a, from) {
        from = p + 1;
        // A match starts at the digit just before a comma, if no match consumed that digit.
        let Some(start) = p.checked_sub(1).filter(|&i| i >= copied) else {
            continue;
        };
        if !a.get(start).is_some_and(|c| c.is_digit(t)) {
            continue;
        }
        if let Some(end) = thousands_end(t, a, start) {
            out.extend_from_slice(a.get(copied..start).unwrap_or(&[]));
            out.extend(
                a.get(start..end)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|&&d| d != comma),
            );
            (copied, from) = (end, end);
        }
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// `re.sub(r"([^\W\d_])(\d)", r"\1 \2", text)`, then `re.sub(r"(\d)\.(\d)", r"\1_\2", text)`.
///
/// One pass does both: the space goes between a letter and a digit, which neither creates nor
/// breaks a digit-dot-digit match.
fn split_and_join_numbers<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let mut copied = 0;
    while let Some(p) = U::find_digit(a, copied, t) {
        out.extend_from_slice(a.get(copied..p).unwrap_or(&[]));
        // A letter before a digit is always read as itself (a rewrite consumes only a dot
        // and a digit).
        if p.checked_sub(1)
            .and_then(|i| a.get(i))
            .is_some_and(|c| c.is_letter(t))
        {
            out.push(U::ascii(b' '));
        }
        let (Some(&c), next) = (a.get(p), a.get(p + 2)) else {
            break;
        };
        match next.filter(|&&d| a.get(p + 1) == Some(&U::ascii(b'.')) && d.is_digit(t)) {
            Some(&d) => {
                out.extend([c, U::ascii(b'_'), d]);
                copied = p + 3;
            }
            None => {
                out.push(c);
                copied = p + 1;
            }
        }
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// The ASCII spelling of `word`, in `buf`, when it is short enough to be a table word.
#[inline]
fn short_ascii<'b, U: Unit>(word: &[U], buf: &'b mut [u8; 16]) -> Option<&'b str> {
    if word.len() > buf.len() {
        return None;
    }
    for (slot, &c) in buf.iter_mut().zip(word) {
        let c = c.to_char();
        if !c.is_ascii() {
            return None;
        }
        *slot = c as u8;
    }
    std::str::from_utf8(buf.get(..word.len())?).ok()
}

/// Split on runs of non-word characters; per word, drop an ordinal suffix and read a number
/// word (with `number_words`), drop articles; join with spaces and pad both ends.
fn write_words<U: Unit>(t: &Tables, number_words: bool, a: &[U], out: &mut String) {
    out.clear();
    out.push(' ');
    let mut buf = [0u8; 16];
    let mut i = 0;
    while i < a.len() {
        let start = i;
        while a.get(i).is_some_and(|&c| c.is_word(t)) {
            i += 1;
        }
        let Some(mut word) = a.get(start..i).filter(|w| !w.is_empty()) else {
            i += 1;
            continue;
        };
        if number_words {
            // (\d)(?:st|nd|rd|th)$
            if let [.., d, x, y] = word {
                if matches!(
                    (x.to_char(), y.to_char()),
                    ('s', 't') | ('n', 'd') | ('r', 'd') | ('t', 'h')
                ) && d.is_digit(t)
                {
                    word = word.get(..word.len() - 2).unwrap_or(word);
                }
            }
        }
        match short_ascii(word, &mut buf) {
            Some(w) if is_article(w.as_bytes()) => continue,
            Some(w) => match number_word(w.as_bytes()).filter(|_| number_words) {
                Some(digits) => out.push_str(digits),
                None => out.push_str(w),
            },
            None => out.extend(word.iter().map(|c| c.to_char())),
        }
        out.push(' ');
    }
}
