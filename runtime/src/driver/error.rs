//! What an executor returns when it gives up: [`RetryError`], the last
//! failure with the attempt count and the [`StopReason`].

use core::time::Duration;
use std::fmt;

use crate::refusal::TokenAcquisitionFailed;

/// Why an executor made no further attempt.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::TokenAcquisitionFailed;
/// use rebound_runtime::StopReason;
///
/// let reason = StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 });
/// assert_eq!(reason.to_string(), "the failure is not retryable");
/// assert!(reason.strategy().is_some());
///
/// let reason = StopReason::BudgetExhausted {
///     budget: Duration::from_secs(5),
///     elapsed: Duration::from_secs(4),
///     next_delay: Duration::from_secs(2),
/// };
/// assert_eq!(
///     reason.to_string(),
///     "the next attempt, 2s from now, would not start within the 5s budget (4s spent)"
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
    /// The next attempt (the first one included) would not have started
    /// within the total-time [budget](crate::Retry::budget): a wait before
    /// it — the initial token's delay, a retry's backoff, or a wait for a
    /// send permit — would not end in time. It was not slept.
    BudgetExhausted {
        /// The budget for all attempts and the waits before them.
        budget: Duration,
        /// Time spent when the wait was due.
        elapsed: Duration,
        /// The wait that would not end within the budget.
        next_delay: Duration,
    },
    /// The request could not be cloned (its body is a stream, say), so the
    /// attempt made was the last. A tower `RetryService` (feature `tower`)
    /// finds out when the strategy grants a retry and its `CloneRequest`
    /// policy gives no copy: the granted retry is abandoned, as one the
    /// budget refuses is. reqwest's `send_with_retry` (feature `reqwest`)
    /// knows before sending, and sends such a request once without asking
    /// the strategy.
    RequestNotClonable,
    /// The service failed while getting ready for an attempt: a tower
    /// `RetryService` (feature `tower`) got an error from its inner
    /// service's `poll_ready`. That error is the
    /// [`last_error`](RetryError::last_error) (no attempt's failure, so it
    /// comes with the attempts made before it, 0 when the service was not
    /// ready for the first one), and the service is not asked again: a tower
    /// service that fails to get ready is done.
    ServiceNotReady,
}

impl StopReason {
    /// The strategy's refusal, for [`Strategy`](Self::Strategy) and
    /// [`NoInitialToken`](Self::NoInitialToken).
    #[must_use]
    pub const fn strategy(&self) -> Option<&TokenAcquisitionFailed> {
        match self {
            Self::Strategy(why) | Self::NoInitialToken(why) => Some(why),
            Self::BudgetExhausted { .. } | Self::RequestNotClonable | Self::ServiceNotReady => None,
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
                "the next attempt, {next_delay:?} from now, would not start within the \
                 {budget:?} budget ({elapsed:?} spent)"
            ),
            Self::RequestNotClonable => f.write_str("the request could not be cloned for a retry"),
            Self::ServiceNotReady => f.write_str("the service failed to get ready for an attempt"),
        }
    }
}

/// The error an executor returns: the last attempt's failure, how many
/// attempts were made, and why no further one was.
///
/// A request can stop before its first attempt — the total-time budget runs
/// out during the initial wait, or a fail-fast rate limiter refuses the send —
/// so the failure is an `Option`: `None` when no attempt was made
/// ([`attempts`](Self::attempts) is 0). The one error that is no attempt's
/// failure is a tower service's failure to get ready
/// ([`StopReason::ServiceNotReady`]): it comes with the attempts made before
/// it, 0 included.
///
/// The [`Display`](fmt::Display) text names the attempt count, the reason
/// and the last failure, so a plain `{err}` in a log line says everything.
/// Because the message already shows the last failure,
/// [`source`](std::error::Error::source) skips it and returns *its* source:
/// error reporters that walk the chain (anyhow's `{:#}`, say) print each
/// message once. Get the failure itself with [`last_error`](Self::last_error).
///
/// # Examples
///
/// ```
/// use std::error::Error as _;
/// use rebound_runtime::TokenAcquisitionFailed;
/// use rebound_runtime::{RetryError, StopReason};
///
/// let failure = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let why = TokenAcquisitionFailed::AttemptsExhausted { attempts: 3, max_attempts: 3 };
/// let err = RetryError::new(failure, 3, StopReason::Strategy(why));
///
/// assert_eq!(
///     err.to_string(),
///     "gave up after 3 attempts: all 3 allowed attempts were made; last error: connection reset"
/// );
/// assert_eq!(err.attempts(), 3);
/// assert_eq!(err.last_error().unwrap().kind(), std::io::ErrorKind::ConnectionReset);
/// assert!(err.source().is_none()); // the message shows the last error; it has no source of its own
/// let failure: Option<std::io::Error> = err.into_inner();
/// # let _ = failure;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    last_error: Option<E>,
    attempts: u32,
    reason: StopReason,
}

