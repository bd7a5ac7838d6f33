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
    dates: bool,
    parentheticals: bool,
    repair_mojibake: bool,
    approximate_numbers: bool,
    glued_words: bool,
}

/// Decide every row: inputs are the response, the references (String or List(String)) and,
/// optionally, the question. `None` for a row with no usable alias.
fn match_rows(
    inputs: &[Series],
    context: CallerContext,
    kwargs: &MatchKwargs,
) -> PolarsResult<Vec<Option<Decision>>> {
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
        dates: kwargs.dates,
        parentheticals: kwargs.parentheticals,
        repair_mojibake: kwargs.repair_mojibake,
        approximate_numbers: kwargs.approximate_numbers,
        glued_words: kwargs.glued_words,
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
    Ok(map_row_ranges(n, !context.parallel(), |rows| {
        let mut matcher = Matcher::default();
        rows.map(|row| {
            let resp = response.get(row).unwrap_or("");
            let q = question.as_ref().and_then(|q| q.get(row));
            match references.row(row) {
                RowRefs::One(reference) => {
                    matcher.decide(t, fold, &opts, resp, std::iter::once(reference), q)
                }
                RowRefs::Many(list) => matcher.decide(t, fold, &opts, resp, list.iter(), q),
                RowRefs::Null => None,
            }
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
    let rows = match_rows(inputs, context, &kwargs)?;
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
    let rows = match_rows(inputs, context, &kwargs)?;
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
    let mut reason = String::new();
    let reasons: StringChunked = rows
        .iter()
        .map(|d| {
            reason.clear();
            match d {
                Some(d) => d.write_reason(&mut reason),
                None => reason.push_str("no_reference"),
            }
            Some(reason.clone())
        })
        .collect();
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
fn row_items<'a>(refs: RowRefs<'a>) -> impl Iterator<Item = Option<&'a str>> + Clone + 'a {
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
            let mut scorer = similarity::Scorer::new(t, metric, resp, &mut scratch);
            scorer
                .best(t, row_items(acceptable.row(row)))
                .map(|b| b.score)
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
    // when no acceptable answer is usable.
    type Row = Option<(f64, u32, String, Option<(f64, u32)>, Option<bool>)>;
    let rows: Vec<Row> = map_row_ranges(n, !context.parallel(), |range| {
        let mut scratch = similarity::Scratch::default();
        range
            .map(|row| {
                let resp = response.get(row).unwrap_or("");
                let mut scorer = similarity::Scorer::new(t, metric, resp, &mut scratch);
                let best = scorer.best(t, row_items(acceptable.row(row)))?;
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
                let closer = worst.map(|w| {
                    let _ = write!(reason, "; closest unacceptable {:.2}: ", w.score);
                    similarity::push_quoted(&mut reason, w.text);
                    let is_closer = w.score >= best.score;
                    if is_closer {
                        reason.push_str(SIMILARITY_WARNING);
                    }
                    is_closer
                });
                Some((
                    best.score,
                    best.index,
                    reason,
                    worst.map(|w| (w.score, w.index)),
                    closer,
                ))
            })
            .collect()
    });
    let score = rows.iter().map(|r| r.as_ref().map(|r| r.0));
    let index = rows.iter().map(|r| r.as_ref().map(|r| r.1));
    let mut reasons = StringChunkedBuilder::new("reason".into(), n);
    for r in &rows {
        reasons.append_value(r.as_ref().map_or(SIMILARITY_INCONCLUSIVE, |r| r.2.as_str()));
    }
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

// ---------------------------------------------------------------------------------------------
// answer_precision family (eval-ai-library's AnswerPrecisionMetric)
// ---------------------------------------------------------------------------------------------

use crate::precision::{self, Comp, Components, Mismatch, Path as PrecisionPath, Scored};
use polars_arrow::array::{ListArray as ArrowListArray, NullArray};
use polars_arrow::offset::OffsetsBuffer;

#[derive(Deserialize)]
struct PrecisionKwargs {
    char_similarity: String,
    missing_expected: String,
    power_p: f64,
    /// (component, weight) in summation order.
    weights: Vec<(String, f64)>,
    stopwords: Vec<String>,
    /// The literal tolerances; `None` when an input column gives one per row.
    tol_abs: Option<f64>,
    tol_rel: Option<f64>,
}

/// A per-row Float64 input (a one-row input is broadcast), or a literal.
enum Tolerance {
    Literal(f64),
    Rows(Vec<Option<f64>>),
}

impl Tolerance {
    #[inline]
    fn get(&self, row: usize) -> Option<f64> {
        match self {
            Tolerance::Literal(x) => Some(*x),
            Tolerance::Rows(v) if v.len() == 1 => v[0],
            Tolerance::Rows(v) => v.get(row).copied().flatten(),
        }
    }
}

struct PrecisionInputs<'a> {
    options: precision::Options,
    response: Texts<'a>,
    references: References<'a>,
    tol_abs: Tolerance,
    tol_rel: Tolerance,
    n: usize,
}

fn precision_inputs<'a>(
    inputs: &'a [Series],
    kwargs: &PrecisionKwargs,
) -> PolarsResult<PrecisionInputs<'a>> {
    let mut weights = Vec::with_capacity(kwargs.weights.len());
    for (name, w) in &kwargs.weights {
        let comp = Comp::from_name(name)
            .ok_or_else(|| polars_err!(ComputeError: "unknown component {name}"))?;
        weights.push((comp, *w));
    }
    let options = precision::Options {
        indel: kwargs.char_similarity == "indel",
        zero_missing: kwargs.missing_expected == "zero",
        power_p: kwargs.power_p,
        weights,
        stopwords: precision::stopword_table(&kwargs.stopwords),
    };
    polars_ensure!(inputs.len() >= 2, ComputeError: "answer_precision needs two inputs");
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "reference")?;
    let mut next = 2;
    let mut tolerance = |literal: Option<f64>| -> PolarsResult<Tolerance> {
        if let Some(x) = literal {
            return Ok(Tolerance::Literal(x));
        }
        let s = inputs
            .get(next)
            .ok_or_else(|| polars_err!(ComputeError: "missing tolerance input"))?;
        next += 1;
        let s = s.cast(&DataType::Float64)?;
        Ok(Tolerance::Rows(s.f64()?.iter().collect()))
    };
    let tol_abs = tolerance(kwargs.tol_abs)?;
    let tol_rel = tolerance(kwargs.tol_rel)?;
    let mut lens = vec![response.len(), references.len()];
    for t in [&tol_abs, &tol_rel] {
        if let Tolerance::Rows(v) = t {
            lens.push(v.len());
        }
    }
    let n = output_len(&lens)?;
    Ok(PrecisionInputs {
        options,
        response,
        references,
        tol_abs,
        tol_rel,
        n,
    })
}

/// Per row: the best reference's outcome and its position (`None`: no usable reference of a
/// list row, every field null), with the response and reference texts to rebuild details.
struct PrecisionRow<'a> {
    scored: Option<Scored>,
    index: Option<u32>,
    reference: Option<&'a str>,
}

/// Score every row (a large batch split over all cores), then hand each result to `each`, in
/// row order, with a scratch of its own.
fn precision_rows<'a>(
    t: &pyunicode::Tables,
    inp: &PrecisionInputs<'a>,
    context: CallerContext,
    mut each: impl FnMut(usize, &PrecisionRow<'a>, &mut precision::Scratch) -> PolarsResult<()>,
) -> PolarsResult<()> {
    let rows = map_row_ranges(inp.n, !context.parallel(), |range| {
        let mut scratch = precision::Scratch::default();
        range
            .map(|row| precision_row(t, inp, row, &mut scratch))
            .collect()
    });
    let mut scratch = precision::Scratch::default();
    for (row, out) in rows.iter().enumerate() {
        each(row, out, &mut scratch)?;
    }
    Ok(())
}

/// One row of answer_precision: the best reference's result.
fn precision_row<'a>(
    t: &pyunicode::Tables,
    inp: &PrecisionInputs<'a>,
    row: usize,
    scratch: &mut precision::Scratch,
) -> PrecisionRow<'a> {
    let resp = inp.response.get(row);
    let (ta, tr) = (inp.tol_abs.get(row), inp.tol_rel.get(row));
    let o = &inp.options;
    match inp.references.row(row) {
        RowRefs::One(reference) => PrecisionRow {
            scored: Some(precision::score_pair(
                t, o, resp, reference, ta, tr, scratch,
            )),
            index: Some(0),
            reference,
        },
        RowRefs::Many(list) => {
            // The first reference with the best score; null scores are unusable.
            let mut best: Option<(f64, Scored, u32, Option<&'a str>)> = None;
            for (j, reference) in list.iter().enumerate() {
                let scored = precision::score_pair(t, o, resp, reference, ta, tr, scratch);
                if let Some(score) = scored.score {
                    if best.as_ref().is_none_or(|b| score > b.0) {
                        best = Some((score, scored, j as u32, reference));
                    }
                }
            }
            match best {
                Some((_, scored, j, reference)) => PrecisionRow {
                    scored: Some(scored),
                    index: Some(j),
                    reference,
                },
                None => PrecisionRow {
                    scored: None,
                    index: None,
                    reference: None,
                },
            }
        }
        RowRefs::Null => PrecisionRow {
            scored: None,
            index: None,
            reference: None,
        },
    }
}

