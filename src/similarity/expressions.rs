//! The `#[polars_expr]` wrappers of DataRobot's response similarity.

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, row_items, tables, References, Texts};
use crate::plugin::{polars_expr, CallerContext};
use crate::similarity::{self, Metric};

#[derive(Deserialize)]
pub(crate) struct SimilarityKwargs {
    metric: String,
    /// ROUGE-L's length guard: the work one row may take.
    #[serde(default)]
    pub(crate) max_work: Option<u64>,
}

/// The reason of a row without a usable acceptable answer.
const SIMILARITY_INCONCLUSIVE: &str = "no acceptable_responses provided: cannot score";
const SIMILARITY_WARNING: &str = " (WARNING: at least as close as any acceptable example)";

pub(crate) fn similarity_metric(kwargs: &SimilarityKwargs) -> PolarsResult<Metric> {
    Metric::parse(&kwargs.metric)
        .ok_or_else(|| polars_err!(ComputeError: "unknown similarity metric {:?}", kwargs.metric))
}

#[polars_expr(output_type=Float64)]
fn response_similarity(
    inputs: &[Series],
    context: CallerContext,
    kwargs: SimilarityKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let metric = similarity_metric(&kwargs)?;
    let response = Texts::new(&inputs[0], "response")?;
    let acceptable = References::new(&inputs[1], "acceptable")?;
    let n = output_len(&[response.len(), acceptable.len()])?;
    let scores = map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = similarity::Scratch::default();
        rows.map(|row| {
            let resp = response.get(row).unwrap_or("");
            let mut scorer =
                similarity::Scorer::new(metric, resp, &mut scratch).with_max_work(kwargs.max_work);
            scorer.best_score(t, row_items(acceptable.row(row)))
        })
        .collect()
    });
    let ca = Float64Chunked::from_iter_options("response_similarity".into(), scores.into_iter());
    Ok(ca.into_series())
}

fn similarity_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "response_similarity_details".into(),
        DataType::Struct(vec![
            Field::new("score".into(), DataType::Float64),
            Field::new("acceptable_index".into(), DataType::UInt32),
            Field::new("reason".into(), DataType::String),
            Field::new("unacceptable_score".into(), DataType::Float64),
            Field::new("unacceptable_index".into(), DataType::UInt32),
            Field::new("is_closer_to_unacceptable".into(), DataType::Boolean),
        ]),
    ))
}

#[polars_expr(output_type_func=similarity_details_type)]
fn response_similarity_details(
    inputs: &[Series],
    context: CallerContext,
    kwargs: SimilarityKwargs,
) -> PolarsResult<Series> {
    use std::fmt::Write;
    let t = tables()?;
    let metric = similarity_metric(&kwargs)?;
    let response = Texts::new(&inputs[0], "response")?;
    let acceptable = References::new(&inputs[1], "acceptable")?;
    let unacceptable = match inputs.get(2) {
        Some(s) => Some(References::new(s, "unacceptable")?),
        None => None,
    };
    let mut lens = vec![response.len(), acceptable.len()];
    if let Some(u) = &unacceptable {
        lens.push(u.len());
    }
    let n = output_len(&lens)?;
    // Per row: (score, index, reason, closest unacceptable (score, index), closer), or None
    // when no acceptable answer is usable, or Err when the row is over `max_work`.
    type Row = Result<Option<(f64, u32, String, Option<(f64, u32)>, Option<bool>)>, ()>;
    let rows: Vec<Row> = map_row_ranges(n, !context.parallel(), |range| {
        let mut scratch = similarity::Scratch::default();
        range
            .map(|row| {
                let resp = response.get(row).unwrap_or("");
                let mut scorer = similarity::Scorer::new(metric, resp, &mut scratch)
                    .with_max_work(kwargs.max_work);
                let Some(best) = scorer.best(t, row_items(acceptable.row(row))) else {
                    return if scorer.too_long() { Err(()) } else { Ok(None) };
                };
                let mut reason = String::new();
                // Writing to a String cannot fail.
                let _ = write!(
                    reason,
                    "{} {:.2} ({}); closest of {} acceptable: ",
                    metric.name(),
                    best.score,
                    metric.explanation(),
                    best.count
                );
                similarity::push_quoted(&mut reason, best.text);
                let worst = unacceptable
                    .as_ref()
                    .and_then(|u| scorer.best(t, row_items(u.row(row))));
                if scorer.too_long() {
                    return Err(());
                }
                let closer = worst.map(|w| {
                    let _ = write!(reason, "; closest unacceptable {:.2}: ", w.score);
                    similarity::push_quoted(&mut reason, w.text);
                    let is_closer = w.score >= best.score;
                    if is_closer {
                        reason.push_str(SIMILARITY_WARNING);
                    }
                    is_closer
                });
                Ok(Some((
                    best.score,
                    best.index,
                    reason,
                    worst.map(|w| (w.score, w.index)),
                    closer,
                )))
            })
            .collect()
    });
    let mut reasons = StringChunkedBuilder::new("reason".into(), n);
    for r in &rows {
        reasons.append_value(match r {
            Err(()) => similarity::TOO_LONG_REASON,
            Ok(r) => r.as_ref().map_or(SIMILARITY_INCONCLUSIVE, |r| r.2.as_str()),
        });
    }
    let rows: Vec<_> = rows.into_iter().map(|r| r.ok().flatten()).collect();
    let score = rows.iter().map(|r| r.as_ref().map(|r| r.0));
    let index = rows.iter().map(|r| r.as_ref().map(|r| r.1));
    let worst_score = rows
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.3).map(|w| w.0));
    let worst_index = rows
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.3).map(|w| w.1));
    let closer = rows.iter().map(|r| r.as_ref().and_then(|r| r.4));
    let fields = [
        Float64Chunked::from_iter_options("score".into(), score.into_iter()).into_series(),
        UInt32Chunked::from_iter_options("acceptable_index".into(), index.into_iter())
            .into_series(),
        reasons.finish().into_series(),
        Float64Chunked::from_iter_options("unacceptable_score".into(), worst_score.into_iter())
            .into_series(),
        UInt32Chunked::from_iter_options("unacceptable_index".into(), worst_index.into_iter())
            .into_series(),
        BooleanChunked::from_iter_options("is_closer_to_unacceptable".into(), closer.into_iter())
            .into_series(),
    ];
    let out = StructChunked::from_series("response_similarity_details".into(), n, fields.iter())?;
    Ok(out.into_series())
}
