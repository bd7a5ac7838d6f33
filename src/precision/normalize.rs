//! the basic normalisation of answer_precision and its token sets.
//!
//! Markdown links become their label and bare URLs are removed (on the raw text), then NFKC,
//! Python's `lower()`, Python's `strip()` and whitespace runs collapsed to one space. Characters
//! the interpreter does not assign are inert for Python's NFKC, so the text is normalised segment
//! by segment between them.

use memchr::memchr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use super::token_set::SHORT_ID_BITS;
use crate::ascii;
use crate::pyunicode::{is_py_space, Tables, CHANGES_WHEN_LOWERED, UNASSIGNED};

/// Reusable buffers of [`basic_normalize`].
#[derive(Default)]
pub struct NormScratch {
    cleaned: String,
    nfkc: String,
    links: LinkScratch,
    plain: PlainChars,
}

/// [`plain_char`] of the characters of the Basic Multilingual Plane, one bit each, computed a
/// block of 64 code points at a time when a text of the batch first holds one of them (a
/// look-up is a few instructions; [`plain_char`] itself calls into the interpreter's tables).
/// For the tables at address `tables` only: other tables start it again.
///
/// With them, per block, the characters [`Writer::ascii_block`] may take as the bytes of their
/// lower case ([`lowered_in_place`]), in `lowers` (`lowers_of`: 0 when the block has none,
/// else one more than their index in `lowers`).
pub struct PlainChars {
    tables: usize,
    bits: Box<[u64; 1024]>,
    known: [u64; 16],
    lowers_of: Box<[u16; 1024]>,
    /// Per block that has some: the lower case of each of its code points that
    /// [`lowered_in_place`] takes, else 0.
    lowers: Vec<[u16; 64]>,
    /// The NFKC of the stretches met (which do not depend on the tables).
    stretches: Stretches,
}

impl Default for PlainChars {
    fn default() -> Self {
        PlainChars {
            tables: 0,
            bits: Box::new([0; 1024]),
            known: [0; 16],
            lowers_of: Box::new([0; 1024]),
            lowers: Vec::new(),
            stretches: Stretches::default(),
        }
    }
}

/// How [`Writer::ascii_block`] may take a character that is not ASCII ([`PlainChars::take`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Take {
    /// As its bytes ([`plain_char`]).
    AsIs,
    /// As the bytes of this character, its lower case, of as many bytes
    /// ([`lowered_in_place`]).
    Lower(char),
    /// Not at all: it ends a run.
    No,
}

/// The lower case of `c` (not ASCII) when a block may hold it in place of `c`: NFKC leaves `c`
/// alone wherever it stands ([`nfkc_inert`]), it is assigned, no whitespace and not the capital
/// sigma (whose lower case depends on its neighbours), and Python's `lower()` makes it one
/// character of as many UTF-8 bytes, no whitespace either (`М` -> `м`, `É` -> `é`).
fn lowered_in_place(t: &Tables, c: char) -> Option<char> {
    if c.is_ascii()
        || c == '\u{03A3}'
        || t.flags(c) & (UNASSIGNED | CHANGES_WHEN_LOWERED) != CHANGES_WHEN_LOWERED
        || is_py_space(c)
        || !nfkc_inert(c)
    {
        return None;
    }
    let (mut n, mut lower) = (0, c);
    t.lower_char_each(c, |l| {
        n += 1;
        lower = l;
    });
    (n == 1 && lower != c && lower.len_utf8() == c.len_utf8() && !is_py_space(lower))
        .then_some(lower)
}

/// The slots of [`Stretches`] (a power of two).
const STRETCH_SLOTS: usize = 256;
/// The longest stretch [`Stretches`] keeps, in bytes.
const STRETCH_KEY: usize = 16;

/// A direct-mapped cache of the NFKC of short stretches (see [`write_normalized`]): a
/// stretch is usually one inert character and the compatibility character after it (` ②`,
/// `x²`), and the same few come back text after text; normalising one took about 700
/// instructions. The NFKC of a string is a function of it alone, so a value found is the
/// value computed.
struct Stretches {
    /// Per slot: the stretch's bytes zero-padded, its length (0: empty slot, as no stretch is
    /// empty), and its NFKC.
    slots: Vec<([u8; STRETCH_KEY], u8, String)>,
    /// The NFKC of a stretch not kept.
    other: String,
}

impl Default for Stretches {
    fn default() -> Self {
        Stretches {
            slots: (0..STRETCH_SLOTS)
                .map(|_| ([0; STRETCH_KEY], 0, String::new()))
                .collect(),
            other: String::new(),
        }
    }
}

impl Stretches {
    /// The NFKC of `stretch`.
    fn nfkc(&mut self, stretch: &str) -> &str {
        let len = stretch.len();
        if len == 0 || len > STRETCH_KEY {
            self.other.clear();
            self.other.extend(stretch.nfkc());
            return &self.other;
        }
        let mut key = [0u8; STRETCH_KEY];
        for (to, &from) in key.iter_mut().zip(stretch.as_bytes()) {
            *to = from;
        }
        let (lo, hi) = key.split_at(8);
        let word = |b: &[u8]| b.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w));
        let hash =
            (word(lo) ^ word(hi).rotate_left(23) ^ len as u64).wrapping_mul(super::token_set::K);
        let slot = (hash >> 56) as usize % STRETCH_SLOTS;
        let Some(entry) = self.slots.get_mut(slot) else {
            self.other.clear();
            self.other.extend(stretch.nfkc());
            return &self.other;
        };
        if entry.1 as usize != len || entry.0 != key {
            entry.0 = key;
            entry.1 = len as u8;
            entry.2.clear();
            entry.2.extend(stretch.nfkc());
        }
        &entry.2
    }
}

impl PlainChars {
    /// Ready for the tables `t` (forgets what it knew of other tables).
    #[inline(always)]
    fn use_tables(&mut self, t: &Tables) {
        let address = std::ptr::from_ref(t) as usize;
        if self.tables != address {
            self.tables = address;
            self.known = [0; 16];
            self.lowers.clear();
        }
    }

    /// How a block may take `c` (not ASCII), for the tables given to
    /// [`PlainChars::use_tables`]: [`Take::AsIs`] exactly when [`plain_char`], else
    /// [`Take::Lower`] when [`lowered_in_place`] gives its lower case (in the Basic
    /// Multilingual Plane only), else [`Take::No`].
    #[inline(always)]
    fn take(&mut self, t: &Tables, c: char) -> Take {
        let cp = c as usize;
        let block = cp >> 6;
        let bits = match (self.known.get(block >> 6), self.bits.get(block)) {
            (Some(&known), Some(&bits)) if known & (1 << (block & 63)) != 0 => bits,
            (Some(_), Some(_)) => self.compute(t, block),
            _ => {
                return if plain_char(t, c) {
                    Take::AsIs
                } else {
                    Take::No
                }
            }
        };
        if bits & (1 << (cp & 63)) != 0 {
            return Take::AsIs;
        }
        let lower = match self.lowers_of.get(block) {
            Some(&k) if k != 0 => self
                .lowers
                .get(usize::from(k) - 1)
                .and_then(|l| l.get(cp & 63))
                .copied()
                .unwrap_or(0),
            _ => 0,
        };
        match char::from_u32(u32::from(lower)) {
            Some(l) if lower != 0 => Take::Lower(l),
            _ => Take::No,
        }
    }

    /// The bits of block `block` (below 1024), computed and kept.
    #[cold]
    #[inline(never)]
    fn compute(&mut self, t: &Tables, block: usize) -> u64 {
        let mut word = 0u64;
        let mut lowers = [0u16; 64];
        for (k, lower) in (0..64u32).zip(lowers.iter_mut()) {
            let cp = (block as u32) << 6 | k;
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            if plain_char(t, c) {
                word |= 1 << k;
            } else if let Some(l) = lowered_in_place(t, c) {
                *lower = u16::try_from(u32::from(l)).unwrap_or(0);
            }
        }
        if let (Some(bits), Some(known), Some(of)) = (
            self.bits.get_mut(block),
            self.known.get_mut(block >> 6),
            self.lowers_of.get_mut(block),
        ) {
            *bits = word;
            *known |= 1 << (block & 63);
            *of = 0;
            if lowers.iter().any(|&l| l != 0) {
                // Blocks recomputed for other tables keep their old entry: at most 1024 a
                // table, so fewer than 65,536 over a few.
                if let Ok(k) = u16::try_from(self.lowers.len() + 1) {
                    self.lowers.push(lowers);
                    *of = k;
                }
            }
        }
        word
    }
}

/// Python `str.isspace()` of the character starting at byte `i`, with its length.
fn space_at(text: &str, i: usize) -> Option<usize> {
    let c = text.get(i..)?.chars().next()?;
    is_py_space(c).then_some(c.len_utf8())
}

/// Where `https?://` starting at byte `i` ends, if it does.
fn scheme_end(bytes: &[u8], i: usize) -> Option<usize> {
    let rest = bytes.get(i..)?;
    if rest.starts_with(b"https://") {
        Some(i + 8)
    } else if rest.starts_with(b"http://") {
        Some(i + 7)
    } else {
        None
    }
}

/// Where `https?://` whose colon is byte `colon` starts, if it does.
#[inline]
fn scheme_start(bytes: &[u8], colon: usize) -> Option<usize> {
    if bytes.get(colon + 1..colon + 3) != Some(b"//") {
        return None;
    }
    let start = colon.checked_sub(4)?;
    match bytes.get(start..colon)? {
        b"http" => Some(start),
        b"ttps" if start > 0 && bytes.get(start - 1) == Some(&b'h') => Some(start - 1),
        _ => None,
    }
}

/// Whether `text` holds `https?://` (which both patterns of the clean-up hold): a search for
/// its colons, the text's rarest byte of the three.
fn has_scheme(text: &str) -> bool {
    let bytes = text.as_bytes();
    scheme_colons(bytes).any(|colon| scheme_start(bytes, colon).is_some())
}

/// The places of the colons of `bytes` that two slashes follow (every colon of `https?://`
/// among them), in order, found by [`find_scheme_colon`]: with AVX2 where the processor has
/// it, from the colons a slash follows, 32 places at a time (a text's other colons, as in
/// `Source:` or `12:30`, cost nothing), else from the colons `memchr` finds.
fn scheme_colons(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    #[cfg(target_arch = "x86_64")]
    let avx2 = crate::cpu::has_avx2();
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    scheme_colons_with(bytes, avx2)
}

/// [`scheme_colons`], with AVX2 when `avx2` (which only a processor that has it may ask for).
fn scheme_colons_with(bytes: &[u8], avx2: bool) -> impl Iterator<Item = usize> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        // `avx2` says the processor has AVX2, as `find_scheme_colon::<true>` requires.
        let colon = if avx2 {
            find_scheme_colon::<true>(bytes, from)
        } else {
            find_scheme_colon::<false>(bytes, from)
        }?;
        from = colon + 1;
        Some(colon)
    })
}

/// `re.sub(r"\[([^\]]+)\]\(\s*https?://[^)]+\s*\)", r"\1", text)`, appended to `out`,
/// when some link is replaced; else nothing is written and the answer is `false` (the text is
/// its own result).
fn replace_links(text: &str, out: &mut String) -> bool {
    let bytes = text.as_bytes();
    let mut copied = 0;
    let mut from = 0;
    while let Some(off) = memchr(b'[', &bytes[from..]) {
        let open = from + off;
        from = open + 1;
        // The label runs to the first ']' and is not empty.
        let Some(len) = memchr(b']', &bytes[open + 1..]) else {
            break; // no ']' anywhere after: no later '[' can match either
        };
        if len == 0 {
            continue;
        }
        let close_label = open + 1 + len;
        if bytes.get(close_label + 1) != Some(&b'(') {
            continue;
        }
        let mut k = close_label + 2;
        while let Some(w) = space_at(text, k) {
            k += w;
        }
        let Some(url) = scheme_end(bytes, k) else {
            continue;
        };
        // `[^)]+` runs to the first ')' and is not empty; `\s*` then matches nothing.
        let Some(len) = memchr(b')', &bytes[url..]) else {
            continue;
        };
        if len == 0 {
            continue;
        }
        let end = url + len + 1;
        out.push_str(&text[copied..open]);
        out.push_str(&text[open + 1..close_label]);
        copied = end;
        from = end;
    }
    if copied == 0 {
        return false; // a link ends past byte 0, so none was replaced
    }
    out.push_str(&text[copied..]);
    true
}

/// `re.sub(r"https?://\S+", "", text)` with Python's `\s`, appended to `out` when some URL is
/// removed; else nothing is written and the answer is `false`.
///
/// The places a URL may start are found from the colons after them: each `https?://` has
/// its own colon, and the colons come in the order of the places (a colon after another
/// cannot belong to an earlier start: `https:` holds no other colon).
fn remove_urls(text: &str, out: &mut String) -> bool {
    let bytes = text.as_bytes();
    // `text[..copied]` is written (none of it when nothing is removed); no match starts before
    // `from`.
    let (mut copied, mut from, mut removed) = (0, 0, false);
    for colon in scheme_colons(bytes) {
        let Some(start) = scheme_start(bytes, colon).filter(|&s| s >= from) else {
            continue;
        };
        let body = colon + 3;
        let end = non_space_end(text, body);
        if end == body {
            continue;
        }
        out.push_str(&text[copied..start]);
        copied = end;
        from = end;
        removed = true;
    }
    if removed {
        out.push_str(&text[copied..]);
    }
    removed
}

/// Where the run of characters from byte `at` of `text` (a character boundary) that are not
/// Python whitespace ends: eight bytes at a time while they are ASCII and none is whitespace,
/// else a character at a time.
fn non_space_end(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = at;
    loop {
        end += graphic_prefix(bytes.get(end..).unwrap_or(&[]));
        if let Some(chunk) = bytes.get(end..).and_then(|r| r.first_chunk::<8>()) {
            let x = u64::from_le_bytes(*chunk);
            if x & HIGH == 0 && ascii::space_bytes(x) == 0 {
                end += 8;
                continue;
            }
        }
        match text.get(end..).and_then(|r| r.chars().next()) {
            Some(c) if !is_py_space(c) => end += c.len_utf8(),
            _ => return end,
        }
    }
}

