//! The token-recall rule's tokens of a row whose aliases' tokens are all short ASCII stems (most
//! rows): at most 64 tokens, each held as its [`ascii_stem_key`], which the response's and the
//! question's words are compared with directly, and which of them a text holds as one bit each.
//!
//! [`super::RecallTokens`] interns the tokens into a table first, which pays on long aliases; for
//! the few tokens of most rows, its set-up (the table, the per-token lists, the two-byte filter)
//! costs more than the comparisons it saves. Both give the same recall (the unit tests compare
//! them on generated rows).

use super::swar::each_word;
use super::{
    ascii_plural_base, ascii_stem_key, block, clear_pairs, for_each_word, pair_index, stem_into,
    WordAt,
};
use crate::answer_words::{is_stopword, may_be_listed_shape, number_word};
use crate::ascii;
use crate::pyunicode::Tables;

/// The most tokens a [`KeyRecall`] holds (one bit each in a `u64`).
const MAX_TOKENS: usize = 64;

/// A row's alias tokens by their keys, and which of them the response (and the question) hold.
#[derive(Default)]
pub(super) struct KeyRecall {
    /// Each alias's distinct token keys, one alias after the other; `ends[k]` ends alias `k`'s.
    keys: Vec<u64>,
    ends: Vec<usize>,
    /// The first bytes of the tokens, one bit each: a word that starts with no such byte has no
    /// token as its stem (a stem keeps its word's first byte unless stems are empty).
    first: [u64; 4],
    /// The first two bytes of the tokens, one bit each of 65,536 ([`super::pair_index`]; 1,024
    /// words once set), and the bits set, to clear them: a stem of two characters or more keeps
    /// its word's first two bytes. Set only for a long text (`pairs_ready`), where most words
    /// are skipped by them; a short one costs less than setting them.
    pairs: Vec<u64>,
    pairs_set: Vec<u16>,
    pairs_ready: bool,
    /// The first bytes of those pairs when there are at most [`LEADS`] (repeated to fill the
    /// four): [`KeyRecall::mark`] then finds the words that start with one of them a block at
    /// a time, where it looked at every word's pair.
    leads: Option<[u8; LEADS]>,
    /// The tokens that start with a decimal digit.
    digit: u64,
    /// The tokens the response holds; the question.
    pub(super) in_response: u64,
    pub(super) in_question: u64,
    stem: String,
    stops: StopCache,
    /// A question's word of over eight bytes, lower-cased ([`KeyRecall::mark_plain`]).
    plain: Vec<u8>,
    /// The keys of the content words of the response [`KeyRecall::may_share`] last read, when
    /// it read them all (each a short ASCII stem): [`KeyRecall::response_bits`] marks the tokens
    /// from them instead of reading the response again.
    resp_keys: [u64; SHARE_WORDS],
    resp_known: Option<usize>,
}

/// The most distinct first bytes of the tokens' pairs that [`KeyRecall::mark`] looks for a
/// block at a time ([`block::spaces_and_any`]).
const LEADS: usize = 4;

/// [`for_each_word`] of the words that start with one of `leads` (and that `skip` does not
/// turn away by their pair): the words that start with another byte are not looked at one by
/// one, but masked off with the block's word starts (the bytes equal to a lead).
fn for_each_led_word(
    text: &[u8],
    leads: &[u8; LEADS],
    skip: impl Fn(usize) -> bool,
    f: impl FnMut(WordAt) -> bool,
) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        if crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2, which is all the function needs.
            return unsafe { led_words_avx2(text, leads, skip, f) };
        }
    }
    for_each_led_word_by(text, leads, skip, f, block::spaces_and_any);
}

/// [`for_each_led_word`] compiled for AVX2: a block's masks 32 bytes at a time, and the words'
/// work inlined with them.
///
/// # Safety
/// The processor must have AVX2.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
unsafe fn led_words_avx2(
    text: &[u8],
    leads: &[u8; LEADS],
    skip: impl Fn(usize) -> bool,
    f: impl FnMut(WordAt) -> bool,
) {
    for_each_led_word_by(text, leads, skip, f, |block, leads| {
        block::avx2::spaces_and_any(block, leads)
    });
}

/// [`for_each_led_word`] with `spaces_and_any` giving a block's spaces and leads: the walk of
/// [`super::for_each_word_by`], with only the words that start with a lead.
#[inline(always)]
fn for_each_led_word_by(
    text: &[u8],
    leads: &[u8; LEADS],
    skip: impl Fn(usize) -> bool,
    f: impl FnMut(WordAt) -> bool,
    spaces_and_any: impl Fn(&[u8; 64], &[u8; LEADS]) -> (u64, u64),
) {
    super::for_each_word_by(text, skip, f, |head| spaces_and_any(head, leads));
}

/// The most content words of a response [`KeyRecall::may_share`] reads.
const SHARE_WORDS: usize = 4;

/// [`is_stopword`] of the words of eight bytes or less met so far, by their bytes: most words
/// come back from row to row, and one compare then replaces the word list's branches.
#[derive(Default)]
struct StopCache {
    /// Direct-mapped: each slot a word's bytes (zero-padded), its length (0: empty) and the
    /// answer.
    slots: Vec<(u64, u8, bool)>,
}

