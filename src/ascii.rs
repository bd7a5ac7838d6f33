//! Byte classes of ASCII text, eight bytes at a time.
//!
//! The word scans of the kernels spend most of their time asking, byte after byte, whether a
//! byte belongs to a class (a `\w` character, a space). For ASCII text the question is answered
//! for eight bytes at once: a class is a few byte ranges, and "is each byte of this little-endian
//! word in `lo..=hi`" is two additions and an exclusive or, whose carries stay within each byte
//! because every byte is below 0x80 ([`in_range`]). The answer is the high bit of each byte of
//! the result, and [`for_each_run`] walks a text's runs of class bytes from those masks with
//! `trailing_zeros`, one step per run boundary rather than per byte.
//!
//! Every function here expects ASCII bytes: a byte of 0x80 or more would carry into its
//! neighbour. The callers check `str::is_ascii` first.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all below 0x80) that lies in `lo..=hi`.
#[inline(always)]
pub const fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let from_lo = x + ONES * (0x80 - lo as u64);
    let past_hi = x + ONES * (0x80 - hi as u64 - 1);
    (from_lo ^ past_hi) & HIGH
}

/// The high bit of each byte of `x` that is a Python `\w` character: `[0-9A-Za-z_]`.
#[inline(always)]
pub const fn word_bytes(x: u64) -> u64 {
    // Setting bit 5 maps each capital to its small letter and no other byte into `a..=z`.
    in_range(x, b'0', b'9') | in_range(x | (ONES * 0x20), b'a', b'z') | in_range(x, b'_', b'_')
}

/// The high bit of each byte of `x` that is Python whitespace (`str.isspace()`): tab, line
/// feed, vertical tab, form feed, carriage return, the four separators U+001C..U+001F and the
/// space.
#[inline(always)]
pub const fn space_bytes(x: u64) -> u64 {
    in_range(x, 0x09, 0x0d) | in_range(x, 0x1c, 0x20)
}

/// The 8 bytes of `bytes` from `at` as a little-endian word, zero-padded past the end (any
/// bytes).
#[inline(always)]
pub fn load(bytes: &[u8], at: usize) -> u64 {
    let rest = bytes.get(at..).unwrap_or(&[]);
    match rest.first_chunk::<8>() {
        Some(chunk) => u64::from_le_bytes(*chunk),
        None => load_short(rest),
    }
}

/// The first bytes of `bytes` (at most 8 are read; any bytes) as a zero-padded little-endian
/// word: a loop the compiler unrolls, where copying into a padded array would call `memcpy` for
/// every short token.
#[inline(always)]
pub fn load_short(bytes: &[u8]) -> u64 {
    let mut word = 0u64;
    for (k, &b) in bytes.iter().take(8).enumerate() {
        word |= u64::from(b) << (8 * k);
    }
    word
}

/// The high bits of the bytes from byte `k` of a word on.
#[inline(always)]
fn from_byte(k: usize) -> u64 {
    if k >= 8 {
        0
    } else {
        HIGH << (8 * k)
    }
}

/// Call `f(start, end)` for each maximal run of bytes of `bytes` (ASCII) in the class `class`
/// (a function such as [`word_bytes`]: the high bit of each byte of a word in the class), in
/// order.
///
/// Each word of eight bytes is classified at once; the bytes where the class changes (from the
/// byte before, the last byte of the previous word carried over) are the set bits of one mask,
/// visited lowest first.
#[inline(always)]
pub fn for_each_run(bytes: &[u8], class: impl Fn(u64) -> u64, mut f: impl FnMut(usize, usize)) {
    let n = bytes.len();
    let mut start = 0;
    // The high bit of byte 0 set when the byte before this word was in the class.
    let mut carry = 0u64;
    let mut base = 0;
    while base < n {
        // The padding past the end is outside the class: a run ends there.
        let inside = class(load(bytes, base)) & !from_byte(n - base);
        let mut edges = inside ^ ((inside << 8) | carry);
        carry = inside >> 56;
        while edges != 0 {
            let bit = edges & edges.wrapping_neg();
            let at = base + bit.trailing_zeros() as usize / 8;
            if inside & bit != 0 {
                start = at;
            } else {
                f(start, at.min(n));
            }
            edges ^= bit;
        }
        base += 8;
    }
    if carry != 0 {
        f(start, n);
    }
}