/// `unicodedata.normalize("NFKC", text)` of the running Python, appended to `out`.
///
/// Only the stretches around characters NFKC may change are normalised: a character that is
/// [`nfkc_inert`] starts a stretch that normalises on its own (it neither composes with what
/// precedes it nor reorders with it), so the text between two such boundaries is copied as it
/// is unless it holds a character that is not inert. A character the interpreter does not
/// assign is inert for Python's NFKC and splits the text outright.
pub fn push_nfkc(t: &Tables, text: &str, out: &mut String) {
    if text.is_ascii() {
        out.push_str(text);
        return;
    }
    let slice = |a: usize, b: usize| text.get(a..b).unwrap_or("");
    // `text[..copied]` is written; `boundary` is where the last stretch began; `dirty` says
    // the stretch from `boundary` holds a character NFKC may change.
    let (mut copied, mut boundary, mut dirty) = (0, 0, false);
    for (i, c) in text.char_indices() {
        let unassigned = t.is_unassigned(c);
        if unassigned || nfkc_inert(c) {
            if dirty {
                out.extend(slice(boundary, i).nfkc());
                copied = i;
                dirty = false;
            }
            boundary = i;
            if unassigned {
                out.push_str(slice(copied, i));
                out.push(c);
                copied = i + c.len_utf8();
                boundary = copied;
            }
        } else if !dirty {
            out.push_str(slice(copied, boundary));
            copied = boundary;
            dirty = true;
        }
    }
    if dirty {
        out.extend(slice(boundary, text.len()).nfkc());
    } else {
        out.push_str(slice(copied, text.len()));
    }
}

/// Whether NFKC leaves `c` alone wherever it stands (its NFKC quick-check value is "yes" and its
/// canonical combining class 0): a text of such characters is its own NFKC.
///
/// One bit per code point, from the same data as the normalisation itself, computed a block of
/// 64 code points at a time when a text first holds one of them: building the whole table took
/// about 0.1 s, which every process paid at its first non-ASCII text. Two threads may compute
/// the same block at once; both store the same bits.
///
/// The look-up of a block already computed is inlined where a character is read (a call cost
/// about 60 instructions per character); computing a block is a call of its own.
#[inline(always)]
fn nfkc_inert(c: char) -> bool {
    let block = c as usize >> 6;
    let word = match INERT.get() {
        Some(table) => match (table.bits.get(block), table.done.get(block >> 6)) {
            (Some(bits), Some(done))
                if done.load(Ordering::Acquire) & (1u64 << (block & 63)) != 0 =>
            {
                bits.load(Ordering::Relaxed)
            }
            _ => inert_block(block),
        },
        None => inert_block(block),
    };
    word & (1 << (c as u32 & 63)) != 0
}

/// The blocks of [`nfkc_inert`]: one bit per code point, and one per block computed.
struct InertTable {
    bits: Box<[AtomicU64]>,
    done: Box<[AtomicU64]>,
}

static INERT: OnceLock<InertTable> = OnceLock::new();

/// The bits of block `block` of [`nfkc_inert`] (code points `64 block ..`), computed and stored
/// if they were not (0 for a block past the last code point).
#[cold]
#[inline(never)]
fn inert_block(block: usize) -> u64 {
    const BLOCKS: usize = (char::MAX as usize >> 6) + 1;
    let table = INERT.get_or_init(|| InertTable {
        bits: (0..BLOCKS).map(|_| AtomicU64::new(0)).collect(),
        done: (0..BLOCKS.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect(),
    });
    let (Some(bits), Some(done)) = (table.bits.get(block), table.done.get(block >> 6)) else {
        return 0;
    };
    let flag = 1u64 << (block & 63);
    if done.load(Ordering::Acquire) & flag != 0 {
        return bits.load(Ordering::Relaxed);
    }
    let mut word = 0u64;
    for k in 0..64u32 {
        let cp = (block as u32) << 6 | k;
        if char::from_u32(cp).is_some_and(|x| {
            canonical_combining_class(x) == 0
                && is_nfkc_quick(std::iter::once(x)) == IsNormalized::Yes
        }) {
            word |= 1 << k;
        }
    }
    bits.store(word, Ordering::Relaxed);
    done.fetch_or(flag, Ordering::Release);
    word
}

/// What an ASCII byte is to the normalisation and its tokens.
const TOKEN: u8 = 0;
/// Python whitespace (`str.isspace()`, `\s`): runs collapse to one space, stripped at the ends.
const SPACE: u8 = 1;
/// The 32 ASCII punctuation characters: kept, and they split tokens.
const PUNCT: u8 = 2;

static ASCII_CLASS: [u8; 128] = {
    let mut table = [TOKEN; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ') {
            SPACE
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else {
            TOKEN
        };
        b += 1;
    }
    table
};

#[inline(always)]
fn ascii_class(b: u8) -> u8 {
    ASCII_CLASS[usize::from(b & 0x7f)]
}

/// the normalised form of `text`, written into `out` (cleared first).
pub fn basic_normalize(t: &Tables, text: &str, s: &mut NormScratch, out: &mut String) {
    normalize_tokens(t, text, s, out, |_: &[u8], _: usize, _: usize| {});
}

/// What takes the tokens of a normalised text as they are written:
/// `token(the bytes written so far, start, end)`. A closure is one; a type of its own can ask
/// for its body to be inlined where the writer finds a token.
pub trait TokenSink {
    fn token(&mut self, out: &[u8], start: usize, end: usize);

    /// A token of at most 8 bytes, given with its [`short_id`](super::token_set::short_id) `id` (the writer read it from
    /// the block it wrote the token from): by default [`TokenSink::token`].
    #[inline(always)]
    fn short_token(&mut self, out: &[u8], id: u64, start: usize, end: usize) {
        let _ = id;
        self.token(out, start, end);
    }
}

impl<F: FnMut(&[u8], usize, usize)> TokenSink for F {
    #[inline(always)]
    fn token(&mut self, out: &[u8], start: usize, end: usize) {
        self(out, start, end)
    }
}

/// The text after the link and URL clean-up, which runs only on a text holding "http".
///
/// One pass over the text ([`LinkScratch::plan`]) finds the links and URLs, and the ranges of
/// the text that are kept are copied into `cleaned`; the rare text whose link replacement
/// could make or break a `https?://` across a replaced link's edge goes the way of the
/// definition instead: the links replaced into `nfkc`, then the URLs removed into `cleaned`.
fn without_links<'a>(
    text: &'a str,
    cleaned: &'a mut String,
    nfkc: &'a mut String,
    links: &mut LinkScratch,
) -> &'a str {
    // Both patterns hold `https?://`; a text without it has neither.
    if !has_scheme(text) {
        return text;
    }
    match links.plan(text) {
        Plan::Same => text,
        Plan::Kept => {
            cleaned.clear();
            links.push_kept(text, cleaned);
            cleaned
        }
        Plan::ByDefinition => by_definition(text, cleaned, nfkc),
    }
}

/// [`without_links`] the way the definition reads: the links replaced (into `nfkc`), then the
/// URLs removed from the result (into `cleaned`).
fn by_definition<'a>(text: &'a str, cleaned: &'a mut String, nfkc: &'a mut String) -> &'a str {
    nfkc.clear();
    let linked: &str = if replace_links(text, nfkc) {
        nfkc
    } else {
        text
    };
    cleaned.clear();
    if remove_urls(linked, cleaned) {
        cleaned
    } else {
        linked
    }
}

/// What [`LinkScratch::plan`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// No link and no URL: the text is its own result.
    Same,
    /// The result is the ranges [`LinkScratch::push_kept`] writes.
    Kept,
    /// The text takes [`by_definition`].
    ByDefinition,
}

/// The one pass of the link and URL clean-up, and its reusable buffers.
///
/// `re.sub(URL, "", re.sub(LINK, r"\1", text))` keeps ranges of `text`: the link replacement
/// leaves pieces of it (the text between links, and each link's label), and the URL removal
/// then drops ranges of their concatenation. A `https?://` of the concatenation lies inside
/// one piece unless it straddles two pieces' edge, which [`LinkScratch::plan`] checks (and
/// leaves to [`by_definition`]): so the URLs are found from the text's own colons, and the
/// ranges kept are the pieces less the URLs, in the text's order.
#[derive(Default)]
struct LinkScratch {
    /// The pieces of the text the link replacement keeps, in order, none empty.
    pieces: Vec<(usize, usize)>,
    /// The ranges of the text the URL removal drops, in order: each starts in a piece and ends
    /// in the same one or a later one (or at the last one's end).
    cuts: Vec<(usize, usize)>,
}

/// Whether the bytes `before` and `after`, side by side, may be two bytes of `https?://`
/// (`ht`, `tt`, `tp`, `ps`, `p:`, `s:`, `:/`, `//`).
#[inline(always)]
fn may_join_scheme(before: u8, after: u8) -> bool {
    SCHEME_BYTES[usize::from(before)] & SCHEME_BYTES[usize::from(after)] << 1 & 2 != 0
}

/// Per byte: bit 1 when it is a byte of `https?://` that another follows in it (`htps:/`),
/// bit 0 when it is one that follows another (`tps:/`).
static SCHEME_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut k = 0;
    while k < 6 {
        table[b"htps:/"[k] as usize] |= 2;
        k += 1;
    }
    let mut k = 0;
    while k < 5 {
        table[b"tps:/"[k] as usize] |= 1;
        k += 1;
    }
    table
};

/// Whether `b` may end a URL: a byte of 0x20 or below (Python's ASCII whitespace among them), or
/// of 0x80 or more (a character that may be whitespace).
#[inline(always)]
fn url_stop(b: u8) -> bool {
    b <= 0x20 || b >= 0x80
}

/// The first byte `b` of `bytes` at or after `from`: with AVX2 when `AVX2` (passed `true` only
/// where the processor has it: by code compiled for AVX2, see [`lowered_block`], or after a
/// run-time check), 32 places at a time and inlined, else `memchr`.
#[inline(always)]
fn find_byte<const AVX2: bool>(bytes: &[u8], from: usize, b: u8) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is true only where the processor has AVX2 (see above).
        return unsafe { avx2::find_byte(bytes, from, b) };
    }
    memchr(b, bytes.get(from..)?).map(|k| from + k)
}

/// The first colon of `bytes` at or after `from` that two slashes follow: with AVX2 when
/// `AVX2` (see [`find_byte`]), from the colons a slash follows, found 32 places at a time
/// (a colon of `Source:` costs nothing), else from the colons `memchr` finds.
#[inline(always)]
fn find_scheme_colon<const AVX2: bool>(bytes: &[u8], mut from: usize) -> Option<usize> {
    loop {
        #[cfg(target_arch = "x86_64")]
        let colon = if AVX2 {
            // SAFETY: as in `find_byte`.
            unsafe { avx2::find_colon_slash(bytes, from) }?
        } else {
            find_byte::<false>(bytes, from, b':')?
        };
        #[cfg(not(target_arch = "x86_64"))]
        let colon = find_byte::<false>(bytes, from, b':')?;
        if bytes.get(colon + 1..colon + 3) == Some(b"//") {
            return Some(colon);
        }
        from = colon + 1;
    }
}

/// The first byte of `bytes` at or after `from` that may end a URL ([`url_stop`]), as
/// [`find_byte`].
#[inline(always)]
fn find_url_stop<const AVX2: bool>(bytes: &[u8], from: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: as in `find_byte`.
        return unsafe { avx2::find_url_stop(bytes, from) };
    }
    let rest = bytes.get(from..)?;
    rest.iter().position(|&b| url_stop(b)).map(|k| from + k)
}

