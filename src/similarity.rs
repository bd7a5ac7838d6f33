//! DataRobot's response similarity: token recall, token F1 and ROUGE-L over Python `\w+` words.
//!
//! Words are `re.findall(r"\w+", text.lower())` with Python's `\w` and `str.lower()`, minus the
//! reference's 36 stopwords unless that leaves none. A row's response is tokenised once; the
//! words of its answers (a few, and short) are interned together ([`Vocab`]), and the response's
//! words are only looked up among them: a response word no answer has can never match, and it
//! drops out of the longest common subsequence too.

#[cfg(feature = "plugin")]
pub(crate) mod expressions;

use crate::ascii;
use crate::pyunicode::{py_is_blank, Tables, CHANGES_WHEN_LOWERED, WORD};
use crate::tokens::{lowered_short_word, overlap, AsciiWords, DenseLcs, Vocab, ABSENT};

/// The three lexical metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    TokenRecall,
    TokenF1,
    RougeL,
}

impl Metric {
    pub fn parse(name: &str) -> Option<Metric> {
        match name {
            "token_recall" => Some(Metric::TokenRecall),
            "token_f1" => Some(Metric::TokenF1),
            "rouge_l" => Some(Metric::RougeL),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Metric::TokenRecall => "token_recall",
            Metric::TokenF1 => "token_f1",
            Metric::RougeL => "rouge_l",
        }
    }

    /// The reference's one-line meaning of the metric, quoted in every reason.
    pub fn explanation(self) -> &'static str {
        match self {
            Metric::TokenRecall => "share of the example's words found in the response",
            Metric::TokenF1 => "word overlap, penalizing words the example doesn't have",
            Metric::RougeL => "longest run of words shared in the same order",
        }
    }
}

/// The reference's stopwords.
#[inline]
fn is_stopword(w: &str) -> bool {
    matches!(
        w,
        "a" | "an"
            | "the"
            | "is"
            | "are"
            | "was"
            | "were"
            | "be"
            | "been"
            | "being"
            | "am"
            | "of"
            | "to"
            | "in"
            | "on"
            | "at"
            | "for"
            | "and"
            | "or"
            | "but"
            | "it"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "with"
            | "as"
            | "by"
            | "from"
            | "i"
            | "you"
            | "we"
            | "they"
            | "he"
            | "she"
    )
}

/// The reference's stopwords as [`lowered_short_word`] keys (all have at most 5 bytes), in a
/// table of 64 slots that the multiplier [`STOPWORD_HASH`] fills without collisions (checked
/// when the table is built, at compile time).
const STOPWORD_HASH: u64 = 0x69ba_6197_199c_c22f;

const fn stopword_slot(key: u64) -> usize {
    (key.wrapping_mul(STOPWORD_HASH) >> 58) as usize
}

static STOPWORD_TABLE: [u64; 64] = {
    const WORDS: [&str; 36] = [
        "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "of", "to",
        "in", "on", "at", "for", "and", "or", "but", "it", "its", "this", "that", "these", "those",
        "with", "as", "by", "from", "i", "you", "we", "they", "he", "she",
    ];
    let mut table = [0u64; 64];
    let mut k = 0;
    while k < WORDS.len() {
        let bytes = WORDS[k].as_bytes();
        let mut key = 0u64;
        let mut j = 0;
        while j < bytes.len() {
            key |= (bytes[j] as u64) << (8 * j);
            j += 1;
        }
        let slot = stopword_slot(key);
        assert!(table[slot] == 0, "two stopwords share a slot");
        table[slot] = key;
        k += 1;
    }
    table
};

/// [`is_stopword`] of the lower-case form of an ASCII `\w+` run.
#[inline]
fn is_ascii_stopword(word: &[u8]) -> bool {
    if word.len() > 5 {
        return false;
    }
    let key = lowered_short_word(word);
    STOPWORD_TABLE.get(stopword_slot(key)) == Some(&key)
}

/// The first and second bytes of a row's ASCII answer words, each with bit 5 set (`b | 0x20`:
/// a capital's small letter, `_` 0x7f, a digit itself), to pick out in a block of a response
/// the words that may be one of them: a word is read only if its first byte is one of
/// `firsts` and its second one of `seconds`, or it is one byte long and some answer word is.
/// With more than [`AnswerStarts::MAX`] distinct bytes in either set the filter is off.
#[derive(Default)]
struct AnswerStarts {
    /// One bit per byte value (all below 0x80).
    firsts: u128,
    seconds: u128,
    single: bool,
}

impl AnswerStarts {
    const MAX: usize = 8;

    fn clear(&mut self) {
        *self = AnswerStarts::default();
    }

    /// Add a lower-case answer word (a non-ASCII one can never be an ASCII run's lower case).
    #[inline]
    fn insert(&mut self, word: &[u8]) {
        let bit = |b: u8| 1u128 << ((b | 0x20) & 0x7f);
        match *word {
            [first] if first.is_ascii() => {
                self.firsts |= bit(first);
                self.single = true;
            }
            [first, second, ..] if word.is_ascii() => {
                self.firsts |= bit(first);
                self.seconds |= bit(second);
            }
            _ => {}
        }
    }

