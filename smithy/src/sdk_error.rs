//! Classifying what a smithy-rs client's `send()` returns: an
//! [`SdkError`] becomes the [`Classified`] failure a rebound strategy judges.

use std::time::SystemTime;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::ProvideErrorKind;
use rebound_runtime::__codegen::{is_throttling_error_code, is_transient_error_code};
use rebound_runtime::Classified;
use rebound_runtime::internals::is_transient_status;

use crate::error::RetryStopped;
use crate::response::{from_connector, from_kind, with_response, without_response};

/// What `error` says about retrying, read as a generated AWS client's own
/// retry classifiers read it inside the orchestrator (the route of
/// [`RetryPlugin`](crate::RetryPlugin)), so that both routes give one
/// response one verdict:
///
/// | `SdkError` | classified as |
/// |---|---|
/// | `ServiceError` | the modeled error's kind (`@retryable`, `throttling`: [`ProvideErrorKind`]); else its code ([`ProvideErrorMetadata`]) if it is an AWS throttling code (a throttle) or transient code (retryable); else its status if transient (500, 502, 503, 504: retryable); else unknown (the strategy's rules judge). With the status, the code (the modeled error's, else `x-amzn-ErrorType`, else the body's) and the retry-after headers |
/// | `ResponseError` (a response that did not parse) | retryable, with the status, the headers' or the body's code, the retry-after headers |
/// | `TimeoutError`, `DispatchFailure` timing out | a timeout (retried, at the timeout cost of the quota) |
/// | `DispatchFailure` on I/O | a closed connection (retried) |
/// | `DispatchFailure` or `ConstructionFailure` carrying [`RetryStopped`], `DispatchFailure` by the caller (`is_user`), any other `ConstructionFailure` | not retryable |
/// | any other | unknown: the strategy's rules decide |
///
/// An HTTP-date `Retry-After` is measured from the system clock; see
/// [`classify_at`] to give the time.
///
/// # Examples
///
/// ```
/// use aws_smithy_runtime_api::client::result::SdkError;
/// use aws_smithy_runtime_api::http::{Response, StatusCode};
/// use aws_smithy_types::body::SdkBody;
/// use aws_smithy_types::error::ErrorMetadata;
/// use rebound_runtime::{ErrorInfo, RetryInfo};
///
/// let mut raw = Response::new(StatusCode::try_from(400).unwrap(), SdkBody::empty());
/// raw.headers_mut().insert("x-amzn-ErrorType", "com.amazonaws.dynamodb.v20120810#ThrottlingException");
/// let modeled = ErrorMetadata::builder().build(); // no code parsed: the header's is read
/// let error: SdkError<ErrorMetadata, Response> = SdkError::service_error(modeled, raw);
///
/// let failure = rebound_smithy::classify(&error);
/// assert_eq!(failure.http_status(), Some(400));
/// assert_eq!(failure.error_code(), Some("ThrottlingException"));
/// ```
pub fn classify<E>(error: &SdkError<E, Response>) -> Classified
where
    E: ProvideErrorKind + ProvideErrorMetadata,
{
    classify_at(error, SystemTime::now())
}

/// [`classify`], reading an HTTP-date `Retry-After` as of `now`.
pub fn classify_at<E>(error: &SdkError<E, Response>, now: SystemTime) -> Classified
where
    E: ProvideErrorKind + ProvideErrorMetadata,
{
    match error {
        SdkError::ServiceError(context) => {
            let modeled = context.err();
            let code = ProvideErrorMetadata::code(modeled);
            let failure = match modeled.retryable_error_kind() {
                Some(kind) => from_kind(Some(kind)),
                None => from_code_or_status(code, context.raw().status().as_u16()),
            };
            with_response(failure, context.raw(), code, now)
        }
        SdkError::ResponseError(context) => {
            with_response(Classified::retryable(), context.raw(), None, now)
        }
        SdkError::TimeoutError(_) => without_response(true, false, false),
        SdkError::DispatchFailure(failure) => match failure.as_connector_error() {
            Some(error) if RetryStopped::find(error).is_some() => Classified::not_retryable(),
            Some(error) => from_connector(error),
            None => Classified::unknown(),
        },
        SdkError::ConstructionFailure(_) => Classified::not_retryable(),
        _ => Classified::unknown(),
    }
}

/// What the AWS SDK's error-code and status classifiers make of a service
/// error the model does not mark retryable: the code first, then the
/// status.
fn from_code_or_status(code: Option<&str>, status: u16) -> Classified {
    match code {
        Some(code) if is_throttling_error_code(code) => Classified::retryable().with_throttle(true),
        Some(code) if is_transient_error_code(code) => Classified::retryable(),
        _ if is_transient_status(status) => Classified::retryable(),
        _ => Classified::unknown(),
    }
}

#[cfg(test)]
mod tests {
    use aws_smithy_runtime_api::client::result::ConnectorError;
    use aws_smithy_types::error::ErrorMetadata;
    use aws_smithy_types::retry::ErrorKind;
    use rebound_runtime::{ErrorFault, TransportFailure};

    use super::*;

    type Error = SdkError<ErrorMetadata, Response>;

    fn dispatch(error: ConnectorError) -> Error {
        SdkError::dispatch_failure(error)
    }

    #[test]
    fn failures_without_a_response_are_classified_by_what_failed() {
        let cases: [(Error, Classified); 7] = [
            (
                SdkError::timeout_error("slow"),
                Classified::from(TransportFailure::ReadTimeout),
            ),
            (
                dispatch(ConnectorError::timeout("slow".into())),
                Classified::from(TransportFailure::ReadTimeout),
            ),
            (
                dispatch(ConnectorError::io("reset".into())),
                Classified::from(TransportFailure::ConnectionClosed),
            ),
            (
                dispatch(ConnectorError::user("bad request".into())),
                Classified::not_retryable(),
            ),
            (
                dispatch(ConnectorError::other(
                    "busy".into(),
                    Some(ErrorKind::ThrottlingError),
                )),
                Classified::retryable().with_throttle(true),
            ),
            (
                dispatch(ConnectorError::other(
                    "down".into(),
                    Some(ErrorKind::ServerError),
                )),
                Classified::retryable().with_fault(ErrorFault::Server),
            ),
            (
                SdkError::construction_failure("no region"),
                Classified::not_retryable(),
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(classify(&error), expected, "{error:?}");
        }
        let unknown = dispatch(ConnectorError::other("?".into(), None));
        assert_eq!(classify(&unknown), Classified::unknown());
    }
}
