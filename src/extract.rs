//! Final-answer extraction from reasoning logs, with Python `re`'s character classes.
//!
//! The MMLU-Pro harness (TIGER-AI-Lab/MMLU-Pro, `evaluate_from_*.py`) reads a letter from a
//! chain-of-thought answer with three regular expressions, tried in order:
//!
//! 1. `answer is \(?([A-J])\)?`, the first match;
//! 2. `.*[aA]nswer:\s*([A-J])`, which finds the first line holding such an answer and takes the
//!    last one on that line (`.` stops at a newline; `\s*` may cross it);
//! 3. `\b[A-J]\b(?!.*\b[A-J]\b)` with DOTALL: the last letter standing alone as a word.
//!
//! Older versions of the harness stopped after the first rule. `\s` and `\b` are Python's: 29
//! whitespace characters, and word characters are letters, numbers and `_` (combining marks are
//! not), read from the interpreter's tables.
//!
//! Final numbers follow lm-eval-harness's GSM8K filters and OpenAI's GSM8K answer line, as
//! single forward scans that give exactly what their regular expressions give (the patterns'
//! `[0-9]` is ASCII, so the scans work on bytes):
//!
//! - strict: the first `#### (\-?[0-9\.\,]+)`;
//! - flexible: the last match of `(-?[$0-9.,]{2,})|(-?[0-9]+)`;
//! - answer line: `A:\s*([^\n]*?)\s*$` (the first `A:` whose rest, past leading whitespace, is
//!   one line up to trailing whitespace), then the first `-?\$?[0-9][0-9,]*(?:\.[0-9]+)?` in it.
//!
//! A found number is cleaned as lm-eval's GSM8K metric ignores text: `,` and `$` dropped, then
//! one trailing `.`.

pub mod correct;
#[cfg(feature = "plugin")]
mod expressions;
pub mod final_choice;
pub mod final_number;
mod scan;

use crate::pyunicode::{is_py_space, Tables};

#[inline]
fn is_choice(c: char) -> bool {
    ('A'..='J').contains(&c)
}

/// Rule 1: the first `answer is ` followed by a letter, or by `(` and a letter.
pub fn answer_is(text: &str) -> Option<char> {
    const NEEDLE: &[u8] = b"answer is ";
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, NEEDLE).find_map(|at| {
        let after = at + NEEDLE.len();
        match bytes.get(after) {
            Some(&b) if is_choice(char::from(b)) => Some(char::from(b)),
            Some(b'(') => bytes
                .get(after + 1)
                .map(|&b| char::from(b))
                .filter(|&c| is_choice(c)),
            _ => None,
        }
    })
}

/// The letter after `nswer:` at byte `after`, past any Python whitespace, if there is one.
fn letter_after(text: &str, after: usize) -> Option<char> {
    let rest = text.get(after..)?;
    rest.chars()
        .find(|&c| !is_py_space(c))
        .filter(|&c| is_choice(c))
}

/// Rule 2: in the first line that has an `answer:` / `Answer:` followed by a letter, the last one.
pub fn answer_colon(text: &str) -> Option<char> {
    const NEEDLE: &[u8] = b"nswer:";
    let bytes = text.as_bytes();
    // The start of the line of the first hit found, and the last letter found on that line.
    let mut found: Option<(usize, char)> = None;
    // The start of the line holding the latest hit, and how far the text was searched for it.
    // Hits come in order, so each byte is searched for a newline once: a scan back from every
    // hit to its line's start would be quadratic on one long line of `Answer:`s.
    let (mut line, mut searched) = (0, 0);
    for at in memchr::memmem::find_iter(bytes, NEEDLE) {
        if let Some(newline) = memchr::memrchr(b'\n', bytes.get(searched..at)?) {
            line = searched + newline + 1;
        }
        searched = at;
        if let Some((first_line, _)) = found {
            if line != first_line {
                break;
            }
        }
        // `a`/`A` before, on the same line (a newline before `nswer:` is neither).
        if at == 0 || !matches!(bytes[at - 1], b'a' | b'A') {
            continue;
        }
        if let Some(c) = letter_after(text, at + NEEDLE.len()) {
            found = Some((line, c));
        }
    }
    found.map(|(_, c)| c)
}

