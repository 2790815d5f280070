//! botocore's legacy retry mode: the policies of its `data/_retry.json`
//! (`__default__`, plus the `dynamodb` entry) and `retryhandler.py`.
//!
//! | | generic (`__default__`) | DynamoDB (`__default__` + `dynamodb`) |
//! |---|---|---|
//! | attempts | 5 | 10 |
//! | delay before retry `n` (1-based failed attempt) | `rand * 2^(n-1)` s | `0.05 * 2^(n-1)` s (no jitter) |
//! | cap | none | none |
//! | connection errors | retried | retried |
//! | HTTP 500, 502, 503, 504, 509, 429 | retried | retried |
//! | HTTP 400 with [`BOTOCORE_THROTTLING_ERROR_CODES`] | retried | retried |
//! | [`DYNAMODB_EXTRA_RETRY_RULES`] (409 `ReplicatedWriteConflictException`, 400 `TransactionInProgressException`) | no | retried |
//! | `x-amz-crc32` of the body checked ([`crc32_matches`]) | no | yes, a mismatch is retried |
//!
//! The other services `_retry.json` names (`s3`, `sqs`, `ec2`, `kinesis`, ...)
//! only add `(status, code)` rules ([`BOTOCORE_SERVICE_RETRY_RULES`]):
//! [`LegacyRetryStrategy::botocore_for_service`](super::LegacyRetryStrategy::botocore_for_service)
//! builds the whole policy of a service by its endpoint prefix.
//!
//! Rules match the status *and* the code: a `ThrottlingException` with status
//! 403 is not retried, neither is a `TooManyRequestsException` with 400. Every
//! other code of [`THROTTLING_ERROR_CODES`](crate::classify::THROTTLING_ERROR_CODES)
//! (`SlowDown`, `RequestLimitExceeded`, ...) is retried only when its status is
//! one of the retried statuses. No retry quota, no state between requests.
//!
//! Connection errors are botocore's `GENERAL_CONNECTION_ERROR` group and its
//! subclasses: [`TransportFailure::Connect`], [`ConnectTimeout`](TransportFailure::ConnectTimeout),
//! [`Tls`](TransportFailure::Tls), [`Proxy`](TransportFailure::Proxy),
//! [`ReadTimeout`](TransportFailure::ReadTimeout) and
//! [`ConnectionClosed`](TransportFailure::ConnectionClosed). A generic HTTP
//! client error ([`Http`](TransportFailure::Http)) or a failed response stream
//! ([`ResponseStreaming`](TransportFailure::ResponseStreaming)) is not retried.
//!
//! # Examples
//!
//! An integration of the DynamoDB preset checks each body, then asks the
//! strategy:
//!
//! ```
//! use rebound_runtime::Classified;
//! use rebound_runtime::{internals::crc32_matches, legacy::LegacyRetryStrategy};
//! use rebound_runtime::RetryStrategy;
//!
//! let strategy = LegacyRetryStrategy::botocore_dynamodb();
//! let (status, body, header) = (200, br#"{"Count":0}"#, "12345");
//! assert!(strategy.checks_response_crc32());
//! let token = strategy.acquire_initial_token()?;
//! assert!(!crc32_matches(body, header)?); // corrupted: retry
//! let retry = strategy.refresh_retry_token(token, &Classified::retryable().with_status(status))?;
//! assert_eq!(retry.delay(), std::time::Duration::from_millis(50));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::backoff::RandomSource;
use crate::classify::codes::is_transient_status;
use crate::vocabulary::TransportFailure;
use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// Attempts of the generic botocore legacy policy, the first included.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{internals::BOTOCORE_MAX_ATTEMPTS, legacy::LegacyRetryStrategy};
///
/// assert_eq!(LegacyRetryStrategy::botocore().max_attempts(), BOTOCORE_MAX_ATTEMPTS);
/// ```
pub const BOTOCORE_MAX_ATTEMPTS: u32 = 5;

/// Attempts of botocore's legacy DynamoDB policy, the first included.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{internals::BOTOCORE_DYNAMODB_MAX_ATTEMPTS, legacy::LegacyRetryStrategy};
///
/// assert_eq!(LegacyRetryStrategy::botocore_dynamodb().max_attempts(), BOTOCORE_DYNAMODB_MAX_ATTEMPTS);
/// ```
pub const BOTOCORE_DYNAMODB_MAX_ATTEMPTS: u32 = 10;