fn is_list_reference(fields: &[Field]) -> bool {
    fields
        .get(1)
        .is_some_and(|f| matches!(f.dtype(), DataType::List(_)))
}

fn with_index(mut fields: Vec<Field>, list: bool) -> Vec<Field> {
    if list {
        fields.push(Field::new("reference_index".into(), DataType::UInt32));
    }
    fields
}

const COMPONENT_NAMES: [&str; 8] = [
    "exact",
    "normalized",
    "contains",
    "char_ratio",
    "token_precision",
    "numeric",
    "penalty",
    "score",
];

fn components_type(fields: &[Field]) -> PolarsResult<Field> {
    let inner = COMPONENT_NAMES
        .iter()
        .map(|&n| Field::new(n.into(), DataType::Float64))
        .collect();
    Ok(Field::new(
        "answer_precision_components".into(),
        DataType::Struct(with_index(inner, is_list_reference(fields))),
    ))
}

fn mismatch_dtype() -> DataType {
    DataType::Struct(vec![
        Field::new("expected".into(), DataType::Float64),
        Field::new("actual".into(), DataType::Float64),
        Field::new("rel_err".into(), DataType::Float64),
    ])
}

fn diagnostics_fields() -> Vec<Field> {
    vec![
        Field::new("score".into(), DataType::Float64),
        Field::new("path".into(), DataType::String),
        Field::new("token_recall".into(), DataType::Float64),
        Field::new(
            "missing_terms".into(),
            DataType::List(Box::new(DataType::String)),
        ),
        Field::new(
            "extra_terms".into(),
            DataType::List(Box::new(DataType::String)),
        ),
        Field::new(
            "numeric_mismatches".into(),
            DataType::List(Box::new(mismatch_dtype())),
        ),
        Field::new("reason".into(), DataType::String),
    ]
}

