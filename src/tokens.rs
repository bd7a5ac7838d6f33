//! Token machinery shared by the word-based scorers (response similarity, SQuAD F1).
//!
//! A row's references (a few short texts) are interned together into a [`Vocab`] (dense ids,
//! with counts); the response's tokens are then only looked up in it, since a token no reference
//! has can never match. On the ids: [`overlap`] is the multiset intersection size (`Counter`
//! `&`), and [`BitLcs`] the longest common subsequence by Hyyrö's bit-parallel algorithm.

use crate::ascii::load_short;

/// The id of a token the vocabulary does not hold.
pub const ABSENT: u32 = u32::MAX;

/// A fast, non-cryptographic hash of a token (FxHash-style over 8-byte words; the high bits
/// are the well-mixed ones).
#[inline]
pub fn token_hash(token: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let bytes = token.as_bytes();
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ load_short(rest)).wrapping_mul(K);
    }
    h
}

/// The ASCII lower case of the bytes of a little-endian word (every byte below 0x80): bit 5
/// set in the bytes from `A` to `Z`, found with two additions whose carries stay within each
/// byte.
#[inline(always)]
fn lower_ascii_word(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let from_a = x + ONES * (0x80 - u64::from(b'A'));
    let past_z = x + ONES * (0x80 - u64::from(b'Z') - 1);
    x | (((from_a ^ past_z) & (ONES * 0x80)) >> 2)
}

/// [`token_hash`] of the ASCII lower case of `word` (ASCII bytes), without writing it: each
/// loaded word is lower-cased with [`lower_ascii_word`].
#[inline]
pub fn lowered_word_hash(word: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = word.len() as u64;
    let mut chunks = word.chunks_exact(8);
    for chunk in &mut chunks {
        h = (h.rotate_left(5) ^ lower_ascii_word(load_short(chunk))).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ lower_ascii_word(load_short(rest))).wrapping_mul(K);
    }
    h
}

/// Whether `held` is the lower-case form of `word`, a run of ASCII `\w` bytes.
#[inline]
fn is_lowered_word(held: &[u8], word: &[u8]) -> bool {
    held.len() == word.len()
        && held
            .chunks(8)
            .zip(word.chunks(8))
            .all(|(h, w)| load_short(h) == lower_ascii_word(load_short(w)))
}

/// The lower-case form of `word` (a run of ASCII `\w` bytes, at most 8) as a little-endian
/// word: a key for small sets of short words.
#[inline]
pub fn lowered_short_word(word: &[u8]) -> u64 {
    lower_ascii_word(load_short(word))
}

/// Whether two tokens have the same bytes; short ones compared as words, without a call.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 8 {
        return load_short(a) == load_short(b);
    }
    a == b
}

/// The distinct tokens of one text, each with a dense id and its number of occurrences.
///
/// An open-addressing table over an arena of the token bytes: interning a token allocates
/// nothing once the buffers have grown to the largest row, and [`Vocab::clear`] costs the
/// number of distinct tokens, not the table's size (so one huge row does not slow the rows
/// after it).
#[derive(Default)]
pub struct Vocab {
    /// The distinct tokens, concatenated; `spans[id]` is where each lies.
    arena: String,
    spans: Vec<(usize, usize)>,
    hashes: Vec<u64>,
    counts: Vec<u32>,
    /// `slot_of[id]`: the slot holding `id`.
    slot_of: Vec<usize>,
    /// A power-of-two number of slots, each [`ABSENT`] or an id.
    slots: Vec<u32>,
    /// One bit per byte length of the tokens held ([`length_bit`]): most tokens the vocabulary
    /// does not hold are told apart by their length alone, before any hashing.
    lengths: u64,
    /// A 256-bit filter of the tokens held, keyed by [`edge_key`] (length and end bytes): a
    /// second look before any hashing, for ASCII words.
    edges: [u64; 4],
}

/// The [`Vocab::edges`] bit of a token of `len` bytes whose first and last bytes are `first`
/// and `last`.
#[inline(always)]
fn edge_key(len: usize, first: u8, last: u8) -> usize {
    (usize::from(first).wrapping_mul(37) ^ usize::from(last).wrapping_mul(11) ^ len) & 255
}

