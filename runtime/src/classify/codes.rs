//! The error codes and HTTP statuses the AWS SDKs retry, as data.
//!
//! The lists are identical in botocore (1.35 and 1.44), aws-smithy-runtime and
//! the AWS SDK for JavaScript; they apply to errors whose model says nothing
//! about retries.

/// Error codes that mean "too many requests": retried as throttling errors
/// (longer backoff, lower quota cost in behaviour 2.1).
pub const THROTTLING_ERROR_CODES: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
];

/// Error codes of transient failures: the request timed out on the service
/// side, or an earlier one is still in progress.
pub const TRANSIENT_ERROR_CODES: &[&str] = &[
    "RequestTimeout",
    "RequestTimeoutException",
    "PriorRequestNotComplete",
];

/// HTTP statuses of transient server failures. `501 Not Implemented` is
/// deliberately absent: retrying it cannot help.
pub const TRANSIENT_STATUS_CODES: &[u16] = &[500, 502, 503, 504];

/// The status that means "throttled" when the error code is not a modeled
/// error (behaviour 2.1; a generic HTTP classifier always treats it so).
pub const THROTTLING_STATUS_CODE: u16 = 429;

/// Whether `code` is one of [`THROTTLING_ERROR_CODES`].
///
/// # Examples
///
/// ```
/// use rebound_runtime::__codegen::is_throttling_error_code;
///
/// assert!(is_throttling_error_code("SlowDown"));
/// assert!(!is_throttling_error_code("slowdown")); // codes are case-sensitive
/// ```
#[must_use]
pub fn is_throttling_error_code(code: &str) -> bool {
    THROTTLING_ERROR_CODES.contains(&code)
}

/// Whether `code` is one of [`TRANSIENT_ERROR_CODES`].
///
/// # Examples
///
/// ```
/// use rebound_runtime::__codegen::is_transient_error_code;
///
/// assert!(is_transient_error_code("RequestTimeout"));
/// assert!(!is_transient_error_code("ValidationException"));
/// ```
#[must_use]
pub fn is_transient_error_code(code: &str) -> bool {
    TRANSIENT_ERROR_CODES.contains(&code)
}

/// Whether `status` is one of [`TRANSIENT_STATUS_CODES`].
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::is_transient_status;
///
/// assert!(is_transient_status(503));
/// assert!(!is_transient_status(501));
/// ```
#[must_use]
pub fn is_transient_status(status: u16) -> bool {
    TRANSIENT_STATUS_CODES.contains(&status)
}
