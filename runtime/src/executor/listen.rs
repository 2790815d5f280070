//! Observing a request's retries: a [`RetryListener`] hears of every retry
//! (the failure, the attempt that failed, the delay before the next one) and
//! of the give-up (why, after how many attempts). Metrics and logging build
//! on it without wrapping the operation.
//!
//! The default listener does nothing and costs nothing: its calls are empty
//! and inlined away.

use core::time::Duration;

use super::StopReason;
use super::classifier::Classify;
use super::request::{Request, Step};
use crate::time::Clock;
use crate::{FailureInfo, RetryStrategy};

/// An attempt failed and the strategy granted a retry.
#[derive(Clone, Copy)]
pub struct RetryEvent<'a> {
    failure: &'a dyn FailureInfo,
    attempt: u32,
    delay: Duration,
}

impl<'a> RetryEvent<'a> {
    /// The failure, as the strategy classified it (its
    /// [`RetryInfo`](crate::RetryInfo) and [`ErrorInfo`](crate::ErrorInfo)).
    #[must_use]
    pub fn failure(&self) -> &'a dyn FailureInfo {
        self.failure
    }

    /// The 1-based number of the attempt that failed.
    #[must_use]
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The backoff before the next attempt (a rate limiter may add a wait
    /// for a send permit on top).
    #[must_use]
    pub const fn delay(&self) -> Duration {
        self.delay
    }
}

impl core::fmt::Debug for RetryEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RetryEvent")
            .field("attempt", &self.attempt)
            .field("delay", &self.delay)
            .field("retry_safety", &self.failure.retry_safety())
            .field("http_status", &self.failure.http_status())
            .field("error_code", &self.failure.error_code())
            .finish_non_exhaustive()
    }
}

/// The request stops failing: no further attempt will be made.
#[derive(Clone, Copy)]
pub struct GiveUpEvent<'a> {
    failure: Option<&'a dyn FailureInfo>,
    attempts: u32,
    reason: &'a StopReason,
}

impl<'a> GiveUpEvent<'a> {
    /// The last attempt's failure; `None` when no attempt was made (the
    /// budget or a fail-fast rate limiter stopped the first one).
    #[must_use]
    pub fn failure(&self) -> Option<&'a dyn FailureInfo> {
        self.failure
    }

    /// How many attempts were made.
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Why there is no further attempt.
    #[must_use]
    pub const fn reason(&self) -> &'a StopReason {
        self.reason
    }
}

impl core::fmt::Debug for GiveUpEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GiveUpEvent")
            .field("attempts", &self.attempts)
            .field("reason", &self.reason)
            .field("error_code", &self.failure.and_then(|e| e.error_code()))
            .finish_non_exhaustive()
    }
}

/// Hears of a request's retries and of its give-up. Both methods do nothing
/// by default: implement the ones you need. Set one with
/// [`Retry::listener`](super::Retry::listener), or pass closures to
/// [`Retry::on_retry`](super::Retry::on_retry) and
/// [`Retry::on_give_up`](super::Retry::on_give_up).
///
/// Called on the request's own task or thread, between attempts: keep it
/// short (count, log, record).
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use rebound_runtime::{RetryEvent, RetryListener};
/// use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
///
/// #[derive(Debug, Default)]
/// struct Throttles(AtomicU32);
///
/// impl RetryListener for Throttles {
///     fn on_retry(&self, event: &RetryEvent<'_>) {
///         if event.failure().http_status() == Some(429) {
///             self.0.fetch_add(1, Ordering::Relaxed);
///         }
///     }
/// }
///
/// let strategy = StandardRetryStrategy::new();
/// let throttles = Throttles::default();
/// let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&throttles); // virtual time
/// let busy = rebound_runtime::classify::HttpErrorResponse::new(429).with_code("Throttling");
/// let _ = retry.run(|attempt| if attempt < 3 { Err(busy.clone()) } else { Ok(()) });
/// assert_eq!(throttles.0.load(Ordering::Relaxed), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RetryListener {
    /// An attempt failed and the strategy granted a retry after
    /// [`RetryEvent::delay`]. A [budget](super::Retry::budget) too short for
    /// that delay still stops the request: then
    /// [`on_give_up`](Self::on_give_up) follows at once.
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let _ = event;
    }

    /// The request failed for good.
    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let _ = event;
    }
}

impl<L: RetryListener + ?Sized> RetryListener for &L {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        L::on_retry(self, event);
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        L::on_give_up(self, event);
    }
}

/// The listener made of [`Retry::on_retry`](super::Retry::on_retry) and
/// [`Retry::on_give_up`](super::Retry::on_give_up) closures; [`NoHook`] for
/// each not set. The default listener is `Hooks<NoHook, NoHook>`: nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks<R = NoHook, G = NoHook> {
    pub(super) on_retry: R,
    pub(super) on_give_up: G,
}

/// No closure: the event is ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHook;

/// A closure called with an event `E`, or [`NoHook`].
pub trait Hook<E: ?Sized> {
    /// Calls it.
    fn call(&self, event: &E);
}

impl<E: ?Sized> Hook<E> for NoHook {
    #[inline]
    fn call(&self, _: &E) {}
}

impl<E: ?Sized, F: Fn(&E)> Hook<E> for F {
    #[inline]
    fn call(&self, event: &E) {
        self(event);
    }
}

impl<R, G> RetryListener for Hooks<R, G>
where
    R: for<'a> Hook<RetryEvent<'a>>,
    G: for<'a> Hook<GiveUpEvent<'a>>,
{
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self.on_retry.call(event);
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        self.on_give_up.call(event);
    }
}

/// [`Request::failed`], told to `listener`: a retry or the give-up.
pub(crate) fn failed<S, C, L>(
    request: Request<S, C>,
    failure: &dyn FailureInfo,
    attempt: u32,
    listener: &L,
) -> Step<Request<S, C>>
where
    S: RetryStrategy,
    C: Clock,
    L: RetryListener + ?Sized,
{
    let step = request.failed(failure);
    match &step {
        Step::Retry(next) => listener.on_retry(&RetryEvent {
            failure,
            attempt,
            delay: next.due(),
        }),
        Step::Stop(_, reason) => listener.on_give_up(&GiveUpEvent {
            failure: Some(failure),
            attempts: attempt,
            reason,
        }),
    }
    step
}

/// A request stopped before its next attempt: tells `listener`, with the
/// last attempt's failure if there was one.
pub(crate) fn stopped<E, L: RetryListener + ?Sized>(
    classify: &impl Classify<E>,
    last_failure: Option<&E>,
    attempts: u32,
    reason: &StopReason,
    listener: &L,
) {
    match last_failure {
        Some(last) => classify.with(last, |failure| {
            listener.on_give_up(&GiveUpEvent {
                failure: Some(failure),
                attempts,
                reason,
            });
        }),
        None => listener.on_give_up(&GiveUpEvent {
            failure: None,
            attempts,
            reason,
        }),
    }
}