/// The bit of a token's byte length in [`Vocab`]'s length set (63 stands for 63 and longer).
#[inline]
fn length_bit(token: &str) -> u64 {
    1 << token.len().min(63)
}

impl Vocab {
    pub fn clear(&mut self) {
        for &slot in &self.slot_of {
            if let Some(s) = self.slots.get_mut(slot) {
                *s = ABSENT;
            }
        }
        self.arena.clear();
        self.spans.clear();
        self.hashes.clear();
        self.counts.clear();
        self.slot_of.clear();
        self.lengths = 0;
        self.edges = [0; 4];
    }

    /// The number of distinct tokens.
    #[inline]
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The token of `id`.
    #[inline]
    pub fn token(&self, id: u32) -> &str {
        self.spans
            .get(id as usize)
            .and_then(|&(s, e)| self.arena.get(s..e))
            .unwrap_or("")
    }

    /// The distinct tokens, in the order they were first interned.
    pub fn tokens(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(s, e)| self.arena.get(s..e).unwrap_or(""))
    }

    #[inline]
    fn home(&self, hash: u64) -> usize {
        // The table has at least 2 slots once anything is in it.
        let bits = self.slots.len().trailing_zeros();
        if bits == 0 {
            0
        } else {
            (hash >> (64 - bits)) as usize
        }
    }

    /// The slot of `token` (hash `hash`), or the empty slot where it would go.
    #[inline]
    fn find(&self, token: &str, hash: u64) -> (usize, u32) {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        loop {
            let id = self.slots.get(i).copied().unwrap_or(ABSENT);
            if id == ABSENT
                || (self.hashes.get(id as usize) == Some(&hash)
                    && same_bytes(self.token(id).as_bytes(), token.as_bytes()))
            {
                return (i, id);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        self.slots.clear();
        self.slots.resize(size, ABSENT);
        let mask = size - 1;
        for (id, &hash) in self.hashes.iter().enumerate() {
            let mut i = self.home(hash);
            while self.slots.get(i).is_some_and(|&s| s != ABSENT) {
                i = (i + 1) & mask;
            }
            if let (Some(s), Some(at)) = (self.slots.get_mut(i), self.slot_of.get_mut(id)) {
                *s = id as u32;
                *at = i;
            }
        }
    }

    /// Add one occurrence of `token`; returns its id.
    #[inline]
    pub fn intern(&mut self, token: &str) -> u32 {
        self.intern_hashed(token, token_hash(token))
    }

    /// [`Vocab::intern`] with the token's [`token_hash`] already computed.
    pub fn intern_hashed(&mut self, token: &str, hash: u64) -> u32 {
        if (self.counts.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (slot, id) = self.find(token, hash);
        if id != ABSENT {
            if let Some(c) = self.counts.get_mut(id as usize) {
                *c += 1;
            }
            return id;
        }
        let id = self.counts.len() as u32;
        let start = self.arena.len();
        self.arena.push_str(token);
        self.spans.push((start, self.arena.len()));
        self.hashes.push(hash);
        self.counts.push(1);
        self.lengths |= length_bit(token);
        let bytes = token.as_bytes();
        if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
            let key = edge_key(bytes.len(), first, last);
            if let Some(w) = self.edges.get_mut(key >> 6) {
                *w |= 1 << (key & 63);
            }
        }
        self.slot_of.push(slot);
        if let Some(s) = self.slots.get_mut(slot) {
            *s = id;
        }
        id
    }

    /// How many of `other`'s distinct tokens this vocabulary holds.
    pub fn count_shared(&self, other: &Vocab) -> usize {
        if self.is_empty() {
            return 0;
        }
        other
            .tokens()
            .zip(&other.hashes)
            .filter(|&(token, &hash)| self.get_hashed(token, hash) != ABSENT)
            .count()
    }

    /// The id of `token`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, token: &str) -> u32 {
        if self.lengths & length_bit(token) == 0 {
            return ABSENT;
        }
        self.find(token, token_hash(token)).1
    }

    /// The id of the lower-case form of `word`, a run of ASCII `\w` bytes (the vocabulary holds
    /// lower-cased words), or [`ABSENT`]; the word is neither copied nor hashed unless the
    /// vocabulary holds a word of its length.
    #[inline]
    pub fn get_lowered_word(&self, word: &[u8]) -> u32 {
        if !self.may_hold_lowered_word(word) {
            return ABSENT;
        }
        self.find_lowered_word(word)
    }

    /// Whether the vocabulary may hold the lower-case form of `word` (a run of ASCII `\w`
    /// bytes): a word of its length, and of its length and end bytes ([`Vocab::edges`]). Most
    /// words of a response are turned away here, with no hashing; [`Vocab::find_lowered_word`]
    /// settles the others.
    #[inline(always)]
    pub fn may_hold_lowered_word(&self, word: &[u8]) -> bool {
        if self.lengths & (1 << word.len().min(63)) == 0 {
            return false;
        }
        let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
            // The empty word: the filter of end bytes does not know it.
            return true;
        };
        let key = edge_key(
            word.len(),
            first.to_ascii_lowercase(),
            last.to_ascii_lowercase(),
        );
        self.edges
            .get(key >> 6)
            .is_some_and(|w| w & (1 << (key & 63)) != 0)
    }

    /// [`Vocab::get_lowered_word`] without its first filter (out of line: most words are
    /// turned away by [`Vocab::may_hold_lowered_word`]).
    #[inline(never)]
    pub fn find_lowered_word(&self, word: &[u8]) -> u32 {
        if word.is_empty() {
            return self.get("");
        }
        let hash = lowered_word_hash(word);
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        loop {
            let id = self.slots.get(i).copied().unwrap_or(ABSENT);
            if id == ABSENT
                || (self.hashes.get(id as usize) == Some(&hash)
                    && is_lowered_word(self.token_bytes(id), word))
            {
                return id;
            }
            i = (i + 1) & mask;
        }
    }

    /// The bytes of the token of `id`.
    #[inline(always)]
    fn token_bytes(&self, id: u32) -> &[u8] {
        self.spans
            .get(id as usize)
            .and_then(|&(s, e)| self.arena.as_bytes().get(s..e))
            .unwrap_or(&[])
    }

    /// [`Vocab::get`] with the token's [`token_hash`] already computed.
    #[inline]
    pub fn get_hashed(&self, token: &str, hash: u64) -> u32 {
        if self.lengths & length_bit(token) == 0 {
            return ABSENT;
        }
        self.find(token, hash).1
    }
}

