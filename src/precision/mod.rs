//! answer_precision (eval-ai-library's `AnswerPrecisionMetric`), row by row.
//!
//! [`score_pair`] scores one (response, reference) pair with its guards: the basic normalisation
//! ([`normalize`]), token sets with stopwords, the numbers of the raw texts and their greedy
//! agreement ([`numbers`]), the character similarity ([`char_ratio`]) and the weighted power
//! mean in the reference's summation order. [`write_reason`] and friends spell the diagnostics.

pub mod char_ratio;
#[cfg(feature = "plugin")]
pub(crate) mod expressions;
pub mod normalize;
pub mod numbers;
pub mod token_set;

use std::fmt::Write;

use crate::pyunicode::{py_is_blank, Tables};
use char_ratio::RatioScratch;
use normalize::NormScratch;
use numbers::MatchScratch;
use token_set::{Pending, StopWords, TokenSet};

/// A component that may carry a weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comp {
    Contains,
    CharRatio,
    TokenPrecision,
    Numeric,
    Exact,
    Normalized,
    TokenRecall,
}

impl Comp {
    pub fn from_name(name: &str) -> Option<Comp> {
        Some(match name {
            "contains" => Comp::Contains,
            "char_ratio" => Comp::CharRatio,
            "token_precision" => Comp::TokenPrecision,
            "numeric" => Comp::Numeric,
            "exact" => Comp::Exact,
            "normalized" => Comp::Normalized,
            "token_recall" => Comp::TokenRecall,
            _ => return None,
        })
    }
}

/// Validated options (the Python side checks them); [`Options::new`] makes them.
pub struct Options {
    /// Indel (true) or difflib's SequenceMatcher (false).
    pub indel: bool,
    /// `missing_expected="zero"`.
    pub zero_missing: bool,
    pub power_p: f64,
    /// In summation order.
    pub weights: Vec<(Comp, f64)>,
    /// The stopwords.
    pub stopwords: StopWords,
    /// The work the character similarity of one pair may take (`None`: unbounded).
    pub max_work: Option<u64>,
    /// What the power mean of every row takes from the options alone.
    mean: PowerMean,
}

/// The parts of the power mean that depend on the options only, computed once for a batch
/// instead of per row, with the same operations in the same order (so the same bits): each
/// weight divided by their sum (added in summation order from 0), and `1 / p`.
struct PowerMean {
    /// `(component, weight / sum of the weights)`, in summation order.
    scaled: Vec<(Comp, f64)>,
    inverse_p: f64,
}

impl PowerMean {
    fn new(power_p: f64, weights: &[(Comp, f64)]) -> PowerMean {
        let mut total = 0.0;
        for &(_, w) in weights {
            total += w;
        }
        PowerMean {
            scaled: weights.iter().map(|&(c, w)| (c, w / total)).collect(),
            inverse_p: 1.0 / power_p,
        }
    }
}

impl Options {
    pub fn new(
        indel: bool,
        zero_missing: bool,
        power_p: f64,
        weights: Vec<(Comp, f64)>,
        stopwords: StopWords,
        max_work: Option<u64>,
    ) -> Options {
        let mean = PowerMean::new(power_p, &weights);
        Options {
            indel,
            zero_missing,
            power_p,
            weights,
            stopwords,
            max_work,
            mean,
        }
    }
}

/// The stopword table of [`Options`].
pub fn stopword_table<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> StopWords {
    StopWords::new(words)
}

/// Which way a row went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Scored,
    EmptyActualGuard,
    NoExpected,
    InvalidTolerance,
    /// The character similarity would take more than `max_work` (the length guard).
    TooLong,
}

pub const EMPTY_ACTUAL_REASON: &str = "Assistant returned an empty response, so the metric cannot \
be evaluated; defaulting to score 0.";
pub const NO_EXPECTED_REASON: &str = "No expected output provided.";
pub const INVALID_TOLERANCE_REASON: &str =
    "Invalid numeric tolerance (null, NaN, infinite or negative): cannot score.";
pub const TOO_LONG_REASON: &str = "Texts too long: their character similarity would take more \
than max_work steps (the length guard); raise max_work, or set it to None, to score them.";

