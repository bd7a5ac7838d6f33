//! answer_match: polarscore's own judge-free rules, one response against every alias of a row.
//!
//! The rules, in order: the normalised response equals the normalised alias (`exact`); the
//! normalised alias occurs in the normalised response on word boundaries (`contains`); enough of
//! the alias's content words occur in the response (`token_recall`, with optional question words
//! discounted and every number of the alias required). The first alias accepted by the earliest
//! rule wins, then the best graded score, then the first position.
//!
//! Normalisation ([`Normalizer`], in `normalize`) restates in one forward pass the
//! regular-expression recipe of `match_normalize` (`polarscore/normalize.py`) with Python's
//! character classes (`re`'s `\w` and `\d`, letters as `[^\W\d_]`, `str.lower()`), and accent
//! folding as Python's NFKD with combining marks dropped, from a table the Python side reads from
//! the interpreter's `unicodedata` ([`set_fold_table`]).

mod block;
mod claims;
#[cfg(feature = "plugin")]
pub(crate) mod expressions;
mod key_recall;
mod normalize;
mod question;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod reference;
mod swar;

pub use normalize::{Normalizer, Seen};

use std::cmp::Ordering;
use std::sync::OnceLock;

use crate::answer_rules as rules;
use crate::answer_words::is_stopword;
use crate::ascii;
use crate::pyunicode::{py_is_blank, Tables};
use crate::tokens::{Vocab, ABSENT};

/// Whether [`rules::unglue_into`] would change `text`: a lower-case ASCII letter comes right
/// before an upper-case one (`isIdaho`), found 64 bytes at a time.
pub fn has_glued_words(text: &str) -> bool {
    block::lower_before_upper(text.as_bytes())
}

// --- accent folding -----------------------------------------------------------------------------

/// `"".join(c for c in NFKD(ch) if not category(c).startswith("M"))` for every code point `ch`
/// it changes, as the running interpreter computes it.
///
/// Folding a string character by character equals folding it whole: NFKD only reorders
/// characters of nonzero combining class, and all of them are marks, which are dropped (the
/// Python side checks this over every code point before it builds the table).
pub struct FoldTable {
    /// One bit per code point: set for the keys (a quick "unchanged" for all the others).
    present: Vec<u64>,
    keys: Vec<u32>,
    /// `ends[i]` is where the folding of `keys[i]` ends in `text` (it starts at `ends[i - 1]`).
    ends: Vec<usize>,
    text: String,
}

static FOLD: OnceLock<FoldTable> = OnceLock::new();

/// Install the fold table: `code_points` strictly increasing, `folded[i]` the folding of
/// `code_points[i]`. The first call wins; later calls are ignored.
pub fn set_fold_table(code_points: &[u32], folded: &[String]) -> Result<(), String> {
    if code_points.len() != folded.len() {
        return Err(format!(
            "{} code points but {} foldings",
            code_points.len(),
            folded.len()
        ));
    }
    if code_points.windows(2).any(|w| w[0] >= w[1]) {
        return Err("the fold table's code points must be strictly increasing".to_owned());
    }
    if FOLD.get().is_some() {
        return Ok(());
    }
    let mut text = String::with_capacity(folded.iter().map(String::len).sum());
    let mut ends = Vec::with_capacity(folded.len());
    for f in folded {
        text.push_str(f);
        ends.push(text.len());
    }
    let mut present = vec![0u64; (char::MAX as usize >> 6) + 1];
    for &cp in code_points {
        if let Some(word) = present.get_mut(cp as usize >> 6) {
            *word |= 1 << (cp & 63);
        }
    }
    let _ = FOLD.set(FoldTable {
        present,
        keys: code_points.to_vec(),
        ends,
        text,
    });
    Ok(())
}

/// The installed fold table, or an error telling that polarscore's Python side did not set it.
pub fn fold_table() -> Result<&'static FoldTable, String> {
    FOLD.get().ok_or_else(|| {
        "polarscore's accent-folding table is not loaded: call answer_match through the \
         polarscore Python package, which loads it from the interpreter's unicodedata"
            .to_owned()
    })
}

impl FoldTable {
    /// The folding of `c`, or `None` when folding leaves it unchanged.
    #[inline]
    pub fn get(&self, c: char) -> Option<&str> {
        let cp = c as u32;
        if self.present.get(cp as usize >> 6)? & (1 << (cp & 63)) == 0 {
            return None;
        }
        let i = self.keys.binary_search(&(c as u32)).ok()?;
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
        self.text.get(start..*self.ends.get(i)?)
    }
}

// --- normalisation ------------------------------------------------------------------------------

/// Python's `[^\W\d_]`: a word character that is neither a decimal digit nor `_`.
#[inline]
fn is_letter(t: &Tables, c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    t.is_word(c) && t.digit_value(c).is_none()
}

/// Python's `\d`.
#[inline]
fn is_digit(t: &Tables, c: char) -> bool {
    t.digit_value(c).is_some()
}

// --- content tokens -----------------------------------------------------------------------------

/// Light stemming, written to `out`: a plural ending dropped (`(\p{L}{2,}[^s])ies$` → `$1y`, then
/// `(\p{L}{3,}[^s])e?s$` → `$1`), then the first `prefix` characters; a token that starts with a
/// digit is kept whole, and so is every token when `prefix` is `None`.
pub fn stem_into(t: &Tables, token: &str, prefix: Option<usize>, out: &mut String) {
    let Some(prefix) = prefix else {
        out.push_str(token);
        return;
    };
    if token.is_ascii() {
        stem_ascii_into(token, prefix, out);
    } else {
        stem_chars_into(t, token, prefix, out);
    }
}

/// [`stem_into`] of an ASCII token (a character is a byte), with a prefix.
#[inline]
fn stem_ascii_into(token: &str, prefix: usize, out: &mut String) {
    let b = token.as_bytes();
    if b.first().is_some_and(u8::is_ascii_digit) {
        out.push_str(token);
        return;
    }
    let (base, y) = ascii_plural_base(b);
    out.push_str(token.get(..base.min(prefix)).unwrap_or(token));
    if y && base < prefix {
        out.push('y');
    }
}

/// The plural ending [`stem_into`] drops from an ASCII token `b` (one that does not start with
/// a digit): how many bytes are kept, and whether a `y` then follows (`ies` → `y`).
#[inline(always)]
fn ascii_plural_base(b: &[u8]) -> (usize, bool) {
    let n = b.len();
    // The `k`-th byte from the end (the last is 1), for `k <= n`.
    let c = |k: usize| b.get(n.wrapping_sub(k)).copied().unwrap_or(0);
    let letter = |k: usize| c(k).is_ascii_alphabetic();
    if n >= 6 && b.ends_with(b"ies") && c(4) != b's' && letter(5) && letter(6) {
        (n - 3, true)
    } else if n >= 5 && c(1) == b's' && c(2) != b's' && letter(3) && letter(4) && letter(5) {
        (n - 1, false)
    } else if n >= 6 && b.ends_with(b"es") && c(3) != b's' && letter(4) && letter(5) && letter(6) {
        (n - 2, false)
    } else {
        (n, false)
    }
}

/// The stem of `token` ([`stem_into`]) as a [`StemKeys`] key, when `token` is ASCII and its stem
/// at most eight bytes: the stem's bytes, little-endian, zero-padded (no stem holds a zero
/// byte, so the key tells stems apart).
#[inline(always)]
fn ascii_stem_key(token: &[u8], prefix: Option<usize>) -> Option<u64> {
    if !token.is_ascii() {
        return None;
    }
    let (keep, y) = match prefix {
        Some(prefix) if !token.first().is_some_and(u8::is_ascii_digit) => {
            let (base, y) = ascii_plural_base(token);
            (base.min(prefix), y && base < prefix)
        }
        _ => (token.len(), false),
    };
    if keep + usize::from(y) > 8 {
        return None;
    }
    let key = match token.first_chunk::<8>() {
        // One load, the bytes past the stem masked off.
        Some(head) => {
            u64::from_le_bytes(*head) & u64::MAX.checked_shr(64 - 8 * keep as u32).unwrap_or(0)
        }
        None => ascii::load_short(token.get(..keep)?),
    };
    Some(if y {
        key | u64::from(b'y') << (8 * keep)
    } else {
        key
    })
}

/// A row's tokens that are ASCII stems of at most eight bytes, by [`ascii_stem_key`]: an
/// open-addressing table of a few dozen slots, in which such a token is interned and a response
/// word's stem looked up without building it nor hashing it as a string.
#[derive(Default)]
struct StemKeys {
    /// A power-of-two number of slots, each a key and its token's id, or [`NO_KEY`].
    slots: Vec<(u64, u32)>,
    /// The keys and ids held, to grow the slots.
    held: Vec<(u64, u32)>,
}

/// An empty slot of [`StemKeys`]: no key, as no stem holds a byte of 0xff.
const NO_KEY: u64 = u64::MAX;

/// The slots of an empty [`StemKeys`].
const STEM_SLOTS: usize = 16;

impl StemKeys {
    /// Empty the table, keeping its slots (a row's aliases have about as many tokens as the
    /// row before's: the table is not grown again for each row). The keys are taken out last
    /// first: each one's probe then crosses only slots of keys put before it, all still held.
    fn clear(&mut self) {
        if self.slots.len() < STEM_SLOTS {
            self.slots.resize(STEM_SLOTS, (NO_KEY, 0));
        }
        let mask = self.slots.len().wrapping_sub(1);
        while let Some((key, _)) = self.held.pop() {
            let mut k = self.slot(key);
            while let Some(slot) = self.slots.get_mut(k) {
                if slot.0 == key {
                    slot.0 = NO_KEY;
                    break;
                }
                if slot.0 == NO_KEY {
                    break;
                }
                k = (k + 1) & mask;
            }
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        let mask = self.slots.len().wrapping_sub(1);
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize & mask
    }

    /// The id of `key`'s token, interned as `id` if it is not held yet; and whether it was.
    #[inline]
    fn intern(&mut self, key: u64, id: u32) -> (u32, bool) {
        if (self.held.len() + 1) * 2 > self.slots.len() {
            let size = (self.slots.len() * 2).max(STEM_SLOTS);
            self.slots.clear();
            self.slots.resize(size, (NO_KEY, 0));
            for k in 0..self.held.len() {
                if let Some(&(key, id)) = self.held.get(k) {
                    self.put(key, id);
                }
            }
        }
        let mask = self.slots.len().wrapping_sub(1);
        let mut k = self.slot(key);
        // At least half the slots are empty: an empty one ends every probe.
        while let Some(slot) = self.slots.get_mut(k) {
            if slot.0 == key {
                return (slot.1, false);
            }
            if slot.0 == NO_KEY {
                *slot = (key, id);
                self.held.push((key, id));
                return (id, true);
            }
            k = (k + 1) & mask;
        }
        (crate::tokens::ABSENT, false)
    }

    /// Put a key not held into the slots.
    fn put(&mut self, key: u64, id: u32) {
        let mask = self.slots.len().wrapping_sub(1);
        let mut k = self.slot(key);
        while let Some(slot) = self.slots.get_mut(k) {
            if slot.0 == NO_KEY {
                *slot = (key, id);
                return;
            }
            k = (k + 1) & mask;
        }
    }

    /// The id of the token whose key is `key`, or [`crate::tokens::ABSENT`].
    #[inline(always)]
    fn get(&self, key: u64) -> u32 {
        let mask = self.slots.len().wrapping_sub(1);
        let mut k = self.slot(key);
        while let Some(&(found, id)) = self.slots.get(k) {
            if found == key {
                return id;
            }
            if found == NO_KEY {
                break;
            }
            k = (k + 1) & mask;
        }
        crate::tokens::ABSENT
    }
}

/// [`stem_into`] of any token, a character at a time, with a prefix.
fn stem_chars_into(t: &Tables, token: &str, prefix: usize, out: &mut String) {
    if token.chars().next().is_some_and(|c| is_digit(t, c)) {
        out.push_str(token);
        return;
    }
    // The last six characters (tail[0] is the last) and where each starts.
    let mut tail = [(0usize, '\0'); 6];
    let mut n = 0;
    for (slot, ic) in tail.iter_mut().zip(token.char_indices().rev()) {
        *slot = ic;
        n += 1;
    }
    let c = |k: usize| tail[k - 1].1;
    let at = |k: usize| tail[k - 1].0;
    let letter = |k: usize| is_letter(t, c(k));
    let (base, y) =
        if n >= 6 && (c(3), c(2), c(1)) == ('i', 'e', 's') && c(4) != 's' && letter(5) && letter(6)
        {
            (token.get(..at(3)).unwrap_or(token), true)
        } else if n >= 5 && c(1) == 's' && c(2) != 's' && letter(3) && letter(4) && letter(5) {
            (token.get(..at(1)).unwrap_or(token), false)
        } else if n >= 6
            && (c(2), c(1)) == ('e', 's')
            && c(3) != 's'
            && letter(4)
            && letter(5)
            && letter(6)
        {
            (token.get(..at(2)).unwrap_or(token), false)
        } else {
            (token, false)
        };
    match base.char_indices().nth(prefix) {
        Some((cut, _)) => out.push_str(base.get(..cut).unwrap_or(base)),
        None => {
            out.push_str(base);
            if y && base.chars().count() < prefix {
                out.push('y');
            }
        }
    }
}

// --- the decision -------------------------------------------------------------------------------

/// The switches and thresholds of one call.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub exact: bool,
    pub contains: bool,
    pub token_recall: bool,
    pub min_token_recall: f64,
    pub stem_prefix: Option<usize>,
    pub numbers_must_match: bool,
    pub fold_accents: bool,
    pub number_words: bool,
    pub dates: bool,
    pub parentheticals: bool,
    pub repair_mojibake: bool,
    pub approximate_numbers: bool,
    pub glued_words: bool,
    /// Reject a gold named among other candidates (`hedge`).
    pub hedges: bool,
    /// Reject a gold the response denies (`negated`).
    pub negations: bool,
    /// Reject a gold covered by a sweep of numbers (`sweep`).
    pub sweeps: bool,
    /// Reject a response that repeats a loop of words (`degenerate`).
    pub degenerate_loops: bool,
    /// Match a multiple-choice letter gold by the letter the response gives (`letter`).
    pub letters: bool,
}