fn diagnostics_type(fields: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "answer_precision_diagnostics".into(),
        DataType::Struct(with_index(diagnostics_fields(), is_list_reference(fields))),
    ))
}

#[polars_expr(output_type=Float64)]
fn answer_precision(
    inputs: &[Series],
    context: CallerContext,
    kwargs: PrecisionKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let inp = precision_inputs(inputs, &kwargs)?;
    let scores = map_row_ranges(inp.n, !context.parallel(), |rows| {
        let mut scratch = precision::Scratch::default();
        rows.map(|row| {
            precision_row(t, &inp, row, &mut scratch)
                .scored
                .and_then(|s| s.score)
        })
        .collect()
    });
    let ca = Float64Chunked::from_iter_options("answer_precision".into(), scores.into_iter());
    Ok(ca.into_series())
}

#[polars_expr(output_type_func=components_type)]
fn answer_precision_components(
    inputs: &[Series],
    context: CallerContext,
    kwargs: PrecisionKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let inp = precision_inputs(inputs, &kwargs)?;
    let list = matches!(inp.references, References::Many(_));
    let mut cols: Vec<Vec<Option<f64>>> = (0..8).map(|_| Vec::with_capacity(inp.n)).collect();
    let mut index: Vec<Option<u32>> = Vec::with_capacity(inp.n);
    precision_rows(t, &inp, context, |_, r, _| {
        let c: Option<Components> = r.scored.and_then(|s| s.components);
        let values = [
            c.map(|c| c.exact),
            c.map(|c| c.normalized),
            c.map(|c| c.contains),
            c.map(|c| c.char_ratio),
            c.map(|c| c.token_precision),
            c.map(|c| c.numeric),
            c.map(|c| c.penalty),
            r.scored.and_then(|s| s.score),
        ];
        for (col, v) in cols.iter_mut().zip(values) {
            col.push(v);
        }
        index.push(r.index);
        Ok(())
    })?;
    let mut fields: Vec<Series> = cols
        .into_iter()
        .zip(COMPONENT_NAMES)
        .map(|(v, name)| {
            let ca: Float64Chunked = v.into_iter().collect();
            ca.with_name(name.into()).into_series()
        })
        .collect();
    if list {
        let ca: UInt32Chunked = index.into_iter().collect();
        fields.push(ca.with_name("reference_index".into()).into_series());
    }
    let out =
        StructChunked::from_series("answer_precision_components".into(), inp.n, fields.iter())?;
    Ok(out.into_series())
}

