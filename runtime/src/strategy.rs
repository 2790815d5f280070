//! The strategy interface of the Smithy client guide: [`RetryStrategy`] hands
//! out [`RetryToken`]s, one per attempt, and says [`TokenAcquisitionFailed`]
//! when no further attempt may be made.
//!
//! A strategy holds what is shared between requests (the retry quota, the
//! configuration); a token holds what belongs to one request (how many
//! attempts were made, what the last retry cost). Tokens are moved into every
//! call, so a spent token cannot be used twice: that is a compile error, not a
//! runtime check.
//!
//! # How an executor drives a strategy
//!
//! ```
//! use std::time::Duration;
//! use rebound_runtime::{
//!     ErrorFault, ErrorInfo, RetryInfo, RetrySafety, RetryStrategy, StandardRetryStrategy,
//! };
//!
//! #[derive(Debug)]
//! struct Unavailable;
//! impl RetryInfo for Unavailable {
//!     fn retry_safety(&self) -> RetrySafety {
//!         RetrySafety::Yes
//!     }
//! }
//! impl ErrorInfo for Unavailable {
//!     fn fault(&self) -> ErrorFault {
//!         ErrorFault::Server
//!     }
//! }
//!
//! fn call(attempt: u32) -> Result<&'static str, Unavailable> {
//!     if attempt < 3 { Err(Unavailable) } else { Ok("done") }
//! }
//!
//! let strategy = StandardRetryStrategy::new();
//! let mut slept = Duration::ZERO;
//! // The initial attempt is made even if no token can be had.
//! let mut token = strategy.acquire_initial_token().ok();
//! let result = loop {
//!     let attempt = token.as_ref().map_or(1, |t| t.attempt());
//!     slept += token.as_ref().map_or(Duration::ZERO, |t| t.delay()); // an executor sleeps here
//!     if let Some(token) = &mut token {
//!         // Right before sending: a rate-limiting strategy may ask to wait.
//!         while let rebound_runtime::SendPermit::Wait(wait) = strategy.acquire_send_permit(token)? {
//!             slept += wait;
//!         }
//!     }
//!     match call(attempt) {
//!         Ok(value) => {
//!             if let Some(token) = token {
//!                 strategy.record_success(token);
//!             }
//!             break Ok(value);
//!         }
//!         Err(failure) => {
//!             let Some(spent) = token else { break Err(failure) };
//!             match strategy.refresh_retry_token(spent, &failure) {
//!                 Ok(next) => token = Some(next),
//!                 Err(why) => {
//!                     slept += why.delay_before_giving_up().unwrap_or_default();
//!                     break Err(failure);
//!                 }
//!             }
//!         }
//!     }
//! };
//! assert_eq!(result.unwrap(), "done");
//! assert!(slept <= Duration::from_secs(3)); // two jittered retries: at most 1 s + 2 s
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::time::Duration;
use std::fmt::{self, Debug};

use crate::refusal::TokenAcquisitionFailed;
use crate::token::RetryToken;
use crate::vocabulary::FailureInfo;

