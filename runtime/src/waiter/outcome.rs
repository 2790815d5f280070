//! What a waiter returns when the operation did not become ready:
//! [`WaitError`], with the [`GiveUpReason`] when it stopped polling on its
//! own.

use core::time::Duration;
use std::fmt;

/// Why a waiter stopped polling an operation that was still pending.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::waiter::GiveUpReason;
///
/// let reason = GiveUpReason::MaxPolls { max_polls: 5 };
/// assert_eq!(reason.to_string(), "all 5 allowed polls were made");
/// let reason = GiveUpReason::MaxPolls { max_polls: 1 };
/// assert_eq!(reason.to_string(), "the one allowed poll was made");
///
/// let reason = GiveUpReason::Budget { budget: Duration::from_secs(30) };
/// assert_eq!(reason.to_string(), "the 30s budget ran out");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum GiveUpReason {
    /// The last allowed poll was made and found the operation pending.
    #[error("{}", AllowedPolls(*.max_polls))]
    MaxPolls {
        /// The [maximum number of polls](super::WaiterBuilder::max_polls).
        max_polls: u32,
    },
    /// The total-time [budget](super::WaiterBuilder::budget) ran out: the
    /// poll made when it ended found the operation pending.
    #[error("the {budget:?} budget ran out")]
    Budget {
        /// The budget for all polls and the sleeps between them.
        budget: Duration,
    },
}

/// The error a waiter returns: it gave up on an operation that was still
/// pending, or the operation failed. Success is the `Ok` of the waiter's
/// `Result`: `Result<T, WaitError<E>>` is the waiter's typed outcome.
///
/// Both variants say how many polls were made and how much time (read from
/// the waiter's [clock](super::WaiterBuilder::clock)) had passed since the
/// first one started. The [`Display`](fmt::Display) text names both; for
/// [`Failed`](Self::Failed), the error is the
/// [`source`](std::error::Error::source), not part of the text (error
/// reporters print the source chain).
///
/// # Examples
///
/// ```
/// use std::error::Error as _;
/// use std::time::Duration;
/// use rebound_runtime::waiter::{GiveUpReason, WaitError};
///
/// let gave_up = WaitError::<std::io::Error>::GaveUp {
///     polls: 4,
///     elapsed: Duration::from_secs(10),
///     reason: GiveUpReason::Budget { budget: Duration::from_secs(10) },
/// };
/// assert_eq!(gave_up.to_string(), "gave up after 4 polls in 10s: the 10s budget ran out");
/// assert!(gave_up.is_gave_up());
/// assert!(gave_up.source().is_none());
///
/// let failed = WaitError::Failed {
///     polls: 1,
///     elapsed: Duration::ZERO,
///     error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
/// };
/// assert_eq!(failed.to_string(), "the operation failed on poll 1, after 0ns");
/// assert_eq!(failed.error().map(|e| e.kind()), Some(std::io::ErrorKind::PermissionDenied));
/// assert!(failed.source().is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WaitError<E> {
    /// The operation was still pending ([`NotReady`](super::PollStatus::NotReady)
    /// or [`Throttled`](super::PollStatus::Throttled)) when the waiter
    /// stopped polling.
    #[error("gave up after {} in {elapsed:?}: {reason}", PollCount(*.polls))]
    GaveUp {
        /// How many polls were made, the first one included.
        polls: u32,
        /// Time from the start of the first poll to the end of the last one.
        elapsed: Duration,
        /// Which limit stopped the waiter.
        reason: GiveUpReason,
    },
    /// A poll returned [`Failed`](super::PollStatus::Failed): the waiter
    /// stopped at once.
    #[error("the operation failed on poll {polls}, after {elapsed:?}")]
    Failed {
        /// How many polls were made: the failed one was the last.
        polls: u32,
        /// Time from the start of the first poll to the end of the failed one.
        elapsed: Duration,
        /// The failure the poll returned.
        #[source]
        error: E,
    },
}

