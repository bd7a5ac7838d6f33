//! The linear-time path: a program without back-references or look-arounds, compiled into
//! `regex-automata`'s meta engine, whose search time is linear in the text's length.
//!
//! Python's meaning is kept exactly. Sets arrive as explicit code points; what remains are the
//! assertions the Rust engine spells differently:
//!
//! * **`$`** (the end, or just before a *final* `\n`): the text's final `\n`, if any, is written as
//!   the byte [`MARKER`] (never in UTF-8), the engine's line terminator becomes that byte, and
//!   `$` becomes `(?m:$)`. Every set that holds `\n` also takes the marker, so the text still
//!   matches as before. `(?m)` anchors keep `\n` as the terminator; a pattern that mixes them
//!   with a plain `$` goes to the backtracking path.
//! * **`\b`, `\B`** over Python's `\w` (letters and numbers by `str.isalnum`, and `_`), which is
//!   not Rust's (marks, `²`, newer Unicode): the text and every set go through one bijection
//!   [`Phi`] that swaps each character of one disagreement for one of the other, and writes the
//!   rest as invalid UTF-8 (a non-word for the engine). Rust's `\b` over the mapped text is then
//!   Python's `\b` over the original. ASCII texts map to themselves.

use std::sync::OnceLock;

use regex_automata::util::look::LookMatcher;
use regex_automata::{meta, Anchored, Input};
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition,
};

use super::program::{Assertion, Node, Program};

/// The byte that stands for the text's final `\n` when the pattern has Python's `$`.
pub const MARKER: u8 = 0xFF;
/// The first byte of the invalid sequences [`Phi`] writes: never in UTF-8, so a non-word.
const INVALID_LEAD: u8 = 0xF8;

/// Compiled patterns larger than this go to the backtracking path instead.
const NFA_SIZE_LIMIT: usize = 16 << 20;

/// A program compiled for the linear engine.
pub struct Linear {
    regex: meta::Regex,
    marker: bool,
    phi: Option<&'static Phi>,
    anchored: bool,
}

impl Linear {
    /// Compile `program`, or say why the linear engine cannot run it.
    ///
    /// `is_py_word` is Python's `\w` (needed only for `\b` and `\B`).
    pub fn new(program: &Program, is_py_word: impl Fn(char) -> bool) -> Result<Linear, String> {
        if !program.root.is_regular() {
            return Err("the pattern needs backtracking".to_owned());
        }
        let (mut py_end, mut lines, mut words, mut negated) = (false, false, false, false);
        program.root.for_each_assertion(&mut |a| match a {
            Assertion::PyEnd => py_end = true,
            Assertion::LineStart | Assertion::LineEnd => lines = true,
            Assertion::Word => words = true,
            Assertion::NotWord => {
                words = true;
                negated = true;
            }
            Assertion::NotAsciiWord => negated = true,
            Assertion::Start | Assertion::End | Assertion::AsciiWord => {}
        });
        if py_end && lines {
            return Err("the pattern mixes $ with (?m) anchors".to_owned());
        }
        let phi = if words {
            Some(Phi::get(is_py_word).ok_or("no bijection for \\b on this interpreter")?)
        } else {
            None
        };
        let build = Build {
            phi,
            marker: py_end,
        };
        let body = build.node(&program.root);
        // A search that may start anywhere could start inside a character the mapping wrote as
        // several bytes; only `\B` can hold there (both sides read as non-words), so a pattern
        // with one is searched from the start, over whole characters.
        let anchored = program.full_match || negated;
        let hir = if program.full_match {
            Hir::concat(vec![Hir::look(Look::Start), body, Hir::look(Look::End)])
        } else if negated {
            let skip = Hir::repetition(Repetition {
                min: 0,
                max: None,
                greedy: false,
                sub: Box::new(build.any_unit()),
            });
            Hir::concat(vec![skip, body])
        } else {
            body
        };
        let config = meta::Config::new()
            .utf8_empty(false)
            .line_terminator(if py_end { MARKER } else { b'\n' })
            .nfa_size_limit(Some(NFA_SIZE_LIMIT));
        let regex = meta::Builder::new()
            .configure(config)
            .build_from_hir(&hir)
            .map_err(|e| format!("the linear engine refuses the pattern: {e}"))?;
        Ok(Linear {
            regex,
            marker: py_end,
            phi,
            anchored,
        })
    }

