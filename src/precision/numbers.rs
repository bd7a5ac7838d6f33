//! the numbers of a raw text and their greedy nearest-number agreement.

use crate::pyunicode::Tables;

/// The numbers of `text` as `re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", text)` with
/// Python's `\d` finds them, each read by `float()`; appended to `out`.
///
/// One pass over the bytes: every match holds a decimal digit within its first three
/// characters (a sign, a dot, then a digit at the latest), so the scan jumps from digit to digit
/// and tries only the two places before each one that may start a match, in text order, as
/// the regular expression's scan would. `digits` is a reusable buffer.
pub fn numbers(t: &Tables, text: &str, digits: &mut String, out: &mut Vec<f64>) {
    numbers_with(t, text, false, digits, out);
}

/// [`numbers`], where `ascii` says whether `text` is ASCII (the scan then looks for ASCII
/// digits only; `false` is right for any text).
pub fn numbers_with(t: &Tables, text: &str, ascii: bool, digits: &mut String, out: &mut Vec<f64>) {
    let b = text.as_bytes();
    let mut scan = Scan::new(ascii);
    // `text[..i]` is done: no match starts before `i`.
    let mut i = 0;
    while i < b.len() {
        // The next decimal digit at or after `i`.
        let Some(p) = scan.next(b, i) else {
            break;
        };
        if b.get(p).is_some_and(|&x| x >= 0x80) {
            let Some(c) = text.get(p..).and_then(|r| r.chars().next()) else {
                break;
            };
            if t.digit_value(c).is_none() {
                i = p + c.len_utf8();
                continue;
            }
        }
        // A sign and a dot, a sign or a dot may start the match just before the digit (no
        // digit lies between `i` and `p`, so nothing else can).
        // The byte before the digit first (most often neither a sign nor a dot), then the one
        // before it; neither before `i`.
        let start = match p.checked_sub(1).filter(|&s| s >= i).and_then(|s| b.get(s)) {
            Some(b'.') if p - 1 > i && matches!(b.get(p - 2), Some(b'+' | b'-')) => p - 2,
            Some(b'+' | b'-' | b'.') => p - 1,
            _ => p,
        };
        if let Some((end, value)) = short_ascii_match(b, start, p) {
            out.push(value);
            i = end;
            continue;
        }
        if let Some((end, value)) = ascii_match(text, start) {
            out.push(value);
            i = end;
            continue;
        }
        let Some((start, end)) = match_at(t, text, start).map(|end| (start, end)) else {
            // The digit itself always matches; this is not reached.
            i = p + 1;
            continue;
        };
        let found = text.get(start..end).unwrap_or("");
        let value = if found.is_ascii() {
            parse_ascii(found)
        } else {
            // Other scripts' digits read as their decimal values, as `float()` reads them.
            digits.clear();
            for ch in found.chars() {
                match t.digit_value(ch) {
                    Some(d) => digits.push((b'0' + d) as char),
                    None => digits.push(ch),
                }
            }
            parse_ascii(digits)
        };
        out.push(value);
        i = end;
    }
}