impl LinkScratch {
    /// Finds the links and the URLs of `text` (which holds `https?://`): with AVX2 where the
    /// processor has it ([`avx2::plan`]).
    fn plan(&mut self, text: &str) -> Plan {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2, which is all the function needs.
            return unsafe { avx2::plan(self, text) };
        }
        self.plan_in::<false>(text)
    }

    /// [`LinkScratch::plan`], its scans with AVX2 when `AVX2` (see [`find_byte`]).
    #[inline(always)]
    fn plan_in<const AVX2: bool>(&mut self, text: &str) -> Plan {
        let bytes = text.as_bytes();
        if self.find_links::<AVX2>(text) {
            return Plan::ByDefinition;
        }
        self.find_urls::<AVX2>(text);
        if self.cuts.is_empty() && self.pieces == [(0, bytes.len())] {
            Plan::Same
        } else {
            Plan::Kept
        }
    }

    /// The pieces of `text` that `re.sub(r"\[([^\]]+)\]\(\s*https?://[^)]+\s*\)", r"\1", text)`
    /// keeps; the answer is whether two pieces side by side may join into a `https?://`
    /// ([`may_join_scheme`]).
    ///
    /// The pattern is tried at each `[` from the end of the last link on. Its label runs to the
    /// first `]` after it, and all that follows depends on that `]` alone: so when it fails,
    /// it fails at every `[` before that `]` too, and the next try is at the first `[` after it.
    #[inline(always)]
    fn find_links<const AVX2: bool>(&mut self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let pieces = &mut self.pieces;
        pieces.clear();
        // The last byte of the last piece (none: 0, which joins nothing).
        let (mut last, mut joined) = (0u8, false);
        let mut push = |start: usize, end: usize| {
            if let (Some(&first), Some(&end_byte)) =
                (bytes.get(start), bytes.get(end.wrapping_sub(1)))
            {
                if start < end {
                    joined |= may_join_scheme(last, first);
                    last = end_byte;
                    pieces.push((start, end));
                }
            }
        };
        // `gap`: where the text after the last link starts; `from`: where the next try starts.
        let (mut gap, mut from) = (0, 0);
        while let Some(open) = find_byte::<AVX2>(bytes, from, b'[') {
            let Some(close) = find_byte::<AVX2>(bytes, open + 1, b']') else {
                break; // no `]` after it: no later `[` can match either
            };
            from = close + 1;
            if close == open + 1 || bytes.get(close + 1) != Some(&b'(') {
                continue;
            }
            let mut k = close + 2;
            loop {
                match bytes.get(k) {
                    Some(&b) if b < 0x80 && ascii_class(b) != SPACE => break,
                    Some(_) => match space_at(text, k) {
                        Some(w) => k += w,
                        None => break,
                    },
                    None => break,
                }
            }
            let Some(url) = scheme_end(bytes, k) else {
                continue;
            };
            // `[^)]+` runs to the first ')' and is not empty; `\s*` then matches nothing.
            let Some(paren) = find_byte::<AVX2>(bytes, url, b')') else {
                continue;
            };
            if paren == url {
                continue;
            }
            push(gap, open);
            push(open + 1, close);
            (gap, from) = (paren + 1, paren + 1);
        }
        push(gap, bytes.len());
        joined
    }

    /// The URLs `re.sub(r"https?://\S+", "", ...)` removes from the pieces joined (none of
    /// whose `https?://` straddles two pieces), into `cuts`.
    ///
    /// Each `https?://` of a piece has its own colon, which two slashes follow in the piece;
    /// its body runs to the first Python whitespace, from piece to piece.
    #[inline(always)]
    fn find_urls<const AVX2: bool>(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let (pieces, cuts) = (&self.pieces, &mut self.cuts);
        cuts.clear();
        // `k`: the piece at or after the last colon; `at`: where the next colon is looked for;
        // `from`: where the last URL removed ends (no other starts before it).
        let (mut k, mut at, mut from) = (0, 0, 0);
        while let Some(colon) = find_scheme_colon::<AVX2>(bytes, at) {
            while pieces.get(k).is_some_and(|&(_, end)| end <= colon) {
                k += 1;
            }
            let Some(&(start, end)) = pieces.get(k) else {
                break;
            };
            if colon < start {
                at = start; // in a link the replacement drops
                continue;
            }
            at = colon + 1;
            let Some(scheme) = scheme_start(bytes, colon).filter(|&s| s >= start.max(from)) else {
                continue;
            };
            if colon + 3 > end {
                continue; // its slashes are not the piece's
            }
            let (stop, held) = url_end::<AVX2>(text, pieces, k, colon + 3);
            if !held {
                continue;
            }
            cuts.push((scheme, stop));
            (at, from) = (stop, stop);
        }
    }

    /// Appends the ranges of `text` kept (the pieces less the cuts) to `out`.
    fn push_kept(&self, text: &str, out: &mut String) {
        // Room for the whole text and a block more, for the copies of fixed size.
        out.reserve(text.len() + 64);
        // SAFETY: only whole ranges of `text` are appended, each from a character boundary to
        // another (the ends of the pieces and cuts), so `out` stays UTF-8; checked again in
        // debug builds.
        let bytes = unsafe { out.as_mut_vec() };
        let mut cuts = self.cuts.iter().peekable();
        for &(start, end) in &self.pieces {
            let mut at = start;
            while at < end {
                while cuts.next_if(|&&(_, stop)| stop <= at).is_some() {}
                match cuts.peek() {
                    Some(&&(cut, stop)) if cut < end => {
                        push_range(bytes, text.as_bytes(), at, cut);
                        at = stop.max(at);
                    }
                    _ => {
                        push_range(bytes, text.as_bytes(), at, end);
                        at = end;
                    }
                }
            }
        }
        debug_assert!(std::str::from_utf8(out.as_bytes()).is_ok());
    }
}

/// Appends `text[start..end]` to `out` (nothing when `end <= start`): a range of at most 64
/// bytes as a copy of 64 when the text has 64 from its start and `out` room for them (of
/// which only the range's bytes are kept; a copy of the range's length was a call), else as
/// a slice.
#[inline(always)]
fn push_range(out: &mut Vec<u8>, text: &[u8], start: usize, end: usize) {
    let Some(n) = end.checked_sub(start).filter(|&n| n > 0) else {
        return;
    };
    let len = out.len();
    let from = text.get(start..).and_then(|r| r.first_chunk::<64>());
    let to = out
        .spare_capacity_mut()
        .get_mut(..64)
        .and_then(|s| s.first_chunk_mut::<64>());
    match (from, to) {
        (Some(from), Some(to)) if n <= 64 => {
            // SAFETY: both hold 64 bytes, `to` in `out`'s spare capacity, which `from`
            // (borrowed from the text) does not overlap; a copy of fixed size is a few vector
            // moves.
            unsafe {
                std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr().cast::<u8>(), 64)
            };
            // SAFETY: the 64 bytes after `len` were just written, and `n` is at most 64.
            unsafe { out.set_len(len + n) };
        }
        _ => out.extend_from_slice(text.get(start..end).unwrap_or(&[])),
    }
}

/// Where a URL body from byte `body` of piece `k` ends in the pieces joined: at its first
/// Python whitespace (its place in the text), else at the last piece's end; and whether the
/// body holds a character.
#[inline(always)]
fn url_end<const AVX2: bool>(
    text: &str,
    pieces: &[(usize, usize)],
    mut k: usize,
    body: usize,
) -> (usize, bool) {
    let bytes = text.as_bytes();
    let (mut at, mut held) = (body, false);
    let mut end = pieces.get(k).map_or(body, |&(_, end)| end);
    loop {
        match find_url_stop::<AVX2>(bytes, at).filter(|&stop| stop < end) {
            Some(stop) => {
                let width = match bytes.get(stop) {
                    Some(&b) if b < 0x80 => {
                        if ascii_class(b) == SPACE {
                            return (stop, held || stop > at);
                        }
                        1
                    }
                    _ => match space_at(text, stop) {
                        Some(_) => return (stop, held || stop > at),
                        None => text
                            .get(stop..)
                            .and_then(|r| r.chars().next())
                            .map_or(1, char::len_utf8),
                    },
                };
                held = true;
                at = stop + width;
            }
            None => {
                held |= end > at;
                k += 1;
                match pieces.get(k) {
                    Some(&(start, next_end)) => (at, end) = (start, next_end),
                    None => return (end, held),
                }
            }
        }
    }
}

/// [`basic_normalize`], handing each token of the normalised text to `token` as it is written,
/// in text order, duplicates kept: the tokens [`for_each_token`] would find in `out`, each as
/// `token(bytes of out so far, start, end)`.
///
/// One pass over the text after the link and URL clean-up (see [`write_normalized`]); a text
/// that may hold a capital sigma after NFKC (whose lower case depends on its neighbours) takes
/// the character path of [`normalize_by_char`] instead. The answer is whether `text` is ASCII.
pub fn normalize_tokens(
    t: &Tables,
    text: &str,
    s: &mut NormScratch,
    out: &mut String,
    mut token: impl TokenSink,
) -> bool {
    // Both patterns of the link clean-up hold a colon: a text without one is its own result.
    let (colon, text_ascii) = colon_and_ascii(text.as_bytes());
    let NormScratch {
        cleaned,
        nfkc,
        links,
        plain,
    } = s;
    let source = if colon {
        without_links(text, cleaned, nfkc, links)
    } else {
        text
    };
    // An ASCII text holds no sigma: the search reads only the others.
    let ascii = if colon { source.is_ascii() } else { text_ascii };
    if !ascii && may_hold_capital_sigma(source) {
        normalize_by_char(t, source, &mut String::new(), out, |o, a, b| {
            token.token(o.as_bytes(), a, b)
        });
    } else {
        out.clear();
        // SAFETY: `write_normalized` appends UTF-8 only: ASCII bytes of the text lower-cased
        // (ASCII still), and characters it encodes (`char::encode_utf8`). The bytes are
        // checked again in debug builds.
        let bytes = unsafe { out.as_mut_vec() };
        plain.use_tables(t);
        write_normalized(t, source, ascii, plain, bytes, token);
        debug_assert!(std::str::from_utf8(out.as_bytes()).is_ok());
    }
    text_ascii
}

/// Whether `bytes` holds a colon, and whether they are all ASCII: one pass, 64 bytes at a time
/// with AVX2 where the processor has it, then 16 at a time with SSE2 on x86_64 (the search for
/// the colon and `str::is_ascii` were a pass each).
#[inline]
fn colon_and_ascii(bytes: &[u8]) -> (bool, bool) {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= 64 && crate::cpu::has_avx2() {
        let mut blocks = bytes.chunks_exact(64);
        // SAFETY: the processor has AVX2, which is all the function needs.
        let (colon, high) = unsafe { avx2::colon_and_high(&mut blocks) };
        let (colon_rest, ascii_rest) = colon_and_ascii_by_16(blocks.remainder(), bytes);
        return (colon || colon_rest, !high && ascii_rest);
    }
    colon_and_ascii_by_16(bytes, bytes)
}

/// [`colon_and_ascii`] of `bytes` (the end of `text`) 16 bytes at a time with SSE2 on x86_64,
/// the last fewer than 16 as the text's last 16 (bytes read again answer the same), or in a
/// text of fewer than 16 as two words ([`colon_and_high_short`]), where a loop over the bytes
/// cost a branch each; else with the standard library.
#[inline]
fn colon_and_ascii_by_16(bytes: &[u8], text: &[u8]) -> (bool, bool) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        let mut chunks = bytes.chunks_exact(16);
        let (colon, high) = sse2::colon_and_high(&mut chunks);
        let rest = chunks.remainder();
        let (colon_rest, high_rest) = if rest.is_empty() {
            (false, false)
        } else if let Some(last) = text.len().checked_sub(16).and_then(|at| text.get(at..)) {
            sse2::colon_and_high(&mut last.chunks_exact(16))
        } else {
            colon_and_high_short(rest)
        };
        (colon || colon_rest, !(high || high_rest))
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        let _ = text;
        (bytes.contains(&b':'), bytes.is_ascii())
    }
}

/// Whether `bytes` (fewer than 16) holds a colon, and a byte of 0x80 or more: from two words
/// that cover them (of 8 bytes, overlapping, from 8 bytes on; of 4 from 4; else the bytes
/// zero-padded), a colon found as a zero byte of the word with every byte's colon bits
/// flipped.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable"))),
    allow(dead_code)
)]
#[inline(always)]
fn colon_and_high_short(bytes: &[u8]) -> (bool, bool) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const COLONS: u64 = ONES * b':' as u64;
    let (a, b) = ascii::covering_words(bytes);
    // Zero bytes (the padding) are not colons; a word has a zero byte exactly when this is not 0.
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    (
        has_zero(a ^ COLONS) || has_zero(b ^ COLONS),
        (a | b) & HIGH != 0,
    )
}

/// How many of the first bytes of `bytes` are ASCII and neither whitespace nor a control byte
/// below 0x21 (none of them is Python whitespace), counted 16 at a time with SSE2 on x86_64 in
/// the whole chunks of 16 (so it may stop short of the first other byte, by fewer than 16),
/// else 0.
#[inline]
fn graphic_prefix(bytes: &[u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        sse2::graphic_prefix(bytes)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        let _ = bytes;
        0
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse2 {
    //! Sound because this module is only compiled where SSE2 is enabled for the whole build
    //! (every x86_64 target), as `crate::ascii`'s.
    use std::arch::x86_64::*;

    /// See [`super::graphic_prefix`].
    #[inline]
    pub(super) fn graphic_prefix(bytes: &[u8]) -> usize {
        let mut n = 0;
        for chunk in bytes.chunks_exact(16) {
            let Some(chunk) = chunk.first_chunk::<16>() else {
                break;
            };
            // SAFETY: SSE2 is enabled for the build (the module's `cfg`); the load reads the
            // 16 bytes of a chunk, unaligned.
            let graphic = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                // Signed: 0x21 to 0x7F are above 0x20, bytes of 0x80 or more negative.
                _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20))) as u32
            };
            if graphic != 0xFFFF {
                return n + graphic.trailing_ones() as usize;
            }
            n += 16;
        }
        n
    }

    /// Whether the chunks of 16 bytes hold a colon, and a byte of 0x80 or more.
    #[inline(always)]
    pub(super) fn colon_and_high(chunks: &mut std::slice::ChunksExact<'_, u8>) -> (bool, bool) {
        // SAFETY: SSE2 is enabled for the build (the module's `cfg`); each load reads the 16
        // bytes of a chunk, unaligned.
        unsafe {
            let (mut colon, mut high) = (_mm_setzero_si128(), _mm_setzero_si128());
            let want = _mm_set1_epi8(b':' as i8);
            for chunk in chunks {
                if let Some(chunk) = chunk.first_chunk::<16>() {
                    let v = _mm_loadu_si128(chunk.as_ptr().cast());
                    colon = _mm_or_si128(colon, _mm_cmpeq_epi8(v, want));
                    high = _mm_or_si128(high, v);
                }
            }
            (_mm_movemask_epi8(colon) != 0, _mm_movemask_epi8(high) != 0)
        }
    }
}

/// The characters whose NFKC holds a capital sigma (U+03A3 and the symbols that normalise to
/// it); their UTF-8 begins with one of the bytes 0xCE, 0xCF and 0xF0.
const SIGMA_SOURCES: [&str; 7] = [
    "\u{03A3}",
    "\u{03F9}",
    "\u{1D6BA}",
    "\u{1D6F4}",
    "\u{1D72E}",
    "\u{1D768}",
    "\u{1D7A2}",
];

/// Whether a character of [`SIGMA_SOURCES`] starts at byte `at` of `bytes`.
#[inline]
fn sigma_at(bytes: &[u8], at: usize) -> bool {
    let rest = bytes.get(at..).unwrap_or(&[]);
    SIGMA_SOURCES.iter().any(|c| rest.starts_with(c.as_bytes()))
}

/// Whether the NFKC of `text` may hold a capital sigma: with AVX2 where the processor has it
/// ([`avx2::may_hold_capital_sigma`]: the first two bytes of the characters, 32 places at a
/// time), else [`sigma_by_lead_bytes`].
fn may_hold_capital_sigma(text: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    if text.len() > 32 && crate::cpu::has_avx2() {
        // SAFETY: the processor has AVX2, which is all the function needs.
        return unsafe { avx2::may_hold_capital_sigma(text.as_bytes()) };
    }
    sigma_by_lead_bytes(text.as_bytes())
}

