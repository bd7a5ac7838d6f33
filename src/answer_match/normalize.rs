//! answer_match's normalisation in one forward pass.
//!
//! The recipe (`match_normalize` in `polarscore/normalize.py`) is a chain of regular-expression
//! rewrites of the folded, lower-cased text `L`, each applied to the whole output of the one
//! before:
//!
//! 1. `L` = `str.lower()` of the text with every character folded (NFKD, marks dropped);
//! 2. `([^\W\d_])(?:\.?['’]s\b|['’.])` → `\1`: after a letter, a possessive `'s` or one mark goes;
//! 3. `(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b` → the digits: thousands separators go;
//! 4. `([^\W\d_])(\d)` → `\1 \2`, then `(\d)\.(\d)` → `\1_\2`: a letter is split from a digit,
//!    and a decimal point joins its number;
//! 5. the `\w+` words, each with an ordinal suffix dropped and a number word read (with
//!    `number_words`), articles left out, joined by single spaces with one on each side.
//!
//! [`Normalizer`] reads `L` once and writes the result of step 5 directly. The steps compose
//! without surprises because each one's context is narrow:
//!
//! * step 2 deletes only right after a letter; so it never touches a run of digits and commas,
//!   nor the character after one, and step 3 can read `L` itself. A mark goes when the letter
//!   before it was not itself consumed by an earlier match, which can only be the `s` of a
//!   possessive (and then a non-word character follows, which no match can start on).
//! * step 3 deletes only commas between digits, so what follows a mark is what step 4's second
//!   rewrite sees; and neither 2 nor 3 creates a letter-digit pair that was not one in `L` with
//!   only deleted marks between.
//! * step 4's space goes between a letter and a digit, which neither makes nor breaks a
//!   digit-dot-digit match; a digit taken by one such match does not start the next (`1.2.3`).
//! * step 5 sees words: the scan builds each word in the output as it reads it, and at its end
//!   drops an ordinal suffix, replaces a number word or takes an article back.
//!
//! An ASCII text is read as bytes, classified by a table and lower-cased on the way (folding
//! and lower-casing keep ASCII in ASCII); runs of ASCII letters are copied eight bytes at a
//! time, and a word of letters between plain separators (a space, most punctuation) is read
//! with one eight-byte load, without the class dispatch (`Scan::short_words`); any other text is first folded and lower-cased into a
//! buffer with the interpreter's tables (Python's final-sigma rule included; its ASCII letters
//! are copied as they are, which the scan lower-cases as it reads them), which the same scan
//! then reads. `answer_match`'s glued-word rule normalises the response with a space
//! between each lower-case ASCII letter and an upper-case one that follows (`unglue_into`):
//! the scan inserts that space where it reads the pair, instead of copying the text first.
//!
//! `tests/oracles/answer_match.py` restates the recipe with Python's own `re`; the unit tests
//! below and the fuzz target compare the scan with a step-by-step port of it.

use super::{block, FoldTable};
use crate::answer_rules::year_glue_bytes;
use crate::answer_words::{
    is_article, may_be_inner_listed, may_be_listed, may_be_listed_letters, may_be_listed_shape,
    number_word,
};
use crate::pyunicode::Tables;

/// What a character of `L` is to the recipe.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    /// `[^\W\d_]`: a word character that is not a decimal digit nor `_`.
    Letter,
    /// `\d` (category Nd).
    Digit,
    /// `_`, the one word character that is neither.
    Underscore,
    Dot,
    /// `'` or `’`.
    Apostrophe,
    Comma,
    /// Any other character: not a word character, so it ends a word.
    Other,
    /// A byte of a multi-byte character (in the byte table only): the character decides.
    Multi,
}

impl K {
    #[inline(always)]
    fn is_word(self) -> bool {
        matches!(self, K::Letter | K::Digit | K::Underscore)
    }
}

const fn ascii_class(b: u8) -> K {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => K::Letter,
        b'0'..=b'9' => K::Digit,
        b'_' => K::Underscore,
        b'.' => K::Dot,
        b'\'' => K::Apostrophe,
        b',' => K::Comma,
        _ => K::Other,
    }
}

static BYTES: [K; 256] = {
    let mut table = [K::Multi; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = ascii_class(b as u8);
        b += 1;
    }
    table
};

/// The class of a byte: of its character if ASCII, else [`K::Multi`].
#[inline(always)]
fn byte(b: u8) -> K {
    BYTES[usize::from(b)]
}

#[inline]
fn char_class(t: &Tables, c: char) -> K {
    if c.is_ascii() {
        return byte(c as u8);
    }
    if c == '\u{2019}' {
        K::Apostrophe
    } else if !t.is_word(c) {
        K::Other
    } else if t.digit_value(c).is_some() {
        K::Digit
    } else {
        K::Letter
    }
}

/// What the last character of step 3's output was, as the later steps need it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prev {
    /// Neither a letter nor a digit (or nothing yet).
    Other,
    /// A letter; `fresh` unless it was a possessive's `s` (no mark after it can then go).
    Letter { fresh: bool },
    /// A digit; `comma` unless a thousands match ended on it (no match starts there), `dot`
    /// unless a decimal-point match ended on it.
    Digit { comma: bool, dot: bool },
}

/// What a normalisation noticed on the way, for the rules that may read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// A word of the result is a year glued to a citation marker or a word (`193912`).
    pub glued_year: bool,
}

/// The scan of `L` (or of an ASCII text, lower-cased as it is read).
struct Scan<'a, const UNGLUE: bool> {
    t: &'a Tables,
    s: &'a str,
    b: &'a [u8],
    /// The result: `out[..o]` so far (whole characters only, so always UTF-8). It is sized for
    /// the longest result up front, so most writes are a store; [`Scan::put`] grows it anyway
    /// past that.
    out: Vec<u8>,
    o: usize,
    /// Where the word being read starts in `out`.
    word: usize,
    number_words: bool,
    seen: Seen,
}

