//! Stub.
use proc_macro::TokenStream;
/// Stub.
#[proc_macro_derive(RetryInfo)]
pub fn derive_retry_info(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