/// [`may_hold_capital_sigma`] of `bytes` (UTF-8 from a character boundary on) a byte at a
/// time: a search for the characters' first bytes (0xCE, 0xCF, 0xF0), and at each one found,
/// whether one of the characters starts there.
fn sigma_by_lead_bytes(bytes: &[u8]) -> bool {
    memchr::memchr3_iter(0xCE, 0xCF, 0xF0, bytes).any(|at| sigma_at(bytes, at))
}

const NO: usize = usize::MAX;

/// The mask of the bits below bit `n` (all of them from 64 on).
#[inline(always)]
fn below(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The writer of a normalised text and its tokens: characters of the NFKC text arrive in
/// order, are lower-cased, and written with whitespace runs collapsed to one space (none at
/// the start; the one at the end is removed last); a token is a run of characters that are
/// neither whitespace nor ASCII punctuation.
struct Writer<'o, F: TokenSink> {
    out: &'o mut Vec<u8>,
    /// Where the token being written starts ([`NO`]: none is).
    word: usize,
    token: F,
}

impl<F: TokenSink> Writer<'_, F> {
    #[inline(always)]
    fn end_word(&mut self) {
        if self.word != NO {
            self.token.token(self.out, self.word, self.out.len());
            self.word = NO;
        }
    }

    #[inline(always)]
    fn space(&mut self) {
        self.end_word();
        if self.out.last().is_some_and(|&b| b != b' ') {
            self.out.push(b' ');
        }
    }

    /// An ASCII character of the lowered text.
    #[inline(always)]
    fn ascii(&mut self, b: u8) {
        match ascii_class(b) {
            SPACE => self.space(),
            PUNCT => {
                self.end_word();
                self.out.push(b);
            }
            _ => {
                if self.word == NO {
                    self.word = self.out.len();
                }
                self.out.push(b);
            }
        }
    }

    /// A character of the lowered text.
    #[inline(always)]
    fn lowered(&mut self, c: char) {
        if c.is_ascii() {
            self.ascii(c as u8);
        } else if is_py_space(c) {
            self.space();
        } else {
            if self.word == NO {
                self.word = self.out.len();
            }
            let mut utf8 = [0u8; 4];
            self.out
                .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
    }

    /// A character of the NFKC text (not a capital sigma).
    #[inline(always)]
    fn char(&mut self, t: &Tables, c: char) {
        if c.is_ascii() {
            self.ascii(c.to_ascii_lowercase() as u8);
        } else {
            self.wide_char(t, c);
        }
    }

    /// [`Writer::char`] of a character that is not ASCII: a call of its own, so that the
    /// character loop of [`write_normalized`] does not prepare its UTF-8 for every character
    /// it reads (the compiler did so where this was inlined).
    #[inline(never)]
    fn wide_char(&mut self, t: &Tables, c: char) {
        if t.flags(c) & CHANGES_WHEN_LOWERED == 0 {
            // Its own lower case (what `lower_char_each` would hand over), written here.
            self.lowered(c);
        } else {
            t.lower_char_each(c, |l| self.lowered(l));
        }
    }

    /// The first `n` bytes (at most 64) of `block`, ASCII characters of the NFKC text that NFKC
    /// leaves alone: classified 64 at a time ([`ascii::classify`]), lower-cased with their
    /// whitespace made spaces ([`ascii::lower_spaced`]) and written as one copy, or one per run
    /// of kept bytes when some whitespace is dropped (a whitespace byte after another, or at the
    /// start). The tokens are found from the edges of the mask of their bytes, two at a time;
    /// a token reaching byte `n` stays open.
    ///
    /// `AVX2`: the block is lowered with AVX2 ([`avx2::lowered`], inlined where the caller is
    /// compiled for AVX2); only [`avx2::write_normalized`] passes `true`.
    #[inline(always)]
    fn ascii_block<const AVX2: bool>(&mut self, block: &[u8; 64], n: usize) {
        let valid = below(n);
        let Lowered {
            space,
            word,
            bytes: padded_lowered,
        } = lowered_block::<AVX2>(block, n);
        let lowered = padded_lowered.get(..64).unwrap_or(&[]);
        let space = space & valid;
        let word = word & valid;
        let prev_space = u64::from(self.out.last().is_none_or(|&b| b == b' '));
        let dropped = space & ((space << 1) | prev_space);
        let inside = u64::from(self.word != NO);
        let edges = (word ^ ((word << 1) | inside)) & valid;
        if dropped == 0 {
            let base = self.out.len();
            if let Some(whole) = lowered.first_chunk::<64>() {
                push_first(self.out, whole, n);
            }
            self.tokens(edges, base, &padded_lowered);
            return;
        }
        // A dropped byte follows a whitespace byte, so no token starts or ends there: each edge
        // lies in a run of kept bytes, whose bytes move back by the same amount.
        let mut kept = valid & !dropped;
        while kept != 0 {
            let start = kept.trailing_zeros() as usize;
            let end = start + (!(kept >> start)).trailing_zeros() as usize;
            let run = below(end) & !below(start);
            let base = self.out.len().wrapping_sub(start);
            // The 64 bytes from the run's start (zeros past the block), of which the run's
            // are kept: a copy of fixed size, where a copy of the run's length was a call.
            if let Some(from) = padded_lowered
                .get(start..)
                .and_then(|b| b.first_chunk::<64>())
            {
                push_first(self.out, from, end - start);
            }
            self.tokens(edges & run, base, &padded_lowered);
            kept &= !run;
        }
    }

    /// The tokens whose edges are the set bits of `edges` (bit `k` is byte `base + k` of the
    /// output, and byte `k` of `lowered`, the block's bytes as written), in order: the first
    /// ends the open token if one is open. A token of the block of at most 8 bytes is handed
    /// over with its [`short_id`](super::token_set::short_id): the 8 bytes of `lowered` from
    /// its start (the zero bytes after the block stand for those past it), masked to its
    /// length and tagged with it ([`SHORT_ID_BITS`]).
    #[inline(always)]
    fn tokens(&mut self, mut edges: u64, base: usize, lowered: &[u8; 64 + TAIL]) {
        if edges == 0 {
            return;
        }
        if self.word != NO {
            let end = base.wrapping_add(edges.trailing_zeros() as usize);
            self.token.token(self.out, self.word, end);
            self.word = NO;
            edges &= edges - 1;
        }
        while edges != 0 {
            let first = edges.trailing_zeros() as usize;
            let start = base.wrapping_add(first);
            edges &= edges - 1;
            if edges == 0 {
                self.word = start;
                return;
            }
            let last = edges.trailing_zeros() as usize;
            let end = base.wrapping_add(last);
            edges &= edges - 1;
            let len = last.wrapping_sub(first);
            // The 8 bytes of `lowered` from the token's start (`first` is below 64).
            let from = first & 63;
            match (
                lowered
                    .get(from..from + 8)
                    .and_then(|w| w.first_chunk::<8>()),
                SHORT_ID_BITS.get(len),
            ) {
                (Some(word), Some(&(mask, tag))) => {
                    let id = u64::from_le_bytes(*word) & mask | tag;
                    self.token.short_token(self.out, id, start, end);
                }
                _ => self.token.token(self.out, start, end),
            }
        }
    }

    /// The end of the text (inlined: a call of its own cost about 20 instructions a text).
    #[inline(always)]
    fn finish(&mut self) {
        self.end_word();
        if self.out.last() == Some(&b' ') {
            self.out.pop();
        }
    }
}

/// A block of 64 bytes as [`Writer::ascii_block`] reads it: its whitespace bytes, its token
/// bytes (neither whitespace nor ASCII punctuation: letters, digits, control bytes, and bytes
/// of 0x80 or more), one bit per byte, and its bytes lower-cased with their whitespace made
/// spaces ([`ascii::lower_spaced`]).
struct Lowered {
    space: u64,
    word: u64,
    /// The block's 64, then [`TAIL`] zero bytes.
    bytes: [u8; 64 + TAIL],
}

/// The zero bytes after a block's lowered bytes in [`Lowered`]: 64, so that the 64 bytes from
/// any byte of the block are there to copy ([`Writer::ascii_block`]).
const TAIL: usize = 64;

/// [`Lowered`] from [`ascii::classify`] and [`ascii::lower_spaced`] (SSE2 on x86_64).
#[inline(always)]
fn lowered_portable(block: &[u8; 64]) -> Lowered {
    let classes = ascii::classify(block);
    let mut bytes = [0u8; 64 + TAIL];
    if let Some(to) = bytes.first_chunk_mut::<64>() {
        *to = ascii::lower_spaced(block);
    }
    Lowered {
        space: classes.space,
        word: !classes.space & (!classes.printable | classes.alnum),
        bytes,
    }
}

/// [`Lowered`] of `block`: with AVX2 when `AVX2` (about a third of the SSE2 version's
/// instructions), else [`lowered_portable`].
///
/// `AVX2` is `true` only in the code [`avx2::write_normalized`] compiles for AVX2, which runs
/// only where the processor has it. With AVX2, when only the first `n` bytes are wanted and
/// `n` is at most 32 (a short text, a text's last block), only the first half is read
/// ([`avx2::lowered_first_half`]: the bits and bytes of the first 32 bytes, the rest zero).
#[inline(always)]
fn lowered_block<const AVX2: bool>(block: &[u8; 64], n: usize) -> Lowered {
    #[cfg(target_arch = "x86_64")]
    {
        if AVX2 {
            // SAFETY: `AVX2` is true only inside `avx2::write_normalized`, which is called only
            // where the processor has AVX2 (see `write_normalized`).
            return unsafe {
                if n <= 32 {
                    avx2::lowered_first_half(block)
                } else {
                    avx2::lowered(block)
                }
            };
        }
    }
    let _ = n;
    lowered_portable(block)
}

