//! The `#[polars_expr]` wrappers of final-answer extraction (MMLU-Pro letters, GSM8K numbers).

use polars::prelude::*;
use serde::Deserialize;

use crate::columns::{
    map_row_ranges, output_len, per_text, row_items, tables, References, RowRefs, Texts,
};
use crate::extract::{self, correct, final_choice, final_number, ChoiceRules};
use crate::plugin::{polars_expr, CallerContext};
use crate::pyunicode::is_py_space;

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

/// Per row: numeric_match's score. The answer's number (`method`; `"final"`: the final number
/// the response commits to) and each gold's are read as `f64` (a fraction `p/q` as its value),
/// and match when `|a - g| <= abs` or `|a - g| / (|g| + 1e-12) <= rel` (Kleene logic over a
/// null tolerance, then false). A list of golds scores its best; null where no gold holds a
/// number.
#[polars_expr(output_type=Float64)]
fn numeric_match(
    inputs: &[Series],
    context: CallerContext,
    kwargs: NumberKwargs,
) -> PolarsResult<Series> {
    let method = match kwargs.method.as_str() {
        "final" => None,
        other => Some(number_method(other, false)?),
    };
    let text = Texts::new(&inputs[0], "response")?;
    let gold = References::new(&inputs[1], "reference")?;
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
        rows.map(|row| {
            let golds = row_items(gold.row(row))
                .flatten()
                .filter_map(|g| match method {
                    None => {
                        final_number::gold_number(g).and_then(|c| final_number::canonical_value(&c))
                    }
                    Some(_) => {
                        let raw = extract::raw_number(g, extract::NumberMethod::Gold)?;
                        let mut clean = String::new();
                        extract::push_clean_number(raw, &mut clean);
                        clean.parse::<f64>().ok()
                    }
                });
            let answer = text.get(row).and_then(|s| match method {
                None => final_number::final_number_text(s)
                    .and_then(|(c, _)| final_number::canonical_value(&c)),
                Some(m) => {
                    let raw = extract::raw_number(s, m)?;
                    buf.clear();
                    extract::push_clean_number(raw, &mut buf);
                    buf.parse::<f64>().ok()
                }
            });
            let (abs, rel) = (pick(&tol_abs, row), pick(&tol_rel, row));
            let mut usable = false;
            let mut matched = false;
            for g in golds {
                usable = true;
                if let Some(a) = answer {
                    let error = (a - g).abs();
                    let within_abs = abs.map(|t| error <= t);
                    let within_rel = rel.map(|t| error / (g.abs() + 1e-12) <= t);
                    matched |=
                        matches!((within_abs, within_rel), (Some(true), _) | (_, Some(true)));
                }
            }
            usable.then_some(f64::from(u8::from(matched)))
        })
        .collect()
    });
    let out: Float64Chunked = scores.into_iter().collect();
    Ok(out.with_name("numeric_match".into()).into_series())
}

/// The options' texts of every row, from a `List(String)` input (a null literal: none).
fn choice_options<'a>(s: &'a Series) -> PolarsResult<Option<References<'a>>> {
    match s.dtype() {
        DataType::Null => Ok(None),
        _ => References::new(s, "choices").map(Some),
    }
}

/// Row `row`'s options, collected into `buf`; `None` when the row has none.
fn row_options<'a>(
    options: &Option<References<'a>>,
    row: usize,
    buf: &mut Vec<Option<&'a str>>,
) -> bool {
    buf.clear();
    match options.as_ref().map(|o| o.row(row)) {
        Some(RowRefs::Many(list)) => {
            buf.extend(list.iter());
            true
        }
        _ => false,
    }
}

/// Per row: what `final_choice` reads (`None` for a null response).
fn final_choice_rows(
    inputs: &[Series],
    context: &CallerContext,
) -> PolarsResult<Vec<Option<final_choice::Choice>>> {
    let text = Texts::new(&inputs[0], "response")?;
    let options = match inputs.get(1) {
        Some(s) => choice_options(s)?,
        None => None,
    };
    let lens: Vec<usize> = std::iter::once(text.len())
        .chain(options.as_ref().map(References::len))
        .collect();
    let n = if lens.contains(&0) {
        0
    } else {
        output_len(&lens)?
    };
    Ok(map_row_ranges(n, !context.parallel(), |rows| {
        let mut buf = Vec::new();
        rows.map(|row| {
            let t = text.get(row)?;
            let has = row_options(&options, row, &mut buf);
            Some(final_choice::final_choice(t, has.then_some(&buf[..])))
        })
        .collect()
    }))
}