    /// Whether the filter is on: few enough distinct bytes that a block test pays.
    fn usable(&self) -> bool {
        self.firsts.count_ones() as usize <= Self::MAX
            && self.seconds.count_ones() as usize <= Self::MAX
    }

    /// The two sets ready for [`AnswerStarts::may_start`] (once per text).
    fn sets(&self) -> ByteSets {
        let bytes = |mut set: u128| {
            let (mut out, mut n) = ([0u8; Self::MAX], 0);
            while set != 0 && n < Self::MAX {
                out[n] = set.trailing_zeros() as u8;
                set &= set - 1;
                n += 1;
            }
            (out, n)
        };
        let ((a, na), (b, nb)) = (bytes(self.firsts), bytes(self.seconds));
        ByteSets::new(&a[..na], &b[..nb])
    }

    /// Bit `i` set where a word starting at byte `i` of `block` may be an answer word, given
    /// `inside` (the block's `\w` and high bytes) and `sets` (this filter's): its first byte is
    /// one of `firsts`, and the next byte is one of `seconds` or ends the word (when some
    /// answer word is one byte long), or lies past the block (bit 63).
    #[inline(always)]
    fn may_start(&self, sets: &ByteSets, block: &[u8; 64], inside: u64) -> u64 {
        let (firsts, seconds) = sets.members(block);
        let single = if self.single { !inside } else { 0 };
        firsts & ((seconds | single) >> 1 | 1 << 63)
    }
}

/// One byte of a set as [`ByteSets::members`] compares it: on x86_64 broadcast to the 16 bytes
/// of an SSE2 register (once per text), elsewhere the byte itself.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
type Lane = std::arch::x86_64::__m128i;
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
type Lane = u8;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn lane(x: u8) -> Lane {
    // SAFETY: SSE2 is enabled for the build (the `cfg`).
    unsafe { std::arch::x86_64::_mm_set1_epi8(x as i8) }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn lane(x: u8) -> Lane {
    x
}

/// Two sets of at most [`AnswerStarts::MAX`] bytes (each with bit 5 set), to test the 64
/// bytes of a block against: on x86_64 each byte of a set broadcast once, and compared with
/// the block's four 16-byte lanes (SSE2).
#[derive(Clone, Copy)]
struct ByteSets {
    a: [Lane; AnswerStarts::MAX],
    b: [Lane; AnswerStarts::MAX],
    na: usize,
    nb: usize,
}

impl ByteSets {
    fn new(a: &[u8], b: &[u8]) -> Self {
        let lanes = |set: &[u8]| {
            let mut out = [lane(0); AnswerStarts::MAX];
            for (to, &x) in out.iter_mut().zip(set) {
                *to = lane(x);
            }
            out
        };
        ByteSets {
            a: lanes(a),
            b: lanes(b),
            na: a.len().min(AnswerStarts::MAX),
            nb: b.len().min(AnswerStarts::MAX),
        }
    }

    /// The bytes of `block` that are, with bit 5 set, in the first set, and in the second:
    /// a bit each.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn members(&self, block: &[u8; 64]) -> (u64, u64) {
        use crate::ascii::sse2::bits;
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is enabled for the build (the `cfg`); each unaligned load reads 16
        // bytes of `block`, at 0, 16, 32 and 48.
        let (v, zero) = unsafe {
            let p = block.as_ptr();
            let twenty = _mm_set1_epi8(0x20);
            let load = |k: usize| _mm_or_si128(_mm_loadu_si128(p.add(16 * k).cast()), twenty);
            ([load(0), load(1), load(2), load(3)], _mm_setzero_si128())
        };
        let test = |set: &[__m128i]| {
            let mut m = [zero; 4];
            for &x in set {
                for (m, &v) in m.iter_mut().zip(&v) {
                    // SAFETY: as above.
                    *m = unsafe { _mm_or_si128(*m, _mm_cmpeq_epi8(v, x)) };
                }
            }
            bits(m[0]) | bits(m[1]) << 16 | bits(m[2]) << 32 | bits(m[3]) << 48
        };
        (
            test(self.a.get(..self.na).unwrap_or(&[])),
            test(self.b.get(..self.nb).unwrap_or(&[])),
        )
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline(always)]
    fn members(&self, block: &[u8; 64]) -> (u64, u64) {
        members_scalar(
            block,
            self.a.get(..self.na).unwrap_or(&[]),
            self.b.get(..self.nb).unwrap_or(&[]),
        )
    }
}

/// [`ByteSets::members`] a byte at a time: the portable version, and the tests' check of the
/// SSE2 one.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn members_scalar(block: &[u8; 64], a: &[u8], b: &[u8]) -> (u64, u64) {
    let (mut in_a, mut in_b) = (0u64, 0u64);
    for (i, &x) in block.iter().enumerate() {
        in_a |= u64::from(a.contains(&(x | 0x20))) << i;
        in_b |= u64::from(b.contains(&(x | 0x20))) << i;
    }
    (in_a, in_b)
}

/// Whether the ASCII `\w` run of `len` bytes (at least 1) whose first 8 bytes are `head` is a
/// stopword, without a branch: a stopword is lower-case letters, so a run is one exactly when
/// its bytes with bit 5 set are (a digit keeps its value and `_` becomes 0x7f, in no stopword).
#[inline(always)]
fn is_stopword_head(head: u64, len: usize) -> bool {
    let keep = (1u64 << (8 * len.min(7))).wrapping_sub(1);
    let key = (head | 0x2020_2020_2020_2020) & keep;
    (len <= 5) & (STOPWORD_TABLE[stopword_slot(key)] == key)
}

