//! answer_precision: the weighted blend of exact, normalized, contains, char_ratio, token and
//! numeric components; and its number scanner and greedy number matching on their own.
//!
//! No panic with any options the Python side accepts (and any tolerance, valid or not); the
//! score and every component in [0, 1], or null by the null rule; identity (a non-blank text
//! scores 1 against itself under valid tolerances, unless its numbers overflow to infinity);
//! the details of a scored row build; greedy matching takes each actual number at most once.
#![no_main]

use _internal::precision::{self, numbers, Comp, Options, Path, Scratch};
use _internal::pyunicode::py_is_blank;
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{assert_score, float, tables, Text, TimeBound};

const COMPONENTS: [Comp; 7] = [
    Comp::Exact,
    Comp::Normalized,
    Comp::Contains,
    Comp::CharRatio,
    Comp::TokenPrecision,
    Comp::Numeric,
    Comp::TokenRecall,
];

struct Opts(Options);

impl std::fmt::Debug for Opts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = &self.0;
        let weights: Vec<(String, f64)> = o
            .weights
            .iter()
            .map(|(c, w)| (format!("{c:?}"), *w))
            .collect();
        write!(
            f,
            "indel={} zero_missing={} power_p={} weights={weights:?} stopwords={:?}",
            o.indel,
            o.zero_missing,
            o.power_p,
            o.stopwords.tokens().collect::<Vec<_>>()
        )
    }
}

impl<'a> Arbitrary<'a> for Opts {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (indel, zero_missing) = u.arbitrary()?;
        // Python takes a positive finite power and non-negative finite weights, some positive.
        let power_p = match u.int_in_range(0..=3u8)? {
            0 => 0.3,
            1 => f64::from(u.int_in_range(1..=1000u16)?) / 100.0,
            _ => {
                let x = float(u)?.abs();
                if x.is_finite() && x > 0.0 {
                    x
                } else {
                    1.0
                }
            }
        };
        let mut weights = Vec::new();
        for comp in COMPONENTS {
            if u.arbitrary()? {
                let w = match u.int_in_range(0..=2u8)? {
                    0 => f64::from(u.int_in_range(0..=100u8)?) / 10.0,
                    _ => float(u)?.abs(),
                };
                if w.is_finite() {
                    weights.push((comp, w));
                }
            }
        }
        if !weights.iter().any(|&(_, w)| w > 0.0) {
            weights.push((Comp::CharRatio, 1.0));
        }
        let n_stop = u.int_in_range(0..=4u8)?;
        let mut stopwords = Vec::new();
        for _ in 0..n_stop {
            stopwords.push(u.arbitrary::<Text<16>>()?.0);
        }
        Ok(Opts(Options::new(
            indel,
            zero_missing,
            power_p,
            weights,
            precision::stopword_table(&stopwords),
            None,
        )))
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    options: Opts,
    // Character similarity is quadratic in the worst case (difflib's own algorithm): the pair
    // stays small enough that a linear factor, not a blow-up, sets the time.
    response: Option<Text<8192>>,
    reference: Option<Text<8192>>,
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
    // The number scanner and the matching are linear or n log n: huge texts.
    actual_numbers: Text<{ 1 << 20 }>,
    expected_numbers: Text<{ 1 << 20 }>,
}

fn valid(t: Option<f64>) -> bool {
    t.is_some_and(|x| x.is_finite() && x >= 0.0)
}

fuzz_target!(init: polarscore_fuzz::warm_up(), |input: Input| {
    let _bound = TimeBound::new(
        input.response.as_ref().map_or(0, Text::len)
            + input.reference.as_ref().map_or(0, Text::len)
            + input.actual_numbers.len()
            + input.expected_numbers.len(),
    )
    // the score, against itself, the details; the number scans on both huge texts
    .passes(4)
    // the character similarity, without max_work: O(n*m) on the pair
    .with_pairs(
        input.response.as_ref().map_or(0, Text::len)
            * input.reference.as_ref().map_or(0, Text::len),
    );
    let t = tables();
    let o = &input.options.0;
    let mut s = Scratch::default();
    let response = input.response.as_ref().map(|r| r.0.as_str());
    let reference = input.reference.as_ref().map(|r| r.0.as_str());
    let (ta, tr) = (input.tol_abs, input.tol_rel);
    let scored = precision::score_pair(t, o, response, reference, ta, tr, &mut s);
    if !(valid(ta) && valid(tr)) {
        assert_eq!(scored.path, Path::InvalidTolerance);
    }
    if let Some(score) = scored.score {
        assert_score(score, &input);
    }
    if let Some(c) = scored.components {
        for x in [
            c.exact,
            c.normalized,
            c.contains,
            c.char_ratio,
            c.token_precision,
            c.token_recall,
            c.numeric,
            c.score,
        ] {
            assert_score(x, &(c, &input));
        }
        assert!(c.penalty == 0.0 || c.penalty == 0.05);
        let (mut missing, mut extra, mut mismatches, mut reason) =
            (Vec::new(), Vec::new(), Vec::new(), String::new());
        precision::details(
            t,
            o,
            &c,
            &s,
            &mut missing,
            &mut extra,
            &mut mismatches,
            &mut reason,
        );
        assert!(missing.windows(2).all(|w| w[0] <= w[1]) && extra.windows(2).all(|w| w[0] <= w[1]));
        assert!(!reason.is_empty());
    }
    // Identity, with sane weights and tolerances.
    if let Some(r) = response.filter(|r| !py_is_blank(r)) {
        let total: f64 = o.weights.iter().map(|w| w.1).sum();
        let sane = total.is_finite() && (0.01..=100.0).contains(&o.power_p);
        let (mut digits, mut nums) = (String::new(), Vec::new());
        numbers::numbers(t, r, &mut digits, &mut nums);
        if sane && nums.iter().all(|x| x.is_finite()) {
            let itself =
                precision::score_pair(t, o, Some(r), Some(r), Some(0.0), Some(0.0), &mut s);
            let score = itself.score.unwrap_or(f64::NAN);
            assert!(score > 1.0 - 1e-9, "identity: {score} {itself:?} {input:?}");
        }
    }
    // The number scanner and greedy matching on huge texts.
    let mut digits = String::new();
    let (mut actual, mut expected) = (Vec::new(), Vec::new());
    numbers::numbers(t, &input.actual_numbers.0, &mut digits, &mut actual);
    numbers::numbers(t, &input.expected_numbers.0, &mut digits, &mut expected);
    let mut m = numbers::MatchScratch::default();
    let (mut chosen, mut error) = (Vec::new(), Vec::new());
    numbers::greedy_match(&actual, &expected, &mut m, &mut chosen, &mut error);
    assert_eq!(chosen.len(), expected.len());
    assert_eq!(error.len(), expected.len());
    let mut taken = vec![false; actual.len()];
    for (k, c) in chosen.iter().enumerate() {
        if let Some(j) = *c {
            assert!(
                !std::mem::replace(&mut taken[j], true),
                "actual {j} taken twice"
            );
            assert!(error[k] >= 0.0, "error {} of expected {k}", error[k]);
        }
    }
});
