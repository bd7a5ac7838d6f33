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

/// Two little-endian words that cover `bytes` (at most 16 are read): from 8 bytes on, the first
/// 8 and the last 8 (overlapping); from 4, the first 4 and the last 4, each zero-extended; below
/// 4, the bytes zero-padded and 0. A byte test on both words is then a test on every byte of a
/// short text, its padding being zero bytes.
#[inline(always)]
pub fn covering_words(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    let word4 = |at: usize| {
        bytes
            .get(at..)
            .and_then(|r| r.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    if n >= 8 {
        (load_short(bytes), bytes.get(n - 8..).map_or(0, load_short))
    } else if n >= 4 {
        (word4(0), word4(n - 4))
    } else {
        (load_short(bytes), 0)
    }
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

/// The classes of 64 bytes of a text, one bit per byte (byte `k`'s is bit `k`), as
/// [`classify`] finds them. Any bytes may be classified: one of 0x80 or more is in `high` and in
/// no other class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block64 {
    /// Bytes of 0x80 or more (the bytes of a non-ASCII character).
    pub high: u64,
    /// ASCII letters and digits, `[0-9A-Za-z]`.
    pub alnum: u64,
    /// `_`: with `alnum`, Python's `\w` on ASCII.
    pub underscore: u64,
    /// ASCII whitespace, as [`space_bytes`].
    pub space: u64,
    /// Printable ASCII other than the space: `!`..=`~`.
    pub printable: u64,
}

/// The classes of the 64 bytes of `block`.
///
/// On x86_64, sixteen bytes at a time with SSE2 (part of its baseline): a range is one byte
/// comparison or two, and `movemask` gathers the sixteen answers into bits. Elsewhere eight
/// bytes at a time with [`in_range`] and [`gather_high_bits`]. Inlined, a caller pays only for
/// the classes it reads.
#[inline(always)]
pub fn classify(block: &[u8; 64]) -> Block64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::classify(block)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        classify_words(block)
    }
}

/// [`classify`] eight bytes at a time, without SIMD: the portable version, and the tests' check
/// of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable")),
    allow(dead_code)
)]
#[inline(always)]
fn classify_words(block: &[u8; 64]) -> Block64 {
    let mut out = Block64::default();
    for (k, chunk) in block.chunks_exact(8).enumerate() {
        let x = load(chunk, 0);
        let high = x & HIGH;
        // Below 0x80, a byte's class is read from its low seven bits.
        let low = x ^ high;
        let keep = !high;
        let alnum = (in_range(low, b'0', b'9') | in_range(low | (ONES * 0x20), b'a', b'z')) & keep;
        let bits = |mask: u64| gather_high_bits(mask) << (8 * k);
        out.high |= bits(high);
        out.alnum |= bits(alnum);
        out.underscore |= bits(in_range(low, b'_', b'_') & keep);
        out.space |= bits(space_bytes(low) & keep);
        out.printable |= bits(in_range(low, b'!', b'~') & keep);
    }
    out
}

/// The 64 bytes of `block` with each ASCII capital lowered and each whitespace byte (as
/// [`space_bytes`]) made a space; every other byte, 0x80 or more included, unchanged.
///
/// On x86_64 sixteen bytes at a time with SSE2, elsewhere eight at a time with [`in_range`] on
/// the low seven bits of each byte.
#[inline(always)]
pub fn lower_spaced(block: &[u8; 64]) -> [u8; 64] {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::lower_spaced(block)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        lower_spaced_words(block)
    }
}

