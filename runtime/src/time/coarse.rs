//! [`CoarseClock`]: the operating system's coarse monotonic clock, for
//! adaptive mode's hot path (feature `coarsetime`).

use std::time::Instant;

use super::Clock;

/// A monotonic clock that ticks coarsely (every 1–4 ms on Linux, where it is
/// `CLOCK_MONOTONIC_COARSE`; see the [`coarsetime`] crate for other systems)
/// and costs a fraction of [`SystemClock`](super::SystemClock)'s read: about
/// 6 ns against 27 ns on the machine in `BENCHMARKS.md`.
///
/// Why adaptive mode may want it: the rate limiter times every response,
/// and a success at the same time as the previous one changes nothing but a
/// count, which applying it to the limiter's state then makes without any
/// arithmetic. With a clock that ticks every few milliseconds, nearly every
/// response is such a success, and the clock read itself is cheaper, so an
/// adaptive strategy on this clock spends a fraction of the time per request
/// (`BENCHMARKS.md` has the figures). What it gives up: the limiter sees time
/// in steps of one tick, so at high rates (hundreds of sends a second and
/// more) tokens are earned, and waiting senders wake, a tick at a time, and a
/// sender may be told to wait a moment longer after its sleep. Not the
/// default for that reason.
///
/// Its instants are comparable with each other, not with other clocks'.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{AdaptiveRetryStrategy, StandardRetryStrategy, time::{Clock, CoarseClock}};
///
/// let clock = CoarseClock::new();
/// let earlier = clock.now();
/// assert!(clock.now() >= earlier);
/// let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
///     .clock(clock)
///     .build();
/// # let _ = strategy;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CoarseClock {
    /// A precise instant, taken together with `coarse_origin`.
    origin: Instant,
    coarse_origin: coarsetime::Instant,
}

impl CoarseClock {
    /// A coarse clock starting now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
            coarse_origin: coarsetime::Instant::now(),
        }
    }
}

impl Default for CoarseClock {
    fn default() -> Self {
        Self::new()
    }
}

/// 2^-32: a coarse tick count is seconds in 32.32 fixed point.
const SECS_PER_TICK: f64 = 1.0 / 4_294_967_296.0;

impl CoarseClock {
    /// The coarse clock's ticks since `coarse_origin`. (Not `now()`, which
    /// also stores the reading in a process-wide cache, a write every
    /// thread would contend on.)
    #[inline]
    fn ticks(&self) -> u64 {
        coarsetime::Instant::now_without_cache_update()
            .as_ticks()
            .saturating_sub(self.coarse_origin.as_ticks())
    }
}

impl Clock for CoarseClock {
    /// `origin` plus the coarse time since: every reading within one tick
    /// is the same instant.
    #[inline]
    fn now(&self) -> Instant {
        self.origin + coarsetime::Duration::from_ticks(self.ticks()).into()
    }

    /// Straight from the tick count, without building an `Instant`.
    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        // u64 -> f64 rounds beyond 2^53 ticks (24 days): under 2^-32 s.
        #[allow(clippy::cast_precision_loss)]
        let secs = self.ticks() as f64 * SECS_PER_TICK;
        let since = since.saturating_duration_since(self.origin).as_secs_f64();
        (secs - since).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_agree_with_instants() {
        let clock = CoarseClock::new();
        let since = clock.now();
        for _ in 0..10_000 {
            // Read in this order, whatever ticks in between: never backwards.
            let before = clock.secs_since(since);
            let now = clock.now().saturating_duration_since(since).as_secs_f64();
            let after = clock.secs_since(since);
            assert!(
                before <= now + 1e-9 && now <= after + 1e-9,
                "{before} {now} {after}"
            );
        }
        let later = clock.now() + std::time::Duration::from_secs(1);
        assert_eq!(clock.secs_since(later), 0.0, "never negative");
    }

    #[test]
    fn never_goes_backwards_and_repeats_within_a_tick() {
        let clock = CoarseClock::new();
        let mut last = clock.now();
        let mut repeats = 0;
        for _ in 0..10_000 {
            let now = clock.now();
            assert!(now >= last);
            repeats += usize::from(now == last);
            last = now;
        }
        // Ten thousand reads take well under a tick of 1–4 ms... unless the
        // machine is very busy; one repeat is all that is needed here.
        assert!(repeats > 0);
    }
}
