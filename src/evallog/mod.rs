//! The native reader of inspect-ai's `.eval` archives: a batch of sample entries read,
//! decompressed, checked, parsed and turned into the canonical table's columns, on every core,
//! handed to Python as one Arrow struct array (the Arrow PyCapsule interface, which Polars
//! imports without copying).
//!
//! The Python reader (`polarscore/logs/_inspect.py`) stays the reference: it reads the central
//! directory and gives this module each entry's offset, sizes, CRC-32 and method, and it reads
//! itself every entry this module reports back (any entry it cannot read exactly as the Python
//! reader would: see [`sample`]), including corrupt ones, so that errors are raised, with their
//! messages, by one reader.

mod json;
mod prune;
mod sample;
mod zip;

use std::collections::HashMap;

use polars::prelude::PlSmallStr;
use polars_arrow::array::{
    Array, ListArray, MutableBinaryViewArray, PrimitiveArray, StructArray, Utf8ViewArray,
};
use polars_arrow::bitmap::MutableBitmap;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi;
use polars_arrow::offset::OffsetsBuffer;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyTuple};
use rayon::prelude::*;

use sample::Row;
use zip::Entry;

/// Rows of a batch, as one Arrow struct array whose fields are the table's columns.
#[pyclass(frozen, module = "polarscore._internal")]
pub struct ArrowRows {
    array: Box<dyn Array>,
}

#[pymethods]
impl ArrowRows {
    /// The rows as an Arrow C data interface schema and array (the Arrow PyCapsule interface).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema; // the schema is the table's, whatever is asked
        let field = Field::new(PlSmallStr::EMPTY, self.array.dtype().clone(), true);
        let schema = ffi::export_field_to_c(&field);
        let array = ffi::export_array_to_c(self.array.clone());
        // The consumer moves each struct out (leaving its release callback null); one it never
        // imports is released when its capsule is dropped (`ArrowSchema` and `ArrowArray` call
        // their release callback on drop).
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    fn __len__(&self) -> usize {
        self.array.len()
    }
}

/// The entries of the zip archive `archive` (a buffer) as `(name, header offset, compressed
/// size, size, CRC-32, method)`, in the directory's order; `None` when Python's `zipfile` must
/// read the directory (see [`zip::read_directory`]).
///
/// Raises `ValueError` naming two entries whose data overlap.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn read_zip_directory(
    py: Python<'_>,
    archive: &Bound<'_, PyAny>,
) -> PyResult<Option<Vec<(String, u64, u64, u64, u32, u16)>>> {
    let buffer = PyBuffer::<u8>::get(archive)?;
    let bytes = contiguous(&buffer)?;
    let entries = py
        .detach(|| zip::read_directory(bytes))
        .map_err(PyValueError::new_err)?;
    Ok(entries.map(|entries| {
        entries
            .into_iter()
            .map(|(name, e)| {
                (
                    name,
                    e.header_offset,
                    e.compress_size,
                    e.file_size,
                    e.crc,
                    e.method,
                )
            })
            .collect()
    }))
}

/// The JSON document `text` (a buffer) with the fields `keep` does not list replaced by `null`
/// (see [`prune::prune`]), or `None` when it is not JSON.
///
/// `keep` maps each key a reader reads to the keys it reads inside its value (a dict), or to
/// `None` when it reads the value whole; an array's items are read by the array's dict.
#[pyfunction]
pub fn prune_json<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    keep: &Bound<'py, PyDict>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let keep = keep_tree(keep)?;
    let buffer = PyBuffer::<u8>::get(text)?;
    let bytes = contiguous(&buffer)?;
    let pruned = py.detach(|| prune::prune(bytes, &keep));
    Ok(pruned.map(|out| PyBytes::new(py, &out)))
}

/// A `keep` dict (see [`prune_json`]) as a tree (it is the reader's own, a few levels deep).
fn keep_tree(keep: &Bound<'_, PyDict>) -> PyResult<prune::Keep> {
    let mut keys = HashMap::with_capacity(keep.len());
    for (key, value) in keep.iter() {
        let tree = if value.is_none() {
            prune::Keep::All
        } else {
            keep_tree(value.cast::<PyDict>()?)?
        };
        keys.insert(key.extract::<String>()?, tree);
    }
    Ok(prune::Keep::Keys(keys))
}

/// The bytes of a buffer, borrowed for as long as it is held.
fn contiguous(buffer: &PyBuffer<u8>) -> PyResult<&[u8]> {
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "the archive must be a contiguous buffer",
        ));
    }
    // SAFETY: the buffer is held (and so its memory kept and, for a read-only mapping,
    // unchanged) for the slice's lifetime; Python objects are not touched meanwhile.
    Ok(unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, buffer.len_bytes()) })
}

