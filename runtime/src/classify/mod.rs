//! Classification of AWS responses: from what a failure says through the
//! vocabulary ([`RetryInfo`](crate::RetryInfo), [`ErrorInfo`](crate::ErrorInfo))
//! to what a strategy acts on: retried or not, and as which
//! [`RetryKind`] (throttle, transient, timeout).
//!
//! The rules, in the order the AWS SDKs apply them:
//!
//! 1. [`RetrySafety::Yes`] (a `@retryable` modeled error, a transport
//!    failure) is retried.
//! 2. [`RetrySafety::No`] is retried only if it is a throttling error or its
//!    code is a transient error code: the AWS SDKs classify by code whatever
//!    the model says. DynamoDB's `ProvisionedThroughputExceededException`, for
//!    one, is modeled as a client error without `@retryable` (so the derive
//!    says `No`), and every AWS SDK retries it as a throttle. A throttled
//!    request was not processed, so retrying it is safe.
//! 3. [`RetrySafety::Maybe`] (an unmodeled error) is retried if it is a
//!    throttling error, a timeout, or has a transient error code
//!    (the AWS SDKs' list, plus any configured extras) or a transient status
//!    (500, 502, 503, 504).
//! 4. A failure is a throttling error if it says so
//!    ([`is_throttle`](crate::RetryInfo::is_throttle)), if its code is a
//!    throttling code (the AWS SDKs' list), or — when enabled (behaviour 2.1) — if it
//!    is an unmodeled error with status 429.
//!
//! The fault ([`ErrorFault`](crate::ErrorFault)) is not used: the AWS SDKs do
//! not retry a 5xx outside the transient statuses (`501`, for one).
//!
//! An HTTP integration turns its responses into [`HttpErrorResponse`]s and
//! its transport errors into [`TransportFailure`](crate::TransportFailure)s;
//! a response whose checksum does not match (DynamoDB's `x-amz-crc32`) was
//! corrupted in transit and is retried whatever its status:
//! [`Classified::retryable()`](crate::Classified::retryable)`.with_status(status)`.
//!
//! Classification takes no lock and allocates nothing.

pub(crate) mod codes;
pub(crate) mod response;

use std::borrow::Cow;

use codes::THROTTLING_STATUS_CODE;
use codes::{is_throttling_error_code, is_transient_error_code, is_transient_status};
pub use response::HttpErrorResponse;

use crate::strategy::RetryKind;
use crate::vocabulary::{FailureInfo, RetrySafety};

/// What a classifier concluded about one failure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Verdict {
    /// The failure may be retried (attempts and quota permitting).
    pub(crate) retryable: bool,
    /// The service throttled the request.
    pub(crate) throttling: bool,
    /// The attempt timed out.
    pub(crate) timeout: bool,
}

impl Verdict {
    /// The kind of failure: a throttle first, then a timeout, else
    /// transient (the order in which the AWS modes price a retry).
    pub(crate) const fn kind(self) -> RetryKind {
        RetryKind::from_flags(self.throttling, self.timeout)
    }

    /// The kind of retry this verdict asks for; `None` when the failure is
    /// not retried.
    pub(crate) const fn retry(self) -> Option<RetryKind> {
        if self.retryable {
            Some(self.kind())
        } else {
            None
        }
    }
}

/// The AWS SDKs' rules for which failures are retried, applied to the
/// vocabulary (see the [module docs](self) for the rules).
///
/// # Default
///
/// An unmodeled 429 is *not* a throttling error (behaviour 2.0, botocore
/// 1.35); no extra transient codes.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{RetryKind, TransportFailure, classify::{AwsErrorClassifier, HttpErrorResponse}};
///
/// let v2_0 = AwsErrorClassifier::new();
/// let v2_1 = AwsErrorClassifier::new().with_unmodeled_429_as_throttling(true);
///
/// let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
/// assert_eq!(v2_0.classify(&throttled), Some(RetryKind::Throttle));
///
/// let bare_429 = HttpErrorResponse::new(429);
/// assert_eq!(v2_0.classify(&bare_429), None);
/// assert_eq!(v2_1.classify(&bare_429), Some(RetryKind::Throttle));
///
/// assert_eq!(v2_0.classify(&HttpErrorResponse::new(503)), Some(RetryKind::Transient));
/// assert_eq!(v2_0.classify(&HttpErrorResponse::new(501)), None);
/// assert_eq!(v2_0.classify(&TransportFailure::ReadTimeout), Some(RetryKind::Timeout));
///
/// let sts = AwsErrorClassifier::new().with_transient_error_code("IDPCommunicationError");
/// let idp = HttpErrorResponse::new(400).with_code("IDPCommunicationError");
/// assert_eq!(sts.classify(&idp), Some(RetryKind::Transient));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AwsErrorClassifier {
    unmodeled_429_is_throttling: bool,
    extra_transient_error_codes: Vec<Cow<'static, str>>,
}

