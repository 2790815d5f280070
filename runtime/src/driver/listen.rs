//! Observing a request's retries: a [`RetryListener`] hears of every retry
//! (the failure, the attempt that failed, the delay before the next one, why
//! it is retried, what the strategy has left) and of the give-up (why, after
//! how many attempts). Metrics and logging build on it without wrapping the
//! operation. With the feature `tracing`, the same moments are also
//! `tracing` events (see [`RetryListener`] for their fields).
//!
//! The default listener does nothing and costs nothing: its calls are empty
//! and inlined away, and an event computes what the strategy has left (its
//! quota, its send rate) only when a listener asks.

use core::time::Duration;

use super::classifier::Classify;
use super::error::{RetryError, StopReason};
use super::request::{Request, Step};
use crate::strategy::{RetryKind, RetryStrategy};
use crate::time::Clock;
use crate::vocabulary::FailureInfo;

/// An attempt failed and the strategy granted a retry.
///
/// [`kind`](Self::kind), [`quota_left`](Self::quota_left) and
/// [`send_rate`](Self::send_rate) ask the strategy when called, not before:
/// an event nobody reads costs nothing.
#[derive(Clone, Copy)]
pub struct RetryEvent<'a> {
    strategy: &'a dyn RetryStrategy,
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

    /// Why the strategy retries: a throttle, a transient failure or a
    /// timeout, by the strategy's own rules
    /// ([`RetryStrategy::retry_kind`]: the AWS modes count a throttling error
    /// code as a throttle even when the failure does not flag itself as one).
    #[must_use]
    pub fn kind(&self) -> RetryKind {
        self.strategy.retry_kind(self.failure)
    }

    /// The tokens left in the strategy's retry quota once this retry was paid
    /// for (read when asked: other requests sharing the quota may have moved
    /// it since); `None` for strategies without a quota (legacy modes,
    /// [`NeverRetryStrategy`](crate::NeverRetryStrategy)).
    /// See [`RetryStrategy::quota_left`].
    #[must_use]
    pub fn quota_left(&self) -> Option<u32> {
        self.strategy.quota_left()
    }

    /// Adaptive mode's current client send rate, in requests per second,
    /// when its rate limiter is on (after the first throttle); `None`
    /// otherwise, and for strategies without a rate limiter. Takes the
    /// limiter's lock. See [`RetryStrategy::send_rate`].
    #[must_use]
    pub fn send_rate(&self) -> Option<f64> {
        self.strategy.send_rate()
    }
}

impl core::fmt::Debug for RetryEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RetryEvent")
            .field("attempt", &self.attempt)
            .field("delay", &self.delay)
            .field("kind", &self.kind())
            .field("quota_left", &self.quota_left())
            .field("send_rate", &self.send_rate())
            .field("retry_safety", &self.failure.retry_safety())
            .field("http_status", &self.failure.http_status())
            .field("error_code", &self.failure.error_code())
            .finish_non_exhaustive()
    }
}