/// A retry strategy, as the Smithy client guide defines it: it decides whether
/// and when a failed request is attempted again.
///
/// An executor calls [`acquire_initial_token`](Self::acquire_initial_token)
/// once per request, sleeps [`RetryToken::delay`], asks
/// [`acquire_send_permit`](Self::acquire_send_permit) (sleeping and asking
/// again while told to wait), makes the attempt, then
/// hands the token back: to [`refresh_retry_token`](Self::refresh_retry_token)
/// with the failure, which returns the token for the next attempt, or to
/// [`record_success`](Self::record_success). When a token cannot be
/// refreshed, the executor sleeps
/// [`TokenAcquisitionFailed::delay_before_giving_up`] (if any) and returns the
/// last failure.
///
/// The initial attempt is always made: if `acquire_initial_token` fails, the
/// executor makes one attempt without retries (the strategy manages retries;
/// it does not gate access to the service).
///
/// The trait is object safe, so clients can hold an `Arc<dyn RetryStrategy>`.
///
/// # Examples
///
/// Tokens are made by a [`TokenIssuer`](crate::TokenIssuer), which also
/// recognises them; its page has a complete strategy. A strategy that never
/// retries:
///
/// ```
/// use rebound_runtime::{FailureInfo, RetryStrategy, RetryToken, TokenAcquisitionFailed, TokenIssuer};
///
/// #[derive(Debug, Default)]
/// struct Once(TokenIssuer);
///
/// impl RetryStrategy for Once {
///     fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
///         Ok(self.0.initial_token())
///     }
///     fn refresh_retry_token(
///         &self,
///         token: RetryToken,
///         _failure: &dyn FailureInfo,
///     ) -> Result<RetryToken, TokenAcquisitionFailed> {
///         self.0.check(&token)?;
///         Err(TokenAcquisitionFailed::AttemptsExhausted { attempts: token.attempt(), max_attempts: 1 })
///     }
///     fn record_success(&self, _token: RetryToken) {}
/// }
///
/// let once = Once::default();
/// let failure = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let token = once.acquire_initial_token()?;
/// assert!(once.refresh_retry_token(token, &failure).is_err());
/// # Ok::<(), TokenAcquisitionFailed>(())
/// ```
pub trait RetryStrategy: Debug + Send + Sync {
    /// Called before the first attempt of a request.
    ///
    /// # Errors
    ///
    /// [`TokenAcquisitionFailed`] if the strategy will not track this request
    /// (for example a client-side rate limiter that fails fast). The executor
    /// still makes the initial attempt, without retries.
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed>;

    /// Called after an attempt failed, with that attempt's token and failure.
    /// Returns the token for the next attempt, whose
    /// [`delay`](RetryToken::delay) the executor sleeps first.
    ///
    /// # Errors
    ///
    /// [`TokenAcquisitionFailed`] when no further attempt may be made; the
    /// executor then returns `failure` to its caller.
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed>;

    /// Called after an attempt succeeded, so the strategy can give back what
    /// the request held (the retry quota refund).
    fn record_success(&self, token: RetryToken);

    /// Called right before the attempt `token` is for is sent, after its
    /// [`delay`](RetryToken::delay) was slept: the moment a client-side rate
    /// limiter takes its send token (AWS adaptive mode; botocore takes it in
    /// its before-send hook). [`SendPermit::Granted`]: send now.
    /// [`SendPermit::Wait`]: not yet; sleep that long and ask again with the
    /// same token (it holds the attempt's place in line, so callers waiting
    /// for a rate limiter are served in the order they asked).
    ///
    /// Asking only when the attempt is about to be sent means one request's
    /// backoff or retry-after hint never holds back another request, and
    /// nothing is taken for an attempt that is never made (the caller gave
    /// up, the budget ran out).
    ///
    /// The default grants every send: only strategies that limit the send
    /// rate override it.
    ///
    /// # Errors
    ///
    /// [`TokenAcquisitionFailed::RateLimited`] (or another refusal) when the
    /// attempt must not be sent at all, e.g. a rate limiter set to fail fast.
    /// The executor then returns without sending it. The token is spent:
    /// do not ask again with it.
    fn acquire_send_permit(
        &self,
        token: &mut RetryToken,
    ) -> Result<SendPermit, TokenAcquisitionFailed> {
        let _ = token;
        Ok(SendPermit::Granted)
    }