/// Appends the first `n` bytes (at most 64) of `block` to `out`: the 64 bytes are copied whole
/// into the spare capacity (a copy of fixed size: two or four vector moves, where a copy of `n`
/// bytes was a call), and only the first `n` are kept.
#[inline(always)]
fn push_first(out: &mut Vec<u8>, block: &[u8; 64], n: usize) {
    let n = n.min(64);
    out.reserve(64);
    let len = out.len();
    if let Some(spare) = out
        .spare_capacity_mut()
        .get_mut(..64)
        .and_then(|s| s.first_chunk_mut::<64>())
    {
        for (to, &from) in spare.iter_mut().zip(block) {
            to.write(from);
        }
        // SAFETY: the 64 bytes after `len` were just written (`n` is at most 64), and
        // `len + n` is within the capacity reserved above.
        unsafe { out.set_len(len + n) };
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! [`super::lowered_block`] with AVX2, and [`super::write_normalized`] with it inlined,
    //! compiled for AVX2 whatever the build's target and called only when the processor has it.
    use super::{Lowered, PlainChars, TokenSink};
    use crate::ascii::avx2::{in_range, nibble_classes};
    use crate::pyunicode::Tables;
    use std::arch::x86_64::*;

    /// Per low nibble of a byte (both 16-byte lanes alike), the classes of [`half`] that hold
    /// some byte with that low nibble; per high nibble, the classes that hold only bytes with
    /// that high nibble: a byte is in a class when both of its nibbles' entries have the class's
    /// bit. Bits 0 to 2: the whitespace bytes 0x09-0x0D, 0x1C-0x1F and 0x20; bits 3 to 7: the
    /// punctuation 0x21-0x2F, 0x3A-0x3F, 0x5B-0x5F, 0x7B-0x7E, and 0x40 and 0x60.
    const LOW_NIBBLE_CLASSES: [u8; 16] = [
        0x84, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x09, 0x19, 0x79, 0x7B, 0x7B, 0x7A,
        0x3A,
    ];
    /// See [`LOW_NIBBLE_CLASSES`]; bytes of 0x80 or more are in none.
    const HIGH_NIBBLE_CLASSES: [u8; 16] = [
        0x01, 0x02, 0x0C, 0x10, 0x80, 0x20, 0x80, 0x40, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    /// The bits of [`LOW_NIBBLE_CLASSES`] whose classes are whitespace.
    const SPACE_CLASSES: i8 = 0x07;

    /// The whitespace bits, token bits and lowered bytes of 32 bytes: the whitespace and
    /// punctuation found by two table look-ups on the bytes' nibbles (about half the
    /// instructions of a range test per class).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn half(v: __m256i) -> (u64, u64, __m256i) {
        let twenty = _mm256_set1_epi8(0x20);
        let classes = nibble_classes(v, &LOW_NIBBLE_CLASSES, &HIGH_NIBBLE_CLASSES);
        let zero = _mm256_setzero_si256();
        // Neither whitespace nor punctuation: the token bytes.
        let token = _mm256_cmpeq_epi8(classes, zero);
        let not_space = _mm256_cmpeq_epi8(
            _mm256_and_si256(classes, _mm256_set1_epi8(SPACE_CLASSES)),
            zero,
        );
        let upper = in_range(v, b'A', b'Z');
        let lowered = _mm256_or_si256(v, _mm256_and_si256(upper, twenty));
        let bytes = _mm256_blendv_epi8(twenty, lowered, not_space);
        let bits = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32);
        (!bits(not_space) & 0xffff_ffff, bits(token), bytes)
    }

    /// Whether the chunks of 64 bytes hold a colon, and a byte of 0x80 or more.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn colon_and_high(
        chunks: &mut std::slice::ChunksExact<'_, u8>,
    ) -> (bool, bool) {
        let (mut colon, mut high) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        let want = _mm256_set1_epi8(b':' as i8);
        for chunk in chunks {
            let (lo, hi) = chunk.split_at(32.min(chunk.len()));
            if hi.len() < 32 {
                continue; // not reached: the chunks hold 64 bytes
            }
            // SAFETY: each half holds 32 bytes, which an unaligned load reads.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(lo.as_ptr().cast()),
                    _mm256_loadu_si256(hi.as_ptr().cast()),
                )
            };
            let found = _mm256_or_si256(_mm256_cmpeq_epi8(a, want), _mm256_cmpeq_epi8(b, want));
            colon = _mm256_or_si256(colon, found);
            high = _mm256_or_si256(high, _mm256_or_si256(a, b));
        }
        (
            _mm256_movemask_epi8(colon) != 0,
            _mm256_movemask_epi8(high) != 0,
        )
    }

    /// [`super::may_hold_capital_sigma`] of `bytes` (UTF-8): the places where the first two
    /// bytes of one of [`super::SIGMA_SOURCES`] stand (0xCE 0xA3, 0xCF 0xB9, 0xF0 0x9D), found
    /// 32 at a time from two loads a byte apart, each checked whole (33 bytes or fewer: by
    /// [`super::sigma_by_lead_bytes`]). An emoji (0xF0 0x9F) is not stopped at.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn may_hold_capital_sigma(bytes: &[u8]) -> bool {
        if bytes.len() < 33 {
            return super::sigma_by_lead_bytes(bytes);
        }
        let pair = |first: u8, second: u8| {
            (
                _mm256_set1_epi8(first as i8),
                _mm256_set1_epi8(second as i8),
            )
        };
        let pairs = [pair(0xCE, 0xA3), pair(0xCF, 0xB9), pair(0xF0, 0x9D)];
        // Each step reads bytes `at..at + 33`; the last step's window ends at the text's end
        // (it may overlap the one before): the places of its first 32 bytes are checked, and
        // no character of two bytes or more starts at the text's last byte.
        let last = bytes.len().saturating_sub(33);
        let mut at = 0;
        while let Some(window) = bytes.get(at..at + 33) {
            let (_, second) = window.split_at(1);
            // SAFETY: `window` holds 33 bytes, so each load reads 32 bytes inside it.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(window.as_ptr().cast()),
                    _mm256_loadu_si256(second.as_ptr().cast()),
                )
            };
            let mut hits = _mm256_setzero_si256();
            for (x, y) in pairs {
                let both = _mm256_and_si256(_mm256_cmpeq_epi8(a, x), _mm256_cmpeq_epi8(b, y));
                hits = _mm256_or_si256(hits, both);
            }
            let mut mask = _mm256_movemask_epi8(hits) as u32;
            while mask != 0 {
                if super::sigma_at(bytes, at + mask.trailing_zeros() as usize) {
                    return true;
                }
                mask &= mask - 1;
            }
            if at == last {
                break;
            }
            at = (at + 32).min(last);
        }
        false
    }

    /// [`super::LinkScratch::plan`] compiled for AVX2, its scans inlined.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn plan(links: &mut super::LinkScratch, text: &str) -> super::Plan {
        links.plan_in::<true>(text)
    }

    /// The first place at or after `from` where `hit` (the bits of 32 bytes) sets a bit: 32
    /// places at a time, the last window ending at the text's end (its places before `from`
    /// left out); a text of fewer than 32 bytes a byte at a time by `by_byte`.
    #[inline(always)]
    fn find_with(
        bytes: &[u8],
        from: usize,
        hit: impl Fn(__m256i) -> u32,
        by_byte: impl Fn(u8) -> bool,
    ) -> Option<usize> {
        let Some(last) = bytes.len().checked_sub(32) else {
            let rest = bytes.get(from..)?;
            return rest.iter().position(|&b| by_byte(b)).map(|k| from + k);
        };
        let mut at = from;
        while at < last {
            let window = bytes.get(at..at + 32)?;
            // SAFETY: `window` holds 32 bytes, which an unaligned load reads.
            let mask = hit(unsafe { _mm256_loadu_si256(window.as_ptr().cast()) });
            if mask != 0 {
                return Some(at + mask.trailing_zeros() as usize);
            }
            at += 32;
        }
        if at >= bytes.len() {
            return None;
        }
        let window = bytes.get(last..)?;
        // SAFETY: `window` holds the text's last 32 bytes, which an unaligned load reads.
        let mask = hit(unsafe { _mm256_loadu_si256(window.as_ptr().cast()) }) >> (at - last);
        (mask != 0).then(|| at + mask.trailing_zeros() as usize)
    }

    /// [`super::find_byte`] with AVX2.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_byte(bytes: &[u8], from: usize, b: u8) -> Option<usize> {
        let want = _mm256_set1_epi8(b as i8);
        find_with(
            bytes,
            from,
            |v| _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, want)) as u32,
            |x| x == b,
        )
    }

    /// The first colon of `bytes` at or after `from` that a slash follows, found 32 places at a
    /// time from two loads a byte apart (the last window ends a byte before the text's end,
    /// its places before `from` left out; its last place, the text's last byte, is followed by
    /// nothing); a text of fewer than 33 bytes a byte at a time.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_colon_slash(bytes: &[u8], from: usize) -> Option<usize> {
        let Some(last) = bytes.len().checked_sub(33) else {
            let rest = bytes.get(from..)?;
            return rest
                .windows(2)
                .position(|pair| pair == b":/")
                .map(|k| from + k);
        };
        let (colon, slash) = (_mm256_set1_epi8(b':' as i8), _mm256_set1_epi8(b'/' as i8));
        let hit = |at: usize| -> Option<u32> {
            let window = bytes.get(at..at + 33)?;
            let (_, next) = window.split_at(1);
            // SAFETY: `window` holds 33 bytes, so each load reads 32 bytes inside it.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(window.as_ptr().cast()),
                    _mm256_loadu_si256(next.as_ptr().cast()),
                )
            };
            let both = _mm256_and_si256(_mm256_cmpeq_epi8(a, colon), _mm256_cmpeq_epi8(b, slash));
            Some(_mm256_movemask_epi8(both) as u32)
        };
        let mut at = from;
        while at < last {
            let mask = hit(at)?;
            if mask != 0 {
                return Some(at + mask.trailing_zeros() as usize);
            }
            at += 32;
        }
        if at >= last + 32 {
            return None; // the text's last byte, or past it
        }
        let mask = hit(last)? >> (at - last);
        (mask != 0).then(|| at + mask.trailing_zeros() as usize)
    }

    /// [`super::find_url_stop`] with AVX2.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_url_stop(bytes: &[u8], from: usize) -> Option<usize> {
        // Signed: bytes of 0x80 or more are negative, below 0x21 as those up to 0x20.
        let graphic = _mm256_set1_epi8(0x21);
        find_with(
            bytes,
            from,
            |v| _mm256_movemask_epi8(_mm256_cmpgt_epi8(graphic, v)) as u32,
            super::url_stop,
        )
    }

    /// [`super::write_normalized`] compiled for AVX2, its blocks lowered by [`lowered`] inlined,
    /// and for the bit instructions every processor with AVX2 has beside it (BMI1, BMI2,
    /// POPCNT, LZCNT: a token's place from a mask is one instruction or two).
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1, BMI2, POPCNT and LZCNT ([`crate::cpu::has_avx2_bits`]).
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    pub(super) unsafe fn write_normalized(
        t: &Tables,
        text: &str,
        ascii: bool,
        plain: &mut PlainChars,
        out: &mut Vec<u8>,
        token: impl TokenSink,
    ) {
        super::write_normalized_in::<true>(t, text, ascii, plain, out, token);
    }

    /// [`lowered`] of the first 32 bytes of `block`: the bits of the others clear, their bytes
    /// zero.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lowered_first_half(block: &[u8; 64]) -> Lowered {
        let (lo, _) = block.split_at(32);
        // SAFETY: the half holds 32 bytes, which an unaligned load reads.
        let a = unsafe { _mm256_loadu_si256(lo.as_ptr().cast()) };
        let (space, word, lowered) = half(a);
        let mut bytes = [0u8; 64 + super::TAIL];
        let (to, _) = bytes.split_at_mut(32);
        // SAFETY: `to` holds 32 bytes, which an unaligned store writes.
        unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), lowered) };
        Lowered { space, word, bytes }
    }

    /// See [`super::lowered_block`].
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lowered(block: &[u8; 64]) -> Lowered {
        let (lo, hi) = block.split_at(32);
        // SAFETY: each half holds 32 bytes, which an unaligned load reads.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(lo.as_ptr().cast()),
                _mm256_loadu_si256(hi.as_ptr().cast()),
            )
        };
        let (space_a, word_a, bytes_a) = half(a);
        let (space_b, word_b, bytes_b) = half(b);
        let mut bytes = [0u8; 64 + super::TAIL];
        let (to_lo, to_hi) = bytes.split_at_mut(32);
        // SAFETY: each half holds 32 bytes, which an unaligned store writes.
        unsafe {
            _mm256_storeu_si256(to_lo.as_mut_ptr().cast(), bytes_a);
            _mm256_storeu_si256(to_hi.as_mut_ptr().cast(), bytes_b);
        }
        Lowered {
            space: space_a | space_b << 32,
            word: word_a | word_b << 32,
            bytes,
        }
    }
}

/// The bytes of `rest` (the first 64) zero-padded to 64: copies of 16 bytes and a last one
/// of 16 or 8 that ends where `rest` does (it may overlap the one before), or below 8 bytes one
/// zero-padded word (a byte-by-byte copy was a `memset` and a `memcpy` call, which a text's
/// last block paid).
#[inline(always)]
fn padded(rest: &[u8]) -> [u8; 64] {
    let mut block = [0u8; 64];
    let n = rest.len().min(64);
    fn copy<const W: usize>(block: &mut [u8; 64], rest: &[u8], at: usize) {
        let to = block.get_mut(at..).and_then(|b| b.first_chunk_mut::<W>());
        let from = rest.get(at..).and_then(|r| r.first_chunk::<W>());
        if let (Some(to), Some(from)) = (to, from) {
            *to = *from;
        }
    }
    if n >= 16 {
        let mut at = 0;
        while at + 16 <= n {
            copy::<16>(&mut block, rest, at);
            at += 16;
        }
        copy::<16>(&mut block, rest, n - 16);
    } else if n >= 8 {
        copy::<8>(&mut block, rest, 0);
        copy::<8>(&mut block, rest, n - 8);
    } else if let Some(to) = block.first_chunk_mut::<8>() {
        *to = ascii::load_short(rest).to_le_bytes();
    }
    block
}

/// Whether [`Writer::ascii_block`] may take the character `c` (not ASCII) as its bytes: NFKC
/// leaves it alone wherever it stands ([`nfkc_inert`]), it is assigned, its own lower case, and
/// no whitespace, so its bytes are written as they are, inside a token.
#[inline(always)]
fn plain_char(t: &Tables, c: char) -> bool {
    t.flags(c) & (UNASSIGNED | CHANGES_WHEN_LOWERED) == 0 && !is_py_space(c) && nfkc_inert(c)
}

/// How many bytes from byte `i` of `text` (a character boundary; `block` holds its next 64
/// bytes, zero-padded) [`Writer::ascii_block`] may take at once, and from how many bytes past
/// `i` another run is worth looking for: past the first byte of the character that ends the
/// run of ASCII bytes and characters a block may take ([`PlainChars::take`]) from `i` (read a
/// character at a time), or, when no character in the block ends it, from the first byte not
/// taken. A character taken as its lower case has the lower case's bytes written in its place
/// in `block` (as many bytes).
///
/// The run is its own NFKC but for its last character, which may compose with what follows
/// it: that character is left out unless the text ends with the run, or an ASCII byte (which
/// composes with nothing before it) follows the run at the block's end. So the bytes taken
/// are the run's, or the run's up to its last character.
#[inline(always)]
fn plain_run(
    t: &Tables,
    plain: &mut PlainChars,
    text: &str,
    i: usize,
    block: &mut [u8; 64],
) -> (usize, usize) {
    let bytes = text.as_bytes();
    let len = bytes.len().saturating_sub(i).min(64);
    // The bytes of 0x80 or more; the zero padding holds none.
    let mut high = ascii::classify(block).high;
    // The run ends at `stop`; its last character that is not ASCII spans `last..last_end`.
    let (mut stop, mut last, mut last_end) = (len, 0, 0);
    while high != 0 {
        let k = high.trailing_zeros() as usize;
        let (c, take) = match text.get(i + k..).and_then(|r| r.chars().next()) {
            Some(c) if k + c.len_utf8() <= len => (c, plain.take(t, c)),
            _ => ('\0', Take::No),
        };
        if let Take::Lower(l) = take {
            // As many bytes as `c`'s: the block holds its lower case in its place.
            let mut utf8 = [0u8; 4];
            let lowered = l.encode_utf8(&mut utf8).as_bytes();
            if let Some(place) = block.get_mut(k..k + lowered.len()) {
                place.copy_from_slice(lowered);
            }
        } else if take == Take::No {
            stop = k;
            break;
        }
        (last, last_end) = (k, k + c.len_utf8());
        high &= !below(last_end);
    }
    let ends_text = i + len == bytes.len();
    let ascii_after = stop == 64 && bytes.get(i + 64).is_some_and(|&b| b < 0x80);
    let n = if stop == len && (ends_text || ascii_after) {
        stop
    } else if stop == 0 {
        0
    } else if last_end == stop {
        last
    } else {
        stop - 1
    };
    (n, if stop < len { stop + 1 } else { n.max(1) })
}

/// The normalisation of `text` (links already removed, no capital sigma after NFKC) written to
/// `out`, its tokens handed to `token` as they are written: one pass over the bytes.
///
/// NFKC changes only stretches that begin at an inert character and hold one that is not
/// (see [`push_nfkc`]); every ASCII character is inert. So a run of ASCII bytes followed by an
/// ASCII byte (or the end) is its own NFKC, and is lower-cased, collapsed and split into tokens
/// up to 64 bytes at a time ([`Writer::ascii_block`]). Elsewhere the text is read a character at a
/// time: the last inert character is held back until the next one shows whether it starts a
/// stretch NFKC may change; such a stretch is normalised when the next inert (or unassigned)
/// character ends it, and its characters written one by one.
fn write_normalized(
    t: &Tables,
    text: &str,
    ascii: bool,
    plain: &mut PlainChars,
    out: &mut Vec<u8>,
    token: impl TokenSink,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_avx2_bits() {
        // SAFETY: the processor has the features the function needs.
        unsafe { avx2::write_normalized(t, text, ascii, plain, out, token) };
        return;
    }
    write_normalized_portable(t, text, ascii, plain, out, token);
}