impl Path {
    pub fn name(self) -> &'static str {
        match self {
            Path::Scored => "scored",
            Path::EmptyActualGuard => "empty_actual_guard",
            Path::NoExpected => "no_expected",
            Path::InvalidTolerance => "invalid_tolerance",
            Path::TooLong => "too_long",
        }
    }

    /// The reason text of a row that is not scored.
    pub fn reason(self) -> &'static str {
        match self {
            Path::Scored => "",
            Path::EmptyActualGuard => EMPTY_ACTUAL_REASON,
            Path::NoExpected => NO_EXPECTED_REASON,
            Path::InvalidTolerance => INVALID_TOLERANCE_REASON,
            Path::TooLong => TOO_LONG_REASON,
        }
    }
}

/// Every component of a scored row.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Components {
    pub exact: f64,
    pub normalized: f64,
    pub contains: f64,
    pub char_ratio: f64,
    pub token_precision: f64,
    pub token_recall: f64,
    pub numeric: f64,
    pub penalty: f64,
    pub score: f64,
}

impl Components {
    /// The values of the components, at the index of each [`Comp`]'s discriminant.
    #[inline(always)]
    fn by_comp(&self) -> [f64; 7] {
        let mut v = [0.0; 7];
        v[Comp::Contains as usize] = self.contains;
        v[Comp::CharRatio as usize] = self.char_ratio;
        v[Comp::TokenPrecision as usize] = self.token_precision;
        v[Comp::Numeric as usize] = self.numeric;
        v[Comp::Exact as usize] = self.exact;
        v[Comp::Normalized as usize] = self.normalized;
        v[Comp::TokenRecall as usize] = self.token_recall;
        v
    }
}

/// The outcome of one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub path: Path,
    pub score: Option<f64>,
    /// Set on scored rows only.
    pub components: Option<Components>,
}

/// Reusable buffers for a batch; after [`score_pair_for_details`] scores a row they hold its
/// details.
#[derive(Default)]
pub struct Scratch {
    norm: NormScratch,
    a_norm: String,
    e_norm: String,
    /// The token sets, as spans of `a_norm` and `e_norm`.
    a_set: TokenSet,
    e_set: TokenSet,
    /// The tokens of the text being normalised, before they go into its set.
    pending: Pending,
    digits: String,
    /// The response's numbers; [`score_pair`] leaves them unread (empty) when the reference has
    /// none, unless `all_numbers`.
    a_num: Vec<f64>,
    e_num: Vec<f64>,
    /// Whether `a_num` is read whatever the reference holds ([`score_pair_for_details`]).
    all_numbers: bool,
    matcher: MatchScratch,
    chosen: Vec<Option<usize>>,
    error: Vec<f64>,
    within: Vec<bool>,
    ratio: RatioScratch,
    powers: Powers,
    /// Whether `a_norm` and `a_set` hold the response of the last pair scored, normalised
    /// (`a_ascii`: whether it is ASCII), for [`score_pair_same_response`].
    actual_ready: bool,
    a_ascii: bool,
    /// The response's [`numbers::has_number`] and whether `a_num` holds all its numbers, once
    /// found for the response `a_norm` holds.
    a_has_number: Option<bool>,
    a_num_read: bool,
}

/// [`py_is_blank`], without its call for a text that starts with a printable ASCII character
/// (most of them): such a character is no whitespace, so the text is not blank.
#[inline(always)]
fn is_blank(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(&b) if (0x21..0x7f).contains(&b) => false,
        _ => py_is_blank(text),
    }
}

/// Whether a tolerance is null, NaN, infinite or negative (not `x.is_finite() && x >= 0.0`),
/// from its bits: the finite values of sign 0 are exactly the bit patterns below +inf's (every
/// NaN of sign 0 and +inf are at or above it, and every value of sign 1 far above), and the
/// one finite value of sign 1 that is `>= 0.0` is -0. Two integer comparisons, where the
/// floating-point tests became two dozen instructions of class tests.
#[inline(always)]
fn bad_tolerance(t: Option<f64>) -> bool {
    const INF: u64 = 0x7FF0_0000_0000_0000;
    const MINUS_ZERO: u64 = 0x8000_0000_0000_0000;
    !matches!(t.map(f64::to_bits), Some(b) if b < INF || b == MINUS_ZERO)
}

