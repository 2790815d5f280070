//! The bounded attribute values of the instruments: an attempt's outcome, a
//! failure's kind, a give-up's reason. Each is a closed set, so a metric's
//! series count cannot grow with traffic.

use core::fmt;

use crate::driver::error::StopReason;
use crate::refusal::TokenAcquisitionFailed;
use crate::strategy::RetryKind;
use crate::vocabulary::RetrySafety;

/// How an attempt ended.
///
/// # Examples
///
/// ```
/// use rebound_runtime::observe::Outcome;
///
/// assert_eq!(Outcome::RetryableFailure.as_str(), "retryable_failure");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The attempt succeeded.
    Success,
    /// The attempt failed with a failure the strategy retries (whether or
    /// not a retry was then made: the quota or the attempts may be spent).
    RetryableFailure,
    /// The attempt failed with a failure that is not retried.
    NonRetryableFailure,
}

impl Outcome {
    /// Every outcome, in a fixed order.
    pub const ALL: [Self; 3] = [
        Self::Success,
        Self::RetryableFailure,
        Self::NonRetryableFailure,
    ];

    /// `"success"`, `"retryable_failure"` or `"non_retryable_failure"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::RetryableFailure => "retryable_failure",
            Self::NonRetryableFailure => "non_retryable_failure",
        }
    }
}

/// What kind of trouble a failed attempt ran into.
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetryKind;
/// use rebound_runtime::observe::FailureKind;
///
/// assert_eq!(FailureKind::from(RetryKind::Throttle), FailureKind::Throttle);
/// assert_eq!(FailureKind::Other.as_str(), "other");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The service throttled the attempt.
    Throttle,
    /// A transient failure: a transient status or code, a transport failure.
    Transient,
    /// The attempt timed out.
    Timeout,
    /// Neither: a failure that is not retried for what it is (a validation
    /// error, a "not found").
    Other,
}

impl FailureKind {
    /// Every kind, in a fixed order.
    pub const ALL: [Self; 4] = [Self::Throttle, Self::Transient, Self::Timeout, Self::Other];

    /// `"throttle"`, `"transient"`, `"timeout"` or `"other"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Throttle => "throttle",
            Self::Transient => "transient",
            Self::Timeout => "timeout",
            Self::Other => "other",
        }
    }

    /// The kind of a failure that is not retried: a throttle or a timeout
    /// stays one, anything else is [`Other`](Self::Other).
    pub(crate) const fn not_retried(kind: RetryKind) -> Self {
        match kind {
            RetryKind::Throttle => Self::Throttle,
            RetryKind::Timeout => Self::Timeout,
            RetryKind::Transient => Self::Other,
        }
    }
}

impl From<RetryKind> for FailureKind {
    fn from(kind: RetryKind) -> Self {
        match kind {
            RetryKind::Throttle => Self::Throttle,
            RetryKind::Transient => Self::Transient,
            RetryKind::Timeout => Self::Timeout,
        }
    }
}

/// Why a request gave up.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::StopReason;
/// use rebound_runtime::observe::GiveUpReason;
///
/// let budget = StopReason::BudgetExhausted {
///     budget: Duration::from_secs(1),
///     elapsed: Duration::from_millis(900),
///     next_delay: Duration::from_millis(200),
/// };
/// assert_eq!(GiveUpReason::of(&budget), GiveUpReason::Budget);
/// assert_eq!(GiveUpReason::Budget.as_str(), "budget");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GiveUpReason {
    /// The strategy's attempts were used up.
    AttemptsExhausted,
    /// The retry quota could not pay for the retry.
    QuotaExhausted,
    /// A fail-fast rate limiter refused to send the attempt.
    RateLimited,
    /// The next attempt would not start within the executor's time budget.
    Budget,
    /// The failure is not retryable.
    NotRetryable,
    /// Anything else: a retry-after hint too long, a request that cannot be
    /// cloned, a service that failed to become ready, a foreign token.
    Other,
}

impl GiveUpReason {
    /// Every reason, in a fixed order.
    pub const ALL: [Self; 6] = [
        Self::AttemptsExhausted,
        Self::QuotaExhausted,
        Self::RateLimited,
        Self::Budget,
        Self::NotRetryable,
        Self::Other,
    ];

    /// The reason of a [`StopReason`]. A strategy that gave no initial token
    /// is read by why it gave none.
    #[must_use]
    pub const fn of(reason: &StopReason) -> Self {
        match reason {
            StopReason::Strategy(why) | StopReason::NoInitialToken(why) => match why {
                TokenAcquisitionFailed::AttemptsExhausted { .. } => Self::AttemptsExhausted,
                TokenAcquisitionFailed::QuotaExhausted { .. } => Self::QuotaExhausted,
                TokenAcquisitionFailed::RateLimited { .. } => Self::RateLimited,
                TokenAcquisitionFailed::NotRetryable { .. } => Self::NotRetryable,
                _ => Self::Other,
            },
            StopReason::BudgetExhausted { .. } => Self::Budget,
            _ => Self::Other,
        }
    }

    /// `"attempts_exhausted"`, `"quota_exhausted"`, `"rate_limited"`,
    /// `"budget"`, `"not_retryable"` or `"other"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AttemptsExhausted => "attempts_exhausted",
            Self::QuotaExhausted => "quota_exhausted",
            Self::RateLimited => "rate_limited",
            Self::Budget => "budget",
            Self::NotRetryable => "not_retryable",
            Self::Other => "other",
        }
    }
}

/// The outcome of the attempt a request gave up after: not retryable when
/// the strategy said so, or, for a request the strategy did not track, when
/// the failure says so itself.
pub(crate) fn failed_outcome(reason: &StopReason, safety: RetrySafety) -> Outcome {
    let not_retryable = match reason {
        StopReason::Strategy(why) => matches!(why, TokenAcquisitionFailed::NotRetryable { .. }),
        StopReason::NoInitialToken(_) => safety == RetrySafety::No,
        _ => false,
    };
    if not_retryable {
        Outcome::NonRetryableFailure
    } else {
        Outcome::RetryableFailure
    }
}

macro_rules! display_as_str {
    ($($ty:ty),*) => {$(
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(Outcome, FailureKind, GiveUpReason);
