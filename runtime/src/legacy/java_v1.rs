//! The AWS SDK for Java 1.x default retry policy
//! (`PredefinedRetryPolicies.DEFAULT` / `DYNAMODB_DEFAULT`,
//! `PredefinedBackoffStrategies.SDKDefaultBackoffStrategy`).
//!
//! | | default | DynamoDB |
//! |---|---|---|
//! | retries | 3 (4 attempts) | 10 (11 attempts) |
//! | backoff, not throttled | full jitter: `random(0, min(2^k * 100 ms, 20 s))` | same with 25 ms |
//! | backoff, throttled | equal jitter: `c/2 + random(0, c/2 + 1)`, `c = min(2^k * 500 ms, 20 s)` | same |
//!
//! `k` is the number of retries made before this one (0 for the first
//! retry), at most 30. Delays are whole milliseconds, as Java's
//! `Random.nextInt` makes them: `nextInt(n)` is `floor(r * n)` for a draw `r`.
//!
//! Retried (`SDKDefaultRetryCondition`): every failure without a response
//! (an `IOException`), the statuses 500, 502, 503 and 504
//! ([`TRANSIENT_STATUS_CODES`](crate::classify::TRANSIENT_STATUS_CODES)),
//! throttling errors (a code of
//! [`THROTTLING_ERROR_CODES`](crate::classify::THROTTLING_ERROR_CODES) or
//! HTTP 429) and clock-skew errors ([`CLOCK_SKEW_ERROR_CODES`]). These are
//! the rules of the 1.11/1.12 releases; early 1.x releases retried 500 and
//! 503 only. The SDK's optional throttled-retry capacity
//! (`useThrottleRetries`) is not part of the preset.
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::classify::HttpErrorResponse;
//! use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
//! use rebound_runtime::RetryStrategy;
//!
//! let java = LegacyRetryStrategy::builder(LegacyPreset::JavaV1).random(|| 0.5).build();
//! let token = java.acquire_initial_token()?;
//! let throttled = HttpErrorResponse::new(400).with_code("Throttling");
//! let token = java.refresh_retry_token(token, &throttled)?;
//! assert_eq!(token.delay(), Duration::from_millis(375)); // 250 + floor(0.5 * 251)
//! let token = java.refresh_retry_token(token, &HttpErrorResponse::new(500))?;
//! assert_eq!(token.delay(), Duration::from_millis(100)); // floor(0.5 * 200)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::time::Duration;

use crate::backoff::RandomSource;
use crate::classify::codes::THROTTLING_STATUS_CODE;
use crate::classify::codes::{is_throttling_error_code, is_transient_status};

/// Retries of the default policy: 3 (4 attempts).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_MAX_ERROR_RETRY;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
///
/// assert_eq!(LegacyRetryStrategy::java_v1().max_attempts(), JAVA_V1_MAX_ERROR_RETRY + 1);
/// ```
pub const JAVA_V1_MAX_ERROR_RETRY: u32 = 3;

/// Retries of the DynamoDB policy: 10 (11 attempts).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_DYNAMODB_MAX_ERROR_RETRY;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
///
/// assert_eq!(
///     LegacyRetryStrategy::java_v1_dynamodb().max_attempts(),
///     JAVA_V1_DYNAMODB_MAX_ERROR_RETRY + 1
/// );
/// ```
pub const JAVA_V1_DYNAMODB_MAX_ERROR_RETRY: u32 = 10;

/// Base of the full-jitter backoff for errors that are not throttling.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_BASE_DELAY;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let java = LegacyRetryStrategy::builder(LegacyPreset::JavaV1).random(|| 0.999_999).build();
/// // The first retry waits below the base: floor(r * 100) ms.
/// assert_eq!(java.backoff_secs(1, false), Some(0.099));
/// assert!(0.099 < JAVA_V1_BASE_DELAY.as_secs_f64());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JAVA_V1_BASE_DELAY: Duration = Duration::from_millis(100);

/// Base of the DynamoDB policy's full-jitter backoff.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_DYNAMODB_BASE_DELAY;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let java = LegacyRetryStrategy::builder(LegacyPreset::JavaV1DynamoDb).random(|| 0.5).build();
/// assert_eq!(java.backoff_secs(1, false), Some(0.012)); // floor(0.5 * 25) ms
/// assert_eq!(JAVA_V1_DYNAMODB_BASE_DELAY.as_millis(), 25);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JAVA_V1_DYNAMODB_BASE_DELAY: Duration = Duration::from_millis(25);

/// Base of the equal-jitter backoff for throttling errors.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_THROTTLED_BASE_DELAY;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let java = LegacyRetryStrategy::builder(LegacyPreset::JavaV1).random(|| 0.0).build();
/// // Equal jitter: never below half the exponential delay.
/// assert_eq!(java.backoff_secs(1, true), Some(JAVA_V1_THROTTLED_BASE_DELAY.as_secs_f64() / 2.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JAVA_V1_THROTTLED_BASE_DELAY: Duration = Duration::from_millis(500);

