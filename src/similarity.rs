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
use crate::tokens::{lowered_short_word, overlap, DenseLcs, Vocab, ABSENT};

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

/// The key of an ASCII `\w` run of `len` bytes (at least 1) whose first 8 bytes are `head`
/// (any bytes past the run): its first 8 bytes with bit 5 set, zero past the run. Bit 5 maps a
/// capital to its small letter and is otherwise one to one on `\w` bytes (`_` becomes 0x7f, no
/// `\w` byte and no letter), so two runs of at most 8 bytes have the same key exactly when
/// their lower-case forms are equal; a run of up to 5 bytes has the key [`STOPWORD_TABLE`]
/// holds for its lower-case form when that is a stopword, and a longer run a byte past the
/// fifth that is not zero, so no stopword's key.
#[inline(always)]
fn word_key(head: u64, len: usize) -> u64 {
    (head | 0x2020_2020_2020_2020) & KEEP[len.min(63)]
}

/// The low `len` bytes of a word, for `len` below 64 (all of them from 8 on).
static KEEP: [u64; 64] = {
    let mut keep = [u64::MAX; 64];
    let mut k = 0;
    while k < 8 {
        keep[k] = (1 << (8 * k)) - 1;
        k += 1;
    }
    keep
};

/// [`word_key`] of the run of `len` bytes at `s` in the 64-byte block `chunk`, a run that
/// ends inside the block (`s + len < 64`), without a branch: a run that starts in the block's
/// last 8 bytes is read from the block's last word, shifted down (its bytes all lie there).
#[inline(always)]
fn block_word_key(chunk: &[u8; 64], s: usize, len: usize) -> u64 {
    let at = s.min(56);
    let word = chunk
        .get(at..at + 8)
        .and_then(|h| h.first_chunk::<8>())
        .map_or(0, |h| u64::from_le_bytes(*h));
    let head = word >> (8 * (s - at));
    (head | 0x2020_2020_2020_2020) & KEEP[len & 63]
}

/// Whether the run of `key` ([`word_key`]) is a stopword, from `hash` (the key times
/// [`STOPWORD_HASH`]), without a branch: the key is never zero, as the table's empty slots are.
#[inline(always)]
fn is_stopword_key(key: u64, hash: u64) -> bool {
    STOPWORD_TABLE[(hash >> 58) as usize] == key
}

/// A row's ASCII answer words, by their [`word_key`] and its hash (the key times
/// [`STOPWORD_HASH`], which a response word's stopword test takes anyway): a filter of 4096
/// bits, of which a word the answers do not hold rarely finds its own set, and a small
/// open-addressing table of `(key, length, id)` for the words past it. Two words of up to 8
/// bytes are the same exactly when their keys are; a longer one is settled by its tail.
/// Clearing costs the words held, not the table.
struct AnswerIndex {
    filter: [u64; 64],
    /// A power-of-two number of slots (none before the first word), length 0 when empty.
    slots: Vec<(u64, u32, u32)>,
    /// The slots in use.
    used: Vec<usize>,
}

impl Default for AnswerIndex {
    fn default() -> Self {
        AnswerIndex {
            filter: [0; 64],
            slots: Vec::new(),
            used: Vec::new(),
        }
    }
}

