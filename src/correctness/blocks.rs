//! The DataRobot normalisation written sixteen bytes at a time, for `contains`.
//!
//! Most of a response is runs of ASCII word bytes with single spaces between them, and for those
//! the normalisation is the identity once capitals are lowered: a byte of `[0-9a-z_]` is kept,
//! and a space between two word bytes becomes the one space the collapse leaves. So each step
//! loads sixteen bytes, lowers them all at once, classifies them into bit masks, stores all
//! sixteen at the end of the output and keeps as many as lead the block in that identity (the
//! store has a fixed width; the length says how much of it counts). What follows is a gap of
//! bytes that are deleted or are whitespace, skipped at once from the masks (whitespace in it
//! leaves a space pending, as the byte loop of [`super::normalize_into`] does), then a non-ASCII
//! character lowered on its own, or the next step.

use crate::pyunicode::Tables;

/// The masks of sixteen bytes, byte `k`'s as bit `k` (the bits from 16 up are clear), with the
/// bytes lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block16 {
    /// Each ASCII capital made small; every other byte unchanged.
    pub(crate) lowered: [u8; 16],
    /// Python's `\w` on ASCII: `[0-9A-Za-z_]`.
    pub(crate) word: u32,
    /// The space byte (0x20) itself.
    pub(crate) space: u32,
    /// Any ASCII whitespace (`str.isspace()`): 0x09..=0x0d, 0x1c..=0x20.
    pub(crate) white: u32,
    /// Bytes of 0x80 or more.
    pub(crate) high: u32,
}

/// The sixteen bytes of `bytes` from `at`, zero past its end (a zero byte is in no class).
#[inline(always)]
fn load16(bytes: &[u8], at: usize) -> [u8; 16] {
    match bytes.get(at..).and_then(|r| r.first_chunk::<16>()) {
        Some(chunk) => *chunk,
        None => {
            let mut padded = [0u8; 16];
            let lo = crate::ascii::load(bytes, at).to_le_bytes();
            let hi = crate::ascii::load(bytes, at + 8).to_le_bytes();
            padded[..8].copy_from_slice(&lo);
            padded[8..].copy_from_slice(&hi);
            padded
        }
    }
}

/// [`Block16`] of `chunk`: SSE2 on x86_64 (part of its baseline), elsewhere eight bytes at a
/// time.
#[inline(always)]
pub(crate) fn block16(chunk: &[u8; 16]) -> Block16 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        sse2::block16(chunk)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        block16_words(chunk)
    }
}

