//! The work the long-text kernels count against their `max_work` guard, for the tests and
//! benchmarks that hold the count to the time it takes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::precision::char_ratio::{self, RatioScratch};
use crate::similarity::{self, Metric};

/// `kernel`'s score of `a` against `b` (None: stopped by `max_work`) and the units of work it
/// counted: `kernel` is "indel" or "sequence_matcher" (the character similarities, of texts
/// as given) or "rouge_l" (ROUGE-L of the response `a` against the one reference `b`).
#[pyfunction]
#[pyo3(signature = (kernel, a, b, max_work=None))]
pub fn long_text_work(
    kernel: &str,
    a: &str,
    b: &str,
    max_work: Option<u64>,
) -> PyResult<(Option<f64>, u64)> {
    let mut s = RatioScratch::default();
    match kernel {
        "indel" => Ok(char_ratio::indel_counted(a, b, &mut s, max_work)),
        "sequence_matcher" => Ok(char_ratio::sequence_matcher_counted(a, b, &mut s, max_work)),
        "rouge_l" => {
            let t = crate::pyunicode::tables().map_err(PyValueError::new_err)?;
            let mut scratch = similarity::Scratch::default();
            let mut scorer =
                similarity::Scorer::new(Metric::RougeL, a, &mut scratch).with_max_work(max_work);
            let score = scorer
                .best(t, std::iter::once(Some(b)))
                .map(|best| best.score);
            Ok((score, scorer.work_spent()))
        }
        _ => Err(PyValueError::new_err(format!(
            "kernel must be one of 'indel', 'sequence_matcher', 'rouge_l'; got {kernel:?}"
        ))),
    }
}
