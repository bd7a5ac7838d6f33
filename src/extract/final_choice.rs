//! The option letter a multiple-choice response finally commits to, in one forward pass.
//!
//! A careful grader reads the last *statement* of an answer, in any of the forms models write:
//!
//! - `answer_is`: `The answer is (X)`, `the correct answer is X`, `answer would be **X**`,
//!   `the best option is X`;
//! - `answer_colon`: `ANSWER: X`, `Answer: (X)`, `**Answer:** X) text`, `Final answer: X`;
//! - `boxed`: `\boxed{X}`, `\boxed{\text{X}}`, `\boxed{(X)}`.
//!
//! The last statement in the text counts (a later one corrects an earlier one). Once one has been
//! read, a line starting `Question:` ends the response: the model is writing the next few-shot
//! question itself. With no statement, weaker forms are read, in this order: `bold` (the last
//! `**X**`, `**(X) text**`, `**X. text**`), `parenthesized` / `leading_letter` (the response
//! starts with `(X)`, or with `X.`, `X)`, `X:` or a lone `X`), `bare_letter` (the last line is a
//! lone letter, maybe in parentheses), and `option_text` (with the options given: the words after
//! a letterless statement, the whole response or its last line are one option's text).
//!
//! A letter is `A`..`Z` (the options' count bounds it when the options are given) standing as a
//! word; a lowercase letter counts only in parentheses, a box or bold (`(b)`, `b)`), so the
//! article "a" never does. Several different letters in the final statement (`(A) or (C)`,
//! `A and C`, `A, C`) give no choice (`several_letters`), and so does a final statement whose
//! letter is followed by another option's text (`Answer: B) 42` where 42 is option C's text:
//! `contradiction`).
//!
//! Every trigger looks ahead a bounded number of bytes and the end-of-text checks look at a
//! bounded part of the text per option, so the pass is linear in the text's length.

use super::scan::{folded, next_start, question_begins, Starts};
use crate::ascii::{in_range, word_bytes};

/// Which form a choice was read from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ChoiceForm {
    AnswerColon,
    AnswerIs,
    Boxed,
    Bold,
    Parenthesized,
    LeadingLetter,
    OptionText,
    BareLetter,
}

impl ChoiceForm {
    pub fn name(self) -> &'static str {
        match self {
            ChoiceForm::AnswerColon => "answer_colon",
            ChoiceForm::AnswerIs => "answer_is",
            ChoiceForm::Boxed => "boxed",
            ChoiceForm::Bold => "bold",
            ChoiceForm::Parenthesized => "parenthesized",
            ChoiceForm::LeadingLetter => "leading_letter",
            ChoiceForm::OptionText => "option_text",
            ChoiceForm::BareLetter => "bare_letter",
        }
    }
}

/// Why no choice was read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NoChoice {
    NoLetter,
    SeveralLetters,
    Contradiction,
}

impl NoChoice {
    pub fn name(self) -> &'static str {
        match self {
            NoChoice::NoLetter => "no_letter",
            NoChoice::SeveralLetters => "several_letters",
            NoChoice::Contradiction => "contradiction",
        }
    }
}

/// What was read: a letter (`b'A'..`) with its form, or why none.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Choice {
    pub letter: Option<u8>,
    pub form: Option<ChoiceForm>,
    pub reason: Option<NoChoice>,
}

/// A letter read at a place in the text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Hit {
    letter: u8,
    /// The byte after the letter and its closing marks.
    end: usize,
    /// A second, different letter offered with it.
    several: bool,
}

/// How far past a trigger a letter may stand.
const LOOKAHEAD: usize = 40;

#[inline]
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Prefixes skipped between a statement and its letter.
const WRAPPERS: [&[u8]; 10] = [
    b"\\boxed{",
    b"\\text{",
    b"\\textbf{",
    b"\\mathrm{",
    b"\\mathbf{",
    b"\\(",
    b"option ",
    b"choice ",
    b"letter ",
    b"**",
];