impl<const UNGLUE: bool> Scan<'_, UNGLUE> {
    /// The class and byte length of the character at `i`.
    #[inline(always)]
    fn at(&self, i: usize) -> Option<(K, usize)> {
        let &x = self.b.get(i)?;
        let k = byte(x);
        if k != K::Multi {
            return Some((k, 1));
        }
        let c = self.s.get(i..)?.chars().next()?;
        Some((char_class(self.t, c), c.len_utf8()))
    }

    /// `\b` after a word character that ends at `e`.
    #[inline]
    fn boundary(&self, e: usize) -> bool {
        self.at(e).is_none_or(|(k, _)| !k.is_word())
    }

    /// With `UNGLUE`, whether a space goes before the byte at `i` (a lower-case ASCII letter, then
    /// an upper-case one).
    #[inline(always)]
    fn glue_at(&self, i: usize) -> bool {
        UNGLUE
            && i > 0
            && self.b.get(i).is_some_and(u8::is_ascii_uppercase)
            && self.b.get(i - 1).is_some_and(u8::is_ascii_lowercase)
    }

    /// Write one byte.
    #[inline(always)]
    fn put(&mut self, x: u8) {
        match self.out.get_mut(self.o) {
            Some(slot) => *slot = x,
            None => self.out.push(x),
        }
        self.o += 1;
    }

    /// Copy `s[i..j]` (whole characters) to the output; with `lower`, ASCII letters only, which
    /// setting bit 5 lower-cases.
    #[inline(always)]
    fn copy_with(&mut self, i: usize, j: usize, lower: bool) {
        let src = self.b.get(i..j).unwrap_or(&[]);
        let end = self.o + src.len();
        match self.out.get_mut(self.o..end) {
            Some(dst) if lower => {
                for (d, &x) in dst.iter_mut().zip(src) {
                    *d = x | 0x20;
                }
                self.o = end;
            }
            Some(dst) => {
                dst.copy_from_slice(src);
                self.o = end;
            }
            None => {
                for &x in src {
                    self.put(if lower { x | 0x20 } else { x });
                }
            }
        }
    }

    /// Copy the character of `len` bytes at `i`: four bytes are written where there is room
    /// (the cursor moves past the character's only), without a call for a short copy.
    #[inline(always)]
    fn copy_char(&mut self, i: usize, len: usize) {
        let o = self.o;
        match (
            self.b.get(i..).and_then(|r| r.first_chunk::<4>()),
            self.out.get_mut(o..).and_then(|r| r.first_chunk_mut::<4>()),
        ) {
            (Some(src), Some(dst)) => {
                *dst = *src;
                self.o = o + len;
            }
            _ => self.copy(i, i + len),
        }
    }

    #[inline(always)]
    fn copy(&mut self, i: usize, j: usize) {
        self.copy_with(i, j, false);
    }

    /// The word being read, `out[word..o]`.
    #[inline(always)]
    fn word(&self) -> &[u8] {
        self.out.get(self.word..self.o).unwrap_or(&[])
    }

    /// Where step 2's match that starts with the mark at `i` (after a fresh letter) ends.
    fn mark_end(&self, i: usize, k: K, len: usize) -> usize {
        // `\.?['’]s\b` first: an optional dot, an apostrophe, an `s` and a word boundary.
        let j = if k == K::Dot { i + 1 } else { i };
        if let Some((K::Apostrophe, a)) = self.at(j) {
            let s = j + a;
            if self.b.get(s).is_some_and(|&x| x | 0x20 == b's') {
                let after = s + 1;
                if self.boundary(after) || self.glue_at(after) {
                    return after;
                }
            }
        }
        // Else `['’.]`: the mark alone.
        i + len
    }

    /// Step 3: where `(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b` ends, matched from the digit just
    /// before the comma at `comma`, in the order a backtracking engine tries the groups.
    fn thousands_end(&self, comma: usize) -> Option<usize> {
        let e1 = self.group(comma)?;
        if let Some(e2) = self.group(e1) {
            if let Some(e3) = self.group(e2) {
                if self.boundary(e3) {
                    return Some(e3);
                }
            }
            if self.boundary(e2) {
                return Some(e2);
            }
        }
        self.boundary(e1).then_some(e1)
    }

    /// `,\d{3}` at `p`: where it ends.
    #[inline]
    fn group(&self, p: usize) -> Option<usize> {
        if self.b.get(p) != Some(&b',') {
            return None;
        }
        let mut q = p + 1;
        for _ in 0..3 {
            match self.at(q)? {
                (K::Digit, len) => q += len,
                _ => return None,
            }
        }
        Some(q)
    }

    /// End the word being read, if any (step 5).
    #[inline(always)]
    fn end_word(&mut self) {
        let word = self.word();
        let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
            return;
        };
        // Most words are none of the special ones, which a few bytes tell: an ordinal ends in
        // `st`, `nd`, `rd` or `th` after a digit (or a character that may be one); an article
        // or a number word has the shape of one; a glued year starts with `1` or `2`.
        let n = word.len();
        let ordinal = self.number_words
            && n >= 3
            && matches!(
                (word.get(n - 2), last),
                (Some(b's'), b't') | (Some(b'n' | b'r'), b'd') | (Some(b't'), b'h')
            )
            && word
                .get(n - 3)
                .is_some_and(|&d| d.is_ascii_digit() || d >= 0x80);
        let special = ordinal || may_be_listed(word) || (n > 4 && matches!(first, b'1' | b'2'));
        if special && !self.finish_special_word() {
            return;
        }
        self.put(b' ');
        self.word = self.o;
    }

    /// An ordinal suffix dropped, a number word read, an article taken back (then false), a
    /// glued year noted.
    #[cold]
    #[inline(never)]
    fn finish_special_word(&mut self) -> bool {
        let word = self.word();
        if self.number_words {
            // (\d)(?:st|nd|rd|th)$
            if let [.., x, y] = word {
                if matches!(
                    (x, y),
                    (b's', b't') | (b'n', b'd') | (b'r', b'd') | (b't', b'h')
                ) && last_is_digit(self.t, word.get(..word.len() - 2).unwrap_or(&[]))
                {
                    self.o -= 2;
                }
            }
        }
        let word = self.word();
        if may_be_listed(word) {
            if is_article(word) {
                self.o = self.word;
                return false;
            }
            if let Some(digits) = number_word(word).filter(|_| self.number_words) {
                self.o = self.word;
                for &d in digits.as_bytes() {
                    self.put(d);
                }
            }
        }
        let word = self.word();
        if word.len() > 4 && matches!(word.first(), Some(b'1' | b'2')) {
            self.seen.glued_year |= year_glue_bytes(word).is_some();
        }
        true
    }

    /// Read the run of ASCII letters at `i`, lower-cased; then, as long as the characters
    /// after a run are ASCII ones that are neither word characters nor marks (a space, most
    /// punctuation), end the word and read the next run: no rewrite acts there, and nothing is
    /// glued after them. Return where the reading stopped and what was read last; a word start
    /// with [`BLOCK_MIN`] bytes or more left is left to the caller, whose block scan reads the
    /// words after it for less than this byte scan does.
    ///
    /// A word that is one such run needs no ordinal nor year check (it has no digit), and most
    /// are no listed word either: those end here, with the cursors kept in registers.
    #[inline(always)]
    fn letter_runs(&mut self, mut i: usize) -> (usize, Prev) {
        let b = self.b;
        loop {
            let run_start = self.o;
            let src = b.get(i..).unwrap_or(&[]);
            let dst = self.out.get_mut(run_start..).unwrap_or(&mut []);
            let mut run = copy_letter_run(src, dst);
            if run == 0 {
                // No room left in `out` (it never happens: see `scan`).
                self.put(src.first().map_or(b' ', |x| x | 0x20));
                run = 1;
            } else {
                if UNGLUE {
                    run = (1..run).find(|&k| self.glue_at(i + k)).unwrap_or(run);
                }
                self.o += run;
            }
            i += run;
            if b.get(i).is_none_or(|&x| byte(x) != K::Other) {
                return (i, Prev::Letter { fresh: true });
            }
            let o = self.o;
            let plain =
                self.word == run_start && !self.out.get(run_start..o).is_some_and(may_be_listed);
            match self.out.get_mut(o) {
                Some(slot) if plain => {
                    *slot = b' ';
                    self.o = o + 1;
                    self.word = o + 1;
                }
                _ => self.end_word(),
            }
            i += 1;
            while b.get(i).is_some_and(|&x| byte(x) == K::Other) {
                i += 1;
            }
            if b.get(i).is_none_or(|&x| byte(x) != K::Letter) || b.len() - i >= BLOCK_MIN {
                return (i, Prev::Other);
            }
            i = self.short_words(i);
            if b.get(i).is_none_or(|&x| byte(x) != K::Letter) {
                return (i, Prev::Other);
            }
        }
    }

    /// From `i`, where a word starts with an ASCII letter, read every word of fewer than eight
    /// ASCII letters followed by a plain separator (as [`Scan::letter_runs`]), a comma, or a
    /// dot and a separator, and the separators after it: one load of eight bytes gives the word, lower-cased, its length and
    /// its first and last letters (with `UNGLUE`, a word that needs no space inside). Return
    /// where it stopped: at a word it does not take (at a
    /// letter), or after the separators that follow the last word taken.
    #[inline(always)]
    fn short_words(&mut self, mut i: usize) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let b = self.b;
        let mut o = self.o;
        while let Some(&chunk) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
            let x = u64::from_le_bytes(chunk);
            let y = (x & !HIGH) | (0x20 * ONES);
            let from_a = y.wrapping_add((0x80 - u64::from(b'a')) * ONES);
            let past_z = y.wrapping_add((0x80 - u64::from(b'z') - 1) * ONES);
            let letters = from_a & !past_z & !x & HIGH;
            let n = (!letters & HIGH).trailing_zeros() as usize / 8;
            // What ends the word: a plain separator or a comma (after a letter, a comma is
            // one), or a dot (a mark after a letter, which goes) and then one of those or a
            // second dot. `after` is where the separators start or go on.
            let after = match b.get(i + n) {
                _ if n == 8 => break,
                Some(&c) if byte(c) == K::Other || c == b',' => i + n + 1,
                Some(&b'.')
                    if b.get(i + n + 1)
                        .is_some_and(|&c| matches!(byte(c), K::Other | K::Comma | K::Dot)) =>
                {
                    i + n + 2
                }
                _ => break,
            };
            // With `UNGLUE`, a word with an upper-case letter after a lower-case one (bit 5,
            // moved to bit 7, tells them apart) is left to `letter_runs`, which puts the space;
            // its first letter follows a separator, so none goes before it.
            if UNGLUE {
                let lower = letters & (x << 2);
                let upper = letters & !(x << 2);
                if (lower << 8) & upper & ((1u64 << (8 * n)) - 1) != 0 {
                    break;
                }
            }
            let Some(dst) = self.out.get_mut(o..).and_then(|r| r.first_chunk_mut::<8>()) else {
                break;
            };
            *dst = y.to_le_bytes();
            // `n` is 1..=7: the first and last letters are bytes of `y`.
            let (first, last) = (y as u8, (y >> (8 * (n - 1))) as u8);
            let listed = may_be_listed_shape(n, first, last)
                && (n < 2 || may_be_inner_listed(n, (y >> 8) as u8, (y >> (8 * (n - 2))) as u8));
            if listed && dst.get(..n).is_some_and(is_article) {
                // An article goes: the output stays where it was.
            } else if listed {
                // A word of letters: no ordinal nor glued year, so a number word's digits, or
                // the word itself, and a space (as `end_word` writes).
                let len =
                    match number_word(dst.get(..n).unwrap_or(&[])).filter(|_| self.number_words) {
                        Some(digits) => {
                            let digits = digits.as_bytes();
                            if let Some(head) = dst.get_mut(..digits.len()) {
                                head.copy_from_slice(digits);
                            }
                            digits.len()
                        }
                        None => n,
                    };
                match dst.get_mut(len) {
                    Some(slot) => *slot = b' ',
                    None => break,
                }
                o += len + 1;
                self.o = o;
                self.word = o;
            } else {
                match dst.get_mut(n) {
                    Some(slot) => *slot = b' ',
                    None => break,
                }
                o += n + 1;
                self.o = o;
                self.word = o;
            }
            // After a separator, a comma, a dot or an apostrophe is one too (no rewrite starts
            // on it when no letter or digit comes before it).
            i = after;
            while b
                .get(i)
                .is_some_and(|&x| matches!(byte(x), K::Other | K::Comma | K::Dot | K::Apostrophe))
            {
                i += 1;
            }
            if b.get(i).is_none_or(|&x| byte(x) != K::Letter) {
                break;
            }
        }
        i
    }

    /// From `i`, after a character that is no word character and with no word open (what the
    /// scan calls [`Prev::Other`]), take every word of ASCII letters or of ASCII digits that
    /// nothing acts on, 64 bytes at a time: one classification of the block gives the words'
    /// starts and ends, and each is written lower-cased with one 16-byte store (more for a long
    /// word) and a space. Return where it stopped, again after a character that is no word
    /// character (or at the end): at the start of a word it does not take, or at a `_` or a
    /// non-ASCII byte.
    ///
    /// A word may hold `_` (written as it is) and a dot between two digits (written as `_`),
    /// unless another such dot is two bytes away.
    ///
    /// It does not take a word that mixes letters and digits or holds any other character; a
    /// word of letters followed by an apostrophe, or by a dot that no other dot, comma or
    /// plain separator follows (a dot before one of those goes and the word ends as a plain
    /// separator ends it); a word of digits followed by a comma or a dot and then a word
    /// character, or by a comma or a dot the block does not see past; a word that does not end
    /// inside the block; nor, with `UNGLUE`, a word with an upper-case letter after a
    /// lower-case one. Between the words it takes are only separators, and marks and commas
    /// after a separator or a number, which end no word and start no rewrite.
    #[inline(never)]
    fn block_words(&mut self, i: usize) -> usize {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            if crate::cpu::has_avx512bw() && crate::cpu::has_bmi1() && tests_allow(Widest::Avx512) {
                // SAFETY: the processor has AVX-512 BW and BMI1, all the function needs.
                return unsafe { self.block_words_avx512(i) };
            }
            if crate::cpu::has_avx2() && crate::cpu::has_bmi1() && tests_allow(Widest::Avx2) {
                // SAFETY: the processor has AVX2 and BMI1, all the function needs.
                return unsafe { self.block_words_avx2(i) };
            }
        }
        self.block_words_by(i, block::classify::<UNGLUE>)
    }

    /// [`Scan::block_words`] compiled for AVX-512 BW and BMI1: the block is classified in one
    /// register (`block::avx512::classify`), each class a mask straight out of one compare,
    /// where the AVX2 version needs two compares, two moves to a general register, a shift and
    /// an or.
    ///
    /// # Safety
    /// The processor must have AVX-512 BW and BMI1.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[target_feature(enable = "avx512bw,bmi1")]
    unsafe fn block_words_avx512(&mut self, i: usize) -> usize {
        self.block_words_by(i, |head, lowered| {
            block::avx512::classify::<UNGLUE>(head, lowered)
        })
    }

    /// [`Scan::block_words`] compiled for AVX2 and BMI1, so that the block's classification
    /// (`block::avx2::classify`) is inlined into the loop and its classes stay in registers.
    ///
    /// # Safety
    /// The processor must have AVX2 and BMI1.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[target_feature(enable = "avx2,bmi1")]
    unsafe fn block_words_avx2(&mut self, i: usize) -> usize {
        self.block_words_by(i, |head, lowered| {
            // SAFETY: the processor has AVX2 (this function's contract).
            unsafe { block::avx2::classify::<UNGLUE>(head, lowered) }
        })
    }

    /// Of the non-ASCII characters whose bytes are `high` in the block from `i`, the bytes of
    /// the letters (copied to `written` as they are) and of those and the characters that are
    /// not word characters. A character that ends past the block is neither (the block stops
    /// there), nor is a digit nor `’`, which rewrites read.
    #[inline(never)]
    fn high_classes(&self, i: usize, high: u64, written: &mut [u8; 80]) -> (u64, u64) {
        let (mut letters, mut soft) = (0u64, 0u64);
        let mut rest = high;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            let Some(c) = self.s.get(i + k..).and_then(|r| r.chars().next()) else {
                break;
            };
            let n = c.len_utf8();
            if k + n > 64 {
                break;
            }
            let bits = ((1u64 << n) - 1) << k;
            rest &= !bits;
            match char_class(self.t, c) {
                K::Letter => {
                    letters |= bits;
                    soft |= bits;
                    if let (Some(to), Some(from)) =
                        (written.get_mut(k..k + n), self.b.get(i + k..i + k + n))
                    {
                        to.copy_from_slice(from);
                    }
                }
                K::Other => soft |= bits,
                _ => {}
            }
        }
        (letters, soft)
    }

    /// [`Scan::block_words`] with `classify` giving a block's classes and its words' bytes.
    #[inline(always)]
    fn block_words_by(
        &mut self,
        mut i: usize,
        classify: impl Fn(&[u8; 64], &mut [u8; 64]) -> block::Classes,
    ) -> usize {
        let b = self.b;
        let mut o = self.o;
        let mut padded: [u8; 80];
        // The block as its words are written (see `block::classify`), and 16 bytes after it
        // that no taken word reaches: a word's 16-byte load from any start stays inside.
        let mut written = [0u8; 80];
        loop {
            let rest = b.get(i..).unwrap_or(&[]);
            if rest.len() < BLOCK_MIN {
                // A short text or the end of one: the byte scan is cheaper than a block.
                break;
            }
            // The block and 16 bytes after it (spaces past the text's end, which end words as
            // its end does): a word's 16-byte load from any start in the block stays inside.
            let src: &[u8; 80] = match rest.first_chunk::<80>() {
                Some(chunk) => chunk,
                None => {
                    padded = [b' '; 80];
                    for (to, &from) in padded.iter_mut().zip(rest) {
                        *to = from;
                    }
                    &padded
                }
            };
            let (Some(head), Some(lowered)) =
                (src.first_chunk::<64>(), written.first_chunk_mut::<64>())
            else {
                break;
            };
            let c = classify(head, lowered);
            let (mut letters, digits) = (c.letter, c.digit);
            // The bytes of non-ASCII characters the block may take: letters (as letters, their
            // bytes as they are) and characters that are not word characters (as separators).
            // A text that is not ASCII was lowered first, and is never scanned `UNGLUE`.
            let mut soft = 0;
            let high = c.word & !c.underscore;
            if !UNGLUE && high != 0 {
                let (l, k) = self.high_classes(i, high, &mut written);
                letters |= l;
                soft = k;
            }
            let after_letter = letters << 1;
            let after_digit = digits << 1;
            // The separators a dot that goes may be followed by: all but the word characters
            // and the apostrophe. A word character after a number's comma or dot (or what
            // follows the block) may continue the number.
            let plain = !(letters | digits | c.word | c.apostrophe);
            let word_next = ((digits | c.word) >> 1) | (1 << 63);
            // A decimal point between two digits joins them (`3.5` → `3_5`), unless another
            // such dot stands two bytes away (`1.2.3`: the byte scan reads those).
            let decimal = c.dot & after_digit & (digits >> 1);
            let joined = decimal & !(decimal << 2) & !(decimal >> 2);
            // `_` is a byte of a word that nothing rewrites (it ends no word, and stands
            // between a letter and a digit, which it keeps apart).
            let mut hard = (high & !soft)
                | (letters & after_digit)
                | (digits & after_letter)
                | (c.apostrophe & after_letter)
                | (c.dot & after_letter & !(plain >> 1))
                | (((c.dot & !joined) | c.comma) & after_digit & word_next);
            if UNGLUE {
                hard |= c.upper & ((letters & !c.upper) << 1);
            }
            // 64 when the block has none.
            let h = hard.trailing_zeros() as usize;
            let runs = letters | digits | c.underscore | joined;
            // A joining dot is written as `_` (an underscore already is).
            let mut fix = joined;
            while fix != 0 {
                written[fix.trailing_zeros() as usize & 63] = b'_';
                fix &= fix - 1;
            }
            let mut words = BlockWords {
                starts: runs & !(runs << 1),
                // A word's last byte (one in the block's last byte counts, and the word is
                // then not taken: its end is not known).
                lasts: runs & !(runs >> 1),
                h,
                letters,
                number_words: self.number_words,
            };
            // Where the next block starts: the first word not taken, or the first hard byte.
            let stop = loop {
                // `scan` leaves room for this window after any word's end.
                let Some(out) = self
                    .out
                    .get_mut(o..)
                    .and_then(|r| r.first_chunk_mut::<144>())
                else {
                    break 0;
                };
                match words.write_plain(out, &written, 0) {
                    (to, Taken::All) => {
                        o += to;
                        break h;
                    }
                    (to, Taken::Until(s)) => {
                        o += to;
                        break s;
                    }
                    (to, Taken::Other { s, n }) => {
                        if n >= 16 {
                            copy_rest(out, &written, s, to, n);
                        }
                        let word = written.get(s..s + n).unwrap_or(&[]);
                        let (Some(&first), Some(&last)) = (word.first(), word.last()) else {
                            break 0;
                        };
                        if !may_be_listed_letters(n, first, last) {
                            // A long word that is none.
                            o += to + n + 1;
                        } else {
                            // A number word or a number that may be a glued year, written at
                            // `to`: the word's end as the scan's.
                            self.o = o + to + n;
                            self.word = o + to;
                            self.end_word();
                            o = self.o;
                        }
                    }
                }
            };
            self.o = o;
            self.word = o;
            let stop = stop.min(rest.len());
            i += stop;
            if stop == 0 || h < 64 {
                // No progress (a word of 64 bytes or more), or a byte the scan must read.
                break;
            }
        }
        i
    }

    /// Normalise; return what was seen, the buffer and the length of the result in it.
    fn run(mut self) -> (Seen, Vec<u8>, usize) {
        self.o = 0;
        self.put(b' ');
        self.word = self.o;
        let mut prev = Prev::Other;
        let mut i = 0;
        while let Some((k, len)) = self.at(i) {
            match k {
                K::Letter => {
                    // (Below `BLOCK_MIN` bytes left, `block_words` would give `i` back: a short
                    // text does not even call it.)
                    if len == 1
                        && prev == Prev::Other
                        && self.word == self.o
                        && self.b.len().saturating_sub(i) >= BLOCK_MIN
                    {
                        i = self.block_words(i);
                        if self.b.get(i).is_none_or(|&x| byte(x) != K::Letter) {
                            continue;
                        }
                    }
                    if self.glue_at(i) {
                        self.end_word();
                    }
                    if len != 1 {
                        self.copy_char(i, len);
                        i += len;
                        prev = Prev::Letter { fresh: true };
                        continue;
                    }
                    let (next, after) = self.letter_runs(i);
                    i = next;
                    prev = after;
                }
                K::Digit => {
                    // Step 4: a letter before a digit is split off.
                    if matches!(prev, Prev::Letter { .. }) {
                        self.end_word();
                    }
                    // With the ASCII digits after it: no rewrite acts inside a run of digits.
                    let mut end = i + len;
                    while self.b.get(end).is_some_and(u8::is_ascii_digit) {
                        end += 1;
                    }
                    self.copy(i, end);
                    i = end;
                    prev = Prev::Digit {
                        comma: true,
                        dot: true,
                    };
                }
                K::Underscore => {
                    self.put(b'_');
                    i += 1;
                    prev = Prev::Other;
                }
                K::Dot | K::Apostrophe => {
                    if prev == (Prev::Letter { fresh: true }) {
                        // Step 2: the mark (or a possessive) goes; the letter stays the last
                        // character written.
                        i = self.mark_end(i, k, len);
                        prev = Prev::Letter { fresh: false };
                        continue;
                    }
                    if k == K::Dot && matches!(prev, Prev::Digit { dot: true, .. }) {
                        if let Some((K::Digit, d)) = self.at(i + 1) {
                            // Step 4: `(\d)\.(\d)` → `\1_\2`.
                            self.put(b'_');
                            self.copy(i + 1, i + 1 + d);
                            i += 1 + d;
                            prev = Prev::Digit {
                                comma: true,
                                dot: false,
                            };
                            continue;
                        }
                    }
                    self.end_word();
                    i += len;
                    prev = Prev::Other;
                }
                K::Comma => {
                    if matches!(prev, Prev::Digit { comma: true, .. }) {
                        if let Some(end) = self.thousands_end(i) {
                            // Step 3: the groups' digits, without their commas.
                            let mut p = i;
                            while p < end {
                                let from = p + 1;
                                p = self
                                    .b
                                    .get(from..end)
                                    .and_then(|r| memchr::memchr(b',', r))
                                    .map_or(end, |k| from + k);
                                self.copy(from, p);
                            }
                            i = end;
                            prev = Prev::Digit {
                                comma: false,
                                dot: true,
                            };
                            continue;
                        }
                    }
                    self.end_word();
                    i += 1;
                    prev = Prev::Other;
                }
                K::Other | K::Multi => {
                    self.end_word();
                    i += len;
                    // The rest of an ASCII run of such characters.
                    while self.b.get(i).is_some_and(|&x| byte(x) == K::Other) {
                        i += 1;
                    }
                    prev = Prev::Other;
                }
            }
        }
        self.end_word();
        let o = self.o;
        (self.seen, self.out, o)
    }
}