impl Options {
    /// Whether any rule may reject a row another rule accepted.
    fn rejects(&self) -> bool {
        self.hedges || self.negations || self.sweeps || self.degenerate_loops
    }
}

/// The rule that accepted the chosen alias, in the order the rules are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Exact,
    Contains,
    Date,
    ApproxNumber,
    TokenRecall,
    NoMatch,
    /// The multiple-choice letter the response gives.
    Letter,
    /// Rejections of a row that names the gold without asserting it.
    Hedge,
    Negated,
    Sweep,
    Degenerate,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Exact => "exact",
            Rule::Contains => "contains",
            Rule::Date => "date",
            Rule::ApproxNumber => "approx_number",
            Rule::TokenRecall => "token_recall",
            Rule::NoMatch => "no_match",
            Rule::Letter => "letter",
            Rule::Hedge => "hedge",
            Rule::Negated => "negated",
            Rule::Sweep => "sweep",
            Rule::Degenerate => "degenerate",
        }
    }
}

/// What was done to the texts before the rule accepted them, as bits of [`Decision::notes`].
pub const NOTE_PARENTHETICAL: u8 = 1;
pub const NOTE_MOJIBAKE: u8 = 2;
pub const NOTE_GLUED: u8 = 4;
pub const NOTE_COMMENT: u8 = 8;
pub const NOTE_JOINED: u8 = 16;

/// The decision for a row that has a usable alias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub rule: Rule,
    /// 1.0 for the exact, contains, date and number rules, else the best token recall.
    pub graded: f64,
    /// The position of the chosen alias in the row's references, when a rule accepted it.
    pub index: Option<u32>,
    /// `NOTE_*` bits: what was done to the chosen alias or the response (0 when no rule fired).
    pub notes: u8,
}

impl Decision {
    pub fn score(&self) -> f64 {
        if self.accepted() {
            1.0
        } else {
            0.0
        }
    }

    /// Whether a rule accepted the row.
    pub fn accepted(&self) -> bool {
        !matches!(
            self.rule,
            Rule::NoMatch | Rule::Hedge | Rule::Negated | Rule::Sweep | Rule::Degenerate
        )
    }

    /// A rejection by `rule`.
    fn rejected(rule: Rule) -> Decision {
        Decision {
            rule,
            graded: 0.0,
            index: None,
            notes: 0,
        }
    }

    /// The rule's name, then what was done to the texts (`"exact; parenthetical dropped"`).
    pub fn write_reason(&self, out: &mut String) {
        out.push_str(self.rule.name());
        for (bit, text) in [
            (NOTE_PARENTHETICAL, "parenthetical dropped"),
            (NOTE_MOJIBAKE, "mojibake repaired"),
            (NOTE_GLUED, "glued words split"),
            (NOTE_COMMENT, "comment dropped"),
            (NOTE_JOINED, "words joined"),
        ] {
            if self.notes & bit != 0 {
                out.push_str("; ");
                out.push_str(text);
            }
        }
    }
}

/// The words of a normalised text (`text.split(' ')` but the empty ones), into `out`, a buffer
/// of another row's words that keeps its allocation ([`recycle`]).
fn words_into<'t>(text: &'t str, out: &mut Vec<&'t str>) {
    out.clear();
    swar::each_word(text, |word, _| {
        out.push(word);
        true
    });
}

/// Whether the normalised `text` has `n` words or more that are no stop words (the words of
/// [`words_into`], counted without listing them).
fn has_content_words(text: &str, n: usize) -> bool {
    let mut left = n;
    swar::each_word(text, |word, _| {
        if !is_stopword(word) {
            left = left.saturating_sub(1);
        }
        left > 0
    });
    left == 0
}

/// Whether `text` has no ASCII digit, so that none of its words starts a date, a decade or a
/// number (every form of [`rules::find_dates`], [`rules::find_decades`] and
/// [`rules::find_numbers`] takes a word of digits): the date and number rules accept nothing.
fn states_no_value(text: &str) -> bool {
    !swar::has_ascii_digit(text.as_bytes())
}

/// An empty list of words of any lifetime, in the allocation of `words` (a `Vec` turned into
/// one of another type of the same size is collected in place, and no word is carried over).
fn recycle<'b>(mut words: Vec<&str>) -> Vec<&'b str> {
    words.clear();
    words.into_iter().map(|_| "").collect()
}

/// The word lists of [`Spans::value_rule`], kept from row to row for their allocations.
#[derive(Default)]
struct WordLists {
    alias: Vec<&'static str>,
    response: Vec<&'static str>,
}

/// How common each byte is in normalised English text, roughly (higher is more common): the
/// letters by their frequency in English, then digits, the space above all.
static BYTE_RANK: [u8; 256] = {
    let mut rank = [1u8; 256];
    let letters = b"zqxjkvbpygfwmucldrhsnioate";
    let mut k = 0;
    while k < letters.len() {
        rank[letters[k] as usize] = 100 + k as u8;
        k += 1;
    }
    let mut d = b'0';
    while d <= b'9' {
        rank[d as usize] = 90;
        d += 1;
    }
    rank[b' ' as usize] = 255;
    rank
};

/// Whether the padded normalised alias `needle` (`" words "`) occurs in the padded normalised
/// `hay`: `memmem::find` without building a searcher per call, for the short needles aliases are.
/// The candidates are the places (`memchr`) of the needle's rarest byte by [`BYTE_RANK`], each
/// checked in full.
fn contains_padded(hay: &[u8], needle: &[u8]) -> bool {
    // (A short response holds no longer alias: most rows of short answers end here.)
    if needle.len() > hay.len() {
        return false;
    }
    let Some((k, &rare)) = needle
        .iter()
        .enumerate()
        .min_by_key(|&(_, &b)| BYTE_RANK[usize::from(b)])
    else {
        return true;
    };
    memchr::memchr_iter(rare, hay).any(|p| {
        p.checked_sub(k)
            .and_then(|start| hay.get(start..))
            .is_some_and(|rest| rest.starts_with(needle))
    })
}

/// A word of a normalised text, as [`for_each_word`] finds it: where it starts, and what its
/// end needs (read only for the words that are not skipped).
#[derive(Clone, Copy)]
struct WordAt {
    start: usize,
    /// The block's spaces from the word's start on (bit 0 is the start): zero when the word
    /// goes past the block.
    after: u64,
    /// Where the next block starts.
    next_block: usize,
}

impl WordAt {
    /// Where the word ends: at the first space after it in its block, else found past it.
    #[inline(always)]
    fn end(self, text: &[u8]) -> usize {
        if self.after != 0 {
            (self.start + self.after.trailing_zeros() as usize).min(text.len())
        } else {
            word_end(text, self.next_block)
        }
    }
}

/// Call `f` at each word of a normalised text (words between single spaces, one space on each
/// side) until it returns false, but for the words `skip` turns away by their first two bytes
/// (as [`pair_index`] reads them, a space after the text's end): 64 bytes at a time, a word starts at each byte that is no space
/// after one that is, the set bits of one mask per block, and ends at the next space of the mask.
/// (A word turned away costs its pair and the test, nothing more.)
#[inline(always)]
fn for_each_word(text: &[u8], skip: impl Fn(usize) -> bool, f: impl FnMut(WordAt) -> bool) {
    for_each_word_by(text, skip, f, |head| (block::spaces(head), u64::MAX));
}

/// [`for_each_word`] with `masks` giving a block's spaces and the bytes a word may start at
/// (all of them for [`for_each_word`]; those equal to one of a few bytes for token recall's
/// walk, `key_recall::for_each_led_word`).
#[inline(always)]
fn for_each_word_by(
    text: &[u8],
    skip: impl Fn(usize) -> bool,
    mut f: impl FnMut(WordAt) -> bool,
    masks: impl Fn(&[u8; 64]) -> (u64, u64),
) {
    let mut base = 0;
    // Whether the byte before the block is a space (the text's start counts as one).
    let mut space_before = 1u64;
    let mut padded = [b' '; 80];
    while let Some(rest) = text.get(base..).filter(|r| !r.is_empty()) {
        // At the end of the text, spaces after it, where no word starts (and every word ends).
        // The block and 16 bytes after it: a word's second byte is read from the copy.
        let chunk = ascii::chunk_or_padded(rest, &mut padded, b' ');
        let Some(head) = chunk.first_chunk::<64>() else {
            return;
        };
        let (spaces, led) = masks(head);
        let mut starts = led & !spaces & ((spaces << 1) | space_before);
        space_before = spaces >> 63;
        while starts != 0 {
            let k = starts.trailing_zeros() as usize & 63;
            starts &= starts - 1;
            let pair = usize::from(chunk[k]) << 8 | usize::from(chunk[k + 1]);
            if skip(pair) {
                continue;
            }
            let word = WordAt {
                start: base + k,
                after: spaces >> k,
                next_block: base + 64,
            };
            if !f(word) {
                return;
            }
        }
        base += 64;
    }
}

/// Where the word of a normalised text that goes on at `from` ends.
#[inline]
fn word_end(text: &[u8], from: usize) -> usize {
    text.get(from..)
        .and_then(|r| memchr::memchr(b' ', r))
        .map_or(text.len(), |k| from + k)
}

/// Whether the padded normalised `text` is long enough to hold the words of the normalised
/// `alias` joined as one word between two spaces ([`block::joined_in`]): the joined word is the
/// alias's bytes but its spaces. (Most short responses are shorter than an alias of several
/// words, and are then not searched.)
#[inline]
fn joined_fits(alias: &str, text: &str) -> bool {
    alias.len() + 2 <= text.len() + swar::count_spaces(alias.as_bytes())
}

/// One alias as the rules see it: its position in the row's references, its span in
/// [`Matcher::aliases`] and its `NOTE_*` bits.
type AliasSpan = (u32, usize, usize, u8);

/// The normalised aliases of a row, for the rules that accept or reject it outright.
struct Spans<'s> {
    spans: &'s [AliasSpan],
    aliases: &'s str,
}

impl Spans<'_> {
    fn alias(&self, &(_, s, e, _): &AliasSpan) -> &str {
        self.aliases.get(s..e).unwrap_or(" ")
    }

    /// A decision of `rule` for `span`, with the alias's notes and `notes`.
    fn decided(rule: Rule, span: &AliasSpan, notes: u8) -> Decision {
        Decision {
            rule,
            graded: 1.0,
            index: Some(span.0),
            notes: span.3 | notes,
        }
    }

    /// The first of the exact and contains rules that accepts an alias against the normalised
    /// response `resp` (each rule over every alias before the next rule).
    fn text_rule(&self, opts: &Options, resp: &str, notes: u8) -> Option<Decision> {
        if opts.exact {
            // An alias that normalises to nothing (an article alone: `A`, `The`) is matched as
            // written ([`Matcher::bare`]), never by its empty normal form, which an empty or null
            // response would equal.
            let hit = self.spans.iter().find(|s| {
                let a = self.alias(s);
                a != " " && a == resp
            });
            if let Some(span) = hit {
                return Some(Self::decided(Rule::Exact, span, notes));
            }
        }
        if opts.contains {
            let hit = self.spans.iter().find(|s| {
                let a = self.alias(s);
                a != " " && contains_padded(resp.as_bytes(), a.as_bytes())
            });
            if let Some(span) = hit {
                return Some(Self::decided(Rule::Contains, span, notes));
            }
        }
        None
    }

    /// The first of the date and number rules that accepts an alias against `resp`.
    fn value_rule(
        &self,
        opts: &Options,
        resp: &str,
        asks_when: &mut dyn FnMut() -> bool,
        notes: u8,
        lists: &mut WordLists,
    ) -> Option<Decision> {
        let decided = |rule: Rule, span: &AliasSpan| Self::decided(rule, span, notes);
        // A response without a digit states no date, decade or number (tested first: it is
        // shorter than the aliases, most often); and dates and numbers need a digit in the
        // alias: the others are skipped unread.
        let has_digit = |s: &&AliasSpan| swar::has_ascii_digit(self.alias(s).as_bytes());
        if !(opts.dates || opts.approximate_numbers)
            || states_no_value(resp)
            || !self.spans.iter().any(|s| has_digit(&s))
        {
            return None;
        }
        let mut alias_words = recycle(std::mem::take(&mut lists.alias));
        let mut resp_words = recycle(std::mem::take(&mut lists.response));
        let mut found = None;
        if opts.dates {
            let mut read = None;
            for span in self.spans.iter().filter(has_digit) {
                // A date takes four words at most (`3 of may 1990`), and an alias that is one
                // has nothing else but stop words: five other words make it none, unread (and
                // not even listed).
                if has_content_words(self.alias(span), 5) {
                    continue;
                }
                words_into(self.alias(span), &mut alias_words);
                let Some(date) = rules::alias_date(&alias_words) else {
                    continue;
                };
                let (dates, decades) = read.get_or_insert_with(|| {
                    words_into(resp, &mut resp_words);
                    (
                        rules::find_dates(&resp_words),
                        rules::find_decades(&resp_words),
                    )
                });
                if rules::date_matches(date, dates, decades, asks_when()) {
                    found = Some(decided(Rule::Date, span));
                    break;
                }
            }
        }
        if found.is_none() && opts.approximate_numbers {
            // The response's words are split only for an alias that is a number.
            let mut numbers = None;
            for span in self.spans.iter().filter(has_digit) {
                words_into(self.alias(span), &mut alias_words);
                let Some(number) = rules::alias_number(&alias_words) else {
                    continue;
                };
                let found_numbers = numbers.get_or_insert_with(|| {
                    words_into(resp, &mut resp_words);
                    rules::find_numbers(&resp_words)
                });
                if rules::number_matches(&number, found_numbers) {
                    found = Some(decided(Rule::ApproxNumber, span));
                    break;
                }
            }
        }
        lists.alias = recycle(alias_words);
        lists.response = recycle(resp_words);
        found
    }
}

