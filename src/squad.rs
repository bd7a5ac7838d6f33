//! SQuAD v1.1 exact match and F1, with the official script's `normalize_answer`.
//!
//! `normalize_answer` lower-cases, deletes the 32 ASCII punctuation characters, replaces the
//! articles a / an / the (whole words by Python's `\b`) with a space, and joins
//! `str.split()`'s words with single spaces. After the deletion, `\b(a|an|the)\b` matches
//! exactly the maximal `\w` runs that are an article.
//!
//! The words are found without writing the normalisation out ([`for_each_word`]). ASCII
//! whitespace always separates words and nothing else is ever read across it, so the text is cut
//! into its runs of other bytes, eight bytes at a time. A run of ASCII letters, digits and
//! punctuation is one word: its letters and digits, lower-cased (the punctuation between them is
//! deleted, which joins them), unless there are none or they are an article. Most runs are a word
//! read in place, with at most some punctuation around it; only a run with punctuation inside
//! ("don't", "U.S.") is copied. A run holding anything else (a control character, a non-ASCII
//! character, which may lower-case to several characters, be a word character, a space or
//! neither) goes through [`Normalizer`], a character at a time. A text holding a capital sigma,
//! which lower-cases by its context, goes through it whole.

#[cfg(feature = "plugin")]
mod expressions;
mod starts;

use crate::ascii::{self, in_range, load, load_short};
use crate::pyunicode::{py_is_blank, two_byte_lower, Tables, CHANGES_WHEN_LOWERED, WORD};
use crate::tokens::{overlap, Vocab};
use starts::Starts;

/// What an ASCII character is to the normalisation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `\w` and not punctuation: a letter or a digit (`_` is punctuation).
    Word,
    /// `string.punctuation`: deleted, so it joins the `\w` characters around it.
    Punctuation,
    /// `str.isspace()`.
    Space,
    /// The other control characters: `\W`, kept, and not a space.
    Other,
}

const fn ascii_class(b: u8) -> Class {
    match b {
        b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => Class::Word,
        b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ' => Class::Space,
        b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~' => Class::Punctuation,
        _ => Class::Other,
    }
}

static ASCII_CLASS: [Class; 128] = {
    let mut table = [Class::Other; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = ascii_class(b as u8);
        b += 1;
    }
    table
};

#[inline(always)]
fn class(b: u8) -> Class {
    ASCII_CLASS[usize::from(b & 0x7f)]
}

/// The normalisation written straight into its output. A `\w` run (after the deletion) is
/// appended as it is read and taken back if it turns out to be an article; words are joined by
/// single spaces as they arrive.
struct Normalizer<'o> {
    out: &'o mut Vec<u8>,
    /// A space is due before the next kept character (some whitespace or an article was read
    /// since the last one, and something was written before it).
    pending_space: bool,
    /// Inside a `\w` run: where it starts in `out`, and where its separating space starts.
    run: Option<(usize, usize)>,
    /// Stop reading once `out` is longer than this.
    limit: usize,
}

impl Normalizer<'_> {
    #[inline(always)]
    fn begin_run(&mut self) {
        if self.run.is_none() {
            let before = self.out.len();
            if self.pending_space {
                self.out.push(b' ');
                self.pending_space = false;
            }
            self.run = Some((self.out.len(), before));
        }
    }

    /// A `\W` character or the end of the text ends the run; an article becomes a space.
    #[inline(always)]
    fn end_run(&mut self) {
        if let Some((start, before)) = self.run.take() {
            if matches!(&self.out[start..], b"a" | b"an" | b"the") {
                self.out.truncate(before);
                self.pending_space = !self.out.is_empty();
            }
        }
    }

    #[inline(always)]
    fn space(&mut self) {
        self.end_run();
        self.pending_space = !self.out.is_empty();
    }

    /// A kept character that is neither `\w` nor a space.
    #[inline(always)]
    fn other(&mut self, c: char) {
        self.end_run();
        if self.pending_space {
            self.out.push(b' ');
            self.pending_space = false;
        }
        let mut buf = [0; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    /// ASCII text: word characters are copied (lower-cased) a stretch at a time.
    fn ascii(&mut self, text: &[u8]) {
        let mut i = 0;
        while i < text.len() {
            match class(text[i]) {
                Class::Word => {
                    self.begin_run();
                    let mut end = i + 1;
                    while end < text.len() && class(text[end]) == Class::Word {
                        end += 1;
                    }
                    // Letters and digits only: setting bit 5 lower-cases letters and keeps
                    // digits.
                    self.out.extend(text[i..end].iter().map(|&b| b | 0x20));
                    i = end;
                    if self.out.len() > self.limit {
                        return;
                    }
                }
                Class::Punctuation => i += 1,
                Class::Space => {
                    self.space();
                    i += 1;
                }
                Class::Other => {
                    self.other(char::from(text[i]));
                    i += 1;
                }
            }
        }
    }

    /// One character of the lower-cased text.
    #[inline]
    fn lowered(&mut self, t: &Tables, c: char) {
        if c.is_ascii() {
            let mut buf = [0; 4];
            self.ascii(c.encode_utf8(&mut buf).as_bytes());
        } else if t.is_word(c) {
            self.begin_run();
            let mut buf = [0; 4];
            self.out
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        } else if t.is_space(c) {
            self.space();
        } else {
            self.other(c);
        }
    }
}

/// Feed the characters of `text`, which holds no capital sigma, to `n`: ASCII stretches a byte
/// class at a time, the other characters lower-cased one by one. Stops once `n`'s output is
/// longer than its limit.
fn normalize_chars(t: &Tables, n: &mut Normalizer<'_>, text: &str) {
    let mut rest = text;
    while !rest.is_empty() && n.out.len() <= n.limit {
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        n.ascii(&rest.as_bytes()[..ascii]);
        if n.out.len() > n.limit {
            // `ascii` stopped inside the stretch: nothing after it may be read.
            break;
        }
        rest = &rest[ascii..];
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            t.lower_char_each(c, |l| n.lowered(t, l));
            rest = chars.as_str();
        }
    }
    n.end_run();
}

/// The normalisation of `text` by [`Normalizer`], written into `out` (cleared first); it may
/// stop reading once the output is longer than `limit` bytes: the output is then a prefix of
/// the normalisation that stays longer than `limit - 4` (taking back an article removes at most
/// four bytes, " the"). A text holding a capital sigma is read whole.
fn normalize_slowly(t: &Tables, text: &str, limit: usize, out: &mut String) {
    let mut bytes = std::mem::take(out).into_bytes();
    bytes.clear();
    let mut n = Normalizer {
        out: &mut bytes,
        pending_space: false,
        run: None,
        limit,
    };
    if memchr::memmem::find(text.as_bytes(), "\u{03A3}".as_bytes()).is_some() {
        // A capital sigma lower-cases by its context: the whole text through `str.lower()`.
        t.for_each_lower(text, |c| {
            n.lowered(t, c);
            true
        });
        n.end_run();
    } else {
        normalize_chars(t, &mut n, text);
    }
    // Only whole UTF-8 sequences were written.
    *out = String::from_utf8(bytes).unwrap_or_default();
}

/// A word of the normalisation, as [`for_each_word`] finds it.
#[derive(Clone, Copy, Debug)]
enum Word<'a> {
    /// ASCII letters and digits, the bytes `start..end` of a text, read in place: the word is
    /// their lower case, whose first eight bytes are `head` (a little-endian word, zero-padded).
    Ascii {
        text: &'a [u8],
        start: usize,
        end: usize,
        head: u64,
    },
    /// The word itself.
    Normalized(&'a str),
}