/// The longest backoff: 20 s.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVA_V1_MAX_BACKOFF;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
///
/// assert_eq!(LegacyRetryStrategy::java_v1().max_backoff(), Some(JAVA_V1_MAX_BACKOFF));
/// ```
pub const JAVA_V1_MAX_BACKOFF: Duration = Duration::from_secs(20);

/// The exponent stops growing after 30 retries (integer overflow guard).
const MAX_EXPONENT: u32 = 30;

/// Error codes of requests rejected because the client's clock is off:
/// retried by the Java 1.x SDK (after it corrects its clock offset).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{CLOCK_SKEW_ERROR_CODES, java_v1_retries_response};
///
/// assert!(CLOCK_SKEW_ERROR_CODES.iter().all(|code| java_v1_retries_response(403, Some(code))));
/// ```
pub const CLOCK_SKEW_ERROR_CODES: &[&str] = &[
    "RequestTimeTooSkewed",
    "RequestExpired",
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "AuthFailure",
    "RequestInTheFuture",
];

/// Whether the Java 1.x SDK treats an error response as throttling: a
/// throttling code, or HTTP 429.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::java_v1_is_throttling;
///
/// assert!(java_v1_is_throttling(429, None));
/// assert!(java_v1_is_throttling(503, Some("SlowDown")));
/// assert!(!java_v1_is_throttling(503, None));
/// ```
#[must_use]
pub fn java_v1_is_throttling(status: u16, code: Option<&str>) -> bool {
    status == THROTTLING_STATUS_CODE || code.is_some_and(is_throttling_error_code)
}

/// Whether the Java 1.x default retry condition retries an error response.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::java_v1_retries_response;
///
/// assert!(java_v1_retries_response(502, None));
/// assert!(java_v1_retries_response(400, Some("ThrottlingException")));
/// assert!(java_v1_retries_response(403, Some("RequestTimeTooSkewed")));
/// assert!(!java_v1_retries_response(501, None));
/// assert!(!java_v1_retries_response(400, Some("ValidationException")));
/// ```
#[must_use]
pub fn java_v1_retries_response(status: u16, code: Option<&str>) -> bool {
    is_transient_status(status)
        || java_v1_is_throttling(status, code)
        || code.is_some_and(|code| CLOCK_SKEW_ERROR_CODES.contains(&code))
}

/// `Random.nextInt(bound)` driven by a unit draw: `floor(r * bound)`, kept
/// below `bound`.
fn next_int(random: &dyn RandomSource, bound: u64) -> u64 {
    let scaled = (super::draw(random) * bound as f64).floor() as u64;
    scaled.min(bound.saturating_sub(1))
}

/// `min(2^k * base, cap)` in milliseconds, `k = min(retries, 30)`.
fn exponential_millis(retries: u32, base: Duration, cap: Duration) -> u64 {
    let base = u64::try_from(base.as_millis()).unwrap_or(u64::MAX);
    let cap = u64::try_from(cap.as_millis()).unwrap_or(u64::MAX);
    (1u64 << retries.min(MAX_EXPONENT))
        .saturating_mul(base)
        .min(cap)
}

/// The Java 1.x SDK default backoff before the retry that follows `retries`
/// earlier retries: equal jitter on `throttled_base` for throttling errors,
/// full jitter on `base` otherwise, both capped at `cap`. One draw.
pub(crate) fn delay(
    retries: u32,
    throttling: bool,
    base: Duration,
    cap: Duration,
    random: &dyn RandomSource,
) -> Duration {
    let millis = if throttling {
        let half = exponential_millis(retries, JAVA_V1_THROTTLED_BASE_DELAY, cap) / 2;
        half + next_int(random, half + 1)
    } else {
        next_int(random, exponential_millis(retries, base, cap))
    };
    Duration::from_millis(millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn full_and_equal_jitter_bounds() {
        let low = || 0.0;
        let high = || 0.999_999_999;
        let (base, cap) = (JAVA_V1_BASE_DELAY, JAVA_V1_MAX_BACKOFF);
        assert_eq!(delay(0, false, base, cap, &low), MS(0));
        assert_eq!(delay(0, false, base, cap, &high), MS(99));
        assert_eq!(delay(2, false, base, cap, &high), MS(399));
        assert_eq!(delay(0, true, base, cap, &low), MS(250));
        assert_eq!(delay(0, true, base, cap, &high), MS(500));
        assert_eq!(delay(1, true, base, cap, &low), MS(500));
        // 2^30 * 500 ms is capped at 20 s; so is everything after 30 retries.
        assert_eq!(delay(30, true, base, cap, &low), MS(10_000));
        assert_eq!(delay(u32::MAX, false, base, cap, &high), MS(19_999));
        // A draw of exactly 1.0 stays below the bound.
        assert_eq!(delay(0, false, base, cap, &|| 1.0), MS(99));
    }
}
