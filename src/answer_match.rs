//! answer_match: polarscore's own judge-free rules, one response against every alias of a row.
//!
//! The rules, in order: the normalised response equals the normalised alias (`exact`); the
//! normalised alias occurs in the normalised response on word boundaries (`contains`); enough of
//! the alias's content words occur in the response (`token_recall`, with optional question words
//! discounted and every number of the alias required). The first alias accepted by the earliest
//! rule wins, then the best graded score, then the first position.
//!
//! Normalisation ([`Normalizer`]) restates, one linear pass per step over reused buffers, the
//! regular-expression recipe of `match_normalize` (`polarscore/normalize.py`) with Python's
//! character classes (`re`'s `\w` and `\d`, letters as `[^\W\d_]`, `str.lower()`), and accent
//! folding as Python's NFKD with combining marks dropped, from a table the Python side reads from
//! the interpreter's `unicodedata` ([`set_fold_table`]).

#[cfg(feature = "plugin")]
mod expressions;

use std::cmp::Ordering;
use std::sync::OnceLock;

use crate::answer_rules as rules;
use crate::answer_words::{is_article, is_stopword, number_word};
use crate::pyunicode::{py_is_blank, Tables};

// --- accent folding -----------------------------------------------------------------------------

/// `"".join(c for c in NFKD(ch) if not category(c).startswith("M"))` for every code point `ch`
/// it changes, as the running interpreter computes it.
///
/// Folding a string character by character equals folding it whole: NFKD only reorders
/// characters of nonzero combining class, and all of them are marks, which are dropped (the
/// Python side checks this over every code point before it builds the table).
pub struct FoldTable {
    /// One bit per code point: set for the keys (a quick "unchanged" for all the others).
    present: Vec<u64>,
    keys: Vec<u32>,
    /// `ends[i]` is where the folding of `keys[i]` ends in `text` (it starts at `ends[i - 1]`).
    ends: Vec<usize>,
    text: String,
}

static FOLD: OnceLock<FoldTable> = OnceLock::new();

/// Install the fold table: `code_points` strictly increasing, `folded[i]` the folding of
/// `code_points[i]`. The first call wins; later calls are ignored.
pub fn set_fold_table(code_points: &[u32], folded: &[String]) -> Result<(), String> {
    if code_points.len() != folded.len() {
        return Err(format!(
            "{} code points but {} foldings",
            code_points.len(),
            folded.len()
        ));
    }
    if code_points.windows(2).any(|w| w[0] >= w[1]) {
        return Err("the fold table's code points must be strictly increasing".to_owned());
    }
    if FOLD.get().is_some() {
        return Ok(());
    }
    let mut text = String::with_capacity(folded.iter().map(String::len).sum());
    let mut ends = Vec::with_capacity(folded.len());
    for f in folded {
        text.push_str(f);
        ends.push(text.len());
    }
    let mut present = vec![0u64; (char::MAX as usize >> 6) + 1];
    for &cp in code_points {
        if let Some(word) = present.get_mut(cp as usize >> 6) {
            *word |= 1 << (cp & 63);
        }
    }
    let _ = FOLD.set(FoldTable {
        present,
        keys: code_points.to_vec(),
        ends,
        text,
    });
    Ok(())
}

/// The installed fold table, or an error telling that polarscore's Python side did not set it.
pub fn fold_table() -> Result<&'static FoldTable, String> {
    FOLD.get().ok_or_else(|| {
        "polarscore's accent-folding table is not loaded: call answer_match through the \
         polarscore Python package, which loads it from the interpreter's unicodedata"
            .to_owned()
    })
}

impl FoldTable {
    /// The folding of `c`, or `None` when folding leaves it unchanged.
    #[inline]
    pub fn get(&self, c: char) -> Option<&str> {
        let cp = c as u32;
        if self.present.get(cp as usize >> 6)? & (1 << (cp & 63)) == 0 {
            return None;
        }
        let i = self.keys.binary_search(&(c as u32)).ok()?;
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
        self.text.get(start..*self.ends.get(i)?)
    }
}

// --- normalisation ------------------------------------------------------------------------------

/// Python's `[^\W\d_]`: a word character that is neither a decimal digit nor `_`.
#[inline]
fn is_letter(t: &Tables, c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    t.is_word(c) && t.digit_value(c).is_none()
}

/// Python's `\d`.
#[inline]
fn is_digit(t: &Tables, c: char) -> bool {
    t.digit_value(c).is_some()
}

