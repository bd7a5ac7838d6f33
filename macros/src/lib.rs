//! `#[polars_expr]`: turns a Rust function over `&[Series]` into a Polars expression plugin.
//!
//! Polars loads an expression plugin as a shared library and calls two C functions per
//! expression: `_polars_plugin_field_NAME`, when the query is planned, for the output's name and
//! dtype given the inputs' fields, and `_polars_plugin_NAME`, on each batch, for the output
//! itself. This attribute keeps the function it is put on as written and adds those two entry
//! points beside it; they hand every argument over to `crate::plugin::abi` (the crate's own glue:
//! Arrow's C data interface, the pickled keyword arguments, errors and panics), so the code
//! generated per function is a few lines and the crate using it needs no Polars crate beyond
//! `polars-core` and `polars-arrow`.
//!
//! The syntax is pyo3-polars' one:
//!
//! ```ignore
//! #[polars_expr(output_type=Float64)]
//! fn score(inputs: &[Series], context: CallerContext, kwargs: Options) -> PolarsResult<Series>
//! #[polars_expr(output_type_func=details_type)]   // fn details_type(&[Field]) -> PolarsResult<Field>
//! #[polars_expr(output_type_func_with_kwargs=details_type)]   // (&[Field], Options)
//! ```
//!
//! After the inputs, the function may take `context` (a `CallerContext`) and then `kwargs` (any
//! `serde::Deserialize` type, decoded from the keyword arguments Python passed), recognised by
//! those names. `output_type=NAME` gives the output `DataType::NAME` under the first input's name.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{parse_macro_input, FnArg, Ident, ItemFn, Pat, Token};

/// How the output field is known when the query is planned.
enum Output {
    /// `output_type=NAME`: `DataType::NAME`, named after the first input.
    Dtype(Ident),
    /// `output_type_func=f`: `f(&[Field]) -> PolarsResult<Field>`.
    Func(Ident),
    /// `output_type_func_with_kwargs=f`: `f(&[Field], kwargs) -> PolarsResult<Field>`.
    FuncWithKwargs(Ident),
}

struct Options {
    output: Output,
}

