//! `#[derive(RetryInfo)]`: Smithy error traits, written as attributes, turned
//! into `RetryInfo` and `ErrorInfo` impls.
//!
//! Use it through the `rebound` crate (feature `derive`, on by default), which
//! documents every attribute with examples. The code generated refers to
//! `::rebound` unless `#[retry_info(crate = "...")]` names another path.
//!
//! The crate is organised like `thiserror-impl`: `attr` parses each helper
//! attribute, `ast` builds the typed input, `valid` checks placement and
//! combinations, `classify` is the Smithy mapping table, `expand` generates the
//! impls, and `fallback` is what is emitted next to errors.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ast;
mod attr;
mod classify;
mod expand;
mod fallback;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `RetryInfo` and `ErrorInfo` from Smithy-style attributes.
///
/// See the `rebound` crate's documentation of `RetryInfo` (the derive) for
/// every attribute and the mapping it implements.
#[proc_macro_derive(
    RetryInfo,
    attributes(
        retryable,
        error_fault,
        http_error,
        error_code,
        retry_after,
        error_metadata,
        retry_info
    )
)]
pub fn derive_retry_info(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