/// The match starting at byte `s` whose first digit is byte `p` (`s` is `p`, or a sign or a dot
/// just before it, or a sign and a dot) and its value, when it is the common short case: at
/// most seven ASCII digits from `p`, followed by a byte that neither continues the match nor
/// may (not a dot, `e`, `E`, nor a byte of a character that is not ASCII, which may be another
/// digit), or by the end. Else `None`, and [`ascii_match`] reads it.
///
/// The digits make an integer below 10^7, exact as a `f64`; after a dot it is divided by the
/// power of ten of its length, one correctly rounded division as in [`ascii_match`] (Clinger's
/// fast path); a minus sign negates it.
#[inline(always)]
fn short_ascii_match(b: &[u8], s: usize, p: usize) -> Option<(usize, f64)> {
    let mut mantissa = 0u64;
    let mut j = p;
    while let Some(d) = b.get(j).map(|x| x.wrapping_sub(b'0')).filter(|&d| d < 10) {
        if j - p == 7 {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(d);
        j += 1;
    }
    if b.get(j)
        .is_some_and(|&x| x >= 0x80 || matches!(x, b'.' | b'e' | b'E'))
    {
        return None;
    }
    let m = mantissa as f64;
    let value = if b.get(p.wrapping_sub(1)) == Some(&b'.') && s < p {
        m / EXACT_POWERS.get(j - p)?
    } else {
        m
    };
    Some((
        j,
        if b.get(s) == Some(&b'-') {
            -value
        } else {
            value
        },
    ))
}

/// The match starting at byte `s` and its value, when the match is ASCII and so is every byte
/// that decides where it ends (else `None`, and [`match_at`] reads the characters): the digit
/// runs read as bytes, the value accumulated as they are (Clinger's fast path, as
/// [`fast_path`]), and the literal parsed only when that path does not apply.
#[inline]
fn ascii_match(text: &str, s: usize) -> Option<(usize, f64)> {
    let b = text.as_bytes();
    // The digits so far as an integer, how many of them are significant, the decimal exponent,
    // and whether the fast path still applies.
    let (mut mantissa, mut significant, mut exponent, mut fast) = (0u64, 0u32, 0i32, true);
    // The end of the run of ASCII digits from `j` (`fraction`: after the dot), unless a byte
    // that is not ASCII (perhaps another digit) follows it.
    let mut run = |mut j: usize, fraction: bool| {
        while let Some(d) = b.get(j).map(|x| x.wrapping_sub(b'0')).filter(|&d| d < 10) {
            if significant >= 19 {
                fast = false;
            } else {
                mantissa = mantissa * 10 + u64::from(d);
                significant += u32::from(mantissa != 0);
                exponent -= i32::from(fraction);
            }
            j += 1;
        }
        match b.get(j) {
            Some(&x) if x >= 0x80 => None,
            _ => Some(j),
        }
    };
    let negative = b.get(s) == Some(&b'-');
    let mut j = if matches!(b.get(s), Some(b'+' | b'-')) {
        s + 1
    } else {
        s
    };
    let int_start = j;
    j = run(j, false)?;
    let after_dot = b.get(j + 1).copied().filter(|_| b.get(j) == Some(&b'.'));
    match after_dot {
        Some(x) if x.is_ascii_digit() => j = run(j + 1, true)?,
        Some(x) if x >= 0x80 => return None,
        _ if j == int_start => return None,
        _ => {}
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let sign = b.get(j + 1).copied().filter(|x| matches!(x, b'+' | b'-'));
        let mut q = j + 1 + usize::from(sign.is_some());
        match b.get(q) {
            Some(x) if x.is_ascii_digit() => {
                let mut e = 0i32;
                while let Some(d) = b.get(q).map(|x| x.wrapping_sub(b'0')).filter(|&d| d < 10) {
                    if e > 10_000 {
                        fast = false;
                    } else {
                        e = e * 10 + i32::from(d);
                    }
                    q += 1;
                }
                if b.get(q).is_some_and(|&x| x >= 0x80) {
                    return None;
                }
                exponent = exponent.saturating_add(if sign == Some(b'-') { -e } else { e });
                j = q;
            }
            Some(&x) if x >= 0x80 => return None,
            _ => {}
        }
    }
    let m = mantissa as f64;
    let value = if !fast || mantissa > 1 << 53 {
        None
    } else if mantissa == 0 || exponent == 0 {
        Some(m)
    } else if exponent > 0 {
        usize::try_from(exponent)
            .ok()
            .and_then(|k| EXACT_POWERS.get(k))
            .map(|p| m * p)
    } else {
        usize::try_from(-exponent)
            .ok()
            .and_then(|k| EXACT_POWERS.get(k))
            .map(|p| m / p)
    };
    let value = match value {
        Some(v) if negative => -v,
        Some(v) => v,
        None => parse_ascii(text.get(s..j)?),
    };
    Some((j, value))
}

/// The powers of ten a `f64` holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `float()` of a match of the number pattern written in ASCII (always a valid literal).
///
/// Most numbers in text are short: when the digits make an integer of at most 2^53 and the
/// decimal exponent is within 22, the value is that integer times or divided by an exact power
/// of ten, which one IEEE operation rounds correctly (Clinger's fast path). The rest go through
/// Rust's parser, correctly rounded as CPython's.
fn parse_ascii(literal: &str) -> f64 {
    fast_path(literal.as_bytes()).unwrap_or_else(|| literal.parse::<f64>().unwrap_or(f64::NAN))
}

fn fast_path(literal: &[u8]) -> Option<f64> {
    let (negative, body) = match literal.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, literal),
    };
    let (mut mantissa, mut significant, mut exponent) = (0u64, 0u32, 0i32);
    let mut fraction = false;
    let mut i = 0;
    while let Some(&b) = body.get(i) {
        match b {
            b'0'..=b'9' => {
                if significant >= 19 {
                    return None;
                }
                mantissa = mantissa * 10 + u64::from(b - b'0');
                significant += u32::from(mantissa != 0);
                exponent = exponent.saturating_sub(i32::from(fraction));
            }
            b'.' => fraction = true,
            _ => break,
        }
        i += 1;
    }
    if let Some(b'e' | b'E') = body.get(i) {
        let digits = match body.get(i + 1) {
            Some(b'-' | b'+') => body.get(i + 2..)?,
            _ => body.get(i + 1..)?,
        };
        let mut e = 0i32;
        for &d in digits {
            if e > 10_000 || !d.is_ascii_digit() {
                return None;
            }
            e = e * 10 + i32::from(d - b'0');
        }
        let signed = if body.get(i + 1) == Some(&b'-') {
            -e
        } else {
            e
        };
        exponent = exponent.saturating_add(signed);
    }
    if mantissa > 1 << 53 {
        return None;
    }
    let m = mantissa as f64;
    let value = if mantissa == 0 || exponent == 0 {
        m
    } else if exponent > 0 {
        m * EXACT_POWERS.get(usize::try_from(exponent).ok()?)?
    } else {
        m / EXACT_POWERS.get(usize::try_from(-exponent).ok()?)?
    };
    Some(if negative { -value } else { value })
}

/// The bytes of a text that are ASCII digits or may begin a digit that is not ASCII
/// ([`DIGIT_LEAD`] or more), one block of 64 bytes at a time:
/// the block's bits are kept between look-ups, so that each block is classified once however
/// many numbers it holds.
struct Scan {
    /// Where the block held starts (before the first look-up, [`Scan::NONE`]: any text's
    /// position is then more than 64 bytes before it, and the block starting there is read).
    base: usize,
    /// Bit `k`: byte `base + k` is an ASCII digit or [`DIGIT_LEAD`] or more (none past the
    /// text's end).
    bits: u64,
    /// The text is ASCII: the bits are those of its ASCII digits.
    ascii: bool,
}