/// Rule 3: the last `A`..`J` with no Python word character on either side.
pub fn last_standalone(t: &Tables, text: &str) -> Option<char> {
    let bytes = text.as_bytes();
    (0..bytes.len()).rev().find_map(|i| {
        let c = char::from(bytes[i]);
        if !is_choice(c) {
            return None;
        }
        // An ASCII letter is a whole character, so its neighbours start and end on boundaries.
        let after = text.get(i + 1..).and_then(|r| r.chars().next());
        let before = text.get(..i).and_then(|r| r.chars().next_back());
        let free = |n: Option<char>| n.is_none_or(|n| !t.is_word(n));
        (free(after) && free(before)).then_some(c)
    })
}

/// Which rules to apply.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ChoiceRules {
    /// The three rules of the current harness.
    Full,
    /// Rule 1 alone, as older harness versions did.
    AnswerIs,
}

/// The MMLU-Pro harness's letter, or `None` when no rule finds one.
pub fn mmlu_pro_choice(t: &Tables, text: &str, rules: ChoiceRules) -> Option<char> {
    let first = answer_is(text);
    if rules == ChoiceRules::AnswerIs || first.is_some() {
        return first;
    }
    answer_colon(text).or_else(|| last_standalone(t, text))
}

/// `[$0-9.,]`, flexible's first alternative.
#[inline]
fn is_loose(b: u8) -> bool {
    matches!(b, b'$' | b'0'..=b'9' | b'.' | b',')
}

/// How many bytes of `bytes[from..]` satisfy `keep`.
#[inline]
fn run(bytes: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| keep(b)).count())
}

/// strict: the group of the first `#### (\-?[0-9\.\,]+)`.
pub fn strict_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let strict = |b: u8| matches!(b, b'0'..=b'9' | b'.' | b',');
    let finder = memchr::memmem::Finder::new("#### ");
    let mut from = 0;
    while let Some(found) = finder.find(bytes.get(from..)?) {
        let start = from + found + 5;
        let sign = usize::from(bytes.get(start) == Some(&b'-'));
        let body = run(bytes, start + sign, strict);
        if body > 0 {
            return text.get(start..start + sign + body);
        }
        // Without its sign the group would start at `-`, which the class does not hold.
        from += found + 1;
    }
    None
}

/// flexible: the last match of `(-?[$0-9.,]{2,})|(-?[0-9]+)`, matches taken left to right.
///
/// Matches hold only `-` and `[$0-9.,]` bytes, and a scan enters each maximal run of them at its
/// start, so the runs match independently: the answer is the last match of the last run that has
/// one. The runs are found from the end, where final answers are.
pub fn flexible_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let in_run = |b: &u8| *b == b'-' || is_loose(*b);
    let mut end = bytes.len();
    loop {
        let last = bytes.get(..end)?.iter().rposition(in_run)?;
        let start = bytes
            .get(..last)?
            .iter()
            .rposition(|b| !in_run(b))
            .map_or(0, |i| i + 1);
        if let Some((from, to)) = last_flexible_match(bytes.get(start..=last)?) {
            return text.get(start + from..start + to);
        }
        end = start;
    }
}

/// The last match of flexible's pattern in one run of `-` and `[$0-9.,]` bytes.
fn last_flexible_match(run_bytes: &[u8]) -> Option<(usize, usize)> {
    let mut last = None;
    let mut at = 0;
    while at < run_bytes.len() {
        let sign = usize::from(run_bytes[at] == b'-');
        let loose = run(run_bytes, at + sign, is_loose);
        let len = if loose >= 2 {
            sign + loose
        } else if run_bytes.get(at + sign).is_some_and(u8::is_ascii_digit) {
            // The second alternative: `-?` and one digit (a longer digit run would be `loose`).
            sign + 1
        } else {
            0
        };
        if len == 0 {
            at += 1;
        } else {
            last = Some((at, at + len));
            at += len;
        }
    }
    last
}

