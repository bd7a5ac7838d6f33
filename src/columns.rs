//! What every family's `#[polars_expr]` wrappers share: reading plugin inputs row by row (text
//! columns, where a literal broadcasts, and reference columns that hold one string or a list of
//! strings per row), splitting a batch over the cores, and the interpreter's tables.

use std::ops::Range;

use polars::prelude::*;
use polars_arrow::array::{Array, ListArray, Utf8ViewArray};
use rayon::prelude::*;

use crate::plugin::CallerContext;
use crate::pyunicode;

/// A `String` input as one optional `&str` per row; a one-row input is broadcast.
pub struct Texts<'a> {
    values: Vec<Option<&'a str>>,
}

impl<'a> Texts<'a> {
    pub fn new(s: &'a Series, what: &str) -> PolarsResult<Self> {
        let ca = s.str().map_err(
            |_| polars_err!(ComputeError: "{what} must be a String column, got {}", s.dtype()),
        )?;
        Ok(Texts {
            values: ca.iter().collect(),
        })
    }

    #[inline]
    pub fn get(&self, row: usize) -> Option<&'a str> {
        if self.values.len() == 1 {
            self.values[0]
        } else {
            self.values[row]
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }
}

/// A reference input: `String` (one reference per row) or `List(String)`.
pub enum References<'a> {
    One(Texts<'a>),
    Many(Vec<Option<RowList<'a>>>),
}

/// One row's references, borrowed from the Arrow list array.
#[derive(Clone, Copy)]
pub struct RowList<'a> {
    values: &'a Utf8ViewArray,
    start: usize,
    end: usize,
}

impl<'a> RowList<'a> {
    pub fn iter(self) -> impl Iterator<Item = Option<&'a str>> + Clone + 'a {
        let values = self.values;
        (self.start..self.end).map(move |j| {
            if values.is_null(j) {
                None
            } else {
                Some(values.value(j))
            }
        })
    }
}

impl<'a> References<'a> {
    pub fn new(s: &'a Series, what: &str) -> PolarsResult<Self> {
        match s.dtype() {
            DataType::String => Ok(References::One(Texts::new(s, what)?)),
            DataType::List(inner) if **inner == DataType::String => {
                let ca = s.list()?;
                let mut rows = Vec::with_capacity(ca.len());
                for arr in ca.downcast_iter() {
                    push_rows(arr, &mut rows)?;
                }
                Ok(References::Many(rows))
            }
            other => polars_bail!(
                ComputeError: "{what} must be a String or List(String) column, got {other}"
            ),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            References::One(t) => t.len(),
            References::Many(rows) => rows.len(),
        }
    }

    /// Row `row`'s references; `None` for a null list. A one-row input is broadcast.
    #[inline]
    pub fn row(&self, row: usize) -> RowRefs<'a> {
        match self {
            References::One(t) => RowRefs::One(t.get(row)),
            References::Many(rows) => {
                let i = if rows.len() == 1 { 0 } else { row };
                match rows[i] {
                    Some(list) => RowRefs::Many(list),
                    None => RowRefs::Null,
                }
            }
        }
    }
}

/// The references of one row.
pub enum RowRefs<'a> {
    /// A `String` column's value (itself possibly null).
    One(Option<&'a str>),
    /// A list's items.
    Many(RowList<'a>),
    /// A null list.
    Null,
}

fn push_rows<'a>(arr: &'a ListArray<i64>, rows: &mut Vec<Option<RowList<'a>>>) -> PolarsResult<()> {
    let values = arr
        .values()
        .as_any()
        .downcast_ref::<Utf8ViewArray>()
        .ok_or_else(|| polars_err!(ComputeError: "list items must be strings"))?;
    let offsets = arr.offsets();
    for i in 0..arr.len() {
        if arr.is_null(i) {
            rows.push(None);
        } else {
            let (start, end) = offsets.start_end(i);
            rows.push(Some(RowList { values, start, end }));
        }
    }
    Ok(())
}

/// The number of rows of a set of inputs, broadcast as Polars does: a one-row input (a literal)
/// stretches to the length the others share, which may be 0 (an empty batch stays empty).
pub fn output_len(lens: &[usize]) -> PolarsResult<usize> {
    let mut n: Option<usize> = None;
    for &l in lens.iter().filter(|&&l| l != 1) {
        match n {
            None => n = Some(l),
            Some(m) => polars_ensure!(
                l == m,
                ShapeMismatch: "inputs have different lengths: {m} and {l}"
            ),
        }
    }
    Ok(n.unwrap_or(usize::from(!lens.is_empty())))
}

/// Rows per task when a kernel splits a batch over threads.
const ROWS_PER_TASK: usize = 8_192;

/// Map `rows` over `0..n` in row ranges, on all cores when `parallel` (the caller is not already
/// running this expression in parallel) and the batch is large enough; the results are in row
/// order either way.
pub fn map_row_ranges<T, F>(n: usize, parallel: bool, rows: F) -> Vec<T>
where
    T: Send,
    F: Fn(Range<usize>) -> Vec<T> + Sync,
{
    if !parallel || n < 2 * ROWS_PER_TASK {
        return rows(0..n);
    }
    let ranges: Vec<Range<usize>> = (0..n)
        .step_by(ROWS_PER_TASK)
        .map(|start| start..(start + ROWS_PER_TASK).min(n))
        .collect();
    let parts: Vec<Vec<T>> = ranges.into_par_iter().map(&rows).collect();
    let mut out = Vec::with_capacity(n);
    for part in parts {
        out.extend(part);
    }
    out
}

/// The interpreter's Unicode tables, or a compute error telling that they are not installed.
pub fn tables() -> PolarsResult<&'static pyunicode::Tables> {
    pyunicode::tables().map_err(|msg| polars_err!(ComputeError: "{msg}"))
}

/// The answers of one row as optional items: a null string or a null list has none.
pub fn row_items<'a>(refs: RowRefs<'a>) -> impl Iterator<Item = Option<&'a str>> + Clone + 'a {
    let (one, many) = match refs {
        RowRefs::One(Some(text)) => (Some(text), None),
        RowRefs::One(None) | RowRefs::Null => (None, None),
        RowRefs::Many(list) => (None, Some(list)),
    };
    one.map(Some)
        .into_iter()
        .chain(many.into_iter().flat_map(|list| list.iter()))
}

/// `f` of each row of a text input (a one-row input is broadcast), on all cores when allowed.
pub fn per_text<T: Send>(
    input: &Series,
    context: &CallerContext,
    f: impl Fn(Option<&str>) -> Option<T> + Sync,
) -> PolarsResult<Vec<Option<T>>> {
    let text = Texts::new(input, "response")?;
    Ok(map_row_ranges(text.len(), !context.parallel(), |rows| {
        rows.map(|row| f(text.get(row))).collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::output_len;

    #[test]
    fn one_row_inputs_broadcast_to_the_others_length() {
        assert_eq!(output_len(&[5, 1, 5]).unwrap(), 5);
        assert_eq!(output_len(&[1, 1]).unwrap(), 1);
        assert_eq!(output_len(&[]).unwrap(), 0);
        // An empty batch with a literal option stays empty.
        assert_eq!(output_len(&[0, 0, 1]).unwrap(), 0);
        assert_eq!(output_len(&[1, 0]).unwrap(), 0);
    }

    #[test]
    fn other_lengths_must_agree() {
        assert!(output_len(&[3, 2]).is_err());
        assert!(output_len(&[0, 1, 4]).is_err());
    }
}
