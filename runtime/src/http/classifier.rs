//! [`ResponseClassifier`]: an `http::Response` (status and headers) as an
//! [`HttpErrorResponse`], read against an injectable wall clock.

use core::fmt;
use std::borrow::Cow;
use std::time::SystemTime;

use ::http::{HeaderMap, Response, StatusCode};

use super::headers::{aws_error_code, retry_after};
use crate::classify::HttpErrorResponse;

/// Turns an HTTP response into the failure a strategy judges, or `None` when
/// it is not an error response (status below 400). See the
/// [module](crate::http) for what it reads and how it treats bad headers.
///
/// # Default
///
/// | setting | default | setter |
/// |---|---|---|
/// | wall clock (for `Retry-After` dates) | [`SystemTime::now`] | [`wall_clock`](Self::wall_clock) |
/// | a 429 is a throttle | yes | [`throttle_on_429`](Self::throttle_on_429) |
///
/// # Examples
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use http::Response;
/// use rebound_runtime::http::ResponseClassifier;
/// use rebound_runtime::{ErrorInfo, RetryInfo};
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470); // 07:27:50
/// let classifier = ResponseClassifier::new().wall_clock(move || now);
///
/// let response = Response::builder()
///     .status(503)
///     .header("x-amzn-ErrorType", "ServiceUnavailableException")
///     .header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")
///     .body(())?;
/// let failure = classifier.classify_response(&response).expect("an error response");
/// assert_eq!(failure.http_status(), Some(503));
/// assert_eq!(failure.error_code(), Some("ServiceUnavailableException"));
/// assert_eq!(failure.retry_after(), Some(Duration::from_secs(10)));
///
/// let throttled = Response::builder().status(429).body(())?;
/// assert!(classifier.classify_response(&throttled).unwrap().is_throttle());
///
/// let ok = Response::builder().status(200).body(())?;
/// assert!(classifier.classify_response(&ok).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct ResponseClassifier<W = fn() -> SystemTime> {
    wall_clock: W,
    throttle_on_429: bool,
}

impl ResponseClassifier {
    /// A classifier with the [defaults](Self#default).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            wall_clock: SystemTime::now,
            throttle_on_429: true,
        }
    }
}

impl Default for ResponseClassifier {
    fn default() -> Self {
        Self::new()
    }
}

impl<W> ResponseClassifier<W> {
    /// Reads the time `Retry-After` dates are measured from with `wall_clock`
    /// (tests pass a fixed time).
    pub fn wall_clock<W2: Fn() -> SystemTime>(self, wall_clock: W2) -> ResponseClassifier<W2> {
        ResponseClassifier {
            wall_clock,
            throttle_on_429: self.throttle_on_429,
        }
    }

    /// Whether a 429 (Too Many Requests) is a throttle whatever its code
    /// (default: yes, as HTTP defines it). With `false`, a 429 is a
    /// throttle only when its error code is on the AWS throttling list or
    /// the strategy's behaviour counts unmodeled 429s (retry behaviour 2.1),
    /// as in the AWS SDKs' standard mode 2.0.
    #[must_use]
    pub const fn throttle_on_429(mut self, throttle: bool) -> Self {
        self.throttle_on_429 = throttle;
        self
    }
}

impl<W: Fn() -> SystemTime> ResponseClassifier<W> {
    /// The failure a response with this status and these headers is, with
    /// the error code from the headers; `None` below 400.
    #[must_use]
    pub fn classify(&self, status: StatusCode, headers: &HeaderMap) -> Option<HttpErrorResponse> {
        self.classify_with_code(status, headers, None::<&'static str>)
    }

    /// [`classify`](Self::classify), with the error code the caller parsed
    /// (from the body, say) in place of the headers' when it is `Some`.
    #[must_use]
    pub fn classify_with_code(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        code: Option<impl Into<Cow<'static, str>>>,
    ) -> Option<HttpErrorResponse> {
        if status.as_u16() < 400 {
            return None;
        }
        let code: Option<Cow<'static, str>> = match code {
            Some(code) => Some(code.into()),
            None => aws_error_code(headers).map(|code| Cow::Owned(code.to_owned())),
        };
        let mut failure = HttpErrorResponse::new(status.as_u16())
            .with_retry_after(retry_after(headers, (self.wall_clock)()))
            .with_throttle(self.throttle_on_429 && status == StatusCode::TOO_MANY_REQUESTS);
        if let Some(code) = code {
            failure = failure.with_code(code);
        }
        Some(failure)
    }

    /// [`classify`](Self::classify) for a whole response (its body is not
    /// read).
    #[must_use]
    pub fn classify_response<B>(&self, response: &Response<B>) -> Option<HttpErrorResponse> {
        self.classify(response.status(), response.headers())
    }
}

impl<W> fmt::Debug for ResponseClassifier<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseClassifier")
            .field("wall_clock", &std::any::type_name::<W>())
            .field("throttle_on_429", &self.throttle_on_429)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use super::*;
    use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

    fn response(status: u16, headers: &[(&'static str, &'static str)]) -> Response<()> {
        let mut builder = Response::builder().status(status);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn below_400_is_not_a_failure() {
        let classifier = ResponseClassifier::new();
        for status in [100, 200, 204, 301, 304, 399] {
            assert!(
                classifier
                    .classify_response(&response(status, &[]))
                    .is_none()
            );
        }
    }

    #[test]
    fn error_responses_carry_status_code_and_hint() {
        let classifier = ResponseClassifier::new().wall_clock(|| SystemTime::UNIX_EPOCH);
        let failure = classifier
            .classify_response(&response(
                400,
                &[
                    ("x-amzn-errortype", "ThrottlingException"),
                    ("retry-after", "1"),
                ],
            ))
            .unwrap();
        assert_eq!(failure.retry_safety(), RetrySafety::Maybe);
        assert_eq!(failure.fault(), ErrorFault::Client);
        assert_eq!(failure.error_code(), Some("ThrottlingException"));
        assert_eq!(failure.retry_after(), Some(Duration::from_secs(1)));
        assert!(!failure.is_throttle(), "only a 429 is a throttle by status");
    }

    #[test]
    fn a_429_is_a_throttle_unless_told_otherwise() {
        let throttled = response(429, &[]);
        assert!(
            ResponseClassifier::new()
                .classify_response(&throttled)
                .unwrap()
                .is_throttle()
        );
        let strict = ResponseClassifier::new().throttle_on_429(false);
        assert!(!strict.classify_response(&throttled).unwrap().is_throttle());
    }

    #[test]
    fn the_callers_code_wins() {
        let classifier = ResponseClassifier::new();
        let failure = classifier
            .classify_with_code(
                StatusCode::BAD_REQUEST,
                response(400, &[("x-amzn-errortype", "Other")]).headers(),
                Some("SlowDown"),
            )
            .unwrap();
        assert_eq!(failure.error_code(), Some("SlowDown"));
        let failure = classifier
            .classify_with_code(
                StatusCode::BAD_REQUEST,
                response(400, &[("x-amzn-errortype", "Other")]).headers(),
                None::<&'static str>,
            )
            .unwrap();
        assert_eq!(failure.error_code(), Some("Other"));
    }
}
