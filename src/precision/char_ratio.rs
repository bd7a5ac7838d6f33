//! Character similarity of two normalised strings, over code points.
//!
//! * [`indel`]: RapidFuzz's normalized Indel similarity, `1 - (|a| + |b| - 2 LCS) / (|a| + |b|)`,
//!   with a bit-parallel LCS (Hyyrö's formulation of Allison-Dix): one 64-bit word per 64
//!   characters of the shorter string, so short strings take one word and no allocation beyond
//!   the reused buffers (with AVX2, a short text against a long one may take the long one as
//!   the pattern instead, whose many words a step run at the processor's throughput: see
//!   `avx2_roles`). Long texts that differ little take Myers' `O((n + m) D)` difference
//!   algorithm instead (`D` the Indel distance), which gives the same LCS.
//! * [`sequence_matcher`]: CPython 3.11's `difflib.SequenceMatcher(None, a, b).ratio()`, with
//!   autojunk on `b` and `find_longest_match`'s tie-breaking. Each longest-match search takes
//!   difflib's own dynamic programme when its matching pairs are few, else a suffix automaton of
//!   `b`'s range, which finds the same block in time linear in the two ranges.
//!
//! Both take a work budget: an LCS is quadratic at worst, and a row whose exact answer would
//! cost more ends `None` instead of stalling the batch. The work is counted as it is done, in
//! units of about a nanosecond or less whatever the texts: a word step of the recurrence, a step
//! of Myers' algorithm, and for difflib each step of a binary search, each pair of its
//! programme and each character of an automaton, priced by the size of the tables they reach
//! at random (a miss of the processor's caches costs many times a hit). Two empty strings have
//! similarity 1.0 under both.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hash for `char` keys: the maps here are per-row scratch over a few code
/// points, where the default SipHash's DoS resistance buys nothing and costs most of a lookup.
#[derive(Default)]
struct CharHasher(u64);

impl Hasher for CharHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        // Fibonacci hashing: the high bits, which hashbrown reads, mix every input bit.
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type CharMap<V> = HashMap<char, V, BuildHasherDefault<CharHasher>>;

/// Empty `map` at a cost bounded by `len`, the size of the input about to fill it.
///
/// `HashMap::clear` costs the table's capacity, not its length, and a table keeps the capacity
/// its longest input gave it: cleared for each short input after a long one, it would charge the
/// long one's size every time (quadratic over difflib's recursion, whose automaton of the whole
/// text is followed by ever smaller ones; and across rows, each short row paying for the longest
/// row before it). A table far larger than `len` needs is dropped for a new one instead.
fn clear_for<K, V, S: Default>(map: &mut HashMap<K, V, S>, len: usize) {
    if map.capacity() > 4 * len.max(16) {
        *map = HashMap::with_hasher(S::default());
    } else {
        map.clear();
    }
}

/// Reusable buffers of both similarities.
#[derive(Default)]
pub struct RatioScratch {
    a: Vec<char>,
    b: Vec<char>,
    // Indel: pattern bit masks, ASCII by table, the rest by map.
    ascii: Vec<u64>,
    other: CharMap<usize>,
    other_masks: Vec<u64>,
    state: Vec<u64>,
    // SequenceMatcher: character ids (ASCII by table, the rest by map).
    ascii_ids: Vec<u32>,
    ids: CharMap<u32>,
    b_ids: Vec<u32>,
    starts: Vec<usize>,
    positions: Vec<usize>,
    fill: Vec<usize>,
    a_ids: Vec<u32>,
    len_prev: Vec<(u64, u32)>,
    len_cur: Vec<(u64, u32)>,
    stamp: u64,
    queue: Vec<(usize, usize, usize, usize)>,
    automaton: Automaton,
    /// Tests: take the automaton for every longest-match search.
    #[cfg(test)]
    always_automaton: bool,
    // Myers' furthest reaching points.
    diagonals: Vec<usize>,
    // The blocked recurrence: the pattern's and the text's characters as dense ids, each id's
    // row in the block's masks, the masks, and the carries between blocks.
    pattern_ids: Vec<u32>,
    rows: Vec<u32>,
    block_row: Vec<u32>,
    block_masks: Vec<u64>,
    carries: Vec<u64>,
    // [`indel_counts`]: the masks of the pattern's ASCII characters by byte (one word, or a row
    // of up to four), and of the others by their slot in `wide_keys` (the slots taken in
    // `wide_used`).
    byte_masks: Vec<u64>,
    byte_rows: Vec<[u64; 4]>,
    wide_keys: Vec<u32>,
    wide_masks: Vec<[u64; 4]>,
    wide_used: Vec<usize>,
    /// [`wide::lcs_any`]'s state, this step's and the next, four words a vector.
    #[cfg(target_arch = "x86_64")]
    lanes: Vec<[u64; 4]>,
}

/// A unit of the texts the LCS reads: a byte (of ASCII text) or a character.
pub trait Unit: Copy + Eq + Into<char> {
    /// The units as bytes, when they are bytes.
    fn bytes(units: &[Self]) -> Option<&[u8]>;
}

impl Unit for u8 {
    fn bytes(units: &[u8]) -> Option<&[u8]> {
        Some(units)
    }
}

impl Unit for char {
    fn bytes(_: &[char]) -> Option<&[u8]> {
        None
    }
}

/// The length of the longest common subsequence of `a` and `b` (characters, or the bytes of
/// ASCII texts, which are the same thing there), or `None` when it would cost more than
/// `budget` units of work.
///
/// A common prefix and suffix belong to every longest common subsequence, so they are counted
/// and cut off first (long, nearly equal texts then cost next to nothing). The rest takes the
/// bit-parallel recurrence (`ceil(n / 64) m` word steps) when the budget allows it, else Myers'
/// algorithm (within a sixteenth of the budget), whose cost grows with the difference rather than
/// the lengths.
#[cfg(test)]
fn lcs<T: Unit>(a: &[T], b: &[T], s: &mut RatioScratch, budget: Option<u64>) -> Option<usize> {
    lcs_counted(a, b, s, budget).0
}

/// [`lcs`], and the units of work it spent: a word step of the recurrence, a step of Myers'
/// algorithm (each about a nanosecond, or less; the linear passes over the texts are not
/// counted).
fn lcs_counted<T: Unit>(
    a: &[T],
    b: &[T],
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> (Option<usize>, u64) {
    let budget = budget.unwrap_or(u64::MAX);
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (
        a.get(prefix..).unwrap_or(&[]),
        b.get(prefix..).unwrap_or(&[]),
    );
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let a = a.get(..a.len() - suffix).unwrap_or(&[]);
    let b = b.get(..b.len() - suffix).unwrap_or(&[]);
    let shorter = a.len().min(b.len()) as u64;
    let bit_parallel = shorter.div_ceil(64) * (a.len().max(b.len()) as u64);
    let (middle, spent) = if bit_parallel <= MYERS_FIRST {
        (Some(lcs_bit_parallel(a, b, s)), bit_parallel)
    } else if bit_parallel <= budget {
        // Within budget. Long texts that differ little cost Myers' algorithm far less: try it,
        // for at most an eighth of the recurrence's cost (and what the budget leaves).
        let cap = (bit_parallel / 8).min(budget - bit_parallel);
        match crate::lcs::myers_counted(a, b, cap, &mut s.diagonals) {
            (Some(common), spent) => (Some(common), spent),
            (None, spent) => (Some(lcs_bit_parallel(a, b, s)), spent + bit_parallel),
        }
    } else {
        // Over budget for the recurrence: only texts that differ little can still be scored.
        crate::lcs::myers_counted(a, b, budget / 16, &mut s.diagonals)
    };
    (middle.map(|m| prefix + suffix + m), spent)
}

/// Below this many word steps the bit-parallel recurrence runs at once.
const MYERS_FIRST: u64 = 1 << 22;

/// The LCS length by Hyyrö's bit-parallel recurrence, the shorter string as the pattern (or,
/// with AVX2, the longer one when that costs less: [`avx2_roles`]).
fn lcs_bit_parallel<T: Unit>(a: &[T], b: &[T], s: &mut RatioScratch) -> usize {
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = pattern.len();
    if m == 0 {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_avx2() {
        match avx2_roles(m, text.len()) {
            Roles::Short => return lcs_avx2(pattern, text, s, false),
            Roles::Long => return lcs_avx2(text, pattern, s, true),
            Roles::Scalar => {}
        }
    }
    if m.div_ceil(64) > BLOCK_WORDS {
        return lcs_blocked(pattern, text, s);
    }
    lcs_scalar(pattern, text, s)
}

/// The cost of a step of [`wide::lcs`] at least, waiting on the chain of one step's carries
/// into the next, whatever the state's size (tenths of a nanosecond on one thread of an AMD
/// EPYC, as the constants below: 5,000 steps of a 550-character pattern take 29 us).
#[cfg(target_arch = "x86_64")]
const AVX2_STEP_LATENCY: u64 = 57;
/// The cost of a vector of the state a step once the steps are bound by throughput ([`wide::lcs_any`]
/// with 20 vectors: 550 steps in 11 us).
#[cfg(target_arch = "x86_64")]
const AVX2_VECTOR_COST: u64 = 10;
/// The cost of a word of the scalar recurrence a step (2 to 5 words: the state in registers).
#[cfg(target_arch = "x86_64")]
const SCALAR_WORD_COST: u64 = 6;
/// The cost of a character of the pattern, to set and clear its masks.
#[cfg(target_arch = "x86_64")]
const MASK_COST: u64 = 18;

/// The estimated cost of the AVX2 recurrence with a pattern of `m` characters over a text of
/// `n`: a step costs the larger of [`AVX2_STEP_LATENCY`] and its vectors' throughput.
#[cfg(target_arch = "x86_64")]
fn avx2_cost(m: usize, n: usize) -> u64 {
    let vectors = m.div_ceil(256) as u64;
    n as u64 * AVX2_STEP_LATENCY.max(AVX2_VECTOR_COST * vectors) + MASK_COST * m as u64
}

/// How [`lcs_bit_parallel`] runs on a processor with AVX2, for `short` no longer than `long`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Roles {
    /// The scalar code (or [`lcs_blocked`]), the shorter text the pattern.
    Scalar,
    /// The AVX2 recurrence, the shorter text the pattern.
    Short,
    /// The AVX2 recurrence with exact carries ([`wide::lcs_any`]), the longer text the pattern.
    Long,
}

/// Which text is the pattern of the recurrence, and which code runs it, for texts of `m <= n`
/// characters.
///
/// The LCS is the same whichever is the pattern, and the word steps about the same
/// (`ceil(m / 64) n`); what differs is how they run. A short pattern of a few vectors waits on
/// each step's carries ([`AVX2_STEP_LATENCY`] a character of the long text), where the long
/// text as the pattern has many vectors a step, independent but for their carries, and runs at
/// the processor's throughput: a 550-character reference against a 5,000-character response
/// costs about two thirds as much that way. A pattern takes the AVX2 code from
/// [`AVX2_WORDS`]`.0` words to `.1`.
#[cfg(target_arch = "x86_64")]
fn avx2_roles(m: usize, n: usize) -> Roles {
    let (short_words, long_words) = (m.div_ceil(64), n.div_ceil(64));
    let fits = |words: usize| (AVX2_WORDS.0..=AVX2_WORDS.1).contains(&words);
    if short_words > AVX2_WORDS.1 {
        return Roles::Scalar; // blocked: the longer text cannot be the pattern either
    }
    let (short, roles) = if fits(short_words) {
        (avx2_cost(m, n), Roles::Short)
    } else {
        let scalar = n as u64 * short_words as u64 * SCALAR_WORD_COST + MASK_COST * m as u64;
        (scalar, Roles::Scalar)
    };
    // The longer text as the pattern takes `lcs_any` (its many vectors at the throughput's
    // cost), from 2 vectors.
    if long_words > 4 && fits(long_words) {
        let vectors = long_words.div_ceil(4) as u64;
        let long =
            m as u64 * AVX2_STEP_LATENCY.max(AVX2_VECTOR_COST * vectors) + MASK_COST * n as u64;
        if long < short {
            return Roles::Long;
        }
    }
    roles
}

/// [`lcs_bit_parallel`] of a `pattern` of 1 to [`BLOCK_WORDS`] words, without SIMD.
fn lcs_scalar<T: Copy + Into<char>>(pattern: &[T], text: &[T], s: &mut RatioScratch) -> usize {
    let m = pattern.len();
    let words = m.div_ceil(64);
    // Up to 16 words, the state is a fixed array the compiler keeps unrolled.
    set_masks(pattern, words, s);
    let total = match words {
        1 => lcs_one_word(text, m, s),
        2 => lcs_few_words::<T, 2>(text, m, s),
        3 => lcs_few_words::<T, 3>(text, m, s),
        4 => lcs_few_words::<T, 4>(text, m, s),
        5 => lcs_few_words::<T, 5>(text, m, s),
        6 => lcs_few_words::<T, 6>(text, m, s),
        7 => lcs_few_words::<T, 7>(text, m, s),
        8 => lcs_few_words::<T, 8>(text, m, s),
        9 => lcs_few_words::<T, 9>(text, m, s),
        10 => lcs_few_words::<T, 10>(text, m, s),
        11 => lcs_few_words::<T, 11>(text, m, s),
        12 => lcs_few_words::<T, 12>(text, m, s),
        13 => lcs_few_words::<T, 13>(text, m, s),
        14 => lcs_few_words::<T, 14>(text, m, s),
        15 => lcs_few_words::<T, 15>(text, m, s),
        16 => lcs_few_words::<T, 16>(text, m, s),
        _ => lcs_many_words(text, m, words, s),
    };
    clear_masks(pattern, words, s);
    total
}

/// The pattern's bit masks: ASCII characters in `s.ascii` (row `c`, `words` words a row), the
/// others in `s.other_masks` (their rows in `s.other`).
fn set_masks<T: Copy + Into<char>>(pattern: &[T], words: usize, s: &mut RatioScratch) {
    set_masks_at(pattern, words, |w| w, s);
}

/// [`set_masks`] with rows of `stride` words, the mask of word `w` of the pattern (its characters
/// `64 w` to `64 w + 63`) at `slot(w)` of each row (below `stride`; the other slots zero).
#[inline(always)]
fn set_masks_at<T: Copy + Into<char>>(
    pattern: &[T],
    stride: usize,
    slot: impl Fn(usize) -> usize,
    s: &mut RatioScratch,
) {
    // `s.ascii` is all zeros between calls: only the entries the pattern sets are cleared
    // afterwards, so a short pattern costs its own length, not a 128-row table.
    if s.ascii.len() < 128 * stride {
        s.ascii.resize(128 * stride, 0);
    }
    clear_for(&mut s.other, pattern.len());
    s.other_masks.clear();
    // A word's slot once for its 64 characters (`slot` may divide).
    for (w, chars) in pattern.chunks(64).enumerate() {
        let w = slot(w);
        for (i, &c) in chars.iter().enumerate() {
            let c: char = c.into();
            let bit = 1u64 << i;
            if c.is_ascii() {
                s.ascii[c as usize * stride + w] |= bit;
            } else {
                let next = s.other_masks.len() / stride;
                let row = *s.other.entry(c).or_insert(next);
                if row == next {
                    s.other_masks.resize((next + 1) * stride, 0);
                }
                s.other_masks[row * stride + w] |= bit;
            }
        }
    }
}

/// Zero the ASCII masks [`set_masks`] set.
fn clear_masks<T: Copy + Into<char>>(pattern: &[T], words: usize, s: &mut RatioScratch) {
    clear_masks_at(pattern, words, |w| w, s);
}

/// Zero the ASCII masks [`set_masks_at`] set.
#[inline(always)]
fn clear_masks_at<T: Copy + Into<char>>(
    pattern: &[T],
    stride: usize,
    slot: impl Fn(usize) -> usize,
    s: &mut RatioScratch,
) {
    for (w, chars) in pattern.chunks(64).enumerate() {
        let w = slot(w);
        for &c in chars {
            let c: char = c.into();
            if c.is_ascii() {
                s.ascii[c as usize * stride + w] = 0;
            }
        }
    }
}

/// The patterns (in 64-bit words) that [`lcs_avx2`] takes when the processor has AVX2: from 6
/// words it beats the scalar recurrence (2x at 9 words, 3.5x at 16, 4x at 24-32 and 33-256,
/// one thread of an AMD EPYC); below, the scalar state fits in registers and costs less. Past
/// 256 words, [`lcs_blocked`].
#[cfg(target_arch = "x86_64")]
const AVX2_WORDS: (usize, usize) = (6, BLOCK_WORDS);

/// The slot of word `w` of the state of [`wide::lcs`]'s `vectors` vectors (lane `w / vectors` of
/// vector `w % vectors`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lane_slot(w: usize, vectors: usize) -> usize {
    (w % vectors) * 4 + w / vectors
}

