//! The judge-free checks' kernels: keyword search, Python's `str.split()` word count and
//! `text.lower().startswith(prefix)`.
//!
//! No panic; found <= total, total the non-null keywords, the empty keyword always found; the word
//! count equals a plain split on Python whitespace; the early-stopping `lower_starts_with` equals
//! lowering the whole text, and a text's lower case is a prefix of it. The searchers of a literal
//! keyword list find what the per-row search finds; exact_match is symmetric and equals
//! comparing stripped, lowered copies; non_blank is "strip() is not empty"; the URL scan never
//! calls a URL a text without `://` (once tabs and newlines are removed).
#![no_main]

use _internal::deterministic::{self, Scratch};
use _internal::pyunicode::{self, is_py_space};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{tables, List, Text, TimeBound};

#[derive(Arbitrary, Debug)]
struct Input {
    text: Text<{ 1 << 20 }>,
    keywords: List<256, 16>,
    case_sensitive: bool,
    prefix: Text<64>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let _bound = TimeBound::new(input.text.len() + input.keywords.len() + input.prefix.len())
    // keywords twice, the word count, lowering, exact_match both ways
    .passes(8);
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

    let wanted: Vec<String> = input
        .keywords
        .items()
        .flatten()
        .map(|k| if input.case_sensitive { k.to_string() } else { t.lower(k) })
        .collect();
    let finders: Vec<memchr::memmem::Finder<'static>> = wanted
        .iter()
        .map(|k| memchr::memmem::Finder::new(k.as_bytes()).into_owned())
        .collect();
    let all = deterministic::count_found(t, text, &finders, input.case_sensitive, false, &mut s);
    assert_eq!(all, found, "{input:?}");
    let first = deterministic::count_found(t, text, &finders, input.case_sensitive, true, &mut s);
    assert_eq!(first, u32::from(found > 0));

    let other = input.prefix.0.as_str();
    for (case_sensitive, strip) in [(true, true), (false, true), (true, false), (false, false)] {
        let equal = deterministic::exact_equal(t, text, other, case_sensitive, strip, &mut s);
        assert_eq!(
            equal,
            deterministic::exact_equal(t, other, text, case_sensitive, strip, &mut s)
        );
        let side = |x: &str| {
            let x = if strip { pyunicode::py_strip(x) } else { x };
            if case_sensitive { x.to_string() } else { t.lower(x) }
        };
        assert_eq!(equal, side(text) == side(other), "{input:?}");
    }
    assert_eq!(deterministic::non_blank(text), !pyunicode::py_strip(text).is_empty());
    if deterministic::url_state(text) == Some(true) {
        let kept: String = text.chars().filter(|c| !matches!(c, '\t' | '\r' | '\n')).collect();
        assert!(kept.contains("://"), "{input:?}");
    }
});
