//! The `#[polars_expr]` wrappers of SQuAD v1.1's exact match, F1 and normalisation.

use polars::prelude::*;

use crate::columns::{map_row_ranges, output_len, row_items, tables, References, Texts};
use crate::plugin::{polars_expr, CallerContext};
use crate::squad::{self, Pair};

fn squad_scores(
    inputs: &[Series],
    context: CallerContext,
    pair: Pair,
    name: &str,
) -> PolarsResult<Series> {
    let t = tables()?;
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "reference")?;
    let n = output_len(&[response.len(), references.len()])?;
    let scores = map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = squad::Scratch::default();
        rows.map(|row| {
            let resp = response.get(row).unwrap_or("");
            squad::best(t, pair, resp, row_items(references.row(row)), &mut scratch)
        })
        .collect()
    });
    Ok(Float64Chunked::from_iter_options(name.into(), scores.into_iter()).into_series())
}

#[polars_expr(output_type=Float64)]
fn squad_exact_match(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    squad_scores(inputs, context, Pair::ExactMatch, "squad_exact_match")
}

#[polars_expr(output_type=Float64)]
fn squad_f1(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    squad_scores(inputs, context, Pair::F1, "squad_f1")
}

#[polars_expr(output_type=String)]
fn squad_normalize(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let mut normalized = String::new();
    let out = ca.apply_into_string_amortized(|text, buf| {
        squad::normalize_into(t, text, &mut normalized);
        buf.push_str(&normalized);
    });
    Ok(out.into_series())
}
