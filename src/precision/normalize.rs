//! the basic normalisation of answer_precision and its token sets.
//!
//! Markdown links become their label and bare URLs are removed (on the raw text), then NFKC,
//! Python's `lower()`, Python's `strip()` and whitespace runs collapsed to one space. Characters
//! the interpreter does not assign are inert for Python's NFKC, so the text is normalised segment
//! by segment between them.

use memchr::{memchr, memmem};
use unicode_normalization::UnicodeNormalization;

use crate::pyunicode::{is_py_space, Tables};

/// Reusable buffers of [`basic_normalize`].
#[derive(Default)]
pub struct NormScratch {
    cleaned: String,
    nfkc: String,
    lowered: String,
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
pub fn push_nfkc(t: &Tables, text: &str, out: &mut String) {
    if text.is_ascii() {
        out.push_str(text);
        return;
    }
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if t.is_unassigned(c) {
            out.extend(text[start..i].nfkc());
            out.push(c);
            start = i + c.len_utf8();
        }
    }
    out.extend(text[start..].nfkc());
}

/// Python `strip()` then `re.sub(r"\s+", " ", ...)`, appended to `out`.
fn push_collapsed(text: &str, out: &mut String) {
    let mut pending = false;
    let mut any = false;
    for c in text.chars() {
        if is_py_space(c) {
            pending = any;
        } else {
            if pending {
                out.push(' ');
                pending = false;
            }
            out.push(c);
            any = true;
        }
    }
}

/// the normalised form of `text`, written into `out` (cleared first).
pub fn basic_normalize(t: &Tables, text: &str, s: &mut NormScratch, out: &mut String) {
    out.clear();
    let mut source = text;
    if memmem::find(text.as_bytes(), b"http").is_some() {
        s.nfkc.clear();
        replace_links(text, &mut s.nfkc);
        s.cleaned.clear();
        remove_urls(&s.nfkc, &mut s.cleaned);
        source = &s.cleaned;
    }
    s.lowered.clear();
    if source.is_ascii() {
        t.push_lower(source, &mut s.lowered);
    } else {
        s.nfkc.clear();
        push_nfkc(t, source, &mut s.nfkc);
        t.push_lower(&s.nfkc, &mut s.lowered);
    }
    push_collapsed(&s.lowered, out);
}

/// the byte ranges of the tokens of a normalised text (ASCII punctuation and the space
/// split it), appended to `out` in text order; duplicates kept.
pub fn token_ranges(norm: &str, out: &mut Vec<(usize, usize)>) {
    let mut start = None;
    for (i, &b) in norm.as_bytes().iter().enumerate() {
        let split = b == b' ' || b.is_ascii_punctuation();
        match (split, start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, norm.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

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
        let mut r = Vec::new();
        let text = "a,b «paris» c-d";
        token_ranges(text, &mut r);
        let toks: Vec<&str> = r.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(toks, ["a", "b", "«paris»", "c", "d"]);
    }
}
