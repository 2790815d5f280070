//! Why a strategy allows no further attempt: [`TokenAcquisitionFailed`],
//! and the gates every retrying strategy applies to a failure, in this
//! order, before any backoff or quota: not retryable, attempts exhausted, a
//! retry-after hint above the ceiling. Standard and legacy modes (and
//! adaptive through standard) share them, so their refusals read the same.

use core::time::Duration;

/// Why a strategy allows no (further) attempt. The executor returns the last
/// failure to its caller; this says why it stopped there.
///
/// The messages leave out the attempt count (it is in
/// [`attempts`](Self::attempts)): the executors' [`RetryError`](crate::RetryError)
/// names it once, before the reason.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::TokenAcquisitionFailed;
///
/// let why = TokenAcquisitionFailed::QuotaExhausted {
///     attempts: 2,
///     cost: 14,
///     available: 3,
///     delay_before_giving_up: None,
/// };
/// assert_eq!(why.attempts(), 2);
/// assert_eq!(
///     why.to_string(),
///     "retry quota exhausted: a retry costs 14, 3 left"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenAcquisitionFailed {
    /// The failure may not be retried (a client error, an explicit
    /// [`RetrySafety::No`](crate::RetrySafety::No), an unknown error).
    #[error("the failure is not retryable")]
    NotRetryable {
        /// Attempts made, including the failed one.
        attempts: u32,
    },
    /// Every allowed attempt was made.
    #[error("all {max_attempts} allowed attempts were made")]
    AttemptsExhausted {
        /// Attempts made.
        attempts: u32,
        /// The configured maximum (first attempt included).
        max_attempts: u32,
    },
    /// The shared retry quota cannot pay for another retry: the service is
    /// failing often, and retrying would only add load.
    #[error("retry quota exhausted: a retry costs {cost}, {available} left")]
    QuotaExhausted {
        /// Attempts made.
        attempts: u32,
        /// What the retry would have cost.
        cost: u32,
        /// What the quota had left.
        available: u32,
        /// For long-polling operations: the backoff to sleep before returning
        /// the failure, so that a polling loop does not spin (behaviour 2.1).
        delay_before_giving_up: Option<Duration>,
    },
    /// The service asked to wait longer than the configured ceiling (see
    /// [`RetryAfterPolicy::AtLeast`](crate::backoff::RetryAfterPolicy::AtLeast)):
    /// rather than sleep that long, or retry sooner than asked, give up now
    /// and let the caller reschedule.
    #[error("the service asked to wait {requested:?}, more than the {ceiling:?} ceiling")]
    RetryAfterTooLong {
        /// Attempts made.
        attempts: u32,
        /// The wait the service asked for.
        requested: Duration,
        /// The longest wait the strategy accepts.
        ceiling: Duration,
    },
    /// Adaptive mode's client-side rate limiter has no send token now and is
    /// set to fail fast ([`WaitPolicy::FailFast`](crate::rate_limiter::WaitPolicy::FailFast))
    /// rather than wait.
    #[error("rate limited: the next send token is {wait:?} away")]
    RateLimited {
        /// Attempts made (0 when the first attempt was refused).
        attempts: u32,
        /// How long until a send token would be available.
        wait: Duration,
    },
    /// The token handed in was made by another strategy (or another
    /// partition of one, or a strategy rebuilt since): it says nothing this
    /// strategy can account for, so it is refused, as the Smithy client
    /// guide's strategies refuse it with `IllegalArgumentException`. See
    /// [`TokenIssuer`](crate::TokenIssuer).
    #[error("attempt {attempts}'s token was issued by another strategy")]
    ForeignToken {
        /// The attempt number the token carries.
        attempts: u32,
    },
}

impl TokenAcquisitionFailed {
    /// How many attempts were made before the strategy stopped.
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        match self {
            Self::NotRetryable { attempts }
            | Self::AttemptsExhausted { attempts, .. }
            | Self::QuotaExhausted { attempts, .. }
            | Self::RetryAfterTooLong { attempts, .. }
            | Self::RateLimited { attempts, .. }
            | Self::ForeignToken { attempts } => *attempts,
        }
    }

    /// How long the executor sleeps before returning the failure: `Some` only
    /// for long-polling operations whose retry quota is exhausted.
    #[must_use]
    pub const fn delay_before_giving_up(&self) -> Option<Duration> {
        match self {
            Self::QuotaExhausted {
                delay_before_giving_up,
                ..
            } => *delay_before_giving_up,
            _ => None,
        }
    }
}

/// Whether attempt `attempts` (1-based, the one that failed) may be
/// retried: `retryable` is the classifier's verdict, `max_attempts` counts
/// the first attempt, and `refused_hint` says — only when asked, after the
/// first two gates passed — whether the failure's retry-after hint is above
/// the ceiling, as `(requested, ceiling)`.
pub(crate) fn check(
    attempts: u32,
    retryable: bool,
    max_attempts: u32,
    refused_hint: impl FnOnce() -> Option<(Duration, Duration)>,
) -> Result<(), TokenAcquisitionFailed> {
    if !retryable {
        return Err(TokenAcquisitionFailed::NotRetryable { attempts });
    }
    if attempts >= max_attempts {
        return Err(TokenAcquisitionFailed::AttemptsExhausted {
            attempts,
            max_attempts,
        });
    }
    if let Some((requested, ceiling)) = refused_hint() {
        return Err(TokenAcquisitionFailed::RetryAfterTooLong {
            attempts,
            requested,
            ceiling,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_apply_in_order() {
        let hint = || Some((Duration::from_secs(9), Duration::from_secs(5)));
        assert_eq!(
            check(1, false, 1, hint),
            Err(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
        assert_eq!(
            check(3, true, 3, hint),
            Err(TokenAcquisitionFailed::AttemptsExhausted {
                attempts: 3,
                max_attempts: 3
            })
        );
        assert_eq!(
            check(1, true, 3, hint),
            Err(TokenAcquisitionFailed::RetryAfterTooLong {
                attempts: 1,
                requested: Duration::from_secs(9),
                ceiling: Duration::from_secs(5)
            })
        );
        assert_eq!(check(1, true, 3, || None), Ok(()));
        // The hint is only looked at once the first two gates pass.
        assert!(check(3, true, 3, || unreachable!()).is_err());
    }
}