/// The letter standing at `at` (no word byte right after it), if it is a valid option letter;
/// lowercase only when `wrapped` or a `)` follows.
fn letter_at(b: &[u8], at: usize, wrapped: bool, options: usize) -> Option<(u8, usize)> {
    let c = *b.get(at)?;
    if b.get(at + 1).is_some_and(|&n| is_word_byte(n)) {
        return None;
    }
    let upper = c.to_ascii_uppercase();
    if !upper.is_ascii_uppercase() || usize::from(upper - b'A') >= options {
        return None;
    }
    if c.is_ascii_lowercase() && !wrapped && b.get(at + 1) != Some(&b')') {
        return None;
    }
    Some((upper, at + 1))
}

/// The letter a statement ending at `at` gives: past spaces, `:`, `*`, `(`, `\boxed{`,
/// `option ` and such, within [`LOOKAHEAD`] bytes; then whether a second letter is offered.
fn letter_after(b: &[u8], at: usize, options: usize, in_box: bool) -> Option<Hit> {
    let limit = b.len().min(at + LOOKAHEAD);
    let mut i = at;
    let mut wrapped = in_box;
    while i < limit {
        let c = b[i];
        if matches!(
            c,
            b' ' | b'\t' | b'\n' | b'\r' | b':' | b'$' | b'"' | b'\'' | b'_' | b'='
        ) {
            i += 1;
            continue;
        }
        if matches!(c, b'(' | b'[' | b'{' | b'*') {
            wrapped = true;
            i += 1;
            continue;
        }
        if let Some(w) = WRAPPERS.iter().find(|w| {
            b.get(i..i + w.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(w))
        }) {
            wrapped = true;
            i += w.len();
            continue;
        }
        break;
    }
    if i >= limit {
        return None;
    }
    let (letter, mut end) = letter_at(b, i, wrapped, options)?;
    // Closing marks: `)`, `]`, `}`, `*`, `$`, `.` then a space.
    while end < b.len() && matches!(b[end], b')' | b']' | b'}' | b'*' | b'$') && end < i + 12 {
        end += 1;
    }
    // `The answer is (E) is incorrect because ...` weighs an option; it does not choose one.
    let mut k = end;
    while k < b.len() && b[k] == b' ' && k < end + 3 {
        k += 1;
    }
    if word_at(b, k, b"is")
        && !b.get(k + 2..).is_some_and(|r| {
            let r = r.strip_prefix(b" ").unwrap_or(r);
            r.len() >= 7 && r[..7].eq_ignore_ascii_case(b"correct")
        })
    {
        return None;
    }
    let several = second_letter(b, end, letter, options);
    Some(Hit {
        letter,
        end,
        several,
    })
}

/// The letter right before `at` (`(C) is the correct answer`, `**B** is the best answer`):
/// uppercase, or lowercase in parentheses, standing as a word.
fn letter_before(b: &[u8], at: usize, options: usize) -> Option<Hit> {
    let mut i = at;
    while i > 0 && b[i - 1] == b' ' && at - i < 4 {
        i -= 1;
    }
    let mut wrapped = false;
    while i > 0 && matches!(b[i - 1], b')' | b'*') && at - i < 8 {
        wrapped = true;
        i -= 1;
    }
    let start = i.checked_sub(1)?;
    if start > 0 && is_word_byte(b[start - 1]) {
        return None;
    }
    let (letter, _) = letter_at(b, start, wrapped, options)?;
    // A capital `I` before `is` is a pronoun unless marked.
    (letter != b'I' || wrapped).then_some(Hit {
        letter,
        end: at,
        several: false,
    })
}