impl AnswerIndex {
    fn clear(&mut self) {
        self.filter = [0; 64];
        for &i in &self.used {
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = (0, 0, 0);
            }
        }
        self.used.clear();
    }

    /// The home slot of a hash.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        (hash >> 20) as usize & self.slots.len().wrapping_sub(1)
    }

    /// Index the lower-case ASCII `\w` word of `key` ([`word_key`]), `len` bytes long, as `id`
    /// (a word not yet held).
    fn insert(&mut self, key: u64, len: usize, id: u32) {
        let Ok(len) = u32::try_from(len) else {
            return;
        };
        if len == 0 {
            return;
        }
        if (self.used.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.place((key, len, id));
    }

    fn place(&mut self, entry: (u64, u32, u32)) {
        let hash = entry.0.wrapping_mul(STOPWORD_HASH);
        self.filter[(hash >> 58) as usize] |= 1 << ((hash >> 52) & 63);
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        while self.slots.get(i).is_some_and(|s| s.1 != 0) {
            i = (i + 1) & mask;
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = entry;
            self.used.push(i);
        }
    }

    fn grow(&mut self) {
        let entries: Vec<(u64, u32, u32)> = self
            .used
            .iter()
            .filter_map(|&i| self.slots.get(i).copied())
            .collect();
        let size = (self.slots.len() * 2).max(16);
        self.slots.clear();
        self.slots.resize(size, (0, 0, 0));
        self.used.clear();
        for entry in entries {
            self.place(entry);
        }
    }

    /// Index the ASCII words of `vocab` (lower-case `\w` words), as [`Scorer::best`] does.
    #[cfg(test)]
    fn fill(&mut self, vocab: &Vocab) {
        self.clear();
        for (id, w) in vocab.tokens().enumerate() {
            if w.is_ascii() {
                let key = word_key(ascii::load(w.as_bytes(), 0), w.len());
                self.insert(key, w.len(), id as u32);
            }
        }
    }

    /// Whether the run whose key hashes to `hash` may be an answer word.
    #[inline(always)]
    fn may_hold(&self, hash: u64) -> bool {
        self.filter[(hash >> 58) as usize] & (1 << ((hash >> 52) & 63)) != 0
    }

    /// The id of the lower-case form of `text[start..start + len]`, a run of ASCII `\w`
    /// bytes of key `key` and hash `hash`, or [`ABSENT`]; `vocab` holds the words indexed.
    #[inline(never)]
    fn find(&self, vocab: &Vocab, text: &[u8], (start, len): (usize, usize), key: u64) -> u32 {
        let hash = key.wrapping_mul(STOPWORD_HASH);
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(hash);
        loop {
            let Some(&(k, l, id)) = self.slots.get(i) else {
                return ABSENT;
            };
            if l == 0 {
                return ABSENT;
            }
            if k == key && l as usize == len {
                if len <= 8 {
                    return id;
                }
                let tail = text.get(start + 8..start + len).unwrap_or(&[]);
                let held = vocab.token(id).as_bytes().get(8..).unwrap_or(&[]);
                if tail.eq_ignore_ascii_case(held) {
                    return id;
                }
            }
            i = (i + 1) & mask;
        }
    }
}

/// A response's words as [`ResponseWords::scan`] reads them.
struct Reading<'a, 'v> {
    t: &'a Tables,
    text: &'a str,
    vocab: &'v Vocab,
    index: &'v AnswerIndex,
    found: &'a mut Vec<(u32, bool)>,
    word: &'a mut String,
    n_words: usize,
    /// The number of words that are stopwords.
    n_stop: usize,
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
            self.n_stop += words - content;
            return;
        }
        self.n_words += 1;
        self.ascii_word(s, e.wrapping_sub(s), head);
    }

    /// An ASCII word of `len` bytes at `s` whose first 8 are `head`, already counted among the
    /// words: counted as a stopword or not, and recorded if the answers hold it.
    #[inline(always)]
    fn ascii_word(&mut self, s: usize, len: usize, head: u64) {
        let key = word_key(head, len);
        let hash = key.wrapping_mul(STOPWORD_HASH);
        let stop = is_stopword_key(key, hash);
        self.n_stop += usize::from(stop);
        if self.index.may_hold(hash) {
            self.found_word(s, len, key, stop);
        }
    }

    /// [`Reading::ascii_word`] past the filter: looked up, and recorded if held.
    #[inline(always)]
    fn found_word(&mut self, s: usize, len: usize, key: u64, stop: bool) {
        let id = self
            .index
            .find(self.vocab, self.text.as_bytes(), (s, len), key);
        if id != ABSENT {
            self.found.push((id, stop));
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
    /// The words that start in the block at `base` of `bytes`, all ASCII (`edges`: their
    /// starts and ends; `inside`: the block's `\w` bytes), in text order: each one's first
    /// 8 bytes read once, to tell a stopword (without a branch) and to look it up (most are
    /// turned away by the index's filter). The word left open at the block's end, if any, is
    /// returned.
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
        // First each word's key from the block alone, counted and filtered in registers (no
        // call in the loop); then the few words past the filter, looked up in text order.
        let (mut n_words, mut n_stop, mut hits) = (0, 0, 0u64);
        let mut rest = first;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let len = (ends >> s).trailing_zeros() as usize;
            let key = block_word_key(chunk, s, len);
            let hash = key.wrapping_mul(STOPWORD_HASH);
            n_words += 1;
            n_stop += usize::from(is_stopword_key(key, hash));
            hits |= u64::from(self.index.may_hold(hash)) << s;
        }
        while hits != 0 {
            let s = hits.trailing_zeros() as usize;
            hits &= hits - 1;
            let len = (ends >> s).trailing_zeros() as usize;
            let key = block_word_key(chunk, s, len);
            let stop = is_stopword_key(key, key.wrapping_mul(STOPWORD_HASH));
            self.found_word(base + s, len, key, stop);
        }
        self.n_words += n_words;
        self.n_stop += n_stop;
        open
    }
}