const LETTERS: [&str; 26] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S",
    "T", "U", "V", "W", "X", "Y", "Z",
];

fn letter_str(letter: u8) -> Option<&'static str> {
    LETTERS.get(usize::from(letter.checked_sub(b'A')?)).copied()
}

/// Per row: the option letter the response finally commits to, or null.
#[polars_expr(output_type=String)]
fn final_choice(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = final_choice_rows(inputs, &context)?;
    let out: StringChunked = rows
        .iter()
        .map(|r| r.and_then(|c| c.letter).and_then(letter_str))
        .collect();
    Ok(out.with_name("final_choice".into()).into_series())
}

fn final_choice_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "final_choice_details".into(),
        DataType::Struct(vec![
            Field::new("choice".into(), DataType::String),
            Field::new("form".into(), DataType::String),
            Field::new("reason".into(), DataType::String),
        ]),
    ))
}

/// Per row: `{choice, form, reason}` of `final_choice`; all null for a null response.
#[polars_expr(output_type_func=final_choice_details_type)]
fn final_choice_details(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = final_choice_rows(inputs, &context)?;
    let n = rows.len();
    let choice: StringChunked = rows
        .iter()
        .map(|r| r.and_then(|c| c.letter).and_then(letter_str))
        .collect();
    let form: StringChunked = rows
        .iter()
        .map(|r| r.and_then(|c| c.form).map(final_choice::ChoiceForm::name))
        .collect();
    let reason: StringChunked = rows
        .iter()
        .map(|r| r.and_then(|c| c.reason).map(final_choice::NoChoice::name))
        .collect();
    let fields = [
        choice.with_name("choice".into()).into_series(),
        form.with_name("form".into()).into_series(),
        reason.with_name("reason".into()).into_series(),
    ];
    let out = StructChunked::from_series("final_choice_details".into(), n, fields.iter())?;
    Ok(out.into_series())
}

/// A row's final number and its form, or `None` when its text holds no number.
type FinalNumber = Option<(String, final_number::NumberForm)>;

/// Per row: the canonical final number and its form (`None` for a null response).
fn final_number_rows(
    inputs: &[Series],
    context: &CallerContext,
) -> PolarsResult<Vec<Option<FinalNumber>>> {
    let text = Texts::new(&inputs[0], "response")?;
    Ok(map_row_ranges(text.len(), !context.parallel(), |rows| {
        rows.map(|row| text.get(row).map(final_number::final_number_text))
            .collect()
    }))
}

/// Per row: the canonical final number the response commits to, or null.
#[polars_expr(output_type=String)]
fn final_number(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = final_number_rows(inputs, &context)?;
    let out: StringChunked = rows
        .iter()
        .map(|r| r.as_ref().and_then(|f| f.as_ref()).map(|(s, _)| s.as_str()))
        .collect();
    Ok(out.with_name("final_number".into()).into_series())
}

fn final_number_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "final_number_details".into(),
        DataType::Struct(vec![
            Field::new("number".into(), DataType::String),
            Field::new("form".into(), DataType::String),
            Field::new("reason".into(), DataType::String),
        ]),
    ))
}

/// Per row: `{number, form, reason}` of `final_number`; all null for a null response.
#[polars_expr(output_type_func=final_number_details_type)]
fn final_number_details(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = final_number_rows(inputs, &context)?;
    let n = rows.len();
    let number: StringChunked = rows
        .iter()
        .map(|r| r.as_ref().and_then(|f| f.as_ref()).map(|(s, _)| s.as_str()))
        .collect();
    let form: StringChunked = rows
        .iter()
        .map(|r| r.as_ref().and_then(|f| f.as_ref()).map(|(_, f)| f.name()))
        .collect();
    let reason: StringChunked = rows
        .iter()
        .map(|r| r.as_ref().and_then(|f| f.is_none().then_some("no_number")))
        .collect();
    let fields = [
        number.with_name("number".into()).into_series(),
        form.with_name("form".into()).into_series(),
        reason.with_name("reason".into()).into_series(),
    ];
    let out = StructChunked::from_series("final_number_details".into(), n, fields.iter())?;
    Ok(out.into_series())
}