/// [`lcs_bit_parallel`] for a pattern of [`AVX2_WORDS`] words, by [`wide::lcs`] up to
/// [`wide::MAX_VECTORS`] vectors, else (or when `exact`: a long text as the pattern, whose
/// carries often run through whole words) by [`wide::lcs_any`]; the caller checked that the
/// processor has AVX2.
#[cfg(target_arch = "x86_64")]
fn lcs_avx2<T: Unit>(pattern: &[T], text: &[T], s: &mut RatioScratch, exact: bool) -> usize {
    let m = pattern.len();
    let vectors = m.div_ceil(64).div_ceil(4);
    if exact || vectors > wide::MAX_VECTORS {
        return lcs_dense(pattern, text, s);
    }
    set_masks_at(pattern, 4 * vectors, |w| lane_slot(w, vectors), s);
    // SAFETY (each call): the processor has AVX2 (the caller's check).
    let total = match vectors {
        2 => unsafe { wide::lcs::<T, 2>(text, m, s) },
        3 => unsafe { wide::lcs::<T, 3>(text, m, s) },
        4 => unsafe { wide::lcs::<T, 4>(text, m, s) },
        5 => unsafe { wide::lcs::<T, 5>(text, m, s) },
        6 => unsafe { wide::lcs::<T, 6>(text, m, s) },
        7 => unsafe { wide::lcs::<T, 7>(text, m, s) },
        _ => unsafe { wide::lcs::<T, 8>(text, m, s) },
    };
    clear_masks_at(pattern, 4 * vectors, |w| lane_slot(w, vectors), s);
    total
}

/// [`lcs_avx2`] by [`wide::lcs_any`]: the masks are rows of the text's distinct characters
/// only (a long pattern holds many the text lacks, and each of its characters would cost a
/// store to set its bit and another to clear it), made for each call, so nothing is cleared
/// afterwards; the text is read as its rows. The caller checked that the processor has AVX2.
#[cfg(target_arch = "x86_64")]
fn lcs_dense<T: Unit>(pattern: &[T], text: &[T], s: &mut RatioScratch) -> usize {
    let m = pattern.len();
    let vectors = m.div_ceil(64).div_ceil(4);
    let stride = 4 * vectors;
    if let (Some(pattern), Some(text)) = (T::bytes(pattern), T::bytes(text)) {
        // Bytes: the rows by byte, and each row's masks by comparing 32 bytes of the pattern
        // at a time with its byte (a store a character was most of the cost).
        let mut byte_rows = [NO_ROW; 256];
        let mut order = [0u8; 256];
        let mut n_rows = 0usize;
        s.rows.clear();
        for &b in text {
            let slot = &mut byte_rows[usize::from(b)];
            if *slot == NO_ROW {
                *slot = n_rows as u32;
                order[n_rows] = b;
                n_rows += 1;
            }
            s.rows.push(*slot);
        }
        s.block_masks.clear();
        s.block_masks.resize(n_rows * stride, 0);
        let bytes = order.get(..n_rows).unwrap_or(&[]);
        let mut lanes = std::mem::take(&mut s.lanes);
        // SAFETY: the processor has AVX2 (the caller's check).
        let total = unsafe {
            wide::byte_masks(pattern, bytes, vectors, &mut s.block_masks);
            wide::lcs_any(&s.rows, &s.block_masks, m, vectors, &mut lanes)
        };
        s.lanes = lanes;
        return total;
    }
    // The text's characters as rows, in the order they first come.
    let mut ascii_rows = [NO_ROW; 128];
    let mut n_rows = 0u32;
    clear_for(&mut s.other, text.len().min(m));
    s.rows.clear();
    for &c in text {
        let c: char = c.into();
        let row = if let Some(slot) = ascii_rows.get_mut(c as usize) {
            if *slot == NO_ROW {
                *slot = n_rows;
                n_rows += 1;
            }
            *slot
        } else {
            *s.other.entry(c).or_insert_with(|| {
                n_rows += 1;
                n_rows as usize - 1
            }) as u32
        };
        s.rows.push(row);
    }
    // The pattern's bit of each character the text holds, in that character's row (word `w`
    // at `lane_slot(w, vectors)`).
    s.block_masks.clear();
    s.block_masks.resize(n_rows as usize * stride, 0);
    for (w, chars) in pattern.chunks(64).enumerate() {
        let w = lane_slot(w, vectors);
        for (i, &c) in chars.iter().enumerate() {
            let c: char = c.into();
            let row = match ascii_rows.get(c as usize) {
                Some(&row) => row,
                None => s.other.get(&c).map_or(NO_ROW, |&row| row as u32),
            };
            if let Some(x) = s
                .block_masks
                .get_mut((row as usize).wrapping_mul(stride) + w)
            {
                *x |= 1 << i;
            }
        }
    }
    let mut lanes = std::mem::take(&mut s.lanes);
    // SAFETY: the processor has AVX2 (the caller's check).
    let total = unsafe { wide::lcs_any(&s.rows, &s.block_masks, m, vectors, &mut lanes) };
    s.lanes = lanes;
    total
}

#[cfg(target_arch = "x86_64")]
mod wide {
    //! The multi-word recurrence with AVX2: four words of the state a vector, compiled for AVX2
    //! whatever the build's target and called only when the processor has it.
    //!
    //! Word `w` of a state of `V` vectors is lane `w / V` of vector `w % V`, so the carry out
    //! of a word goes to the same lane of the next vector, and only the last vector's carries
    //! move up a lane (into vector 0). A step adds each word's carry out of `v + u` (computed
    //! without the carry into it) to the word above: that is the exact sum unless a word that
    //! gets a carry is all ones after `v + u` (the carry then runs on through it), which is rare
    //! once the text has begun (a word is all ones until a character of its part of the pattern
    //! comes). Such a step is detected (the word wraps to zero) and done again word by word.
    use super::{lane_slot, RatioScratch};
    use std::arch::x86_64::*;

    /// The most vectors of a state (32 words, 2,048 characters of pattern).
    pub(super) const MAX_VECTORS: usize = 8;

    #[cfg(test)]
    thread_local! {
        /// Tests: the steps done again word by word on this thread.
        pub(super) static RIPPLES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The LCS of a pattern of `m` characters (`ceil(m / 64)` words, in `V` vectors) whose masks
    /// [`super::set_masks_at`] set in rows of `4 V` words by [`lane_slot`], and `text`.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lcs<T: Copy + Into<char>, const V: usize>(
        text: &[T],
        m: usize,
        s: &RatioScratch,
    ) -> usize {
        let stride = 4 * V;
        let words = m.div_ceil(64);
        // The first state: the pattern's bits set, the bits above them clear (they and the
        // words past the pattern take no part in its bits: a carry only moves up). The lanes
        // whose carry out reaches a word of the pattern (all but the last word's and those
        // past it) have their sign bit set in `reaches`.
        let mut first = [0u64; 4 * MAX_VECTORS];
        let mut reaches = [0u64; 4 * MAX_VECTORS];
        for w in 0..words {
            first[lane_slot(w, V)] = super::low_bits(m - 64 * w);
            if w + 1 < words {
                reaches[lane_slot(w, V)] = 1 << 63;
            }
        }
        let load = |words: &[u64; 4 * MAX_VECTORS], k: usize| {
            // SAFETY: `k < V <= MAX_VECTORS`, so the four words from `4 k` are in the array.
            unsafe { _mm256_loadu_si256(words.as_ptr().add(4 * k).cast()) }
        };
        let mut state: [__m256i; V] = std::array::from_fn(|k| load(&first, k));
        let reaches: [__m256i; V] = std::array::from_fn(|k| load(&reaches, k));
        let sign = _mm256_set1_epi64x(i64::MIN);
        for &c in text {
            let c: char = c.into();
            let (table, at) = if c.is_ascii() {
                (&s.ascii, c as usize * stride)
            } else {
                match s.other.get(&c) {
                    Some(&row) => (&s.other_masks, row * stride),
                    None => continue, // no match anywhere: the state is unchanged
                }
            };
            let Some(row) = table.get(at..at + stride) else {
                continue; // not reached: every row holds `stride` words
            };
            // Per vector: `u = v & mask`, the sum `v + u`, its carries out (the sign bit of
            // `u | (v & !sum)`, as `u` is within `v`) as 0 or 1, and `v & !mask`.
            let mut sums = [_mm256_setzero_si256(); V];
            let mut carries = [_mm256_setzero_si256(); V];
            let mut kept = [_mm256_setzero_si256(); V];
            for k in 0..V {
                let v = state[k];
                // SAFETY: `row` holds `4 V` words, and `k < V`.
                let mask = unsafe { _mm256_loadu_si256(row.as_ptr().add(4 * k).cast()) };
                let u = _mm256_and_si256(v, mask);
                let sum = _mm256_add_epi64(v, u);
                kept[k] = _mm256_andnot_si256(mask, v);
                sums[k] = sum;
                carries[k] =
                    _mm256_srli_epi64::<63>(_mm256_or_si256(u, _mm256_andnot_si256(sum, v)));
            }
            // Vector 0 takes the last vector's carries one lane up (lane 0, word 0: none).
            let up = _mm256_permute4x64_epi64::<0b10_01_00_11>(carries[V - 1]);
            let up = _mm256_blend_epi32::<0b0000_0011>(up, _mm256_setzero_si256());
            let mut wrapped = _mm256_setzero_si256();
            let mut next = [_mm256_setzero_si256(); V];
            for k in 0..V {
                let carry = if k == 0 { up } else { carries[k - 1] };
                let sum = _mm256_add_epi64(sums[k], carry);
                // A word that wrapped to zero (sign bit set before, clear after) whose carry
                // reaches the pattern.
                wrapped = _mm256_or_si256(
                    wrapped,
                    _mm256_andnot_si256(sum, _mm256_and_si256(sums[k], reaches[k])),
                );
                next[k] = _mm256_or_si256(sum, kept[k]);
            }
            if _mm256_testz_si256(wrapped, sign) == 1 {
                state = next;
            } else {
                ripple(&mut state, row);
            }
        }
        let mut words_out = [0u64; 4 * MAX_VECTORS];
        for (k, v) in state.iter().enumerate() {
            // SAFETY: `k < V <= MAX_VECTORS`: four words from `4 k` are in the array.
            unsafe { _mm256_storeu_si256(words_out.as_mut_ptr().add(4 * k).cast(), *v) };
        }
        (0..words)
            .map(|w| (!words_out[lane_slot(w, V)] & super::low_bits(m - 64 * w)).count_ones())
            .sum::<u32>() as usize
    }