/// Token recall's early end: the response is read only until some answer has all its words
/// among the content words found so far. Its recall is then 1, the most any answer can score,
/// and the words after cannot change the best score (only which answer is the first to reach
/// it, which a caller of [`Scorer::best_score`] does not ask for).
struct Enough<'a> {
    /// The number of answer words: `need[a * v + id]` is how often answer `a` holds word `id`.
    v: usize,
    need: &'a [u32],
    /// Per answer, its words not yet matched by a content word found (an answer of no word
    /// never reaches 0: its recall is 0).
    missing: &'a mut [u32],
    /// How often the content words found so far hold each answer word.
    counts: &'a mut [u32],
    /// The words of `found` already counted.
    seen: usize,
}

/// The most answers times answer words [`Enough`] keeps its table for; past it the response is
/// read whole (a long answer is seldom matched whole early).
const ENOUGH_CELLS: usize = 256;

impl<'a> Enough<'a> {
    /// The table of the answers `answers` (their ends in `item_ids`) over `v` answer words,
    /// built in `need` and `missing`, with `counts` zeroed; `None` past [`ENOUGH_CELLS`].
    fn new(
        item_ids: &[u32],
        answers: &[(usize, u32)],
        v: usize,
        (need, missing, counts): (&'a mut Vec<u32>, &'a mut Vec<u32>, &'a mut Vec<u32>),
    ) -> Option<Enough<'a>> {
        if v.checked_mul(answers.len())? > ENOUGH_CELLS {
            return None;
        }
        need.clear();
        need.resize(v * answers.len(), 0);
        missing.clear();
        let mut start = 0;
        for (a, &(end, _)) in answers.iter().enumerate() {
            let ids = item_ids.get(start..end).unwrap_or(&[]);
            start = end;
            for &id in ids {
                if let Some(n) = need.get_mut(a * v + id as usize) {
                    *n += 1;
                }
            }
            missing.push(if ids.is_empty() {
                u32::MAX
            } else {
                ids.len() as u32
            });
        }
        counts.clear();
        counts.resize(v, 0);
        Some(Enough {
            v,
            need,
            missing,
            counts,
            seen: 0,
        })
    }

    /// Count the content words found since the last call, and tell whether some answer now has
    /// all its words among them (its `missing` is 0: each word's count reached how often the
    /// answer holds it). A content word found makes the response's kept words its content
    /// words (stopwords are dropped only when some word is left), so counts only of content
    /// words can only grow, and they are at most the counts of the kept words at the end.
    #[inline(never)]
    fn reached(&mut self, found: &[(u32, bool)]) -> bool {
        let mut done = false;
        for &(id, stop) in found.get(self.seen..).unwrap_or(&[]) {
            if stop {
                continue;
            }
            let Some(count) = self.counts.get_mut(id as usize) else {
                continue;
            };
            *count += 1;
            let c = *count;
            for (a, missing) in self.missing.iter_mut().enumerate() {
                if self
                    .need
                    .get(a * self.v + id as usize)
                    .is_some_and(|&n| n >= c)
                {
                    *missing -= 1;
                    done |= *missing == 0;
                }
            }
        }
        self.seen = found.len();
        done
    }
}

/// The bytes of a response within which [`walk_until`] looks for its early end: counting the
/// words found costs about as much as reading them, so on a long response (long-form answers,
/// where an answer is seldom whole early) the count stops there and the rest is read as
/// [`ascii::walk_word_runs_by`] reads it.
const ENOUGH_BYTES: usize = 1024;

/// A [`Reading`] that ends after a block in which words were found once `enough` is reached
/// (the words after it are not read), within the first [`ENOUGH_BYTES`].
struct Until<'r, 'a, 'b, 'e, 'n> {
    r: &'r mut Reading<'a, 'b>,
    enough: &'e mut Enough<'n>,
    /// The words found when `enough` was last asked.
    found: usize,
}

impl ascii::WordRuns for Until<'_, '_, '_, '_, '_> {
    #[inline(always)]
    fn run(&mut self, start: usize, end: usize, high: bool, head: u64) {
        ascii::WordRuns::run(self.r, start, end, high, head);
    }

    #[inline(always)]
    fn block(
        &mut self,
        place: (&[u8], usize, &[u8; 64]),
        edges: u64,
        high: u64,
        inside: u64,
    ) -> Option<(usize, bool, u64)> {
        ascii::WordRuns::block(self.r, place, edges, high, inside)
    }

    #[inline(always)]
    fn stop_after(&mut self, end: usize) -> bool {
        if end > ENOUGH_BYTES || self.r.found.len() == self.found {
            return false;
        }
        self.found = self.r.found.len();
        self.enough.reached(self.r.found)
    }
}

