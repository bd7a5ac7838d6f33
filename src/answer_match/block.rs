//! The byte classes answer_match's normalisation reads from 64 bytes at once, one bit per byte
//! (byte `k`'s is bit `k`).
//!
//! `crate::ascii::classify` gives the classes of `\w` scans (letters and digits together); the
//! normalisation needs letters apart from digits, and the marks (`.`, `'`) its rewrites start on.
//! On x86_64 sixteen bytes at a time with SSE2 (the normalisation's block scan runs the AVX2 or
//! AVX-512 version where the processor has it), elsewhere a byte at a time (the tests' check of
//! the others).

use crate::pyunicode::Tables;

/// The classes of 64 bytes. A byte of 0x80 or more is in `word` and in no other class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Classes {
    /// ASCII letters, `[A-Za-z]`.
    pub letter: u64,
    /// ASCII capitals, `[A-Z]` (only when asked for: zero otherwise).
    pub upper: u64,
    /// ASCII digits, `[0-9]`.
    pub digit: u64,
    /// The other bytes of words: `_`, and every byte of 0x80 or more.
    pub word: u64,
    /// `_` alone.
    pub underscore: u64,
    pub dot: u64,
    pub comma: u64,
    pub apostrophe: u64,
}

impl Classes {
    /// Record one vector lane of a block (16 or 32 bytes) at bit `shift`: its letters, digits,
    /// `_` and bytes of 0x80 or more, as bits; the bytes `equal` finds for `.`, `,` and `'`; and
    /// with `UPPER`, the capitals `upper` finds. The SSE2 and AVX2 classifications share it.
    #[cfg_attr(
        not(all(target_arch = "x86_64", not(feature = "portable"))),
        allow(dead_code)
    )]
    #[inline(always)]
    fn add_lane<const UPPER: bool>(
        &mut self,
        shift: u32,
        [letter, digit, underscore, high]: [u64; 4],
        equal: impl Fn(u8) -> u64,
        upper: impl FnOnce() -> u64,
    ) {
        self.letter |= letter << shift;
        self.digit |= digit << shift;
        self.underscore |= underscore << shift;
        self.word |= (underscore | high) << shift;
        self.dot |= equal(b'.') << shift;
        self.comma |= equal(b',') << shift;
        self.apostrophe |= equal(b'\'') << shift;
        if UPPER {
            self.upper |= upper() << shift;
        }
    }
}

/// The classes of the 64 bytes of `block`; `upper` is filled only when `UPPER`: with SSE2 on
/// x86_64 (where the normalisation's block scan runs [`avx2::classify`] instead when the
/// processor has AVX2), else a byte at a time.
///
/// `words` gets the block as its words are written: ASCII letters lower-cased, digits and `_`
/// as they are, every other byte a space.
#[inline(always)]
pub(super) fn classify<const UPPER: bool>(block: &[u8; 64], words: &mut [u8; 64]) -> Classes {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::classify::<UPPER>(block, words)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        classify_bytes::<UPPER>(block, words)
    }
}

/// [`classify`] a byte at a time: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
fn classify_bytes<const UPPER: bool>(block: &[u8; 64], words: &mut [u8; 64]) -> Classes {
    let mut c = Classes::default();
    for (k, (&x, w)) in block.iter().zip(words.iter_mut()).enumerate() {
        let bit = 1u64 << k;
        *w = match x {
            b'A'..=b'Z' => x | 0x20,
            b'a'..=b'z' | b'0'..=b'9' | b'_' => x,
            _ => b' ',
        };
        match x {
            b'A'..=b'Z' => {
                c.letter |= bit;
                if UPPER {
                    c.upper |= bit;
                }
            }
            b'a'..=b'z' => c.letter |= bit,
            b'0'..=b'9' => c.digit |= bit,
            b'_' => {
                c.word |= bit;
                c.underscore |= bit;
            }
            0x80..=0xff => c.word |= bit,
            b'.' => c.dot |= bit,
            b',' => c.comma |= bit,
            b'\'' => c.apostrophe |= bit,
            _ => {}
        }
    }
    c
}

/// The spaces among the 64 bytes of `block`.
#[inline(always)]
pub(super) fn spaces(block: &[u8; 64]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::spaces(block)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        spaces_bytes(block)
    }
}

