//! The `#[polars_expr]` wrapper of the fused call: a struct of several scorers' scores.

use polars::prelude::*;
use serde::Deserialize;

use crate::answer_match::expressions::MatchKwargs;
use crate::answer_match::{self as matching, Matcher};
use crate::columns::{map_row_ranges, output_len, row_items, tables, References, RowRefs, Texts};
use crate::correctness::expressions::CorrectnessKwargs;
use crate::correctness::{self, Mode, Outcome};
use crate::plugin::{polars_expr, CallerContext};
use crate::precision::expressions::{precision_options, PrecisionKwargs};
use crate::precision::{self, Scored};
use crate::pyunicode::Tables;
use crate::similarity::expressions::{similarity_metric, SimilarityKwargs};
use crate::similarity::{self, Metric};
use crate::squad::{self, Pair};

/// The scorers, in the order of the output's fields, and the options of those that take any
/// (each as its own expression's keyword arguments; literal values only).
#[derive(Deserialize)]
struct FusedKwargs {
    scorers: Vec<String>,
    #[serde(default)]
    answer_correctness: Option<CorrectnessKwargs>,
    #[serde(default)]
    answer_match: Option<MatchKwargs>,
    #[serde(default)]
    answer_precision: Option<PrecisionKwargs>,
    #[serde(default)]
    response_similarity: Option<SimilarityKwargs>,
}

/// One requested scorer, ready to run.
enum Scorer {
    Correctness(Mode),
    Match(matching::Options, Option<&'static matching::FoldTable>),
    Precision(precision::Options, f64, f64),
    Similarity(Metric, Option<u64>),
    /// SQuAD exact match or F1; `both` when the other is requested too (the first of the two
    /// then scores both, the second takes its result).
    Squad {
        pair: Pair,
        both: bool,
    },
}

fn missing(name: &str) -> PolarsError {
    polars_err!(ComputeError: "the fused call needs the literal options of {name}")
}

fn plan(t: &Tables, kwargs: &FusedKwargs) -> PolarsResult<Vec<Scorer>> {
    let squads = kwargs
        .scorers
        .iter()
        .filter(|s| matches!(s.as_str(), "squad_exact_match" | "squad_f1"))
        .count();
    let mut plan = Vec::with_capacity(kwargs.scorers.len());
    for name in &kwargs.scorers {
        plan.push(match name.as_str() {
            "answer_correctness" => {
                let k = kwargs
                    .answer_correctness
                    .as_ref()
                    .ok_or_else(|| missing(name))?;
                let mode = k.mode.as_deref().ok_or_else(|| missing(name))?;
                Scorer::Correctness(Mode::from_row(t, Some(mode)))
            }
            "answer_match" => {
                let k = kwargs.answer_match.as_ref().ok_or_else(|| missing(name))?;
                let (opts, fold) = k.options()?;
                Scorer::Match(opts, fold)
            }
            "answer_precision" => {
                let k = kwargs
                    .answer_precision
                    .as_ref()
                    .ok_or_else(|| missing(name))?;
                let (Some(abs), Some(rel)) = (k.tol_abs, k.tol_rel) else {
                    return Err(missing(name));
                };
                Scorer::Precision(precision_options(k)?, abs, rel)
            }
            "response_similarity" => {
                let k = kwargs
                    .response_similarity
                    .as_ref()
                    .ok_or_else(|| missing(name))?;
                Scorer::Similarity(similarity_metric(k)?, k.max_work)
            }
            "squad_exact_match" => Scorer::Squad {
                pair: Pair::ExactMatch,
                both: squads == 2,
            },
            "squad_f1" => Scorer::Squad {
                pair: Pair::F1,
                both: squads == 2,
            },
            other => polars_bail!(ComputeError: "the fused call has no scorer {other:?}"),
        });
    }
    Ok(plan)
}

/// Each scorer's buffers, for one range of rows.
#[derive(Default)]
struct Scratch {
    correctness: correctness::Scratch,
    matcher: Matcher,
    precision: precision::Scratch,
    similarity: similarity::Scratch,
    squad: squad::Scratch,
}

fn outcome_score(o: Outcome) -> Option<f64> {
    match o {
        Outcome::Inconclusive => None,
        Outcome::Match => Some(1.0),
        Outcome::NoMatch => Some(0.0),
    }
}

/// answer_precision over a row's references: the first with the best score (a null score is
/// unusable), as its own wrapper keeps it.
fn precision_best<'a>(
    t: &Tables,
    o: &precision::Options,
    response: Option<&str>,
    references: RowRefs<'a>,
    (abs, rel): (f64, f64),
    s: &mut precision::Scratch,
) -> Option<f64> {
    let score = |reference, s: &mut precision::Scratch| -> Scored {
        precision::score_pair(t, o, response, reference, Some(abs), Some(rel), s)
    };
    // The response is read once for all of the row's references.
    let again = |reference, s: &mut precision::Scratch| -> Scored {
        precision::score_pair_same_response(t, o, response, reference, Some(abs), Some(rel), s)
    };
    match references {
        RowRefs::One(reference) => score(reference, s).score,
        RowRefs::Many(list) => list
            .iter()
            .enumerate()
            .filter_map(|(j, reference)| {
                if j == 0 {
                    score(reference, s).score
                } else {
                    again(reference, s).score
                }
            })
            .fold(None, |best: Option<f64>, x| {
                Some(best.map_or(x, |b| if x > b { x } else { b }))
            }),
        RowRefs::Null => None,
    }
}