/// A text unit the normalisation steps run over: a `char` (any text, classified by the
/// interpreter's tables) or a byte of an ASCII text (classified by ASCII rules, which agree with
/// Python's on ASCII). The steps are written once, generic over both.
trait Unit: Copy + PartialEq {
    /// An ASCII character as a unit.
    fn ascii(b: u8) -> Self;
    fn is_letter(self, t: &Tables) -> bool;
    fn is_digit(self, t: &Tables) -> bool;
    fn is_word(self, t: &Tables) -> bool;
    /// `'` or `’`.
    fn is_apostrophe(self) -> bool;
    fn to_char(self) -> char;
    /// The first apostrophe or dot in `a` from `from` on (what step 2 acts on).
    fn find_mark(a: &[Self], from: usize) -> Option<usize>;
    /// The first comma in `a` from `from` on (what step 3 acts on).
    fn find_comma(a: &[Self], from: usize) -> Option<usize>;
    /// The first decimal digit in `a` from `from` on (what step 4 acts on).
    fn find_digit(a: &[Self], from: usize, t: &Tables) -> Option<usize>;
}

impl Unit for char {
    #[inline]
    fn ascii(b: u8) -> Self {
        b as char
    }
    #[inline]
    fn is_letter(self, t: &Tables) -> bool {
        is_letter(t, self)
    }
    #[inline]
    fn is_digit(self, t: &Tables) -> bool {
        is_digit(t, self)
    }
    #[inline]
    fn is_word(self, t: &Tables) -> bool {
        t.is_word(self)
    }
    #[inline]
    fn is_apostrophe(self) -> bool {
        matches!(self, '\'' | '\u{2019}')
    }
    #[inline]
    fn to_char(self) -> char {
        self
    }
    fn find_mark(a: &[Self], from: usize) -> Option<usize> {
        let rest = a.get(from..)?;
        Some(from + rest.iter().position(|&c| c == '.' || c.is_apostrophe())?)
    }
    fn find_comma(a: &[Self], from: usize) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(|&c| c == ',')?)
    }
    fn find_digit(a: &[Self], from: usize, t: &Tables) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(|&c| is_digit(t, c))?)
    }
}

impl Unit for u8 {
    #[inline]
    fn ascii(b: u8) -> Self {
        b
    }
    #[inline]
    fn is_letter(self, _: &Tables) -> bool {
        self.is_ascii_alphabetic()
    }
    #[inline]
    fn is_digit(self, _: &Tables) -> bool {
        self.is_ascii_digit()
    }
    #[inline]
    fn is_word(self, _: &Tables) -> bool {
        self.is_ascii_alphanumeric() || self == b'_'
    }
    #[inline]
    fn is_apostrophe(self) -> bool {
        self == b'\''
    }
    #[inline]
    fn to_char(self) -> char {
        self as char
    }
    fn find_mark(a: &[Self], from: usize) -> Option<usize> {
        Some(from + memchr::memchr2(b'.', b'\'', a.get(from..)?)?)
    }
    fn find_comma(a: &[Self], from: usize) -> Option<usize> {
        Some(from + memchr::memchr(b',', a.get(from..)?)?)
    }
    fn find_digit(a: &[Self], from: usize, _: &Tables) -> Option<usize> {
        Some(from + a.get(from..)?.iter().position(u8::is_ascii_digit)?)
    }
}

/// Reusable buffers of the normalisation.
#[derive(Default)]
pub struct Normalizer {
    folded: String,
    a: Vec<char>,
    b: Vec<char>,
    ascii_a: Vec<u8>,
    ascii_b: Vec<u8>,
}

impl Normalizer {
    /// Write the answer-match normalisation of `text` into `out` (cleared first): the words
    /// separated by one space, with one space on each side (`" "` when there is no word).
    ///
    /// `fold` is the accent-folding table, or `None` for no folding. An ASCII text stays bytes
    /// throughout (folding and lowering cannot take it out of ASCII).
    pub fn normalize_into(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        text: &str,
        out: &mut String,
    ) {
        if text.is_ascii() {
            let (a, b) = (&mut self.ascii_a, &mut self.ascii_b);
            a.clear();
            a.extend_from_slice(text.as_bytes());
            a.make_ascii_lowercase();
            steps(t, number_words, a, b, out);
            return;
        }
        // 1. NFKD without marks, then str.lower().
        self.a.clear();
        let source = match fold {
            Some(fold) => {
                self.folded.clear();
                for c in text.chars() {
                    match fold.get(c) {
                        Some(f) => self.folded.push_str(f),
                        None => self.folded.push(c),
                    }
                }
                self.folded.as_str()
            }
            None => text,
        };
        let a = &mut self.a;
        t.for_each_lower(source, |c| {
            a.push(c);
            true
        });
        steps(t, number_words, &mut self.a, &mut self.b, out);
    }
}

/// Steps 2-5 of the normalisation, from the lowered text in `a` (`b` is scratch).
///
/// Steps 2-4 each copy the text in bulk between the characters they act on (apostrophes and
/// dots, commas, digits), which they find with a search; what a backtracking pass would do at
/// each such character depends only on its neighbours and on whether the character before it
/// was read as itself (not dropped or consumed by the previous rewrite), which each step tracks.
fn steps<U: Unit>(
    t: &Tables,
    number_words: bool,
    a: &mut Vec<U>,
    b: &mut Vec<U>,
    out: &mut String,
) {
    // 2. After a letter: a possessive 's goes, and so does an apostrophe or a dot.
    drop_inner_marks(t, a, b);
    // 3. Thousands separators.
    drop_thousands_separators(t, b, a);
    // 4. A letter glued to a digit is split off; a decimal point becomes "_".
    split_and_join_numbers(t, a, b);
    // 5. Words, ordinal suffixes and number words, articles.
    write_words(t, number_words, b, out);
}

