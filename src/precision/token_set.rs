//! The token sets of answer_precision: the distinct tokens of a normalised text, and the
//! stopwords.
//!
//! Tokens arrive as byte spans of the normalised text while it is written, most of them short
//! ASCII words. A token of at most 8 bytes is its own [`short_id`]: its bytes as one zero-padded
//! little-endian word (read with one load when the text is long enough), its length in the top
//! byte when it is shorter than 8, where UTF-8 never puts such a byte; two tokens are equal when
//! their ids are. Short tokens live in a table of those ids, so a look-up is a multiplication
//! and the comparison of a word or two. A longer token is hashed 8 bytes at a time, kept as a
//! span and compared as bytes. The stopwords are a set of the same kind, sparser, so that most
//! look-ups end at the first slot.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::ascii::load_short;

/// The multiplier of the hash (the high bits of a product mix every input bit).
pub(crate) const K: u64 = 0x517c_c1b7_2722_0a95;

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

/// The id of the token `text[start..end]` of at most 8 bytes of UTF-8: its [`short_key`], and
/// when it is shorter than 8 bytes, `0xF8 + length` in the top byte (which its key leaves
/// zero). UTF-8 never uses the bytes 0xF8 to 0xFF, so the top byte of an 8-byte token is below
/// them: two tokens have the same id exactly when they are equal, and no id is [`NO_ID`].
#[inline(always)]
pub fn short_id(text: &[u8], start: usize, end: usize) -> u64 {
    id_of_key(short_key(text, start, end), end.saturating_sub(start))
}

/// The [`short_id`] of a token of `len` bytes (at most 8) whose [`short_key`] is `key`.
#[inline(always)]
pub fn id_of_key(key: u64, len: usize) -> u64 {
    if len < 8 {
        key | (0xF8 | len as u64) << 56
    } else {
        key
    }
}

/// Per length `len` (0 to 8): the mask of a token's first `len` bytes in a little-endian word,
/// and the tag [`id_of_key`] adds to its key, so that the [`short_id`] of the token whose bytes
/// (and any after them) are the word `w` is `w & mask | tag`.
pub const SHORT_ID_BITS: [(u64, u64); 9] = {
    let mut bits = [(0u64, 0u64); 9];
    let mut len = 0;
    while len <= 8 {
        let mask = if len == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * len)) - 1
        };
        let tag = if len < 8 {
            (0xF8 | len as u64) << 56
        } else {
            0
        };
        bits[len] = (mask, tag);
        len += 1;
    }
    bits
};