/// The request stops failing: no further attempt will be made.
///
/// [`quota_left`](Self::quota_left) and [`send_rate`](Self::send_rate) ask
/// the strategy when called, not before.
#[derive(Clone, Copy)]
pub struct GiveUpEvent<'a> {
    /// `None` only when told by a request loop that did not pass it.
    strategy: Option<&'a dyn RetryStrategy>,
    failure: Option<&'a dyn FailureInfo>,
    attempts: u32,
    reason: &'a StopReason,
    /// Whether `failure` is the attempt that just ended (not one a retry
    /// event already told).
    after_attempt: bool,
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

    /// Whether the request gives up right after attempt
    /// [`attempts`](Self::attempts) failed, with that attempt's
    /// [`failure`](Self::failure). `false` when it stopped before an attempt
    /// (the budget, a fail-fast rate limiter, a service not ready): then the
    /// failure, if any, is the one a [`RetryEvent`] already told.
    #[must_use]
    pub const fn after_failed_attempt(&self) -> bool {
        self.after_attempt
    }

    /// How the strategy reads the last failure: a throttle, a transient
    /// failure or a timeout ([`RetryStrategy::retry_kind`], or the failure's
    /// own flags when the strategy is not known); `None` without a failure.
    /// A failure that is not retryable still has a kind: a throttle the
    /// strategy would not retry is a throttle.
    #[must_use]
    pub fn kind(&self) -> Option<RetryKind> {
        let failure = self.failure?;
        Some(match self.strategy {
            Some(strategy) => strategy.retry_kind(failure),
            None => RetryKind::from_flags(failure.is_throttle(), failure.is_timeout()),
        })
    }

    /// The tokens left in the strategy's retry quota once the request was
    /// accounted for (read when asked); `None` for strategies without a
    /// quota. See [`RetryStrategy::quota_left`].
    #[must_use]
    pub fn quota_left(&self) -> Option<u32> {
        self.strategy.and_then(|strategy| strategy.quota_left())
    }

    /// Adaptive mode's current client send rate, in requests per second,
    /// when its rate limiter is on; `None` otherwise. Takes the limiter's
    /// lock. See [`RetryStrategy::send_rate`].
    #[must_use]
    pub fn send_rate(&self) -> Option<f64> {
        self.strategy.and_then(|strategy| strategy.send_rate())
    }
}

impl core::fmt::Debug for GiveUpEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GiveUpEvent")
            .field("attempts", &self.attempts)
            .field("reason", &self.reason)
            .field("quota_left", &self.quota_left())
            .field("send_rate", &self.send_rate())
            .field("http_status", &self.failure.and_then(|e| e.http_status()))
            .field("error_code", &self.failure.and_then(|e| e.error_code()))
            .finish_non_exhaustive()
    }
}

/// An attempt succeeded: the request ends with it.
#[derive(Debug, Clone, Copy)]
pub struct SuccessEvent {
    attempt: u32,
}

impl SuccessEvent {
    /// The 1-based number of the attempt that succeeded: the request made
    /// `attempt() - 1` retries.
    #[must_use]
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }
}

/// The strategy's rate limiter holds the next attempt back: the request
/// waits this long for a send permit, then asks again.
#[derive(Debug, Clone, Copy)]
pub struct PermitWaitEvent {
    attempt: u32,
    wait: Duration,
}

impl PermitWaitEvent {
    /// The 1-based number of the attempt waiting to be sent.
    #[must_use]
    pub const fn attempt(&self) -> u32 {
        self.attempt
    }

    /// How long the request waits before asking for a permit again.
    #[must_use]
    pub const fn wait(&self) -> Duration {
        self.wait
    }
}

