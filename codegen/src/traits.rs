//! From an error shape's Smithy traits to the `#[derive(RetryInfo)]`
//! attributes that carry them (see the crate docs for the table).

use rebound_runtime::classify::{is_throttling_error_code, is_transient_error_code};

use crate::ast::Shape;

/// Who is at fault, from `@error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    Client,
    Server,
}

/// What `#[retryable]` to emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retryable {
    /// `#[retryable]`
    Yes,
    /// `#[retryable(throttling = true)]`
    Throttling,
}

/// Why the error is retryable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Because {
    /// The model says `@retryable`.
    Modeled,
    /// Its wire code is on an AWS list (throttling or transient).
    AwsCode,
}

/// The derive attributes of one error shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorAttributes {
    pub(crate) fault: Fault,
    /// `@httpError`, else `awsQueryError.httpResponseCode`: left out when
    /// outside 400..=599 or contradicting the fault (a client error with a
    /// 5xx status, a server error with a 4xx one).
    pub(crate) status: Option<u16>,
    pub(crate) retryable: Option<(Retryable, Because)>,
    /// The wire code: `awsQueryError.code`, else the shape's name. `None`
    /// when it cannot be an `#[error_code]` (empty, padded, control
    /// characters); the derive then reports the type's name.
    pub(crate) code: Option<String>,
    /// `awsQueryError.code`, when there is one.
    pub(crate) query_code: Option<String>,
}

impl ErrorAttributes {
    /// The attributes of `shape` (an error structure), with the AWS rules
    /// applied when `aws_rules`.
    pub(crate) fn of(shape: &Shape, aws_rules: bool) -> Self {
        let fault = match shape
            .traits
            .get("smithy.api#error")
            .and_then(|v| v.as_str())
        {
            Some("server") => Fault::Server,
            _ => Fault::Client,
        };
        let query = shape.traits.get("aws.protocols#awsQueryError");
        let query_code = query
            .and_then(|q| q.get("code"))
            .and_then(|c| c.as_str())
            .map(str::to_owned);
        let status = shape
            .traits
            .get("smithy.api#httpError")
            .or_else(|| query.and_then(|q| q.get("httpResponseCode")))
            .and_then(serde_json::Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| match fault {
                Fault::Client => (400..=499).contains(s),
                Fault::Server => (500..=599).contains(s),
            });
        let modeled = shape.traits.get("smithy.api#retryable").map(|r| {
            let throttling = r
                .get("throttling")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            let kind = if throttling {
                Retryable::Throttling
            } else {
                Retryable::Yes
            };
            (kind, Because::Modeled)
        });
        let retryable = modeled.or_else(|| {
            if !aws_rules {
                return None;
            }
            let codes = || std::iter::once(shape.name()).chain(query_code.as_deref());
            if codes().any(is_throttling_error_code) {
                Some((Retryable::Throttling, Because::AwsCode))
            } else if codes().any(is_transient_error_code) {
                Some((Retryable::Yes, Because::AwsCode))
            } else {
                None
            }
        });
        let code = query_code
            .clone()
            .unwrap_or_else(|| shape.name().to_owned());
        let usable = !code.is_empty() && code.trim() == code && !code.chars().any(char::is_control);
        Self {
            fault,
            status,
            retryable,
            code: usable.then_some(code),
            query_code,
        }
    }
}