/// A response's words as [`ResponseWords::scan_blocks`] reads them.
struct Reading<'a, 'v> {
    t: &'a Tables,
    text: &'a str,
    vocab: &'v Vocab,
    index: &'v AsciiWords,
    count: bool,
    found: &'a mut Vec<(u32, bool)>,
    word: &'a mut String,
    n_words: usize,
    n_content: usize,
    /// The answers' word starts, and their byte sets.
    starts: &'v AnswerStarts,
    sets: ByteSets,
}

impl Reading<'_, '_> {
    /// A run of `text[s..e]` (as [`ascii::for_each_word_run`] gives it), counted.
    #[inline(always)]
    fn run(&mut self, s: usize, e: usize, high: bool, head: u64) {
        if high {
            let run = self.text.get(s..e).unwrap_or("");
            let (words, content) =
                ResponseWords::mixed_run(self.t, run, self.vocab, self.word, self.found);
            self.n_words += words;
            self.n_content += content;
            return;
        }
        self.n_words += 1;
        self.ascii_word(s, e.wrapping_sub(s), head);
    }

    /// An ASCII word of `len` bytes at `s` whose first 8 are `head`, already counted among the
    /// words: looked up, and counted as content if it is not a stopword.
    #[inline(always)]
    fn ascii_word(&mut self, s: usize, len: usize, head: u64) {
        let id = self
            .index
            .find(self.vocab, self.text.as_bytes(), s, len, head);
        if id != ABSENT {
            let stop = is_stopword_head(head, len);
            self.n_content += usize::from(!stop);
            self.found.push((id, stop));
        } else if self.count || self.n_content == 0 {
            self.n_content += usize::from(!is_stopword_head(head, len));
        }
    }
}

/// The first 8 bytes of `bytes` from `base + s` (zero past its end), from the block `chunk`
/// (the 64 bytes at `base`) when they lie inside it.
#[inline(always)]
fn head_at(bytes: &[u8], base: usize, chunk: &[u8; 64], s: usize) -> u64 {
    match chunk
        .get(s..s + 8)
        .and_then(|h| <[u8; 8]>::try_from(h).ok())
    {
        Some(h) => u64::from_le_bytes(h),
        None => ascii::load(bytes, base + s),
    }
}

/// The blocks of ASCII bytes through [`Reading::ascii_block`], the others run by run.
impl ascii::WordRuns for Reading<'_, '_> {
    #[inline(always)]
    fn run(&mut self, start: usize, end: usize, high: bool, head: u64) {
        Reading::run(self, start, end, high, head);
    }

    #[inline(always)]
    fn block(
        &mut self,
        place: (&[u8], usize, &[u8; 64]),
        edges: u64,
        high: u64,
        inside: u64,
    ) -> Option<(usize, bool, u64)> {
        if high == 0 {
            self.ascii_block(place, edges, inside)
        } else {
            ascii::runs_in_block(place, edges, high, self)
        }
    }
}

impl Reading<'_, '_> {
    /// The words that start in the block `chunk` at `base`, all ASCII (`edges`: their starts
    /// and ends; `inside`: the block's `\w` bytes): counted from the block's bits, and only
    /// those `starts` lets through looked up (in text order); the others are read only to
    /// tell stopwords, when the count needs it. The word left open at the block's end, if
    /// any, is returned.
    #[inline(always)]
    fn ascii_block(
        &mut self,
        (bytes, base, chunk): (&[u8], usize, &[u8; 64]),
        edges: u64,
        inside: u64,
    ) -> Option<(usize, bool, u64)> {
        let mut first = edges & inside;
        let ends = edges & !inside;
        if first == 0 {
            return None;
        }
        let last = 63 - first.leading_zeros() as usize;
        let mut open = None;
        if ends >> last == 0 {
            open = Some((base + last, false, head_at(bytes, base, chunk, last)));
            first &= !(1 << last);
        }
        self.n_words += first.count_ones() as usize;
        let mut read = first & self.starts.may_start(&self.sets, chunk, inside);
        let mut rest = first & !read;
        while read != 0 {
            let s = read.trailing_zeros() as usize;
            read &= read - 1;
            let e = (ends & (u64::MAX << s)).trailing_zeros() as usize;
            let head = head_at(bytes, base, chunk, s);
            self.ascii_word(base + s, e.wrapping_sub(s), head);
        }
        // The other words are no answer's: only whether they are stopwords counts.
        if self.count || self.n_content == 0 {
            while rest != 0 {
                let s = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let e = (ends & (u64::MAX << s)).trailing_zeros() as usize;
                let head = head_at(bytes, base, chunk, s);
                self.n_content += usize::from(!is_stopword_head(head, e.wrapping_sub(s)));
                if !self.count && self.n_content > 0 {
                    break;
                }
            }
        }
        open
    }
}