/// The widest block scan the tests let [`Scan::block_words`] run (the processor may not have
/// it either): the tests run each one on a processor that has them all.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable"))),
    allow(dead_code)
)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Widest {
    /// Only the tests ask for it.
    #[cfg_attr(not(test), allow(dead_code))]
    Portable,
    Avx2,
    Avx512,
}

#[cfg(test)]
thread_local! {
    /// Set by the tests to run a narrower block scan than the processor has.
    static WIDEST: std::cell::Cell<Widest> = const { std::cell::Cell::new(Widest::Avx512) };
}

/// Whether the tests let the block scan run the `level` version (see `WIDEST`).
#[cfg(test)]
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable"))),
    allow(dead_code)
)]
fn tests_allow(level: Widest) -> bool {
    WIDEST.with(std::cell::Cell::get) >= level
}

#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable"))),
    allow(dead_code)
)]
#[cfg(not(test))]
#[inline(always)]
fn tests_allow(_: Widest) -> bool {
    true
}

/// Below this many bytes left, [`Scan::block_words`] leaves the words to the byte scan (its
/// classification of 64 bytes costs more than the byte scan of a few short words).
const BLOCK_MIN: usize = 32;

/// The words of a 64-byte block that [`Scan::block_words`] has yet to write: their first and
/// last bytes, one bit each, and the first byte it may not read past.
struct BlockWords {
    starts: u64,
    lasts: u64,
    h: usize,
    /// The block's letters (ASCII or not).
    letters: u64,
    /// Whether number words are read as their digits.
    number_words: bool,
}

