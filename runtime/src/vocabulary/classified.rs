//! [`Classified`]: the vocabulary as plain data, for errors that do not
//! speak it themselves (a classifier closure returns one).

use core::time::Duration;
use std::borrow::Cow;

use crate::vocabulary::{
    ErrorFault, ErrorInfo, FailureInfo, RetryInfo, RetrySafety, TransportFailure,
};

/// The answers a strategy asks about a failure, as plain data: what a
/// classifier closure returns for an error type that does not implement
/// [`RetryInfo`] and [`ErrorInfo`] itself.
///
/// # Default
///
/// | field | default | setter |
/// |---|---|---|
/// | retry safety | as given to [`new`](Self::new) ([`Maybe`](RetrySafety::Maybe) for [`Default`]) | |
/// | throttle | `false` | [`with_throttle`](Self::with_throttle) |
/// | timeout | `false` | [`with_timeout`](Self::with_timeout) |
/// | retry-after hint | none | [`with_retry_after`](Self::with_retry_after) |
/// | fault | [`Other`](ErrorFault::Other), or from the status | [`with_fault`](Self::with_fault) |
/// | HTTP status | none | [`with_status`](Self::with_status) |
/// | error code | none | [`with_code`](Self::with_code) |
/// | transport failure | none | [`with_transport_failure`](Self::with_transport_failure) |
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::Classified;
/// use rebound_runtime::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// let throttled = Classified::retryable()
///     .with_throttle(true)
///     .with_status(429)
///     .with_code("SlowDown")
///     .with_retry_after(Some(Duration::from_secs(1)));
/// assert_eq!(throttled.retry_safety(), RetrySafety::Yes);
/// assert!(throttled.is_throttle());
/// assert_eq!(throttled.fault(), ErrorFault::Client); // from the status
/// assert_eq!(throttled.http_status(), Some(429));
/// assert_eq!(throttled.error_code(), Some("SlowDown"));
///
/// let bad_request = Classified::not_retryable().with_fault(ErrorFault::Client);
/// assert_eq!(bad_request.retry_safety(), RetrySafety::No);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Classified {
    safety: RetrySafety,
    throttle: bool,
    timeout: bool,
    retry_after: Option<Duration>,
    fault: Option<ErrorFault>,
    status: Option<u16>,
    code: Option<Cow<'static, str>>,
    transport: Option<TransportFailure>,
}

impl Classified {
    /// A failure with this retry safety, and nothing else known.
    pub const fn new(safety: RetrySafety) -> Self {
        Self {
            safety,
            throttle: false,
            timeout: false,
            retry_after: None,
            fault: None,
            status: None,
            code: None,
            transport: None,
        }
    }

    /// A failure that is safe to retry ([`RetrySafety::Yes`]).
    pub const fn retryable() -> Self {
        Self::new(RetrySafety::Yes)
    }

    /// A failure that must not be retried ([`RetrySafety::No`]).
    pub const fn not_retryable() -> Self {
        Self::new(RetrySafety::No)
    }

    /// A failure whose safety is unknown ([`RetrySafety::Maybe`]): the
    /// strategy decides from the fault, status and code.
    pub const fn unknown() -> Self {
        Self::new(RetrySafety::Maybe)
    }

    /// Whether the service said to slow down.
    pub const fn with_throttle(mut self, throttle: bool) -> Self {
        self.throttle = throttle;
        self
    }

    /// Whether the attempt timed out.
    pub const fn with_timeout(mut self, timeout: bool) -> Self {
        self.timeout = timeout;
        self
    }

    /// The minimum wait the service asked for, if any.
    pub const fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }

    /// Who is at fault. Without it, the fault follows the
    /// [status](Self::with_status) (4xx client, 5xx server), else
    /// [`Other`](ErrorFault::Other).
    pub const fn with_fault(mut self, fault: ErrorFault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// The HTTP status of the response, if there was one.
    pub const fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The service's error code (`"ThrottlingException"`, ...). A
    /// `&'static str` is stored without allocating.
    pub fn with_code(mut self, code: impl Into<Cow<'static, str>>) -> Self {
        self.code = Some(code.into());
        self
    }
}

impl Classified {
    /// Everything `failure` says about itself, as owned data: its
    /// [`RetryInfo`] verdicts and [`ErrorInfo`] facts (the error code is
    /// copied). For keeping what a borrowed failure said after the failure
    /// itself is gone, e.g. in a classifier that must return an owned value.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{Classified, ErrorFault, ErrorInfo, FailureInfo, RetryInfo};
    ///
    /// let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    /// let failure: &dyn FailureInfo = &reset;
    /// let copy = Classified::from_failure(failure);
    /// assert_eq!(copy.retry_safety(), reset.retry_safety());
    /// assert_eq!(copy.transport_failure(), reset.transport_failure());
    /// assert_eq!(copy.fault(), ErrorFault::Other);
    /// ```
    #[must_use]
    pub fn from_failure<F: FailureInfo + ?Sized>(failure: &F) -> Self {
        Self {
            safety: failure.retry_safety(),
            throttle: failure.is_throttle(),
            timeout: failure.is_timeout(),
            retry_after: failure.retry_after(),
            fault: Some(failure.fault()),
            status: failure.http_status(),
            code: failure.error_code().map(|code| Cow::Owned(code.to_owned())),
            transport: failure.transport_failure(),
        }
    }

    /// Which transport failure this is, when the attempt got no (complete)
    /// response; see [`ErrorInfo::transport_failure`]. Only sets the fact:
    /// the retry safety and timeout are set by their own setters (or take
    /// them all with `Classified::from(failure)`).
    pub const fn with_transport_failure(mut self, failure: TransportFailure) -> Self {
        self.transport = Some(failure);
        self
    }
}

/// Everything the transport failure says about itself.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{Classified, ErrorInfo, RetryInfo, RetrySafety, TransportFailure};
///
/// let timed_out = Classified::from(TransportFailure::ReadTimeout);
/// assert!(timed_out.is_timeout());
/// assert_eq!(timed_out.transport_failure(), Some(TransportFailure::ReadTimeout));
/// let never_sent = Classified::from(TransportFailure::InvalidRequest);
/// assert_eq!(never_sent.retry_safety(), RetrySafety::No);
/// ```
impl From<TransportFailure> for Classified {
    fn from(failure: TransportFailure) -> Self {
        Self::new(failure.retry_safety())
            .with_timeout(failure.is_timeout())
            .with_fault(failure.fault())
            .with_transport_failure(failure)
    }
}

impl Default for Classified {
    /// [`Classified::unknown`].
    fn default() -> Self {
        Self::unknown()
    }
}

impl RetryInfo for Classified {
    fn retry_safety(&self) -> RetrySafety {
        self.safety
    }

    fn is_throttle(&self) -> bool {
        self.throttle
    }

    fn is_timeout(&self) -> bool {
        self.timeout
    }

    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

impl ErrorInfo for Classified {
    fn fault(&self) -> ErrorFault {
        match (self.fault, self.status) {
            (Some(fault), _) => fault,
            (None, Some(status)) => ErrorFault::from_http_status(status),
            (None, None) => ErrorFault::Other,
        }
    }

    fn http_status(&self) -> Option<u16> {
        self.status
    }

    fn error_code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    fn transport_failure(&self) -> Option<TransportFailure> {
        self.transport
    }
}