/// A `List` column from flat item values and per-row offsets and validity.
fn list_series(
    name: &str,
    items: Series,
    offsets: Vec<i64>,
    valid: Vec<bool>,
) -> PolarsResult<Series> {
    let items = items.rechunk();
    let values = if items.chunks().is_empty() {
        Box::new(NullArray::new(ArrowDataType::Null, 0)) as Box<dyn polars_arrow::array::Array>
    } else {
        items.to_arrow(0, CompatLevel::newest())
    };
    let dtype = ArrowListArray::<i64>::default_datatype(values.dtype().clone());
    let offsets = OffsetsBuffer::try_from(offsets)?;
    let validity = valid
        .iter()
        .any(|v| !v)
        .then(|| valid.into_iter().collect());
    let arr = ArrowListArray::<i64>::try_new(dtype, offsets, values, validity)?;
    let ca = ListChunked::with_chunk(name.into(), arr);
    let target = DataType::List(Box::new(items.dtype().clone()));
    ca.into_series().cast(&target)
}

#[polars_expr(output_type_func=diagnostics_type)]
fn answer_precision_diagnostics(
    inputs: &[Series],
    context: CallerContext,
    kwargs: PrecisionKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let inp = precision_inputs(inputs, &kwargs)?;
    let list = matches!(inp.references, References::Many(_));
    let n = inp.n;
    let mut score: Vec<Option<f64>> = Vec::with_capacity(n);
    let mut path: Vec<Option<&'static str>> = Vec::with_capacity(n);
    let mut recall: Vec<Option<f64>> = Vec::with_capacity(n);
    let mut reason: Vec<Option<String>> = Vec::with_capacity(n);
    let mut index: Vec<Option<u32>> = Vec::with_capacity(n);
    let mut term_values: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut term_offsets: [Vec<i64>; 2] = [vec![0], vec![0]];
    let mut valid: Vec<bool> = Vec::with_capacity(n);
    let (mut m_exp, mut m_act, mut m_rel) = (Vec::new(), Vec::new(), Vec::new());
    let mut m_offsets: Vec<i64> = vec![0];
    let (mut mism, mut text) = (Vec::<Mismatch>::new(), String::new());
    let o = &inp.options;
    precision_rows(t, &inp, context, |row, r, scratch| {
        index.push(r.index);
        let Some(scored) = r.scored else {
            score.push(None);
            path.push(None);
            recall.push(None);
            reason.push(None);
            valid.push(false);
            for k in 0..2 {
                term_offsets[k].push(term_values[k].len() as i64);
            }
            m_offsets.push(m_exp.len() as i64);
            return Ok(());
        };
        score.push(scored.score);
        path.push(Some(scored.path.name()));
        valid.push(true);
        match (scored.path, scored.components) {
            (PrecisionPath::Scored, Some(c)) => {
                // The scratch holds the last pair scored: score the best one again.
                let resp = inp.response.get(row);
                let again = precision::score_pair(
                    t,
                    o,
                    resp,
                    r.reference,
                    inp.tol_abs.get(row),
                    inp.tol_rel.get(row),
                    scratch,
                );
                debug_assert_eq!(again, scored);
                let (mut missing, mut extra) = (Vec::new(), Vec::new());
                precision::details(
                    t,
                    o,
                    &c,
                    scratch,
                    &mut missing,
                    &mut extra,
                    &mut mism,
                    &mut text,
                );
                recall.push(Some(c.token_recall));
                reason.push(Some(text.clone()));
                term_values[0].extend(missing.iter().map(|s| s.to_string()));
                term_values[1].extend(extra.iter().map(|s| s.to_string()));
                for &(e, a, rel) in &mism {
                    m_exp.push(e);
                    m_act.push(a);
                    m_rel.push(rel);
                }
            }
            _ => {
                recall.push(None);
                reason.push(Some(scored.path.reason().to_owned()));
            }
        }
        for k in 0..2 {
            term_offsets[k].push(term_values[k].len() as i64);
        }
        m_offsets.push(m_exp.len() as i64);
        Ok(())
    })?;
    let score: Float64Chunked = score.into_iter().collect();
    let path: StringChunked = path.into_iter().collect();
    let recall: Float64Chunked = recall.into_iter().collect();
    let reason: StringChunked = reason.into_iter().collect();
    let [missing_values, extra_values] = term_values;
    let [missing_offsets, extra_offsets] = term_offsets;
    let missing_values: StringChunked = missing_values.into_iter().map(Some).collect();
    let extra_values: StringChunked = extra_values.into_iter().map(Some).collect();
    let n_items = m_exp.len();
    let m_fields = [
        m_exp
            .into_iter()
            .collect::<Float64Chunked>()
            .with_name("expected".into())
            .into_series(),
        m_act
            .into_iter()
            .collect::<Float64Chunked>()
            .with_name("actual".into())
            .into_series(),
        m_rel
            .into_iter()
            .collect::<Float64Chunked>()
            .with_name("rel_err".into())
            .into_series(),
    ];
    let m_items =
        StructChunked::from_series("item".into(), n_items, m_fields.iter())?.into_series();
    let mut fields = vec![
        score.with_name("score".into()).into_series(),
        path.with_name("path".into()).into_series(),
        recall.with_name("token_recall".into()).into_series(),
        list_series(
            "missing_terms",
            missing_values.into_series(),
            missing_offsets,
            valid.clone(),
        )?,
        list_series(
            "extra_terms",
            extra_values.into_series(),
            extra_offsets,
            valid.clone(),
        )?,
        list_series("numeric_mismatches", m_items, m_offsets, valid)?,
        reason.with_name("reason".into()).into_series(),
    ];
    if list {
        let ca: UInt32Chunked = index.into_iter().collect();
        fields.push(ca.with_name("reference_index".into()).into_series());
    }
    let out = StructChunked::from_series("answer_precision_diagnostics".into(), n, fields.iter())?;
    Ok(out.into_series())
}

