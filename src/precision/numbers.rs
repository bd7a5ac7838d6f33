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
///
/// Every match holds a digit: an ASCII text of at most [`SHORT_DIGIT_TEST`] bytes without one
/// (a short reference without numbers, the usual one) is told from a few loads here, inlined,
/// without the scan's call and set-up.
#[inline(always)]
pub fn numbers_with(t: &Tables, text: &str, ascii: bool, digits: &mut String, out: &mut Vec<f64>) {
    if ascii && text.len() <= SHORT_DIGIT_TEST && !ascii_has_digit(text.as_bytes()) {
        return;
    }
    numbers_scan(t, text, ascii, digits, out);
}

/// [`numbers_with`]'s scan.
#[inline(never)]
fn numbers_scan(t: &Tables, text: &str, ascii: bool, digits: &mut String, out: &mut Vec<f64>) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_avx2() {
        // SAFETY: the processor has AVX2 (checked just above).
        unsafe { avx2::numbers_with(t, text, ascii, digits, out) };
        return;
    }
    if ascii {
        scan::<true, Portable>(t, text, digits, out);
    } else {
        scan::<false, Portable>(t, text, digits, out);
    }
}

/// Whether [`numbers_with`] would find a number in `text`: whether it holds a decimal digit
/// (`\d`), each of which matches. A block of 64 bytes at a time, as [`scan`], stopping at the
/// first ASCII digit; a byte that may begin a digit that is not ASCII is decoded. Where only the
/// count of a text's numbers matters (none or some), this reads it without reading them.
#[inline(always)]
pub fn has_number(t: &Tables, text: &str, ascii: bool) -> bool {
    if ascii && text.len() <= SHORT_DIGIT_TEST {
        return ascii_has_digit(text.as_bytes());
    }
    has_number_scan(t, text, ascii)
}

/// [`has_number`]'s scan.
#[inline(never)]
fn has_number_scan(t: &Tables, text: &str, ascii: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_avx2() {
        // SAFETY: the processor has AVX2 (checked just above).
        return unsafe { avx2::has_number(t, text, ascii) };
    }
    if ascii {
        any_digit::<true, Portable>(t, text)
    } else {
        any_digit::<false, Portable>(t, text)
    }
}

/// The longest ASCII text whose digits [`ascii_has_digit`] looks for in a few loads, instead
/// of the block scan.
const SHORT_DIGIT_TEST: usize = 64;

/// Whether `bytes` (ASCII, at most [`SHORT_DIGIT_TEST`] of them) holds an ASCII digit: up to
/// 16 by [`short_ascii_has_digit`], else 16 at a time with SSE2 on x86_64 (8 at a time
/// elsewhere), the last 16 (8) read again where they overlap.
#[inline(always)]
fn ascii_has_digit(bytes: &[u8]) -> bool {
    debug_assert!(bytes.len() <= SHORT_DIGIT_TEST && bytes.is_ascii());
    if bytes.len() <= 16 {
        return short_ascii_has_digit(bytes);
    }
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is enabled for every x86_64 build; each load reads 16 bytes of
        // `bytes` (at least 17 of them), unaligned.
        unsafe {
            let (after, before) = (_mm_set1_epi8(b'/' as i8), _mm_set1_epi8(b':' as i8));
            let digits = |w: &[u8; 16]| {
                let v = _mm_loadu_si128(w.as_ptr().cast());
                _mm_and_si128(_mm_cmpgt_epi8(v, after), _mm_cmplt_epi8(v, before))
            };
            let mut found = _mm_setzero_si128();
            let mut chunks = bytes.chunks_exact(16);
            for chunk in &mut chunks {
                if let Some(w) = chunk.first_chunk::<16>() {
                    found = _mm_or_si128(found, digits(w));
                }
            }
            if !chunks.remainder().is_empty() {
                if let Some(w) = bytes.last_chunk::<16>() {
                    found = _mm_or_si128(found, digits(w));
                }
            }
            _mm_movemask_epi8(found) != 0
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = ONES * 0x80;
        let digits = |w: &[u8; 8]| {
            let v = u64::from_le_bytes(*w) ^ (ONES * 0x30);
            v.wrapping_sub(ONES * 10) & !v & HIGH
        };
        let mut chunks = bytes.chunks_exact(8);
        let mut found = 0;
        for chunk in &mut chunks {
            if let Some(w) = chunk.first_chunk::<8>() {
                found |= digits(w);
            }
        }
        if !chunks.remainder().is_empty() {
            if let Some(w) = bytes.last_chunk::<8>() {
                found |= digits(w);
            }
        }
        found != 0
    }
}

