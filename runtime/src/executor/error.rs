//! What an executor returns when it gives up: [`RetryError`], the last
//! failure with the attempt count and the [`StopReason`].

use core::time::Duration;
use std::fmt;

use crate::TokenAcquisitionFailed;

/// Why an executor made no further attempt.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::TokenAcquisitionFailed;
/// use rebound_runtime::executor::StopReason;
///
/// let reason = StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 });
/// assert_eq!(reason.to_string(), "attempt 1 failed with an error that is not retryable");
/// assert!(reason.strategy().is_some());
///
/// let reason = StopReason::BudgetExhausted {
///     budget: Duration::from_secs(5),
///     elapsed: Duration::from_secs(4),
///     next_delay: Duration::from_secs(2),
/// };
/// assert_eq!(
///     reason.to_string(),
///     "the next retry, 2s from now, would not start within the 5s budget (4s spent)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// The strategy allowed no further attempt
    /// ([`refresh_retry_token`](crate::RetryStrategy::refresh_retry_token)
    /// failed).
    Strategy(TokenAcquisitionFailed),
    /// The strategy gave no initial token
    /// ([`acquire_initial_token`](crate::RetryStrategy::acquire_initial_token)
    /// failed), so the one attempt that is always made was made without
    /// retries.
    NoInitialToken(TokenAcquisitionFailed),
    /// The strategy allowed a retry, but it would not have started within the
    /// total-time [budget](super::Retry::budget).
    BudgetExhausted {
        /// The budget for all attempts and the sleeps between them.
        budget: Duration,
        /// Time spent when the last attempt failed.
        elapsed: Duration,
        /// The delay the strategy asked for before the retry.
        next_delay: Duration,
    },
}

impl StopReason {
    /// The strategy's refusal, for [`Strategy`](Self::Strategy) and
    /// [`NoInitialToken`](Self::NoInitialToken).
    #[must_use]
    pub const fn strategy(&self) -> Option<&TokenAcquisitionFailed> {
        match self {
            Self::Strategy(why) | Self::NoInitialToken(why) => Some(why),
            Self::BudgetExhausted { .. } => None,
        }
    }

    /// Whether the total-time budget ended the request.
    #[must_use]
    pub const fn is_budget_exhausted(&self) -> bool {
        matches!(self, Self::BudgetExhausted { .. })
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Strategy(why) => fmt::Display::fmt(why, f),
            Self::NoInitialToken(why) => {
                write!(
                    f,
                    "the strategy gave no initial token, so no retries ({why})"
                )
            }
            Self::BudgetExhausted {
                budget,
                elapsed,
                next_delay,
            } => write!(
                f,
                "the next retry, {next_delay:?} from now, would not start within the \
                 {budget:?} budget ({elapsed:?} spent)"
            ),
        }
    }
}

/// The error an executor returns: the last attempt's failure, how many
/// attempts were made, and why no further one was.
///
/// [`source`](std::error::Error::source) is the last failure, and the
/// [`Display`](fmt::Display) text names the attempt count and the reason, not
/// the failure itself (error reporters print the source chain).
///
/// # Examples
///
/// ```
/// use std::error::Error as _;
/// use rebound_runtime::TokenAcquisitionFailed;
/// use rebound_runtime::executor::{RetryError, StopReason};
///
/// let failure = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let why = TokenAcquisitionFailed::AttemptsExhausted { attempts: 3, max_attempts: 3 };
/// let err = RetryError::new(failure, 3, StopReason::Strategy(why));
///
/// assert_eq!(err.to_string(), "gave up after 3 attempts: all 3 allowed attempts were made");
/// assert_eq!(err.attempts(), 3);
/// assert_eq!(err.last_error().kind(), std::io::ErrorKind::ConnectionReset);
/// assert!(err.source().is_some());
/// let failure: std::io::Error = err.into_inner();
/// # let _ = failure;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    last_error: E,
    attempts: u32,
    reason: StopReason,
}

impl<E> RetryError<E> {
    /// An error for `last_error`, the failure of attempt number `attempts`.
    pub const fn new(last_error: E, attempts: u32, reason: StopReason) -> Self {
        Self {
            last_error,
            attempts,
            reason,
        }
    }

    /// The last attempt's failure.
    #[must_use]
    pub const fn last_error(&self) -> &E {
        &self.last_error
    }

    /// How many attempts were made, the first one included.
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Why no further attempt was made.
    #[must_use]
    pub const fn reason(&self) -> &StopReason {
        &self.reason
    }

    /// The last attempt's failure, for callers that only propagate it.
    pub fn into_inner(self) -> E {
        self.last_error
    }

    /// The last failure, the attempt count and the reason.
    pub fn into_parts(self) -> (E, u32, StopReason) {
        (self.last_error, self.attempts, self.reason)
    }

    /// The same error with the failure mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::TokenAcquisitionFailed;
    /// use rebound_runtime::executor::{RetryError, StopReason};
    ///
    /// let why = StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 });
    /// let err = RetryError::new(404_u16, 1, why).map_err(|status| format!("HTTP {status}"));
    /// assert_eq!(err.last_error(), "HTTP 404");
    /// ```
    pub fn map_err<F, E2>(self, f: F) -> RetryError<E2>
    where
        F: FnOnce(E) -> E2,
    {
        RetryError {
            last_error: f(self.last_error),
            attempts: self.attempts,
            reason: self.reason,
        }
    }
}

impl<E> fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let attempts = self.attempts;
        let noun = if attempts == 1 { "attempt" } else { "attempts" };
        write!(f, "gave up after {attempts} {noun}: {}", self.reason)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for RetryError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.last_error)
    }
}