/// [`lower_spaced`] eight bytes at a time, without SIMD: the portable version, and the tests'
/// check of the SSE2 one.
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable")),
    allow(dead_code)
)]
#[inline(always)]
fn lower_spaced_words(block: &[u8; 64]) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (to, chunk) in out.chunks_exact_mut(8).zip(block.chunks_exact(8)) {
        let x = load(chunk, 0);
        let high = x & HIGH;
        let low = x ^ high;
        let upper = in_range(low, b'A', b'Z') & !high;
        let space = space_bytes(low) & !high;
        // A whole byte of ones where a space goes.
        let spaces = (space >> 7) * 0xff;
        let y = ((x | (upper >> 2)) & !spaces) | (spaces & (ONES * 0x20));
        to.copy_from_slice(&y.to_le_bytes());
    }
    out
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub(crate) mod sse2 {
    //! The SSE2 intrinsics are `unsafe` to call from a function without
    //! `#[target_feature(enable = "sse2")]`, which could not be inlined into its callers; here
    //! they are called in `unsafe` blocks instead, sound because this module is only compiled
    //! where SSE2 is enabled for the whole build (every x86_64 target). Its byte-class helpers
    //! serve the other kernels' SSE2 blocks too.
    use super::Block64;
    use std::arch::x86_64::*;

    /// The bytes of `v` in `lo..=hi` (`lo` at most `hi`, both below 0x80): a byte of 0x80 or
    /// more is negative as a signed byte, below `lo`.
    #[inline(always)]
    pub(crate) fn in_range(v: __m128i, lo: u8, hi: u8) -> __m128i {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        unsafe {
            let above = _mm_cmpgt_epi8(v, _mm_set1_epi8(lo as i8 - 1));
            let below = _mm_cmplt_epi8(v, _mm_set1_epi8(hi as i8 + 1));
            _mm_and_si128(above, below)
        }
    }

    /// The high bit of each byte of `mask`, byte `k`'s as bit `k`.
    #[inline(always)]
    pub(crate) fn bits(mask: __m128i) -> u64 {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        u64::from(unsafe { _mm_movemask_epi8(mask) } as u16)
    }

    /// The bytes of `v` equal to `x`.
    #[inline(always)]
    pub(crate) fn equal(v: __m128i, x: u8) -> __m128i {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        unsafe { _mm_cmpeq_epi8(v, _mm_set1_epi8(x as i8)) }
    }

    #[inline(always)]
    pub(super) fn classify(block: &[u8; 64]) -> Block64 {
        let mut out = Block64::default();
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            // Two little-endian words, which the compiler folds into one unaligned load.
            let word = |at: usize| super::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let (v, letter, digit, space, underscore) = unsafe {
                let v = _mm_set_epi64x(word(8), word(0));
                let letter = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', b'z');
                let digit = in_range(v, b'0', b'9');
                let space = _mm_or_si128(in_range(v, 0x09, 0x0d), in_range(v, 0x1c, 0x20));
                let underscore = equal(v, b'_');
                (v, letter, digit, space, underscore)
            };
            // SAFETY: as above.
            let alnum = unsafe { _mm_or_si128(digit, letter) };
            let shift = 16 * k as u32;
            out.high |= bits(v) << shift;
            out.alnum |= bits(alnum) << shift;
            out.underscore |= bits(underscore) << shift;
            out.space |= bits(space) << shift;
            out.printable |= bits(in_range(v, b'!', b'~')) << shift;
        }
        out
    }

    #[inline(always)]
    pub(super) fn lower_spaced(block: &[u8; 64]) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (to, chunk) in out.chunks_exact_mut(16).zip(block.chunks_exact(16)) {
            let word = |at: usize| super::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
            let y = unsafe {
                let v = _mm_set_epi64x(word(8), word(0));
                let twenty = _mm_set1_epi8(0x20);
                let upper = in_range(v, b'A', b'Z');
                let lowered = _mm_or_si128(v, _mm_and_si128(upper, twenty));
                let space = _mm_or_si128(in_range(v, 0x09, 0x0d), in_range(v, 0x1c, 0x20));
                _mm_or_si128(
                    _mm_andnot_si128(space, lowered),
                    _mm_and_si128(space, twenty),
                )
            };
            // SAFETY: as above.
            let (lo, hi) = unsafe {
                (
                    _mm_cvtsi128_si64(y) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(y, y)) as u64,
                )
            };
            to[..8].copy_from_slice(&lo.to_le_bytes());
            to[8..].copy_from_slice(&hi.to_le_bytes());
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    //! Byte-class helpers for the kernels' AVX2 blocks. Each is compiled for AVX2 whatever the
    //! build's target, so it may only be called from code that runs when the processor has AVX2
    //! (a function with the same `target_feature`, itself reached through a run-time check).
    use std::arch::x86_64::*;

    /// The bytes of `v` in `lo..=hi` (both below 0x80): a byte of 0x80 or more is negative as
    /// a signed byte, below `lo`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn in_range(v: __m256i, lo: u8, hi: u8) -> __m256i {
        let above = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(lo as i8 - 1));
        let below = _mm256_cmpgt_epi8(_mm256_set1_epi8(hi as i8 + 1), v);
        _mm256_and_si256(above, below)
    }

    /// The bytes of `v` equal to `x`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn equal(v: __m256i, x: u8) -> __m256i {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(x as i8))
    }

    /// The high bit of each byte of `mask`, byte `k`'s as bit `k`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn bits(mask: __m256i) -> u64 {
        u64::from(_mm256_movemask_epi8(mask) as u32)
    }

    /// The classes of each byte of `v` by a look-up of each of its nibbles: byte `k` is
    /// `low[v[k] & 15] & high[v[k] >> 4]`, so a byte is in a class when the entries of both its
    /// nibbles have the class's bit (tables such as [`super::nibble_tables`] builds). Two
    /// shuffles, where a range test per class would take two compares each.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn nibble_classes(v: __m256i, low: &[u8; 16], high: &[u8; 16]) -> __m256i {
        // SAFETY: each table holds 16 bytes, which an unaligned load reads.
        let (low, high) = unsafe {
            (
                _mm_loadu_si128(low.as_ptr().cast()),
                _mm_loadu_si128(high.as_ptr().cast()),
            )
        };
        let nibble = _mm256_set1_epi8(0x0f);
        _mm256_and_si256(
            _mm256_shuffle_epi8(
                _mm256_broadcastsi128_si256(low),
                _mm256_and_si256(v, nibble),
            ),
            _mm256_shuffle_epi8(
                _mm256_broadcastsi128_si256(high),
                _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble),
            ),
        )
    }

    /// The 64 bits of `block`, byte `k`'s as bit `k`, from `half`'s 32 bits of each half.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn block_bits(block: &[u8; 64], half: impl Fn(__m256i) -> u64) -> u64 {
        let (lo, hi) = block.split_at(32);
        // SAFETY: each half holds 32 bytes, which an unaligned load reads.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(lo.as_ptr().cast()),
                _mm256_loadu_si256(hi.as_ptr().cast()),
            )
        };
        half(a) | half(b) << 32
    }
}

