//! Parsing of the helper attributes into typed values, one receiver each.
//!
//! This module knows the syntax of every attribute and nothing about where an
//! attribute may appear or how attributes combine: those rules live in
//! `valid.rs`. Every attribute the derive owns is parsed wherever it appears,
//! so that a misplaced one can be reported precisely later.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::error::Accumulator;
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Lit, LitInt, LitStr, Meta};

/// `#[retryable]`, `#[retryable(throttling = true, timeout = true)]` or `#[retryable(false)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retryable {
    /// The error is safe to retry.
    Yes { throttling: bool, timeout: bool },
    /// Explicitly not retryable: overrides a `#[retryable]` default on the enum.
    No,
}

/// The keys `#[retryable(...)]` accepts.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
struct RetryableArgs {
    throttling: Switch,
    timeout: Switch,
}

/// A boolean key: `key`, `key = true` or `key = false`, and nothing else (a
/// plain `bool` would also take `"true"` and say only "unexpected type").
#[derive(Debug, Default, Clone, Copy)]
struct Switch(bool);

impl FromMeta for Switch {
    fn from_word() -> darling::Result<Self> {
        Ok(Self(true))
    }

    fn from_value(value: &Lit) -> darling::Result<Self> {
        match value {
            Lit::Bool(flag) => Ok(Self(flag.value)),
            _ => Err(darling::Error::custom("expected `true` or `false`").with_span(value)),
        }
    }
}

/// `#[error_fault(client | server | other)]`: Smithy's `@error` trait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromMeta)]
#[darling(rename_all = "snake_case")]
pub(crate) enum Fault {
    Client,
    Server,
    Other,
}

/// The keys `#[retry_info(...)]` accepts.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
struct RetryInfoArgs {
    transparent: darling::util::Flag,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// Every helper attribute found on one item (the type, a variant or a field).
///
/// A value is kept with its span (darling's `SpannedValue`, which derefs to
/// the value) so that the rules in `valid.rs` can point at the attribute to
/// change.
#[derive(Debug, Default)]
pub(crate) struct Attrs {
    pub(crate) retryable: Option<SpannedValue<Retryable>>,
    pub(crate) fault: Option<SpannedValue<Fault>>,
    pub(crate) http_error: Option<SpannedValue<u16>>,
    pub(crate) error_code: Option<LitStr>,
    pub(crate) retry_after: Option<Span>,
    pub(crate) error_metadata: Option<Span>,
    pub(crate) transparent: Option<Span>,
    pub(crate) krate: Option<SpannedValue<syn::Path>>,
}

impl Attrs {
    /// Parses the helper attributes among `attrs`, reporting malformed and
    /// duplicate ones into `errors` and keeping whatever parsed.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Accumulator) -> Self {
        let mut parsed = Self::default();
        for attr in attrs {
            let Some(name) = attr.path().get_ident().map(ToString::to_string) else {
                continue;
            };
            match name.as_str() {
                "retryable" => {
                    if let Some(value) = errors.handle(parse_retryable(&attr.meta)) {
                        set_once(&mut parsed.retryable, at_name(value, attr), attr, errors);
                    }
                }
                "error_fault" => {
                    if let Some(value) = errors.handle(parse_fault(&attr.meta)) {
                        set_once(&mut parsed.fault, at_name(value, attr), attr, errors);
                    }
                }
                "http_error" => {
                    if let Some(status) = errors.handle(parse_http_status(&attr.meta)) {
                        set_once(&mut parsed.http_error, status, attr, errors);
                    }
                }
                "error_code" => {
                    if let Some(code) = errors.handle(parse_error_code(&attr.meta)) {
                        set_once(&mut parsed.error_code, code, attr, errors);
                    }
                }
                "retry_after" => {
                    if let Some(()) = errors.handle(parse_word(&attr.meta, "retry_after")) {
                        set_once(&mut parsed.retry_after, attr.path().span(), attr, errors);
                    }
                }
                "error_metadata" => {
                    if let Some(()) = errors.handle(parse_word(&attr.meta, "error_metadata")) {
                        set_once(&mut parsed.error_metadata, attr.path().span(), attr, errors);
                    }
                }
                "retry_info" => parse_retry_info(attr, &mut parsed, errors),
                _ => {}
            }
        }
        parsed
    }