/// Whether a different letter is offered right after a first one: `and`, `or`, `,`, `&`, `/`
/// then a letter standing alone.
fn second_letter(b: &[u8], at: usize, first: u8, options: usize) -> bool {
    let limit = b.len().min(at + 24);
    let mut i = at;
    while i < limit && b[i] == b' ' {
        i += 1;
    }
    let joined = if b
        .get(i..i + 3)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"and"))
    {
        3
    } else if b
        .get(i..i + 2)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"or"))
    {
        2
    } else if matches!(b.get(i), Some(b',' | b'&' | b'/')) {
        1
    } else {
        return false;
    };
    i += joined;
    if joined > 1 && b.get(i).is_some_and(|&c| is_word_byte(c)) {
        return false;
    }
    let mut wrapped = false;
    while i < limit && matches!(b[i], b' ' | b'(' | b'*') {
        wrapped |= b[i] != b' ';
        i += 1;
    }
    let Some((second, end)) = letter_at(b, i, wrapped, options) else {
        return false;
    };
    // `B, C is wrong` is rare; `A, which ...` is not a letter. A lone capital `I` is a word.
    let standing = b
        .get(end)
        .is_none_or(|&c| matches!(c, b')' | b'*' | b'.' | b',' | b' ' | b'\n' | b'\r' | b';'));
    standing && second != first && (second != b'I' || wrapped)
}

/// The verbs that join a statement's words to its answer.
const VERBS: [&[u8]; 5] = [b"is", b"would be", b"will be", b"should be", b"must be"];

/// ASCII case-insensitive `word` at `at`, starting a word.
#[inline]
fn word_at(b: &[u8], at: usize, word: &[u8]) -> bool {
    b.get(at..at + word.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(word))
        && (at == 0 || !is_word_byte(b[at - 1]))
}

/// The text of an option or of a stretch of the response, for comparison: ASCII lowercase,
/// whitespace runs as one space, `*`, `$` and `\` dropped, no trailing `.`/space.
fn normalized(s: &[u8], out: &mut Vec<u8>) {
    out.clear();
    for &c in s {
        if matches!(c, b'*' | b'$' | b'\\') {
            continue;
        }
        if c.is_ascii_whitespace() {
            // `- 2.21` is `-2.21`.
            if !out.is_empty() && !matches!(out.last(), Some(b' ' | b'-')) {
                out.push(b' ');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    while matches!(out.last(), Some(b' ' | b'.')) {
        out.pop();
    }
}

/// Whether an option's text ends where `rest` starts: at the end, or where a sentence, clause
/// or parenthesis does (`$32 - $2.24` is a calculation, `1.732` is not `1`).
fn ends_phrase(rest: &[u8]) -> bool {
    match rest {
        [] | [b'.' | b',' | b';' | b'\n' | b')' | b'*'] => true,
        [b'.' | b',', next, ..] => !next.is_ascii_digit(),
        [b';' | b'\n' | b')' | b'*', ..] => true,
        [b' ', ..] => [&b" ("[..], b" but ", b" which ", b" as "]
            .iter()
            .any(|p| rest.starts_with(p)),
        _ => false,
    }
}

/// The options whose normalized text `stretch` starts with (and then stops at a non-word byte).
fn options_starting(stretch: &[u8], options: &[Vec<u8>]) -> Vec<usize> {
    options
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            !o.is_empty() && stretch.starts_with(o) && ends_phrase(&stretch[o.len()..])
        })
        .map(|(k, _)| k)
        .collect()
}

/// The option whose normalized text is exactly `stretch`, if exactly one is.
fn option_equal(stretch: &[u8], options: &[Vec<u8>]) -> Option<usize> {
    let mut found = options
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.is_empty() && o.as_slice() == stretch);
    let (k, _) = found.next()?;
    found.next().is_none().then_some(k)
}

