//! How a few words start: a filter that lets a scan skip, at a table look-up or two, the words
//! of a long text that cannot be any of them.
//!
//! The words asked about are ASCII: a letter or digit, then, when the word goes on with one, a
//! second letter or digit. The filter is exact for them: each of the 36 lower-cased letters and
//! digits has a row of bits, one for each second letter or digit a word added starts with it
//! and one (bit 0) for any start with it at all.

/// The bit of each ASCII letter or digit, either case, in a row: 1..=36; 0 for every other byte
/// (a word that does not go on with a letter or digit asks for bit 0).
static INDEX: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 10 {
        table[b'0' as usize + b] = 1 + b as u8;
        b += 1;
    }
    let mut b = 0;
    while b < 26 {
        table[b'a' as usize + b] = 11 + b as u8;
        table[b'A' as usize + b] = 11 + b as u8;
        b += 1;
    }
    table
};

/// The first two bytes of some words.
///
/// A word may be one of them only if its first byte starts one of them and, when its second is
/// a letter or digit, its first two start one of them ([`Starts::may_start_bit`]).
#[derive(Clone, Copy)]
pub(crate) struct Starts {
    /// By the index of a first byte: bit 0 if some word starts with it, and the bit of each
    /// letter or digit that follows it in some word. Row 0 (any other first byte) stays empty.
    rows: [u64; 64],
}

impl Default for Starts {
    fn default() -> Self {
        Starts { rows: [0; 64] }
    }
}

impl Starts {
    #[inline(always)]
    fn index(b: u8) -> usize {
        usize::from(INDEX[usize::from(b)])
    }

    /// Add a word's start: its first byte, and its second if it has one. A word that does not
    /// start with an ASCII letter or digit is never asked about, and is not added.
    #[inline]
    pub(crate) fn insert(&mut self, first: u8, second: Option<u8>) {
        let row = Self::index(first);
        if row == 0 {
            return;
        }
        let bit = second.map_or(0, Self::index);
        self.rows[row & 63] |= 1 | 1 << bit;
    }

    /// 1 if a word that starts with the ASCII letter or digit `first` (either case) may be one of
    /// the words added, knowing that its next byte is `next`: by the first two when `next` is a
    /// letter or digit too (a word starting so was added), else by the first alone (any word
    /// starting with it was); else 0. Without a branch, for a scan that gathers the words to
    /// read first (whether a word passes is seldom predictable).
    #[inline(always)]
    pub(crate) fn may_start_bit(&self, first: u8, next: u8) -> u64 {
        self.rows[Self::index(first) & 63] >> Self::index(next) & 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filter as it is meant: the first two bytes (lower-cased) of each word added.
    fn naive(added: &[(u8, Option<u8>)], first: u8, next: u8) -> bool {
        let first = first.to_ascii_lowercase();
        added.iter().any(|&(f, s)| {
            f == first && (!next.is_ascii_alphanumeric() || s == Some(next.to_ascii_lowercase()))
        })
    }

    #[test]
    fn is_exact_for_letters_and_digits() {
        let mut next = crate::testing::lcg(53);
        let alnum: Vec<u8> = (0..=255u8).filter(u8::is_ascii_alphanumeric).collect();
        let lower: Vec<u8> = (0..=255u8)
            .filter(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            .collect();
        for round in 0..200 {
            let mut starts = Starts::default();
            let mut added = Vec::new();
            for _ in 0..round % 40 {
                // Lower-cased words' starts, and some that are never asked about.
                let first = match next() % 8 {
                    0 => ((next() % 256) as u8).to_ascii_lowercase(),
                    _ => lower[next() % lower.len()],
                };
                let second = match next() % 4 {
                    0 => None,
                    1 => Some(((next() % 256) as u8).to_ascii_lowercase()),
                    _ => Some(lower[next() % lower.len()]),
                };
                starts.insert(first, second);
                added.push((first, second));
            }
            for &first in &alnum {
                let any = added.iter().any(|&(f, _)| f == first.to_ascii_lowercase());
                assert_eq!(starts.may_start_bit(first, b' '), u64::from(any));
                for after in 0..=255u8 {
                    let want = naive(&added, first, after);
                    assert_eq!(starts.may_start_bit(first, after), u64::from(want));
                }
            }
        }
        assert_eq!(Starts::default().may_start_bit(b'a', b'b'), 0);
    }
}