/// `re.sub(r"([^\W\d_])(?:\.?['’]s\b|['’.])", r"\1", text)`.
fn drop_inner_marks<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let dot = U::ascii(b'.');
    // `a[..copied]` is handled; `a[fresh]` follows a dropped stretch (or starts the text), so
    // no letter before it was read.
    let (mut copied, mut fresh, mut from) = (0, 0, 0);
    while let Some(p) = U::find_mark(a, from) {
        from = p + 1;
        if p == fresh || !a.get(p - 1).is_some_and(|c| c.is_letter(t)) {
            continue;
        }
        let mut k = p;
        if a.get(k) == Some(&dot) {
            k += 1;
        }
        let end = if a.get(k).is_some_and(|x| x.is_apostrophe())
            && a.get(k + 1) == Some(&U::ascii(b's'))
            && a.get(k + 2).is_none_or(|&c| !c.is_word(t))
        {
            k + 2
        } else {
            p + 1
        };
        out.extend_from_slice(a.get(copied..p).unwrap_or(&[]));
        (copied, fresh, from) = (end, end, end);
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// Whether `a[k..k + 4]` is `,` and three decimal digits.
#[inline]
fn group_at<U: Unit>(t: &Tables, a: &[U], k: usize) -> bool {
    a.get(k) == Some(&U::ascii(b','))
        && a.get(k + 1..k + 4)
            .is_some_and(|g| g.iter().all(|&c| c.is_digit(t)))
}

/// Where `(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b` matches from `i` (a digit), in the order a
/// backtracking engine tries the optional groups.
fn thousands_end<U: Unit>(t: &Tables, a: &[U], i: usize) -> Option<usize> {
    if !group_at(t, a, i + 1) {
        return None;
    }
    let boundary = |e: usize| a.get(e).is_none_or(|&c| !c.is_word(t));
    let e1 = i + 5;
    if group_at(t, a, e1) {
        let e2 = e1 + 4;
        if group_at(t, a, e2) && boundary(e2 + 4) {
            return Some(e2 + 4);
        }
        if boundary(e2) {
            return Some(e2);
        }
    }
    boundary(e1).then_some(e1)
}

/// `re.sub(r"(\d),(\d{3})(?:,(\d{3}))?(?:,(\d{3}))?\b", r"\1\2\3\4", text)`.
fn drop_thousands_separators<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let comma = U::ascii(b',');
    // `a[..copied]` is handled (a match consumed up to `copied`).
    let (mut copied, mut from) = (0, 0);
    while let Some(p) = U::find_comma(a, from) {
        from = p + 1;
        // A match starts at the digit just before a comma, if no match consumed that digit.
        let Some(start) = p.checked_sub(1).filter(|&i| i >= copied) else {
            continue;
        };
        if !a.get(start).is_some_and(|c| c.is_digit(t)) {
            continue;
        }
        if let Some(end) = thousands_end(t, a, start) {
            out.extend_from_slice(a.get(copied..start).unwrap_or(&[]));
            out.extend(
                a.get(start..end)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|&&d| d != comma),
            );
            (copied, from) = (end, end);
        }
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// `re.sub(r"([^\W\d_])(\d)", r"\1 \2", text)`, then `re.sub(r"(\d)\.(\d)", r"\1_\2", text)`.
///
/// One pass does both: the space goes between a letter and a digit, which neither creates nor
/// breaks a digit-dot-digit match.
fn split_and_join_numbers<U: Unit>(t: &Tables, a: &[U], out: &mut Vec<U>) {
    out.clear();
    let mut copied = 0;
    while let Some(p) = U::find_digit(a, copied, t) {
        out.extend_from_slice(a.get(copied..p).unwrap_or(&[]));
        // A letter before a digit is always read as itself (a rewrite consumes only a dot
        // and a digit).
        if p.checked_sub(1)
            .and_then(|i| a.get(i))
            .is_some_and(|c| c.is_letter(t))
        {
            out.push(U::ascii(b' '));
        }
        let (Some(&c), next) = (a.get(p), a.get(p + 2)) else {
            break;
        };
        match next.filter(|&&d| a.get(p + 1) == Some(&U::ascii(b'.')) && d.is_digit(t)) {
            Some(&d) => {
                out.extend([c, U::ascii(b'_'), d]);
                copied = p + 3;
            }
            None => {
                out.push(c);
                copied = p + 1;
            }
        }
    }
    out.extend_from_slice(a.get(copied..).unwrap_or(&[]));
}

/// The ASCII spelling of `word`, in `buf`, when it is short enough to be a table word.
#[inline]
fn short_ascii<'b, U: Unit>(word: &[U], buf: &'b mut [u8; 16]) -> Option<&'b str> {
    if word.len() > buf.len() {
        return None;
    }
    for (slot, &c) in buf.iter_mut().zip(word) {
        let c = c.to_char();
        if !c.is_ascii() {
            return None;
        }
        *slot = c as u8;
    }
    std::str::from_utf8(buf.get(..word.len())?).ok()
}

