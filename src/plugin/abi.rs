//! The entry points' plumbing: Arrow's C data interface both ways, keyword arguments, errors.
//!
//! The `#[polars_expr]` attribute generates calls to [`call_expression`] and [`call_field`];
//! `crate::compat` calls the lower-level [`call_expression_with`] and [`call_field_with`], which
//! leave the inputs as Arrow data.
//!
//! # The ABI (version 0)
//!
//! A column crosses the boundary as a [`SeriesExport`]: one Arrow C schema (the field) and one
//! Arrow C array per chunk, plus a `release` callback that frees the container. Whoever receives
//! one takes each array out of it (moving the `ArrowArray` struct, whose own `release` then
//! belongs to the receiver) and calls the container's `release`, which frees the container only.
//! Polars lends a batch function its inputs this way and expects its output the same way, written
//! into the `SeriesExport` it passes; an output left empty (no private data) tells Polars to read
//! the last error message instead. A field function reads Arrow C schemas that Polars keeps and
//! writes one it takes.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

/// For `output_type=DTYPE`, and the field functions' output.
pub use polars::prelude::DataType;
use polars::prelude::{polars_err, ArrowField, CompatLevel, Field, PolarsResult, Series};
pub use polars_arrow::ffi::ArrowSchema;
use polars_arrow::ffi::{
    export_array_to_c, export_field_to_c, import_array_from_c, import_field_from_c, ArrowArray,
};
use serde::de::DeserializeOwned;

/// The last error message Polars reads after a failed call, for the message of a panic.
const PANIC: &str = "PANIC";

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(super) fn last_error_message() -> *const c_char {
    LAST_ERROR.with(|message| message.borrow().as_ptr())
}

fn set_last_error(message: &str) {
    // A C string ends at its first NUL: one inside the message (from user data, say) would cut
    // it short, so it is replaced.
    let message = CString::new(message.replace('\0', "\u{fffd}")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

/// What Polars tells a batch function about how it is called.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct CallerContext {
    /// Bit 0: Polars is already running this expression in parallel (on other batches or
    /// groups), so the function should not start threads of its own.
    bitflags: u64,
}

impl CallerContext {
    /// Whether Polars runs this expression in parallel already (see the field's doc).
    pub fn parallel(&self) -> bool {
        self.bitflags & 1 != 0
    }
}

/// A column crossing the plugin boundary (see the module's doc); the layout is the ABI's.
#[repr(C)]
pub struct SeriesExport {
    field: *mut ArrowSchema,
    arrays: *mut *mut ArrowArray,
    len: usize,
    release: Option<unsafe extern "C" fn(*mut SeriesExport)>,
    private_data: *mut c_void,
}

/// What an exported column's container owns: the schema and the boxes of its arrays.
struct Exported {
    _field: Box<ArrowSchema>,
    arrays: Box<[*mut ArrowArray]>,
}

/// Export `series` for Polars: the receiver moves the arrays out and calls `release`.
fn export_series(series: &Series) -> SeriesExport {
    let level = CompatLevel::newest();
    let field = Box::new(export_field_to_c(
        &series.dtype().to_arrow_field(series.name().clone(), level),
    ));
    let mut arrays: Box<[*mut ArrowArray]> = (0..series.chunks().len())
        .map(|chunk| Box::into_raw(Box::new(export_array_to_c(series.to_arrow(chunk, level)))))
        .collect();
    let export = SeriesExport {
        field: ptr::from_ref::<ArrowSchema>(&field).cast_mut(),
        arrays: arrays.as_mut_ptr(),
        len: arrays.len(),
        release: Some(release_exported),
        private_data: ptr::null_mut(),
    };
    SeriesExport {
        private_data: Box::into_raw(Box::new(Exported {
            _field: field,
            arrays,
        }))
        .cast(),
        ..export
    }
}

/// The `release` of an exported column: frees the container, not the arrays the receiver took.
unsafe extern "C" fn release_exported(export: *mut SeriesExport) {
    // SAFETY: `export` is null or one this library made (`export_series`), released once: the
    // private data is the `Exported` box, and each array box's `ArrowArray` was moved out.
    unsafe {
        let Some(export) = export.as_mut() else {
            return;
        };
        if export.private_data.is_null() {
            return;
        }
        let owned = Box::from_raw(export.private_data.cast::<Exported>());
        for &array in owned.arrays.iter() {
            drop(Box::from_raw(array.cast::<ManuallyDrop<ArrowArray>>()));
        }
        export.private_data = ptr::null_mut();
        export.release = None;
    }
}

/// An input column Polars lent: its arrays are released on drop unless imported.
pub struct Input {
    export: SeriesExport,
    /// How many arrays were moved out of the container (by [`Input::into_series`]).
    taken: usize,
}

impl Input {
    /// Take ownership of the column at `export`.
    ///
    /// # Safety
    /// `export` points to a valid `SeriesExport` that nothing else will release.
    unsafe fn take(export: *const SeriesExport) -> Self {
        Input {
            // SAFETY: as the caller promises.
            export: unsafe { ptr::read(export) },
            taken: 0,
        }
    }

    /// The column's Arrow field (its name and Arrow dtype; no Polars dtype is built).
    pub fn arrow_field(&self) -> PolarsResult<ArrowField> {
        polars::prelude::polars_ensure!(
            !self.export.field.is_null(),
            ComputeError: "Polars passed a plugin input without a field"
        );
        // SAFETY: the schema is valid while the container is (until `Drop`).
        unsafe { import_field_from_c(&*self.export.field) }
    }

    /// The column as a Series (its arrays move into it).
    pub fn into_series(mut self) -> PolarsResult<Series> {
        let field = self.arrow_field()?;
        let mut chunks = Vec::with_capacity(self.export.len);
        while self.taken < self.export.len {
            // SAFETY: `arrays` holds `len` valid pointers; each `ArrowArray` is moved out once
            // (counted in `taken`, so `Drop` does not release it again).
            let array = unsafe { ptr::read(*self.export.arrays.add(self.taken)) };
            self.taken += 1;
            // SAFETY: the array follows the C data interface, with the field's dtype.
            chunks.push(unsafe { import_array_from_c(array, field.dtype().clone()) }?);
        }
        Series::try_from((&field, chunks))
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // SAFETY: the arrays not taken are still owned here, and the container's `release`
        // is called once.
        unsafe {
            for i in self.taken..self.export.len {
                drop(ptr::read(*self.export.arrays.add(i)));
            }
            if let Some(release) = self.export.release {
                release(&mut self.export);
            }
        }
    }
}

/// Run `f`, reporting its error or panic to Polars through the last error message.
fn guard(f: impl FnOnce() -> PolarsResult<()>) {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {}
        Ok(Err(error)) => set_last_error(&error.to_string()),
        Err(payload) => {
            // A payload's destructor may panic too; it must not unwind into Polars either.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            set_last_error(PANIC);
        }
    }
}