impl Word<'_> {
    /// Append the word to `out`.
    #[inline]
    fn push_to(self, out: &mut String) {
        match self {
            // Letters and digits only: setting bit 5 lower-cases letters and keeps digits.
            Word::Ascii {
                text, start, end, ..
            } => out.extend(
                text.get(start..end)
                    .unwrap_or(&[])
                    .iter()
                    .map(|&b| char::from(b | 0x20)),
            ),
            Word::Normalized(word) => out.push_str(word),
        }
    }

    /// The number of bytes of the word and its first eight (a little-endian word, zero-padded).
    #[inline(always)]
    fn len_and_head(self) -> (usize, u64) {
        match self {
            Word::Ascii {
                start, end, head, ..
            } => (end - start, head),
            Word::Normalized(word) => (word.len(), load_short(word.as_bytes())),
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;

/// The articles as little-endian words, zero-padded.
const A: u64 = b'a' as u64;
const AN: u64 = u64::from_le_bytes(*b"an\0\0\0\0\0\0");
const THE: u64 = u64::from_le_bytes(*b"the\0\0\0\0\0");

/// The low `len` bytes (1 or more) of a word: all of them from 8 on.
#[inline(always)]
fn low_bytes(len: usize) -> u64 {
    u64::MAX.wrapping_shr((64 - 8 * len.min(8)) as u32)
}

/// What a run of bytes without ASCII whitespace gives.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    /// No letter or digit: punctuation only.
    Nothing,
    /// The word is the bytes `start..end`, letters and digits (only punctuation around them).
    Word(usize, usize),
    /// The word is the letters and digits of `start..end`, which holds punctuation too.
    Joined(usize, usize),
    /// A control character or a non-ASCII byte: for [`Normalizer`].
    Other,
}

/// What the run `start..end` of `bytes` (no ASCII whitespace in it) gives, read eight bytes at a
/// time.
#[inline(always)]
fn piece(bytes: &[u8], start: usize, end: usize) -> Piece {
    let mut first = usize::MAX;
    let mut last = 0;
    let mut count = 0;
    let mut at = start;
    while at < end {
        let x = load(bytes, at);
        let valid = match end - at {
            left @ 0..=7 => HIGH >> (8 * (8 - left)),
            _ => HIGH,
        };
        let high = x & HIGH;
        // Below 0x80, a byte's class is read from its low seven bits.
        let low = x ^ high;
        if in_range(low, b'!', b'~') & !high & valid != valid {
            return Piece::Other;
        }
        let alnum =
            (in_range(low, b'0', b'9') | in_range(low | (ONES * 0x20), b'a', b'z')) & !high & valid;
        if alnum != 0 {
            if first == usize::MAX {
                first = at + alnum.trailing_zeros() as usize / 8;
            }
            last = at + (63 - alnum.leading_zeros() as usize) / 8 + 1;
            // The number of bytes set: their bits summed into the top byte.
            count += ((alnum >> 7).wrapping_mul(ONES) >> 56) as usize;
        }
        at += 8;
    }
    if count == 0 {
        Piece::Nothing
    } else if count == last - first {
        Piece::Word(first, last)
    } else {
        Piece::Joined(first, last)
    }
}

/// The bytes of a block of 64 of a text, one bit each (byte `k`'s is bit `k`), and a copy of
/// them.
struct Block {
    /// ASCII whitespace (the bytes past the end of the text are read as spaces).
    space: u64,
    /// ASCII letters and digits.
    alnum: u64,
    /// ASCII letters, digits and punctuation (`!`..=`~`).
    printable: u64,
    /// The block's bytes, zero past the end of the text and past the block: a word that ends
    /// inside the block is read from here, by offsets the compiler knows are in bounds.
    bytes: [u8; 72],
}

impl Block {
    /// The classes of the 64 bytes of `bytes` from `at` ([`ascii::classify`]: sixteen bytes at a
    /// time on x86_64).
    #[inline(always)]
    fn read(bytes: &[u8], at: usize) -> Block {
        let rest = bytes.get(at..).unwrap_or(&[]);
        let Some(block) = rest.first_chunk::<64>() else {
            return Self::read_end(rest);
        };
        let classes = ascii::classify(block);
        let mut copy = [0; 72];
        copy[..64].copy_from_slice(block);
        Block {
            space: classes.space,
            alnum: classes.alnum,
            printable: classes.printable,
            bytes: copy,
        }
    }

    /// [`Block::read`] of the last bytes of a text, fewer than 64: the bytes past the end are
    /// spaces. Where the processor has AVX-512 BW, [`Block::read_end_avx512`] (every text ends
    /// here, and a short one is read only here: the copy below is a `memcpy` call).
    #[inline(never)]
    fn read_end(rest: &[u8]) -> Block {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if crate::cpu::has_avx512bw() {
            // SAFETY: the processor has AVX-512 BW.
            return unsafe { Self::read_end_avx512(rest) };
        }
        Self::read_end_portable(rest)
    }

    /// [`Block::read_end`] without AVX-512.
    #[inline(always)]
    fn read_end_portable(rest: &[u8]) -> Block {
        let mut copy = [0; 72];
        let len = rest.len().min(64);
        copy[..len].copy_from_slice(&rest[..len]);
        let classes = ascii::classify(copy.first_chunk::<64>().unwrap_or(&[0; 64]));
        Block {
            space: classes.space | (!0u64).checked_shl(len as u32).unwrap_or(0),
            alnum: classes.alnum,
            printable: classes.printable,
            bytes: copy,
        }
    }

    /// [`Block::read_end`] by one masked load, which reads only the text's bytes and gives
    /// zeros past them (as the copy does), classified 64 bytes at a time.
    ///
    /// # Safety
    /// The processor must have AVX-512 BW.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[target_feature(enable = "avx512bw")]
    unsafe fn read_end_avx512(rest: &[u8]) -> Block {
        use ascii::avx512::{in_range, load_or};
        use std::arch::x86_64::{_mm512_or_si512, _mm512_set1_epi8, _mm512_storeu_si512};
        let len = rest.len().min(64);
        let v = load_or(rest.get(..len).unwrap_or(&[]), 0);
        let mut copy = [0; 72];
        // SAFETY: the copy holds 72 bytes, of which an unaligned store writes the first 64.
        unsafe { _mm512_storeu_si512(copy.as_mut_ptr().cast(), v) };
        // Setting bit 5 lower-cases letters; it makes no other byte a lower-case letter.
        let letter = in_range(_mm512_or_si512(v, _mm512_set1_epi8(0x20)), b'a', b'z');
        Block {
            space: in_range(v, 0x09, 0x0d)
                | in_range(v, 0x1c, 0x20)
                | (!0u64).checked_shl(len as u32).unwrap_or(0),
            alnum: letter | in_range(v, b'0', b'9'),
            printable: in_range(v, b'!', b'~'),
            bytes: copy,
        }
    }

    /// The eight bytes from byte `k` (below 64) of the block as a little-endian word.
    #[inline(always)]
    fn load(&self, k: usize) -> u64 {
        load(&self.bytes, k & 63)
    }

    /// What the run of bits `run` (no space among them), the bytes `start..end` of the text,
    /// gives; `at` is the block's offset in the text.
    #[inline(always)]
    fn piece(&self, run: u64, start: usize, end: usize, at: usize) -> Piece {
        let alnum = run & self.alnum;
        if alnum == run {
            Piece::Word(start, end)
        } else if run & !self.printable != 0 {
            Piece::Other
        } else if alnum == 0 {
            Piece::Nothing
        } else {
            let first = alnum.trailing_zeros();
            let end = 64 - alnum.leading_zeros();
            let shifted = alnum >> first;
            let (start, end) = (at + first as usize, at + end as usize);
            if shifted & shifted.wrapping_add(1) == 0 {
                Piece::Word(start, end)
            } else {
                Piece::Joined(start, end)
            }
        }
    }
}

/// Whether the rest of a text holds a capital sigma, asked at the first of its blocks that may
/// need it, instead of a pass over the whole text before its words are read (most texts are
/// ASCII, and then never asked).
///
/// A capital sigma lower-cases by its context, so a text holding one goes through
/// [`sigma_words`]. The word scans see every byte of a text in some [`Block`] before reading
/// it, but for those of a run longer than a block ([`long_run_words`], reached from a block of
/// one run). So a text is asked about at its first block holding a byte that is neither ASCII
/// whitespace nor printable, or holding no whitespace; the blocks before hold ASCII bytes only.
/// Each block starts at the text's start, or at ASCII whitespace or just after it, which is
/// neither cased nor case-ignorable, punctuation, nor part of a word: the normalisation's words
/// are those of the text up to the block followed by those of the rest, and the rest holds a
/// capital sigma exactly when the text does. A text that holds one has the words before the
/// block read as before, and those of the rest through [`sigma_words`].
#[derive(Default)]
struct SigmaCheck {
    asked: bool,
}

impl SigmaCheck {
    /// Whether the text from `at` (the offset of `block`) holds a capital sigma, when the block
    /// is the first that may need the answer; `false` otherwise.
    #[inline(always)]
    fn holds(&mut self, text: &str, block: &Block, at: usize) -> bool {
        if self.asked || (block.space != 0 && !block.space & !block.printable == 0) {
            return false;
        }
        self.asked = true;
        crate::pyunicode::has_capital_sigma(text.get(at..).unwrap_or(""))
    }
}

/// Call `f` with each word of the normalisation of `text`, in order, until it returns `false`;
/// `buf` is scratch. Returns whether every word was read.
///
/// Once the words' bytes, with a space between each two, are more than `limit`, the words
/// passed to `f` may instead be a prefix of the normalisation that is longer than `limit` (the
/// last one possibly cut); a caller that needs no more than `limit` bytes stops there.
///
/// The text is read 64 bytes at a time ([`Block`]); its runs of bytes other than ASCII
/// whitespace are found in the block's bits. A run that reaches the end of the block is read
/// again at the start of the next block, which begins where the run does (or, for a run of 64
/// bytes or more, alone, eight bytes at a time).
#[inline(always)]
fn for_each_word(
    t: &Tables,
    text: &str,
    limit: usize,
    buf: &mut String,
    mut f: impl FnMut(Word<'_>) -> bool,
) -> bool {
    let bytes = text.as_bytes();
    let mut sigma = SigmaCheck::default();
    let mut at = 0;
    while at < bytes.len() {
        let block = Block::read(bytes, at);
        if sigma.holds(text, &block, at) {
            return sigma_words(t, text.get(at..).unwrap_or(""), buf, &mut f);
        }
        match block_words(t, text, &block, at, limit, buf, &mut f, None) {
            Some(next) => at = next,
            None => return false,
        }
    }
    true
}

/// The words of the runs of the 64-byte block at `at` of `text`, passed to `f` as in
/// [`for_each_word`]: where the next block starts (with a run that may go on past this one), or
/// `None` once `f` returned `false`.
///
/// With `among` (`firsts` and `skipped` as in [`for_each_word_among`]), a run of printable bytes
/// that no word looked for starts as is only counted.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block_words(
    t: &Tables,
    text: &str,
    block: &Block,
    at: usize,
    limit: usize,
    buf: &mut String,
    f: &mut impl FnMut(Word<'_>) -> bool,
    mut among: Option<(&Starts, &mut usize)>,
) -> Option<usize> {
    let mut runs = !block.space;
    while runs != 0 {
        // Adding the lowest bit of the first run carries through it to the bit past its end.
        let after = runs.wrapping_add(runs & runs.wrapping_neg());
        let (start, end) = (
            at + runs.trailing_zeros() as usize,
            at + after.trailing_zeros() as usize,
        );
        let run = runs & !after;
        runs &= after;
        if end == at + 64 {
            // The run may go on past the block: the next block starts with it (a run of 64
            // bytes or more is read alone).
            if start > at {
                return Some(start);
            }
            let next = long_run_words(t, text, at, limit, buf, f);
            return (next != usize::MAX).then_some(next);
        }
        if let Some((firsts, skipped)) = among.as_mut() {
            let alnum = run & block.alnum;
            if run & !block.printable == 0 {
                if alnum == 0 {
                    continue;
                }
                if !may_start_at(firsts, block, alnum.trailing_zeros()) {
                    **skipped += 1;
                    continue;
                }
            }
        }
        if !run_words(t, text, block, at, (run, start, end), limit, buf, f) {
            return None;
        }
    }
    Some(at + 64)
}

/// The words of the run of bits `run` of the block at `at`, the bytes `start..end` of `text`
/// (no ASCII whitespace in it, and inside the block), passed to `f` as in [`for_each_word`]:
/// whether `f` always returned `true`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_words(
    t: &Tables,
    text: &str,
    block: &Block,
    at: usize,
    (run, start, end): (u64, usize, usize),
    limit: usize,
    buf: &mut String,
    f: &mut impl FnMut(Word<'_>) -> bool,
) -> bool {
    let bytes = text.as_bytes();
    // Most runs hold one run of letters and digits, with at most some punctuation around it
    // (which is deleted): the word is that run (the block's printable bytes are all but its
    // spaces unless it holds a control or non-ASCII character).
    let alnum = run & block.alnum;
    let alnum_after = alnum.wrapping_add(alnum & alnum.wrapping_neg());
    if alnum != 0 && alnum & alnum_after == 0 && run & !block.printable == 0 {
        let (start, end) = (
            at + alnum.trailing_zeros() as usize,
            at + alnum_after.trailing_zeros() as usize,
        );
        // Setting bit 5 lower-cases letters and keeps digits; the word ends inside the block.
        let len = end - start;
        let head = (block.load(start - at) | (ONES * 0x20)) & low_bytes(len);
        if len <= 3 && matches!(head, A | AN | THE) {
            return true;
        }
        f(Word::Ascii {
            text: bytes,
            start,
            end,
            head,
        })
    } else {
        let piece = block.piece(run, start, end, at);
        piece_words(t, text, piece, (start, end), limit, buf, f)
    }
}

/// The starts of the articles, which must never be skipped (they are no word).
fn article_starts() -> Starts {
    let mut starts = Starts::default();
    for (len, head) in [(1, A), (2, AN), (3, THE)] {
        insert_start(&mut starts, len, head);
    }
    starts
}

/// Add the start of a word of `len` bytes (1 or more) whose first eight are `head`.
#[inline]
fn insert_start(starts: &mut Starts, len: usize, head: u64) {
    starts.insert(head as u8, (len >= 2).then_some((head >> 8) as u8));
}

/// Whether the word whose first letter or digit is byte `k` of the block `block` (a word that
/// ends inside the block) may start as one of `starts`: by its first two bytes when the second
/// is a letter or digit too, else by its first.
#[inline(always)]
fn may_start_at(starts: &Starts, block: &Block, k: u32) -> bool {
    let k = k as usize & 63;
    starts.may_start_bit(block.bytes[k], block.bytes[k + 1]) != 0
}

/// [`for_each_word`] of a text whose words are only looked up among some others' (F1's
/// response), with no limit: an ASCII word that no word looked for, nor an article, starts as
/// it does (by `firsts`: its first byte, or its first two when the second is a letter or digit
/// too) is only counted, in `skipped`, and not passed to `f`.
///
/// In a block of only ASCII whitespace and printable bytes, each word's first letter or digit
/// is found from the block's bits (the first byte of a run, or the one its leading punctuation
/// carries to when the run's start is added to it), so a word that is skipped costs a bit test
/// or two.
#[inline(always)]
fn for_each_word_among(
    t: &Tables,
    text: &str,
    firsts: &Starts,
    skipped: &mut usize,
    buf: &mut String,
    mut f: impl FnMut(Word<'_>) -> bool,
) -> bool {
    let bytes = text.as_bytes();
    let mut sigma = SigmaCheck::default();
    let mut at = 0;
    while at < bytes.len() {
        let block = Block::read(bytes, at);
        let mut runs = !block.space;
        if runs & !block.printable != 0 || runs == u64::MAX {
            // A control or non-ASCII byte, or a run as long as the block: run by run.
            if sigma.holds(text, &block, at) {
                return sigma_words(t, text.get(at..).unwrap_or(""), buf, &mut f);
            }
            let among = Some((firsts, &mut *skipped));
            match block_words(t, text, &block, at, usize::MAX, buf, &mut f, among) {
                Some(next) => at = next,
                None => return false,
            }
            continue;
        }
        let mut next = at + 64;
        if runs >> 63 != 0 {
            // The last run may go on past the block: the next block starts with it (it starts
            // after bit 0, the block not being one run).
            let start = 64 - (!runs).leading_zeros();
            next = at + start as usize;
            runs &= (1u64 << start) - 1;
        }
        let alnum = runs & block.alnum;
        let punctuation = runs & !alnum;
        let starts = runs & !(runs << 1);
        let all = (starts | punctuation.wrapping_add(starts & punctuation)) & alnum;
        // The words to read, gathered first without a branch per word. Each ends inside the
        // block, so its first byte and the one after it are in the block's copy.
        let (mut words, mut read) = (all, 0);
        while words != 0 {
            let k = words.trailing_zeros() as usize & 63;
            words &= words - 1;
            read |= firsts.may_start_bit(block.bytes[k], block.bytes[k + 1]) << k;
        }
        *skipped += (all.count_ones() - read.count_ones()) as usize;
        while read != 0 {
            let k = read.trailing_zeros();
            read &= read - 1;
            // The run holding byte `k` ends at a space below `next`.
            let below = block.space & !(u64::MAX << k);
            let start = 64 - below.leading_zeros();
            let end = (block.space & (u64::MAX << k)).trailing_zeros();
            let run = (u64::MAX << start) & !(u64::MAX.checked_shl(end).unwrap_or(0));
            let span = (run, at + start as usize, at + end as usize);
            if !run_words(t, text, &block, at, span, usize::MAX, buf, &mut f) {
                return false;
            }
        }
        at = next;
    }
    true
}

/// The words of a run that reaches the end of the 64-byte block at `at` and starts with it,
/// read eight bytes at a time up to the next ASCII whitespace, passed to `f` as in
/// [`for_each_word`] (which this is for, out of line). Returns where the run ends, or
/// `usize::MAX` once `f` returned `false`.
#[inline(never)]
fn long_run_words(
    t: &Tables,
    text: &str,
    at: usize,
    limit: usize,
    buf: &mut String,
    f: &mut dyn FnMut(Word<'_>) -> bool,
) -> usize {
    let bytes = text.as_bytes();
    let end = bytes
        .iter()
        .skip(at + 64)
        .position(|&b| matches!(b, 0x09..=0x0d | 0x1c..=0x20))
        .map_or(bytes.len(), |k| at + 64 + k);
    let piece = piece(bytes, at, end);
    if piece_words(t, text, piece, (at, end), limit, buf, f) {
        end
    } else {
        usize::MAX
    }
}

/// The words of the run `start..end` of `text` (no ASCII whitespace in it), which is `piece`,
/// passed to `f` as in [`for_each_word`] (which this is for, out of line). Returns whether `f`
/// always returned `true`.
#[inline(never)]
fn piece_words(
    t: &Tables,
    text: &str,
    piece: Piece,
    (start, end): (usize, usize),
    limit: usize,
    buf: &mut String,
    f: &mut dyn FnMut(Word<'_>) -> bool,
) -> bool {
    let bytes = text.as_bytes();
    match piece {
        Piece::Nothing => true,
        Piece::Word(start, end) => {
            let len = end - start;
            let head = (load(bytes, start) | (ONES * 0x20)) & low_bytes(len);
            (len <= 3 && matches!(head, A | AN | THE))
                || f(Word::Ascii {
                    text: bytes,
                    start,
                    end,
                    head,
                })
        }
        Piece::Joined(start, end) => {
            buf.clear();
            for &b in bytes.get(start..end).unwrap_or(&[]) {
                if b.is_ascii_alphanumeric() {
                    buf.push(char::from(b | 0x20));
                }
            }
            matches!(buf.as_str(), "a" | "an" | "the") || f(Word::Normalized(buf))
        }
        Piece::Other => other_words(t, text.get(start..end).unwrap_or(""), limit, buf, f),
    }
}

/// The words of `text`, which holds a capital sigma, through [`Normalizer`], passed to `f` as in
/// [`for_each_word`] (which this is for, out of line).
#[inline(never)]
fn sigma_words(
    t: &Tables,
    text: &str,
    buf: &mut String,
    f: &mut dyn FnMut(Word<'_>) -> bool,
) -> bool {
    normalize_slowly(t, text, usize::MAX, buf);
    words(buf).all(|w| f(Word::Normalized(w)))
}

/// The words of `run` (no ASCII whitespace in it, no capital sigma) through [`Normalizer`],
/// passed to `f` as in [`for_each_word`].
fn other_words(
    t: &Tables,
    run: &str,
    limit: usize,
    buf: &mut String,
    f: &mut dyn FnMut(Word<'_>) -> bool,
) -> bool {
    if simple_word(t, run, buf) {
        return f(Word::Normalized(buf));
    }
    // Stopped past `limit + 4`, the run's words alone are longer than `limit`.
    let limit = limit.saturating_add(4);
    let mut out = std::mem::take(buf).into_bytes();
    out.clear();
    let mut n = Normalizer {
        out: &mut out,
        pending_space: false,
        run: None,
        limit,
    };
    normalize_chars(t, &mut n, run);
    // Only whole UTF-8 sequences were written.
    *buf = String::from_utf8(out).unwrap_or_default();
    words(buf).all(|w| f(Word::Normalized(w))) && buf.len() <= limit
}

/// The word of `run` (no ASCII whitespace in it, no capital sigma), written into `buf`, when
/// each of its characters is an ASCII letter, digit or punctuation, or lower-cases to one
/// non-ASCII `\w` character (a two-byte character by [`two_byte_lower`], a three-byte one
/// that is `\w` and its own lower case): the punctuation is deleted and the rest is one `\w`
/// run holding a non-ASCII character, so no article. `false` for any other run, and for a run
/// of ASCII alone (`buf` is then scratch): [`Normalizer`] reads those.
fn simple_word(t: &Tables, run: &str, buf: &mut String) -> bool {
    let lower = two_byte_lower(t);
    buf.clear();
    let bytes = run.as_bytes();
    let (mut i, mut wide) = (0, false);
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            match class(b) {
                // Setting bit 5 lower-cases letters and keeps digits.
                Class::Word => buf.push(char::from(b | 0x20)),
                Class::Punctuation => {}
                Class::Space | Class::Other => return false,
            }
            i += 1;
        } else if b < 0xe0 {
            // A two-byte character (valid UTF-8: its second byte is there).
            let next = bytes.get(i + 1).map_or(0, |&b| u32::from(b & 0x3f));
            let cp = u32::from(b & 0x1f) << 6 | next;
            let lowered = lower.get((cp as usize).wrapping_sub(0x80)).copied();
            match lowered {
                Some(l) if l != '\0' => buf.push(l),
                _ => return false,
            }
            wide = true;
            i += 2;
        } else if b < 0xf0 {
            let Some(c) = run.get(i..i + 3) else {
                return false;
            };
            let flags = c.chars().next().map_or(0, |c| t.flags(c));
            if flags & (WORD | CHANGES_WHEN_LOWERED) != WORD {
                return false;
            }
            buf.push_str(c);
            wide = true;
            i += 3;
        } else {
            return false;
        }
    }
    wide
}

/// The SQuAD normalisation of `text`, written into `out` (cleared first).
pub fn normalize_into(t: &Tables, text: &str, out: &mut String) {
    normalize_with(t, text, out, &mut String::new());
}

/// [`normalize_into`], with `buf` as scratch.
pub fn normalize_with(t: &Tables, text: &str, out: &mut String, buf: &mut String) {
    out.clear();
    for_each_word(
        t,
        text,
        usize::MAX,
        buf,
        #[inline(always)]
        |w| {
            if !out.is_empty() {
                out.push(' ');
            }
            w.push_to(out);
            true
        },
    );
}

/// Reusable buffers for scoring many rows.
#[derive(Default)]
pub struct Scratch {
    /// [`for_each_word`]'s scratch, and a word lower-cased.
    buf: String,
    word: String,
    /// Exact match: the response's normalisation (as far as it is read).
    response: String,
    /// F1: the references' words, interned together; each reference's word ids one after the
    /// other (`ends` holds where each ends); how often the response holds each word.
    vocab: Vocab,
    /// The references' words of up to eight bytes, and a filter of the longer ones, whose
    /// ids in `vocab` are mapped to the words' ids by `long_ids`.
    short: ShortWords,
    long_ids: Vec<u32>,
    filter: WordFilter,
    ids: Vec<u32>,
    counts: Vec<u32>,
    used: Vec<u32>,
    /// Exact match: the normalised references, one after the other (`ends` holds their ends).
    references: String,
    ends: Vec<usize>,
    /// [`best_both`]: the response's word ids, up to one more than the longest reference's.
    response_ids: Vec<u32>,
}

/// A filter of the references' words: a word whose bit is clear is none of them. The bit is
/// picked by a hash of the word's length and first eight bytes, so most words a response holds
/// and the references do not are told apart by one multiplication and one bit.
#[derive(Default)]
struct WordFilter {
    bits: [u64; 16],
}

impl WordFilter {
    /// The bit of a word of `len` bytes whose first eight are `head`.
    #[inline(always)]
    fn bit(len: usize, head: u64) -> (usize, u64) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let key = ((head ^ (len as u64).rotate_right(8)).wrapping_mul(K) >> 54) as usize;
        (key >> 6, 1 << (key & 63))
    }

    fn clear(&mut self) {
        self.bits = [0; 16];
    }

    fn insert(&mut self, len: usize, head: u64) {
        let (at, bit) = Self::bit(len, head);
        if let Some(bits) = self.bits.get_mut(at) {
            *bits |= bit;
        }
    }

    /// Whether the word of `len` bytes whose first eight are `head` may be one of the words
    /// inserted.
    #[inline(always)]
    fn may_hold(&self, len: usize, head: u64) -> bool {
        let (at, bit) = Self::bit(len, head);
        self.bits.get(at).is_some_and(|&bits| bits & bit != 0)
    }
}

/// The references' words of at most eight bytes, by their length and bytes (as a little-endian
/// word, zero-padded): an open-addressing table of their ids in the [`Vocab`], in which a word is
/// looked up with one multiplication and, mostly, one comparison.
#[derive(Default)]
struct ShortWords {
    /// A power-of-two number of slots, each `(head, len, id)`; `len` 0 is empty.
    slots: Vec<(u64, u32, u32)>,
    /// The slots filled.
    filled: Vec<usize>,
}

impl ShortWords {
    fn clear(&mut self) {
        for &at in &self.filled {
            if let Some(slot) = self.slots.get_mut(at) {
                slot.1 = 0;
            }
        }
        self.filled.clear();
    }

    #[inline(always)]
    fn home(&self, len: usize, head: u64) -> usize {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let h = (head ^ (len as u64)).wrapping_mul(K);
        (h >> 40) as usize & self.slots.len().wrapping_sub(1)
    }

    /// The slot of the word, or the empty slot where it would go; `None` without slots.
    #[inline(always)]
    fn find(&self, len: usize, head: u64) -> Option<usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = self.home(len, head);
        // The table is never more than half full: an empty slot ends every search.
        for _ in 0..self.slots.len() {
            let &(h, l, _) = self.slots.get(at)?;
            if l == 0 || (h == head && l as usize == len) {
                return Some(at);
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Add a word of `len` bytes (1 to 8) whose bytes are `head`, of id `id`.
    fn insert(&mut self, len: usize, head: u64, id: u32) {
        if (self.filled.len() + 1) * 2 > self.slots.len() {
            let held: Vec<(u64, u32, u32)> = self
                .filled
                .iter()
                .filter_map(|&at| self.slots.get(at).copied())
                .collect();
            let size = (self.slots.len() * 2).max(32);
            self.slots.clear();
            self.slots.resize(size, (0, 0, 0));
            self.filled.clear();
            for (h, l, i) in held {
                self.insert(l as usize, h, i);
            }
        }
        if let Some(at) = self.find(len, head) {
            if let Some(slot) = self.slots.get_mut(at) {
                if slot.1 == 0 {
                    *slot = (head, len as u32, id);
                    self.filled.push(at);
                }
            }
        }
    }

    /// The id of the word of `len` bytes (1 to 8) whose bytes are `head`, added as `id` if it
    /// is not held yet.
    #[inline]
    fn intern(&mut self, len: usize, head: u64, id: u32) -> u32 {
        match self.get(len, head) {
            crate::tokens::ABSENT => {
                self.insert(len, head, id);
                id
            }
            held => held,
        }
    }

    /// The id of the word of `len` bytes (1 to 8) whose bytes are `head`, or
    /// [`crate::tokens::ABSENT`].
    #[inline(always)]
    fn get(&self, len: usize, head: u64) -> u32 {
        self.find(len, head)
            .and_then(|at| self.slots.get(at))
            .filter(|slot| slot.1 != 0)
            .map_or(crate::tokens::ABSENT, |slot| slot.2)
    }
}

/// The id of the lower case of the bytes `start..end` of `text` (ASCII letters and digits) in
/// `vocab`, or [`crate::tokens::ABSENT`] (out of line: most words are turned away by a
/// [`WordFilter`] first).
#[inline(never)]
fn look_up_ascii(vocab: &Vocab, text: &[u8], start: usize, end: usize) -> u32 {
    vocab.get_lowered_word(text.get(start..end).unwrap_or(&[]))
}

/// The id of `word` in `vocab`, or [`crate::tokens::ABSENT`] (out of line).
#[inline(never)]
fn look_up(vocab: &Vocab, word: &str) -> u32 {
    vocab.get(word)
}

/// Exact match or F1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    ExactMatch,
    F1,
}

/// The normalised words of `normalized` (already joined with single spaces).
#[inline]
fn words(normalized: &str) -> impl Iterator<Item = &str> {
    // Words are short: a plain scan beats a `memchr` call per word.
    let bytes = normalized.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() {
            let from = start;
            let end = bytes[from..]
                .iter()
                .position(|&b| b == b' ')
                .map_or(bytes.len(), |k| from + k);
            start = end + 1;
            if end > from {
                return normalized.get(from..end);
            }
        }
        None
    })
}

/// Exact match over the usable references: they are normalised first, so the response is read
/// only as far as it could still equal one of them (a long answer against a short reference
/// costs a few words).
fn exact_match<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    s.references.clear();
    s.ends.clear();
    for reference in references.flatten().filter(|r| !py_is_blank(r)) {
        let start = s.references.len();
        let written = &mut s.references;
        for_each_word(
            t,
            reference,
            usize::MAX,
            &mut s.buf,
            #[inline(always)]
            |w| {
                if written.len() > start {
                    written.push(' ');
                }
                w.push_to(written);
                true
            },
        );
        s.ends.push(s.references.len());
    }
    let mut start = 0;
    let longest = s.ends.iter().map(|&end| {
        let len = end - start;
        start = end;
        len
    });
    let limit = longest.max()?;
    s.response.clear();
    let response_words = &mut s.response;
    for_each_word(
        t,
        response,
        limit,
        &mut s.buf,
        #[inline(always)]
        |w| {
            if !response_words.is_empty() {
                response_words.push(' ');
            }
            w.push_to(response_words);
            response_words.len() <= limit
        },
    );
    let mut start = 0;
    let matched = s.ends.iter().any(|&end| {
        let same = s.references.get(start..end) == Some(s.response.as_str());
        start = end;
        same
    });
    Some(if matched { 1.0 } else { 0.0 })
}

/// The best score of `response` (null already read as `""`) over the usable references (not
/// null, not blank); `None` when none is usable.
pub fn best<'a>(
    t: &Tables,
    pair: Pair,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    match pair {
        Pair::ExactMatch => exact_match(t, response, references, s),
        Pair::F1 => f1::<false>(t, response, references, s),
    }
}

/// Exact match and F1 together, `(exact_match, f1)` as [`best`] gives each, from one
/// normalisation of the response and of the references: two normalised texts are equal exactly
/// when their words are, and F1 holds the words of both as ids in one vocabulary.
pub fn best_both<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> (Option<f64>, Option<f64>) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if crate::cpu::has_avx2_bits() {
        // SAFETY: the processor has what `bits::best_both` is compiled for.
        return unsafe { bits::best_both(t, response, references, s) };
    }
    both(t, response, references, s)
}