impl AwsErrorClassifier {
    /// The classifier with its [defaults](Self#default).
    #[must_use]
    pub const fn new() -> Self {
        Self {
            unmodeled_429_is_throttling: false,
            extra_transient_error_codes: Vec::new(),
        }
    }

    /// Whether an unmodeled error ([`RetrySafety::Maybe`]) with status 429 is
    /// a (retryable) throttling error: `true` in behaviour 2.1.
    #[must_use]
    pub const fn with_unmodeled_429_as_throttling(mut self, enabled: bool) -> Self {
        self.unmodeled_429_is_throttling = enabled;
        self
    }

    /// Adds an error code to retry as transient, beyond
    /// the AWS ones (STS's `IDPCommunicationError`, for one).
    #[must_use]
    pub fn with_transient_error_code(mut self, code: impl Into<Cow<'static, str>>) -> Self {
        self.extra_transient_error_codes.push(code.into());
        self
    }

    /// Whether an unmodeled 429 counts as throttling.
    #[must_use]
    pub const fn unmodeled_429_is_throttling(&self) -> bool {
        self.unmodeled_429_is_throttling
    }

    /// The error codes retried as transient beyond the AWS ones.
    pub fn extra_transient_error_codes(&self) -> impl Iterator<Item = &str> {
        self.extra_transient_error_codes.iter().map(|code| &**code)
    }

    /// Applies the rules to one failure: the kind of retry it calls for, or
    /// `None` when it is not retried.
    #[must_use]
    pub fn classify(&self, failure: &dyn FailureInfo) -> Option<RetryKind> {
        self.verdict(failure).retry()
    }

    /// The rules' verdict on one failure.
    pub(crate) fn verdict(&self, failure: &dyn FailureInfo) -> Verdict {
        let safety = failure.retry_safety();
        let code = failure.error_code();
        let status = failure.http_status();
        let unmodeled = safety == RetrySafety::Maybe;

        let throttling = failure.is_throttle()
            || code.is_some_and(is_throttling_error_code)
            || (unmodeled
                && self.unmodeled_429_is_throttling
                && status == Some(THROTTLING_STATUS_CODE));
        let timeout = failure.is_timeout();
        let transient_code = || code.is_some_and(|code| self.is_transient_error_code(code));
        let retryable = match safety {
            RetrySafety::Yes => true,
            RetrySafety::No => throttling || transient_code(),
            RetrySafety::Maybe => {
                throttling || timeout || transient_code() || status.is_some_and(is_transient_status)
            }
        };
        Verdict {
            retryable,
            throttling,
            timeout,
        }
    }

    fn is_transient_error_code(&self, code: &str) -> bool {
        is_transient_error_code(code)
            || self
                .extra_transient_error_codes
                .iter()
                .any(|extra| extra == code)
    }
}

