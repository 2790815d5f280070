//! `types::error::*`: one struct per error shape, carrying its traits as
//! `#[derive(RetryInfo)]` attributes; and `Unhandled`, for codes the model
//! does not describe.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Emitter, Here, code, ident};
use crate::ast::{Member, Shape, ShapeType};
use crate::names::{field_name, unraw};
use crate::traits::{Because, ErrorAttributes, Fault, Retryable};

impl Emitter<'_, '_> {
    /// Every error struct of `types::error`, each with its impls.
    pub(super) fn error_types(&self) -> impl Iterator<Item = TokenStream> {
        let view = self.view;
        view.errors
            .iter()
            .chain(&view.member_errors)
            .map(|shape| self.error_struct(shape))
    }

    /// The attributes of one error shape.
    pub(super) fn attributes(&self, shape: &Shape) -> ErrorAttributes {
        ErrorAttributes::of(shape, self.aws_rules)
    }

    fn error_struct(&self, shape: &Shape) -> TokenStream {
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
        let error_code = attrs.code.as_ref().map(|c| quote!(#[error_code(#c)]));
        let retry_after = self.retry_after_member(shape).map(|m| m.name.clone());
        let fields = self.fields(shape, Here::TypesError, |member| {
            if retry_after.as_deref() == Some(member.name.as_str()) {
                quote!(#[retry_after])
            } else {
                TokenStream::new()
            }
        });
        let (derive_default, default_impl) = self.default_impl(shape, &name);
        let display = self.display(shape, unraw(rust_name));
        quote! {
            #docs
            #aws_note
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, #derive_default #krate::RetryInfo)]
            #krate_attr
            #fault
            #status
            #retryable
            #error_code
            pub struct #name {
                #fields
            }

            #default_impl

            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    #display
                }
            }

            impl ::std::error::Error for #name {}
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

    /// `Name`, or `Name: message` when there is a message.
    fn display(&self, shape: &Shape, name: &str) -> TokenStream {
        let Some(message) = self.message_member(shape) else {
            return quote!(f.write_str(#name));
        };
        let field = ident(&field_name(&message.name));
        // The name is an identifier: no braces to escape in the format.
        let format = format!("{name}: {{}}");
        if super::is_required(message) {
            quote!(::std::write!(f, #format, self.#field))
        } else {
            quote! {
                match &self.#field {
                    ::std::option::Option::Some(message) => ::std::write!(f, #format, message),
                    ::std::option::Option::None => f.write_str(#name),
                }
            }
        }
    }

    /// `Unhandled`: an error whose code the model does not describe,
    /// classified by the AWS rules for unmodeled errors.
    pub(super) fn unhandled(&self) -> TokenStream {
        let krate = &self.krate;
        quote! {
            /// An error the model does not describe: its code, message and HTTP
            /// status as received.
            ///
            /// Its retry safety is `Maybe` and its fault follows the status, so a
            /// retry strategy classifies it by the AWS rules for unmodeled errors
            /// (throttling and transient error codes, transient statuses).
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::default::Default)]
            pub struct Unhandled {
                /// The error code, without the `namespace#` prefix or `:...` suffix.
                pub code: ::std::option::Option<::std::string::String>,
                /// The error message.
                pub message: ::std::option::Option<::std::string::String>,
                /// The HTTP status of the response.
                pub http_status: ::std::option::Option<u16>,
            }

            impl ::std::fmt::Display for Unhandled {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(self.code.as_deref().unwrap_or("unhandled error"))?;
                    if let ::std::option::Option::Some(status) = self.http_status {
                        ::std::write!(f, " (HTTP {status})")?;
                    }
                    if let ::std::option::Option::Some(message) = &self.message {
                        ::std::write!(f, ": {message}")?;
                    }
                    ::std::result::Result::Ok(())
                }
            }

            impl ::std::error::Error for Unhandled {}

            impl #krate::RetryInfo for Unhandled {
                fn retry_safety(&self) -> #krate::RetrySafety {
                    #krate::RetrySafety::Maybe
                }
            }

            impl #krate::ErrorInfo for Unhandled {
                fn fault(&self) -> #krate::ErrorFault {
                    self.http_status
                        .map_or(#krate::ErrorFault::Other, #krate::ErrorFault::from_http_status)
                }

                fn http_status(&self) -> ::std::option::Option<u16> {
                    self.http_status
                }

                fn error_code(&self) -> ::std::option::Option<&str> {
                    self.code.as_deref()
                }
            }
        }
    }
}
