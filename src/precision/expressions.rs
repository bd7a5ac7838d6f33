//! The `#[polars_expr]` wrappers of answer_precision (eval-ai-library's AnswerPrecisionMetric)
//! and of its parts, for tests and benchmarks.

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, tables, References, RowRefs, Texts};
use crate::plugin::{polars_expr, CallerContext};
use crate::precision::{self, Comp, Components, Mismatch, Path as PrecisionPath, Scored};
use crate::pyunicode;
use polars_arrow::array::{ListArray as ArrowListArray, NullArray};
use polars_arrow::offset::OffsetsBuffer;

#[derive(Deserialize)]
pub(crate) struct PrecisionKwargs {
    char_similarity: String,
    missing_expected: String,
    power_p: f64,
    /// (component, weight) in summation order.
    weights: Vec<(String, f64)>,
    stopwords: Vec<String>,
    /// The literal tolerances; `None` when an input column gives one per row.
    pub(crate) tol_abs: Option<f64>,
    pub(crate) tol_rel: Option<f64>,
    /// The length guard: the work the character similarity of a pair may take.
    #[serde(default)]
    max_work: Option<u64>,
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

/// The scorer's options from its keyword arguments.
pub(crate) fn precision_options(kwargs: &PrecisionKwargs) -> PolarsResult<precision::Options> {
    let mut weights = Vec::with_capacity(kwargs.weights.len());
    for (name, w) in &kwargs.weights {
        let comp = Comp::from_name(name)
            .ok_or_else(|| polars_err!(ComputeError: "unknown component {name}"))?;
        weights.push((comp, *w));
    }
    let options = precision::Options::new(
        kwargs.char_similarity == "indel",
        kwargs.missing_expected == "zero",
        kwargs.power_p,
        weights,
        precision::stopword_table(&kwargs.stopwords),
        kwargs.max_work,
    );
    Ok(options)
}

fn precision_inputs<'a>(
    inputs: &'a [Series],
    kwargs: &PrecisionKwargs,
) -> PolarsResult<PrecisionInputs<'a>> {
    let options = precision_options(kwargs)?;
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
                // The response is read once for all of the row's references.
                let scored = if j == 0 {
                    precision::score_pair(t, o, resp, reference, ta, tr, scratch)
                } else {
                    precision::score_pair_same_response(t, o, resp, reference, ta, tr, scratch)
                };
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

/// The score of one row of answer_precision ([`precision_row`]'s): a row of one reference
/// takes its score alone, without the row's other results (about a hundred bytes copied).
#[inline]
fn precision_score(
    t: &pyunicode::Tables,
    inp: &PrecisionInputs<'_>,
    row: usize,
    scratch: &mut precision::Scratch,
) -> Option<f64> {
    match inp.references.row(row) {
        RowRefs::One(reference) => {
            let resp = inp.response.get(row);
            let (ta, tr) = (inp.tol_abs.get(row), inp.tol_rel.get(row));
            precision::score_pair(t, &inp.options, resp, reference, ta, tr, scratch).score
        }
        _ => precision_row(t, inp, row, scratch)
            .scored
            .and_then(|s| s.score),
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
        rows.map(|row| precision_score(t, &inp, row, &mut scratch))
            .collect()
    });
    Ok(float_column("answer_precision", &scores).into_series())
}

/// A Float64 column of `values`: their values in one vector (0 under a null) and a validity
/// bitmap only when one is null, where a builder appended each `Option` (about 2% of
/// answer_precision's cost on short rows).
fn float_column(name: &str, values: &[Option<f64>]) -> Float64Chunked {
    let data: Vec<f64> = values.iter().map(|v| v.unwrap_or(0.0)).collect();
    let validity = values
        .iter()
        .any(Option::is_none)
        .then(|| values.iter().map(Option::is_some).collect());
    Float64Chunked::from_vec_validity(name.into(), data, validity)
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
                let again = precision::score_pair_for_details(
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
    #[serde(default)]
    max_work: Option<u64>,
}

/// The character similarity of two normalised texts (tests and benchmarks of the kernel); null
/// where it would take more than `max_work`.
#[polars_expr(output_type=Float64)]
fn precision_char_ratio(inputs: &[Series], kwargs: CharRatioKwargs) -> PolarsResult<Series> {
    let mut s = precision::char_ratio::RatioScratch::default();
    let indel = kwargs.char_similarity == "indel";
    let budget = kwargs.max_work;
    let mut ratio = |pair: (Option<&str>, Option<&str>)| match pair {
        (Some(x), Some(y)) if indel => precision::char_ratio::indel(x, y, &mut s, budget),
        (Some(x), Some(y)) => precision::char_ratio::sequence_matcher(x, y, &mut s, budget),
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
