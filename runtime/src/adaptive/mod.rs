//! [`AdaptiveRetryStrategy`]: AWS *adaptive* retry mode — the standard mode,
//! plus a client-side rate limiter that slows every send down after the
//! service starts throttling.
//!
//! The standard strategy decides whether and when to retry (attempts, quota,
//! backoff). The [`ClientRateLimiter`] decides how fast to send at all: it is
//! off until the first throttling response, then holds every attempt — first
//! or retry — to a send rate that CUBIC lowers on each throttle and raises on
//! each success.
//!
//! Through the Smithy interface:
//!
//! - [`acquire_initial_token`](RetryStrategy::acquire_initial_token) takes a
//!   send token for the first attempt. When none is available the limiter's
//!   [`AcquireMode`] decides: [`Block`](AcquireMode::Block) (the default)
//!   reserves the next token and returns a token whose
//!   [`delay`](RetryToken::delay) is the wait; [`FailFast`](AcquireMode::FailFast)
//!   returns [`TokenAcquisitionFailed::RateLimited`].
//! - [`refresh_retry_token`](RetryStrategy::refresh_retry_token) feeds the
//!   attempt's outcome (throttle or not) to the limiter, asks the standard
//!   strategy for a retry, then takes the send token for that retry at the
//!   time its backoff ends; the token's delay covers both waits.
//! - [`record_success`](RetryStrategy::record_success) feeds the success to
//!   the limiter and refunds the quota.
//!
//! A blocked send *reserves* its token: the limiter's clock moves to the end
//! of the wait and the token is taken then, which is what botocore's blocking
//! acquire does after sleeping, so every attempt costs exactly one send token.
//! Concurrent requests queue behind the reservation.
//!
//! The Smithy guide makes the first attempt even when no initial token can be
//! had, and the [`Retry`](crate::Retry) executor follows it: with `FailFast`,
//! a refused first attempt is still made, without retries. To shed load before
//! the first attempt, ask [`try_acquire_send`](AdaptiveRetryStrategy::try_acquire_send)
//! first.
//!
//! One strategy per throttling scope: see [`AdaptivePartitions`].

mod partitions;

use core::time::Duration;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

pub use partitions::AdaptivePartitions;

use crate::executor::{Clock, SystemClock};
use crate::rate_limiter::{AcquireMode, ClientRateLimiter, RateLimited};
use crate::{
    FailureInfo, RetryQuota, RetryStrategy, RetryToken, StandardRetryStrategy,
    TokenAcquisitionFailed,
};

/// The AWS adaptive retry strategy: [`StandardRetryStrategy`] plus a
/// [`ClientRateLimiter`] (see the [module docs](self)).
///
/// Cloning is cheap; clones share the quota, the limiter and the clock's
/// epoch.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{AdaptiveRetryStrategy, ManualClock, RetryStrategy, StandardRetryStrategy};
///
/// let clock = ManualClock::new();
/// let standard = StandardRetryStrategy::builder().random(|| 0.5).build()?;
/// let strategy = AdaptiveRetryStrategy::builder(standard).clock(clock.clone()).build();
///
/// // Before any throttle, the limiter is off: no wait.
/// let token = strategy.acquire_initial_token()?;
/// assert_eq!(token.delay(), Duration::ZERO);
///
/// // A throttle enables it; the retry waits for the backoff (0.5 * 1 s), and
/// // for a send token if none is left by then.
/// clock.advance(Duration::from_millis(100));
/// let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
/// let token = strategy.refresh_retry_token(token, &throttled)?;
/// assert!(strategy.rate_limiter().is_enabled());
/// assert!(token.delay() >= Duration::from_millis(500));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct AdaptiveRetryStrategy<C = SystemClock> {
    standard: StandardRetryStrategy,
    limiter: Arc<ClientRateLimiter>,
    clock: C,
    /// The instant the limiter's time (`f64` seconds) counts from.
    epoch: Instant,
}

/// Builds an [`AdaptiveRetryStrategy`] around a configured
/// [`StandardRetryStrategy`].
///
/// # Default
///
/// | setting | default |
/// |---|---|
/// | [`acquire_mode`](Self::acquire_mode) | [`AcquireMode::Block`]: wait for a send token |
/// | [`clock`](Self::clock) | [`SystemClock`] |
/// | rate limiter | a new [`ClientRateLimiter`], off until the first throttle |
#[derive(Debug, Clone)]
#[must_use]
pub struct AdaptiveRetryStrategyBuilder<C = SystemClock> {
    standard: StandardRetryStrategy,
    acquire_mode: AcquireMode,
    clock: C,
}

impl AdaptiveRetryStrategy {
    /// A builder around `standard`; see its [defaults](AdaptiveRetryStrategyBuilder#default).
    pub fn builder(standard: StandardRetryStrategy) -> AdaptiveRetryStrategyBuilder {
        AdaptiveRetryStrategyBuilder {
            standard,
            acquire_mode: AcquireMode::Block,
            clock: SystemClock,
        }
    }
}

