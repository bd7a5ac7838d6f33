//! SQuAD v1.1's exact match and F1 over the best of a row's references.
//!
//! No panic; scores in [0, 1], exact match 0 or 1; the null rule (null exactly when no reference
//! is usable); symmetry of both scores (the registry declares it); exact match's identity; the
//! best over a list is the maximum of the items.
#![no_main]

use _internal::pyunicode::py_is_blank;
use _internal::squad::{self, Pair, Scratch};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{assert_score, tables, List, Text, TimeBound};

#[derive(Arbitrary, Debug)]
struct Input {
    response: Text<{ 1 << 20 }>,
    reference: Option<Text<{ 1 << 16 }>>,
    references: List<4096, 8>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let _bound = TimeBound::new(
        input.response.len()
            + input.reference.as_ref().map_or(0, Text::len)
            + input.references.len(),
    )
    // both scores against the reference, swapped, itself and per item
    .passes(24);
    let t = tables();
    let mut s = Scratch::default();
    let response = input.response.0.as_str();
    let reference = input.reference.as_ref().map(|r| r.0.as_str());
    for pair in [Pair::ExactMatch, Pair::F1] {
        let one = squad::best(t, pair, response, std::iter::once(reference), &mut s);
        assert_eq!(
            one.is_none(),
            reference.is_none_or(py_is_blank),
            "{pair:?} {input:?}"
        );
        if let Some(x) = one {
            assert_score(x, &input);
            if pair == Pair::ExactMatch {
                assert!(x == 0.0 || x == 1.0);
            }
        }
        if let Some(r) = reference.filter(|r| !py_is_blank(r) && !py_is_blank(response)) {
            let swapped = squad::best(t, pair, r, std::iter::once(Some(response)), &mut s);
            assert_eq!(swapped, one, "symmetry, {pair:?} {input:?}");
        }
        if pair == Pair::ExactMatch && !py_is_blank(response) {
            let itself = squad::best(t, pair, response, std::iter::once(Some(response)), &mut s);
            assert_eq!(itself, Some(1.0), "identity, {input:?}");
        }
        let items: Vec<Option<f64>> = input
            .references
            .items()
            .map(|r| squad::best(t, pair, response, std::iter::once(r), &mut s))
            .collect();
        let max = items
            .iter()
            .flatten()
            .copied()
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let many = squad::best(t, pair, response, input.references.items(), &mut s);
        assert_eq!(many, max, "list row, {pair:?} {input:?}");
    }
    let mut out = String::new();
    squad::normalize_into(t, response, &mut out);
    assert!(
        !out.starts_with(' ') && !out.ends_with(' ') && !out.contains("  "),
        "{out:?}"
    );
});
