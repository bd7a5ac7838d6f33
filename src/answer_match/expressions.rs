//! The `#[polars_expr]` wrappers of answer_match, its normalisation and mojibake repair.

use polars::prelude::*;
use serde::Deserialize;

use crate::answer_match::{self as matching, Decision, Matcher, Normalizer};
use crate::columns::{map_row_ranges, output_len, tables, References, RowRefs, Texts};
use crate::plugin::{polars_expr, CallerContext};

pub(crate) fn fold_table() -> PolarsResult<&'static matching::FoldTable> {
    matching::fold_table().map_err(|msg| polars_err!(ComputeError: "{msg}"))
}

#[derive(Deserialize)]
pub(crate) struct MatchKwargs {
    exact: bool,
    contains: bool,
    token_recall: bool,
    min_token_recall: f64,
    stem_prefix: Option<usize>,
    numbers_must_match: bool,
    fold_accents: bool,
    number_words: bool,
    dates: bool,
    parentheticals: bool,
    repair_mojibake: bool,
    approximate_numbers: bool,
    glued_words: bool,
    hedges: bool,
    negations: bool,
    sweeps: bool,
    degenerate_loops: bool,
    letters: bool,
}

impl MatchKwargs {
    /// The matcher's options, and the accent-folding table when they fold accents.
    pub(crate) fn options(
        &self,
    ) -> PolarsResult<(matching::Options, Option<&'static matching::FoldTable>)> {
        let fold = if self.fold_accents {
            Some(fold_table()?)
        } else {
            None
        };
        let opts = matching::Options {
            exact: self.exact,
            contains: self.contains,
            token_recall: self.token_recall,
            min_token_recall: self.min_token_recall,
            stem_prefix: self.stem_prefix,
            numbers_must_match: self.numbers_must_match,
            fold_accents: self.fold_accents,
            number_words: self.number_words,
            dates: self.dates,
            parentheticals: self.parentheticals,
            repair_mojibake: self.repair_mojibake,
            approximate_numbers: self.approximate_numbers,
            glued_words: self.glued_words,
            hedges: self.hedges,
            negations: self.negations,
            sweeps: self.sweeps,
            degenerate_loops: self.degenerate_loops,
            letters: self.letters,
        };
        Ok((opts, fold))
    }
}

/// Decide every row: inputs are the response, the references (String or List(String)) and,
/// optionally, the question. `row` turns each decision (`None` for a row with no usable alias)
/// into the output, with the matcher that made it.
fn match_rows<T: Send>(
    inputs: &[Series],
    context: CallerContext,
    kwargs: &MatchKwargs,
    row: impl Fn(&Matcher, Option<Decision>) -> T + Sync,
) -> PolarsResult<Vec<T>> {
    let t = tables()?;
    let (opts, fold) = kwargs.options()?;
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "references")?;
    let question = match inputs.get(2) {
        Some(q) => Some(Texts::new(q, "question")?),
        None => None,
    };
    let mut lens = vec![response.len(), references.len()];
    if let Some(q) = &question {
        lens.push(q.len());
    }
    let n = output_len(&lens)?;
    Ok(map_row_ranges(n, !context.parallel(), |rows| {
        let mut matcher = Matcher::default();
        rows.map(|k| {
            let resp = response.get(k).unwrap_or("");
            let q = question.as_ref().and_then(|q| q.get(k));
            let d = match references.row(k) {
                RowRefs::One(reference) => {
                    matcher.decide(t, fold, &opts, resp, std::iter::once(reference), q)
                }
                RowRefs::Many(list) => matcher.decide(t, fold, &opts, resp, list.iter(), q),
                RowRefs::Null => None,
            };
            row(&matcher, d)
        })
        .collect()
    }))
}

#[polars_expr(output_type=Float64)]
fn answer_match(
    inputs: &[Series],
    context: CallerContext,
    kwargs: MatchKwargs,
) -> PolarsResult<Series> {
    let rows = match_rows(inputs, context, &kwargs, |_, d| d.map(|d| d.score()))?;
    let ca: Float64Chunked = rows.into_iter().collect();
    Ok(ca.with_name("answer_match".into()).into_series())
}

fn match_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "answer_match_details".into(),
        DataType::Struct(vec![
            Field::new("score".into(), DataType::Float64),
            Field::new("graded_score".into(), DataType::Float64),
            Field::new("reference_index".into(), DataType::Int64),
            Field::new("rule".into(), DataType::String),
            Field::new("reason".into(), DataType::String),
        ]),
    ))
}

#[polars_expr(output_type_func=match_details_type)]
fn answer_match_details(
    inputs: &[Series],
    context: CallerContext,
    kwargs: MatchKwargs,
) -> PolarsResult<Series> {
    let rows = match_rows(inputs, context, &kwargs, |m, d| {
        let mut reason = String::new();
        match &d {
            Some(d) => m.write_reason(d, &mut reason),
            None => reason.push_str("no_reference"),
        }
        (d, reason)
    })?;
    let n = rows.len();
    let score: Float64Chunked = rows.iter().map(|(d, _)| d.map(|d| d.score())).collect();
    let graded: Float64Chunked = rows.iter().map(|(d, _)| d.map(|d| d.graded)).collect();
    let index: Int64Chunked = rows
        .iter()
        .map(|(d, _)| d.and_then(|d| d.index).map(i64::from))
        .collect();
    let rule: StringChunked = rows
        .iter()
        .map(|(d, _)| Some(d.map_or("no_reference", |d| d.rule.name())))
        .collect();
    let reasons: StringChunked = rows.iter().map(|(_, r)| Some(r.as_str())).collect();
    let fields = [
        score.with_name("score".into()).into_series(),
        graded.with_name("graded_score".into()).into_series(),
        index.with_name("reference_index".into()).into_series(),
        rule.with_name("rule".into()).into_series(),
        reasons.with_name("reason".into()).into_series(),
    ];
    let out = StructChunked::from_series("answer_match_details".into(), n, fields.iter())?;
    Ok(out.into_series())
}

/// `repair_mojibake`: UTF-8 read as Latin-1 or cp1252, undone where it re-encodes cleanly.
#[polars_expr(output_type=String)]
fn repair_mojibake(inputs: &[Series]) -> PolarsResult<Series> {
    let ca = inputs[0].str()?;
    let (mut raw, mut fixed) = (Vec::new(), String::new());
    let out = ca.apply_into_string_amortized(|text, buf| {
        if crate::answer_rules::repair_mojibake_into(text, &mut raw, &mut fixed) {
            buf.push_str(&fixed);
        } else {
            buf.push_str(text);
        }
    });
    Ok(out.into_series())
}

#[derive(Deserialize)]
struct MatchNormalizeKwargs {
    fold_accents: bool,
    number_words: bool,
}

#[polars_expr(output_type=String)]
fn match_normalize(inputs: &[Series], kwargs: MatchNormalizeKwargs) -> PolarsResult<Series> {
    let t = tables()?;
    let fold = if kwargs.fold_accents {
        Some(fold_table()?)
    } else {
        None
    };
    let ca = inputs[0].str()?;
    let mut norm = Normalizer::default();
    let out = ca.apply_into_string_amortized(|text, buf| {
        norm.normalize_into(t, fold, kwargs.number_words, text, buf);
    });
    Ok(out.into_series())
}