/// The multiset intersection size of a text (`counts[id]`: how often it holds each word of a
/// [`Vocab`]) and another's words (`ids` in that vocabulary):
/// `sum((Counter(text) & Counter(other)).values())`. `used` is scratch.
pub fn overlap(counts: &[u32], used: &mut Vec<u32>, ids: &[u32]) -> usize {
    used.clear();
    used.resize(counts.len(), 0);
    let mut matched = 0;
    for &id in ids {
        if let (Some(used), Some(&count)) = (used.get_mut(id as usize), counts.get(id as usize)) {
            if *used < count {
                *used += 1;
                matched += 1;
            }
        }
    }
    matched
}

const SLOTS: usize = 128;
const EMPTY: u32 = u32::MAX;

/// The longest common subsequence of one token sequence (the pattern) with many others.
///
/// Hyyrö's bit-parallel LCS: the pattern's positions are bits of `ceil(m / 64)` words, and each
/// token of the other sequence updates them with one addition per word, so a pair costs
/// `O(n * m / 64)` word operations. Each 64-token block of the pattern keeps its token -> bit
/// mask map in a small open-addressing table (at most 64 keys in 128 slots), so memory stays
/// linear in the pattern, however many distinct tokens it has.
#[derive(Default)]
pub struct BitLcs {
    blocks: usize,
    keys: Vec<u32>,
    masks: Vec<u64>,
    state: Vec<u64>,
    /// The pattern itself, for Myers' algorithm.
    pattern: Vec<u32>,
    /// The other sequence without its [`ABSENT`] tokens.
    present: Vec<u32>,
    /// The blocked recurrence's carries between blocks, one bit per token.
    carries: Vec<u64>,
    diagonals: Vec<usize>,
}

/// Below this many units of work the recurrence runs at once.
const MYERS_FIRST: u64 = 1 << 22;
/// A recurrence step (one 64-token block, one token) costs this many units (it probes a hash
/// table).
const BLOCK_STEP: u64 = 4;
/// Over this many blocks, [`BitLcs::lcs`] runs a block at a time over the whole other sequence.
const BLOCKED_FROM: usize = 16;

