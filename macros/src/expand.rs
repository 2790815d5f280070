//! Code generation: one `RetryInfo` and one `ErrorInfo` impl, each method a
//! single `match` on the variant whose arms are constants, a read of the
//! `#[retry_after]` field, or a call into the wrapped error (transparent).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DeriveInput, Member, Path, WhereClause, parse_quote};

use crate::ast::{Input, Shape, Variant};
use crate::attr::Fault;
use crate::classify::{Classification, Declared, Safety};
use crate::{fallback, valid};

/// Entry point: parse, validate, generate; on any error, the errors plus a
/// fallback impl (so the user sees the real mistakes, not a cascade).
pub(crate) fn derive(node: &DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let input = Input::from_syn(node, &mut errors);
    if let Some(input) = &input {
        valid::validate(input, &mut errors);
    }
    match (errors.finish(), input) {
        (Ok(()), Some(input)) => expand(&input),
        (result, input) => {
            let krate = input.as_ref().map_or_else(default_crate, crate_path);
            let mut tokens = result
                .err()
                .map(darling::Error::write_errors)
                .unwrap_or_default();
            tokens.extend(fallback::expand(node, &krate));
            tokens
        }
    }
}

/// The runtime crate as seen from the user's code: `::rebound` unless
/// overridden with `#[retry_info(crate = "...")]`.
pub(crate) fn crate_path(input: &Input<'_>) -> Path {
    input
        .attrs
        .krate
        .as_ref()
        .map_or_else(default_crate, |krate| Path::clone(krate))
}

fn default_crate() -> Path {
    parse_quote!(::rebound)
}

/// What one variant answers.
enum Answer<'a> {
    /// Every method delegates to this field.
    Transparent(&'a Member, &'a syn::Type),
    /// Constant answers; the retry-after hint is read from a field, if any.
    Static(Static<'a>),
}

/// The compile-time answers of a variant that is not transparent.
struct Static<'a> {
    class: Classification,
    code: String,
    /// The hint field and its type (named in the generated read, so that a
    /// type error is reported at the field's type).
    hint: Option<(&'a Member, &'a syn::Type)>,
    /// The `#[error_metadata]` field and its type (read through
    /// `ProvideErrorMetadata`, so a type without it is reported at the type):
    /// its status comes before the modeled one.
    metadata: Option<(&'a Member, &'a syn::Type)>,
}

impl<'a> Answer<'a> {
    fn of(input: &Input<'_>, variant: &'a Variant<'_>) -> Self {
        if input.is_transparent(variant) {
            let field = &variant.fields[0];
            return Answer::Transparent(&field.member, field.ty);
        }
        let own = input.own_attrs(variant);
        let defaults = match input.shape {
            Shape::Struct(_) => None,
            Shape::Enum(_) => Some(&input.attrs),
        };
        let code = own
            .error_code
            .as_ref()
            .map_or_else(|| variant.ident.unraw().to_string(), syn::LitStr::value);
        let hint = variant
            .fields
            .iter()
            .find(|f| f.attrs.retry_after.is_some())
            .map(|f| (&f.member, f.ty));
        let metadata = variant
            .fields
            .iter()
            .find(|f| f.attrs.error_metadata.is_some())
            .map(|f| (&f.member, f.ty));
        Answer::Static(Static {
            class: Declared::merge(own, defaults).classify(),
            code,
            hint,
            metadata,
        })
    }

    /// The field method `method` reads for this variant: the wrapped error
    /// for every method of a transparent variant, the hint for
    /// `retry_after`, the metadata for `http_status`.
    fn field(&self, method: &str) -> Option<&'a Member> {
        match *self {
            Answer::Transparent(member, _) => Some(member),
            Answer::Static(Static { hint, .. }) if method == "retry_after" => {
                hint.map(|(member, _)| member)
            }
            Answer::Static(Static { metadata, .. }) if method == "http_status" => {
                metadata.map(|(member, _)| member)
            }
            Answer::Static(_) => None,
        }
    }
}