#[derive(Deserialize)]
struct CharRatioKwargs {
    char_similarity: String,
}

/// The character similarity of two normalised texts (tests and benchmarks of the kernel).
#[polars_expr(output_type=Float64)]
fn precision_char_ratio(inputs: &[Series], kwargs: CharRatioKwargs) -> PolarsResult<Series> {
    let mut s = precision::char_ratio::RatioScratch::default();
    let indel = kwargs.char_similarity == "indel";
    let mut ratio = |pair: (Option<&str>, Option<&str>)| match pair {
        (Some(x), Some(y)) if indel => Some(precision::char_ratio::indel(x, y, &mut s)),
        (Some(x), Some(y)) => Some(precision::char_ratio::sequence_matcher(x, y, &mut s)),
        _ => None,
    };
    let (a_ca, b_ca) = (inputs[0].str(), inputs[1].str());
    let ca: Float64Chunked = match (a_ca, b_ca) {
        // Two columns of the same length: read them chunk by chunk, in place.
        (Ok(a), Ok(b)) if a.len() == b.len() => a.iter().zip(b.iter()).map(ratio).collect(),
        _ => {
            let a = Texts::new(&inputs[0], "a")?;
            let b = Texts::new(&inputs[1], "b")?;
            let n = output_len(&[a.len(), b.len()])?;
            (0..n).map(|i| ratio((a.get(i), b.get(i)))).collect()
        }
    };
    Ok(ca.with_name("char_ratio".into()).into_series())
}