/// [`spaces`] a byte at a time: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
fn spaces_bytes(block: &[u8; 64]) -> u64 {
    let mut mask = 0;
    for (k, &x) in block.iter().enumerate() {
        mask |= u64::from(x == b' ') << k;
    }
    mask
}

/// Whether an ASCII lower-case letter of `bytes` (any bytes) comes right before an ASCII
/// upper-case one (`isIdaho`), 64 bytes at a time: the lower-case mask of each block, moved one
/// byte on, meets its upper-case mask.
pub(crate) fn lower_before_upper(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        if crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2, which is all the function needs.
            return unsafe { avx2::lower_before_upper(bytes) };
        }
    }
    lower_before_upper_by(bytes, cases)
}

/// [`lower_before_upper`] with `cases` giving a block's lower-case and upper-case letters.
#[inline(always)]
fn lower_before_upper_by(bytes: &[u8], cases: impl Fn(&[u8; 64]) -> (u64, u64)) -> bool {
    // Bit 0 set when the byte before the block was lower-case.
    let mut carry = 0u64;
    let mut chunks = bytes.chunks_exact(64);
    for chunk in &mut chunks {
        let Some(block) = chunk.first_chunk::<64>() else {
            break;
        };
        let (lower, upper) = cases(block);
        if upper & ((lower << 1) | carry) != 0 {
            return true;
        }
        carry = lower >> 63;
    }
    // Zeros past the end: no letter.
    let mut padded = [0u8; 64];
    for (to, &from) in padded.iter_mut().zip(chunks.remainder()) {
        *to = from;
    }
    let (lower, upper) = cases(&padded);
    upper & ((lower << 1) | carry) != 0
}

/// The ASCII lower-case and upper-case letters among the 64 bytes of `block`.
#[inline(always)]
fn cases(block: &[u8; 64]) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::cases(block)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        cases_bytes(block)
    }
}

/// [`cases`] a byte at a time: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
fn cases_bytes(block: &[u8; 64]) -> (u64, u64) {
    let (mut lower, mut upper) = (0, 0);
    for (k, &x) in block.iter().enumerate() {
        lower |= u64::from(x.is_ascii_lowercase()) << k;
        upper |= u64::from(x.is_ascii_uppercase()) << k;
    }
    (lower, upper)
}

/// Whether the words of the normalised `alias`, written as one, are a word of the padded
/// normalised `text`: [`crate::answer_rules::joined_in`], with the text's words that start as
/// the joined word does (its first byte, right after a space) found 64 bytes at a time.
///
/// `joined_in` stopped at every byte of `text` equal to the joined word's first (a `memchr`
/// call each, most of them inside words) and split the alias again at each: on the synthetic
/// log's rows that reach the rule, about 2,500 instructions a call. Here a block's spaces,
/// moved one byte on, meet its bytes equal to the lead, and only those words are compared.
///
/// `Matcher::decide_rules`' glued-words rule calls it; `joined_in`, the in-place search it
/// replaced, is kept for the tests as its oracle.
pub(crate) fn joined_in(t: &Tables, alias: &str, text: &str) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        if crate::cpu::has_avx512bw() {
            // SAFETY: the processor has AVX-512 BW, which is all the function needs.
            return unsafe { joined_in_avx512(t, alias, text) };
        }
        if crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2, which is all the function needs.
            return unsafe { avx2::joined_in(t, alias, text) };
        }
    }
    joined_in_by(t, alias, text, spaces_and)
}

/// [`joined_in`] with AVX-512 (BW): a block's spaces, and its bytes equal to the joined word's
/// first byte and to its second, from one load and a compare each (AVX2 takes two of each).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw")]
fn joined_in_avx512(t: &Tables, alias: &str, text: &str) -> bool {
    use crate::ascii::avx512::equal;
    joined_in_by(t, alias, text, |block, x| {
        // SAFETY: the block holds 64 bytes, which an unaligned load reads.
        let v = unsafe { std::arch::x86_64::_mm512_loadu_si512(block.as_ptr().cast()) };
        (equal(v, b' '), equal(v, x))
    })
}