    /// The masks of a pattern of bytes for the rows of `bytes` (row `r` for `bytes[r]`), in
    /// `masks` (zero, `4 vectors` words a row, word `w` of the pattern at [`lane_slot`]): 32
    /// bytes of the pattern compared with a row's byte at a time.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn byte_masks(
        pattern: &[u8],
        bytes: &[u8],
        vectors: usize,
        masks: &mut [u64],
    ) {
        let stride = 4 * vectors;
        let (whole, tail) = pattern.split_at(pattern.len() / 64 * 64);
        // The last part of a word, its other bytes zero (their bits are cleared below).
        let mut last = [0u8; 64];
        if let Some(part) = last.get_mut(..tail.len()) {
            part.copy_from_slice(tail);
        }
        let tail_word = whole.len() / 64;
        let tail_bits = super::low_bits(tail.len());
        for (r, &b) in bytes.iter().enumerate() {
            let needle = _mm256_set1_epi8(b as i8);
            let Some(row) = masks.get_mut(r * stride..(r + 1) * stride) else {
                return; // not reached: `masks` holds a row per byte
            };
            for (w, block) in whole.chunks_exact(64).enumerate() {
                // SAFETY: `block` holds 64 bytes.
                let (lo, hi) = unsafe {
                    (
                        _mm256_loadu_si256(block.as_ptr().cast()),
                        _mm256_loadu_si256(block.as_ptr().add(32).cast()),
                    )
                };
                let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, needle)) as u32;
                let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, needle)) as u32;
                if let Some(x) = row.get_mut(lane_slot(w, vectors)) {
                    *x = u64::from(hi) << 32 | u64::from(lo);
                }
            }
            if !tail.is_empty() {
                // SAFETY: `last` holds 64 bytes.
                let (lo, hi) = unsafe {
                    (
                        _mm256_loadu_si256(last.as_ptr().cast()),
                        _mm256_loadu_si256(last.as_ptr().add(32).cast()),
                    )
                };
                let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, needle)) as u32;
                let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, needle)) as u32;
                if let Some(x) = row.get_mut(lane_slot(tail_word, vectors)) {
                    *x = (u64::from(hi) << 32 | u64::from(lo)) & tail_bits;
                }
            }
        }
    }

    /// The LCS of a pattern of `m` characters (in `vectors` vectors) and a text given as the
    /// rows of its characters in `table` (rows of `4 vectors` words laid out by [`lane_slot`]),
    /// as [`lcs`] for a state of any number of vectors (from 2), kept in memory: for
    /// patterns past [`MAX_VECTORS`], and for a long text taken as the pattern against a short
    /// one. With many vectors the steps are bound by the processor's throughput, where a state
    /// of two or three vectors waits on the chain of one step's carries into the next.
    ///
    /// The carries are exact (no step is done again): the carry into word `w + 1` is
    /// `g | (p & c)`, with `g` the carry out of word `w`'s `v + u`, `p` whether that sum is all
    /// ones and `c` the carry into word `w`, which runs up each lane through the vectors in
    /// order. Only the carries from the last vector into the next lane of vector 0 are guessed
    /// first (the carries out of the last vector's `v + u`); when the step finds them otherwise
    /// (a carry ran through a whole word on its way there), it is done again with the ones it
    /// found, at most three times more (each pass makes one more lane exact). A long pattern
    /// against a short text needs this: its words stay all ones until a character of their part
    /// of the pattern comes, so carries run through whole words at most steps.
    ///
    /// `lanes` holds two states, this step's and the next.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lcs_any(
        rows: &[u32],
        table: &[u64],
        m: usize,
        vectors: usize,
        lanes: &mut Vec<[u64; 4]>,
    ) -> usize {
        let stride = 4 * vectors;
        let words = m.div_ceil(64);
        lanes.clear();
        lanes.resize(2 * vectors, [0; 4]);
        let (mut state, mut next) = lanes.split_at_mut(vectors);
        for w in 0..words {
            let at = lane_slot(w, vectors);
            if let Some(x) = state.get_mut(at / 4).and_then(|v| v.get_mut(at % 4)) {
                *x = super::low_bits(m - 64 * w);
            }
        }
        let ones = _mm256_set1_epi64x(-1);
        for &r in rows {
            let at = r as usize * stride;
            let Some(row) = table.get(at..at + stride) else {
                continue; // not reached: every row holds `stride` words
            };
            // (No closures here: they would not inherit the function's AVX2, and their
            // intrinsics would become calls.)
            // The guess for vector 0: the last vector's carries out of `v + u`, one lane up
            // (lane 0, word 0: none). The carry out of `v + u` is the sign bit of
            // `u | (v & !sum)`, as `u` is within `v`.
            // SAFETY: `vectors - 1 < vectors`, the length of `state`; `row` holds `4 vectors`
            // words.
            let (v, mask) = unsafe {
                (
                    _mm256_loadu_si256(state.as_ptr().add(vectors - 1).cast()),
                    _mm256_loadu_si256(row.as_ptr().add(4 * (vectors - 1)).cast()),
                )
            };
            let u = _mm256_and_si256(v, mask);
            let sum = _mm256_add_epi64(v, u);
            let out = _mm256_srli_epi64::<63>(_mm256_or_si256(u, _mm256_andnot_si256(sum, v)));
            let up = _mm256_permute4x64_epi64::<0b10_01_00_11>(out);
            let mut first = _mm256_blend_epi32::<0b0000_0011>(up, _mm256_setzero_si256());
            loop {
                let mut carry = first;
                for k in 0..vectors {
                    // SAFETY: `k < vectors`, the length of `state` and `next`; `row` holds
                    // `4 vectors` words.
                    let (v, mask) = unsafe {
                        (
                            _mm256_loadu_si256(state.as_ptr().add(k).cast()),
                            _mm256_loadu_si256(row.as_ptr().add(4 * k).cast()),
                        )
                    };
                    let u = _mm256_and_si256(v, mask);
                    let sum = _mm256_add_epi64(v, u);
                    let total = _mm256_add_epi64(sum, carry);
                    let out = _mm256_or_si256(total, _mm256_andnot_si256(mask, v));
                    // SAFETY: as above.
                    unsafe { _mm256_storeu_si256(next.as_mut_ptr().add(k).cast(), out) };
                    let own =
                        _mm256_srli_epi64::<63>(_mm256_or_si256(u, _mm256_andnot_si256(sum, v)));
                    let through = _mm256_and_si256(_mm256_cmpeq_epi64(sum, ones), carry);
                    carry = _mm256_or_si256(own, through);
                }
                let up = _mm256_permute4x64_epi64::<0b10_01_00_11>(carry);
                let found = _mm256_blend_epi32::<0b0000_0011>(up, _mm256_setzero_si256());
                let differ = _mm256_xor_si256(found, first);
                if _mm256_testz_si256(differ, differ) == 1 {
                    break;
                }
                #[cfg(test)]
                RIPPLES.with(|n| n.set(n.get() + 1));
                first = found;
            }
            std::mem::swap(&mut state, &mut next);
        }
        (0..words)
            .map(|w| {
                let at = lane_slot(w, vectors);
                let v = state.get(at / 4).and_then(|v| v.get(at % 4));
                (!v.copied().unwrap_or(u64::MAX) & super::low_bits(m - 64 * w)).count_ones()
            })
            .sum::<u32>() as usize
    }

    /// One step of the recurrence word by word, the carry running through every word: for the
    /// rare step whose carries run through a whole word.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    fn ripple<const V: usize>(state: &mut [__m256i; V], row: &[u64]) {
        #[cfg(test)]
        RIPPLES.with(|n| n.set(n.get() + 1));
        let mut words = [0u64; 4 * MAX_VECTORS];
        for (k, v) in state.iter().enumerate() {
            // SAFETY: `k < V <= MAX_VECTORS`: four words from `4 k` are in the array.
            unsafe { _mm256_storeu_si256(words.as_mut_ptr().add(4 * k).cast(), *v) };
        }
        let mut carry = 0u64;
        for w in 0..4 * V {
            let at = lane_slot(w, V);
            let (v, mask) = (words[at], row.get(at).copied().unwrap_or(0));
            let u = v & mask;
            let (sum, c1) = v.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry);
            carry = u64::from(c1 | c2);
            words[at] = sum | (v - u);
        }
        for (k, v) in state.iter_mut().enumerate() {
            // SAFETY: as above.
            *v = unsafe { _mm256_loadu_si256(words.as_ptr().add(4 * k).cast()) };
        }
    }
}

/// The recurrence for a pattern of at most 64 characters: the state is one word.
fn lcs_one_word<T: Copy + Into<char>>(text: &[T], m: usize, s: &RatioScratch) -> usize {
    let mut v = u64::MAX;
    // [`set_masks`] gave the table its 128 rows.
    let Some(ascii) = s.ascii.first_chunk::<128>() else {
        return 0;
    };
    for &c in text {
        let c: char = c.into();
        let mask = if c.is_ascii() {
            ascii[c as usize & 127]
        } else {
            match s.other.get(&c) {
                Some(&row) => s.other_masks[row],
                None => continue, // no match anywhere: the state is unchanged
            }
        };
        let u = v & mask;
        v = v.wrapping_add(u) | (v - u);
    }
    let used = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
    (!v & used).count_ones() as usize
}

/// [`lcs_many_words`] for a pattern of `W` words (at most 256 characters): the state is an
/// array the compiler keeps in registers, and the loop over the words is unrolled.
fn lcs_few_words<T: Copy + Into<char>, const W: usize>(
    text: &[T],
    m: usize,
    s: &RatioScratch,
) -> usize {
    let mut state = [u64::MAX; W];
    for &c in text {
        let c: char = c.into();
        let row = if c.is_ascii() {
            c as usize
        } else {
            match s.other.get(&c) {
                Some(&row) => row,
                None => continue, // no match anywhere: the state is unchanged
            }
        };
        let table = if c.is_ascii() {
            &s.ascii
        } else {
            &s.other_masks
        };
        let Some(masks) = table.get(row * W..).and_then(|r| r.first_chunk::<W>()) else {
            continue; // not reached: every row holds W words
        };
        step(&mut state, masks);
    }
    matched(&state, m)
}

/// The recurrence over `words` 64-bit words, with the carry between them.
fn lcs_many_words<T: Copy + Into<char>>(
    text: &[T],
    m: usize,
    words: usize,
    s: &mut RatioScratch,
) -> usize {
    s.state.clear();
    s.state.resize(words, u64::MAX);
    for &c in text.iter() {
        let c: char = c.into();
        let masks: &[u64] = if c.is_ascii() {
            &s.ascii[c as usize * words..(c as usize + 1) * words]
        } else {
            match s.other.get(&c) {
                Some(&row) => &s.other_masks[row * words..(row + 1) * words],
                None => continue, // no match anywhere: the state is unchanged
            }
        };
        let mut carry = 0u64;
        for (v, &mask) in s.state.iter_mut().zip(masks) {
            let u = *v & mask;
            let (sum, c1) = v.overflowing_add(u);
            let (sum, c2) = sum.overflowing_add(carry);
            carry = u64::from(c1 || c2);
            *v = sum | (*v - u);
        }
    }
    let mut total = 0usize;
    for (w, &v) in s.state.iter().enumerate() {
        let bits = if w + 1 == words && !m.is_multiple_of(64) {
            !v & ((1u64 << (m % 64)) - 1)
        } else {
            !v
        };
        total += bits.count_ones() as usize;
    }
    total
}

/// Words of the state processed together by [`lcs_blocked`] (2 KB, in the L1 cache).
const BLOCK_WORDS: usize = 256;
/// The row of a character the pattern (or the block) does not hold.
const NO_ROW: u32 = u32::MAX;

/// [`lcs_many_words`] for long patterns, a block of state words at a time.
///
/// Word by word for each character of the text, the state of a long pattern (and its masks)
/// leaves the cache between two characters. Here each block of [`BLOCK_WORDS`] words runs over
/// the whole text, and the carry out of its last word at each character is kept, one bit per
/// character, for the next block: the same additions in another order, so the same state.
///
/// The masks are built a block at a time, for the characters of that block of the pattern
/// only: at most `64 * BLOCK_WORDS` rows of [`BLOCK_WORDS`] words (32 MB when every character
/// differs; 256 KB for ASCII text), however long the pattern and however many characters it
/// uses (the whole pattern's masks would take 1 GB for 400,000 characters of 20,000 kinds).
fn lcs_blocked<T: Copy + Into<char>>(pattern: &[T], text: &[T], s: &mut RatioScratch) -> usize {
    let m = pattern.len();
    let words = m.div_ceil(64);
    // Dense ids of the pattern's characters: ASCII ones by code, the others after them.
    let ascii_ids = 128u32;
    clear_for(&mut s.other, m);
    s.pattern_ids.clear();
    for &c in pattern {
        let c: char = c.into();
        let id = if c.is_ascii() {
            c as u32
        } else {
            let next = ascii_ids + s.other.len() as u32;
            *s.other.entry(c).or_insert(next as usize) as u32
        };
        s.pattern_ids.push(id);
    }
    // The text's characters as those ids (NO_ROW: nowhere in the pattern).
    s.rows.clear();
    s.rows.extend(text.iter().map(|&c| {
        let c: char = c.into();
        if c.is_ascii() {
            c as u32
        } else {
            s.other.get(&c).map_or(NO_ROW, |&id| id as u32)
        }
    }));
    s.block_row.clear();
    s.block_row
        .resize(ascii_ids as usize + s.other.len(), NO_ROW);
    s.carries.clear();
    s.carries.resize(text.len().div_ceil(64), 0);
    let mut total = 0usize;
    let mut state = [u64::MAX; BLOCK_WORDS];
    for start in (0..words).step_by(BLOCK_WORDS) {
        let width = BLOCK_WORDS.min(words - start);
        let chars = s
            .pattern_ids
            .get(start * 64..m.min((start + width) * 64))
            .unwrap_or(&[]);
        // This block's masks: a row per distinct character of its part of the pattern.
        s.block_masks.clear();
        let mut n_rows = 0usize;
        for (i, &id) in chars.iter().enumerate() {
            let slot = &mut s.block_row[id as usize];
            if *slot == NO_ROW {
                *slot = n_rows as u32;
                n_rows += 1;
                s.block_masks.resize(n_rows * width, 0);
            }
            s.block_masks[*slot as usize * width + i / 64] |= 1u64 << (i % 64);
        }
        let state = &mut state[..width];
        state.fill(u64::MAX);
        for (t, &id) in s.rows.iter().enumerate() {
            let (bits, bit) = (&mut s.carries[t / 64], t % 64);
            let mut carry = (*bits >> bit) & 1;
            let row = match s.block_row.get(id as usize) {
                Some(&row) if row != NO_ROW => row as usize,
                _ if carry == 0 => continue, // no mask bit and no carry: nothing changes
                _ => {
                    // No mask bit here, but a carry from the block before: it runs on
                    // (`v + carry | v`) until a word takes it.
                    for v in state.iter_mut() {
                        let (sum, c) = v.overflowing_add(carry);
                        *v |= sum;
                        carry = u64::from(c);
                        if carry == 0 {
                            break;
                        }
                    }
                    *bits = (*bits & !(1 << bit)) | (carry << bit);
                    continue;
                }
            };
            let masks = &s.block_masks[row * width..(row + 1) * width];
            for (v, &mask) in state.iter_mut().zip(masks) {
                let u = *v & mask;
                let (sum, c1) = v.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(carry);
                carry = u64::from(c1 || c2);
                *v = sum | (*v - u);
            }
            *bits = (*bits & !(1 << bit)) | (carry << bit);
        }
        for (w, &v) in state.iter().enumerate() {
            let bits = if start + w + 1 == words && !m.is_multiple_of(64) {
                !v & ((1u64 << (m % 64)) - 1)
            } else {
                !v
            };
            total += bits.count_ones() as usize;
        }
        for &id in chars {
            s.block_row[id as usize] = NO_ROW;
        }
    }
    total
}