/// The choice `text` finally commits to. `options` holds the options' texts in letter order,
/// when known.
pub fn final_choice(text: &str, options: Option<&[Option<&str>]>) -> Choice {
    let b = text.as_bytes();
    let n = b.len();
    let count = options.map_or(26, |o| o.len().min(26));
    let mut statement: Option<(Hit, ChoiceForm)> = None;
    // Where the words of the last statement without a letter start.
    let mut letterless: Option<usize> = None;
    let mut bold: Option<Hit> = None;
    let mut line_start = true;
    let mut i = 0;
    while i < n {
        // Most bytes start no rule: a letter inside a word, or a byte no trigger begins with.
        if !line_start {
            i = next_start::<ChoiceStarts>(b, i);
            if i == n {
                break;
            }
        }
        if line_start && statement.is_some() && question_begins(b, i, false) {
            break;
        }
        let c = b[i];
        line_start = c == b'\n';
        match c {
            b'a' | b'A' if word_at(b, i, b"answer") => {
                let mut j = i + 6;
                if matches!(b.get(j), Some(b's' | b'S')) {
                    j += 1;
                }
                // `Answer** :`, `answer (letter) is`, `answer choice is`, `answer option:`.
                while j < n && matches!(b[j], b' ' | b'*' | b'_') && j < i + 20 {
                    j += 1;
                }
                for filler in [&b"choice"[..], b"option", b"letter"] {
                    if word_at(b, j, filler) {
                        j += filler.len();
                        while j < n && b[j] == b' ' {
                            j += 1;
                        }
                    }
                }
                let rest = &b[j..];
                let verb = VERBS.iter().find(|v| {
                    rest.len() >= v.len()
                        && rest[..v.len()].eq_ignore_ascii_case(v)
                        && rest.get(v.len()).is_none_or(|&c| !is_word_byte(c))
                });
                let (form, from) = match verb {
                    Some(v) => (ChoiceForm::AnswerIs, j + v.len()),
                    None if b.get(j) == Some(&b':') => (ChoiceForm::AnswerColon, j + 1),
                    None => (ChoiceForm::AnswerIs, usize::MAX),
                };
                // `If ..., then the answer is (G)` is a condition, not a choice.
                let conditional = b[i.saturating_sub(10)..i]
                    .windows(5)
                    .any(|w| w.eq_ignore_ascii_case(b"then "));
                if from != usize::MAX && !conditional {
                    match letter_after(b, from, count, false) {
                        Some(hit) => state(&mut statement, i, hit, form),
                        None => letterless = Some(from),
                    }
                }
            }
            b'i' if word_at(b, i, b"is the correct answer")
                || word_at(b, i, b"is the correct option")
                || word_at(b, i, b"is the correct choice")
                || word_at(b, i, b"is the best answer") =>
            {
                if let Some(hit) = letter_before(b, i, count) {
                    state(&mut statement, i, hit, ChoiceForm::AnswerIs);
                }
            }
            b'c' | b'C' if word_at(b, i, b"closest is") => {
                if let Some(hit) = letter_after(b, i + 10, count, false) {
                    state(&mut statement, i, hit, ChoiceForm::AnswerIs);
                }
            }
            b'o' | b'O' | b'c' | b'C'
                if word_at(b, i, b"option is") || word_at(b, i, b"choice is") =>
            {
                if let Some(hit) = letter_after(b, i + 9, count, false) {
                    state(&mut statement, i, hit, ChoiceForm::AnswerIs);
                }
            }
            b'\\' if b[i..].starts_with(b"\\boxed{") => {
                if let Some(hit) = letter_after(b, i + 7, count, true) {
                    state(&mut statement, i, hit, ChoiceForm::Boxed);
                }
            }
            b'*' if b[i..].starts_with(b"**") && (i == 0 || b[i - 1] != b'*') => {
                let mut j = i + 2;
                let wrapped = b.get(j) == Some(&b'(');
                j += usize::from(wrapped);
                if let Some((letter, end)) = letter_at(b, j, true, count) {
                    // `**X**`, `**(X)...`, `**X.`/`**X)`/`**X:` then text.
                    let closes = if wrapped {
                        b.get(end) == Some(&b')')
                    } else {
                        matches!(b.get(end), Some(b'*' | b'.' | b')' | b':'))
                    };
                    if closes && (letter != b'I' || wrapped || b.get(end) == Some(&b'*')) {
                        bold = Some(Hit {
                            letter,
                            end: end + 1,
                            several: false,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let opts: Option<Vec<Vec<u8>>> = options.map(|o| {
        o.iter()
            .take(26)
            .map(|t| {
                let mut v = Vec::new();
                normalized(t.unwrap_or("").as_bytes(), &mut v);
                v
            })
            .collect()
    });
    let mut scratch = Vec::new();
    let longest = opts
        .as_ref()
        .map_or(0, |o| o.iter().map(Vec::len).max().unwrap_or(0));
    if let Some((hit, form)) = statement {
        if hit.several {
            return none(Some(form), NoChoice::SeveralLetters);
        }
        // The letter's own words, if the statement goes on with an option's text.
        if let Some(opts) = &opts {
            let mut j = hit.end;
            while j < n && matches!(b[j], b'.' | b')' | b':' | b' ' | b'*') && j < hit.end + 6 {
                j += 1;
            }
            let stop = n.min(j + 4 * longest + 16);
            let line_end = b[j..stop]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(stop, |k| j + k);
            normalized(&b[j..line_end], &mut scratch);
            let named = options_starting(&scratch, opts);
            let own = usize::from(hit.letter - b'A');
            if !named.is_empty() && !named.contains(&own) {
                return none(Some(form), NoChoice::Contradiction);
            }
        }
        return found(hit.letter, form);
    }
    if let Some(hit) = bold {
        return found(hit.letter, ChoiceForm::Bold);
    }
    // The response's start: `(X)`, `X.`, `X)`, `X:` or a lone `X`.
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(n);
    if start < n {
        let paren = b[start] == b'(';
        if let Some((letter, end)) = letter_at(b, start + usize::from(paren), paren, count) {
            let ok = if paren {
                b.get(end) == Some(&b')')
            } else {
                b.get(end)
                    .is_none_or(|&c| matches!(c, b'.' | b')' | b':' | b'\n' | b'\r'))
            };
            // A sub-question's label (`(a) To find ...`, `I. In order ...`) is not an answer: the
            // letter stands alone on its line, or starts a short response, or is followed by its
            // option's text.
            let line_end = b[end..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(n, |k| end + k);
            let rest = &b[(end + 1).min(line_end)..line_end];
            let alone = rest
                .iter()
                .all(|c| c.is_ascii_whitespace() || matches!(c, b'.' | b')' | b'*'));
            let own_text = opts.as_ref().is_some_and(|o| {
                normalized(rest, &mut scratch);
                let k = usize::from(letter - b'A');
                options_starting(&scratch, o).contains(&k)
            });
            let ok = ok && (alone || own_text || n - start <= 100);
            if ok {
                let form = if paren {
                    ChoiceForm::Parenthesized
                } else {
                    ChoiceForm::LeadingLetter
                };
                if second_letter(b, end + usize::from(paren), letter, count) {
                    return none(Some(form), NoChoice::SeveralLetters);
                }
                return found(letter, form);
            }
        }
    }
    // The last line: a lone letter, maybe in parentheses, bold or followed by `.`.
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |k| k + 1);
    let line = b[..end]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |k| k + 1);
    let mark = |c: &u8| c.is_ascii_whitespace() || matches!(c, b'*' | b'.' | b'(' | b')');
    let last_line = &b[line..end];
    let from = last_line
        .iter()
        .position(|c| !mark(c))
        .unwrap_or(last_line.len());
    let to = last_line
        .iter()
        .rposition(|c| !mark(c))
        .map_or(from, |k| k + 1);
    if to == from + 1 {
        let paren = last_line.contains(&b'(');
        if let Some((letter, _)) = letter_at(&last_line[from..to], 0, paren, count) {
            // `F. True ...\nG` is a list of the options cut short, not an answer.
            let prev_end = b[..line]
                .iter()
                .rposition(|c| !c.is_ascii_whitespace())
                .map_or(0, |k| k + 1);
            let prev_line = b[..prev_end]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |k| k + 1);
            let first = b[prev_line..prev_end]
                .iter()
                .find(|c| !matches!(c, b' ' | b'*' | b'('));
            let enumerated = letter > b'A' && first == Some(&(letter - 1));
            if !enumerated {
                return found(letter, ChoiceForm::BareLetter);
            }
        }
    }
    if let Some(opts) = &opts {
        let mut candidates = Vec::new();
        if let Some(from) = letterless {
            let stop = n.min(from + 4 * longest + 16);
            let line_end = b[from..stop]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(stop, |k| from + k);
            candidates.push((from, line_end));
        }
        candidates.push((0, n));
        candidates.push((line, end));
        for (from, to) in candidates {
            normalized(&b[from..to], &mut scratch);
            let trimmed: &[u8] = {
                let s = &scratch[..];
                let k = s.iter().take_while(|&&c| matches!(c, b' ' | b':')).count();
                &s[k..]
            };
            if let Some(k) = option_equal(trimmed, opts) {
                return found(b'A' + k as u8, ChoiceForm::OptionText);
            }
            if from != 0 || to != n {
                let named = options_starting(trimmed, opts);
                if named.len() == 1 && from != line {
                    return found(b'A' + named[0] as u8, ChoiceForm::OptionText);
                }
            }
        }
    }
    none(None, NoChoice::NoLetter)
}

/// The bytes a rule of the main loop may start at, for [`next_start`]: a newline, `\\` and
/// `*` anywhere; at a word's start (after no letter, digit or `_`), a letter of either case
/// followed by the second letter of a rule's word: `an` (`answer`), `is` (`is the correct
/// answer`), `cl` (`closest is`), `ch` (`choice is`), `op` (`option is`).
struct ChoiceStarts;

impl Starts for ChoiceStarts {
    #[inline(always)]
    fn marks(low: u64) -> u64 {
        in_range(low, b'\n', b'\n') | in_range(low, b'\\', b'\\') | in_range(low, b'*', b'*')
    }

    #[inline(always)]
    fn letters(low: u64, next: u64) -> u64 {
        (folded(low, b'a', b'a') & folded(next, b'n', b'n'))
            | (folded(low, b'i', b'i') & folded(next, b's', b's'))
            | (folded(low, b'c', b'c') & (folded(next, b'l', b'l') | folded(next, b'h', b'h')))
            | (folded(low, b'o', b'o') & folded(next, b'p', b'p'))
    }

    #[inline(always)]
    fn word(low: u64) -> u64 {
        word_bytes(low)
    }
}

/// Take `hit`, read at byte `at`, as the last statement, unless it lies inside the last one
/// (`The answer is \boxed{E}` is one statement).
fn state(statement: &mut Option<(Hit, ChoiceForm)>, at: usize, hit: Hit, form: ChoiceForm) {
    if statement.is_some_and(|(prev, _)| at < prev.end) {
        return;
    }
    *statement = Some((hit, form));
}

fn found(letter: u8, form: ChoiceForm) -> Choice {
    Choice {
        letter: Some(letter),
        form: Some(form),
        reason: None,
    }
}

fn none(form: Option<ChoiceForm>, reason: NoChoice) -> Choice {
    Choice {
        letter: None,
        form,
        reason: Some(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(text: &str) -> Option<char> {
        final_choice(text, None).letter.map(char::from)
    }

    fn lf(text: &str) -> (Option<char>, Option<&'static str>, Option<&'static str>) {
        let c = final_choice(text, None);
        (
            c.letter.map(char::from),
            c.form.map(ChoiceForm::name),
            c.reason.map(NoChoice::name),
        )
    }

    #[test]
    fn statements() {
        assert_eq!(lf("ANSWER: A"), (Some('A'), Some("answer_colon"), None));
        assert_eq!(lf("Answer: (C)"), (Some('C'), Some("answer_colon"), None));
        assert_eq!(
            lf("so The answer is (B)."),
            (Some('B'), Some("answer_is"), None)
        );
        assert_eq!(
            lf("the correct answer is D"),
            (Some('D'), Some("answer_is"), None)
        );
        assert_eq!(lf("\\boxed{E}"), (Some('E'), Some("boxed"), None));
        assert_eq!(lf("\\boxed{\\text{F}}"), (Some('F'), Some("boxed"), None));
        assert_eq!(l("**Answer:** G) text"), Some('G'));
        assert_eq!(
            l("The answer is A. ... no wait, the answer is B."),
            Some('B')
        );
        assert_eq!(l("So the answer is (a)."), Some('A'));
        assert_eq!(l("The answer is a combination"), None);
        assert_eq!(l("The best option is (H)"), Some('H'));
        assert_eq!(
            l("The answer is (E) is incorrect. The answer is (B)"),
            Some('B')
        );
        assert_eq!(l("The answer is (E) is incorrect."), None);
        assert_eq!(l("If so, then the answer is (G)."), None);
        assert_eq!(l("so (C) is the correct answer."), Some('C'));
        assert_eq!(l("not listed, but the closest is (E)."), Some('E'));
    }

    #[test]
    fn weaker_forms() {
        assert_eq!(lf("I pick **C**"), (Some('C'), Some("bold"), None));
        assert_eq!(lf("**(D) ten**"), (Some('D'), Some("bold"), None));
        assert_eq!(lf("(B) because"), (Some('B'), Some("parenthesized"), None));
        assert_eq!(
            lf("B. Hand knitting"),
            (Some('B'), Some("leading_letter"), None)
        );
        assert_eq!(
            lf("thinking...\n\nC"),
            (Some('C'), Some("bare_letter"), None)
        );
        assert_eq!(lf("A person"), (None, None, Some("no_letter")));
        assert_eq!(
            lf("option A is wrong because"),
            (None, None, Some("no_letter"))
        );
    }

    #[test]
    fn several_letters_and_contradictions() {
        assert_eq!(
            lf("The answer is (E) and (F), as they"),
            (None, Some("answer_is"), Some("several_letters"))
        );
        assert_eq!(lf("Answer: A or C").2, Some("several_letters"));
        assert_eq!(l("The answer is (A), which"), Some('A'));
        let opts = [Some("41"), Some("42"), Some("43")];
        let c = final_choice("Answer: B) 43", Some(&opts));
        assert_eq!(c.reason, Some(NoChoice::Contradiction));
        assert_eq!(
            final_choice("Answer: B) 42", Some(&opts)).letter,
            Some(b'B')
        );
        assert_eq!(
            final_choice("The answer is 43.", Some(&opts)).letter,
            Some(b'C')
        );
        assert_eq!(
            final_choice(" 41 ", Some(&opts)).form,
            Some(ChoiceForm::OptionText)
        );
        // Letters past the options' count are not options.
        assert_eq!(final_choice("Answer: D", Some(&opts)).letter, None);
    }

    /// Bytes no rule starts at: not a newline, `\\` or `*`, and not a letter at a word's start
    /// followed by the second letter of a rule's word (every rule's first test).
    fn skips(b: &[u8], i: usize) -> bool {
        let c = b[i];
        let pair = [
            c.to_ascii_lowercase(),
            b.get(i + 1).map_or(0, u8::to_ascii_lowercase),
        ];
        let letter = [b"an", b"is", b"cl", b"ch", b"op"].contains(&&pair);
        !(b"\n\\*".contains(&c) || letter)
            || (c.is_ascii_alphabetic() && i > 0 && is_word_byte(b[i - 1]))
    }

    #[test]
    fn next_start_skips_only_bytes_no_rule_starts_at() {
        let text =
            "The answer is (B).\n**Answer:** \\boxed{C} option is A; choice is \u{e9}a cat_i9o\n\
                    Is the best answer? closest is (D) *x* aaa_a 0a Oo Ii\u{2212}c AN In OPTION cHoIcE \u{e9}is";
        let b = text.as_bytes();
        for at in 0..=b.len() {
            let want = (at..b.len()).find(|&i| !skips(b, i)).unwrap_or(b.len());
            let got = next_start::<ChoiceStarts>(b, at);
            // It may stop earlier (at a byte no rule starts at), never later.
            assert!(got <= want, "{at}: {got} > {want}");
            assert!((at..got).all(|i| skips(b, i)), "{at}");
        }
    }

    #[test]
    fn a_next_question_ends_the_response() {
        assert_eq!(
            l("The answer is (B).\nQuestion: x?\nThe answer is (C)."),
            Some('B')
        );
    }
}