#[inline]
fn slot_of(id: u32) -> usize {
    ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize
}

impl BitLcs {
    /// Set the pattern (token ids, none [`ABSENT`]).
    pub fn set_pattern(&mut self, pattern: &[u32]) {
        self.pattern.clear();
        self.pattern.extend_from_slice(pattern);
        self.blocks = pattern.len().div_ceil(64);
        self.keys.clear();
        self.keys.resize(self.blocks * SLOTS, EMPTY);
        self.masks.clear();
        self.masks.resize(self.blocks * SLOTS, 0);
        for (i, &id) in pattern.iter().enumerate() {
            let base = (i / 64) * SLOTS;
            let mut s = slot_of(id);
            loop {
                let k = &mut self.keys[base + s];
                if *k == EMPTY || *k == id {
                    *k = id;
                    self.masks[base + s] |= 1u64 << (i % 64);
                    break;
                }
                s = (s + 1) % SLOTS;
            }
        }
    }

    #[inline]
    fn mask(&self, block: usize, id: u32) -> u64 {
        let base = block * SLOTS;
        let mut s = slot_of(id);
        loop {
            let k = self.keys[base + s];
            if k == id {
                return self.masks[base + s];
            }
            if k == EMPTY {
                return 0;
            }
            s = (s + 1) % SLOTS;
        }
    }

    /// The LCS length of the pattern and `other` (ids from the same vocabulary; [`ABSENT`]
    /// tokens never match and are skipped).
    pub fn lcs(&mut self, other: &[u32]) -> usize {
        let mut unbounded = u64::MAX;
        self.lcs_within(other, &mut unbounded).unwrap_or(0)
    }

    /// [`BitLcs::lcs`], or `None` when it would take more than the `budget` units of work
    /// left, which it spends.
    ///
    /// The recurrence costs [`BLOCK_STEP`] units per block of the pattern and token of
    /// `other`; two long sequences that differ little take Myers' algorithm instead, whose
    /// cost follows their difference (it is tried first for at most an eighth of the
    /// recurrence's cost, and over budget for at most a sixteenth of the budget).
    pub fn lcs_within(&mut self, other: &[u32], budget: &mut u64) -> Option<usize> {
        if self.blocks == 0 {
            return Some(0);
        }
        self.present.clear();
        self.present
            .extend(other.iter().copied().filter(|&id| id != ABSENT));
        let cost = BLOCK_STEP * (self.blocks * self.present.len()) as u64;
        if cost > MYERS_FIRST {
            let cap = if cost <= *budget {
                cost / 8
            } else {
                *budget / 16
            };
            let found = crate::lcs::myers(&self.pattern, &self.present, cap, &mut self.diagonals);
            *budget -= cap;
            if found.is_some() {
                return found;
            }
        }
        *budget = budget.checked_sub(cost)?;
        Some(if self.blocks > BLOCKED_FROM {
            self.recurrence_blocked()
        } else {
            self.recurrence()
        })
    }

    /// Hyyrö's recurrence over `present`, token by token.
    fn recurrence(&mut self) -> usize {
        let mut state = std::mem::take(&mut self.state);
        state.clear();
        state.resize(self.blocks, !0);
        for &id in &self.present {
            let mut carry = false;
            for (block, s) in state.iter_mut().enumerate() {
                let u = *s & self.mask(block, id);
                let (sum, c1) = s.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(carry as u64);
                carry = c1 || c2;
                *s = sum | (*s - u);
            }
        }
        let n = state.iter().map(|s| (!s).count_ones() as usize).sum();
        self.state = state;
        n
    }

    /// The same recurrence a block at a time: each block runs over every token with its small
    /// table in the cache, keeping its carry out at each token (one bit) for the next block.
    fn recurrence_blocked(&mut self) -> usize {
        let mut carries = std::mem::take(&mut self.carries);
        carries.clear();
        carries.resize(self.present.len().div_ceil(64), 0);
        let mut total = 0;
        for block in 0..self.blocks {
            let mut s = !0u64;
            for (t, &id) in self.present.iter().enumerate() {
                let (bits, bit) = (&mut carries[t / 64], t % 64);
                let carry = (*bits >> bit) & 1;
                let u = s & self.mask(block, id);
                let (sum, c1) = s.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(carry);
                s = sum | (s - u);
                *bits = (*bits & !(1 << bit)) | (u64::from(c1 || c2) << bit);
            }
            total += (!s).count_ones() as usize;
        }
        self.carries = carries;
        total
    }
}

