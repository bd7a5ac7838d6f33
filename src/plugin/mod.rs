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