/// [`block16`] without SIMD: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
pub(crate) fn block16_words(chunk: &[u8; 16]) -> Block16 {
    use crate::ascii::{gather_high_bits, in_range, space_bytes, word_bytes};
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut out = Block16 {
        lowered: [0; 16],
        word: 0,
        space: 0,
        white: 0,
        high: 0,
    };
    for (k, (to, from)) in out
        .lowered
        .chunks_exact_mut(8)
        .zip(chunk.chunks_exact(8))
        .enumerate()
    {
        let x = crate::ascii::load(from, 0);
        let high = x & HIGH;
        // Below 0x80, a byte's class is read from its low seven bits.
        let low = x ^ high;
        let keep = !high;
        let upper = in_range(low, b'A', b'Z') & keep;
        to.copy_from_slice(&(x | (upper >> 2)).to_le_bytes());
        let bits = |mask: u64| (gather_high_bits(mask) as u32) << (8 * k);
        out.word |= bits(word_bytes(low) & keep);
        out.space |= bits(in_range(low, b' ', b' ') & keep);
        out.white |= bits(space_bytes(low) & keep);
        out.high |= bits(high);
    }
    out
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    //! The SSE2 intrinsics are `unsafe` to call from a function without
    //! `#[target_feature(enable = "sse2")]`, which could not be inlined into its callers; here
    //! they are called in `unsafe` blocks instead, sound because this module is only compiled
    //! where SSE2 is enabled for the whole build (every x86_64 target).
    use super::Block16;
    use std::arch::x86_64::*;

    /// The bytes of `v` in `lo..=hi` (both below 0x80): a byte of 0x80 or more is negative as a
    /// signed byte, below `lo`.
    #[inline(always)]
    fn in_range(v: __m128i, lo: u8, hi: u8) -> __m128i {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        unsafe {
            let above = _mm_cmpgt_epi8(v, _mm_set1_epi8(lo as i8 - 1));
            let below = _mm_cmplt_epi8(v, _mm_set1_epi8(hi as i8 + 1));
            _mm_and_si128(above, below)
        }
    }

    #[inline(always)]
    fn bits(mask: __m128i) -> u32 {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        (unsafe { _mm_movemask_epi8(mask) }) as u32 & 0xffff
    }

    #[inline(always)]
    pub(super) fn block16(chunk: &[u8; 16]) -> Block16 {
        let word = |at: usize| crate::ascii::load(chunk, at) as i64;
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        let (v, lowered, word_mask, space, white) = unsafe {
            // Two little-endian words, which the compiler folds into one unaligned load.
            let v = _mm_set_epi64x(word(8), word(0));
            let twenty = _mm_set1_epi8(0x20);
            let upper = in_range(v, b'A', b'Z');
            let lowered = _mm_or_si128(v, _mm_and_si128(upper, twenty));
            let alnum = _mm_or_si128(in_range(lowered, b'a', b'z'), in_range(v, b'0', b'9'));
            let word = _mm_or_si128(alnum, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'_' as i8)));
            let space = _mm_cmpeq_epi8(v, twenty);
            let white = _mm_or_si128(in_range(v, 0x09, 0x0d), in_range(v, 0x1c, 0x20));
            (v, lowered, word, space, white)
        };
        // SAFETY: as above.
        let (lo, hi) = unsafe {
            (
                _mm_cvtsi128_si64(lowered) as u64,
                _mm_cvtsi128_si64(_mm_unpackhi_epi64(lowered, lowered)) as u64,
            )
        };
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&lo.to_le_bytes());
        out[8..].copy_from_slice(&hi.to_le_bytes());
        Block16 {
            lowered: out,
            word: bits(word_mask),
            space: bits(space),
            white: bits(white),
            high: bits(v),
        }
    }
}