/// Split on runs of non-word characters; per word, drop an ordinal suffix and read a number
/// word (with `number_words`), drop articles; join with spaces and pad both ends.
fn write_words<U: Unit>(t: &Tables, number_words: bool, a: &[U], out: &mut String) {
    out.clear();
    out.push(' ');
    let mut buf = [0u8; 16];
    let mut i = 0;
    while i < a.len() {
        let start = i;
        while a.get(i).is_some_and(|&c| c.is_word(t)) {
            i += 1;
        }
        let Some(mut word) = a.get(start..i).filter(|w| !w.is_empty()) else {
            i += 1;
            continue;
        };
        if number_words {
            // (\d)(?:st|nd|rd|th)$
            if let [.., d, x, y] = word {
                if matches!(
                    (x.to_char(), y.to_char()),
                    ('s', 't') | ('n', 'd') | ('r', 'd') | ('t', 'h')
                ) && d.is_digit(t)
                {
                    word = word.get(..word.len() - 2).unwrap_or(word);
                }
            }
        }
        match short_ascii(word, &mut buf) {
            Some(w) if is_article(w) => continue,
            Some(w) => match number_word(w).filter(|_| number_words) {
                Some(digits) => out.push_str(digits),
                None => out.push_str(w),
            },
            None => out.extend(word.iter().map(|c| c.to_char())),
        }
        out.push(' ');
    }
}

// --- content tokens -----------------------------------------------------------------------------

/// Light stemming, written to `out`: a plural ending dropped (`(\p{L}{2,}[^s])ies$` → `$1y`, then
/// `(\p{L}{3,}[^s])e?s$` → `$1`), then the first `prefix` characters; a token that starts with a
/// digit is kept whole, and so is every token when `prefix` is `None`.
pub fn stem_into(t: &Tables, token: &str, prefix: Option<usize>, out: &mut String) {
    let Some(prefix) = prefix else {
        out.push_str(token);
        return;
    };
    if token.chars().next().is_some_and(|c| is_digit(t, c)) {
        out.push_str(token);
        return;
    }
    // The last six characters (tail[0] is the last) and where each starts.
    let mut tail = [(0usize, '\0'); 6];
    let mut n = 0;
    for (slot, ic) in tail.iter_mut().zip(token.char_indices().rev()) {
        *slot = ic;
        n += 1;
    }
    let c = |k: usize| tail[k - 1].1;
    let at = |k: usize| tail[k - 1].0;
    let letter = |k: usize| is_letter(t, c(k));
    let (base, y) =
        if n >= 6 && (c(3), c(2), c(1)) == ('i', 'e', 's') && c(4) != 's' && letter(5) && letter(6)
        {
            (token.get(..at(3)).unwrap_or(token), true)
        } else if n >= 5 && c(1) == 's' && c(2) != 's' && letter(3) && letter(4) && letter(5) {
            (token.get(..at(1)).unwrap_or(token), false)
        } else if n >= 6
            && (c(2), c(1)) == ('e', 's')
            && c(3) != 's'
            && letter(4)
            && letter(5)
            && letter(6)
        {
            (token.get(..at(2)).unwrap_or(token), false)
        } else {
            (token, false)
        };
    match base.char_indices().nth(prefix) {
        Some((cut, _)) => out.push_str(base.get(..cut).unwrap_or(base)),
        None => {
            out.push_str(base);
            if y && base.chars().count() < prefix {
                out.push('y');
            }
        }
    }
}

/// The distinct stemmed content tokens of a normalised text, sorted.
#[derive(Default)]
pub struct TokenSet {
    buf: String,
    spans: Vec<(usize, usize)>,
}

impl TokenSet {
    /// Fill the set from `normalized` (words separated by spaces), stop words left out.
    pub fn build(&mut self, t: &Tables, normalized: &str, prefix: Option<usize>) {
        let Self { buf, spans } = self;
        buf.clear();
        spans.clear();
        for word in normalized.split(' ') {
            if word.is_empty() || is_stopword(word) {
                continue;
            }
            let start = buf.len();
            stem_into(t, word, prefix, buf);
            spans.push((start, buf.len()));
        }
        let text = buf.as_str();
        let get = |s: &(usize, usize)| text.get(s.0..s.1).unwrap_or("");
        spans.sort_unstable_by(|x, y| get(x).cmp(get(y)));
        spans.dedup_by(|x, y| get(&*x) == get(&*y));
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|s| self.buf.get(s.0..s.1).unwrap_or(""))
    }

    pub fn contains(&self, token: &str) -> bool {
        self.spans
            .binary_search_by(|s| self.buf.get(s.0..s.1).unwrap_or("").cmp(token))
            .is_ok()
    }
}