/// What a response's words are to a row's answers.
#[derive(Default)]
struct ResponseWords {
    /// Its number of words, and of words that are not stopwords.
    n_words: usize,
    n_content: usize,
    /// `(id, is a stopword)` of each word the answers' vocabulary holds, in text order.
    found: Vec<(u32, bool)>,
    /// The word being read (a text that is not ASCII).
    word: String,
}

/// A word of a response's character path ends: count it (and whether it is a content word), and
/// record its id and stopword flag if the answers hold it; `word` (lower-cased) is cleared.
#[inline]
fn end_lowered_word(
    vocab: &Vocab,
    word: &mut String,
    found: &mut Vec<(u32, bool)>,
    n_words: &mut usize,
    n_content: &mut usize,
) {
    let stop = is_stopword(word);
    *n_words += 1;
    *n_content += usize::from(!stop);
    let id = vocab.get(word);
    if id != ABSENT {
        found.push((id, stop));
    }
    word.clear();
}
impl ResponseWords {
    /// Read the words of `text` (`re.findall(r"\w+", text.lower())`) once, looking each up in
    /// `vocab`. Its runs of ASCII `\w` bytes and non-ASCII bytes are found 64 bytes at a time
    /// ([`ascii::for_each_word_run`]); a run of ASCII bytes is a word, lower-cased and hashed in
    /// place, and only when the vocabulary may hold a word of its length and end bytes; a run
    /// with a non-ASCII character goes through Python's `lower()` a character at a time
    /// ([`ResponseWords::mixed_run`]). The other ASCII bytes lower-case to themselves and are
    /// not `\w`, so they end words in the lowered text too; only a capital sigma lower-cases by
    /// its context, and a text holding one is read whole through `str.lower()`.
    ///
    /// Without `count`, [`ResponseWords::n_kept`] is only right about being zero or not (token
    /// recall needs no more), and stopwords are looked up only until a word that is not one is
    /// found, and among the words the vocabulary holds.
    fn scan(
        &mut self,
        t: &Tables,
        text: &str,
        (vocab, index, starts): (&Vocab, &AsciiWords, &AnswerStarts),
        count: bool,
    ) {
        self.n_words = 0;
        self.n_content = 0;
        self.found.clear();
        let bytes = text.as_bytes();
        if crate::pyunicode::has_capital_sigma(text) {
            self.scan_lowered(t, text, vocab);
            return;
        }
        if starts.usable() {
            self.scan_blocks(t, text, (vocab, index, starts), count);
            return;
        }
        let (mut n_words, mut n_content) = (0, 0);
        let (found, word) = (&mut self.found, &mut self.word);
        ascii::for_each_word_run(
            bytes,
            #[inline(always)]
            |s, e, high, head| {
                if high {
                    let run = text.get(s..e).unwrap_or("");
                    let (words, content) = Self::mixed_run(t, run, vocab, word, found);
                    n_words += words;
                    n_content += content;
                    return;
                }
                n_words += 1;
                let id = index.find(vocab, bytes, s, e.wrapping_sub(s), head);
                if id != ABSENT {
                    let stop = is_ascii_stopword(bytes.get(s..e).unwrap_or(&[]));
                    n_content += usize::from(!stop);
                    found.push((id, stop));
                } else if count || n_content == 0 {
                    n_content += usize::from(!is_ascii_stopword(bytes.get(s..e).unwrap_or(&[])));
                }
            },
        );
        self.n_words = n_words;
        self.n_content = n_content;
    }

    /// [`ResponseWords::scan`] with the answers' word starts to filter on (`starts` usable):
    /// in a block of ASCII bytes, the words are counted from the block's bits and only those
    /// whose first two bytes may start an answer word are looked up, without a branch per word
    /// to choose them ([`Reading::ascii_block`]); the other blocks go run by run as
    /// [`ascii::for_each_word_run`] gives them ([`ascii::walk_word_runs`] walks the blocks).
    fn scan_blocks(
        &mut self,
        t: &Tables,
        text: &str,
        (vocab, index, starts): (&Vocab, &AsciiWords, &AnswerStarts),
        count: bool,
    ) {
        let mut r = Reading {
            t,
            text,
            vocab,
            index,
            count,
            found: &mut self.found,
            word: &mut self.word,
            n_words: 0,
            n_content: 0,
            starts,
            sets: starts.sets(),
        };
        ascii::walk_word_runs(text.as_bytes(), &mut r);
        self.n_words = r.n_words;
        self.n_content = r.n_content;
    }