    /// Whether any attribute that classifies an error is present (everything
    /// but `crate` and `transparent`).
    pub(crate) fn classification_spans(&self) -> impl Iterator<Item = (&'static str, Span)> {
        [
            self.retryable.as_ref().map(|r| ("retryable", r.span())),
            self.fault.as_ref().map(|f| ("error_fault", f.span())),
            self.http_error.as_ref().map(|h| ("http_error", h.span())),
            self.error_code.as_ref().map(|c| ("error_code", c.span())),
        ]
        .into_iter()
        .flatten()
    }
}

/// Attributes are located by their name: on stable Rust a span cannot cover
/// a whole attribute, and the name is what a reader looks for.
fn at_name<T>(value: T, attr: &Attribute) -> SpannedValue<T> {
    SpannedValue::new(value, attr.path().span())
}

/// Where an attribute's stored value came from, to point at the first of
/// two duplicates. A trait because the slots hold different things: a
/// `SpannedValue`, a `LitStr` (its own span) or a bare `Span` (word-only
/// attributes, which have no value).
trait FirstSpan {
    fn first_span(&self) -> Span;
}

impl<T> FirstSpan for SpannedValue<T> {
    fn first_span(&self) -> Span {
        self.span()
    }
}

impl FirstSpan for LitStr {
    fn first_span(&self) -> Span {
        self.span()
    }
}

impl FirstSpan for Span {
    fn first_span(&self) -> Span {
        *self
    }
}

/// Stores `value` unless the slot is taken, in which case the duplicate is
/// reported at both attributes (see `set_once_named`).
fn set_once<T: FirstSpan>(
    slot: &mut Option<T>,
    value: T,
    attr: &Attribute,
    errors: &mut Accumulator,
) {
    let name = attr
        .path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    set_once_named(slot, value, &name, attr.path().span(), errors);
}

/// Stores `value`, or reports a duplicate at both places: the second
/// occurrence, and the first.
fn set_once_named<T: FirstSpan>(
    slot: &mut Option<T>,
    value: T,
    name: &str,
    span: Span,
    errors: &mut Accumulator,
) {
    if let Some(first) = slot {
        errors.push(
            darling::Error::custom(format!(
                "duplicate `#[{name}]` attribute: keep one and delete the other"
            ))
            .with_span(&span),
        );
        errors.push(
            darling::Error::custom(format!("the first `#[{name}]` is here"))
                .with_span(&first.first_span()),
        );
    } else {
        *slot = Some(value);
    }
}

fn parse_retryable(meta: &Meta) -> darling::Result<Retryable> {
    let default_yes = Retryable::Yes {
        throttling: false,
        timeout: false,
    };
    match meta {
        Meta::Path(_) => Ok(default_yes),
        Meta::NameValue(nv) => Err(darling::Error::custom(
            "expected `#[retryable]`, `#[retryable(throttling = true)]`, \
             `#[retryable(timeout = true)]` or `#[retryable(false)]`",
        )
        .with_span(&nv.eq_token)),
        Meta::List(list) => {
            let items = NestedMeta::parse_meta_list(list.tokens.clone())?;
            if items.is_empty() {
                return Err(darling::Error::custom(
                    "empty parentheses: write `#[retryable]`, or name a key, \
                     e.g. `#[retryable(throttling = true)]`",
                )
                .with_span(&list.delimiter.span().join()));
            }
            match items.as_slice() {
                [NestedMeta::Lit(Lit::Bool(flag))] => Ok(if flag.value {
                    default_yes
                } else {
                    Retryable::No
                }),
                _ => {
                    if let Some(NestedMeta::Lit(lit)) = items
                        .iter()
                        .find(|item| matches!(item, NestedMeta::Lit(Lit::Bool(_))))
                    {
                        return Err(darling::Error::custom(
                            "`#[retryable(false)]` takes no other keys: \
                             write either `#[retryable(false)]` or `#[retryable(key = ...)]`",
                        )
                        .with_span(lit));
                    }
                    let args = RetryableArgs::from_list(&items).map_err(|e| e.with_span(list))?;
                    Ok(Retryable::Yes {
                        throttling: args.throttling.0,
                        timeout: args.timeout.0,
                    })
                }
            }
        }
    }
}

fn parse_fault(meta: &Meta) -> darling::Result<Fault> {
    match meta {
        Meta::List(_) => Fault::from_meta(meta),
        _ => Err(darling::Error::custom(
            "expected `#[error_fault(client)]`, `#[error_fault(server)]` or `#[error_fault(other)]`",
        )
        .with_span(meta)),
    }
}

