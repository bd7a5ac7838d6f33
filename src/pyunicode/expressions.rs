//! The `#[polars_expr]` wrapper of Python's `str.lower()`.

use polars::prelude::*;

use crate::columns::tables;
use crate::plugin::polars_expr;

#[polars_expr(output_type=String)]
fn py_lower(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let out = ca.apply_into_string_amortized(|text, buf| t.push_lower(text, buf));
    Ok(out.into_series())
}