/// Whether `bytes` (ASCII, at most 16 of them) holds an ASCII digit, [`has_number`] of a
/// short ASCII text (whose digits are its ASCII digits), without the block set-up: from two
/// words that cover the bytes (of 8 bytes, overlapping, from 8 bytes on; of 4 from 4; else the
/// bytes zero-padded). Each byte XOR `0x30` is below 10 exactly for a digit (a padding byte
/// becomes 0x30), and a word has a byte below 10 (bytes below 0x80) exactly when
/// `(v - 10 per byte) & !v` has a high bit: the lowest such byte sets its own, and a borrow
/// only runs on from a byte below 10.
#[inline(always)]
fn short_ascii_has_digit(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    debug_assert!(bytes.len() <= 16 && bytes.is_ascii());
    let (a, b) = crate::ascii::covering_words(bytes);
    let digit = |w: u64| {
        let v = w ^ (ONES * 0x30);
        v.wrapping_sub(ONES * 10) & !v & HIGH != 0
    };
    digit(a) || digit(b)
}

/// [`has_number`], for an ASCII text (`ASCII`) or any.
#[inline(always)]
fn any_digit<const ASCII: bool, C: Classes>(t: &Tables, text: &str) -> bool {
    let b = text.as_bytes();
    let mut base = 0;
    while base < b.len() {
        let (digit, mut lead) = if b.len() < 64 {
            C::block::<ASCII>(padded_short_text(b).block())
        } else {
            long_text_bits::<ASCII, C>(b, base)
        };
        if digit != 0 {
            return true;
        }
        while lead != 0 {
            let p = base + lead.trailing_zeros() as usize;
            if char_at(text, p).is_some_and(|c| t.digit_value(c).is_some()) {
                return true;
            }
            lead &= lead - 1;
        }
        base += 64;
    }
    false
}

/// [`numbers_with`], a block of 64 bytes at a time: the starts of the block's runs of ASCII
/// digits (`digits & !(digits << 1)`) and, unless `ASCII` (the text is ASCII), its bytes that
/// may begin a digit that is not ASCII, taken in text order from one mask ([`read_block`]).
/// A text shorter than 64 bytes is one block, read from a zero-padded copy
/// ([`padded_short_text`]); a longer one in place, its last block overlapping the one before.
#[inline(always)]
fn scan<const ASCII: bool, C: Classes>(
    t: &Tables,
    text: &str,
    digits: &mut String,
    out: &mut Vec<f64>,
) {
    let b = text.as_bytes();
    // `text[..i]` is done: no match starts before `i`.
    let mut i = 0;
    if b.len() < 64 {
        if !b.is_empty() {
            let padded = padded_short_text(b);
            let masks = C::block::<ASCII>(padded.block());
            read_block::<ASCII>(
                t,
                text,
                0,
                masks,
                &mut i,
                digits,
                out,
                #[inline(always)]
                |p| padded.around(p),
            );
        }
        return;
    }
    let mut base = 0;
    while base < b.len() {
        let masks = long_text_bits::<ASCII, C>(b, base);
        read_block::<ASCII>(
            t,
            text,
            base,
            masks,
            &mut i,
            digits,
            out,
            #[inline(always)]
            |p| around(b, p),
        );
        base = (base + 64).max(i);
    }
}

/// The matches that start in the block of 64 bytes at `base` (where the scan is at `i`, at or
/// before `base`), whose ASCII digits and leads of other digits are `masks`; `around(p)` gives
/// the two bytes before byte `p` and the eight from it ([`short_run`]). Moves `i` past them;
/// past the block's end when [`general`] read a match that goes on there.
///
/// Every match ends at a digit whose next character is no digit, so a run is read by one match
/// from its start: either alone ([`short_run`], without a branch on its length or on the bytes
/// beside it), or by [`general`] together with what follows (a fraction, an exponent, digits
/// of other scripts, the rest of a run cut by the block's edge), which returns past it: the
/// starts it read are dropped from the mask.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn read_block<const ASCII: bool>(
    t: &Tables,
    text: &str,
    base: usize,
    (digit, lead): (u64, u64),
    i: &mut usize,
    digits: &mut String,
    out: &mut Vec<f64>,
    around: impl Fn(usize) -> (u16, u64),
) {
    let mut next = (digit & !(digit << 1)) | lead;
    while next != 0 {
        let k = next.trailing_zeros() as usize;
        let p = base + k;
        if ASCII || lead & (1 << k) == 0 {
            // The run's length within the block.
            let len = (!(digit >> k)).trailing_zeros() as usize;
            let (before, word) = around(p);
            if let Some(value) = short_run(before, word, len) {
                out.push(value);
                *i = p + len;
                next &= next - 1;
                continue;
            }
            // A dot and a second run after this one: a decimal number, read at once when both
            // runs are short and within the block.
            let f = k + len + 1;
            if word.checked_shr(8 * len as u32).unwrap_or(0) as u8 == b'.' && f < 64 {
                let fraction = (!(digit >> f)).trailing_zeros() as usize;
                if f + fraction < 64 {
                    if let Some(value) =
                        short_decimal(before, word, len, around(base + f).1, fraction)
                    {
                        out.push(value);
                        *i = base + f + fraction;
                        next &= u64::MAX.checked_shl((f + fraction) as u32).unwrap_or(0);
                        continue;
                    }
                }
            }
        }
        *i = general(t, text, p, *i, digits, out);
        match i.checked_sub(base).filter(|&done| done < 64) {
            Some(done) => next &= u64::MAX << done,
            None => return,
        }
    }
}