    /// Whether the pattern matches `text` (searched, or whole for a full match). `buf` is
    /// scratch for a mapped copy of the text, when one is needed.
    pub fn is_match(&self, text: &str, buf: &mut Vec<u8>) -> bool {
        let haystack = self.haystack(text, buf);
        let input = Input::new(haystack).anchored(if self.anchored {
            Anchored::Yes
        } else {
            Anchored::No
        });
        self.regex.is_match(input)
    }

    fn haystack<'t>(&self, text: &'t str, buf: &'t mut Vec<u8>) -> &'t [u8] {
        let mark = self.marker && text.ends_with('\n');
        let phi = self
            .phi
            .filter(|phi| !text.is_ascii() && text.chars().any(|c| phi.moves(c)));
        if !mark && phi.is_none() {
            return text.as_bytes();
        }
        buf.clear();
        match phi {
            Some(phi) => {
                for c in text.chars() {
                    phi.write(c, buf);
                }
            }
            None => buf.extend_from_slice(text.as_bytes()),
        }
        if mark {
            if let Some(last) = buf.last_mut() {
                *last = MARKER;
            }
        }
        buf
    }
}

/// How nodes become HIR: with or without the mapping, the marker.
struct Build {
    phi: Option<&'static Phi>,
    marker: bool,
}

impl Build {
    fn node(&self, node: &Node) -> Hir {
        match node {
            Node::Empty => Hir::empty(),
            Node::Set(ranges) => self.set(ranges),
            Node::Concat(items) => Hir::concat(items.iter().map(|n| self.node(n)).collect()),
            Node::Alternation(items) => {
                Hir::alternation(items.iter().map(|n| self.node(n)).collect())
            }
            Node::Repeat {
                min,
                max,
                greed,
                node,
            } => Hir::repetition(Repetition {
                min: *min,
                max: *max,
                greedy: *greed != super::program::Greed::Lazy,
                sub: Box::new(self.node(node)),
            }),
            Node::Group(_, node) => self.node(node),
            Node::Assert(a) => Hir::look(match a {
                Assertion::Start => Look::Start,
                Assertion::End => Look::End,
                Assertion::PyEnd | Assertion::LineEnd => Look::EndLF,
                Assertion::LineStart => Look::StartLF,
                Assertion::Word => Look::WordUnicode,
                Assertion::NotWord => Look::WordUnicodeNegate,
                Assertion::AsciiWord => Look::WordAscii,
                Assertion::NotAsciiWord => Look::WordAsciiNegate,
            }),
            // `Linear::new` lets no other node through.
            Node::Backref(..) | Node::Look { .. } | Node::Conditional(..) | Node::Atomic(_) => {
                Hir::fail()
            }
        }
    }

    /// One character of `ranges`, as the (mapped) text writes it.
    fn set(&self, ranges: &[(u32, u32)]) -> Hir {
        let mut chars = Vec::new();
        let mut invalid = Vec::new();
        for &(lo, hi) in ranges {
            match self.phi {
                Some(phi) => phi.map_range(lo, hi, &mut chars, &mut invalid),
                None => push_chars(lo, hi, &mut chars),
            }
        }
        let mut alternatives = vec![Hir::class(Class::Unicode(ClassUnicode::new(
            chars.iter().filter_map(|&(lo, hi)| {
                Some(ClassUnicodeRange::new(
                    char::from_u32(lo)?,
                    char::from_u32(hi)?,
                ))
            }),
        )))];
        if self.marker && ranges.iter().any(|&(lo, hi)| lo <= 10 && 10 <= hi) {
            alternatives.push(Hir::literal(vec![MARKER]));
        }
        invalid.sort_unstable();
        for (lo, hi) in merge(&invalid) {
            alternatives.extend(invalid_sequences(lo, hi));
        }
        if alternatives.len() == 1 {
            alternatives.pop().unwrap_or_else(Hir::fail)
        } else {
            Hir::alternation(alternatives)
        }
    }

    /// Any one character of the mapped text (for the skip before an anchored search).
    fn any_unit(&self) -> Hir {
        let mut alternatives = vec![
            Hir::class(Class::Unicode(ClassUnicode::new([ClassUnicodeRange::new(
                '\0',
                char::MAX,
            )]))),
            Hir::literal(vec![MARKER]),
        ];
        if self.phi.is_some() {
            alternatives.push(Hir::concat(vec![
                Hir::literal(vec![INVALID_LEAD]),
                continuation(3),
            ]));
        }
        Hir::alternation(alternatives)
    }
}

/// `lo..=hi` as ranges of valid scalar values (surrogates left out).
fn push_chars(lo: u32, hi: u32, out: &mut Vec<(u32, u32)>) {
    if hi < 0xD800 || lo > 0xDFFF {
        out.push((lo, hi));
        return;
    }
    if lo < 0xD800 {
        out.push((lo, 0xD7FF));
    }
    if hi > 0xDFFF {
        out.push((0xE000, hi));
    }
}

