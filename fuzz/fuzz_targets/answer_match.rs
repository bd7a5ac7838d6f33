//! answer_match: alias matching by exact, contains, date, approximate-number and token-recall
//! rules, each second-round rule and each rejection rule (hedges, negations, sweeps, loops)
//! switched on or off at random.
//!
//! No panic with any options the Python side accepts; null rule (no decision exactly when no
//! alias is usable); scores in {0, 1}, the graded score in [0, 1]; an alias is chosen exactly
//! when a rule accepted, and it is one of the row's; a rejection only from a rule that is on;
//! identity (a non-blank text matches itself when the exact rule is on and no rejection rule); the
//! normalisation is words between single spaces, one on each side, and the same as the
//! step-by-step port of the recipe (with glued words split too).
#![no_main]

use _internal::answer_match::reference::StepNormalizer;
use _internal::answer_match::{has_glued_words, Matcher, Normalizer, Options, Rule};
use _internal::answer_rules::{has_glued_years, unglue_into};
use _internal::pyunicode::py_is_blank;
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use polarscore_fuzz::{assert_score, fold_table, tables, List, Text, TimeBound};

#[derive(Debug)]
struct Switches(Options);

impl<'a> Arbitrary<'a> for Switches {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (exact, contains, token_recall) = u.arbitrary()?;
        // The Python side takes a threshold in (0, 1] and a positive stem prefix, or None.
        let min_token_recall = f64::from(u.int_in_range(1..=255u8)?) / 255.0;
        let stem_prefix = match u.int_in_range(0..=3u8)? {
            0 => None,
            1 => Some(usize::MAX),
            _ => Some(u.int_in_range(1..=12usize)?),
        };
        let (numbers_must_match, fold_accents, number_words) = u.arbitrary()?;
        // The second-round rules.
        let (dates, parentheticals, repair_mojibake, approximate_numbers, glued_words) =
            u.arbitrary()?;
        // The rules that reject a named but unasserted gold, and the letter rule.
        let (hedges, negations, sweeps, degenerate_loops, letters) = u.arbitrary()?;
        Ok(Switches(Options {
            exact,
            contains,
            token_recall,
            min_token_recall,
            stem_prefix,
            numbers_must_match,
            fold_accents,
            number_words,
            dates,
            parentheticals,
            repair_mojibake,
            approximate_numbers,
            glued_words,
            hedges,
            negations,
            sweeps,
            degenerate_loops,
            letters,
        }))
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    options: Switches,
    response: Text<{ 1 << 20 }>,
    references: List<4096, 8>,
    question: Option<Text<4096>>,
}

fuzz_target!(init: {
    polarscore_fuzz::warm_up();
    fold_table();
}, |input: Input| {
    let _bound = TimeBound::new(
        input.response.len() + input.references.len() + input.question.as_ref().map_or(0, Text::len),
    )
    // decided, against itself, normalised four ways
    .passes(24);
    let t = tables();
    let opts = &input.options.0;
    let fold = opts.fold_accents.then(fold_table);
    let response = input.response.0.as_str();
    let question = input.question.as_ref().map(|q| q.0.as_str());
    let refs = &input.references;
    let mut matcher = Matcher::default();
    let decision = matcher.decide(t, fold, opts, response, refs.items(), question);
    let usable = refs.items().flatten().any(|a| !py_is_blank(a));
    assert_eq!(decision.is_some(), usable, "null rule, {input:?}");
    if let Some(d) = decision {
        assert_score(d.graded, &input);
        assert!(d.score() == 0.0 || d.score() == 1.0);
        // An alias is chosen exactly when a rule accepted the row; a rejection names no alias.
        assert_eq!(d.index.is_some(), d.accepted(), "{d:?} {input:?}");
        // A rejection comes only from a rule that is on.
        let allowed = match d.rule {
            Rule::Hedge => opts.hedges,
            Rule::Negated => opts.negations,
            Rule::Sweep => opts.sweeps,
            Rule::Degenerate => opts.degenerate_loops,
            _ => true,
        };
        assert!(allowed, "{d:?} with its rule off, {input:?}");
        if let Some(i) = d.index {
            let alias = refs.0.get(i as usize).and_then(|a| a.as_deref());
            assert!(alias.is_some_and(|a| !py_is_blank(a)), "{d:?} {input:?}");
        }
    }
    // Identity holds with the rejection rules off: with them on, a text that hedges (or loops)
    // is rejected against itself too, as it must be.
    let rejecting = opts.hedges || opts.negations || opts.sweeps || opts.degenerate_loops;
    if opts.exact && !rejecting && !py_is_blank(response) {
        let itself = matcher.decide(
            t,
            fold,
            opts,
            response,
            std::iter::once(Some(response)),
            question,
        );
        assert_eq!(itself.map(|d| d.score()), Some(1.0), "identity, {input:?}");
    }
    let mut out = String::new();
    let seen = Normalizer::default().normalize_into(t, fold, opts.number_words, response, &mut out);
    let mut steps = String::new();
    StepNormalizer::default().normalize_into(t, fold, opts.number_words, response, &mut steps);
    assert_eq!(out, steps, "one pass against the steps, {input:?}");
    assert_eq!(seen.glued_year, has_glued_years(&steps), "{input:?}");
    let mut unglued = String::new();
    let changed = unglue_into(response, &mut unglued);
    assert_eq!(has_glued_words(response), changed, "{input:?}");
    StepNormalizer::default().normalize_into(t, fold, opts.number_words, &unglued, &mut steps);
    let mut glued = String::new();
    Normalizer::default().normalize_unglued_into(t, fold, opts.number_words, response, &mut glued);
    assert_eq!(glued, steps, "glued words split, {input:?}");
    let inner = out.strip_prefix(' ').and_then(|o| o.strip_suffix(' '));
    assert!(
        out == " "
            || inner.is_some_and(|w| !w.is_empty()
                && !w.starts_with(' ')
                && !w.ends_with(' ')
                && !w.contains("  ")),
        "normalisation {out:?} of {input:?}"
    );
});