/// Bytes that may follow a run of digits that is a whole match alone: not a digit (the run
/// would go on past the block's edge), a dot, `e`, `E`, nor a byte of 0x80 or more (perhaps
/// another digit). `0` stands for the text's end.
static ENDS_A_RUN: [bool; 256] = {
    let mut ends = [false; 256];
    let mut x = 0;
    while x < 0x80 {
        ends[x] = !matches!(x as u8, b'0'..=b'9' | b'.' | b'e' | b'E');
        x += 1;
    }
    ends
};

/// The value of the match that is the run of `len` ASCII digits starting `word` (the 8 bytes
/// from the run's first, zero past the text's end), `before` the two bytes before it (zero
/// before the text's start), when that run alone is a whole match: at most seven digits,
/// followed by a byte of [`ENDS_A_RUN`]. Else `None`, and [`general`] reads it.
///
/// The byte before the run is no digit; a sign there, a dot, or a sign and a dot, start the
/// match (no earlier match reached them: it would have ended at a digit, and its run would
/// have been read with it). The digits make an integer below 10^7, exact as a `f64` ([`swar`]);
/// after a dot it is divided by the power of ten of its length, one correctly rounded division
/// as `float()` reads it (Clinger's fast path); a minus sign negates it.
#[inline(always)]
fn short_run(before: u16, word: u64, len: usize) -> Option<f64> {
    let after = word.checked_shr(8 * len as u32).unwrap_or(0) as u8;
    if len > 7 || !ENDS_A_RUN[usize::from(after)] {
        return None;
    }
    let m = swar(word, len) as f64;
    let dot = before >> 8 == u16::from(b'.');
    let negative = before >> 8 == u16::from(b'-') || before == u16::from_le_bytes(*b"-.");
    // 10^0 without a dot.
    let value = m / EXACT_POWERS.get(len * usize::from(dot))?;
    // `value` is not negative: setting its sign bit negates it, `-0.0` included.
    Some(f64::from_bits(value.to_bits() | u64::from(negative) << 63))
}

/// The value of the match that is a run of `len` ASCII digits, a dot and a run of `fraction`
/// digits (`word` and `fraction_word` the 8 bytes from each run's first, `before` the two bytes
/// before the first, as for [`short_run`]), when that is a whole match: the first run not
/// after a dot (it would be the fraction of a match that began there), each run of one to
/// seven digits, the second followed by a byte that ends a match (any but a digit, `e`, `E`,
/// or a byte of 0x80 or more: a dot ends this one). Else `None`. The fourteen digits at most
/// make an integer below 2^53, exact as a `f64`, divided by the power of ten of the fraction's
/// length: one correctly rounded division (Clinger's fast path).
#[inline(always)]
fn short_decimal(
    before: u16,
    word: u64,
    len: usize,
    fraction_word: u64,
    fraction: usize,
) -> Option<f64> {
    let after = fraction_word.checked_shr(8 * fraction as u32).unwrap_or(0) as u8;
    if len > 7
        || fraction == 0
        || fraction > 7
        || before >> 8 == u16::from(b'.')
        || !(ENDS_A_RUN[usize::from(after)] || after == b'.')
    {
        return None;
    }
    let scale = EXACT_POWERS.get(fraction)?;
    let whole = swar(word, len) * (*scale as u64) + swar(fraction_word, fraction);
    let value = whole as f64 / scale;
    let negative = before >> 8 == u16::from(b'-');
    Some(f64::from_bits(value.to_bits() | u64::from(negative) << 63))
}

/// The two bytes of `b` before `p` and the eight from `p` (`p` less than `b.len()`, which is 8
/// or more), as little-endian numbers, zero outside `b`: one load of ten bytes but at the
/// text's edges ([`around_edge`]).
#[inline(always)]
fn around(b: &[u8], p: usize) -> (u16, u64) {
    match p
        .checked_sub(2)
        .and_then(|s| b.get(s..))
        .and_then(|rest| rest.first_chunk::<10>())
    {
        Some(&[x, y, ref word @ ..]) => (u16::from_le_bytes([x, y]), u64::from_le_bytes(*word)),
        None => around_edge(b, p),
    }
}