/// answer_precision's basic normalisation of each text (tests of the kernel).
#[polars_expr(output_type=String)]
fn precision_normalize(inputs: &[Series]) -> PolarsResult<Series> {
    let t = tables()?;
    let ca = inputs[0].str()?;
    let mut s = precision::normalize::NormScratch::default();
    let mut tmp = String::new();
    let out = ca.apply_into_string_amortized(|text, buf| {
        precision::normalize::basic_normalize(t, text, &mut s, &mut tmp);
        buf.push_str(&tmp);
    });
    Ok(out.into_series())
}

/// The greedy numeric agreement of two List(Float64) columns: the number of expected numbers
/// matched within tolerance (tests of the kernel against the oracle).
#[polars_expr(output_type=UInt32)]
fn precision_numeric_match(inputs: &[Series]) -> PolarsResult<Series> {
    let actual = inputs[0].list()?;
    let expected = inputs[1].list()?;
    let ta = inputs[2].cast(&DataType::Float64)?;
    let tr = inputs[3].cast(&DataType::Float64)?;
    let (ta, tr) = (ta.f64()?, tr.f64()?);
    let mut s = numbers_scratch();
    let (mut chosen, mut error) = (Vec::new(), Vec::new());
    let mut out: Vec<Option<u32>> = Vec::with_capacity(actual.len());
    for row in 0..actual.len() {
        let (a, e) = (actual.get_as_series(row), expected.get_as_series(row));
        let (Some(a), Some(e), Some(ta), Some(tr)) = (a, e, ta.get(row), tr.get(row)) else {
            out.push(None);
            continue;
        };
        let a: Vec<f64> = a.f64()?.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
        let e: Vec<f64> = e.f64()?.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
        precision::numbers::greedy_match(&a, &e, &mut s, &mut chosen, &mut error);
        let matched = e
            .iter()
            .enumerate()
            .filter(|&(k, &x)| {
                chosen[k].is_some() && (error[k] <= ta || error[k] / (x.abs() + 1e-12) <= tr)
            })
            .count();
        out.push(Some(matched as u32));
    }
    let ca: UInt32Chunked = out.into_iter().collect();
    Ok(ca.with_name("matched".into()).into_series())
}

fn numbers_scratch() -> precision::numbers::MatchScratch {
    precision::numbers::MatchScratch::default()
}

// --- deterministic checks ---------------------------------------------------------------------------

use crate::deterministic;

#[derive(Deserialize)]
struct KeywordsKwargs {
    case_sensitive: bool,
    /// contains's mode (`any`, `all`, `none`), for the score kernel.
    #[serde(default)]
    mode: Option<String>,
}

fn keywords_found_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "keywords_found".into(),
        DataType::Struct(vec![
            Field::new("found".into(), DataType::UInt32),
            Field::new("total".into(), DataType::UInt32),
        ]),
    ))
}

/// Per row: `(found, total)` keywords of the row's list in the text.
fn keywords_rows(
    inputs: &[Series],
    context: CallerContext,
    kwargs: &KeywordsKwargs,
) -> PolarsResult<Vec<(u32, u32)>> {
    let t = tables()?;
    let text = Texts::new(&inputs[0], "response")?;
    let keywords = References::new(&inputs[1], "keywords")?;
    // An empty batch scores no rows, even against a literal (one-row) keyword list.
    let n = if text.len() == 0 || keywords.len() == 0 {
        0
    } else {
        output_len(&[text.len(), keywords.len()])?
    };
    let rows = map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = deterministic::Scratch::default();
        rows.map(|row| {
            let resp = text.get(row).unwrap_or("");
            match keywords.row(row) {
                RowRefs::One(k) => deterministic::keywords_found(
                    t,
                    resp,
                    std::iter::once(k),
                    kwargs.case_sensitive,
                    &mut scratch,
                ),
                RowRefs::Many(list) => deterministic::keywords_found(
                    t,
                    resp,
                    list.iter(),
                    kwargs.case_sensitive,
                    &mut scratch,
                ),
                RowRefs::Null => (0, 0),
            }
        })
        .collect::<Vec<_>>()
    });
    Ok(rows)
}