/// The two tables of [`avx2::nibble_classes`], the low nibbles' and the high nibbles', for
/// classes given as `(bit, high nibbles, low nibbles)`: the bytes of a class's bit are every pair
/// of one of its high nibbles and one of its low nibbles.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub const fn nibble_tables(classes: &[(u8, &[u8], &[u8])]) -> ([u8; 16], [u8; 16]) {
    let (mut low, mut high) = ([0u8; 16], [0u8; 16]);
    let mut k = 0;
    while k < classes.len() {
        let (bit, highs, lows) = classes[k];
        let mut i = 0;
        while i < highs.len() {
            high[highs[i] as usize] |= bit;
            i += 1;
        }
        i = 0;
        while i < lows.len() {
            low[lows[i] as usize] |= bit;
            i += 1;
        }
        k += 1;
    }
    (low, high)
}

/// The first `N` bytes of `rest`, or, at a text's end where fewer are left, its bytes followed
/// by `fill` in `pad`: a whole block to classify without reading past the text.
#[inline(always)]
pub fn chunk_or_padded<'a, const N: usize>(
    rest: &'a [u8],
    pad: &'a mut [u8; N],
    fill: u8,
) -> &'a [u8; N] {
    match rest.first_chunk::<N>() {
        Some(chunk) => chunk,
        None => {
            pad.fill(fill);
            for (to, &from) in pad.iter_mut().zip(rest) {
                *to = from;
            }
            pad
        }
    }
}

