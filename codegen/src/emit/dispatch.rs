//! The enums that dispatch on an error code: the service-wide `Error` and
//! one `operation::<op>::<Op>Error` per operation, each with `from_code`.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{Emitter, code, ident};
use crate::ast::Shape;
use crate::names::{field_name, fresh, unraw};

impl Emitter<'_, '_> {
    /// The service-wide `Error`.
    pub(super) fn service_error(&self) -> TokenStream {
        let view = self.view;
        let docs = format!(
            " Every error the {} service declares, and `Unhandled` for the others.",
            unraw(view.service.name())
        );
        let name = ident("Error");
        self.error_enum(&name, &docs, &view.errors, &quote!(self::))
    }

    /// `operation::*`: a module per operation.
    pub(super) fn operations(&self) -> impl Iterator<Item = TokenStream> {
        let view = self.view;
        // The service's variant names, computed once for all operations.
        let service_variants = self.variant_names(&view.errors);
        view.operations.iter().map(move |op| {
            let module = ident(&op.module);
            let name = ident(&op.type_name);
            let op_name = op.shape.name();
            let docs = self.docs(op.shape, format!("The {} operation.", code(op_name)));
            let readonly = op.shape.has_trait("smithy.api#readonly");
            let idempotent = op.shape.has_trait("smithy.api#idempotent");
            let enum_docs = format!(
                " The errors {op_name} declares (and the service's), and `Unhandled` for the others."
            );
            let error_enum = self.error_enum(&name, &enum_docs, &op.errors, &quote!(super::super::));
            let variants = self.variant_names(&op.errors);
            let arms = op.errors.iter().map(|error| {
                let from = ident(&variants[&error.id]);
                let to = ident(&service_variants[&error.id]);
                quote!(#name::#from(error) => Self::#to(error),)
            });
            let unhandled = ident(&variants["\0unhandled"]);
            let service_unhandled = ident(&service_variants["\0unhandled"]);
            quote! {
                #docs
                pub mod #module {
                    /// The operation's name in the model.
                    pub const OPERATION_NAME: &str = #op_name;
                    /// The operation is `@readonly`: it changes nothing, so it is safe to retry.
                    pub const READONLY: bool = #readonly;
                    /// The operation is `@idempotent`: repeating it has the effect of doing it once.
                    pub const IDEMPOTENT: bool = #idempotent;

                    #error_enum

                    impl ::std::convert::From<#name> for super::super::Error {
                        fn from(error: #name) -> Self {
                            match error {
                                #(#arms)*
                                #name::#unhandled(error) => Self::#service_unhandled(error),
                            }
                        }
                    }
                }
            }
        })
    }

    /// The variant name of each error (by shape ID), and of the catch-all
    /// (key `"\0unhandled"`): `Unhandled` unless an error takes that name.
    fn variant_names(&self, errors: &[&Shape]) -> HashMap<String, String> {
        let mut names: HashMap<String, String> = errors
            .iter()
            .map(|e| (e.id.clone(), unraw(self.view.rust_name(e)).to_owned()))
            .collect();
        let unhandled = fresh("Unhandled", |n| names.values().any(|v| v == n));
        names.insert("\0unhandled".to_owned(), unhandled);
        names
    }

    /// An enum with a variant per error and a catch-all, with `from_code`.
    /// `root` is the path from the enum's module to the file's top.
    fn error_enum(
        &self,
        name: &Ident,
        docs: &str,
        errors: &[&Shape],
        root: &TokenStream,
    ) -> TokenStream {
        let krate = &self.krate;
        let krate_attr = &self.krate_attr;
        let variants = self.variant_names(errors);
        let unhandled = ident(&variants["\0unhandled"]);
        let idents: Vec<Ident> = errors.iter().map(|e| ident(&variants[&e.id])).collect();
        let types: Vec<Ident> = errors
            .iter()
            .map(|e| ident(self.view.rust_name(e)))
            .collect();
        let variant_docs = errors.iter().map(|e| {
            let text = format!(" The `{}` error.", e.name());
            quote!(#[doc = #text])
        });
        let arms = self.code_arms(errors, &idents, &types, root);
        let fallback = quote! {
            Self::#unhandled(#root Unhandled {
                code: (!code.is_empty()).then(|| ::std::borrow::ToOwned::to_owned(code)),
                message,
                http_status,
            })
        };
        // No modeled error: no match (clippy's `match_single_binding`).
        let dispatch = if errors.is_empty() {
            fallback
        } else {
            quote! {
                match code {
                    #arms
                    _ => #fallback,
                }
            }
        };
        let unhandled_link = format!(" [`{unhandled}`](Self::{unhandled})");
        quote! {
            #[doc = #docs]
            ///
            /// Every variant classifies as the error it holds (`RetryInfo` and
            /// `ErrorInfo` delegate to it).
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, #krate::RetryInfo)]
            #krate_attr
            pub enum #name {
                #(
                    #variant_docs
                    #[retry_info(transparent)]
                    #idents(#root types::error::#types),
                )*
                /// An error the model does not describe here.
                #[retry_info(transparent)]
                #unhandled(#root Unhandled),
            }

            impl #name {
                /// The error a response's error code stands for: a modeled error
                /// (its message member set to `message`), or
                #[doc = #unhandled_link]
                /// with the code, message and status. The code may come in the
                /// forms protocols send: `Name`, `namespace#Name`,
                /// `Name:http://...`, and the `awsQueryError` code.
                pub fn from_code(
                    code: &str,
                    message: ::std::option::Option<::std::string::String>,
                    http_status: ::std::option::Option<u16>,
                ) -> Self {
                    let code = #root normalize_error_code(code);
                    #dispatch
                }
            }

            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    match self {
                        #(Self::#idents(error) => ::std::fmt::Display::fmt(error, f),)*
                        Self::#unhandled(error) => ::std::fmt::Display::fmt(error, f),
                    }
                }
            }

            impl ::std::error::Error for #name {}
        }
    }

    /// The match arms of `from_code`: each error's shape name, then the
    /// `awsQueryError` codes no shape name already claims (between two
    /// shapes with one query code, the first by Rust name wins).
    fn code_arms(
        &self,
        errors: &[&Shape],
        idents: &[Ident],
        types: &[Ident],
        root: &TokenStream,
    ) -> TokenStream {
        let mut codes: Vec<Vec<String>> = vec![Vec::new(); errors.len()];
        let mut claimed = std::collections::HashSet::new();
        // Shape names first (two renamed shapes may share one: the first by
        // Rust name wins), then the query codes no one claims yet.
        for (index, error) in errors.iter().enumerate() {
            if claimed.insert(error.name().to_owned()) {
                codes[index].push(error.name().to_owned());
            }
        }
        for (index, error) in errors.iter().enumerate() {
            if let Some(query) = self.attributes(error).query_code
                && claimed.insert(query.clone())
            {
                codes[index].push(query);
            }
        }
        let arms = errors.iter().enumerate().filter(|(index, _)| !codes[*index].is_empty()).map(|(index, error)| {
            let variant = &idents[index];
            let ty = &types[index];
            let patterns = &codes[index];
            let construct = match self.message_member(error) {
                Some(member) => {
                    let field = ident(&field_name(&member.name));
                    let value = if super::is_required(member) {
                        quote!(#field: message.unwrap_or_default())
                    } else if field == "message" {
                        quote!(message) // shorthand: clippy's `redundant_field_names`
                    } else {
                        quote!(#field: message)
                    };
                    if error.members.len() == 1 {
                        quote!(#root types::error::#ty { #value })
                    } else {
                        quote!(#root types::error::#ty { #value, ..::std::default::Default::default() })
                    }
                }
                None => quote!(<#root types::error::#ty as ::std::default::Default>::default()),
            };
            quote!(#(#patterns)|* => Self::#variant(#construct),)
        });
        quote!(#(#arms)*)
    }
}