/// The common prefix of `a` and `b` in bytes, eight at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut n = 0;
    while let (Some(x), Some(y)) = (
        a.get(n..).and_then(|r| r.first_chunk::<8>()),
        b.get(n..).and_then(|r| r.first_chunk::<8>()),
    ) {
        let diff = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if diff != 0 {
            return n + diff.trailing_zeros() as usize / 8;
        }
        n += 8;
    }
    n + a
        .get(n..)
        .unwrap_or(&[])
        .iter()
        .zip(b.get(n..).unwrap_or(&[]))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The common suffix of `a` and `b` in bytes, eight at a time from their ends.
#[inline]
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Slots of the table of the pattern's characters that are not ASCII (at most 256 of them, so
/// it is never more than half full).
const WIDE_SLOTS: usize = 512;

/// [`indel_counts_known`], nothing said of the texts.
#[cfg(test)]
fn indel_counts(a: &str, b: &str, s: &mut RatioScratch) -> Option<(usize, usize)> {
    indel_counts_known(a, b, false, s)
}

/// `(|a| + |b|, LCS(a, b))` in characters, when the pattern (the one with fewer characters
/// once the common prefix and suffix are cut off) has at most 256 characters and [`lcs`] would
/// run the bit-parallel recurrence on them at once (under [`MYERS_FIRST`] word steps, so no
/// budget applies); else `None`, and [`lcs`] takes the texts as characters.
///
/// Nothing is copied: the common prefix and suffix are found on the bytes (a common prefix
/// of bytes that ends on a character boundary is a common prefix of characters, and the
/// longest such is the longest common prefix of characters; likewise the suffix), the pattern's
/// masks are set from its characters, and the text is read as bytes when the pattern or the
/// text is ASCII (a byte of a character that is not ASCII then matches nothing: its mask is
/// zero, which leaves the state as it is), else decoded a character at a time.
///
/// `ascii` may say that both texts are ASCII (their tests are then skipped); `false` says
/// nothing.
#[inline(always)]
fn indel_counts_known(
    a: &str,
    b: &str,
    ascii: bool,
    s: &mut RatioScratch,
) -> Option<(usize, usize)> {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    // Each text's ASCII test once: the pieces of an ASCII text are ASCII, their characters
    // their bytes (of the others, each piece is counted, and tested, as needed).
    debug_assert!(!ascii || (a.is_ascii() && b.is_ascii()));
    let (a_ascii, b_ascii) = if ascii {
        (true, true)
    } else {
        (a.is_ascii(), b.is_ascii())
    };
    if a_ascii && b_ascii && ab.len() <= 64 && bb.len() <= 64 {
        return Some((ab.len() + bb.len(), lcs_short_ascii(ab, bb, s)));
    }
    let count = |text: &str, ascii: bool| if ascii { text.len() } else { char_count(text) };
    let mut prefix = common_prefix(ab, bb);
    while prefix > 0 && !(a.is_char_boundary(prefix) && b.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let (a_rest, b_rest) = (a.get(prefix..)?, b.get(prefix..)?);
    let mut suffix = common_suffix(a_rest.as_bytes(), b_rest.as_bytes());
    while suffix > 0
        && !(a_rest.is_char_boundary(a_rest.len() - suffix)
            && b_rest.is_char_boundary(b_rest.len() - suffix))
    {
        suffix -= 1;
    }
    let a_mid = a_rest.get(..a_rest.len() - suffix)?;
    let b_mid = b_rest.get(..b_rest.len() - suffix)?;
    let (na, nb) = (count(a_mid, a_ascii), count(b_mid, b_ascii));
    let (pattern, text, m, n, ascii) = if na <= nb {
        (a_mid, b_mid, na, nb, (a_ascii, b_ascii))
    } else {
        (b_mid, a_mid, nb, na, (b_ascii, a_ascii))
    };
    if m > 256 || (m.div_ceil(64) * n) as u64 > MYERS_FIRST {
        return None;
    }
    let same =
        count(a.get(..prefix)?, a_ascii) + count(a_rest.get(a_rest.len() - suffix..)?, a_ascii);
    // Tests in the order of their frequency, not a `match` on the word count: its jump table
    // was an indirect branch, mispredicted about every other row (an empty middle or one word).
    let middle = if m == 0 {
        0
    } else if m <= 64 {
        lcs_str::<1>(pattern, text, m, ascii, s)
    } else if m <= 128 {
        lcs_str::<2>(pattern, text, m, ascii, s)
    } else if m <= 192 {
        lcs_str::<3>(pattern, text, m, ascii, s)
    } else {
        lcs_str::<4>(pattern, text, m, ascii, s)
    };
    Some((2 * same + na + nb, same + middle))
}

/// The byte tables of [`lcs_str`] and [`lcs_short_ascii`] (all zeros between calls), made once.
#[inline]
fn byte_tables(s: &mut RatioScratch) {
    if s.byte_masks.len() != 256 {
        s.byte_masks.clear();
        s.byte_masks.resize(256, 0);
        s.byte_rows.clear();
        s.byte_rows.resize(256, [0; 4]);
    }
}

/// The LCS of two ASCII texts of at most 64 bytes each (a short answer and its reference), by
/// the one-word recurrence over the longer, the shorter as the pattern: the common prefix and
/// suffix that [`indel_counts`] cuts off first belong to every longest common subsequence, so
/// the recurrence over the whole texts counts them too, and at this length cutting them costs
/// more than it saves.
#[inline]
fn lcs_short_ascii(a: &[u8], b: &[u8], s: &mut RatioScratch) -> usize {
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    byte_tables(s);
    let Some(table) = s.byte_masks.first_chunk_mut::<256>() else {
        return 0; // not reached: `byte_tables` made it
    };
    for (i, &c) in pattern.iter().enumerate() {
        table[usize::from(c)] |= 1 << (i & 63);
    }
    let one = |v: u64, mask: u64| {
        let u = v & mask;
        v.wrapping_add(u) | (v - u)
    };
    // As in `lcs_str`: the loop ends once every character of the pattern is matched.
    let used = low_bits(pattern.len());
    let mut v = u64::MAX;
    let mut chunks = text.chunks_exact(8);
    let mut whole = true;
    for chunk in &mut chunks {
        for &c in chunk {
            v = one(v, table[usize::from(c)]);
        }
        if v & used == 0 {
            whole = false;
            break;
        }
    }
    if whole {
        for &c in chunks.remainder() {
            v = one(v, table[usize::from(c)]);
        }
    }
    for &c in pattern {
        table[usize::from(c)] = 0;
    }
    (!v & used).count_ones() as usize
}

/// The number of characters of `text`.
#[inline]
fn char_count(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// The slot of the character `c` (not ASCII) in the table of [`WIDE_SLOTS`] keys (0: empty).
#[inline(always)]
fn wide_slot(keys: &[u32], c: u32) -> usize {
    let mut i = (c.wrapping_mul(0x9E37_79B1) >> 23) as usize;
    while keys.get(i).is_some_and(|&k| k != 0 && k != c) {
        i = (i + 1) % WIDE_SLOTS;
    }
    i
}

/// The LCS length the bit-parallel `state` holds for a pattern of `m` characters: its clear bits
/// among the first `m`.
#[inline(always)]
fn matched<const W: usize>(state: &[u64; W], m: usize) -> usize {
    // The pattern's `m` bits: whole words, then the first bits of the last (the bits above
    // them, and any padding word past it, are not the pattern's).
    let mut total = 0usize;
    for (w, &v) in state.iter().enumerate().take(m.div_ceil(64)) {
        let bits = if (w + 1) * 64 > m {
            !v & low_bits(m % 64)
        } else {
            !v
        };
        total += bits.count_ones() as usize;
    }
    total
}

/// The mask of the first `m` bits of a word (all 64 from 64 on).
#[inline(always)]
fn low_bits(m: usize) -> u64 {
    if m >= 64 {
        u64::MAX
    } else {
        (1u64 << m) - 1
    }
}

/// Whether the bit-parallel `state` of a pattern of `m` characters has matched all of them
/// (its first `m` bits all clear): the LCS is then `m`, whatever text follows.
#[inline(always)]
fn all_matched<const W: usize>(state: &[u64; W], m: usize) -> bool {
    let mut held = 0u64;
    for (w, &v) in state.iter().enumerate() {
        held |= v & low_bits(m.saturating_sub(64 * w));
    }
    held == 0
}

/// One step of the recurrence over `W` words.
#[inline(always)]
fn step<const W: usize>(state: &mut [u64; W], masks: &[u64; W]) {
    let mut carry = 0u64;
    for (v, &mask) in state.iter_mut().zip(masks) {
        let u = *v & mask;
        let (sum, c1) = v.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry);
        carry = u64::from(c1 | c2);
        *v = sum | (*v - u);
    }
}

/// The LCS of `pattern` (`m` characters, at most `64 W`) and `text` (see [`indel_counts`]);
/// `ascii` says whether each is known to be ASCII (`false`: it is tested here).
fn lcs_str<const W: usize>(
    pattern: &str,
    text: &str,
    m: usize,
    ascii: (bool, bool),
    s: &mut RatioScratch,
) -> usize {
    // The tables are zero between calls: only the entries set here are cleared afterwards.
    // One word: a mask per byte (`byte_masks`); more: a row of four words per byte
    // (`byte_rows`), of which the first `W` are used.
    byte_tables(s);
    let wide = !(ascii.0 || pattern.is_ascii());
    if wide && s.wide_keys.len() != WIDE_SLOTS {
        s.wide_keys.clear();
        s.wide_keys.resize(WIDE_SLOTS, 0);
        s.wide_masks.clear();
        s.wide_masks.resize(WIDE_SLOTS, [0; 4]);
    }
    for (i, c) in pattern.chars().enumerate() {
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        let mask = if !c.is_ascii() {
            let slot = wide_slot(&s.wide_keys, c as u32);
            if let Some(k) = s.wide_keys.get_mut(slot).filter(|k| **k == 0) {
                *k = c as u32;
                s.wide_used.push(slot);
            }
            s.wide_masks.get_mut(slot).and_then(|r| r.get_mut(w))
        } else if W == 1 {
            s.byte_masks.get_mut(c as usize)
        } else {
            s.byte_rows.get_mut(c as usize).and_then(|r| r.get_mut(w))
        };
        if let Some(x) = mask {
            *x |= bit;
        }
    }
    // The mask of a character that is not ASCII (zero: not in the pattern).
    let wide_mask = |s: &RatioScratch, c: char| -> [u64; 4] {
        let slot = wide_slot(&s.wide_keys, c as u32);
        match (s.wide_keys.get(slot), s.wide_masks.get(slot)) {
            (Some(&k), Some(&row)) if k == c as u32 => row,
            _ => [0; 4],
        }
    };
    let mut state = [u64::MAX; W];
    let bytes_only = !wide || ascii.1 || text.is_ascii();
    if let (Some(table), 1) = (s.byte_masks.first_chunk::<256>(), W) {
        // One word: the loop over bytes unrolled by eight.
        let mut v = u64::MAX;
        let one = |v: &mut u64, mask: u64| {
            let u = *v & mask;
            *v = v.wrapping_add(u) | (*v - u);
        };
        #[cfg(target_arch = "x86_64")]
        let members = text.len() >= 64 && crate::cpu::has_avx2() && crate::cpu::has_bmi1();
        #[cfg(not(target_arch = "x86_64"))]
        let members = false;
        if members {
            #[cfg(target_arch = "x86_64")]
            {
                let lut = nibble_table(pattern);
                v = if bytes_only {
                    // SAFETY: the processor has AVX2 and BMI1 (checked above).
                    unsafe { avx2::one_word_members(text.as_bytes(), table, &lut, low_bits(m)) }
                } else {
                    let wide = |c: char| wide_mask(s, c)[0];
                    let leads = lead_table(pattern);
                    // SAFETY: the processor has AVX2 and BMI1 (checked above).
                    unsafe {
                        avx2::one_word_members_wide(text, table, &lut, &leads, low_bits(m), wide)
                    }
                };
            }
        } else if bytes_only {
            // Once every character of the pattern is matched (the state's first `m` bits all
            // clear) the LCS is `m` and no later character can change it: the loop ends at the
            // first block of eight after that point.
            let used = low_bits(m);
            let mut chunks = text.as_bytes().chunks_exact(8);
            let mut whole = true;
            for chunk in &mut chunks {
                for &b in chunk {
                    one(&mut v, table[usize::from(b)]);
                }
                if v & used == 0 {
                    whole = false;
                    break;
                }
            }
            if whole {
                for &b in chunks.remainder() {
                    one(&mut v, table[usize::from(b)]);
                }
            }
        } else {
            for c in text.chars() {
                let mask = if c.is_ascii() {
                    table[c as usize]
                } else {
                    wide_mask(s, c)[0]
                };
                one(&mut v, mask);
            }
        }
        state[0] = v;
    } else if let Some(rows) = s.byte_rows.first_chunk::<256>() {
        let row = |r: &[u64; 4]| *r.first_chunk::<W>().unwrap_or(&[0; W]);
        if bytes_only {
            // As above: the loop ends once every character of the pattern is matched,
            // looked at every eight bytes.
            let mut chunks = text.as_bytes().chunks_exact(8);
            let mut whole = true;
            for chunk in &mut chunks {
                for &b in chunk {
                    step(&mut state, &row(&rows[usize::from(b)]));
                }
                if all_matched(&state, m) {
                    whole = false;
                    break;
                }
            }
            if whole {
                for &b in chunks.remainder() {
                    step(&mut state, &row(&rows[usize::from(b)]));
                }
            }
        } else {
            for c in text.chars() {
                let masks = if c.is_ascii() {
                    row(&rows[c as usize])
                } else {
                    row(&wide_mask(s, c))
                };
                step(&mut state, &masks);
            }
        }
    }
    // One word set `byte_masks` only, more `byte_rows` only.
    for b in pattern.bytes().filter(u8::is_ascii) {
        if W == 1 {
            if let Some(x) = s.byte_masks.get_mut(usize::from(b)) {
                *x = 0;
            }
        } else if let Some(r) = s.byte_rows.get_mut(usize::from(b)) {
            *r = [0; 4];
        }
    }
    for &slot in &s.wide_used {
        if let Some(k) = s.wide_keys.get_mut(slot) {
            *k = 0;
        }
        if let Some(r) = s.wide_masks.get_mut(slot) {
            *r = [0; 4];
        }
    }
    s.wide_used.clear();
    matched(&state, m)
}

/// The pattern's ASCII bytes by low nibble, as `avx2::members` reads them: bit `h` of entry
/// `l` is byte `16 h + l` (its other bytes match no byte of a text read as bytes).
#[cfg(target_arch = "x86_64")]
fn nibble_table(pattern: &str) -> [u8; 16] {
    let mut lut = [0u8; 16];
    for b in pattern.bytes().filter(u8::is_ascii) {
        lut[usize::from(b & 15)] |= 1 << (b >> 4);
    }
    lut
}

/// The first bytes of the pattern's characters that are not ASCII, by low nibble, as
/// `avx2::pattern_leads` reads them: bit `h - 12` of entry `l` is byte `16 h + l` (0xC0 to
/// 0xFF). A character of the text whose first byte is not among them is not in the pattern.
#[cfg(target_arch = "x86_64")]
fn lead_table(pattern: &str) -> [u8; 16] {
    let mut lut = [0u8; 16];
    for b in pattern.bytes().filter(|&b| b >= 0xC0) {
        lut[usize::from(b & 15)] |= 1 << ((b >> 4) - 12);
    }
    lut
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The one-word recurrence over the bytes of a text that the pattern holds, with AVX2 and
    //! BMI1, compiled for them whatever the build's target and called only when the processor
    //! has them.
    use crate::ascii::avx2::block_bits;
    use std::arch::x86_64::*;

    /// One bit per byte of `block` (byte `k`'s is bit `k`) that `lut` holds (bit `h` of entry
    /// `l`: the byte `16 h + l`; no byte of 0x80 or more).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn members(block: &[u8; 64], lut: __m256i) -> u64 {
        let nibble = _mm256_set1_epi8(0x0f);
        let powers = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0,
            0, 0, 0, 0, 0, 0, 0,
        );
        let half = |v: __m256i| -> u64 {
            let low = _mm256_and_si256(v, nibble);
            let high = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
            let row = _mm256_shuffle_epi8(lut, low);
            let bit = _mm256_shuffle_epi8(powers, high);
            let absent = _mm256_cmpeq_epi8(_mm256_and_si256(row, bit), _mm256_setzero_si256());
            u64::from(!(_mm256_movemask_epi8(absent) as u32))
        };
        block_bits(block, half)
    }

    /// The steps of `block`'s bytes whose bits `bits` holds, from state `v`.
    #[inline]
    #[target_feature(enable = "avx2,bmi1")]
    fn steps(mut v: u64, block: &[u8; 64], mut bits: u64, table: &[u64; 256]) -> u64 {
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let u = v & table[usize::from(block[k & 63])];
            v = v.wrapping_add(u) | (v - u);
        }
        v
    }

    /// The one-word state after the bytes of `text`, with `table` the pattern's masks (zero for
    /// a byte it does not hold) and `lut` its bytes as [`members`] reads them: a byte whose mask
    /// is zero leaves the state as it is, so each block of 64 bytes runs only the steps of the
    /// bytes the pattern holds (about half of them in text). As the loop it replaces, it ends
    /// once the state's `used` bits are all clear (every character of the pattern matched).
    ///
    /// # Safety
    /// The processor must have AVX2 and BMI1.
    #[target_feature(enable = "avx2,bmi1")]
    pub(super) unsafe fn one_word_members(
        text: &[u8],
        table: &[u64; 256],
        lut: &[u8; 16],
        used: u64,
    ) -> u64 {
        // SAFETY: `lut` holds 16 bytes, which an unaligned load reads.
        let lut = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(lut.as_ptr().cast()) });
        let mut v = u64::MAX;
        let mut chunks = text.chunks_exact(64);
        for chunk in &mut chunks {
            if let Some(block) = chunk.first_chunk::<64>() {
                v = steps(v, block, members(block, lut), table);
                if v & used == 0 {
                    return v;
                }
            }
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut block = [0u8; 64];
            for (to, &from) in block.iter_mut().zip(rest) {
                *to = from;
            }
            let valid = (1u64 << rest.len()) - 1; // fewer than 64
            v = steps(v, &block, members(&block, lut) & valid, table);
        }
        v
    }

    /// The first bytes of the characters of `block` that are not ASCII (0xC0 or more) and
    /// that `leads` holds (bit `h - 12` of entry `l`: the byte `16 h + l`, as [`super::lead_table`]
    /// writes it), one bit per byte.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn pattern_leads(block: &[u8; 64], leads: __m256i) -> u64 {
        let nibble = _mm256_set1_epi8(0x0f);
        // High nibbles 12 to 15 (0xC0 to 0xFF) to their bit; the others to none.
        let powers = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
            2, 4, 8,
        );
        let half = |v: __m256i| -> u64 {
            let low = _mm256_and_si256(v, nibble);
            let high = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
            let row = _mm256_shuffle_epi8(leads, low);
            let bit = _mm256_shuffle_epi8(powers, high);
            let absent = _mm256_cmpeq_epi8(_mm256_and_si256(row, bit), _mm256_setzero_si256());
            u64::from(!(_mm256_movemask_epi8(absent) as u32))
        };
        block_bits(block, half)
    }

    /// The steps of `block` (bytes `base..` of `text`) whose bits `bits` holds, from state
    /// `v`: an ASCII byte's mask from `table`, a character that is not ASCII (its first byte's
    /// bit) read from `text` and its mask from `wide`.
    #[inline]
    #[target_feature(enable = "avx2,bmi1")]
    fn steps_wide(
        mut v: u64,
        text: &str,
        base: usize,
        block: &[u8; 64],
        mut bits: u64,
        table: &[u64; 256],
        wide: &impl Fn(char) -> u64,
    ) -> u64 {
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let b = block[k & 63];
            let mask = if b < 0x80 {
                table[usize::from(b)]
            } else {
                text.get(base + k..)
                    .and_then(|r| r.chars().next())
                    .map_or(0, wide)
            };
            let u = v & mask;
            v = v.wrapping_add(u) | (v - u);
        }
        v
    }

    /// [`one_word_members`] over a text that is not ASCII, against a pattern that is not
    /// either: the steps of the ASCII bytes the pattern holds and of the characters that are
    /// not ASCII whose first byte `leads` holds ([`super::lead_table`]: the others are not in
    /// the pattern, and leave the state as it is), with `wide` the mask of such a character
    /// (zero for one the pattern does not hold). As [`one_word_members`], it ends once the
    /// state's `used` bits are all clear.
    ///
    /// # Safety
    /// The processor must have AVX2 and BMI1.
    #[target_feature(enable = "avx2,bmi1")]
    pub(super) unsafe fn one_word_members_wide(
        text: &str,
        table: &[u64; 256],
        lut: &[u8; 16],
        leads: &[u8; 16],
        used: u64,
        wide: impl Fn(char) -> u64,
    ) -> u64 {
        // SAFETY: `lut` holds 16 bytes, which an unaligned load reads.
        let lut = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(lut.as_ptr().cast()) });
        // SAFETY: as above, `leads` holds 16 bytes.
        let leads = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(leads.as_ptr().cast()) });
        let mut v = u64::MAX;
        let mut chunks = text.as_bytes().chunks_exact(64);
        let mut base = 0;
        for chunk in &mut chunks {
            if let Some(block) = chunk.first_chunk::<64>() {
                let bits = members(block, lut) | pattern_leads(block, leads);
                v = steps_wide(v, text, base, block, bits, table, &wide);
                if v & used == 0 {
                    return v;
                }
            }
            base += 64;
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut block = [0u8; 64];
            for (to, &from) in block.iter_mut().zip(rest) {
                *to = from;
            }
            let valid = (1u64 << rest.len()) - 1; // fewer than 64
            let bits = (members(&block, lut) | pattern_leads(&block, leads)) & valid;
            v = steps_wide(v, text, base, &block, bits, table, &wide);
        }
        v
    }
}

