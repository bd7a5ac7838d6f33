//! The Polars and Python entry points of the regex kernel.

use std::collections::HashMap;
use std::sync::Arc;

use crate::plugin::{polars_expr, CallerContext};
use polars::prelude::*;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Deserialize;

use super::{cached, cached_backtracking, Matcher, Outcome, Scratch};
use crate::columns::{map_row_ranges, output_len, tables, Texts};
use crate::pyunicode;

/// The codes of one row's outcome.
const MATCH: i32 = 1;
const NO_MATCH: i32 = 0;
const OVER_BUDGET: i32 = -1;

fn code(outcome: Outcome) -> i32 {
    match outcome {
        Outcome::Match => MATCH,
        Outcome::NoMatch => NO_MATCH,
        Outcome::OverBudget => OVER_BUDGET,
    }
}

#[derive(Deserialize)]
struct RegexKwargs {
    /// One program for every row, or `None` when the second input gives one per row.
    program: Option<String>,
    /// The backtracking path's steps per row; `None`: unbounded.
    step_budget: Option<u64>,
}

/// Per row: 1 when the Python pattern matches the text (searched, or whole for a full-match
/// program), 0 when not, -1 when its backtracking ran out of budget; null where a per-row
/// program is null (a pattern Python cannot compile).
#[polars_expr(output_type=Int32)]
fn python_regex(
    inputs: &[Series],
    context: CallerContext,
    kwargs: RegexKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let is_word = |c: char| t.is_word(c);
    let text = Texts::new(&inputs[0], "response")?;
    let literal = match &kwargs.program {
        Some(program) => Some(
            cached(program, is_word).map_err(|msg| polars_err!(ComputeError: "regex: {msg}"))?,
        ),
        None => None,
    };
    let programs = match literal {
        Some(_) => None,
        None => Some(Texts::new(&inputs[1], "pattern")?),
    };
    let mut lens = vec![text.len()];
    if let Some(p) = &programs {
        lens.push(p.len());
    }
    let n = output_len(&lens)?;
    let budget = kwargs.step_budget;
    let codes: Vec<Option<i32>> = map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = Scratch::default();
        let mut compiled: HashMap<&str, Option<Arc<Matcher>>> = HashMap::new();
        rows.map(|row| {
            let subject = text.get(row).unwrap_or("");
            let matcher = match (&literal, &programs) {
                (Some(m), _) => Some(Arc::clone(m)),
                (None, Some(programs)) => programs.get(row).and_then(|p| {
                    compiled
                        .entry(p)
                        .or_insert_with(|| cached(p, is_word).ok())
                        .clone()
                }),
                (None, None) => None,
            };
            matcher.map(|m| code(m.run(subject, budget, &is_word, &mut scratch)))
        })
        .collect()
    });
    let out: Int32Chunked = codes.into_iter().collect();
    Ok(out.with_name("regex".into()).into_series())
}

/// `regex_search(program, text, step_budget=None, backtrack=False)`: 1, 0 or -1 as
/// [`python_regex`], for the callers in Python (json_schema's patterns). With `backtrack`, the
/// backtracking path runs whatever the pattern (to tell whether `re` itself would end within the
/// budget). The search runs without the interpreter lock.
#[pyfunction]
#[pyo3(signature = (program, text, step_budget=None, backtrack=false))]
pub fn regex_search(
    py: Python<'_>,
    program: &str,
    text: &str,
    step_budget: Option<u64>,
    backtrack: bool,
) -> PyResult<i32> {
    let t = pyunicode::tables().map_err(PyValueError::new_err)?;
    let is_word = |c: char| t.is_word(c);
    let matcher = if backtrack {
        cached_backtracking(program)
    } else {
        cached(program, is_word)
    }
    .map_err(PyValueError::new_err)?;
    Ok(py.detach(|| {
        let mut scratch = Scratch::default();
        code(matcher.run(text, step_budget, &is_word, &mut scratch))
    }))
}