/// A method's value for a non-transparent variant, given an expression that
/// evaluates to a reference to the field the variant reads (if it reads one).
type Body<'f> = &'f dyn Fn(&Static<'_>, &TokenStream) -> TokenStream;

fn expand(input: &Input<'_>) -> TokenStream {
    let krate = crate_path(input);
    let answers: Vec<_> = input
        .variants()
        .iter()
        .map(|v| (v, Answer::of(input, v)))
        .collect();
    let method = |ret: TokenStream, name: &str, delegate: &TokenStream, body: Body<'_>| {
        let method = name;
        let name = syn::Ident::new(name, Span::call_site());
        let value = |answer: &Answer<'_>, field: &TokenStream| match answer {
            // At the field's type: a wrapped error without the trait is
            // reported there, not at the derive.
            Answer::Transparent(_, ty) => quote!(<#ty as #delegate>::#name(#field)),
            Answer::Static(answer) => body(answer, field),
        };
        let block = match &input.shape {
            Shape::Struct(_) => {
                let (_, answer) = &answers[0];
                let field = answer.field(method).map(|m| quote!(&self.#m));
                value(answer, &field.unwrap_or_default())
            }
            Shape::Enum(_) if answers.is_empty() => quote!(match *self {}),
            Shape::Enum(_) => {
                let arms = answers.iter().map(|(variant, answer)| {
                    let ident = variant.ident;
                    let binding = quote!(__field);
                    let pattern = match answer.field(method) {
                        Some(member) => quote!(Self::#ident { #member: #binding, .. }),
                        None => quote!(Self::#ident { .. }),
                    };
                    let value = value(answer, &binding);
                    quote!(#pattern => #value,)
                });
                quote!(match self { #(#arms)* })
            }
        };
        quote! {
            #[inline]
            fn #name(&self) -> #ret { #block }
        }
    };

    let retry_info = quote!(#krate::RetryInfo);
    let error_info = quote!(#krate::ErrorInfo);
    let retry_info_methods = [
        method(
            quote!(#krate::RetrySafety),
            "retry_safety",
            &retry_info,
            &|a, _| match a.class.safety {
                Safety::Yes => quote!(#krate::RetrySafety::Yes),
                Safety::No => quote!(#krate::RetrySafety::No),
                Safety::Maybe => quote!(#krate::RetrySafety::Maybe),
            },
        ),
        method(quote!(bool), "is_throttle", &retry_info, &|a, _| {
            a.class.throttle.into_token_stream()
        }),
        method(quote!(bool), "is_timeout", &retry_info, &|a, _| {
            a.class.timeout.into_token_stream()
        }),
        method(
            quote!(::core::option::Option<::core::time::Duration>),
            "retry_after",
            &retry_info,
            &|a, field| match a.hint {
                Some((_, ty)) => quote!(<#ty as #krate::RetryAfterValue>::to_retry_after(#field)),
                None => quote!(::core::option::Option::None),
            },
        ),
    ];
    let error_info_methods = [
        method(
            quote!(#krate::ErrorFault),
            "fault",
            &error_info,
            &|a, _| match a.class.fault {
                Fault::Client => quote!(#krate::ErrorFault::Client),
                Fault::Server => quote!(#krate::ErrorFault::Server),
                Fault::Other => quote!(#krate::ErrorFault::Other),
            },
        ),
        method(
            quote!(::core::option::Option<u16>),
            "http_status",
            &error_info,
            &|a, field| {
                let modeled = match a.class.status {
                    Some(status) => quote!(::core::option::Option::Some(#status)),
                    None => quote!(::core::option::Option::None),
                };
                match a.metadata {
                    Some((_, ty)) => {
                        let read = quote_spanned! {ty.span()=>
                            <#ty as #krate::ProvideErrorMetadata>::meta(#field).http_status()
                        };
                        quote!(#read.or(#modeled))
                    }
                    None => modeled,
                }
            },
        ),
        method(
            quote!(::core::option::Option<&str>),
            "error_code",
            &error_info,
            &|a, _| {
                let code = &a.code;
                quote!(::core::option::Option::Some(#code))
            },
        ),
    ];
    // Only a wrapped error can be a transport failure; without one, the
    // trait's default (`None`) is already the answer.
    let transport_failure = answers
        .iter()
        .any(|(_, answer)| matches!(answer, Answer::Transparent(..)))
        .then(|| {
            method(
                quote!(::core::option::Option<#krate::TransportFailure>),
                "transport_failure",
                &error_info,
                &|_, _| quote!(::core::option::Option::None),
            )
        });

    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let retry_where = where_clause(input, &answers, &retry_info);
    let error_where = where_clause(input, &answers, &error_info);
    quote! {
        // A deprecated field type is reported where the field is declared,
        // not again in the derived code.
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #retry_info for #ident #ty_generics #retry_where {
            #(#retry_info_methods)*
        }

        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #error_info for #ident #ty_generics #error_where {
            #(#error_info_methods)*
            #transport_failure
        }
    }
}

/// The input's where-clause plus `FieldType: Trait` for every transparent
/// field whose type mentions a type parameter (the compiler cannot know a
/// generic wrapped error implements the trait otherwise).
fn where_clause(
    input: &Input<'_>,
    answers: &[(&Variant<'_>, Answer<'_>)],
    bound: &TokenStream,
) -> Option<WhereClause> {
    let params: Vec<_> = input
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let mut clause = input.generics.where_clause.clone();
    for (variant, answer) in answers {
        if !matches!(answer, Answer::Transparent(..)) {
            continue;
        }
        let ty = variant.fields[0].ty;
        if mentions_any(ty.to_token_stream(), &params) {
            clause
                .get_or_insert_with(|| parse_quote!(where))
                .predicates
                .push(parse_quote!(#ty: #bound));
        }
    }
    clause
}

fn mentions_any(tokens: TokenStream, names: &[String]) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => names.iter().any(|name| ident == name),
        TokenTree::Group(group) => mentions_any(group.stream(), names),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_pretty(input: DeriveInput) -> String {
        let tokens = derive(&input);
        prettyplease::unparse(&syn::parse2(tokens).expect("the expansion is a valid file"))
    }

    /// One representative operation error: every method is a single `match`
    /// whose arms are constants, a field read, or a delegation.
    #[test]
    fn representative_enum_expansion() {
        let expansion = expand_pretty(parse_quote! {
            #[error_fault(client)]
            enum PutItemError<E> {
                #[retryable(throttling = true)]
                ProvisionedThroughputExceededException {
                    message: String,
                    #[retry_after]
                    retry_after_seconds: Option<i32>,
                },
                #[error_fault(server)]
                #[retryable]
                InternalServerError(String),
                #[error_code("ConditionalCheckFailed")]
                ConditionalCheckFailedException,
                #[retryable(timeout = true)]
                #[http_error(408)]
                RequestTimeout,
                #[retry_info(transparent)]
                Unhandled(E),
            }
        });
        insta::assert_snapshot!(expansion);
    }

    #[test]
    fn struct_expansion_has_no_match() {
        let expansion = expand_pretty(parse_quote! {
            #[retry_info(crate = "my_sdk::retries")]
            #[retryable(throttling = true)]
            #[http_error(429)]
            struct TooManyRequests {
                #[retry_after]
                after: ::core::time::Duration,
            }
        });
        insta::assert_snapshot!(expansion);
    }

    #[test]
    fn errors_come_with_a_fallback_impl() {
        let expansion = derive(&parse_quote! {
            enum E {
                #[http_error(700)]
                A,
            }
        })
        .to_string();
        assert!(expansion.contains("compile_error"), "{expansion}");
        assert!(expansion.contains("unreachable"), "{expansion}");
    }
}