/// [`around`] at the text's first two bytes or last eight.
#[inline(never)]
fn around_edge(b: &[u8], p: usize) -> (u16, u64) {
    let byte = |j: usize| j.checked_sub(2).and_then(|j| b.get(j)).map_or(0, |&x| x);
    (
        u16::from_le_bytes([byte(p), byte(p + 1)]),
        u64::from_le_bytes(std::array::from_fn(|k| byte(p + 2 + k))),
    )
}

/// A text shorter than 64 bytes at byte 8 of 80 zero bytes: a whole block to classify, with
/// the bytes around each of its runs ([`short_run`]) in reach. Copied by chunks of 16 bytes
/// (the last overlapping the one before) or, below 16 bytes, two overlapping loads of 8, 4 or
/// 1 bytes, without `memcpy` (whose branches on a length known only at run time mispredict).
struct PaddedShort([u8; 80]);

impl PaddedShort {
    fn block(&self) -> &[u8; 64] {
        self.0
            .get(8..)
            .and_then(|rest| rest.first_chunk::<64>())
            .unwrap_or(&[0; 64])
    }

    /// [`around`] of byte `p` of the text (`p` below 64).
    #[inline(always)]
    fn around(&self, p: usize) -> (u16, u64) {
        let before = self
            .0
            .get(p + 6..)
            .and_then(|rest| rest.first_chunk::<2>())
            .map_or(0, |x| u16::from_le_bytes(*x));
        let word = self
            .0
            .get(p + 8..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map_or(0, |x| u64::from_le_bytes(*x));
        (before, word)
    }
}

/// [`PaddedShort`] of `b` (1 to 63 bytes).
#[inline(always)]
fn padded_short_text(b: &[u8]) -> PaddedShort {
    let n = b.len();
    let mut padded = [0u8; 80];
    let mut put = |at: usize, bytes: &[u8]| {
        if let Some(to) = padded.get_mut(8 + at..8 + at + bytes.len()) {
            to.copy_from_slice(bytes);
        }
    };
    if n >= 16 {
        for k in 0..4 {
            let at = (16 * k).min(n - 16);
            if let Some(chunk) = b.get(at..).and_then(|rest| rest.first_chunk::<16>()) {
                put(at, chunk);
            }
        }
    } else if let (Some(first), Some(last)) = (b.first_chunk::<8>(), b.last_chunk::<8>()) {
        put(0, first);
        put(n - 8, last);
    } else if let (Some(first), Some(last)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        put(0, first);
        put(n - 4, last);
    } else {
        // 1 to 3 bytes: the first, the middle and the last (some the same).
        for at in [0, n / 2, n - 1] {
            put(at, b.get(at..=at).unwrap_or(&[]));
        }
    }
    PaddedShort(padded)
}

/// The integer that the first `len` bytes of `word` (1 to 8 ASCII digits, the first the most
/// significant) write: the digits moved to the word's top bytes (zeros before them), then
/// neighbouring digits, pairs and quadruples combined, each step one multiplication for all.
#[inline(always)]
fn swar(word: u64, len: usize) -> u64 {
    // (A shift by 64 - 8 * len, taken modulo 64 as the machine does.)
    let v = word.wrapping_shl(64u32.wrapping_sub(8 * len as u32)) & 0x0F0F_0F0F_0F0F_0F0F;
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10_000) + (v >> 32)) & 0xFFFF_FFFF
}

