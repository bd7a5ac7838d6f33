//! The final numeric answer a response commits to, in one forward pass over its bytes.
//!
//! Forms, in order of preference (within a form, the last one in the text counts):
//!
//! 1. `boxed`: the last `\boxed{...}` (or `\fbox{...}`) holding a number: the first number after
//!    the box's last `=`, else its first number (`\boxed{x = 5}` is 5, `\boxed{12 \text{ apples}}`
//!    is 12). Numbers after the final box are not the answer.
//! 2. `json_answer`: an `"answer":` field holding a number (`{"answer": 12}`, `"answer": "12"`).
//! 3. `hash_line`: `#### N`.
//! 4. `answer_is`: `answer is N`, `answer would be N`, `answer = N` (the first number of the
//!    same sentence, within 80 bytes: "The answer is 6 packages", "The answer is $1,200.").
//! 5. `answer_line`: `A: N` at a line's start, or `Answer: N`.
//! 6. `last_number`: the last number of the text.
//!
//! Once a statement (forms 1 to 5) has been read, a line starting `Question:` or `Q:` ends the
//! response: what follows is the model writing the next few-shot question itself.
//!
//! A number is `-?$?` digits with optional thousands groups (`1,234`, `1{,}234`), an optional
//! decimal part, and optionally `/` digits (a fraction `3/4`); `\frac{p}{q}` (also `\dfrac`,
//! `\tfrac`) is a fraction. A `-` (or U+2212) is its sign when no digit, letter, `)` or `}` comes
//! right before it (`10-5` is 5, `= -5` is -5). The canonical text drops thousands separators,
//! currency signs, the percent sign and units, and leading and trailing zeros: `"-1234.5"`,
//! `"12"`, `"0.75"`. A fraction is written as a decimal when that is exact (`3/4` is `"0.75"`,
//! `6/3` is `"2"`), else as the reduced `"p/q"` (`"1/3"`, `"-2/3"`).
//!
//! Every trigger looks ahead a bounded number of bytes, and every number is read once from its
//! start, so the pass is linear in the text's length.

use super::scan::{folded, next_start, question_begins, Starts};
use crate::ascii::in_range;

/// Which form a final number was read from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum NumberForm {
    LastNumber,
    AnswerLine,
    AnswerIs,
    HashLine,
    JsonAnswer,
    Boxed,
}

impl NumberForm {
    pub fn name(self) -> &'static str {
        match self {
            NumberForm::Boxed => "boxed",
            NumberForm::JsonAnswer => "json_answer",
            NumberForm::HashLine => "hash_line",
            NumberForm::AnswerIs => "answer_is",
            NumberForm::AnswerLine => "answer_line",
            NumberForm::LastNumber => "last_number",
        }
    }
}

/// A number read from the text: byte ranges of its parts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Num {
    /// Whether a minus sign leads it.
    pub negative: bool,
    /// The integer part (may hold `,` or `{,}` group separators).
    pub int: (usize, usize),
    /// The decimal digits after `.`, if any (empty range when none).
    pub frac: (usize, usize),
    /// The denominator's digits of a fraction, if any.
    pub den: Option<(usize, usize)>,
}

/// The longest run of ASCII digits from `at`.
#[inline]
fn digits(b: &[u8], at: usize) -> usize {
    b.get(at..)
        .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
}

/// Whether the bytes at `at` are exactly three digits not followed by a fourth.
#[inline]
fn group_of_three(b: &[u8], at: usize) -> bool {
    digits(b, at) == 3
}

/// The sign before a number starting at `at` (its first digit, `$` or `\frac`): whether a minus
/// stands right before it (past one `$`) and nothing number-like stands before the minus.
fn negative_before(b: &[u8], at: usize) -> bool {
    let mut i = at;
    if i > 0 && b[i - 1] == b'$' {
        i -= 1;
    }
    let minus_len = if i >= 1 && b[i - 1] == b'-' {
        1
    } else if i >= 3 && &b[i - 3..i] == "\u{2212}".as_bytes() {
        3
    } else {
        return false;
    };
    let before = i - minus_len;
    before == 0 || !(b[before - 1].is_ascii_alphanumeric() || matches!(b[before - 1], b')' | b'}'))
}

