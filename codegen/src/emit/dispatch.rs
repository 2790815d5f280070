//! The enums that dispatch on an error code: the service-wide `Error` and
//! one `operation::<op>::<Op>Error` per operation, each with `from_code`.

use std::collections::{HashMap, HashSet};

use heck::ToSnakeCase;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{Emitter, code, deprecated, doc_attrs, ident};
use crate::ast::Shape;
use crate::names::{fresh, unraw};

impl Emitter<'_, '_> {
    /// The service-wide `Error`.
    pub(super) fn service_error(&self) -> TokenStream {
        let view = self.view;
        let docs = format!(
            "Every error the {} service declares, and {} for the others.",
            code(view.service.name()),
            code("Unhandled")
        );
        let name = ident("Error");
        self.error_enum(&name, &docs, &view.errors, &quote!(self::))
    }

    /// `operation::*`.
    pub(super) fn operations(&self) -> TokenStream {
        let view = self.view;
        let modules = view.operations.iter().map(|op| {
            let module = ident(&op.module);
            let name = ident(&op.type_name);
            let op_name = op.shape.name();
            let docs = self.docs(op.shape, format!("The {} operation.", code(op_name)));
            let readonly = op.shape.has_trait("smithy.api#readonly");
            let idempotent = op.shape.has_trait("smithy.api#idempotent");
            let enum_docs = format!(
                "The errors {} declares (and the service's), and {} for the others.",
                code(op_name),
                code("Unhandled")
            );
            let error_enum =
                self.error_enum(&name, &enum_docs, &op.errors, &quote!(super::super::));
            let variants = self.variant_names(&op.errors);
            let service_variants = self.variant_names(&view.errors);
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
        });
        quote!(#(#modules)*)
    }

    /// The variant name of each error (by shape ID), and of the catch-all
    /// (key `"\0unhandled"`): `Unhandled` unless an error takes that name.
    fn variant_names(&self, errors: &[&Shape]) -> HashMap<String, String> {
        let mut names: HashMap<String, String> = errors
            .iter()
            .map(|e| (e.id.clone(), self.view.rust_name(e).to_owned()))
            .collect();
        let unhandled = fresh("Unhandled", |n| names.values().any(|v| v == n));
        names.insert("\0unhandled".to_owned(), unhandled);
        names
    }

    /// An enum with a variant per error and a catch-all, with `from_code`
    /// and `from_metadata`. `root` is the path from the enum's module to the
    /// file's top.
    pub(super) fn error_enum(
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
            let docs = doc_attrs(None, format!("The {} error.", code(e.name())));
            let deprecated = deprecated(e);
            quote!(#docs #deprecated)
        });
        let arms = self.code_arms(errors, &idents, &types, root);
        let fallback = quote!(Self::#unhandled(#root Unhandled { meta }));
        // No modeled error: no match (clippy's `match_single_binding`).
        let dispatch = if errors.is_empty() {
            fallback
        } else {
            quote! {
                match code.as_str() {
                    #arms
                    _ => #fallback,
                }
            }
        };
        let is_variant = self.is_variant_methods(&idents);
        let docs = doc_attrs(None, docs.to_owned());
        let from_code_docs = doc_attrs(
            None,
            format!(
                "The error a response's error code stands for, as {}: the code, message \
                 and HTTP status as received.",
                code("from_metadata")
            ),
        );
        let from_metadata_docs = doc_attrs(
            None,
            format!(
                "The error the response's error code stands for: a modeled error (its \
                 message moved into its message member, if it has one), or {} for a code \
                 the model does not declare here. The metadata (code, request ID, HTTP \
                 status, extras) is kept, the code without the forms protocols wrap it in: \
                 <code>Name</code>, <code>namespace#Name</code>, \
                 <code>Name:http://...</code> and the <code>awsQueryError</code> code all \
                 dispatch alike.",
                code(&unhandled.to_string())
            ),
        );
        quote! {
            #docs
            ///
            /// Every variant classifies as the error it holds (`RetryInfo` and
            /// `ErrorInfo` delegate to it).
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, #krate::RetryInfo)]
            #krate_attr
            #[allow(non_camel_case_types, deprecated, clippy::large_enum_variant)]
            #[non_exhaustive]
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

            #[allow(deprecated, clippy::too_many_lines)]
            impl #name {
                #from_code_docs
                #[must_use]
                pub fn from_code(
                    code: &str,
                    message: ::std::option::Option<::std::string::String>,
                    http_status: ::std::option::Option<u16>,
                ) -> Self {
                    let mut meta = #krate::ErrorMetadata::new();
                    if !code.is_empty() {
                        meta = meta.with_code(code);
                    }
                    if let ::std::option::Option::Some(message) = message {
                        meta = meta.with_message(message);
                    }
                    if let ::std::option::Option::Some(status) = http_status {
                        meta = meta.with_http_status(status);
                    }
                    Self::from_metadata(meta)
                }

                #from_metadata_docs
                #[must_use]
                pub fn from_metadata(meta: #krate::ErrorMetadata) -> Self {
                    let code = #root normalize_error_code(meta.code().unwrap_or_default()).to_owned();
                    let meta = if code.is_empty() {
                        meta
                    } else {
                        meta.with_code(::std::clone::Clone::clone(&code))
                    };
                    #dispatch
                }

                #is_variant
            }

            #[allow(deprecated, clippy::too_many_lines)]
            impl #krate::ProvideErrorMetadata for #name {
                fn meta(&self) -> &#krate::ErrorMetadata {
                    match self {
                        #(Self::#idents(error) => #krate::ProvideErrorMetadata::meta(error),)*
                        Self::#unhandled(error) => #krate::ProvideErrorMetadata::meta(error),
                    }
                }

                fn message(&self) -> ::std::option::Option<&str> {
                    match self {
                        #(Self::#idents(error) => #krate::ProvideErrorMetadata::message(error),)*
                        Self::#unhandled(error) => #krate::ProvideErrorMetadata::message(error),
                    }
                }
            }

