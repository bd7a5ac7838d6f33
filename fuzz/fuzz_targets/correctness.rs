//! answer_correctness: DataRobot's exact, normalized and contains match.
//!
//! No panic; the null rule (inconclusive exactly when the reference is null or blank); identity
//! (a non-blank text matches itself in every mode); exact and normalized are symmetric; a list
//! row is decided as its items are one by one; the normalisation has no outer or double spaces.
#![no_main]

use _internal::correctness::{self, Mode, Outcome, Scratch};
use _internal::pyunicode::py_is_blank;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{tables, List, Text, TimeBound};

#[derive(Arbitrary, Debug)]
struct Input {
    response: Text<{ 1 << 20 }>,
    reference: Option<Text<{ 1 << 16 }>>,
    references: List<4096, 8>,
    row_mode: Option<Text<64>>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let _bound = TimeBound::new(
        input.response.len()
            + input.reference.as_ref().map_or(0, Text::len)
            + input.references.len(),
    )
    // four modes, each against the reference, itself, swapped and per item
    .passes(16);
    let t = tables();
    let mut s = Scratch::default();
    let response = input.response.0.as_str();
    let reference = input.reference.as_ref().map(|r| r.0.as_str());
    let row_mode = Mode::from_row(t, input.row_mode.as_ref().map(|m| m.0.as_str()));
    for mode in [Mode::Exact, Mode::Normalized, Mode::Contains, row_mode] {
        let outcome = correctness::score_pair(t, response, reference, mode, &mut s);
        assert_eq!(
            outcome == Outcome::Inconclusive,
            reference.is_none_or(py_is_blank),
            "{mode:?} {input:?}"
        );
        if !py_is_blank(response) {
            let itself = correctness::score_pair(t, response, Some(response), mode, &mut s);
            assert_eq!(itself, Outcome::Match, "identity, {mode:?} {input:?}");
            if let Some(r) = reference.filter(|r| !py_is_blank(r)) {
                if mode != Mode::Contains {
                    let swapped = correctness::score_pair(t, r, Some(response), mode, &mut s);
                    assert_eq!(swapped, outcome, "symmetry, {mode:?} {input:?}");
                }
            }
        }
        // A list row: the first matching item, else the first usable one.
        let singles: Vec<Outcome> = input
            .references
            .items()
            .map(|r| correctness::score_pair(t, response, r, mode, &mut s))
            .collect();
        let position = |o: Outcome| singles.iter().position(|&x| x == o).map(|i| i as u32);
        let expected = match (position(Outcome::Match), position(Outcome::NoMatch)) {
            (Some(i), _) => (Outcome::Match, Some(i)),
            (None, Some(i)) => (Outcome::NoMatch, Some(i)),
            (None, None) => (Outcome::Inconclusive, None),
        };
        let many = correctness::score_many(t, response, input.references.items(), mode, &mut s);
        assert_eq!(many, expected, "list row, {mode:?} {input:?}");
    }
    let mut normalized = String::new();
    correctness::normalize_into(t, response, &mut normalized);
    assert!(
        !normalized.starts_with(' ') && !normalized.ends_with(' ') && !normalized.contains("  "),
        "normalisation {normalized:?} of {input:?}"
    );
    assert!(correctness::normalized_equals(t, response, &normalized));
});