/// [`joined_in`] with `spaces_and` giving a block's spaces and its bytes equal to a byte.
#[inline(always)]
fn joined_in_by(
    t: &Tables,
    alias: &str,
    text: &str,
    spaces_and: impl Fn(&[u8; 64], u8) -> (u64, u64),
) -> bool {
    let inner = alias.trim_matches(' ');
    let ib = inner.as_bytes();
    let Some(&lead) = ib.first() else {
        return false;
    };
    if !ib.contains(&b' ') {
        return false;
    }
    // The alias's words (split at single spaces; empty pieces skipped), none led by a digit,
    // with three characters or more among the first three of each.
    let mut chars = 0;
    for w in ib.split(|&x| x == b' ') {
        let Some(&first) = w.first() else {
            continue;
        };
        // An ASCII byte is a digit's when it is one of `0`-`9` (`digit_value`'s test too).
        let digit = if first.is_ascii() {
            first.is_ascii_digit()
        } else {
            std::str::from_utf8(w)
                .ok()
                .and_then(|w| w.chars().next())
                .is_some_and(|c| t.digit_value(c).is_some())
        };
        if digit {
            return false;
        }
        // Its characters: the bytes that start one (none is a continuation byte).
        chars += w.iter().filter(|&&x| x & 0xc0 != 0x80).take(3).count();
    }
    if chars < 3 {
        return false;
    }
    let tb = text.as_bytes();
    // The joined word at `p` (right after a space), then a space: the alias's bytes but its
    // spaces, one after the other.
    let joined_at = |p: usize| {
        let mut at = p;
        for &x in ib {
            if x == b' ' {
                continue;
            }
            if tb.get(at) != Some(&x) {
                return false;
            }
            at += 1;
        }
        tb.get(at) == Some(&b' ')
    };
    // The joined word's second byte (it has three or more): a word is compared only where its
    // first two bytes are the joined word's, the second one's bit moved back onto the first
    // (the block's last byte, whose next is the next block's, is always compared).
    let second = ib.iter().copied().filter(|&x| x != b' ').nth(1);
    let seconds =
        |block: &[u8; 64]| second.map_or(u64::MAX, |x| spaces_and(block, x).1 >> 1 | 1 << 63);
    // Bit 0 set when the byte before the block is a space.
    let mut carry = 0u64;
    let mut base = 0;
    let mut chunks = tb.chunks_exact(64);
    for chunk in &mut chunks {
        let Some(block) = chunk.first_chunk::<64>() else {
            break;
        };
        let (spaces, leads) = spaces_and(block, lead);
        let mut starts = leads & ((spaces << 1) | carry) & seconds(block);
        while starts != 0 {
            if joined_at(base + starts.trailing_zeros() as usize) {
                return true;
            }
            starts &= starts - 1;
        }
        carry = spaces >> 63;
        base += 64;
    }
    // The last bytes, zero-padded (a zero byte is neither a space nor a lead: `lead` is the
    // first byte of a trimmed non-empty alias, which holds no zero unless the alias does, and
    // a zero past the end is then masked off).
    let rest = chunks.remainder();
    let mut padded = [0u8; 64];
    for (to, &from) in padded.iter_mut().zip(rest) {
        *to = from;
    }
    let (spaces, leads) = spaces_and(&padded, lead);
    let inside = if rest.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << rest.len()) - 1
    };
    let mut starts = leads & ((spaces << 1) | carry) & seconds(&padded) & inside;
    while starts != 0 {
        if joined_at(base + starts.trailing_zeros() as usize) {
            return true;
        }
        starts &= starts - 1;
    }
    false
}

/// The spaces among the 64 bytes of `block`, and its bytes equal to `x`.
#[inline(always)]
fn spaces_and(block: &[u8; 64], x: u8) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::spaces_and(block, x)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        spaces_and_bytes(block, x)
    }
}

/// [`spaces_and`] a byte at a time: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
fn spaces_and_bytes(block: &[u8; 64], x: u8) -> (u64, u64) {
    let (mut spaces, mut equal) = (0, 0);
    for (k, &b) in block.iter().enumerate() {
        spaces |= u64::from(b == b' ') << k;
        equal |= u64::from(b == x) << k;
    }
    (spaces, equal)
}

/// The spaces among the 64 bytes of `block`, and its bytes equal to any of `leads`.
#[inline(always)]
pub(super) fn spaces_and_any(block: &[u8; 64], leads: &[u8; 4]) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::spaces_and_any(block, leads)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        spaces_and_any_bytes(block, leads)
    }
}

