//! The MMLU-Pro harness's final-answer letter, the GSM8K final numbers, and the answer a
//! response finally commits to (final_choice, final_number).
//!
//! No panic; a letter is one of A..J; the first rule alone agrees with the full rules whenever
//! it finds a letter (it is tried first). A number found is a piece of the text made of its
//! rule's characters; flexible's number (found from the end) equals the last match of a plain
//! left-to-right scan of the whole text; the cleaned number holds no `,` or `$`. The final
//! choice is a letter with its form or a reason, never both, and one of the options' letters
//! when options are given; the final number's canonical text holds no `,` or `$` and reads as a
//! number.
#![no_main]

use _internal::extract::final_choice::final_choice;
use _internal::extract::final_number::{canonical_value, final_number_text};
use _internal::extract::{self, ChoiceRules, NumberMethod};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{tables, List, Text, TimeBound};

#[derive(Arbitrary, Debug)]
struct Input {
    text: Text<{ 1 << 20 }>,
    options: List<4096, 12>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    // the harness's rules, then final_choice twice and final_number
    let _bound = TimeBound::new(input.text.len() + input.options.len()).passes(4);
    let t = tables();
    let text = input.text.0.as_str();
    let full = extract::mmlu_pro_choice(t, text, ChoiceRules::Full);
    let first = extract::mmlu_pro_choice(t, text, ChoiceRules::AnswerIs);
    for letter in [full, first].into_iter().flatten() {
        assert!(('A'..='J').contains(&letter), "{letter:?} from {input:?}");
    }
    if first.is_some() {
        assert_eq!(first, full, "{input:?}");
    }
    assert_eq!(first, extract::answer_is(text));

    for method in [
        NumberMethod::Strict,
        NumberMethod::Flexible,
        NumberMethod::AnswerLine,
        NumberMethod::Gold,
    ] {
        let Some(raw) = extract::raw_number(text, method) else {
            continue;
        };
        assert!(!raw.is_empty() && text.contains(raw), "{method:?} {input:?}");
        assert!(
            raw.bytes()
                .all(|b| matches!(b, b'-' | b'$' | b'0'..=b'9' | b'.' | b',')),
            "{method:?} {raw:?}"
        );
        let mut clean = String::new();
        extract::push_clean_number(raw, &mut clean);
        assert!(!clean.contains([',', '$']), "{clean:?}");
    }
    assert_eq!(
        extract::flexible_number(text),
        last_flexible_left_to_right(text),
        "{input:?}"
    );

    let options: Vec<Option<&str>> = input.options.items().collect();
    for (given, count) in [(None, 26), (Some(options.as_slice()), options.len().min(26))] {
        let choice = final_choice(text, given);
        assert_eq!(choice.letter.is_some(), choice.form.is_some(), "{choice:?}");
        assert_eq!(choice.letter.is_some(), choice.reason.is_none(), "{choice:?}");
        if let Some(letter) = choice.letter {
            assert!(
                letter.is_ascii_uppercase() && usize::from(letter - b'A') < count,
                "{choice:?} of {count} options, {input:?}"
            );
        }
    }
    if let Some((canonical, _)) = final_number_text(text) {
        assert!(!canonical.contains([',', '$']), "{canonical:?}");
        assert!(canonical_value(&canonical).is_some(), "{canonical:?} from {input:?}");
    }
});

/// flexible's pattern scanned over the whole text from the left, keeping the last match.
fn last_flexible_left_to_right(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let loose = |b: u8| matches!(b, b'$' | b'0'..=b'9' | b'.' | b',');
    let (mut at, mut last) = (0, None);
    while at < bytes.len() {
        let sign = usize::from(bytes[at] == b'-');
        let run = bytes[at + sign..].iter().take_while(|&&b| loose(b)).count();
        let len = if run >= 2 {
            sign + run
        } else if bytes.get(at + sign).is_some_and(u8::is_ascii_digit) {
            sign + 1
        } else {
            0
        };
        if len == 0 {
            at += 1;
        } else {
            last = Some(&text[at..at + len]);
            at += len;
        }
    }
    last
}
