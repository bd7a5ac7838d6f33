//! Character similarity of two normalised strings, over code points.
//!
//! * [`indel`]: RapidFuzz's normalized Indel similarity, `1 - (|a| + |b| - 2 LCS) / (|a| + |b|)`,
//!   with a bit-parallel LCS (Hyyrö's formulation of Allison-Dix): one 64-bit word per 64
//!   characters of the shorter string, so short strings take one word and no allocation beyond
//!   the reused buffers.
//! * [`sequence_matcher`]: CPython 3.11's `difflib.SequenceMatcher(None, a, b).ratio()`, with
//!   autojunk on `b` and `find_longest_match`'s tie-breaking.
//!
//! Two empty strings have similarity 1.0 under both.

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
}

/// The length of the longest common subsequence of `a` and `b` (characters, or the bytes of
/// ASCII texts, which are the same thing there).
///
/// A common prefix and suffix belong to every longest common subsequence, so they are counted
/// and cut off first (long, nearly equal texts then cost next to nothing).
fn lcs<T: Copy + Eq + Into<char>>(a: &[T], b: &[T], s: &mut RatioScratch) -> usize {
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
    prefix + suffix + lcs_bit_parallel(a, b, s)
}

/// The LCS length by Hyyrö's bit-parallel recurrence, the shorter string as the pattern.
fn lcs_bit_parallel<T: Copy + Into<char>>(a: &[T], b: &[T], s: &mut RatioScratch) -> usize {
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = pattern.len();
    if m == 0 {
        return 0;
    }
    let words = m.div_ceil(64);
    // `s.ascii` is all zeros between calls: only the entries the pattern sets are cleared
    // afterwards, so a short pattern costs its own length, not a 128-row table.
    if s.ascii.len() < 128 * words {
        s.ascii.resize(128 * words, 0);
    }
    s.other.clear();
    s.other_masks.clear();
    for (i, &c) in pattern.iter().enumerate() {
        let c: char = c.into();
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if c.is_ascii() {
            s.ascii[c as usize * words + w] |= bit;
        } else {
            let next = s.other_masks.len() / words;
            let row = *s.other.entry(c).or_insert(next);
            if row == next {
                s.other_masks.resize((next + 1) * words, 0);
            }
            s.other_masks[row * words + w] |= bit;
        }
    }
    let total = if words == 1 {
        lcs_one_word(text, m, s)
    } else {
        lcs_many_words(text, m, words, s)
    };
    for (i, &c) in pattern.iter().enumerate() {
        let c: char = c.into();
        if c.is_ascii() {
            s.ascii[c as usize * words + i / 64] = 0;
        }
    }
    total
}

/// The recurrence for a pattern of at most 64 characters: the state is one word.
fn lcs_one_word<T: Copy + Into<char>>(text: &[T], m: usize, s: &RatioScratch) -> usize {
    let mut v = u64::MAX;
    for &c in text {
        let c: char = c.into();
        let mask = if c.is_ascii() {
            s.ascii[c as usize]
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

/// RapidFuzz's `Indel.normalized_similarity(a, b)`.
pub fn indel(a: &str, b: &str, s: &mut RatioScratch) -> f64 {
    let (total, common) = if a.is_ascii() && b.is_ascii() {
        (a.len() + b.len(), lcs(a.as_bytes(), b.as_bytes(), s))
    } else {
        let mut ac = std::mem::take(&mut s.a);
        let mut bc = std::mem::take(&mut s.b);
        ac.clear();
        ac.extend(a.chars());
        bc.clear();
        bc.extend(b.chars());
        let common = lcs(&ac, &bc, s);
        let total = ac.len() + bc.len();
        s.a = ac;
        s.b = bc;
        (total, common)
    };
    if total == 0 {
        return 1.0;
    }
    let distance = total - 2 * common;
    1.0 - distance as f64 / total as f64
}

/// `difflib.SequenceMatcher(None, a, b).ratio()` of CPython 3.11.
pub fn sequence_matcher(a: &str, b: &str, s: &mut RatioScratch) -> f64 {
    // Each distinct character of b gets an id (ASCII ones through a table, reset afterwards);
    // a's characters become those ids, or NO_ID for one b does not have, so equal ids are
    // equal characters and a NO_ID never equals an id of b.
    if s.ascii_ids.len() != 128 {
        s.ascii_ids.clear();
        s.ascii_ids.resize(128, NO_ID);
    }
    s.ids.clear();
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
        return 1.0;
    }
    let matches = matching_characters(s, n_ids as usize);
    2.0 * matches as f64 / (la + lb) as f64
}

const NO_ID: u32 = u32::MAX;

/// The sum of the sizes of `get_matching_blocks()`, from `a_ids` and `b_ids` (`n_ids`
/// distinct ids in b).
fn matching_characters(s: &mut RatioScratch, n_ids: usize) -> usize {
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
        let (i, j, k) = find_longest_match(s, alo, ahi, blo, bhi);
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
    total
}

/// `SequenceMatcher.find_longest_match(alo, ahi, blo, bhi)` without junk (isjunk is None):
/// the longest block over non-popular characters, earliest in a then in b, extended on both
/// ends by equal characters (popular ones included).
fn find_longest_match(
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
            for &j in &s.positions[s.starts[id]..s.starts[id + 1]] {
                if j < blo {
                    continue;
                }
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
    let (a, b) = (&s.a_ids, &s.b_ids);
    while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
        besti -= 1;
        bestj -= 1;
        bestsize += 1;
    }
    while besti + bestsize < ahi
        && bestj + bestsize < bhi
        && a[besti + bestsize] == b[bestj + bestsize]
    {
        bestsize += 1;
    }
    (besti, bestj, bestsize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcs_dp(a: &[char], b: &[char]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        for &ca in a {
            let mut cur = vec![0usize];
            for (j, &cb) in b.iter().enumerate() {
                cur.push(if ca == cb {
                    prev[j] + 1
                } else {
                    prev[j + 1].max(cur[j])
                });
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn indel_examples_and_blocks() {
        let mut s = RatioScratch::default();
        assert_eq!(indel("tide", "diet", &mut s), 0.5);
        assert_eq!(indel("", "", &mut s), 1.0);
        assert_eq!(indel("abc", "xyz", &mut s), 0.0);
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
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
                assert_eq!(lcs(&ac, &bc, &mut s), expected, "{a} / {b}");
                if a.is_ascii() && b.is_ascii() {
                    assert_eq!(lcs(a.as_bytes(), b.as_bytes(), &mut s), expected);
                }
                let total = (ac.len() + bc.len()).max(1) as f64;
                let want = 1.0 - (ac.len() + bc.len() - 2 * expected) as f64 / total;
                assert_eq!(indel(&a, &b, &mut s), want);
            }
        }
    }

    #[test]
    fn sequence_matcher_examples() {
        let mut s = RatioScratch::default();
        assert_eq!(sequence_matcher("tide", "diet", &mut s), 0.25);
        assert_eq!(sequence_matcher("diet", "tide", &mut s), 0.5);
        assert_eq!(sequence_matcher("", "", &mut s), 1.0);
        assert_eq!(sequence_matcher("abc", "", &mut s), 0.0);
    }
}