/// The fixed base of botocore's legacy DynamoDB delay: `0.05 * 2^(n-1)` s.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{internals::BOTOCORE_DYNAMODB_BASE_SECS, legacy::LegacyRetryStrategy};
///
/// let dynamodb = LegacyRetryStrategy::botocore_dynamodb();
/// assert_eq!(dynamodb.backoff_secs(1, false), Some(BOTOCORE_DYNAMODB_BASE_SECS));
/// assert_eq!(dynamodb.backoff_secs(4, false), Some(0.4));
/// ```
pub const BOTOCORE_DYNAMODB_BASE_SECS: f64 = 0.05;

/// `509 Bandwidth Limit Exceeded`: retried by the legacy policies, not by the
/// standard mode.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{LIMIT_EXCEEDED_STATUS, botocore_retries_response, is_transient_status};
///
/// assert!(botocore_retries_response(LIMIT_EXCEEDED_STATUS, None, false));
/// assert!(!is_transient_status(LIMIT_EXCEEDED_STATUS)); // standard mode does not retry it
/// ```
pub const LIMIT_EXCEEDED_STATUS: u16 = 509;

/// The error codes `_retry.json` retries when they come with HTTP 400 (its
/// `throttling_exception`, `throttled_exception`,
/// `request_throttled_exception`, `throttling` and `throughput_exceeded`
/// policies). A subset of
/// the standard mode's throttling codes
/// (the AWS SDKs' list).
///
/// # Examples
///
/// ```
/// use rebound_runtime::__codegen::is_throttling_error_code;
/// use rebound_runtime::internals::{BOTOCORE_THROTTLING_ERROR_CODES, botocore_retries_response};
///
/// for code in BOTOCORE_THROTTLING_ERROR_CODES {
///     assert!(is_throttling_error_code(code));
///     assert!(botocore_retries_response(400, Some(code), false));
/// }
/// ```
pub const BOTOCORE_THROTTLING_ERROR_CODES: &[&str] = &[
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "Throttling",
    "ProvisionedThroughputExceededException",
];

/// The `(status, code)` rules the `dynamodb` entry of `_retry.json` adds.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{DYNAMODB_EXTRA_RETRY_RULES, botocore_retries_response};
///
/// for &(status, code) in DYNAMODB_EXTRA_RETRY_RULES {
///     assert!(botocore_retries_response(status, Some(code), true));
///     assert!(!botocore_retries_response(status, Some(code), false));
/// }
/// ```
pub const DYNAMODB_EXTRA_RETRY_RULES: &[(u16, &str)] = &[
    (409, "ReplicatedWriteConflictException"),
    (400, "TransactionInProgressException"),
];

/// The `(status, code)` rules of `_retry.json`'s other service entries, by
/// endpoint prefix (DynamoDB's are [`DYNAMODB_EXTRA_RETRY_RULES`]; its other
/// differences make it a preset of its own).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::BOTOCORE_SERVICE_RETRY_RULES;
///
/// let (_, s3) = BOTOCORE_SERVICE_RETRY_RULES.iter().find(|(name, _)| *name == "s3").unwrap();
/// assert!(s3.contains(&(400, "BadDigest")));
/// ```
pub const BOTOCORE_SERVICE_RETRY_RULES: &[(&str, &[(u16, &str)])] = &[
    ("organizations", &[(400, "TooManyRequestsException")]),
    (
        "ec2",
        &[
            (503, "RequestLimitExceeded"),
            (503, "EC2ThrottledException"),
        ],
    ),
    ("cloudsearch", &[(509, "BandwidthLimitExceeded")]),
    ("kinesis", &[(400, "LimitExceededException")]),
    ("sqs", &[(403, "RequestThrottled")]),
    ("s3", &[(400, "RequestTimeout"), (400, "BadDigest")]),
    ("glacier", &[(408, "RequestTimeoutException")]),
    (
        "route53",
        &[(400, "Throttling"), (400, "PriorRequestNotComplete")],
    ),
    ("sts", &[(400, "IDPCommunicationError")]),
    ("dynamodb", DYNAMODB_EXTRA_RETRY_RULES),
];

/// The extra `(status, code)` rules botocore's legacy mode applies to the
/// service with this endpoint prefix (compared case-insensitively); empty
/// for a service `_retry.json` has no entry for.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::botocore_service_retry_rules;
///
/// assert_eq!(botocore_service_retry_rules("sqs"), [(403, "RequestThrottled")]);
/// assert_eq!(botocore_service_retry_rules("Kinesis"), [(400, "LimitExceededException")]);
/// assert!(botocore_service_retry_rules("sns").is_empty());
/// ```
#[must_use]
pub fn botocore_service_retry_rules(endpoint_prefix: &str) -> &'static [(u16, &'static str)] {
    BOTOCORE_SERVICE_RETRY_RULES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(endpoint_prefix))
        .map_or(&[], |(_, rules)| rules)
}