/// The hash of a token longer than 8 bytes.
#[inline]
pub fn long_hash(token: &[u8]) -> u64 {
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

/// The short tokens' table of a [`TokenSet`] has at least this many slots per token and
/// stopword held.
const SPARSE: usize = 16;

/// An empty slot of the short tokens' table: eight 0xFF bytes, which no UTF-8 token holds.
const NO_ID: u64 = u64::MAX;
/// An empty slot of the long tokens' table.
const EMPTY: u32 = u32::MAX;

/// One distinct token: its id (a short token) or hash (a long one), span, and slot in its
/// table.
#[derive(Clone, Copy)]
struct Entry {
    id: u64,
    start: usize,
    end: usize,
    slot: usize,
}

impl Entry {
    #[inline(always)]
    fn is_short(&self) -> bool {
        self.end.saturating_sub(self.start) <= 8
    }
}

/// The distinct tokens of one text as spans of it, in two open-addressing tables: the short
/// tokens' ids, and the indexes of the long tokens' entries. It allocates nothing once grown
/// and clears in the number of tokens it holds.
#[derive(Default)]
pub struct TokenSet {
    /// In the order first added.
    entries: Vec<Entry>,
    /// A power-of-two number of slots, each [`NO_ID`] or the id of a short token held.
    short: Vec<u64>,
    short_count: usize,
    /// 64 minus the number of bits of a slot index: the home slot of a hash is its high bits.
    short_shift: u32,
    /// A power-of-two number of slots, each [`EMPTY`] or an index of `entries`.
    long: Vec<u32>,
    long_count: usize,
    long_shift: u32,
    /// The ids of the short stopwords, held in `short` for good but not tokens of the set
    /// ([`TokenSet::keep_stopwords`]): a token of at most 8 bytes is looked up once, and found
    /// if it is held or a stopword, either way not added.
    resident: Vec<u64>,
    /// The [`StopWords::generation`] of the stopwords in `resident` (0: none).
    resident_of: u64,
}

/// The home slot of `hash` in a table of `64 - shift` bits.
#[inline(always)]
fn home(hash: u64, shift: u32) -> usize {
    (hash >> shift) as usize
}

impl TokenSet {
    pub fn clear(&mut self) {
        for e in &self.entries {
            if e.is_short() {
                if let Some(s) = self.short.get_mut(e.slot) {
                    *s = NO_ID;
                }
            } else if let Some(s) = self.long.get_mut(e.slot) {
                *s = EMPTY;
            }
        }
        self.entries.clear();
        self.short_count = 0;
        self.long_count = 0;
    }

    /// Hold the short stopwords of `stop` in the short tokens' table from now on (instead of
    /// those held before, if they differ), so that [`TokenSet::insert_short`] leaves them out
    /// in the same look-up that finds a token held already: the set must be empty. They are
    /// no tokens of the set (nor counted, listed, or found by [`TokenSet::count_shared`] from
    /// a set without them: a token of such a set is no stopword, and ids are equal only for
    /// equal tokens); [`TokenSet::clear`] keeps them.
    pub fn keep_stopwords(&mut self, stop: &StopWords) {
        if self.resident_of == stop.generation {
            return;
        }
        self.clear();
        self.resident.clear();
        self.resident.extend(
            stop.set
                .entries
                .iter()
                .filter(|e| e.is_short())
                .map(|e| e.id),
        );
        self.resident_of = stop.generation;
        let size = (SPARSE * (self.resident.len() + 1))
            .next_power_of_two()
            .max(64);
        self.resize_short(size);
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

    /// The slot of the short token `id` (its [`short_id`]), and whether it is held. Before the
    /// first insertion the slot is past the empty table.
    #[inline(always)]
    fn find_short(&self, id: u64) -> (usize, bool) {
        let mask = self.short.len().wrapping_sub(1);
        let mut i = home(id.wrapping_mul(K), self.short_shift);
        loop {
            match self.short.get(i) {
                Some(&x) if x == id => return (i, true),
                Some(&x) if x != NO_ID => i = (i + 1) & mask,
                _ => return (i, false),
            }
        }
    }

    /// Whether the short token `id` (its [`short_id`]) is held.
    #[inline(always)]
    pub fn contains_short(&self, id: u64) -> bool {
        self.find_short(id).1
    }

    /// Add the token `text[start..end]` of at most 8 bytes (its [`short_id`] `id`) unless it is
    /// held.
    #[inline(always)]
    pub fn insert_short(&mut self, id: u64, start: usize, end: usize) {
        // Looked up first: most tokens are held already or stopwords, and need no room. The
        // table always has an empty slot (at most a sixteenth of it is taken, so that a look-up
        // seldom probes past its home slot: each probe was a branch mispredicted about one time
        // in three), or no slot at all before the first insertion, so the search ends.
        let (mut slot, found) = self.find_short(id);
        if found {
            return;
        }
        if (self.short_count + self.resident.len() + 1) * SPARSE > self.short.len() {
            self.resize_short((self.short.len() * 2).max(64));
            slot = self.find_short(id).0;
        }
        if let Some(s) = self.short.get_mut(slot) {
            *s = id;
            self.short_count += 1;
            self.entries.push(Entry {
                id,
                start,
                end,
                slot,
            });
        }
    }

    /// Rehash the short tokens into `size` slots (a power of two, more than they are).
    fn resize_short(&mut self, size: usize) {
        self.short_shift = 64 - size.trailing_zeros();
        self.short.clear();
        self.short.resize(size, NO_ID);
        let mask = size - 1;
        for &id in &self.resident {
            let mut i = home(id.wrapping_mul(K), self.short_shift);
            while self.short.get(i).is_some_and(|&x| x != NO_ID) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.short.get_mut(i) {
                *s = id;
            }
        }
        for e in self.entries.iter_mut().filter(|e| e.is_short()) {
            let mut i = home(e.id.wrapping_mul(K), self.short_shift);
            while self.short.get(i).is_some_and(|&x| x != NO_ID) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.short.get_mut(i) {
                *s = e.id;
                e.slot = i;
            }
        }
    }

    /// The slot of the long token `token` (its [`long_hash`] `hash`; spans of `held` are the
    /// tokens held), and whether it is held.
    #[inline(always)]
    fn find_long(&self, held: &[u8], hash: u64, token: &[u8]) -> (usize, bool) {
        let mask = self.long.len().wrapping_sub(1);
        let mut i = home(hash, self.long_shift);
        loop {
            let Some(e) = self
                .long
                .get(i)
                .and_then(|&id| self.entries.get(id as usize))
            else {
                return (i, false);
            };
            if e.id == hash && held.get(e.start..e.end) == Some(token) {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Add the token `text[start..end]` longer than 8 bytes (its [`long_hash`] `hash`) unless it
    /// is held. `text` must begin with the text of the tokens added before (it may have grown
    /// since).
    #[inline]
    pub fn insert_long(&mut self, text: &[u8], start: usize, end: usize, hash: u64) {
        if (self.long_count + 1) * 4 > self.long.len() {
            self.resize_long((self.long.len() * 2).max(64));
        }
        let Some(token) = text.get(start..end) else {
            return;
        };
        let (slot, found) = self.find_long(text, hash, token);
        if found {
            return;
        }
        let id = self.entries.len() as u32;
        if let Some(s) = self.long.get_mut(slot) {
            *s = id;
            self.long_count += 1;
            self.entries.push(Entry {
                id: hash,
                start,
                end,
                slot,
            });
        }
    }

    /// Rehash the long tokens into `size` slots (a power of two, more than they are).
    fn resize_long(&mut self, size: usize) {
        self.long_shift = 64 - size.trailing_zeros();
        self.long.clear();
        self.long.resize(size, EMPTY);
        let mask = size - 1;
        for (id, e) in self.entries.iter_mut().enumerate() {
            if e.is_short() {
                continue;
            }
            let mut i = home(e.id, self.long_shift);
            while self.long.get(i).is_some_and(|&s| s != EMPTY) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.long.get_mut(i) {
                *s = id as u32;
                e.slot = i;
            }
        }
    }

    /// Add the token `text[start..end]` unless it is held (see [`TokenSet::insert_long`]).
    #[inline]
    pub fn insert(&mut self, text: &[u8], start: usize, end: usize) {
        if end.saturating_sub(start) <= 8 {
            self.insert_short(short_id(text, start, end), start, end);
        } else if let Some(token) = text.get(start..end) {
            self.insert_long(text, start, end, long_hash(token));
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
                if e.is_short() {
                    self.find_short(e.id).1
                } else {
                    other_text
                        .get(e.start..e.end)
                        .is_some_and(|token| self.find_long(text, e.id, token).1)
                }
            })
            .count()
    }
}

/// The stopwords, a token set of their own, sparse.
#[derive(Default)]
pub struct StopWords {
    /// The distinct words, concatenated; the entries are spans of it.
    arena: Vec<u8>,
    set: TokenSet,
    /// One bit per byte length of the words (63: 63 and longer): most long tokens are told
    /// apart by their length alone.
    lengths: u64,
    /// A number no other table of this process has (0: the empty table's), by which a
    /// [`TokenSet`] knows the stopwords it holds ([`TokenSet::keep_stopwords`]).
    generation: u64,
}

#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

impl StopWords {
    pub fn new<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> StopWords {
        static GENERATION: AtomicU64 = AtomicU64::new(1);
        let mut s = StopWords {
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            ..StopWords::default()
        };
        for w in words {
            let start = s.arena.len();
            s.arena.extend_from_slice(w.as_ref().as_bytes());
            let end = s.arena.len();
            let before = s.set.len();
            s.set.insert(&s.arena, start, end);
            if s.set.len() == before {
                s.arena.truncate(start); // held already
            }
            s.lengths |= length_bit(end - start);
        }
        // Most tokens are looked up and not found: a sparse table ends most searches at the
        // first slot.
        let sparse = |n: usize| (16 * n).next_power_of_two().max(64);
        s.set.resize_short(sparse(s.set.short_count));
        s.set.resize_long(sparse(s.set.long_count));
        s
    }

    /// The distinct stopwords, in the order first given.
    pub fn tokens(&self) -> impl Iterator<Item = &str> + '_ {
        self.set.entries.iter().map(|e| {
            std::str::from_utf8(self.arena.get(e.start..e.end).unwrap_or(&[])).unwrap_or("")
        })
    }

    /// Whether the token of at most 8 bytes whose [`short_id`] is `id` is a stopword.
    #[inline(always)]
    pub fn contains_short(&self, id: u64) -> bool {
        self.set.contains_short(id)
    }

    /// Whether `token`, longer than 8 bytes (its [`long_hash`] `hash`), is a stopword.
    #[inline(always)]
    pub fn contains_long(&self, token: &[u8], hash: u64) -> bool {
        self.lengths & length_bit(token.len()) != 0
            && self.set.find_long(&self.arena, hash, token).1
    }

    /// Whether `token` is a stopword.
    pub fn contains(&self, token: &[u8]) -> bool {
        if token.len() <= 8 {
            self.contains_short(short_id(token, 0, token.len()))
        } else {
            self.contains_long(token, long_hash(token))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn masked_words_are_the_short_ids() {
        // A token of 0 to 8 bytes at every place of a text, read as the 8 bytes from its
        // start (the text's bytes after it, or zero padding) masked and tagged.
        let text = b"0123456789abcdef\xc3\xa9ghij\0\0xyz";
        let mut padded = text.to_vec();
        padded.extend_from_slice(&[0; 8]);
        for start in 0..text.len() {
            for end in start..=(start + 8).min(text.len()) {
                let len = end - start;
                let word = u64::from_le_bytes(*padded[start..].first_chunk::<8>().unwrap());
                let (mask, tag) = SHORT_ID_BITS[len];
                assert_eq!(
                    word & mask | tag,
                    short_id(text, start, end),
                    "{start} {end}"
                );
            }
        }
    }

    #[test]
    fn short_ids_tell_every_token_apart() {
        // Tokens of 0 to 8 bytes from an alphabet of NUL, ASCII and the bytes of multi-byte
        // characters (the top byte of an 8-byte token may be any of them): equal ids exactly
        // for equal tokens, none of them the empty slot.
        use std::collections::HashMap;
        let alphabet: Vec<u8> =
            [0u8, b'a', b'z', 0x7f, 0x80, 0xbf, 0xc3, 0xe4, 0xf0, 0xf4].to_vec();
        let mut seen: HashMap<u64, Vec<u8>> = HashMap::new();
        let mut seed = 5u64;
        for _ in 0..200_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 60) as usize % 9;
            let token: Vec<u8> = (0..len)
                .map(|k| alphabet[(seed >> (4 * k + 8)) as usize % alphabet.len()])
                .collect();
            // in place, after some text, and alone
            let mut text = b"0123456789".to_vec();
            text.extend_from_slice(&token);
            let id = short_id(&text, 10, text.len());
            assert_eq!(id, short_id(&token, 0, len));
            assert_ne!(id, NO_ID);
            if let Some(other) = seen.insert(id, token.clone()) {
                assert_eq!(other, token);
            }
        }
        assert_ne!(short_id(b"a", 0, 1), short_id(b"a\0", 0, 2));
        assert_ne!(short_id(b"", 0, 0), short_id(b"\0", 0, 1));
    }

    #[test]
    fn kept_stopwords_are_left_out_in_the_same_look_up() {
        // Texts of short words (some of them stopwords, some repeated) and long ones, added
        // with `insert` after `keep_stopwords`: the set holds the distinct words that are no
        // short stopwords (a long stopword is the caller's to leave out), through growth,
        // clears, and a change of stopwords; `count_shared` counts what a naive set does.
        use std::collections::HashSet;
        let first = StopWords::new(["the", "a", "of", "is", "eightchr", "a-long-stopword"]);
        let second = StopWords::new(["an", "the", "to"]);
        let vocabulary = [
            "the",
            "a",
            "of",
            "is",
            "an",
            "to",
            "eightchr",
            "eightchx",
            "x",
            "paris",
            "city",
            "of-the",
            "a-long-stopword",
            "nine-char",
            "é",
            "日本",
        ];
        let mut next = crate::testing::lcg(17);
        let mut set = TokenSet::default();
        let mut other = TokenSet::default();
        for round in 0..300 {
            let stop = if round % 7 < 4 { &first } else { &second };
            set.clear();
            set.keep_stopwords(stop);
            other.clear();
            other.keep_stopwords(stop);
            let mut text = Vec::new();
            let mut spans = Vec::new();
            // Up to 600 words: past the table's first size, with the stopwords in it.
            for k in 0..next() % 600 {
                let start = text.len();
                text.extend_from_slice(vocabulary[next() % vocabulary.len()].as_bytes());
                if next().is_multiple_of(4) {
                    text.extend_from_slice(format!("{k}").as_bytes());
                }
                spans.push((start, text.len()));
                text.push(b' ');
            }
            let is_stop = |w: &[u8]| w.len() <= 8 && stop.contains(w);
            let mut naive = HashSet::new();
            for &(a, b) in &spans {
                set.insert(&text, a, b);
                if !is_stop(&text[a..b]) {
                    naive.insert(text[a..b].to_vec());
                }
            }
            assert_eq!(set.len(), naive.len());
            let held: HashSet<Vec<u8>> = set
                .tokens(std::str::from_utf8(&text).unwrap())
                .map(|t| t.as_bytes().to_vec())
                .collect();
            assert_eq!(held, naive);
            let words = b"paris the eightchr eightchx x7 a-long-stopword nine-char";
            let mut distinct = HashSet::new();
            let mut start = 0;
            for end in (0..=words.len()).filter(|&i| i == words.len() || words[i] == b' ') {
                other.insert(words, start, end);
                if !is_stop(&words[start..end]) {
                    distinct.insert(words[start..end].to_vec());
                }
                start = end + 1;
            }
            let shared = distinct.iter().filter(|w| naive.contains(*w)).count();
            assert_eq!(other.len(), distinct.len());
            assert_eq!(set.count_shared(&text, &other, words), shared);
            assert_eq!(other.count_shared(words, &set, &text), shared);
        }
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
            for end in [start + 2, start + 4 + i % 5, text.len()] {
                set.insert(&text, start, end);
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
        let words = b"w1 zz w2-a-long-tail-2 w2-a-long-tail-1 w2-a-long-tail-1 w0-a";
        let spans = [
            (0, 2),
            (3, 5),
            (6, 22),
            (23, 39),
            (40, 56),
            (57, words.len()),
        ];
        for (s, e) in spans {
            other.insert(words, s, e);
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
            ("a\0", false),
            ("", true),
            ("é", true),
            ("a-much-longer-stopword", true),
            ("a-much-longer-stopwore", false),
            ("th", false),
        ] {
            assert_eq!(stop.contains(w.as_bytes()), yes, "{w}");
        }
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set.count_shared(&text, &other, words), 0);
        // After a clear the set is empty in both tables and fills again.
        for (s, e) in spans {
            set.insert(words, s, e);
        }
        assert_eq!(set.len(), distinct.len());
        assert_eq!(set.count_shared(words, &other, words), distinct.len());
    }
}
