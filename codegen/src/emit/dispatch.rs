//! The enums that dispatch on an error code: the service-wide `Error`, one
//! `operation::<op>::<Op>Error` per operation and one
//! `types::error::<Union>Error` per event stream, each with `from_code` and
//! `from_metadata`.
//!
//! An enum and its impls are [`ListItem`]s: a frame around a list of
//! entries (variants, match arms, methods), so that an enum of thousands of
//! variants is formatted a batch of entries at a time; an operation's module
//! is a [`ModuleItem`], a frame around such items.

use std::collections::{HashMap, HashSet};

use heck::ToSnakeCase;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::batch::{ARM_MARKER, ListItem, METHOD_MARKER, ModuleItem, VARIANT_MARKER};
use super::{Emitter, code, deprecated, doc_attrs, ident};
use crate::ast::Shape;
use crate::names::{fresh, unraw};

impl<'m> Emitter<'_, 'm> {
    /// The service-wide `Error`, as list items.
    pub(super) fn service_error(&self) -> Vec<ListItem<'_>> {
        let view = self.view;
        let docs = format!(
            "Every error the {} service declares, and {} for the others.",
            code(view.service.name()),
            code("Unhandled")
        );
        self.error_enum(ident("Error"), docs, &view.errors, quote!(self::))
    }

    /// `operation::*`: a module per operation, its error enum and
    /// `From` impl as list items.
    pub(super) fn operations(&self) -> impl Iterator<Item = ModuleItem<'_>> {
        let view = self.view;
        // The service's variant names, computed once for all operations.
        let service_variants = std::rc::Rc::new(self.variant_names(&view.errors));
        view.operations.iter().map(move |op| {
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
            let mut items =
                self.error_enum(name.clone(), enum_docs, &op.errors, quote!(super::super::));
            let variants = self.variant_names(&op.errors);
            let unhandled = ident(&variants["\0unhandled"]);
            let service_unhandled = ident(&service_variants["\0unhandled"]);
            let from = {
                let (name, service_variants) =
                    (name.clone(), std::rc::Rc::clone(&service_variants));
                Box::new(move |i: usize| {
                    let error = op.errors[i];
                    let from = ident(&variants[&error.id]);
                    let to = ident(&service_variants[&error.id]);
                    quote!(#name::#from(error) => Self::#to(error),)
                })
            };
            items.push(ListItem {
                marker: ARM_MARKER,
                len: op.errors.len(),
                entry: from,
                frame: Box::new(move |arms| {
                    quote! {
                        #[allow(clippy::too_many_lines)]
                        impl ::std::convert::From<#name> for super::super::Error {
                            fn from(error: #name) -> Self {
                                match error {
                                    #arms
                                    #name::#unhandled(error) => Self::#service_unhandled(error),
                                }
                            }
                        }
                    }
                }),
            });
            let frame = quote! {
                #docs
                pub mod #module {
                    /// The operation's name in the model.
                    pub const OPERATION_NAME: &str = #op_name;
                    /// The operation is `@readonly`: it changes nothing, so it is safe to retry.
                    pub const READONLY: bool = #readonly;
                    /// The operation is `@idempotent`: repeating it has the effect of doing it once.
                    pub const IDEMPOTENT: bool = #idempotent;

                    fn rebound_codegen_items() {}
                }
            };
            ModuleItem { frame, items }
        })
    }

    /// The variant name of each error (by shape ID), and of the catch-all
    /// (key `"\0unhandled"`): `Unhandled` unless an error takes that name.
    fn variant_names(&self, errors: &[&Shape]) -> HashMap<String, String> {
        let mut names: HashMap<String, String> = errors
            .iter()
            .map(|e| (e.id.clone(), self.view.rust_name(e).to_owned()))
            .collect();
        let taken: HashSet<&str> = names.values().map(String::as_str).collect();
        let unhandled = fresh("Unhandled", |n| taken.contains(n));
        names.insert("\0unhandled".to_owned(), unhandled);
        names
    }

    /// An enum with a variant per error and a catch-all, with
    /// `from_code`, `from_metadata`, `is_<variant>()`, `Display`, `Error`
    /// and `ProvideErrorMetadata`, as list items. `root` is the path from
    /// the enum's module to the file's top.
    pub(super) fn error_enum<'a>(
        &'a self,
        name: Ident,
        docs: String,
        errors: &'a [&'m Shape],
        root: TokenStream,
    ) -> Vec<ListItem<'a>> {
        let krate = self.krate.clone();
        let krate_attr = self.krate_attr.clone();
        let variants = self.variant_names(errors);
        let unhandled = ident(&variants["\0unhandled"]);
        let idents: std::rc::Rc<Vec<Ident>> =
            std::rc::Rc::new(errors.iter().map(|e| ident(&variants[&e.id])).collect());
        let codes = self.codes(errors);
        let is_variant = self.is_variant_names(&idents);
        let docs = doc_attrs(None, docs);
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
        // `Self::<Variant>(error) => <value>,` for every variant, the
        // catch-all after the list.
        let by_variant = |value: TokenStream| {
            let idents = std::rc::Rc::clone(&idents);
            Box::new(move |i: usize| {
                let variant = &idents[i];
                quote!(Self::#variant(error) => #value,)
            }) as Box<dyn Fn(usize) -> TokenStream>
        };
        let enum_item = {
            let (name, unhandled, root) = (name.clone(), unhandled.clone(), root.clone());
            ListItem {
                marker: VARIANT_MARKER,
                len: errors.len(),
                entry: {
                    let (idents, root) = (std::rc::Rc::clone(&idents), root.clone());
                    Box::new(move |i| {
                        let error = errors[i];
                        let variant = &idents[i];
                        let ty = ident(self.view.rust_name(error));
                        let docs = doc_attrs(None, format!("The {} error.", code(error.name())));
                        let deprecated = deprecated(error);
                        quote! {
                            #docs
                            #deprecated
                            #[retry_info(transparent)]
                            #variant(#root types::error::#ty),
                        }
                    })
                },
                frame: Box::new(move |variants| {
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
                            #variants
                            /// An error the model does not describe here.
                            #[retry_info(transparent)]
                            #unhandled(#root Unhandled),
                        }
                    }
                }),
            }
        };
        let dispatch = {
            let (name, unhandled, root, krate) = (
                name.clone(),
                unhandled.clone(),
                root.clone(),
                self.krate.clone(),
            );
            ListItem {
                marker: ARM_MARKER,
                len: errors.len(),
                entry: {
                    let (idents, root) = (std::rc::Rc::clone(&idents), root.clone());
                    Box::new(move |i| self.code_arm(errors[i], &idents[i], &codes[i], &root))
                },
                frame: Box::new(move |arms| {
                    let fallback = quote!(Self::#unhandled(#root Unhandled { meta }));
                    // No modeled error: no match (clippy's `match_single_binding`).
                    let dispatch = if arms.is_empty() {
                        fallback
                    } else {
                        quote! {
                            match code.as_str() {
                                #arms
                                _ => #fallback,
                            }
                        }
                    };
                    quote! {
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
                        }
                    }
                }),
            }
        };
        let is_methods = {
            let name = name.clone();
            let kept: Vec<usize> = (0..errors.len())
                .filter(|&i| is_variant[i].is_some())
                .collect();
            ListItem {
                marker: METHOD_MARKER,
                len: kept.len(),
                entry: {
                    let idents = std::rc::Rc::clone(&idents);
                    Box::new(move |k| {
                        let i = kept[k];
                        let variant = &idents[i];
                        let method = ident(is_variant[i].as_deref().unwrap_or_default());
                        let text = variant.to_string();
                        let docs = doc_attrs(
                            None,
                            format!("Whether this is the {} error.", code(unraw(&text))),
                        );
                        quote! {
                            #docs
                            #[must_use]
                            pub fn #method(&self) -> bool {
                                ::std::matches!(self, Self::#variant(_))
                            }
                        }
                    })
                },
                frame: Box::new(move |methods| {
                    if methods.is_empty() {
                        return TokenStream::new();
                    }
                    quote! {
                        #[allow(deprecated)]
                        impl #name {
                            #methods
                        }
                    }
                }),
            }
        };
        let metadata = {
            let (name, unhandled, krate) = (name.clone(), unhandled.clone(), self.krate.clone());
            ListItem {
                marker: ARM_MARKER,
                len: errors.len(),
                entry: by_variant(quote!(error)),
                frame: Box::new(move |arms| {
                    quote! {
                        #[allow(deprecated, clippy::too_many_lines)]
                        impl #name {
                            /// The error the variant holds, as a provider of metadata.
                            fn metadata_provider(&self) -> &dyn #krate::ProvideErrorMetadata {
                                match self {
                                    #arms
                                    Self::#unhandled(error) => error,
                                }
                            }
                        }

                        impl #krate::ProvideErrorMetadata for #name {
                            fn meta(&self) -> &#krate::ErrorMetadata {
                                self.metadata_provider().meta()
                            }

                            fn message(&self) -> ::std::option::Option<&str> {
                                self.metadata_provider().message()
                            }
                        }
                    }
                }),
            }
        };
        let display = {
            let (name, unhandled) = (name.clone(), unhandled.clone());
            ListItem {
                marker: ARM_MARKER,
                len: errors.len(),
                entry: by_variant(quote!(::std::fmt::Display::fmt(error, f))),
                frame: Box::new(move |arms| {
                    quote! {
                        #[allow(deprecated, clippy::too_many_lines)]
                        impl ::std::fmt::Display for #name {
                            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                                match self {
                                    #arms
                                    Self::#unhandled(error) => ::std::fmt::Display::fmt(error, f),
                                }
                            }
                        }
                    }
                }),
            }
        };
        let source = ListItem {
            marker: ARM_MARKER,
            len: errors.len(),
            entry: by_variant(quote!(::std::option::Option::Some(error))),
            frame: Box::new(move |arms| {
                quote! {
                    #[allow(deprecated, clippy::too_many_lines)]
                    impl ::std::error::Error for #name {
                        /// The error the variant holds.
                        fn source(&self) -> ::std::option::Option<&(dyn ::std::error::Error + 'static)> {
                            match self {
                                #arms
                                Self::#unhandled(error) => ::std::option::Option::Some(error),
                            }
                        }
                    }
                }
            }),
        };
        vec![enum_item, dispatch, is_methods, metadata, display, source]
    }

    /// The `is_<variant>()` method of each variant: none for those that
    /// would hide a `RetryInfo` method (`is_throttle`, `is_timeout`); two
    /// variants that meet on one name are numbered in order.
    fn is_variant_names(&self, idents: &[Ident]) -> Vec<Option<String>> {
        let mut taken: HashSet<String> = ["is_throttle", "is_timeout"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        idents
            .iter()
            .map(|variant| {
                let base = format!("is_{}", unraw(&variant.to_string()).to_snake_case());
                if base == "is_throttle" || base == "is_timeout" {
                    return None;
                }
                let method = fresh(&base, |n| taken.contains(n));
                taken.insert(method.clone());
                Some(method)
            })
            .collect()
    }

    /// The codes each error answers to in `from_metadata`: its shape name,
    /// then its `awsQueryError` code when no shape name already claims it
    /// (between two shapes with one code, the first by Rust name wins).
    fn codes(&self, errors: &[&Shape]) -> Vec<Vec<String>> {
        let mut codes: Vec<Vec<String>> = vec![Vec::new(); errors.len()];
        let mut claimed = HashSet::new();
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
        codes
    }

    /// The match arm of `from_metadata` for `error` (none when it answers
    /// to no code): it moves the metadata into the error, and its message
    /// into the message member.
    fn code_arm(
        &self,
        error: &Shape,
        variant: &Ident,
        codes: &[String],
        root: &TokenStream,
    ) -> TokenStream {
        if codes.is_empty() {
            return TokenStream::new();
        }
        let ty = ident(self.view.rust_name(error));
        let rest =
            (!error.members.is_empty()).then(|| quote!(..::std::default::Default::default()));
        let construct = match self.message_member(error) {
            Some(member) => {
                let field = self.field_ident(error, member);
                let message = if super::is_required(member) {
                    quote!(meta.take_message().unwrap_or_default())
                } else {
                    quote!(meta.take_message())
                };
                let rest =
                    (error.members.len() > 1).then(|| quote!(..::std::default::Default::default()));
                quote! {{
                    let mut meta = meta;
                    let #field = #message;
                    #root types::error::#ty { #field, meta, #rest }
                }}
            }
            None => quote!(#root types::error::#ty { meta, #rest }),
        };
        quote!(#(#codes)|* => Self::#variant(#construct),)
    }
}
