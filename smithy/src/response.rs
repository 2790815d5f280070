//! What an HTTP error response says about retrying, for both routes: its
//! status, its AWS error code (the `x-amzn-ErrorType` header, else the
//! body's `__type`/`code` or `<Error><Code>`), and its retry-after hint —
//! combined with what the client's own classification said.

use std::time::SystemTime;

use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::http::{Headers, Response};
use aws_smithy_types::retry::ErrorKind;
use rebound_runtime::http::{HeaderValues, aws_error_code, body_error_code, retry_after};
use rebound_runtime::{Classified, ErrorFault, RetryInfo, TransportFailure};

/// A smithy-rs response's headers, read as rebound's readers read any.
struct SmithyHeaders<'h>(&'h Headers);

impl HeaderValues for SmithyHeaders<'_> {
    fn values_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a [u8]> {
        self.0.get_all(name).map(str::as_bytes)
    }
}

/// What the client's classification said a failure was, as rebound's
/// vocabulary: a retryable kind, not retryable, or nothing (then the
/// strategy's AWS rules judge the status and the code).
pub(crate) fn from_kind(kind: Option<ErrorKind>) -> Classified {
    match kind {
        None => Classified::unknown(),
        Some(ErrorKind::ThrottlingError) => Classified::retryable().with_throttle(true),
        Some(ErrorKind::ServerError) => Classified::retryable().with_fault(ErrorFault::Server),
        Some(ErrorKind::ClientError) => Classified::retryable().with_fault(ErrorFault::Client),
        // Transient, and any kind added later.
        Some(_) => Classified::retryable(),
    }
}

/// `failure` with what `response` says: its status, its AWS error code
/// (`code` when the client parsed one, else the headers', else the body's)
/// and its retry-after hint at `now` (unless the failure has one).
pub(crate) fn with_response(
    failure: Classified,
    response: &Response,
    code: Option<&str>,
    now: SystemTime,
) -> Classified {
    let headers = SmithyHeaders(response.headers());
    let failure = failure.with_status(response.status().as_u16());
    let failure = match failure.retry_after() {
        Some(_) => failure,
        None => failure.with_retry_after(retry_after(&headers, now)),
    };
    match code.or_else(|| aws_error_code(&headers)) {
        Some(code) => failure.with_code(code.to_owned()),
        None => match response.body().bytes().and_then(body_error_code) {
            Some(code) => failure.with_code(code),
            None => failure,
        },
    }
}

/// A connector's failure: the kind it gives, else what
/// [`without_response`] makes of it.
pub(crate) fn from_connector(error: &ConnectorError) -> Classified {
    match error.as_other() {
        Some(kind) => from_kind(Some(kind)),
        None => without_response(error.is_timeout(), error.is_io(), error.is_user()),
    }
}

/// A failure without a response: a timeout, a connection failure, or an
/// error the client could not send at all.
pub(crate) fn without_response(timeout: bool, io: bool, user: bool) -> Classified {
    if timeout {
        Classified::from(TransportFailure::ReadTimeout)
    } else if io {
        Classified::from(TransportFailure::ConnectionClosed)
    } else if user {
        Classified::not_retryable()
    } else {
        Classified::unknown()
    }
}