/// What [`Matcher::decide_rules`] did on the way that the rejecting rules reuse.
#[derive(Clone, Copy, Default)]
struct Read {
    /// The response's items are read (for a letter gold).
    items: bool,
    /// The response was repaired (into `fixed_response`).
    repaired: bool,
    /// The match read the response with glued words split (its normal form is in
    /// [`Matcher::glued`]), and how.
    glued: Option<Glued>,
}

/// How the glued-word rule split the response it accepted.
#[derive(Clone, Copy)]
struct Glued {
    /// A space went between a lower-case ASCII letter and an upper-case one (`isIdaho`).
    words: bool,
    /// Years were split from glued citation markers or words (`193912`).
    years: bool,
}

/// Whether the normal form that the rules read of a response that [`Matcher::decide_rules`]
/// accepted as `d` (its glued split when the match split one) holds an alias of more than two
/// bytes, where the rule that accepted it tells (`None` where it does not: then it is searched
/// for). The contains rule of [`Spans::text_rule`] read that text and every alias of the row:
///
/// * where it accepted the row (not with a joined alias, [`NOTE_JOINED`], which is found
///   otherwise, by its words), the text holds the alias it found, and every alias but `" "` is a
///   padded normal form of more than two bytes: `Some(true)`. (Were one not, this would only
///   send the row to the full read, which judges it as the shortcut does.)
/// * where the date, number or token recall rule accepted it, the contains rule ran first on
///   that same text (`opts.contains`) and found no alias but `" "`: `Some(false)`.
///
/// [`holds_alias_by_search`] in the tests holds both to the search.
fn alias_in_response(d: &Decision, opts: &Options) -> Option<bool> {
    match d.rule {
        Rule::Contains if d.notes & NOTE_JOINED == 0 => Some(true),
        Rule::Date | Rule::ApproxNumber | Rule::TokenRecall if opts.contains => Some(false),
        _ => None,
    }
}

/// Whether a response may hedge or deny: a list mark in the raw text, or a word that joins or
/// denies in the normalised one. (No other response can: the items would be one run of one.)
fn may_hedge(raw: &str, normalized: &str) -> bool {
    if has_list_mark(raw.as_bytes()) {
        return true;
    }
    let b = normalized.as_bytes();
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if crate::cpu::has_avx512bw() && crate::cpu::has_avx512vbmi() {
        // SAFETY: the processor has AVX-512 BW and VBMI, which is all the function needs.
        return unsafe { has_joint_or_negation_avx512(b) };
    }
    has_joint_or_negation_by(b, |head| (block::spaces(head), u64::MAX))
}

/// Whether the normalised text `b` holds a word of [`joint_or_negation`], by [`for_each_word_by`]
/// with `masks` (a block's spaces, and the bytes a word of them may start at). Every word a joint
/// or a negation is made of (`neither` holds `either`...): a word whose first two bytes start
/// none of them ([`joint_or_negation_head`], most words) is not read to its end.
#[inline(always)]
fn has_joint_or_negation_by(b: &[u8], masks: impl Fn(&[u8; 64]) -> (u64, u64)) -> bool {
    let mut found = false;
    for_each_word_by(
        b,
        |pair| !joint_or_negation_head(pair),
        |word| {
            found = b
                .get(word.start..word.end(b))
                .is_some_and(joint_or_negation);
            !found
        },
        masks,
    );
    found
}

/// [`has_joint_or_negation_by`] with AVX-512 (BW, VBMI): a word may start only where a block's
/// byte and the one after it are a pair of [`joint_or_negation_head`] and the byte after those
/// may follow its first letter in one of the words (or at the block's last two bytes, whose next
/// are the next block's), each byte looked up in a table of 64 bytes by one permute, so the
/// walk visits those words alone, not every word of the text.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw,avx512vbmi")]
fn has_joint_or_negation_avx512(b: &[u8]) -> bool {
    use crate::ascii::avx512::{equal, in_range};
    use std::arch::x86_64::*;
    // By a lower-case letter's low six bits: the first letters of the words (bit `j` for the
    // `j`-th of `oaniwefm`), and the second letters, as the bits of the first letters they may
    // follow (`HEADS` of [`joint_or_negation_head`]).
    const FIRSTS: [u8; 64] = {
        let mut t = [0u8; 64];
        let firsts = b"oaniwefm";
        let mut j = 0;
        while j < firsts.len() {
            t[(firsts[j] & 63) as usize] = 1 << j;
            j += 1;
        }
        t
    };
    // By a byte's low six bits, bit `j` when the byte is one of `after[j]`: the bytes that may
    // follow the `j`-th first letter.
    const fn follow_bits(after: [&[u8]; 8]) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut j = 0;
        while j < after.len() {
            let mut k = 0;
            while k < after[j].len() {
                t[(after[j][k] & 63) as usize] |= 1 << j;
                k += 1;
            }
            j += 1;
        }
        t
    }
    const SECONDS: [u8; 64] = follow_bits([b"r", b"nr", b"oe", b"sn", b"aer", b"i", b"a", b"i"]);
    // The third bytes, as the bits of the first letters they may follow: a space after `or`
    // and `no`, the third letters of the longer words.
    const THIRDS: [u8; 64] = follow_bits([b" ", b"de", b" rtvi", b"nc", b"sro", b"t", b"l", b"s"]);
    // SAFETY: each table holds 64 bytes, which an unaligned load reads.
    let (firsts, seconds, thirds) = unsafe {
        (
            _mm512_loadu_si512(FIRSTS.as_ptr().cast()),
            _mm512_loadu_si512(SECONDS.as_ptr().cast()),
            _mm512_loadu_si512(THIRDS.as_ptr().cast()),
        )
    };
    has_joint_or_negation_by(b, |head| {
        // SAFETY: the block holds 64 bytes, which an unaligned load reads; the second and
        // third loads read the 63 from its second on and the 62 from its third on (their masks
        // leave the bytes past the block out).
        let (v, next, third) = unsafe {
            (
                _mm512_loadu_si512(head.as_ptr().cast()),
                _mm512_maskz_loadu_epi8(u64::MAX >> 1, head.as_ptr().add(1).cast()),
                _mm512_maskz_loadu_epi8(u64::MAX >> 2, head.as_ptr().add(2).cast()),
            )
        };
        let first = _mm512_maskz_permutexvar_epi8(in_range(v, b'a', b'z'), v, firsts);
        let second = _mm512_maskz_permutexvar_epi8(in_range(next, b'a', b'z'), next, seconds);
        let third = _mm512_maskz_permutexvar_epi8(
            in_range(third, b'a', b'z') | equal(third, b' '),
            third,
            thirds,
        );
        let heads = _mm512_test_epi8_mask(first, second) & _mm512_test_epi8_mask(first, third);
        (equal(v, b' '), heads | 3 << 62)
    })
}

/// Whether `b` holds a list mark of [`may_hedge`]: `,` `;` `/` `|` a line break, or the byte
/// `0xE2` (the first of `“`, `”`, `•`). With AVX-512 or AVX2, one pass that compares 64 or 32
/// bytes with all six at once (most texts that reach it are short and hold none: it reads them
/// whole, where two `memchr3` would each set up its search); else two `memchr3`.
#[inline]
fn has_list_mark(b: &[u8]) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if crate::cpu::has_avx512bw() {
        // SAFETY: the processor has AVX-512 BW, which is all the function needs.
        return unsafe { has_list_mark_avx512(b) };
    } else if crate::cpu::has_avx2() {
        // SAFETY: the processor has AVX2, which is all the function needs.
        return unsafe { has_list_mark_avx2(b) };
    }
    has_list_mark_by_memchr(b)
}

/// [`has_list_mark`] with AVX-512 (BW), 64 bytes at a time (the last ones from a masked load,
/// zeros past the text's end, which are none of the marks).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw")]
fn has_list_mark_avx512(b: &[u8]) -> bool {
    use crate::ascii::avx512::{equal, load_or};
    let mut at = 0;
    while let Some(rest) = b.get(at..).filter(|r| !r.is_empty()) {
        let v = load_or(rest, 0);
        let marks = equal(v, b',')
            | equal(v, b';')
            | equal(v, b'/')
            | equal(v, b'|')
            | equal(v, b'\n')
            | equal(v, 0xE2);
        if marks != 0 {
            return true;
        }
        at += 64;
    }
    false
}

/// [`has_list_mark`] by two `memchr3`: without AVX2 or AVX-512, and the tests' oracle.
fn has_list_mark_by_memchr(b: &[u8]) -> bool {
    memchr::memchr3(b',', b';', b'/', b).is_some()
        || memchr::memchr3(b'|', b'\n', 0xE2, b).is_some()
}

/// [`has_list_mark`] with AVX2, 32 bytes at a time (the last ones padded with zeros, which are
/// none of the marks).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
fn has_list_mark_avx2(b: &[u8]) -> bool {
    use crate::ascii::avx2::equal;
    use std::arch::x86_64::*;
    let mut padded = [0u8; 32];
    let mut at = 0;
    while let Some(rest) = b.get(at..).filter(|r| !r.is_empty()) {
        let chunk = crate::ascii::chunk_or_padded(rest, &mut padded, 0);
        // SAFETY: the chunk holds 32 bytes, which an unaligned load reads.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let marks = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_or_si256(equal(v, b','), equal(v, b';')),
                _mm256_or_si256(equal(v, b'/'), equal(v, b'|')),
            ),
            _mm256_or_si256(equal(v, b'\n'), equal(v, 0xE2)),
        );
        if _mm256_movemask_epi8(marks) != 0 {
            return true;
        }
        at += 32;
    }
    false
}

/// The words of [`may_hedge`]: every word a joint or a negation is made of.
#[inline]
fn joint_or_negation(w: &[u8]) -> bool {
    matches!(
        w,
        b"or"
            | b"and"
            | b"nor"
            | b"not"
            | b"no"
            | b"never"
            | b"isnt"
            | b"wasnt"
            | b"arent"
            | b"werent"
            | b"neither"
            | b"either"
            | b"wrong"
            | b"incorrect"
            | b"false"
            | b"mistaken"
            | b"misconception"
    )
}

/// Whether a word whose first two bytes are `pair` (as [`for_each_word`] gives them) may be one
/// of [`joint_or_negation`]'s: its first byte and second are those of one of them (`or`, `an`,
/// `no`, `ne`, `is`, `wa`, `ar`, `we`, `ei`, `wr`, `in`, `fa`, `mi`). Two table loads.
#[inline(always)]
fn joint_or_negation_head(pair: usize) -> bool {
    // By a first byte, the second letters (bit `c - b'a'`) that may follow it.
    static HEADS: [u32; 256] = {
        const fn bits(letters: &[u8]) -> u32 {
            let mut m = 0;
            let mut k = 0;
            while k < letters.len() {
                m |= 1 << (letters[k] - b'a');
                k += 1;
            }
            m
        }
        let mut t = [0u32; 256];
        t[b'o' as usize] = bits(b"r");
        t[b'a' as usize] = bits(b"nr");
        t[b'n' as usize] = bits(b"oe");
        t[b'i' as usize] = bits(b"sn");
        t[b'w' as usize] = bits(b"aer");
        t[b'e' as usize] = bits(b"i");
        t[b'f' as usize] = bits(b"a");
        t[b'm' as usize] = bits(b"i");
        t
    };
    let k = u32::from((pair as u8).wrapping_sub(b'a'));
    k < 26 && HEADS[(pair >> 8) & 0xff] >> k & 1 != 0
}

/// Reusable buffers for deciding many rows.
#[derive(Default)]
pub struct Matcher {
    norm: Normalizer,
    response: String,
    /// The normalised response with glued words split (when it differs from `response`).
    glued: String,
    /// The raw response with glued words split, for the rejecting rules.
    unglued: String,
    question: String,
    scratch: String,
    /// Repaired or rewritten raw texts.
    fixed: String,
    fixed_response: String,
    stripped: String,
    raw: Vec<u8>,
    /// The normalised usable aliases, end to end.
    aliases: String,
    alias_spans: Vec<AliasSpan>,
    tokens: RecallTokens,
    /// The same tokens by their keys, when they are all short ASCII stems (most rows).
    key_tokens: key_recall::KeyRecall,
    /// The question as the accepting rules read it.
    question_text: question::QuestionText,
    /// The items of the response, for the rules that reject ([`claims`]).
    claims: claims::Claims,
    /// The references that are multiple-choice letters.
    letter_refs: Vec<(u32, u8)>,
    /// The references that normalise to nothing (an article alone: `A`, `The`), as written:
    /// trimmed of ASCII white space and in ASCII lower case.
    bare: Vec<(u32, String)>,
    /// What the last rejection saw, for its reason.
    seen: String,
    /// Per alias: its longest ASCII word, where the rejecting rules look for its sentences.
    keys: Vec<(usize, usize)>,
    /// What `aliases`, `alias_spans`, `letter_refs` and `tokens` were prepared from.
    prepared: Prepared,
    word_lists: WordLists,
    /// The key of the row being decided, before it is known to differ from `prepared`'s.
    next_prepared: Vec<u8>,
    /// Read every accepted response whole (tests check the shortcut against it).
    #[cfg(test)]
    read_whole: bool,
}

