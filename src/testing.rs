//! Oracles shared by the kernels' unit tests (compiled for `cargo test` only).

/// The length of the longest common subsequence of `a` and `b`, by the textbook dynamic
/// programme: quadratic and obviously right, the oracle of every faster LCS in the crate.
pub(crate) fn lcs_dp<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(0usize);
        for (j, y) in b.iter().enumerate() {
            let v = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
            cur.push(v);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A fixed-seed random number source for the kernels' tests (a linear congruential generator
/// with Knuth's MMIX constants): each call gives the next 31-bit number of the sequence `seed`
/// starts, the same on every run.
pub(crate) fn lcg(mut seed: u64) -> impl FnMut() -> usize {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    }
}

/// A text of `n` words drawn from `words` by `next` (an [`lcg`]), each with one space on either
/// side (` a b `, and ` ` for none): the generated texts of answer_match's word tests.
pub(crate) fn spaced_words(words: &[&str], n: usize, next: &mut dyn FnMut() -> usize) -> String {
    let w: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
    format!(" {} ", w.join(" ")).replace("  ", " ")
}

/// A fixed-seed random source for the kernels' generated-text tests (Marsaglia's 64-bit
/// xorshift, shifts 13, 7, 17): each call `next(m)` gives the next number of the sequence `seed`
/// starts, taken modulo `m` (not zero), the same on every run.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |m| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    }
}

/// The words of answer_match's stem-key tests (key recall, marked tokens), then `extra`: words of
/// one and two bytes, ASCII and not; plurals and their stems; stems around the keys' eight bytes;
/// numbers; stop words.
pub(crate) fn stem_words(extra: &[&'static str]) -> Vec<&'static str> {
    let mut words = vec![
        "a",
        "b",
        "é",
        "éa",
        "ab",
        "abc",
        "cats",
        "cat",
        "stories",
        "story",
        "x1",
        "1",
        "12",
        "1000s",
        "the",
        "of",
        "horses",
        "horse",
        "zz",
        "z",
        "ω",
        "ωmega",
        "abcdefgh",
        "abcdefghs",
        "abcdefgies",
        "abcdefgy",
        "candies",
        "candy",
        "12345678",
        "123456789",
        "abcdefghé",
        "hieroglyphics",
    ];
    words.extend_from_slice(extra);
    words
}