/// The first match of `-?\$?[0-9][0-9,]*(?:\.[0-9]+)?` in `text`.
fn first_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let shape = |at: usize| -> Option<usize> {
        let mut end = at + usize::from(bytes.get(at) == Some(&b'-'));
        end += usize::from(bytes.get(end) == Some(&b'$'));
        if !bytes.get(end)?.is_ascii_digit() {
            return None;
        }
        end += 1 + run(bytes, end + 1, |b| b.is_ascii_digit() || b == b',');
        if bytes.get(end) == Some(&b'.') {
            let fraction = run(bytes, end + 1, |b| b.is_ascii_digit());
            if fraction > 0 {
                end += 1 + fraction;
            }
        }
        Some(end)
    };
    for (at, &b) in bytes.iter().enumerate() {
        // With its `-` or `$` the match needs a digit after; without them it starts on one, so
        // a failed try at a sign is never rescued by dropping the sign (the class holds no `-`).
        if matches!(b, b'-' | b'$' | b'0'..=b'9') {
            if let Some(end) = shape(at) {
                return text.get(at..end);
            }
        }
    }
    None
}

/// answer line: the number of the first `A:` whose rest is one line (see the module's docs).
pub fn answer_line_number(text: &str) -> Option<&str> {
    // The last non-whitespace character, and the last newline before it: a candidate's content
    // must start after that newline, or the candidate must end where only whitespace leads to it.
    let content_end = text
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_py_space(c))
        .map(|(i, c)| i + c.len_utf8())?;
    let line = memchr::memrchr(b'\n', text.as_bytes().get(..content_end)?);
    let finder = memchr::memmem::Finder::new("A:");
    let at = match line {
        None => finder.find(text.as_bytes())?,
        Some(newline) => {
            // Before the newline, only an `A:` followed by whitespace through it can match.
            let run_start = text
                .get(..newline)?
                .char_indices()
                .rev()
                .find(|&(_, c)| !is_py_space(c))
                .map_or(0, |(i, c)| i + c.len_utf8());
            if text.get(..run_start)?.ends_with("A:") {
                run_start - 2
            } else {
                newline + 1 + finder.find(text.as_bytes().get(newline + 1..)?)?
            }
        }
    };
    let rest = text.get(at + 2..content_end.max(at + 2))?;
    first_number(rest.trim_start_matches(is_py_space))
}

/// Which number [`number`] extracts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NumberMethod {
    Strict,
    Flexible,
    AnswerLine,
    /// A gold answer: its `#### n` line, else the whole stripped text when it is one number.
    Gold,
}

/// The raw number `method` finds in `text`, before cleaning.
pub fn raw_number(text: &str, method: NumberMethod) -> Option<&str> {
    match method {
        NumberMethod::Strict => strict_number(text),
        NumberMethod::Flexible => flexible_number(text),
        NumberMethod::AnswerLine => answer_line_number(text),
        NumberMethod::Gold => strict_number(text).or_else(|| {
            let whole = text.trim_matches(is_py_space);
            first_number(whole).filter(|n| n.len() == whole.len())
        }),
    }
}