/// Call `f(start, end, high, head)` for each maximal run of bytes of `bytes` (any bytes) that
/// are ASCII `\w` bytes (`[0-9A-Za-z_]`) or bytes of 0x80 or more, in order; `high` tells
/// whether the run holds any of the latter, and `head` is [`load`] of its first 8 bytes (the
/// bytes after the run, zero past the text's end). A run that is not `high` is an ASCII `\w+`
/// word; a `high` one holds the words of its characters (non-ASCII characters may or may not be
/// `\w`), and its ends are character boundaries.
///
/// The text is classified 64 bytes at a time ([`classify`]); the runs' starts and ends are the
/// set bits of one mask per block, taken two at a time.
#[inline(always)]
pub fn for_each_word_run(bytes: &[u8], f: impl FnMut(usize, usize, bool, u64)) {
    walk_word_runs(bytes, &mut EachRun(f));
}

/// What [`walk_word_runs`] hands the runs of a text to.
pub trait WordRuns {
    /// One run, `start..end`, as [`for_each_word_run`] gives it.
    fn run(&mut self, start: usize, end: usize, high: bool, head: u64);

    /// The runs that start in the block `chunk` of `bytes`, at `base` (`edges`: their starts
    /// and ends, two set bits each; `high`: the block's bytes of 0x80 or more; `inside`: its
    /// bytes that runs are made of): the run left open at the block's end, if any. By default
    /// each run in turn, with a copy of the loop for a block of ASCII bytes (most of them),
    /// where no run is `high`.
    #[inline(always)]
    fn block(
        &mut self,
        place: (&[u8], usize, &[u8; 64]),
        edges: u64,
        high: u64,
        _inside: u64,
    ) -> Option<(usize, bool, u64)> {
        if high == 0 {
            runs_in_block(place, edges, 0, self)
        } else {
            runs_in_block(place, edges, high, self)
        }
    }

    /// Whether the walk ends after the block that ends at byte `end` (not read for a block
    /// wholly inside one run): the runs after it, and the one left open, are not read. By
    /// default it never does.
    #[inline(always)]
    fn stop_after(&mut self, _end: usize) -> bool {
        false
    }
}

/// A closure as [`WordRuns`].
struct EachRun<F>(F);

impl<F: FnMut(usize, usize, bool, u64)> WordRuns for EachRun<F> {
    #[inline(always)]
    fn run(&mut self, start: usize, end: usize, high: bool, head: u64) {
        (self.0)(start, end, high, head);
    }
}

/// [`for_each_word_run`] with the runs handed to `runs`, which may take a block's at once.
#[inline(always)]
pub fn walk_word_runs(bytes: &[u8], runs: &mut impl WordRuns) {
    walk_word_runs_by(bytes, runs, word_run_bytes);
}

/// The bytes of a 64-byte block that word runs are made of (ASCII `\w` bytes and bytes of
/// 0x80 or more), and those of 0x80 or more: one bit per byte ([`classify`]).
#[inline(always)]
pub fn word_run_bytes(block: &[u8; 64]) -> (u64, u64) {
    let b = classify(block);
    (b.alnum | b.underscore | b.high, b.high)
}