/// `#[name(LITERAL)]`: one literal of type `T` in parentheses (darling only
/// reads `key = value` items, so these are parsed by hand). `usage` says what
/// was expected, at the literal, or at the name when the parentheses are missing
/// or empty.
fn parse_single_literal<T: syn::parse::Parse>(meta: &Meta, usage: &str) -> darling::Result<T> {
    match meta {
        Meta::List(list) if !list.tokens.is_empty() => syn::parse2(list.tokens.clone())
            .map_err(|_| darling::Error::custom(usage).with_span(&list.tokens.span())),
        _ => Err(darling::Error::custom(usage).with_span(meta)),
    }
}

/// `#[http_error(NNN)]`, checked against Smithy's `@httpError` range. The
/// status keeps the span of its literal, unlike `retryable` and `error_fault`
/// (kept at the attribute's name): a status that contradicts the fault is
/// reported at the number to change.
fn parse_http_status(meta: &Meta) -> darling::Result<SpannedValue<u16>> {
    let lit: LitInt = parse_single_literal(
        meta,
        "expected an HTTP error status, an integer literal from 400 to 599, \
         e.g. `#[http_error(429)]`",
    )?;
    let written = lit.to_string();
    if !written.bytes().all(|b| b.is_ascii_digit()) {
        return Err(darling::Error::custom(format!(
            "write the status as plain decimal digits, e.g. `#[http_error(429)]`, \
             not `{written}` (no suffix, underscore or other base)"
        ))
        .with_span(&lit));
    }
    let status = lit
        .base10_parse::<u16>()
        .ok()
        .filter(|s| (400..=599).contains(s));
    match status {
        Some(status) => Ok(SpannedValue::new(status, lit.span())),
        None => Err(darling::Error::custom(format!(
            "`{lit}` is not an HTTP error status: `#[http_error]` takes 400..=599 \
             (Smithy's `@httpError` range)"
        ))
        .with_span(&lit)),
    }
}

fn parse_error_code(meta: &Meta) -> darling::Result<LitStr> {
    let code: LitStr = parse_single_literal(
        meta,
        "expected an error code string, e.g. `#[error_code(\"ThrottlingException\")]`",
    )?;
    let value = code.value();
    if value.trim().is_empty() {
        return Err(darling::Error::custom("an error code cannot be empty").with_span(&code));
    }
    if value.trim() != value {
        return Err(darling::Error::custom(
            "an error code cannot start or end with whitespace: it is compared exactly \
             with the code the service sends",
        )
        .with_span(&code));
    }
    if value.chars().any(char::is_control) {
        return Err(darling::Error::custom(
            "an error code cannot hold control characters (NUL, a newline, a tab, ...)",
        )
        .with_span(&code));
    }
    Ok(code)
}

fn parse_word(meta: &Meta, name: &str) -> darling::Result<()> {
    match meta {
        Meta::Path(_) => Ok(()),
        _ => Err(darling::Error::custom(format!("`#[{name}]` takes no arguments")).with_span(meta)),
    }
}

fn parse_retry_info(attr: &Attribute, parsed: &mut Attrs, errors: &mut Accumulator) {
    let Some(args) = errors.handle(match &attr.meta {
        Meta::List(list) if list.tokens.is_empty() => Err(darling::Error::custom(
            "empty `#[retry_info()]`: write `#[retry_info(transparent)]` or \
             `#[retry_info(crate = \"path\")]`, or remove the attribute",
        )
        .with_span(&list.delimiter.span().join())),
        Meta::List(_) => RetryInfoArgs::from_meta(&attr.meta),
        _ => Err(darling::Error::custom(
            "expected `#[retry_info(transparent)]` or `#[retry_info(crate = \"path\")]`",
        )
        .with_span(&attr.meta)),
    }) else {
        return;
    };
    if args.transparent.is_present() {
        let span = args.transparent.span();
        set_once_named(
            &mut parsed.transparent,
            span,
            "retry_info(transparent)",
            span,
            errors,
        );
    }
    if let Some(path) = args.krate {
        // At the path as written: `crate = "path"` gives its tokens the string
        // literal's span, a bare `crate = path` keeps the path's own.
        let span = path.span();
        let krate = SpannedValue::new(path, span);
        set_once_named(&mut parsed.krate, krate, "retry_info(crate)", span, errors);
    }
}
