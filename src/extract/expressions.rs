//! The `#[polars_expr]` wrappers of final-answer extraction (MMLU-Pro letters, GSM8K numbers).

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, per_text, tables, Texts};
use crate::extract::{self, ChoiceRules};
use crate::plugin::{polars_expr, CallerContext};

#[derive(Deserialize)]
struct ChoiceKwargs {
    /// `"mmlu_pro"` (the three rules) or `"answer_is"` (the first rule alone).
    rules: String,
}

/// Per row: the MMLU-Pro harness's extracted letter, or null.
#[polars_expr(output_type=String)]
fn mmlu_pro_choice(
    inputs: &[Series],
    context: CallerContext,
    kwargs: ChoiceKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let rules = match kwargs.rules.as_str() {
        "mmlu_pro" => ChoiceRules::Full,
        "answer_is" => ChoiceRules::AnswerIs,
        other => polars_bail!(ComputeError: "unknown choice rules {other:?}"),
    };
    const LETTERS: [&str; 10] = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"];
    let text = Texts::new(&inputs[0], "response")?;
    let letters: Vec<Option<&str>> = map_row_ranges(text.len(), !context.parallel(), |rows| {
        rows.map(|row| {
            let letter = text
                .get(row)
                .and_then(|s| extract::mmlu_pro_choice(t, s, rules))?;
            LETTERS
                .get((letter as usize).checked_sub('A' as usize)?)
                .copied()
        })
        .collect()
    });
    let out: StringChunked = letters.into_iter().collect();
    Ok(out.with_name(inputs[0].name().clone()).into_series())
}

#[derive(Deserialize)]
struct NumberKwargs {
    /// `"strict"`, `"flexible"`, `"answer_line"` or `"gold"` (a reference's number).
    method: String,
}

/// The extraction method named `name`; `"gold"` (a reference's number) only where `gold` allows.
fn number_method(name: &str, gold: bool) -> PolarsResult<extract::NumberMethod> {
    Ok(match name {
        "strict" => extract::NumberMethod::Strict,
        "flexible" => extract::NumberMethod::Flexible,
        "answer_line" => extract::NumberMethod::AnswerLine,
        "gold" if gold => extract::NumberMethod::Gold,
        other => polars_bail!(ComputeError: "unknown number method {other:?}"),
    })
}

/// Per row: the final number `method` finds, cleaned (`,` and `$` dropped, one trailing `.`
/// dropped), or null.
#[polars_expr(output_type=String)]
fn extract_number(
    inputs: &[Series],
    context: CallerContext,
    kwargs: NumberKwargs,
) -> PolarsResult<Series> {
    let method = number_method(&kwargs.method, true)?;
    let numbers = per_text(&inputs[0], &context, |text| {
        let raw = extract::raw_number(text?, method)?;
        let mut out = String::with_capacity(raw.len());
        extract::push_clean_number(raw, &mut out);
        Some(out)
    })?;
    let out: StringChunked = numbers.into_iter().collect();
    Ok(out.with_name(inputs[0].name().clone()).into_series())
}

/// One `Float64` input per row as options; a one-row input is broadcast.
fn float_rows(s: &Series, what: &str) -> PolarsResult<Vec<Option<f64>>> {
    let ca = s.f64().map_err(
        |_| polars_err!(ComputeError: "{what} must be a Float64 column, got {}", s.dtype()),
    )?;
    Ok(ca.iter().collect())
}

/// Per row: numeric_match's score. The answer's number (`method`) and the gold's are read as
/// `f64`, and match when `|a - g| <= abs` or `|a - g| / (|g| + 1e-12) <= rel` (Kleene logic
/// over a null tolerance, then false); null where the gold holds no number.
#[polars_expr(output_type=Float64)]
fn numeric_match(
    inputs: &[Series],
    context: CallerContext,
    kwargs: NumberKwargs,
) -> PolarsResult<Series> {
    let method = number_method(&kwargs.method, false)?;
    let text = Texts::new(&inputs[0], "response")?;
    let gold = Texts::new(&inputs[1], "reference")?;
    let tol_abs = float_rows(&inputs[2], "numeric_tolerance_abs")?;
    let tol_rel = float_rows(&inputs[3], "numeric_tolerance_rel")?;
    let lens = [text.len(), gold.len(), tol_abs.len(), tol_rel.len()];
    let n = if lens.contains(&0) {
        0
    } else {
        output_len(&lens)?
    };
    let pick = |v: &[Option<f64>], row: usize| if v.len() == 1 { v[0] } else { v[row] };
    let scores: Vec<Option<f64>> = map_row_ranges(n, !context.parallel(), |rows| {
        let mut buf = String::new();
        let mut number = |s: Option<&str>, method| -> Option<f64> {
            let raw = extract::raw_number(s?, method)?;
            buf.clear();
            extract::push_clean_number(raw, &mut buf);
            buf.parse::<f64>().ok()
        };
        rows.map(|row| {
            let g = number(gold.get(row), extract::NumberMethod::Gold)?;
            let Some(a) = number(text.get(row), method) else {
                return Some(0.0);
            };
            let error = (a - g).abs();
            let within_abs = pick(&tol_abs, row).map(|t| error <= t);
            let within_rel = pick(&tol_rel, row).map(|t| error / (g.abs() + 1e-12) <= t);
            let matched = matches!((within_abs, within_rel), (Some(true), _) | (_, Some(true)));
            Some(f64::from(u8::from(matched)))
        })
        .collect()
    });
    let out: Float64Chunked = scores.into_iter().collect();
    Ok(out.with_name("numeric_match".into()).into_series())
}
