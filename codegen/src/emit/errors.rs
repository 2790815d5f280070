//! `types::error::*`: one struct per error shape, carrying its traits as
//! `#[derive(RetryInfo)]` attributes; and `Unhandled`, for codes the model
//! does not describe.

use std::collections::HashSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::batch::{ListItem, METHOD_MARKER, whole};
use super::{Emitter, Here, code, deprecated, doc_attrs, ident, is_required, member_docs};
use crate::ast::{Member, Shape, ShapeType};
use crate::names::{NameList, unraw};
use crate::traits::{Because, ErrorAttributes, Fault, Retryable};

/// Methods every error struct has (its own, and its traits'): a member
/// getter of one of these names would hide it, so the member has none (its
/// field is public).
const RESERVED_METHODS: &[&str] = &[
    "message",
    "meta",
    "code",
    "request_id",
    "with_meta",
    "retry_safety",
    "is_throttle",
    "is_timeout",
    "retry_after",
    "fault",
    "http_status",
    "error_code",
    "transport_failure",
    "source",
    "description",
    "cause",
    "provide",
    "fmt",
    "to_string",
    "clone",
    "clone_from",
    "eq",
    "ne",
    "default",
    "into",
    "try_into",
    "type_id",
    "borrow",
    "borrow_mut",
    "to_owned",
    "clone_into",
];