#[derive(Deserialize)]
struct ChoiceMatchKwargs {
    /// `"final"`, `"mmlu_pro"` or `"answer_is"`.
    rules: String,
}

/// Whether a gold answer (a letter, or with the options known, an option's text) names
/// `letter`; `None` for a blank gold. A gold that is neither never matches.
fn gold_names(gold: &str, letter: u8, options: Option<&[Option<&str>]>) -> Option<bool> {
    let gold = gold.trim_matches(is_py_space);
    if gold.is_empty() {
        return None;
    }
    let g = gold.as_bytes();
    let letter_of = |c: u8| c.to_ascii_uppercase();
    if g.len() == 1 && g[0].is_ascii_alphabetic() {
        return Some(letter_of(g[0]) == letter);
    }
    // `(B)`, `B.`, `B)`: a letter with its marks.
    let bare = gold.trim_matches(|c: char| matches!(c, '(' | ')' | '.' | ' '));
    if bare.len() == 1 && bare.as_bytes()[0].is_ascii_alphabetic() {
        return Some(letter_of(bare.as_bytes()[0]) == letter);
    }
    let own = options
        .and_then(|o| o.get(usize::from(letter - b'A')).copied().flatten())
        .map(|own| own.trim_matches(is_py_space));
    Some(own.is_some_and(|own| own.eq_ignore_ascii_case(gold)))
}

/// Per row: choice_match's score: 1.0 when the extracted letter is a gold letter (or names a
/// gold option's text), 0.0 when not or when none is extracted, null where no gold is usable.
#[polars_expr(output_type=Float64)]
fn choice_match(
    inputs: &[Series],
    context: CallerContext,
    kwargs: ChoiceMatchKwargs,
) -> PolarsResult<Series> {
    let t = tables()?;
    let rules = match kwargs.rules.as_str() {
        "final" => None,
        "mmlu_pro" => Some(ChoiceRules::Full),
        "answer_is" => Some(ChoiceRules::AnswerIs),
        other => polars_bail!(ComputeError: "unknown choice rules {other:?}"),
    };
    let text = Texts::new(&inputs[0], "response")?;
    let gold = References::new(&inputs[1], "reference")?;
    let options = match inputs.get(2) {
        Some(s) => choice_options(s)?,
        None => None,
    };
    let lens: Vec<usize> = [text.len(), gold.len()]
        .into_iter()
        .chain(options.as_ref().map(References::len))
        .collect();
    let n = if lens.contains(&0) {
        0
    } else {
        output_len(&lens)?
    };
    let scores: Vec<Option<f64>> = map_row_ranges(n, !context.parallel(), |rows| {
        let mut buf = Vec::new();
        rows.map(|row| {
            let has = row_options(&options, row, &mut buf);
            let opts = has.then_some(&buf[..]);
            let letter = text.get(row).and_then(|s| match rules {
                None => final_choice::final_choice(s, opts).letter,
                Some(r) => extract::mmlu_pro_choice(t, s, r).map(|c| c as u8),
            });
            let mut usable = false;
            let mut matched = false;
            for g in row_items(gold.row(row)).flatten() {
                let verdict = match letter {
                    Some(l) => gold_names(g, l, opts),
                    // No letter: any usable gold makes the row a 0.
                    None => gold_names(g, b'A', opts).map(|_| false),
                };
                if let Some(v) = verdict {
                    usable = true;
                    matched |= v;
                }
            }
            usable.then_some(f64::from(u8::from(matched)))
        })
        .collect()
    });
    let out: Float64Chunked = scores.into_iter().collect();
    Ok(out.with_name("choice_match".into()).into_series())
}

/// Row `row`'s references as a list in `buf` (one text column's value is a list of one, as
/// `pl.concat_list` makes it); `false` for a null list.
fn row_list<'a>(refs: &References<'a>, row: usize, buf: &mut Vec<Option<&'a str>>) -> bool {
    buf.clear();
    match refs.row(row) {
        RowRefs::One(text) => {
            buf.push(text);
            true
        }
        RowRefs::Many(list) => {
            buf.extend(list.iter());
            true
        }
        RowRefs::Null => false,
    }
}

