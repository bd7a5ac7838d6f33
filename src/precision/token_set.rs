//! The token sets of answer_precision: the distinct tokens of a normalised text, and the
//! stopwords.
//!
//! Tokens arrive as byte spans of the normalised text while it is written, most of them short
//! ASCII words. A token of at most 8 bytes is keyed by those bytes as one zero-padded
//! little-endian word ([`short_key`], read with one load when the text is long enough), so that
//! its hash and every comparison are word operations; a longer one is hashed 8 bytes at a time
//! and compared as bytes. The stopwords live in a table of the same hashes, so that a token is
//! hashed once for both look-ups.

use crate::ascii::load_short;

/// The multiplier of the hash (the high bits of a product mix every input bit).
const K: u64 = 0x517c_c1b7_2722_0a95;

/// The key of the token `text[start..end]` of at most 8 bytes: its bytes as a zero-padded
/// little-endian word. When 8 bytes end at `end`, one load and a shift.
#[inline(always)]
pub fn short_key(text: &[u8], start: usize, end: usize) -> u64 {
    let len = end.saturating_sub(start);
    if let Some(chunk) = end
        .checked_sub(8)
        .and_then(|from| text.get(from..end))
        .and_then(|w| w.first_chunk::<8>())
    {
        if (1..=8).contains(&len) {
            return u64::from_le_bytes(*chunk) >> (8 * (8 - len));
        }
    }
    text.get(start..end).map_or(0, load_short)
}