impl Emitter<'_, '_> {
    /// The items of `types::error`: those of a struct per error, then of an
    /// enum per event stream, each list (fields, methods, variants, arms) a
    /// batch of entries at a time.
    pub(super) fn error_types(&self) -> impl Iterator<Item = Vec<ListItem<'_>>> {
        let view = self.view;
        let structs = view
            .errors
            .iter()
            .chain(&view.member_errors)
            .map(|&shape| self.error_struct(shape));
        let streams = view.event_streams.iter().map(|stream| {
            let docs = format!(
                "The errors the {} event stream can carry, and {} for the others.",
                code(stream.shape.name()),
                code("Unhandled")
            );
            let name = ident(&stream.type_name);
            self.error_enum(name, docs, &stream.errors, quote!(super::super::))
        });
        structs.chain(streams)
    }

    /// The attributes of one error shape.
    pub(super) fn attributes(&self, shape: &Shape) -> ErrorAttributes {
        ErrorAttributes::of(shape, self.aws_rules)
    }

    /// An error struct, its fields as list entries; its `Default` and
    /// `Debug` impls when it has its own; its methods, the getters and
    /// setters as list entries; its trait impls.
    fn error_struct<'a>(&'a self, shape: &'a Shape) -> Vec<ListItem<'a>> {
        let krate = &self.krate;
        let krate_attr = &self.krate_attr;
        let rust_name = self.view.rust_name(shape);
        let name = ident(rust_name);
        let attrs = self.attributes(shape);
        let docs = self.docs(shape, format!("The {} error.", code(shape.name())));
        let fault = match attrs.fault {
            Fault::Client => quote!(#[error_fault(client)]),
            Fault::Server => quote!(#[error_fault(server)]),
        };
        let status = attrs.status.map(|s| {
            let s = Literal::u16_unsuffixed(s);
            quote!(#[http_error(#s)])
        });
        let aws_note = match attrs.retryable {
            Some((_, Because::AwsCode)) => quote! {
                #[doc = ""]
                #[doc = " Retryable by the AWS SDKs' rules: its error code is on their list."]
            },
            _ => TokenStream::new(),
        };
        let retryable = attrs.retryable.map(|(kind, _)| match kind {
            Retryable::Yes => quote!(#[retryable]),
            Retryable::Throttling => quote!(#[retryable(throttling = true)]),
        });
        let error_code = &attrs.code;
        let retry_after = self.retry_after_member(shape).map(|m| m.name.clone());
        // The field names, held once for the fields and the methods.
        let names = std::rc::Rc::new(self.field_names(shape));
        let fields = self.field_entries(
            shape,
            std::rc::Rc::clone(&names),
            Here::TypesError,
            move |member| {
                if retry_after.as_deref() == Some(member.name.as_str()) {
                    quote!(#[retry_after])
                } else {
                    TokenStream::new()
                }
            },
        );
        let (derive_default, default_impl) = self.default_impl(shape, &name, Here::TypesError);
        let (derive_debug, debug_impl) = self.debug_impl(shape, &name);
        let display = self.display(shape, unraw(rust_name));
        let deprecated = deprecated(shape);
        let head = quote! {
            #docs
            #aws_note
            #[derive(#derive_debug ::std::clone::Clone, ::std::cmp::PartialEq, #derive_default #krate::RetryInfo)]
            #krate_attr
            #fault
            #status
            #retryable
            #[error_code(#error_code)]
            #[non_exhaustive]
            #deprecated
        };
        let traits = quote! {
            impl #krate::ProvideErrorMetadata for #name {
                fn meta(&self) -> &#krate::ErrorMetadata {
                    &self.meta
                }

                fn message(&self) -> ::std::option::Option<&str> {
                    self.message()
                }
            }

            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    #display
                }
            }

            impl ::std::error::Error for #name {}
        };
        vec![
            self.struct_item(shape, head, name.clone(), fields),
            whole(quote!(#default_impl #debug_impl)),
            self.methods(shape, name, names),
            whole(traits),
        ]
    }

    /// `impl Error { ... }`: `message()`, a getter and a setter per member
    /// (fields named `fields`; as list entries, the getters then the setters, each made when it is
    /// written), `with_meta`.
    fn methods<'a>(
        &'a self,
        shape: &'a Shape,
        name: Ident,
        fields: std::rc::Rc<NameList>,
    ) -> ListItem<'a> {
        let krate = self.krate.clone();
        let message = self.message_accessor(shape);
        let getter_names = getter_names(&fields);
        let count = shape.members.len();
        ListItem {
            marker: METHOD_MARKER,
            // A getter, then a setter, per member: empty for those without.
            len: 2 * count,
            entry: Box::new(move |i| {
                let (member, setter) = if i < count {
                    (i, false)
                } else {
                    (i - count, true)
                };
                let field = &fields[member];
                if !setter && has_getter(field) {
                    self.getter_method(shape, member, field)
                } else if setter && has_setter(field, &getter_names) {
                    self.setter_method(shape, member, field)
                } else {
                    TokenStream::new()
                }
            }),
            frame: Box::new(move |methods| {
                quote! {
                    impl #name {
                        #message

                        #methods

                        /// The error with this response metadata (code, request ID, HTTP status).
                        #[must_use]
                        pub fn with_meta(mut self, meta: #krate::ErrorMetadata) -> Self {
                            self.meta = meta;
                            self
                        }
                    }
                }
            }),
        }
    }

    /// `message()`: the message member, else the metadata's message.
    fn message_accessor(&self, shape: &Shape) -> TokenStream {
        let body = match self.message_member(shape) {
            Some(member) if is_required(member) => {
                let field = self.field_ident(shape, member);
                quote!(::std::option::Option::Some(&self.#field))
            }
            Some(member) => {
                let field = self.field_ident(shape, member);
                quote!(self.#field.as_deref())
            }
            None => quote!(self.meta.message()),
        };
        quote! {
            /// The error's message.
            #[must_use]
            pub fn message(&self) -> ::std::option::Option<&str> {
                #body
            }
        }
    }

    /// The getter of member `index`, named as its field `field`.
    fn getter_method(&self, shape: &Shape, index: usize, field: &str) -> TokenStream {
        let (member, field) = (&shape.members[index], ident(field));
        let (ty, body) = self.getter(shape, member, &field);
        let docs = member_docs(member);
        quote! {
            #docs
            #[must_use]
            pub fn #field(&self) -> #ty {
                #body
            }
        }
    }

    /// `with_<field>(value)` for member `index` (field `field`): the error
    /// with the member set, so that code outside the crate can build one
    /// (the struct is `#[non_exhaustive]`).
    fn setter_method(&self, shape: &Shape, index: usize, field: &str) -> TokenStream {
        let member = &shape.members[index];
        let name = ident(&format!("with_{}", unraw(field)));
        let field = ident(field);
        let ty = self.type_of(&member.target, Here::TypesError);
        let mut value = quote!(value.into());
        if self.view.is_boxed(shape, &member.name) {
            value = quote!(::std::boxed::Box::new(#value));
        }
        if !is_required(member) {
            value = quote!(::std::option::Option::Some(#value));
        }
        let docs = doc_attrs(None, format!("The error with {} set.", code(&member.name)));
        quote! {
            #docs
            #[must_use]
            pub fn #name(mut self, value: impl ::std::convert::Into<#ty>) -> Self {
                self.#field = #value;
                self
            }
        }
    }

    /// The return type and body of the getter of `member`: `&str`,
    /// `&[T]`, a copy of a number or boolean, else a reference; optional
    /// unless `@required` (a list reads as empty when absent).
    fn getter(&self, shape: &Shape, member: &Member, field: &Ident) -> (TokenStream, TokenStream) {
        let required = is_required(member);
        let boxed = self.view.is_boxed(shape, &member.name);
        let target = &member.target;
        let generated = self.view.is_generated(target);
        let ty = self.type_of(target, Here::TypesError);
        let option = |ty: TokenStream| quote!(::std::option::Option<#ty>);
        match self.view.shape_type(target) {
            _ if generated || boxed => {
                if required {
                    (quote!(&#ty), quote!(&self.#field))
                } else if boxed {
                    (option(quote!(&#ty)), quote!(self.#field.as_deref()))
                } else {
                    (option(quote!(&#ty)), quote!(self.#field.as_ref()))
                }
            }
            ShapeType::String | ShapeType::BigInteger | ShapeType::BigDecimal => {
                if required {
                    (quote!(&str), quote!(&self.#field))
                } else {
                    (option(quote!(&str)), quote!(self.#field.as_deref()))
                }
            }
            ShapeType::List => {
                let list = self.view.shape(target);
                let item = list
                    .member("member")
                    .map_or_else(|| quote!(()), |m| self.type_of(&m.target, Here::TypesError));
                let inner = if list.has_trait("smithy.api#sparse") {
                    quote!(::std::option::Option<#item>)
                } else {
                    item
                };
                if required {
                    (quote!(&[#inner]), quote!(&self.#field))
                } else {
                    (
                        quote!(&[#inner]),
                        quote!(self.#field.as_deref().unwrap_or_default()),
                    )
                }
            }
            ShapeType::Boolean
            | ShapeType::Byte
            | ShapeType::Short
            | ShapeType::Integer
            | ShapeType::Long
            | ShapeType::Float
            | ShapeType::Double => {
                if required {
                    (ty, quote!(self.#field))
                } else {
                    (option(ty), quote!(self.#field))
                }
            }
            _ if required => (quote!(&#ty), quote!(&self.#field)),
            _ => (option(quote!(&#ty)), quote!(self.#field.as_ref())),
        }
    }

    /// The member holding the error's message: named `message` (in any
    /// case), a string.
    pub(super) fn message_member<'s>(&self, shape: &'s Shape) -> Option<&'s Member> {
        shape.members.iter().find(|m| {
            m.name.eq_ignore_ascii_case("message")
                && self.view.shape_type(&m.target) == ShapeType::String
                && !self.view.is_generated(&m.target)
                && !self.view.is_boxed(shape, &m.name)
        })
    }

    /// The member bound to the `Retry-After` header, if its type can hold a
    /// hint (whole seconds, a string of delta-seconds or an HTTP-date, or a
    /// timestamp).
    fn retry_after_member<'s>(&self, shape: &'s Shape) -> Option<&'s Member> {
        shape.members.iter().find(|m| {
            let header = m
                .traits
                .get("smithy.api#httpHeader")
                .and_then(|h| h.as_str());
            header.is_some_and(|h| h.eq_ignore_ascii_case("retry-after"))
                && !self.view.is_generated(&m.target)
                && !self.view.is_boxed(shape, &m.name)
                && matches!(
                    self.view.shape_type(&m.target),
                    ShapeType::Short
                        | ShapeType::Integer
                        | ShapeType::Long
                        | ShapeType::String
                        | ShapeType::Timestamp
                )
        })
    }

    /// `Name`, or `Name: message` when there is a message (redacted when
    /// the message member is `@sensitive`).
    fn display(&self, shape: &Shape, name: &str) -> TokenStream {
        // The name is an identifier: no braces to escape in the format.
        let format = format!("{name}: {{message}}");
        if self
            .message_member(shape)
            .is_some_and(|m| self.is_sensitive(shape, m))
        {
            let redacted = format!("{name}: *** Sensitive Data Redacted ***");
            return quote!(f.write_str(#redacted));
        }
        quote! {
            match self.message() {
                ::std::option::Option::Some(message) => ::std::write!(f, #format),
                ::std::option::Option::None => f.write_str(#name),
            }
        }
    }

    /// `Unhandled`: an error whose code the model does not describe,
    /// classified by the AWS rules for unmodeled errors when they apply.
    pub(super) fn unhandled(&self) -> TokenStream {
        let krate = &self.krate;
        let (docs, retry_info) = if self.aws_rules {
            (
                quote! {
                    /// A throttling error code (`ThrottlingException`, ...) makes it a
                    /// retryable throttle and a transient one (`RequestTimeout`, ...)
                    /// retryable, by the AWS SDKs' rules, as for the modeled errors; any
                    /// other is `Maybe` retryable, its fault following the status, so a
                    /// retry strategy classifies it by the AWS rules for unmodeled errors
                    /// (transient statuses).
                },
                quote! {
                    impl #krate::RetryInfo for Unhandled {
                        fn retry_safety(&self) -> #krate::RetrySafety {
                            match self.meta.code() {
                                ::std::option::Option::Some(code)
                                    if #krate::__codegen::is_throttling_error_code(code)
                                        || #krate::__codegen::is_transient_error_code(code) =>
                                {
                                    #krate::RetrySafety::Yes
                                }
                                _ => #krate::RetrySafety::Maybe,
                            }
                        }

                        fn is_throttle(&self) -> bool {
                            self.meta
                                .code()
                                .is_some_and(#krate::__codegen::is_throttling_error_code)
                        }
                    }
                },
            )
        } else {
            (
                quote! {
                    /// Its retry safety is `Maybe` and its fault follows the status, so a
                    /// retry strategy classifies it by its rules for unmodeled errors.
                },
                quote! {
                    impl #krate::RetryInfo for Unhandled {
                        fn retry_safety(&self) -> #krate::RetrySafety {
                            #krate::RetrySafety::Maybe
                        }
                    }
                },
            )
        };
        quote! {
            /// An error the model does not describe: the metadata of the response
            /// (code, message, request ID, HTTP status) as received.
            ///
            #docs
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::default::Default)]
            #[non_exhaustive]
            pub struct Unhandled {
                /// The response's metadata; its code is without the `namespace#`
                /// prefix or `:...` suffix.
                pub(crate) meta: #krate::ErrorMetadata,
            }

            impl Unhandled {
                /// The error of a response with this metadata.
                #[must_use]
                pub fn new(meta: #krate::ErrorMetadata) -> Self {
                    Self { meta }
                }
            }

            impl #krate::ProvideErrorMetadata for Unhandled {
                fn meta(&self) -> &#krate::ErrorMetadata {
                    &self.meta
                }
            }

            impl ::std::fmt::Display for Unhandled {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(self.meta.code().unwrap_or("unhandled error"))?;
                    if let ::std::option::Option::Some(status) = self.meta.http_status() {
                        ::std::write!(f, " (HTTP {status})")?;
                    }
                    if let ::std::option::Option::Some(message) = self.meta.message() {
                        ::std::write!(f, ": {message}")?;
                    }
                    ::std::result::Result::Ok(())
                }
            }

            impl ::std::error::Error for Unhandled {}

            #retry_info

            impl #krate::ErrorInfo for Unhandled {
                fn fault(&self) -> #krate::ErrorFault {
                    self.meta
                        .http_status()
                        .map_or(#krate::ErrorFault::Other, #krate::ErrorFault::from_http_status)
                }

                fn http_status(&self) -> ::std::option::Option<u16> {
                    self.meta.http_status()
                }

                fn error_code(&self) -> ::std::option::Option<&str> {
                    self.meta.code()
                }
            }
        }
    }
}

/// Whether the member of field `field` gets a getter, named as its field:
/// unless the name is one of the methods an error already has (`message`,
/// `meta`, `code`, `fault`, ...), as calling it would reach the getter
/// instead.
fn has_getter(field: &str) -> bool {
    !RESERVED_METHODS.contains(&unraw(field))
}

/// The field names a setter's name could meet: those named `with_...`.
fn getter_names(fields: &NameList) -> HashSet<String> {
    fields
        .iter()
        .map(unraw)
        .filter(|f| f.starts_with("with_"))
        .map(str::to_owned)
        .collect()
}

/// Whether the member of field `field` gets a setter, `with_<field>`: not
/// where a field (so a getter) has that name (a member named `with_x` has a getter of
/// that name: the member `x` then has no setter; its field is public).
fn has_setter(field: &str, getter_names: &HashSet<String>) -> bool {
    let name = format!("with_{}", unraw(field));
    !getter_names.contains(&name) && name != "with_meta"
}