    /// Why this strategy retries `failure`, for listeners and logs
    /// ([`RetryEvent::kind`](crate::RetryEvent::kind)): it says nothing about
    /// *whether* it is retried, only which kind of retry it is when it is.
    ///
    /// The default reads the failure's own flags:
    /// [`is_throttle`](crate::RetryInfo::is_throttle) makes it a
    /// [`Throttle`](RetryKind::Throttle), else
    /// [`is_timeout`](crate::RetryInfo::is_timeout) a
    /// [`Timeout`](RetryKind::Timeout), else it is
    /// [`Transient`](RetryKind::Transient). Strategies with rules of their
    /// own override it (the AWS modes count a throttling error code as a
    /// throttle even without the flag).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::{NeverRetryStrategy, RetryKind, RetryStrategy, StandardRetryStrategy};
    ///
    /// let throttled = HttpErrorResponse::new(400).with_code("Throttling");
    /// // Standard mode knows the AWS throttling codes.
    /// assert_eq!(StandardRetryStrategy::new().retry_kind(&throttled), RetryKind::Throttle);
    /// // The default reads only the failure's flags.
    /// assert_eq!(NeverRetryStrategy.retry_kind(&throttled), RetryKind::Transient);
    /// assert_eq!(NeverRetryStrategy.retry_kind(&throttled.with_throttle(true)), RetryKind::Throttle);
    /// ```
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        RetryKind::from_flags(failure.is_throttle(), failure.is_timeout())
    }

    /// The most attempts this strategy makes for one request, the first
    /// included: what an attempt header such as `amz-sdk-request: attempt=2;
    /// max=3` reports as its maximum. `None` (the default) for a strategy
    /// without a fixed limit.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{NeverRetryStrategy, RetryStrategy, StandardRetryStrategy};
    ///
    /// fn header<S: RetryStrategy>(strategy: &S, attempt: u32) -> String {
    ///     match strategy.attempt_limit() {
    ///         Some(max) => format!("attempt={attempt}; max={max}"),
    ///         None => format!("attempt={attempt}"),
    ///     }
    /// }
    /// assert_eq!(header(&StandardRetryStrategy::new(), 2), "attempt=2; max=3");
    /// assert_eq!(header(&NeverRetryStrategy, 1), "attempt=1; max=1");
    /// ```
    fn attempt_limit(&self) -> Option<u32> {
        None
    }

    /// The tokens left in the strategy's retry quota, now; `None` (the
    /// default) for strategies without one. Read right after a retry, it is
    /// what is left once that retry was paid for
    /// ([`RetryEvent::quota_left`](crate::RetryEvent::quota_left)).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{NeverRetryStrategy, RetryStrategy, StandardRetryStrategy};
    ///
    /// assert_eq!(StandardRetryStrategy::new().quota_left(), Some(500));
    /// assert_eq!(NeverRetryStrategy.quota_left(), None);
    /// ```
    fn quota_left(&self) -> Option<u32> {
        None
    }

    /// The rate, in requests per second, a client-side rate limiter holds
    /// sends to now; `None` (the default) for strategies without one, and
    /// while the limiter is off (adaptive mode before its first throttle: see
    /// [`ClientRateLimiter::send_rate`](crate::rate_limiter::ClientRateLimiter::send_rate)).
    /// May take a lock: it is read only when asked.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy};
    ///
    /// assert_eq!(AdaptiveRetryStrategy::new().send_rate(), None); // until the first throttle
    /// ```
    fn send_rate(&self) -> Option<f64> {
        None
    }

    /// The request holding `token` makes no further attempt and reports no
    /// further outcome: its caller stopped before sending (the time
    /// budget ran out, the strategy refused a send permit), or the request
    /// was dropped before it ended (an async executor's or tower service's
    /// future cancelled, the operation panicking; an attempt sent then is
    /// never reported). The executors call it there; the default drops the
    /// token.
    ///
    /// Not part of the Smithy interface, whose tokens end only in
    /// [`record_success`](Self::record_success) or a refused
    /// [`refresh_retry_token`](Self::refresh_retry_token). The adaptive
    /// strategy needs it: a caller waiting for a send token holds a place in
    /// line, and one that leaves without a word holds the callers behind it
    /// back until its place lapses.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy};
    ///
    /// let strategy = AdaptiveRetryStrategy::new();
    /// let token = strategy.acquire_initial_token()?;
    /// strategy.abandon(token); // gave up before the first attempt
    /// # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
    /// ```
    fn abandon(&self, token: RetryToken) {
        drop(token);
    }
}

