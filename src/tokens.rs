//! Token machinery shared by the word-based scorers (response similarity, SQuAD F1).
//!
//! A row's response is interned into a [`Vocab`] (dense ids, with counts); every reference's
//! tokens are then looked up in it, since a token the response does not have can never match.
//! On the ids: [`Vocab::overlap`] is the multiset intersection size (`Counter` `&`), and
//! [`BitLcs`] the longest common subsequence by Hyyrö's bit-parallel algorithm.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The id of a reference token that the response does not have.
pub const ABSENT: u32 = u32::MAX;

/// A fast, non-cryptographic hasher for tokens (FxHash-style over 8-byte words).
#[derive(Default)]
pub struct TokenHasher(u64);

impl Hasher for TokenHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        self.0 = h;
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The distinct tokens of one text, each with a dense id and its number of occurrences.
///
/// Reused from row to row: [`Vocab::clear`] keeps the allocations.
#[derive(Default)]
pub struct Vocab {
    ids: HashMap<String, u32, BuildHasherDefault<TokenHasher>>,
    counts: Vec<u32>,
    used: Vec<u32>,
}

impl Vocab {
    pub fn clear(&mut self) {
        self.ids.clear();
        self.counts.clear();
    }

    /// Add one occurrence of `token`; returns its id.
    pub fn intern(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.ids.get(token) {
            if let Some(c) = self.counts.get_mut(id as usize) {
                *c += 1;
            }
            return id;
        }
        let id = self.counts.len() as u32;
        self.ids.insert(token.to_owned(), id);
        self.counts.push(1);
        id
    }

    /// The id of `token`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, token: &str) -> u32 {
        self.ids.get(token).copied().unwrap_or(ABSENT)
    }

    /// The multiset intersection size of the interned text and `ids` (looked up with
    /// [`Vocab::get`]): `sum((Counter(text) & Counter(other)).values())`.
    pub fn overlap(&mut self, ids: &[u32]) -> usize {
        self.used.clear();
        self.used.resize(self.counts.len(), 0);
        let mut matched = 0;
        for &id in ids {
            if let (Some(used), Some(&count)) =
                (self.used.get_mut(id as usize), self.counts.get(id as usize))
            {
                if *used < count {
                    *used += 1;
                    matched += 1;
                }
            }
        }
        matched
    }
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
}

#[inline]
fn slot_of(id: u32) -> usize {
    ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize
}

impl BitLcs {
    /// Set the pattern (token ids, none [`ABSENT`]).
    pub fn set_pattern(&mut self, pattern: &[u32]) {
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
        if self.blocks == 0 {
            return 0;
        }
        let mut state = std::mem::take(&mut self.state);
        state.clear();
        state.resize(self.blocks, !0);
        for &id in other {
            if id == ABSENT {
                // No bit matches: the update leaves every word as it is.
                continue;
            }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcs_dp(a: &[u32], b: &[u32]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        for &x in a {
            let mut cur = vec![0usize];
            for (j, &y) in b.iter().enumerate() {
                let v = if x == y {
                    prev[j] + 1
                } else {
                    prev[j + 1].max(cur[j])
                };
                cur.push(v);
            }
            prev = cur;
        }
        prev[b.len()]
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
        assert_eq!(v.overlap(&other), 3);
        v.clear();
        assert_eq!(v.get("yes"), ABSENT);
    }
}
