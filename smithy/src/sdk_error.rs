//! Classifying what a smithy-rs client's `send()` returns: an
//! [`SdkError`] becomes the [`Classified`] failure a rebound strategy judges.

use std::time::SystemTime;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::ProvideErrorKind;
use rebound_runtime::Classified;

use crate::response::{from_connector, from_kind, with_response, without_response};

/// What `error` says about retrying, read as rebound reads any failure:
///
/// | `SdkError` | classified as |
/// |---|---|
/// | `ServiceError` | the modeled error's kind (`@retryable`, `throttling`: [`ProvideErrorKind`]), its code ([`ProvideErrorMetadata`], else `x-amzn-ErrorType`, else the body's), the status and the retry-after headers; the strategy's AWS rules judge the rest (throttling and transient codes, 500/502/503/504) |
/// | `ResponseError` (a response that did not parse) | the status, the headers' or the body's code, the retry-after headers |
/// | `TimeoutError`, `DispatchFailure` timing out | a timeout (retried, at the timeout cost of the quota) |
/// | `DispatchFailure` on I/O | a closed connection (retried) |
/// | `DispatchFailure` by the caller (`is_user`), `ConstructionFailure` | not retryable |
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
            let failure = from_kind(modeled.retryable_error_kind());
            with_response(failure, context.raw(), code, now)
        }
        SdkError::ResponseError(context) => {
            with_response(Classified::unknown(), context.raw(), None, now)
        }
        SdkError::TimeoutError(_) => without_response(true, false, false),
        SdkError::DispatchFailure(failure) => failure
            .as_connector_error()
            .map_or_else(Classified::unknown, from_connector),
        SdkError::ConstructionFailure(_) => Classified::not_retryable(),
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