/// The response header carrying the CRC32 of the body (DynamoDB).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{CRC32_HEADER, crc32_matches};
///
/// let headers = [("x-amz-crc32", "0")];
/// let header = headers.iter().find(|(name, _)| name.eq_ignore_ascii_case(CRC32_HEADER));
/// assert_eq!(header.map(|(_, value)| crc32_matches(b"", value)), Some(Ok(true)));
/// ```
pub const CRC32_HEADER: &str = "x-amz-crc32";

/// Whether botocore's legacy policies retry an error response with this
/// status and code (`dynamodb`: with the DynamoDB entry's rules too).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::botocore_retries_response;
///
/// assert!(botocore_retries_response(509, None, false));
/// assert!(botocore_retries_response(400, Some("Throttling"), false));
/// assert!(!botocore_retries_response(403, Some("ThrottlingException"), false));
/// assert!(!botocore_retries_response(409, Some("ReplicatedWriteConflictException"), false));
/// assert!(botocore_retries_response(409, Some("ReplicatedWriteConflictException"), true));
/// ```
#[must_use]
pub fn botocore_retries_response(status: u16, code: Option<&str>, dynamodb: bool) -> bool {
    let by_status = is_transient_status(status)
        || status == LIMIT_EXCEEDED_STATUS
        || status == crate::classify::codes::THROTTLING_STATUS_CODE;
    let by_code = code.is_some_and(|code| {
        (status == 400 && BOTOCORE_THROTTLING_ERROR_CODES.contains(&code))
            || (dynamodb
                && DYNAMODB_EXTRA_RETRY_RULES
                    .iter()
                    .any(|&(s, c)| s == status && c == code))
    });
    by_status || by_code
}

/// Whether botocore's legacy policies retry this transport failure (its
/// `GENERAL_CONNECTION_ERROR` group and subclasses).
///
/// # Examples
///
/// ```
/// use rebound_runtime::TransportFailure;
/// use rebound_runtime::internals::botocore_retries_transport_failure;
///
/// assert!(botocore_retries_transport_failure(TransportFailure::ReadTimeout));
/// assert!(!botocore_retries_transport_failure(TransportFailure::ResponseStreaming));
/// ```
#[must_use]
pub const fn botocore_retries_transport_failure(failure: TransportFailure) -> bool {
    matches!(
        failure,
        TransportFailure::Connect
            | TransportFailure::ConnectTimeout
            | TransportFailure::Tls
            | TransportFailure::Proxy
            | TransportFailure::ReadTimeout
            | TransportFailure::ConnectionClosed
    )
}

/// botocore's `delay_exponential`: `base * 2^(failed_attempt - 1)` seconds,
/// with `base` a fresh draw from `random` when `None` (`"rand"`). No cap.
/// `None` when the power of two is not a finite `f64` (from attempt 1025:
/// botocore raises `OverflowError` there).
pub(crate) fn delay_exponential_secs(
    base: Option<f64>,
    failed_attempt: u32,
    random: &dyn RandomSource,
) -> Option<f64> {
    let base = base.unwrap_or_else(|| super::draw(random));
    let exponent = i32::try_from(failed_attempt.saturating_sub(1)).unwrap_or(i32::MAX);
    let growth = 2f64.powi(exponent);
    growth.is_finite().then_some(base * growth)
}

/// Checks a response body against its `x-amz-crc32` header, as botocore's
/// `CRC32Checker` does: the header is a decimal integer (Python `int()`
/// syntax: surrounding whitespace, a sign and `_` between digits are
/// accepted) compared with the IEEE CRC32 of the body.
///
/// An integration of the DynamoDB presets calls it on every response that
/// has the header ([`LegacyRetryStrategy::checks_response_crc32`](super::LegacyRetryStrategy::checks_response_crc32))
/// and hands a mismatch to the strategy as a
/// retryable failure ([`Classified::retryable`](crate::Classified::retryable), retried below the
/// attempt limit), an unparsable header as the [`InvalidCrc32Header`] error
/// (not retried: botocore raises `ValueError`).
///
/// # Errors
///
/// [`InvalidCrc32Header`] when the header is not an integer.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::crc32_matches;
///
/// let body = br#"{"Item":{"id":{"S":"1"}}}"#;
/// assert_eq!(crc32_matches(body, "2061421159"), Ok(true));
/// assert_eq!(crc32_matches(body, "2061421160"), Ok(false));
/// assert_eq!(crc32_matches(b"", " 0 "), Ok(true));
/// assert!(crc32_matches(body, "abc").is_err());
/// ```
pub fn crc32_matches(body: &[u8], header: &str) -> Result<bool, InvalidCrc32Header> {
    let expected = parse_python_int(header).ok_or_else(|| InvalidCrc32Header {
        value: header.to_owned(),
    })?;
    Ok(expected == Some(crc32(body)))
}