/// [`walk_word_runs`] with each block classified by `classify`, which gives what
/// [`word_run_bytes`] gives (a caller compiled for other instructions brings its own).
#[inline(always)]
pub fn walk_word_runs_by(
    bytes: &[u8],
    runs: &mut impl WordRuns,
    classify: impl Fn(&[u8; 64]) -> (u64, u64),
) {
    let n = bytes.len();
    let mut base = 0;
    // Inside a run at the end of the last block: where it started, whether it held a high
    // byte so far, and its head.
    let mut open: Option<(usize, bool, u64)> = None;
    let mut padded = [0u8; 64];
    while base < n {
        let rest = bytes.get(base..).unwrap_or(&[]);
        let chunk = chunk_or_padded(rest, &mut padded, 0);
        let (inside, high) = classify(chunk);
        let mut edges = inside ^ ((inside << 1) | u64::from(open.is_some()));
        if let Some((start, was_high, head)) = open {
            if edges == 0 {
                // The whole block is inside the run.
                open = Some((start, was_high || high != 0, head));
                base += 64;
                continue;
            }
            let end = edges.trailing_zeros();
            edges &= edges - 1;
            let before = !(u64::MAX << end);
            runs.run(
                start,
                base + end as usize,
                was_high || high & before != 0,
                head,
            );
        }
        open = runs.block((bytes, base, chunk), edges, high, inside);
        base += 64;
        if runs.stop_after(base) {
            return;
        }
    }
    if let Some((start, was_high, head)) = open {
        runs.run(start, n, was_high, head);
    }
}

/// [`for_each_word_run`]'s runs that start in the block `chunk` of `bytes`, at `base` (`edges`:
/// their starts and ends, two set bits each; `high`: the block's bytes of 0x80 or more): the
/// run left open at the block's end, if any; the others handed to `runs` one by one.
#[inline(always)]
pub fn runs_in_block(
    (bytes, base, chunk): (&[u8], usize, &[u8; 64]),
    mut edges: u64,
    high: u64,
    runs: &mut (impl WordRuns + ?Sized),
) -> Option<(usize, bool, u64)> {
    while edges != 0 {
        let start = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        // The head from the block when it lies inside (the padded block's zeros are the
        // text's padding too).
        let head = match chunk
            .get(start..start + 8)
            .and_then(|h| <[u8; 8]>::try_from(h).ok())
        {
            Some(h) => u64::from_le_bytes(h),
            None => load(bytes, base + start),
        };
        if edges == 0 {
            return Some((base + start, high >> start != 0, head));
        }
        let end = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        let run = (u64::MAX << start) & !(u64::MAX << end);
        runs.run(base + start, base + end, high & run != 0, head);
    }
    None
}