// --- the decision -------------------------------------------------------------------------------

/// The switches and thresholds of one call.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub exact: bool,
    pub contains: bool,
    pub token_recall: bool,
    pub min_token_recall: f64,
    pub stem_prefix: Option<usize>,
    pub numbers_must_match: bool,
    pub fold_accents: bool,
    pub number_words: bool,
    pub dates: bool,
    pub parentheticals: bool,
    pub repair_mojibake: bool,
    pub approximate_numbers: bool,
    pub glued_words: bool,
}

/// The rule that accepted the chosen alias, in the order the rules are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Exact,
    Contains,
    Date,
    ApproxNumber,
    TokenRecall,
    NoMatch,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Exact => "exact",
            Rule::Contains => "contains",
            Rule::Date => "date",
            Rule::ApproxNumber => "approx_number",
            Rule::TokenRecall => "token_recall",
            Rule::NoMatch => "no_match",
        }
    }
}

/// What was done to the texts before the rule accepted them, as bits of [`Decision::notes`].
pub const NOTE_PARENTHETICAL: u8 = 1;
pub const NOTE_MOJIBAKE: u8 = 2;
pub const NOTE_GLUED: u8 = 4;

/// The decision for a row that has a usable alias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub rule: Rule,
    /// 1.0 for the exact, contains, date and number rules, else the best token recall.
    pub graded: f64,
    /// The position of the chosen alias in the row's references, when a rule accepted it.
    pub index: Option<u32>,
    /// `NOTE_*` bits: what was done to the chosen alias or the response (0 when no rule fired).
    pub notes: u8,
}

impl Decision {
    pub fn score(&self) -> f64 {
        if self.rule == Rule::NoMatch {
            0.0
        } else {
            1.0
        }
    }

    /// The rule's name, then what was done to the texts (`"exact; parenthetical dropped"`).
    pub fn write_reason(&self, out: &mut String) {
        out.push_str(self.rule.name());
        for (bit, text) in [
            (NOTE_PARENTHETICAL, "parenthetical dropped"),
            (NOTE_MOJIBAKE, "mojibake repaired"),
            (NOTE_GLUED, "glued words split"),
        ] {
            if self.notes & bit != 0 {
                out.push_str("; ");
                out.push_str(text);
            }
        }
    }
}

/// The words of a normalised text.
fn words(text: &str) -> Vec<&str> {
    text.split(' ').filter(|w| !w.is_empty()).collect()
}

/// One alias as the rules see it: its position in the row's references, its span in
/// [`Matcher::aliases`] and its `NOTE_*` bits.
type AliasSpan = (u32, usize, usize, u8);

/// The normalised aliases of a row, for the rules that accept or reject it outright.
struct Spans<'s> {
    spans: &'s [AliasSpan],
    aliases: &'s str,
}

impl Spans<'_> {
    fn alias(&self, &(_, s, e, _): &AliasSpan) -> &str {
        self.aliases.get(s..e).unwrap_or(" ")
    }

    /// A decision of `rule` for `span`, with the alias's notes and `notes`.
    fn decided(rule: Rule, span: &AliasSpan, notes: u8) -> Decision {
        Decision {
            rule,
            graded: 1.0,
            index: Some(span.0),
            notes: span.3 | notes,
        }
    }

    /// The first of the exact and contains rules that accepts an alias against the normalised
    /// response `resp` (each rule over every alias before the next rule).
    fn text_rule(&self, opts: &Options, resp: &str, notes: u8) -> Option<Decision> {
        if opts.exact {
            if let Some(span) = self.spans.iter().find(|s| self.alias(s) == resp) {
                return Some(Self::decided(Rule::Exact, span, notes));
            }
        }
        if opts.contains {
            let hit = self.spans.iter().find(|s| {
                let a = self.alias(s);
                a != " " && memchr::memmem::find(resp.as_bytes(), a.as_bytes()).is_some()
            });
            if let Some(span) = hit {
                return Some(Self::decided(Rule::Contains, span, notes));
            }
        }
        None
    }

    /// The first of the date and number rules that accepts an alias against `resp`.
    fn value_rule(
        &self,
        opts: &Options,
        resp: &str,
        asks_when: bool,
        notes: u8,
    ) -> Option<Decision> {
        let decided = |rule: Rule, span: &AliasSpan| Self::decided(rule, span, notes);
        // Dates and numbers need a digit in the alias: the others are skipped unread.
        let has_digit = |s: &&AliasSpan| self.alias(s).bytes().any(|b| b.is_ascii_digit());
        if opts.dates {
            let mut read = None;
            for span in self.spans.iter().filter(has_digit) {
                let Some(date) = rules::alias_date(&words(self.alias(span))) else {
                    continue;
                };
                let (dates, decades) = read.get_or_insert_with(|| {
                    let w = words(resp);
                    (rules::find_dates(&w), rules::find_decades(&w))
                });
                if rules::date_matches(date, dates, decades, asks_when) {
                    return Some(decided(Rule::Date, span));
                }
            }
        }
        if opts.approximate_numbers {
            let resp_words = words(resp);
            let mut numbers = None;
            for span in self.spans.iter().filter(has_digit) {
                let alias_words = words(self.alias(span));
                let Some(number) = rules::alias_number(&alias_words) else {
                    continue;
                };
                let found = numbers.get_or_insert_with(|| rules::find_numbers(&resp_words));
                if rules::number_matches(&number, found) {
                    return Some(decided(Rule::ApproxNumber, span));
                }
            }
        }
        None
    }
}

