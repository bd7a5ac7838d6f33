//! Byte counts and tests of any UTF-8 text, eight bytes at a time: the per-row questions the
//! rules ask of a short alias (how many spaces, whether a digit), without a loop per byte.

use crate::ascii;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The 8-byte words of `b`, the last zero-padded.
#[inline(always)]
fn words(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let chunks = b.chunks_exact(8);
    let tail = chunks.remainder();
    chunks
        .map(|c| c.first_chunk::<8>().map_or(0, |c| u64::from_le_bytes(*c)))
        .chain((!tail.is_empty()).then(|| ascii::load_short(tail)))
}

/// The high bit of each byte of `x` that is zero.
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// The number of bytes of `x` whose high bit `flags` sets (only the high bits may be set): the
/// flags moved to the bytes' low bits and summed by one multiplication into the top byte (at most
/// eight, so no carry), which costs less than a population count where the processor has none.
#[inline(always)]
fn count_flags(flags: u64) -> usize {
    ((flags >> 7).wrapping_mul(ONES) >> 56) as usize
}

/// How many bytes of `b` are spaces.
#[inline]
pub(super) fn count_spaces(b: &[u8]) -> usize {
    // (A padding byte of zero is no space.)
    let spaces = ONES * u64::from(b' ');
    let chunks = b.chunks_exact(8);
    let tail = chunks.remainder();
    let mut n = count_flags(zero_bytes(ascii::load_short(tail) ^ spaces));
    for c in chunks {
        let x = c.first_chunk::<8>().map_or(0, |c| u64::from_le_bytes(*c));
        n += count_flags(zero_bytes(x ^ spaces));
    }
    n
}

/// Whether a byte of `b` is one of `a`, `b2` or `c` (ASCII bytes): `memchr3`, whose vector
/// search reads a short alias in a step or two.
#[inline]
pub(super) fn has_any_of3(b: &[u8], a: u8, b2: u8, c: u8) -> bool {
    memchr::memchr3(a, b2, c, b).is_some()
}

/// Whether a byte of `b` is an ASCII decimal digit.
#[inline]
pub(super) fn has_ascii_digit(b: &[u8]) -> bool {
    // The bytes of 0x80 and over are masked out before the range test (it needs 7-bit bytes).
    words(b).any(|x| ascii::in_range(x & !HIGH, b'0', b'9') & !x != 0)
}

/// Call `f` with each word of a normalised text (the runs of bytes other than a space) and its
/// first eight bytes (zero-padded), until it returns `false`; each word's end is found eight
/// bytes at a time.
#[inline(always)]
pub(super) fn each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str, u64) -> bool) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b' ' {
            i += 1;
            continue;
        }
        let (end, head) = next_space(b, i);
        // SAFETY: `i < end <= text.len()` (`b[i]` is no space, and `next_space` finds one at or
        // past it, or the end), and both are on character boundaries: `i` is the text's start
        // or follows a space, `end` is a space or the text's end (a space is ASCII, a character
        // of its own). (`text.get`'s boundary checks cost a tenth of a short word's keying.)
        let word = unsafe { text.get_unchecked(i..end) };
        if !f(word, head) {
            return;
        }
        i = end + 1;
    }
}

/// Where the first space of `b` from `i` on is (`b.len()` when there is none), and the eight
/// bytes from `i` (zero-padded).
#[inline(always)]
fn next_space(b: &[u8], i: usize) -> (usize, u64) {
    let head = ascii::load(b, i);
    let mut x = head;
    let mut at = i;
    loop {
        // The bytes that are spaces: zero in `y` (the lowest flagged is exact; a padding byte
        // of zero is no space).
        let y = x ^ (ONES * u64::from(b' '));
        let spaces = y.wrapping_sub(ONES) & !y & HIGH;
        if spaces != 0 {
            return (at + (spaces.trailing_zeros() / 8) as usize, head);
        }
        at += 8;
        if at >= b.len() {
            return (b.len(), head);
        }
        x = ascii::load(b, at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`each_word`] gives the words `split(' ')` gives (the empty ones left out), each with
    /// the eight bytes of the text from its start (zero past the end); on generated texts of ASCII and multi-byte
    /// characters, runs of spaces and words across eight-byte steps; and stops when asked.
    #[test]
    fn each_word_gives_the_split_words() {
        let pieces = [
            " ",
            " ",
            "  ",
            "a",
            "paris",
            "é",
            "日本",
            "abcdefgh",
            "abcdefghi",
            "x\u{1F600}y",
            "\t",
            "ß",
            "0",
            "longerwordthansixteen",
        ];
        let mut next = crate::testing::lcg(8);
        for _ in 0..5000 {
            let n = next() % 12;
            let text: String = (0..n).map(|_| pieces[next() % pieces.len()]).collect();
            let want: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
            let mut got = Vec::new();
            each_word(&text, |w, head| {
                let at = w.as_ptr() as usize - text.as_ptr() as usize;
                assert_eq!(head, ascii::load(text.as_bytes(), at), "{text:?} {w:?}");
                got.push(w);
                true
            });
            assert_eq!(got, want, "{text:?}");
            // Stopped at the first word.
            let mut seen = 0;
            each_word(&text, |_, _| {
                seen += 1;
                false
            });
            assert_eq!(seen, usize::from(!want.is_empty()), "{text:?}");
        }
    }

    #[test]
    fn counts_and_tests_agree_with_the_bytes() {
        let texts = [
            "",
            " ",
            "a",
            " paris france ",
            "  two  spaces and more than eight bytes  ",
            " année 1990 ",
            "                                        ",
            "é 9",
            "\u{0660}\u{0661}",
            " é ü ß ",
            "0",
            "abcdefg9",
            "abcdefgh9",
            "\u{00b9}\u{2070}/:",
        ];
        for text in texts {
            let b = text.as_bytes();
            let spaces = b.iter().filter(|&&c| c == b' ').count();
            assert_eq!(count_spaces(b), spaces, "{text:?}");
            assert_eq!(
                has_any_of3(b, b'(', b',', b';'),
                b.iter().any(|c| b"(,;".contains(c)),
                "{text:?}"
            );
            assert_eq!(
                has_ascii_digit(b),
                b.iter().any(u8::is_ascii_digit),
                "{text:?}"
            );
        }
        // Every byte value at every position of a word.
        for v in 0..=255u8 {
            for at in 0..9 {
                let mut b = vec![b'x'; 9];
                b[at] = v;
                assert_eq!(count_spaces(&b), usize::from(v == b' '), "{v} at {at}");
                assert_eq!(has_ascii_digit(&b), v.is_ascii_digit(), "{v} at {at}");
                assert_eq!(
                    has_any_of3(&b, b'(', b';', b'('),
                    v == b'(' || v == b';',
                    "{v} at {at}"
                );
            }
        }
    }
}
