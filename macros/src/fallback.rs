//! What the derive emits next to its errors: impls of both traits with
//! unreachable bodies, so the code that uses them still type-checks and the
//! user sees only the real mistakes, not a cascade of "trait not implemented".

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Path};

pub(crate) fn expand(node: &DeriveInput, krate: &Path) -> TokenStream {
    let ident = &node.ident;
    let (impl_generics, ty_generics, where_clause) = node.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::RetryInfo for #ident #ty_generics #where_clause {
            fn retry_safety(&self) -> #krate::RetrySafety {
                ::core::unreachable!()
            }
        }

        #[automatically_derived]
        impl #impl_generics #krate::ErrorInfo for #ident #ty_generics #where_clause {
            fn fault(&self) -> #krate::ErrorFault {
                ::core::unreachable!()
            }
        }
    }
}
