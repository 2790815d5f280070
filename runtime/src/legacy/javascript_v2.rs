//! The AWS SDK for JavaScript 2.x retry policy (`AWS.Service.retryableError`,
//! `AWS.util.calculateRetryDelay`, `retryDelayOptions`).
//!
//! | | default | DynamoDB |
//! |---|---|---|
//! | retries (`maxRetries`) | 3 (4 attempts) | 10 (11 attempts) |
//! | delay (`retryDelayOptions.base`) | `random * 2^k * 100 ms` | `random * 2^k * 50 ms` |
//! | `x-amz-crc32` checked | no | yes, a mismatch is retried |
//!
//! `k` is the number of retries made before this one (0 for the first
//! retry). There is no cap. A `Retry-After` hint
//! ([`RetryInfo::retry_after`](crate::RetryInfo::retry_after)) is *added* to
//! the delay, as the SDK's `handleRequestWithRetries` does; a hint above the
//! strategy's [ceiling](super::LegacyRetryStrategyBuilder::retry_after_ceiling)
//! ends the request instead of sleeping that long.
//!
//! Retried (`retryableError`): timeouts and networking errors (every failure
//! without a response), expired credentials ([`EXPIRED_CREDENTIALS_ERROR_CODE`]),
//! throttling errors (HTTP 429 or a code of
//! [`JAVASCRIPT_V2_THROTTLING_ERROR_CODES`]) and every status from 500 up.
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::classify::HttpErrorResponse;
//! use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
//! use rebound_runtime::RetryStrategy;
//!
//! let js = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2).random(|| 0.5).build();
//! let token = js.acquire_initial_token()?;
//! let busy = HttpErrorResponse::new(429).with_retry_after(Some(Duration::from_secs(1)));
//! let token = js.refresh_retry_token(token, &busy)?;
//! assert_eq!(token.delay(), Duration::from_millis(1050)); // 0.5 * 100 ms + 1 s
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::time::Duration;

use crate::backoff::RandomSource;
use crate::classify::codes::THROTTLING_STATUS_CODE;

/// Retries of the default policy: 3 (4 attempts).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVASCRIPT_V2_MAX_RETRIES;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
///
/// assert_eq!(LegacyRetryStrategy::javascript_v2().max_attempts(), JAVASCRIPT_V2_MAX_RETRIES + 1);
/// ```
pub const JAVASCRIPT_V2_MAX_RETRIES: u32 = 3;

/// Retries of the DynamoDB policy: 10 (11 attempts).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVASCRIPT_V2_DYNAMODB_MAX_RETRIES;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
///
/// assert_eq!(
///     LegacyRetryStrategy::javascript_v2_dynamodb().max_attempts(),
///     JAVASCRIPT_V2_DYNAMODB_MAX_RETRIES + 1
/// );
/// ```
pub const JAVASCRIPT_V2_DYNAMODB_MAX_RETRIES: u32 = 10;

/// `retryDelayOptions.base` by default: 100 ms.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVASCRIPT_V2_BASE_DELAY;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let js = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2).random(|| 1.0).build();
/// assert_eq!(js.backoff_secs(1, false), Some(JAVASCRIPT_V2_BASE_DELAY.as_secs_f64()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JAVASCRIPT_V2_BASE_DELAY: Duration = Duration::from_millis(100);

/// `retryDelayOptions.base` for DynamoDB: 50 ms.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::JAVASCRIPT_V2_DYNAMODB_BASE_DELAY;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let js = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2DynamoDb).random(|| 1.0).build();
/// assert_eq!(js.backoff_secs(1, false), Some(JAVASCRIPT_V2_DYNAMODB_BASE_DELAY.as_secs_f64()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JAVASCRIPT_V2_DYNAMODB_BASE_DELAY: Duration = Duration::from_millis(50);