/// How far [`BlockWords::write_plain`] went.
enum Taken {
    /// Every word before the first hard byte.
    All,
    /// Up to the word that starts at this byte of the block, which it did not take.
    Until(usize),
    /// Up to the word of `n` bytes at `s`, which it took from the block and wrote the first
    /// 16 bytes of, but did not end: one of 16 bytes or more, or one that is not all letters
    /// and may be a glued year (or has the shape of a listed word).
    Other { s: usize, n: usize },
}

impl BlockWords {
    /// Write the block's words from `src` (the block as its words are written, every byte
    /// after a word a space) to `out` at `o`, each with the space after it, until one it cannot
    /// write, or one it leaves to the caller (see [`Taken::Other`]). Return where the output
    /// ends and how far it went.
    ///
    /// The words of a block and their spaces take at most 96 bytes, and each is written with
    /// one 16-byte copy, so every copy falls inside `out`: the indices are masked to say so,
    /// which spares the bounds checks. Every exit but the loop's own is out of the loop, so
    /// that its few values stay in registers.
    #[inline(always)]
    fn write_plain(&mut self, out: &mut [u8; 144], src: &[u8; 80], mut o: usize) -> (usize, Taken) {
        while self.starts != 0 {
            let s = self.starts.trailing_zeros() as usize & 63;
            // As many words start as end: `lasts` is not zero either.
            let last = self.lasts.trailing_zeros() as usize & 63;
            if last + 1 >= self.h {
                return (o, Taken::Until(s.min(self.h)));
            }
            let n = last + 1 - s;
            // The word and the space after it.
            if let (Some(to), Some(from)) = (
                out.get_mut(o & 127..)
                    .and_then(|r| r.first_chunk_mut::<16>()),
                src.get(s..).and_then(|r| r.first_chunk::<16>()),
            ) {
                *to = *from;
            }
            self.starts &= self.starts - 1;
            self.lasts &= self.lasts - 1;
            // A long word, or one that may be listed or a glued year: a long one, or one that is
            // not all letters, is the caller's. A word that starts with a letter (ASCII or not)
            // is no glued year, and most that have the first and last letters of a listed word
            // have not its inner ones.
            let (first, second, penultimate) = (src[s], src[(s + 1) & 63], src[(last + 63) & 63]);
            if n >= 16
                || (may_be_listed_letters(n, first, src[last])
                    && (n < 2 || first < b'a' || may_be_inner_listed(n, second, penultimate)))
            {
                let all = (1u64 << (n & 15)) - 1;
                if n >= 16 || (self.letters >> s) & all != all {
                    return (o, Taken::Other { s, n });
                }
                // A word of letters: no ordinal nor glued year, so it is ended here (as
                // `end_word` would), where a return to the caller and a new start of this
                // loop cost more than the word: an article goes, a number word's digits and
                // a space replace it (never more bytes than the word: at most three digits,
                // for a word of three letters or more), any other word stays as written.
                let word = src.get(s..s + n).unwrap_or(&[]);
                if is_article(word) {
                    continue;
                }
                if let Some(digits) = number_word(word).filter(|_| self.number_words) {
                    let digits = digits.as_bytes();
                    let at = o & 127;
                    if let Some(slot) = out.get_mut(at..at + digits.len() + 1) {
                        if let Some((space, head)) = slot.split_last_mut() {
                            head.copy_from_slice(digits);
                            *space = b' ';
                        }
                    }
                    o += digits.len() + 1;
                    continue;
                }
            }
            o += n + 1;
        }
        (o, Taken::All)
    }
}

/// The bytes of a word of `n` bytes (16 or more) and the space after it from `src` at `s` to
/// `out` at `o` after their first 16, 16 at a time.
#[cold]
#[inline(never)]
fn copy_rest(out: &mut [u8; 144], src: &[u8; 80], s: usize, o: usize, n: usize) {
    let mut k = 16;
    while k <= n {
        store16_at(out, (o + k) & 127, load16_at(src, (s + k) & 63));
        k += 16;
    }
}

/// The 16 bytes of `src` from `at` (at most 64) as a little-endian number.
#[inline(always)]
fn load16_at(src: &[u8; 80], at: usize) -> u128 {
    let at = at.min(64);
    let mut word = [0u8; 16];
    word.copy_from_slice(&src[at..at + 16]);
    u128::from_le_bytes(word)
}

/// Store `x` little-endian at `at` (at most 128) of `out`.
#[inline(always)]
fn store16_at(out: &mut [u8; 144], at: usize, x: u128) {
    let at = at.min(128);
    out[at..at + 16].copy_from_slice(&x.to_le_bytes());
}

/// Reusable buffers of the normalisation.
#[derive(Default)]
pub struct Normalizer {
    /// `L` of a text that is not ASCII: `lowered[..lowered_len]` (the rest is slack for the
    /// eight-byte writes; its bytes are only read once written).
    lowered: Vec<u8>,
    lowered_len: usize,
    /// The folded text, when it must be lower-cased whole (a capital sigma).
    folded: String,
    /// `L` of such a text, or of one character not in the cache.
    whole: String,
    /// The scan's output buffer.
    buf: Vec<u8>,
    /// `L` of each non-ASCII character met so far.
    chars: CharCache,
}