/// Per row: how many keywords of the row's list occur in the text, and how many there are.
#[polars_expr(output_type_func=keywords_found_type)]
fn keywords_found(
    inputs: &[Series],
    context: CallerContext,
    kwargs: KeywordsKwargs,
) -> PolarsResult<Series> {
    let rows = keywords_rows(inputs, context, &kwargs)?;
    let n = rows.len();
    let found: UInt32Chunked = rows.iter().map(|r| Some(r.0)).collect();
    let total: UInt32Chunked = rows.iter().map(|r| Some(r.1)).collect();
    let fields = [
        found.with_name("found".into()).into_series(),
        total.with_name("total".into()).into_series(),
    ];
    let out = StructChunked::from_series("keywords_found".into(), n, fields.iter())?;
    Ok(out.into_series())
}

/// `f` of each row of a text input (a one-row input is broadcast), on all cores when allowed.
fn per_text<T: Send>(
    input: &Series,
    context: &CallerContext,
    f: impl Fn(Option<&str>) -> Option<T> + Sync,
) -> PolarsResult<Vec<Option<T>>> {
    let text = Texts::new(input, "response")?;
    Ok(map_row_ranges(text.len(), !context.parallel(), |rows| {
        rows.map(|row| f(text.get(row))).collect()
    }))
}

/// contains's score from `found` of `total` keywords (1.0 without keywords).
fn contains_score(found: u32, total: u32, mode: &str) -> f64 {
    match (total, mode) {
        (0, _) => 1.0,
        (_, "all") => f64::from(found) / f64::from(total),
        (_, "none") => f64::from(u8::from(found == 0)),
        _ => f64::from(u8::from(found > 0)),
    }
}

/// Per row: contains's score in one pass (1.0 without keywords; `any`, `all` or `none`).
///
/// A literal keyword list (one row, broadcast) is lowered and compiled into substring searchers
/// once per batch; `any` and `none` stop at the first keyword found.
#[polars_expr(output_type=Float64)]
fn keywords_score(
    inputs: &[Series],
    context: CallerContext,
    kwargs: KeywordsKwargs,
) -> PolarsResult<Series> {
    let mode = kwargs.mode.as_deref().unwrap_or("any");
    let keywords = References::new(&inputs[1], "keywords")?;
    let out: Float64Chunked = if keywords.len() == 1 {
        let t = tables()?;
        let text = Texts::new(&inputs[0], "response")?;
        let items: Vec<&str> = match keywords.row(0) {
            RowRefs::One(k) => k.into_iter().collect(),
            RowRefs::Many(list) => list.iter().flatten().collect(),
            RowRefs::Null => Vec::new(),
        };
        let null_list = matches!(keywords.row(0), RowRefs::Null);
        let finders: Vec<memchr::memmem::Finder<'static>> = items
            .iter()
            .map(|k| {
                let wanted = if kwargs.case_sensitive {
                    (*k).to_string()
                } else {
                    t.lower(k)
                };
                memchr::memmem::Finder::new(wanted.as_bytes()).into_owned()
            })
            .collect();
        let total = u32::try_from(finders.len()).unwrap_or(u32::MAX);
        let first_only = mode != "all";
        let n = text.len();
        let scores: Vec<Option<f64>> = map_row_ranges(n, !context.parallel(), |rows| {
            let mut scratch = deterministic::Scratch::default();
            rows.map(|row| {
                if null_list || total == 0 {
                    return Some(1.0);
                }
                let resp = text.get(row).unwrap_or("");
                let found = deterministic::count_found(
                    t,
                    resp,
                    &finders,
                    kwargs.case_sensitive,
                    first_only,
                    &mut scratch,
                );
                Some(contains_score(found, total, mode))
            })
            .collect()
        });
        scores.into_iter().collect()
    } else {
        let rows = keywords_rows(inputs, context, &kwargs)?;
        rows.iter()
            .map(|&(found, total)| Some(contains_score(found, total, mode)))
            .collect()
    };
    Ok(out.with_name("contains".into()).into_series())
}

