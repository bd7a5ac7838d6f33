//! The `#[polars_expr]` wrappers of the judge-free checks that need Python's character semantics.

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{map_row_ranges, output_len, per_text, tables, References, RowRefs, Texts};
use crate::deterministic;
use crate::plugin::{polars_expr, CallerContext};
use crate::pyunicode;

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