/// `int(value)` for a decimal string: `Some(Some(n))` for an integer that
/// fits a `u32`, `Some(None)` for any other integer (negative or too large:
/// it cannot equal a CRC32), `None` for no integer at all.
fn parse_python_int(value: &str) -> Option<Option<u32>> {
    let trimmed = value.trim();
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let bytes = digits.as_bytes();
    let well_formed = bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        && !digits.contains("__");
    if !well_formed {
        return None;
    }
    let mut number: Option<u32> = Some(0);
    for digit in bytes.iter().filter(|b| b.is_ascii_digit()) {
        number = number
            .and_then(|n| n.checked_mul(10))
            .and_then(|n| n.checked_add(u32::from(digit - b'0')));
    }
    Some(number.filter(|n| !negative || *n == 0))
}

/// The IEEE 802.3 CRC32 (zlib's `crc32`, reflected polynomial `0xEDB88320`).
///
/// # Examples
///
/// ```
/// assert_eq!(rebound_runtime::internals::crc32(b"123456789"), 0xCBF4_3926);
/// assert_eq!(rebound_runtime::internals::crc32(b""), 0);
/// ```
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, byte| {
        CRC32_TABLE[usize::from((crc as u8) ^ byte)] ^ (crc >> 8)
    })
}

const CRC32_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut index = 0;
    while index < 256 {
        let mut crc = index as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[index] = crc;
        index += 1;
    }
    table
};

/// An `x-amz-crc32` header that is not an integer: the response cannot be
/// verified. Not retried (botocore raises `ValueError` out of the call).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::crc32_matches;
/// use rebound_runtime::{RetryInfo, RetrySafety};
///
/// let err = crc32_matches(b"{}", "abc").unwrap_err();
/// assert_eq!(err.value(), "abc");
/// assert_eq!(err.retry_safety(), RetrySafety::No);
/// assert_eq!(err.to_string(), "the x-amz-crc32 header \"abc\" is not an integer");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("the x-amz-crc32 header {value:?} is not an integer")]
pub struct InvalidCrc32Header {
    value: String,
}

impl InvalidCrc32Header {
    /// The header's value.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::internals::crc32_matches;
    ///
    /// assert_eq!(crc32_matches(b"", "1.5").unwrap_err().value(), "1.5");
    /// ```
    #[must_use]
    pub fn value(&self) -> &str {
        &self.value
    }
}

/// Never retried.
impl RetryInfo for InvalidCrc32Header {
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::No
    }
}

/// Nobody's declared fault: the response could not be verified.
impl ErrorInfo for InvalidCrc32Header {
    fn fault(&self) -> ErrorFault {
        ErrorFault::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int_syntax() {
        assert_eq!(parse_python_int("42"), Some(Some(42)));
        assert_eq!(parse_python_int(" +4_2\n"), Some(Some(42)));
        assert_eq!(parse_python_int("-0"), Some(Some(0)));
        assert_eq!(parse_python_int("-5"), Some(None));
        assert_eq!(parse_python_int("99999999999"), Some(None));
        for bad in ["", "-", "_1", "1_", "1__2", "1.0", "0x10", "abc", "1 2"] {
            assert_eq!(parse_python_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn crc32_of_known_inputs() {
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }

    #[test]
    fn delay_overflows_like_python() {
        let half = || 0.5;
        assert_eq!(delay_exponential_secs(None, 1, &half), Some(0.5));
        assert_eq!(delay_exponential_secs(Some(0.05), 3, &half), Some(0.2));
        assert!(delay_exponential_secs(Some(0.05), 1024, &half).is_some());
        assert_eq!(delay_exponential_secs(Some(0.05), 1025, &half), None);
        assert_eq!(delay_exponential_secs(None, u32::MAX, &half), None);
    }
}