fn clip(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// The slots of [`Powers`] (a power of two). 2,048 (48 KiB) keep most of a batch's character
/// ratios and power means of short rows, which 256 did not: `pow` ran 0.6 times a row, 0.13
/// with these (50,000 short rows of `bench_row_cost.py`).
const POWER_SLOTS: usize = 2048;

/// A direct-mapped cache of `x.powf(p)` for a batch: the power mean calls `pow` up to five
/// times a row (about 150 instructions each), and most of its arguments come back (ratios of
/// small token and number counts). `pow` is a pure function, so a value found is the value the
/// call would give, bit for bit.
struct Powers {
    /// Per slot: the bits of `x` and of `p`, and `x.powf(p)`; a slot is empty while its `p`
    /// bits are [`Powers::EMPTY`], the bits of no `p` it is asked for (a NaN is looked up
    /// without the cache).
    slots: Box<[(u64, u64, f64); POWER_SLOTS]>,
}

impl Powers {
    const EMPTY: u64 = u64::MAX;

    /// `x.powf(p)`, from the cache when it holds it.
    #[inline]
    fn pow(&mut self, x: f64, p: f64) -> f64 {
        if p.is_nan() {
            return x.powf(p);
        }
        let (xb, pb) = (x.to_bits(), p.to_bits());
        let slot = ((xb ^ pb.rotate_left(29)).wrapping_mul(token_set::K)
            >> (64 - POWER_SLOTS.trailing_zeros())) as usize;
        match self.slots.get_mut(slot % POWER_SLOTS) {
            Some(entry) if entry.0 == xb && entry.1 == pb => entry.2,
            Some(entry) => {
                let y = x.powf(p);
                *entry = (xb, pb, y);
                y
            }
            None => x.powf(p),
        }
    }
}

impl Default for Powers {
    fn default() -> Self {
        Powers {
            slots: Box::new([(0, Powers::EMPTY, 0.0); POWER_SLOTS]),
        }
    }
}

/// `x.powf(p)` for `x` in [0, 1], from `powers`. The values 0 and 1 (about half of the
/// components) are found there too, once computed: IEEE 754's `pow(1, p)` is 1 and
/// `pow(0, p)` is 0 for `p > 0`, and a test for them was a branch that followed the data.
#[inline]
fn power(x: f64, p: f64, powers: &mut Powers) -> f64 {
    powers.pow(x, p)
}

/// Collects the tokens of a text as the normaliser writes them (its body inlined where the
/// writer finds a token: a closure's was one call per token); the token set takes them
/// afterwards ([`TokenSet::add_pending`]).
struct Collect<'a> {
    pending: &'a mut Pending,
}

impl normalize::TokenSink for Collect<'_> {
    #[inline(always)]
    fn token(&mut self, out: &[u8], start: usize, end: usize) {
        self.pending.push(out, start, end);
    }

    #[inline(always)]
    fn short_token(&mut self, _: &[u8], id: u64, start: usize, _end: usize) {
        self.pending.push_short(id, start);
    }
}

/// [`score_pair`], the response's numbers read in full whatever the reference holds, for
/// [`details`], which lists them.
pub fn score_pair_for_details(
    t: &Tables,
    o: &Options,
    response: Option<&str>,
    reference: Option<&str>,
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
    s: &mut Scratch,
) -> Scored {
    s.all_numbers = true;
    let scored = score_pair(t, o, response, reference, tol_abs, tol_rel, s);
    s.all_numbers = false;
    scored
}

/// Score one pair, guards included.
pub fn score_pair(
    t: &Tables,
    o: &Options,
    response: Option<&str>,
    reference: Option<&str>,
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
    s: &mut Scratch,
) -> Scored {
    s.actual_ready = false;
    score_pair_body(t, o, response, reference, tol_abs, tol_rel, s)
}

/// [`score_pair`] of the response of the pair `s` scored last (with [`score_pair`] or this
/// function) against another reference: the same result, but the response's normalisation,
/// token set and numbers are taken from that pair's instead of being found again (a row of
/// several references reads its response once). `response` must be that pair's response.
pub fn score_pair_same_response(
    t: &Tables,
    o: &Options,
    response: Option<&str>,
    reference: Option<&str>,
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
    s: &mut Scratch,
) -> Scored {
    score_pair_body(t, o, response, reference, tol_abs, tol_rel, s)
}