/// Rows scored together: each scorer runs over a block's rows in turn, so its code and tables
/// stay in cache, and the block's texts stay in cache from one scorer to the next.
const BLOCK: usize = 256;

/// The scores of the rows `rows`, row-major (each row's scores in request order).
fn score_rows(
    t: &Tables,
    plan: &[Scorer],
    response: &Texts,
    references: &References,
    rows: std::ops::Range<usize>,
    s: &mut Scratch,
) -> Vec<Option<f64>> {
    let k = plan.len();
    let mut out = vec![None; rows.len() * k];
    let first = rows.start;
    let mut block_start = rows.start;
    while block_start < rows.end {
        let block = block_start..(block_start + BLOCK).min(rows.end);
        block_start = block.end;
        for (j, scorer) in plan.iter().enumerate() {
            for row in block.clone() {
                let at = (row - first) * k;
                if let Some(scores) = out.get_mut(at..at + k) {
                    let (resp, refs) = (response.get(row), references.row(row));
                    score_one(t, plan, j, scorer, resp, refs, s, scores);
                }
            }
        }
    }
    out
}

/// Scorer `j` (`scorer`) of one row, written to `scores[j]` (SQuAD's pair: the first of the two
/// writes both, the second nothing).
#[allow(clippy::too_many_arguments)]
fn score_one(
    t: &Tables,
    plan: &[Scorer],
    j: usize,
    scorer: &Scorer,
    response: Option<&str>,
    references: RowRefs,
    s: &mut Scratch,
    scores: &mut [Option<f64>],
) {
    let resp = response.unwrap_or("");
    let score = match scorer {
        Scorer::Correctness(mode) => match references {
            RowRefs::One(reference) => outcome_score(correctness::score_pair(
                t,
                resp,
                reference,
                *mode,
                &mut s.correctness,
            )),
            RowRefs::Many(list) => outcome_score(
                correctness::score_many(t, resp, list.iter(), *mode, &mut s.correctness).0,
            ),
            RowRefs::Null => None,
        },
        Scorer::Match(opts, fold) => {
            let decision = match references {
                RowRefs::One(reference) => {
                    let once = std::iter::once(reference);
                    s.matcher.decide(t, *fold, opts, resp, once, None)
                }
                RowRefs::Many(list) => s.matcher.decide(t, *fold, opts, resp, list.iter(), None),
                RowRefs::Null => None,
            };
            decision.map(|d| d.score())
        }
        Scorer::Precision(o, abs, rel) => {
            precision_best(t, o, response, references, (*abs, *rel), &mut s.precision)
        }
        Scorer::Similarity(metric, max_work) => {
            similarity::Scorer::new(*metric, resp, &mut s.similarity)
                .with_max_work(*max_work)
                .best_score(t, row_items(references))
        }
        Scorer::Squad { pair, both: false } => {
            squad::best(t, *pair, resp, row_items(references), &mut s.squad)
        }
        Scorer::Squad { pair, both: true } => {
            let other = plan
                .iter()
                .enumerate()
                .position(|(i, p)| i != j && matches!(p, Scorer::Squad { .. }));
            if other.is_some_and(|o| o < j) {
                return;
            }
            let (exact, f1) = squad::best_both(t, resp, row_items(references), &mut s.squad);
            let (mine, theirs) = match pair {
                Pair::ExactMatch => (exact, f1),
                Pair::F1 => (f1, exact),
            };
            if let Some(slot) = other.and_then(|o| scores.get_mut(o)) {
                *slot = theirs;
            }
            mine
        }
    };
    if let Some(slot) = scores.get_mut(j) {
        *slot = score;
    }
}

fn fused_type(_: &[Field], kwargs: FusedKwargs) -> PolarsResult<Field> {
    let fields = kwargs
        .scorers
        .iter()
        .map(|name| Field::new(name.as_str().into(), DataType::Float64))
        .collect();
    Ok(Field::new("fused_scores".into(), DataType::Struct(fields)))
}

/// Several scorers over one response and one reference column (`String` or `List(String)`):
/// a struct of their `Float64` scores, one field per scorer, named after it, in request order.
#[polars_expr(output_type_func_with_kwargs=fused_type)]
fn fused_scores(
    inputs: &[Series],
    context: CallerContext,
    kwargs: FusedKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let plan = plan(t, &kwargs)?;
    let response = Texts::new(&inputs[0], "response")?;
    let references = References::new(&inputs[1], "reference")?;
    let n = output_len(&[response.len(), references.len()])?;
    let k = plan.len();
    let scores = map_row_ranges(n, !context.parallel(), |rows| {
        score_rows(
            t,
            &plan,
            &response,
            &references,
            rows,
            &mut Scratch::default(),
        )
    });
    let fields: Vec<Series> = kwargs
        .scorers
        .iter()
        .enumerate()
        .map(|(j, name)| {
            let column = scores.iter().skip(j).step_by(k.max(1)).copied();
            Float64Chunked::from_iter_options(name.as_str().into(), column).into_series()
        })
        .collect();
    let out = StructChunked::from_series("fused_scores".into(), n, fields.iter())?;
    Ok(out.into_series())
}