/// The slots of a [`StopCache`] (a power of two).
const STOP_SLOTS: usize = 1024;

impl StopCache {
    /// Whether `word`, whose first eight bytes (zero-padded) are `head`, is a stop word.
    #[inline(always)]
    fn is_stopword(&mut self, word: &str, head: u64) -> bool {
        let n = word.len();
        if n > 8 || n == 0 {
            return is_stopword(word);
        }
        if self.slots.len() != STOP_SLOTS {
            self.slots = vec![(0, 0, false); STOP_SLOTS];
        }
        let bytes = head & low_bytes(n);
        let at = (bytes
            .wrapping_add(n as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            >> 54) as usize;
        match self.slots.get_mut(at & (STOP_SLOTS - 1)) {
            Some(slot) if slot.0 == bytes && usize::from(slot.1) == n => slot.2,
            Some(slot) => {
                let stop = is_stopword(word);
                *slot = (bytes, n as u8, stop);
                stop
            }
            None => is_stopword(word),
        }
    }
}

/// The key of the token that is the stem of `word`, when that stem is a short ASCII one: as
/// [`super::RecallTokens`] interns an alias's word and looks up a response's.
#[inline(always)]
fn token_key(t: &Tables, word: &str, prefix: Option<usize>, stem: &mut String) -> Option<u64> {
    if let Some(key) = ascii_stem_key(word.as_bytes(), prefix) {
        return Some(key);
    }
    stem.clear();
    stem_into(t, word, prefix, stem);
    ascii_stem_key(stem.as_bytes(), None)
}

const HIGH: u64 = 0x8080_8080_8080_8080;

const ONES: u64 = 0x0101_0101_0101_0101;

/// The longest question [`KeyRecall::mark_plain`] reads (a multiple of 64).
const PLAIN_MAX: usize = 512;

/// The high bit of each byte of `x` (all below 0x80) that is `c`.
#[inline(always)]
fn equal(x: u64, c: u8) -> u64 {
    ascii::in_range(x, c, c)
}

/// The eight bytes of `b` from `at` as a little-endian word, zero past the end: the last ones
/// of a text of eight bytes or more with one load (the eight that end it, shifted).
#[inline(always)]
fn load_at(b: &[u8], at: usize) -> u64 {
    if let Some(chunk) = b.get(at..).and_then(|r| r.first_chunk::<8>()) {
        return u64::from_le_bytes(*chunk);
    }
    let rest = b.len().saturating_sub(at);
    let tail = b.len().checked_sub(8).and_then(|from| b.get(from..));
    match tail.and_then(|r| r.first_chunk::<8>()) {
        Some(last) if rest > 0 => u64::from_le_bytes(*last) >> (8 * (8 - rest)),
        _ => ascii::load(b, at),
    }
}

/// The low `n` bytes of a word set (all of them from 8 on).
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

/// [`token_key`] of `word`, whose first eight bytes (zero-padded) are `head`: an ASCII word of
/// eight bytes or less is tested and keyed from `head`, without reading it again.
#[inline(always)]
fn word_key(
    t: &Tables,
    word: &str,
    head: u64,
    prefix: Option<usize>,
    stem: &mut String,
) -> Option<u64> {
    let token = word.as_bytes();
    let n = token.len();
    if n > 8 || head & HIGH & low_bytes(n) != 0 {
        return token_key(t, word, prefix, stem);
    }
    // `ascii_stem_key` of an ASCII token (a longer stem has no key either way).
    let (keep, y) = match prefix {
        Some(prefix) if !token.first().is_some_and(u8::is_ascii_digit) => {
            let (base, y) = ascii_plural_base(token);
            (base.min(prefix), y && base < prefix)
        }
        _ => (n, false),
    };
    if keep + usize::from(y) > 8 {
        return None;
    }
    let key = head & low_bytes(keep);
    Some(if y {
        key | u64::from(b'y') << (8 * keep)
    } else {
        key
    })
}

/// The tokens of `keys` that are the stem of `word` (of a normalised text; its first eight
/// bytes, zero-padded, are `head`), one bit each: none for a stop word.
#[inline(always)]
fn word_bits(
    t: &Tables,
    keys: &[u64],
    stops: &mut StopCache,
    stem: &mut String,
    word: &str,
    head: u64,
    prefix: Option<usize>,
) -> u64 {
    if stops.is_stopword(word, head) {
        return 0;
    }
    let Some(key) = word_key(t, word, head, prefix, stem) else {
        return 0;
    };
    let mut bits = 0u64;
    for (k, &token) in keys.iter().enumerate() {
        bits |= u64::from(token == key) << k;
    }
    bits
}

impl KeyRecall {
    /// Hold the content tokens of the normalised aliases; `false` (and nothing usable) when one
    /// of them is no short ASCII stem, or when there are more than [`MAX_TOKENS`].
    pub(super) fn build<'s>(
        &mut self,
        t: &Tables,
        aliases: impl Iterator<Item = &'s str>,
        prefix: Option<usize>,
    ) -> bool {
        self.keys.clear();
        self.ends.clear();
        self.first = [0; 4];
        self.digit = 0;
        self.pairs_ready = false;
        for alias in aliases {
            let start = self.keys.len();
            let mut fits = true;
            each_word(alias, |word, head| {
                if self.stops.is_stopword(word, head) {
                    return true;
                }
                let Some(key) = word_key(t, word, head, prefix, &mut self.stem) else {
                    fits = false;
                    return false;
                };
                if self.keys.get(start..).is_some_and(|own| own.contains(&key)) {
                    return true;
                }
                if self.keys.len() == MAX_TOKENS {
                    fits = false;
                    return false;
                }
                // The stem's first byte (a key holds no zero byte but its padding).
                let b = key as u8;
                if key != 0 {
                    if let Some(w) = self.first.get_mut(usize::from(b >> 6)) {
                        *w |= 1 << (b & 63);
                    }
                }
                if b.is_ascii_digit() {
                    self.digit |= 1 << self.keys.len();
                }
                self.keys.push(key);
                true
            });
            if !fits {
                return false;
            }
            self.ends.push(self.keys.len());
        }
        true
    }