/// The bytes at `data` (`len` of them; none when `data` is null).
///
/// # Safety
/// `data` is null or points to `len` readable bytes, alive for `'a`.
unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    if data.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: as the caller promises.
        unsafe { std::slice::from_raw_parts(data, len) }
    }
}

/// Decode the keyword arguments Polars passed (pickled by `register_plugin_function`).
pub fn decode_kwargs<T: DeserializeOwned>(kwargs: &[u8]) -> PolarsResult<T> {
    serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::default()).map_err(|e| {
        polars_err!(
            InvalidOperation: "could not read the plugin's keyword arguments: {e}"
        )
    })
}

/// The output field of `output_type=DTYPE`: the dtype, under the first input's name.
pub fn named_after_first_input(fields: &[Field], dtype: DataType) -> PolarsResult<Field> {
    let first = fields
        .first()
        .ok_or_else(|| polars_err!(ComputeError: "a plugin expression needs an input"))?;
    Ok(Field::new(first.name().clone(), dtype))
}

/// A batch function's entry point: `f(inputs, context, kwargs)` written to `output`, its error
/// or panic reported to Polars. The inputs stay as Arrow data until `f` imports them.
///
/// # Safety
/// The arguments are those Polars passes to `_polars_plugin_NAME`: `inputs` points to
/// `n_inputs` columns the callee owns, `kwargs` to `kwargs_len` bytes, `output` to an empty
/// column and `context` (possibly null) to the caller's context.
pub unsafe fn call_expression_with(
    inputs: *mut SeriesExport,
    n_inputs: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    output: *mut SeriesExport,
    context: *const CallerContext,
    f: impl FnOnce(Vec<Input>, CallerContext, &[u8]) -> PolarsResult<Series>,
) {
    // Every input is owned from here on, and released even if an error comes first.
    let inputs: Vec<Input> = if inputs.is_null() {
        Vec::new()
    } else {
        // SAFETY: `inputs` points to `n_inputs` columns, each taken once.
        (0..n_inputs)
            .map(|i| unsafe { Input::take(inputs.add(i)) })
            .collect()
    };
    // SAFETY: as the caller promises.
    let context = unsafe { context.as_ref() }.copied().unwrap_or_default();
    let kwargs = unsafe { bytes(kwargs, kwargs_len) };
    guard(|| {
        polars::prelude::polars_ensure!(
            !output.is_null(),
            ComputeError: "Polars passed a plugin no place for its output"
        );
        let series = f(inputs, context, kwargs)?;
        // SAFETY: `output` is valid and holds an empty column (nothing to drop).
        unsafe { ptr::write(output, export_series(&series)) };
        Ok(())
    });
}