/// What a [`Matcher`]'s prepared references came from: a key of the options that shape them and
/// of the references themselves (each a null mark, or its length and bytes), so that a row whose
/// references and options are the last prepared row's reuses them.
#[derive(Default)]
struct Prepared {
    key: Vec<u8>,
    /// The aliases (and the letters) are those of `key`; so are the recall tokens (in
    /// `key_tokens` when `by_keys`, else in `tokens`).
    aliases: bool,
    tokens: bool,
    by_keys: bool,
    /// The letters of the references that are multiple-choice letters, one bit each.
    gold_letters: u32,
}

impl Prepared {
    /// The options the prepared references depend on, as the start of a key.
    fn options(opts: &Options, fold: Option<&FoldTable>) -> [u8; 24] {
        let mut key = [0u8; 24];
        let flags = [
            opts.letters,
            opts.repair_mojibake,
            opts.parentheticals,
            opts.number_words,
            fold.is_some(),
            opts.stem_prefix.is_some(),
        ];
        for (k, flag) in flags.into_iter().enumerate() {
            key[k] = u8::from(flag);
        }
        let prefix = opts.stem_prefix.unwrap_or(0) as u64;
        key[8..16].copy_from_slice(&prefix.to_le_bytes());
        let table = fold.map_or(0, |f| f as *const FoldTable as usize) as u64;
        key[16..24].copy_from_slice(&table.to_le_bytes());
        key
    }
}

/// The token-recall rule's tokens of a row: the aliases' stemmed content tokens, interned
/// together, and which of them the response and the question hold.
///
/// Only the aliases' tokens (a few) are ever asked about, so the response's and the question's
/// words are read once each and only looked up among them: no set of the response's own tokens
/// is built or sorted, and a word whose first byte starts no alias token is not even stemmed
/// (stemming keeps a token's first character). A token that is a short ASCII stem (most are) is
/// interned by its [`ascii_stem_key`], neither written out nor hashed as a string; the others
/// go to a [`Vocab`].
#[derive(Default)]
struct RecallTokens {
    /// The tokens that are short ASCII stems, by their bytes.
    keys: StemKeys,
    /// The other tokens, and the id of each of them (`long_ids[vocab id]`).
    vocab: Vocab,
    long_ids: Vec<u32>,
    /// Each alias's distinct token ids, one alias after the other; `ends[k]` ends alias `k`'s.
    ids: Vec<u32>,
    ends: Vec<usize>,
    /// Per token: the last alias that listed it (plus one), to list it once per alias.
    listed: Vec<u32>,
    /// Per token: it starts with a decimal digit; the response holds it; the question does.
    digit: Vec<bool>,
    in_response: Vec<bool>,
    in_question: Vec<bool>,
    /// The first bytes of the tokens, one bit each.
    first: [u64; 4],
    /// The first two bytes of the tokens, one bit each of 65,536 ([`pair_index`]): 1,024
    /// words once the first token is built (empty before).
    pairs: Vec<u64>,
    /// The bits set in `pairs`, to clear them for the next row.
    pairs_set: Vec<u16>,
    stem: String,
}

/// The bit of [`RecallTokens::pairs`] for a text's first two bytes: `b0 << 8 | b1`, a space
/// standing for a missing second byte (as it follows a word of one byte in a normalised text).
///
/// A stem shares these with the word it comes from whenever it keeps two or more characters:
/// stemming drops a plural ending from a word of three letters or more and then keeps its first
/// `prefix` characters (or every one), so only a prefix of one character breaks it. A stem of
/// one character comes from a word of one character, itself.
#[inline(always)]
fn pair_index(text: &[u8]) -> usize {
    match text {
        [] => usize::from(b' '),
        [b0] => usize::from(*b0) << 8 | usize::from(b' '),
        [b0, b1, ..] => usize::from(*b0) << 8 | usize::from(*b1),
    }
}

/// Clear a bitmap of [`pair_index`] bits (1,024 words; allocated, zeroed, the first time) by
/// the bits `set` lists, which are all it holds, and empty `set`: a row sets a few, and
/// clearing those costs less than clearing the 8 KB.
#[inline]
fn clear_pairs(pairs: &mut Vec<u64>, set: &mut Vec<u16>) {
    if pairs.len() == 1024 {
        for &k in set.iter() {
            if let Some(w) = pairs.get_mut(usize::from(k >> 6)) {
                *w = 0;
            }
        }
    } else {
        *pairs = vec![0; 1024];
    }
    set.clear();
}

impl RecallTokens {
    /// Intern the content tokens of the normalised aliases.
    fn build<'s>(
        &mut self,
        t: &Tables,
        aliases: impl Iterator<Item = &'s str>,
        prefix: Option<usize>,
    ) {
        self.keys.clear();
        self.vocab.clear();
        self.long_ids.clear();
        self.ids.clear();
        self.ends.clear();
        self.listed.clear();
        self.digit.clear();
        self.first = [0; 4];
        clear_pairs(&mut self.pairs, &mut self.pairs_set);
        for (k, alias) in aliases.enumerate() {
            let stamp = k as u32 + 1;
            let bytes = alias.as_bytes();
            for_each_word(
                bytes,
                |_| false,
                |w| {
                    let Some(word) = alias.get(w.start..w.end(bytes)) else {
                        return true;
                    };
                    if !is_stopword(word) {
                        let id = self.intern(t, word, prefix);
                        if let Some(l) = self.listed.get_mut(id as usize) {
                            if *l != stamp {
                                *l = stamp;
                                self.ids.push(id);
                            }
                        }
                    }
                    true
                },
            );
            self.ends.push(self.ids.len());
        }
    }

    /// The id of the stem of `word` (of an alias), interned if it is new.
    #[inline]
    fn intern(&mut self, t: &Tables, word: &str, prefix: Option<usize>) -> u32 {
        let next = self.listed.len() as u32;
        let key = match ascii_stem_key(word.as_bytes(), prefix) {
            Some(key) => key,
            None => {
                self.stem.clear();
                stem_into(t, word, prefix, &mut self.stem);
                // A stem is its own stem's key, when it has one (a non-ASCII word may have a
                // short ASCII stem).
                match ascii_stem_key(self.stem.as_bytes(), None) {
                    Some(key) => key,
                    None => {
                        let v = self.vocab.intern(&self.stem) as usize;
                        if v == self.long_ids.len() {
                            self.long_ids.push(next);
                            let stem = self.stem.as_bytes();
                            let digit = self.stem.chars().next().is_some_and(|c| is_digit(t, c));
                            let (first, pair) = (stem.first().copied(), pair_index(stem));
                            self.add_token(first, pair, digit);
                        }
                        return self.long_ids.get(v).copied().unwrap_or(ABSENT);
                    }
                }
            }
        };
        let (id, new) = self.keys.intern(key, next);
        if new {
            // The stem's bytes: those of the key up to its first zero (no stem holds one).
            let bytes = key.to_le_bytes();
            let len = 8 - (key.leading_zeros() / 8) as usize;
            let stem = bytes.get(..len).unwrap_or(&[]);
            let digit = stem.first().is_some_and(u8::is_ascii_digit);
            self.add_token(stem.first().copied(), pair_index(stem), digit);
        }
        id
    }

    /// A new token, of first byte `first` (none when it is empty), [`pair_index`] `pair`, and
    /// whether it starts with a decimal digit.
    #[inline]
    fn add_token(&mut self, first: Option<u8>, pair: usize, digit: bool) {
        self.listed.push(0);
        self.digit.push(digit);
        if let Some(b) = first {
            if let Some(w) = self.first.get_mut(usize::from(b >> 6)) {
                *w |= 1 << (b & 63);
            }
        }
        if let Some(w) = self.pairs.get_mut(pair >> 6) {
            *w |= 1 << (pair & 63);
            self.pairs_set.push(pair as u16);
        }
    }

    /// The id of the token that is the stem `stem`, or [`ABSENT`].
    #[inline]
    fn stem_id(keys: &StemKeys, vocab: &Vocab, long_ids: &[u32], stem: &str) -> u32 {
        match ascii_stem_key(stem.as_bytes(), None) {
            Some(key) => keys.get(key),
            None => long_ids
                .get(vocab.get(stem) as usize)
                .copied()
                .unwrap_or(ABSENT),
        }
    }

    /// Mark which tokens the normalised `text` holds, in `held` (cleared first).
    fn mark(&mut self, t: &Tables, text: &str, prefix: Option<usize>, question: bool) {
        let held = if question {
            &mut self.in_question
        } else {
            &mut self.in_response
        };
        let n_tokens = self.listed.len();
        held.clear();
        held.resize(n_tokens, false);
        let mut missing = n_tokens;
        // A word whose stem can be no token is skipped before it is stemmed: by its first two
        // bytes, or its first one when stems keep one character. A stem of `Some(0)`
        // characters is empty: every word may then give any token.
        let (by_pair, by_first) = match prefix {
            Some(0) => (false, false),
            Some(1) => (false, true),
            _ => (true, false),
        };
        // (No pair table before the first token is built: then no word is skipped by its pair.)
        let pairs = self.pairs.first_chunk::<1024>().filter(|_| by_pair);
        let first = &self.first;
        let (vocab, long_ids, stem, keys) =
            (&self.vocab, &self.long_ids, &mut self.stem, &self.keys);
        let bytes = text.as_bytes();
        let take = |w: WordAt| {
            let Some(word) = text.get(w.start..w.end(bytes)) else {
                return true;
            };
            if is_stopword(word) {
                return true;
            }
            // A short ASCII stem by its key (every token that could equal it has one), any
            // other built and looked up whole.
            let id = match ascii_stem_key(word.as_bytes(), prefix) {
                Some(key) => keys.get(key),
                None => {
                    stem.clear();
                    stem_into(t, word, prefix, stem);
                    Self::stem_id(keys, vocab, long_ids, stem)
                }
            };
            if let Some(h) = held.get_mut(id as usize) {
                if !*h {
                    *h = true;
                    missing -= 1;
                }
            }
            missing > 0
        };
        match pairs {
            // The word's first two bytes (a space after the first ends a word of one).
            Some(pairs) => for_each_word(
                bytes,
                |pair| pairs[pair >> 6] & (1 << (pair & 63)) == 0,
                take,
            ),
            None => for_each_word(
                bytes,
                |pair| {
                    let b = (pair >> 8) as u8;
                    by_first
                        && first
                            .get(usize::from(b >> 6))
                            .is_none_or(|w| w & (1 << (b & 63)) == 0)
                },
                take,
            ),
        }
    }

    /// The token recall of alias `k`: its tokens the response holds, over those the question
    /// does not give away (over all of them if it gives every one away); 0.0 when a number
    /// token is missing and numbers must match.
    fn recall(&self, k: usize, numbers_must_match: bool, question: bool) -> f64 {
        let start = if k == 0 {
            0
        } else {
            self.ends.get(k - 1).copied().unwrap_or(0)
        };
        let end = self.ends.get(k).copied().unwrap_or(start);
        let (mut n_all, mut hits_all, mut n_new, mut hits_new) = (0usize, 0usize, 0usize, 0usize);
        for &id in self.ids.get(start..end).unwrap_or(&[]) {
            let id = id as usize;
            let hit = self.in_response.get(id).copied().unwrap_or(false);
            if numbers_must_match && !hit && self.digit.get(id).copied().unwrap_or(false) {
                return 0.0;
            }
            n_all += 1;
            hits_all += usize::from(hit);
            if !(question && self.in_question.get(id).copied().unwrap_or(false)) {
                n_new += 1;
                hits_new += usize::from(hit);
            }
        }
        // Tokens the question already gives away are no evidence, unless they are all there is.
        if n_new > 0 {
            hits_new as f64 / n_new as f64
        } else if n_all > 0 {
            hits_all as f64 / n_all as f64
        } else {
            0.0
        }
    }
}

