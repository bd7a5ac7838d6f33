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

use crate::pyunicode::{is_py_space, Tables};

#[inline]
fn is_choice(c: char) -> bool {
    ('A'..='J').contains(&c)
}

/// Rule 1: the first `answer is ` followed by a letter, or by `(` and a letter.
pub fn answer_is(text: &str) -> Option<char> {
    const NEEDLE: &str = "answer is ";
    for (at, _) in text.match_indices(NEEDLE) {
        let mut rest = text.get(at + NEEDLE.len()..)?.chars();
        match rest.next() {
            Some(c) if is_choice(c) => return Some(c),
            Some('(') => {
                if let Some(c) = rest.next().filter(|&c| is_choice(c)) {
                    return Some(c);
                }
            }
            _ => {}
        }
    }
    None
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
    let mut line_start = 0;
    for line in text.split('\n') {
        let mut last = None;
        for (at, _) in line.match_indices("nswer:") {
            let before = line.get(..at).and_then(|b| b.chars().next_back());
            if !matches!(before, Some('a' | 'A')) {
                continue;
            }
            if let Some(c) = letter_after(text, line_start + at + "nswer:".len()) {
                last = Some(c);
            }
        }
        if last.is_some() {
            return last;
        }
        line_start += line.len() + 1;
    }
    None
}

/// Rule 3: the last `A`..`J` with no Python word character on either side.
pub fn last_standalone(t: &Tables, text: &str) -> Option<char> {
    let mut after: Option<char> = None;
    let mut chars = text.chars().rev().peekable();
    while let Some(c) = chars.next() {
        if is_choice(c) {
            let before = chars.peek().copied();
            let free_after = after.is_none_or(|a| !t.is_word(a));
            let free_before = before.is_none_or(|b| !t.is_word(b));
            if free_after && free_before {
                return Some(c);
            }
        }
        after = Some(c);
    }
    None
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

#[cfg(test)]
mod tests {
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