/// The row count of inputs of these lengths (0 when one is empty).
fn rows_of(lens: &[usize]) -> PolarsResult<usize> {
    if lens.contains(&0) {
        Ok(0)
    } else {
        output_len(lens)
    }
}

/// Per row: `correct`'s numeric rule (see `extract::correct::number_verdict`).
fn correct_number_rows(
    inputs: &[Series],
    context: &CallerContext,
    details: bool,
) -> PolarsResult<Vec<correct::NumberVerdict>> {
    let text = Texts::new(&inputs[0], "response")?;
    let gold = References::new(&inputs[1], "references")?;
    let n = rows_of(&[text.len(), gold.len()])?;
    Ok(map_row_ranges(n, !context.parallel(), |rows| {
        let (mut golds, mut buf) = (Vec::new(), String::new());
        rows.map(|row| {
            let has = row_list(&gold, row, &mut golds);
            let items = has.then_some(&golds[..]);
            correct::number_verdict(text.get(row), items, details, &mut buf)
        })
        .collect()
    }))
}

/// Per row: `correct`'s numeric score: the response's final number equals a gold alias's, as
/// numbers (1.0 or 0.0); null where no gold holds a number.
#[polars_expr(output_type=Float64)]
fn correct_number(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = correct_number_rows(inputs, &context, false)?;
    let out: Float64Chunked = rows.iter().map(|v| v.score).collect();
    Ok(out.with_name("correct".into()).into_series())
}

/// The fields of the `*_details` structs of `correct`'s native rules.
fn correct_rule_details_type(_: &[Field]) -> PolarsResult<Field> {
    Ok(Field::new(
        "correct_rule_details".into(),
        DataType::Struct(vec![
            Field::new("correct".into(), DataType::Float64),
            Field::new("extracted".into(), DataType::String),
            Field::new("gold".into(), DataType::String),
            Field::new("form".into(), DataType::String),
            Field::new("reason".into(), DataType::String),
        ]),
    ))
}

/// Assemble a `correct_rule_details` struct from its five columns.
fn rule_details(
    score: Float64Chunked,
    extracted: StringChunked,
    gold: StringChunked,
    form: StringChunked,
    reason: StringChunked,
) -> PolarsResult<Series> {
    let n = score.len();
    let fields = [
        score.with_name("correct".into()).into_series(),
        extracted.with_name("extracted".into()).into_series(),
        gold.with_name("gold".into()).into_series(),
        form.with_name("form".into()).into_series(),
        reason.with_name("reason".into()).into_series(),
    ];
    Ok(StructChunked::from_series("correct_rule_details".into(), n, fields.iter())?.into_series())
}

/// Per row: `{correct, extracted, gold, form, reason}` of `correct`'s numeric rule: the score,
/// the response's final number, the first gold alias's number, the form read, and the reason
/// (`"the gold holds no number"` when no alias holds one, else `final_number_details`').
#[polars_expr(output_type_func=correct_rule_details_type)]
fn correct_number_details(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = correct_number_rows(inputs, &context, true)?;
    let text = Texts::new(&inputs[0], "response")?;
    let reason = rows
        .iter()
        .enumerate()
        .map(|(row, v)| match (&v.gold, &v.number) {
            (None, _) => Some("the gold holds no number"),
            (Some(_), None) => text.get(row).map(|_| "no_number"),
            (Some(_), Some(_)) => None,
        });
    rule_details(
        rows.iter().map(|v| v.score).collect(),
        rows.iter()
            .map(|v| v.number.as_ref().map(|(s, _)| s.as_str()))
            .collect(),
        rows.iter().map(|v| v.gold.as_deref()).collect(),
        rows.iter()
            .map(|v| v.number.as_ref().map(|(_, f)| f.name()))
            .collect(),
        reason.collect(),
    )
}

/// `correct`'s multiple-choice inputs: the response and the golds, and with the options, the
/// options, the normalised response, golds and options.
struct ChoiceInputs<'a> {
    text: Texts<'a>,
    gold: References<'a>,
    options: Option<[References<'a>; 2]>,
    normalized: Option<(Texts<'a>, References<'a>)>,
    n: usize,
}