    /// The words of `run`, a run of ASCII `\w` bytes and non-ASCII characters (no capital
    /// sigma), through Python's `lower()` a character at a time (out of line): its numbers of
    /// words and of words that are not stopwords.
    #[inline(never)]
    fn mixed_run(
        t: &Tables,
        run: &str,
        vocab: &Vocab,
        word: &mut String,
        found: &mut Vec<(u32, bool)>,
    ) -> (usize, usize) {
        word.clear();
        let (mut n_words, mut n_content) = (0, 0);
        let mut end_word = |word: &mut String| {
            end_lowered_word(vocab, word, found, &mut n_words, &mut n_content);
        };
        // `lower_char_each` and `is_word` written out, with one flag look-up per character.
        for c in run.chars() {
            if c.is_ascii() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c.to_ascii_lowercase());
                } else if !word.is_empty() {
                    end_word(word);
                }
                continue;
            }
            let flags = t.flags(c);
            if flags & CHANGES_WHEN_LOWERED == 0 {
                if flags & WORD != 0 {
                    word.push(c);
                } else if !word.is_empty() {
                    end_word(word);
                }
                continue;
            }
            for l in c.to_lowercase() {
                if t.is_word(l) {
                    word.push(l);
                } else if !word.is_empty() {
                    end_word(word);
                }
            }
        }
        if !word.is_empty() {
            end_word(word);
        }
        (n_words, n_content)
    }

    /// [`ResponseWords::scan`] of a text holding a capital sigma: the whole text through
    /// `str.lower()`, a character at a time.
    #[inline(never)]
    fn scan_lowered(&mut self, t: &Tables, text: &str, vocab: &Vocab) {
        let mut in_word = false;
        self.word.clear();
        let (word, found) = (&mut self.word, &mut self.found);
        let (mut n_words, mut n_content) = (0, 0);
        let mut end_word = |word: &mut String| {
            end_lowered_word(vocab, word, found, &mut n_words, &mut n_content);
        };
        t.for_each_lower(text, |c| {
            if t.is_word(c) {
                in_word = true;
                word.push(c);
            } else if in_word {
                in_word = false;
                end_word(word);
            }
            true
        });
        if in_word {
            end_word(word);
        }
        self.n_words = n_words;
        self.n_content = n_content;
    }

    /// The number of words kept: the non-stopwords, or all of them if none is left.
    fn n_kept(&self) -> usize {
        if self.n_content == 0 {
            self.n_words
        } else {
            self.n_content
        }
    }

    /// The ids of the kept words the vocabulary holds, in text order.
    fn kept(&self) -> impl Iterator<Item = u32> + '_ {
        let all = self.n_content == 0;
        self.found
            .iter()
            .filter(move |&&(_, stop)| all || !stop)
            .map(|&(id, _)| id)
    }
}

/// The words of one text: lower-cased `\w+` runs laid end to end, with stopword flags.
#[derive(Default)]
pub struct Words {
    buf: String,
    /// (end in `buf`, is a stopword) of each word.
    words: Vec<(usize, bool)>,
    n_content: usize,
}

impl Words {
    /// Tokenise `text` (one pass over it, lowering as it goes).
    pub fn fill(&mut self, t: &Tables, text: &str) {
        self.buf.clear();
        self.words.clear();
        let (buf, words) = (&mut self.buf, &mut self.words);
        if text.is_ascii() {
            // Python's `\w` on ASCII is `[A-Za-z0-9_]`; a run is copied and lowered whole.
            let bytes = text.as_bytes();
            let is_word = |b: u8| t.is_word(b as char);
            let mut i = 0;
            while i < bytes.len() {
                while bytes.get(i).is_some_and(|&b| !is_word(b)) {
                    i += 1;
                }
                let run = i;
                while bytes.get(i).is_some_and(|&b| is_word(b)) {
                    i += 1;
                }
                if let Some(word) = text.get(run..i).filter(|w| !w.is_empty()) {
                    let start = buf.len();
                    buf.push_str(word);
                    if let Some(lowered) = buf.get_mut(start..) {
                        lowered.make_ascii_lowercase();
                        let stop = is_stopword(lowered);
                        words.push((buf.len(), stop));
                    }
                }
            }
        } else {
            let mut run = WordRun::default();
            t.for_each_lower(text, |c| {
                run.step(t, c, buf, words);
                true
            });
            // A final non-word character closes the last word.
            run.step(t, ' ', buf, words);
        }
        self.n_content = self.words.iter().filter(|(_, stop)| !stop).count();
    }

    /// The words the reference keeps: the non-stopwords, or all of them if none is left.
    pub fn kept(&self) -> impl Iterator<Item = &str> + '_ {
        let all = self.n_content == 0;
        let mut start = 0;
        self.words.iter().filter_map(move |&(end, stop)| {
            let w = &self.buf[start..end];
            start = end;
            (all || !stop).then_some(w)
        })
    }
}

/// The word being read, character by character.
#[derive(Default)]
struct WordRun {
    start: usize,
    in_word: bool,
}

impl WordRun {
    #[inline(always)]
    fn step(&mut self, t: &Tables, c: char, buf: &mut String, words: &mut Vec<(usize, bool)>) {
        if t.is_word(c) {
            if !self.in_word {
                self.start = buf.len();
                self.in_word = true;
            }
            buf.push(c);
        } else if self.in_word {
            self.in_word = false;
            words.push((buf.len(), is_stopword(buf.get(self.start..).unwrap_or(""))));
        }
    }
}

/// Reusable buffers for scoring many rows.
#[derive(Default)]
pub struct Scratch {
    response: ResponseWords,
    words: Words,
    /// The words of a row's usable answers, interned together, and its ASCII ones indexed.
    vocab: Vocab,
    index: AsciiWords,
    starts: AnswerStarts,
    /// Each usable answer's kept words (ids in `vocab`), one after the other; `answers` holds
    /// each one's end in `item_ids` and its position in the row.
    item_ids: Vec<u32>,
    answers: Vec<(usize, u32)>,
    /// How often the response holds each answer word; the response's answer words in order.
    counts: Vec<u32>,
    sequence: Vec<u32>,
    used: Vec<u32>,
    lcs: DenseLcs,
}

