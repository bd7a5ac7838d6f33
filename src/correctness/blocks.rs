//! The DataRobot normalisation written a 64-byte block at a time, for `contains`.
//!
//! Most of a response is runs of ASCII word bytes with single spaces between them, and for those
//! the normalisation is the identity once capitals are lowered: a byte of `[0-9a-z_]` is kept,
//! and a space between two word bytes becomes the one space the collapse leaves. So each block
//! is lowered and classified at once into bit masks; the runs of such bytes are found from the
//! masks and each is copied to the output with fixed-width stores (16 bytes, of which the run's
//! length counts). The gaps between the runs hold bytes that are deleted or whitespace, and leave
//! a space owed before the next word byte when they hold whitespace, as the byte loop of
//! [`super::normalize_into`] does. A non-ASCII character ends the block: it is lowered on its
//! own and the next block starts after it.

use crate::pyunicode::{two_byte_lower, Tables};

/// The masks of the 64 bytes of a block, byte `k`'s as bit `k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// Python's `\w` on ASCII: `[0-9A-Za-z_]`.
    pub(crate) word: u64,
    /// The space byte (0x20) itself.
    pub(crate) space: u64,
    /// Any ASCII whitespace (`str.isspace()`): 0x09..=0x0d, 0x1c..=0x20.
    pub(crate) white: u64,
    /// Bytes of 0x80 or more.
    pub(crate) high: u64,
}

/// The bytes of a block lowered, with room for a 16-byte copy from any of its first 64 bytes.
pub(crate) type Lowered = [u8; 80];

/// The masks of `block`, and its bytes with each ASCII capital made small (every other byte
/// unchanged) written to the first 64 bytes of `lowered`: SSE2 on x86_64 (part of its baseline),
/// elsewhere eight bytes at a time.
#[inline(always)]
pub(crate) fn block64(block: &[u8; 64], lowered: &mut Lowered) -> Masks {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::block64(block, lowered)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        block64_words(block, lowered)
    }
}