/// [`write_normalized`] without AVX2: a function of its own, so that the dispatch above does
/// not set up this body's stack frame on every call (about 25 instructions a text).
#[inline(never)]
fn write_normalized_portable(
    t: &Tables,
    text: &str,
    ascii: bool,
    plain: &mut PlainChars,
    out: &mut Vec<u8>,
    token: impl TokenSink,
) {
    write_normalized_in::<false>(t, text, ascii, plain, out, token);
}

/// The body of [`write_normalized`], its blocks lowered with AVX2 when `AVX2` (see
/// [`lowered_block`]): inlined into [`avx2::write_normalized`], compiled for AVX2, so the
/// block's classification is inlined where its bytes are written and its tokens found.
#[inline(always)]
fn write_normalized_in<const AVX2: bool>(
    t: &Tables,
    text: &str,
    ascii: bool,
    plain: &mut PlainChars,
    out: &mut Vec<u8>,
    token: impl TokenSink,
) {
    out.reserve(text.len());
    let bytes = text.as_bytes();
    let mut w = Writer {
        out,
        word: NO,
        token,
    };
    // `held`: where the inert character held back starts; `stretch`: where the stretch NFKC
    // may change starts ([`NO`]: none).
    if ascii {
        // All inert, nothing held back: 64 bytes at a time, the rest zero-padded (what the
        // loop below does with an ASCII text, without its checks).
        let mut chunks = bytes.chunks_exact(64);
        for chunk in &mut chunks {
            if let Some(block) = chunk.first_chunk::<64>() {
                w.ascii_block::<AVX2>(block, 64);
            }
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            w.ascii_block::<AVX2>(&padded(rest), rest.len());
        }
        w.finish();
        return;
    }
    let (mut held, mut stretch) = (NO, NO);
    // The character at `held`.
    let mut held_char = '\0';
    let char_at = |i: usize| match bytes.get(i) {
        Some(&b) if b < 0x80 => Some(char::from(b)),
        _ => text.get(i..).and_then(|r| r.chars().next()),
    };
    let mut i = 0;
    // No block is tried before this byte: the character that ended the last block, or the
    // last try, is read a character at a time first.
    let mut next_block = 0;
    while i < bytes.len() {
        if stretch == NO && i >= next_block {
            let rest = bytes.get(i..).unwrap_or(&[]);
            let mut block = match rest.first_chunk::<64>() {
                Some(block) => *block,
                None => padded(rest),
            };
            let (n, retry) = plain_run(t, plain, text, i, &mut block);
            next_block = i + retry;
            // A block costs about as much as eight characters read one at a time.
            if n >= 8 {
                if held != NO {
                    w.char(t, held_char);
                    held = NO;
                }
                w.ascii_block::<AVX2>(&block, n);
                i += n;
                continue;
            }
        }
        let Some(c) = char_at(i) else {
            break; // not reached: `i` is always a character boundary
        };
        let unassigned = t.is_unassigned(c);
        if c.is_ascii() || unassigned || nfkc_inert(c) {
            if stretch != NO {
                let nfkc = plain.stretches.nfkc(text.get(stretch..i).unwrap_or(""));
                for n in nfkc.chars() {
                    w.char(t, n);
                }
                stretch = NO;
            } else if held != NO {
                w.char(t, held_char);
            }
            (held, held_char) = (i, c);
            if unassigned {
                w.char(t, c);
                held = NO;
            }
        } else if stretch == NO {
            stretch = if held == NO { i } else { held };
            held = NO;
        }
        i += c.len_utf8();
    }
    if stretch != NO {
        let nfkc = plain.stretches.nfkc(text.get(stretch..).unwrap_or(""));
        for n in nfkc.chars() {
            w.char(t, n);
        }
    } else if held != NO {
        w.char(t, held_char);
    }
    w.finish();
}

/// The normalisation and its tokens a character at a time, through [`push_nfkc`] and Python's
/// `lower()` of the whole text (the capital sigma's lower case included): the reference of
/// [`write_normalized`], and the path of the texts it does not take. `text` has had its links
/// removed; `nfkc` is a reusable buffer.
fn normalize_by_char(
    t: &Tables,
    text: &str,
    nfkc: &mut String,
    out: &mut String,
    mut token: impl FnMut(&str, usize, usize),
) {
    out.clear();
    nfkc.clear();
    push_nfkc(t, text, nfkc);
    // `lower()`, the collapse and the token split, in one pass; `word` is where the token
    // being written starts in `out`.
    let mut pending = false;
    let mut word: Option<usize> = None;
    let mut end_word = |out: &String, word: &mut Option<usize>| {
        if let Some(start) = word.take() {
            token(out, start, out.len());
        }
    };
    t.for_each_lower(nfkc, |c| {
        if is_py_space(c) {
            end_word(out, &mut word);
            pending = !out.is_empty();
            return true;
        }
        if pending {
            out.push(' ');
            pending = false;
        }
        if c.is_ascii_punctuation() {
            end_word(out, &mut word);
        } else if word.is_none() {
            word = Some(out.len());
        }
        out.push(c);
        true
    });
    end_word(out, &mut word);
}

/// Whether a byte of a normalised text splits tokens: the space and the 32 ASCII punctuation
/// characters.
static SPLITS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = b == b' ' as usize || (b as u8).is_ascii_punctuation();
        b += 1;
    }
    table
};