/// The hash of a token of `len` bytes at most 8 whose key is `key`.
#[inline(always)]
pub fn short_hash(key: u64, len: usize) -> u64 {
    (key ^ (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(K)
}

/// The hash of a token longer than 8 bytes.
#[inline]
fn long_hash(token: &[u8]) -> u64 {
    let mut h = token.len() as u64;
    let mut chunks = token.chunks_exact(8);
    for chunk in &mut chunks {
        h = (h.rotate_left(5) ^ load_short(chunk)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ load_short(rest)).wrapping_mul(K);
    }
    h
}

/// The (hash, key) of the token `text[start..end]`; the key is 0 for a token longer than 8
/// bytes.
#[inline(always)]
pub fn token_id(text: &[u8], start: usize, end: usize) -> (u64, u64) {
    let len = end.saturating_sub(start);
    if len <= 8 {
        let key = short_key(text, start, end);
        (short_hash(key, len), key)
    } else {
        (long_hash(text.get(start..end).unwrap_or(&[])), 0)
    }
}

/// One distinct token: its hash, key, span and slot.
#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    key: u64,
    start: usize,
    end: usize,
    slot: usize,
}

const EMPTY: u32 = u32::MAX;

/// Whether the entry `e` (a span of `held`) is the token `token` (hash, key).
#[inline(always)]
fn same(e: &Entry, held: &[u8], hash: u64, key: u64, token: &[u8]) -> bool {
    if e.hash != hash || e.end - e.start != token.len() {
        return false;
    }
    if token.len() <= 8 {
        e.key == key
    } else {
        held.get(e.start..e.end) == Some(token)
    }
}

/// An open-addressing table of entries: the distinct tokens of one text as spans of it. It
/// allocates nothing once grown and clears in the number of tokens it holds.
#[derive(Default)]
pub struct TokenSet {
    entries: Vec<Entry>,
    /// A power-of-two number of slots, each [`EMPTY`] or an index of `entries`.
    slots: Vec<u32>,
    /// 64 minus the number of bits of a slot index: the home slot of a hash is its high bits.
    shift: u32,
}

impl TokenSet {
    pub fn clear(&mut self) {
        for e in &self.entries {
            if let Some(s) = self.slots.get_mut(e.slot) {
                *s = EMPTY;
            }
        }
        self.entries.clear();
    }

    /// The number of distinct tokens.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The distinct tokens, in the order first added; `text` is the text they were added from.
    pub fn tokens<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        self.entries
            .iter()
            .map(|e| text.get(e.start..e.end).unwrap_or(""))
    }

    /// The home slot of `hash` (before the first insertion, an index past the empty table).
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    /// The slot of the token (spans of `held` are the tokens held), and whether it is held.
    #[inline(always)]
    fn find(&self, held: &[u8], hash: u64, key: u64, token: &[u8]) -> (usize, bool) {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        loop {
            let Some(e) = self
                .slots
                .get(i)
                .and_then(|&id| self.entries.get(id as usize))
            else {
                return (i, false);
            };
            if same(e, held, hash, key, token) {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        self.resize((self.slots.len() * 2).max(64));
    }

    /// Rehash into `size` slots (a power of two, more than the entries).
    fn resize(&mut self, size: usize) {
        self.shift = 64 - size.trailing_zeros();
        self.slots.clear();
        self.slots.resize(size, EMPTY);
        let mask = size - 1;
        for id in 0..self.entries.len() {
            let Some(hash) = self.entries.get(id).map(|e| e.hash) else {
                break;
            };
            let mut i = self.home(hash);
            while self.slots.get(i).is_some_and(|&s| s != EMPTY) {
                i = (i + 1) & mask;
            }
            if let (Some(s), Some(e)) = (self.slots.get_mut(i), self.entries.get_mut(id)) {
                *s = id as u32;
                e.slot = i;
            }
        }
    }

    /// Add the token `text[start..end]` (its [`token_id`] `hash`, `key`) unless it is held.
    /// `text` must begin with the text of the tokens added before (it may have grown since).
    #[inline(always)]
    pub fn insert(&mut self, text: &[u8], start: usize, end: usize, hash: u64, key: u64) {
        if (self.entries.len() + 1) * 4 > self.slots.len() {
            self.grow();
        }
        let Some(token) = text.get(start..end) else {
            return;
        };
        let (slot, found) = self.find(text, hash, key, token);
        if found {
            return;
        }
        let id = self.entries.len() as u32;
        self.entries.push(Entry {
            hash,
            key,
            start,
            end,
            slot,
        });
        if let Some(s) = self.slots.get_mut(slot) {
            *s = id;
        }
    }

    /// How many of `other`'s tokens (spans of `other_text`) this set holds (spans of `text`).
    pub fn count_shared(&self, text: &[u8], other: &TokenSet, other_text: &[u8]) -> usize {
        if self.is_empty() {
            return 0;
        }
        other
            .entries
            .iter()
            .filter(|e| {
                other_text
                    .get(e.start..e.end)
                    .is_some_and(|token| self.find(text, e.hash, e.key, token).1)
            })
            .count()
    }
}

/// The stopwords, hashed as the tokens are.
#[derive(Default)]
pub struct StopWords {
    /// The distinct words, concatenated; the entries are spans of it.
    arena: Vec<u8>,
    set: TokenSet,
    /// One bit per byte length of the words (63: 63 and longer): most tokens are told apart by
    /// their length alone.
    lengths: u64,
}

#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

impl StopWords {
    pub fn new<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> StopWords {
        let mut s = StopWords::default();
        for w in words {
            let start = s.arena.len();
            s.arena.extend_from_slice(w.as_ref().as_bytes());
            let end = s.arena.len();
            let (hash, key) = token_id(&s.arena, start, end);
            let before = s.set.len();
            s.set.insert(&s.arena, start, end, hash, key);
            if s.set.len() == before {
                s.arena.truncate(start); // held already
            }
            s.lengths |= length_bit(end - start);
        }
        // Most tokens are looked up and not found: a sparse table ends most searches at the
        // first slot.
        let size = (16 * s.set.len()).next_power_of_two().max(64);
        s.set.resize(size);
        s
    }

    /// The distinct stopwords, in the order first given.
    pub fn tokens(&self) -> impl Iterator<Item = &str> + '_ {
        self.set.entries.iter().map(|e| {
            std::str::from_utf8(self.arena.get(e.start..e.end).unwrap_or(&[])).unwrap_or("")
        })
    }

    /// Whether `token` (its [`token_id`] `hash`, `key`) is a stopword.
    #[inline(always)]
    pub fn contains(&self, token: &[u8], hash: u64, key: u64) -> bool {
        self.lengths & length_bit(token.len()) != 0
            && self.set.find(&self.arena, hash, key, token).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(token: &str) -> (u64, u64) {
        token_id(token.as_bytes(), 0, token.len())
    }

    #[test]
    fn keys_read_in_place_are_the_padded_bytes() {
        let text = b"0123456789abcdefghij\0\0x";
        for start in 0..text.len() {
            for end in start..=text.len() {
                if end - start > 8 {
                    continue;
                }
                assert_eq!(
                    short_key(text, start, end),
                    load_short(&text[start..end]),
                    "{start} {end}"
                );
            }
        }
        // a NUL byte is part of a token: the length tells "a" from "a\0"
        assert_ne!(id("a"), id("a\0"));
    }

    #[test]
    fn sets_hold_distinct_spans_and_stopwords_match_exactly() {
        use std::collections::HashSet;
        let mut set = TokenSet::default();
        let mut naive = HashSet::new();
        let mut text = Vec::new();
        for i in 0..900 {
            let start = text.len();
            text.extend_from_slice(format!("w{}-a-long-tail-{}", i % 3, i % 250).as_bytes());
            for end in [start + 2, text.len()] {
                let (h, k) = token_id(&text, start, end);
                set.insert(&text, start, end, h, k);
                naive.insert(text[start..end].to_vec());
            }
            text.push(b' ');
        }
        assert_eq!(set.len(), naive.len());
        let held: HashSet<Vec<u8>> = set
            .tokens(std::str::from_utf8(&text).unwrap())
            .map(|t| t.as_bytes().to_vec())
            .collect();
        assert_eq!(held, naive);
        let mut other = TokenSet::default();
        let words = b"w1 zz w2-a-long-tail-2 w2-a-long-tail-1 w2-a-long-tail-1";
        let spans = [(0, 2), (3, 5), (6, 22), (23, 39), (40, words.len())];
        for (s, e) in spans {
            let (h, k) = token_id(words, s, e);
            other.insert(words, s, e, h, k);
        }
        let distinct: HashSet<&[u8]> = spans.iter().map(|&(s, e)| &words[s..e]).collect();
        let shared = distinct.iter().filter(|w| naive.contains(**w)).count();
        assert_eq!(other.len(), distinct.len());
        assert_eq!(set.count_shared(&text, &other, words), shared);
        assert_eq!(other.count_shared(words, &set, &text), shared);
        let stop = StopWords::new(["the", "a", "the", "", "a-much-longer-stopword", "é"]);
        let listed: Vec<&str> = stop.tokens().collect();
        assert_eq!(listed, ["the", "a", "", "a-much-longer-stopword", "é"]);
        for (w, yes) in [
            ("the", true),
            ("thE", false),
            ("a", true),
            ("", true),
            ("é", true),
            ("a-much-longer-stopword", true),
            ("a-much-longer-stopwore", false),
            ("th", false),
        ] {
            let (h, k) = id(w);
            assert_eq!(stop.contains(w.as_bytes(), h, k), yes, "{w}");
        }
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set.count_shared(&text, &other, words), 0);
    }
}