            #[allow(deprecated, clippy::too_many_lines)]
            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    match self {
                        #(Self::#idents(error) => ::std::fmt::Display::fmt(error, f),)*
                        Self::#unhandled(error) => ::std::fmt::Display::fmt(error, f),
                    }
                }
            }

            #[allow(deprecated, clippy::too_many_lines)]
            impl ::std::error::Error for #name {
                /// The error the variant holds.
                fn source(&self) -> ::std::option::Option<&(dyn ::std::error::Error + 'static)> {
                    match self {
                        #(Self::#idents(error) => ::std::option::Option::Some(error),)*
                        Self::#unhandled(error) => ::std::option::Option::Some(error),
                    }
                }
            }
        }
    }

    /// `is_<variant>()` per error variant, but those that would hide a
    /// `RetryInfo` method (`is_throttle`, `is_timeout`); two variants that
    /// meet on one name are numbered in order.
    fn is_variant_methods(&self, idents: &[Ident]) -> TokenStream {
        let mut taken: HashSet<String> = ["is_throttle", "is_timeout"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        let methods = idents.iter().filter_map(|variant| {
            let text = variant.to_string();
            let base = format!("is_{}", unraw(&text).to_snake_case());
            if taken.contains(&base) {
                return None;
            }
            let method = fresh(&base, |n| taken.contains(n));
            taken.insert(method.clone());
            let method = ident(&method);
            let docs = doc_attrs(
                None,
                format!("Whether this is the {} error.", code(unraw(&text))),
            );
            Some(quote! {
                #docs
                #[must_use]
                pub fn #method(&self) -> bool {
                    ::std::matches!(self, Self::#variant(_))
                }
            })
        });
        quote!(#(#methods)*)
    }

    /// The match arms of `from_metadata`: each error's shape name, then the
    /// `awsQueryError` codes no shape name already claims (between two
    /// shapes with one query code, the first by Rust name wins). Each arm
    /// moves the metadata into the error, and its message into the message
    /// member.
    fn code_arms(
        &self,
        errors: &[&Shape],
        idents: &[Ident],
        types: &[Ident],
        root: &TokenStream,
    ) -> TokenStream {
        let mut codes: Vec<Vec<String>> = vec![Vec::new(); errors.len()];
        let mut claimed = HashSet::new();
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
        let arms = errors
            .iter()
            .enumerate()
            .filter(|(index, _)| !codes[*index].is_empty())
            .map(|(index, error)| {
                let variant = &idents[index];
                let ty = &types[index];
                let patterns = &codes[index];
                let rest = (!error.members.is_empty())
                    .then(|| quote!(..::std::default::Default::default()));
                let construct = match self.message_member(error) {
                    Some(member) => {
                        let field = self.field_ident(error, member);
                        let message = if super::is_required(member) {
                            quote!(meta.take_message().unwrap_or_default())
                        } else {
                            quote!(meta.take_message())
                        };
                        let rest = (error.members.len() > 1)
                            .then(|| quote!(..::std::default::Default::default()));
                        quote! {{
                            let mut meta = meta;
                            let #field = #message;
                            #root types::error::#ty { #field, meta, #rest }
                        }}
                    }
                    None => quote!(#root types::error::#ty { meta, #rest }),
                };
                quote!(#(#patterns)|* => Self::#variant(#construct),)
            });
        quote!(#(#arms)*)
    }
}
