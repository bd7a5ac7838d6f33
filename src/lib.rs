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
#[pyfunction]
fn set_match_fold_table(code_points: Vec<u32>, folded: Vec<String>) -> PyResult<()> {
    answer_match::set_fold_table(&code_points, &folded).map_err(PyValueError::new_err)
}

#[cfg(feature = "plugin")]
#[pymodule]
fn _internal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(set_unicode_tables, m)?)?;
    m.add_function(wrap_pyfunction!(unicode_tables_version, m)?)?;
    m.add_function(wrap_pyfunction!(set_match_fold_table, m)?)?;
    m.add_function(wrap_pyfunction!(pyregex::regex_search, m)?)?;
    m.add_class::<evallog::ArrowRows>()?;
    m.add_function(wrap_pyfunction!(evallog::read_eval_samples, m)?)?;
    m.add_function(wrap_pyfunction!(evallog::read_zip_directory, m)?)?;
    Ok(())
}
