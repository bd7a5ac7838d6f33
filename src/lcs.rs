//! Longest common subsequences whose cost follows the difference, not the lengths.
//!
//! The bit-parallel recurrences (`precision::char_ratio` over characters, `tokens::BitLcs` over
//! words) cost the product of the lengths over 64; two long texts that differ in a few places
//! cost [`myers`]' algorithm next to nothing, exactly.

/// The LCS length by Myers' greedy algorithm for the shortest edit script of insertions and
/// deletions (`D = n + m - 2 LCS`), in `O((n + m) D)` steps and `O(D)` memory, or `None` once
/// it has taken more than `work` steps.
pub fn myers<T: Copy + Eq>(a: &[T], b: &[T], work: u64, v: &mut Vec<usize>) -> Option<usize> {
    myers_counted(a, b, work, v).0
}

/// [`myers`], and the steps it took (at most `work`; all of them when it ended `None`).
///
/// A step is one diagonal of a round or one character of a snake: each costs about a
/// nanosecond whatever the texts (the furthest points are `O(D)` words, in the cache).
pub fn myers_counted<T: Copy + Eq>(
    a: &[T],
    b: &[T],
    work: u64,
    v: &mut Vec<usize>,
) -> (Option<usize>, u64) {
    let mut spent = 0;
    let found = myers_within(a, b, work, v, &mut spent);
    (found, spent.min(work))
}

fn myers_within<T: Copy + Eq>(
    a: &[T],
    b: &[T],
    work: u64,
    v: &mut Vec<usize>,
    spent: &mut u64,
) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return Some(0);
    }
    // Round d looks at d + 1 diagonals, so `work` steps reach d <= sqrt(2 work) at most.
    let reach = ((2.0 * work as f64).sqrt() as usize).saturating_add(2);
    let max_d = (n + m).min(reach);
    // v[offset + k]: the furthest x reached on diagonal k = x - y.
    let offset = max_d + 1;
    v.clear();
    v.resize(2 * offset + 1, 0);
    for d in 0..=max_d {
        let d = d as isize;
        let mut k = -d;
        while k <= d {
            let at = (offset as isize + k) as usize;
            let down = *v.get(at + 1)?; // from diagonal k + 1: an insertion
            let right = *v.get(at - 1)?; // from diagonal k - 1: a deletion
            let mut x = if k == -d || (k != d && right < down) {
                down
            } else {
                right + 1
            };
            let mut y = (x as isize - k) as usize;
            let start = x;
            while x < n && y < m && a.get(x) == b.get(y) {
                x += 1;
                y += 1;
            }
            *spent += 1 + (x - start) as u64;
            if *spent > work {
                return None;
            }
            *v.get_mut(at)? = x;
            if x >= n && y >= m {
                return Some((n + m - d as usize) / 2);
            }
            k += 2;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcs_dp;

    #[test]
    fn myers_equals_the_dynamic_programme() {
        let mut seed = 3u64;
        let mut next = |k: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % k) as u32
        };
        let mut v = Vec::new();
        for _ in 0..300 {
            let alphabet = u64::from(next(6)) + 1;
            let a: Vec<u32> = (0..next(60)).map(|_| next(alphabet)).collect();
            let b: Vec<u32> = (0..next(60)).map(|_| next(alphabet)).collect();
            assert_eq!(myers(&a, &b, u64::MAX, &mut v), Some(lcs_dp(&a, &b)));
        }
        // a bound below the difference's cost ends it
        let a: Vec<u32> = (0..1000).collect();
        let b: Vec<u32> = (1000..2000).collect();
        assert_eq!(myers(&a, &b, 10_000, &mut v), None);
        assert_eq!(myers(&a, &a, 2_000, &mut v), Some(1000));
    }
}