/// The lexical metrics of one response against many answers.
pub struct Scorer<'s, 'r> {
    metric: Metric,
    response: &'r str,
    scratch: &'s mut Scratch,
    /// ROUGE-L's work left for this response (the length guard).
    work: u64,
    too_long: bool,
}

/// The reason of a row whose ROUGE-L would take more than its `max_work`.
pub const TOO_LONG_REASON: &str = "Texts too long: their ROUGE-L would take more than max_work \
steps (the length guard); raise max_work, or set it to None, to score them.";

/// `2PR / (P + R)` with the reference's own float operations; 0.0 when nothing matched.
#[inline]
pub fn f_measure(matched: usize, n_response: usize, n_reference: usize) -> f64 {
    if matched == 0 {
        return 0.0;
    }
    let p = matched as f64 / n_response as f64;
    let r = matched as f64 / n_reference as f64;
    2.0 * p * r / (p + r)
}

impl<'s, 'r> Scorer<'s, 'r> {
    /// Prepare to score `response` (null already read as `""`): its words are read by each
    /// [`Scorer::best`], against that call's answers.
    pub fn new(metric: Metric, response: &'r str, scratch: &'s mut Scratch) -> Self {
        Scorer {
            metric,
            response,
            scratch,
            work: u64::MAX,
            too_long: false,
        }
    }

    /// Bound ROUGE-L's work for this response (`None`: unbounded).
    pub fn with_max_work(mut self, max_work: Option<u64>) -> Self {
        self.work = max_work.unwrap_or(u64::MAX);
        self
    }

    /// Whether the last [`Scorer::best`] gave up because ROUGE-L would take more than the
    /// work allowed (it then returned `None`).
    pub fn too_long(&self) -> bool {
        self.too_long
    }

    /// The score of the response against one answer (a usable one: not blank).
    pub fn score(&mut self, t: &Tables, answer: &str) -> f64 {
        self.best(t, std::iter::once(Some(answer)))
            .map_or(0.0, |b| b.score)
    }

    /// The best score over `answers` (a null item is the text "None"; blank items are
    /// dropped): `(score, position of the first best, number of usable answers)`, or `None`
    /// when no answer is usable.
    pub fn best<'a>(
        &mut self,
        t: &Tables,
        answers: impl Iterator<Item = Option<&'a str>> + Clone,
    ) -> Option<Best<'a>> {
        let s = &mut *self.scratch;
        let texts = answers.clone();
        // The answers' kept words, interned together.
        s.vocab.clear();
        s.index.clear();
        s.starts.clear();
        s.item_ids.clear();
        s.answers.clear();
        for (i, answer) in answers.enumerate() {
            let text = answer.unwrap_or("None");
            if py_is_blank(text) {
                continue;
            }
            s.words.fill(t, text);
            for w in s.words.kept() {
                let n = s.vocab.len();
                let id = s.vocab.intern(w);
                if id as usize == n {
                    s.index.insert(w, id);
                    s.starts.insert(w.as_bytes());
                }
                s.item_ids.push(id);
            }
            s.answers.push((s.item_ids.len(), i as u32));
        }
        if s.answers.is_empty() {
            return None;
        }
        // The response's kept words that some answer has: their counts and their order.
        s.response.scan(
            t,
            self.response,
            (&s.vocab, &s.index, &s.starts),
            self.metric != Metric::TokenRecall,
        );
        let n_response = s.response.n_kept();
        s.counts.clear();
        s.counts.resize(s.vocab.len(), 0);
        s.sequence.clear();
        for id in s.response.kept() {
            if let Some(count) = s.counts.get_mut(id as usize) {
                *count += 1;
                s.sequence.push(id);
            }
        }
        if self.metric == Metric::RougeL {
            s.lcs.set_pattern(&s.sequence, s.vocab.len());
        }
        let mut best: Option<(f64, u32)> = None;
        let mut start = 0;
        for &(end, index) in &s.answers {
            let ids = s.item_ids.get(start..end).unwrap_or(&[]);
            start = end;
            let n_reference = ids.len();
            let score = match self.metric {
                Metric::TokenRecall => {
                    if n_reference == 0 {
                        0.0
                    } else {
                        overlap(&s.counts, &mut s.used, ids) as f64 / n_reference as f64
                    }
                }
                Metric::TokenF1 => f_measure(
                    overlap(&s.counts, &mut s.used, ids),
                    n_response,
                    n_reference,
                ),
                Metric::RougeL => match s.lcs.lcs_within(ids, &mut self.work) {
                    Some(common) => f_measure(common, n_response, n_reference),
                    None => {
                        self.too_long = true;
                        return None;
                    }
                },
            };
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, index));
            }
        }
        let (score, index) = best?;
        let text = texts
            .clone()
            .nth(index as usize)
            .flatten()
            .unwrap_or("None");
        Some(Best {
            score,
            index,
            text,
            count: s.answers.len() as u32,
        })
    }
}

/// The best answer of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Best<'a> {
    pub score: f64,
    /// Its position in the row's list.
    pub index: u32,
    /// Its text (`"None"` for a null item).
    pub text: &'a str,
    /// The number of usable answers in the row.
    pub count: u32,
}