/// [`best_both`] compiled for the bit instructions of processors with AVX2 (BMI1, BMI2, POPCNT,
/// LZCNT): the word scans count, find and skip words by their masks' bits, which without them
/// take a sequence each (a population count is a dozen instructions, a leading-zero count a
/// `bsr` and a fix-up). The same code, so the same scores.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod bits {
    use super::{Scratch, Tables};

    /// [`super::best_both`], with the bit instructions.
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1, BMI2, POPCNT and LZCNT ([`crate::cpu::has_avx2_bits`]).
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    pub(super) unsafe fn best_both<'a>(
        t: &Tables,
        response: &str,
        references: impl Iterator<Item = Option<&'a str>>,
        s: &mut Scratch,
    ) -> (Option<f64>, Option<f64>) {
        super::both(t, response, references, s)
    }
}

/// [`best_both`]'s work, inlined into each version of it.
#[inline(always)]
fn both<'a>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> (Option<f64>, Option<f64>) {
    let Some(f1) = f1::<true>(t, response, references, s) else {
        return (None, None);
    };
    let mut start = 0;
    let same = s.ends.iter().any(|&end| {
        let ids = s.ids.get(start..end);
        start = end;
        ids == Some(s.response_ids.as_slice())
    });
    (Some(if same { 1.0 } else { 0.0 }), Some(f1))
}