    /// Whether the normalised response `resp` may hold a token of the normalised `aliases`:
    /// `false` only when no content word of the response has the stem of a content word of an
    /// alias. Then the response holds no token, whether the tokens are held by their keys or
    /// interned ([`super::RecallTokens`]), and every alias's token recall is 0 whatever the
    /// question gives away: the tokens need not even be built. Most short responses that no
    /// other rule accepts share no word with the aliases.
    ///
    /// Only a short response is read, and only when its content words are at most `FEW` short
    /// ASCII stems; any other response may hold a token (`true`). An alias's words are then
    /// found 64 bytes at a time, and only those that start as a response word does are stemmed:
    /// with the same first two bytes ([`pair_index`]; a stem of two characters or more keeps
    /// its word's, and one of one character is its word), or the same first byte when stems
    /// keep one character. Stems of none (a prefix of 0) are not read.
    pub(super) fn may_share<'s>(
        &mut self,
        t: &Tables,
        aliases: impl Iterator<Item = &'s str>,
        resp: &str,
        prefix: Option<usize>,
    ) -> bool {
        /// The most content words of a response this reads, and its longest text.
        const FEW: usize = SHARE_WORDS;
        const SHORT: usize = 64;
        self.resp_known = None;
        if prefix == Some(0) || resp.len() > SHORT {
            return true;
        }
        let (stops, stem) = (&mut self.stops, &mut self.stem);
        // The content words' keys and first two bytes (of the first alone: its high byte).
        let mut keys = [0u64; FEW];
        let mut pairs = [usize::MAX; FEW];
        let (mut n, mut fits) = (0, true);
        each_word(resp, |word, head| {
            if stops.is_stopword(word, head) {
                return true;
            }
            let (Some(key), Some(k), Some(p)) = (
                word_key(t, word, head, prefix, stem),
                keys.get_mut(n),
                pairs.get_mut(n),
            ) else {
                fits = false;
                return false;
            };
            *k = key;
            *p = pair_index(word.as_bytes());
            n += 1;
            true
        });
        if !fits {
            return true;
        }
        if n == 0 {
            // No content word: the response holds no token.
            return false;
        }
        self.resp_keys = keys;
        self.resp_known = Some(n);
        let keys = keys.get(..n).unwrap_or(&[]);
        let by_first = prefix == Some(1);
        if by_first {
            for p in &mut pairs {
                *p >>= 8;
            }
        }
        let mut shared = false;
        for alias in aliases {
            let bytes = alias.as_bytes();
            for_each_word(
                bytes,
                |pair| !pairs.contains(&if by_first { pair >> 8 } else { pair }),
                |w| {
                    let Some(word) = alias.get(w.start..w.end(bytes)) else {
                        return true;
                    };
                    let head = ascii::load(bytes, w.start);
                    // A word whose stem is no short ASCII one equals none of the response's.
                    shared = word_key(t, word, head, prefix, stem)
                        .is_some_and(|key| keys.contains(&key) && !stops.is_stopword(word, head));
                    !shared
                },
            );
            if shared {
                return true;
            }
        }
        false
    }

    /// [`KeyRecall::mark`] of the response that [`KeyRecall::may_share`] read last (the tokens
    /// it holds, one bit each, of the tokens built since), from the keys of its content words
    /// kept then: `None` when it did not keep them (a long response, a word that is no short
    /// ASCII stem, more than [`SHARE_WORDS`] content words, stems of none). Taken once: a
    /// second call gives `None` until `may_share` reads a response again.
    ///
    /// A word marks the tokens that equal its key, and a stop word or a word without a key
    /// none, in both; `mark` skips the words that start with no token's first byte, which equal
    /// no token either.
    pub(super) fn response_bits(&mut self) -> Option<u64> {
        let n = self.resp_known.take()?;
        let mut held = 0u64;
        for &key in self.resp_keys.get(..n).unwrap_or(&[]) {
            for (k, &token) in self.keys.iter().enumerate() {
                held |= u64::from(token == key) << k;
            }
        }
        Some(held)
    }

    /// Set the bits of the tokens' first two bytes ([`KeyRecall::pairs`]).
    fn set_pairs(&mut self) {
        clear_pairs(&mut self.pairs, &mut self.pairs_set);
        let mut leads = [0u8; LEADS];
        let mut n_leads = 0;
        for &key in &self.keys {
            // The stem's bytes: the key's up to its first zero (a space for a missing second).
            let len = 8 - (key.leading_zeros() / 8) as usize;
            let bytes = key.to_le_bytes();
            let pair = pair_index(bytes.get(..len).unwrap_or(&[]));
            if let Some(w) = self.pairs.get_mut(pair >> 6) {
                *w |= 1 << (pair & 63);
                self.pairs_set.push(pair as u16);
            }
            // The pair's first byte (a word's pair can only be set if its first byte is one).
            let lead = (pair >> 8) as u8;
            if !leads.get(..n_leads).unwrap_or(&[]).contains(&lead) {
                if let Some(slot) = leads.get_mut(n_leads) {
                    *slot = lead;
                }
                n_leads += 1;
            }
        }
        self.leads = (1..=LEADS).contains(&n_leads).then(|| {
            let mut all = leads;
            for slot in all.iter_mut().skip(n_leads) {
                *slot = leads[0];
            }
            all
        });
        self.pairs_ready = true;
    }

    /// The tokens the normalised `text` holds, one bit each.
    pub(super) fn mark(&mut self, t: &Tables, text: &str, prefix: Option<usize>) -> u64 {
        let n = self.keys.len();
        if n == 0 {
            return 0;
        }
        let all = u64::MAX >> (MAX_TOKENS - n);
        // A word whose stem can be no token is skipped before it is stemmed: by its first two
        // bytes, or its first one when stems keep one character. Empty stems (a prefix of 0)
        // keep neither: every word is then looked at.
        let by_first = prefix != Some(0);
        // Below this many bytes, a word at a time, by the first byte only; past it, 64 bytes at
        // a time and by the first two, whose set-up a short text does not repay.
        const LONG: usize = 128;
        let by_pair = by_first && prefix != Some(1) && text.len() > LONG;
        if by_pair && !self.pairs_ready {
            self.set_pairs();
        }
        let mut held = 0u64;
        let (keys, stem, stops) = (&self.keys, &mut self.stem, &mut self.stops);
        // The word's bits, and whether a token is still to be found.
        let mut take = |word: &str, head: u64| {
            held |= word_bits(t, keys, stops, stem, word, head, prefix);
            held != all
        };
        let bytes = text.as_bytes();
        if by_pair {
            let Some(pairs) = self.pairs.first_chunk::<1024>() else {
                return 0;
            };
            let skip = |pair: usize| pairs[pair >> 6] & (1 << (pair & 63)) == 0;
            let visit = |w: WordAt| {
                let end = w.end(bytes);
                text.get(w.start..end)
                    .is_none_or(|word| take(word, ascii::load(bytes, w.start)))
            };
            match self.leads {
                Some(leads) => for_each_led_word(bytes, &leads, skip, visit),
                None => for_each_word(bytes, skip, visit),
            }
            return held;
        }
        let first = &self.first;
        each_word(text, |word, head| {
            let b = head as u8;
            if by_first
                && first
                    .get(usize::from(b >> 6))
                    .is_none_or(|w| w & (1 << (b & 63)) == 0)
            {
                return true;
            }
            take(word, head)
        });
        held
    }

    /// [`KeyRecall::mark`] of the normalisation of `text` (a question, as written), read from
    /// `text` itself: `None` when it holds a byte other than an ASCII letter and the ASCII
    /// bytes the normalisation reads as plain separators (all but the decimal digits, `/`, `_`,
    /// `.` and `'`; `/` is refused with the digits, one range test), or is over
    /// [`PLAIN_MAX`] bytes. Nothing rewrites such a text: its normal form's words are its runs
    /// of letters, lower-cased, but the articles (stop words, which no token is) and, with
    /// `number_words`, with a number word read as its digits (an ordinal suffix and a glued
    /// year need a digit, a mark a `.` or an apostrophe, and mojibake or a folding a
    /// non-ASCII byte). Most questions are such texts, and this spares their normalisation,
    /// which costs more than their marking.
    ///
    /// The text is classified eight bytes at a time, into one bit per letter; a word is then
    /// looked at only when a token starts with its first letter (as [`KeyRecall::mark`] skips
    /// words), which most of a question's words do not, and only such a word is lower-cased.
    pub(super) fn mark_plain(
        &mut self,
        t: &Tables,
        text: &str,
        prefix: Option<usize>,
        number_words: bool,
    ) -> Option<u64> {
        let n = self.keys.len();
        if n == 0 {
            return Some(0);
        }
        let b = text.as_bytes();
        if b.len() > PLAIN_MAX {
            return None;
        }
        // One bit per letter, 64 bytes a word.
        let mut masks = [0u64; PLAIN_MAX / 64];
        let mut at = 0;
        while at < b.len() {
            let x = load_at(b, at);
            // (A byte of 0x80 or more is refused before the range tests read it.)
            let low = x & !HIGH;
            let refused = (x & HIGH)
                | ascii::in_range(low, b'.', b'9')
                | equal(low, b'_')
                | equal(low, b'\'');
            if refused != 0 {
                return None;
            }
            // Setting bit 5 lower-cases a letter and makes no other byte one.
            let letters = ascii::in_range(x | (ONES * 0x20), b'a', b'z');
            // The letters' high bits gathered into the low byte, one bit each, in order.
            let bits = (letters >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            if let Some(m) = masks.get_mut(at / 64) {
                *m |= bits << (at & 63);
            }
            at += 8;
        }
        let blocks = masks.get(..b.len().div_ceil(64)).unwrap_or(&[]);
        let all = u64::MAX >> (MAX_TOKENS - n);
        // Number words are read only when a token starts with a digit: no other token is a
        // number's stem, and a number word as written is no token either (its alias was
        // normalised with the same option), so the first-letter test may skip it.
        let numbers = number_words && self.digit != 0;
        let by_first = prefix != Some(0) && !numbers;
        // Then by its first two: a stem of two characters or more keeps its word's (see
        // [`pair_index`]), and one of one character is its word of one letter; but stems of
        // one character keep only the first.
        let by_pair = by_first && prefix != Some(1);
        let (keys, first, stem, stops) = (&self.keys, &self.first, &mut self.stem, &mut self.stops);
        let long = &mut self.plain;
        let mut held = 0u64;
        let mut carry = 0u64;
        for (j, &m) in blocks.iter().enumerate() {
            let mut starts = m & !((m << 1) | carry);
            carry = m >> 63;
            while starts != 0 {
                let start = 64 * j + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                let c = b.get(start).map_or(0, |&c| c | 0x20);
                if by_first
                    && first
                        .get(usize::from(c >> 6))
                        .is_none_or(|w| w & (1 << (c & 63)) == 0)
                {
                    continue;
                }
                if by_pair {
                    // The word's first two letters (its one letter) as a key's low bytes.
                    let second = b.get(start + 1).map_or(0, |&x| x | 0x20);
                    let pair = if second.is_ascii_lowercase() {
                        u64::from(c) | u64::from(second) << 8
                    } else {
                        u64::from(c)
                    };
                    if !keys.iter().any(|&k| k & 0xffff == pair) {
                        continue;
                    }
                }
                // The word ends at the first byte that is no letter (the text's end is one).
                let (mut i, mut next) = (j, m | ((1u64 << (start & 63)) - 1));
                let end = loop {
                    if next != u64::MAX {
                        break 64 * i + (!next).trailing_zeros() as usize;
                    }
                    i += 1;
                    match blocks.get(i) {
                        Some(&x) => next = x,
                        None => break b.len(),
                    }
                }
                .min(b.len());
                let len = end - start;
                // Its first eight bytes lower-cased (the bytes past a short word are not read).
                let head = load_at(b, start) | (ONES * 0x20);
                let bytes = head.to_le_bytes();
                let word = match bytes.get(..len) {
                    Some(short) => short,
                    None => {
                        long.clear();
                        long.extend(b.get(start..end).unwrap_or(&[]).iter().map(|&x| x | 0x20));
                        long.as_slice()
                    }
                };
                let listed =
                    number_words && word.last().is_some_and(|&l| may_be_listed_shape(len, c, l));
                let (word, head) = match listed.then(|| number_word(word)).flatten() {
                    Some(digits) => (digits.as_bytes(), ascii::load_short(digits.as_bytes())),
                    None => (word, head),
                };
                // SAFETY: `word` is ASCII (letters of `text`, or a number's digits).
                debug_assert!(word.is_ascii());
                let word = unsafe { std::str::from_utf8_unchecked(word) };
                held |= word_bits(t, keys, stops, stem, word, head, prefix);
                if held == all {
                    return Some(held);
                }
            }
        }
        Some(held)
    }

    /// The tokens of alias `k`, one bit each (none past the last alias built).
    #[inline]
    fn alias_bits(&self, k: usize) -> u64 {
        let start = if k == 0 {
            0
        } else {
            self.ends.get(k - 1).copied().unwrap_or(0)
        };
        let end = self.ends.get(k).copied().unwrap_or(start);
        let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        below(end) & !below(start)
    }

    /// Whether what the question holds can change the recall of an alias: one whose tokens the
    /// response holds some of but not all (and that the numbers rule does not zero). Of none or
    /// of all, the recall is 0 or 1 whatever the question gives away.
    pub(super) fn question_matters(&self, n_aliases: usize, numbers_must_match: bool) -> bool {
        (0..n_aliases).any(|k| {
            let bits = self.alias_bits(k);
            let hits = self.in_response & bits;
            let zeroed = numbers_must_match && self.digit & bits & !self.in_response != 0;
            hits != 0 && hits != bits && !zeroed
        })
    }

    /// [`super::RecallTokens::recall`] of alias `k` from the bits marked.
    pub(super) fn recall(&self, k: usize, numbers_must_match: bool, question: bool) -> f64 {
        let bits = self.alias_bits(k);
        let held = self.in_response & bits;
        if numbers_must_match && self.digit & bits & !held != 0 {
            return 0.0;
        }
        let (n_all, hits_all) = (bits.count_ones(), held.count_ones());
        let new = if question {
            bits & !self.in_question
        } else {
            bits
        };
        let (n_new, hits_new) = (new.count_ones(), (new & held).count_ones());
        if n_new > 0 {
            f64::from(hits_new) / f64::from(n_new)
        } else if n_all > 0 {
            f64::from(hits_all) / f64::from(n_all)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::RecallTokens;
    use super::*;
    use crate::pyunicode::test_tables;

    /// `for_each_led_word` reports the words `for_each_word` reports whose first byte is a
    /// lead, in order, with the same ends; on texts across blocks, the last one padded, and a
    /// stop part way.
    #[test]
    fn the_led_words_are_the_words_that_start_with_a_lead() {
        let words = [
            "a",
            "ab",
            "ba",
            "abc",
            "zz",
            "\u{e9}t\u{e9}",
            "b",
            "x1",
            "\0a",
            "aa",
        ];
        let mut next = crate::testing::lcg(9);
        for _ in 0..3_000 {
            let text = crate::testing::spaced_words(&words, next() % 60, &mut next);
            let bytes = text.as_bytes();
            let pool = b"abz\xc3\0x";
            let n = 1 + next() % LEADS;
            let mut leads = [0u8; LEADS];
            for slot in &mut leads {
                *slot = pool[next() % pool.len()];
            }
            let first = leads[0];
            for slot in leads.iter_mut().skip(n) {
                *slot = first;
            }
            let banned = next() % 0x80;
            let skip = |pair: usize| pair & 0x7f == banned;
            let stop = next() % 20;
            let collect = |led: Option<bool>| {
                let mut seen = Vec::new();
                let visit = |w: WordAt| {
                    seen.push((w.start, w.end(bytes)));
                    seen.len() != stop
                };
                if led == Some(true) {
                    for_each_led_word(bytes, &leads, skip, visit);
                } else if led == Some(false) {
                    // The block masks without AVX2 (SSE2, or bytes on the portable build).
                    for_each_led_word_by(bytes, &leads, skip, visit, |block, leads| {
                        block::spaces_and_any(block, leads)
                    });
                } else {
                    for_each_word(
                        bytes,
                        |pair| !leads.contains(&((pair >> 8) as u8)) || skip(pair),
                        visit,
                    );
                }
                seen
            };
            let want = collect(None);
            assert_eq!(collect(Some(true)), want, "{text:?} {leads:?}");
            assert_eq!(collect(Some(false)), want, "{text:?} {leads:?}");
        }
    }

    /// On generated aliases, responses and questions (ASCII and not, stems around the keys'
    /// eight bytes, numbers, stop words, every prefix), the keys' recall is the interned
    /// tokens' whenever the keys hold the aliases; and a question that does not matter by
    /// [`KeyRecall::question_matters`] changes no recall.
    #[test]
    fn key_recall_agrees_with_the_interned_tokens() {
        let t = test_tables::install();
        let words = crate::testing::stem_words(&["parisé"]);
        let mut next = crate::testing::lcg(44);
        let (mut keyed_rows, mut rows) = (0, 0);
        for prefix in [None, Some(0), Some(1), Some(2), Some(6), Some(8), Some(9)] {
            for _ in 0..400 {
                let text = |max: usize, next: &mut dyn FnMut() -> usize| {
                    let n = next() % (max + 1);
                    crate::testing::spaced_words(&words, n, next)
                };
                let aliases: Vec<String> =
                    (0..1 + next() % 3).map(|_| text(4, &mut next)).collect();
                let response = text(12, &mut next);
                let question = text(8, &mut next);
                let spans = || aliases.iter().map(String::as_str);
                let mut keyed = KeyRecall::default();
                rows += 1;
                if !keyed.build(t, spans(), prefix) {
                    continue;
                }
                keyed_rows += 1;
                let mut tokens = RecallTokens::default();
                tokens.build(t, spans(), prefix);
                tokens.mark(t, &response, prefix, false);
                tokens.mark(t, &question, prefix, true);
                keyed.in_response = keyed.mark(t, &response, prefix);
                let marked = keyed.mark(t, &question, prefix);
                for nmm in [false, true] {
                    let matters = keyed.question_matters(aliases.len(), nmm);
                    for k in 0..aliases.len() + 1 {
                        keyed.in_question = marked;
                        for question in [false, true] {
                            let want = tokens.recall(k, nmm, question);
                            let got = keyed.recall(k, nmm, question);
                            assert_eq!(
                                got.to_bits(),
                                want.to_bits(),
                                "{aliases:?} {response:?} {question:?} {prefix:?} {k}"
                            );
                        }
                        if !matters {
                            keyed.in_question = 0;
                            let got = keyed.recall(k, nmm, true);
                            assert_eq!(got.to_bits(), tokens.recall(k, nmm, true).to_bits());
                        }
                    }
                }
            }
        }
        // Most generated rows are held by their keys, and some are not.
        assert!(
            keyed_rows > rows / 2 && keyed_rows < rows,
            "{keyed_rows} of {rows}"
        );
    }

    /// Words around the keys' eight bytes (stems, their prefixes, a non-ASCII one) that the
    /// generated rows of the tests below draw from, beside the stem words.
    const AROUND_KEYS: [&str; 8] = [
        "is",
        "paris",
        "them",
        "there",
        "thereafter",
        "iss",
        "cand",
        "parisé",
    ];

    /// Up to `max` of `words`, spaced (the count drawn first).
    fn spaced_up_to(words: &[&str], max: usize, next: &mut dyn FnMut() -> usize) -> String {
        let n = next() % (max + 1);
        crate::testing::spaced_words(words, n, next)
    }

    /// A generated row: one to three aliases of up to six of `words`, and a response of up to
    /// one to six of them.
    fn random_row(words: &[&str], next: &mut dyn FnMut() -> usize) -> (Vec<String>, String) {
        let count = 1 + next() % 3;
        let aliases = (0..count).map(|_| spaced_up_to(words, 6, next)).collect();
        let max = 1 + next() % 6;
        (aliases, spaced_up_to(words, max, next))
    }

    /// Where [`KeyRecall::may_share`] says a response shares no word with the aliases, the
    /// interned tokens' full read finds no token in it and every recall is 0, with and without
    /// the question; on generated rows (stems around the keys' eight bytes, stop words, numbers,
    /// non-ASCII words, every prefix), of which it says so of many and not of others.
    #[test]
    fn a_response_that_shares_no_word_holds_no_token() {
        let t = test_tables::install();
        let words = crate::testing::stem_words(&AROUND_KEYS);
        let mut next = crate::testing::lcg(7);
        let (mut apart, mut rows) = (0, 0);
        let mut keyed = KeyRecall::default();
        for prefix in [None, Some(0), Some(1), Some(2), Some(6), Some(8), Some(9)] {
            for _ in 0..3000 {
                let (aliases, response) = random_row(&words, &mut next);
                let question = spaced_up_to(&words, 8, &mut next);
                let spans = || aliases.iter().map(String::as_str);
                rows += 1;
                if keyed.may_share(t, spans(), &response, prefix) {
                    continue;
                }
                apart += 1;
                let mut tokens = RecallTokens::default();
                tokens.build(t, spans(), prefix);
                tokens.mark(t, &response, prefix, false);
                tokens.mark(t, &question, prefix, true);
                assert!(
                    !tokens.in_response.contains(&true),
                    "{aliases:?} {response:?} {prefix:?}"
                );
                for k in 0..aliases.len() {
                    for nmm in [false, true] {
                        for q in [false, true] {
                            assert_eq!(tokens.recall(k, nmm, q).to_bits(), 0.0f64.to_bits());
                        }
                    }
                }
            }
        }
        assert!(
            apart > rows / 5 && apart < rows * 4 / 5,
            "{apart} of {rows}"
        );
    }

    /// [`KeyRecall::response_bits`], from the words [`KeyRecall::may_share`] kept, marks what
    /// [`KeyRecall::mark`] marks reading the response again, on generated rows (stems around
    /// the keys' eight bytes, stop words, numbers, non-ASCII words, every prefix); it keeps the
    /// words of many responses, not of others, and is taken once.
    #[test]
    fn kept_response_words_mark_as_the_response() {
        let t = test_tables::install();
        let words = crate::testing::stem_words(&[AROUND_KEYS.as_slice(), &["42"]].concat());
        let mut next = crate::testing::lcg(4242);
        let (mut kept, mut shared, mut rows) = (0, 0, 0);
        let mut keyed = KeyRecall::default();
        for prefix in [None, Some(0), Some(1), Some(2), Some(6), Some(8), Some(9)] {
            for _ in 0..3000 {
                let (aliases, response) = random_row(&words, &mut next);
                let spans = || aliases.iter().map(String::as_str);
                rows += 1;
                if !keyed.may_share(t, spans(), &response, prefix) {
                    continue;
                }
                shared += 1;
                if !keyed.build(t, spans(), prefix) {
                    continue;
                }
                let Some(bits) = keyed.response_bits() else {
                    continue;
                };
                kept += 1;
                assert_eq!(
                    bits,
                    keyed.mark(t, &response, prefix),
                    "{aliases:?} {response:?} {prefix:?}"
                );
                assert_eq!(keyed.response_bits(), None);
            }
        }
        assert!(
            kept > shared / 20 && kept < shared && shared < rows,
            "{kept} of {shared} of {rows}"
        );
    }

    /// [`KeyRecall::mark_plain`] of a question as written marks what [`KeyRecall::mark`] marks
    /// of its normal form, whenever it reads the question: on generated questions of alias
    /// words, stop words, articles, number words (with and without `number_words`), words of
    /// any case and of over eight letters, between plain separators, past 64 bytes (words
    /// across a block's end) and past its longest, with now and then a byte it must refuse (a
    /// digit, a mark, `_`, `/`, a non-ASCII letter); every prefix. It reads many of them, marks
    /// tokens in many, and refuses the others.
    #[test]
    fn plain_questions_mark_as_their_normal_form() {
        let t = test_tables::install();
        let mut words = crate::testing::stem_words(&[
            "is",
            "island",
            "islands",
            "it",
            "two",
            "second",
            "seconds",
            "thirteenth",
            "13",
            "2",
            "an",
            "paris",
            "what",
            "whatever",
        ]);
        words.retain(|w| w.is_ascii());
        let seps = [
            " ", " ", " ", "? ", ", ", "-", " (", ") ", "\t", ":", "!", "\"", ",,",
        ];
        let refused = [
            ".", "'", "_", "3", "é", "/", "’", "a.b", "x's", "ab'c", "cat's", "b_c", "3rd", "1,000",
        ];
        let mut next = crate::testing::lcg(4444);
        let mut norm = super::super::Normalizer::default();
        let (mut read, mut marked, mut rows) = (0, 0, 0);
        let mut keyed = KeyRecall::default();
        let mut normal = String::new();
        let mut alias_text = Vec::new();
        for prefix in [None, Some(0), Some(1), Some(2), Some(6), Some(8)] {
            for number_words in [false, true] {
                for _ in 0..1500 {
                    // Aliases as the matcher holds them: normalised.
                    alias_text.clear();
                    for _ in 0..1 + next() % 2 {
                        let n = 1 + next() % 4;
                        let raw: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
                        norm.normalize_into(t, None, number_words, &raw.join(" "), &mut normal);
                        alias_text.push(normal.clone());
                    }
                    if !keyed.build(t, alias_text.iter().map(String::as_str), prefix) {
                        continue;
                    }
                    let mut question = String::new();
                    let n = next() % if next().is_multiple_of(4) { 120 } else { 9 };
                    for _ in 0..n {
                        let w = words[next() % words.len()];
                        match next() % 4 {
                            0 => question.push_str(&w.to_ascii_uppercase()),
                            1 => {
                                let mut c = w.chars();
                                if let Some(f) = c.next() {
                                    question.push(f.to_ascii_uppercase());
                                    question.push_str(c.as_str());
                                }
                            }
                            _ => question.push_str(w),
                        }
                        if next().is_multiple_of(25) {
                            question.push_str(refused[next() % refused.len()]);
                        }
                        question.push_str(seps[next() % seps.len()]);
                    }
                    rows += 1;
                    norm.normalize_into(t, None, number_words, &question, &mut normal);
                    let want = keyed.mark(t, &normal, prefix);
                    let Some(got) = keyed.mark_plain(t, &question, prefix, number_words) else {
                        continue;
                    };
                    read += 1;
                    marked += usize::from(want != 0);
                    assert_eq!(
                        got, want,
                        "{question:?} {alias_text:?} {prefix:?} {number_words}"
                    );
                }
            }
        }
        // A word across a block's end is one word (`cat` is no word of `wwwcat`).
        for prefix in [None, Some(6)] {
            assert!(keyed.build(t, [" cat "].into_iter(), prefix));
            for k in 1..140 {
                let question = format!("{}cat {}Cat?", "w".repeat(k), "W".repeat(k));
                norm.normalize_into(t, None, false, &question, &mut normal);
                assert_eq!(keyed.mark(t, &normal, prefix), 0);
                let got = keyed.mark_plain(t, &question, prefix, false);
                assert_eq!(got, Some(0), "{question:?}");
            }
        }
        assert!(read > rows / 3 && read < rows, "{read} of {rows}");
        assert!(marked > read / 4, "{marked} of {read}");
    }

    #[test]
    fn cached_stop_words_are_the_list_s() {
        let mut stops = StopCache::default();
        let words = [
            "a",
            "an",
            "the",
            "of",
            "in",
            "is",
            "was",
            "their",
            "these",
            "those",
            "ab",
            "x",
            "thes",
            "them",
            "theirs",
            "é",
            "été",
            "abcdefgh",
            "abcdefghi",
            "its",
            "it",
            "itsy",
        ];
        // Twice over, in two orders: the first answers are worked out, the next ones cached.
        for round in 0..4 {
            for k in 0..words.len() {
                let w = if round % 2 == 0 {
                    words[k]
                } else {
                    words[words.len() - 1 - k]
                };
                let head = ascii::load(format!("{w} next").as_bytes(), 0);
                assert_eq!(stops.is_stopword(w, head), is_stopword(w), "{w:?}");
            }
        }
    }

    #[test]
    fn words_and_their_heads() {
        for text in [
            " ",
            "",
            " a ",
            "a",
            " ab  cd ",
            " abcdefghij k ",
            "x é ω abcdefgh ",
        ] {
            let mut got = Vec::new();
            each_word(text, |w, head| {
                got.push((w, head));
                true
            });
            let want: Vec<(&str, u64)> = text
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| (w, ascii::load(w.as_bytes(), 0)))
                .collect();
            // The head holds the word's bytes and, past a short word, what follows it.
            assert_eq!(got.len(), want.len(), "{text:?}");
            for ((w, head), (v, whole)) in got.iter().zip(&want) {
                assert_eq!(w, v);
                let n = w.len().min(8);
                assert_eq!(head & low_bytes(n), whole & low_bytes(n), "{text:?}");
            }
        }
    }
}