/// Per row: 1.0 when the text holds anything besides Python whitespace, else 0.0 (null: 0.0).
#[polars_expr(output_type=Float64)]
fn non_empty_score(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let scores = per_text(&inputs[0], &context, |text| {
        Some(f64::from(u8::from(
            text.is_some_and(deterministic::non_blank),
        )))
    })?;
    let out: Float64Chunked = scores.into_iter().collect();
    Ok(out.with_name("non_empty".into()).into_series())
}

#[derive(Deserialize)]
struct ExactKwargs {
    case_sensitive: bool,
    strip_whitespace: bool,
}

/// Per row: exact_match's score, 1.0 or 0.0 (a null side is read as `""`).
#[polars_expr(output_type=Float64)]
fn exact_match_score(
    inputs: &[Series],
    context: CallerContext,
    kwargs: ExactKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let response = Texts::new(&inputs[0], "response")?;
    let reference = Texts::new(&inputs[1], "reference")?;
    let n = if response.len() == 0 || reference.len() == 0 {
        0
    } else {
        output_len(&[response.len(), reference.len()])?
    };
    let scores: Vec<Option<f64>> = map_row_ranges(n, !context.parallel(), |rows| {
        let mut scratch = deterministic::Scratch::default();
        rows.map(|row| {
            let equal = deterministic::exact_equal(
                t,
                response.get(row).unwrap_or(""),
                reference.get(row).unwrap_or(""),
                kwargs.case_sensitive,
                kwargs.strip_whitespace,
                &mut scratch,
            );
            Some(f64::from(u8::from(equal)))
        })
        .collect()
    });
    let out: Float64Chunked = scores.into_iter().collect();
    Ok(out.with_name("exact_match".into()).into_series())
}

/// Per row: whether the stripped text is a URL by `urlparse` (scheme and netloc), or null where
/// Python's own netloc checks must decide (brackets, non-ASCII characters).
#[polars_expr(output_type=Boolean)]
fn url_state(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let states = per_text(&inputs[0], &context, |text| {
        deterministic::url_state(pyunicode::py_strip(text.unwrap_or("")))
    })?;
    let out: BooleanChunked = states.into_iter().collect();
    Ok(out.with_name("format_check".into()).into_series())
}

/// Per row: the number of items of Python's `str.split()` (null text: 0).
#[polars_expr(output_type=UInt32)]
fn py_word_count(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let counts = per_text(&inputs[0], &context, |text| {
        Some(deterministic::py_word_count(text.unwrap_or("")))
    })?;
    let out: UInt32Chunked = counts.into_iter().collect();
    Ok(out.with_name(inputs[0].name().clone()).into_series())
}

/// Per row: `text.lower().startswith(prefix)` with Python's `lower()`, the prefix already lowered.
#[polars_expr(output_type=Boolean)]
fn lower_starts_with(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let t = tables()?;
    let text = Texts::new(&inputs[0], "response")?;
    let prefix = Texts::new(&inputs[1], "prefix")?;
    let n = if text.len() == 0 || prefix.len() == 0 {
        0
    } else {
        output_len(&[text.len(), prefix.len()])?
    };
    let flags: Vec<Option<bool>> = map_row_ranges(n, !context.parallel(), |rows| {
        rows.map(|row| {
            let (s, p) = (text.get(row).unwrap_or(""), prefix.get(row).unwrap_or(""));
            Some(deterministic::lower_starts_with(t, s, p))
        })
        .collect()
    });
    let out: BooleanChunked = flags.into_iter().collect();
    Ok(out.with_name("starts_with".into()).into_series())
}

// --- final-answer extraction ------------------------------------------------------------------------

use crate::extract::{self, ChoiceRules};

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