/// Hears of a request's retries and of its give-up, and of its success and
/// its waits for a send permit. Every method does nothing by default:
/// implement the ones you need. Set one with
/// [`Retry::listener`](crate::Retry::listener), or pass closures to
/// [`Retry::on_retry`](crate::Retry::on_retry) and
/// [`Retry::on_give_up`](crate::Retry::on_give_up).
///
/// Called on the request's own task or thread, between attempts: keep it
/// short (count, log, record).
///
/// The events carry the attempt, the delay and the failure, and ask the
/// strategy, only when called, why it retries ([`RetryEvent::kind`]) and
/// what it has left: its retry quota ([`RetryEvent::quota_left`]) and, in
/// adaptive mode, its client send rate ([`RetryEvent::send_rate`]). A
/// listener that does not ask costs nothing.
///
/// # Examples
///
/// Metrics without `tracing`: count throttles and keep the lowest quota seen.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use rebound_runtime::{RetryEvent, RetryKind, RetryListener};
/// use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
///
/// #[derive(Debug)]
/// struct Metrics {
///     throttles: AtomicU32,
///     lowest_quota: AtomicU32,
/// }
///
/// impl RetryListener for Metrics {
///     fn on_retry(&self, event: &RetryEvent<'_>) {
///         // The strategy's rules: "Throttling" is a throttling code, whatever the status.
///         if event.kind() == RetryKind::Throttle {
///             self.throttles.fetch_add(1, Ordering::Relaxed);
///         }
///         if let Some(left) = event.quota_left() {
///             self.lowest_quota.fetch_min(left, Ordering::Relaxed);
///         }
///     }
/// }
///
/// let strategy = StandardRetryStrategy::new();
/// let metrics = Metrics { throttles: AtomicU32::new(0), lowest_quota: AtomicU32::new(u32::MAX) };
/// let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&metrics); // virtual time
/// let busy = rebound_runtime::classify::HttpErrorResponse::new(400).with_code("Throttling");
/// let _ = retry.run(|attempt| if attempt < 3 { Err(busy.clone()) } else { Ok(()) });
/// assert_eq!(metrics.throttles.load(Ordering::Relaxed), 2);
/// assert_eq!(metrics.lowest_quota.load(Ordering::Relaxed), 490); // two retries at 5 each
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # `tracing` events
///
/// With the feature `tracing`, the executors also emit one `tracing` event
/// per retry and one per give-up, target `"rebound"`, whatever the listener.
/// Without the feature no code is compiled for them; with it and no
/// subscriber interested, none of the fields is computed (no lock taken).
///
/// | event | message | level |
/// |---|---|---|
/// | a retry | `"retrying"` | `DEBUG` |
/// | the give-up | `"giving up"` | `WARN`; `DEBUG` when routine |
///
/// A give-up is *routine* when no retry was made and none could have been:
/// the first attempt failed with an error that is not retryable
/// ([`NotRetryable`](crate::TokenAcquisitionFailed::NotRetryable)), or the
/// strategy allows a single attempt
/// ([`NeverRetryStrategy`](crate::NeverRetryStrategy)). The caller handles
/// that error exactly as it would without retries (a validation error, a
/// "not found"), so warning about each would only be noise. Every other
/// give-up means retries did not save the request or were withheld (attempts,
/// quota, budget, rate limiter, a retry-after hint too long): a `WARN`, the
/// signal that a dependency is struggling.
///
/// | field | events | value |
/// |---|---|---|
/// | `attempt` | retry | the failed attempt's number, from 1 ([`RetryEvent::attempt`]) |
/// | `delay_ms` | retry | the backoff before the next attempt, in milliseconds (`f64`, [`RetryEvent::delay`]) |
/// | `why` | retry | `"throttle"`, `"transient"` or `"timeout"` ([`RetryKind::as_str`] of [`RetryEvent::kind`]) |
/// | `attempts` | give-up | attempts made ([`GiveUpEvent::attempts`]) |
/// | `reason` | give-up | why no further attempt, as text (the [`Display`](std::fmt::Display) of [`StopReason`]) |
/// | `quota_left` | both | the retry quota's tokens left; absent for strategies without a quota |
/// | `send_rate` | both | adaptive mode's send rate, requests/s; absent while its rate limiter is off and for other strategies |
/// | `http_status` | both | the (last) failure's HTTP status, when it has one |
/// | `error_code` | both | the (last) failure's error code, when it has one |
pub trait RetryListener {
    /// An attempt failed and the strategy granted a retry after
    /// [`RetryEvent::delay`]. A retry whose delay would not end within the
    /// [budget](crate::Retry::budget) is not heard here: the request gives
    /// up ([`on_give_up`](Self::on_give_up), [`StopReason::BudgetExhausted`]).
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let _ = event;
    }

    /// The request failed for good.
    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let _ = event;
    }

    /// An attempt succeeded. Called on every successful request: keep it to
    /// a counter (see [`observe`](crate::observe)).
    #[inline]
    fn on_success(&self, event: &SuccessEvent) {
        let _ = event;
    }

    /// The strategy's rate limiter (adaptive mode) holds the next attempt
    /// back for [`PermitWaitEvent::wait`].
    #[inline]
    fn on_permit_wait(&self, event: &PermitWaitEvent) {
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

    #[inline]
    fn on_success(&self, event: &SuccessEvent) {
        L::on_success(self, event);
    }

    #[inline]
    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        L::on_permit_wait(self, event);
    }
}