/// Whether an ASCII lower-case letter of `bytes` comes right before an ASCII upper-case one
/// (`isIdaho`): the lower-case mask of each word, moved one byte on, meets its upper-case mask.
///
/// Unlike the other functions here, any bytes may be given: a byte of 0x80 or more is classified
/// by its low seven bits (which cannot carry) and then left out of both masks.
pub fn lower_before_upper(bytes: &[u8]) -> bool {
    // The high bit of byte 0 set when the byte before this word was lower-case.
    let mut carry = 0u64;
    let mut chunks = bytes.chunks_exact(8);
    let step = |x: u64, carry: &mut u64| {
        let (low, ascii) = (x & !HIGH, !x & HIGH);
        let lower = in_range(low, b'a', b'z') & ascii;
        let glued = ((lower << 8) | *carry) & in_range(low, b'A', b'Z') & ascii != 0;
        *carry = lower >> 56;
        glued
    };
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if step(u64::from_le_bytes(word), &mut carry) {
            return true;
        }
    }
    // The zero padding past the end is no letter.
    let rest = chunks.remainder();
    !rest.is_empty() && step(load(rest, 0), &mut carry)
}

/// How many bytes at the start of `bytes` (any bytes) are ASCII: the place of the first byte of
/// 0x80 or more, eight bytes at a time, or the length.
pub fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut base = 0;
    while let Some(chunk) = bytes.get(base..).and_then(|r| r.first_chunk::<8>()) {
        let high = u64::from_le_bytes(*chunk) & HIGH;
        if high != 0 {
            return base + high.trailing_zeros() as usize / 8;
        }
        base += 8;
    }
    bytes
        .get(base..)
        .and_then(|r| r.iter().position(|&b| b >= 0x80))
        .map_or(bytes.len(), |k| base + k)
}

/// The high bits of the eight bytes of `mask` (as [`in_range`] returns them) as the low eight
/// bits of the result, byte `k`'s as bit `k`: a multiplication moves each to its place in the top
/// byte (the partial products fall on distinct bits, so nothing carries).
#[inline(always)]
pub const fn gather_high_bits(mask: u64) -> u64 {
    ((mask & HIGH) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(bytes: &[u8], class: impl Fn(u64) -> u64) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for_each_run(bytes, class, |s, e| out.push((s, e)));
        out
    }

    fn naive(bytes: &[u8], member: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if member(bytes[i]) {
                let s = i;
                while i < bytes.len() && member(bytes[i]) {
                    i += 1;
                }
                out.push((s, i));
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn classes_are_their_definitions_for_every_byte() {
        for b in 0..128u8 {
            for other in [0u8, b'a', b'_', b' ', 0x7f] {
                for k in 0..8 {
                    let mut bytes = [other; 8];
                    bytes[k] = b;
                    let x = u64::from_le_bytes(bytes);
                    let bit = |m: u64| m & (0x80 << (8 * k)) != 0;
                    assert_eq!(bit(word_bytes(x)), b.is_ascii_alphanumeric() || b == b'_');
                    let space = matches!(b, 0x09..=0x0d | 0x1c..=0x20);
                    assert_eq!(bit(space_bytes(x)), space, "{b:#x}");
                }
            }
        }
    }

    #[test]
    fn runs_are_the_naive_runs() {
        let mut seed = 23u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..20_000 {
            let len = next() % 40;
            let bytes: Vec<u8> = (0..len)
                .map(|_| match next() % 3 {
                    0 => b"aZ_9 \t.,"[next() % 8],
                    _ => (next() % 128) as u8,
                })
                .collect();
            assert_eq!(
                runs(&bytes, word_bytes),
                naive(&bytes, |b| b.is_ascii_alphanumeric() || b == b'_'),
                "{bytes:?}"
            );
            assert_eq!(
                runs(&bytes, |x| !space_bytes(x) & HIGH),
                naive(&bytes, |b| !matches!(b, 0x09..=0x0d | 0x1c..=0x20)),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn lower_before_upper_is_the_pairwise_check() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..20_000 {
            let len = next() % 40;
            let bytes: Vec<u8> = (0..len)
                .map(|_| b"aZ_9 .zA\xc1\xe1\xfa\xda"[next() % 12])
                .collect();
            let want = bytes
                .windows(2)
                .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase());
            assert_eq!(lower_before_upper(&bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn ascii_prefix_is_the_first_high_byte() {
        for len in 0..24 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if let Some(b) = bytes.get_mut(at) {
                    *b = 0xc3;
                }
                assert_eq!(ascii_prefix_len(&bytes), at, "{len} {at}");
            }
        }
    }

    #[test]
    fn gathered_high_bits_are_one_bit_per_byte() {
        let mut seed = 31u64;
        for _ in 0..10_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mask = seed & HIGH;
            let expected = (0..8).fold(0, |bits, k| {
                bits | (u64::from(mask & (0x80 << (8 * k)) != 0) << k)
            });
            assert_eq!(
                gather_high_bits(mask | (seed & !HIGH)),
                expected,
                "{mask:#x}"
            );
        }
        assert_eq!(gather_high_bits(HIGH), 0xff);
    }
}
