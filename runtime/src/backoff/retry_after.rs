//! [`RetryAfterPolicy`]: what to do with a wait the service asked for
//! (`x-amz-retry-after`, `Retry-After`, [`RetryInfo::retry_after`]).
//!
//! The Smithy guide says a hint is a minimum: a client may wait longer, not
//! shorter. Honouring it blindly lets one response park a client for hours,
//! so every policy here bounds it: behaviour 2.1 bounds the extra wait to a
//! few seconds past the backoff, and [`AtLeast`](RetryAfterPolicy::AtLeast)
//! gives up (with [`TokenAcquisitionFailed::RetryAfterTooLong`]) when the
//! hint is above a ceiling, so the caller learns at once and can reschedule.
//!
//! [`RetryInfo::retry_after`]: crate::RetryInfo::retry_after
//! [`TokenAcquisitionFailed::RetryAfterTooLong`]: crate::TokenAcquisitionFailed::RetryAfterTooLong

use core::time::Duration;

use super::secs_to_duration;

/// How a retry-after hint changes the backoff delay `t`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::backoff::RetryAfterPolicy;
///
/// let secs = Duration::from_secs;
/// let t = Duration::from_millis(300); // the computed backoff
///
/// // Behaviour 2.0 (botocore 1.35): hints are ignored.
/// assert_eq!(RetryAfterPolicy::Ignore.apply(t, Some(secs(30))), t);
///
/// // Behaviour 2.1: max(t, min(hint, t + 5 s)).
/// let aws = RetryAfterPolicy::AWS_BOUNDED;
/// assert_eq!(aws.apply(t, Some(secs(2))), secs(2));
/// assert_eq!(aws.apply(t, Some(secs(30))), t + secs(5));
///
/// // A minimum up to a ceiling; above it, the strategy gives up.
/// let at_least = RetryAfterPolicy::AtLeast { ceiling: secs(60) };
/// assert_eq!(at_least.apply(t, Some(secs(30))), secs(30));
/// assert!(at_least.honours(Some(secs(30))));
/// assert!(!at_least.honours(Some(secs(3600))));
///
/// // The AWS SDK for Rust before behaviour 2.1: the hint, up to a cap, in place of the backoff.
/// let replace = RetryAfterPolicy::Replace { cap: secs(20) };
/// assert_eq!(replace.apply(t, Some(Duration::from_millis(100))), Duration::from_millis(100));
/// assert_eq!(replace.apply(t, Some(secs(30))), secs(20));
/// assert_eq!(replace.apply(t, None), t);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RetryAfterPolicy {
    /// Use the backoff alone (retry behaviour 2.0, like botocore 1.35).
    Ignore,
    /// `max(t, min(hint, t + max_additional))`: the hint raises the delay by
    /// at most `max_additional` (retry behaviour 2.1, 5 s). Never gives up.
    AwsBounded {
        /// The most the hint may add to the backoff.
        max_additional: Duration,
    },
    /// `max(t, hint)`: the hint is a true minimum, as the Smithy guide
    /// recommends. A hint above `ceiling` makes the strategy give up at once
    /// ([`TokenAcquisitionFailed::RetryAfterTooLong`](crate::TokenAcquisitionFailed::RetryAfterTooLong)),
    /// without taking retry quota: neither a multi-hour sleep nor a retry
    /// earlier than the service asked.
    AtLeast {
        /// The longest hint honoured.
        ceiling: Duration,
    },
    /// `min(hint, cap)` in place of the backoff, which may make the delay
    /// shorter than the backoff: the AWS SDK for Rust's standard strategy
    /// without retry behaviour 2.1 (`cap` its 20 s maximum backoff). Never
    /// gives up.
    Replace {
        /// The longest wait a hint may ask for.
        cap: Duration,
    },
}

impl RetryAfterPolicy {
    /// Plain HTTP's `Retry-After` (RFC 9110, section 10.2.3): a minimum, up
    /// to 20 s (the standard mode's backoff cap); a longer hint makes the
    /// strategy give up at once. The policy of
    /// [`StandardRetryStrategy::for_http`](crate::StandardRetryStrategy::for_http).
    pub const HTTP: Self = Self::AtLeast {
        ceiling: Duration::from_secs(20),
    };

    /// Behaviour 2.1's policy: at most 5 s added to the backoff.
    pub const AWS_BOUNDED: Self = Self::AwsBounded {
        max_additional: Duration::from_secs(5),
    };

    /// Whether a retry may follow this hint at all: `false` only for an
    /// [`AtLeast`](Self::AtLeast) policy and a hint above its ceiling.
    #[must_use]
    pub fn honours(&self, hint: Option<Duration>) -> bool {
        self.refusal(hint).is_none()
    }

    /// The hint and the ceiling, when the hint is above the ceiling of an
    /// [`AtLeast`](Self::AtLeast) policy.
    pub(crate) fn refusal(&self, hint: Option<Duration>) -> Option<(Duration, Duration)> {
        match (*self, hint) {
            (Self::AtLeast { ceiling }, Some(requested)) if requested > ceiling => {
                Some((requested, ceiling))
            }
            _ => None,
        }
    }

    /// The delay once `hint` is taken into account. For
    /// [`AtLeast`](Self::AtLeast), ask [`honours`](Self::honours) first:
    /// `apply` itself does not enforce the ceiling.
    #[must_use]
    pub fn apply(&self, backoff: Duration, hint: Option<Duration>) -> Duration {
        secs_to_duration(self.apply_secs(backoff.as_secs_f64(), hint))
    }

    /// [`apply`](Self::apply) on `f64` seconds, the precision the reference
    /// computes in.
    pub(crate) fn apply_secs(&self, backoff: f64, hint: Option<Duration>) -> f64 {
        let Some(hint) = hint else { return backoff };
        let hint = hint.as_secs_f64();
        match *self {
            Self::Ignore => backoff,
            Self::AwsBounded { max_additional } => {
                backoff.max(hint.min(backoff + max_additional.as_secs_f64()))
            }
            Self::AtLeast { .. } => backoff.max(hint),
            Self::Replace { cap } => hint.min(cap.as_secs_f64()),
        }
    }
}