/// Call `f` on each token of a normalised text (ASCII punctuation and the space split it), in
/// text order; duplicates kept.
#[inline]
pub fn for_each_token<'a>(norm: &'a str, mut f: impl FnMut(&'a str)) {
    let bytes = norm.as_bytes();
    let split = |b: &u8| SPLITS[usize::from(*b)];
    let mut i = 0;
    while i < bytes.len() {
        let Some(rest) = bytes.get(i..) else { break };
        let start = i + rest.iter().position(|b| !split(b)).unwrap_or(rest.len());
        let rest = bytes.get(start..).unwrap_or(&[]);
        i = start + rest.iter().position(split).unwrap_or(rest.len());
        // Splitting at ASCII bytes keeps every token on character boundaries.
        if let Some(token) = norm.get(start..i).filter(|t| !t.is_empty()) {
            f(token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    #[test]
    fn the_avx2_block_is_the_portable_block() {
        // Blocks of every byte value (each at every position), then random ones weighted to the
        // classes' edges: the same masks and bytes as the SSE2 (or word) version.
        #[cfg(target_arch = "x86_64")]
        {
            if !crate::cpu::has_avx2() {
                return;
            }
            let edges = [
                0u8, 8, 9, 13, 14, 0x1b, 0x1c, 0x1f, b' ', b'!', b'/', b'0', b'9', b':', b'@',
                b'A', b'Z', b'[', b'_', b'`', b'a', b'z', b'{', b'~', 0x7f, 0x80, 0xc3, 0xff,
            ];
            let mut next = crate::testing::lcg(23);
            let mut blocks: Vec<[u8; 64]> = (0..256)
                .step_by(64)
                .flat_map(|base| {
                    (0..64).map(move |shift| {
                        std::array::from_fn(|k| ((base + (k + shift) % 64) % 256) as u8)
                    })
                })
                .collect();
            for _ in 0..5_000 {
                blocks.push(std::array::from_fn(|_| match next() % 3 {
                    0 => (next() % 256) as u8,
                    _ => edges[next() % edges.len()],
                }));
            }
            for block in &blocks {
                let want = lowered_portable(block);
                // SAFETY: the processor has AVX2 (checked above).
                let got = unsafe { avx2::lowered(block) };
                assert_eq!(
                    (got.space, got.word, got.bytes),
                    (want.space, want.word, want.bytes),
                    "{block:?}"
                );
                // The first half alone: its bits and bytes, nothing of the second.
                // SAFETY: the processor has AVX2 (checked above).
                let half = unsafe { avx2::lowered_first_half(block) };
                let mut bytes = want.bytes;
                bytes[32..].fill(0);
                let low = u64::from(u32::MAX);
                assert_eq!(
                    (half.space, half.word, half.bytes),
                    (want.space & low, want.word & low, bytes),
                    "{block:?}"
                );
            }
        }
    }

    /// The output and tokens (with the ids handed over) of [`write_normalized_in`], with or
    /// without AVX2.
    fn written<const AVX2: bool>(t: &Tables, text: &str) -> (Vec<u8>, Vec<(usize, usize, u64)>) {
        struct Record<'a>(&'a mut Vec<(usize, usize, u64)>);
        impl TokenSink for Record<'_> {
            fn token(&mut self, _: &[u8], start: usize, end: usize) {
                self.0.push((start, end, u64::MAX));
            }
            fn short_token(&mut self, _: &[u8], id: u64, start: usize, end: usize) {
                self.0.push((start, end, id));
            }
        }
        let (mut out, mut tokens) = (Vec::new(), Vec::new());
        let sink = Record(&mut tokens);
        let plain = &mut PlainChars::default();
        plain.use_tables(t);
        if AVX2 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the callers check that the processor has what it needs
            // (`crate::cpu::has_avx2_bits`).
            unsafe {
                avx2::write_normalized(t, text, text.is_ascii(), plain, &mut out, sink)
            };
        } else {
            write_normalized_in::<false>(t, text, text.is_ascii(), plain, &mut out, sink);
        }
        (out, tokens)
    }

    #[test]
    fn the_avx2_writer_is_the_portable_writer() {
        // Texts of 0 to 200 bytes (every length around the 16-, 32- and 64-byte edges) of
        // words, whitespace runs, punctuation and characters that are not ASCII (plain ones,
        // ones NFKC changes, capitals), some across a block's edge: the same bytes written and
        // the same tokens, with the same ids, with AVX2 as with SSE2.
        #[cfg(target_arch = "x86_64")]
        {
            if !crate::cpu::has_avx2_bits() {
                return;
            }
            let t = test_tables::install();
            const PIECES: &[&str] = &[
                " ",
                "  ",
                "\n\n",
                "\t",
                ",",
                ".",
                "-",
                "_",
                "a",
                "B",
                "7",
                "The",
                "answer",
                "abcdefgh",
                "ABCDEFGHIJKLMNOP",
                "é",
                "É",
                "日",
                "😀",
                "ＡＢ",
                "\u{301}",
                "\u{a0}",
            ];
            let mut next = crate::testing::lcg(31);
            let mut texts: Vec<String> = Vec::new();
            for len in 0..200 {
                texts.push("Ab c".repeat(60).chars().take(len).collect());
                texts.push(format!("{}é{}", "x".repeat(len), " Yz".repeat(30)));
            }
            for _ in 0..20_000 {
                let mut text = String::new();
                while text.len() < next() % 200 {
                    text.push_str(PIECES[next() % PIECES.len()]);
                }
                texts.push(text);
            }
            for text in &texts {
                assert_eq!(
                    written::<true>(t, text),
                    written::<false>(t, text),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn cached_stretches_are_their_nfkc() {
        // Stretches of 1 to 24 bytes from characters NFKC changes, composes or leaves alone
        // (past the 16 bytes kept, of 16 bytes exactly, many colliding in the 256 slots), each
        // looked up several times: always their NFKC.
        let pieces = [
            " ", "x", "\0", "②", "²", "Ⅻ", "ﬁ", "e\u{301}", "\u{301}", "\u{327}", "é", "Å", "ｶ",
            "ﾞ", "日", "😀", "½",
        ];
        let mut next = crate::testing::lcg(41);
        let mut cache = Stretches::default();
        for _ in 0..40_000 {
            let mut stretch = String::new();
            for _ in 0..1 + next() % 6 {
                stretch.push_str(pieces[next() % pieces.len()]);
            }
            let want: String = stretch.nfkc().collect();
            assert_eq!(cache.nfkc(&stretch), want, "{stretch:?}");
        }
        assert_eq!(cache.nfkc(""), "");
    }

    #[test]
    fn the_plain_character_bits_are_the_definition() {
        // Every code point of the Basic Multilingual Plane (and some past it), in an order
        // that fills blocks from both ends, through one cache.
        let t = test_tables::install();
        let mut plain = PlainChars::default();
        plain.use_tables(t);
        let mut lowered = 0;
        for cp in (0..0x10400u32).rev().step_by(5).chain(0..0x10400) {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let want = if plain_char(t, c) {
                Take::AsIs
            } else {
                match lowered_in_place(t, c) {
                    Some(l) if cp < 0x10000 => Take::Lower(l),
                    _ => Take::No,
                }
            };
            assert_eq!(plain.take(t, c), want, "U+{cp:04X}");
            lowered += usize::from(matches!(want, Take::Lower(_)));
        }
        // Latin, Greek, Cyrillic, Armenian... capitals, twice over.
        assert!(lowered > 1000, "{lowered}");
        for (c, l) in [('М', 'м'), ('É', 'é'), ('Ω', 'ω'), ('Ł', 'ł')] {
            assert_eq!(lowered_in_place(t, c), Some(l));
        }
        // No: two characters, a different length, NFKC's, the capital sigma, ASCII.
        for c in ['İ', 'ẞ', 'Ⅻ', 'Σ', 'A', 'K'] {
            assert_eq!(lowered_in_place(t, c), None, "{c}");
        }
    }

    #[test]
    fn the_lazy_inert_table_is_the_definition() {
        // Every code point, in an order that fills blocks from both ends.
        for cp in (0..=char::MAX as u32)
            .rev()
            .step_by(7)
            .chain(0..=char::MAX as u32)
        {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let inert = canonical_combining_class(c) == 0
                && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes;
            assert_eq!(nfkc_inert(c), inert, "U+{cp:04X}");
        }
    }

    fn norm(text: &str) -> String {
        let t = test_tables::install();
        let mut out = String::new();
        basic_normalize(t, text, &mut NormScratch::default(), &mut out);
        out
    }

    #[test]
    fn links_and_urls() {
        assert_eq!(
            norm("See [the Docs]( https://x.org/a ) now"),
            "see the docs now"
        );
        assert_eq!(
            norm("[a](ftp://x) http://y.z/q?x=1 end"),
            "[a](ftp://x) end"
        );
        assert_eq!(norm("[](http://x)"), "[]("); // empty label: only the URL goes
        assert_eq!(norm("[[a](http://x)"), "[a");
        assert_eq!(norm("http:// x https://"), "http:// x https://");
        assert_eq!(norm("HTTP://X.Y"), "http://x.y");
    }

    #[test]
    fn the_colon_and_ascii_scan_is_the_definition() {
        // A colon, a byte of 0x80 or more, both or neither, at every place of texts of 0 to 140
        // bytes (blocks of 64, chunks of 16 and their remainder, the edges 15/16/17, 31/32/33,
        // 63/64/65, 127/128/129).
        for len in 0..=140 {
            for at in 0..len.max(1) {
                for (a, b) in [
                    (b':', b'x'),
                    (0x80, b'x'),
                    (0xff, b':'),
                    (b':', 0xc3),
                    (b'x', b'y'),
                ] {
                    let mut bytes = vec![b'a'; len];
                    if let Some(x) = bytes.get_mut(at) {
                        *x = a;
                    }
                    if let Some(x) = bytes.get_mut((at * 7 + 3) % len.max(1)) {
                        *x = b;
                    }
                    let want = (bytes.contains(&b':'), bytes.is_ascii());
                    assert_eq!(colon_and_ascii(&bytes), want, "{bytes:?}");
                }
            }
        }
        // Texts of fewer than 16 random bytes weighted to the colon's neighbours (and their
        // high-bit twins, and zero bytes): the two-word check against the definition.
        let near = [0u8, 0x01, 0x39, b':', 0x3b, 0xba, 0x80, 0xff, b'a'];
        let mut next = crate::testing::lcg(83);
        for round in 0..50_000 {
            let bytes: Vec<u8> = (0..round % 16)
                .map(|_| match next() % 3 {
                    0 => (next() % 256) as u8,
                    _ => near[next() % near.len()],
                })
                .collect();
            let want = (bytes.contains(&b':'), !bytes.is_ascii());
            assert_eq!(colon_and_high_short(&bytes), want, "{bytes:?}");
            let want = (want.0, !want.1);
            assert_eq!(colon_and_ascii(&bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn the_scheme_colon_scan_is_the_byte_scan() {
        // Texts of 0 to 110 bytes of colons, slashes and other bytes (runs of `://`, `:/`,
        // `::`, a non-ASCII character), searched from every place: the AVX2 scan (windows of
        // 34 bytes a step of 32 apart, the last one overlapping), the iterator and the byte
        // scan agree.
        let pieces: [&[u8]; 8] = [
            b":",
            b"/",
            b"://",
            b":/x",
            b"a",
            b"xyz ",
            b"\xc3\xa9",
            b"::",
        ];
        let mut next = crate::testing::lcg(53);
        for round in 0..6_000 {
            let mut bytes = Vec::new();
            while bytes.len() < round % 111 {
                bytes.extend_from_slice(pieces[next() % pieces.len()]);
            }
            bytes.truncate(round % 111);
            let want: Vec<usize> = (0..bytes.len())
                .filter(|&i| bytes[i] == b':' && bytes.get(i + 1..i + 3) == Some(b"//"))
                .collect();
            let found: Vec<usize> = scheme_colons(&bytes).collect();
            assert_eq!(found, want, "{bytes:?}");
            let found: Vec<usize> = scheme_colons_with(&bytes, false).collect();
            assert_eq!(found, want, "{bytes:?}");
            for from in 0..=bytes.len() + 1 {
                let first = want.iter().copied().find(|&c| c >= from);
                assert_eq!(find_scheme_colon::<false>(&bytes, from), first);
                #[cfg(target_arch = "x86_64")]
                if crate::cpu::has_avx2() {
                    // The processor has AVX2, as `find_scheme_colon::<true>` requires.
                    let got = find_scheme_colon::<true>(&bytes, from);
                    assert_eq!(got, first, "{bytes:?} {from}");
                }
            }
        }
    }

    #[test]
    fn the_graphic_prefix_is_the_byte_count() {
        // A byte of each kind (whitespace, a control byte, DEL, 0x21, 0x80 and up) at every
        // place of texts of 0 to 70 bytes: the count is that of the bytes 0x21 to 0x7F before
        // it, or less by the bytes past the last whole chunk of 16.
        for len in 0..=70usize {
            for at in 0..=len {
                for b in [b' ', b'\n', 0x0b, 0x1f, 0x00, 0x7f, 0x21, 0x80, 0xc3, 0xff] {
                    let mut bytes = vec![b'u'; len];
                    if let Some(x) = bytes.get_mut(at) {
                        *x = b;
                    }
                    let want = bytes
                        .iter()
                        .position(|&x| !(0x21..=0x7f).contains(&x))
                        .unwrap_or(len);
                    let got = graphic_prefix(&bytes);
                    assert!(
                        got <= want
                            && (got == want || want - got < 16 || got == len & !15 || got == 0)
                    );
                    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
                    assert_eq!(got, want.min(len & !15), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn padded_blocks_are_the_bytes_then_zeros() {
        // Every length from 0 to 80 (the copies of 16, the last one of 16 or 8, the word).
        let bytes: Vec<u8> = (1..=80u8).collect();
        for n in 0..=80 {
            let mut want = [0u8; 64];
            for (to, &from) in want.iter_mut().zip(&bytes[..n]) {
                *to = from;
            }
            assert_eq!(padded(&bytes[..n]), want, "{n}");
        }
    }

    #[test]
    fn the_sigma_scan_is_the_definition() {
        // Each capital-sigma source, an emoji, a near miss (0xF0 0x9D of another character, a
        // Greek letter) or none, at every character place of texts of 0 to 100 bytes (windows
        // of 33 bytes a step of 32 apart: the edges 31/32/33, 63/64/65, 95/96/97), with
        // another filler character before: the AVX2 scan, the byte scan and the definition
        // (NFKC holds a capital sigma) agree.
        let t = test_tables::install();
        let mut things: Vec<&str> = SIGMA_SOURCES.to_vec();
        things.extend(["😀", "\u{1D6BB}", "α", "Ω", "ϸ", "x"]);
        for len in 0..=100usize {
            for at in 0..=len {
                for thing in &things {
                    for filler in ["a", "é"] {
                        let mut text = filler.repeat(at / filler.len());
                        while text.len() < at {
                            text.push('b');
                        }
                        text.push_str(thing);
                        while text.len() < len {
                            text.push('c');
                        }
                        let mut nfkc = String::new();
                        push_nfkc(t, &text, &mut nfkc);
                        let want = nfkc.contains('\u{03A3}');
                        assert_eq!(sigma_by_lead_bytes(text.as_bytes()), want, "{text:?}");
                        assert_eq!(may_hold_capital_sigma(&text), want, "{text:?}");
                    }
                }
            }
        }
    }

    /// `re.sub(r"https?://\S+", "", text)` tried at every byte, as the regular expression
    /// scans: the reference of [`remove_urls`].
    fn urls_removed_at_every_byte(text: &str) -> String {
        let (bytes, mut out, mut i, mut copied) = (text.as_bytes(), String::new(), 0, 0);
        while i < bytes.len() {
            let body = if bytes[i..].starts_with(b"https://") {
                i + 8
            } else if bytes[i..].starts_with(b"http://") {
                i + 7
            } else {
                i += 1;
                continue;
            };
            let end = body
                + text[body..]
                    .chars()
                    .take_while(|&c| !is_py_space(c))
                    .map(char::len_utf8)
                    .sum::<usize>();
            if end == body {
                i += 1;
                continue;
            }
            out.push_str(&text[copied..i]);
            (copied, i) = (end, end);
        }
        out.push_str(&text[copied..]);
        out
    }

    #[test]
    fn urls_found_from_their_colons_are_the_urls_found_at_every_byte() {
        // Random texts of scheme pieces (whole, cut, doubled, glued to each other), colons,
        // slashes, links and whitespace: the clean-up against the scan from every byte, after
        // the link replacement (whose text is the text itself when no link is replaced).
        let pieces = [
            "http://",
            "https://",
            "http",
            "https",
            "hhttps://",
            "h",
            "ttp",
            "s",
            ":",
            "://",
            "//",
            "/",
            "a",
            "x.y",
            " ",
            "\u{a0}",
            "\u{3000}",
            "é",
            "[l]",
            "(",
            ")",
            "[",
            "]",
            "](",
            "[a](http://b)",
            "[a]( https://b/c )",
            "HTTP://",
            "http:/",
        ];
        let mut next = crate::testing::lcg(61);
        let (mut linked, mut cleaned) = (String::new(), String::new());
        let mut removed = 0;
        for _ in 0..30_000 {
            let text: String = (0..next() % 14)
                .map(|_| pieces[next() % pieces.len()])
                .collect();
            linked.clear();
            let source = if replace_links(&text, &mut linked) {
                linked.as_str()
            } else {
                assert!(linked.is_empty());
                text.as_str()
            };
            let want = urls_removed_at_every_byte(source);
            cleaned.clear();
            if remove_urls(source, &mut cleaned) {
                assert_eq!(cleaned, want, "{source:?}");
                removed += 1;
            } else {
                assert!(cleaned.is_empty());
                assert_eq!(source, want, "{source:?}");
            }
            let mut s = NormScratch::default();
            let NormScratch {
                cleaned,
                nfkc,
                links,
                ..
            } = &mut s;
            assert_eq!(without_links(&text, cleaned, nfkc, links), want, "{text:?}");
            assert_eq!(
                has_scheme(&text),
                text.contains("http://") || text.contains("https://"),
                "{text:?}"
            );
        }
        assert!(removed > 5_000, "{removed}");
    }

    /// The members of Python's `\s` (`str.isspace()`), for a class of the expressions below.
    const PY_SPACES: &str = r"\t\n\x0B\x0C\r\x1C-\x20\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

    /// The clean-up as the definition writes it, run by a regular-expression engine:
    /// `re.sub(r"https?://\S+", "", re.sub(r"\[([^\]]+)\]\(\s*https?://[^)]+\s*\)", r"\1", text))`.
    fn cleaned_by_regex(text: &str) -> String {
        use regex_automata::meta::Regex;
        static PATTERNS: OnceLock<(Regex, Regex)> = OnceLock::new();
        let (link, url) = PATTERNS.get_or_init(|| {
            let link = format!(r"\[([^\]]+)\]\([{PY_SPACES}]*https?://[^)]+[{PY_SPACES}]*\)");
            let url = format!(r"https?://[^{PY_SPACES}]+");
            (Regex::new(&link).unwrap(), Regex::new(&url).unwrap())
        });
        let mut linked = String::new();
        let mut copied = 0;
        for caps in link.captures_iter(text) {
            let (whole, label) = (caps.get_match().unwrap(), caps.get_group(1).unwrap());
            linked.push_str(&text[copied..whole.start()]);
            linked.push_str(&text[label.range()]);
            copied = whole.end();
        }
        linked.push_str(&text[copied..]);
        let mut out = String::new();
        let mut copied = 0;
        for m in url.find_iter(&linked) {
            out.push_str(&linked[copied..m.start()]);
            copied = m.end();
        }
        out.push_str(&linked[copied..]);
        out
    }

    #[test]
    fn the_one_pass_clean_up_is_the_definition() {
        // Random texts of links (labels holding URLs or scheme pieces, links side by side,
        // whitespace before the URL), bare URLs (running into links, ending at whitespace that
        // is not ASCII), scheme pieces and brackets, with long fillers so that all of it falls
        // at every place of the 64-byte blocks: the one pass, and the way of the definition,
        // against the regular expressions.
        let pieces = [
            "[",
            "]",
            "(",
            ")",
            "](",
            "[a]",
            "[lbl](http://x.y/z)",
            "[ab]( https://q )",
            "[a b](\u{3000}http://q/r)",
            "[http://in.label](https://u)",
            "[x](https://a)[y](http://b)",
            "[](http://e)",
            "[ttp](http://z)",
            "[h](http://z)",
            "[s://](http://z)",
            "[p:](http://z)",
            "[q](https://)",
            "[q](http://x",
            "http://",
            "https://",
            "http",
            "https",
            "h",
            "ttp",
            "s",
            ":",
            "//",
            "/",
            "://",
            " ",
            "\t",
            "\n",
            "\x01",
            "\x1c",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "é",
            "日本",
            "a",
            "xyz",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "See [label text](https://example.org/a/b) for details. ",
            "Source: https://en.wikipedia.org/wiki/Page_1\n",
            "http://x.org/page[lbl](https://y)",
            "https://q.r/é日本",
        ];
        let mut next = crate::testing::lcg(71);
        let mut s = NormScratch::default();
        let mut plans = [0usize; 3];
        for round in 0..40_000 {
            let mut text = "x".repeat(round % 67);
            for _ in 0..next() % 16 {
                text.push_str(pieces[next() % pieces.len()]);
            }
            let want = cleaned_by_regex(&text);
            let NormScratch {
                cleaned,
                nfkc,
                links,
                ..
            } = &mut s;
            assert_eq!(by_definition(&text, cleaned, nfkc), want, "{text:?}");
            assert_eq!(without_links(&text, cleaned, nfkc, links), want, "{text:?}");
            if has_scheme(&text) {
                let plan = links.plan(&text);
                plans[plan as usize] += 1;
                if plan == Plan::Same {
                    assert_eq!(text, want);
                }
            }
        }
        // Every way is taken, the one pass most.
        assert!(plans[Plan::Kept as usize] > 10_000, "{plans:?}");
        assert!(plans[Plan::ByDefinition as usize] > 300, "{plans:?}");
        assert!(plans[Plan::Same as usize] > 300, "{plans:?}");
    }

    #[test]
    fn the_scans_are_the_definition() {
        // Random bytes weighted to the ones looked for, texts of 0 to 100 bytes (every length
        // around 32, where the last window starts to overlap): the AVX2 scans and the portable
        // ones against a search a byte at a time, from every place.
        let edges = [
            b'[', b']', b')', b':', b'/', 0, 0x09, 0x20, 0x21, 0x7f, 0x80, 0xc3, 0xff, b'a',
        ];
        let mut next = crate::testing::lcg(73);
        for round in 0..6_000 {
            let len: usize = round % 101;
            let bytes: Vec<u8> = (0..len)
                .map(|_| match next() % 8 {
                    0 => (next() % 256) as u8,
                    1..=5 => b'x',
                    _ => edges[next() % edges.len()],
                })
                .collect();
            for from in 0..=len + 1 {
                let first = |hit: &dyn Fn(usize) -> bool| (from..len).find(|&i| hit(i));
                for b in [b'[', b']', b')', b':'] {
                    let want = first(&|i| bytes[i] == b);
                    assert_eq!(find_byte::<false>(&bytes, from, b), want);
                    #[cfg(target_arch = "x86_64")]
                    if crate::cpu::has_avx2() {
                        // SAFETY: the processor has AVX2.
                        let got = unsafe { avx2::find_byte(&bytes, from, b) };
                        assert_eq!(got, want, "{bytes:?} {from} {b}");
                    }
                }
                let want = first(&|i| bytes[i] == b':' && bytes.get(i + 1..i + 3) == Some(b"//"));
                assert_eq!(find_scheme_colon::<false>(&bytes, from), want);
                #[cfg(target_arch = "x86_64")]
                if crate::cpu::has_avx2() {
                    assert_eq!(find_scheme_colon::<true>(&bytes, from), want);
                    let slash = first(&|i| bytes[i] == b':' && bytes.get(i + 1) == Some(&b'/'));
                    // SAFETY: the processor has AVX2.
                    let got = unsafe { avx2::find_colon_slash(&bytes, from) };
                    assert_eq!(got, slash, "{bytes:?} {from}");
                }
                let want = first(&|i| bytes[i] <= 0x20 || bytes[i] >= 0x80);
                assert_eq!(find_url_stop::<false>(&bytes, from), want);
                #[cfg(target_arch = "x86_64")]
                if crate::cpu::has_avx2() {
                    // SAFETY: the processor has AVX2.
                    let got = unsafe { avx2::find_url_stop(&bytes, from) };
                    assert_eq!(got, want, "{bytes:?} {from}");
                }
            }
        }
    }

    #[test]
    fn the_portable_plan_is_the_avx2_plan() {
        // Texts of links, URLs and fillers of every length around the 32-byte windows: the same
        // plan, pieces and cuts either way.
        let pieces = [
            "[a](http://b) ",
            "[lbl](https://x.y/z)",
            "http://q.r ",
            "https://s/t",
            "[",
            "]",
            ")",
            ":",
            "://",
            " ",
            "\u{a0}",
            "é",
            "abcdefghij",
        ];
        let mut next = crate::testing::lcg(79);
        let (mut avx2, mut portable) = (LinkScratch::default(), LinkScratch::default());
        for round in 0..20_000 {
            let mut text = "x".repeat(round % 70);
            for _ in 0..next() % 12 {
                text.push_str(pieces[next() % pieces.len()]);
            }
            let want = portable.plan_in::<false>(&text);
            if want == Plan::ByDefinition {
                continue;
            }
            assert_eq!(avx2.plan(&text), want, "{text:?}");
            assert_eq!(avx2.pieces, portable.pieces, "{text:?}");
            assert_eq!(avx2.cuts, portable.cuts, "{text:?}");
        }
    }

    #[test]
    fn a_url_runs_to_the_first_python_whitespace() {
        // From every character boundary of texts of URL bytes, ASCII and other whitespace
        // (U+0085, U+00A0, U+3000, the separators U+001C..U+001F) and other characters: the
        // end the character loop finds.
        let pieces = [
            "a",
            "/",
            "?x=1",
            "é",
            "日本",
            " ",
            "\t",
            "\x0b",
            "\x1c",
            "\x1f",
            "\x1b",
            "\x08",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "\u{2028}",
            "abcdefghij",
            "0123456789abcdef",
        ];
        let mut next = crate::testing::lcg(41);
        for _ in 0..3_000 {
            let text: String = (0..next() % 20)
                .map(|_| pieces[next() % pieces.len()])
                .collect();
            for (at, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let want = at
                    + text[at..]
                        .chars()
                        .take_while(|&c| !is_py_space(c))
                        .map(char::len_utf8)
                        .sum::<usize>();
                assert_eq!(non_space_end(&text, at), want, "{text:?} {at}");
            }
        }
    }

    #[test]
    fn nfkc_lower_strip_collapse() {
        assert_eq!(norm("\u{3000} ＡＢＣ\t\n①  x\x1c"), "abc 1 x");
        assert_eq!(norm("  "), "");
    }

    #[test]
    fn tokens_split_on_ascii_punctuation_only() {
        let mut toks = Vec::new();
        for_each_token("a,b «paris» c-d", |t| toks.push(t));
        assert_eq!(toks, ["a", "b", "«paris»", "c", "d"]);
    }

    #[test]
    fn the_tokens_written_are_the_tokens_of_the_output() {
        // Random texts of ASCII and non-ASCII pieces (NFKC changes some, lower-casing others,
        // Python whitespace beyond ASCII), some with links and URLs.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            " ",
            "  ",
            ",",
            ".",
            "!",
            "-",
            "_",
            "a",
            "B",
            "0",
            "é",
            "É",
            "ＡＢ",
            "①",
            "ﬁ",
            "Σ",
            "İ",
            "\u{3000}",
            "\t",
            "\x1c",
            "\x01",
            "«",
            "x",
            "http://y.z ",
            "[l](https://q) ",
        ];
        let mut next = crate::testing::lcg(11);
        let (mut s, mut out, mut text) = (NormScratch::default(), String::new(), String::new());
        for _ in 0..20_000 {
            text.clear();
            for _ in 0..next() % 12 {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            let mut got = Vec::new();
            normalize_tokens(
                t,
                &text,
                &mut s,
                &mut out,
                |o: &[u8], a: usize, b: usize| {
                    got.push(String::from_utf8(o[a..b].to_vec()).unwrap())
                },
            );
            let mut want = Vec::new();
            for_each_token(&out, |w| want.push(w.to_string()));
            assert_eq!(got, want, "{text:?} -> {out:?}");
        }
    }

    /// A sink that checks the ids the writer reads from its blocks against [`short_id`] of
    /// the text written, and keeps every token.
    struct IdCheck<'a> {
        tokens: &'a mut Vec<String>,
        with_id: &'a mut usize,
    }

    impl TokenSink for IdCheck<'_> {
        fn token(&mut self, out: &[u8], start: usize, end: usize) {
            self.tokens
                .push(String::from_utf8(out[start..end].to_vec()).unwrap());
        }

        fn short_token(&mut self, out: &[u8], id: u64, start: usize, end: usize) {
            assert!(end - start <= 8, "{start}..{end}");
            let want = super::super::token_set::short_id(out, start, end);
            assert_eq!(id, want, "{:?}", String::from_utf8_lossy(&out[start..end]));
            *self.with_id += 1;
            self.token(out, start, end);
        }
    }

    #[test]
    fn the_ids_read_from_a_block_are_the_ids_of_the_text() {
        // Words of 1 to 12 bytes (some with a plain character that is not ASCII) between
        // separators (runs of whitespace drop bytes), after a lead of 0 to 70 bytes, so that
        // short words start and end at every offset of a block, at its first bytes (the id's
        // bytes before the block) and its last, and across its edges.
        let t = test_tables::install();
        const SEPARATORS: &[&str] = &[" ", "  ", " \t\n ", ",", ". ", "-", "!!"];
        const WORD: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789";
        let mut next = crate::testing::lcg(29);
        let (mut s, mut out, mut text) = (NormScratch::default(), String::new(), String::new());
        let mut with_id = 0;
        for round in 0..20_000 {
            text.clear();
            for _ in 0..round % 71 {
                text.push('x');
            }
            text.push_str(SEPARATORS[next() % SEPARATORS.len()]);
            for _ in 0..next() % 24 {
                for _ in 0..1 + next() % 12 {
                    text.push(char::from(WORD[next() % WORD.len()]));
                }
                if next().is_multiple_of(9) {
                    text.push('é');
                }
                text.push_str(SEPARATORS[next() % SEPARATORS.len()]);
            }
            let mut tokens = Vec::new();
            let sink = IdCheck {
                tokens: &mut tokens,
                with_id: &mut with_id,
            };
            normalize_tokens(t, &text, &mut s, &mut out, sink);
            let mut want = Vec::new();
            for_each_token(&out, |w| want.push(w.to_string()));
            assert_eq!(tokens, want, "{text:?}");
        }
        assert!(with_id > 100_000, "{with_id}");
    }

    /// The normalisation and tokens of `text` by [`normalize_by_char`], the reference.
    fn by_char(t: &Tables, text: &str) -> (String, Vec<String>) {
        let mut s = NormScratch::default();
        let source = by_definition(text, &mut s.cleaned, &mut s.nfkc).to_string();
        let (mut out, mut tokens) = (String::new(), Vec::new());
        normalize_by_char(t, &source, &mut String::new(), &mut out, |o, a, b| {
            tokens.push(o[a..b].to_string())
        });
        (out, tokens)
    }

    /// [`normalize_tokens`] of `text` (with reused buffers) against [`by_char`]: the same text
    /// written, the same tokens handed over.
    fn check_against_by_char(t: &Tables, text: &str, s: &mut NormScratch, out: &mut String) {
        let mut got = Vec::new();
        normalize_tokens(t, text, s, out, |o: &[u8], a: usize, b: usize| {
            got.push(String::from_utf8(o[a..b].to_vec()).unwrap())
        });
        let (want, want_tokens) = by_char(t, text);
        assert_eq!(*out, want, "{text:?}");
        assert_eq!(got, want_tokens, "{text:?}");
    }

    #[test]
    fn the_word_path_writes_what_the_character_path_writes() {
        // Random texts of ASCII runs (long ones, so that words of eight bytes start at every
        // offset), whitespace of every kind, characters NFKC changes alone or with what comes
        // before them (combining marks after ASCII letters), unassigned characters, lower-case
        // changes that make ASCII ("K", KELVIN SIGN; "İ"), non-ASCII punctuation, and sigmas.
        let t = test_tables::install();
        const PIECES: &[&str] = &[
            " ",
            "  ",
            "\n\n",
            " \t ",
            "\x1c",
            "\x1f",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "\u{2028}",
            ",",
            ".",
            "!",
            "-",
            "_",
            "(",
            "a",
            "B",
            "0",
            "Z9",
            "The",
            "answer",
            "IS",
            "abcdefgh",
            "ABCDEFGHIJKLMNOP",
            "x1 y2 z3 w4",
            "e\u{301}",
            "\u{301}",
            "\u{308}a",
            "é",
            "É",
            "ＡＢ",
            "①",
            "ﬁ",
            "\u{212a}",
            "İ",
            "«",
            "»",
            "\u{378}",
            "\u{e0080}",
            "\u{a8}",
            "Σ",
            "σ",
            "ϹΣ",
            "\x01",
            "\x7f",
            "http://y.z ",
            "[l](https://q) ",
            "\u{1100}\u{1161}",
        ];
        let mut next = crate::testing::lcg(17);
        let (mut s, mut out, mut text) = (NormScratch::default(), String::new(), String::new());
        for round in 0..60_000 {
            text.clear();
            let n = if round % 10 == 0 { 60 } else { 14 };
            for _ in 0..next() % n {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            check_against_by_char(t, &text, &mut s, &mut out);
        }
    }

    #[test]
    fn plain_characters_at_the_edges_of_a_block() {
        // A character the block takes as its bytes or its lower case's (two, three and four
        // bytes long) at every offset around the 64-byte edges, followed by one that ends the
        // run, or is taken too (a combining mark
        // that composes with it, a capital, a space that is not ASCII, a character NFKC
        // changes, an unassigned one), by ASCII, or by the end of the text.
        let t = test_tables::install();
        let (mut s, mut out) = (NormScratch::default(), String::new());
        let ascii = "ab ".repeat(50);
        let long_tail = "xyz".repeat(30);
        // Capitals the block takes as their lower case's bytes (two and three bytes), and a
        // fullwidth capital it does not take (NFKC changes it).
        for plain in ["é", "«", "日", "😀", "ё", "М", "É", "Ω", "Ⴀ", "Ａ"] {
            for after in [
                "", "b", " ", "\u{301}", "É", "\u{a0}", "①", "\u{378}", "ж", "é", "İ", "Ж", "ẞ",
            ] {
                for lead in 0..140 {
                    for tail in ["", "  cd", long_tail.as_str()] {
                        let text = format!("{}{plain}{after}{tail}", &ascii[..lead]);
                        check_against_by_char(t, &text, &mut s, &mut out);
                    }
                }
            }
        }
    }

    #[test]
    fn every_ascii_byte_in_every_place_of_a_word() {
        // Each ASCII byte at each offset of runs of 8 to 24 bytes, beside letters, spaces,
        // punctuation and a non-ASCII character (where the word path must give way).
        let t = test_tables::install();
        let (mut s, mut out) = (NormScratch::default(), String::new());
        for b in 0..128u8 {
            for fill in [
                "abcdefghijklmnopqrstuvwx",
                "A B C D E F G H I J K L ",
                "a  ,, bb\t\nCC..dd  e",
                "Ab1_.é-xyz  QQ  \u{301}abcdefghij",
            ] {
                let base: Vec<char> = fill.chars().collect();
                for pos in 0..base.len() {
                    let mut chars = base.clone();
                    chars[pos] = char::from(b);
                    let text: String = chars.iter().collect();
                    check_against_by_char(t, &text, &mut s, &mut out);
                }
            }
        }
    }

    #[test]
    fn the_token_table_splits_as_the_definition() {
        // Random texts of separators, word bytes and multi-byte characters, against a split on
        // the space and `str::is_ascii_punctuation`.
        const PIECES: &[&str] = &[
            " ", ",", ".", "!", "~", "_", "-", "a", "Z", "0", "é", "«", "\u{3000}", "\t", "\x7f",
        ];
        let mut next = crate::testing::lcg(7);
        let mut text = String::new();
        for _ in 0..20_000 {
            text.clear();
            for _ in 0..next() % 12 {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            let mut got = Vec::new();
            for_each_token(&text, |t| got.push(t));
            let want: Vec<&str> = text
                .split(|c: char| c == ' ' || c.is_ascii_punctuation())
                .filter(|t| !t.is_empty())
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
    }
}
