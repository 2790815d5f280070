//! An error response as an AWS client sees it before any model is consulted
//! ([`HttpErrorResponse`]), and the `x-amz-retry-after` header. It speaks
//! the vocabulary, so a strategy can judge it; an HTTP integration builds it
//! from its own types.

use core::fmt;
use core::time::Duration;
use std::borrow::Cow;

use crate::vocabulary::{Classified, ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// An error response that matched none of the operation's modeled errors:
/// only its status, error code and retry-after header are known.
///
/// Its [`retry_safety`](RetryInfo::retry_safety) is
/// [`RetrySafety::Maybe`]: whether it is retried is up to the classifier's
/// rules (throttling and transient codes, transient statuses, unmodeled 429).
/// Modeled errors are types of their own, with `#[derive(RetryInfo)]`.
///
/// It owns its error code (a `&'static str` is stored without allocating),
/// so it can be kept in an error type of your own, and it displays as
/// `HTTP 503 SlowDown`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// let response = HttpErrorResponse::new(503)
///     .with_code("SlowDown")
///     .with_retry_after(Some(Duration::from_millis(1500)));
/// assert_eq!(response.retry_safety(), RetrySafety::Maybe);
/// assert_eq!(response.fault(), ErrorFault::Server);
/// assert_eq!(response.error_code(), Some("SlowDown"));
/// assert_eq!(response.retry_after(), Some(Duration::from_millis(1500)));
/// assert_eq!(response.to_string(), "HTTP 503 SlowDown");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HttpErrorResponse {
    status: u16,
    code: Option<Cow<'static, str>>,
    retry_after: Option<Duration>,
    throttle: bool,
}

impl HttpErrorResponse {
    /// A response with this HTTP status, no error code and no hint.
    #[must_use]
    pub const fn new(status: u16) -> Self {
        Self {
            status,
            code: None,
            retry_after: None,
            throttle: false,
        }
    }

    /// Sets the error code parsed from the body or headers.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<Cow<'static, str>>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Sets whether the response itself says "slow down" whatever its code
    /// (an HTTP 429, for a client that treats every 429 as one). Without it
    /// (the default), only the classifier's rules make it a throttle: its
    /// code, or an unmodeled 429 under retry behaviour 2.1.
    #[must_use]
    pub const fn with_throttle(mut self, throttle: bool) -> Self {
        self.throttle = throttle;
        self
    }

    /// The HTTP status.
    #[must_use]
    pub const fn status(&self) -> u16 {
        self.status
    }

    /// Sets (or clears) the wait the response asked for.
    #[must_use]
    pub const fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }
}

