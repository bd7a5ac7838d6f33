//! Thin `#[polars_expr]` wrappers: read the inputs, map a kernel over the rows, build the output.

use polars::prelude::*;
use pyo3_polars::derive::{polars_expr, CallerContext};
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, References, RowRefs, Texts};
use crate::correctness::{self, Mode, Outcome, Scratch};
use crate::pyunicode;

fn tables() -> PolarsResult<&'static pyunicode::Tables> {
    pyunicode::tables().map_err(|msg| polars_err!(ComputeError: "{msg}"))
}

#[derive(Deserialize)]
struct CorrectnessKwargs {
    /// The literal mode, or `None` when the third input gives one mode per row.
    mode: Option<String>,
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
fn py_lower(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let out = ca.apply_into_string_amortized(|text, buf| t.push_lower(text, buf));
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

// --- answer_match ---------------------------------------------------------------------------------

use crate::answer_match::{self as matching, Decision, Matcher, Normalizer};

fn fold_table() -> PolarsResult<&'static matching::FoldTable> {
    matching::fold_table().map_err(|msg| polars_err!(ComputeError: "{msg}"))
}

#[derive(Deserialize)]
struct MatchKwargs {
    exact: bool,
    contains: bool,
    token_recall: bool,
    min_token_recall: f64,
    stem_prefix: Option<usize>,
    numbers_must_match: bool,
    fold_accents: bool,
    number_words: bool,
}

/// Decide every row: inputs are the response, the references (String or List(String)) and,
/// optionally, the question. `None` for a row with no usable alias.
fn match_rows(inputs: &[Series], kwargs: &MatchKwargs) -> PolarsResult<Vec<Option<Decision>>> {
    let t = tables()?;
    let fold = if kwargs.fold_accents {
        Some(fold_table()?)
    } else {
        None
    };
    let opts = matching::Options {
        exact: kwargs.exact,
        contains: kwargs.contains,
        token_recall: kwargs.token_recall,
        min_token_recall: kwargs.min_token_recall,
        stem_prefix: kwargs.stem_prefix,
        numbers_must_match: kwargs.numbers_must_match,
        fold_accents: kwargs.fold_accents,
        number_words: kwargs.number_words,
    };
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
    let mut matcher = Matcher::default();
    let mut out = Vec::with_capacity(n);
    for row in 0..n {
        let resp = response.get(row).unwrap_or("");
        let q = question.as_ref().and_then(|q| q.get(row));
        let decision = match references.row(row) {
            RowRefs::One(reference) => {
                matcher.decide(t, fold, &opts, resp, std::iter::once(reference), q)
            }
            RowRefs::Many(list) => matcher.decide(t, fold, &opts, resp, list.iter(), q),
            RowRefs::Null => None,
        };
        out.push(decision);
    }
    Ok(out)
}

#[polars_expr(output_type=Float64)]
fn answer_match(inputs: &[Series], kwargs: MatchKwargs) -> PolarsResult<Series> {
    let rows = match_rows(inputs, &kwargs)?;
    let ca: Float64Chunked = rows.iter().map(|d| d.map(|d| d.score())).collect();
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
        ]),
    ))
}

#[polars_expr(output_type_func=match_details_type)]
fn answer_match_details(inputs: &[Series], kwargs: MatchKwargs) -> PolarsResult<Series> {
    let rows = match_rows(inputs, &kwargs)?;
    let n = rows.len();
    let score: Float64Chunked = rows.iter().map(|d| d.map(|d| d.score())).collect();
    let graded: Float64Chunked = rows.iter().map(|d| d.map(|d| d.graded)).collect();
    let index: Int64Chunked = rows
        .iter()
        .map(|d| d.and_then(|d| d.index).map(i64::from))
        .collect();
    let rule: StringChunked = rows
        .iter()
        .map(|d| Some(d.map_or("no_reference", |d| d.rule.name())))
        .collect();
    let fields = [
        score.with_name("score".into()).into_series(),
        graded.with_name("graded_score".into()).into_series(),
        index.with_name("reference_index".into()).into_series(),
        rule.with_name("rule".into()).into_series(),
    ];
    let out = StructChunked::from_series("answer_match_details".into(), n, fields.iter())?;
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
        norm.normalize_into(t, fold, kwargs.number_words, text, buf)
    });
    Ok(out.into_series())
}

// --- response similarity and SQuAD ---------------------------------------------------------------

use crate::similarity::{self, Metric};
use crate::squad::{self, Pair};

#[derive(Deserialize)]
struct SimilarityKwargs {
    metric: String,
}