/// Read the sample entries `entries` (header offset, compressed size, size, CRC-32, method) of
/// the zip archive `archive` (a buffer: the mapped file) as canonical rows.
///
/// Returns the rows of the entries read, in order, and the positions in `entries` of those
/// left to the Python reader.
#[pyfunction]
#[pyo3(signature = (archive, entries, verdicts, source_format, task, model))]
pub fn read_eval_samples(
    py: Python<'_>,
    archive: &Bound<'_, PyAny>,
    entries: Vec<(u64, u64, u64, u32, u16)>,
    verdicts: Vec<String>,
    source_format: &str,
    task: Option<&str>,
    model: Option<&str>,
) -> PyResult<(ArrowRows, Vec<usize>)> {
    let buffer = PyBuffer::<u8>::get(archive)?;
    let bytes = contiguous(&buffer)?;
    let entries: Vec<Entry> = entries
        .into_iter()
        .map(
            |(header_offset, compress_size, file_size, crc, method)| Entry {
                header_offset,
                compress_size,
                file_size,
                crc,
                method,
            },
        )
        .collect();
    let (array, left) = py.detach(|| {
        let rows = read_rows(bytes, &entries, &verdicts);
        let mut left = Vec::new();
        let read: Vec<Row> = rows
            .into_iter()
            .enumerate()
            .filter_map(|(i, row)| {
                if row.is_none() {
                    left.push(i);
                }
                row
            })
            .collect();
        let constants = [Some(source_format), task, model];
        (table(&read, &constants, &verdicts), left)
    });
    Ok((ArrowRows { array }, left))
}

/// Each entry's row, or `None` for an entry left to the Python reader.
fn read_rows(archive: &[u8], entries: &[Entry], verdicts: &[String]) -> Vec<Option<Row>> {
    let columns: HashMap<String, usize> = verdicts
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), i))
        .collect();
    let read = |buffer: &mut Vec<u8>, entry: &Entry| {
        let data = zip::read_entry(archive, entry, buffer)?;
        let row = sample::read_sample(data, &columns);
        if buffer.capacity() > 1 << 20 {
            *buffer = Vec::new(); // keep no big entry's buffer
        }
        row
    };
    let big = |entry: &Entry| entry.method != zip::STORED && entry.file_size > BIG_ENTRY;
    let mut rows: Vec<Option<Row>> = entries
        .par_iter()
        .with_min_len(16)
        .map_init(Vec::new, |buffer, entry| {
            if big(entry) {
                return None;
            }
            read(buffer, entry)
        })
        .collect();
    // A big compressed entry is inflated on one thread at a time, so that a batch of them (a
    // decompression bomb of many entries) holds one inflated entry, not one per core.
    let mut buffer = Vec::new();
    for (row, entry) in rows.iter_mut().zip(entries) {
        if big(entry) {
            *row = read(&mut buffer, entry);
        }
    }
    rows
}

/// Compressed entries declaring more than this are inflated one at a time (see [`read_rows`]).
const BIG_ENTRY: u64 = 16 << 20;

/// The canonical columns of `rows`: `source_format`, `task` and `model` (`constants`), then
/// each row's fields, then one `framework_<name>` column per verdict.
fn table(rows: &[Row], constants: &[Option<&str>; 3], verdicts: &[String]) -> Box<dyn Array> {
    let n = rows.len();
    let mut fields = Vec::new();
    let mut columns: Vec<Box<dyn Array>> = Vec::new();
    let mut add = |name: &str, column: Box<dyn Array>| {
        fields.push(Field::new(name.into(), column.dtype().clone(), true));
        columns.push(column);
    };
    for (name, value) in ["source_format", "task", "model"].iter().zip(constants) {
        add(name, text_column(std::iter::repeat_n(*value, n)));
    }
    add(
        "sample_id",
        text_column(rows.iter().map(|r| r.sample_id.as_deref())),
    );
    let epochs: Vec<i64> = rows.iter().map(|r| r.epoch).collect();
    add("epoch", PrimitiveArray::from_vec(epochs).boxed());
    add(
        "input",
        text_column(rows.iter().map(|r| r.input.as_deref())),
    );
    add(
        "response",
        text_column(rows.iter().map(|r| r.response.as_deref())),
    );
    add(
        "references",
        list_column(rows.iter().map(|r| r.references.as_deref())),
    );
    add(
        "choices",
        list_column(rows.iter().map(|r| r.choices.as_deref())),
    );
    for (column, name) in verdicts.iter().enumerate() {
        let values: PrimitiveArray<f64> = rows.iter().map(|r| r.verdicts[column]).collect();
        add(&format!("framework_{name}"), values.boxed());
    }
    StructArray::new(ArrowDataType::Struct(fields), n, columns, None).boxed()
}

fn text_column<'a>(values: impl Iterator<Item = Option<&'a str>>) -> Box<dyn Array> {
    let mut column = MutableBinaryViewArray::<str>::with_capacity(values.size_hint().0);
    for value in values {
        column.push(value);
    }
    let column: Utf8ViewArray = column.freeze();
    column.boxed()
}

/// A `List(String)` column (Polars' large list of string views).
fn list_column<'a>(lists: impl Iterator<Item = Option<&'a [String]>>) -> Box<dyn Array> {
    let mut values = MutableBinaryViewArray::<str>::new();
    let mut offsets = vec![0i64];
    let mut validity = MutableBitmap::with_capacity(lists.size_hint().0);
    for list in lists {
        validity.push(list.is_some());
        for text in list.unwrap_or_default() {
            values.push_value(text.as_str());
        }
        offsets.push(values.len() as i64);
    }
    let values: Utf8ViewArray = values.freeze();
    let dtype = ListArray::<i64>::default_datatype(values.dtype().clone());
    // SAFETY: the offsets start at 0 and never decrease.
    let offsets = unsafe { OffsetsBuffer::new_unchecked(offsets.into()) };
    let validity = (validity.unset_bits() > 0).then(|| validity.into());
    ListArray::<i64>::new(dtype, offsets, values.boxed(), validity).boxed()
}
