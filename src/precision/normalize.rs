//! the basic normalisation of answer_precision and its token sets.
//!
//! Markdown links become their label and bare URLs are removed (on the raw text), then NFKC,
//! Python's `lower()`, Python's `strip()` and whitespace runs collapsed to one space. Characters
//! the interpreter does not assign are inert for Python's NFKC, so the text is normalised segment
//! by segment between them.

use memchr::{memchr, memmem};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::pyunicode::{is_py_space, Tables};

/// Reusable buffers of [`basic_normalize`].
#[derive(Default)]
pub struct NormScratch {
    cleaned: String,
    nfkc: String,
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

/// `re.sub(r"\[([^\]]+)\]\(\s*https?://[^)]+\s*\)", r"\1", text)`, appended to `out`.
fn replace_links(text: &str, out: &mut String) {
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
    out.push_str(&text[copied..]);
}

/// `re.sub(r"https?://\S+", "", text)` with Python's `\s`, appended to `out`.
fn remove_urls(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let finder = memmem::Finder::new(b"http");
    let mut copied = 0;
    let mut from = 0;
    while let Some(off) = finder.find(&bytes[from..]) {
        let start = from + off;
        from = start + 1;
        let Some(mut end) = scheme_end(bytes, start) else {
            continue;
        };
        let body = end;
        for c in text[body..].chars() {
            if is_py_space(c) {
                break;
            }
            end += c.len_utf8();
        }
        if end == body {
            continue;
        }
        out.push_str(&text[copied..start]);
        copied = end;
        from = end;
    }
    out.push_str(&text[copied..]);
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
fn nfkc_inert(c: char) -> bool {
    const BLOCKS: usize = (char::MAX as usize >> 6) + 1;
    struct Lazy {
        bits: Box<[AtomicU64]>,
        done: Box<[AtomicU64]>,
    }
    static TABLE: OnceLock<Lazy> = OnceLock::new();
    let table = TABLE.get_or_init(|| Lazy {
        bits: (0..BLOCKS).map(|_| AtomicU64::new(0)).collect(),
        done: (0..BLOCKS.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect(),
    });
    let block = c as usize >> 6;
    let (Some(bits), Some(done)) = (table.bits.get(block), table.done.get(block >> 6)) else {
        return false;
    };
    let flag = 1u64 << (block & 63);
    let word = if done.load(Ordering::Acquire) & flag != 0 {
        bits.load(Ordering::Relaxed)
    } else {
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
    };
    word & (1 << (c as u32 & 63)) != 0
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

/// The basic normalisation of an ASCII text written to `out` (lower-cased, stripped, whitespace
/// runs collapsed), its tokens handed to `token` as they are written: one pass over the bytes,
/// a token's bytes copied and lower-cased as one stretch.
fn ascii_tokens(text: &str, out: &mut String, token: &mut impl FnMut(&str, usize, usize)) {
    out.reserve(text.len());
    let bytes = text.as_bytes();
    let mut pending = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match ascii_class(b) {
            SPACE => {
                pending = !out.is_empty();
                i += 1;
            }
            class => {
                if pending {
                    out.push(' ');
                    pending = false;
                }
                if class == PUNCT {
                    out.push(char::from(b));
                    i += 1;
                    continue;
                }
                let rest = bytes.get(i..).unwrap_or(&[]);
                let end = i + rest
                    .iter()
                    .position(|&x| ascii_class(x) != TOKEN)
                    .unwrap_or(rest.len());
                let start = out.len();
                // ASCII: every byte is a character boundary.
                out.push_str(text.get(i..end).unwrap_or(""));
                if let Some(word) = out.get_mut(start..) {
                    word.make_ascii_lowercase();
                }
                token(out, start, out.len());
                i = end;
            }
        }
    }
}

/// the normalised form of `text`, written into `out` (cleared first).
pub fn basic_normalize(t: &Tables, text: &str, s: &mut NormScratch, out: &mut String) {
    normalize_tokens(t, text, s, out, |_, _, _| {});
}

/// [`basic_normalize`], handing each token of the normalised text to `token` as it is written,
/// in text order, duplicates kept: the tokens [`for_each_token`] would find in `out`, each as
/// `token(out so far, start, end)`.
///
/// One pass over the text after the link and URL clean-up (which runs only on a text holding
/// "http"): an ASCII text is read as bytes through a class table; another is put in NFKC (only
/// its stretches NFKC may change, see [`push_nfkc`]) and then lower-cased, collapsed and split
/// in one pass over its characters.
pub fn normalize_tokens(
    t: &Tables,
    text: &str,
    s: &mut NormScratch,
    out: &mut String,
    mut token: impl FnMut(&str, usize, usize),
) {
    out.clear();
    let mut source = text;
    if memmem::find(text.as_bytes(), b"http").is_some() {
        s.nfkc.clear();
        replace_links(text, &mut s.nfkc);
        s.cleaned.clear();
        remove_urls(&s.nfkc, &mut s.cleaned);
        source = &s.cleaned;
    }
    if source.is_ascii() {
        ascii_tokens(source, out, &mut token);
        return;
    }
    s.nfkc.clear();
    push_nfkc(t, source, &mut s.nfkc);
    // `lower()`, the collapse and the token split, in one pass; `word` is where the token
    // being written starts in `out`.
    let mut pending = false;
    let mut word: Option<usize> = None;
    let mut end_word = |out: &String, word: &mut Option<usize>| {
        if let Some(start) = word.take() {
            token(out, start, out.len());
        }
    };
    t.for_each_lower(&s.nfkc, |c| {
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
        let mut seed = 11u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let (mut s, mut out, mut text) = (NormScratch::default(), String::new(), String::new());
        for _ in 0..20_000 {
            text.clear();
            for _ in 0..next() % 12 {
                text.push_str(PIECES[next() % PIECES.len()]);
            }
            let mut got = Vec::new();
            normalize_tokens(t, &text, &mut s, &mut out, |o, a, b| {
                got.push(o[a..b].to_string())
            });
            let mut want = Vec::new();
            for_each_token(&out, |w| want.push(w.to_string()));
            assert_eq!(got, want, "{text:?} -> {out:?}");
        }
    }

    #[test]
    fn the_ascii_path_writes_what_the_character_path_writes() {
        // An ASCII text goes through the byte path; with " é" after it, through the character
        // path, which must write the same text and tokens before the " é".
        let t = test_tables::install();
        let mut seed = 3u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let (mut s, mut text) = (NormScratch::default(), String::new());
        let (mut ascii, mut chars) = (String::new(), String::new());
        for _ in 0..20_000 {
            text.clear();
            for _ in 0..next() % 16 {
                // Any ASCII byte, spaces and letters more often.
                let b = match next() % 4 {
                    0 => b" \t\x1cAz"[next() % 5],
                    _ => (next() % 128) as u8,
                };
                text.push(char::from(b));
            }
            let (mut a_tokens, mut c_tokens) = (Vec::new(), Vec::new());
            normalize_tokens(t, &text, &mut s, &mut ascii, |o, a, b| {
                a_tokens.push(o[a..b].to_string())
            });
            let with_e = format!("{text} é");
            normalize_tokens(t, &with_e, &mut s, &mut chars, |o, a, b| {
                c_tokens.push(o[a..b].to_string())
            });
            let tail = if ascii.is_empty() { "é" } else { " é" };
            assert_eq!(format!("{ascii}{tail}"), chars, "{text:?}");
            // The last token of the character path holds the "é" (after a space, its own).
            assert_eq!(c_tokens.pop().as_deref(), Some("é"), "{text:?}");
            assert_eq!(a_tokens, c_tokens, "{text:?}");
        }
    }

    #[test]
    fn the_token_table_splits_as_the_definition() {
        // Random texts of separators, word bytes and multi-byte characters, against a split on
        // the space and `str::is_ascii_punctuation`.
        const PIECES: &[&str] = &[
            " ", ",", ".", "!", "~", "_", "-", "a", "Z", "0", "é", "«", "\u{3000}", "\t", "\x7f",
        ];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
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
