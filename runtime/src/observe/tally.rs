//! The observer's counters: plain atomics the request path adds to, read
//! whole when the meter collects ([`Counts`]).

use std::sync::atomic::{AtomicU64, Ordering};

use super::labels::{FailureKind, GiveUpReason, Outcome};

/// One counter per attempt series (a success, or a failure's outcome and
/// kind), per give-up reason, and the fail-fast refusals.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    successes: AtomicU64,
    /// Indexed by [`failure_index`].
    failures: [AtomicU64; 2 * FailureKind::ALL.len()],
    give_ups: [AtomicU64; GiveUpReason::ALL.len()],
    refusals: AtomicU64,
}

/// Where a failed attempt of `outcome` and `kind` is counted.
const fn failure_index(outcome: Outcome, kind: FailureKind) -> usize {
    let row = match outcome {
        Outcome::NonRetryableFailure => 1,
        Outcome::Success | Outcome::RetryableFailure => 0,
    };
    row * FailureKind::ALL.len() + kind as usize
}

impl Tally {
    /// Counts one attempt; `kind` is ignored for a success.
    #[inline]
    pub(crate) fn attempt(&self, outcome: Outcome, kind: FailureKind) {
        let counter = match outcome {
            Outcome::Success => &self.successes,
            _ => &self.failures[failure_index(outcome, kind)],
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one give-up, and a fail-fast refusal if it was one.
    pub(crate) fn give_up(&self, reason: GiveUpReason, refusal: bool) {
        self.give_ups[reason as usize].fetch_add(1, Ordering::Relaxed);
        if refusal {
            self.refusals.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Every counter, now.
    pub(crate) fn counts(&self) -> Counts {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Counts {
            successes: load(&self.successes),
            failures: self.failures.each_ref().map(load),
            give_ups: self.give_ups.each_ref().map(load),
            refusals: load(&self.refusals),
        }
    }
}

/// An observer's counters, read at one moment: totals since it was made.
///
/// # Examples
///
/// ```
/// use rebound_runtime::observe::{FailureKind, Outcome, RetryObserver};
/// use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
///
/// let observer = RetryObserver::new("orders");
/// let strategy = StandardRetryStrategy::new();
/// let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&observer);
/// let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let _ = retry.run(|attempt| if attempt < 2 { Err(reset()) } else { Ok(()) });
///
/// let counts = observer.counts();
/// assert_eq!(counts.attempts(Outcome::Success, None), 1);
/// assert_eq!(counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Transient)), 1);
/// assert_eq!(counts.total_attempts(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    successes: u64,
    failures: [u64; 2 * FailureKind::ALL.len()],
    give_ups: [u64; GiveUpReason::ALL.len()],
    refusals: u64,
}

impl Counts {
    /// Attempts that ended with `outcome`, of failure `kind` (`None` for a
    /// success, or to sum a failure's kinds).
    #[must_use]
    pub fn attempts(&self, outcome: Outcome, kind: Option<FailureKind>) -> u64 {
        match (outcome, kind) {
            (Outcome::Success, _) => self.successes,
            (_, Some(kind)) => self.failures[failure_index(outcome, kind)],
            (_, None) => FailureKind::ALL
                .iter()
                .map(|&kind| self.failures[failure_index(outcome, kind)])
                .sum(),
        }
    }

    /// Every attempt series with its count: the success, then each failure
    /// outcome by kind.
    pub fn attempt_series(&self) -> impl Iterator<Item = (Outcome, Option<FailureKind>, u64)> + '_ {
        let failures = [Outcome::RetryableFailure, Outcome::NonRetryableFailure]
            .into_iter()
            .flat_map(|outcome| {
                FailureKind::ALL
                    .into_iter()
                    .map(move |kind| (outcome, kind))
            })
            .map(|(outcome, kind)| {
                (
                    outcome,
                    Some(kind),
                    self.failures[failure_index(outcome, kind)],
                )
            });
        core::iter::once((Outcome::Success, None, self.successes)).chain(failures)
    }

    /// All attempts made.
    #[must_use]
    pub fn total_attempts(&self) -> u64 {
        self.successes + self.failures.iter().sum::<u64>()
    }

    /// Requests that gave up for `reason`.
    #[must_use]
    pub const fn give_ups(&self, reason: GiveUpReason) -> u64 {
        self.give_ups[reason as usize]
    }

    /// Requests a fail-fast rate limiter refused to send an attempt for.
    #[must_use]
    pub const fn refusals(&self) -> u64 {
        self.refusals
    }
}