/// Read a number whose first digit is at `at` (the caller knows no digit is right before it).
/// Returns the number and the end of the bytes it covers.
pub fn read_number(b: &[u8], at: usize) -> Option<(Num, usize)> {
    let lead = digits(b, at);
    if lead == 0 {
        return None;
    }
    let mut end = at + lead;
    let mut grouped = false;
    if lead <= 3 {
        loop {
            if b.get(end) == Some(&b',') && group_of_three(b, end + 1) {
                end += 4;
                grouped = true;
            } else if b.get(end..end + 3) == Some(b"{,}") && group_of_three(b, end + 3) {
                end += 6;
                grouped = true;
            } else {
                break;
            }
        }
    }
    let int = (at, end);
    let mut frac = (end, end);
    if b.get(end) == Some(&b'.') {
        let d = digits(b, end + 1);
        if d > 0 {
            frac = (end + 1, end + 1 + d);
            end += 1 + d;
        }
    }
    let mut den = None;
    // A number right after `digits/` is a date's or a fraction's part, never a numerator.
    let after_slash = at >= 2 && b[at - 1] == b'/' && b[at - 2].is_ascii_digit();
    if !grouped && !after_slash && frac.0 == frac.1 && b.get(end) == Some(&b'/') {
        let d = digits(b, end + 1);
        // `12/25/2023` is a date, not a fraction.
        let date = b.get(end + 1 + d) == Some(&b'/') && digits(b, end + 2 + d) > 0;
        if d > 0 && !date {
            den = Some((end + 1, end + 1 + d));
            end += 1 + d;
        }
    }
    let negative = negative_before(b, at);
    Some((
        Num {
            negative,
            int,
            frac,
            den,
        },
        end,
    ))
}

/// `\frac{p}{q}` (or `\dfrac`, `\tfrac`) at `at` (its backslash), with integer `p` and `q`.
fn read_latex_fraction(b: &[u8], at: usize) -> Option<(Num, usize)> {
    let rest = b.get(at..)?;
    let skip = [&b"\\frac{"[..], b"\\dfrac{", b"\\tfrac{"]
        .iter()
        .find(|p| rest.starts_with(p))?
        .len();
    let p = at + skip;
    let pd = digits(b, p);
    if pd == 0 || b.get(p + pd..p + pd + 2) != Some(b"}{") {
        return None;
    }
    let q = p + pd + 2;
    let qd = digits(b, q);
    if qd == 0 || b.get(q + qd) != Some(&b'}') {
        return None;
    }
    Some((
        Num {
            negative: negative_before(b, at),
            int: (p, p + pd),
            frac: (p + pd, p + pd),
            den: Some((q, q + qd)),
        },
        q + qd + 1,
    ))
}

/// The number starting at `at`: a digit with no digit before it, `.5`, or `\frac{p}{q}`.
#[inline]
fn number_at(b: &[u8], at: usize) -> Option<(Num, usize)> {
    match b[at] {
        b'0'..=b'9' if at == 0 || !b[at - 1].is_ascii_digit() => read_number(b, at),
        b'.' if (at == 0 || !b[at - 1].is_ascii_digit())
            && b.get(at + 1).is_some_and(u8::is_ascii_digit) =>
        {
            let d = digits(b, at + 1);
            Some((
                Num {
                    negative: negative_before(b, at),
                    int: (at, at),
                    frac: (at + 1, at + 1 + d),
                    den: None,
                },
                at + 1 + d,
            ))
        }
        b'\\' => read_latex_fraction(b, at),
        _ => None,
    }
}

/// The verbs that join a statement's words to its answer.
const VERBS: [&[u8]; 5] = [b"is", b"would be", b"will be", b"should be", b"="];

