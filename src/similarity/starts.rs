//! How a few words start: a filter that lets a scan skip, at a bit test or two, the words of a
//! long text that cannot be any of them.

/// The first bytes of some words, and a filter of the first two of those with two or more.
///
/// A word may be one of them only if its first byte is in the set ([`Starts::may_start`]) and,
/// when it has two or more, its first two hit the filter ([`Starts::may_start_with`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct Starts {
    /// One bit per byte.
    firsts: [u64; 4],
    /// One bit per hash of a pair of bytes.
    pairs: [u64; 16],
}

impl Starts {
    #[inline(always)]
    fn pair_bit(first: u8, second: u8) -> (usize, u64) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let pair = u64::from(first) | u64::from(second) << 8;
        let h = (pair.wrapping_mul(K) >> 54) as usize;
        (h >> 6, 1 << (h & 63))
    }

    /// Add a word's start: its first byte, and its second if it has one.
    #[inline]
    pub(crate) fn insert(&mut self, first: u8, second: Option<u8>) {
        if let Some(bits) = self.firsts.get_mut(usize::from(first >> 6)) {
            *bits |= 1 << (first & 63);
        }
        if let Some(second) = second {
            let (at, bit) = Self::pair_bit(first, second);
            if let Some(bits) = self.pairs.get_mut(at) {
                *bits |= bit;
            }
        }
    }

    /// Whether a word that starts with `first` may be one of the words added.
    #[inline(always)]
    pub(crate) fn may_start(&self, first: u8) -> bool {
        self.firsts
            .get(usize::from(first >> 6))
            .is_some_and(|&bits| bits >> (first & 63) & 1 != 0)
    }

    /// 1 if a word that starts with `first` may be one of the words added and, when
    /// `has_second`, so may one that starts with `first` and `second`; else 0. Without a branch,
    /// for a scan that gathers the words to read first (whether a word passes is seldom
    /// predictable).
    #[inline(always)]
    pub(crate) fn may_start_bit(&self, first: u8, second: u8, has_second: bool) -> u64 {
        let in_firsts = self.firsts[usize::from(first >> 6) & 3] >> (first & 63) & 1;
        let (at, bit) = Self::pair_bit(first, second);
        let in_pairs = u64::from(self.pairs[at & 15] & bit != 0);
        in_firsts & (in_pairs | u64::from(!has_second))
    }

    /// Whether a word that starts with `first` and `second` may be one of the words added
    /// ([`Starts::may_start`] of `first` being true).
    #[inline(always)]
    pub(crate) fn may_start_with(&self, first: u8, second: u8) -> bool {
        let (at, bit) = Self::pair_bit(first, second);
        self.pairs.get(at).is_some_and(|&bits| bits & bit != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_every_start_added() {
        let mut next = crate::testing::lcg(53);
        let mut starts = Starts::default();
        let mut added = Vec::new();
        for _ in 0..40 {
            let (first, second) = ((next() % 256) as u8, (next() % 256) as u8);
            starts.insert(first, Some(second));
            added.push((first, second));
        }
        for &(first, second) in &added {
            assert!(starts.may_start(first));
            assert!(starts.may_start_with(first, second));
            assert_eq!(starts.may_start_bit(first, second, true), 1);
            assert_eq!(starts.may_start_bit(first, b'~', false), 1);
        }
        for first in 0..=255u8 {
            for second in [0, b'a', b'~', 0xff] {
                let want = starts.may_start(first) && starts.may_start_with(first, second);
                assert_eq!(starts.may_start_bit(first, second, true), u64::from(want));
                let want = starts.may_start(first);
                assert_eq!(starts.may_start_bit(first, second, false), u64::from(want));
            }
        }
        // Most other starts are told apart (40 pairs set at most 40 of the 1,024 bits).
        let other = (0..=255u8)
            .filter(|&b| !starts.may_start_with(b, b'~'))
            .count();
        assert!(other > 128, "{other}");
        assert!(!Starts::default().may_start(b'a'));
        assert!(!Starts::default().may_start_with(b'a', b'b'));
    }
}