/// Append `raw` without `,` and `$`, then drop one trailing `.`.
pub fn push_clean_number(raw: &str, out: &mut String) {
    let start = out.len();
    out.extend(raw.chars().filter(|&c| c != ',' && c != '$'));
    if out.len() > start && out.ends_with('.') {
        out.pop();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn strict_takes_the_first_hash_line_with_a_number() {
        assert_eq!(strict_number("x #### -1,207.5 y"), Some("-1,207.5"));
        assert_eq!(strict_number("#### x\n#### 12"), Some("12"));
        assert_eq!(strict_number("##### 7"), Some("7"));
        assert_eq!(strict_number("#### -x #### 3"), Some("3"));
        assert_eq!(strict_number("####5"), None);
    }

    #[test]
    fn flexible_takes_the_last_match_left_to_right() {
        assert_eq!(flexible_number("1-2"), Some("-2"));
        assert_eq!(flexible_number("costs $1,500."), Some("$1,500."));
        assert_eq!(flexible_number("a 7 b"), Some("7"));
        assert_eq!(flexible_number("x - y . z"), None);
        assert_eq!(flexible_number("-."), None);
        assert_eq!(flexible_number("--5"), Some("-5"));
        assert_eq!(flexible_number("3 then .."), Some(".."));
    }

    #[test]
    fn answer_line_needs_one_line_after_the_colon() {
        assert_eq!(answer_line_number("A: 5\nA: 6"), Some("6"));
        assert_eq!(
            answer_line_number("A:\n\n $1,200.50 apples \n"),
            Some("$1,200.50")
        );
        assert_eq!(answer_line_number("A: 5\nA:"), None);
        assert_eq!(answer_line_number("A: 5 \n x"), None);
        assert_eq!(answer_line_number("QA: -3. 4"), Some("-3"));
        assert_eq!(answer_line_number("B: 4"), None);
        assert_eq!(answer_line_number("   "), None);
    }

    #[test]
    fn gold_is_the_hash_line_or_the_whole_text() {
        assert_eq!(raw_number("so\n#### 18", NumberMethod::Gold), Some("18"));
        assert_eq!(raw_number(" 1,207 ", NumberMethod::Gold), Some("1,207"));
        assert_eq!(raw_number("18 apples", NumberMethod::Gold), None);
        let mut out = String::new();
        push_clean_number("$1,500.", &mut out);
        assert_eq!(out, "1500");
    }

    use super::*;
    use crate::pyunicode::test_tables;

    #[test]
    fn answer_is_takes_the_first_match() {
        assert_eq!(
            answer_is("the answer is (B). No, the answer is C"),
            Some('B')
        );
        assert_eq!(
            answer_is("the answer is (x) and the answer is D"),
            Some('D')
        );
        assert_eq!(answer_is("The answer is b"), None);
        assert_eq!(answer_is("answer is K"), None);
    }

    #[test]
    fn answer_colon_is_the_last_on_the_first_line_with_one() {
        assert_eq!(answer_colon("Answer: A, answer: B\nAnswer: C"), Some('B'));
        assert_eq!(answer_colon("Answer:\n\n C"), Some('C'));
        assert_eq!(answer_colon("Answer: x\nanswer:\x1cD"), Some('D'));
        assert_eq!(answer_colon("nswer: A"), None);
    }

    /// The rule as first written: a scan back from every hit to its line's start (quadratic).
    fn answer_colon_scanning_back(text: &str) -> Option<char> {
        let bytes = text.as_bytes();
        let mut found: Option<(usize, char)> = None;
        for at in memchr::memmem::find_iter(bytes, b"nswer:") {
            let line = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
            if found.is_some_and(|(first_line, _)| line != first_line) {
                break;
            }
            if at == 0 || !matches!(bytes[at - 1], b'a' | b'A') {
                continue;
            }
            if let Some(c) = letter_after(text, at + 6) {
                found = Some((line, c));
            }
        }
        found.map(|(_, c)| c)
    }

    #[test]
    fn answer_colon_agrees_with_the_scan_back_from_each_hit() {
        // Every sequence of up to five pieces: hits with and without a letter, newlines between
        // and inside them, and text that is neither.
        let pieces = [
            "Answer: A",
            "answer: B",
            "Answer:",
            "nswer: C",
            "\n",
            "answer:\n D",
            " x ",
            "Answer:z",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
            texts.dedup();
        }
        for text in &texts {
            assert_eq!(
                answer_colon(text),
                answer_colon_scanning_back(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn last_standalone_uses_python_word_characters() {
        let t = test_tables::install();
        assert_eq!(last_standalone(t, "A or B, not CD"), Some('B'));
        assert_eq!(last_standalone(t, "(E)"), Some('E'));
        assert_eq!(last_standalone(t, "B_ C2 éD"), None);
        assert_eq!(
            mmlu_pro_choice(t, "so A. answer is", ChoiceRules::Full),
            Some('A')
        );
        assert_eq!(mmlu_pro_choice(t, "so A.", ChoiceRules::AnswerIs), None);
    }
}
