//! The MMLU-Pro harness's final-answer letter.
//!
//! No panic; a letter is one of A..J; the first rule alone agrees with the full rules whenever
//! it finds a letter (it is tried first).
#![no_main]

use _internal::extract::{self, ChoiceRules};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{tables, Text};

#[derive(Arbitrary, Debug)]
struct Input {
    text: Text<{ 1 << 20 }>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
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
});