/// The folding and lower-casing of each non-ASCII character, worked out the first time it is
/// met (with the tables it was worked out with), as the UTF-8 bytes to write: a character then
/// costs one load and one eight-byte store.
///
/// An entry is a `u64`: its low byte holds [`FILLED`], [`SIGMA`] (the folding holds a capital
/// sigma) and the length of `L` (at most seven bytes; a longer one is never kept), and the
/// seven bytes above it `L`'s bytes, the first lowest. The entries of the two-byte characters
/// (most of the non-ASCII letters met: Latin, Greek, Cyrillic, Arabic) are in one table indexed
/// by the code point, which [`Normalizer::lower_folded`] reads straight from the two bytes;
/// the others are in pages of 256 code points, allocated when a character of the page is
/// first met.
#[derive(Default)]
struct CharCache {
    /// The tables the entries hold for (their addresses; the fold table's or 0 for none).
    tables: (usize, usize),
    /// The entries of the code points below [`TWO_BYTE_END`] (those below 0x80 unused).
    two: Vec<u64>,
    pages: Vec<Option<Box<[u64; 256]>>>,
}

const FILLED: u64 = 0x80;
const SIGMA: u64 = 0x40;
const LEN: u64 = 0x0f;
const PAGES: usize = (char::MAX as usize >> 8) + 1;
/// The first code point of three UTF-8 bytes.
const TWO_BYTE_END: usize = 0x800;

impl CharCache {
    /// Empty the entries when they were filled for other tables.
    fn use_tables(&mut self, t: &Tables, fold: Option<&FoldTable>) {
        let tables = (
            std::ptr::from_ref(t) as usize,
            fold.map_or(0, |f| std::ptr::from_ref(f) as usize),
        );
        if self.tables != tables || self.pages.len() != PAGES {
            self.tables = tables;
            self.two.clear();
            self.two.resize(TWO_BYTE_END, 0);
            self.pages.clear();
            self.pages.resize_with(PAGES, || None);
        }
    }

    /// The slot of `c`, its page allocated if it was not yet.
    #[inline(always)]
    fn slot(&mut self, c: char) -> Option<&mut u64> {
        if (c as usize) < TWO_BYTE_END {
            return self.two.get_mut(c as usize);
        }
        let page = self.pages.get_mut(c as usize >> 8)?;
        page.get_or_insert_with(|| Box::new([0; 256]))
            .get_mut(c as usize & 0xff)
    }
}

/// The entry of a character whose `L` is `lowered` (`None` when it is over seven bytes).
fn entry(lowered: &str, sigma: bool) -> Option<u64> {
    let bytes = lowered.as_bytes();
    if bytes.len() > 7 {
        return None;
    }
    let mut e = FILLED | if sigma { SIGMA } else { 0 } | bytes.len() as u64;
    for (k, &b) in bytes.iter().enumerate() {
        e |= u64::from(b) << (8 * (k + 1));
    }
    Some(e)
}

/// `L` of one non-ASCII character into `out` (cleared first); whether its folding holds a
/// capital sigma.
fn lower_folded_char(t: &Tables, fold: Option<&FoldTable>, c: char, out: &mut String) -> bool {
    out.clear();
    let mut sigma = false;
    if let Some(folded) = fold.and_then(|f| f.get(c)) {
        for f in folded.chars() {
            sigma |= f == '\u{03A3}';
            t.lower_char_each(f, |x| out.push(x));
        }
    } else {
        sigma = c == '\u{03A3}';
        t.lower_char_each(c, |x| out.push(x));
    }
    sigma
}

/// `L` of the run of two-byte characters at `i` of `bytes` (UTF-8) into `out` at `o`, as far
/// as their entries in `two` ([`CharCache::two`]) are filled: each read by the code point its
/// two bytes spell (the second is a continuation byte), with no decoding and no page, and
/// written as one eight-byte store (`out` has room for them: 3.5 bytes a text byte, and 8).
/// Return where the run stopped in `bytes` and in `out`, and the entries' bits or-ed.
#[inline(always)]
fn two_byte_run(
    two: &[u64; TWO_BYTE_END],
    bytes: &[u8],
    mut i: usize,
    out: &mut [u8],
    mut o: usize,
) -> (usize, usize, u64) {
    let mut flags = 0;
    while i + 1 < bytes.len() && o + 8 <= out.len() {
        // SAFETY: `i + 1` is below `bytes.len()`, and `o + 8` is at most `out.len()` (the loop's
        // test), which the safe indexing's checks would test again in this hot loop.
        let (b0, b1) = unsafe { (*bytes.get_unchecked(i), *bytes.get_unchecked(i + 1)) };
        if b0 & 0xe0 != 0xc0 {
            break;
        }
        // Eleven bits: below TWO_BYTE_END.
        let e = two[usize::from(b0 & 0x1f) << 6 | usize::from(b1 & 0x3f)];
        if e & FILLED == 0 {
            break;
        }
        flags |= e;
        // SAFETY: as above, `out[o..o + 8]` is in `out`; the write need not be aligned.
        unsafe {
            out.as_mut_ptr()
                .add(o)
                .cast::<u64>()
                .write_unaligned((e >> 8).to_le());
        }
        o += (e & LEN) as usize;
        i += 2;
    }
    (i, o, flags)
}

/// Whether `bytes` are all ASCII: `str::is_ascii`, but with one or two eight-byte words for a
/// text of 16 bytes or less and overlapping ones up to 64, where the standard library reads a
/// short text's tail a byte at a time (most texts normalised are short: references, the
/// rules' items).
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    if n <= 16 {
        let (a, b) = crate::ascii::covering_words(bytes);
        return (a | b) & HIGH == 0;
    }
    if n >= 64 {
        return bytes.is_ascii();
    }
    let mut any = crate::ascii::load(bytes, n - 8);
    for eight in bytes.chunks_exact(8) {
        any |= crate::ascii::load(eight, 0);
    }
    any & HIGH == 0
}

/// How many of the 32 bytes of `chunk` are ASCII before the first that is not (32 if all are).
#[inline(always)]
fn ascii_len32(chunk: &[u8; 32]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    let high = {
        use std::arch::x86_64::_mm_loadu_si128;
        let (lo, hi) = chunk.split_at(16);
        // SAFETY: SSE2 is enabled for the build (the `cfg`), and each half holds 16 bytes,
        // which an unaligned load reads.
        let (lo, hi) = unsafe {
            (
                _mm_loadu_si128(lo.as_ptr().cast()),
                _mm_loadu_si128(hi.as_ptr().cast()),
            )
        };
        crate::ascii::sse2::bits(lo) | crate::ascii::sse2::bits(hi) << 16
    };
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    let high = chunk
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |high, (k, eight)| {
            high | crate::ascii::gather_high_bits(crate::ascii::load(eight, 0)) << (8 * k)
        });
    (high | 1 << 32).trailing_zeros() as usize
}

/// The character at `i` of `text` (a character boundary, a byte of 0x80 or more) and its
/// length, decoded from four bytes without a branch on its length (the bytes past it, zeros
/// past the text's end, are shifted out), which a text that mixes scripts would mispredict.
#[inline(always)]
fn char_at(text: &str, i: usize) -> Option<(char, usize)> {
    let rest = text.as_bytes().get(i..)?;
    let four = match rest.first_chunk::<4>() {
        Some(&four) => four,
        None => {
            let mut four = [0u8; 4];
            for (to, &from) in four.iter_mut().zip(rest) {
                *to = from;
            }
            four
        }
    };
    let x = u32::from_be_bytes(four);
    // A leading byte of 0xC0 or more: its leading ones count the character's bytes.
    let n = (!x).leading_zeros();
    if (2..=4).contains(&n) {
        let lead = (x >> 24) & (0x7f >> n);
        let full = lead << 18 | (x >> 4) & 0x3f000 | (x >> 2) & 0xfc0 | x & 0x3f;
        if let Some(c) = char::from_u32(full >> (6 * (4 - n))) {
            return Some((c, n as usize));
        }
    }
    let c = text.get(i..)?.chars().next()?;
    Some((c, c.len_utf8()))
}

/// Room for `n` more bytes at `o` in `buf`.
#[inline(always)]
fn room(buf: &mut Vec<u8>, o: usize, n: usize) {
    if buf.len() < o + n {
        let size = (2 * buf.len()).max(o + n + 64);
        buf.resize(size, 0);
    }
}

/// Whether each of the first `k` bytes of `x` (ASCII) is upper-case after a lower-case one (the
/// byte before the first is lower-case if `prev_lower`): the high bit of each such byte.
#[inline(always)]
fn glue_mask(x: u64, k: usize, prev_lower: bool) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let y = x & !HIGH;
    let in_range = |lo: u8, hi: u8| {
        let from = y.wrapping_add((0x80 - u64::from(lo)) * ONES);
        let past = y.wrapping_add((0x80 - u64::from(hi) - 1) * ONES);
        from & !past & !x & HIGH
    };
    let upper = in_range(b'A', b'Z');
    let lower = in_range(b'a', b'z');
    let first = if k >= 8 {
        HIGH
    } else {
        HIGH & ((1u64 << (8 * k)) - 1)
    };
    upper & ((lower << 8) | (u64::from(prev_lower) << 7)) & first
}

impl Normalizer {
    /// Write the answer-match normalisation of `text` into `out` (cleared first): the words
    /// separated by one space, with one space on each side (`" "` when there is no word).
    ///
    /// `fold` is the accent-folding table, or `None` for no folding.
    pub fn normalize_into(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        text: &str,
        out: &mut String,
    ) -> Seen {
        self.normalize(t, fold, number_words, false, text, out)
    }

    /// [`Normalizer::normalize_into`] of `text` with a space between each lower-case ASCII
    /// letter and an upper-case one that follows (`answer_rules::unglue_into`), in the same pass.
    pub fn normalize_unglued_into(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        text: &str,
        out: &mut String,
    ) -> Seen {
        self.normalize(t, fold, number_words, true, text, out)
    }

    fn normalize(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        unglue: bool,
        text: &str,
        out: &mut String,
    ) -> Seen {
        if is_ascii(text.as_bytes()) {
            return if unglue {
                scan::<true>(t, text, number_words, &mut self.buf, out)
            } else {
                scan::<false>(t, text, number_words, &mut self.buf, out)
            };
        }
        self.normalize_folded(t, fold, number_words, unglue, text, out)
    }