/// [`block64`] without SIMD: the portable version, and the tests' check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable")),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn block64_words(block: &[u8; 64], lowered: &mut Lowered) -> Masks {
    use crate::ascii::{gather_high_bits, in_range, space_bytes, word_bytes};
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut out = Masks::default();
    for (k, (to, from)) in lowered
        .chunks_exact_mut(8)
        .zip(block.chunks_exact(8))
        .enumerate()
    {
        let x = crate::ascii::load(from, 0);
        let high = x & HIGH;
        // Below 0x80, a byte's class is read from its low seven bits.
        let low = x ^ high;
        let keep = !high;
        let upper = in_range(low, b'A', b'Z') & keep;
        to.copy_from_slice(&(x | (upper >> 2)).to_le_bytes());
        let bits = |mask: u64| gather_high_bits(mask) << (8 * k);
        out.word |= bits(word_bytes(low) & keep);
        out.space |= bits(in_range(low, b' ', b' ') & keep);
        out.white |= bits(space_bytes(low) & keep);
        out.high |= bits(high);
    }
    out
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse2 {
    //! The SSE2 intrinsics are `unsafe` to call from a function without
    //! `#[target_feature(enable = "sse2")]`, which could not be inlined into its callers; here
    //! they are called in `unsafe` blocks instead, sound because this module is only compiled
    //! where SSE2 is enabled for the whole build (every x86_64 target).
    use super::{Lowered, Masks};
    use crate::ascii::sse2::{bits, in_range};
    use std::arch::x86_64::*;

    #[inline(always)]
    pub(super) fn block64(block: &[u8; 64], lowered: &mut Lowered) -> Masks {
        let mut out = Masks::default();
        for (k, (to, chunk)) in lowered
            .chunks_exact_mut(16)
            .zip(block.chunks_exact(16))
            .enumerate()
        {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`); `to` holds 16 bytes
            // (`chunks_exact_mut(16)`), which the unaligned store writes.
            let (v, word_mask, space, white) = unsafe {
                // Two little-endian words, which the compiler folds into one unaligned load.
                let v = _mm_set_epi64x(word(8), word(0));
                let twenty = _mm_set1_epi8(0x20);
                let upper = in_range(v, b'A', b'Z');
                let small = _mm_or_si128(v, _mm_and_si128(upper, twenty));
                _mm_storeu_si128(to.as_mut_ptr().cast::<__m128i>(), small);
                let alnum = _mm_or_si128(in_range(small, b'a', b'z'), in_range(v, b'0', b'9'));
                let word = _mm_or_si128(alnum, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'_' as i8)));
                let space = _mm_cmpeq_epi8(v, twenty);
                let white = _mm_or_si128(in_range(v, 0x09, 0x0d), in_range(v, 0x1c, 0x20));
                (v, word, space, white)
            };
            let shift = 16 * k as u32;
            out.word |= bits(word_mask) << shift;
            out.space |= bits(space) << shift;
            out.white |= bits(white) << shift;
            out.high |= bits(v) << shift;
        }
        out
    }
}

/// The bits below bit `k` (all of them from 64 on).
#[inline(always)]
fn below(k: u32) -> u64 {
    u64::MAX.checked_shl(k).map_or(u64::MAX, |m| !m)
}

/// The output: a buffer kept longer than what is written, so that a run is copied with
/// fixed-width stores and only the length written counts.
struct Output<'a> {
    buf: &'a mut Vec<u8>,
    len: usize,
}

impl Output<'_> {
    /// Make room for `extra` more bytes and a 16-byte store past them.
    #[inline(always)]
    fn room(&mut self, extra: usize) {
        let need = self.len + extra + 16;
        if self.buf.len() < need {
            self.buf.resize(need.max(2 * self.buf.len()), 0);
        }
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Write `c`, a word's character, after the space owed before it if one is (`pending_space`,
    /// then cleared); room is made for it and for a block after it.
    #[inline(always)]
    fn word_char(&mut self, pending_space: &mut bool, c: char) {
        self.room(1 + 4 + 65);
        if std::mem::take(pending_space) {
            self.push(b' ');
        }
        let mut utf8 = [0u8; 4];
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            self.push(b);
        }
    }

    /// Write `byte` (room made first).
    #[inline(always)]
    fn push(&mut self, byte: u8) {
        if let Some(to) = self.buf.get_mut(self.len) {
            *to = byte;
        }
        self.len += 1;
    }

    /// Write the first `n` (at most 16) bytes of `piece` (room made first) with one 16-byte
    /// store.
    #[inline(always)]
    fn put(&mut self, piece: &[u8; 16], n: usize) {
        if let Some(to) = self
            .buf
            .get_mut(self.len..)
            .and_then(|r| r.first_chunk_mut::<16>())
        {
            *to = *piece;
        }
        self.len += n;
    }
}

/// The DataRobot normalisation of `text` (holding no capital sigma) as bytes, written into `out`
/// (cleared first): the same bytes as [`super::normalize_into`].
pub(crate) fn normalize_bytes(t: &Tables, text: &str, out: &mut Vec<u8>) {
    let len = normalize_bytes_checked(t, text, out, usize::MAX, |_| true);
    out.truncate(len);
}

/// [`normalize_bytes`], showing `check` the output so far (a prefix of the whole) every `every`
/// bytes of `text` or so, and at the end; once `check` returns false the output stops there.
/// The output is the first bytes of `out`, as many as returned: `out` is left longer (not
/// truncated), so that a buffer used row after row is not cleared and grown again each time.
pub(crate) fn normalize_bytes_checked(
    t: &Tables,
    text: &str,
    out: &mut Vec<u8>,
    every: usize,
    mut check: impl FnMut(&[u8]) -> bool,
) -> usize {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut out = Output { buf: out, len: 0 };
    // A space is owed before the next word byte (whitespace since the last one, which was not
    // the first thing in the output).
    let mut pending_space = false;
    let mut lowered: Lowered = [0; 80];
    let mut padded = [0u8; 64];
    let lower = two_byte_lower(t);
    let mut i = 0;
    let mut next_check = every;
    while i < n {
        if i >= next_check {
            next_check = i.saturating_add(every);
            if !check(out.buf.get(..out.len).unwrap_or(&[])) {
                break;
            }
        }
        let rest = bytes.get(i..).unwrap_or(&[]);
        let block = match rest.first_chunk::<64>() {
            Some(block) => block,
            None => {
                // A text can end in several short blocks (after a character that crosses a
                // block's end).
                let (head, tail) = padded.split_at_mut(rest.len());
                head.copy_from_slice(rest);
                tail.fill(0);
                &padded
            }
        };
        let m = block64(block, &mut lowered);
        // A block's ASCII bytes write at most one byte each, and a space may be owed first.
        out.room(65);
        let avail = rest.len().min(64) as u32;
        // The block's bytes are taken in windows that end at a non-ASCII character, which is
        // lowered on its own, or at the block's end.
        let mut from = 0;
        loop {
            let end = (m.high & !below(from) | !below(avail)).trailing_zeros();
            let window = below(end) & !below(from);
            ascii_window(&m, window, &mut lowered, &mut out, &mut pending_space);
            if end >= avail {
                i += avail as usize;
                break;
            }
            // A two-byte character whose lower case is one `\w` character (most non-ASCII
            // letters): written from the table.
            let lead = rest.get(end as usize).copied().unwrap_or(0);
            if (0xc2..0xe0).contains(&lead) {
                let next = rest
                    .get(end as usize + 1)
                    .map_or(0, |&b| u32::from(b & 0x3f));
                let cp = u32::from(lead & 0x1f) << 6 | next;
                let l = lower.get((cp as usize).wrapping_sub(0x80)).copied();
                if let Some(l) = l.filter(|&l| l != '\0') {
                    out.word_char(&mut pending_space, l);
                    from = end + 2;
                    if from >= avail {
                        i += from as usize;
                        break;
                    }
                    continue;
                }
            }
            let Some(c) = text.get(i + end as usize..).and_then(|r| r.chars().next()) else {
                // Not reached: the lane is a character's first byte.
                i = n;
                break;
            };
            t.lower_char_each(c, |l| {
                if t.is_word(l) {
                    out.word_char(&mut pending_space, l);
                } else if t.is_space(l) {
                    pending_space = !out.is_empty();
                }
            });
            from = end + c.len_utf8() as u32;
            if from >= avail {
                i += from as usize;
                break;
            }
        }
    }
    let len = out.len;
    if i >= n {
        check(out.buf.get(..len).unwrap_or(&[]));
    }
    len
}

/// Write the normalisation of the ASCII bytes of a block in `window` (a run of lanes): its runs
/// of word bytes and kept spaces, copied from `lowered`, with the spaces the gaps between them
/// owe.
#[inline(always)]
fn ascii_window(
    m: &Masks,
    window: u64,
    lowered: &mut Lowered,
    out: &mut Output<'_>,
    pending_space: &mut bool,
) {
    let (word, white) = (m.word & window, m.white & window);
    // A space is kept when a word byte follows it and the output is not empty before it.
    let filled = if out.is_empty() {
        !below(word.trailing_zeros() + 1)
    } else {
        u64::MAX
    };
    let mut keep = word | (m.space & window & (word >> 1) & filled);
    if keep == 0 {
        if white != 0 && !out.is_empty() {
            *pending_space = true;
        }
        return;
    }
    let first = keep.trailing_zeros();
    // The first run: a space owed from before the window, or from whitespace before it.
    let owed = *pending_space || (white & below(first) != 0 && !out.is_empty());
    if owed && word >> first & 1 != 0 {
        out.push(b' ');
    }
    // Each later run starting with a word byte owes a space when the gap before it holds
    // whitespace: the gap's last byte becomes that space and joins the run. A gap holds none
    // when a carry from its first byte runs through all of it to the run.
    let gap = window & !keep;
    let quiet = gap & !white;
    let through = quiet.wrapping_add(gap & !(gap << 1) & quiet);
    let starts = keep & !(keep << 1) & word & !below(first + 1);
    let spaces = (starts & !through) >> 1;
    let mut rest = spaces;
    while rest != 0 {
        if let Some(b) = lowered.get_mut(rest.trailing_zeros() as usize) {
            *b = b' ';
        }
        rest &= rest - 1;
    }
    keep |= spaces;
    let last = 64 - keep.leading_zeros();
    // The runs, each copied with 16-byte stores of which its length counts.
    while keep != 0 {
        let start = keep.trailing_zeros() as usize;
        let mut left = (!(keep >> start)).trailing_zeros() as usize;
        let mut at = start;
        while let Some(piece) = lowered.get(at..).and_then(|r| r.first_chunk::<16>()) {
            out.put(piece, left.min(16));
            if left <= 16 {
                break;
            }
            at += 16;
            left -= 16;
        }
        // Clear the lowest run: the carry of adding its lowest bit runs through it.
        keep &= keep.wrapping_add(keep & keep.wrapping_neg());
    }
    // Whitespace after the last run owes a space to what follows.
    *pending_space = white & !below(last) != 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn naive_block(block: &[u8; 64]) -> (Masks, [u8; 64]) {
        let mut out = Masks::default();
        for (k, &b) in block.iter().enumerate() {
            let bit = |on: bool| u64::from(on) << k;
            out.word |= bit(b.is_ascii_alphanumeric() || b == b'_');
            out.space |= bit(b == b' ');
            out.white |= bit(matches!(b, 0x09..=0x0d | 0x1c..=0x20));
            out.high |= bit(b >= 0x80);
        }
        (out, std::array::from_fn(|k| block[k].to_ascii_lowercase()))
    }

    fn both(block: &[u8; 64]) -> [(Masks, [u8; 64]); 2] {
        let mut lowered = [0; 80];
        let simd = block64(block, &mut lowered);
        let simd_lowered = std::array::from_fn(|k| lowered[k]);
        let words = block64_words(block, &mut lowered);
        [
            (simd, simd_lowered),
            (words, std::array::from_fn(|k| lowered[k])),
        ]
    }

    #[test]
    fn block_masks_are_their_definitions() {
        let mut next = crate::testing::lcg(53);
        for b in 0..=255u8 {
            for k in 0..64 {
                let mut block = [b'Q'; 64];
                block[k] = b;
                let want = naive_block(&block);
                assert_eq!(both(&block), [want, want], "{b:#x} at {k}");
            }
        }
        for _ in 0..5_000 {
            let block: [u8; 64] = std::array::from_fn(|_| (next() % 256) as u8);
            let want = naive_block(&block);
            assert_eq!(both(&block), [want, want]);
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
        assert_eq!(
            String::from_utf8(got).as_deref(),
            Ok(want.as_str()),
            "{text:?}"
        );
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
            "a. b",
            ". a",
            " a",
            "a . b",
        ] {
            check(t, text);
        }
        // Random texts over the classes that matter, long enough to cross blocks, each also
        // shifted by up to 63 bytes so every byte meets every lane.
        let mut next = crate::testing::lcg(59);
        let pieces = [
            "a", "Z", "_", "7", " ", "  ", "\t", "\n", ".", ",", "-", "'", "\x1c", "\x7f", "é",
            "É", "ß", "İ", "\u{2028}", "\u{a0}", "😀", "ǅ", "\u{0301}", "ﬀ", "\u{3000}", "Д", "я",
            "\u{3a9}", "\u{85}", "²", "ا",
        ];
        for round in 0..20_000 {
            let len = if round % 10 == 0 {
                next() % 300
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
            let pad = "x".repeat(next() % 64);
            check(t, &(pad + &text));
        }
    }
}