impl<E> WaitError<E> {
    /// How many polls were made, the first one included.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaitError;
    ///
    /// let err = WaitError::Failed { polls: 3, elapsed: Duration::from_secs(6), error: "gone" };
    /// assert_eq!(err.polls(), 3);
    /// ```
    #[must_use]
    pub const fn polls(&self) -> u32 {
        match self {
            Self::GaveUp { polls, .. } | Self::Failed { polls, .. } => *polls,
        }
    }

    /// Time from the start of the first poll to the end of the last one.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaitError;
    ///
    /// let err = WaitError::Failed { polls: 3, elapsed: Duration::from_secs(6), error: "gone" };
    /// assert_eq!(err.elapsed(), Duration::from_secs(6));
    /// ```
    #[must_use]
    pub const fn elapsed(&self) -> Duration {
        match self {
            Self::GaveUp { elapsed, .. } | Self::Failed { elapsed, .. } => *elapsed,
        }
    }

    /// Whether the waiter gave up on a pending operation (rather than the
    /// operation failing).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::{GiveUpReason, WaitError};
    ///
    /// let reason = GiveUpReason::MaxPolls { max_polls: 2 };
    /// let err = WaitError::<()>::GaveUp { polls: 2, elapsed: Duration::from_secs(2), reason };
    /// assert!(err.is_gave_up());
    /// ```
    #[must_use]
    pub const fn is_gave_up(&self) -> bool {
        matches!(self, Self::GaveUp { .. })
    }

    /// Which limit stopped the waiter, if it gave up.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::{GiveUpReason, WaitError};
    ///
    /// let reason = GiveUpReason::MaxPolls { max_polls: 2 };
    /// let err = WaitError::<()>::GaveUp { polls: 2, elapsed: Duration::from_secs(2), reason };
    /// assert_eq!(err.reason(), Some(&reason));
    /// ```
    #[must_use]
    pub const fn reason(&self) -> Option<&GiveUpReason> {
        match self {
            Self::GaveUp { reason, .. } => Some(reason),
            Self::Failed { .. } => None,
        }
    }

    /// The failure a poll returned, if the operation failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaitError;
    ///
    /// let err = WaitError::Failed { polls: 1, elapsed: Duration::ZERO, error: 404_u16 };
    /// assert_eq!(err.error(), Some(&404));
    /// ```
    #[must_use]
    pub const fn error(&self) -> Option<&E> {
        match self {
            Self::Failed { error, .. } => Some(error),
            Self::GaveUp { .. } => None,
        }
    }

    /// The failure a poll returned, if the operation failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaitError;
    ///
    /// let err = WaitError::Failed { polls: 1, elapsed: Duration::ZERO, error: String::from("gone") };
    /// assert_eq!(err.into_error().as_deref(), Some("gone"));
    /// ```
    pub fn into_error(self) -> Option<E> {
        match self {
            Self::Failed { error, .. } => Some(error),
            Self::GaveUp { .. } => None,
        }
    }

    /// The same outcome with the failure mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::waiter::WaitError;
    ///
    /// let err = WaitError::Failed { polls: 1, elapsed: Duration::ZERO, error: 404_u16 };
    /// let err = err.map_err(|status| format!("HTTP {status}"));
    /// assert_eq!(err.error().map(String::as_str), Some("HTTP 404"));
    /// ```
    pub fn map_err<E2, F: FnOnce(E) -> E2>(self, f: F) -> WaitError<E2> {
        match self {
            Self::GaveUp {
                polls,
                elapsed,
                reason,
            } => WaitError::GaveUp {
                polls,
                elapsed,
                reason,
            },
            Self::Failed {
                polls,
                elapsed,
                error,
            } => WaitError::Failed {
                polls,
                elapsed,
                error: f(error),
            },
        }
    }
}

/// "1 poll", "2 polls".
struct PollCount(u32);

impl fmt::Display for PollCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.0 == 1 { "poll" } else { "polls" };
        write!(f, "{} {noun}", self.0)
    }
}

/// "all 5 allowed polls were made", "the one allowed poll was made".
struct AllowedPolls(u32);

impl fmt::Display for AllowedPolls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("the one allowed poll was made"),
            n => write!(f, "all {n} allowed polls were made"),
        }
    }
}