impl Parse for Options {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let pairs = Punctuated::<(Ident, Ident), Token![,]>::parse_terminated_with(input, |p| {
            let key: Ident = p.parse()?;
            p.parse::<Token![=]>()?;
            Ok((key, p.parse()?))
        })?;
        let mut output = None;
        for (key, value) in pairs {
            let this = match key.to_string().as_str() {
                "output_type" => Output::Dtype(value),
                "output_type_func" => Output::Func(value),
                "output_type_func_with_kwargs" => Output::FuncWithKwargs(value),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{other}`: expected output_type, output_type_func or \
                             output_type_func_with_kwargs"
                        ),
                    ))
                }
            };
            if output.replace(this).is_some() {
                return Err(syn::Error::new(key.span(), "the output is given twice"));
            }
        }
        match output {
            Some(output) => Ok(Options { output }),
            None => Err(syn::Error::new(
                Span::call_site(),
                "give the output: output_type=DTYPE, output_type_func=FN or \
                 output_type_func_with_kwargs=FN",
            )),
        }
    }
}

/// What the function takes after its inputs.
#[derive(Clone, Copy)]
struct Extra {
    context: bool,
    kwargs: bool,
}

fn extra_arguments(function: &ItemFn) -> syn::Result<Extra> {
    let sig = &function.sig;
    if sig.inputs.is_empty() {
        return Err(syn::Error::new(
            sig.span(),
            "a plugin function takes its inputs first (`inputs: &[Series]`)",
        ));
    }
    let mut names = Vec::new();
    for argument in sig.inputs.iter().skip(1) {
        let name = match argument {
            FnArg::Typed(typed) => match typed.pat.as_ref() {
                Pat::Ident(ident) => ident.ident.to_string(),
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "expected `context` or `kwargs`",
                    ))
                }
            },
            FnArg::Receiver(receiver) => {
                return Err(syn::Error::new(
                    receiver.span(),
                    "a plugin function takes no self",
                ))
            }
        };
        names.push((name, argument.span()));
    }
    let listed: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    match listed.as_slice() {
        [] => Ok(Extra {
            context: false,
            kwargs: false,
        }),
        ["context"] => Ok(Extra {
            context: true,
            kwargs: false,
        }),
        ["kwargs"] => Ok(Extra {
            context: false,
            kwargs: true,
        }),
        ["context", "kwargs"] => Ok(Extra {
            context: true,
            kwargs: true,
        }),
        _ => Err(syn::Error::new(
            names.first().map_or(sig.span(), |(_, span)| *span),
            "after the inputs a plugin function takes `context` and then `kwargs`, each optional",
        )),
    }
}

fn expand(options: Options, function: ItemFn) -> syn::Result<TokenStream2> {
    let extra = extra_arguments(&function)?;
    let name = &function.sig.ident;
    let entry = format_ident!("_polars_plugin_{}", name);
    let field_entry = format_ident!("_polars_plugin_field_{}", name);

    let context_arg = extra.context.then(|| quote!(context,));
    let kwargs_arg = extra
        .kwargs
        .then(|| quote!(crate::plugin::abi::decode_kwargs(kwargs)?,));
    let call = quote!(#name(inputs, #context_arg #kwargs_arg));

    let field_call = match &options.output {
        Output::Dtype(dtype) => quote!(crate::plugin::abi::named_after_first_input(
            fields,
            crate::plugin::abi::DataType::#dtype,
        )),
        Output::Func(func) => quote!(#func(fields)),
        Output::FuncWithKwargs(func) => {
            quote!(#func(fields, crate::plugin::abi::decode_kwargs(kwargs)?))
        }
    };

    Ok(quote! {
        #function

        /// Polars' entry point for one batch of this expression (see `crate::plugin::abi`).
        ///
        /// # Safety
        /// Called by Polars only, with pointers that follow its expression-plugin ABI.
        #[allow(clippy::not_unsafe_ptr_arg_deref)]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn #entry(
            inputs: *mut crate::plugin::abi::SeriesExport,
            n_inputs: usize,
            kwargs: *const u8,
            kwargs_len: usize,
            output: *mut crate::plugin::abi::SeriesExport,
            context: *const crate::plugin::CallerContext,
        ) {
            // SAFETY: Polars passes valid pointers, as its plugin ABI requires.
            unsafe {
                crate::plugin::abi::call_expression(
                    inputs,
                    n_inputs,
                    kwargs,
                    kwargs_len,
                    output,
                    context,
                    |inputs, context, kwargs| {
                        let _ = (&context, &kwargs);
                        #call
                    },
                )
            }
        }

        /// Polars' entry point for this expression's output field (see `crate::plugin::abi`).
        ///
        /// # Safety
        /// Called by Polars only, with pointers that follow its expression-plugin ABI.
        #[allow(clippy::not_unsafe_ptr_arg_deref)]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn #field_entry(
            fields: *const crate::plugin::abi::ArrowSchema,
            n_fields: usize,
            output: *mut crate::plugin::abi::ArrowSchema,
            kwargs: *const u8,
            kwargs_len: usize,
        ) {
            // SAFETY: Polars passes valid pointers, as its plugin ABI requires.
            unsafe {
                crate::plugin::abi::call_field(
                    fields,
                    n_fields,
                    output,
                    kwargs,
                    kwargs_len,
                    |fields, kwargs| {
                        let _ = &kwargs;
                        #field_call
                    },
                )
            }
        }
    })
}

/// Make the function a Polars expression plugin: see the crate's documentation.
#[proc_macro_attribute]
pub fn polars_expr(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr as Options);
    let function = parse_macro_input!(item as ItemFn);
    match expand(options, function) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_str(attr: &str, item: &str) -> Result<String, String> {
        let options: Options = syn::parse_str(attr).map_err(|e| e.to_string())?;
        let function: ItemFn = syn::parse_str(item).map_err(|e| e.to_string())?;
        expand(options, function)
            .map(|tokens| tokens.to_string())
            .map_err(|e| e.to_string())
    }

    const SCORE: &str = "fn score(inputs: &[Series], context: CallerContext, kwargs: Options) \
                         -> PolarsResult<Series> { todo!() }";

    #[test]
    fn both_entry_points_are_generated_beside_the_function() {
        let out = expand_str("output_type=Float64", SCORE).unwrap();
        assert!(out.contains("fn score ("), "{out}");
        assert!(out.contains("fn _polars_plugin_score ("), "{out}");
        assert!(out.contains("fn _polars_plugin_field_score ("), "{out}");
        assert!(out.contains("DataType :: Float64"), "{out}");
        assert!(out.contains("score (inputs , context , crate :: plugin :: abi :: decode_kwargs"));
    }

    #[test]
    fn the_arguments_are_passed_by_name() {
        let only_kwargs = "fn f(inputs: &[Series], kwargs: K) -> PolarsResult<Series> { todo!() }";
        let out = expand_str("output_type_func=g", only_kwargs).unwrap();
        assert!(out.contains("f (inputs , crate :: plugin :: abi :: decode_kwargs (kwargs) ? ,)"));
        assert!(out.contains("g (fields)"), "{out}");
        let none = "fn f(inputs: &[Series]) -> PolarsResult<Series> { todo!() }";
        let out = expand_str("output_type_func_with_kwargs=g", none).unwrap();
        assert!(out.contains("f (inputs ,)"), "{out}");
        assert!(
            out.contains("g (fields , crate :: plugin :: abi :: decode_kwargs"),
            "{out}"
        );
    }

    #[test]
    fn mistakes_are_compile_errors() {
        let err = |attr, item| expand_str(attr, item).unwrap_err();
        assert!(err("output_dtype=Float64", SCORE).contains("unknown option `output_dtype`"));
        assert!(err("", SCORE).contains("give the output"));
        assert!(err("output_type=A, output_type_func=b", SCORE).contains("given twice"));
        let swapped = "fn f(inputs: &[Series], kwargs: K, context: CallerContext) \
                       -> PolarsResult<Series> { todo!() }";
        assert!(err("output_type=A", swapped).contains("`context` and then `kwargs`"));
        assert!(err(
            "output_type=A",
            "fn f() -> PolarsResult<Series> { todo!() }"
        )
        .contains("takes its inputs first"));
    }
}