impl<'a> ChoiceInputs<'a> {
    fn new(inputs: &'a [Series]) -> PolarsResult<Self> {
        let text = Texts::new(&inputs[0], "response")?;
        let gold = References::new(&inputs[1], "references")?;
        let (options, normalized) = if inputs.len() >= 6 {
            let opts = References::new(&inputs[2], "choices")?;
            let nopts = References::new(&inputs[5], "choices")?;
            let nt = Texts::new(&inputs[3], "response")?;
            let ng = References::new(&inputs[4], "references")?;
            (Some([opts, nopts]), Some((nt, ng)))
        } else {
            (None, None)
        };
        let mut lens = vec![text.len(), gold.len()];
        if let (Some([o, no]), Some((nt, ng))) = (&options, &normalized) {
            lens.extend([o.len(), no.len(), nt.len(), ng.len()]);
        }
        let n = rows_of(&lens)?;
        Ok(ChoiceInputs {
            text,
            gold,
            options,
            normalized,
            n,
        })
    }

    /// Per row: the verdict, and (when `details`) the gold letter.
    fn rows(
        &self,
        context: &CallerContext,
        details: bool,
    ) -> Vec<(correct::ChoiceVerdict, Option<correct::Chosen>)> {
        map_row_ranges(self.n, !context.parallel(), |rows| {
            let mut bufs: [Vec<Option<&str>>; 4] = Default::default();
            rows.map(|row| {
                let [golds, texts, normalized, normalized_golds] = &mut bufs;
                let golds = row_list(&self.gold, row, golds).then_some(&golds[..]);
                let (options, nresponse, ngolds) = match (&self.options, &self.normalized) {
                    (Some([o, no]), Some((nt, ng))) => {
                        let has_texts =
                            matches!(o.row(row), RowRefs::Many(_)) && row_list(o, row, texts);
                        let has_norm = matches!(no.row(row), RowRefs::Many(_))
                            && row_list(no, row, normalized);
                        let has_ng = row_list(ng, row, normalized_golds);
                        (
                            Some(correct::Options {
                                texts: has_texts.then_some(&texts[..]),
                                normalized: has_norm.then_some(&normalized[..]),
                            }),
                            nt.get(row),
                            has_ng.then_some(&normalized_golds[..]),
                        )
                    }
                    _ => (None, None, None),
                };
                let verdict =
                    correct::choice_verdict(self.text.get(row), golds, options, nresponse, ngolds);
                let gold = if details {
                    correct::gold_choice(golds, options, ngolds)
                } else {
                    None
                };
                (verdict, gold)
            })
            .collect()
        })
    }
}

fn chosen_str(c: Option<correct::Chosen>) -> Option<&'static str> {
    match c? {
        correct::Chosen::Letter(l) => letter_str(l),
        correct::Chosen::PastZ => Some(""),
    }
}

/// Per row: `correct`'s multiple-choice score: the final letter (or the option stated) against
/// the golds' letters (and with the options, their texts); null where no gold is usable.
#[polars_expr(output_type=Float64)]
fn correct_choice(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = ChoiceInputs::new(inputs)?.rows(&context, false);
    let out: Float64Chunked = rows.iter().map(|(v, _)| v.score).collect();
    Ok(out.with_name("correct".into()).into_series())
}

/// Per row: `{correct, extracted, gold, form, reason}` of `correct`'s multiple-choice rule: the
/// score, the letter chosen, the first gold's letter, `final_choice_details`' form, and the
/// reason (`"the gold is neither a letter nor one of the options"` when the gold has no letter,
/// else `final_choice_details`').
#[polars_expr(output_type_func=correct_rule_details_type)]
fn correct_choice_details(inputs: &[Series], context: CallerContext) -> PolarsResult<Series> {
    let rows = ChoiceInputs::new(inputs)?.rows(&context, true);
    let reason = rows.iter().map(|(v, gold)| match gold {
        None => Some("the gold is neither a letter nor one of the options"),
        Some(_) => v
            .read
            .and_then(|c| c.reason)
            .map(final_choice::NoChoice::name),
    });
    rule_details(
        rows.iter().map(|(v, _)| v.score).collect(),
        rows.iter().map(|(v, _)| chosen_str(v.chosen)).collect(),
        rows.iter().map(|(_, g)| chosen_str(*g)).collect(),
        rows.iter()
            .map(|(v, _)| {
                v.read
                    .and_then(|c| c.form)
                    .map(final_choice::ChoiceForm::name)
            })
            .collect(),
        reason.collect(),
    )
}