/// The match at byte `p` (the first ASCII digit or byte that may begin a digit at or after
/// `i`, where the scan is), read character by character: pushes its number to `out` if there
/// is one there, and returns where the scan goes on.
#[inline(never)]
fn general(
    t: &Tables,
    text: &str,
    p: usize,
    i: usize,
    digits: &mut String,
    out: &mut Vec<f64>,
) -> usize {
    let b = text.as_bytes();
    if b.get(p).is_some_and(|&x| x >= 0x80) {
        let Some(c) = char_at(text, p) else {
            // `p` always begins a character; not reached.
            return b.len();
        };
        if t.digit_value(c).is_none() {
            return p + c.len_utf8();
        }
    }
    // A sign and a dot, a sign or a dot may start the match just before the digit (no digit
    // lies between `i` and `p`, so nothing else can); neither before `i`.
    let start = match p.checked_sub(1).filter(|&s| s >= i).and_then(|s| b.get(s)) {
        Some(b'.') if p - 1 > i && matches!(b.get(p - 2), Some(b'+' | b'-')) => p - 2,
        Some(b'+' | b'-' | b'.') => p - 1,
        _ => p,
    };
    if let Some((end, value)) = ascii_match(text, start) {
        out.push(value);
        return end;
    }
    let Some(end) = match_at(t, text, start) else {
        // The digit itself always matches; not reached.
        return p + 1;
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
    end
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

/// Two masks of the 64 bytes of `b` (64 bytes or more) from `base` (byte `base + k`'s is bit
/// `k`; none past the text's end): its ASCII digits, and unless `ASCII` (`b` is ASCII) its
/// bytes that may begin a digit that is not ASCII ([`may_lead_digit`]). At the text's end the
/// last 64 bytes are read and their masks shifted.
#[inline(always)]
fn long_text_bits<const ASCII: bool, C: Classes>(b: &[u8], base: usize) -> (u64, u64) {
    let rest = b.get(base..).unwrap_or(&[]);
    if let Some(block) = rest.first_chunk::<64>() {
        return C::block::<ASCII>(block);
    }
    let Some(last) = b.last_chunk::<64>() else {
        return (0, 0);
    };
    // The block at `base` runs past the end by `64 - rest.len()` bytes (1 to 64).
    let (digit, lead) = C::block::<ASCII>(last);
    let past = 64 - rest.len() as u32;
    (
        digit.checked_shr(past).unwrap_or(0),
        lead.checked_shr(past).unwrap_or(0),
    )
}

/// How the masks of a block of 64 bytes ([`long_text_bits`]) are computed: [`Portable`], or
/// with AVX2 where the processor has it ([`avx2`]).
trait Classes {
    fn block<const ASCII: bool>(block: &[u8; 64]) -> (u64, u64);
}

/// SSE2 on x86_64 (16 bytes at a time), else byte by byte.
struct Portable;

impl Classes for Portable {
    #[inline(always)]
    fn block<const ASCII: bool>(block: &[u8; 64]) -> (u64, u64) {
        let (mut digit, mut lead) = (0u64, 0u64);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            if let Some(chunk) = chunk.first_chunk::<16>() {
                let (d, l) = chunk_classes::<ASCII>(chunk);
                digit |= d << (16 * k);
                lead |= l << (16 * k);
            }
        }
        (digit, lead)
    }
}

/// [`long_text_bits`] of 16 bytes: with SSE2 on x86_64, else byte by byte.
#[inline(always)]
fn chunk_classes<const ASCII: bool>(chunk: &[u8; 16]) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::classes::<ASCII>(chunk)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        let (mut digit, mut lead) = (0u64, 0u64);
        for (k, &x) in chunk.iter().enumerate() {
            digit |= u64::from(x.is_ascii_digit()) << k;
            lead |= u64::from(!ASCII && may_lead_digit(x)) << k;
        }
        (digit, lead)
    }
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
#[cfg(any(test, not(all(target_arch = "x86_64", not(feature = "portable")))))]
#[inline(always)]
const fn may_lead_digit(x: u8) -> bool {
    x >= DIGIT_LEAD
        && !(x >= NO_DIGIT_LEADS[0].0 && x <= NO_DIGIT_LEADS[0].1)
        && !(x >= NO_DIGIT_LEADS[1].0 && x <= NO_DIGIT_LEADS[1].1)
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse2 {
    //! Sound because this module is only compiled where SSE2 is enabled for the whole build
    //! (every x86_64 target), as `crate::ascii`'s, whose byte-class helpers it uses.
    use crate::ascii::sse2::{bits, in_range};
    use std::arch::x86_64::*;

    /// The ASCII digits of `chunk` and, unless `ASCII`, its bytes that may begin a digit that
    /// is not ASCII ([`super::may_lead_digit`]), byte `k`'s as bit `k` of each.
    #[inline(always)]
    pub(super) fn classes<const ASCII: bool>(chunk: &[u8; 16]) -> (u64, u64) {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`); the load reads the 16
        // bytes of `chunk`, unaligned.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        let digit = bits(in_range(v, b'0', b'9'));
        if ASCII {
            return (digit, 0);
        }
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
        (digit, bits(unsafe { _mm_andnot_si128(none, lead) }))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The scans compiled for AVX2, their blocks classified 32 bytes at a time: reached only
    //! through the run-time checks of [`super::numbers_with`] and [`super::has_number`].
    use crate::ascii::avx2::{bits, in_range};
    use crate::pyunicode::Tables;
    use std::arch::x86_64::*;

    /// [`super::Classes`] by AVX2; only used by the functions below, compiled for AVX2.
    pub(super) struct Avx2;

    impl super::Classes for Avx2 {
        #[inline(always)]
        fn block<const ASCII: bool>(block: &[u8; 64]) -> (u64, u64) {
            // SAFETY: `Avx2` is only used within this module's functions, which are compiled
            // for AVX2 and only called when the processor has it (and by the tests, after the
            // same check).
            unsafe { classes::<ASCII>(block) }
        }
    }

    /// [`super::numbers_with`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn numbers_with(
        t: &Tables,
        text: &str,
        ascii: bool,
        digits: &mut String,
        out: &mut Vec<f64>,
    ) {
        if ascii {
            super::scan::<true, Avx2>(t, text, digits, out);
        } else {
            super::scan::<false, Avx2>(t, text, digits, out);
        }
    }

    /// [`super::has_number`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn has_number(t: &Tables, text: &str, ascii: bool) -> bool {
        if ascii {
            super::any_digit::<true, Avx2>(t, text)
        } else {
            super::any_digit::<false, Avx2>(t, text)
        }
    }

    /// The ASCII digits of `block` and, unless `ASCII`, its bytes that may begin a digit that
    /// is not ASCII ([`super::may_lead_digit`]), byte `k`'s as bit `k` of each.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn classes<const ASCII: bool>(block: &[u8; 64]) -> (u64, u64) {
        let (lo, hi) = block.split_at(32);
        // SAFETY: each half holds 32 bytes, which an unaligned load reads.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(lo.as_ptr().cast()),
                _mm256_loadu_si256(hi.as_ptr().cast()),
            )
        };
        let (lo_digit, lo_lead) = half::<ASCII>(lo);
        let (hi_digit, hi_lead) = half::<ASCII>(hi);
        (lo_digit | hi_digit << 32, lo_lead | hi_lead << 32)
    }

    /// [`classes`] of 32 bytes, as the SSE2 module's for 16.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn half<const ASCII: bool>(v: __m256i) -> (u64, u64) {
        let digit = bits(in_range(v, b'0', b'9'));
        if ASCII {
            return (digit, 0);
        }
        // The sign bit of the bytes above `DIGIT_LEAD - 1` as signed bytes (all but the bytes
        // of 0x80 up to it) that are negative (0x80 or more).
        let lead = _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8((super::DIGIT_LEAD - 1) as i8)),
            v,
        );
        // The two ranges of first bytes that begin no digit (`in_range` compares signed
        // bytes: both ranges lie within the negative ones, so no ASCII byte is in them).
        let [(lo0, hi0), (lo1, hi1)] = super::NO_DIGIT_LEADS;
        let none = _mm256_or_si256(in_range(v, lo0, hi0), in_range(v, lo1, hi1));
        (digit, bits(_mm256_andnot_si256(none, lead)))
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
    #[test]
    fn short_ascii_texts_have_a_digit_when_a_byte_is_one() {
        // Every ASCII byte at every position of texts of 0 to 16 bytes, among random others.
        let mut next = crate::testing::lcg(37);
        for n in 0..=16usize {
            for round in 0..600 {
                let mut text: Vec<u8> = (0..n).map(|_| (next() % 128) as u8).collect();
                if n > 0 {
                    text[round % n] = (round % 128) as u8;
                }
                let want = text.iter().any(u8::is_ascii_digit);
                assert_eq!(super::short_ascii_has_digit(&text), want, "{text:?}");
            }
            let plain: Vec<u8> = (0..n).map(|k| b"abc :/9"[k % 6]).collect();
            assert!(!super::short_ascii_has_digit(&plain), "{plain:?}");
        }
    }

    #[test]
    fn ascii_texts_up_to_64_bytes_have_a_digit_and_numbers_as_the_scan_finds() {
        // The word test of texts of up to 64 bytes against a byte loop, and the shortcuts of
        // `numbers_with` and `has_number` (ASCII said) against their scans (nothing said).
        let t = crate::pyunicode::test_tables::install();
        let mut next = crate::testing::lcg(41);
        let alphabet = b"ab e.-+:/ E0123456789xyz,";
        for n in 0..=70usize {
            for round in 0..400 {
                let mut text: Vec<u8> = if round % 2 == 0 {
                    (0..n).map(|_| (next() % 128) as u8).collect()
                } else {
                    (0..n).map(|_| alphabet[next() % alphabet.len()]).collect()
                };
                // Half of them without a digit, one put back at a random place in some.
                if round % 4 < 2 {
                    for b in text.iter_mut().filter(|b| b.is_ascii_digit()) {
                        *b = b'q';
                    }
                    if round % 4 == 1 && n > 0 {
                        let at = next() % n;
                        text[at] = b'0' + (next() % 10) as u8;
                    }
                }
                let want = text.iter().any(u8::is_ascii_digit);
                if n <= super::SHORT_DIGIT_TEST {
                    assert_eq!(super::ascii_has_digit(&text), want, "{text:?}");
                }
                let text = String::from_utf8(text).unwrap();
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                super::numbers_with(t, &text, true, &mut String::new(), &mut fast);
                super::numbers_with(t, &text, false, &mut String::new(), &mut slow);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fast), bits(&slow), "{text:?}");
                assert_eq!(super::has_number(t, &text, true), want, "{text:?}");
                assert_eq!(super::has_number(t, &text, false), want, "{text:?}");
            }
        }
    }

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

    /// [`numbers_with`] of `text`, checked against the portable scan's (for an ASCII text, with
    /// `ascii` true and false): bit for bit the same.
    fn numbers_checked(t: &Tables, text: &str) -> Vec<f64> {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut got = Vec::new();
        numbers_with(t, text, text.is_ascii(), &mut String::new(), &mut got);
        let mut portable = Vec::new();
        scan::<false, Portable>(t, text, &mut String::new(), &mut portable);
        assert_eq!(bits(&got), bits(&portable), "{text:?}");
        if text.is_ascii() {
            portable.clear();
            scan::<true, Portable>(t, text, &mut String::new(), &mut portable);
            assert_eq!(bits(&got), bits(&portable), "{text:?}");
        }
        let has = !got.is_empty();
        assert_eq!(any_digit::<false, Portable>(t, text), has, "{text:?}");
        assert_eq!(has_number(t, text, text.is_ascii()), has, "{text:?}");
        got
    }

    /// Checks that the numbers of `text` ([`numbers_checked`]) are those of
    /// [`numbers_reference`], bit for bit.
    fn assert_reads_as_reference(t: &Tables, text: &str) {
        let got = numbers_checked(t, text);
        let mut want = Vec::new();
        numbers_reference(t, text, &mut Vec::new(), &mut String::new(), &mut want);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "{text:?}: {got:?} against {want:?}"
        );
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

    /// The masks the scan reads for the block at `base`: of the text in place from 64 bytes
    /// on, else of its padded copy, shifted.
    fn block_bits<const ASCII: bool>(text: &[u8], base: usize) -> (u64, u64) {
        let portable = block_bits_by::<ASCII, Portable>(text, base);
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has_avx2() {
            assert_eq!(
                block_bits_by::<ASCII, avx2::Avx2>(text, base),
                portable,
                "{text:?} {base}"
            );
        }
        portable
    }

    /// [`block_bits`] by the classes of `C`.
    fn block_bits_by<const ASCII: bool, C: Classes>(text: &[u8], base: usize) -> (u64, u64) {
        if text.len() >= 64 {
            return long_text_bits::<ASCII, C>(text, base);
        }
        let (digit, lead) = C::block::<ASCII>(padded_short_text(text).block());
        (digit >> base, lead >> base)
    }

    #[test]
    fn block_bits_are_the_bytes_classes_from_every_base() {
        // Texts of letters, punctuation and the bytes at the classes' edges, with a digit or a
        // byte of 0x80 or more (below `DIGIT_LEAD` or not) here and there (or nowhere), of 0 to
        // 200 bytes (63/64/65 and 127/128/129 included): the masks of every block from every
        // base, against each byte's class.
        let bytes = [
            b'a', b' ', b'/', b'0', b'9', b':', 0x7f, 0x80, 0xd8, 0xd9, 0xe1, 0xe2, 0xe4, 0xe9,
            0xea, 0xeb, 0xee, 0xef, 0xff, 0,
        ];
        let mut next = crate::testing::lcg(31);
        for round in 0..2_000 {
            let len = match round % 4 {
                0 => [1, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 129][next() % 12],
                _ => next() % 200,
            };
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
            for base in 0..len {
                let (mut digit, mut lead) = (0u64, 0u64);
                for (k, &x) in text.iter().skip(base).take(64).enumerate() {
                    digit |= u64::from(x.is_ascii_digit()) << k;
                    let high =
                        x >= 0xd9 && !(0xe2..=0xe9).contains(&x) && !(0xeb..=0xee).contains(&x);
                    lead |= u64::from(high) << k;
                }
                assert_eq!(
                    block_bits::<false>(&text, base),
                    (digit, lead),
                    "{text:?} {base}"
                );
                if text.is_ascii() {
                    assert_eq!(
                        block_bits::<true>(&text, base),
                        (digit, 0),
                        "{text:?} {base}"
                    );
                }
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
            assert_reads_as_reference(t, &text);
        }
    }

    #[test]
    fn runs_at_block_edges_read_as_the_reference() {
        // A number (a run of 1 to 10 digits, with a sign, a dot, a fraction or an exponent, or
        // digits of other scripts beside ASCII ones) placed so that it starts, or its run ends,
        // at every place around the blocks' edges (bytes 62 to 66 and 126 to 130) and the
        // text's start and end, with filler of ASCII or not before and after it.
        let t = test_tables::install();
        let numbers = [
            "7",
            "12",
            "1234567",
            "12345678",
            "123456789",
            "1234567890",
            "-5",
            "+5",
            ".5",
            "-.25",
            "+.5",
            "1.5",
            "12.75",
            "3e5",
            "2E-3",
            "1e",
            "5.",
            "5.x",
            "٣",
            "1٣",
            "٣1",
            "12٣4",
            "1.٣",
            "-٣",
            "５5",
            "2024-01-15",
            "1-2",
            "1.5.3",
            "0",
            "-0",
            "00012",
        ];
        let fillers = ["x", " ", "é", "م", "-", ".", "ab", "😀"];
        let mut text = String::new();
        for number in numbers {
            for filler in fillers {
                for before in (0..8).chain(56..72).chain(120..136) {
                    for after in [0, 1, 2, 40, 70] {
                        text.clear();
                        while text.len() < before {
                            text.push_str(filler);
                        }
                        text.push_str(number);
                        for _ in 0..after {
                            text.push_str(filler);
                        }
                        assert_reads_as_reference(t, &text);
                    }
                }
            }
        }
    }

    #[test]
    fn dense_texts_read_as_the_reference() {
        // Texts of 0 to 300 bytes made mostly of digits, signs, dots and exponents, ASCII or
        // not: many runs in each block, runs across every edge.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            "1", "23", "456", "7890123", "12345678", "-", "+", ".", "e", "E", " ", "x", "٣", "５",
            "é", "\u{7c5}", "😀",
        ];
        let mut next = crate::testing::lcg(7);
        let mut text = String::new();
        for _ in 0..5_000 {
            text.clear();
            let len = next() % 300;
            while text.len() < len {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            assert_reads_as_reference(t, &text);
        }
    }

    #[test]
    fn has_number_is_whether_the_scan_finds_one() {
        // Texts of 0 to 200 bytes, few digits or none, ASCII ones or others, at every place
        // around the blocks' edges.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            "x",
            " ",
            "ab",
            "-",
            ".",
            "é",
            "م",
            "😀",
            "①",
            "中",
            "ﬁ",
            "1",
            "٣",
            "５",
            "\u{7c5}",
            "\u{1d7ce}",
        ];
        let mut next = crate::testing::lcg(11);
        let mut text = String::new();
        for round in 0..20_000 {
            text.clear();
            let len = next() % 200;
            while text.len() < len {
                // Mostly no digit: one piece in 40 may be one.
                let piece = if round % 2 == 0 || next().is_multiple_of(40) {
                    PIECES[next() % PIECES.len()]
                } else {
                    PIECES[next() % 11]
                };
                text.push_str(piece);
            }
            let mut want = Vec::new();
            numbers_reference(t, &text, &mut Vec::new(), &mut String::new(), &mut want);
            assert_eq!(has_number(t, &text, false), !want.is_empty(), "{text:?}");
            if text.is_ascii() {
                assert_eq!(has_number(t, &text, true), !want.is_empty(), "{text:?}");
            }
        }
        for text in ["", "1", "x", "٣", "م", "x1", "\u{1d7ce}", "😀"] {
            let want = !nums(text).is_empty();
            assert_eq!(has_number(t, text, text.is_ascii()), want, "{text:?}");
        }
    }

    #[test]
    fn swar_reads_every_short_run() {
        // Every length, every digit at every place, and the bytes after the run ignored.
        let mut next = crate::testing::lcg(3);
        for _ in 0..20_000 {
            let len = 1 + next() % 8;
            let mut word = [b'x'; 8];
            let mut want = 0u64;
            for (k, byte) in word.iter_mut().enumerate() {
                if k < len {
                    let d = (next() % 10) as u8;
                    *byte = b'0' + d;
                    want = want * 10 + u64::from(d);
                } else {
                    *byte = [b'x', b'.', b' ', 0xff, b'9', 0][next() % 6];
                }
            }
            assert_eq!(swar(u64::from_le_bytes(word), len), want, "{word:?} {len}");
        }
        assert_eq!(swar(u64::from_le_bytes(*b"99999999"), 8), 99_999_999);
        assert_eq!(swar(u64::from_le_bytes(*b"00000001"), 8), 1);
    }

    #[test]
    fn the_bytes_around_a_run_are_padded_at_the_edges() {
        // From every position of texts of 1 to 80 bytes: the two bytes before (zero before the
        // start) and the eight from it (zero past the end), in place and from the padded copy.
        let whole: Vec<u8> = (0..80u8).map(|x| b'!' + x).collect();
        for n in 1..=80 {
            let text = &whole[..n];
            for p in 0..n {
                let byte = |j: usize| j.checked_sub(2).and_then(|j| text.get(j)).map_or(0, |&x| x);
                let before = u16::from_le_bytes([byte(p), byte(p + 1)]);
                let word = u64::from_le_bytes(std::array::from_fn(|k| byte(p + 2 + k)));
                if n >= 8 {
                    assert_eq!(around(text, p), (before, word), "{n} {p}");
                }
                if n < 64 {
                    let padded = padded_short_text(text);
                    assert_eq!(padded.around(p), (before, word), "{n} {p}");
                    let mut block = [0u8; 64];
                    block[..n].copy_from_slice(text);
                    assert_eq!(padded.block(), &block, "{n}");
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