/// [`call_expression_with`] with the inputs imported as Series, as `#[polars_expr]` calls it.
///
/// # Safety
/// As [`call_expression_with`].
pub unsafe fn call_expression(
    inputs: *mut SeriesExport,
    n_inputs: usize,
    kwargs: *const u8,
    kwargs_len: usize,
    output: *mut SeriesExport,
    context: *const CallerContext,
    f: impl FnOnce(&[Series], CallerContext, &[u8]) -> PolarsResult<Series>,
) {
    // SAFETY: as the caller promises.
    unsafe {
        call_expression_with(
            inputs,
            n_inputs,
            kwargs,
            kwargs_len,
            output,
            context,
            |inputs, context, kwargs| {
                let series = inputs
                    .into_iter()
                    .map(Input::into_series)
                    .collect::<PolarsResult<Vec<_>>>()?;
                f(&series, context, kwargs)
            },
        );
    }
}

/// A field function's entry point: `f(fields, kwargs)` written to `output`, its error or panic
/// reported to Polars. The fields are Arrow fields; no Polars dtype is built for them.
///
/// # Safety
/// The arguments are those Polars passes to `_polars_plugin_field_NAME`: `fields` points to
/// `n_fields` schemas the caller keeps, `output` to an empty schema, `kwargs` to `kwargs_len`
/// bytes.
pub unsafe fn call_field_with(
    fields: *const ArrowSchema,
    n_fields: usize,
    output: *mut ArrowSchema,
    kwargs: *const u8,
    kwargs_len: usize,
    f: impl FnOnce(&[ArrowField], &[u8]) -> PolarsResult<Field>,
) {
    // SAFETY: as the caller promises.
    let kwargs = unsafe { bytes(kwargs, kwargs_len) };
    guard(|| {
        polars::prelude::polars_ensure!(
            !output.is_null() && (n_fields == 0 || !fields.is_null()),
            ComputeError: "Polars passed a plugin's field function null pointers"
        );
        let fields = (0..n_fields)
            // SAFETY: `fields` points to `n_fields` valid schemas.
            .map(|i| unsafe { import_field_from_c(&*fields.add(i)) })
            .collect::<PolarsResult<Vec<_>>>()?;
        let field = f(&fields, kwargs)?;
        let schema = export_field_to_c(&field.to_arrow(CompatLevel::newest()));
        // SAFETY: `output` is valid and holds an empty schema (nothing to drop).
        unsafe { ptr::write(output, schema) };
        Ok(())
    });
}

/// [`call_field_with`] with the fields as Polars fields, as `#[polars_expr]` calls it.
///
/// # Safety
/// As [`call_field_with`].
pub unsafe fn call_field(
    fields: *const ArrowSchema,
    n_fields: usize,
    output: *mut ArrowSchema,
    kwargs: *const u8,
    kwargs_len: usize,
    f: impl FnOnce(&[Field], &[u8]) -> PolarsResult<Field>,
) {
    // SAFETY: as the caller promises.
    unsafe {
        call_field_with(
            fields,
            n_fields,
            output,
            kwargs,
            kwargs_len,
            |fields, kwargs| {
                // A dtype these crates are built without (Categorical, Decimal, ...) panics here:
                // the guard reports it, and polarscore's Python side casts such inputs beforehand.
                let fields: Vec<Field> = fields.iter().map(Field::from).collect();
                f(&fields, kwargs)
            },
        );
    }
}
