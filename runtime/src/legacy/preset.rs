//! [`LegacyPreset`]: which legacy SDK behaviour a strategy reproduces, and
//! the per-preset facts (attempts, cap, which failures are retried).

use core::time::Duration;

use super::botocore::{
    BOTOCORE_DYNAMODB_MAX_ATTEMPTS, BOTOCORE_MAX_ATTEMPTS, botocore_retries_response,
    botocore_retries_transport_failure,
};
use super::java_v1::{self, java_v1_is_throttling, java_v1_retries_response};
use super::javascript_v2::{self, javascript_v2_is_throttling, javascript_v2_retries_response};
use crate::classify::codes::is_throttling_error_code;
use crate::vocabulary::TransportFailure;

/// Which legacy SDK behaviour a [`LegacyRetryStrategy`](super::LegacyRetryStrategy) reproduces.
///
/// # Examples
///
/// ```
/// use rebound_runtime::legacy::LegacyPreset;
///
/// assert_eq!(LegacyPreset::Botocore.default_max_attempts(), 5);
/// assert_eq!(LegacyPreset::JavaV1.default_max_attempts(), 4); // 3 retries
/// assert!(LegacyPreset::BotocoreDynamoDb.checks_response_crc32());
/// assert!(!LegacyPreset::JavaV1DynamoDb.checks_response_crc32());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LegacyPreset {
    /// botocore's legacy mode, `_retry.json`'s `__default__` policies.
    Botocore,
    /// botocore's legacy mode for DynamoDB (`__default__` + `dynamodb`).
    BotocoreDynamoDb,
    /// The AWS SDK for Java 1.x default policy.
    JavaV1,
    /// The AWS SDK for Java 1.x DynamoDB policy.
    JavaV1DynamoDb,
    /// The AWS SDK for JavaScript 2.x policy.
    JavaScriptV2,
    /// The AWS SDK for JavaScript 2.x DynamoDB policy.
    JavaScriptV2DynamoDb,
}

impl LegacyPreset {
    /// Attempts per request when none are configured, the first included.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert_eq!(LegacyPreset::BotocoreDynamoDb.default_max_attempts(), 10);
    /// assert_eq!(LegacyPreset::JavaScriptV2DynamoDb.default_max_attempts(), 11);
    /// ```
    #[must_use]
    pub const fn default_max_attempts(self) -> u32 {
        match self {
            Self::Botocore => BOTOCORE_MAX_ATTEMPTS,
            Self::BotocoreDynamoDb => BOTOCORE_DYNAMODB_MAX_ATTEMPTS,
            Self::JavaV1 => java_v1::JAVA_V1_MAX_ERROR_RETRY + 1,
            Self::JavaV1DynamoDb => java_v1::JAVA_V1_DYNAMODB_MAX_ERROR_RETRY + 1,
            Self::JavaScriptV2 => javascript_v2::JAVASCRIPT_V2_MAX_RETRIES + 1,
            Self::JavaScriptV2DynamoDb => javascript_v2::JAVASCRIPT_V2_DYNAMODB_MAX_RETRIES + 1,
        }
    }

    /// Whether the SDK verifies `x-amz-crc32` on responses: an integration
    /// then checks the body's CRC32 and reports a mismatch as a retryable
    /// failure ([`Classified::retryable`](crate::Classified::retryable) with the status).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert!(LegacyPreset::JavaScriptV2DynamoDb.checks_response_crc32());
    /// assert!(!LegacyPreset::Botocore.checks_response_crc32());
    /// ```
    #[must_use]
    pub const fn checks_response_crc32(self) -> bool {
        matches!(self, Self::BotocoreDynamoDb | Self::JavaScriptV2DynamoDb)
    }

    /// The preset's cap on a delay, if it has one (Java: 20 s).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert_eq!(LegacyPreset::JavaV1.default_max_backoff(), Some(Duration::from_secs(20)));
    /// assert_eq!(LegacyPreset::Botocore.default_max_backoff(), None);
    /// ```
    #[must_use]
    pub const fn default_max_backoff(self) -> Option<Duration> {
        match self {
            Self::JavaV1 | Self::JavaV1DynamoDb => Some(java_v1::JAVA_V1_MAX_BACKOFF),
            _ => None,
        }
    }

    /// Whether the preset adds a retry-after hint to its delay
    /// (JavaScript 2.x).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert!(LegacyPreset::JavaScriptV2.uses_retry_after());
    /// assert!(!LegacyPreset::JavaV1.uses_retry_after());
    /// ```
    #[must_use]
    pub const fn uses_retry_after(self) -> bool {
        matches!(self, Self::JavaScriptV2 | Self::JavaScriptV2DynamoDb)
    }

    /// Whether the preset retries an error response with this status and
    /// code (the status/code rules only; see the [module docs](super)).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert!(LegacyPreset::Botocore.retries_response(509, None));
    /// assert!(!LegacyPreset::JavaV1.retries_response(509, None));
    /// assert!(LegacyPreset::JavaScriptV2.retries_response(509, None));
    /// ```
    #[must_use]
    pub fn retries_response(self, status: u16, code: Option<&str>) -> bool {
        match self {
            Self::Botocore => botocore_retries_response(status, code, false),
            Self::BotocoreDynamoDb => botocore_retries_response(status, code, true),
            Self::JavaV1 | Self::JavaV1DynamoDb => java_v1_retries_response(status, code),
            Self::JavaScriptV2 | Self::JavaScriptV2DynamoDb => {
                javascript_v2_retries_response(status, code)
            }
        }
    }

    /// Whether the preset retries this transport failure: botocore only its
    /// connection errors, Java and JavaScript every one but
    /// [`InvalidRequest`](TransportFailure::InvalidRequest) (never sent).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::TransportFailure;
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert!(!LegacyPreset::Botocore.retries_transport_failure(TransportFailure::Http));
    /// assert!(LegacyPreset::JavaV1.retries_transport_failure(TransportFailure::Http));
    /// ```
    #[must_use]
    pub const fn retries_transport_failure(self, failure: TransportFailure) -> bool {
        match (self, failure) {
            (_, TransportFailure::InvalidRequest) => false,
            (Self::Botocore | Self::BotocoreDynamoDb, _) => {
                botocore_retries_transport_failure(failure)
            }
            _ => true,
        }
    }

    /// Whether the preset counts an error response as throttling (Java
    /// backs off longer then; the others only report it).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    ///
    /// assert!(LegacyPreset::JavaV1.is_throttling(400, Some("SlowDown")));
    /// assert!(!LegacyPreset::JavaScriptV2.is_throttling(400, Some("SlowDown")));
    /// assert!(LegacyPreset::Botocore.is_throttling(429, None));
    /// ```
    #[must_use]
    pub fn is_throttling(self, status: u16, code: Option<&str>) -> bool {
        match self {
            Self::Botocore | Self::BotocoreDynamoDb => {
                code.is_some_and(is_throttling_error_code)
                    || status == crate::classify::codes::THROTTLING_STATUS_CODE
            }
            Self::JavaV1 | Self::JavaV1DynamoDb => java_v1_is_throttling(status, code),
            Self::JavaScriptV2 | Self::JavaScriptV2DynamoDb => {
                javascript_v2_is_throttling(status, code)
            }
        }
    }
}