/// Reusable buffers for deciding many rows.
#[derive(Default)]
pub struct Matcher {
    norm: Normalizer,
    response: String,
    /// The normalised response with glued words split (when it differs from `response`).
    glued: String,
    question: String,
    scratch: String,
    /// Repaired or rewritten raw texts.
    fixed: String,
    fixed_response: String,
    stripped: String,
    raw: Vec<u8>,
    /// The normalised usable aliases, end to end.
    aliases: String,
    alias_spans: Vec<AliasSpan>,
    response_tokens: TokenSet,
    question_tokens: TokenSet,
    alias_tokens: TokenSet,
}

impl Matcher {
    /// Decide one row; `None` when it has no usable alias (null, empty or blank ones only).
    ///
    /// `fold` must be given when `opts.fold_accents`. A null response reads as `""`; `question`
    /// is discounted when given (a null question discounts nothing).
    pub fn decide<'a>(
        &mut self,
        t: &Tables,
        fold: Option<&FoldTable>,
        opts: &Options,
        response: &str,
        references: impl Iterator<Item = Option<&'a str>>,
        question: Option<&str>,
    ) -> Option<Decision> {
        let fold = fold.filter(|_| opts.fold_accents);
        let nw = opts.number_words;
        self.aliases.clear();
        self.alias_spans.clear();
        for (i, alias) in references.enumerate() {
            let Some(alias) = alias.filter(|a| !py_is_blank(a)) else {
                continue;
            };
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let repaired = opts.repair_mojibake
                && rules::repair_mojibake_into(alias, &mut self.raw, &mut self.fixed);
            let text = if repaired { self.fixed.as_str() } else { alias };
            let notes = if repaired { NOTE_MOJIBAKE } else { 0 };
            self.norm
                .normalize_into(t, fold, nw, text, &mut self.scratch);
            let start = self.aliases.len();
            self.aliases.push_str(&self.scratch);
            self.alias_spans
                .push((index, start, self.aliases.len(), notes));
            if opts.parentheticals
                && rules::drop_parentheticals_into(text, &mut self.stripped)
                && !py_is_blank(&self.stripped)
            {
                self.norm
                    .normalize_into(t, fold, nw, &self.stripped, &mut self.scratch);
                let start = self.aliases.len();
                self.aliases.push_str(&self.scratch);
                self.alias_spans.push((
                    index,
                    start,
                    self.aliases.len(),
                    notes | NOTE_PARENTHETICAL,
                ));
            }
        }
        if self.alias_spans.is_empty() {
            return None;
        }
        let response_repaired = opts.repair_mojibake
            && rules::repair_mojibake_into(response, &mut self.raw, &mut self.fixed_response);
        let response = if response_repaired {
            self.fixed_response.as_str()
        } else {
            response
        };
        let row_notes = if response_repaired { NOTE_MOJIBAKE } else { 0 };
        self.norm
            .normalize_into(t, fold, nw, response, &mut self.response);
        let spans = Spans {
            spans: &self.alias_spans,
            aliases: &self.aliases,
        };
        // Most rows end here, before the question is read.
        if let Some(d) = spans.text_rule(opts, &self.response, row_notes) {
            return Some(d);
        }
        let has_question = question.is_some();
        if let Some(q) = question {
            let q = if opts.repair_mojibake
                && rules::repair_mojibake_into(q, &mut self.raw, &mut self.fixed)
            {
                self.fixed.as_str()
            } else {
                q
            };
            self.norm.normalize_into(t, fold, nw, q, &mut self.question);
        }
        let asks_when = !has_question || rules::asks_when(&self.question);
        if let Some(d) = spans.value_rule(opts, &self.response, asks_when, row_notes) {
            return Some(d);
        }
        // Only when no rule accepts the response as written: the same rules (token recall
        // excepted) on the response with glued words split.
        if opts.glued_words
            && (rules::has_glued_words(response) || rules::has_glued_years(&self.response))
        {
            let source = if rules::unglue_into(response, &mut self.stripped) {
                self.norm
                    .normalize_into(t, fold, nw, &self.stripped, &mut self.scratch);
                self.scratch.as_str()
            } else {
                self.response.as_str()
            };
            rules::split_year_citations_into(source, &mut self.glued);
            if self.glued != self.response {
                let notes = row_notes | NOTE_GLUED;
                let glued = self.glued.as_str();
                let d = spans.text_rule(opts, glued, notes);
                if let Some(d) = d.or_else(|| spans.value_rule(opts, glued, asks_when, notes)) {
                    return Some(d);
                }
            }
        }
        let resp = self.response.as_str();
        let aliases = self.aliases.as_str();
        let alias = |&(_, s, e, _): &AliasSpan| aliases.get(s..e).unwrap_or(" ");
        let mut best = Decision {
            rule: Rule::NoMatch,
            graded: 0.0,
            index: None,
            notes: 0,
        };
        if !opts.token_recall {
            return Some(best);
        }
        let prefix = opts.stem_prefix;
        self.response_tokens.build(t, resp, prefix);
        if has_question {
            self.question_tokens.build(t, &self.question, prefix);
        } else {
            self.question_tokens.clear();
        }
        let mut best_rule = Rule::NoMatch;
        for span in &self.alias_spans {
            self.alias_tokens.build(t, alias(span), prefix);
            let recall = self.recall(t, opts);
            let rule = if recall >= opts.min_token_recall {
                Rule::TokenRecall
            } else {
                Rule::NoMatch
            };
            let better = match rule.cmp(&best_rule) {
                Ordering::Less => true,
                Ordering::Equal => recall > best.graded,
                Ordering::Greater => false,
            };
            if better {
                best_rule = rule;
                let matched = rule == Rule::TokenRecall;
                best = Decision {
                    rule,
                    graded: recall,
                    index: matched.then_some(span.0),
                    notes: if matched { span.3 | row_notes } else { 0 },
                };
            }
        }
        Some(best)
    }

    /// The token recall of the current alias tokens against the response tokens.
    fn recall(&self, t: &Tables, opts: &Options) -> f64 {
        let (mut n_all, mut hits_all, mut n_new, mut hits_new) = (0usize, 0usize, 0usize, 0usize);
        for token in self.alias_tokens.iter() {
            let hit = self.response_tokens.contains(token);
            if opts.numbers_must_match
                && !hit
                && token.chars().next().is_some_and(|c| is_digit(t, c))
            {
                return 0.0;
            }
            n_all += 1;
            hits_all += usize::from(hit);
            if !self.question_tokens.contains(token) {
                n_new += 1;
                hits_new += usize::from(hit);
            }
        }
        // Tokens the question already gives away are no evidence, unless they are all there is.
        if n_new > 0 {
            hits_new as f64 / n_new as f64
        } else if n_all > 0 {
            hits_all as f64 / n_all as f64
        } else {
            0.0
        }
    }
}