#[cfg(test)]
mod tests {
    use super::codes::{THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES};
    use super::*;
    use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo};

    /// A modeled error, as `#[derive(RetryInfo)]` would describe it.
    struct Modeled {
        safety: RetrySafety,
        throttle: bool,
        status: u16,
        code: &'static str,
    }

    impl RetryInfo for Modeled {
        fn retry_safety(&self) -> RetrySafety {
            self.safety
        }
        fn is_throttle(&self) -> bool {
            self.throttle
        }
    }

    impl ErrorInfo for Modeled {
        fn fault(&self) -> ErrorFault {
            ErrorFault::from_http_status(self.status)
        }
        fn http_status(&self) -> Option<u16> {
            Some(self.status)
        }
        fn error_code(&self) -> Option<&str> {
            Some(self.code)
        }
    }

    fn modeled(safety: RetrySafety, throttle: bool, status: u16, code: &'static str) -> Modeled {
        Modeled {
            safety,
            throttle,
            status,
            code,
        }
    }

    #[test]
    fn explicit_safety_wins_over_status_and_code() {
        let rules = AwsErrorClassifier::new().with_unmodeled_429_as_throttling(true);
        let no = modeled(RetrySafety::No, false, 429, "MyModeledNonRetryable");
        assert_eq!(rules.verdict(&no), Verdict::default());
        let yes = modeled(RetrySafety::Yes, false, 400, "MyModeledTransient");
        assert_eq!(
            rules.verdict(&yes),
            Verdict {
                retryable: true,
                ..Verdict::default()
            }
        );
        let throttle = modeled(RetrySafety::Yes, true, 400, "MyModeledThrottle");
        assert_eq!(
            rules.verdict(&throttle),
            Verdict {
                retryable: true,
                throttling: true,
                timeout: false
            }
        );
    }

    #[test]
    fn a_modeled_error_with_a_throttling_code_is_throttling() {
        let rules = AwsErrorClassifier::new();
        let modeled_slowdown = modeled(RetrySafety::Yes, false, 503, "SlowDown");
        assert!(rules.verdict(&modeled_slowdown).throttling);
    }

    #[test]
    fn listed_codes_are_retried_even_when_the_model_says_no() {
        let rules = AwsErrorClassifier::new();
        let throughput = modeled(
            RetrySafety::No,
            false,
            400,
            "ProvisionedThroughputExceededException",
        );
        assert_eq!(
            rules.verdict(&throughput),
            Verdict {
                retryable: true,
                throttling: true,
                timeout: false
            }
        );
        let timeout = modeled(RetrySafety::No, false, 400, "RequestTimeoutException");
        assert!(rules.verdict(&timeout).retryable);
        // A status alone does not override the model.
        let failed = modeled(
            RetrySafety::No,
            false,
            503,
            "ConditionalCheckFailedException",
        );
        assert_eq!(rules.verdict(&failed), Verdict::default());
    }

    #[test]
    fn unmodeled_errors_follow_codes_and_statuses() {
        let rules = AwsErrorClassifier::new();
        for code in THROTTLING_ERROR_CODES {
            let verdict = rules.verdict(&HttpErrorResponse::new(400).with_code(*code));
            assert!(verdict.retryable && verdict.throttling, "{code}");
        }
        for code in TRANSIENT_ERROR_CODES {
            assert!(
                rules
                    .verdict(&HttpErrorResponse::new(400).with_code(*code))
                    .retryable,
                "{code}"
            );
        }
        for status in 100..600 {
            let verdict = rules.verdict(&HttpErrorResponse::new(status));
            assert_eq!(
                verdict.retryable,
                [500, 502, 503, 504].contains(&status),
                "{status}"
            );
            assert!(!verdict.throttling, "{status}");
        }
        let denied = HttpErrorResponse::new(403).with_code("AccessDenied");
        assert_eq!(rules.verdict(&denied), Verdict::default());
    }

    #[test]
    fn unmodeled_429_is_throttling_only_when_enabled() {
        let on = AwsErrorClassifier::new().with_unmodeled_429_as_throttling(true);
        assert!(on.unmodeled_429_is_throttling());
        let unknown = HttpErrorResponse::new(429).with_code("SomethingUnmodeled");
        assert_eq!(
            on.verdict(&unknown),
            Verdict {
                retryable: true,
                throttling: true,
                timeout: false
            }
        );
        assert_eq!(
            AwsErrorClassifier::new().verdict(&unknown),
            Verdict::default()
        );
    }

    #[test]
    fn unknown_timeouts_are_retried_and_io_errors_follow_their_kind() {
        let rules = AwsErrorClassifier::new();
        let timed_out = std::io::Error::from(std::io::ErrorKind::TimedOut);
        assert_eq!(
            rules.verdict(&timed_out),
            Verdict {
                retryable: true,
                throttling: false,
                timeout: true
            }
        );
        let invalid = std::io::Error::from(std::io::ErrorKind::InvalidInput);
        assert_eq!(rules.verdict(&invalid), Verdict::default());
    }

    #[test]
    fn extra_transient_codes_are_listed_and_applied() {
        let rules = AwsErrorClassifier::new().with_transient_error_code(String::from("Flaky"));
        assert_eq!(
            rules.extra_transient_error_codes().collect::<Vec<_>>(),
            ["Flaky"]
        );
        assert!(
            rules
                .verdict(&HttpErrorResponse::new(400).with_code("Flaky"))
                .retryable
        );
        assert!(
            !AwsErrorClassifier::new()
                .verdict(&HttpErrorResponse::new(400).with_code("Flaky"))
                .retryable
        );
    }
}