    /// [`Normalizer::normalize`] of a text that is not ASCII: apart, so that the call of an
    /// ASCII text (most texts, most of them short) does not set up this path's frame.
    #[inline(never)]
    fn normalize_folded(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        unglue: bool,
        text: &str,
        out: &mut String,
    ) -> Seen {
        let mut buf = std::mem::take(&mut self.buf);
        let seen = scan::<false>(
            t,
            self.lower_folded(t, fold, unglue, text),
            number_words,
            &mut buf,
            out,
        );
        self.buf = buf;
        seen
    }

    /// `L` of `text` (not ASCII) into `self.lowered`: each character folded, then lower-cased,
    /// with a space inserted where `unglue` asks; but ASCII letters are left as they are, since
    /// the scan lower-cases them as it reads them (as it does those of an ASCII text). Return
    /// `L`, which is `self.lowered[..self.lowered_len]`.
    fn lower_folded(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        unglue: bool,
        text: &str,
    ) -> &str {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        self.chars.use_tables(t, fold);
        let l = &mut self.lowered;
        let bytes = text.as_bytes();
        let mut o = 0;
        let mut i = 0;
        let mut sigma = false;
        while let Some(&b) = bytes.get(i) {
            if b < 0x80 {
                if !unglue {
                    if let Some(src) = bytes.get(i..).and_then(|r| r.first_chunk::<32>()) {
                        // ASCII, 32 bytes at a time: all 32 are written, the cursors move past
                        // the ASCII ones only. Most runs between two non-ASCII characters
                        // take one step (and one mispredicted exit).
                        room(l, o, 32);
                        if let Some(dst) = l.get_mut(o..).and_then(|r| r.first_chunk_mut::<32>()) {
                            *dst = *src;
                        }
                        let k = ascii_len32(src);
                        o += k;
                        i += k;
                        continue;
                    }
                }
                // ASCII, eight bytes at a time: all eight are written, the cursor moves past
                // the ASCII ones only.
                room(l, o, 9);
                if let (Some(src), Some(dst)) = (
                    bytes.get(i..).and_then(|r| r.first_chunk::<8>()),
                    l.get_mut(o..).and_then(|r| r.first_chunk_mut::<8>()),
                ) {
                    let x = u64::from_le_bytes(*src);
                    let high = x & HIGH;
                    let mut k = if high == 0 {
                        8
                    } else {
                        high.trailing_zeros() as usize / 8
                    };
                    *dst = *src;
                    if unglue {
                        // A space goes before an upper-case letter after a lower-case one of
                        // the same ASCII run: copy up to the first, then the space.
                        let prev = i > 0 && bytes.get(i - 1).is_some_and(u8::is_ascii_lowercase);
                        let glue = glue_mask(x, k, prev);
                        if glue != 0 {
                            k = glue.trailing_zeros() as usize / 8;
                            if let Some(d) = l.get_mut(o + k) {
                                *d = b' ';
                            }
                            if let (Some(d), Some(&s)) = (l.get_mut(o + k + 1), bytes.get(i + k)) {
                                *d = s;
                            }
                            o += k + 2;
                            i += k + 1;
                            continue;
                        }
                    }
                    o += k;
                    i += k;
                } else {
                    // The last bytes of the text, one at a time.
                    if unglue
                        && b.is_ascii_uppercase()
                        && i > 0
                        && bytes.get(i - 1).is_some_and(u8::is_ascii_lowercase)
                    {
                        if let Some(d) = l.get_mut(o) {
                            *d = b' ';
                        }
                        o += 1;
                    }
                    if let Some(d) = l.get_mut(o) {
                        *d = b;
                    }
                    o += 1;
                    i += 1;
                }
                continue;
            }
            if b & 0xe0 == 0xc0 {
                // `L` of a run of two-byte characters is at most seven bytes a character, and
                // the last one's eight-byte write one more.
                room(l, o, 4 * (bytes.len() - i) + 8);
                if let Ok(two) = <&[u64; TWO_BYTE_END]>::try_from(self.chars.two.as_slice()) {
                    let (to, written, flags) = two_byte_run(two, bytes, i, l, o);
                    sigma |= flags & SIGMA != 0;
                    if to != i {
                        (i, o) = (to, written);
                        continue;
                    }
                }
            }
            let Some((c, n)) = char_at(text, i) else {
                break;
            };
            i += n;
            // A space goes between ASCII letters only, so a character after a non-ASCII one
            // never gets one.
            let slot = self.chars.slot(c);
            let e = slot.as_deref().copied().unwrap_or(0);
            if e & FILLED != 0 {
                // Worked out before: its bytes again.
                sigma |= e & SIGMA != 0;
                room(l, o, 8);
                if let Some(dst) = l.get_mut(o..).and_then(|r| r.first_chunk_mut::<8>()) {
                    *dst = (e >> 8).to_le_bytes();
                }
                o += (e & LEN) as usize;
                continue;
            }
            let has_sigma = lower_folded_char(t, fold, c, &mut self.whole);
            sigma |= has_sigma;
            let one = self.whole.as_bytes();
            room(l, o, one.len());
            if let Some(dst) = l.get_mut(o..o + one.len()) {
                dst.copy_from_slice(one);
            }
            o += one.len();
            if let (Some(slot), Some(e)) = (slot, entry(&self.whole, has_sigma)) {
                *slot = e;
            }
        }
        if sigma {
            // A capital sigma lower-cases by its context: fold first, then `str.lower()` whole.
            // (The spaces of `unglue` stand between two cased letters, so they change no
            // sigma's context.)
            let f = &mut self.folded;
            f.clear();
            let mut prev_lower = false;
            for c in text.chars() {
                if unglue && prev_lower && c.is_ascii_uppercase() {
                    f.push(' ');
                }
                prev_lower = c.is_ascii_lowercase();
                match fold.and_then(|table| table.get(c)) {
                    Some(folded) => f.push_str(folded),
                    None => f.push(c),
                }
            }
            let w = &mut self.whole;
            w.clear();
            t.for_each_lower(f, |c| {
                w.push(c);
                true
            });
            o = w.len();
            room(l, 0, o);
            if let Some(dst) = l.get_mut(..o) {
                dst.copy_from_slice(w.as_bytes());
            }
        }
        self.lowered_len = o;
        let lowered = self.lowered.get(..o).unwrap_or(&[]);
        debug_assert!(std::str::from_utf8(lowered).is_ok());
        // SAFETY: `lowered[..o]` is the text's ASCII bytes (each written where the cursor then
        // moves past it) with spaces between some, and the UTF-8 bytes of whole strings
        // (`L` of a character, or of the whole text), so it is UTF-8; checked in debug builds.
        unsafe { std::str::from_utf8_unchecked(lowered) }
    }
}

fn scan<const UNGLUE: bool>(
    t: &Tables,
    s: &str,
    number_words: bool,
    buf: &mut Vec<u8>,
    out: &mut String,
) -> Seen {
    // At most a space before and after each character, and the padding, then room for the
    // 144-byte window `Scan::block_words` writes a block's words in. The buffer keeps its length
    // from text to text (its bytes are only read once written), so it is zeroed only when it
    // grows.
    let need = 2 * s.len() + 2 + 144;
    if buf.len() < need {
        buf.resize(need, 0);
    }
    let (seen, bytes, o) = Scan::<UNGLUE> {
        t,
        s,
        b: s.as_bytes(),
        out: std::mem::take(buf),
        o: 0,
        word: 0,
        number_words,
        seen: Seen::default(),
    }
    .run();
    *buf = bytes;
    out.clear();
    let written = buf.get(..o).unwrap_or(&[]);
    debug_assert!(std::str::from_utf8(written).is_ok());
    // SAFETY: the scan writes whole characters of `s` (a `str`) and ASCII bytes only (ASCII
    // letters lower-cased by setting bit 5, digits, `_`, spaces, a number word's digits), and
    // moves `o` past whole characters only, so `buf[..o]` is UTF-8; checked in debug builds.
    // Only those `o` bytes become the string's.
    let v = unsafe { out.as_mut_vec() };
    match buf.first_chunk::<32>() {
        // A short result (most are): 32 bytes copied at once, where a copy of `o` bytes would
        // call `memcpy`.
        Some(head) if o <= 32 => {
            v.reserve(32);
            for (to, &from) in v.spare_capacity_mut().iter_mut().zip(head) {
                to.write(from);
            }
            // SAFETY: the first `o` bytes (of the 32) were just written.
            unsafe { v.set_len(o) };
        }
        _ => v.extend_from_slice(written),
    }
    seen
}