#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod test_fold {
    //! Fold tables without an interpreter: a few foldings for `cargo test`, and every code point
    //! by Rust's NFKD for the fuzz targets (the real table comes from the interpreter).
    use super::*;

    /// NFKD without combining marks for every code point it changes (first install wins).
    pub fn install_nfkd() -> &'static FoldTable {
        use unicode_normalization::char::is_combining_mark;
        use unicode_normalization::UnicodeNormalization;
        if let Some(table) = FOLD.get() {
            return table;
        }
        let (mut keys, mut folded) = (Vec::new(), Vec::new());
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            let f: String = std::iter::once(c)
                .nfkd()
                .filter(|&m| !is_combining_mark(m))
                .collect();
            if f.chars().ne(std::iter::once(c)) {
                keys.push(c as u32);
                folded.push(f);
            }
        }
        set_fold_table(&keys, &folded).unwrap();
        fold_table().unwrap()
    }

    pub fn install() -> &'static FoldTable {
        let pairs: [(u32, &str); 8] = [
            (0x0301, ""),
            (0x0308, ""),
            (0x00C9, "E"),
            (0x00E9, "e"),
            (0x00F6, "o"),
            (0xFB01, "fi"),
            (0xFF11, "1"),
            (0xFF12, "2"),
        ];
        let mut pairs = pairs.to_vec();
        pairs.retain(|(cp, f)| char::from_u32(*cp).map(String::from).as_deref() != Some(*f));
        pairs.sort();
        let keys: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let folded: Vec<String> = pairs.iter().map(|p| p.1.to_owned()).collect();
        set_fold_table(&keys, &folded).unwrap();
        fold_table().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn norm_with(text: &str, fold_accents: bool, number_words: bool) -> String {
        let t = test_tables::install();
        let fold = test_fold::install();
        let mut out = String::new();
        Normalizer::default().normalize_into(
            t,
            fold_accents.then_some(fold),
            number_words,
            text,
            &mut out,
        );
        out
    }

    fn norm(text: &str) -> String {
        norm_with(text, true, true)
    }

    #[test]
    fn normalisation_recipe() {
        let cases = [
            ("Malmö", " malmo "),
            ("ﬁle １２", " file 12 "),
            ("U.S.A.", " usa "),
            ("Drew's dog", " drew dog "),
            ("the U.S.A.'s", " usa "),
            ("Li'l Abner", " lil abner "),
            ("1,000,000 people", " 1000000 people "),
            ("1,2,3", " 1 2 3 "),
            ("1,000,0000", " 1000 0000 "),
            ("5.97 m", " 5_97 m "),
            ("1.2.3", " 1_2 3 "),
            ("Sweden1.", " sweden 1 "),
            ("the seventh", " 7 "),
            ("21st century", " 21 century "),
            ("21st'1", " 21 1 "),
            ("1,000th", " 1 000 "),
            ("one two three", " 1 2 3 "),
            ("Tom and the Cat and a dog", " tom and cat and dog "),
            ("  ...Hello, World!!  ", " hello world "),
            ("", " "),
            ("snake_case", " snake_case "),
            ("x's's", " x s "),
            ("José's", " jose "),
            ("ÉTÉ", " ete "),
        ];
        for (text, want) in cases {
            assert_eq!(norm(text), want, "{text:?}");
        }
        assert_eq!(norm_with("Malmö", false, true), " malmö ");
        assert_eq!(norm_with("the seventh 21st", true, false), " seventh 21st ");
    }

    fn stem(token: &str, prefix: Option<usize>) -> String {
        let t = test_tables::install();
        let mut out = String::new();
        stem_into(t, token, prefix, &mut out);
        out
    }

    #[test]
    fn stemming() {
        assert_eq!(stem("hieroglyphics", Some(6)), "hierog");
        assert_eq!(stem("hieroglyphs", Some(11)), "hieroglyph");
        assert_eq!(stem("hieroglyphics", Some(11)), "hieroglyphi");
        assert_eq!(stem("stories", Some(6)), "story");
        assert_eq!(stem("stories", Some(4)), "stor");
        assert_eq!(stem("stories", None), "stories");
        assert_eq!(stem("acronyms", Some(6)), "acrony");
        assert_eq!(stem("horses", Some(10)), "horse");
        assert_eq!(stem("abc1es", Some(10)), "abc1");
        assert_eq!(stem("boxes", Some(10)), "boxe");
        assert_eq!(stem("glass", Some(10)), "glass");
        assert_eq!(stem("1000s", Some(2)), "1000s");
        assert_eq!(stem("cats", Some(6)), "cats");
        assert_eq!(stem("é", Some(6)), "é");
    }

    fn decide(response: &str, refs: &[Option<&str>], question: Option<&str>) -> Option<Decision> {
        let t = test_tables::install();
        let fold = test_fold::install();
        let opts = Options {
            exact: true,
            contains: true,
            token_recall: true,
            min_token_recall: 0.3,
            stem_prefix: Some(6),
            numbers_must_match: true,
            fold_accents: true,
            number_words: true,
            dates: true,
            parentheticals: true,
            repair_mojibake: true,
            approximate_numbers: true,
            glued_words: true,
        };
        Matcher::default().decide(
            t,
            Some(fold),
            &opts,
            response,
            refs.iter().copied(),
            question,
        )
    }

    #[test]
    fn rules() {
        let d = decide("Paris.", &[Some("Lutetia"), Some("paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::Exact, Some(1)));
        let d = decide("It is Paris, of course.", &[Some("Paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::Contains, Some(0)));
        let d = decide("Amy Johnson CBE", &[Some("Amy Mollison")], None).unwrap();
        assert_eq!(
            (d.rule, d.graded, d.index),
            (Rule::TokenRecall, 0.5, Some(0))
        );
        let d = decide("Parisian cafes", &[Some("Paris")], None).unwrap();
        assert_eq!((d.rule, d.index), (Rule::NoMatch, None));
        let d = decide(
            "The CN Tower has 1,776 steps.",
            &[Some("2,579 steps")],
            None,
        )
        .unwrap();
        assert_eq!((d.rule, d.graded), (Rule::NoMatch, 0.0));
        let d = decide(
            "Lyon",
            &[None, Some("  "), Some("Paris"), Some("Lyon")],
            None,
        )
        .unwrap();
        assert_eq!((d.rule, d.index), (Rule::Exact, Some(3)));
        assert_eq!(decide("Paris", &[None, Some(" \u{3000}")], None), None);
        assert_eq!(decide("Paris", &[], None), None);
    }

    #[test]
    fn question_words_are_no_evidence() {
        let refs = [Some("Sri Lanka Podujana Peramuna")];
        let resp = "Elections in Sri Lanka in 2018 were local elections.";
        assert_eq!(decide(resp, &refs, None).unwrap().rule, Rule::TokenRecall);
        let q = Some("who will win the 2018 election in sri lanka");
        assert_eq!(decide(resp, &refs, q).unwrap().rule, Rule::NoMatch);
    }

    #[test]
    fn hostile_sizes_stay_linear() {
        let token = "a".repeat(1_000_000);
        let d = decide(&token, &[Some(&token)], None).unwrap();
        assert_eq!(d.rule, Rule::Exact);
        let numbers: String = (0..100_000).map(|i| format!("{i} ")).collect();
        let d = decide(&numbers, &[Some("42 7 99999 x")], None).unwrap();
        assert_eq!(d.rule, Rule::TokenRecall);
    }
}