fn merge(sorted: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &x in sorted {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 >= x => *hi = (*hi).max(x),
            _ => out.push((x, x)),
        }
    }
    out
}

/// `n` bytes of `0x80..=0xBF`.
fn continuation(n: usize) -> Hir {
    Hir::repetition(Repetition {
        min: n as u32,
        max: Some(n as u32),
        greedy: true,
        sub: Box::new(byte_class(0x80, 0xBF)),
    })
}

fn byte_class(lo: u8, hi: u8) -> Hir {
    Hir::class(Class::Bytes(ClassBytes::new([ClassBytesRange::new(
        lo, hi,
    )])))
}

/// The invalid sequences of indices `lo..=hi`: `INVALID_LEAD` then three base-64 digits, each
/// digit a byte `0x80 + d`; the range splits into a few sequences of byte ranges.
fn invalid_sequences(lo: u32, hi: u32) -> Vec<Hir> {
    let mut out = Vec::new();
    digit_ranges(lo, hi, 3, &mut Vec::new(), &mut out);
    out.into_iter()
        .map(|digits| {
            let mut parts = vec![Hir::literal(vec![INVALID_LEAD])];
            parts.extend(
                digits
                    .into_iter()
                    .map(|(a, b)| byte_class(0x80 + a as u8, 0x80 + b as u8)),
            );
            Hir::concat(parts)
        })
        .collect()
}

fn digit_ranges(
    lo: u32,
    hi: u32,
    digits: u32,
    prefix: &mut Vec<(u32, u32)>,
    out: &mut Vec<Vec<(u32, u32)>>,
) {
    if digits == 1 {
        let mut seq = prefix.clone();
        seq.push((lo, hi));
        out.push(seq);
        return;
    }
    let unit = 64u32.pow(digits - 1);
    let (lo_top, lo_rest) = (lo / unit, lo % unit);
    let (hi_top, hi_rest) = (hi / unit, hi % unit);
    if lo_top == hi_top {
        prefix.push((lo_top, lo_top));
        digit_ranges(lo_rest, hi_rest, digits - 1, prefix, out);
        prefix.pop();
        return;
    }
    let mut middle_lo = lo_top;
    if lo_rest != 0 {
        prefix.push((lo_top, lo_top));
        digit_ranges(lo_rest, unit - 1, digits - 1, prefix, out);
        prefix.pop();
        middle_lo += 1;
    }
    let mut middle_hi = hi_top;
    let hi_partial = hi_rest != unit - 1;
    if hi_partial {
        middle_hi = hi_top.wrapping_sub(1);
    }
    if middle_lo <= middle_hi && middle_hi != u32::MAX {
        prefix.push((middle_lo, middle_hi));
        digit_ranges(0, unit - 1, digits - 1, prefix, out);
        prefix.pop();
    }
    if hi_partial {
        prefix.push((hi_top, hi_top));
        digit_ranges(0, hi_rest, digits - 1, prefix, out);
        prefix.pop();
    }
}

/// Where a character goes under the mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Char(u32),
    /// The invalid sequence of this index.
    Invalid(u32),
}

/// A bijection of characters under which Rust's `\w` reads what Python's `\w` reads.
///
/// `A` (Python word, Rust not) and `B` (Rust word, Python not), in code point order: `A[i]`
/// and `B[i]` swap places, and the rest of `B` become invalid sequences. Everything else maps
/// to itself.
pub struct Phi {
    /// The characters that move, sorted, with their targets.
    moved: Vec<(u32, Target)>,
    /// One bit per code point: whether it moves.
    bits: Vec<u64>,
}

static PHI: OnceLock<Option<Phi>> = OnceLock::new();

