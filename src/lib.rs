//! polarscore's native kernels, as Polars expression plugins.
//!
//! Each kernel family lives in its own module as plain Rust over `&str`, with its thin
//! `#[polars_expr]` wrappers beside it in a child module `expressions` (the `plugin` feature);
//! `columns` holds what the wrappers share. The Python module `polarscore._internal` exposes
//! only what the Python side needs to set up the kernels (the interpreter's Unicode tables).
//!
//! The plugin and the Python module are the `plugin` feature (on by default). Without it the
//! crate is the kernels alone, with no Python or Polars dependency: the fuzz targets in `fuzz/`
//! build it so, and reach the kernels through the public modules below.

#[cfg(feature = "plugin")]
use pyo3::exceptions::PyValueError;
#[cfg(feature = "plugin")]
use pyo3::prelude::*;

pub mod answer_match;
pub mod answer_rules;
pub mod answer_words;
pub mod ascii;
#[cfg(feature = "plugin")]
mod columns;
#[cfg(feature = "plugin")]
mod compat;
pub mod correctness;
pub mod cpu;
pub mod deterministic;
#[cfg(feature = "plugin")]
mod evallog;
pub mod extract;
#[cfg(feature = "plugin")]
mod fused;
pub mod lcs;
#[cfg(feature = "plugin")]
mod plugin;
pub mod precision;
pub mod pyregex;
pub mod pyunicode;
pub mod similarity;
pub mod squad;
#[cfg(test)]
mod testing;
pub mod tokens;
#[cfg(feature = "plugin")]
mod work_probe;

#[cfg(feature = "plugin")]
/// Install the running interpreter's Unicode tables (two flag bytes per code point).
#[pyfunction]
fn set_unicode_tables(flags: &[u8], version: &str) -> PyResult<()> {
    pyunicode::set_tables(flags, version).map_err(PyValueError::new_err)
}

#[cfg(feature = "plugin")]
/// The `unicodedata` version of the installed tables, or None before they are installed.
#[pyfunction]
fn unicode_tables_version() -> Option<String> {
    pyunicode::tables().ok().map(|t| t.version.clone())
}

#[cfg(feature = "plugin")]
/// Install answer_match's accent-folding table: NFKD without marks, per code point it changes.
///
/// `payload` is the table as polarscore caches it (`polarscore/normalize.py`): the count `n`,
/// `n` code points and `n` end offsets (each a little-endian `u32`), then the foldings' UTF-8
/// text. Read here rather than as Python lists: building 19,000 `str` objects took each process
/// about 10 ms (12.9 -> 2.4 ms to load the table).
#[pyfunction]
fn set_match_fold_table(payload: &[u8]) -> PyResult<()> {
    let (code_points, folded) = unpack_fold_table(payload).map_err(PyValueError::new_err)?;
    answer_match::set_fold_table(&code_points, &folded).map_err(PyValueError::new_err)
}

/// The code points and foldings of a packed fold table (see `set_match_fold_table`).
#[cfg(feature = "plugin")]
fn unpack_fold_table(payload: &[u8]) -> Result<(Vec<u32>, Vec<String>), String> {
    let word = |i: usize| -> Option<u32> {
        let bytes = payload.get(i * 4..i * 4 + 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    };
    let malformed = || "the accent-folding table is malformed".to_owned();
    let n = word(0).ok_or_else(malformed)? as usize;
    let text_start = n
        .checked_mul(8)
        .and_then(|b| b.checked_add(4))
        .filter(|&start| start <= payload.len())
        .ok_or_else(malformed)?;
    let text = std::str::from_utf8(&payload[text_start..]).map_err(|_| malformed())?;
    let mut code_points = Vec::with_capacity(n);
    let mut folded = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        code_points.push(word(1 + i).ok_or_else(malformed)?);
        let end = word(1 + n + i).ok_or_else(malformed)? as usize;
        let piece = text.get(start..end).ok_or_else(malformed)?;
        folded.push(piece.to_owned());
        start = end;
    }
    if start != text.len() {
        return Err(malformed());
    }
    Ok((code_points, folded))
}

#[cfg(feature = "plugin")]
#[pymodule]
fn _internal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(set_unicode_tables, m)?)?;
    m.add_function(wrap_pyfunction!(unicode_tables_version, m)?)?;
    m.add_function(wrap_pyfunction!(set_match_fold_table, m)?)?;
    m.add_function(wrap_pyfunction!(pyregex::regex_search, m)?)?;
    m.add_function(wrap_pyfunction!(work_probe::long_text_work, m)?)?;
    m.add_class::<evallog::ArrowRows>()?;
    m.add_function(wrap_pyfunction!(evallog::read_eval_samples, m)?)?;
    m.add_function(wrap_pyfunction!(evallog::read_zip_directory, m)?)?;
    m.add_function(wrap_pyfunction!(evallog::prune_json, m)?)?;
    Ok(())
}
