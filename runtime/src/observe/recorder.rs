//! Where an observer's measurements go besides its own counters: the
//! `opentelemetry` and `metrics` adapters implement [`Recorder`].

use core::time::Duration;

use super::labels::{FailureKind, GiveUpReason, Outcome};

/// Receives each measurement as the observer makes it, already labelled.
/// Every method does nothing by default. The observer counts attempts,
/// give-ups and refusals itself (read with
/// [`RetryObserver::counts`](super::RetryObserver::counts)); a recorder for a
/// meter that reads counters when it collects can leave those methods alone
/// and keep the request path free of the meter.
pub trait Recorder {
    /// An attempt ended with `outcome`; `kind` is `None` for a success.
    #[inline]
    fn attempt(&self, outcome: Outcome, kind: Option<FailureKind>) {
        let _ = (outcome, kind);
    }

    /// A request that made at least one retry ended (succeeded or gave up)
    /// after `retries` retries.
    #[inline]
    fn retries(&self, retries: u32) {
        let _ = retries;
    }

    /// A request gave up for `reason`; `refusal` when a fail-fast rate
    /// limiter refused its attempt.
    #[inline]
    fn give_up(&self, reason: GiveUpReason, refusal: bool) {
        let _ = (reason, refusal);
    }

    /// A retry after a failure of `kind` waits `delay` (the backoff).
    #[inline]
    fn retry_delay(&self, kind: FailureKind, delay: Duration) {
        let _ = (kind, delay);
    }

    /// An attempt waits `wait` for the rate limiter's send permit.
    #[inline]
    fn permit_wait(&self, wait: Duration) {
        let _ = wait;
    }

    /// The recorder of partition `key` of the same observer
    /// ([`RetryObserver::partition`](super::RetryObserver::partition)): the
    /// adapters' record the same instruments with the partition attribute
    /// added. The default is a clone: the samples go where this recorder's go.
    fn partition(&self, key: &str) -> Self
    where
        Self: Sized + Clone,
    {
        let _ = key;
        self.clone()
    }
}

/// No recorder: the observer's own counters only.
impl Recorder for () {}
