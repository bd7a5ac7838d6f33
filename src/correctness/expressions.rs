//! The `#[polars_expr]` wrappers of DataRobot's answer correctness and its normalisation.

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, tables, References, RowRefs, Texts};
use crate::correctness::{self, Mode, Outcome, Scratch};
use crate::plugin::{polars_expr, CallerContext};

#[derive(Deserialize)]
pub(crate) struct CorrectnessKwargs {
    /// The literal mode, or `None` when the third input gives one mode per row.
    pub(crate) mode: Option<String>,
}

/// The inconclusive reason of DataRobot's benchmark.
const INCONCLUSIVE_REASON: &str = "no ideal_response provided — cannot score";

struct CorrectnessRow {
    outcome: Outcome,
    mode: Mode,
    index: Option<u32>,
}

fn correctness_rows(
    inputs: &[Series],
    context: CallerContext,
    kwargs: &CorrectnessKwargs,
) -> PolarsResult<Vec<CorrectnessRow>> {
    let t = tables()?;
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "reference")?;
    let literal_mode = kwargs.mode.as_deref().map(|m| Mode::from_row(t, Some(m)));
    let row_modes = if literal_mode.is_none() {
        Some(Texts::new(&inputs[2], "match_mode")?)
    } else {
        None
    };
    let mut lens = vec![response.len(), references.len()];
    if let Some(m) = &row_modes {
        lens.push(m.len());
    }
    let n = output_len(&lens)?;
    Ok(map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = Scratch::default();
        rows.map(|row| {
            let mode = match (&row_modes, literal_mode) {
                (_, Some(m)) => m,
                (Some(modes), None) => Mode::from_row(t, modes.get(row)),
                (None, None) => Mode::Normalized,
            };
            let resp = response.get(row).unwrap_or("");
            let (outcome, index) = match references.row(row) {
                RowRefs::One(reference) => {
                    let o = correctness::score_pair(t, resp, reference, mode, &mut scratch);
                    (o, (o != Outcome::Inconclusive).then_some(0))
                }
                RowRefs::Many(list) => {
                    correctness::score_many(t, resp, list.iter(), mode, &mut scratch)
                }
                RowRefs::Null => (Outcome::Inconclusive, None),
            };
            CorrectnessRow {
                outcome,
                mode,
                index,
            }
        })
        .collect()
    }))
}

fn outcome_score(o: Outcome) -> Option<f64> {
    match o {
        Outcome::Inconclusive => None,
        Outcome::Match => Some(1.0),
        Outcome::NoMatch => Some(0.0),
    }
}

#[polars_expr(output_type=Float64)]
fn answer_correctness(
    inputs: &[Series],
    context: CallerContext,
    kwargs: CorrectnessKwargs,
) -> PolarsResult<Series> {
    let rows = correctness_rows(inputs, context, &kwargs)?;
    let ca: Float64Chunked = rows.iter().map(|r| outcome_score(r.outcome)).collect();
    Ok(ca.with_name("answer_correctness".into()).into_series())
}

fn correctness_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "answer_correctness_details".into(),
        DataType::Struct(vec![
            Field::new("score".into(), DataType::Float64),
            Field::new("reason".into(), DataType::String),
            Field::new("match_mode".into(), DataType::String),
            Field::new("reference_index".into(), DataType::UInt32),
        ]),
    ))
}

#[polars_expr(output_type_func=correctness_details_type)]
fn answer_correctness_details(
    inputs: &[Series],
    context: CallerContext,
    kwargs: CorrectnessKwargs,
) -> PolarsResult<Series> {
    let rows = correctness_rows(inputs, context, &kwargs)?;
    let n = rows.len();
    let score: Float64Chunked = rows.iter().map(|r| outcome_score(r.outcome)).collect();
    let mut reason = String::new();
    let reasons: StringChunked = rows
        .iter()
        .map(|r| {
            let m = r.mode;
            reason.clear();
            match r.outcome {
                Outcome::Inconclusive => reason.push_str(INCONCLUSIVE_REASON),
                Outcome::Match => {
                    reason.push_str(m.name());
                    reason.push_str(" match");
                }
                Outcome::NoMatch => {
                    reason.push_str("no ");
                    reason.push_str(m.name());
                    reason.push_str(" match");
                }
            }
            Some(reason.clone())
        })
        .collect();
    let modes: StringChunked = rows.iter().map(|r| Some(r.mode.name())).collect();
    let index: UInt32Chunked = rows.iter().map(|r| r.index).collect();
    let fields = [
        score.with_name("score".into()).into_series(),
        reasons.with_name("reason".into()).into_series(),
        modes.with_name("match_mode".into()).into_series(),
        index.with_name("reference_index".into()).into_series(),
    ];
    let out = StructChunked::from_series("answer_correctness_details".into(), n, fields.iter())?;
    Ok(out.into_series())
}

#[polars_expr(output_type=String)]
fn datarobot_normalize(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let out = ca.apply_into_string_amortized(|text, buf| {
        correctness::for_each_normalized(t, text, |c| {
            buf.push(c);
            true
        })
    });
    Ok(out.into_series())
}