/// [`BitLcs`] for a pattern of dense ids (all below a known `alphabet`, as a [`Vocab`]'s are):
/// each id's bit masks sit at `id * blocks`, so setting the pattern costs its length and
/// `alphabet * blocks` words to clear, and a token of the other sequence one load per block,
/// with no table to build or probe. [`DenseLcs::lcs_within`] spends the budget as
/// [`BitLcs::lcs_within`] does, and takes [`BitLcs`] itself for a pair that Myers' algorithm
/// is tried on first (over [`MYERS_FIRST`]), so the two give the same answers, `None`
/// included.
#[derive(Default)]
pub struct DenseLcs {
    blocks: usize,
    masks: Vec<u64>,
    state: Vec<u64>,
    /// The pattern, and [`BitLcs`] for the long pairs (its pattern set only when needed).
    pattern: Vec<u32>,
    bits: BitLcs,
    bits_set: bool,
    /// Whether the masks are set (else [`BitLcs`] serves every pair).
    dense: bool,
}

/// Over this many mask words (`alphabet * blocks`), [`DenseLcs`] takes [`BitLcs`] instead.
const DENSE_MAX: usize = 1 << 14;

impl DenseLcs {
    /// Set the pattern: token ids, all below `alphabet`.
    pub fn set_pattern(&mut self, pattern: &[u32], alphabet: usize) {
        self.pattern.clear();
        self.pattern.extend_from_slice(pattern);
        self.bits_set = false;
        let blocks = pattern.len().div_ceil(64);
        self.blocks = blocks;
        self.masks.clear();
        if alphabet.saturating_mul(blocks) > DENSE_MAX {
            // A large alphabet and a long pattern: BitLcs's tables cost the pattern only.
            self.bits.set_pattern(pattern);
            self.bits_set = true;
            self.dense = false;
            return;
        }
        self.dense = true;
        self.masks.resize(alphabet.saturating_mul(blocks), 0);
        for (i, &id) in pattern.iter().enumerate() {
            if (id as usize) < alphabet {
                if let Some(m) = self.masks.get_mut(id as usize * blocks + i / 64) {
                    *m |= 1u64 << (i % 64);
                }
            }
        }
    }

    /// The LCS length of the pattern and `other` (ids of the same alphabet; others, such as
    /// [`ABSENT`], never match): as [`BitLcs::lcs_within`], the same work spent from `budget`.
    pub fn lcs_within(&mut self, other: &[u32], budget: &mut u64) -> Option<usize> {
        if self.blocks == 0 {
            return Some(0);
        }
        let present = other.iter().filter(|&&id| id != ABSENT).count();
        let cost = BLOCK_STEP * (self.blocks * present) as u64;
        if cost > MYERS_FIRST || !self.dense {
            if !self.bits_set {
                self.bits.set_pattern(&self.pattern);
                self.bits_set = true;
            }
            return self.bits.lcs_within(other, budget);
        }
        *budget = budget.checked_sub(cost)?;
        Some(if self.blocks == 1 {
            self.one_block(other)
        } else {
            self.recurrence(other)
        })
    }

    /// The recurrence of a pattern of at most 64 tokens: one word of state.
    #[inline]
    fn one_block(&self, other: &[u32]) -> usize {
        let mut s = !0u64;
        for &id in other {
            let u = s & self.masks.get(id as usize).copied().unwrap_or(0);
            s = s.wrapping_add(u) | (s - u);
        }
        (!s).count_ones() as usize
    }

