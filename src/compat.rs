//! A reference input on Polars 1.x: `String` or `List(String)`, decided when the query is planned.
//!
//! A reference column may hold one text per row or a list of them, and the kernels read both
//! (`crate::columns::References`). Polarscore casts it first (Categorical to String, and so on,
//! see `polarscore/_compat.py`). Polars 2.x lets the Python side choose that cast once the plan
//! knows the column's dtype; Polars 1.x runs it as a Python function over each batch, whose
//! output dtype the plan must be told beforehand, the same for every input (Polars 1.30 to 1.32
//! cannot infer it). So on 1.x the Python function always returns `List(String)`, a text becoming
//! a one-element list, and this plugin function turns it back: its output field, computed when the
//! query is planned from the original column's Arrow dtype, is `List(String)` for a list column
//! and `String` otherwise, and on each batch it returns the lists as they are or each row's one
//! item. The kernels then see exactly the column they see on Polars 2.x.
//!
//! Inputs: the lists (`List(String)`) and the original column, whose data is never read (it is
//! not even imported as a Series: its dtype may be one these crates are built without, such as
//! Categorical, and a column the Python side refuses raises there, before this function runs).

use polars::prelude::*;
use polars_arrow::array::{Array, ListArray, MutableBinaryViewArray, Utf8ViewArray};

use crate::plugin::abi::{self, ArrowSchema, Input, SeriesExport};
use crate::plugin::CallerContext;

/// Whether the original column (by its Arrow dtype) is a list column.
fn is_list(original: &ArrowField) -> bool {
    matches!(
        original.dtype().to_storage(),
        ArrowDataType::List(_) | ArrowDataType::LargeList(_)
    )
}

fn output_field(fields: &[ArrowField]) -> PolarsResult<Field> {
    let [lists, original] = fields else {
        polars_bail!(ComputeError: "compat_text_or_list takes 2 inputs, got {}", fields.len());
    };
    let dtype = if is_list(original) {
        DataType::List(Box::new(DataType::String))
    } else {
        DataType::String
    };
    Ok(Field::new(lists.name.clone(), dtype))
}

fn text_or_list(inputs: Vec<Input>) -> PolarsResult<Series> {
    let Ok([lists, original]) = <[Input; 2]>::try_from(inputs) else {
        polars_bail!(ComputeError: "compat_text_or_list takes 2 inputs");
    };
    let list = is_list(&original.arrow_field()?);
    drop(original);
    let lists = lists.into_series()?;
    if list {
        Ok(lists)
    } else {
        single_items(&lists)
    }
}

/// Each row's one item (null for a null or empty list) of a `List(String)` column.
fn single_items(lists: &Series) -> PolarsResult<Series> {
    let ca = lists.list()?;
    let mut chunks = Vec::with_capacity(ca.chunks().len());
    for arr in ca.downcast_iter() {
        chunks.push(single_items_of(arr)?);
    }
    Ok(StringChunked::from_chunk_iter(lists.name().clone(), chunks).into_series())
}

fn single_items_of(arr: &ListArray<i64>) -> PolarsResult<Utf8ViewArray> {
    let values = arr
        .values()
        .as_any()
        .downcast_ref::<Utf8ViewArray>()
        .ok_or_else(
            || polars_err!(ComputeError: "compat_text_or_list: list items must be strings"),
        )?;
    let offsets = arr.offsets();
    let one_each = arr.null_count() == 0 && offsets.lengths().all(|len| len == 1);
    if one_each {
        // The items are the rows: a slice of the values, no copy.
        let start = usize::try_from(*offsets.first()).unwrap_or(0);
        return Ok(values.clone().sliced(start, arr.len()));
    }
    let mut items = Vec::with_capacity(arr.len());
    for row in 0..arr.len() {
        let (start, end) = offsets.start_end(row);
        polars_ensure!(
            end <= start + 1,
            ComputeError: "compat_text_or_list: a text reference became a list of {} items",
            end - start
        );
        let item = (arr.is_valid(row) && end > start && values.is_valid(start))
            .then(|| values.value(start));
        items.push(item);
    }
    Ok(MutableBinaryViewArray::<str>::from_iter(items).freeze())
}

/// Polars' entry point for the output field (see `crate::plugin::abi`).
///
/// # Safety
/// Called by Polars only, with pointers that follow its expression-plugin ABI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_field_compat_text_or_list(
    fields: *const ArrowSchema,
    n_fields: usize,
    output: *mut ArrowSchema,
    kwargs: *const u8,
    kwargs_len: usize,
) {
    // SAFETY: Polars passes valid pointers, as its plugin ABI requires.
    unsafe {
        abi::call_field_with(fields, n_fields, output, kwargs, kwargs_len, |fields, _| {
            output_field(fields)
        });
    }
}

/// Polars' entry point for one batch (see `crate::plugin::abi`).
///
/// # Safety
/// Called by Polars only, with pointers that follow its expression-plugin ABI.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _polars_plugin_compat_text_or_list(
    inputs: *mut SeriesExport,
    n_inputs: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    output: *mut SeriesExport,
    context: *const CallerContext,
) {
    // SAFETY: Polars passes valid pointers, as its plugin ABI requires.
    unsafe {
        abi::call_expression_with(
            inputs,
            n_inputs,
            kwargs,
            kwargs_len,
            output,
            context,
            |inputs, _, _| text_or_list(inputs),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(rows: &[Option<&[Option<&str>]>]) -> Series {
        let rows: ListChunked = rows
            .iter()
            .map(|row| row.map(|items| Series::new(PlSmallStr::EMPTY, items)))
            .collect();
        rows.with_name("reference".into()).into_series()
    }

    fn texts(s: &Series) -> Vec<Option<String>> {
        let ca = s.str().unwrap();
        ca.iter().map(|v| v.map(str::to_owned)).collect()
    }

    #[test]
    fn one_item_per_row_is_the_text_column() {
        let s = lists(&[Some(&[Some("a")]), Some(&[None]), Some(&[Some("")])]);
        let out = single_items(&s).unwrap();
        assert_eq!(out.name().as_str(), "reference");
        assert_eq!(texts(&out), [Some("a".into()), None, Some(String::new())]);
    }

    #[test]
    fn null_and_empty_lists_are_null_texts() {
        let s = lists(&[Some(&[Some("a")]), None, Some(&[]), Some(&[None])]);
        assert_eq!(
            texts(&single_items(&s).unwrap()),
            [Some("a".into()), None, None, None]
        );
    }

    #[test]
    fn several_items_are_an_error() {
        let s = lists(&[Some(&[Some("a"), Some("b")])]);
        assert!(single_items(&s).is_err());
    }

    #[test]
    fn the_output_dtype_follows_the_original_column() {
        let lists = ArrowField::new(
            "r".into(),
            DataType::List(Box::new(DataType::String)).to_arrow(CompatLevel::newest()),
            true,
        );
        let text = ArrowField::new("o".into(), ArrowDataType::Utf8View, true);
        let categorical = ArrowField::new(
            "o".into(),
            ArrowDataType::Dictionary(
                polars_arrow::datatypes::IntegerType::UInt32,
                Box::new(ArrowDataType::Utf8View),
                false,
            ),
            true,
        );
        let list = lists.clone();
        for (original, want) in [
            (text, DataType::String),
            (categorical, DataType::String),
            (list, DataType::List(Box::new(DataType::String))),
        ] {
            let field = output_field(&[lists.clone(), original]).unwrap();
            assert_eq!(field.name().as_str(), "r");
            assert_eq!(field.dtype(), &want);
        }
    }
}
