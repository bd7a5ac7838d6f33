//! SQuAD v1.1 exact match and F1, with the official script's `normalize_answer`.
//!
//! `normalize_answer` lower-cases, deletes the 32 ASCII punctuation characters, replaces the
//! articles a / an / the (whole words by Python's `\b`) with a space, and joins
//! `str.split()`'s words with single spaces. After the deletion, `\b(a|an|the)\b` matches
//! exactly the maximal `\w` runs that are an article, so one pass does it all: a `\w` run is
//! held back while it may still be an article (at most three characters).

use crate::pyunicode::{py_is_blank, Tables};
use crate::tokens::Vocab;

/// `string.punctuation`.
#[inline]
fn is_ascii_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// Joins words with single spaces: `" ".join(text.split())` as characters arrive.
struct Collapse<F: FnMut(char)> {
    emit: F,
    pending_space: bool,
    any: bool,
}

impl<F: FnMut(char)> Collapse<F> {
    #[inline(always)]
    fn space(&mut self) {
        self.pending_space = self.any;
    }

    #[inline(always)]
    fn char(&mut self, c: char) {
        if self.pending_space {
            (self.emit)(' ');
            self.pending_space = false;
        }
        self.any = true;
        (self.emit)(c);
    }
}

/// Whether `held` (a `\w` run so far) is a prefix of an article.
#[inline]
fn article_prefix(held: &[char]) -> bool {
    matches!(
        held,
        ['a'] | ['a', 'n'] | ['t'] | ['t', 'h'] | ['t', 'h', 'e']
    )
}

#[inline]
fn is_article(held: &[char]) -> bool {
    matches!(held, ['a'] | ['a', 'n'] | ['t', 'h', 'e'])
}

/// Feed the SQuAD normalisation of `text` to `emit`, one character at a time.
pub fn for_each_normalized(t: &Tables, text: &str, emit: impl FnMut(char)) {
    let mut out = Collapse {
        emit,
        pending_space: false,
        any: false,
    };
    let mut run = ArticleRun::default();
    if text.is_ascii() {
        for b in text.bytes() {
            run.step(t, b.to_ascii_lowercase() as char, &mut out);
        }
    } else {
        t.for_each_lower(text, |c| {
            run.step(t, c, &mut out);
            true
        });
    }
    // The end of the text ends the last run; a space is inert at the end.
    run.step(t, ' ', &mut out);
}

/// The `\w` run being read, held back while it may still be an article.
#[derive(Default)]
struct ArticleRun {
    /// The run so far, while it is a prefix of an article (at most three characters).
    held: [char; 3],
    n_held: usize,
    /// Inside a `\w` run already known not to be an article.
    in_plain_run: bool,
}

impl ArticleRun {
    #[inline(always)]
    fn step<F: FnMut(char)>(&mut self, t: &Tables, c: char, out: &mut Collapse<F>) {
        if is_ascii_punctuation(c) {
            return;
        }
        if t.is_word(c) {
            if self.in_plain_run {
                out.char(c);
                return;
            }
            if let Some(slot) = self.held.get_mut(self.n_held) {
                *slot = c;
                if article_prefix(self.held.get(..=self.n_held).unwrap_or(&[])) {
                    self.n_held += 1;
                    return;
                }
            }
            // Not an article: release what was held, then this character.
            self.release(out);
            self.in_plain_run = true;
            out.char(c);
            return;
        }
        // A `\W` character ends the run.
        if self.n_held > 0 {
            if is_article(self.held.get(..self.n_held).unwrap_or(&[])) {
                self.n_held = 0;
                out.space();
            } else {
                self.release(out);
            }
        }
        self.in_plain_run = false;
        if t.is_space(c) {
            out.space();
        } else {
            out.char(c);
        }
    }

    #[inline(always)]
    fn release<F: FnMut(char)>(&mut self, out: &mut Collapse<F>) {
        for &h in self.held.get(..self.n_held).unwrap_or(&[]) {
            out.char(h);
        }
        self.n_held = 0;
    }
}

/// The SQuAD normalisation of `text`, written into `out` (cleared first).
pub fn normalize_into(t: &Tables, text: &str, out: &mut String) {
    out.clear();
    for_each_normalized(t, text, |c| out.push(c));
}

/// Reusable buffers for scoring many rows.
#[derive(Default)]
pub struct Scratch {
    response: String,
    reference: String,
    vocab: Vocab,
    ids: Vec<u32>,
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
    normalized.split(' ').filter(|w| !w.is_empty())
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
    let mut best: Option<f64> = None;
    let mut prepared = false;
    let mut n_response = 0;
    for reference in references {
        let Some(reference) = reference.filter(|r| !py_is_blank(r)) else {
            continue;
        };
        if !prepared {
            normalize_into(t, response, &mut s.response);
            if pair == Pair::F1 {
                s.vocab.clear();
                for w in words(&s.response) {
                    s.vocab.intern(w);
                    n_response += 1;
                }
            }
            prepared = true;
        }
        normalize_into(t, reference, &mut s.reference);
        let score = match pair {
            Pair::ExactMatch => {
                if s.reference == s.response {
                    1.0
                } else {
                    0.0
                }
            }
            Pair::F1 => {
                s.ids.clear();
                for w in words(&s.reference) {
                    s.ids.push(s.vocab.get(w));
                }
                let same = s.vocab.overlap(&s.ids);
                if same == 0 {
                    0.0
                } else {
                    let precision = same as f64 / n_response as f64;
                    let recall = same as f64 / s.ids.len() as f64;
                    (2.0 * precision * recall) / (precision + recall)
                }
            }
        };
        if best.is_none_or(|b| score > b) {
            best = Some(score);
        }
        if pair == Pair::ExactMatch && score == 1.0 {
            break;
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
    }
}