/// Copy the ASCII letters at the start of `src` to `dst`, lower-cased, as far as `dst` has room;
/// return how many. Eight bytes at a time: a whole word of them is written, and only the letters
/// among them count (the output's cursor moves past those only, so the rest is overwritten).
#[inline(always)]
fn copy_letter_run(src: &[u8], dst: &mut [u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut k = 0;
    // The last word of a text is read zero-padded (a zero byte is no letter).
    while let (true, Some(d8)) = (
        k < src.len(),
        dst.get_mut(k..).and_then(|r| r.first_chunk_mut::<8>()),
    ) {
        let x = crate::ascii::load(src, k);
        // Each byte's low seven bits with bit 5 set: an ASCII letter's lower case. Adding to
        // a byte below 0x80 never carries into the next one.
        let y = (x & !HIGH) | (0x20 * ONES);
        let from_a = y.wrapping_add((0x80 - u64::from(b'a')) * ONES);
        let past_z = y.wrapping_add((0x80 - u64::from(b'z') - 1) * ONES);
        let letters = from_a & !past_z & !x & HIGH;
        *d8 = y.to_le_bytes();
        let run = (!letters & HIGH).trailing_zeros() as usize / 8;
        k += run;
        if run < 8 {
            return k;
        }
    }
    while let (Some(&x), Some(d)) = (src.get(k), dst.get_mut(k)) {
        if byte(x) != K::Letter {
            break;
        }
        *d = x | 0x20;
        k += 1;
    }
    k
}

/// Whether the last character of `word` (whole UTF-8 characters) is a decimal digit.
fn last_is_digit(t: &Tables, word: &[u8]) -> bool {
    match word.last() {
        None => false,
        Some(&b) if b < 0x80 => b.is_ascii_digit(),
        Some(_) => {
            let start = word.len().saturating_sub(4);
            let tail = word.get(start..).unwrap_or(&[]);
            // The last character starts at the last byte that is not a continuation byte.
            let at = tail.iter().rposition(|&b| b & 0xC0 != 0x80).unwrap_or(0);
            std::str::from_utf8(tail.get(at..).unwrap_or(&[]))
                .ok()
                .and_then(|c| c.chars().next())
                .is_some_and(|c| t.digit_value(c).is_some())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer_match::reference::StepNormalizer;
    use crate::answer_match::test_fold;
    use crate::answer_rules::{has_glued_years, unglue_into};
    use crate::pyunicode::test_tables;

    /// The one-pass normalisation and the step-by-step one, with and without glued words split;
    /// with the block scan compiled for AVX-512 and for AVX2 (where the processor has them) and
    /// the portable one.
    fn check(text: &str) {
        for widest in [Widest::Avx512, Widest::Avx2, Widest::Portable] {
            WIDEST.with(|w| w.set(widest));
            check_one(text);
        }
        WIDEST.with(|w| w.set(Widest::Avx512));
    }

    fn check_one(text: &str) {
        let t = test_tables::install();
        let fold = test_fold::install_nfkd();
        let (mut fast, mut slow, mut unglued) = (String::new(), String::new(), String::new());
        for fold in [Some(fold), None] {
            for number_words in [true, false] {
                let seen =
                    Normalizer::default().normalize_into(t, fold, number_words, text, &mut fast);
                StepNormalizer::default().normalize_into(t, fold, number_words, text, &mut slow);
                assert_eq!(
                    fast,
                    slow,
                    "{text:?} fold {} words {number_words}",
                    fold.is_some()
                );
                assert_eq!(seen.glued_year, has_glued_years(&slow), "{text:?}");
                Normalizer::default().normalize_unglued_into(
                    t,
                    fold,
                    number_words,
                    text,
                    &mut fast,
                );
                unglue_into(text, &mut unglued);
                StepNormalizer::default().normalize_into(
                    t,
                    fold,
                    number_words,
                    &unglued,
                    &mut slow,
                );
                assert_eq!(
                    fast,
                    slow,
                    "unglued {text:?} fold {} words {number_words}",
                    fold.is_some()
                );
            }
        }
    }

    #[test]
    fn examples_agree_with_the_steps() {
        for text in [
            "",
            " ",
            "Malmö",
            "ﬁle １２",
            "U.S.A.",
            "Drew's dog",
            "the U.S.A.'s",
            "the U.S.A.’s ships",
            "Li'l Abner",
            "1,000,000 people",
            "1,2,3",
            "1,000,0000",
            "5.97 m",
            "1.2.3",
            "1.2,345.6",
            "1,000.5",
            "1.000,000",
            "a.5 a's1 a.'x x's's x.'s. ab'c'd",
            "Sweden1.",
            "21st century 21st'1 1,000th 3rd 22nd 11th 1st. ٣rd",
            "one two three the seventh Twentieth",
            "Tom and the Cat and a dog",
            "  ...Hello, World!!  ",
            "snake_case _1 a_1",
            "José's ÉTÉ",
            "isIdaho1. iPhone McDonald's aB'S aB'sC x'sA",
            "abcdefgH abcdefghI abcdefghijklmnoP ABCDEFGHabcdefgh abcdefghIJK",
            "193912 2011as 1939 12 1990s 20111",
            "ΣΑΣ ΟΔΟΣ. aΣb Σ",
            "٣,٤٥٦ ١٫٢ ٣.٤ a٣",
            "², ²1 a² x²'s",
            "ſ's Kelvin K's",
            "a\u{301}b \u{301}'s ﬃ",
            "Help. The end, of it.. a., b.,c x.'s y. 'z ,a .b c.d e.5 one. the, An. fifth.",
            "isOk. aB, cD.. eF .'g hI.'s",
        ] {
            check(text);
        }
    }

    /// A small random generator (xorshift), so the test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn random_texts_agree_with_the_steps() {
        const PIECES: &[&str] = &[
            "a", "b", "s", "S", "t", "h", "n", "d", "r", "A", "B", "x", "Z", "é", "É", "ö", "ß",
            "Σ", "σ", "ſ", "İ", "ﬁ", "0", "1", "2", "9", "٣", "１", "²", "①", ".", "'", "’", ",",
            " ", "\t", "_", "-", "!", "\u{301}", "\u{3000}", "the", "an", "one", "first", "st",
            "nd", "rd", "th", "'s", ".'s", ",000", ",00", "1,000", "2011", "1939", "19391", "漢",
            "\u{378}",
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut text = String::new();
        for _ in 0..20_000 {
            text.clear();
            let n = rng.next() % 12;
            for _ in 0..n {
                text.push_str(PIECES[(rng.next() % PIECES.len() as u64) as usize]);
            }
            check(&text);
        }
    }

    /// Words with `_` and decimal points, at every place around the blocks' edges.
    #[test]
    fn underscores_and_decimals_at_every_offset() {
        let pieces = [
            "x_1",
            "a_b",
            "__",
            "_",
            "_a",
            "a_",
            "2011_x",
            "1_2345",
            "1.5",
            "3.14159",
            "1.2.3",
            "1.23.4",
            "12.3.45",
            "1.2,345.6",
            "x_1.5",
            "a.5",
            "5.a",
            "_1st",
            "1_st",
            "one_two",
            "the_",
            "_the",
            "1.5.",
            "2.5_x",
            "20111_",
            "a_'s",
            "a_.b",
            "_.5",
            "1._5",
            "q_r",
            "P_{n-1}",
            "$0.04",
            "84.42$",
            "5.7(8)",
            "x_2.",
            "rest_of_it.",
        ];
        for piece in pieces {
            for pad in 0..72 {
                let text = format!(
                    "{} {piece} and more words after it, to fill a block",
                    "w".repeat(pad)
                );
                check(&text);
                let text = format!(
                    "Some words {} {piece}{piece} 12.5 and_more",
                    "ab ".repeat(pad / 3)
                );
                check(&text);
            }
        }
    }

    /// Words of 1 to 63 bytes (of letters, digits, `_` and joining dots) at every offset of
    /// a block: the block path writes a word and the space after it 16 bytes at a time, so
    /// lengths of 15, 16, 17, 31, 32, 33, 47, 48 and 49 end on either side of a store.
    #[test]
    fn words_of_every_length_at_every_offset() {
        for len in 1..64 {
            for (k, shape) in ["Ab", "x_", "9", "1.5"].iter().enumerate() {
                let word: String = shape.chars().cycle().take(len).collect();
                for pad in 0..66 {
                    let text = format!(
                        "{} {word}, more words, {word}. And then words after them {}",
                        "w".repeat(pad),
                        "z".repeat(k)
                    );
                    check(&text);
                }
            }
        }
    }

    /// A text that is not ASCII keeps its ASCII letters' case in `L` (the scan lowers them):
    /// capitals in every rewrite's place, before and after a non-ASCII character, in the
    /// byte scan and in blocks.
    #[test]
    fn capitals_in_texts_that_are_not_ascii() {
        let pieces = [
            "THE", "A", "An", "TWO", "Twenty", "1ST", "2Nd", "JOHN'S", "DOG'S.", "U.S.", "X2",
            "B1.5", "1,000", "ŽIVOT", "Éa", "aÉ", "isIdaho", "MIT's", "The_X", "ΣΑΣ", "A.",
        ];
        for (k, piece) in pieces.iter().enumerate() {
            for other in pieces.iter().skip(k % 5).step_by(5) {
                for pad in [0, 7, 40, 70] {
                    let text = format!(
                        "{piece} é {other} {} {piece}, {other}. ZÜRICH {piece}",
                        "Word ".repeat(pad / 5)
                    );
                    check(&text);
                }
            }
        }
    }

    /// Every character but ASCII, through the cache (filled by the first pass, read by the
    /// second) and worked out without it, with and without folding.
    #[test]
    fn cached_characters_agree_with_the_uncached_path() {
        let t = test_tables::install();
        let fold = test_fold::install();
        for fold in [Some(fold), None] {
            let mut n = Normalizer::default();
            let mut one = String::new();
            let mut kept = 0;
            let chars: Vec<char> = (0x80..=u32::from(char::MAX))
                .filter_map(char::from_u32)
                .collect();
            for chunk in chars.chunks(4093) {
                // Each character after a letter, so the text is a word (or words) throughout.
                let mut text = String::new();
                let mut want = String::new();
                let mut sigma = false;
                for &c in chunk {
                    sigma |= lower_folded_char(t, fold, c, &mut one);
                    text.push('x');
                    text.push(c);
                    want.push('x');
                    want.push_str(&one);
                }
                if sigma {
                    // `L` of the whole text then: the capital sigma's own tests read it.
                    continue;
                }
                for _ in 0..2 {
                    assert_eq!(n.lower_folded(t, fold, false, &text), want);
                    assert_eq!(n.lower_folded(t, fold, true, &text), want);
                }
                kept += chunk.len();
            }
            assert!(kept > chars.len() / 2);
        }
    }

    /// Runs of two-byte characters (the table's fast path, which a character not yet met
    /// leaves in the middle of a run), with three-byte ones and ASCII letters between some, read
    /// with an empty cache and then a filled one, against each character worked out alone.
    #[test]
    fn two_byte_runs_agree_with_the_uncached_path() {
        let t = test_tables::install();
        let fold = test_fold::install();
        let mut rng = Rng(0x0ddb_a11c_0ffe_e123);
        for fold in [Some(fold), None] {
            let mut n = Normalizer::default();
            let mut one = String::new();
            for round in 0..3_000 {
                let mut text = String::new();
                let mut want = String::new();
                let mut sigma = false;
                for _ in 0..1 + rng.next() % 24 {
                    let c = match rng.next() % 16 {
                        0 => 'x',
                        1 => '漢',
                        2 => '\u{7ff}',
                        3 => '\u{80}',
                        // Mostly a few characters, so that the later rounds read them cached.
                        4..=9 => ['é', 'ж', 'α', 'ا', 'ß', 'Ж', 'ő'][(rng.next() % 7) as usize],
                        _ => char::from_u32(0x80 + (rng.next() % 0x780) as u32).unwrap_or('é'),
                    };
                    if c == 'x' {
                        text.push(c);
                        want.push(c);
                        continue;
                    }
                    sigma |= lower_folded_char(t, fold, c, &mut one);
                    text.push(c);
                    want.push_str(&one);
                }
                if sigma {
                    // `L` of the whole text then: the capital sigma's own tests read it.
                    continue;
                }
                let unglue = round % 2 == 0;
                assert_eq!(n.lower_folded(t, fold, unglue, &text), want, "{text:?}");
                assert_eq!(n.lower_folded(t, fold, unglue, &text), want, "{text:?}");
            }
        }
    }

    /// `L` of a text with ASCII runs of every length (across the eight-byte steps), glued words
    /// at every offset, and a non-ASCII character between runs, against the step-by-step port.
    #[test]
    fn ascii_runs_and_glued_words_at_every_offset() {
        for len in 1..=34 {
            for at in 0..=len {
                let mut run: String = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnop"
                    .get(..len)
                    .unwrap_or("")
                    .to_owned();
                if at < len {
                    run.replace_range(at..=at, "Q");
                }
                for text in [
                    format!("é{run}"),
                    format!("{run}é"),
                    format!("ü{run}ŽA{run}Σ{run}"),
                    format!("{run}Éb{run} ① {run}"),
                    format!("京{run}😀{run}"),
                ] {
                    check(&text);
                }
            }
        }
    }

    /// Non-ASCII letters, digits, marks and symbols in blocks (read there or left to the byte
    /// scan), at every offset from a block's start and across its end.
    #[test]
    fn non_ascii_characters_at_every_offset_of_a_block() {
        const PIECES: &[&str] = &[
            "москва",
            "λα",
            "京",
            "😀",
            "✓",
            "٣",
            "x٣",
            "٣x",
            "d’s",
            "é’",
            "ß.",
            "ø,",
            "a1",
            "ж1",
            "1ж",
            "ł.5",
            "ω'",
            "١٢,٣٤٥",
            "ΣΑΣ",
            "naïve",
            "½",
            "①",
            "the",
            "ТРИ",
            "ⅻ",
        ];
        for pad in 0..70 {
            for (k, piece) in PIECES.iter().enumerate() {
                let other = PIECES.get((k * 7 + pad) % PIECES.len()).unwrap_or(&"");
                let text = format!(
                    "{}{piece} {other}{piece}. {other} one {piece}{} {other}",
                    "w".repeat(pad),
                    " ab".repeat(pad % 23)
                );
                check(&text);
            }
        }
    }

    /// `char_at` decodes every character, with four bytes after its start (its branch-free
    /// decoding) and without (the standard library's).
    #[test]
    fn char_at_decodes_every_character() {
        let mut text = String::new();
        for c in (0x80..=u32::from(char::MAX)).filter_map(char::from_u32) {
            for tail in ["", "abc"] {
                text.clear();
                text.push('x');
                text.push(c);
                text.push_str(tail);
                assert_eq!(char_at(&text, 1), Some((c, c.len_utf8())), "{c:?}");
            }
        }
    }

    /// `is_ascii` is `str::is_ascii` at every length up to past 64, with one byte of 0x80 or
    /// more at every place or none.
    #[test]
    fn is_ascii_agrees_with_the_standard_library() {
        for n in 0..80 {
            let mut bytes: Vec<u8> = (0..n).map(|k| b'a' + (k % 26) as u8).collect();
            assert!(is_ascii(&bytes), "{n}");
            for at in 0..n {
                bytes[at] = 0xc3;
                assert!(!is_ascii(&bytes), "{n} {at}");
                bytes[at] = 0x7f;
                assert!(is_ascii(&bytes), "{n} {at}");
            }
        }
    }

    /// `ascii_len32` is the length of the ASCII prefix of 32 bytes.
    #[test]
    fn ascii_len32_finds_the_first_byte_that_is_not_ascii() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        for _ in 0..20_000 {
            let chunk: [u8; 32] = std::array::from_fn(|_| match rng.next() % 40 {
                0 => 0x80 | (rng.next() % 128) as u8,
                _ => (rng.next() % 128) as u8,
            });
            let want = chunk.iter().position(|&b| b >= 0x80).unwrap_or(32);
            assert_eq!(ascii_len32(&chunk), want, "{chunk:?}");
        }
    }

    /// One normaliser for many texts, so that the two-byte characters are read from its cache
    /// (filled by the texts before), with and without folding in turn (which empties it).
    #[test]
    fn a_reused_normalizer_agrees_with_the_steps() {
        const PIECES: &[&str] = &[
            "a", "B", "é", "É", "ö", "Ö", "ß", "Σ", "σ", "ς", "ſ", "İ", "ı", "Å", "Ǆ", "ǅ", "ǆ",
            "ŉ", "Ω", "Ж", "ж", "ن", "٣", "²", "ﬁ", "漢", "\u{301}", "\u{7ff}", "\u{80}", " ", ".",
            "'s", "1", "aB", "xY", "-",
        ];
        let t = test_tables::install();
        let fold = test_fold::install_nfkd();
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut reused = Normalizer::default();
        let (mut text, mut fast, mut slow, mut unglued) =
            (String::new(), String::new(), String::new(), String::new());
        for round in 0..4_000 {
            text.clear();
            for _ in 0..rng.next() % 16 {
                text.push_str(PIECES[(rng.next() % PIECES.len() as u64) as usize]);
            }
            let fold = (round % 200 < 100).then_some(fold);
            reused.normalize_into(t, fold, true, &text, &mut fast);
            StepNormalizer::default().normalize_into(t, fold, true, &text, &mut slow);
            assert_eq!(fast, slow, "{text:?} fold {}", fold.is_some());
            reused.normalize_unglued_into(t, fold, true, &text, &mut fast);
            unglue_into(&text, &mut unglued);
            StepNormalizer::default().normalize_into(t, fold, true, &unglued, &mut slow);
            assert_eq!(fast, slow, "unglued {text:?} fold {}", fold.is_some());
        }
    }

    /// Texts of a few hundred bytes, mostly words of letters or digits between separators, so
    /// that words, marks, numbers and the characters the 64-byte blocks stop at fall on every
    /// side of a block's edge.
    #[test]
    fn long_texts_agree_with_the_steps() {
        const SEPARATORS: &[&str] = &[
            " ",
            " ",
            " ",
            ", ",
            ". ",
            ".",
            "..",
            ".,",
            ".'s ",
            "'s ",
            "' ",
            " '",
            "'",
            "’",
            "-",
            "\n",
            " (",
            ") ",
            ",",
            " _",
            "_",
            " 1",
            "2 ",
            " 1,000 ",
            " 3.5 ",
            "1st ",
            " é",
            "é ",
            " the ",
            " a ",
            " an ",
            " one ",
            " two ",
            " first ",
            " Third ",
            " hundred ",
            " south ",
            " The ",
            "!",
            "5,",
            ",5",
            ".5",
            "5.",
            "12'",
            "'s",
            " 1939",
            " 2011as",
            "١",
            "٣,",
            ",",
            ".",
            "'",
        ];
        const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text = String::new();
        for _ in 0..3_000 {
            text.clear();
            let target = (rng.next() % 400) as usize;
            while text.len() < target {
                // Mostly short words, some long ones (up to 70 letters, past a whole block).
                let n = match rng.next() % 16 {
                    0 => 1 + rng.next() % 70,
                    _ => 1 + rng.next() % 9,
                } as usize;
                let lower = !rng.next().is_multiple_of(4);
                if rng.next().is_multiple_of(5) {
                    // A number, sometimes a long one.
                    for _ in 0..n.min(12) {
                        text.push(char::from(b'0' + (rng.next() % 10) as u8));
                    }
                    text.push_str(SEPARATORS[(rng.next() % SEPARATORS.len() as u64) as usize]);
                    continue;
                }
                for k in 0..n {
                    let x = LETTERS[(rng.next() % LETTERS.len() as u64) as usize];
                    // Mostly lower case, with the first letter or some inside capital.
                    let x = if lower && (k > 0 || rng.next().is_multiple_of(2)) {
                        x.to_ascii_lowercase()
                    } else {
                        x
                    };
                    text.push(char::from(x));
                }
                text.push_str(SEPARATORS[(rng.next() % SEPARATORS.len() as u64) as usize]);
            }
            check(&text);
        }
    }
}
