//! A row's question as the accepting rules read it: repaired and normalised only when a rule
//! needs it, and kept for the next row whose question is the same.
//!
//! Two rules read the question: the date rule asks whether it asks when (only for an alias that
//! is a date), and token recall discounts the tokens it gives away (only when the response
//! holds some of an alias's tokens but not all of them). Most rows need neither, and an eval log
//! repeats each question for every model and epoch: a question is read at most once a run of
//! rows that share it.

use super::{contains_padded, FoldTable, Normalizer, Options};
use crate::answer_rules as rules;
use crate::pyunicode::Tables;

/// The question last read, normalised, and what the rules asked of it.
#[derive(Default)]
pub(super) struct QuestionText {
    /// What `text` was read from: the options and tables it depends on, then the question's
    /// bytes; empty when nothing was read.
    key: Vec<u8>,
    /// The repaired, normalised question.
    text: String,
    /// Whether it asks when (worked out once).
    asks_when: Option<bool>,
    raw: Vec<u8>,
    fixed: String,
}

/// The start of a [`QuestionText`] key: the options and tables the normalised text depends on.
fn key_head(opts: &Options, fold: Option<&FoldTable>, t: &Tables) -> [u8; 18] {
    let mut head = [0u8; 18];
    head[0] = u8::from(opts.repair_mojibake);
    head[1] = u8::from(opts.number_words);
    let table = fold.map_or(0, |f| std::ptr::from_ref(f) as usize) as u64;
    head[2..10].copy_from_slice(&table.to_le_bytes());
    let tables = std::ptr::from_ref(t) as usize as u64;
    head[10..18].copy_from_slice(&tables.to_le_bytes());
    head
}

impl QuestionText {
    /// The question `q` repaired (when `opts.repair_mojibake`) and normalised; read again only
    /// when it differs from the last one read (or the options do).
    pub(super) fn read(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        q: &str,
    ) -> &str {
        let head = key_head(opts, fold, t);
        let same = self.key.len() == head.len() + q.len()
            && self.key.get(..head.len()) == Some(&head[..])
            && self.key.get(head.len()..) == Some(q.as_bytes());
        if !same {
            self.key.clear();
            self.key.extend_from_slice(&head);
            self.key.extend_from_slice(q.as_bytes());
            self.asks_when = None;
            let q = if opts.repair_mojibake
                && rules::repair_mojibake_into(q, &mut self.raw, &mut self.fixed)
            {
                self.fixed.as_str()
            } else {
                q
            };
            norm.normalize_into(t, fold, opts.number_words, q, &mut self.text);
        }
        &self.text
    }

    /// Whether the question `q` asks when ([`rules::asks_when`] of its normalised text).
    pub(super) fn asks_when(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        q: &str,
    ) -> bool {
        self.read(norm, t, fold, opts, q);
        if let Some(when) = self.asks_when {
            return when;
        }
        let when = asks_when_padded(&self.text);
        self.asks_when = Some(when);
        when
    }
}

/// [`rules::asks_when`] of a normalised text (its words between single spaces, one space on each
/// side): one of its words is `when`, `year` or `date`, found as that word between spaces.
fn asks_when_padded(normalized: &str) -> bool {
    let b = normalized.as_bytes();
    contains_padded(b, b" when ") || contains_padded(b, b" year ") || contains_padded(b, b" date ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_when_padded_agrees_with_the_words() {
        for text in [
            " ",
            " when ",
            " year ",
            " date ",
            " in what year did it ",
            " whenever it dates ",
            " the years of the dated ",
            " a when b ",
            " datewhen ",
            " when ever ",
        ] {
            assert_eq!(asks_when_padded(text), rules::asks_when(text), "{text:?}");
        }
    }
}