impl fmt::Display for HttpErrorResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        match &self.code {
            Some(code) => write!(f, " {code}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for HttpErrorResponse {}

/// Everything the response says about itself, as a [`Classified`]: its
/// status, code, retry-after hint and throttle flag, with
/// [`RetrySafety::Maybe`]. For classifiers that return one type for error
/// responses and other failures alike.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{Classified, ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// let response = HttpErrorResponse::new(503)
///     .with_code("SlowDown")
///     .with_retry_after(Some(Duration::from_secs(1)));
/// let classified = Classified::from(response);
/// assert_eq!(classified.retry_safety(), RetrySafety::Maybe);
/// assert_eq!(classified.http_status(), Some(503));
/// assert_eq!(classified.fault(), ErrorFault::Server);
/// assert_eq!(classified.error_code(), Some("SlowDown"));
/// assert_eq!(classified.retry_after(), Some(Duration::from_secs(1)));
/// ```
impl From<HttpErrorResponse> for Classified {
    fn from(response: HttpErrorResponse) -> Self {
        let classified = Self::new(RetrySafety::Maybe)
            .with_status(response.status)
            .with_throttle(response.throttle)
            .with_retry_after(response.retry_after);
        match response.code {
            Some(code) => classified.with_code(code),
            None => classified,
        }
    }
}

impl RetryInfo for HttpErrorResponse {
    #[inline]
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::Maybe
    }

    #[inline]
    fn is_throttle(&self) -> bool {
        self.throttle
    }

    #[inline]
    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

/// The fault follows the status: 4xx client, 5xx server.
impl ErrorInfo for HttpErrorResponse {
    #[inline]
    fn fault(&self) -> ErrorFault {
        ErrorFault::from_http_status(self.status)
    }

    #[inline]
    fn http_status(&self) -> Option<u16> {
        Some(self.status)
    }

    #[inline]
    fn error_code(&self) -> Option<&str> {
        self.code.as_deref()
    }
}

/// Parses an `x-amz-retry-after` header: a whole, non-negative number of
/// milliseconds. Anything else (`"1.5"`, `"-5"`, `"abc"`, too large) is no
/// hint at all, as in botocore. Only HTTP's optional whitespace (space and
/// horizontal tab, RFC 9110 `OWS`) around the digits is ignored; other
/// whitespace, such as a no-break space, makes the value invalid.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::internals::parse_x_amz_retry_after;
///
/// assert_eq!(parse_x_amz_retry_after("1500"), Some(Duration::from_millis(1500)));
/// assert_eq!(parse_x_amz_retry_after(" 0 "), Some(Duration::ZERO));
/// assert_eq!(parse_x_amz_retry_after("1.5"), None);
/// assert_eq!(parse_x_amz_retry_after("-5"), None);
/// assert_eq!(parse_x_amz_retry_after("abc"), None);
/// ```
#[must_use]
pub fn parse_x_amz_retry_after(value: &str) -> Option<Duration> {
    let digits = value.trim_matches([' ', '\t']);
    let digits = digits.strip_prefix('+').unwrap_or(digits);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_amz_retry_after_accepts_only_whole_non_negative_milliseconds() {
        assert_eq!(
            parse_x_amz_retry_after("+7"),
            Some(Duration::from_millis(7))
        );
        assert_eq!(parse_x_amz_retry_after(""), None);
        assert_eq!(parse_x_amz_retry_after("+"), None);
        assert_eq!(parse_x_amz_retry_after("1e3"), None);
        assert_eq!(parse_x_amz_retry_after("99999999999999999999999"), None);
    }

    #[test]
    fn x_amz_retry_after_trims_only_http_whitespace() {
        assert_eq!(
            parse_x_amz_retry_after(" \t5000\t "),
            Some(Duration::from_millis(5000))
        );
        for value in [
            "\u{a0}5000",
            "5000\u{2003}",
            "\u{3000}5",
            "5\n",
            "\r5",
            "\u{b}5",
            "\u{c}5",
        ] {
            assert_eq!(parse_x_amz_retry_after(value), None, "{value:?}");
        }
    }

    #[test]
    fn a_request_that_was_never_sent_is_not_retried() {
        let failure = crate::vocabulary::TransportFailure::InvalidRequest;
        assert_eq!(failure.retry_safety(), RetrySafety::No);
        assert_eq!(failure.fault(), ErrorFault::Client);
        assert!(!failure.is_timeout());
    }

    #[test]
    fn transport_failures_are_transient_and_only_two_are_timeouts() {
        use crate::vocabulary::TransportFailure::*;
        for failure in [
            Connect,
            ConnectTimeout,
            Tls,
            Proxy,
            ReadTimeout,
            ConnectionClosed,
            ResponseStreaming,
            Http,
        ] {
            assert_eq!(failure.retry_safety(), RetrySafety::Yes);
            assert_eq!(
                failure.is_timeout(),
                matches!(failure, ConnectTimeout | ReadTimeout)
            );
            assert_eq!(
                (failure.fault(), failure.http_status()),
                (ErrorFault::Other, None)
            );
            assert_eq!(failure.transport_failure(), Some(failure));
            let boxed: Box<dyn ErrorInfo> = Box::new(failure);
            assert_eq!(boxed.transport_failure(), Some(failure));
        }
    }
}