/// A shared listener: one metrics sink for many executors or tower layers
/// (whose futures must own their listener).
impl<L: RetryListener + ?Sized> RetryListener for std::sync::Arc<L> {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>) {
        L::on_retry(self, event);
    }

    #[inline]
    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        L::on_give_up(self, event);
    }

    #[inline]
    fn on_success(&self, event: &SuccessEvent) {
        L::on_success(self, event);
    }

    #[inline]
    fn on_permit_wait(&self, event: &PermitWaitEvent) {
        L::on_permit_wait(self, event);
    }
}

/// [`Request::failed`], told to `listener` (and, with the feature `tracing`,
/// as a `tracing` event): a retry or the give-up.
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
    match request.fail(failure) {
        Ok(next) => {
            // A retry whose backoff would end past the budget is a give-up,
            // not a retry: the token goes back as abandoned.
            if let Some(reason) = next.over_budget(next.due()) {
                tell_give_up(
                    listener,
                    &GiveUpEvent {
                        strategy: Some(next.strategy()),
                        failure: Some(failure),
                        attempts: attempt,
                        reason: &reason,
                        after_attempt: true,
                    },
                );
                next.abandon();
                return Step::Stop(None, reason);
            }
            tell_retry(
                listener,
                &RetryEvent {
                    strategy: next.strategy(),
                    failure,
                    attempt,
                    delay: next.due(),
                },
            );
            Step::Retry(next)
        }
        Err(stopped) => {
            tell_give_up(
                listener,
                &GiveUpEvent {
                    strategy: Some(&stopped.strategy),
                    failure: Some(failure),
                    attempts: attempt,
                    reason: &stopped.reason,
                    after_attempt: true,
                },
            );
            Step::Stop(stopped.sleep, stopped.reason)
        }
    }
}

/// A request stopped before its next attempt: tells `listener` (and
/// `tracing`), with the last attempt's failure if there was one, and the
/// strategy the request drew from, so that the give-up tells what it has
/// left (its quota, its send rate; `None` without the strategy).
pub(crate) fn stopped_with<E, L: RetryListener + ?Sized>(
    strategy: Option<&dyn RetryStrategy>,
    classify: &impl Classify<E>,
    last_failure: Option<&E>,
    attempts: u32,
    reason: &StopReason,
    listener: &L,
) {
    give_up_before_attempt(strategy, classify, last_failure, attempts, reason, listener);
}

/// The executors' request stopped before attempt `attempts_made() + 1`:
/// tells `listener` (with the strategy's quota and send rate) and gives the
/// error to return, holding the last attempt's failure if there was one.
pub(crate) fn stop_before_attempt<S, C, E, L>(
    request: Request<S, C>,
    classify: &impl Classify<E>,
    last_failure: Option<E>,
    reason: StopReason,
    listener: &L,
) -> RetryError<E>
where
    S: RetryStrategy,
    C: Clock,
    L: RetryListener + ?Sized,
{
    let attempts = request.attempts_made();
    let strategy: &dyn RetryStrategy = request.strategy();
    stopped_with(
        Some(strategy),
        classify,
        last_failure.as_ref(),
        attempts,
        &reason,
        listener,
    );
    request.abandon();
    RetryError::stopped(last_failure, attempts, reason)
}

fn give_up_before_attempt<E, L: RetryListener + ?Sized>(
    strategy: Option<&dyn RetryStrategy>,
    classify: &impl Classify<E>,
    last_failure: Option<&E>,
    attempts: u32,
    reason: &StopReason,
    listener: &L,
) {
    match last_failure {
        Some(last) => classify.with(last, |failure| {
            tell_give_up(
                listener,
                &GiveUpEvent {
                    strategy,
                    failure: Some(failure),
                    attempts,
                    reason,
                    after_attempt: false,
                },
            );
        }),
        None => tell_give_up(
            listener,
            &GiveUpEvent {
                strategy,
                failure: None,
                attempts,
                reason,
                after_attempt: false,
            },
        ),
    }
}