/// ASCII case-insensitive `word` at `at`, starting a word (no letter right before it).
#[inline]
fn word_at(b: &[u8], at: usize, word: &[u8]) -> bool {
    b.get(at..at + word.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(word))
        && (at == 0 || !b[at - 1].is_ascii_alphabetic())
}

/// Bytes a statement may have between its words and its number: spaces, `:`, `*`, `$`, `\(`.
#[inline]
fn filler(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b'\r' | b':' | b'*' | b'$' | b'\\' | b'(' | b'"' | b'_'
    )
}

/// The start of the first number at or after `at`, past filler only, within `limit` bytes
/// (`number_at` reads it there).
fn number_after_filler(b: &[u8], at: usize, limit: usize) -> Option<usize> {
    let mut i = at;
    let end = b.len().min(at + limit);
    while i < end {
        if number_at(b, i).is_some() {
            return Some(i);
        }
        // A sign is read with the number that follows it.
        if b[i] == b'-' {
            i += 1;
            continue;
        }
        if b[i..].starts_with("\u{2212}".as_bytes()) {
            i += 3;
            continue;
        }
        if !filler(b[i]) {
            return None;
        }
        i += 1;
    }
    None
}

/// The start of the first number of the sentence from `at`, within `limit` bytes (a `.`
/// followed by a space or line end, or a newline, ends the sentence).
fn number_in_sentence(b: &[u8], at: usize, limit: usize) -> Option<usize> {
    let end = b.len().min(at + limit);
    let mut i = at;
    while i < end {
        if number_at(b, i).is_some() {
            return Some(i);
        }
        match b[i] {
            b'\n' if i > at && b[at..i].iter().any(|c| !c.is_ascii_whitespace()) => return None,
            b'.' if b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()) => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The numbers of the sentence being read, outside parentheses (each by its start).
#[derive(Default)]
struct Sentence {
    depth: usize,
    first: Option<usize>,
    after_eq: Option<usize>,
    saw_eq: bool,
}

impl Sentence {
    fn number(&mut self, num: usize) {
        if self.depth > 0 {
            return;
        }
        if self.first.is_none() {
            self.first = Some(num);
        }
        if self.saw_eq && self.after_eq.is_none() {
            self.after_eq = Some(num);
        }
    }

    fn equals(&mut self) {
        if self.depth == 0 {
            self.saw_eq = true;
            self.after_eq = None;
        }
    }

    /// End the sentence: its result, if it has a number, becomes the last result.
    fn end(&mut self, result: &mut Option<usize>) {
        if let Some(num) = self.after_eq.or(self.first) {
            *result = Some(num);
        }
        *self = Sentence::default();
    }
}

/// The bytes a rule of the main loop may start at, for [`next_start`]: digits, a newline and
/// `.\\()=!?{}"#` anywhere (in ranges of neighbouring bytes that also hold `/`, `>` and `|`,
/// which start nothing), and after no letter an `a` or `A` followed by `n` or `N` (`answer`) or
/// by `:` (`A:`).
struct NumberStarts;

impl Starts for NumberStarts {
    #[inline(always)]
    fn marks(low: u64) -> u64 {
        in_range(low, b'\n', b'\n')
            | in_range(low, b'!', b'#')
            | in_range(low, b'(', b')')
            | in_range(low, b'.', b'9')
            | in_range(low, b'=', b'?')
            | in_range(low, b'\\', b'\\')
            | in_range(low, b'{', b'}')
    }

    #[inline(always)]
    fn letters(low: u64, next: u64) -> u64 {
        folded(low, b'a', b'a') & (folded(next, b'n', b'n') | in_range(next, b':', b':'))
    }

    #[inline(always)]
    fn word(low: u64) -> u64 {
        folded(low, b'a', b'z')
    }
}

/// The final number of `text` and the form it was read from.
///
/// The pass keeps the numbers it may answer with by their start (a `usize`, not a `Num`: GSM8K
/// solutions hold a number every few bytes), and reads the answer's parts once at the end.
pub fn final_number(text: &str) -> Option<(Num, NumberForm)> {
    let b = text.as_bytes();
    let (at, form) = final_number_at(b)?;
    number_at(b, at).map(|(num, _)| (num, form))
}

/// The start of the final number of `b` (where `number_at` reads it) and its form.
fn final_number_at(b: &[u8]) -> Option<(usize, NumberForm)> {
    let n = b.len();
    // The best statement so far (a later one of the same or a preferred form replaces it).
    let mut best: Option<(usize, NumberForm)> = None;
    let mut last: Option<usize> = None;
    // The last result, read sentence by sentence outside parentheses: a sentence's first number
    // after its last `=`, else its first number ("So each team has 24 / 8 = 3 people.", "It
    // will take 30 more minutes for the 6 paintings."); `(16 x 13)` after a result is working.
    let mut sentence = Sentence::default();
    let mut result: Option<usize> = None;
    let offer = |best: &mut Option<(usize, NumberForm)>, num: usize, form: NumberForm| {
        if best.is_none_or(|(_, f)| form >= f) {
            *best = Some((num, form));
        }
    };
    // An open box: its brace depth, its first number, and its first number after its last `=`.
    let mut box_depth = 0usize;
    let mut box_first: Option<usize> = None;
    let mut box_after_eq: Option<usize> = None;
    let mut box_saw_eq = false;
    let mut line_start = true;
    let mut i = 0;
    while i < n {
        // Most bytes start no rule: a letter inside a word, or a byte no trigger begins with.
        if !line_start {
            i = next_start::<NumberStarts>(b, i);
            if i == n {
                break;
            }
        }
        if line_start && best.is_some() && question_begins(b, i, true) {
            break;
        }
        let c = b[i];
        line_start = c == b'\n';
        // Only these bytes start a number: the other marks skip the call (and its result's
        // copy through memory).
        let number = if matches!(c, b'0'..=b'9' | b'.' | b'\\') {
            number_at(b, i)
        } else {
            None
        };
        if let Some((_, end)) = number {
            let num = i;
            last = Some(num);
            sentence.number(num);
            if box_depth > 0 {
                if box_first.is_none() {
                    box_first = Some(num);
                }
                if box_saw_eq && box_after_eq.is_none() {
                    box_after_eq = Some(num);
                }
            }
            // A `\frac{..}{..}` is balanced: skipping it leaves the box depth as it was.
            i = end;
            continue;
        }
        match c {
            b'\\'
                if box_depth == 0
                    && (b[i..].starts_with(b"\\boxed{") || b[i..].starts_with(b"\\fbox{")) =>
            {
                box_depth = 1;
                box_first = None;
                box_after_eq = None;
                box_saw_eq = false;
                i += if b[i + 1] == b'b' { 7 } else { 6 };
                continue;
            }
            b'{' if box_depth > 0 => box_depth += 1,
            b'}' if box_depth > 0 => {
                box_depth -= 1;
                if box_depth == 0 {
                    if let Some(num) = box_after_eq.or(box_first) {
                        offer(&mut best, num, NumberForm::Boxed);
                    }
                }
            }
            b'(' => sentence.depth += 1,
            b')' => sentence.depth = sentence.depth.saturating_sub(1),
            b'=' if box_depth == 0 => sentence.equals(),
            b'\n' | b'!' | b'?' => sentence.end(&mut result),
            b'.' if b.get(i + 1).is_none_or(u8::is_ascii_whitespace) => sentence.end(&mut result),
            b'=' if box_depth > 0 => {
                box_saw_eq = true;
                box_after_eq = None;
            }
            b'"' if b[i..].starts_with(b"\"answer\"") => {
                let mut j = i + 8;
                while j < n && b[j].is_ascii_whitespace() && j < i + 16 {
                    j += 1;
                }
                if b.get(j) == Some(&b':') {
                    if let Some(num) = number_after_filler(b, j + 1, 16) {
                        offer(&mut best, num, NumberForm::JsonAnswer);
                    }
                }
            }
            b'#' if b[i..].starts_with(b"####") && (i == 0 || b[i - 1] != b'#') => {
                let mut j = i + 4;
                while j < n && b[j] == b'#' {
                    j += 1;
                }
                if let Some(num) = number_after_filler(b, j, 16) {
                    offer(&mut best, num, NumberForm::HashLine);
                }
            }
            b'a' | b'A' if word_at(b, i, b"answer") => {
                let mut j = i + 6;
                if b.get(j).is_some_and(|&c| c == b's' || c == b'S') {
                    j += 1;
                }
                while j < n && matches!(b[j], b' ' | b'*') && j < i + 24 {
                    j += 1;
                }
                let rest = &b[j..];
                let verb = VERBS.iter().find(|v| {
                    rest.len() >= v.len()
                        && rest[..v.len()].eq_ignore_ascii_case(v)
                        && rest.get(v.len()).is_none_or(|c| !c.is_ascii_alphabetic())
                });
                if let Some(v) = verb {
                    if let Some(num) = number_in_sentence(b, j + v.len(), 80) {
                        offer(&mut best, num, NumberForm::AnswerIs);
                    }
                } else if b.get(j) == Some(&b':') {
                    if let Some(num) = number_after_filler(b, j + 1, 24) {
                        offer(&mut best, num, NumberForm::AnswerLine);
                    }
                }
            }
            b'A' if b.get(i + 1) == Some(&b':') && (i == 0 || b[i - 1] == b'\n') => {
                if let Some(num) = number_after_filler(b, i + 2, 24) {
                    offer(&mut best, num, NumberForm::AnswerLine);
                }
            }
            _ => {}
        }
        i += 1;
    }
    if box_depth > 0 {
        // A box the text never closes still states its number.
        if let Some(num) = box_after_eq.or(box_first) {
            offer(&mut best, num, NumberForm::Boxed);
        }
    }
    sentence.end(&mut result);
    best.or_else(|| result.or(last).map(|num| (num, NumberForm::LastNumber)))
}

/// Append the ASCII digits of `b[range]` (dropping group separators) to `out`.
fn push_digits(b: &[u8], range: (usize, usize), out: &mut Vec<u8>) {
    out.extend(
        b[range.0..range.1]
            .iter()
            .filter(|c| c.is_ascii_digit())
            .copied(),
    );
}

/// Digits without leading zeros (at least one digit).
fn trim_leading_zeros(d: &[u8]) -> &[u8] {
    let k = d.iter().take_while(|&&c| c == b'0').count();
    if k == d.len() {
        &d[d.len().saturating_sub(1).min(k)..]
    } else {
        &d[k..]
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The canonical text of `num` (see the module's docs), appended to `out`.
pub fn push_canonical(text: &str, num: &Num, out: &mut String) {
    let b = text.as_bytes();
    let mut int = Vec::new();
    push_digits(b, num.int, &mut int);
    if int.is_empty() {
        int.push(b'0');
    }
    let mut frac = Vec::new();
    push_digits(b, num.frac, &mut frac);
    while frac.last() == Some(&b'0') {
        frac.pop();
    }
    let int = trim_leading_zeros(&int).to_vec();
    let mut body = String::new();
    if let Some(den) = num.den {
        let mut q = Vec::new();
        push_digits(b, den, &mut q);
        let p_text = String::from_utf8_lossy(&int).into_owned();
        let q_text = String::from_utf8_lossy(trim_leading_zeros(&q)).into_owned();
        match (p_text.parse::<u128>(), q_text.parse::<u128>()) {
            (Ok(p), Ok(q)) if q != 0 => {
                let g = gcd(p, q).max(1);
                let (p, q) = (p / g, q / g);
                // A decimal is exact when q has no prime factors but 2 and 5.
                let (mut twos, mut fives, mut rest) = (0u32, 0u32, q);
                while rest % 2 == 0 {
                    rest /= 2;
                    twos += 1;
                }
                while rest % 5 == 0 {
                    rest /= 5;
                    fives += 1;
                }
                let places = twos.max(fives);
                let scaled = if rest == 1 {
                    10u128
                        .checked_pow(places)
                        .and_then(|s| p.checked_mul(s / q))
                } else {
                    None
                };
                match scaled {
                    Some(v) => {
                        let s = v.to_string();
                        let places = places as usize;
                        if places == 0 {
                            body = s;
                        } else {
                            let padded = format!("{s:0>width$}", width = places + 1);
                            let (ip, fp) = padded.split_at(padded.len() - places);
                            let fp = fp.trim_end_matches('0');
                            body = if fp.is_empty() {
                                ip.to_string()
                            } else {
                                format!("{ip}.{fp}")
                            };
                        }
                    }
                    None => body = format!("{p}/{q}"),
                }
            }
            _ => body = format!("{p_text}/{q_text}"),
        }
    } else {
        body.push_str(&String::from_utf8_lossy(&int));
        if !frac.is_empty() {
            body.push('.');
            body.push_str(&String::from_utf8_lossy(&frac));
        }
    }
    let zero = body == "0" || body.starts_with("0/");
    if num.negative && !zero {
        out.push('-');
    }
    out.push_str(&body);
}

/// The canonical final number of `text`, with its form.
pub fn final_number_text(text: &str) -> Option<(String, NumberForm)> {
    let (num, form) = final_number(text)?;
    let mut out = String::new();
    push_canonical(text, &num, &mut out);
    Some((out, form))
}

/// The value of a canonical number (`"-12.5"`, `"1/3"`).
pub fn canonical_value(canonical: &str) -> Option<f64> {
    match canonical.split_once('/') {
        Some((p, q)) => {
            let (p, q) = (p.parse::<f64>().ok()?, q.parse::<f64>().ok()?);
            (q != 0.0).then(|| p / q)
        }
        None => canonical.parse::<f64>().ok(),
    }
}

/// A gold answer's number: its `#### N` line, else the whole text when it is one number
/// (surrounding whitespace, `$`, `%` and a final `.` aside).
pub fn gold_number(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if let Some(at) = memchr::memmem::find(b, b"####") {
        let mut j = at;
        while j < b.len() && b[j] == b'#' {
            j += 1;
        }
        let (num, _) = number_at(b, number_after_filler(b, j, 16)?)?;
        let mut out = String::new();
        push_canonical(text, &num, &mut out);
        return Some(out);
    }
    let trimmed = text.trim();
    let tb = trimmed.as_bytes();
    let start = tb
        .iter()
        .position(|&c| !matches!(c, b'$' | b'-' | b'+' | b' '))?;
    if tb[..start].iter().filter(|&&c| c == b'-').count() > 1 {
        return None;
    }
    let (num, end) = number_at(tb, start)?;
    let tail = &tb[end..];
    if !tail.iter().all(|&c| matches!(c, b'%' | b'.' | b' ')) || tail.len() > 2 {
        return None;
    }
    let mut num = num;
    num.negative = tb[..start].contains(&b'-');
    let mut out = String::new();
    push_canonical(trimmed, &num, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Option<(String, &'static str)> {
        final_number_text(text).map(|(s, form)| (s, form.name()))
    }

    fn v(text: &str) -> Option<String> {
        final_number_text(text).map(|(s, _)| s)
    }

    /// Bytes no rule starts at: none of `0123456789.\\()=\n!?{}"#`, and not an `a` or `A`
    /// after no letter and before `n`, `N` or `:` (every rule's first test).
    fn skips(b: &[u8], i: usize) -> bool {
        let c = b[i];
        let next = b.get(i + 1).map(u8::to_ascii_lowercase);
        let letter = c.eq_ignore_ascii_case(&b'a') && matches!(next, Some(b'n' | b':'));
        !(b"0123456789.\\()=\n!?{}\"#".contains(&c) || letter)
            || (c.is_ascii_alphabetic() && i > 0 && b[i - 1].is_ascii_alphabetic())
    }

    #[test]
    fn next_start_skips_only_bytes_no_rule_starts_at() {
        let text = "The answer is 12.\nA: 3/4 = 0.75 (so) {x}|y> #### 5! \"answer\": 7?\n\
                    \\boxed{\\frac{1}{2}} aAa ba 9a \u{e9}a \u{2212}5 _a Answers: 1,234.5 aN A:A: \u{e9}an";
        let b = text.as_bytes();
        for at in 0..=b.len() {
            let want = (at..b.len()).find(|&i| !skips(b, i)).unwrap_or(b.len());
            let got = next_start::<NumberStarts>(b, at);
            // It may stop earlier (at a byte no rule starts at), never later.
            assert!(got <= want, "{at}: {got} > {want}");
            assert!((at..got).all(|i| skips(b, i)), "{at}");
        }
    }

    #[test]
    fn boxed_wins_over_later_numbers() {
        assert_eq!(
            f("so she picks \\boxed{12} apples in 3 days"),
            Some(("12".into(), "boxed"))
        );
        assert_eq!(v("\\boxed{x = 5}"), Some("5".into()));
        assert_eq!(v("\\boxed{\\frac{3}{4}}"), Some("0.75".into()));
        assert_eq!(v("\\boxed{-\\frac{2}{6}}"), Some("-1/3".into()));
        assert_eq!(v("\\boxed{1,234} then \\boxed{7}"), Some("7".into()));
        assert_eq!(v("\\boxed{\\$18.50} and 3"), Some("18.5".into()));
        assert_eq!(v("\\boxed{12"), Some("12".into()));
        assert_eq!(v("\\boxed{\\text{none}} 4"), Some("4".into()));
    }

    #[test]
    fn forms_in_order_of_preference() {
        assert_eq!(
            f("{\"answer\": \"1,200\"} 5"),
            Some(("1200".into(), "json_answer"))
        );
        assert_eq!(f("x\n#### 1,207\nok 3"), Some(("1207".into(), "hash_line")));
        assert_eq!(
            f("The answer is 6 packages. Then 7"),
            Some(("6".into(), "answer_is"))
        );
        assert_eq!(f("so\nA: -3\n"), Some(("-3".into(), "answer_line")));
        assert_eq!(f("Answer: $1,500."), Some(("1500".into(), "answer_line")));
        assert_eq!(f("we get 10-5 = 5"), Some(("5".into(), "last_number")));
        assert_eq!(v("It is 208 feet (16 x 13)."), Some("208".into()));
        assert_eq!(
            v("So 24 / 8 = 3 people. It takes 30 minutes for 6 paintings."),
            Some("30".into())
        );
        assert_eq!(v("start at 2:00 pm."), Some("2".into()));
        assert_eq!(v("(16 x 13)"), Some("13".into()));
        assert_eq!(f("none"), None);
    }

    #[test]
    fn canonical_numbers() {
        assert_eq!(v("is 007.50%"), Some("7.5".into()));
        assert_eq!(v("is -0.0"), Some("0".into()));
        assert_eq!(v("x = \u{2212}4"), Some("-4".into()));
        // Not one number 5715: three, and the sentence's first counts.
        assert_eq!(v("list 5,7,15"), Some("5".into()));
        assert_eq!(v("1{,}234"), Some("1234".into()));
        assert_eq!(v("is .5"), Some("0.5".into()));
        assert_eq!(v("on 12/25/2023 = 2023"), Some("2023".into()));
        assert_eq!(v("6/3"), Some("2".into()));
    }

    #[test]
    fn a_next_question_ends_the_response() {
        assert_eq!(
            v("The answer is 4.\nQuestion: how many? The answer is 9."),
            Some("4".into())
        );
        assert_eq!(v("Q: 3\nQ: 5"), Some("5".into()));
    }

    #[test]
    fn gold_numbers() {
        assert_eq!(gold_number("so\n#### 18"), Some("18".into()));
        assert_eq!(gold_number(" 1,207 "), Some("1207".into()));
        assert_eq!(gold_number("-$5"), Some("-5".into()));
        assert_eq!(gold_number("3/4"), Some("0.75".into()));
        assert_eq!(gold_number("18 apples"), None);
        assert_eq!(canonical_value("1/4"), Some(0.25));
    }
}