impl Phi {
    /// The mapping for Python's `\w` as `is_py_word` reads it (built once per process), or
    /// `None` if Python has more word characters than Rust, which no interpreter so far does.
    fn get(is_py_word: impl Fn(char) -> bool) -> Option<&'static Phi> {
        PHI.get_or_init(|| Phi::build(is_py_word)).as_ref()
    }

    fn build(is_py_word: impl Fn(char) -> bool) -> Option<Phi> {
        let looks = LookMatcher::new();
        let mut a = Vec::new();
        let mut b = Vec::new();
        let mut buf = [0u8; 4];
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            let rust = looks
                .is_word_unicode(c.encode_utf8(&mut buf).as_bytes(), 0)
                .unwrap_or(false);
            match (is_py_word(c), rust) {
                (true, false) => a.push(c as u32),
                (false, true) => b.push(c as u32),
                _ => {}
            }
        }
        if a.len() > b.len() || b.len() - a.len() > 64 * 64 * 64 {
            return None;
        }
        let mut moved = Vec::with_capacity(a.len() + b.len());
        for (i, &from) in a.iter().enumerate() {
            moved.push((from, Target::Char(b[i])));
            moved.push((b[i], Target::Char(from)));
        }
        for (j, &from) in b[a.len()..].iter().enumerate() {
            moved.push((from, Target::Invalid(j as u32)));
        }
        moved.sort_unstable_by_key(|&(from, _)| from);
        let mut bits = vec![0u64; 0x11_0000 / 64];
        for &(from, _) in &moved {
            bits[from as usize / 64] |= 1 << (from % 64);
        }
        Some(Phi { moved, bits })
    }

    #[inline]
    fn moves(&self, c: char) -> bool {
        let cp = c as usize;
        self.bits
            .get(cp / 64)
            .is_some_and(|word| word & (1 << (cp % 64)) != 0)
    }

    fn target(&self, c: u32) -> Option<Target> {
        self.moved
            .binary_search_by_key(&c, |&(from, _)| from)
            .ok()
            .and_then(|i| self.moved.get(i))
            .map(|&(_, t)| t)
    }

    fn write(&self, c: char, out: &mut Vec<u8>) {
        let mut buf = [0u8; 4];
        match self.moves(c).then(|| self.target(c as u32)).flatten() {
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            Some(Target::Char(to)) => {
                let to = char::from_u32(to).unwrap_or(c);
                out.extend_from_slice(to.encode_utf8(&mut buf).as_bytes());
            }
            Some(Target::Invalid(j)) => out.extend_from_slice(&invalid_bytes(j)),
        }
    }

    /// The image of `lo..=hi`: character ranges into `chars`, invalid indices into `invalid`.
    fn map_range(&self, lo: u32, hi: u32, chars: &mut Vec<(u32, u32)>, invalid: &mut Vec<u32>) {
        let start = self.moved.partition_point(|&(from, _)| from < lo);
        let mut next = lo;
        for &(from, target) in self.moved.iter().skip(start) {
            if from > hi {
                break;
            }
            if from > next {
                push_chars(next, from - 1, chars);
            }
            match target {
                Target::Char(to) => chars.push((to, to)),
                Target::Invalid(j) => invalid.push(j),
            }
            next = from + 1;
        }
        if next <= hi {
            push_chars(next, hi, chars);
        }
    }
}

#[cfg(test)]
impl Phi {
    pub fn get_for_tests(is_py_word: impl Fn(char) -> bool) -> Option<&'static Phi> {
        Phi::get(is_py_word)
    }

    /// Every character maps to a distinct image that Rust reads as Python reads the original.
    pub fn check(&self, is_py_word: impl Fn(char) -> bool) {
        let looks = LookMatcher::new();
        let mut images = std::collections::HashSet::new();
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            let mut bytes = Vec::new();
            self.write(c, &mut bytes);
            let rust_word = looks.is_word_unicode(&bytes, 0).unwrap_or(false);
            assert_eq!(rust_word, is_py_word(c), "{c:?}");
            assert!(images.insert(bytes), "{c:?} shares its image");
        }
    }
}

fn invalid_bytes(j: u32) -> [u8; 4] {
    [
        INVALID_LEAD,
        0x80 | ((j >> 12) & 63) as u8,
        0x80 | ((j >> 6) & 63) as u8,
        0x80 | (j & 63) as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_ranges_cover_exactly() {
        for (lo, hi) in [
            (0, 0),
            (0, 63),
            (5, 70),
            (63, 64),
            (100, 5000),
            (4095, 4096),
            (0, 262_143),
            (777, 200_000),
        ] {
            let mut out = Vec::new();
            digit_ranges(lo, hi, 3, &mut Vec::new(), &mut out);
            let mut covered = Vec::new();
            for seq in &out {
                for d0 in seq[0].0..=seq[0].1 {
                    for d1 in seq[1].0..=seq[1].1 {
                        for d2 in seq[2].0..=seq[2].1 {
                            covered.push(d0 * 4096 + d1 * 64 + d2);
                        }
                    }
                }
            }
            covered.sort_unstable();
            let expected: Vec<u32> = (lo..=hi).collect();
            assert_eq!(covered, expected, "{lo}..={hi}");
        }
    }
}
