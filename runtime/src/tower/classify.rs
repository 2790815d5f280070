//! [`ClassifyResult`]: what a service's outcome — a response or an error —
//! means to a retry strategy.

use crate::vocabulary::FailureInfo;

/// Says whether a service call failed, and how, in the words a
/// [`RetryStrategy`](crate::RetryStrategy) reads: the classifier of a
/// [`RetryLayer`](super::RetryLayer).
///
/// A tower service reports some failures as errors and others as responses
/// (an HTTP 503 is an `Ok` response), so the classifier sees the whole
/// `Result`:
///
/// - `None`: the call succeeded. The strategy gets its token back
///   ([`record_success`](crate::RetryStrategy::record_success)) and the
///   response is returned.
/// - `Some(failure)`: the call failed; the strategy decides from `failure`
///   whether to retry.
///
/// An `Err` is always a failure: for an `Err`, `None` is read as a failure
/// that is [not retryable](crate::Classified::not_retryable) (the strategy is
/// told so, and the error is returned without a retry).
///
/// Implemented for closures `Fn(&Result<Res, E>) -> Option<X>` where `X` is a
/// [`FailureInfo`] (a [`Classified`](crate::Classified), an
/// [`HttpErrorResponse`](crate::classify::HttpErrorResponse), your own
/// error type), and, with the `http` feature, for
/// [`ResponseClassifier`](crate::http::ResponseClassifier) on
/// `http::Response`s.
///
/// # Examples
///
/// A closure for a service whose responses carry a status and whose errors
/// are [`std::io::Error`]s:
///
/// ```
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::tower::ClassifyResult;
/// use rebound_runtime::{Classified, ErrorInfo, RetryInfo, RetrySafety};
///
/// struct Response {
///     status: u16,
/// }
///
/// let classify = |result: &Result<Response, std::io::Error>| match result {
///     Ok(response) if response.status < 400 => None,
///     Ok(response) => Some(Classified::from(HttpErrorResponse::new(response.status))),
///     Err(error) => Some(Classified::from_failure(error)),
/// };
///
/// assert!(classify.classify(&Ok(Response { status: 200 })).is_none());
/// let unavailable = classify.classify(&Ok(Response { status: 503 })).unwrap();
/// assert_eq!(unavailable.http_status(), Some(503));
/// let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// assert_eq!(classify.classify(&Err(reset)).unwrap().retry_safety(), RetrySafety::Yes);
/// ```
pub trait ClassifyResult<Res, E> {
    /// What a failure is, as the strategy reads it. Owned: the future keeps
    /// the last failure until it knows whether another attempt follows.
    type Failure: FailureInfo;

    /// The failure `result` is, or `None` when it is a success.
    fn classify(&self, result: &Result<Res, E>) -> Option<Self::Failure>;
}

impl<Res, E, F, X> ClassifyResult<Res, E> for F
where
    F: Fn(&Result<Res, E>) -> Option<X>,
    X: FailureInfo,
{
    type Failure = X;

    #[inline]
    fn classify(&self, result: &Result<Res, E>) -> Option<X> {
        self(result)
    }
}

/// An error response (status 400 and above) is the failure the classifier
/// makes of it ([`classify_response`](crate::http::ResponseClassifier::classify_response));
/// any other response is a success; an `Err` is what the error says about
/// itself ([`Classified::from_failure`](crate::Classified::from_failure)).
/// For an error type that does not implement the retry traits, classify
/// with a closure that calls `classify_response` for responses.
///
/// # Examples
///
/// ```
/// use http::Response;
/// use rebound_runtime::http::ResponseClassifier;
/// use rebound_runtime::tower::ClassifyResult;
/// use rebound_runtime::{ErrorInfo, RetryInfo, RetrySafety};
///
/// let classifier = ResponseClassifier::new();
/// // (`ResponseClassifier::classify` is also an inherent method, on a status
/// // and headers: name the trait to call this one.)
/// let ok: Result<_, std::io::Error> = Ok(Response::builder().status(200).body(())?);
/// assert!(ClassifyResult::classify(&classifier, &ok).is_none());
///
/// let throttled: Result<_, std::io::Error> = Ok(Response::builder().status(429).body(())?);
/// assert!(ClassifyResult::classify(&classifier, &throttled).unwrap().is_throttle());
///
/// let timed_out: Result<Response<()>, _> = Err(std::io::Error::from(std::io::ErrorKind::TimedOut));
/// let failure = ClassifyResult::classify(&classifier, &timed_out).unwrap();
/// assert!(failure.is_timeout());
/// assert_eq!(failure.retry_safety(), RetrySafety::Yes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "http")]
impl<B, E, W> ClassifyResult<::http::Response<B>, E> for crate::http::ResponseClassifier<W>
where
    E: FailureInfo,
    W: Fn() -> std::time::SystemTime,
{
    type Failure = crate::vocabulary::Classified;

    fn classify(
        &self,
        result: &Result<::http::Response<B>, E>,
    ) -> Option<crate::vocabulary::Classified> {
        match result {
            Ok(response) => self
                .classify_response(response)
                .map(crate::Classified::from),
            Err(error) => Some(crate::vocabulary::Classified::from_failure(error)),
        }
    }
}