/// The reason of a row without a usable acceptable answer.
const SIMILARITY_INCONCLUSIVE: &str = "no acceptable_responses provided: cannot score";
const SIMILARITY_WARNING: &str = " (WARNING: at least as close as any acceptable example)";

fn similarity_metric(kwargs: &SimilarityKwargs) -> PolarsResult<Metric> {
    Metric::parse(&kwargs.metric)
        .ok_or_else(|| polars_err!(ComputeError: "unknown similarity metric {:?}", kwargs.metric))
}

/// The answers of one row as optional items: a null string or a null list has none.
fn row_items<'a>(refs: RowRefs<'a>) -> impl Iterator<Item = Option<&'a str>> + 'a {
    let (one, many) = match refs {
        RowRefs::One(Some(text)) => (Some(text), None),
        RowRefs::One(None) | RowRefs::Null => (None, None),
        RowRefs::Many(list) => (None, Some(list)),
    };
    one.map(Some)
        .into_iter()
        .chain(many.into_iter().flat_map(|list| list.iter()))
}

#[polars_expr(output_type=Float64)]
fn response_similarity(inputs: &[Series], kwargs: SimilarityKwargs) -> PolarsResult<Series> {
    let t = tables()?;
    let metric = similarity_metric(&kwargs)?;
    let response = Texts::new(&inputs[0], "response")?;
    let acceptable = References::new(&inputs[1], "acceptable")?;
    let n = output_len(&[response.len(), acceptable.len()])?;
    let mut scratch = similarity::Scratch::default();
    let ca: Float64Chunked = (0..n)
        .map(|row| {
            let resp = response.get(row).unwrap_or("");
            let mut scorer = similarity::Scorer::new(t, metric, resp, &mut scratch);
            scorer
                .best(t, row_items(acceptable.row(row)))
                .map(|b| b.score)
        })
        .collect();
    Ok(ca.with_name("response_similarity".into()).into_series())
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
    let mut scratch = similarity::Scratch::default();
    let mut score = Vec::with_capacity(n);
    let mut index = Vec::with_capacity(n);
    let mut reasons = StringChunkedBuilder::new("reason".into(), n);
    let mut worst_score = Vec::with_capacity(n);
    let mut worst_index = Vec::with_capacity(n);
    let mut closer = Vec::with_capacity(n);
    let mut reason = String::new();
    for row in 0..n {
        let resp = response.get(row).unwrap_or("");
        let mut scorer = similarity::Scorer::new(t, metric, resp, &mut scratch);
        let Some(best) = scorer.best(t, row_items(acceptable.row(row))) else {
            score.push(None);
            index.push(None);
            reasons.append_value(SIMILARITY_INCONCLUSIVE);
            worst_score.push(None);
            worst_index.push(None);
            closer.push(None);
            continue;
        };
        reason.clear();
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
        match worst {
            Some(w) => {
                let _ = write!(reason, "; closest unacceptable {:.2}: ", w.score);
                similarity::push_quoted(&mut reason, w.text);
                let is_closer = w.score >= best.score;
                if is_closer {
                    reason.push_str(SIMILARITY_WARNING);
                }
                worst_score.push(Some(w.score));
                worst_index.push(Some(w.index));
                closer.push(Some(is_closer));
            }
            None => {
                worst_score.push(None);
                worst_index.push(None);
                closer.push(None);
            }
        }
        score.push(Some(best.score));
        index.push(Some(best.index));
        reasons.append_value(&reason);
    }
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

fn squad_scores(inputs: &[Series], pair: Pair, name: &str) -> PolarsResult<Series> {
    let t = tables()?;
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "reference")?;
    let n = output_len(&[response.len(), references.len()])?;
    let mut scratch = squad::Scratch::default();
    let ca: Float64Chunked = (0..n)
        .map(|row| {
            let resp = response.get(row).unwrap_or("");
            squad::best(t, pair, resp, row_items(references.row(row)), &mut scratch)
        })
        .collect();
    Ok(ca.with_name(name.into()).into_series())
}

#[polars_expr(output_type=Float64)]
fn squad_exact_match(inputs: &[Series]) -> PolarsResult<Series> {
    squad_scores(inputs, Pair::ExactMatch, "squad_exact_match")
}

#[polars_expr(output_type=Float64)]
fn squad_f1(inputs: &[Series]) -> PolarsResult<Series> {
    squad_scores(inputs, Pair::F1, "squad_f1")
}

#[polars_expr(output_type=String)]
fn squad_normalize(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let out = ca.apply_into_string_amortized(|text, buf| {
        squad::for_each_normalized(t, text, |c| buf.push(c))
    });
    Ok(out.into_series())
}