/// [`score_pair`]'s body: the response's work is skipped when `s.actual_ready`.
#[inline(always)]
fn score_pair_body(
    t: &Tables,
    o: &Options,
    response: Option<&str>,
    reference: Option<&str>,
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
    s: &mut Scratch,
) -> Scored {
    let blank_actual = response.is_none_or(is_blank);
    let path = if bad_tolerance(tol_abs) || bad_tolerance(tol_rel) {
        Path::InvalidTolerance
    } else if o.zero_missing {
        if blank_actual {
            Path::EmptyActualGuard
        } else if reference.is_none_or(str::is_empty) {
            Path::NoExpected
        } else {
            Path::Scored
        }
    } else if reference.is_none_or(is_blank) {
        Path::NoExpected
    } else if blank_actual {
        Path::EmptyActualGuard
    } else {
        Path::Scored
    };
    let (Path::Scored, Some(actual), Some(expected), Some(ta), Some(tr)) =
        (path, response, reference, tol_abs, tol_rel)
    else {
        let score = match path {
            Path::EmptyActualGuard => Some(0.0),
            Path::NoExpected if o.zero_missing => Some(0.0),
            _ => None,
        };
        return Scored {
            path,
            score,
            components: None,
        };
    };
    // Each text normalised, its token set (stopwords left out) built as it is written.
    let stopwords = &o.stopwords;
    if !s.actual_ready {
        s.a_set.clear();
        s.a_set.keep_stopwords(stopwords);
        s.pending.clear();
        let a_tokens = Collect {
            pending: &mut s.pending,
        };
        s.a_ascii = normalize::normalize_tokens(t, actual, &mut s.norm, &mut s.a_norm, a_tokens);
        s.a_set
            .add_pending(s.a_norm.as_bytes(), &s.pending, stopwords);
        s.a_has_number = None;
        s.a_num_read = false;
        s.actual_ready = true;
    }
    let a_ascii = s.a_ascii;
    s.e_set.clear();
    s.e_set.keep_stopwords(stopwords);
    s.pending.clear();
    let e_tokens = Collect {
        pending: &mut s.pending,
    };
    let e_ascii = normalize::normalize_tokens(t, expected, &mut s.norm, &mut s.e_norm, e_tokens);
    // The intersection, counted as the reference's tokens are added.
    let inter = s.e_set.add_pending_shared(
        s.e_norm.as_bytes(),
        &s.pending,
        stopwords,
        &s.a_set,
        s.a_norm.as_bytes(),
    );
    let (a_n, e_n) = (s.a_set.len(), s.e_set.len());
    let contains = if a_n == 0 && e_n == 0 {
        1.0
    } else if a_n == 0 || e_n == 0 {
        0.0
    } else {
        inter as f64 / a_n.min(e_n) as f64
    };
    let token_precision = if a_n == 0 {
        f64::from(u8::from(e_n == 0))
    } else {
        inter as f64 / a_n as f64
    };
    let token_recall = if e_n == 0 {
        f64::from(u8::from(a_n == 0))
    } else {
        inter as f64 / e_n as f64
    };
    let char_ratio = if o.indel {
        // The normalised text of an ASCII text is ASCII: the Indel need not test them again.
        char_ratio::indel_known_ascii(
            &s.a_norm,
            &s.e_norm,
            a_ascii && e_ascii,
            &mut s.ratio,
            o.max_work,
        )
    } else {
        char_ratio::sequence_matcher(&s.a_norm, &s.e_norm, &mut s.ratio, o.max_work)
    };
    let Some(char_ratio) = char_ratio else {
        return Scored {
            path: Path::TooLong,
            score: None,
            components: None,
        };
    };
    s.e_num.clear();
    numbers::numbers_with(t, expected, e_ascii, &mut s.digits, &mut s.e_num);
    // A reference with no number makes the numeric agreement whether the response has none:
    // the response's numbers are then not read, only looked for, up to the first digit. Either
    // is kept for the response's other references.
    let only_looked_for = s.e_num.is_empty() && !s.all_numbers;
    let a_has_number = if only_looked_for {
        match s.a_has_number {
            Some(has) => has,
            None => {
                let has = numbers::has_number(t, actual, a_ascii);
                s.a_has_number = Some(has);
                has
            }
        }
    } else {
        if !s.a_num_read {
            s.a_num.clear();
            numbers::numbers_with(t, actual, a_ascii, &mut s.digits, &mut s.a_num);
            s.a_num_read = true;
        }
        !s.a_num.is_empty()
    };
    // The response's numbers as a pair scored alone sees them: none when only looked for.
    let a_num: &[f64] = if only_looked_for { &[] } else { &s.a_num };
    numbers::greedy_match(a_num, &s.e_num, &mut s.matcher, &mut s.chosen, &mut s.error);
    s.within.clear();
    let mut matched = 0usize;
    for (k, &e) in s.e_num.iter().enumerate() {
        let ok = s.chosen[k].is_some() && {
            let err = s.error[k];
            err <= ta || err / (e.abs() + 1e-12) <= tr
        };
        matched += usize::from(ok);
        s.within.push(ok);
    }
    let numeric = if s.e_num.is_empty() {
        f64::from(u8::from(!a_has_number))
    } else {
        matched as f64 / s.e_num.len() as f64
    };
    let mut c = Components {
        exact: f64::from(u8::from(actual == expected)),
        normalized: f64::from(u8::from(s.a_norm == s.e_norm)),
        contains,
        char_ratio,
        token_precision,
        token_recall,
        numeric,
        penalty: 0.0,
        score: 0.0,
    };
    // weights normalised by their sum (once, in `o.mean`), terms added in order, clamped.
    let p = o.power_p;
    let mut acc = 0.0;
    // The values by `Comp` discriminant: one load per weight (a `match` here was one indirect
    // jump per weight, to a different target each time, nearly always mispredicted).
    let values = c.by_comp();
    for &(comp, w) in &o.mean.scaled {
        let value = values.get(comp as usize).copied().unwrap_or(0.0);
        acc += w * power(clip(value), p, &mut s.powers);
    }
    let base = clip(s.powers.pow(acc, o.mean.inverse_p));
    let extra = a_n - inter;
    c.penalty = if extra >= 5 && token_precision < 0.7 {
        0.05
    } else {
        0.0
    };
    c.score = clip(base * (1.0 - c.penalty));
    Scored {
        path,
        score: Some(c.score),
        components: Some(c),
    }
}