/// RapidFuzz's `Indel.normalized_similarity(a, b)`, or `None` when computing it would take more
/// than `budget` units of work (`None`: no bound).
pub fn indel(a: &str, b: &str, s: &mut RatioScratch, budget: Option<u64>) -> Option<f64> {
    indel_counted(a, b, s, budget).0
}

/// [`indel`], and the units of work it spent (see [`lcs_counted`]).
pub fn indel_counted(
    a: &str,
    b: &str,
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> (Option<f64>, u64) {
    indel_counted_known(a, b, false, s, budget)
}

/// [`indel`] of two texts that `ascii` says are both ASCII (the caller knows it: a normalised
/// text of an ASCII text is ASCII), without testing them again; `false` says nothing.
pub fn indel_known_ascii(
    a: &str,
    b: &str,
    ascii: bool,
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> Option<f64> {
    indel_counted_known(a, b, ascii, s, budget).0
}

/// [`indel_counted`], with [`indel_known_ascii`]'s `ascii`.
#[inline(always)]
fn indel_counted_known(
    a: &str,
    b: &str,
    ascii: bool,
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> (Option<f64>, u64) {
    let ((total, common), spent) = if let Some((total, common)) = indel_counts_known(a, b, ascii, s)
    {
        // at most MYERS_FIRST word steps (counted here from the bytes), which no budget stops
        let words = (a.len().min(b.len()) as u64).div_ceil(64);
        ((total, Some(common)), words * a.len().max(b.len()) as u64)
    } else if a.is_ascii() && b.is_ascii() {
        let (common, spent) = lcs_counted(a.as_bytes(), b.as_bytes(), s, budget);
        ((a.len() + b.len(), common), spent)
    } else {
        let mut ac = std::mem::take(&mut s.a);
        let mut bc = std::mem::take(&mut s.b);
        ac.clear();
        ac.extend(a.chars());
        bc.clear();
        bc.extend(b.chars());
        let (common, spent) = lcs_counted(&ac, &bc, s, budget);
        let total = ac.len() + bc.len();
        s.a = ac;
        s.b = bc;
        ((total, common), spent)
    };
    let Some(common) = common else {
        return (None, spent);
    };
    if total == 0 {
        return (Some(1.0), spent);
    }
    let distance = total - 2 * common;
    (Some(1.0 - distance as f64 / total as f64), spent)
}

/// `difflib.SequenceMatcher(None, a, b).ratio()` of CPython 3.11, or `None` when computing it
/// would take more than `budget` units of work (`None`: no bound).
pub fn sequence_matcher(
    a: &str,
    b: &str,
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> Option<f64> {
    sequence_matcher_counted(a, b, s, budget).0
}

/// [`sequence_matcher`], and the units of work it spent (all of them up to where it stopped).
pub fn sequence_matcher_counted(
    a: &str,
    b: &str,
    s: &mut RatioScratch,
    budget: Option<u64>,
) -> (Option<f64>, u64) {
    // Each distinct character of b gets an id (ASCII ones through a table, reset afterwards);
    // a's characters become those ids, or NO_ID for one b does not have, so equal ids are
    // equal characters and a NO_ID never equals an id of b.
    if s.ascii_ids.len() != 128 {
        s.ascii_ids.clear();
        s.ascii_ids.resize(128, NO_ID);
    }
    clear_for(&mut s.ids, b.len());
    s.b_ids.clear();
    let mut n_ids = 0u32;
    for c in b.chars() {
        let id = if c.is_ascii() {
            let slot = &mut s.ascii_ids[c as usize];
            if *slot == NO_ID {
                *slot = n_ids;
                n_ids += 1;
            }
            *slot
        } else {
            *s.ids.entry(c).or_insert_with(|| {
                n_ids += 1;
                n_ids - 1
            })
        };
        s.b_ids.push(id);
    }
    s.a_ids.clear();
    for c in a.chars() {
        s.a_ids.push(if c.is_ascii() {
            s.ascii_ids[c as usize]
        } else {
            s.ids.get(&c).copied().unwrap_or(NO_ID)
        });
    }
    for byte in b.bytes().filter(u8::is_ascii) {
        s.ascii_ids[usize::from(byte)] = NO_ID;
    }
    let (la, lb) = (s.a_ids.len(), s.b_ids.len());
    if la + lb == 0 {
        return (Some(1.0), 0);
    }
    let mut work = Work::new(budget, lb);
    let matches = matching_characters(s, n_ids as usize, &mut work);
    let spent = work.spent();
    (matches.map(|m| 2.0 * m as f64 / (la + lb) as f64), spent)
}

const NO_ID: u32 = u32::MAX;

/// Work left in a budget; spending past it ends the computation.
struct Work {
    budget: u64,
    left: u64,
    /// The price of one access to a random place of the arrays of b's positions (see
    /// [`access_price`]).
    access: u64,
}

impl Work {
    fn new(budget: Option<u64>, lb: usize) -> Self {
        let budget = budget.unwrap_or(u64::MAX);
        Work {
            budget,
            left: budget,
            access: access_price(lb),
        }
    }

    #[inline]
    fn spend(&mut self, units: u64) -> Option<()> {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                Some(())
            }
            None => {
                self.left = 0;
                None
            }
        }
    }

    /// The units spent (the whole budget once it ran out).
    fn spent(&self) -> u64 {
        self.budget - self.left
    }
}

/// The price of one access to a random entry of an array of `len` entries: from the cache
/// levels of a typical processor (L1/L2 up to 32,768 entries of a few words, L3 up to
/// 262,144), each level further costing about twice the one before, and the main memory
/// (with misses of the address translation) about eight times the cache.
fn access_price(len: usize) -> u64 {
    match len {
        0..=32_768 => 1,
        32_769..=262_144 => 2,
        262_145..=2_097_152 => 4,
        _ => 8,
    }
}

/// A suffix automaton step costs about this many dynamic-programme steps: the programme takes
/// the automaton's place where it would visit more pairs than this many a character.
const AUTOMATON_COST: u64 = 8;

/// The units of work of one character of a suffix automaton of `len` characters (built over
/// b's range, read over a's): a few probes and insertions of a hash table of about three
/// entries a character and of its arrays of states and edges, each at a random place. Measured
/// at 20-40 ns a character while the table is in the processor's caches, and up to 1.3 us once
/// it holds millions of entries (every probe a miss of the cache and of the address
/// translation).
fn automaton_price(len: usize) -> u64 {
    match len {
        0..=8_192 => 40,
        8_193..=65_536 => 80,
        65_537..=262_144 => 160,
        262_145..=1_048_576 => 400,
        _ => 1_000,
    }
}

/// The sum of the sizes of `get_matching_blocks()`, from `a_ids` and `b_ids` (`n_ids`
/// distinct ids in b).
fn matching_characters(s: &mut RatioScratch, n_ids: usize, work: &mut Work) -> Option<usize> {
    let (la, lb) = (s.a_ids.len(), s.b_ids.len());
    // b2j: the positions of each character of b, popular characters removed (autojunk).
    s.starts.clear();
    s.starts.resize(n_ids + 1, 0);
    for &id in &s.b_ids {
        s.starts[id as usize + 1] += 1;
    }
    let popular_above = if lb >= 200 { lb / 100 + 1 } else { usize::MAX };
    for id in 0..n_ids {
        if s.starts[id + 1] > popular_above {
            s.starts[id + 1] = 0;
        }
    }
    for id in 0..n_ids {
        s.starts[id + 1] += s.starts[id];
    }
    s.positions.clear();
    s.positions.resize(s.starts[n_ids], 0);
    // Fill in b order, so each character's positions are increasing.
    s.fill.clear();
    s.fill.extend_from_slice(&s.starts[..n_ids]);
    for (j, &id) in s.b_ids.iter().enumerate() {
        let id = id as usize;
        if s.fill[id] < s.starts[id + 1] {
            s.positions[s.fill[id]] = j;
            s.fill[id] += 1;
        }
    }
    s.len_prev.clear();
    s.len_prev.resize(lb, (0, 0));
    s.len_cur.clear();
    s.len_cur.resize(lb, (0, 0));
    s.stamp = 0;

    let mut total = 0;
    s.queue.clear();
    s.queue.push((0, la, 0, lb));
    while let Some((alo, ahi, blo, bhi)) = s.queue.pop() {
        let (i, j, k) = find_longest_match(s, alo, ahi, blo, bhi, work)?;
        if k > 0 {
            total += k;
            if alo < i && blo < j {
                s.queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                s.queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    Some(total)
}

/// Whether b's character `id` takes part in matches (it is in b and not popular).
#[inline]
fn matchable(s: &RatioScratch, id: u32) -> bool {
    id != NO_ID
        && s.starts.get(id as usize + 1).copied().unwrap_or(0)
            > s.starts.get(id as usize).copied().unwrap_or(0)
}

/// `SequenceMatcher.find_longest_match(alo, ahi, blo, bhi)` without junk (isjunk is None):
/// the longest block over non-popular characters, earliest in a then in b, extended on both
/// ends by equal characters (popular ones included).
///
/// The core block comes from difflib's own dynamic programme when the matching pairs in the
/// ranges are few, else from a suffix automaton of `b[blo..bhi]` (see [`Automaton`]).
fn find_longest_match(
    s: &mut RatioScratch,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
    work: &mut Work,
) -> Option<(usize, usize, usize)> {
    // The pairs the programme would visit, counted by two binary searches per character of a
    // (each step of a search an access to a random place of b's positions).
    let automaton_cost = AUTOMATON_COST * ((ahi - alo) + (bhi - blo)) as u64;
    let mut pairs = 0u64;
    let mut searched = 0u64;
    let mut seen = 0u64;
    for i in alo..ahi {
        let id = s.a_ids[i];
        seen += 1;
        if matchable(s, id) {
            let at = &s.positions[s.starts[id as usize]..s.starts[id as usize + 1]];
            let first = at.partition_point(|&j| j < blo);
            let last = at.partition_point(|&j| j < bhi);
            searched += u64::from((at.len() | 1).ilog2()) + 1;
            pairs += (last - first) as u64;
            if pairs > automaton_cost {
                break;
            }
        }
    }
    work.spend(seen + 2 * searched * work.access)?;
    #[cfg(test)]
    let pairs = if s.always_automaton { u64::MAX } else { pairs };
    let (mut besti, mut bestj, mut bestsize) = if pairs > automaton_cost {
        let price = automaton_price(bhi - blo);
        work.spend(price * ((ahi - alo) + (bhi - blo)) as u64)?;
        longest_by_automaton(s, alo, ahi, blo, bhi)
    } else {
        // (its own search of each character's first position, and its pairs)
        work.spend(seen + searched * work.access + pairs * work.access)?;
        longest_by_programme(s, alo, ahi, blo, bhi)
    };
    let (a, b) = (&s.a_ids, &s.b_ids);
    let before = besti;
    while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
        besti -= 1;
        bestj -= 1;
        bestsize += 1;
    }
    let ahead = bestsize;
    while besti + bestsize < ahi
        && bestj + bestsize < bhi
        && a[besti + bestsize] == b[bestj + bestsize]
    {
        bestsize += 1;
    }
    work.spend((before - besti + bestsize - ahead) as u64)?;
    Some((besti, bestj, bestsize))
}

/// difflib's programme: for each i, the run length ending at each matching j (`j2len`).
fn longest_by_programme(
    s: &mut RatioScratch,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
    // j2len of the previous row is the entries of len_prev stamped with `stamp - 1`.
    s.stamp += 2; // a fresh chain: no entry of an earlier call is read
    for i in alo..ahi {
        let row = s.stamp;
        let id = s.a_ids[i];
        if id != NO_ID {
            let id = id as usize;
            let at = &s.positions[s.starts[id]..s.starts[id + 1]];
            let first = at.partition_point(|&j| j < blo);
            for &j in &at[first..] {
                if j >= bhi {
                    break;
                }
                let k = match j.checked_sub(1).map(|p| s.len_prev[p]) {
                    Some((stamp, len)) if stamp == row - 1 => len + 1,
                    _ => 1,
                };
                s.len_cur[j] = (row, k);
                let k = k as usize;
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
        }
        std::mem::swap(&mut s.len_prev, &mut s.len_cur);
        s.stamp += 1;
    }
    (besti, bestj, bestsize)
}

/// The same block as [`longest_by_programme`], from a suffix automaton of `b[blo..bhi]`.
///
/// difflib keeps the longest run of matchable characters; of those, the one that ends first
/// in a; of those, the one that ends first in b. Reading a through the automaton gives, at each
/// i, the longest string ending there that occurs in b's range (matching statistics), and the
/// automaton's state holds the first place it ends in b.
fn longest_by_automaton(
    s: &mut RatioScratch,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let RatioScratch {
        automaton,
        a_ids,
        b_ids,
        starts,
        ..
    } = s;
    let is_matchable = |id: u32| {
        id != NO_ID
            && starts.get(id as usize + 1).copied().unwrap_or(0)
                > starts.get(id as usize).copied().unwrap_or(0)
    };
    automaton.build(b_ids.get(blo..bhi).unwrap_or(&[]), &is_matchable);
    let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
    let (mut state, mut len) = (0u32, 0usize);
    for (i, &id) in a_ids.iter().enumerate().take(ahi).skip(alo) {
        if !is_matchable(id) {
            state = 0;
            len = 0;
            continue;
        }
        loop {
            if let Some(next) = automaton.next(state, id) {
                state = next;
                len += 1;
                break;
            }
            if state == 0 {
                len = 0;
                break;
            }
            state = automaton.link(state);
            len = automaton.len(state);
        }
        if len > bestsize {
            let end = blo + automaton.first_end(state);
            besti = i + 1 - len;
            bestj = end + 1 - len;
            bestsize = len;
        }
    }
    (besti, bestj, bestsize)
}

/// A suffix automaton of a sequence of ids, popular characters read as one separator that
/// nothing matches. Transitions live in one hash table keyed by (state, id); each state's are
/// also chained, to copy them when a state is cloned.
#[derive(Default)]
struct Automaton {
    len: Vec<u32>,
    link: Vec<u32>,
    first_end: Vec<u32>,
    /// The first of the state's transitions in `edges` (`NONE_EDGE`: none).
    head: Vec<u32>,
    /// (id, target, next edge of the same state).
    edges: Vec<(u32, u32, u32)>,
    table: HashMap<u64, u32, BuildHasherDefault<CharHasher>>,
}

const NONE_EDGE: u32 = u32::MAX;
/// The id the separator (a popular character) gets in the automaton.
const SEPARATOR: u32 = u32::MAX - 1;

impl Automaton {
    #[inline]
    fn key(state: u32, id: u32) -> u64 {
        (u64::from(state) << 32) | u64::from(id)
    }

    #[inline]
    fn next(&self, state: u32, id: u32) -> Option<u32> {
        self.table
            .get(&Automaton::key(state, id))
            .and_then(|&e| self.edges.get(e as usize))
            .map(|&(_, target, _)| target)
    }

    fn link(&self, state: u32) -> u32 {
        self.link.get(state as usize).copied().unwrap_or(0)
    }

    fn len(&self, state: u32) -> usize {
        self.len.get(state as usize).copied().unwrap_or(0) as usize
    }

    fn first_end(&self, state: u32) -> usize {
        self.first_end.get(state as usize).copied().unwrap_or(0) as usize
    }

    fn new_state(&mut self, len: u32, link: u32, first_end: u32) -> u32 {
        self.len.push(len);
        self.link.push(link);
        self.first_end.push(first_end);
        self.head.push(NONE_EDGE);
        (self.len.len() - 1) as u32
    }

    fn set(&mut self, state: u32, id: u32, target: u32) {
        match self.table.get(&Automaton::key(state, id)) {
            Some(&e) => {
                if let Some(edge) = self.edges.get_mut(e as usize) {
                    edge.1 = target;
                }
            }
            None => {
                let e = self.edges.len() as u32;
                let head = self.head.get(state as usize).copied().unwrap_or(NONE_EDGE);
                self.edges.push((id, target, head));
                if let Some(h) = self.head.get_mut(state as usize) {
                    *h = e;
                }
                self.table.insert(Automaton::key(state, id), e);
            }
        }
    }

    /// Build the automaton of `text` (ids; the ones `matchable` refuses become the separator).
    fn build(&mut self, text: &[u32], matchable: &impl Fn(u32) -> bool) {
        self.len.clear();
        self.link.clear();
        self.first_end.clear();
        self.head.clear();
        self.edges.clear();
        // a suffix automaton of n characters has fewer than 3n transitions
        clear_for(&mut self.table, 3 * text.len());
        self.new_state(0, 0, 0);
        let mut last = 0u32;
        for (pos, &raw) in text.iter().enumerate() {
            let id = if matchable(raw) { raw } else { SEPARATOR };
            let cur = self.new_state(self.len(last) as u32 + 1, 0, pos as u32);
            let mut p = Some(last);
            while let Some(state) = p {
                if self.next(state, id).is_some() {
                    break;
                }
                self.set(state, id, cur);
                p = (state != 0).then(|| self.link(state));
            }
            match p {
                None => {} // reached past the root: the link stays the root
                Some(state) => {
                    let q = self.next(state, id).unwrap_or(0);
                    if self.len(state) + 1 == self.len(q) {
                        self.link[cur as usize] = q;
                    } else {
                        let clone = self.new_state(
                            self.len(state) as u32 + 1,
                            self.link(q),
                            self.first_end.get(q as usize).copied().unwrap_or(0),
                        );
                        let mut e = self.head.get(q as usize).copied().unwrap_or(NONE_EDGE);
                        while let Some(&(edge_id, target, next)) = self.edges.get(e as usize) {
                            self.set(clone, edge_id, target);
                            e = next;
                        }
                        let mut p = Some(state);
                        while let Some(state) = p {
                            if self.next(state, id) != Some(q) {
                                break;
                            }
                            self.set(state, id, clone);
                            p = (state != 0).then(|| self.link(state));
                        }
                        self.link[q as usize] = clone;
                        self.link[cur as usize] = clone;
                    }
                }
            }
            last = cur;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcs_dp;

    #[test]
    fn indel_examples_and_blocks() {
        let mut s = RatioScratch::default();
        assert_eq!(indel("tide", "diet", &mut s, None), Some(0.5));
        assert_eq!(indel("", "", &mut s, None), Some(1.0));
        assert_eq!(indel("abc", "xyz", &mut s, None), Some(0.0));
        let mut next = crate::testing::lcg(7);
        for alphabet in [
            ['a', 'b', 'c', 'é', '😀', ' '],
            ['a', 'b', 'c', 'd', 'e', ' '],
        ] {
            for _ in 0..200 {
                let a: String = (0..next() % 200).map(|_| alphabet[next() % 6]).collect();
                let b: String = (0..next() % 200).map(|_| alphabet[next() % 6]).collect();
                let ac: Vec<char> = a.chars().collect();
                let bc: Vec<char> = b.chars().collect();
                let expected = lcs_dp(&ac, &bc);
                assert_eq!(lcs(&ac, &bc, &mut s, None), Some(expected), "{a} / {b}");
                assert_eq!(
                    crate::lcs::myers(&ac, &bc, u64::MAX, &mut Vec::new()),
                    Some(expected)
                );
                if a.is_ascii() && b.is_ascii() {
                    assert_eq!(
                        lcs(a.as_bytes(), b.as_bytes(), &mut s, None),
                        Some(expected)
                    );
                }
                let total = (ac.len() + bc.len()).max(1) as f64;
                let want = 1.0 - (ac.len() + bc.len() - 2 * expected) as f64 / total;
                assert_eq!(indel(&a, &b, &mut s, None), Some(want));
            }
        }
    }

    #[test]
    fn the_counts_on_the_texts_are_the_counts_on_characters() {
        // Texts with a common prefix and suffix (cut inside a character's bytes where
        // characters share their first bytes: é ê ë, 日 旦, 😀 😁), middles of up to 300
        // characters (patterns of one to four words, and past them), ASCII or not on each side.
        let alphabets: [&[char]; 4] = [
            &['a', 'b', ' ', 'é', 'ê', 'ë'],
            &['日', '旦', 'x', '😀', '😁'],
            &['a', 'b', 'c', 'd'],
            &['é', 'ê'],
        ];
        let mut s = RatioScratch::default();
        let mut seed = 3u64;
        let mut fast = 0;
        for round in 0..2_000 {
            let pick = |seed: &mut u64, k: usize| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (*seed >> 33) as usize % k
            };
            let (x, y) = (pick(&mut seed, 4), pick(&mut seed, 4));
            let max = if round % 4 == 0 { 300 } else { 70 };
            let (na, nb, np, ns) = (
                pick(&mut seed, max),
                pick(&mut seed, max),
                pick(&mut seed, 4),
                pick(&mut seed, 4),
            );
            let prefix = random_text(&mut seed, np, alphabets[x]);
            let suffix = random_text(&mut seed, ns, alphabets[y]);
            let a = format!(
                "{prefix}{}{suffix}",
                random_text(&mut seed, na, alphabets[x])
            );
            let b = format!(
                "{prefix}{}{suffix}",
                random_text(&mut seed, nb, alphabets[y])
            );
            let ac: Vec<char> = a.chars().collect();
            let bc: Vec<char> = b.chars().collect();
            let want = (ac.len() + bc.len(), lcs_dp(&ac, &bc));
            if let Some(got) = indel_counts(&a, &b, &mut s) {
                fast += 1;
                assert_eq!(got, want, "{a:?} {b:?}");
            }
            assert_eq!(lcs(&ac, &bc, &mut s, None), Some(want.1));
        }
        assert!(fast > 1_500, "{fast}");
    }

    #[test]
    fn a_long_text_read_by_its_members_gives_the_same_counts() {
        // Patterns of up to 64 characters (or, a round in four, 256: the loops of more words),
        // ASCII or not, against texts 64 to 400 bytes longer in which many bytes are not in
        // the pattern (other letters, NUL, DEL, characters that are not ASCII), so that blocks
        // skip bytes, whole blocks and the padded last one: the dynamic programme's counts.
        let mut next = crate::testing::lcg(53);
        let mut s = RatioScratch::default();
        let pattern_chars = ['a', 'b', 'c', ' ', '\0', '\x7f', 'é'];
        let text_chars = [
            'a', 'b', 'c', ' ', 'x', 'y', 'z', 'q', '\0', '\x7f', 'é', '日', 'A', '0', '9',
        ];
        for round in 0..2_000 {
            let m = 1 + next() % if round % 4 == 0 { 256 } else { 64 };
            let ascii = round % 2 == 0;
            let a: String = (0..m)
                .map(|_| pattern_chars[next() % (pattern_chars.len() - usize::from(ascii))])
                .collect();
            let n = m + 64 + next() % 340;
            let b = drawn(&mut next, &text_chars, n);
            let b = if round % 3 == 0 {
                b.chars().filter(char::is_ascii).collect()
            } else {
                b
            };
            assert_counts_both_ways(&a, &b, &mut s);
        }
    }

    #[test]
    fn wide_texts_read_by_their_lead_bytes_give_the_same_counts() {
        // Patterns that are not ASCII against longer texts that are not either, with
        // characters of every UTF-8 length, some sharing a first byte with a character of the
        // pattern and some not ('é' and 'ö' share 0xC3, 'ж' and 'Ж' 0xD0, '😀' and '😁' 0xF0;
        // 'ق', '日', 'ñ' share none with the pattern), and texts that hold the whole pattern
        // early (the loop then ends at that block) or late: the dynamic programme's counts.
        let mut next = crate::testing::lcg(71);
        let mut s = RatioScratch::default();
        let pattern_chars = ['a', 'b', ' ', 'é', 'ж', '😀', '中'];
        let text_chars = [
            'a', 'b', 'x', ' ', 'é', 'ö', 'ж', 'Ж', '😀', '😁', '中', 'ق', '日', 'ñ', '0',
        ];
        for round in 0..3_000 {
            let m = 1 + next() % 64;
            let mut a = drawn(&mut next, &pattern_chars, m);
            if a.is_ascii() {
                a.push('中');
            }
            let n = m + 64 + next() % 400;
            let mut b = drawn(&mut next, &text_chars, n);
            match round % 3 {
                // The pattern whole, then more text: the state is done in an early block.
                0 => b.insert_str(0, &a),
                // The pattern's characters spread over the text, at a block's edge or not.
                1 => {
                    let at = b
                        .char_indices()
                        .nth(next() % 70)
                        .map_or(b.len(), |(i, _)| i);
                    b.insert_str(at, &a);
                }
                _ => {}
            }
            assert_counts_both_ways(&a, &b, &mut s);
        }
    }

    #[test]
    fn common_ends_by_words_are_the_common_ends_by_bytes() {
        // Texts of 0 to 40 bytes over a small alphabet, the second often the first with an
        // edit near either end (or none): the byte-at-a-time counts.
        let mut next = crate::testing::lcg(17);
        for _ in 0..20_000 {
            let a: Vec<u8> = (0..next() % 41).map(|_| b"ab"[next() % 2]).collect();
            let mut b = a.clone();
            match next() % 4 {
                0 if !b.is_empty() => {
                    let k = next() % b.len();
                    b[k] ^= 1;
                }
                1 => b.insert(0, b'x'),
                2 => b.truncate(b.len().saturating_sub(next() % 10)),
                _ => b = (0..next() % 41).map(|_| b"ab"[next() % 2]).collect(),
            }
            let suffix = a
                .iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            assert_eq!(common_suffix(&a, &b), suffix, "{a:?} {b:?}");
            assert_eq!(common_prefix(&a, &b), prefix, "{a:?} {b:?}");
        }
    }

    #[test]
    fn patterns_at_the_edges_of_words() {
        // ASCII patterns of 63 to 129 characters (one word, two, three) against
        // texts of 0 to 300 bytes, some the pattern itself with a few edits (so that the loop
        // ends early once every character is matched): the dynamic programme's counts.
        let mut next = crate::testing::lcg(29);
        let mut s = RatioScratch::default();
        let letters = ['a', 'b', 'c', 'd', ' ', 'x'];
        for m in [63, 64, 65, 66, 100, 127, 128, 129] {
            for round in 0..40 {
                let a: String = (0..m).map(|_| letters[next() % 4]).collect();
                let b: String = if round % 2 == 0 {
                    let n = m + next() % 200;
                    (0..n).map(|_| letters[next() % letters.len()]).collect()
                } else {
                    let mut b: Vec<char> = a.chars().collect();
                    for _ in 0..next() % 4 {
                        let at = next() % b.len();
                        b[at] = 'x';
                    }
                    let tail: String = (0..next() % 100).map(|_| letters[next() % 6]).collect();
                    format!("{tail}{}{tail}", b.iter().collect::<String>())
                };
                let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let want = lcs_dp(&ac, &bc);
                assert_eq!(
                    indel_counts(&a, &b, &mut s).map(|x| x.1),
                    Some(want),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    /// For each alphabet and pattern length `m`: a pattern of `m` random characters against a
    /// random text up to `longer(m)` characters longer (even `m`) or the pattern with a few
    /// edits (odd `m`), both ways round, as characters and (ASCII) as bytes, and through the
    /// scalar recurrence that processors without AVX2 run: the dynamic programme's counts.
    fn check_pattern_widths(
        seed: u64,
        alphabets: &[&[char]],
        lengths: &[usize],
        longer: impl Fn(usize) -> usize,
    ) {
        let mut next = crate::testing::lcg(seed);
        let mut s = RatioScratch::default();
        for letters in alphabets {
            for &m in lengths {
                let a: String = (0..m).map(|_| letters[next() % letters.len()]).collect();
                let b: String = if m % 2 == 0 {
                    (0..m + next() % longer(m))
                        .map(|_| letters[next() % letters.len()])
                        .collect()
                } else {
                    let mut b: Vec<char> = a.chars().collect();
                    for _ in 0..next() % 6 {
                        let at = next() % b.len();
                        b[at] = 'x';
                    }
                    b.into_iter().collect()
                };
                let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let want = lcs_dp(&ac, &bc);
                assert_eq!(lcs_bit_parallel(&ac, &bc, &mut s), want, "m={m}");
                assert_eq!(lcs_bit_parallel(&bc, &ac, &mut s), want, "m={m}");
                let (pattern, text) = if ac.len() <= bc.len() {
                    (&ac, &bc)
                } else {
                    (&bc, &ac)
                };
                assert_eq!(lcs_scalar(pattern, text, &mut s), want, "m={m}");
                if a.is_ascii() && b.is_ascii() {
                    let got = lcs_bit_parallel(a.as_bytes(), b.as_bytes(), &mut s);
                    assert_eq!(got, want, "m={m}");
                }
            }
        }
    }

    #[test]
    fn patterns_of_five_to_seventeen_words() {
        // The fixed-width states (5 to 16 words) and the first pattern past them, on ASCII
        // and on text with other characters.
        check_pattern_widths(
            31,
            &[&['a', 'b', ' ', 'c'], &['a', 'é', ' ', '\u{4e00}', 'b']],
            &[
                257, 300, 320, 321, 448, 512, 513, 700, 960, 1023, 1024, 1025, 1100,
            ],
            |_| 300,
        );
    }

    #[test]
    fn patterns_of_six_to_thirty_three_words() {
        // The AVX2 states (6 to 32 words, in 2 to 8 vectors) at their edges and the first
        // pattern past them, against texts of up to 5,000 characters, ASCII and not,
        // whichever path the processor takes.
        check_pattern_widths(
            37,
            &[
                &['a', 'b', ' ', 'c', 'd', 'e'],
                &['a', 'é', ' ', '\u{4e00}', 'b'],
            ],
            &[
                321, 384, 385, 448, 449, 512, 513, 600, 640, 641, 767, 768, 769, 1024, 1025, 1300,
                1536, 1537, 1800, 2047, 2048, 2049,
            ],
            |m| 5_000 - m,
        );
    }

    #[test]
    fn patterns_of_thirty_three_to_sixty_five_words() {
        // The AVX2 states of 9 vectors and more (33 words on), kept in memory, at their edges,
        // against texts up to 1,500 characters longer, ASCII and not.
        check_pattern_widths(
            43,
            &[
                &['a', 'b', ' ', 'c', 'd', 'e'],
                &['a', 'é', ' ', '\u{4e00}', 'b'],
            ],
            &[
                2049, 2111, 2112, 2113, 2305, 3000, 3071, 3072, 4096, 4097, 4160,
            ],
            |_| 1_500,
        );
    }

    /// The LCS of `short` and `long` by the AVX2 recurrence both ways round (the long text as
    /// the pattern with exact carries, the short one as the pattern as `lcs_bit_parallel` runs
    /// it), against the dynamic programme.
    #[cfg(target_arch = "x86_64")]
    fn check_long_patterns<T: Unit>(short: &[T], long: &[T], s: &mut RatioScratch) {
        let want = lcs_dp(short, long);
        let n = long.len();
        assert_eq!(lcs_avx2(long, short, s, true), want, "{} {n}", short.len());
        if short.len().div_ceil(64) >= AVX2_WORDS.0 {
            assert_eq!(lcs_avx2(short, long, s, false), want, "{} {n}", short.len());
        }
        assert_eq!(
            lcs_bit_parallel(short, long, s),
            want,
            "{} {n}",
            short.len()
        );
        assert_eq!(
            lcs_bit_parallel(long, short, s),
            want,
            "{} {n}",
            short.len()
        );
    }

    #[test]
    fn long_texts_as_the_pattern_are_exact() {
        // A short text against a long one taken as the pattern (8 to 130 words, the vectors
        // in memory with exact carries): its words stay all ones until a character of theirs
        // comes, so carries run through whole words at most steps, and the passes that find
        // the carries into vector 0 otherwise than guessed are done again. Random texts, ASCII
        // and not, and texts whose long side is the short one with insertions (most of its
        // words matched, and carries across lanes); the steps done again are counted.
        if !crate::cpu::has_avx2() {
            return;
        }
        let mut next = crate::testing::lcg(47);
        let mut s = RatioScratch::default();
        let before = wide::RIPPLES.with(|n| n.get());
        // Many letters leave words without any of a step's letter, all ones.
        // (NUL among them: the last word of a pattern read as bytes is padded with zeros.)
        let many: Vec<char> = ('0'..='9')
            .chain('a'..='z')
            .chain('A'..='Z')
            .chain(['\0'])
            .collect();
        let wide: Vec<char> = ('a'..='t').chain('\u{e0}'..='\u{f3}').collect();
        let alphabets: [&[char]; 4] = [
            &['a', 'b', ' ', 'c', 'd', 'e', 'f', 'g'],
            &many,
            &wide,
            &['x', 'y'],
        ];
        for round in 0..64 {
            let letters = alphabets[round % 4];
            let n = [500, 1023, 1024, 1025, 2047, 2048, 3000, 4097, 8320][round % 9];
            let m = 1 + next() % 1_200.min(n);
            let long: Vec<char> = (0..n).map(|_| letters[next() % letters.len()]).collect();
            let short: Vec<char> = if round % 2 == 0 {
                (0..m).map(|_| letters[next() % letters.len()]).collect()
            } else {
                // An ordered sample of the long text, a few characters changed.
                let mut picked: Vec<char> =
                    long.iter().copied().filter(|_| next() % n < m).collect();
                for _ in 0..next() % 8 {
                    if !picked.is_empty() {
                        let at = next() % picked.len();
                        picked[at] = 'z';
                    }
                }
                picked
            };
            check_long_patterns(&short, &long, &mut s);
            let (a, b): (String, String) = (short.iter().collect(), long.iter().collect());
            if a.is_ascii() && b.is_ascii() {
                check_long_patterns(a.as_bytes(), b.as_bytes(), &mut s);
            }
        }
        let again = wide::RIPPLES.with(|n| n.get()) - before;
        assert!(again > 100, "{again}");
    }

    #[test]
    fn carries_through_whole_words_are_exact() {
        // Each word of the pattern drawn from two letters of its own, and texts that take one
        // pair of letters for a while, then another: a word whose letters have not come yet is
        // all ones, and a carry into it runs on through it into the words above (the steps
        // the vectors of the AVX2 recurrence do again word by word). The dynamic programme's
        // counts, the scalar recurrence's, and (with AVX2) the steps done again counted.
        let mut next = crate::testing::lcg(41);
        let mut s = RatioScratch::default();
        #[cfg(target_arch = "x86_64")]
        let before = wide::RIPPLES.with(|n| n.get());
        for round in 0..80 {
            let words = 6 + round % 40;
            let m = 64 * words - next() % 64;
            let pair = |w: usize| [b'0' + (2 * w) as u8, b'0' + (2 * w + 1) as u8];
            let pattern: Vec<u8> = (0..m).map(|i| pair(i / 64)[next() % 2]).collect();
            let mut text = Vec::new();
            while text.len() < 3_000 {
                let letters = pair(next() % words);
                let run = 1 + next() % 300;
                text.extend((0..run).map(|_| letters[next() % 2]));
            }
            let want = lcs_dp(&pattern, &text);
            assert_eq!(lcs_bit_parallel(&pattern, &text, &mut s), want, "{words}");
            assert_eq!(lcs_scalar(&pattern, &text, &mut s), want, "{words}");
            #[cfg(target_arch = "x86_64")]
            if crate::cpu::has_avx2() {
                // Both AVX2 states, whatever `lcs_bit_parallel` chose, and the text as the
                // pattern (its carries exact).
                assert_eq!(lcs_avx2(&pattern, &text, &mut s, false), want, "{words}");
                assert_eq!(lcs_avx2(&pattern, &text, &mut s, true), want, "{words}");
                assert_eq!(lcs_avx2(&text, &pattern, &mut s, true), want, "{words}");
            }
            set_masks(&pattern, words, &mut s);
            let plain = lcs_many_words(&text, m, words, &mut s);
            clear_masks(&pattern, words, &mut s);
            assert_eq!(plain, want, "{words}");
        }
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has_avx2() {
            let ripples = wide::RIPPLES.with(|n| n.get()) - before;
            assert!(ripples > 100, "{ripples}");
        }
    }

    #[test]
    fn sequence_matcher_examples() {
        let mut s = RatioScratch::default();
        assert_eq!(sequence_matcher("tide", "diet", &mut s, None), Some(0.25));
        assert_eq!(sequence_matcher("diet", "tide", &mut s, None), Some(0.5));
        assert_eq!(sequence_matcher("", "", &mut s, None), Some(1.0));
        assert_eq!(sequence_matcher("abc", "", &mut s, None), Some(0.0));
    }

    /// `n` characters drawn from `chars` by `next`.
    fn drawn(next: &mut impl FnMut() -> usize, chars: &[char], n: usize) -> String {
        (0..n).map(|_| chars[next() % chars.len()]).collect()
    }

    /// Checks [`indel_counts`] of `a` against `b`, and of `b` against `a`, with the dynamic
    /// programme's counts (the lengths' sum in characters, the longest common subsequence).
    fn assert_counts_both_ways(a: &str, b: &str, s: &mut RatioScratch) {
        let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let want = (ac.len() + bc.len(), lcs_dp(&ac, &bc));
        assert_eq!(indel_counts(a, b, s), Some(want), "{a:?} {b:?}");
        assert_eq!(indel_counts(b, a, s), Some(want), "{a:?} {b:?}");
    }

    fn random_text(seed: &mut u64, len: usize, alphabet: &[char]) -> String {
        (0..len)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(*seed >> 33) as usize % alphabet.len()]
            })
            .collect()
    }

    #[test]
    fn the_automaton_finds_difflibs_blocks() {
        // Every longest-match search by the automaton against difflib's own programme, on texts
        // of few and many characters, short (no autojunk) and long (popular ones dropped), alike
        // and unlike.
        let small: Vec<char> = "abcé ".chars().collect();
        let large: Vec<char> = (0..300u32)
            .filter_map(|i| char::from_u32(0x4e00 + i))
            .collect();
        let mut seed = 11u64;
        let (mut programme, mut automaton) = (RatioScratch::default(), RatioScratch::default());
        automaton.always_automaton = true;
        for (alphabet, len) in [(&small, 30), (&small, 250), (&large, 400), (&large, 3000)] {
            for _ in 0..20 {
                let a = random_text(&mut seed, len, alphabet);
                let mut b = random_text(&mut seed, len / 2, alphabet);
                b.push_str(&a.chars().skip(len / 3).take(len / 2).collect::<String>());
                for (x, y) in [(&a, &b), (&b, &a), (&a, &a)] {
                    let want = sequence_matcher(x, y, &mut programme, None);
                    assert_eq!(
                        sequence_matcher(x, y, &mut automaton, None),
                        want,
                        "{x} {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_blocked_recurrence_equals_the_plain_one() {
        let mut s = RatioScratch::default();
        let mut seed = 9u64;
        // (the last alphabet: more characters than a block of the pattern holds)
        let many: String = (0..20_000u32)
            .filter_map(|i| char::from_u32(0x4e00 + i))
            .collect();
        for alphabet in ["ab", "abcdefgh ", "aé😀 xyz", many.as_str()] {
            let alphabet: Vec<char> = alphabet.chars().collect();
            for (n, m) in [(20_000, 17_000), (16_385, 40_000), (33_000, 5)] {
                let a: Vec<char> = random_text(&mut seed, n, &alphabet).chars().collect();
                let b: Vec<char> = random_text(&mut seed, m, &alphabet).chars().collect();
                let (pattern, text) = if a.len() <= b.len() {
                    (&a, &b)
                } else {
                    (&b, &a)
                };
                let words = pattern.len().div_ceil(64);
                let blocked = lcs_bit_parallel(&a, &b, &mut s);
                assert!(words > BLOCK_WORDS || blocked == lcs_dp(&a, &b));
                // the plain word-by-word recurrence on the same masks
                set_masks(pattern, words, &mut s);
                let plain = lcs_many_words(text, pattern.len(), words, &mut s);
                clear_masks(pattern, words, &mut s);
                assert_eq!(blocked, plain, "{n} {m}");
            }
        }
    }

    #[test]
    fn a_budget_ends_the_long_rows() {
        let mut s = RatioScratch::default();
        let alphabet: Vec<char> = "abcdefgh".chars().collect();
        let mut seed = 5u64;
        let a = random_text(&mut seed, 20_000, &alphabet);
        let b = random_text(&mut seed, 20_000, &alphabet);
        assert!(indel(&a, &b, &mut s, Some(1_000)).is_none());
        let full = indel(&a, &b, &mut s, None);
        assert!(full.is_some());
        assert_eq!(indel(&a, &b, &mut s, Some(10_000_000)), full);
        // nearly equal texts: Myers' algorithm, far below the recurrence's cost
        let mut c = a.clone();
        c.insert(10_000, 'x');
        c.replace_range(15_000..15_001, "y");
        let near = indel(&a, &c, &mut s, Some(200_000));
        assert_eq!(near, indel(&a, &c, &mut s, None));
        assert!(near.is_some());
        assert!(sequence_matcher(&a, &b, &mut s, Some(1_000)).is_none());
        assert!(sequence_matcher(&a, &b, &mut s, Some(u64::MAX)).is_some());
    }

    #[test]
    fn the_counted_work_is_where_the_budget_stops() {
        // difflib's work is the same whatever the budget: a budget of exactly that work scores
        // the row, one unit less stops it (and spends it all). The LCS's never exceeds its
        // budget when it scores (or a few million units, which no budget stops).
        let mut s = RatioScratch::default();
        let mut seed = 17u64;
        let alphabets: [Vec<char>; 3] = [
            "abcdefgh ".chars().collect(),
            (0..150u32)
                .filter_map(|i| char::from_u32(0x4e00 + i))
                .collect(),
            "abcdefghijklmnopqrstuvwxyz".chars().collect(),
        ];
        for alphabet in &alphabets {
            for (n, m) in [(300, 5_000), (5_000, 300), (20_000, 20_000)] {
                let a = random_text(&mut seed, n, alphabet);
                let b = random_text(&mut seed, m, alphabet);
                let (ratio, work) = sequence_matcher_counted(&a, &b, &mut s, None);
                assert!(ratio.is_some() && work > 0);
                let at = sequence_matcher_counted(&a, &b, &mut s, Some(work));
                assert_eq!(at, (ratio, work));
                let under = sequence_matcher_counted(&a, &b, &mut s, Some(work - 1));
                assert_eq!(under, (None, work - 1));
                for budget in [1_000, 1_000_000, 100_000_000] {
                    if let (Some(_), spent) = indel_counted(&a, &b, &mut s, Some(budget)) {
                        // (under MYERS_FIRST word steps the recurrence runs whatever the budget)
                        assert!(spent <= budget.max(MYERS_FIRST), "{spent} {budget}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_short_text_after_a_long_one_clears_only_what_it_needs() {
        // Many distinct characters grow the maps; the short texts after them must find a small
        // map of ids (clearing one costs its capacity) and the same ratios as a fresh scratch.
        let wide: Vec<char> = (0..5_000u32)
            .filter_map(|i| char::from_u32(0x4e00 + i))
            .collect();
        let mut seed = 11u64;
        let a = random_text(&mut seed, 20_000, &wide);
        let b = random_text(&mut seed, 20_000, &wide);
        let mut s = RatioScratch::default();
        sequence_matcher(&a, &b, &mut s, None);
        indel(&a, &b, &mut s, None);
        for (x, y) in [
            ("caf\u{e9} na\u{ef}ve", "na\u{ef}ve caf\u{e9}"),
            ("\u{4e00}\u{4e01}", "\u{4e01}"),
        ] {
            let fresh = &mut RatioScratch::default();
            assert_eq!(
                sequence_matcher(x, y, &mut s, None),
                sequence_matcher(x, y, fresh, None)
            );
            assert_eq!(indel(x, y, &mut s, None), indel(x, y, fresh, None));
            // (the masks' and the automaton's maps are cleared only by the paths that use them,
            // which these short texts do not take)
            assert!(s.ids.capacity() <= 4 * 16 * 2, "{}", s.ids.capacity());
        }
        let mut map: CharMap<u32> = CharMap::default();
        map.extend((0..10_000u32).filter_map(|i| Some((char::from_u32(0x4e00 + i)?, i))));
        clear_for(&mut map, 10_000);
        assert!(
            map.is_empty() && map.capacity() >= 10_000,
            "kept: the next input needs it"
        );
        map.extend((0..10_000u32).filter_map(|i| Some((char::from_u32(0x4e00 + i)?, i))));
        clear_for(&mut map, 10);
        assert!(
            map.is_empty() && map.capacity() < 1_000,
            "dropped: {}",
            map.capacity()
        );
    }
}