impl Scan {
    /// Past the end of every text (no slice holds `isize::MAX` bytes).
    const NONE: usize = isize::MAX as usize;

    fn new(ascii: bool) -> Scan {
        Scan {
            base: Scan::NONE,
            bits: 0,
            ascii,
        }
    }

    /// [`next_digit_or_non_ascii`] of `b` from `from`.
    #[inline(always)]
    fn next(&mut self, b: &[u8], mut from: usize) -> Option<usize> {
        loop {
            let offset = from.wrapping_sub(self.base);
            if offset >= 64 {
                // Before or past the block held (`from` below `base` wraps to a large offset):
                // the block starting at `from`.
                if from >= b.len() {
                    return None;
                }
                self.base = from;
                self.bits = if self.ascii {
                    digit_block::<true>(b, from)
                } else {
                    digit_block::<false>(b, from)
                };
                continue;
            }
            let rest = self.bits & (u64::MAX << offset);
            if rest != 0 {
                return Some(self.base + rest.trailing_zeros() as usize);
            }
            from = self.base + 64;
        }
    }
}

/// One bit per byte of `b[from..from + 64]` (byte `from + k`'s is bit `k`) that is an ASCII
/// digit or, unless `ASCII` (`b` is ASCII), [`DIGIT_LEAD`] or more; none past the end of `b`.
#[inline(always)]
fn digit_block<const ASCII: bool>(b: &[u8], from: usize) -> u64 {
    let rest = b.get(from..).unwrap_or(&[]);
    let padded;
    let block = match rest.first_chunk::<64>() {
        Some(block) => block,
        None => {
            // Zero bytes are neither digits nor above 0x7f.
            let mut copy = [0u8; 64];
            for (to, &x) in copy.iter_mut().zip(rest) {
                *to = x;
            }
            padded = copy;
            &padded
        }
    };
    let mut bits = 0u64;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        if let Some(chunk) = chunk.first_chunk::<16>() {
            let found = if ASCII {
                sse2::digits(chunk)
            } else {
                sse2::digit_or_high(chunk)
            };
            bits |= u64::from(found) << (16 * k);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    for (k, &x) in block.iter().enumerate() {
        bits |= u64::from(x.wrapping_sub(b'0') < 10 || (!ASCII && may_lead_digit(x))) << k;
    }
    bits
}

/// The first byte at or after `from` that is an ASCII digit or [`DIGIT_LEAD`] or more: sixteen
/// bytes are tested at once with SSE2 on x86_64, then one at a time. The scan before [`Scan`],
/// its reference in the tests.
#[cfg(test)]
fn next_digit_or_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let found = sse2::digit_or_high(chunk);
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize);
        }
        i += 16;
    }
    let rest = b.get(i..)?;
    rest.iter()
        .position(|&x| x.wrapping_sub(b'0') < 10 || may_lead_digit(x))
        .map(|k| i + k)
}

/// The least first byte of a character that is not ASCII and is a decimal digit (`\d`): 0xD9,
/// of U+0660 ARABIC-INDIC DIGIT ZERO (the digits of two bytes are U+0660..U+0669,
/// U+06F0..U+06F9 and U+07C0..U+07C9). A character whose first byte is smaller is no digit, so
/// the scan passes over it (Latin, Greek, Cyrillic, Hebrew: most text that is not ASCII);
/// checked against the interpreter's tables in the tests.
const DIGIT_LEAD: u8 = 0xD9;

/// The first bytes from [`DIGIT_LEAD`] on that begin no decimal digit, in two ranges:
/// 0xE2..=0xE9 (U+2000..U+9FFF: punctuation, symbols such as `①` and `✓`, the CJK ideographs)
/// and 0xEB..=0xEE (U+B000..U+EFFF: Hangul syllables, private use); checked against the
/// interpreter's tables in the tests. The scan passes over their characters too.
const NO_DIGIT_LEADS: [(u8, u8); 2] = [(0xE2, 0xE9), (0xEB, 0xEE)];

