//! [`RetryBehavior`]: the two generations of the AWS standard retry mode, and
//! the defaults each implies.

use core::time::Duration;

use crate::backoff::{Backoff, RetryAfterPolicy};

/// The longest backoff of the standard mode, in both behaviours: 20 s.
pub const MAX_BACKOFF: Duration = Duration::from_secs(20);

/// Which generation of the AWS standard retry mode to follow.
///
/// | | [`V2_0`](Self::V2_0) (default) | [`V2_1`](Self::V2_1) |
/// |---|---|---|
/// | reference | the SDK docs, botocore 1.35, aws-smithy-runtime | botocore 1.44 |
/// | max attempts | 3 | 3 (4 for DynamoDB with [`aws_service`](crate::StandardRetryStrategyBuilder::aws_service)) |
/// | retry cost | 5; 10 for timeouts | 14; 5 for throttling errors |
/// | success refund | 1, or the last retry's cost | same |
/// | backoff | `r * min(1 s * 2^(n-1), 20 s)` | same for throttling; base 50 ms otherwise (25 ms DynamoDB) |
/// | unmodeled HTTP 429 | not retried | retried as throttling |
/// | `x-amz-retry-after` | ignored | `max(t, min(hint, t + 5 s))` |
/// | quota exhausted on a long-polling operation | give up | sleep the backoff, then give up |
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetryBehavior;
///
/// assert_eq!(RetryBehavior::default(), RetryBehavior::V2_0);
/// assert_eq!(RetryBehavior::V2_0.retry_cost(), 5);
/// assert_eq!(RetryBehavior::V2_1.retry_cost(), 14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryBehavior {
    /// Retry behaviour 2.0: the documented standard mode.
    #[default]
    V2_0,
    /// Retry behaviour 2.1: cheaper throttling retries, shorter transient
    /// backoff, unmodeled 429 retried, bounded `x-amz-retry-after`.
    V2_1,
}

impl RetryBehavior {
    /// Attempts per request, the first included: 3.
    #[must_use]
    pub const fn max_attempts(self) -> u32 {
        3
    }

    /// Quota cost of a retry that is neither throttled nor timed out.
    #[must_use]
    pub const fn retry_cost(self) -> u32 {
        match self {
            Self::V2_0 => 5,
            Self::V2_1 => 14,
        }
    }

    /// Quota cost of retrying a timeout (that is not a throttling error).
    #[must_use]
    pub const fn timeout_cost(self) -> u32 {
        match self {
            Self::V2_0 => 10,
            Self::V2_1 => 14,
        }
    }

    /// Quota cost of retrying a throttling error.
    #[must_use]
    pub const fn throttling_cost(self) -> u32 {
        5
    }

    /// What a success gives back to the quota when no retry was paid for: 1.
    #[must_use]
    pub const fn success_refund(self) -> u32 {
        1
    }

    /// Backoff after a failure that is not a throttling error.
    #[must_use]
    pub const fn backoff(self) -> Backoff {
        match self {
            Self::V2_0 => Backoff::FullJitter {
                base: Duration::from_secs(1),
                cap: MAX_BACKOFF,
            },
            Self::V2_1 => Backoff::FullJitter {
                base: Duration::from_millis(50),
                cap: MAX_BACKOFF,
            },
        }
    }

    /// Backoff after a throttling error: full jitter, base 1 s, cap 20 s.
    #[must_use]
    pub const fn throttling_backoff(self) -> Backoff {
        Backoff::FullJitter {
            base: Duration::from_secs(1),
            cap: MAX_BACKOFF,
        }
    }

    /// How `x-amz-retry-after` and other hints change the backoff.
    #[must_use]
    pub const fn retry_after(self) -> RetryAfterPolicy {
        match self {
            Self::V2_0 => RetryAfterPolicy::Ignore,
            Self::V2_1 => RetryAfterPolicy::AWS_BOUNDED,
        }
    }

    /// Whether an unmodeled HTTP 429 is a retryable throttling error.
    #[must_use]
    pub const fn unmodeled_429_is_throttling(self) -> bool {
        matches!(self, Self::V2_1)
    }

    /// Whether per-service defaults (DynamoDB's attempts and backoff base)
    /// and long-polling sleeps apply.
    #[must_use]
    pub const fn uses_service_defaults(self) -> bool {
        matches!(self, Self::V2_1)
    }
}