/// The DataRobot normalisation of `text` (holding no capital sigma) as bytes, written into `out`
/// (cleared first): the same bytes as [`super::normalize_into`].
pub(crate) fn normalize_bytes(t: &Tables, text: &str, out: &mut Vec<u8>) {
    out.clear();
    // The ASCII bytes never lengthen; the slack takes the last fixed-width store.
    out.reserve(text.len() + 16);
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut pending_space = false;
    let mut i = 0;
    while i < n {
        let b = block16(&load16(bytes, i));
        if pending_space && b.word & 1 != 0 {
            out.push(b' ');
            pending_space = false;
        }
        // A space is kept when a word byte follows it in the block and one comes before it in
        // the output: the block's byte before, or (for the first) the output's last.
        let before = (b.word << 1) | u32::from(!out.is_empty());
        let keep = b.word | (b.space & (b.word >> 1) & before);
        let kept = (!keep).trailing_zeros() as usize;
        let len = out.len();
        out.extend_from_slice(&b.lowered);
        out.truncate(len + kept);
        if kept > 0 {
            // The kept bytes end with a word byte, which takes any pending space.
            pending_space = false;
            if kept == 16 {
                i += 16;
                continue;
            }
        }
        // The gap: up to the next word byte or non-ASCII byte, or the text's end.
        let end_bit = if n - i < 16 { 1 << (n - i) } else { 1 << 16 };
        let from_gap = u32::MAX << kept;
        let stop = ((b.word | b.high) & from_gap | end_bit).trailing_zeros() as usize;
        if b.white & from_gap & !(u32::MAX << stop) != 0 {
            pending_space = !out.is_empty();
        }
        i += stop;
        if b.high >> stop & 1 != 0 {
            let Some(c) = text.get(i..).and_then(|r| r.chars().next()) else {
                break;
            };
            i += c.len_utf8();
            t.lower_char_each(c, |l| {
                if t.is_word(l) {
                    if pending_space {
                        out.push(b' ');
                        pending_space = false;
                    }
                    let mut utf8 = [0u8; 4];
                    out.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes());
                } else if t.is_space(l) {
                    pending_space = !out.is_empty();
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn naive_block(chunk: &[u8; 16]) -> Block16 {
        let mut out = Block16 {
            lowered: std::array::from_fn(|k| chunk[k].to_ascii_lowercase()),
            word: 0,
            space: 0,
            white: 0,
            high: 0,
        };
        for (k, &b) in chunk.iter().enumerate() {
            let bit = |on: bool| u32::from(on) << k;
            out.word |= bit(b.is_ascii_alphanumeric() || b == b'_');
            out.space |= bit(b == b' ');
            out.white |= bit(matches!(b, 0x09..=0x0d | 0x1c..=0x20));
            out.high |= bit(b >= 0x80);
        }
        out
    }

    #[test]
    fn block_masks_are_their_definitions() {
        let mut next = crate::testing::lcg(53);
        for b in 0..=255u8 {
            for k in 0..16 {
                let mut chunk = [b'Q'; 16];
                chunk[k] = b;
                assert_eq!(block16(&chunk), naive_block(&chunk), "{b:#x} at {k}");
                assert_eq!(block16_words(&chunk), naive_block(&chunk));
            }
        }
        for _ in 0..5_000 {
            let chunk: [u8; 16] = std::array::from_fn(|_| (next() % 256) as u8);
            assert_eq!(block16(&chunk), naive_block(&chunk));
            assert_eq!(block16_words(&chunk), naive_block(&chunk));
        }
    }

    fn check(t: &Tables, text: &str) {
        let mut want = String::new();
        super::super::for_each_normalized(t, text, |c| {
            want.push(c);
            true
        });
        let mut got = Vec::new();
        normalize_bytes(t, text, &mut got);
        assert_eq!(String::from_utf8(got).as_deref(), Ok(want.as_str()), "{text:?}");
    }

    #[test]
    fn bytes_are_the_character_normalisation() {
        let t = test_tables::install();
        for text in [
            "",
            " ",
            "a",
            "  Don't  STOP!\x1c",
            "U.S.A.",
            "a - b",
            "a , b",
            "a, b",
            "a ,b",
            "ΟΔΟς München",
            "İstanbul ǅ x",
            "x\u{3000}y\u{85}z\u{200b}w",
            "0123456789abcde f",
            "0123456789abcdef g",
            "0123456789abcde\u{e9}f",
        ] {
            check(t, text);
        }
        // Random texts over the classes that matter, long enough to cross blocks, each also
        // shifted by one to fifteen bytes so every byte meets every lane.
        let mut next = crate::testing::lcg(59);
        let pieces = [
            "a", "Z", "_", "7", " ", "  ", "\t", "\n", ".", ",", "-", "'", "\x1c", "\x7f", "é",
            "É", "ß", "İ", "\u{2028}", "\u{a0}", "😀", "ǅ", "\u{0301}", "ﬀ", "\u{3000}",
        ];
        for round in 0..20_000 {
            let len = if round % 10 == 0 {
                next() % 120
            } else {
                next() % 40
            };
            let dense = next().is_multiple_of(3);
            let text: String = (0..len)
                .map(|_| {
                    if dense {
                        pieces[next() % pieces.len()]
                    } else {
                        pieces[next() % 4]
                    }
                })
                .collect();
            check(t, &text);
            let pad = "x".repeat(next() % 16);
            check(t, &(pad + &text));
        }
    }
}