/// Whether the byte `x` (0x80 or more) may begin a decimal digit: [`DIGIT_LEAD`] or more, and
/// not in [`NO_DIGIT_LEADS`].
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
const fn may_lead_digit(x: u8) -> bool {
    x >= DIGIT_LEAD
        && !(x >= NO_DIGIT_LEADS[0].0 && x <= NO_DIGIT_LEADS[0].1)
        && !(x >= NO_DIGIT_LEADS[1].0 && x <= NO_DIGIT_LEADS[1].1)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    //! Sound because this module is only compiled where SSE2 is enabled for the whole build
    //! (every x86_64 target), as `crate::ascii`'s, whose byte-class helpers it uses.
    use crate::ascii::sse2::{bits, in_range};
    use std::arch::x86_64::*;

    #[inline(always)]
    fn load(chunk: &[u8; 16]) -> __m128i {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`); the load reads the 16
        // bytes of `chunk`, unaligned.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    /// One bit per byte of `chunk` (byte `k`'s is bit `k`) that is an ASCII digit.
    #[inline(always)]
    pub(super) fn digits(chunk: &[u8; 16]) -> u32 {
        bits(in_range(load(chunk), b'0', b'9')) as u32
    }

    /// One bit per byte of `chunk` (byte `k`'s is bit `k`) that is an ASCII digit or may
    /// begin a digit that is not ASCII ([`super::may_lead_digit`]).
    #[inline(always)]
    pub(super) fn digit_or_high(chunk: &[u8; 16]) -> u32 {
        let v = load(chunk);
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`).
        let lead = unsafe {
            // The sign bit of the bytes above `DIGIT_LEAD - 1` as signed bytes (all but the
            // bytes of 0x80 up to it) that are negative (0x80 or more).
            _mm_and_si128(
                _mm_cmpgt_epi8(v, _mm_set1_epi8((super::DIGIT_LEAD - 1) as i8)),
                v,
            )
        };
        // The two ranges of first bytes that begin no digit (`in_range` compares signed
        // bytes: both ranges lie within the negative ones, so no ASCII byte is in them).
        let [(lo0, hi0), (lo1, hi1)] = super::NO_DIGIT_LEADS;
        // SAFETY: as above.
        let none = unsafe { _mm_or_si128(in_range(v, lo0, hi0), in_range(v, lo1, hi1)) };
        // SAFETY: as above.
        let lead = unsafe { _mm_andnot_si128(none, lead) };
        // SAFETY: as above.
        bits(unsafe { _mm_or_si128(in_range(v, b'0', b'9'), lead) }) as u32
    }
}

/// The character at byte `j` of `text`, if `j` starts one.
#[inline]
fn char_at(text: &str, j: usize) -> Option<char> {
    text.get(j..)?.chars().next()
}

/// The end of the match starting at byte `s` (a character boundary), as `re`'s backtracking
/// finds it.
fn match_at(t: &Tables, text: &str, s: usize) -> Option<usize> {
    let b = text.as_bytes();
    let sign = |j: usize| matches!(b.get(j), Some(b'+' | b'-'));
    // The byte length of the decimal digit at `j`, if there is one.
    let digit = |j: usize| match b.get(j) {
        Some(x) if x.is_ascii_digit() => Some(1),
        Some(&x) if x >= 0x80 => {
            char_at(text, j).and_then(|c| t.digit_value(c).map(|_| c.len_utf8()))
        }
        _ => None,
    };
    // A sign that leads nowhere fails without it too (the next character is the sign).
    let mut j = if sign(s) { s + 1 } else { s };
    let int_start = j;
    while let Some(len) = digit(j) {
        j += len;
    }
    if b.get(j) == Some(&b'.') && digit(j + 1).is_some() {
        j += 1;
        while let Some(len) = digit(j) {
            j += len;
        }
    } else if j == int_start {
        return None;
    }
    // `\d*\.?\d+` without a fraction backtracks to the same digits: the exponent follows them.
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let mut q = j + 1;
        if sign(q) {
            q += 1;
        }
        if digit(q).is_some() {
            while let Some(len) = digit(q) {
                q += len;
            }
            j = q;
        }
    }
    Some(j)
}

/// Rows with more (expected x actual) pairs than this take the exact sorted path.
pub const MAX_BRUTE_FORCE_PAIRS: usize = 1 << 16;

/// Reusable buffers of [`greedy_match`].
#[derive(Default)]
pub struct MatchScratch {
    used: Vec<bool>,
    order: Vec<usize>,
    values: Vec<f64>,
    position_of: Vec<usize>,
    after: Vec<usize>,
    before: Vec<usize>,
    tree: Vec<usize>,
}

/// for each expected number in text order, the unused actual number with the strictly
/// smallest finite `|a - e|` (the first on ties) is taken. Writes, per expected number, the
/// index of the taken actual number (or `None`) and the error into `chosen` and `error`.
pub fn greedy_match(
    actual: &[f64],
    expected: &[f64],
    s: &mut MatchScratch,
    chosen: &mut Vec<Option<usize>>,
    error: &mut Vec<f64>,
) {
    chosen.clear();
    error.clear();
    chosen.resize(expected.len(), None);
    error.resize(expected.len(), f64::NAN);
    if actual.is_empty() || expected.is_empty() {
        return;
    }
    if actual.len().saturating_mul(expected.len()) <= MAX_BRUTE_FORCE_PAIRS {
        s.used.clear();
        s.used.resize(actual.len(), false);
        for (k, &e) in expected.iter().enumerate() {
            let mut best = None;
            let mut best_err = f64::INFINITY;
            for (i, &a) in actual.iter().enumerate() {
                if s.used[i] {
                    continue;
                }
                let err = (a - e).abs();
                if err < best_err {
                    best = Some(i);
                    best_err = err;
                }
            }
            if let Some(i) = best {
                s.used[i] = true;
                chosen[k] = Some(i);
                error[k] = best_err;
            }
        }
        return;
    }
    greedy_sorted(actual, expected, s, chosen, error);
}

const NONE: usize = usize::MAX;

fn find(parent: &mut [usize], i: usize) -> usize {
    let mut root = i;
    while parent[root] != root {
        root = parent[root];
    }
    let mut i = i;
    while parent[i] != root {
        let next = parent[i];
        parent[i] = root;
        i = next;
    }
    root
}