/// Append `'text'`, clipped as the reference does: over 80 characters, the first 77 and "...".
pub fn push_quoted(out: &mut String, text: &str) {
    out.push('\'');
    match text.char_indices().nth(80) {
        None => out.push_str(text),
        Some(_) => {
            let cut = text.char_indices().nth(77).map_or(text.len(), |(i, _)| i);
            out.push_str(&text[..cut]);
            out.push_str("...");
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn score(metric: Metric, response: &str, answers: &[Option<&str>]) -> Option<(f64, u32)> {
        let t = test_tables::install();
        let mut scratch = Scratch::default();
        let mut s = Scorer::new(metric, response, &mut scratch);
        s.best(t, answers.iter().copied())
            .map(|b| (b.score, b.index))
    }

    #[test]
    fn words_follow_python() {
        let t = test_tables::install();
        let mut w = Words::default();
        w.fill(t, "The cat, THE hat_x² cafe\u{301}");
        assert_eq!(w.kept().collect::<Vec<_>>(), ["cat", "hat_x²", "cafe"]);
        w.fill(t, "a the A");
        assert_eq!(w.kept().collect::<Vec<_>>(), ["a", "the", "a"]);
        // lower() gives "i" + U+0307: "i" is a word of its own, and a stopword.
        w.fill(t, "İstanbul");
        assert_eq!(w.kept().collect::<Vec<_>>(), ["stanbul"]);
        w.fill(t, "");
        assert_eq!(w.kept().count(), 0);
    }

    #[test]
    fn the_response_scan_finds_the_kept_words() {
        // The response read once against a vocabulary, against its words filled, filtered and
        // looked up one by one, on random texts of ASCII and non-ASCII pieces.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            " ",
            ",",
            "_",
            "-",
            "the",
            "The",
            "THESE",
            "paris",
            "Paris",
            "x1",
            "X_1",
            "a",
            "I",
            "é",
            "É",
            "Σ",
            "İ",
            "²",
            "\u{301}",
            "ab",
            "AB",
            "being",
            "beings",
            "0",
            "\u{3000}",
            "\u{212a}",
            "—",
            "ß",
            "Straße",
            "THE_",
            "abcdefghij",
            "abcdefghik",
            "ABCDEFGHIk",
            "abcdefgh_j",
            "_",
            "__",
            "ABCDEFGHIJKLMNOPQ",
            ".",
            "\t",
        ];
        let mut next = crate::testing::lcg(17);
        let (mut vocab, mut words, mut scan) =
            (Vocab::default(), Words::default(), ResponseWords::default());
        let mut index = AsciiWords::default();
        let mut text = String::new();
        for round in 0..20_000 {
            if round % 50 == 0 {
                // A new answer vocabulary now and then.
                vocab.clear();
                for _ in 0..1 + next() % 6 {
                    let piece = PIECES[next() % PIECES.len()];
                    words.fill(t, piece);
                    for w in words.kept() {
                        vocab.intern(w);
                    }
                }
            }
            text.clear();
            // Long texts now and then, whose runs cross the scan's 64-byte blocks.
            let pieces = if round % 7 == 0 { 80 } else { 12 };
            for _ in 0..next() % pieces {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            words.fill(t, &text);
            let want: Vec<u32> = words
                .kept()
                .map(|w| vocab.get(w))
                .filter(|&id| id != ABSENT)
                .collect();
            let n_kept = if words.n_content == 0 {
                words.words.len()
            } else {
                words.n_content
            };
            index.fill(&vocab);
            // Through the block filter (usable with these few words), and without it.
            let mut starts = AnswerStarts::default();
            for w in vocab.tokens() {
                starts.insert(w.as_bytes());
            }
            assert!(starts.usable());
            let mut off = AnswerStarts::default();
            for b in b"abcdefghij" {
                off.insert(&[*b, *b]);
            }
            assert!(!off.usable());
            for count in [true, false] {
                for starts in [&starts, &off] {
                    scan.scan(t, &text, (&vocab, &index, starts), count);
                    assert_eq!(scan.kept().collect::<Vec<_>>(), want, "{text:?}");
                    if count {
                        assert_eq!(scan.n_kept(), n_kept, "{text:?}");
                    } else {
                        assert_eq!(scan.n_kept() == 0, n_kept == 0, "{text:?}");
                    }
                }
            }
        }
        for w in [
            "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "of", "to",
            "in", "on", "at", "for", "and", "or", "but", "it", "its", "this", "that", "these",
            "those", "with", "as", "by", "from", "i", "you", "we", "they", "he", "she",
        ] {
            assert!(is_ascii_stopword(w.to_uppercase().as_bytes()), "{w}");
        }
        assert!(!is_ascii_stopword(b"thes"));
    }

    #[test]
    fn ascii_words_are_split_and_flagged_as_python_does() {
        // ASCII texts of words, stopwords in any case, digits, `_` and separators: the words
        // kept against a plain split, lower-cased, with `is_stopword`.
        let t = test_tables::install();
        let mut next = crate::testing::lcg(31);
        let pieces = [
            "The",
            "a",
            "AN",
            "these",
            "Those",
            "thes",
            "being",
            "x_1",
            "_",
            "42",
            " ",
            ",",
            "-",
            "\n",
            "paris",
            "Paris",
            "i",
            "I",
            "abcdefghij",
        ];
        let mut w = Words::default();
        for _ in 0..3_000 {
            let text: String = (0..next() % 12)
                .map(|_| pieces[next() % pieces.len()])
                .collect();
            let lower = text.to_ascii_lowercase();
            let all: Vec<&str> = lower
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let content: Vec<&str> = all.iter().copied().filter(|w| !is_stopword(w)).collect();
            let want = if content.is_empty() { all } else { content };
            w.fill(t, &text);
            assert_eq!(w.kept().collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    #[test]
    fn block_members_agree_with_the_byte_loop() {
        let mut next = crate::testing::lcg(29);
        let sets: [&[u8]; 4] = [b"", b"a", b"t0\x7f", b"abcdefgh"];
        for _ in 0..2_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = (next() % 256) as u8;
            }
            for a in sets {
                for b in sets {
                    let got = ByteSets::new(a, b).members(&block);
                    assert_eq!(got, members_scalar(&block, a, b));
                }
            }
        }
        // Every byte value, in every lane.
        let mut block = [0u8; 64];
        for v in 0..=255u8 {
            block.fill(v);
            let (a, b) = ByteSets::new(b"q", b"\x7f").members(&block);
            assert_eq!(a, if v | 0x20 == b'q' { u64::MAX } else { 0 }, "{v}");
            assert_eq!(b, if v | 0x20 == 0x7f { u64::MAX } else { 0 }, "{v}");
        }
    }

    #[test]
    fn the_block_filter_keeps_words_at_block_edges() {
        // Answer words at every offset around the 64-byte blocks (lengths 15 to 17, 31 to 33,
        // 63 to 65...), among words that share their first byte, their second or neither, with
        // non-ASCII bytes across a boundary now and then: the same words, counts and order
        // through the filter as without it.
        let t = test_tables::install();
        let (mut vocab, mut index, mut words) =
            (Vocab::default(), AsciiWords::default(), Words::default());
        let mut scan = ResponseWords::default();
        let mut off = AnswerStarts::default();
        for b in b"abcdefghij" {
            off.insert(&[*b, *b]);
        }
        for answer in [
            "Paris x", "pa", "p", "PARISIAN", "p_q", "9", "é p", "the", "a be",
        ] {
            vocab.clear();
            words.fill(t, answer);
            let mut starts = AnswerStarts::default();
            for w in words.kept() {
                vocab.intern(w);
                starts.insert(w.as_bytes());
            }
            index.fill(&vocab);
            for pad in 0..140 {
                for tail in ["", "é", "ab", "\u{212a}"] {
                    let text = format!(
                        "{}Paris pb pa P. qa The {}p_q 9 x Parisian{tail} p",
                        "b".repeat(pad),
                        "y ".repeat(pad % 7),
                    );
                    let mut want = None;
                    for count in [true, false] {
                        for starts in [&off, &starts] {
                            scan.scan(t, &text, (&vocab, &index, starts), count);
                            let got = (scan.kept().collect::<Vec<_>>(), scan.n_kept());
                            let want = want.get_or_insert_with(|| got.clone());
                            if count {
                                assert_eq!(&got, want, "{text:?} {answer:?}");
                            } else {
                                assert_eq!(got.0, want.0, "{text:?} {answer:?}");
                                assert_eq!(got.1 == 0, want.1 == 0, "{text:?} {answer:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn spec_examples() {
        use Metric::*;
        assert_eq!(
            score(TokenRecall, "yes", &[Some("yes yes")]),
            Some((0.5, 0))
        );
        assert_eq!(
            score(TokenRecall, "the cat", &[Some("the")]),
            Some((0.0, 0))
        );
        assert_eq!(score(TokenRecall, "None", &[None]), Some((1.0, 0)));
        assert_eq!(
            score(TokenRecall, "x", &[Some("\x1c"), Some("\u{a0}")]),
            None
        );
        assert_eq!(score(TokenRecall, "x", &[Some("\u{200b}")]), Some((0.0, 0)));
        assert_eq!(
            score(
                TokenRecall,
                "Paris, France",
                &[Some("Lyon"), Some("France")]
            ),
            Some((1.0, 1))
        );
        let (f1, _) = score(TokenF1, "a b c d", &[Some("a c x")]).unwrap();
        assert!((f1 - 0.4).abs() < 1e-12);
        assert_eq!(score(RougeL, "b a", &[Some("a b")]), Some((1.0, 0)));
        assert_eq!(
            score(RougeL, "x y z", &[Some("z y x"), Some("y z")])
                .unwrap()
                .1,
            1
        );
    }

    #[test]
    fn first_best_wins_ties() {
        let got = score(
            Metric::TokenRecall,
            "a b",
            &[Some("c"), Some("b"), Some("b")],
        );
        assert_eq!(got, Some((1.0, 1)));
    }

    #[test]
    fn quoting_clips_at_80_characters() {
        let mut out = String::new();
        push_quoted(&mut out, &"é".repeat(80));
        assert_eq!(out.chars().count(), 82);
        out.clear();
        push_quoted(&mut out, &"é".repeat(81));
        assert_eq!(out, format!("'{}...'", "é".repeat(77)));
    }
}