impl Matcher {
    /// Decide one row; `None` when it has no usable alias (null, empty or blank ones only).
    ///
    /// `fold` must be given when `opts.fold_accents`. A null response reads as `""`; `question`
    /// is discounted when given (a null question discounts nothing).
    pub fn decide<'a>(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        response: &str,
        references: impl Iterator<Item = Option<&'a str>> + Clone,
        question: Option<&str>,
    ) -> Option<Decision> {
        self.seen.clear();
        self.claims.split_years = false;
        let (d, read) = self.decide_rules(t, fold, opts, response, references, question)?;
        if !d.accepted() || matches!(d.rule, Rule::Exact | Rule::Letter) || !opts.rejects() {
            return Some(d);
        }
        let fold = fold.filter(|_| opts.fold_accents);
        // The rules read the response as the match that accepted it did: with glued words split
        // when it needed them (`SeaShells or NewYorkCity` is a hedge for `Sea Shells`), both its
        // normal form and the raw text that the items are cut from.
        let raw = if read.repaired {
            self.fixed_response.as_str()
        } else {
            response
        };
        let (resp, raw) = match read.glued {
            Some(g) => {
                self.claims.split_years = g.years;
                let raw = if g.words {
                    rules::unglue_into(raw, &mut self.unglued);
                    self.unglued.as_str()
                } else {
                    raw
                };
                (self.glued.as_str(), raw)
            }
            None => (self.response.as_str(), raw),
        };
        let aliases = self.aliases.as_str();
        let alias = |&(_, s, e, _): &AliasSpan| aliases.get(s..e).unwrap_or(" ");
        // The alias the match chose: a sweep is looked for only when it holds an integer.
        let chosen = self.alias_spans.iter().find(|s| Some(s.0) == d.index);
        let sweeps = opts.sweeps && chosen.is_some_and(|s| claims::sweep_needs(alias(s)));
        // One walk over the words says whether a loop or a sweep is possible at all.
        let (may_loop, may_sweep) = if opts.degenerate_loops || sweeps {
            claims::pretests(resp, sweeps)
        } else {
            (false, false)
        };
        if opts.degenerate_loops && may_loop {
            if let Some((period, words)) = claims::loop_after_pretests(resp) {
                use std::fmt::Write;
                let _ = write!(self.seen, "a loop of {period} words over {words} words");
                return Some(Decision::rejected(Rule::Degenerate));
            }
        }
        if sweeps && may_sweep {
            if let Some((lo, hi)) = chosen.and_then(|s| claims::sweep(resp, alias(s))) {
                use std::fmt::Write;
                let _ = write!(self.seen, "numbers {lo} to {hi}");
                return Some(Decision::rejected(Rule::Sweep));
            }
        }
        if !(opts.hedges || opts.negations) || !may_hedge(raw, resp) {
            return Some(d);
        }
        // The hedge rule applies unless the response names two golds (neither a part of the
        // other), so answers a question that asks for several or gives the references' own
        // list, or the question counts what it asks for (`3 candidates`, `name two`). Worked
        // out only when an item would be a hedge.
        let (alias_spans, question_text) = (&self.alias_spans, &mut self.question);
        let hedges = |norm: &mut Normalizer| {
            if !opts.hedges {
                return false;
            }
            let mut hits = alias_spans
                .iter()
                .map(alias)
                .filter(|a| *a != " " && contains_padded(resp.as_bytes(), a.as_bytes()));
            let several = hits.next().is_some_and(|first| {
                hits.any(|other| {
                    !contains_padded(first.as_bytes(), other.as_bytes())
                        && !contains_padded(other.as_bytes(), first.as_bytes())
                })
            });
            let several = several
                || question.is_some_and(|q| {
                    norm.normalize_into(t, fold, opts.number_words, q, question_text);
                    claims::asks_several(question_text)
                });
            !several
        };
        let spans = alias_spans.iter().map(alias);
        #[cfg(test)]
        let shortcut = !self.read_whole;
        #[cfg(not(test))]
        let shortcut = true;
        // A gold item is an item whose normal form holds an alias (of a word or more). Where the
        // cut falls on word breaks of the whole response's normal form, an item's normal form is
        // a run of its words ([`claims::may_cut_inside_words`]), so no item holds an alias that
        // the whole does not: a response accepted by token recall, a date or a number (whose
        // normal form holds no alias) has no gold item, and the judge would accept it.
        //
        // Whether `resp` holds an alias is mostly known from the rule that accepted the row
        // ([`alias_in_response`]); it is searched for otherwise.
        if shortcut
            && !alias_in_response(&d, opts).unwrap_or_else(|| {
                spans
                    .clone()
                    .any(|a| a.len() > 2 && contains_padded(resp.as_bytes(), a.as_bytes()))
            })
            && !claims::may_cut_inside_words(raw)
        {
            return Some(d);
        }
        let verdict = if !read.items {
            // Each alias's longest word, to skip the sentences that do not hold it. An alias of
            // two bytes or less (`" "`, an article alone) is never a gold item (the judge looks
            // for longer ones only): it needs no key. An alias without an ASCII word of letters
            // or digits but with a byte outside ASCII is only in the normal form of a sentence
            // with such a byte (normalisation keeps ASCII in ASCII): its key is empty
            // ([`claims::holds_key`]). Any other has every sentence read.
            self.keys.clear();
            let mut all = false;
            for span in alias_spans {
                let (s, e) = (span.1, span.2);
                let a = aliases.get(s..e).unwrap_or("");
                if a.len() <= 2 {
                    continue;
                }
                let key = a
                    .split(' ')
                    .filter(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_alphanumeric()))
                    .max_by_key(|w| w.len());
                match key {
                    Some(w) => {
                        let at = w.as_ptr() as usize - aliases.as_ptr() as usize;
                        self.keys.push((at, at + w.len()));
                    }
                    None if !a.is_ascii() => self.keys.push((e, e)),
                    None => all = true,
                }
            }
            let keys = (!all).then_some((aliases, self.keys.as_slice()));
            match keys.filter(|_| shortcut) {
                // Sentence by sentence, up to the first that asserts a gold item.
                Some(keys) => self.claims.read_and_judge(
                    &mut self.norm,
                    t,
                    fold,
                    opts.number_words,
                    raw,
                    keys,
                    spans,
                    hedges,
                    opts.negations,
                ),
                // Without keys every sentence would be read: a response that ends with its
                // answer, alone, is decided by its last item.
                None if shortcut
                    && self.claims.tail_asserts(
                        &mut self.norm,
                        t,
                        fold,
                        opts.number_words,
                        raw,
                        spans.clone(),
                        opts.negations,
                    ) =>
                {
                    return Some(d);
                }
                None => {
                    self.claims
                        .read(&mut self.norm, t, fold, opts.number_words, raw, keys, false);
                    self.claims
                        .judge(&mut self.norm, spans, hedges, opts.negations)
                }
            }
        } else {
            if self.claims.light || read.glued.is_some() {
                // The letter rule cut the response for its letters only, or as written where
                // the match split glued words.
                self.claims
                    .read(&mut self.norm, t, fold, opts.number_words, raw, None, true);
            }
            self.claims
                .judge(&mut self.norm, spans, hedges, opts.negations)
        };
        match verdict {
            Some(v) => {
                self.seen.push_str(&self.claims.candidates);
                Some(Decision::rejected(match v {
                    claims::Verdict::Hedge => Rule::Hedge,
                    claims::Verdict::Negated => Rule::Negated,
                }))
            }
            None => Some(d),
        }
    }

    /// What the last decision's rejection saw (the candidates of a hedge, the denied gold, the
    /// sweep's numbers, the loop): empty when no rule rejected it.
    pub fn seen(&self) -> &str {
        &self.seen
    }

    /// The reason of decision `d` of the last row: [`Decision::write_reason`], then what a
    /// rejection saw.
    pub fn write_reason(&self, d: &Decision, out: &mut String) {
        d.write_reason(out);
        if !self.seen.is_empty() {
            out.push_str("; ");
            out.push_str(&self.seen);
        }
    }

    /// Normalise the usable aliases of a row's references (and their parenthetical-free
    /// forms) into [`Matcher::aliases`], and note the ones that are multiple-choice letters.
    fn prepare<'a>(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        references: impl Iterator<Item = Option<&'a str>>,
    ) {
        let nw = opts.number_words;
        self.aliases.clear();
        self.alias_spans.clear();
        self.letter_refs.clear();
        self.bare.clear();
        let mut gold_letters = 0u32;
        for (i, alias) in references.enumerate() {
            let Some(alias) = alias.filter(|a| !py_is_blank(a)) else {
                continue;
            };
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            if opts.letters {
                if let Some(l) = claims::alias_letter(alias) {
                    gold_letters |= 1 << (l.wrapping_sub(b'a') & 31);
                    self.letter_refs.push((index, l));
                }
            }
            let repaired = opts.repair_mojibake
                && rules::repair_mojibake_into(alias, &mut self.raw, &mut self.fixed);
            let text = if repaired { self.fixed.as_str() } else { alias };
            let notes = if repaired { NOTE_MOJIBAKE } else { 0 };
            self.norm
                .normalize_into(t, fold, nw, text, &mut self.scratch);
            if self.scratch == " " {
                let written = text.trim_matches(|c: char| c.is_ascii_whitespace());
                if !written.is_empty() {
                    self.bare.push((index, written.to_ascii_lowercase()));
                }
            }
            let start = self.aliases.len();
            self.aliases.push_str(&self.scratch);
            self.alias_spans
                .push((index, start, self.aliases.len(), notes));
            // Both variants need a parenthesis, a comma or a semicolon: most aliases have none.
            let variants =
                opts.parentheticals && swar::has_any_of3(text.as_bytes(), b'(', b',', b';');
            if variants
                && rules::drop_parentheticals_into(text, &mut self.stripped)
                && !py_is_blank(&self.stripped)
            {
                self.norm
                    .normalize_into(t, fold, nw, &self.stripped, &mut self.scratch);
                let start = self.aliases.len();
                self.aliases.push_str(&self.scratch);
                self.alias_spans.push((
                    index,
                    start,
                    self.aliases.len(),
                    notes | NOTE_PARENTHETICAL,
                ));
            }
            // An alias that goes on with a comment (`Cher, in 1998, with the song ...`) is
            // also tried as its head.
            if let Some(head) = variants
                .then(|| rules::alias_head(text))
                .flatten()
                .filter(|h| !py_is_blank(h))
            {
                self.norm
                    .normalize_into(t, fold, nw, head, &mut self.scratch);
                let start = self.aliases.len();
                self.aliases.push_str(&self.scratch);
                self.alias_spans
                    .push((index, start, self.aliases.len(), notes | NOTE_COMMENT));
            }
        }
        self.prepared.gold_letters = gold_letters;
    }

    /// The rules that accept, with the letter rule first; also whether the response's items
    /// were read (for the letters) and whether it was repaired.
    fn decide_rules<'a>(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        response: &str,
        references: impl Iterator<Item = Option<&'a str>> + Clone,
        question: Option<&str>,
    ) -> Option<(Decision, Read)> {
        let fold = fold.filter(|_| opts.fold_accents);
        let nw = opts.number_words;
        let mut read = Read::default();
        // The references as prepared last, for rows that repeat their row before's (several
        // models answering one question, one question asked several times).
        self.next_prepared.clear();
        self.next_prepared
            .extend_from_slice(&Prepared::options(opts, fold));
        for alias in references.clone() {
            match alias {
                None => self.next_prepared.push(0),
                Some(a) => {
                    self.next_prepared.push(1);
                    self.next_prepared
                        .extend_from_slice(&(a.len() as u64).to_le_bytes());
                    self.next_prepared.extend_from_slice(a.as_bytes());
                }
            }
        }
        if !self.prepared.aliases || self.prepared.key != self.next_prepared {
            std::mem::swap(&mut self.prepared.key, &mut self.next_prepared);
            self.prepare(t, fold, opts, references);
            self.prepared.aliases = true;
            self.prepared.tokens = false;
        }
        let gold_letters = self.prepared.gold_letters;
        if self.alias_spans.is_empty() {
            return None;
        }
        let response_repaired = opts.repair_mojibake
            && rules::repair_mojibake_into(response, &mut self.raw, &mut self.fixed_response);
        let response = if response_repaired {
            self.fixed_response.as_str()
        } else {
            response
        };
        let row_notes = if response_repaired { NOTE_MOJIBAKE } else { 0 };
        read.repaired = response_repaired;
        if gold_letters != 0 {
            read.items = true;
            #[cfg(test)]
            let light = !self.read_whole;
            #[cfg(not(test))]
            let light = true;
            // Only the items' letters are read here; the hedge rules read the items whole if
            // they come to judge them.
            if light {
                self.claims.read_letters(response);
            } else {
                self.claims
                    .read(&mut self.norm, t, fold, nw, response, None, true);
            }
            let verdict = self
                .claims
                .judge_letters(gold_letters, opts.hedges, opts.negations);
            match verdict {
                Some(Ok(letter)) => {
                    // The first reference that is this letter.
                    let index = self
                        .letter_refs
                        .iter()
                        .find(|&&(_, l)| l == letter)
                        .map(|&(i, _)| i);
                    return Some((
                        Decision {
                            rule: Rule::Letter,
                            graded: 1.0,
                            index,
                            notes: row_notes,
                        },
                        read,
                    ));
                }
                Some(Err(v)) => {
                    self.seen.push_str(&self.claims.candidates);
                    let rule = match v {
                        claims::Verdict::Hedge => Rule::Hedge,
                        claims::Verdict::Negated => Rule::Negated,
                    };
                    return Some((Decision::rejected(rule), read));
                }
                None if self.claims.letters() != 0 => {
                    // The response gives other letters: a letter gold cannot match in its words.
                    let letters = &self.letter_refs;
                    self.alias_spans
                        .retain(|s| !letters.iter().any(|&(i, _)| i == s.0));
                    // The aliases are this row's only: the next row prepares its own.
                    self.prepared.aliases = false;
                    self.prepared.tokens = false;
                    if self.alias_spans.is_empty() {
                        return Some((Decision::rejected(Rule::NoMatch), read));
                    }
                }
                None => {}
            }
        }
        let seen = self
            .norm
            .normalize_into(t, fold, nw, response, &mut self.response);
        let spans = Spans {
            spans: &self.alias_spans,
            aliases: &self.aliases,
        };
        // An alias that normalises to nothing matches the response that writes it alone.
        if opts.exact && self.response == " " && !self.bare.is_empty() {
            let written = response.trim_matches(|c: char| c.is_ascii_whitespace());
            let hit = self
                .bare
                .iter()
                .find(|(_, w)| w.eq_ignore_ascii_case(written))
                .and_then(|&(index, _)| {
                    let variant = NOTE_PARENTHETICAL | NOTE_COMMENT;
                    self.alias_spans
                        .iter()
                        .find(|s| s.0 == index && s.3 & variant == 0 && spans.alias(s) == " ")
                });
            if let Some(span) = hit {
                return Some((Spans::decided(Rule::Exact, span, row_notes), read));
            }
        }
        // Most rows end here, before the question is read.
        if let Some(d) = spans.text_rule(opts, &self.response, row_notes) {
            return Some((d, read));
        }
        let has_question = question.is_some();
        // The question is read only when a rule asks about it (`QuestionText`).
        let (norm, question_text) = (&mut self.norm, &mut self.question_text);
        let mut asks_when =
            || question.is_none_or(|q| question_text.asks_when(norm, t, fold, opts, q));
        if let Some(d) = spans.value_rule(
            opts,
            &self.response,
            &mut asks_when,
            row_notes,
            &mut self.word_lists,
        ) {
            return Some((d, read));
        }
        // Only when no rule accepts the response as written: the same rules (token recall
        // excepted) on the response with glued words split.
        let glued_words = opts.glued_words && has_glued_words(response);
        if glued_words || (opts.glued_words && seen.glued_year) {
            // `unglue_into` then the normalisation, in one pass.
            let (source, years) = if glued_words {
                let s = self
                    .norm
                    .normalize_unglued_into(t, fold, nw, response, &mut self.scratch);
                (self.scratch.as_str(), s.glued_year)
            } else {
                (self.response.as_str(), true)
            };
            // Without a glued year, splitting them would give the text back.
            let glued = if years {
                rules::split_year_citations_into(source, &mut self.glued);
                self.glued.as_str()
            } else {
                source
            };
            if glued != self.response {
                let notes = row_notes | NOTE_GLUED;
                let d = spans.text_rule(opts, glued, notes);
                let (norm, question_text) = (&mut self.norm, &mut self.question_text);
                let mut asks_when =
                    || question.is_none_or(|q| question_text.asks_when(norm, t, fold, opts, q));
                if let Some(d) = d.or_else(|| {
                    spans.value_rule(opts, glued, &mut asks_when, notes, &mut self.word_lists)
                }) {
                    // The rejecting rules read the response as the match did: the split
                    // normal form in `glued`, the raw text unglued.
                    if !years {
                        std::mem::swap(&mut self.glued, &mut self.scratch);
                    }
                    read.glued = Some(Glued {
                        words: glued_words,
                        years,
                    });
                    return Some((d, read));
                }
            }
        }
        // An alias of several words matches them written as one word (`seashells` for
        // `Sea Shells`, `JKL` for `J K L`): the joined alias joins the row's aliases, so the
        // rejecting rules find it in the response's items.
        if opts.glued_words && opts.contains {
            let resp = self.response.as_str();
            let hit = self.alias_spans.iter().copied().find(|&(_, s, e, _)| {
                let alias = self.aliases.get(s..e).unwrap_or(" ");
                joined_fits(alias, resp) && block::joined_in(t, alias, resp)
            });
            if let Some((index, s, e, notes)) = hit {
                let joined = &mut self.scratch;
                rules::join_words_into(t, self.aliases.get(s..e).unwrap_or(" "), joined);
                let start = self.aliases.len();
                self.aliases.push_str(joined);
                let notes = notes | row_notes | NOTE_JOINED;
                self.alias_spans
                    .push((index, start, self.aliases.len(), notes));
                // The joined alias is this row's only (its notes are this row's too): the next
                // row prepares its references again, as after the letter cut above, so that no
                // row's verdict depends on the row before it.
                self.prepared.aliases = false;
                self.prepared.tokens = false;
                let d = Decision {
                    rule: Rule::Contains,
                    graded: 1.0,
                    index: Some(index),
                    notes,
                };
                return Some((d, read));
            }
        }
        let resp = self.response.as_str();
        let aliases = self.aliases.as_str();
        let alias = |&(_, s, e, _): &AliasSpan| aliases.get(s..e).unwrap_or(" ");
        let mut best = Decision {
            rule: Rule::NoMatch,
            graded: 0.0,
            index: None,
            notes: 0,
        };
        if !opts.token_recall {
            return Some((best, read));
        }
        let prefix = opts.stem_prefix;
        let nmm = opts.numbers_must_match;
        let tokens = &mut self.tokens;
        let keyed = &mut self.key_tokens;
        // A response that shares no content word's stem with an alias holds none of their
        // tokens: every recall is 0, and the tokens are not built (nor the question read).
        #[cfg(test)]
        let try_share = !self.read_whole;
        #[cfg(not(test))]
        let try_share = true;
        let share_read = try_share && !self.prepared.tokens;
        let none_held =
            share_read && !keyed.may_share(t, self.alias_spans.iter().map(alias), resp, prefix);
        if !self.prepared.tokens && !none_held {
            let spans = self.alias_spans.iter().map(alias);
            self.prepared.by_keys = keyed.build(t, spans.clone(), prefix);
            if !self.prepared.by_keys {
                tokens.build(t, spans, prefix);
            }
            self.prepared.tokens = true;
        }
        let by_keys = self.prepared.by_keys;
        if none_held {
            // (Nothing to mark.)
        } else if by_keys {
            // From the response's words as `may_share` read them, when it kept them.
            let known = share_read.then(|| keyed.response_bits()).flatten();
            keyed.in_response = known.unwrap_or_else(|| keyed.mark(t, resp, prefix));
            // The question is read only when it can change a recall; most questions are marked
            // as written, without their normalisation (`KeyRecall::mark_plain`).
            #[cfg(test)]
            let as_written = !self.read_whole;
            #[cfg(not(test))]
            let as_written = true;
            keyed.in_question = match question {
                Some(q) if keyed.question_matters(self.alias_spans.len(), nmm) => {
                    let plain = as_written
                        .then(|| keyed.mark_plain(t, q, prefix, opts.number_words))
                        .flatten();
                    plain.unwrap_or_else(|| {
                        let q = self.question_text.read(&mut self.norm, t, fold, opts, q);
                        keyed.mark(t, q, prefix)
                    })
                }
                _ => 0,
            };
        } else {
            tokens.mark(t, resp, prefix, false);
            if let Some(q) = question {
                let q = self.question_text.read(&mut self.norm, t, fold, opts, q);
                tokens.mark(t, q, prefix, true);
            }
        }
        let mut best_rule = Rule::NoMatch;
        for (k, span) in self.alias_spans.iter().enumerate() {
            let recall = if none_held {
                0.0
            } else if by_keys {
                keyed.recall(k, nmm, has_question)
            } else {
                tokens.recall(k, nmm, has_question)
            };
            let rule = if recall >= opts.min_token_recall {
                Rule::TokenRecall
            } else {
                Rule::NoMatch
            };
            let better = match rule.cmp(&best_rule) {
                Ordering::Less => true,
                Ordering::Equal => recall > best.graded,
                Ordering::Greater => false,
            };
            if better {
                best_rule = rule;
                let matched = rule == Rule::TokenRecall;
                best = Decision {
                    rule,
                    graded: recall,
                    index: matched.then_some(span.0),
                    notes: if matched { span.3 | row_notes } else { 0 },
                };
            }
        }
        Some((best, read))
    }
}