/// Why a strategy retries a failure: the kind of trouble the attempt ran
/// into. [`RetryStrategy::retry_kind`] says it; listeners read it from
/// [`RetryEvent::kind`](crate::RetryEvent::kind), and the `tracing` events
/// (feature `tracing`) record it as `why` ([`as_str`](Self::as_str)).
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetryKind;
///
/// assert_eq!(RetryKind::Throttle.as_str(), "throttle");
/// assert_eq!(RetryKind::Timeout.to_string(), "timeout");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryKind {
    /// The service throttled the request (a throttling error code or
    /// status, or an error that says it is a throttle).
    Throttle,
    /// A transient failure: a transient error code or status, a transport
    /// failure, an error modeled as retryable.
    Transient,
    /// The attempt timed out (and was not a throttle).
    Timeout,
}

impl RetryKind {
    /// `"throttle"`, `"transient"` or `"timeout"`: a label for logs and
    /// metrics.
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            Self::Throttle => "throttle",
            Self::Transient => "transient",
            Self::Timeout => "timeout",
        }
    }

    /// A throttle first, then a timeout, else transient: the order in which
    /// the AWS modes price a retry.
    pub(crate) const fn from_flags(throttling: bool, timeout: bool) -> Self {
        if throttling {
            Self::Throttle
        } else if timeout {
            Self::Timeout
        } else {
            Self::Transient
        }
    }
}

impl fmt::Display for RetryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The answer of [`RetryStrategy::acquire_send_permit`]: send the attempt
/// now, or wait first.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::{RetryStrategy, SendPermit, StandardRetryStrategy};
///
/// let strategy = StandardRetryStrategy::new();
/// let mut token = strategy.acquire_initial_token()?;
/// // Standard mode does not limit the send rate.
/// assert_eq!(strategy.acquire_send_permit(&mut token)?, SendPermit::Granted);
/// assert_eq!(SendPermit::Wait(Duration::from_millis(20)).wait(), Duration::from_millis(20));
/// # strategy.record_success(token);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "a permit says whether the attempt may be sent now"]
pub enum SendPermit {
    /// Send the attempt now: whatever it needed (a send token) is taken.
    Granted,
    /// Do not send yet: sleep this long, then ask again. Nothing was taken.
    Wait(Duration),
}

impl SendPermit {
    /// How long to wait before asking again: zero when granted.
    #[must_use]
    pub const fn wait(&self) -> Duration {
        match self {
            Self::Granted => Duration::ZERO,
            Self::Wait(wait) => *wait,
        }
    }
}

macro_rules! forward_retry_strategy {
    ($($pointer:ty),+ $(,)?) => {$(
        impl<S: RetryStrategy + ?Sized> RetryStrategy for $pointer {
            #[inline]
            fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
                S::acquire_initial_token(self)
            }
            #[inline]
            fn refresh_retry_token(
                &self,
                token: RetryToken,
                failure: &dyn FailureInfo,
            ) -> Result<RetryToken, TokenAcquisitionFailed> {
                S::refresh_retry_token(self, token, failure)
            }
            #[inline]
            fn record_success(&self, token: RetryToken) {
                S::record_success(self, token)
            }
            #[inline]
            fn acquire_send_permit(
                &self,
                token: &mut RetryToken,
            ) -> Result<SendPermit, TokenAcquisitionFailed> {
                S::acquire_send_permit(self, token)
            }
            #[inline]
            fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
                S::retry_kind(self, failure)
            }
            #[inline]
            fn attempt_limit(&self) -> Option<u32> {
                S::attempt_limit(self)
            }
            #[inline]
            fn quota_left(&self) -> Option<u32> {
                S::quota_left(self)
            }
            #[inline]
            fn send_rate(&self) -> Option<f64> {
                S::send_rate(self)
            }
            #[inline]
            fn abandon(&self, token: RetryToken) {
                S::abandon(self, token)
            }
        }
    )+};
}

forward_retry_strategy!(&S, std::boxed::Box<S>, std::sync::Arc<S>);
