//! What the forward passes of `final_choice` and `final_number` share: the jump to the next byte
//! a rule may start at, eight bytes at a time, and the check for the next few-shot question.
//!
//! Most bytes of a response start no rule: a letter inside a word, or a byte no trigger begins
//! with. [`next_start`] classifies a little-endian word of eight bytes at once with
//! [`in_range`] on the low seven bits of each byte (bytes of 0x80 or more start no rule and are
//! masked out), and stops at the first byte that is a mark (such as `\n` or `\`) or a letter
//! standing at a word's start and followed by a byte its rules' words go on with (`an` of
//! `answer`). The classes a pass gives may be wider than the bytes its rules start at (a
//! superset): the pass then visits a few bytes that start nothing, and reads them as it reads
//! any other byte with no rule, so it gives the same result.

use crate::ascii::in_range;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The byte classes of one pass, each a function of eight bytes (their low seven bits) to the
/// high bit of each byte in the class.
pub(super) trait Starts {
    /// Bytes that may start a rule wherever they stand.
    fn marks(low: u64) -> u64;
    /// Letters that may start a rule at a word's start (ASCII letters only), given `next`, the
    /// low seven bits of the bytes one place on (byte `k` of `next` follows byte `k` of `low`;
    /// past the text's end, zero).
    fn letters(low: u64, next: u64) -> u64;
    /// Bytes after which a letter is inside a word.
    fn word(low: u64) -> u64;
}

/// The high bit of each byte of `low` (seven-bit bytes) that is an ASCII letter of either case
/// whose lower-case form lies in `lo..=hi`: bit 5 set maps each capital to its small letter
/// and no other byte into `a..=z`.
#[inline(always)]
pub(super) const fn folded(low: u64, lo: u8, hi: u8) -> u64 {
    in_range(low | (ONES * 0x20), lo, hi)
}

/// The first place at or after `at` where a rule of `S` may start (see the module's docs), or
/// the text's length.
#[inline(always)]
pub(super) fn next_start<S: Starts>(b: &[u8], at: usize) -> usize {
    let n = b.len();
    let mut i = at;
    // The high bit of byte 0 set when the byte before `i` is a word byte.
    let mut carry = match i.checked_sub(1).map(|k| b[k]) {
        Some(c) if c < 0x80 => S::word(u64::from(c)) & 0x80,
        _ => 0,
    };
    // Eight bytes and the one after them.
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<9>()) {
        let (x, next) = words(chunk);
        let (found, word) = found::<S>(x, next, carry);
        if found != 0 {
            return i + found.trailing_zeros() as usize / 8;
        }
        carry = word >> 56;
        i += 8;
    }
    // The last bytes (at most eight), zero-padded: a zero byte is in no class.
    let mut rest = [0u8; 9];
    rest[..n - i].copy_from_slice(&b[i..]);
    let (x, next) = words(&rest);
    let (found, _) = found::<S>(x, next, carry);
    if found != 0 {
        i + found.trailing_zeros() as usize / 8
    } else {
        n
    }
}

/// The little-endian words of the first eight bytes of `chunk` and of the eight from its second.
#[inline(always)]
fn words(chunk: &[u8; 9]) -> (u64, u64) {
    let mut x = [0u8; 8];
    x.copy_from_slice(&chunk[..8]);
    let mut next = [0u8; 8];
    next.copy_from_slice(&chunk[1..]);
    (u64::from_le_bytes(x), u64::from_le_bytes(next))
}

/// The high bits of the bytes of `x` where a rule of `S` may start, and of its word bytes;
/// `next` is the word one byte on, `carry` the high bit of byte 0 set when the byte before `x` is
/// a word byte.
#[inline(always)]
fn found<S: Starts>(x: u64, next: u64, carry: u64) -> (u64, u64) {
    let ascii = !x & HIGH;
    let low = x & !HIGH;
    let word = S::word(low) & ascii;
    // A byte of 0x80 or more after a letter is read by its low seven bits: it may let a letter
    // through that starts nothing (a superset, as the module's docs allow).
    let letters = S::letters(low, next & !HIGH) & !((word << 8) | carry);
    ((S::marks(low) | letters) & ascii, word)
}

/// Whether the line starting at `at` begins, past spaces and tabs, with `Question:` (or `Q:`
/// when `also_q`): the model is writing the next few-shot question itself.
#[inline]
pub(super) fn question_begins(b: &[u8], at: usize, also_q: bool) -> bool {
    let mut j = at;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let rest = &b[j..];
    rest.starts_with(b"Question:") || (also_q && rest.starts_with(b"Q:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks `\n` and `*`, letters `a`..`c` at a word's start (`b` only before `y`), word bytes
    /// the ASCII letters.
    struct Test;

    impl Starts for Test {
        fn marks(low: u64) -> u64 {
            in_range(low, b'\n', b'\n') | in_range(low, b'*', b'*')
        }
        fn letters(low: u64, next: u64) -> u64 {
            folded(low, b'a', b'a')
                | folded(low, b'c', b'c')
                | (folded(low, b'b', b'b') & folded(next, b'y', b'y'))
        }
        fn word(low: u64) -> u64 {
            folded(low, b'a', b'z')
        }
    }

    fn byte_by_byte(b: &[u8], at: usize) -> usize {
        (at..b.len())
            .find(|&i| {
                let c = b[i];
                let next = b.get(i + 1).map(|&c| (c & 0x7f).to_ascii_lowercase());
                let letter = matches!(c.to_ascii_lowercase(), b'a' | b'c')
                    || (c.eq_ignore_ascii_case(&b'b') && next == Some(b'y'));
                c == b'\n' || c == b'*' || (letter && (i == 0 || !b[i - 1].is_ascii_alphabetic()))
            })
            .unwrap_or(b.len())
    }

    #[test]
    fn next_start_stops_where_a_byte_scan_does() {
        // Every prefix, from every place, of texts with marks, word starts, mid-word letters
        // and bytes of 0x80 or more on both sides of the eight-byte words' edges.
        let texts: [&[u8]; 6] = [
            b"",
            b"xxxxxxxxxxxxxxxxxxxxa",
            b"the cab is *here*\nand\tBob ate a crab; zzzzzzzzzzzzzzzzzzC",
            "caf\u{e9} \u{e9}a \u{2212}b xa\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}ab".as_bytes(),
            b"\x80a\xffb\xc3c\na\x00b 1a _c",
            b"xxxxxxx\naxxxxxxxxxxxxxxxbyxxxxxxxxxxxxxxxby xb\xf9 by",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = Vec::new();
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            random.push(b"abcxyzABY *\n\x80\xf9_1 "[(state % 17) as usize]);
        }
        for text in texts.iter().copied().chain([&random[..]]) {
            for len in 0..=text.len() {
                let t = &text[..len];
                for at in 0..=len {
                    assert_eq!(next_start::<Test>(t, at), byte_by_byte(t, at), "{t:?} {at}");
                }
            }
        }
    }

    #[test]
    fn question_begins_past_spaces_and_tabs() {
        assert!(question_begins(b"  \tQuestion: x", 0, false));
        assert!(!question_begins(b"Q: x", 0, false));
        assert!(question_begins(b"x\n Q: y", 2, true));
        assert!(!question_begins(b"x\n Questions: y", 2, true));
        assert!(!question_begins(b"", 0, true));
    }
}
