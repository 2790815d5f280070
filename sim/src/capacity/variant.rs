//! A demonstration, in the simulator only, of the opt-in variant proposed
//! for adaptive mode: **one CUBIC decrease per congestion event**.
//!
//! botocore's algorithm (which rebound's rate limiter reproduces) cuts the
//! send rate to 70% on *every* throttled response. When the service's bucket
//! runs dry, every attempt already in flight is throttled too, so one
//! congestion event brings several cuts in a row: 0.7ⁿ of the rate, and
//! CUBIC's `w_max` (the rate it climbs back to, slowly, before probing
//! further) is set by the last of them, far below the capacity. TCP's CUBIC
//! reduces once per round trip for the same reason.
//!
//! [`OneCutPerEvent`] wraps the real [`AdaptiveRetryStrategy`] and forwards
//! every call to it; the only change is what the rate limiter hears: a
//! throttle arriving within `window` of the last throttle it let through is
//! reported as a plain transient failure (HTTP 503). Under behaviour 2.0
//! (the default) a transient retry costs the same quota (5) and uses the
//! same backoff (full jitter from 1 s) as a throttling retry, so the
//! standard part of the strategy behaves exactly as before; only the
//! limiter's CUBIC sees one throttle per event. Nothing of the strategy is
//! re-implemented.
//!
//! In the runtime the variant would rather stamp each attempt with the time
//! it was sent and ignore throttles of attempts sent before the last cut
//! (TCP's rule), which needs no window to tune; the fixed window is the
//! closest a wrapper can get.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::time::{Clock, ManualClock};
use rebound_runtime::{
    AdaptiveRetryStrategy, FailureInfo, RetryKind, RetryStrategy, RetryToken, SendPermit,
    TokenAcquisitionFailed,
};

/// The default window: a few round trips of the simulated network (20 ms),
/// shorter than the limiter's half-second measuring buckets.
pub const DEFAULT_WINDOW: Duration = Duration::from_millis(100);

/// [`AdaptiveRetryStrategy`] whose rate limiter hears one throttle per
/// `window` (see the [module docs](self)).
#[derive(Debug)]
pub struct OneCutPerEvent {
    inner: AdaptiveRetryStrategy<ManualClock>,
    clock: ManualClock,
    window: Duration,
    last_cut: Mutex<Option<Instant>>,
}

impl OneCutPerEvent {
    /// Wraps `inner`, reading the time from `clock` (the one `inner` was
    /// built with).
    #[must_use]
    pub fn new(
        inner: AdaptiveRetryStrategy<ManualClock>,
        clock: ManualClock,
        window: Duration,
    ) -> Self {
        Self {
            inner,
            clock,
            window,
            last_cut: Mutex::new(None),
        }
    }

    /// Whether a throttle at `now` starts a new congestion event (and so may
    /// cut the rate); remembers it if so.
    fn new_event(&self, now: Instant) -> bool {
        let mut last = self.last_cut.lock().unwrap_or_else(PoisonError::into_inner);
        let same_event = last.is_some_and(|cut| now.saturating_duration_since(cut) < self.window);
        if !same_event {
            *last = Some(now);
        }
        !same_event
    }
}

impl RetryStrategy for OneCutPerEvent {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.inner.acquire_initial_token()
    }

    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        if self.inner.retry_kind(failure) == RetryKind::Throttle
            && !self.new_event(self.clock.now())
        {
            return self
                .inner
                .refresh_retry_token(token, &HttpErrorResponse::new(503));
        }
        self.inner.refresh_retry_token(token, failure)
    }

    fn record_success(&self, token: RetryToken) {
        self.inner.record_success(token);
    }

    fn acquire_send_permit(
        &self,
        token: &mut RetryToken,
    ) -> Result<SendPermit, TokenAcquisitionFailed> {
        self.inner.acquire_send_permit(token)
    }

    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        self.inner.retry_kind(failure)
    }

    fn quota_left(&self) -> Option<u32> {
        self.inner.quota_left()
    }

    fn send_rate(&self) -> Option<f64> {
        self.inner.send_rate()
    }

    fn abandon(&self, token: RetryToken) {
        self.inner.abandon(token);
    }
}
