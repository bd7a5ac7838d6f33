//! The crate's side of Polars' expression-plugin ABI: what Polars calls in the shared library.
//!
//! Polars (the Python package, whatever its version from 1.30 on) loads `_internal` as a
//! plugin and finds its entry points by name:
//!
//! * `_polars_plugin_get_version`, once, for the ABI version the library speaks (0.1 here);
//! * per expression `NAME`, `_polars_plugin_field_NAME` when the query is planned (the inputs'
//!   fields in, the output's field out, as Arrow C schemas) and `_polars_plugin_NAME` on each
//!   batch (the inputs as Arrow C arrays in, the output out);
//! * `_polars_plugin_get_last_error_message`, after an entry point left its output empty: the
//!   error, which Polars raises as a `ComputeError` (the message `PANIC` stands for a panic).
//!
//! The `#[polars_expr]` attribute (the `polarscore-macros` crate) writes the per-expression entry
//! points of a function over `&[Series]`; they call [`abi`], which imports the inputs, decodes
//! the keyword arguments (pickled by Polars' `register_plugin_function`), runs the function,
//! exports its output and turns an error into the last-error message. Nothing unwinds into
//! Polars: a panic is caught at the entry point and reported as one.
//!
//! # Why not pyo3-polars' `derive`
//!
//! pyo3-polars (0.28) writes the same entry points from the same `#[polars_expr]` syntax, but its
//! proc macro depends on polars-core, -plan, -ffi and -arrow (to name them in generated code) and
//! the crate itself on polars-plan and -ffi. A build of the plugin then compiled Polars' planner,
//! IO, Parquet, time and ops crates, which a plugin links but never runs, and polars-core a second
//! time for the build host (the proc macro's dependency): `Cargo.lock` held 239 packages. With the
//! glue here it holds 137, Polars through polars-core and polars-arrow only, none built for the
//! host. Cold builds on the 2-core machine CI runs on, in user + sys CPU time (that machine is
//! shared, so its wall-clock times mean little), each in a fresh target folder:
//!
//! | build | CPU |
//! |---|---|
//! | README's command 1 before any of this (pyo3-polars, every crate at opt-level 3) | 1,431 s |
//! | `cargo build --release`, pyo3-polars, Polars' crates at opt-level 1 or 0 | 1,471 s |
//! | README's command 1, this glue, the same profile | 537 s |
//!
//! The same command 1 on a fresh clone with empty Cargo and pip caches, on the machine alone
//! (nothing else running): 3 min 58 s wall, 437 s of CPU (411 s user, 26 s sys), peak RSS 0.87 GB.
//!
//! Peak memory fell from 1.4 GB to 0.93 GB. The kernels run the same instructions: callgrind,
//! counting inside the entry points over the parity cases (x4), gives this glue against
//! pyo3-polars' -0.05% to +0.04% for the five scorer families, and -4.5% to +1.0% for each of the
//! 24 kernels (every scorer, detail struct and normaliser).
//!
//! # What it costs to maintain
//!
//! About 700 lines (this module, `abi`, the `macros/` crate) that speak Polars' plugin ABI as
//! Polars 1.30 to 2.1 define it: version 0.1, the `SeriesExport` and `CallerContext` layouts of
//! polars-ffi's `version_0`, keyword arguments pickled by `register_plugin_function`, the
//! last-error protocol. `tests/test_plugin_abi.py` checks errors, panics, keyword arguments and
//! struct outputs with nulls, and `.ci/min-versions` / `.ci/polars-versions` run it and the
//! scorer suites on Polars 1.30, 1.44, 2.0 and 2.1. Before admitting a new Polars (the upper
//! bound in `pyproject.toml`) or moving to new Polars crates, check in Polars' sources that:
//!
//! * its plugin loader (polars-plan) still accepts major version 0 and calls the entry points
//!   with the signatures `abi` implements;
//! * polars-ffi's `version_0` `SeriesExport` and `CallerContext` still have the fields, in the
//!   order, of `abi`'s copies;
//! * py-polars' `register_plugin_function` still pickles the keyword arguments;
//! * pyo3-polars' derive, the reference implementation of the same ABI, made no change for it;
//!
//! then run `.ci/polars-versions NEW_VERSION` (with the newest scores, see that script).

pub mod abi;

pub use abi::CallerContext;
pub use polarscore_macros::polars_expr;

use std::sync::Once;

// The entry points catch panics to report them; with panic = "abort" they could not.
#[cfg(panic = "abort")]
compile_error!(
    "the Polars plugin needs panic = \"unwind\": a panic must be reported, not abort Polars"
);

/// The plugin ABI version this library implements: major 0, minor 1 (field functions receive the
/// keyword arguments too).
const ABI_VERSION: (u16, u16) = (0, 1);

static QUIET_PANICS: Once = Once::new();

/// The ABI version, as Polars asks for it once before anything else (see the module's doc).
///
/// It is also the first moment the library knows it runs inside Polars, so it installs the panic
/// hook there: a panic in a kernel is reported to Polars as an error (`the plugin panicked`, which
/// tells the user to set `POLARS_VERBOSE=1` for the message), so its message goes to stderr only
/// when `POLARS_VERBOSE` is `1`, as Polars' own messages do.
#[unsafe(no_mangle)]
pub extern "C" fn _polars_plugin_get_version() -> u32 {
    QUIET_PANICS.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::env::var_os("POLARS_VERBOSE").is_some_and(|v| v == "1") {
                default_hook(info);
            }
        }));
    });
    (u32::from(ABI_VERSION.0) << 16) | u32::from(ABI_VERSION.1)
}

/// The message of the last error of an entry point on this thread (see the module's doc).
#[unsafe(no_mangle)]
pub extern "C" fn _polars_plugin_get_last_error_message() -> *const std::os::raw::c_char {
    abi::last_error_message()
}