impl<E> RetryError<E> {
    /// An error for `last_error`, the failure of attempt number `attempts`.
    pub const fn new(last_error: E, attempts: u32, reason: StopReason) -> Self {
        Self {
            last_error: Some(last_error),
            attempts,
            reason,
        }
    }

    /// A request that stopped before its first attempt: no failure, zero
    /// attempts.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::{RetryError, StopReason};
    ///
    /// let reason = StopReason::BudgetExhausted {
    ///     budget: Duration::from_secs(30),
    ///     elapsed: Duration::ZERO,
    ///     next_delay: Duration::from_secs(59),
    /// };
    /// let err = RetryError::<std::io::Error>::before_first_attempt(reason);
    /// assert_eq!(err.attempts(), 0);
    /// assert!(err.last_error().is_none());
    /// assert_eq!(
    ///     err.to_string(),
    ///     "gave up before the first attempt: the next attempt, 59s from now, would not start within the 30s budget (0ns spent)"
    /// );
    /// ```
    pub const fn before_first_attempt(reason: StopReason) -> Self {
        Self {
            last_error: None,
            attempts: 0,
            reason,
        }
    }

    /// The request stopped before attempt `attempts + 1`; `last_error` is
    /// attempt `attempts`'s failure (`None` when no attempt was made).
    pub(crate) fn stopped(last_error: Option<E>, attempts: u32, reason: StopReason) -> Self {
        Self {
            last_error,
            attempts,
            reason,
        }
    }

    /// The last attempt's failure (or, with
    /// [`StopReason::ServiceNotReady`], the service's error); `None` when no
    /// attempt was made.
    #[must_use]
    pub const fn last_error(&self) -> Option<&E> {
        self.last_error.as_ref()
    }

    /// How many attempts were made, the first one included (0 when the
    /// request stopped before its first attempt).
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Why no further attempt was made.
    #[must_use]
    pub const fn reason(&self) -> &StopReason {
        &self.reason
    }

    /// The last attempt's failure, for callers that only propagate it;
    /// `None` when no attempt was made.
    pub fn into_inner(self) -> Option<E> {
        self.last_error
    }

    /// The last failure, the attempt count and the reason.
    pub fn into_parts(self) -> (Option<E>, u32, StopReason) {
        (self.last_error, self.attempts, self.reason)
    }

    /// The same error with the failure mapped by `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::TokenAcquisitionFailed;
    /// use rebound_runtime::{RetryError, StopReason};
    ///
    /// let why = StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 });
    /// let err = RetryError::new(404_u16, 1, why).map_err(|status| format!("HTTP {status}"));
    /// assert_eq!(err.last_error().map(String::as_str), Some("HTTP 404"));
    /// ```
    pub fn map_err<F, E2>(self, f: F) -> RetryError<E2>
    where
        F: FnOnce(E) -> E2,
    {
        RetryError {
            last_error: self.last_error.map(f),
            attempts: self.attempts,
            reason: self.reason,
        }
    }
}

impl<E: fmt::Display> fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.attempts {
            0 => write!(f, "gave up before the first attempt: {}", self.reason)?,
            1 => write!(f, "gave up after 1 attempt: {}", self.reason)?,
            attempts => write!(f, "gave up after {attempts} attempts: {}", self.reason)?,
        }
        match &self.last_error {
            Some(error) => write!(f, "; last error: {error}"),
            None => Ok(()),
        }
    }
}

/// The source is the last failure's source: the last failure itself is in
/// the message.
impl<E: std::error::Error + 'static> std::error::Error for RetryError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.last_error.as_ref().and_then(|error| error.source())
    }
}