/// [`ascii::walk_word_runs_by`] read as [`Until`] reads it.
#[inline(always)]
fn walk_until(
    bytes: &[u8],
    r: &mut Reading<'_, '_>,
    enough: &mut Enough<'_>,
    classify: impl Fn(&[u8; 64]) -> (u64, u64),
) {
    let mut until = Until {
        r,
        enough,
        found: 0,
    };
    ascii::walk_word_runs_by(bytes, &mut until, classify);
}

/// Whether the processor has AVX2, BMI1 and BMI2, for [`avx2::walk`] (the standard library
/// caches what it finds).
#[inline]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu::has_avx2() && crate::cpu::has_bmi1() && crate::cpu::has_bmi2()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The response scan with AVX2, BMI1 and BMI2: compiled for them whatever the build's
    //! target, and called only when the processor has them.
    use super::Reading;
    use crate::ascii;
    use crate::ascii::avx2::{bits, equal, in_range};
    use std::arch::x86_64::*;

    /// [`ascii::word_run_bytes`] 32 bytes at a time.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn classify_runs(block: &[u8; 64]) -> (u64, u64) {
        let (mut inside, mut high) = (0, 0);
        for (k, half) in block.chunks_exact(32).enumerate() {
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
            let letter = in_range(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), b'a', b'z');
            let digit = in_range(v, b'0', b'9');
            let word = _mm256_or_si256(_mm256_or_si256(letter, digit), equal(v, b'_'));
            let shift = 32 * k as u32;
            // A byte of 0x80 or more has its high bit set: `bits` of the bytes themselves.
            let h = bits(v);
            inside |= (bits(word) | h) << shift;
            high |= h << shift;
        }
        (inside, high)
    }

    /// [`ascii::walk_word_runs`] with [`classify_runs`], the whole walk compiled for AVX2, BMI1
    /// and BMI2 (the block's word loop inlined).
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1 and BMI2.
    #[target_feature(enable = "avx2,bmi1,bmi2")]
    pub(super) unsafe fn walk(bytes: &[u8], r: &mut Reading<'_, '_>) {
        ascii::walk_word_runs_by(bytes, r, |block| classify_runs(block));
    }

    /// [`super::walk_until`] with [`classify_runs`], compiled as [`walk`] is.
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1 and BMI2.
    #[target_feature(enable = "avx2,bmi1,bmi2")]
    pub(super) unsafe fn walk_until(
        bytes: &[u8],
        r: &mut Reading<'_, '_>,
        enough: &mut super::Enough<'_>,
    ) {
        super::walk_until(bytes, r, enough, |block| classify_runs(block));
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
    /// ([`ascii::walk_word_runs`]); a run of ASCII bytes is a word, lower-cased and hashed in
    /// place ([`AnswerIndex::find`]), and in a block of ASCII bytes the words are taken from
    /// the block's bits ([`Reading::ascii_block`]); a run with a non-ASCII character goes
    /// through Python's `lower()` a character at a time ([`ResponseWords::mixed_run`]). The
    /// other ASCII bytes lower-case to themselves and are not `\w`, so they end words in the
    /// lowered text too; only a capital sigma lower-cases by its context, and a text holding
    /// one is read whole through `str.lower()`.
    fn scan(&mut self, t: &Tables, text: &str, answers: (&Vocab, &AnswerIndex)) {
        self.scan_with(t, text, answers, has_avx2(), None);
    }

    /// [`ResponseWords::scan`], ending once `enough` is reached ([`Enough`]): the words after
    /// are not read, nor counted.
    fn scan_until(
        &mut self,
        t: &Tables,
        text: &str,
        answers: (&Vocab, &AnswerIndex),
        enough: &mut Enough<'_>,
    ) {
        self.scan_with(t, text, answers, has_avx2(), Some(enough));
    }

    /// [`ResponseWords::scan`], its blocks classified with AVX2 (and the whole walk compiled
    /// for AVX2, BMI1 and BMI2) if `avx2`, which only a processor with those may ask for.
    fn scan_with(
        &mut self,
        t: &Tables,
        text: &str,
        (vocab, index): (&Vocab, &AnswerIndex),
        avx2: bool,
        enough: Option<&mut Enough<'_>>,
    ) {
        self.n_words = 0;
        self.n_content = 0;
        self.found.clear();
        if crate::pyunicode::has_capital_sigma(text) {
            self.scan_lowered(t, text, vocab);
            return;
        }
        let mut r = Reading {
            t,
            text,
            vocab,
            index,
            found: &mut self.found,
            word: &mut self.word,
            n_words: 0,
            n_stop: 0,
        };
        if let Some(enough) = enough {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: as below.
                unsafe { avx2::walk_until(text.as_bytes(), &mut r, enough) };
            } else {
                walk_until(text.as_bytes(), &mut r, enough, ascii::word_run_bytes);
            }
            #[cfg(not(target_arch = "x86_64"))]
            walk_until(text.as_bytes(), &mut r, enough, ascii::word_run_bytes);
        } else {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: `avx2` is true only where the processor has AVX2, BMI1 and BMI2
                // ([`has_avx2`]).
                unsafe { avx2::walk(text.as_bytes(), &mut r) };
            } else {
                ascii::walk_word_runs(text.as_bytes(), &mut r);
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = avx2;
                ascii::walk_word_runs(text.as_bytes(), &mut r);
            }
        }
        self.n_words = r.n_words;
        self.n_content = r.n_words - r.n_stop;
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
    /// Each word's [`word_key`], or 0 (no key) for a word that is not ASCII.
    keys: Vec<u64>,
    n_content: usize,
}

