//! Rules that span several attributes or depend on where an attribute sits.
//!
//! The parser (`attr.rs`) accepts every helper attribute anywhere; this module
//! decides what is allowed where and which combinations contradict each other.
//! Every violation is reported, each at the token to change.

use darling::error::Accumulator;
use darling::util::SpannedValue;
use proc_macro2::Span;

use crate::ast::{Input, Shape, Variant};
use crate::attr::{Attrs, Fault};
use crate::classify::Declared;

/// Checks `input`, pushing every violation into `errors`.
pub(crate) fn validate(input: &Input<'_>, errors: &mut Accumulator) {
    check_type_attrs(input, errors);
    for variant in input.variants() {
        if let Shape::Enum(_) = input.shape {
            check_variant_placement(&variant.attrs, errors);
        }
        check_fields(input, variant, errors);
        if input.is_transparent(variant) {
            check_transparent(input, variant, errors);
        } else {
            check_fault_matches_status(input, variant, errors);
        }
    }
}

const ON_METADATA_FIELD: &str =
    "`#[error_metadata]` goes on a field that holds the response's `ErrorMetadata`";

fn error(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

fn check_type_attrs(input: &Input<'_>, errors: &mut Accumulator) {
    let attrs = &input.attrs;
    if let Some(span) = attrs.retry_after {
        errors.push(error(
            span,
            "`#[retry_after]` goes on a field that holds the hint",
        ));
    }
    if let Some(span) = attrs.error_metadata {
        errors.push(error(span, ON_METADATA_FIELD));
    }
    if let (Shape::Enum(_), Some(code)) = (&input.shape, &attrs.error_code) {
        errors.push(error(
            code.span(),
            "`#[error_code]` on an enum would give every variant the same code: \
             put it on the variants (each defaults to its own name)",
        ));
    }
    if attrs.transparent.is_some() {
        for (name, span) in attrs.classification_spans() {
            errors.push(no_effect_when_transparent(name, span));
        }
    } else if let Shape::Enum(_) = input.shape {
        // Enum-level defaults that contradict each other are reported once
        // here, not once per variant that inherits them.
        check_pair(attrs.fault.as_ref(), attrs.http_error.as_ref(), errors);
    }
}

fn check_variant_placement(attrs: &Attrs, errors: &mut Accumulator) {
    if let Some(krate) = &attrs.krate {
        errors.push(error(
            krate.span(),
            "`#[retry_info(crate = ...)]` goes on the type, not on a variant",
        ));
    }
    if let Some(span) = attrs.retry_after {
        errors.push(error(
            span,
            "`#[retry_after]` goes on a field that holds the hint",
        ));
    }
    if let Some(span) = attrs.error_metadata {
        errors.push(error(span, ON_METADATA_FIELD));
    }
}

fn check_fields(input: &Input<'_>, variant: &Variant<'_>, errors: &mut Accumulator) {
    let (mut hint_field, mut metadata_field) = (false, false);
    for field in &variant.fields {
        let attrs = &field.attrs;
        let misplaced = attrs
            .classification_spans()
            .chain(
                attrs
                    .transparent
                    .map(|span| ("retry_info(transparent)", span)),
            )
            .chain(
                attrs
                    .krate
                    .as_ref()
                    .map(|k| ("retry_info(crate = ...)", k.span())),
            );
        for (name, span) in misplaced {
            errors.push(error(
                span,
                format!("`#[{name}]` goes on the error type or on a variant, not on a field"),
            ));
        }
        let transparent = input.is_transparent(variant);
        let metadata = FieldMarker {
            name: "error_metadata",
            comes_from: "the status comes from the wrapped error's `ErrorInfo::http_status`",
            holds: "the response's metadata",
        };
        metadata.check(
            attrs.error_metadata,
            transparent,
            &mut metadata_field,
            variant,
            errors,
        );
        let hint = FieldMarker {
            name: "retry_after",
            comes_from: "the hint comes from the wrapped error's `RetryInfo::retry_after`",
            holds: "the retry-after hint",
        };
        hint.check(
            attrs.retry_after,
            transparent,
            &mut hint_field,
            variant,
            errors,
        );
    }
}

/// An attribute that marks the one field of a variant holding a value
/// (`#[retry_after]`, `#[error_metadata]`).
struct FieldMarker {
    name: &'static str,
    /// Where a transparent variant's value comes from instead.
    comes_from: &'static str,
    /// What the marked field holds.
    holds: &'static str,
}

impl FieldMarker {
    /// Reports the marker at `span` on a transparent variant, or on a second
    /// field (`taken`: an earlier field of the variant has it).
    fn check(
        &self,
        span: Option<Span>,
        transparent: bool,
        taken: &mut bool,
        variant: &Variant<'_>,
        errors: &mut Accumulator,
    ) {
        let Some(span) = span else {
            return;
        };
        let name = self.name;
        if transparent {
            let comes_from = self.comes_from;
            errors.push(error(
                span,
                format!("`#[{name}]` has no effect on a transparent variant: {comes_from}"),
            ));
        } else if *taken {
            errors.push(error(
                span,
                format!(
                    "`#[{name}]` is already on another field of `{}`: one field holds {}",
                    variant.ident, self.holds
                ),
            ));
        }
        *taken = true;
    }
}

fn check_transparent(input: &Input<'_>, variant: &Variant<'_>, errors: &mut Accumulator) {
    let span = variant
        .attrs
        .transparent
        .or(input.attrs.transparent)
        .unwrap_or_else(Span::call_site);
    if variant.fields.len() != 1 {
        let what = match input.shape {
            Shape::Struct(_) => format!("struct `{}`", variant.ident),
            Shape::Enum(_) => format!("variant `{}`", variant.ident),
        };
        let span = if variant.attrs.transparent.is_some() {
            span
        } else {
            variant.ident.span()
        };
        errors.push(error(
            span,
            format!(
                "`#[retry_info(transparent)]` delegates to exactly one field, but {what} has {}",
                match variant.fields.len() {
                    0 => "none".to_owned(),
                    n => n.to_string(),
                }
            ),
        ));
    }
    if let Shape::Enum(_) = input.shape {
        for (name, span) in variant.attrs.classification_spans() {
            errors.push(no_effect_when_transparent(name, span));
        }
    }
}

fn no_effect_when_transparent(name: &str, span: Span) -> darling::Error {
    error(
        span,
        format!(
            "`#[{name}]` has no effect on a transparent error: \
             every answer comes from the wrapped error"
        ),
    )
}

/// A declared fault must agree with a declared status. For an enum variant,
/// only pairs involving the variant's own attributes are checked here (pairs
/// of enum defaults were checked once at the type).
fn check_fault_matches_status(input: &Input<'_>, variant: &Variant<'_>, errors: &mut Accumulator) {
    let own = input.own_attrs(variant);
    let defaults = match input.shape {
        Shape::Struct(_) => None,
        Shape::Enum(_) => Some(&input.attrs),
    };
    if defaults.is_some() && own.fault.is_none() && own.http_error.is_none() {
        return;
    }
    let declared = Declared::merge(own, defaults);
    check_pair(declared.fault, declared.status, errors);
}

fn check_pair(
    fault: Option<&SpannedValue<Fault>>,
    status: Option<&SpannedValue<u16>>,
    errors: &mut Accumulator,
) {
    let (Some(fault), Some(status)) = (fault, status) else {
        return;
    };
    let code: u16 = **status;
    let message = match (**fault, code) {
        (Fault::Client, 500..=599) => format!(
            "`#[http_error({code})]` is a server error status, but the error is declared \
             `#[error_fault(client)]`: a client fault takes a 4xx status"
        ),
        (Fault::Server, 400..=499) => format!(
            "`#[http_error({code})]` is a client error status, but the error is declared \
             `#[error_fault(server)]`: a server fault takes a 5xx status"
        ),
        _ => return,
    };
    errors.push(error(status.span(), message));
}
