//! response_similarity (token recall, token F1, ROUGE-L over Python words) and the character
//! similarities (RapidFuzz's Indel, difflib's SequenceMatcher).
//!
//! No panic; scores in [0, 1]; the null rule (no best answer exactly when none is usable); the
//! best is the first maximal item; Indel is symmetric and 1 on equal texts; SequenceMatcher is 1
//! on equal texts below difflib's autojunk size.
#![no_main]

use _internal::precision::char_ratio::{self, RatioScratch};
use _internal::pyunicode::py_is_blank;
use _internal::similarity::{Metric, Scorer, Scratch};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{assert_score, tables, List, Text, TimeBound};

#[derive(Arbitrary, Debug)]
enum Which {
    TokenRecall,
    TokenF1,
    RougeL,
}

#[derive(Arbitrary, Debug)]
struct Input {
    metric: Which,
    // Word-level LCS is bit-parallel (n m / 64): large texts stay well within the time bound.
    response: Text<{ 1 << 17 }>,
    answers: List<{ 1 << 16 }, 6>,
    // Character LCS and difflib are quadratic in the worst case: small pairs.
    a: Text<8192>,
    b: Text<8192>,
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let _bound = TimeBound::new(
        input.response.len() + input.answers.len() + input.a.len() + input.b.len(),
    )
    // each answer scored, then scored again for the best, and the scores checked
    .passes(12)
    // the character similarities on (a, b), and ROUGE-L's words (about 5 bytes each)
    .with_pairs(input.a.len() * input.b.len() + input.response.len() * input.answers.len() / 25);
    let t = tables();
    let metric = match input.metric {
        Which::TokenRecall => Metric::TokenRecall,
        Which::TokenF1 => Metric::TokenF1,
        Which::RougeL => Metric::RougeL,
    };
    let mut scratch = Scratch::default();
    let mut scorer = Scorer::new(metric, &input.response.0, &mut scratch);
    let scores: Vec<Option<f64>> = input
        .answers
        .items()
        .map(|a| {
            let text = a.unwrap_or("None");
            (!py_is_blank(text)).then(|| scorer.score(t, text))
        })
        .collect();
    for score in scores.iter().flatten() {
        assert_score(*score, &input);
    }
    let best = scorer.best(t, input.answers.items());
    let max = scores
        .iter()
        .flatten()
        .copied()
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    assert_eq!(best.map(|b| b.score), max, "{input:?}");
    if let Some(b) = best {
        assert_eq!(
            scores.iter().position(|&s| s == max),
            Some(b.index as usize)
        );
        assert_eq!(b.count as usize, scores.iter().flatten().count());
    }

    let mut s = RatioScratch::default();
    let (a, b) = (input.a.0.as_str(), input.b.0.as_str());
    // Unbounded, then bounded: a bound either gives the same answer or none.
    let indel = char_ratio::indel(a, b, &mut s, None).unwrap_or(f64::NAN);
    assert_score(indel, &input);
    assert_eq!(
        indel,
        char_ratio::indel(b, a, &mut s, None).unwrap_or(f64::NAN),
        "indel symmetry, {input:?}"
    );
    assert_eq!(
        char_ratio::indel(a, a, &mut s, None),
        Some(1.0),
        "indel identity, {input:?}"
    );
    if let Some(bounded) = char_ratio::indel(a, b, &mut s, Some(10_000)) {
        assert_eq!(bounded, indel, "indel within a budget, {input:?}");
    }
    let ratio = char_ratio::sequence_matcher(a, b, &mut s, None).unwrap_or(f64::NAN);
    assert_score(ratio, &input);
    if let Some(bounded) = char_ratio::sequence_matcher(a, b, &mut s, Some(10_000)) {
        assert_eq!(bounded, ratio, "difflib within a budget, {input:?}");
    }
    if a.chars().count() < 200 {
        let itself = char_ratio::sequence_matcher(a, a, &mut s, None);
        assert_eq!(itself, Some(1.0), "difflib identity, {input:?}");
    }
});