impl Words {
    /// Tokenise `text` (one pass over it, lowering as it goes).
    pub fn fill(&mut self, t: &Tables, text: &str) {
        self.buf.clear();
        self.words.clear();
        self.keys.clear();
        let (buf, words) = (&mut self.buf, &mut self.words);
        if text.is_ascii() {
            // Python's `\w` on ASCII is `[A-Za-z0-9_]`: the runs of those bytes, found a block
            // at a time, each keyed and told a stopword from its first 8 bytes, and written
            // lower-cased (a short one from its first 8 bytes at once).
            let keys = &mut self.keys;
            ascii::for_each_word_run(
                text.as_bytes(),
                #[inline(always)]
                |s, e, _, head| {
                    let len = e.wrapping_sub(s);
                    let key = word_key(head, len);
                    let start = buf.len();
                    if len <= 8 {
                        let lowered = head | (ascii::in_range(head, b'A', b'Z') >> 2);
                        let bytes = lowered.to_le_bytes();
                        // SAFETY: the bytes are ASCII (a byte of the text, an ASCII one, or
                        // its small letter), so `buf` stays UTF-8.
                        unsafe { buf.as_mut_vec() }
                            .extend_from_slice(bytes.get(..len).unwrap_or(&[]));
                    } else {
                        buf.push_str(text.get(s..e).unwrap_or(""));
                        if let Some(lowered) = buf.get_mut(start..) {
                            lowered.make_ascii_lowercase();
                        }
                    }
                    words.push((
                        buf.len(),
                        is_stopword_key(key, key.wrapping_mul(STOPWORD_HASH)),
                    ));
                    keys.push(key);
                },
            );
        } else {
            let mut run = WordRun::default();
            t.for_each_lower(text, |c| {
                run.step(t, c, buf, words);
                true
            });
            // A final non-word character closes the last word.
            run.step(t, ' ', buf, words);
            let mut start = 0;
            for &(end, _) in words.iter() {
                let word = buf.as_bytes().get(start..end).unwrap_or(&[]);
                let key = if word.is_ascii() {
                    word_key(ascii::load(buf.as_bytes(), start), word.len())
                } else {
                    0
                };
                self.keys.push(key);
                start = end;
            }
        }
        self.n_content = self.words.iter().filter(|(_, stop)| !stop).count();
    }

