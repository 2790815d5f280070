//! The enums that dispatch on an error code: the service-wide `Error` and
//! one `operation::<op>::<Op>Error` per operation, each with `from_code`.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{Emitter, code, ident};
use crate::ast::Shape;
use crate::names::{field_name, fresh, unraw};

impl Emitter<'_, '_> {
    /// The service-wide `Error`, in parts (it can have thousands of
    /// variants).
    pub(super) fn service_error(&self) -> ErrorEnum<'_> {
        let view = self.view;
        let docs = format!(
            " Every error the {} service declares, and `Unhandled` for the others.",
            unraw(view.service.name())
        );
        self.error_enum_parts(ident("Error"), docs, &view.errors, quote!(self::))
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
        let parts = self.error_enum_parts(name.clone(), docs.to_owned(), errors, root.clone());
        let variants = (0..errors.len()).map(|index| parts.variant(index));
        let arms = (0..errors.len()).map(|index| self.code_arm(&parts, index));
        let display_arms = (0..errors.len()).map(|index| parts.display_arm(index));
        let enum_item = parts.enum_item(quote!(#(#variants)*));
        let from_code = parts.dispatch_impl(quote!(#(#arms)*));
        let display = parts.display_impl(quote!(#(#display_arms)*));
        let error_impl = parts.error_impl();
        quote! {
            #enum_item
            #from_code
            #display
            #error_impl
        }
    }

    /// What the parts of an error enum share: its names and, for
    /// `from_code`, the codes of each error: its shape name, then the
    /// `awsQueryError` code when no shape name already claims it (between
    /// two shapes with one query code, the first by Rust name wins).
    fn error_enum_parts<'e>(
        &self,
        name: Ident,
        docs: String,
        errors: &'e [&'e Shape],
        root: TokenStream,
    ) -> ErrorEnum<'e> {
        let variants = self.variant_names(errors);
        let unhandled = ident(&variants["\0unhandled"]);
        let idents: Vec<Ident> = errors.iter().map(|e| ident(&variants[&e.id])).collect();
        let types: Vec<Ident> = errors
            .iter()
            .map(|e| ident(self.view.rust_name(e)))
            .collect();
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
        ErrorEnum {
            name,
            docs,
            errors,
            root,
            krate: self.krate.clone(),
            krate_attr: self.krate_attr.clone(),
            unhandled,
            idents,
            types,
            codes,
        }
    }

    /// The match arm of `from_code` for error `index`; nothing when it
    /// claims no code.
    pub(super) fn code_arm(&self, parts: &ErrorEnum<'_>, index: usize) -> TokenStream {
        let patterns = &parts.codes[index];
        if patterns.is_empty() {
            return TokenStream::new();
        }
        let (error, root) = (parts.errors[index], &parts.root);
        let variant = &parts.idents[index];
        let ty = &parts.types[index];
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
    }
}

/// An error enum in parts: its items, each taking its list of entries (a
/// variant, a match arm per error) from the caller, and the entries one by
/// one; so that an enum of thousands of errors can be formatted in
/// batches.
#[derive(Debug)]
pub(super) struct ErrorEnum<'e> {
    name: Ident,
    docs: String,
    errors: &'e [&'e Shape],
    root: TokenStream,
    krate: TokenStream,
    krate_attr: TokenStream,
    unhandled: Ident,
    idents: Vec<Ident>,
    types: Vec<Ident>,
    codes: Vec<Vec<String>>,
}

impl ErrorEnum<'_> {
    /// How many errors it has.
    pub(super) fn len(&self) -> usize {
        self.errors.len()
    }

    /// The enum, with `variants` before the catch-all.
    pub(super) fn enum_item(&self, variants: TokenStream) -> TokenStream {
        let (name, docs, root) = (&self.name, &self.docs, &self.root);
        let (krate, krate_attr, unhandled) = (&self.krate, &self.krate_attr, &self.unhandled);
        quote! {
            #[doc = #docs]
            ///
            /// Every variant classifies as the error it holds (`RetryInfo` and
            /// `ErrorInfo` delegate to it).
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, #krate::RetryInfo)]
            #krate_attr
            pub enum #name {
                #variants
                /// An error the model does not describe here.
                #[retry_info(transparent)]
                #unhandled(#root Unhandled),
            }
        }
    }

    /// The variant of error `index`.
    pub(super) fn variant(&self, index: usize) -> TokenStream {
        let text = format!(" The `{}` error.", self.errors[index].name());
        let (variant, ty, root) = (&self.idents[index], &self.types[index], &self.root);
        quote! {
            #[doc = #text]
            #[retry_info(transparent)]
            #variant(#root types::error::#ty),
        }
    }

    /// The impl with `from_code`, its match `arms` (from
    /// [`Emitter::code_arm`]) before the fallback.
    pub(super) fn dispatch_impl(&self, arms: TokenStream) -> TokenStream {
        let (name, root, unhandled) = (&self.name, &self.root, &self.unhandled);
        let fallback = quote! {
            Self::#unhandled(#root Unhandled {
                code: (!code.is_empty()).then(|| ::std::borrow::ToOwned::to_owned(code)),
                message,
                http_status,
            })
        };
        // No modeled error: no match (clippy's `match_single_binding`).
        let dispatch = if self.errors.is_empty() {
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
        }
    }

    /// The `Display` impl, its match `arms` before the catch-all's.
    pub(super) fn display_impl(&self, arms: TokenStream) -> TokenStream {
        let (name, unhandled) = (&self.name, &self.unhandled);
        quote! {
            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    match self {
                        #arms
                        Self::#unhandled(error) => ::std::fmt::Display::fmt(error, f),
                    }
                }
            }
        }
    }

    /// The `Display` match arm of error `index`.
    pub(super) fn display_arm(&self, index: usize) -> TokenStream {
        let variant = &self.idents[index];
        quote!(Self::#variant(error) => ::std::fmt::Display::fmt(error, f),)
    }

    /// The `std::error::Error` impl.
    pub(super) fn error_impl(&self) -> TokenStream {
        let name = &self.name;
        quote!(impl ::std::error::Error for #name {})
    }
}