/// Byte helpers with AVX-512 (BW): the callers enable it with their own `target_feature`, and
/// run only where the processor has it.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub(crate) mod avx512 {
    use std::arch::x86_64::*;

    /// The first 64 bytes of `bytes`, or, at a text's end where fewer are left, its bytes
    /// followed by `fill`: one masked load, which reads no byte past the text (a masked-out
    /// byte is not read, and cannot fault).
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn load_or(bytes: &[u8], fill: u8) -> __m512i {
        if let Some(block) = bytes.first_chunk::<64>() {
            // SAFETY: the block holds 64 bytes, which an unaligned load reads.
            return unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        }
        let live = (1u64 << bytes.len()) - 1;
        // SAFETY: the mask selects the slice's bytes alone; the others are neither read nor
        // faulted on.
        unsafe { _mm512_mask_loadu_epi8(_mm512_set1_epi8(fill as i8), live, bytes.as_ptr().cast()) }
    }

    /// [`super::avx2::nibble_classes`] for the 64 bytes of `v`: the same two shuffles, the
    /// tables in each 128-bit lane.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn nibble_classes(v: __m512i, low: &[u8; 16], high: &[u8; 16]) -> __m512i {
        // SAFETY: each table holds 16 bytes, which an unaligned load reads.
        let (low, high) = unsafe {
            (
                _mm_loadu_si128(low.as_ptr().cast()),
                _mm_loadu_si128(high.as_ptr().cast()),
            )
        };
        let nibble = _mm512_set1_epi8(0x0f);
        _mm512_and_si512(
            _mm512_shuffle_epi8(_mm512_broadcast_i32x4(low), _mm512_and_si512(v, nibble)),
            _mm512_shuffle_epi8(
                _mm512_broadcast_i32x4(high),
                _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibble),
            ),
        )
    }

    /// The bytes of `v` in `lo..=hi`, byte `k`'s as bit `k`.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn in_range(v: __m512i, lo: u8, hi: u8) -> u64 {
        _mm512_cmple_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(lo as i8)),
            _mm512_set1_epi8(hi.wrapping_sub(lo) as i8),
        )
    }

    /// The bytes of `v` equal to `x`, byte `k`'s as bit `k`.
    #[inline]
    #[target_feature(enable = "avx512bw")]
    pub(crate) fn equal(v: __m512i, x: u8) -> u64 {
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(x as i8))
    }
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
        let mut next = crate::testing::lcg(23);
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
        let mut next = crate::testing::lcg(7);
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

    fn naive_classes(bytes: &[u8; 64]) -> Block64 {
        let mut out = Block64::default();
        for (k, &b) in bytes.iter().enumerate() {
            let bit = 1u64 << k;
            let set = |field: &mut u64, on: bool| *field |= if on { bit } else { 0 };
            set(&mut out.high, b >= 0x80);
            set(&mut out.alnum, b.is_ascii_alphanumeric());
            set(&mut out.underscore, b == b'_');
            set(&mut out.space, matches!(b, 0x09..=0x0d | 0x1c..=0x20));
            set(&mut out.printable, (b'!'..=b'~').contains(&b));
        }
        out
    }

    #[test]
    fn block_classes_are_their_definitions() {
        let mut next = crate::testing::lcg(41);
        // Every byte at every position, then random blocks.
        for b in 0..=255u8 {
            for k in 0..64 {
                let mut block = [b'a'; 64];
                block[k] = b;
                assert_eq!(classify(&block), naive_classes(&block), "{b:#x} at {k}");
                assert_eq!(classify_words(&block), naive_classes(&block));
            }
        }
        for _ in 0..5_000 {
            let block: [u8; 64] = std::array::from_fn(|_| (next() % 256) as u8);
            assert_eq!(classify(&block), naive_classes(&block));
            assert_eq!(classify_words(&block), naive_classes(&block));
        }
    }

    #[test]
    fn lower_spaced_is_its_definition() {
        let mut next = crate::testing::lcg(47);
        let naive = |block: &[u8; 64]| -> [u8; 64] {
            std::array::from_fn(|k| match block[k] {
                0x09..=0x0d | 0x1c..=0x20 => b' ',
                b => b.to_ascii_lowercase(),
            })
        };
        for b in 0..=255u8 {
            for k in 0..64 {
                let mut block = [b'Q'; 64];
                block[k] = b;
                assert_eq!(lower_spaced(&block), naive(&block), "{b:#x} at {k}");
                assert_eq!(lower_spaced_words(&block), naive(&block));
            }
        }
        for _ in 0..5_000 {
            let block: [u8; 64] = std::array::from_fn(|_| (next() % 256) as u8);
            assert_eq!(lower_spaced(&block), naive(&block));
            assert_eq!(lower_spaced_words(&block), naive(&block));
        }
    }

    #[test]
    fn word_runs_are_the_naive_runs() {
        let mut next = crate::testing::lcg(43);
        let member = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        for round in 0..20_000 {
            // Long texts now and then, so runs cross blocks and fill them.
            let len = if round % 10 == 0 {
                next() % 300
            } else {
                next() % 70
            };
            let dense = next().is_multiple_of(4);
            let bytes: Vec<u8> = (0..len)
                .map(|_| match next() % if dense { 20 } else { 4 } {
                    0 => b" .,\t-"[next() % 5],
                    1 => 0xc3,
                    _ => b"aZ_9"[next() % 4],
                })
                .collect();
            let mut got = Vec::new();
            for_each_word_run(&bytes, |s, e, high, head| {
                assert_eq!(head, load(&bytes, s));
                got.push((s, e, high));
            });
            let want: Vec<(usize, usize, bool)> = naive(&bytes, member)
                .into_iter()
                .map(|(s, e)| (s, e, bytes[s..e].iter().any(|&b| b >= 0x80)))
                .collect();
            assert_eq!(got, want, "{bytes:?}");
        }
    }
}