    /// Hyyrö's recurrence over `other`, token by token, each block's carry into the next.
    fn recurrence(&mut self, other: &[u32]) -> usize {
        let blocks = self.blocks;
        let mut state = std::mem::take(&mut self.state);
        state.clear();
        state.resize(blocks, !0);
        for &id in other {
            let at = (id as usize).saturating_mul(blocks);
            let Some(masks) = self.masks.get(at..at.saturating_add(blocks)) else {
                continue;
            };
            let mut carry = false;
            for (s, &mask) in state.iter_mut().zip(masks) {
                let u = *s & mask;
                let (sum, c1) = s.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(carry as u64);
                carry = c1 || c2;
                *s = sum | (*s - u);
            }
        }
        let n = state.iter().map(|s| (!s).count_ones() as usize).sum();
        self.state = state;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcs_dp;

    #[test]
    fn vocab_interns_counts_and_clears() {
        let mut v = Vocab::default();
        assert_eq!(v.get("x"), ABSENT);
        // A big row first, then small rows reuse the table.
        let big: Vec<String> = (0..5000).map(|i| format!("t{}", i % 3000)).collect();
        for w in &big {
            v.intern(w);
        }
        assert_eq!(v.len(), 3000);
        assert_eq!(v.counts.get(v.get("t7") as usize), Some(&2));
        assert_eq!(v.counts.get(v.get("t2999") as usize), Some(&1));
        assert_eq!(v.get("t3000"), ABSENT);
        v.clear();
        assert!(v.is_empty());
        assert_eq!(v.get("t7"), ABSENT);
        for w in ["a", "b", "a", "", "é", "a"] {
            v.intern(w);
        }
        let toks: Vec<&str> = v.tokens().collect();
        assert_eq!(toks, ["a", "b", "", "é"]);
        assert_eq!(v.counts, [3, 1, 1, 1]);
        assert_eq!(v.token(v.get("é")), "é");
        assert_eq!(
            overlap(
                &v.counts,
                &mut Vec::new(),
                &[v.get("a"), v.get("a"), v.get("zz"), v.get("a"), v.get("a")]
            ),
            3
        );
    }

    /// A small deterministic generator (no dependency).
    fn seq(seed: &mut u64, len: usize, alphabet: u32) -> Vec<u32> {
        (0..len)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((*seed >> 33) % alphabet as u64) as u32
            })
            .collect()
    }

    #[test]
    fn lcs_matches_the_dynamic_programme() {
        let mut seed = 7;
        let mut lcs = BitLcs::default();
        for (m, n, alphabet) in [
            (0, 5, 3),
            (5, 0, 3),
            (1, 1, 1),
            (10, 12, 3),
            (63, 70, 5),
            (64, 64, 2),
            (65, 200, 4),
            (300, 257, 50),
            (700, 300, 3000),
            (150, 150, 1),
        ] {
            let a = seq(&mut seed, m, alphabet);
            let b = seq(&mut seed, n, alphabet);
            lcs.set_pattern(&a);
            assert_eq!(lcs.lcs(&b), lcs_dp(&a, &b), "{m} {n} {alphabet}");
        }
    }

    #[test]
    fn ascii_words_are_looked_up_lowered() {
        let mut v = Vocab::default();
        for w in [
            "paris",
            "x_1",
            "a",
            "abcdefgh",
            "abcdefghi",
            "0123456789abcdefxyz",
        ] {
            v.intern(w);
        }
        for (word, lowered) in [
            ("PARIS", "paris"),
            ("Paris", "paris"),
            ("X_1", "x_1"),
            ("A", "a"),
            ("ABCDEFGH", "abcdefgh"),
            ("abcdefgHI", "abcdefghi"),
            ("0123456789ABCDEFXYZ", "0123456789abcdefxyz"),
            ("Pari", "pari"),
            ("PARISS", "pariss"),
            ("_", "_"),
        ] {
            assert_eq!(lowered_word_hash(word.as_bytes()), token_hash(lowered));
            assert_eq!(
                v.get_lowered_word(word.as_bytes()),
                v.get(lowered),
                "{word}"
            );
        }
        assert_eq!(lowered_short_word(b"THE"), load_short(b"the"));
        // Every ASCII byte at every position of a word, beside every other.
        for b in 0..128u8 {
            for other in 0..128u8 {
                for pos in 0..8 {
                    let mut bytes = [other; 8];
                    bytes[pos] = b;
                    let lowered = bytes.map(|x| x.to_ascii_lowercase());
                    assert_eq!(
                        lower_ascii_word(u64::from_le_bytes(bytes)),
                        u64::from_le_bytes(lowered)
                    );
                }
            }
        }
    }

    #[test]
    fn long_sequences_block_by_block_or_by_their_difference() {
        let mut seed = 11;
        let mut lcs = BitLcs::default();
        // 40 blocks: the blocked recurrence, against the plain one
        let a = seq(&mut seed, 2_560, 30);
        let b = seq(&mut seed, 3_000, 30);
        lcs.set_pattern(&a);
        let blocked = lcs.lcs(&b);
        lcs.present = b.clone();
        assert_eq!(lcs.recurrence(), blocked);
        assert_eq!(blocked, lcs_dp(&a, &b));
        // long and nearly equal: Myers' algorithm, within a small budget
        let long = seq(&mut seed, 200_000, 5_000);
        let mut edited = long.clone();
        edited[50_000] = 7;
        edited.remove(120_000);
        lcs.set_pattern(&long);
        let mut budget = 20_000_000;
        assert_eq!(lcs.lcs_within(&edited, &mut budget), Some(199_998));
        // long and unlike, over budget: none, and the budget is spent
        let other = seq(&mut seed, 200_000, 5_000);
        let mut budget = 1_000_000;
        assert_eq!(lcs.lcs_within(&other, &mut budget), None);
        // ABSENT tokens never match
        lcs.set_pattern(&[1, 2, 3]);
        assert_eq!(lcs.lcs(&[ABSENT, 1, ABSENT, 3]), 2);
    }

    #[test]
    fn dense_lcs_equals_bit_lcs_and_spends_the_same() {
        // Against the dynamic programme and BitLcs (answer and budget left), at block edges,
        // with ids outside the alphabet and ABSENT in the other sequence, and over budgets.
        let mut seed = 13;
        let (mut dense, mut bits) = (DenseLcs::default(), BitLcs::default());
        let mut lengths = vec![
            0, 1, 2, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
        ];
        lengths.extend([200, 300]);
        for &m in &lengths {
            for &n in &lengths {
                for alphabet in [1u32, 3, 20] {
                    let a = seq(&mut seed, m, alphabet);
                    let mut b = seq(&mut seed, n, alphabet + 2);
                    for x in b.iter_mut().step_by(7) {
                        *x = ABSENT;
                    }
                    dense.set_pattern(&a, alphabet as usize);
                    bits.set_pattern(&a);
                    let expected = lcs_dp(&a, &b);
                    for budget in [u64::MAX, 0, 3, 4 * (n as u64), 4 * (n as u64) * 3] {
                        let (mut left_d, mut left_b) = (budget, budget);
                        let d = dense.lcs_within(&b, &mut left_d);
                        assert_eq!(d, bits.lcs_within(&b, &mut left_b), "{m} {n} {budget}");
                        assert_eq!(left_d, left_b);
                        if let Some(d) = d {
                            assert_eq!(d, expected);
                        }
                    }
                }
            }
        }
        // A large alphabet and a long pattern: BitLcs itself.
        let a = seq(&mut seed, 300, 100_000);
        let b = seq(&mut seed, 300, 100_000);
        dense.set_pattern(&a, 100_000);
        assert!(!dense.dense);
        let mut left = u64::MAX;
        assert_eq!(dense.lcs_within(&b, &mut left), Some(lcs_dp(&a, &b)));
        // Long pairs go through Myers' algorithm, as BitLcs does.
        let long = seq(&mut seed, 200_000, 5_000);
        let mut edited = long.clone();
        edited[50_000] = 7;
        edited.remove(120_000);
        dense.set_pattern(&long, 5_000);
        bits.set_pattern(&long);
        for budget in [20_000_000, 1_000_000, u64::MAX] {
            let (mut left_d, mut left_b) = (budget, budget);
            assert_eq!(
                dense.lcs_within(&edited, &mut left_d),
                bits.lcs_within(&edited, &mut left_b)
            );
            assert_eq!(left_d, left_b);
        }
    }

    #[test]
    fn vocab_interns_and_overlaps() {
        let mut v = Vocab::default();
        let ids: Vec<u32> = ["yes", "no", "yes", "a-long-token-of-many-bytes"]
            .iter()
            .map(|t| v.intern(t))
            .collect();
        assert_eq!(ids, [0, 1, 0, 2]);
        assert_eq!(v.get("maybe"), ABSENT);
        let other: Vec<u32> = ["yes", "yes", "yes", "maybe", "no"]
            .iter()
            .map(|t| v.get(t))
            .collect();
        assert_eq!(overlap(&v.counts, &mut Vec::new(), &other), 3);
        v.clear();
        assert_eq!(v.get("yes"), ABSENT);
    }
}