/// [`spaces_and_any`] a byte at a time: the portable version, and the tests' check of the SSE2
/// one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
fn spaces_and_any_bytes(block: &[u8; 64], leads: &[u8; 4]) -> (u64, u64) {
    let (mut spaces, mut any) = (0, 0);
    for (k, &b) in block.iter().enumerate() {
        spaces |= u64::from(b == b' ') << k;
        any |= u64::from(leads.contains(&b)) << k;
    }
    (spaces, any)
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse2 {
    //! The SSE2 intrinsics are called in `unsafe` blocks, sound because this module is only
    //! compiled where SSE2 is enabled for the whole build (every x86_64 target), as in
    //! `crate::ascii`.
    use super::Classes;
    use crate::ascii::sse2::{bits, equal, in_range};
    use std::arch::x86_64::*;

    #[inline(always)]
    pub(super) fn cases(block: &[u8; 64]) -> (u64, u64) {
        let (mut lower, mut upper) = (0, 0);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let v = unsafe { _mm_set_epi64x(word(8), word(0)) };
            let shift = 16 * k as u32;
            lower |= bits(in_range(v, b'a', b'z')) << shift;
            upper |= bits(in_range(v, b'A', b'Z')) << shift;
        }
        (lower, upper)
    }

    #[inline(always)]
    pub(super) fn spaces(block: &[u8; 64]) -> u64 {
        let mut out = 0;
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let v = unsafe { _mm_set_epi64x(word(8), word(0)) };
            out |= bits(equal(v, b' ')) << (16 * k as u32);
        }
        out
    }

    #[inline(always)]
    pub(super) fn spaces_and_any(block: &[u8; 64], leads: &[u8; 4]) -> (u64, u64) {
        let (mut spaces, mut any) = (0, 0);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let v = unsafe { _mm_set_epi64x(word(8), word(0)) };
            let [a, b, c, d] = leads.map(|x| equal(v, x));
            // SAFETY: as above.
            let led = unsafe { _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)) };
            let shift = 16 * k as u32;
            spaces |= bits(equal(v, b' ')) << shift;
            any |= bits(led) << shift;
        }
        (spaces, any)
    }

    #[inline(always)]
    pub(super) fn spaces_and(block: &[u8; 64], x: u8) -> (u64, u64) {
        let (mut spaces, mut same) = (0, 0);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let v = unsafe { _mm_set_epi64x(word(8), word(0)) };
            let shift = 16 * k as u32;
            spaces |= bits(equal(v, b' ')) << shift;
            same |= bits(equal(v, x)) << shift;
        }
        (spaces, same)
    }

    #[inline(always)]
    pub(super) fn classify<const UPPER: bool>(block: &[u8; 64], words: &mut [u8; 64]) -> Classes {
        let mut out = Classes::default();
        for (k, (chunk, to)) in block
            .chunks_exact(16)
            .zip(words.chunks_exact_mut(16))
            .enumerate()
        {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let v = unsafe { _mm_set_epi64x(word(8), word(0)) };
            // SAFETY: as above.
            let twenty = unsafe { _mm_set1_epi8(0x20) };
            // SAFETY: as above.
            let letter = in_range(unsafe { _mm_or_si128(v, twenty) }, b'a', b'z');
            let digit = in_range(v, b'0', b'9');
            let under = equal(v, b'_');
            // SAFETY: as above; `to` holds 16 bytes, which an unaligned store writes.
            unsafe {
                let keep = _mm_or_si128(_mm_or_si128(letter, digit), under);
                let lowered = _mm_or_si128(v, _mm_and_si128(letter, twenty));
                let written =
                    _mm_or_si128(_mm_and_si128(keep, lowered), _mm_andnot_si128(keep, twenty));
                _mm_storeu_si128(to.as_mut_ptr().cast(), written);
            }
            // `bits(v)`: the bytes of 0x80 or more.
            out.add_lane::<UPPER>(
                16 * k as u32,
                [bits(letter), bits(digit), bits(under), bits(v)],
                |x| bits(equal(v, x)),
                || bits(in_range(v, b'A', b'Z')),
            );
        }
        out
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub(super) mod avx2 {
    //! [`super::classify`] with AVX2, compiled for it whatever the build's target and called
    //! only when the processor has it (from code compiled for AVX2 too, which inlines it).
    use super::Classes;
    use crate::ascii::avx2::{bits, equal, in_range};
    use std::arch::x86_64::*;

    /// The lower-case and upper-case letters of a block.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn cases(block: &[u8; 64]) -> (u64, u64) {
        let (mut lower, mut upper) = (0, 0);
        for (k, half) in block.chunks_exact(32).enumerate() {
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let shift = 32 * k as u32;
            lower |= bits(in_range(v, b'a', b'z')) << shift;
            upper |= bits(in_range(v, b'A', b'Z')) << shift;
        }
        (lower, upper)
    }

    /// The spaces of a block and its bytes equal to `x`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn spaces_and(block: &[u8; 64], x: u8) -> (u64, u64) {
        let (mut spaces, mut same) = (0, 0);
        for (k, half) in block.chunks_exact(32).enumerate() {
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let shift = 32 * k as u32;
            spaces |= bits(equal(v, b' ')) << shift;
            same |= bits(equal(v, x)) << shift;
        }
        (spaces, same)
    }

    /// [`super::spaces_and_any`]: the spaces of a block and its bytes equal to any of `leads`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::answer_match) fn spaces_and_any(block: &[u8; 64], leads: &[u8; 4]) -> (u64, u64) {
        let (mut spaces, mut any) = (0, 0);
        for (k, half) in block.chunks_exact(32).enumerate() {
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let [a, b, c, d] = leads.map(|x| equal(v, x));
            let led = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
            let shift = 32 * k as u32;
            spaces |= bits(equal(v, b' ')) << shift;
            any |= bits(led) << shift;
        }
        (spaces, any)
    }

    /// See [`super::joined_in`].
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn joined_in(t: &super::Tables, alias: &str, text: &str) -> bool {
        super::joined_in_by(t, alias, text, |block, x| spaces_and(block, x))
    }

    /// See [`super::lower_before_upper`].
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lower_before_upper(bytes: &[u8]) -> bool {
        super::lower_before_upper_by(bytes, |block| cases(block))
    }

    /// See [`super::classify`]: 32 bytes at a time, about half the SSE2 version's
    /// instructions.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::answer_match) unsafe fn classify<const UPPER: bool>(
        block: &[u8; 64],
        words: &mut [u8; 64],
    ) -> Classes {
        let mut out = Classes::default();
        for (k, (half, to)) in block
            .chunks_exact(32)
            .zip(words.chunks_exact_mut(32))
            .enumerate()
        {
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let shift = 32 * k as u32;
            let twenty = _mm256_set1_epi8(0x20);
            let letter = in_range(_mm256_or_si256(v, twenty), b'a', b'z');
            let digit = in_range(v, b'0', b'9');
            let under = equal(v, b'_');
            let keep = _mm256_or_si256(_mm256_or_si256(letter, digit), under);
            let lowered = _mm256_or_si256(v, _mm256_and_si256(letter, twenty));
            // SAFETY: `to` holds 32 bytes, which an unaligned store writes.
            unsafe {
                _mm256_storeu_si256(
                    to.as_mut_ptr().cast(),
                    _mm256_blendv_epi8(twenty, lowered, keep),
                );
            }
            // `bits(v)`: the bytes of 0x80 or more.
            out.add_lane::<UPPER>(
                shift,
                [bits(letter), bits(digit), bits(under), bits(v)],
                |x| bits(equal(v, x)),
                || bits(in_range(v, b'A', b'Z')),
            );
        }
        out
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub(super) mod avx512 {
    //! [`super::classify`] with AVX-512 BW, compiled for it whatever the build's target and
    //! called only when the processor has it (from code compiled for it too, which inlines it).
    use super::Classes;
    use crate::ascii::avx512::{equal, in_range};
    use std::arch::x86_64::*;

    /// See [`super::classify`]: the 64 bytes in one register, each class a mask straight out
    /// of a compare (no `movemask`, no shift and or of two halves).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(in crate::answer_match) fn classify<const UPPER: bool>(
        block: &[u8; 64],
        words: &mut [u8; 64],
    ) -> Classes {
        // SAFETY: the block holds 64 bytes, which an unaligned load reads.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        let twenty = _mm512_set1_epi8(0x20);
        // Bit 5 set: a capital's small letter, and no other byte in `a..=z`.
        let lowered = _mm512_or_si512(v, twenty);
        let letter = in_range(lowered, b'a', b'z');
        let digit = in_range(v, b'0', b'9');
        let underscore = equal(v, b'_');
        // Letters lower-cased, digits and `_` as they are, every other byte a space.
        let written = _mm512_mask_mov_epi8(
            _mm512_mask_mov_epi8(twenty, letter, lowered),
            digit | underscore,
            v,
        );
        // SAFETY: `words` holds 64 bytes, which an unaligned store writes.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), written) };
        Classes {
            letter,
            upper: if UPPER { in_range(v, b'A', b'Z') } else { 0 },
            digit,
            // The bytes of 0x80 or more: their sign bits.
            word: underscore | _mm512_movepi8_mask(v),
            underscore,
            dot: equal(v, b'.'),
            comma: equal(v, b','),
            apostrophe: equal(v, b'\''),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    /// Every version of `classify` (the SSE2, AVX2 and AVX-512 ones where the processor has them)
    /// against the bytes', classes and written words.
    fn check_classes(block: &[u8; 64]) {
        fn with(
            f: impl Fn(&[u8; 64], &mut [u8; 64]) -> Classes,
            block: &[u8; 64],
        ) -> (Classes, [u8; 64]) {
            let mut words = [0u8; 64];
            let c = f(block, &mut words);
            (c, words)
        }
        for upper in [false, true] {
            let want = if upper {
                with(classify_bytes::<true>, block)
            } else {
                with(classify_bytes::<false>, block)
            };
            let got = if upper {
                with(classify::<true>, block)
            } else {
                with(classify::<false>, block)
            };
            assert_eq!(got, want, "{block:?}");
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            {
                let sse2 = if upper {
                    with(sse2::classify::<true>, block)
                } else {
                    with(sse2::classify::<false>, block)
                };
                assert_eq!(sse2, want, "{block:?}");
                if crate::cpu::has_avx2() {
                    let avx2 = if upper {
                        // SAFETY: the processor has AVX2.
                        with(|b, w| unsafe { avx2::classify::<true>(b, w) }, block)
                    } else {
                        // SAFETY: as above.
                        with(|b, w| unsafe { avx2::classify::<false>(b, w) }, block)
                    };
                    assert_eq!(avx2, want, "{block:?}");
                }
                if crate::cpu::has_avx512bw() {
                    let avx512 = if upper {
                        // SAFETY: the processor has AVX-512 BW.
                        with(|b, w| unsafe { avx512::classify::<true>(b, w) }, block)
                    } else {
                        // SAFETY: as above.
                        with(|b, w| unsafe { avx512::classify::<false>(b, w) }, block)
                    };
                    assert_eq!(avx512, want, "{block:?}");
                }
            }
        }
        let (_, words) = with(classify_bytes::<false>, block);
        for (&x, &w) in block.iter().zip(&words) {
            let expected = if x.is_ascii_alphanumeric() || x == b'_' {
                x.to_ascii_lowercase()
            } else {
                b' '
            };
            assert_eq!(w, expected);
        }
    }

    /// `joined_in` against `answer_rules::joined_in`, the scan it replaces: aliases of one to
    /// four words (some led by a digit, ASCII or not, some of one or two characters, some with
    /// doubled spaces), in padded texts of words around the joined word or not, across the
    /// 64-byte blocks; and the block masks against the bytes'.
    #[test]
    fn joined_in_agrees_with_the_rules_scan() {
        let t = crate::pyunicode::test_tables::install();
        let words = [
            "sea",
            "shells",
            "s",
            "se",
            "seashells",
            "a",
            "b",
            "j",
            "k",
            "l",
            "jkl",
            "1",
            "2b",
            "\u{663}x",
            "\u{e9}t\u{e9}",
            "\u{e9}",
            "x\u{b2}",
            "new",
            "york",
            "newyork",
            "ab",
            "sh",
            "seas",
            "hells",
            "\u{0}",
        ];
        let mut next = lcg(42);
        let mut checked = [0usize; 2];
        for _ in 0..20_000 {
            let n = 1 + next() % 4;
            let parts: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
            let sep = if next().is_multiple_of(8) { "  " } else { " " };
            let alias = format!(" {} ", parts.join(sep));
            let joined: String = parts.concat();
            let mut text = String::from(" ");
            for _ in 0..next() % 40 {
                let w = if next().is_multiple_of(6) {
                    joined.as_str()
                } else {
                    words[next() % words.len()]
                };
                text.push_str(w);
                text.push(' ');
            }
            let want = crate::answer_rules::joined_in(t, &alias, &text);
            assert_eq!(joined_in(t, &alias, &text), want, "{alias:?} in {text:?}");
            // The AVX2 path, which the dispatch passes over where the processor has AVX-512.
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            if crate::cpu::has_avx2() {
                // SAFETY: the processor has AVX2.
                let avx2 = unsafe { avx2::joined_in(t, &alias, &text) };
                assert_eq!(avx2, want, "{alias:?} in {text:?}");
            }
            checked[usize::from(want)] += 1;
        }
        assert!(checked[0] > 1_000 && checked[1] > 1_000, "{checked:?}");
        let alphabet = b"ab \0\x80z";
        for _ in 0..2_000 {
            let mut block = [0u8; 64];
            for x in &mut block {
                *x = alphabet[next() % alphabet.len()];
            }
            let x = alphabet[next() % alphabet.len()];
            let leads = [x, alphabet[next() % alphabet.len()], b'z', x];
            let want_any = spaces_and_any_bytes(&block, &leads);
            assert_eq!(spaces_and_any(&block, &leads), want_any);
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            {
                assert_eq!(sse2::spaces_and_any(&block, &leads), want_any);
                if crate::cpu::has_avx2() {
                    // SAFETY: the processor has AVX2.
                    assert_eq!(unsafe { avx2::spaces_and_any(&block, &leads) }, want_any);
                }
            }
            let want = spaces_and_bytes(&block, x);
            assert_eq!(spaces_and(&block, x), want);
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            {
                assert_eq!(sse2::spaces_and(&block, x), want);
                if crate::cpu::has_avx2() {
                    // SAFETY: the processor has AVX2.
                    assert_eq!(unsafe { avx2::spaces_and(&block, x) }, want);
                }
            }
            assert!(joined_in_by(t, " ab c ", " x abc ", spaces_and_bytes));
        }
    }

    #[test]
    fn sse2_classes_agree_with_the_bytes() {
        let alphabet = b"aZz@[`{09/:_.',- \x7f\x80\xc3\xe2\xff\0";
        let mut next = lcg(7);
        for _ in 0..2_000 {
            let mut block = [0u8; 64];
            for x in &mut block {
                *x = alphabet[next() % alphabet.len()];
            }
            check_classes(&block);
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            if crate::cpu::has_avx2() {
                // SAFETY: as above.
                assert_eq!(unsafe { avx2::cases(&block) }, cases_bytes(&block));
            }
            assert_eq!(spaces(&block), spaces_bytes(&block));
            assert_eq!(cases(&block), cases_bytes(&block));
        }
        // The glued-word check against `ascii`'s eight-byte one, on texts of every length
        // around the blocks' edges.
        for len in [0, 1, 2, 63, 64, 65, 127, 128, 129, 200] {
            for _ in 0..200 {
                let text: Vec<u8> = (0..len)
                    .map(|_| match next() % 8 {
                        0 => b'A' + (next() % 26) as u8,
                        1 => alphabet[next() % alphabet.len()],
                        _ => b'a' + (next() % 26) as u8,
                    })
                    .collect();
                let text = if next().is_multiple_of(2) {
                    text.to_ascii_lowercase()
                } else {
                    text
                };
                assert_eq!(
                    lower_before_upper(&text),
                    crate::ascii::lower_before_upper(&text),
                    "{text:?}"
                );
                assert_eq!(
                    lower_before_upper_by(&text, cases_bytes),
                    crate::ascii::lower_before_upper(&text),
                    "{text:?}"
                );
            }
        }
        // One lower-case letter among capitals, at every place of a text of 130 bytes.
        for p in 0..130 {
            let mut text = vec![b'Q'; 130];
            text[p] = b'q';
            assert_eq!(lower_before_upper(&text), p + 1 < 130, "{p}");
            assert!(!lower_before_upper(&text[..p + 1]), "{p}");
        }
        let all: Vec<u8> = (0..=255).collect();
        for chunk in all.chunks_exact(64) {
            let block: &[u8; 64] = chunk.try_into().unwrap();
            check_classes(block);
        }
    }
}