/// F1 over the usable references. Their words are interned together; the response's words are
/// only looked up among them (a word no reference has can never match). With `RECORD`, the
/// response's word ids are kept too, as far as they could still equal a reference's (inlined,
/// so that [`best_both`]'s versions each hold theirs).
#[inline(always)]
fn f1<'a, const RECORD: bool>(
    t: &Tables,
    response: &str,
    references: impl Iterator<Item = Option<&'a str>>,
    s: &mut Scratch,
) -> Option<f64> {
    s.vocab.clear();
    s.long_ids.clear();
    let mut n_words = 0u32;
    s.ids.clear();
    s.ends.clear();
    s.filter.clear();
    s.short.clear();
    // How the references' words and the articles start.
    let mut firsts = article_starts();
    for reference in references.flatten().filter(|r| !py_is_blank(r)) {
        let (vocab, short, filter) = (&mut s.vocab, &mut s.short, &mut s.filter);
        let (long_ids, n_words) = (&mut s.long_ids, &mut n_words);
        let firsts = &mut firsts;
        let (ids, word) = (&mut s.ids, &mut s.word);
        for_each_word(
            t,
            reference,
            usize::MAX,
            &mut s.buf,
            #[inline(always)]
            |w| {
                let (len, head) = w.len_and_head();
                insert_start(firsts, len, head);
                // A word of up to eight bytes is interned by its bytes alone; a longer one in
                // the vocabulary, whose ids are mapped to the words' (`long_ids`).
                let id = if len <= 8 {
                    short.intern(len, head, *n_words)
                } else {
                    filter.insert(len, head);
                    let v = match w {
                        Word::Ascii { .. } => {
                            word.clear();
                            w.push_to(word);
                            vocab.intern(word)
                        }
                        Word::Normalized(w) => vocab.intern(w),
                    } as usize;
                    if v == long_ids.len() {
                        long_ids.push(*n_words);
                    }
                    long_ids.get(v).copied().unwrap_or(crate::tokens::ABSENT)
                };
                if id == *n_words {
                    *n_words += 1;
                }
                ids.push(id);
                true
            },
        );
        s.ends.push(s.ids.len());
    }
    if s.ends.is_empty() {
        return None;
    }
    s.counts.clear();
    s.counts.resize(n_words as usize, 0);
    let mut n_response = 0;
    let (vocab, short, filter) = (&s.vocab, &s.short, &s.filter);
    let long_ids = &s.long_ids;
    let long_id = |v: u32| {
        long_ids
            .get(v as usize)
            .copied()
            .unwrap_or(crate::tokens::ABSENT)
    };
    let counts = &mut s.counts;
    let (response_ids, mut start) = (&mut s.response_ids, 0);
    let longest = s
        .ends
        .iter()
        .map(|&end| end - std::mem::replace(&mut start, end));
    let longest = if RECORD {
        longest.max().unwrap_or(0)
    } else {
        0
    };
    response_ids.clear();
    let mut skipped = 0;
    for_each_word_among(
        t,
        response,
        &firsts,
        &mut skipped,
        &mut s.buf,
        #[inline(always)]
        |w| {
            n_response += 1;
            let (len, head) = w.len_and_head();
            let id = if len <= 8 {
                short.get(len, head)
            } else if filter.may_hold(len, head) {
                match w {
                    Word::Ascii {
                        text, start, end, ..
                    } => long_id(look_up_ascii(vocab, text, start, end)),
                    Word::Normalized(word) => long_id(look_up(vocab, word)),
                }
            } else {
                crate::tokens::ABSENT
            };
            if let Some(count) = counts.get_mut(id as usize) {
                *count += 1;
            }
            if RECORD && response_ids.len() <= longest {
                response_ids.push(id);
            }
            true
        },
    );
    // The words skipped are none of the references': one of them in the ids is enough to tell
    // the response from every reference.
    n_response += skipped;
    if RECORD && skipped > 0 && response_ids.len() <= longest {
        response_ids.push(crate::tokens::ABSENT);
    }
    let mut best: Option<f64> = None;
    let mut start = 0;
    for &end in &s.ends {
        let ids = s.ids.get(start..end).unwrap_or(&[]);
        start = end;
        let same = overlap(&s.counts, &mut s.used, ids);
        let score = if same == 0 {
            0.0
        } else {
            let precision = same as f64 / n_response as f64;
            let recall = same as f64 / ids.len() as f64;
            (2.0 * precision * recall) / (precision + recall)
        };
        if best.is_none_or(|b| score > b) {
            best = Some(score);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn norm(s: &str) -> String {
        let t = test_tables::install();
        let mut out = String::new();
        normalize_into(t, s, &mut out);
        out
    }

    #[test]
    fn normalize_examples() {
        for (text, expected) in [
            ("The Eiffel Tower", "eiffel tower"),
            ("a an the", ""),
            ("a a a a", ""),
            ("theater", "theater"),
            ("A.B.", "ab"),
            ("a.", ""),
            ("a_b", "ab"),
            ("a\u{301} b", "\u{301} b"),
            ("²a", "²a"),
            ("x\x1ca\x1cy", "x y"),
            ("l'année", "lannée"),
            ("«the»", "« »"),
            ("THE\u{3000}END", "end"),
            ("an-the", "anthe"),
            ("th", "th"),
            ("at", "at"),
            ("  x  ", "x"),
        ] {
            assert_eq!(norm(text), expected, "{text:?}");
        }
    }

    /// The official script's steps one after the other, on whole strings.
    fn oracle(t: &Tables, text: &str) -> String {
        let lowered = t.lower(text);
        let kept: Vec<char> = lowered
            .chars()
            .filter(|c| !c.is_ascii_punctuation())
            .collect();
        // `\b(a|an|the)\b` matches exactly the maximal `\w` runs that are an article.
        let mut spaced = String::new();
        let mut i = 0;
        while i < kept.len() {
            if t.is_word(kept[i]) {
                let end = (i..kept.len())
                    .find(|&j| !t.is_word(kept[j]))
                    .unwrap_or(kept.len());
                let run: String = kept[i..end].iter().collect();
                if matches!(run.as_str(), "a" | "an" | "the") {
                    spaced.push(' ');
                } else {
                    spaced.push_str(&run);
                }
                i = end;
            } else {
                spaced.push(kept[i]);
                i += 1;
            }
        }
        spaced
            .split(crate::pyunicode::is_py_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn equals_the_official_steps_on_every_short_text() {
        // Every string of up to four characters over the articles' letters, each class of
        // ASCII character, non-ASCII word, space and other characters, and the capital sigma.
        let t = test_tables::install();
        let alphabet: Vec<char> = "aAnThe_.'\x01 \x1cé«\u{3000}İΣ\u{301}".chars().collect();
        let mut text = String::new();
        let mut out = String::new();
        let mut digits: Vec<usize> = Vec::new();
        loop {
            text.clear();
            text.extend(digits.iter().map(|&k| alphabet[k]));
            normalize_into(t, &text, &mut out);
            assert_eq!(out, oracle(t, &text), "{text:?}");
            // The next string: count in base len(alphabet), growing up to four characters.
            let mut k = digits.len();
            loop {
                if k == 0 {
                    if digits.len() == 4 {
                        return;
                    }
                    digits.iter_mut().for_each(|d| *d = 0);
                    digits.push(0);
                    break;
                }
                k -= 1;
                digits[k] += 1;
                if digits[k] < alphabet.len() {
                    break;
                }
                digits[k] = 0;
            }
        }
    }

    /// A random text of up to `max` pieces: words (articles among them, in any case),
    /// punctuation inside and around them, ASCII and other whitespace, control and non-ASCII
    /// characters, long runs without a space.
    fn random_text(next: &mut impl FnMut() -> usize, max: usize) -> String {
        const PIECES: [&str; 36] = [
            "the", "The", "THE", "a", "A", "an", "An", "word", "Paris", "x1", "42", "3.14",
            "don't", "U.S.", "(E).", "t.h.e", "a-n", "...", ",", "_", " ", " ", "  ", "\t", "\n",
            "\r\n", "\x0b\x1c", "\x01", "\x7f", "é", "\u{3000}", "İ", "Σ", "ΣAΣ", "σ", "ς",
        ];
        let len = next() % (max + 1);
        let mut text = String::new();
        for _ in 0..len {
            match next() % 16 {
                0 => text.push_str(&"abcdefghij".repeat(1 + next() % 10)),
                1 => text.push(char::from((next() % 128) as u8)),
                _ => text.push_str(PIECES[next() % PIECES.len()]),
            }
        }
        text
    }

    #[test]
    fn equals_the_official_steps_on_long_random_texts() {
        // Runs across the 64-byte blocks, runs of 64 bytes and more, runs at the text's end.
        let t = test_tables::install();
        let mut next = crate::testing::lcg(41);
        let mut out = String::new();
        for _ in 0..20_000 {
            let text = random_text(&mut next, 60);
            normalize_into(t, &text, &mut out);
            assert_eq!(out, oracle(t, &text), "{text:?}");
        }
    }

    #[test]
    fn simple_words_equal_the_official_steps() {
        // Runs without ASCII whitespace over ASCII letters, digits, punctuation and control
        // characters, and non-ASCII characters of two, three and four bytes: letters of either
        // case, ones whose lower case is ASCII (the Kelvin sign) or two characters (İ), spaces,
        // combining marks, symbols.
        let t = test_tables::install();
        let alphabet: Vec<&str> = vec![
            "a", "Z", "7", "the", "An", ".", "'", "_", "\x01", "é", "Ü", "Д", "я", "ß", "\u{3a9}",
            "\u{2126}", "\u{3a3}", "İ", "\u{301}", "\u{a0}", "\u{85}", "ﬁ", "中", "\u{3000}", "K",
            "①", "✓", "😀", "²", "ﾀ",
        ];
        let mut next = crate::testing::lcg(59);
        let (mut buf, mut simple) = (String::new(), 0);
        for _ in 0..20_000 {
            let run: String = (0..1 + next() % 6)
                .map(|_| alphabet[next() % alphabet.len()])
                .collect();
            if run.contains('\u{3a3}') {
                continue;
            }
            if simple_word(t, &run, &mut buf) {
                assert_eq!(buf, oracle(t, &run), "{run:?}");
                simple += 1;
            } else {
                // Every run it turns away holds a character it does not take.
                assert!(
                    run.chars().any(|c| {
                        c.is_ascii_control()
                            || c.len_utf8() == 4
                            || "İ\u{301}\u{a0}\u{85}\u{3000}K\u{2126}✓".contains(c)
                    }) || run.is_ascii(),
                    "{run:?}"
                );
            }
        }
        assert!(simple > 3_000, "{simple}");
    }

    /// F1 and exact match from the official steps' words, for one reference.
    fn oracle_scores(t: &Tables, response: &str, reference: &str) -> (f64, f64) {
        let (r, g) = (oracle(t, response), oracle(t, reference));
        let em = if r == g { 1.0 } else { 0.0 };
        let count = |s: &str| {
            let mut counts = std::collections::HashMap::new();
            for w in s.split(' ').filter(|w| !w.is_empty()) {
                *counts.entry(w.to_owned()).or_insert(0usize) += 1;
            }
            counts
        };
        let (cr, cg) = (count(&r), count(&g));
        let same: usize = cr
            .iter()
            .map(|(w, &n)| n.min(cg.get(w).copied().unwrap_or(0)))
            .sum();
        let f1 = if same == 0 {
            0.0
        } else {
            let precision = same as f64 / cr.values().sum::<usize>() as f64;
            let recall = same as f64 / cg.values().sum::<usize>() as f64;
            (2.0 * precision * recall) / (precision + recall)
        };
        (em, f1)
    }

    #[test]
    fn scores_equal_the_official_steps_on_random_texts() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut next = crate::testing::lcg(43);
        for _ in 0..20_000 {
            let response = random_text(&mut next, 40);
            let reference = if next().is_multiple_of(4) {
                // A reference close to the response: its words, some punctuation.
                format!("{}.", response.to_uppercase())
            } else {
                random_text(&mut next, 6)
            };
            if py_is_blank(&reference) {
                continue;
            }
            let (em, f1) = oracle_scores(t, &response, &reference);
            let refs = [Some(reference.as_str())];
            let got_em = best(t, Pair::ExactMatch, &response, refs.iter().copied(), &mut s);
            let got_f1 = best(t, Pair::F1, &response, refs.iter().copied(), &mut s);
            assert_eq!(got_em, Some(em), "{response:?} {reference:?}");
            assert_eq!(got_f1, Some(f1), "{response:?} {reference:?}");
        }
    }

    #[test]
    fn f1_skips_only_words_no_reference_holds() {
        // ASCII responses over many 64-byte blocks (words and punctuation runs at the blocks'
        // edges, runs of 64 bytes and more), whose words are mostly skipped by their first byte;
        // now and then a control or non-ASCII byte, whose block is read run by run, or a capital
        // sigma, whose block and those after it are read through the official steps.
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut next = crate::testing::lcg(47);
        const PIECES: [&str; 24] = [
            "the", "The", "a", "An", "tha", "Paris", "paris", "x1", "42", "3.14", "don't", "U.S.",
            "(E).", "t.h.e", "a-n", "...", ",", "-", " ", " ", "  ", "\n", "Zoo", "\x01",
        ];
        for round in 0..20_000 {
            let mut response = String::new();
            for _ in 0..next() % 120 {
                match next() % 24 {
                    0 => response.push_str(&"abcdefghij".repeat(1 + next() % 8)),
                    1 if round % 4 == 0 => response.push('é'),
                    1 if round % 4 == 1 => response.push_str(["Σ", "ΣΑΣ", "ς"][next() % 3]),
                    _ => response.push_str(PIECES[next() % PIECES.len()]),
                }
            }
            let reference: String = (0..1 + next() % 4)
                .map(|_| PIECES[next() % 16])
                .collect::<Vec<_>>()
                .join(" ");
            if py_is_blank(&reference) {
                continue;
            }
            let (em, f1) = oracle_scores(t, &response, &reference);
            let refs = [Some(reference.as_str())];
            let got_f1 = best(t, Pair::F1, &response, refs.iter().copied(), &mut s);
            assert_eq!(got_f1, Some(f1), "{response:?} {reference:?}");
            let both = best_both(t, &response, refs.iter().copied(), &mut s);
            assert_eq!(both, (Some(em), Some(f1)), "{response:?} {reference:?}");
        }
    }

    #[test]
    fn scores() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut f1 = |r: &str, g: &[Option<&str>]| best(t, Pair::F1, r, g.iter().copied(), &mut s);
        assert_eq!(f1("yes yes no", &[Some("yes")]), Some(0.5));
        assert_eq!(f1("the", &[Some("a")]), Some(0.0));
        assert_eq!(f1("x", &[None, Some(" \x1c")]), None);
        let got = f1("the beatles band", &[Some("The Beatles")]).unwrap();
        assert!((got - 2.0 * 0.5 / 1.5).abs() < 1e-15);
        let mut em =
            |r: &str, g: &[Option<&str>]| best(t, Pair::ExactMatch, r, g.iter().copied(), &mut s);
        assert_eq!(em("the", &[Some("a")]), Some(1.0));
        assert_eq!(
            em("Beatles", &[Some("Stones"), Some("The Beatles!")]),
            Some(1.0)
        );
        assert_eq!(em("x", &[]), None);
        // The response is read only as far as it could still match: an article at the limit
        // is taken back, and a longer response is no match.
        assert_eq!(em("X the", &[Some("x")]), Some(1.0));
        assert_eq!(em("x an", &[Some("x"), Some("")]), Some(1.0));
        assert_eq!(em("x the y", &[Some("x")]), Some(0.0));
        assert_eq!(em(&"word ".repeat(10_000), &[Some("word")]), Some(0.0));
        assert_eq!(em("«é» the", &[Some("«é»")]), Some(1.0));
    }
    /// [`best_both`] (the version for the bit instructions where the processor has them) gives
    /// what [`best`] gives for each score, and what [`both`] (the portable code) gives, to the
    /// bit.
    #[test]
    fn both_scores_equal_each_one() {
        let t = test_tables::install();
        let (mut s, mut alone) = (Scratch::default(), Scratch::default());
        let mut next = crate::testing::lcg(61);
        for round in 0..20_000 {
            let response = random_text(&mut next, if round % 8 == 0 { 400 } else { 40 });
            let mut references = Vec::new();
            for _ in 0..1 + next() % 3 {
                references.push(if next().is_multiple_of(3) {
                    Some(format!("{}!", response.to_uppercase()))
                } else if next().is_multiple_of(8) {
                    None
                } else {
                    Some(random_text(&mut next, 8))
                });
            }
            let refs: Vec<Option<&str>> = references.iter().map(|r| r.as_deref()).collect();
            let want = (
                best(
                    t,
                    Pair::ExactMatch,
                    &response,
                    refs.iter().copied(),
                    &mut alone,
                ),
                best(t, Pair::F1, &response, refs.iter().copied(), &mut alone),
            );
            let got = best_both(t, &response, refs.iter().copied(), &mut s);
            assert_eq!(got, want, "{response:?} {refs:?}");
            let portable = both(t, &response, refs.iter().copied(), &mut alone);
            assert_eq!(portable.0.map(f64::to_bits), got.0.map(f64::to_bits));
            assert_eq!(portable.1.map(f64::to_bits), got.1.map(f64::to_bits));
        }
    }

    /// [`Block::read_end`]'s AVX-512 version gives the portable one's block, for every length
    /// and random bytes of every value.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[test]
    fn read_end_avx512_equals_the_portable_read() {
        if !crate::cpu::has_avx512bw() {
            return;
        }
        let mut next = crate::testing::lcg(67);
        for round in 0..20_000 {
            let len = round % 64;
            let rest: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => (next() % 256) as u8,
                    1 => b" \t\n\x0b\x0c\r\x1c\x1f\x00"[next() % 9],
                    _ => (0x21 + next() % 0x5e) as u8,
                })
                .collect();
            let want = Block::read_end_portable(&rest);
            // SAFETY: the processor has AVX-512 BW (checked above).
            let got = unsafe { Block::read_end_avx512(&rest) };
            assert_eq!(
                (got.space, got.alnum, got.printable, got.bytes),
                (want.space, want.alnum, want.printable, want.bytes),
                "{rest:?}"
            );
        }
    }
}