    /// The words the reference keeps: the non-stopwords, or all of them if none is left.
    pub fn kept(&self) -> impl Iterator<Item = &str> + '_ {
        self.kept_keyed().map(|(_, w)| w)
    }

    /// [`Words::kept`], each with its [`word_key`] (0 if it is not ASCII).
    fn kept_keyed(&self) -> impl Iterator<Item = (u64, &str)> + '_ {
        let all = self.n_content == 0;
        let mut start = 0;
        self.words
            .iter()
            .zip(&self.keys)
            .filter_map(move |(&(end, stop), &key)| {
                let w = self.buf.get(start..end).unwrap_or("");
                start = end;
                (all || !stop).then_some((key, w))
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
            let word = buf.get(self.start..).unwrap_or("");
            let stop = word.is_ascii() && is_ascii_stopword(word.as_bytes());
            words.push((buf.len(), stop));
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
    index: AnswerIndex,
    /// Each usable answer's kept words (ids in `vocab`), one after the other; `answers` holds
    /// each one's end in `item_ids` and its position in the row.
    item_ids: Vec<u32>,
    answers: Vec<(usize, u32)>,
    /// How often the response holds each answer word; the response's answer words in order.
    counts: Vec<u32>,
    sequence: Vec<u32>,
    used: Vec<u32>,
    /// Token recall's early end ([`Enough`]): each answer's count of each word, and its words
    /// not yet found.
    need: Vec<u32>,
    missing: Vec<u32>,
    lcs: DenseLcs,
}

/// The lexical metrics of one response against many answers.
pub struct Scorer<'s, 'r> {
    metric: Metric,
    response: &'r str,
    scratch: &'s mut Scratch,
    /// ROUGE-L's work left for this response (the length guard), of `budget`.
    work: u64,
    budget: u64,
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
            budget: u64::MAX,
            too_long: false,
        }
    }

    /// Bound ROUGE-L's work for this response (`None`: unbounded).
    pub fn with_max_work(mut self, max_work: Option<u64>) -> Self {
        self.work = max_work.unwrap_or(u64::MAX);
        self.budget = self.work;
        self
    }

    /// The units of ROUGE-L's work spent so far (the recurrence's steps and Myers'; the
    /// linear passes over the words are not counted).
    pub fn work_spent(&self) -> u64 {
        self.budget - self.work
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
        self.best_with(t, answers, false)
    }

    /// The score of [`Scorer::best`] alone (its answer may differ when several score the
    /// best). Token recall reads the response only until some answer's recall is 1
    /// ([`Enough`]).
    pub fn best_score<'a>(
        &mut self,
        t: &Tables,
        answers: impl Iterator<Item = Option<&'a str>> + Clone,
    ) -> Option<f64> {
        self.best_with(t, answers, true).map(|b| b.score)
    }

    #[inline(always)]
    fn best_with<'a>(
        &mut self,
        t: &Tables,
        answers: impl Iterator<Item = Option<&'a str>> + Clone,
        score_only: bool,
    ) -> Option<Best<'a>> {
        let s = &mut *self.scratch;
        let texts = answers.clone();
        // The answers' kept words, interned together.
        s.vocab.clear();
        s.index.clear();
        s.item_ids.clear();
        s.answers.clear();
        for (i, answer) in answers.enumerate() {
            let text = answer.unwrap_or("None");
            if py_is_blank(text) {
                continue;
            }
            s.words.fill(t, text);
            for (key, w) in s.words.kept_keyed() {
                let n = s.vocab.len();
                let id = s.vocab.intern(w);
                if id as usize == n && key != 0 {
                    s.index.insert(key, w.len(), id);
                }
                s.item_ids.push(id);
            }
            s.answers.push((s.item_ids.len(), i as u32));
        }
        if s.answers.is_empty() {
            return None;
        }
        // The response's kept words that some answer has: their counts and their order.
        let enough = if score_only && self.metric == Metric::TokenRecall {
            let buffers = (&mut s.need, &mut s.missing, &mut s.counts);
            Enough::new(&s.item_ids, &s.answers, s.vocab.len(), buffers)
        } else {
            None
        };
        if let Some(mut enough) = enough {
            s.response
                .scan_until(t, self.response, (&s.vocab, &s.index), &mut enough);
        } else {
            s.response.scan(t, self.response, (&s.vocab, &s.index));
        }
        let n_response = s.response.n_kept();
        s.counts.clear();
        s.counts.resize(s.vocab.len(), 0);
        s.sequence.clear();
        // The order of the words only matters to ROUGE-L.
        let rouge = self.metric == Metric::RougeL;
        for id in s.response.kept() {
            if let Some(count) = s.counts.get_mut(id as usize) {
                *count += 1;
                if rouge {
                    s.sequence.push(id);
                }
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
        // The answer's text is not looked up for the score alone.
        let text = if score_only {
            ""
        } else {
            texts
                .clone()
                .nth(index as usize)
                .flatten()
                .unwrap_or("None")
        };
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
        let mut index = AnswerIndex::default();
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
            for avx2 in walks() {
                scan.scan_with(t, &text, (&vocab, &index), avx2, None);
                assert_eq!(scan.kept().collect::<Vec<_>>(), want, "{text:?} {avx2}");
                assert_eq!(scan.n_kept(), n_kept, "{text:?} {avx2}");
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
    fn the_answer_index_finds_words_in_place() {
        // Against the vocabulary's own lookup of the lower-cased word, on random words of a few
        // letters (so that many share their first eight bytes), at every place in a text.
        let mut next = crate::testing::lcg(5);
        let (mut vocab, mut index) = (Vocab::default(), AnswerIndex::default());
        let word = |next: &mut dyn FnMut() -> usize| -> String {
            let len = 1 + next() % 12;
            (0..len).map(|_| b"aAb_0Z"[next() % 6] as char).collect()
        };
        for round in 0..3_000 {
            vocab.clear();
            for _ in 0..next() % 40 {
                vocab.intern(&word(&mut next).to_ascii_lowercase());
            }
            if round % 5 == 0 {
                vocab.intern("\u{e9}t\u{e9}");
                vocab.intern("abcdefgh\u{e9}");
            }
            index.fill(&vocab);
            for _ in 0..20 {
                let w = word(&mut next);
                let pad = next() % 10;
                let text = format!("{}{w}{}", "-".repeat(pad), "a".repeat(next() % 10));
                let key = word_key(ascii::load(text.as_bytes(), pad), w.len());
                let want = vocab.get(&w.to_ascii_lowercase());
                if want != ABSENT {
                    assert!(index.may_hold(key.wrapping_mul(STOPWORD_HASH)), "{w}");
                }
                assert_eq!(
                    index.find(&vocab, text.as_bytes(), (pad, w.len()), key),
                    want,
                    "{w}"
                );
            }
        }
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

    /// The walks of the response scan this processor can run: the baseline one (`false`), and
    /// the AVX2 one (`true`) where it has AVX2, BMI1 and BMI2.
    fn walks() -> Vec<bool> {
        let mut walks = vec![false];
        if has_avx2() {
            walks.push(true);
        }
        walks
    }

    #[test]
    fn token_recall_read_until_an_answer_is_whole_scores_as_read_whole() {
        // best_score may stop reading the response once some answer's recall is 1: its score
        // must be best's, bit for bit, for every metric; and each walk's early end must leave a
        // prefix of the whole scan's words, with an answer reached when it ended short.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            " ",
            ", ",
            ".",
            "the",
            "The",
            "of",
            "is",
            "Paris",
            "paris",
            "6210",
            "king",
            "x",
            "Straße",
            "ß",
            "é",
            "—",
            "\u{3000}",
            "ABCDEFGHIJKLMNOPQ",
            "abcdefghij",
            "_a",
            "ΣΑΣ",
            "σας",
            "\t",
            "answer",
        ];
        let mut next = crate::testing::lcg(29);
        let text = |next: &mut dyn FnMut() -> usize, most: usize| {
            let mut out = String::new();
            for _ in 0..next() % most {
                out.push_str(PIECES[next() % PIECES.len()]);
                if next().is_multiple_of(2) {
                    out.push(' ');
                }
            }
            out
        };
        let (mut a, mut b) = (Scratch::default(), Scratch::default());
        let mut ended_short = 0;
        for round in 0..8_000 {
            let most = if round % 5 == 0 { 120 } else { 30 };
            let response = text(&mut next, most);
            let answers: Vec<Option<String>> = (0..1 + next() % 3)
                .map(|_| (!next().is_multiple_of(11)).then(|| text(&mut next, 4)))
                .collect();
            let items = || answers.iter().map(|x| x.as_deref());
            for metric in [Metric::TokenRecall, Metric::TokenF1, Metric::RougeL] {
                let whole = Scorer::new(metric, &response, &mut a)
                    .best(t, items())
                    .map(|x| x.score.to_bits());
                let score = Scorer::new(metric, &response, &mut b)
                    .best_score(t, items())
                    .map(f64::to_bits);
                assert_eq!(score, whole, "{metric:?} {response:?} {answers:?}");
            }
            // Each walk's early end, against the whole scan of the same vocabulary.
            let s = &mut a;
            let _ = Scorer::new(Metric::TokenRecall, &response, s).best(t, items());
            if s.answers.is_empty() || crate::pyunicode::has_capital_sigma(&response) {
                continue;
            }
            let mut whole = ResponseWords::default();
            whole.scan_with(t, &response, (&s.vocab, &s.index), false, None);
            for avx2 in walks() {
                let mut part = ResponseWords::default();
                let (mut need, mut missing, mut counts) = (Vec::new(), Vec::new(), Vec::new());
                let buffers = (&mut need, &mut missing, &mut counts);
                let enough = Enough::new(&s.item_ids, &s.answers, s.vocab.len(), buffers);
                let Some(mut enough) = enough else {
                    continue;
                };
                part.scan_with(t, &response, (&s.vocab, &s.index), avx2, Some(&mut enough));
                assert!(whole.found.starts_with(&part.found), "{response:?} {avx2}");
                if part.found.len() < whole.found.len() {
                    ended_short += 1;
                    let mut recount = vec![0; s.vocab.len()];
                    for &(id, stop) in &part.found {
                        recount[id as usize] += u32::from(!stop);
                    }
                    let mut start = 0;
                    let reached = s.answers.iter().any(|&(end, _)| {
                        let ids = &s.item_ids[start..end];
                        start = end;
                        !ids.is_empty() && overlap(&recount, &mut Vec::new(), ids) == ids.len()
                    });
                    assert!(reached, "{response:?} {answers:?} {avx2}");
                }
            }
        }
        // (Counted once per walk: the portable build runs the baseline walk alone.)
        assert!(ended_short > 40 * walks().len(), "{ended_short}");
    }

    #[test]
    fn the_avx2_classes_are_the_baseline_ones() {
        // Random blocks of every byte value, and blocks of the bytes around the classes'
        // edges ('/', '0', '9', ':', '@', 'A', 'Z', '[', '^', '_', '`', 'a', 'z', '{', 0x7f,
        // 0x80, 0xff): the same run and high bytes, checked against a byte at a time too.
        let mut next = crate::testing::lcg(37);
        let edges = [
            b'/', b'0', b'9', b':', b'@', b'A', b'Z', b'[', b'^', b'_', b'`', b'a', b'z', b'{',
            0x7f, 0x80, 0xff, 0, b' ',
        ];
        for round in 0..4_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = if round % 2 == 0 {
                    (next() % 256) as u8
                } else {
                    edges[next() % edges.len()]
                };
            }
            let (mut inside, mut high) = (0u64, 0u64);
            for (k, &b) in block.iter().enumerate() {
                inside |= u64::from(b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80) << k;
                high |= u64::from(b >= 0x80) << k;
            }
            assert_eq!(ascii::word_run_bytes(&block), (inside, high), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                // SAFETY: the processor has AVX2.
                let got = unsafe { avx2::classify_runs(&block) };
                assert_eq!(got, (inside, high), "{block:?}");
            }
        }
    }

    /// The kept words of `text` that `vocab` holds, and the number of kept words, through
    /// [`Words::fill`] (a text's words one by one) and [`Vocab::get`].
    fn kept_ids(t: &Tables, words: &mut Words, text: &str, vocab: &Vocab) -> (Vec<u32>, usize) {
        words.fill(t, text);
        let ids = words
            .kept()
            .map(|w| vocab.get(w))
            .filter(|&id| id != ABSENT)
            .collect();
        (ids, words.kept().count())
    }

    #[test]
    fn the_block_scan_keeps_words_at_block_edges() {
        // Answer words and stopwords at every offset around the 64-byte blocks (lengths 15 to
        // 17, 31 to 33, 63 to 65...), among words that share their first bytes, with non-ASCII
        // bytes across a boundary now and then: the same words, counts and order as the
        // answers' tokeniser finds.
        let t = test_tables::install();
        let (mut vocab, mut index, mut words) =
            (Vocab::default(), AnswerIndex::default(), Words::default());
        let mut scan = ResponseWords::default();
        for answer in [
            "Paris x",
            "pa",
            "p",
            "PARISIAN",
            "p_q",
            "9",
            "é p",
            "the",
            "a be",
            "parisianisms",
        ] {
            vocab.clear();
            words.fill(t, answer);
            for w in words.kept() {
                vocab.intern(w);
            }
            index.fill(&vocab);
            for pad in 0..140 {
                for tail in ["", "é", "ab", "\u{212a}", " the", " A"] {
                    for text in [
                        format!(
                            "{}Paris pb pa P. qa The {}p_q 9 x Parisian{tail} p",
                            "b".repeat(pad),
                            "y ".repeat(pad % 7),
                        ),
                        format!("{}{tail}", "a ".repeat(pad / 2)),
                        format!("{}parisianisms{tail}", "x".repeat(pad)),
                    ] {
                        let want = kept_ids(t, &mut words, &text, &vocab);
                        for avx2 in walks() {
                            scan.scan_with(t, &text, (&vocab, &index), avx2, None);
                            let got = (scan.kept().collect::<Vec<_>>(), scan.n_kept());
                            assert_eq!(got, want, "{text:?} {answer:?} {avx2}");
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