/// Append `repr(term)` as it appears inside a printed list (tokens hold no quote nor
/// backslash, so only the characters Python does not print are escaped).
fn push_repr(t: &Tables, term: &str, out: &mut String) {
    out.push('\'');
    for c in term.chars() {
        if t.is_printable(c) {
            out.push(c);
            continue;
        }
        let cp = c as u32;
        let _ = match c {
            '\t' => write!(out, "\\t"),
            '\n' => write!(out, "\\n"),
            '\r' => write!(out, "\\r"),
            _ if cp < 0x100 => write!(out, "\\x{cp:02x}"),
            _ if cp < 0x10000 => write!(out, "\\u{cp:04x}"),
            _ => write!(out, "\\U{cp:08x}"),
        };
    }
    out.push('\'');
}

fn push_terms(t: &Tables, label: &str, terms: &[&str], out: &mut String) {
    out.push_str(label);
    if terms.is_empty() {
        out.push_str(": none.");
        return;
    }
    out.push_str(": [");
    for (i, term) in terms.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_repr(t, term, out);
    }
    out.push(']');
}

/// One numeric mismatch: (expected, actual, rel_err).
pub type Mismatch = (Option<f64>, Option<f64>, Option<f64>);

/// The details of the pair [`score_pair_for_details`] scored last (its `Scored` must be `scored`):
/// the missing and extra terms (sorted), the numeric mismatches and the reason text.
#[allow(clippy::too_many_arguments)]
pub fn details<'s>(
    t: &Tables,
    o: &Options,
    c: &Components,
    s: &'s Scratch,
    missing: &mut Vec<&'s str>,
    extra: &mut Vec<&'s str>,
    mismatches: &mut Vec<Mismatch>,
    reason: &mut String,
) {
    missing.clear();
    extra.clear();
    mismatches.clear();
    reason.clear();
    let mut a_set: Vec<&str> = s.a_set.tokens(&s.a_norm).collect();
    let mut e_set: Vec<&str> = s.e_set.tokens(&s.e_norm).collect();
    a_set.sort_unstable();
    e_set.sort_unstable();
    missing.extend(e_set.iter().filter(|x| a_set.binary_search(x).is_err()));
    extra.extend(a_set.iter().filter(|x| e_set.binary_search(x).is_err()));
    if s.e_num.is_empty() {
        mismatches.extend(s.a_num.iter().map(|&a| (None, Some(a), None)));
    } else {
        for (k, &e) in s.e_num.iter().enumerate() {
            if s.within[k] {
                continue;
            }
            match s.chosen[k] {
                Some(i) => {
                    let rel = s.error[k] / (e.abs() + 1e-12);
                    mismatches.push((Some(e), s.a_num.get(i).copied(), Some(rel)));
                }
                None => mismatches.push((Some(e), None, None)),
            }
        }
    }
    if c.exact == 1.0 {
        reason.push_str("exact match");
    } else if c.normalized == 1.0 {
        reason.push_str("normalized match");
    } else {
        let _ = write!(
            reason,
            "char similarity {:.2}, token precision {:.2}",
            c.char_ratio, c.token_precision
        );
    }
    if !s.a_num.is_empty() || !s.e_num.is_empty() {
        let _ = write!(reason, ", numeric agreement {:.2}", c.numeric);
    }
    if c.contains == 1.0 {
        reason.push_str(", full containment");
    } else if c.contains > 0.0 {
        let _ = write!(reason, ", containment {:.2}", c.contains);
    }
    if c.penalty > 0.0 {
        reason.push_str(", penalized for many extra tokens");
    }
    let _ = write!(reason, ", power-mean aggregation (p={:.2}); ", o.power_p);
    push_terms(t, "Missing terms", missing, reason);
    reason.push(' ');
    push_terms(t, "Extra terms", extra, reason);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyunicode::test_tables;

    fn options(indel: bool) -> Options {
        let words = [
            "the", "a", "an", "and", "or", "but", "if", "then", "else", "to", "of", "in", "on",
            "for", "with", "as", "by", "at", "from", "that", "this", "it", "is", "are", "was",
            "were",
        ];
        Options::new(
            indel,
            true,
            0.3,
            vec![
                (Comp::Contains, 0.48),
                (Comp::CharRatio, 0.32),
                (Comp::TokenPrecision, 0.15),
                (Comp::Numeric, 0.35),
            ],
            stopword_table(words),
            None,
        )
    }

    #[test]
    fn normalised_ascii_texts_are_ascii_and_their_indel_the_tested_one() {
        // score_pair tells the Indel that both normalised texts are ASCII when both texts are:
        // whenever normalize_tokens says a text is ASCII, its normalised text must be, and the
        // Indel told so must be the Indel that tests them, bit for bit.
        let t = test_tables::install();
        let mut next = crate::testing::lcg(43);
        let pieces = [
            "Paris",
            "the",
            " ",
            "  ",
            "\t",
            "\n",
            ".",
            ",",
            "[link](http://x.io)",
            "http://a.b/c",
            ":",
            "A",
            "ς",
            "Σ",
            "é",
            "ﬁ",
            "Ⅻ",
            "\u{a0}",
            "\u{3000}",
            "7",
            "3.5",
            "-",
            "ABC",
        ];
        let mut ns = normalize::NormScratch::default();
        let mut ratio = char_ratio::RatioScratch::default();
        let mut pending = Pending::default();
        let (mut a_norm, mut e_norm) = (String::new(), String::new());
        for round in 0..20_000 {
            let text = |next: &mut dyn FnMut() -> usize, ascii_only: bool| {
                let n = next() % 12;
                let mut out = String::new();
                while out.len() < n * 4 {
                    let p = pieces[next() % pieces.len()];
                    if !ascii_only || p.is_ascii() {
                        out.push_str(p);
                    }
                }
                out
            };
            let a = text(&mut next, round % 3 != 0);
            let e = text(&mut next, round % 5 != 0);
            pending.clear();
            let a_ascii = normalize::normalize_tokens(
                t,
                &a,
                &mut ns,
                &mut a_norm,
                Collect {
                    pending: &mut pending,
                },
            );
            pending.clear();
            let e_ascii = normalize::normalize_tokens(
                t,
                &e,
                &mut ns,
                &mut e_norm,
                Collect {
                    pending: &mut pending,
                },
            );
            assert_eq!(a_ascii, a.is_ascii(), "{a:?}");
            assert!(!a_ascii || a_norm.is_ascii(), "{a:?} -> {a_norm:?}");
            assert!(!e_ascii || e_norm.is_ascii(), "{e:?} -> {e_norm:?}");
            let told = char_ratio::indel_known_ascii(
                &a_norm,
                &e_norm,
                a_ascii && e_ascii,
                &mut ratio,
                None,
            );
            let tested = char_ratio::indel(&a_norm, &e_norm, &mut ratio, None);
            assert_eq!(
                told.map(f64::to_bits),
                tested.map(f64::to_bits),
                "{a:?} {e:?}"
            );
        }
    }

    #[test]
    fn a_response_read_once_scores_each_reference_as_alone() {
        // score_pair_same_response keeps the response's normalisation, token set and numbers
        // from the row's previous pair: every reference must score as it does alone, whichever
        // came before it (with numbers or without, blank, null, with a guard's early return),
        // under both missing_expected settings and both character ratios.
        let t = test_tables::install();
        let mut next = crate::testing::lcg(97);
        let pieces = [
            "Paris",
            "the",
            " ",
            "\t",
            ".",
            ",",
            "7",
            "3.5",
            "1,000",
            "-2",
            "Σ",
            "é",
            "ﬁ",
            "Ⅻ",
            "٣",
            "[link](http://x.io)",
            "ABC",
            "and",
            "\u{a0}",
            "x",
        ];
        let text = |next: &mut dyn FnMut() -> usize| {
            let n = next() % 8;
            let mut out = String::new();
            for _ in 0..n {
                out.push_str(pieces[next() % pieces.len()]);
            }
            out
        };
        let mut zero = options(true);
        zero.zero_missing = false;
        let all = [options(true), options(false), zero];
        let (mut row, mut alone) = (Scratch::default(), Scratch::default());
        for round in 0..6_000 {
            let o = &all[round % all.len()];
            let response = (round % 13 != 0).then(|| text(&mut next));
            let references: Vec<Option<String>> = (0..1 + next() % 4)
                .map(|_| (!next().is_multiple_of(9)).then(|| text(&mut next)))
                .collect();
            let (ta, tr) = if round % 17 == 0 {
                (None, Some(0.0))
            } else {
                (Some(0.0), Some(1e-6))
            };
            let resp = response.as_deref();
            for (j, reference) in references.iter().enumerate() {
                let reference = reference.as_deref();
                let got = if j == 0 {
                    score_pair(t, o, resp, reference, ta, tr, &mut row)
                } else {
                    score_pair_same_response(t, o, resp, reference, ta, tr, &mut row)
                };
                let want = score_pair(t, o, resp, reference, ta, tr, &mut alone);
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "{resp:?} against {reference:?} after {:?}",
                    &references[..j]
                );
            }
        }
    }

    #[test]
    fn cached_powers_are_the_powers() {
        // Values that come back (ratios of small counts), values that collide in the slots,
        // other exponents and the special values: each bit for bit `powf`.
        let mut powers = Powers::default();
        let mut next = crate::testing::lcg(29);
        let specials = [0.0, -0.0, 1.0, 0.5, f64::NAN, f64::INFINITY, 1e-300, 2.0];
        for round in 0..20_000 {
            let x = match next() % 4 {
                0 => (next() % 50) as f64 / (1 + next() % 50) as f64,
                1 => specials[next() % specials.len()],
                _ => (next() % 1_000_000) as f64 / 999_983.0,
            };
            let p = [0.3, 1.0 / 0.3, 2.0, -1.5, 0.0, f64::NAN][round % 6];
            let (got, want) = (powers.pow(x, p), x.powf(p));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{x} {p}"
            );
        }
    }

    #[test]
    fn bad_tolerances_are_those_not_finite_and_at_least_zero() {
        let mut next = crate::testing::lcg(31);
        let specials = [
            0.0,
            -0.0,
            1e-320,
            -1e-320,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7FF0_0000_0000_0001),
            f64::from_bits(0xFFF8_0000_0000_0001),
            0.5,
            -0.5,
        ];
        let random = (0..20_000)
            .map(|_| f64::from_bits((next() as u64) << 33 ^ (next() as u64) << 11 ^ next() as u64));
        for x in specials.into_iter().chain(random) {
            let want = !(x.is_finite() && x >= 0.0);
            assert_eq!(bad_tolerance(Some(x)), want, "{x:e} {:#x}", x.to_bits());
        }
        assert!(bad_tolerance(None));
    }

    #[test]
    fn components_by_comp_are_their_fields() {
        let c = Components {
            exact: 1.0,
            normalized: 2.0,
            contains: 3.0,
            char_ratio: 4.0,
            token_precision: 5.0,
            token_recall: 6.0,
            numeric: 7.0,
            penalty: 8.0,
            score: 9.0,
        };
        let v = c.by_comp();
        for (name, want) in [
            ("exact", 1.0),
            ("normalized", 2.0),
            ("contains", 3.0),
            ("char_ratio", 4.0),
            ("token_precision", 5.0),
            ("token_recall", 6.0),
            ("numeric", 7.0),
        ] {
            let comp = Comp::from_name(name).unwrap();
            assert_eq!(v[comp as usize], want, "{name}");
        }
    }

    #[test]
    fn docstring_example() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let o = options(false);
        let r = score_pair(
            t,
            &o,
            Some("The answer is 42."),
            Some("42"),
            Some(0.0),
            Some(0.0),
            &mut s,
        );
        let c = r.components.unwrap();
        assert_eq!((c.contains, c.token_precision, c.numeric), (1.0, 0.5, 1.0));
        assert_eq!((c.score * 1e4).round() / 1e4, 0.6691);
        let r = score_pair(t, &o, Some(" "), Some("42"), Some(0.0), Some(0.0), &mut s);
        assert_eq!((r.path, r.score), (Path::EmptyActualGuard, Some(0.0)));
        let r = score_pair(t, &o, Some("x"), Some("42"), None, Some(0.0), &mut s);
        assert_eq!((r.path, r.score), (Path::InvalidTolerance, None));
    }

    #[test]
    fn reason_text() {
        let t = test_tables::install();
        let mut s = Scratch::default();
        let mut o = options(true);
        o.zero_missing = false;
        let r = score_pair_for_details(
            t,
            &o,
            Some("Paris has 2 million people"),
            Some("Paris, 3 million"),
            Some(0.0),
            Some(0.0),
            &mut s,
        );
        let c = r.components.unwrap();
        let (mut m, mut e, mut mm, mut reason) = (vec![], vec![], vec![], String::new());
        details(t, &o, &c, &s, &mut m, &mut e, &mut mm, &mut reason);
        assert_eq!(
            reason,
            "char similarity 0.67, token precision 0.40, numeric agreement 0.00, containment \
             0.67, power-mean aggregation (p=0.30); Missing terms: ['3'] Extra terms: ['2', \
             'has', 'people']"
        );
        assert_eq!(mm.len(), 1);
    }
    #[test]
    fn the_details_list_the_numbers_score_pair_only_looks_for() {
        // With no number in the reference, score_pair only asks whether the response has one;
        // score_pair_for_details reads them all for the details, and both score alike.
        let t = test_tables::install();
        let mut s = Scratch::default();
        let o = options(true);
        let cases: [(&str, &str, f64, &[f64]); 4] = [
            ("Paris has 2 million, 3.5 too", "Paris", 0.0, &[2.0, 3.5]),
            ("no digits here", "Paris", 1.0, &[]),
            ("\u{663} apples", "apples", 0.0, &[3.0]),
            ("about 7 of them", "7", 1.0, &[]),
        ];
        for (response, reference, numeric, listed) in cases {
            let score = |s: &mut Scratch, full: bool| {
                let f = if full {
                    score_pair_for_details
                } else {
                    score_pair
                };
                f(
                    t,
                    &o,
                    Some(response),
                    Some(reference),
                    Some(0.0),
                    Some(0.0),
                    s,
                )
            };
            let fast = score(&mut s, false);
            let full = score(&mut s, true);
            assert_eq!(fast, full, "{response:?}");
            let c = full.components.unwrap();
            assert_eq!(c.numeric, numeric, "{response:?}");
            let (mut m, mut e, mut mm, mut reason) = (vec![], vec![], vec![], String::new());
            details(t, &o, &c, &s, &mut m, &mut e, &mut mm, &mut reason);
            let extra: Vec<f64> = mm.iter().filter_map(|&(_, a, _)| a).collect();
            assert_eq!(extra, listed, "{response:?}");
            // The reason names the numeric agreement when either text has a number.
            let numbers_in_reference = reference.chars().any(|c| c.is_ascii_digit());
            assert_eq!(
                reason.contains("numeric agreement"),
                numbers_in_reference || !listed.is_empty(),
                "{response:?}"
            );
        }
    }
}