/// The throttling codes of the JavaScript 2.x SDK's `throttledError` (fewer
/// than the standard mode's (the AWS SDKs' list):
/// `SlowDown`, `BandwidthLimitExceeded`, ... are retried there only by
/// their 5xx status).
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{JAVASCRIPT_V2_THROTTLING_ERROR_CODES, javascript_v2_is_throttling};
///
/// assert!(JAVASCRIPT_V2_THROTTLING_ERROR_CODES.iter().all(|c| javascript_v2_is_throttling(400, Some(c))));
/// assert!(!JAVASCRIPT_V2_THROTTLING_ERROR_CODES.contains(&"SlowDown"));
/// ```
pub const JAVASCRIPT_V2_THROTTLING_ERROR_CODES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "Throttling",
    "ThrottlingException",
    "RequestLimitExceeded",
    "RequestThrottled",
    "RequestThrottledException",
    "TooManyRequestsException",
    "TransactionInProgressException",
    "EC2ThrottledException",
];

/// The code the JavaScript 2.x SDK retries after refreshing credentials.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::{EXPIRED_CREDENTIALS_ERROR_CODE, javascript_v2_retries_response};
///
/// assert!(javascript_v2_retries_response(400, Some(EXPIRED_CREDENTIALS_ERROR_CODE)));
/// ```
pub const EXPIRED_CREDENTIALS_ERROR_CODE: &str = "ExpiredTokenException";

/// Whether the JavaScript 2.x SDK treats an error response as throttling.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::javascript_v2_is_throttling;
///
/// assert!(javascript_v2_is_throttling(429, None));
/// assert!(javascript_v2_is_throttling(400, Some("TooManyRequestsException")));
/// assert!(!javascript_v2_is_throttling(503, Some("SlowDown")));
/// ```
#[must_use]
pub fn javascript_v2_is_throttling(status: u16, code: Option<&str>) -> bool {
    status == THROTTLING_STATUS_CODE
        || code.is_some_and(|code| JAVASCRIPT_V2_THROTTLING_ERROR_CODES.contains(&code))
}

/// Whether the JavaScript 2.x SDK retries an error response.
///
/// # Examples
///
/// ```
/// use rebound_runtime::internals::javascript_v2_retries_response;
///
/// assert!(javascript_v2_retries_response(501, None)); // every 5xx
/// assert!(javascript_v2_retries_response(429, None));
/// assert!(javascript_v2_retries_response(400, Some("ExpiredTokenException")));
/// assert!(!javascript_v2_retries_response(400, Some("ValidationException")));
/// ```
#[must_use]
pub fn javascript_v2_retries_response(status: u16, code: Option<&str>) -> bool {
    status >= 500
        || javascript_v2_is_throttling(status, code)
        || code == Some(EXPIRED_CREDENTIALS_ERROR_CODE)
}

/// `random * 2^retries * base`, in seconds. One draw. Infinite when the
/// power of two overflows (the caller saturates), but 0 for a zero draw.
pub(crate) fn delay_secs(retries: u32, base: Duration, random: &dyn RandomSource) -> f64 {
    let exponent = i32::try_from(retries).unwrap_or(i32::MAX);
    let r = super::draw(random);
    if r == 0.0 {
        return 0.0; // not 0 * inf
    }
    r * (2f64.powi(exponent) * base.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_doubles_from_the_base() {
        let half = || 0.5;
        assert_eq!(delay_secs(0, JAVASCRIPT_V2_BASE_DELAY, &half), 0.05);
        assert_eq!(delay_secs(3, JAVASCRIPT_V2_BASE_DELAY, &half), 0.4);
        assert_eq!(
            delay_secs(1, JAVASCRIPT_V2_DYNAMODB_BASE_DELAY, &half),
            0.05
        );
        assert!(delay_secs(u32::MAX, JAVASCRIPT_V2_BASE_DELAY, &half).is_infinite());
        assert_eq!(delay_secs(u32::MAX, JAVASCRIPT_V2_BASE_DELAY, &|| 0.0), 0.0);
    }
}
