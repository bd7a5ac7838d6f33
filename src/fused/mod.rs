//! Several scorers in one call: each row's response and references read once for all of them.
//!
//! Polars cannot share work between plugin calls, so whole-frame scoring (`score_frame`, the
//! command line, the Arrow and Spark adapters) asks for the scorers that read the same response
//! and reference columns with literal options in one call, which returns a struct of their
//! scores. Per batch, the response and reference columns are decoded once; per row, each
//! scorer's own per-row entry point runs on them, with one scratch per scorer per row range,
//! and SQuAD's exact match and F1 share one normalisation of the response and of the references
//! ([`crate::squad::best_both`]). The scores are the per-scorer expressions' exactly.

mod expressions;

#[cfg(test)]
mod tests {
    use crate::pyunicode::test_tables;
    use crate::squad::{self, Pair};

    #[test]
    fn squad_exact_match_and_f1_together_equal_each_alone() {
        let t = test_tables::install();
        let responses = [
            "",
            "the",
            "The Beatles!",
            "beatles band",
            "a b c",
            "Eiffel Tower",
            "l'année 2020",
            "ΣΑΣ the end",
            "x\u{1c}y",
            "Beatles Beatles",
            "extraordinarily long words here",
        ];
        let references: [&[Option<&str>]; 7] = [
            &[Some("The Beatles")],
            &[Some("beatles"), Some("Beatles band")],
            &[None, Some("  "), Some("the")],
            &[],
            &[Some("extraordinarily long words"), Some("a b c")],
            &[Some("σας end"), Some("L'ANNÉE 2020")],
            &[Some("x y"), None],
        ];
        let (mut s, mut alone) = (squad::Scratch::default(), squad::Scratch::default());
        for response in responses {
            for refs in references {
                let both = squad::best_both(t, response, refs.iter().copied(), &mut s);
                let exact = squad::best(
                    t,
                    Pair::ExactMatch,
                    response,
                    refs.iter().copied(),
                    &mut alone,
                );
                let f1 = squad::best(t, Pair::F1, response, refs.iter().copied(), &mut alone);
                assert_eq!(both, (exact, f1), "{response:?} against {refs:?}");
            }
        }
    }
}