#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod test_fold {
    //! Fold tables without an interpreter: a few foldings for `cargo test`, and every code point
    //! by Rust's NFKD for the fuzz targets (the real table comes from the interpreter).
    use super::*;

    /// NFKD without combining marks for every code point it changes (first install wins).
    pub fn install_nfkd() -> &'static FoldTable {
        use unicode_normalization::char::is_combining_mark;
        use unicode_normalization::UnicodeNormalization;
        if let Some(table) = FOLD.get() {
            return table;
        }
        let (mut keys, mut folded) = (Vec::new(), Vec::new());
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            let f: String = std::iter::once(c)
                .nfkd()
                .filter(|&m| !is_combining_mark(m))
                .collect();
            if f.chars().ne(std::iter::once(c)) {
                keys.push(c as u32);
                folded.push(f);
            }
        }
        set_fold_table(&keys, &folded).unwrap();
        fold_table().unwrap()
    }

    pub fn install() -> &'static FoldTable {
        let pairs: [(u32, &str); 8] = [
            (0x0301, ""),
            (0x0308, ""),
            (0x00C9, "E"),
            (0x00E9, "e"),
            (0x00F6, "o"),
            (0xFB01, "fi"),
            (0xFF11, "1"),
            (0xFF12, "2"),
        ];
        let mut pairs = pairs.to_vec();
        pairs.retain(|(cp, f)| char::from_u32(*cp).map(String::from).as_deref() != Some(*f));
        pairs.sort();
        let keys: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let folded: Vec<String> = pairs.iter().map(|p| p.1.to_owned()).collect();
        set_fold_table(&keys, &folded).unwrap();
        fold_table().unwrap()
    }
}

#[cfg(test)]
mod tests {
    /// [`super::may_hedge`]'s word test as it was first written, over `str` words: its oracle.
    fn may_hedge_by_words(normalized: &str) -> bool {
        claims::words(normalized).any(|w| super::joint_or_negation(w.as_bytes()))
    }

    /// [`super::has_list_mark`] (with AVX-512 or AVX2, one pass) finds a mark where two `memchr3` do: on
    /// random texts of every length up to three blocks, with a mark or none at every place
    /// (bytes near the marks' values, `“`, `•` and other characters outside ASCII).
    #[test]
    fn list_marks_agree_with_memchr() {
        let bytes = b",;/|\n\xe2+-.:{}\r\x0babcAZ 09\x80\xe3\xc3\xe1";
        let mut next = crate::testing::xorshift(0x1357_9bdf_2468_ace0u64);
        let (mut yes, mut no) = (0, 0);
        for round in 0..100_000 {
            let len = next(100);
            // Two texts in three hold no mark; the others hold some anywhere.
            let pool = if round % 3 == 0 {
                &bytes[..]
            } else {
                &bytes[6..]
            };
            let text: Vec<u8> = (0..len).map(|_| pool[next(pool.len())]).collect();
            let want = super::has_list_mark_by_memchr(&text);
            assert_eq!(super::has_list_mark(&text), want, "{text:?}");
            // The AVX2 pass, which the dispatch passes over where the processor has AVX-512.
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            if crate::cpu::has_avx2() {
                // SAFETY: the processor has AVX2.
                assert_eq!(
                    unsafe { super::has_list_mark_avx2(&text) },
                    want,
                    "{text:?}"
                );
            }
            yes += usize::from(want);
            no += usize::from(!want);
        }
        assert!(yes > 10_000 && no > 10_000, "{yes} {no}");
    }