impl<C: Clock> AdaptiveRetryStrategyBuilder<C> {
    /// Wait for a send token ([`AcquireMode::Block`]) or refuse the attempt
    /// ([`AcquireMode::FailFast`]).
    pub const fn acquire_mode(mut self, mode: AcquireMode) -> Self {
        self.acquire_mode = mode;
        self
    }

    /// The time source of the rate limiter (a [`ManualClock`](crate::ManualClock)
    /// for tests and simulations).
    pub fn clock<C2: Clock>(self, clock: C2) -> AdaptiveRetryStrategyBuilder<C2> {
        AdaptiveRetryStrategyBuilder {
            standard: self.standard,
            acquire_mode: self.acquire_mode,
            clock,
        }
    }

    /// The strategy, with a new rate limiter starting now.
    pub fn build(self) -> AdaptiveRetryStrategy<C> {
        let epoch = self.clock.now();
        let limiter = ClientRateLimiter::new(0.0).with_acquire_mode(self.acquire_mode);
        AdaptiveRetryStrategy {
            standard: self.standard,
            limiter: Arc::new(limiter),
            clock: self.clock,
            epoch,
        }
    }
}

impl<C: Clock> AdaptiveRetryStrategy<C> {
    /// The standard strategy underneath.
    #[must_use]
    pub const fn standard(&self) -> &StandardRetryStrategy {
        &self.standard
    }

    /// The client-side rate limiter this strategy feeds and obeys.
    #[must_use]
    pub const fn rate_limiter(&self) -> &Arc<ClientRateLimiter> {
        &self.limiter
    }

    /// Attempts per request, the first included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.standard.max_attempts()
    }

    /// The same strategy (settings, clock) drawing from another quota and
    /// limiter: one throttling scope. [`AdaptivePartitions`] hands these out
    /// by key.
    #[must_use]
    pub fn with_partition(&self, quota: Arc<RetryQuota>, limiter: Arc<ClientRateLimiter>) -> Self
    where
        C: Clone,
    {
        Self {
            standard: self.standard.with_quota(quota),
            limiter,
            clock: self.clock.clone(),
            epoch: self.epoch,
        }
    }

    /// Takes a send token now if one is available, without waiting and
    /// whatever the [`AcquireMode`]: for callers that shed load before the
    /// first attempt (the Smithy interface always makes it).
    ///
    /// # Errors
    ///
    /// [`RateLimited`], with the wait until a token would be available.
    pub fn try_acquire_send(&self) -> Result<(), RateLimited> {
        self.limiter.try_acquire(self.now())
    }

    /// The limiter's time: seconds since the strategy was built.
    fn now(&self) -> f64 {
        self.clock
            .now()
            .saturating_duration_since(self.epoch)
            .as_secs_f64()
    }

    /// Takes the send token for an attempt that starts at `at` (limiter
    /// time); with [`AcquireMode::Block`], reserves the next one if none is
    /// left then. Returns when the attempt may start.
    fn reserve_send(&self, at: f64) -> Result<f64, RateLimited> {
        let mut start = Some(at);
        let mut end = at;
        // The clock reads `at` once; after each wait the limiter moves its
        // own time to the end of that wait (a NaN reading says "no news").
        self.limiter.acquire(
            || start.take().unwrap_or(f64::NAN),
            |limited| end = end.max(limited.at() + limited.wait_secs()),
        )?;
        Ok(end)
    }

    /// The token for an attempt that may start `backoff` from `now`, once its
    /// send token is taken.
    fn with_send_token(
        &self,
        token: RetryToken,
        now: f64,
        backoff: Duration,
        attempts: u32,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        match self.reserve_send(now + backoff.as_secs_f64()) {
            Ok(start) => {
                let wait = Duration::try_from_secs_f64(start - now).unwrap_or(Duration::MAX);
                Ok(token.with_delay(wait.max(backoff)))
            }
            Err(limited) => Err(TokenAcquisitionFailed::RateLimited {
                attempts,
                wait: limited.wait(),
            }),
        }
    }
}

impl<C: Clock + fmt::Debug + Send + Sync> RetryStrategy for AdaptiveRetryStrategy<C> {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        let token = self.standard.acquire_initial_token()?;
        if !self.limiter.is_enabled() {
            // Before the first throttle sends are free: no clock read, no lock.
            return Ok(token);
        }
        let delay = token.delay();
        self.with_send_token(token, self.now(), delay, 0)
    }

    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        let now = self.now();
        let attempts = token.attempt();
        let verdict = self.standard.classifier().classify(failure);
        self.limiter.on_response(now, verdict.throttling);
        let next = self.standard.refresh_classified(token, failure, verdict)?;
        let (backoff, cost) = (next.delay(), next.quota_cost());
        self.with_send_token(next, now, backoff, attempts)
            .inspect_err(|_| {
                // The retry will not be made: give back what it paid.
                if let Some(cost) = cost {
                    self.standard.quota().release(cost);
                }
            })
    }

    fn record_success(&self, token: RetryToken) {
        self.limiter.on_response(self.now(), false);
        self.standard.record_success(token);
    }
}

impl<C: fmt::Debug> fmt::Debug for AdaptiveRetryStrategy<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdaptiveRetryStrategy")
            .field("standard", &self.standard)
            .field("limiter", &self.limiter)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}