/// Smallest `q` in `[lo, hi]` with `|values[q] - e| <= best` (`hi` satisfies it).
fn first_within(values: &[f64], e: f64, best: f64, mut lo: usize, mut hi: usize) -> usize {
    while lo < hi {
        let mid = (lo + hi) / 2;
        if (values[mid] - e).abs() <= best {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Largest `q` in `[lo, hi]` with `|values[q] - e| <= best` (`lo` satisfies it).
fn last_within(values: &[f64], e: f64, best: f64, mut lo: usize, mut hi: usize) -> usize {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if (values[mid] - e).abs() <= best {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The smallest index at sorted positions `lo..=hi` of the segment tree of `size` leaves.
fn tree_smallest(tree: &[usize], size: usize, lo: usize, hi: usize) -> usize {
    let mut best = NONE;
    let (mut lo, mut hi) = (lo + size, hi + size + 1);
    while lo < hi {
        if lo & 1 == 1 {
            best = best.min(tree[lo]);
            lo += 1;
        }
        if hi & 1 == 1 {
            hi -= 1;
            best = best.min(tree[hi]);
        }
        lo >>= 1;
        hi >>= 1;
    }
    best
}

/// The exact `O((n + m) log n)` greedy matching of one large row: the finite actual numbers
/// sorted once (ties in text order); the nearest unused one on each side of an expected number
/// found through skip pointers; every unused number with the smallest rounded error lies in
/// one contiguous sorted range per side, and the first in text order is the smallest original
/// index there (a segment tree).
fn greedy_sorted(
    actual: &[f64],
    expected: &[f64],
    s: &mut MatchScratch,
    chosen: &mut [Option<usize>],
    error: &mut [f64],
) {
    s.order.clear();
    s.order
        .extend((0..actual.len()).filter(|&i| actual[i].is_finite()));
    s.order.sort_by(|&x, &y| {
        actual[x]
            .partial_cmp(&actual[y])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let n = s.order.len();
    s.values.clear();
    s.values.extend(s.order.iter().map(|&i| actual[i]));
    s.position_of.clear();
    s.position_of.resize(actual.len(), NONE);
    for (p, &i) in s.order.iter().enumerate() {
        s.position_of[i] = p;
    }
    let size = n.next_power_of_two().max(1);
    s.tree.clear();
    s.tree.resize(2 * size, NONE);
    s.tree[size..size + n].copy_from_slice(&s.order);
    for i in (1..size).rev() {
        s.tree[i] = s.tree[2 * i].min(s.tree[2 * i + 1]);
    }
    s.after.clear();
    s.after.extend(0..=n);
    s.before.clear();
    s.before.extend(0..=n);
    let values = &s.values;
    let mut remaining = n;
    for (k, &e) in expected.iter().enumerate() {
        if remaining == 0 {
            break;
        }
        if !e.is_finite() {
            continue;
        }
        let p = values.partition_point(|&v| v < e);
        let right = find(&mut s.after, p);
        let left_plus = find(&mut s.before, p); // last unused position <= p - 1, plus one
        let err_left = if left_plus > 0 {
            (values[left_plus - 1] - e).abs()
        } else {
            f64::INFINITY
        };
        let err_right = if right < n {
            (values[right] - e).abs()
        } else {
            f64::INFINITY
        };
        let best = if err_right < err_left {
            err_right
        } else {
            err_left
        };
        if !best.is_finite() {
            continue;
        }
        let mut index = NONE;
        if err_left == best {
            let left = left_plus - 1;
            let v = values[left];
            let mut lo = values.partition_point(|&x| x < v);
            if lo > 0 && (values[lo - 1] - e).abs() <= best {
                lo = first_within(values, e, best, 0, lo - 1);
            }
            index = tree_smallest(&s.tree, size, lo, left);
        }
        if err_right == best {
            let v = values[right];
            let mut hi = values.partition_point(|&x| x <= v) - 1;
            if hi + 1 < n && (values[hi + 1] - e).abs() <= best {
                hi = last_within(values, e, best, hi + 1, n - 1);
            }
            index = index.min(tree_smallest(&s.tree, size, right, hi));
        }
        let Some(&position) = s.position_of.get(index) else {
            continue; // cannot happen: an unused number lies in the searched range
        };
        let mut i = position + size;
        s.tree[i] = NONE;
        i >>= 1;
        while i > 0 {
            s.tree[i] = s.tree[2 * i].min(s.tree[2 * i + 1]);
            i >>= 1;
        }
        s.after[position] = position + 1;
        s.before[position + 1] = position;
        remaining -= 1;
        chosen[k] = Some(index);
        error[k] = best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn nums(text: &str) -> Vec<f64> {
        let t = test_tables::install();
        let mut out = Vec::new();
        numbers(t, text, &mut String::new(), &mut out);
        if text.is_ascii() {
            let mut ascii = Vec::new();
            numbers_with(t, text, true, &mut String::new(), &mut ascii);
            assert_eq!(
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                ascii.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        out
    }

    // The scan as it was, one regular-expression attempt at every character: the reference
    // of the jumping scan.
    /// The numbers of `text` as `re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", text)` with
    /// Python's `\d` finds them, each read by `float()`; appended to `out`.
    ///
    /// `chars` and `digits` are reusable buffers.
    fn numbers_reference(
        t: &Tables,
        text: &str,
        chars: &mut Vec<char>,
        digits: &mut String,
        out: &mut Vec<f64>,
    ) {
        if text.is_ascii() {
            // An ASCII text is scanned as bytes, which are its characters.
            if text.bytes().any(|b| b.is_ascii_digit()) {
                reference_scan(t, text.as_bytes(), digits, out);
            }
            return;
        }
        chars.clear();
        chars.extend(text.chars());
        reference_scan(t, chars, digits, out);
    }

    /// `numbers_reference` over the characters of a text (`char`s, or the bytes of an ASCII text).
    fn reference_scan<T: Copy + Into<char>>(
        t: &Tables,
        c: &[T],
        digits: &mut String,
        out: &mut Vec<f64>,
    ) {
        let n = c.len();
        let at = |j: usize| c.get(j).map(|&x| x.into());
        let digit = |j: usize| at(j).is_some_and(|x| t.digit_value(x).is_some());
        let sign = |j: usize| matches!(at(j), Some('+' | '-'));
        let mut i = 0;
        while i < n {
            let Some(end) = reference_match_at(&at, i, &digit, &sign) else {
                i += 1;
                continue;
            };
            digits.clear();
            for ch in (i..end).filter_map(at) {
                match t.digit_value(ch) {
                    Some(d) => digits.push((b'0' + d) as char),
                    None => digits.push(ch),
                }
            }
            // Always a valid float literal; Rust's parse is correctly rounded, as CPython's.
            out.push(digits.parse::<f64>().unwrap_or(f64::NAN));
            i = end;
        }
    }

    /// The end of the match starting at `i`, as `re`'s backtracking finds it.
    fn reference_match_at(
        at: &impl Fn(usize) -> Option<char>,
        i: usize,
        digit: &impl Fn(usize) -> bool,
        sign: &impl Fn(usize) -> bool,
    ) -> Option<usize> {
        // A sign that leads nowhere fails without it too (the next character is the sign).
        let mut j = if sign(i) { i + 1 } else { i };
        let int_start = j;
        while digit(j) {
            j += 1;
        }
        if at(j) == Some('.') && digit(j + 1) {
            j += 1;
            while digit(j) {
                j += 1;
            }
        } else if j == int_start {
            return None;
        }
        // `\d*\.?\d+` without a fraction backtracks to the same digits: the exponent follows them.
        if matches!(at(j), Some('e' | 'E')) {
            let mut q = j + 1;
            if sign(q) {
                q += 1;
            }
            if digit(q) {
                while digit(q) {
                    q += 1;
                }
                j = q;
            }
        }
        Some(j)
    }

    #[test]
    fn no_digit_begins_below_the_digit_lead() {
        // Every character whose first byte is below `DIGIT_LEAD` (U+0080..U+063F), and the
        // first digit at or past it.
        let t = test_tables::install();
        for cp in 0x80..0x640u32 {
            let c = char::from_u32(cp).unwrap();
            assert!(c.to_string().as_bytes()[0] < DIGIT_LEAD);
            assert_eq!(t.digit_value(c), None, "{cp:#x}");
        }
        assert_eq!(t.digit_value('\u{660}'), Some(0));
        assert_eq!('\u{660}'.to_string().as_bytes()[0], DIGIT_LEAD);
    }

    #[test]
    fn no_digit_begins_with_the_leads_passed_over() {
        // Every character of three bytes whose first byte is in `NO_DIGIT_LEADS`
        // (U+2000..U+9FFF, U+B000..U+EFFF) against the tables (the test tables know only some
        // digit blocks: `tests/test_precision_digit_leads.py` checks every first byte of a
        // `\d` against the interpreter), and the digits just outside the ranges (U+0966
        // DEVANAGARI DIGIT ZERO, 0xE0; U+FF10 FULLWIDTH DIGIT ZERO, 0xEF) and the first bytes
        // that begin one (0xE1: U+1040 MYANMAR DIGIT ZERO; 0xEA: U+A620 VAI DIGIT ZERO).
        let t = test_tables::install();
        let mut seen = 0;
        for cp in 0x800..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let lead = c.to_string().as_bytes()[0];
            if !may_lead_digit(lead) {
                assert_eq!(t.digit_value(c), None, "{cp:#x}");
                seen += 1;
            }
        }
        assert_eq!(seen, 0x8000 + 0x4000 - 0x800); // less the surrogates
        for (c, lead) in [('\u{966}', 0xE0), ('\u{FF10}', 0xEF)] {
            assert!(t.digit_value(c).is_some());
            assert_eq!(c.to_string().as_bytes()[0], lead);
        }
        for lead in [0xD9, 0xDB, 0xDF, 0xE0, 0xE1, 0xEA, 0xEF, 0xF0] {
            assert!(may_lead_digit(lead), "{lead:#x}");
        }
        for lead in [0xE2, 0xE9, 0xEB, 0xEE] {
            assert!(!may_lead_digit(lead), "{lead:#x}");
        }
    }

    #[test]
    fn the_next_digit_is_the_first_from_every_position() {
        // Texts of letters, punctuation and the bytes at the digits' edges, with a digit or a
        // byte of 0x80 or more (below `DIGIT_LEAD` or not) here and there (or nowhere): from
        // every start, the first digit or byte of `DIGIT_LEAD` or more.
        let bytes = [
            b'a', b' ', b'/', b'0', b'9', b':', 0x7f, 0x80, 0xd8, 0xd9, 0xe1, 0xe2, 0xe4, 0xe9,
            0xea, 0xeb, 0xee, 0xef, 0xff,
        ];
        let mut next = crate::testing::lcg(31);
        for _ in 0..3_000 {
            let len = next() % 100;
            let sparse = next().is_multiple_of(4);
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if sparse && !next().is_multiple_of(40) {
                        b'a'
                    } else {
                        bytes[next() % bytes.len()]
                    }
                })
                .collect();
            for from in 0..=len + 1 {
                let want = text
                    .get(from..)
                    .and_then(|r| {
                        r.iter().position(|&x| {
                            x.is_ascii_digit()
                                || (x >= 0xd9 && !(0xe2..=0xe9).contains(&x))
                                    && !(0xeb..=0xee).contains(&x)
                        })
                    })
                    .map(|k| from + k);
                assert_eq!(
                    next_digit_or_non_ascii(&text, from),
                    want,
                    "{text:?} {from}"
                );
            }
        }
    }

    #[test]
    fn the_jumping_scan_finds_what_every_position_finds() {
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            "1",
            "2",
            "0",
            "9",
            "٣",
            "\u{6f3}",
            "\u{7c5}",
            "ж",
            "\u{63f}",
            "５",
            "²",
            ".",
            "-",
            "+",
            "e",
            "E",
            "x",
            " ",
            "é",
            ",",
            "..",
            "--",
            "-.",
            "+.",
            "e-",
            "1e",
            "ab",
            "\u{378}",
            "1234567",
            "90071992547409931",
        ];
        let mut next = crate::testing::lcg(99);
        let mut text = String::new();
        for _ in 0..20_000 {
            text.clear();
            for _ in 0..next() % 14 {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            let (mut got, mut want) = (Vec::new(), Vec::new());
            numbers_with(t, &text, text.is_ascii(), &mut String::new(), &mut got);
            numbers_reference(t, &text, &mut Vec::new(), &mut String::new(), &mut want);
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{text:?}: {got:?} against {want:?}");
        }
    }

    #[test]
    fn the_block_scan_finds_what_the_byte_scan_finds() {
        // Texts of 0 to 200 bytes (digits, letters, non-ASCII bytes, few or many), looked up
        // from every position in order and from random ones (before, inside and past the block
        // held): block edges at 63/64/65 and 127/128/129 included.
        let mut next = crate::testing::lcg(31);
        let bytes = [
            b'a', b' ', b'0', b'9', b'/', b':', 0x80, 0xc3, 0xd8, 0xd9, 0xe2, 0xe9, 0xea, 0xeb,
            0xee, 0xef, 0xff, 0,
        ];
        for round in 0..3_000 {
            let len = match round % 4 {
                0 => [63, 64, 65, 127, 128, 129][next() % 6],
                _ => next() % 200,
            };
            let sparse = round % 3 == 0;
            let b: Vec<u8> = (0..len)
                .map(|_| {
                    if sparse && !next().is_multiple_of(8) {
                        b'x'
                    } else {
                        bytes[next() % bytes.len()]
                    }
                })
                .collect();
            let mut scan = Scan::new(false);
            for from in 0..=len + 1 {
                assert_eq!(
                    scan.next(&b, from),
                    next_digit_or_non_ascii(&b, from),
                    "{b:?} {from}"
                );
            }
            if b.is_ascii() {
                let mut scan = Scan::new(true);
                for from in 0..=len + 1 {
                    assert_eq!(
                        scan.next(&b, from),
                        next_digit_or_non_ascii(&b, from),
                        "{b:?} {from}"
                    );
                }
            }
            let mut scan = Scan::new(false);
            for _ in 0..50 {
                let from = next() % (len + 2);
                assert_eq!(
                    scan.next(&b, from),
                    next_digit_or_non_ascii(&b, from),
                    "{b:?} {from}"
                );
            }
        }
    }

    #[test]
    fn short_matches_read_as_the_reference() {
        // Runs of 1 to 17 digits (the short path takes up to seven) after each prefix that may
        // start a match, before each byte that may continue one (or a non-ASCII digit), at the
        // text's end or not, after an earlier match or not.
        let t = test_tables::install();
        let prefixes = [
            "", "x", " ", "+", "-", ".", "-.", "+.", "1.", "5-", "..", "é", "٣", "0", "00.", "-0",
        ];
        let suffixes = [
            "",
            " ",
            ".",
            ".5",
            ". ",
            "e3",
            "E-2",
            "e",
            "é",
            "٣",
            "x",
            ",",
            "-1",
            "+",
            "1",
            ".25",
            ".0",
            ".05e1",
            ".5é",
            ".5.5",
            ".é",
            ".٣",
            ".x",
            "..5",
            ".1234567890123",
            ".12345678901234567",
        ];
        for prefix in prefixes {
            for len in 1..=17 {
                let digits: String = "10203040506070809".chars().take(len).collect();
                for suffix in suffixes {
                    for tail in ["", " 7"] {
                        let text = format!("{prefix}{digits}{suffix}{tail}");
                        let (mut got, mut want) = (Vec::new(), Vec::new());
                        numbers_with(t, &text, text.is_ascii(), &mut String::new(), &mut got);
                        numbers_reference(t, &text, &mut Vec::new(), &mut String::new(), &mut want);
                        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&got), bits(&want), "{text:?}: {got:?} {want:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_helpers_read_characters_not_bytes() {
        let t = test_tables::install();
        // "é" is two bytes, "٣" (ARABIC-INDIC THREE) two, "５" (FULLWIDTH FIVE) three.
        let text = "é-٣.５e+٣x";
        assert_eq!(char_at(text, 0), Some('é'));
        assert_eq!(char_at(text, 1), None); // inside "é"
        assert_eq!(char_at(text, text.len()), None);
        assert_eq!(match_at(t, text, 0), None); // a letter starts no number
        assert_eq!(match_at(t, text, 1), None); // nor does the middle of one
                                                // The sign, the digits of two scripts, the dot and the exponent: up to the "x".
        assert_eq!(match_at(t, text, 2), Some(text.len() - 1));
        assert_eq!(match_at(t, text, 4), None); // the middle of "٣"
        assert_eq!(match_at(t, "1e+", 0), Some(1)); // an exponent without digits is left out
        assert_eq!(match_at(t, "-.5", 0), Some(3));
        assert_eq!(match_at(t, "-.", 0), None);
        assert_eq!(nums("é-٣.５e+٣x"), [-3500.0]);
    }

    #[test]
    fn the_fast_path_reads_as_the_parser() {
        let mut seed = 5u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut literal = String::new();
        for _ in 0..200_000 {
            literal.clear();
            match next(3) {
                0 => literal.push('-'),
                1 => literal.push('+'),
                _ => {}
            }
            // Up to 24 digits (leading zeros included), a dot somewhere or nowhere, and an
            // exponent of every size now and then.
            let n = 1 + next(24) as usize;
            let dot = next(n as u64 + 3) as usize;
            for k in 0..n {
                if k == dot && k > 0 {
                    literal.push('.');
                }
                let digit = if next(4) == 0 { 0 } else { next(10) };
                literal.push(char::from(b'0' + digit as u8));
            }
            if next(3) == 0 {
                literal.push(if next(2) == 0 { 'e' } else { 'E' });
                match next(3) {
                    0 => literal.push('-'),
                    1 => literal.push('+'),
                    _ => {}
                }
                let e = match next(4) {
                    0 => next(400),
                    1 => next(100_000),
                    _ => next(30),
                };
                literal.push_str(&format!("{:0width$}", e, width = 1 + next(3) as usize));
            }
            let want: f64 = literal.parse().unwrap();
            assert_eq!(parse_ascii(&literal).to_bits(), want.to_bits(), "{literal}");
        }
        for literal in [
            "-0",
            "+0.0",
            "-0e5",
            "9007199254740993",
            "1e22",
            "1e23",
            "-.5e-22",
        ] {
            let want: f64 = literal.parse().unwrap();
            assert_eq!(parse_ascii(literal).to_bits(), want.to_bits(), "{literal}");
        }
    }

    #[test]
    fn regex_backtracking_cases() {
        assert_eq!(nums("1.5e3.2"), [1500.0, 0.2]);
        assert_eq!(nums("e5"), [5.0]);
        assert_eq!(nums("--5"), [-5.0]);
        assert_eq!(nums("5."), [5.0]);
        assert_eq!(nums("5.e3"), [5.0, 3.0]);
        assert_eq!(nums("1e-x 2E+3 .5 +.5"), [1.0, 2000.0, 0.5, 0.5]);
        assert_eq!(nums("2024-01-15"), [2024.0, -1.0, -15.0]);
        assert_eq!(nums("١٢ ５"), [12.0, 5.0]);
        assert_eq!(nums("1e400")[0], f64::INFINITY);
        assert_eq!(nums("10:30"), [10.0, 30.0]);
    }

    fn brute(actual: &[f64], expected: &[f64]) -> Vec<Option<usize>> {
        let mut used = vec![false; actual.len()];
        expected
            .iter()
            .map(|&e| {
                let mut best = None;
                let mut be = f64::INFINITY;
                for (i, &a) in actual.iter().enumerate() {
                    if !used[i] && (a - e).abs() < be {
                        best = Some(i);
                        be = (a - e).abs();
                    }
                }
                if let Some(i) = best {
                    used[i] = true;
                }
                best
            })
            .collect()
    }

    #[test]
    fn sorted_path_equals_brute_force() {
        let pool = [
            0.0,
            -0.0,
            1.0,
            2.0,
            2.5,
            3.0,
            -1.0,
            1e308,
            -1e308,
            1e-13,
            f64::INFINITY,
            7.0,
        ];
        let mut next = crate::testing::lcg(12345);
        let mut s = MatchScratch::default();
        for _ in 0..300 {
            let na = next() % 40;
            let ne = next() % 40;
            let a: Vec<f64> = (0..na).map(|_| pool[next() % pool.len()]).collect();
            let e: Vec<f64> = (0..ne).map(|_| pool[next() % pool.len()]).collect();
            let (mut c, mut err) = (vec![None; ne], vec![f64::NAN; ne]);
            greedy_sorted(&a, &e, &mut s, &mut c, &mut err);
            assert_eq!(c, brute(&a, &e), "{a:?} {e:?}");
        }
    }
}