/// A waiter's pending poll `poll` (a `failure` of its own making), after
/// which it sleeps `delay`: a retry without a strategy, told to `listener`
/// only (a waiter emits no `tracing` events).
pub(crate) fn waiter_poll_pending(
    listener: &dyn RetryListener,
    failure: &dyn FailureInfo,
    poll: u32,
    delay: Duration,
) {
    listener.on_retry(&RetryEvent {
        strategy: &crate::never::NeverRetryStrategy,
        failure,
        attempt: poll,
        delay,
    });
}

/// A waiter stops polling after poll `polls` (which found `failure`).
pub(crate) fn waiter_gave_up(
    listener: &dyn RetryListener,
    failure: &dyn FailureInfo,
    polls: u32,
    reason: &StopReason,
) {
    listener.on_give_up(&GiveUpEvent {
        strategy: None,
        failure: Some(failure),
        attempts: polls,
        reason,
        after_attempt: true,
    });
}

/// Tells `listener` that attempt `attempt` succeeded.
#[inline]
pub(crate) fn succeeded<L: RetryListener + ?Sized>(listener: &L, attempt: u32) {
    listener.on_success(&SuccessEvent { attempt });
}

/// Tells `listener` that attempt `attempt` waits `wait` for a send permit.
#[inline]
pub(crate) fn permit_wait<L: RetryListener + ?Sized>(listener: &L, attempt: u32, wait: Duration) {
    listener.on_permit_wait(&PermitWaitEvent { attempt, wait });
}

#[inline]
fn tell_retry<L: RetryListener + ?Sized>(listener: &L, event: &RetryEvent<'_>) {
    #[cfg(feature = "tracing")]
    trace::retry(event);
    listener.on_retry(event);
}

#[inline]
fn tell_give_up<L: RetryListener + ?Sized>(listener: &L, event: &GiveUpEvent<'_>) {
    #[cfg(feature = "tracing")]
    trace::give_up(event);
    listener.on_give_up(event);
}

/// The `tracing` events (feature `tracing`); their fields are listed in
/// [`RetryListener`]'s documentation. Field values are computed only when a
/// subscriber wants the event.
#[cfg(feature = "tracing")]
mod trace {
    use super::{GiveUpEvent, RetryEvent, StopReason};
    use crate::refusal::TokenAcquisitionFailed;

    /// The target of every event.
    pub(super) const TARGET: &str = "rebound";

    pub(super) fn retry(event: &RetryEvent<'_>) {
        tracing::debug!(
            target: TARGET,
            attempt = event.attempt(),
            delay_ms = event.delay().as_secs_f64() * 1e3,
            why = event.kind().as_str(),
            quota_left = event.quota_left(),
            send_rate = event.send_rate(),
            http_status = event.failure().http_status(),
            error_code = event.failure().error_code(),
            "retrying",
        );
    }

    pub(super) fn give_up(event: &GiveUpEvent<'_>) {
        macro_rules! give_up_at {
            ($level:ident) => {
                tracing::$level!(
                    target: TARGET,
                    attempts = event.attempts(),
                    reason = %event.reason(),
                    quota_left = event.quota_left(),
                    send_rate = event.send_rate(),
                    http_status = event.failure().and_then(|failure| failure.http_status()),
                    error_code = event.failure().and_then(|failure| failure.error_code()),
                    "giving up",
                )
            };
        }
        if is_routine(event.attempts(), event.reason()) {
            give_up_at!(debug);
        } else {
            give_up_at!(warn);
        }
    }

    /// Whether a give-up is routine (logged at `DEBUG`, not `WARN`): no
    /// retry was made and none could have been, because the first attempt's
    /// failure is not retryable or the strategy allows a single attempt. The
    /// caller handles that error as it would without retries.
    pub(super) fn is_routine(attempts: u32, reason: &StopReason) -> bool {
        attempts <= 1
            && matches!(
                reason,
                StopReason::Strategy(
                    TokenAcquisitionFailed::NotRetryable { .. }
                        | TokenAcquisitionFailed::AttemptsExhausted {
                            max_attempts: ..=1,
                            ..
                        }
                )
            )
    }
}