    /// The two-byte test of [`super::may_hedge`] never turns away one of its words: on random
    /// normalised texts of those words, their look-alikes (`nothing`, `orange`, `isn`) and
    /// others, of one byte and more, ASCII and not, long enough to cross 64-byte blocks.
    #[test]
    fn may_hedge_agrees_with_its_word_oracle() {
        let vocab = [
            "or",
            "and",
            "nor",
            "not",
            "no",
            "never",
            "isnt",
            "wasnt",
            "arent",
            "werent",
            "neither",
            "either",
            "wrong",
            "incorrect",
            "false",
            "mistaken",
            "misconception",
            "nothing",
            "orange",
            "isn",
            "an",
            "a",
            "o",
            "n",
            "é",
            "ór",
            "paris",
            "1",
            "12",
            "fals",
            "mist",
            "wronger",
            "x",
            "nevers",
        ];
        let mut next = crate::testing::xorshift(0x4a7f_2c91_0e5d_b3a8u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..50_000 {
            let mut text = String::from(" ");
            for _ in 0..next(30) {
                // Mostly other words, so that texts without one are common.
                let w = if next(4) == 0 {
                    vocab[next(vocab.len())]
                } else {
                    vocab[17 + next(vocab.len() - 17)]
                };
                text.push_str(w);
                text.push(' ');
            }
            let want = may_hedge_by_words(&text);
            assert_eq!(super::may_hedge("x", &text), want, "{text:?}");
            // The walk over every word, which the dispatch passes over where the processor has
            // AVX-512.
            let every = super::has_joint_or_negation_by(text.as_bytes(), |head| {
                (super::block::spaces(head), u64::MAX)
            });
            assert_eq!(every, want, "{text:?}");
            yes += usize::from(want);
            no += usize::from(!want);
        }
        assert!(yes > 5_000 && no > 5_000, "{yes} {no}");
    }

    use super::*;
    use crate::pyunicode::test_tables;

    fn norm_with(text: &str, fold_accents: bool, number_words: bool) -> String {
        let t = test_tables::install();
        let fold = test_fold::install();
        let mut out = String::new();
        Normalizer::default().normalize_into(
            t,
            fold_accents.then_some(fold),
            number_words,
            text,
            &mut out,
        );
        out
    }

    fn norm(text: &str) -> String {
        norm_with(text, true, true)
    }

    #[test]
    fn normalisation_recipe() {
        let cases = [
            ("Malmö", " malmo "),
            ("ﬁle １２", " file 12 "),
            ("U.S.A.", " usa "),
            ("Drew's dog", " drew dog "),
            ("the U.S.A.'s", " usa "),
            ("Li'l Abner", " lil abner "),
            ("1,000,000 people", " 1000000 people "),
            ("1,2,3", " 1 2 3 "),
            ("1,000,0000", " 1000 0000 "),
            ("5.97 m", " 5_97 m "),
            ("1.2.3", " 1_2 3 "),
            ("Sweden1.", " sweden 1 "),
            ("the seventh", " 7 "),
            ("21st century", " 21 century "),
            ("21st'1", " 21 1 "),
            ("1,000th", " 1 000 "),
            ("one two three", " 1 2 3 "),
            ("Tom and the Cat and a dog", " tom and cat and dog "),
            ("  ...Hello, World!!  ", " hello world "),
            ("", " "),
            ("snake_case", " snake_case "),
            ("x's's", " x s "),
            ("José's", " jose "),
            ("ÉTÉ", " ete "),
        ];
        for (text, want) in cases {
            assert_eq!(norm(text), want, "{text:?}");
        }
        assert_eq!(norm_with("Malmö", false, true), " malmö ");
        assert_eq!(norm_with("the seventh 21st", true, false), " seventh 21st ");
    }

    fn stem(token: &str, prefix: Option<usize>) -> String {
        let t = test_tables::install();
        let mut out = String::new();
        stem_into(t, token, prefix, &mut out);
        out
    }

    #[test]
    fn stemming() {
        assert_eq!(stem("hieroglyphics", Some(6)), "hierog");
        assert_eq!(stem("hieroglyphs", Some(11)), "hieroglyph");
        assert_eq!(stem("hieroglyphics", Some(11)), "hieroglyphi");
        assert_eq!(stem("stories", Some(6)), "story");
        assert_eq!(stem("stories", Some(4)), "stor");
        assert_eq!(stem("stories", None), "stories");
        assert_eq!(stem("acronyms", Some(6)), "acrony");
        assert_eq!(stem("horses", Some(10)), "horse");
        assert_eq!(stem("abc1es", Some(10)), "abc1");
        assert_eq!(stem("boxes", Some(10)), "boxe");
        assert_eq!(stem("glass", Some(10)), "glass");
        assert_eq!(stem("1000s", Some(2)), "1000s");
        assert_eq!(stem("cats", Some(6)), "cats");
        assert_eq!(stem("é", Some(6)), "é");
    }

    /// The ASCII stemmer against the character one, on tokens of every plural shape.
    #[test]
    fn ascii_stems_agree_with_the_character_path() {
        let t = test_tables::install();
        let alphabet = b"aeisy1s_zSE";
        let mut next = crate::testing::lcg(11);
        let mut tokens: Vec<String> = ["", "s", "es", "ies", "sies", "xies", "1ies", "a_ies"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for _ in 0..5_000 {
            let len = next() % 10;
            let mut w: String = (0..len)
                .map(|_| char::from(alphabet[next() % alphabet.len()]))
                .collect();
            match next() % 4 {
                0 => w.push_str("ies"),
                1 => w.push_str("es"),
                2 => w.push('s'),
                _ => {}
            }
            tokens.push(w);
        }
        for token in &tokens {
            for prefix in 0..9 {
                let (mut ascii, mut chars) = (String::new(), String::new());
                stem_ascii_into(token, prefix, &mut ascii);
                stem_chars_into(t, token, prefix, &mut chars);
                assert_eq!(ascii, chars, "{token:?} {prefix}");
            }
        }
    }

    /// Every rule on, at the default threshold and stem length.
    fn every_rule() -> Options {
        Options {
            exact: true,
            contains: true,
            token_recall: true,
            min_token_recall: 0.3,
            stem_prefix: Some(6),
            numbers_must_match: true,
            fold_accents: true,
            number_words: true,
            dates: true,
            parentheticals: true,
            repair_mojibake: true,
            approximate_numbers: true,
            glued_words: true,
            hedges: true,
            negations: true,
            sweeps: true,
            degenerate_loops: true,
            letters: true,
        }
    }

    fn decide(response: &str, refs: &[Option<&str>], question: Option<&str>) -> Option<Decision> {
        let t = test_tables::install();
        let fold = test_fold::install();
        let opts = every_rule();
        Matcher::default().decide(
            t,
            Some(fold),
            &opts,
            response,
            refs.iter().copied(),
            question,
        )
    }

    /// The rejecting rules read the response as the match that accepted it did: split where
    /// glued words were split, and a gold spelled otherwise in the raw text than in the normal
    /// form (a number word, thousands separators, dots, accents) is still found in its items.
    #[test]
    fn the_rules_read_the_response_as_the_match_did() {
        let rejected: &[(&str, &str, Rule)] = &[
            ("SeaShells or NewYorkCity", "Sea Shells", Rule::Hedge),
            ("isParis or London", "Paris", Rule::Hedge),
            ("ParisOrLondon", "Paris", Rule::Hedge),
            ("The answer isNotParis.", "Paris", Rule::Negated),
            ("It was 1940 or 193912.", "1939", Rule::Hedge),
            ("seven or eight", "7", Rule::Hedge),
            ("It is Seventh or eighth.", "7th", Rule::Hedge),
            ("1,000 or 2,000", "1000", Rule::Hedge),
            ("U.S. or Canada", "US", Rule::Hedge),
            ("Café or Bar", "cafe", Rule::Hedge),
            ("It is not Café.", "cafe", Rule::Negated),
        ];
        for &(response, gold, rule) in rejected {
            let d = decide(response, &[Some(gold)], None);
            assert_eq!(d.map(|d| d.rule), Some(rule), "{response:?} / {gold:?}");
        }
        let kept: &[(&str, &str)] = &[
            ("It is isParis.", "Paris"),
            ("SeaShells, by the seashore.", "Sea Shells"),
            ("The answer isParis, not London.", "Paris"),
            ("Seven.", "7"),
            ("It is 1,000.", "1000"),
        ];
        for &(response, gold) in kept {
            let d = decide(response, &[Some(gold)], None);
            assert!(
                d.is_some_and(|d| d.accepted()),
                "{response:?} / {gold:?}: {d:?}"
            );
        }
    }

    /// Lists that assert every item, or answer a question that asks for several, are kept;
    /// bare candidate lists for a one-answer question are still hedges.
    #[test]
    fn asserted_lists_and_hedges() {
        type Row<'a> = (&'a str, &'a [Option<&'a str>], Option<&'a str>);
        let kennedy = "1. John F. Kennedy\n2. Hubert Humphrey\n3. Adlai Stevenson";
        let hartley = &[Some("L. P. Hartley"), Some("Leslie Poles Hartley")];
        let hartley_q = "Leslie Poles were the Christian names of which English novelist?";
        let kept: &[Row] = &[
            (
                "The 12 disciples are listed in all four Gospels. In Matthew 10:2-4, \
                 Mark 3:16-19, Luke 6:14-16, and Acts 1:13.",
                &[Some("Acts 1:13")],
                None,
            ),
            (
                "Service in the Israeli Military: Generally, 2 years for women and 3 years \
                 for men.",
                &[Some("two years for women")],
                None,
            ),
            (
                "A PAC is an organization that pools campaign contributions from members and \
                 donates those funds to campaigns for or against political candidates, ballot \
                 initiatives, or legislation.",
                &[Some("pools campaign contributions from members")],
                None,
            ),
            (
                "Leslie Poles Hartley, author of The Go-Between and The Hireling.",
                hartley,
                Some(hartley_q),
            ),
            (
                kennedy,
                &[Some("John F. Kennedy")],
                Some("3 candidates for the democratic nomination in 1960"),
            ),
            (
                "France, Spain and Portugal",
                &[Some("Spain")],
                Some("which countries border Andorra?"),
            ),
        ];
        for &(response, refs, question) in kept {
            let d = decide(response, refs, question).unwrap();
            assert!(d.accepted(), "{response}: {:?}", d.rule);
        }
        let hedged: &[Row] = &[
            (
                "The square symbol typically means \"Stop\" or \"Pause\".",
                &[Some("Stop")],
                None,
            ),
            (
                "Most points on an archery target: Gold or Yellow.",
                &[Some("Gold")],
                None,
            ),
            (
                "1. Niki Lauda \n2. James Hunt \n3. Jody Scheckter",
                &[Some("Niki Lauda")],
                Some("Which three times Formula One champion was burnt in a crash in 1976?"),
            ),
            (
                kennedy,
                &[Some("John F. Kennedy")],
                Some("who won the democratic nomination in 1960"),
            ),
            (
                "It is either Paris or London or Berlin.",
                &[Some("Paris")],
                None,
            ),
            ("Paris, London, Berlin, Madrid, Rome", &[Some("Rome")], None),
            ("A, B, C or D", &[Some("B")], None),
            (
                "Paris, London and Berlin",
                &[Some("Paris")],
                Some("what is the capital of France?"),
            ),
        ];
        for &(response, refs, question) in hedged {
            let d = decide(response, refs, question).unwrap();
            assert_eq!(d.rule, Rule::Hedge, "{response}");
        }
        let d = decide(
            "It could be 1990, 1991, 1992, 1993 or 1994",
            &[Some("1992")],
            None,
        );
        assert_eq!(d.unwrap().rule, Rule::Sweep);
    }

    #[test]
    fn rules() {
        let d = decide("Paris.", &[Some("Lutetia"), Some("paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::Exact, Some(1)));
        let d = decide("It is Paris, of course.", &[Some("Paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::Contains, Some(0)));
        let d = decide("Amy Johnson CBE", &[Some("Amy Mollison")], None).unwrap();
        assert_eq!(
            (d.rule, d.graded, d.index),
            (Rule::TokenRecall, 0.5, Some(0))
        );
        let d = decide("Parisian cafes", &[Some("Paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::NoMatch, None));
        let d = decide(
            "The CN Tower has 1,776 steps.",
            &[Some("2,579 steps")],
            None,
        )
        .unwrap();
        assert_eq!((d.rule, d.graded), (Rule::NoMatch, 0.0));
        let d = decide(
            "Lyon",
            &[None, Some("  "), Some("Paris"), Some("Lyon")],
            None,
        )
        .unwrap();
        assert_eq!((d.rule, d.index), (Rule::Exact, Some(3)));
        assert_eq!(decide("Paris", &[None, Some(" \u{3000}")], None), None);
        assert_eq!(decide("Paris", &[], None), None);
    }

    #[test]
    fn question_words_are_no_evidence() {
        let refs = [Some("Sri Lanka Podujana Peramuna")];
        let resp = "Elections in Sri Lanka in 2018 were local elections.";
        assert_eq!(decide(resp, &refs, None).unwrap().rule, Rule::TokenRecall);
        let q = Some("who will win the 2018 election in sri lanka");
        assert_eq!(decide(resp, &refs, q).unwrap().rule, Rule::NoMatch);
    }

    #[test]
    fn padded_search_and_words_agree_with_the_plain_ones() {
        let hay = " the cat sat on the mat 12 catalogue cats ";
        for needle in [
            " cat ",
            " mat ",
            " 12 ",
            " cats ",
            " the cat ",
            " at ",
            " ",
            " dog ",
            "t",
        ] {
            assert_eq!(
                contains_padded(hay.as_bytes(), needle.as_bytes()),
                hay.contains(needle),
                "{needle:?}"
            );
        }
        for text in [
            " ",
            " a ",
            " the cat sat on the mat ",
            " abcdefgh abcdefghijklmnop x ",
            " héllo wörld ",
            &format!(" {} ", ["abc"; 40].join(" ")),
            &format!(" {} x ", "y".repeat(130)),
            &format!(" {} ", "a".repeat(62)),
            &format!(" {} ", "a".repeat(63)),
        ] {
            let mut got = Vec::new();
            for_each_word(
                text.as_bytes(),
                |_| false,
                |w| {
                    got.push(&text[w.start..w.end(text.as_bytes())]);
                    true
                },
            );
            let want: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    /// The date rule's count of content words, unlisted, is that of the listed words.
    #[test]
    fn content_words_are_counted_as_the_listed_ones() {
        let words = [
            "the", "of", "in", "1", "1990", "may", "is", "a", "paris", "x", "é", "and",
        ];
        let mut next = crate::testing::lcg(11);
        for _ in 0..3000 {
            let mut listed = Vec::new();
            let n = next() % 12;
            let text = crate::testing::spaced_words(&words, n, &mut next);
            words_into(&text, &mut listed);
            for k in 1..7 {
                let want = listed
                    .iter()
                    .filter(|w| !is_stopword(w))
                    .nth(k - 1)
                    .is_some();
                assert_eq!(has_content_words(&text, k), want, "{text:?} {k}");
            }
        }
    }

    /// A response that [`states_no_value`] has no date, decade or number for the value rules
    /// to read: random texts of month names, spelled and written numbers, ordinals, years,
    /// decades and amounts.
    #[test]
    fn a_text_without_digits_states_no_value() {
        let words = [
            "may", "march", "dec", "of", "the", "1", "21st", "3rd", "1990", "1920s", "2011as",
            "05", "12", "5_97", "5k", "2bn", "one", "first", "seventh", "thousand", "million",
            "about", "close", "to", "km", "é", "x",
        ];
        let mut next = crate::testing::lcg(23);
        let (mut with, mut without) = (0, 0);
        for _ in 0..20_000 {
            let mut listed = Vec::new();
            let n = next() % 8;
            let text = crate::testing::spaced_words(&words, n, &mut next);
            words_into(&text, &mut listed);
            let values = !rules::find_dates(&listed).is_empty()
                || !rules::find_decades(&listed).is_empty()
                || !rules::find_numbers(&listed).is_empty();
            if values {
                with += 1;
                assert!(!states_no_value(&text), "{text:?}");
            } else if !states_no_value(&text) {
                without += 1;
            }
        }
        // Both kinds of text were drawn.
        assert!(with > 1000 && without > 100, "{with} {without}");
    }

    /// A short ASCII stem's key is the stem's bytes: the same as the key of the stem written
    /// out, and none for a longer or non-ASCII one.
    #[test]
    fn stem_keys_are_the_stems_bytes() {
        let t = test_tables::install();
        let mut next = crate::testing::lcg(5);
        let alphabet = b"abeisyz019_";
        let mut stem = String::new();
        for _ in 0..20_000 {
            let n = 1 + next() % 13;
            let word: String = (0..n)
                .map(|_| char::from(alphabet[next() % alphabet.len()]))
                .collect();
            for prefix in [None, Some(0), Some(1), Some(3), Some(6), Some(8), Some(9)] {
                stem.clear();
                stem_into(t, &word, prefix, &mut stem);
                let want = (stem.len() <= 8).then(|| ascii::load_short(stem.as_bytes()));
                assert_eq!(
                    ascii_stem_key(word.as_bytes(), prefix),
                    want,
                    "{word} {prefix:?}"
                );
            }
        }
        assert_eq!(ascii_stem_key("é".as_bytes(), None), None);
        // Keys in and out of a table, with its probes around its end.
        let mut keys = StemKeys::default();
        keys.clear();
        for k in 0..40u32 {
            assert_eq!(keys.intern(u64::from(k) * 977 + 1, k), (k, true));
        }
        // Interned again, a key keeps its first id.
        assert_eq!(keys.intern(977 + 1, 99), (1, false));
        for k in 0..40u32 {
            assert_eq!(keys.get(u64::from(k) * 977 + 1), k);
            assert_eq!(keys.get(u64::from(k) * 977 + 2), crate::tokens::ABSENT);
        }
    }

    /// Which alias tokens a response holds, by the block scan and its pair filter, against
    /// every word stemmed and looked up; words of every length around the blocks' edges.
    #[test]
    fn marked_tokens_agree_with_every_word_stemmed() {
        let t = test_tables::install();
        let words = crate::testing::stem_words(&[]);
        let mut next = crate::testing::lcg(11);
        for prefix in [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(6),
            Some(7),
            Some(8),
            Some(9),
        ] {
            for _ in 0..300 {
                let pick = |next: &mut dyn FnMut() -> usize| words[next() % words.len()];
                let aliases: Vec<String> = (0..1 + next() % 3)
                    .map(|_| {
                        let n = 1 + next() % 3;
                        format!(
                            " {} ",
                            (0..n)
                                .map(|_| pick(&mut next))
                                .collect::<Vec<_>>()
                                .join(" ")
                        )
                    })
                    .collect();
                // Some long words, so that words cross the 64-byte blocks.
                let n = next() % 40;
                let response: Vec<String> = (0..n)
                    .map(|_| match next() % 6 {
                        0 => "y".repeat(1 + next() % 70),
                        _ => pick(&mut next).to_owned(),
                    })
                    .collect();
                let response = format!(" {} ", response.join(" "));
                let mut tokens = RecallTokens::default();
                tokens.build(t, aliases.iter().map(String::as_str), prefix);
                tokens.mark(t, &response, prefix, false);
                // One token per distinct stem of the aliases' content words, each found again.
                let mut stems = std::collections::HashSet::new();
                for word in aliases
                    .iter()
                    .flat_map(|a| a.split(' '))
                    .filter(|w| !w.is_empty() && !is_stopword(w))
                {
                    let mut stem = String::new();
                    stem_into(t, word, prefix, &mut stem);
                    let (keys, vocab, long_ids) = (&tokens.keys, &tokens.vocab, &tokens.long_ids);
                    assert_ne!(RecallTokens::stem_id(keys, vocab, long_ids, &stem), ABSENT);
                    stems.insert(stem);
                }
                assert_eq!(tokens.listed.len(), stems.len(), "{aliases:?} {prefix:?}");
                let mut want = vec![false; tokens.listed.len()];
                let mut stem = String::new();
                for word in response
                    .split(' ')
                    .filter(|w| !w.is_empty() && !is_stopword(w))
                {
                    stem.clear();
                    stem_into(t, word, prefix, &mut stem);
                    let (keys, vocab, long_ids) = (&tokens.keys, &tokens.vocab, &tokens.long_ids);
                    let id = RecallTokens::stem_id(keys, vocab, long_ids, &stem);
                    if let Some(h) = want.get_mut(id as usize) {
                        *h = true;
                    }
                }
                assert_eq!(
                    tokens.in_response, want,
                    "{aliases:?} {response:?} {prefix:?}"
                );
            }
        }
    }

    /// A matcher that decides many rows reuses the references it prepared for the row before
    /// when they repeat: every decision (and what a rejection saw) is the one a fresh matcher
    /// makes, whatever the rows before were, with letters, nulls, parentheticals and options
    /// that change between rows.
    #[test]
    fn repeated_references_decide_as_fresh_ones() {
        let t = test_tables::install();
        let fold = test_fold::install();
        let refs: [&[Option<&str>]; 9] = [
            &[Some("Paris (France)")],
            &[Some("B")],
            &[Some("b"), Some("Berlin")],
            &[None, Some("the Seine river")],
            &[Some("  ")],
            &[Some("42 cats")],
            &[Some("Ã©clair")],
            &[Some("paris")],
            &[Some("June 1990"), None],
        ];
        let responses = [
            "Paris",
            "The answer is B",
            "It is (C).",
            "seine",
            "cats, 42 of them",
            "not paris",
            "éclair",
            "Paris or London",
            "in June 1990",
            "",
        ];
        let base = Options {
            approximate_numbers: false,
            ..every_rule()
        };
        let variants = [
            base,
            Options {
                letters: false,
                parentheticals: false,
                ..base
            },
            Options {
                stem_prefix: Some(1),
                repair_mojibake: false,
                ..base
            },
            Options {
                fold_accents: false,
                number_words: false,
                ..base
            },
        ];
        let mut next = crate::testing::lcg(44);
        let mut shared = Matcher::default();
        for _ in 0..3_000 {
            // Runs of one reference, as when several models answer one question.
            let r = refs[next() % refs.len()];
            for _ in 0..1 + next() % 3 {
                let opts =
                    variants[usize::from(next().is_multiple_of(5)) * (next() % variants.len())];
                let fold = opts.fold_accents.then_some(fold);
                let response = responses[next() % responses.len()];
                let question = next().is_multiple_of(3).then_some("Which city, name two?");
                let got = shared.decide(t, fold, &opts, response, r.iter().copied(), question);
                let mut fresh = Matcher::default();
                let want = fresh.decide(t, fold, &opts, response, r.iter().copied(), question);
                assert_eq!(got, want, "{response:?} {r:?} {opts:?}");
                assert_eq!(shared.seen(), fresh.seen(), "{response:?} {r:?}");
            }
        }
    }

    /// A row whose last item asserts the gold alone in its run is decided without reading the
    /// response: as it is when the response is read whole, on texts of separators, joints,
    /// denials, sentence ends and golds.
    #[test]
    fn the_tail_shortcut_decides_as_the_whole_read() {
        let t = test_tables::install();
        let fold = test_fold::install();
        let golds = [
            "Paris",
            "18",
            "George Washington",
            "1992",
            "B",
            "twelve",
            "Café",
            "U.S.",
            "no",
            // An article alone (never a gold item), an alias of one byte (one) and an alias
            // without an ASCII word.
            "The",
            "7",
            "Αθήνα",
            "Sea Shells",
        ];
        let tokens = [
            "SeaShells",
            "isParis",
            "ParisOrLondon",
            "193912",
            ",",
            ";",
            "/",
            ".",
            "!",
            "?",
            ":",
            "(",
            ")",
            "(A)",
            "\"",
            "*",
            "“",
            "•",
            "|",
            "\n",
            " or ",
            " and ",
            " nor ",
            " neither ",
            " either ",
            " but ",
            "not ",
            "isn't ",
            " is wrong",
            "...",
            " ",
            " ",
            "A:",
            "The answer is",
            "maybe",
            "including",
            "J. F.",
            "1.",
            "2)",
            "12",
            "13",
            "3.5",
            "1,000",
            "10:30",
            "London",
            "it is",
            "No.",
            "é",
            "ΑΘΗΝΑ",
            "Ελλάδα",
        ];
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut opts = every_rule();
        opts.approximate_numbers = false;
        let (mut fast, mut whole) = (Matcher::default(), Matcher::default());
        whole.read_whole = true;
        let (mut accepted, mut glued, mut others) = (0, 0, 0);
        for _ in 0..30_000 {
            let refs: Vec<Option<&str>> = (0..1 + next(2))
                .map(|_| Some(golds[next(golds.len())]))
                .collect();
            let mut response = String::new();
            for _ in 0..1 + next(12) {
                let gold = refs[next(refs.len())].unwrap_or("");
                response.push_str(if next(4) == 0 {
                    gold
                } else {
                    tokens[next(tokens.len())]
                });
                if next(2) == 0 {
                    response.push(' ');
                }
            }
            let question = ["", "Name two cities."][next(2)];
            let q = (!question.is_empty()).then_some(question);
            let a = fast.decide(t, Some(fold), &opts, &response, refs.iter().copied(), q);
            let b = whole.decide(t, Some(fold), &opts, &response, refs.iter().copied(), q);
            assert_eq!(a, b, "{response:?} {refs:?}");
            assert_eq!(fast.seen(), whole.seen(), "{response:?} {refs:?}");
            accepted += usize::from(a.is_some_and(|d| d.rule == Rule::Contains));
            if let Some((d, known)) = a.and_then(|d| Some((d, alias_in_response(&d, &opts)?))) {
                assert_eq!(
                    holds_alias_by_search(&fast, &d),
                    known,
                    "{response:?} {refs:?}"
                );
                glued += usize::from(d.notes & NOTE_GLUED != 0);
                others += usize::from(!known);
            }
        }
        assert!(
            accepted > 1000 && glued > 100 && others > 100,
            "{accepted} {glued} {others}"
        );
    }

    /// What [`Matcher::decide`]'s shortcut searched for before it knew [`alias_in_response`]:
    /// whether an alias of more than two bytes is in the normal form the rules read (`glued`
    /// where the match split glued words) of the row `m` decided last, as `d`.
    fn holds_alias_by_search(m: &Matcher, d: &Decision) -> bool {
        let resp = if d.notes & NOTE_GLUED != 0 {
            &m.glued
        } else {
            &m.response
        };
        m.alias_spans.iter().any(|&(_, s, e, _)| {
            let a = m.aliases.get(s..e).unwrap_or(" ");
            a.len() > 2 && contains_padded(resp.as_bytes(), a.as_bytes())
        })
    }

    /// Token recall with a question decides as it does when the question is normalised and then
    /// marked (the whole read): the question read as written where it can be
    /// ([`key_recall::KeyRecall::mark_plain`]), on generated rows whose responses hold some of
    /// an alias's words and whose questions give some away, in every case, with numbers, marks
    /// and non-ASCII letters now and then.
    #[test]
    fn questions_read_as_written_decide_as_the_whole_read() {
        let t = test_tables::install();
        let fold = test_fold::install();
        let words = [
            "Paris", "river", "Seine", "the", "of", "two", "second", "2", "island", "is",
            "islands", "kings", "King", "U.S.", "café", "Bob's", "x_y", "candies", "eleventh",
        ];
        let seps = [" ", " ", "? ", ", ", " (", ") ", "-", "!"];
        let mut next = crate::testing::xorshift(0x4444_2545_f491_dd1du64);
        let (mut fast, mut whole) = (Matcher::default(), Matcher::default());
        whole.read_whole = true;
        let (mut recalled, mut discounted) = (0, 0);
        for round in 0..20_000 {
            let mut opts = every_rule();
            opts.approximate_numbers = false;
            opts.number_words = round % 3 != 0;
            opts.stem_prefix = [None, Some(1), Some(6)][round % 3];
            let text = |n: usize, next: &mut dyn FnMut(usize) -> usize| {
                let mut s = String::new();
                for _ in 0..n {
                    let w = words[next(words.len())];
                    match next(3) {
                        0 => s.push_str(&w.to_uppercase()),
                        _ => s.push_str(w),
                    }
                    s.push_str(seps[next(seps.len())]);
                }
                s
            };
            let alias = text(2 + next(3), &mut next);
            let response = text(1 + next(3), &mut next);
            let question = text(next(7), &mut next);
            let refs = [Some(alias.as_str())];
            let q = Some(question.as_str());
            let a = fast.decide(t, Some(fold), &opts, &response, refs.iter().copied(), q);
            let b = whole.decide(t, Some(fold), &opts, &response, refs.iter().copied(), q);
            assert_eq!(a, b, "{response:?} {alias:?} {question:?}");
            let c = whole.decide(t, Some(fold), &opts, &response, refs.iter().copied(), None);
            recalled += usize::from(a.is_some_and(|d| d.rule == Rule::TokenRecall));
            discounted += usize::from(a != c);
        }
        // Many rows are accepted by token recall, and the question changes many decisions.
        assert!(
            recalled > 1000 && discounted > 1000,
            "{recalled} {discounted}"
        );
    }

    #[test]
    fn hostile_sizes_stay_linear() {
        let token = "a".repeat(1_000_000);
        let d = decide(&token, &[Some(&token)], None).unwrap();
        assert_eq!(d.rule, Rule::Exact);
        let numbers: String = (0..100_000).map(|i| format!("{i} ")).collect();
        // Every number of the alias is in the response, but as part of a sweep of 0..99999.
        let d = decide(&numbers, &[Some("42 7 99999 x")], None).unwrap();
        assert_eq!(d.rule, Rule::Sweep);
    }
}
