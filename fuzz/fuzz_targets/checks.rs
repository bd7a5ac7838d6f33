//! The judge-free checks' kernels: keyword search, Python's `str.split()` word count and
//! `text.lower().startswith(prefix)`.
//!
//! No panic; found <= total, total the non-null keywords, the empty keyword always found; the word
//! count equals a plain split on Python whitespace; the early-stopping `lower_starts_with` equals
//! lowering the whole text, and a text's lower case is a prefix of it.
#![no_main]

use _internal::deterministic::{self, Scratch};
use _internal::pyunicode::is_py_space;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{tables, List, Text};

#[derive(Arbitrary, Debug)]
struct Input {
    text: Text<{ 1 << 20 }>,
    keywords: List<256, 16>,
    case_sensitive: bool,
    prefix: Text<64>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let t = tables();
    let text = input.text.0.as_str();
    let mut s = Scratch::default();
    let (found, total) = deterministic::keywords_found(
        t,
        text,
        input.keywords.items(),
        input.case_sensitive,
        &mut s,
    );
    assert!(found <= total);
    assert_eq!(total as usize, input.keywords.items().flatten().count());
    let (empty_found, _) = deterministic::keywords_found(
        t,
        text,
        std::iter::once(Some("")),
        input.case_sensitive,
        &mut s,
    );
    assert_eq!(empty_found, 1);

    let split = text.split(is_py_space).filter(|w| !w.is_empty()).count();
    assert_eq!(
        deterministic::py_word_count(text) as usize,
        split,
        "{input:?}"
    );

    let lowered = t.lower(text);
    assert!(deterministic::lower_starts_with(t, text, &lowered));
    let prefix = t.lower(&input.prefix.0);
    assert_eq!(
        deterministic::lower_starts_with(t, text, &prefix),
        lowered.starts_with(&prefix),
        "{input:?}"
    );
});
