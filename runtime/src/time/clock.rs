//! Where an executor reads the time for its total-time
//! [budget](crate::Retry::budget) and the rate limiter: [`Clock`], with the real
//! [`SystemClock`] and the virtual [`ManualClock`] for tests.

use core::time::Duration;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A monotonic clock. The executor reads it when a request starts and again
/// before each retry, to check the retry still fits in the budget.
///
/// Implemented by [`SystemClock`] (the default), [`ManualClock`], and `&C`
/// and `Arc<C>` of clocks.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
/// use rebound_runtime::time::Clock;
///
/// /// A clock frozen at one instant.
/// struct Frozen(Instant);
///
/// impl Clock for Frozen {
///     fn now(&self) -> Instant {
///         self.0
///     }
/// }
///
/// let frozen = Frozen(Instant::now());
/// assert_eq!(frozen.now(), frozen.now());
/// ```
pub trait Clock {
    /// The current instant; never earlier than a previous call's.
    fn now(&self) -> Instant;

    /// Seconds from `since` (an earlier reading of this clock) to now, never
    /// negative: how the adaptive rate limiter reads the time, once per
    /// attempt. The default is `now()` measured from `since`; a clock may
    /// answer without building an `Instant` (as `CoarseClock` does), as long
    /// as the answer stays consistent with [`now`](Self::now) to within a
    /// nanosecond and never goes backwards.
    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        self.now().saturating_duration_since(since).as_secs_f64()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn now(&self) -> Instant {
        C::now(self)
    }

    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        C::secs_since(self, since)
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    #[inline]
    fn now(&self) -> Instant {
        C::now(self)
    }

    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        C::secs_since(self, since)
    }
}

/// The default [`Clock`]: [`Instant::now`].
///
/// # Examples
///
/// ```
/// use rebound_runtime::time::{Clock, SystemClock};
///
/// let earlier = SystemClock.now();
/// assert!(SystemClock.now() >= earlier);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// `Duration::as_secs_f64` divides the nanoseconds by 10^9; multiplying
    /// by 10^-9 instead is within one rounding of it (far inside the
    /// nanosecond the trait allows) and keeps a division's latency off the
    /// adaptive limiter's response path. Still never decreasing: both steps
    /// are monotonic, and a second's last nanosecond adds at most 1.
    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        secs_f64(Instant::now().saturating_duration_since(since))
    }
}

/// `elapsed` in seconds, by multiplication (see [`SystemClock::secs_since`]).
#[inline]
fn secs_f64(elapsed: Duration) -> f64 {
    // Exact below 2^53 s.
    #[allow(clippy::cast_precision_loss)]
    let secs = elapsed.as_secs() as f64;
    secs + f64::from(elapsed.subsec_nanos()) * 1e-9
}

/// A virtual [`Clock`] that moves only when told to: by
/// [`advance`](Self::advance), or by sleeping on it, since it is also a
/// [`Sleeper`](super::Sleeper) and an [`AsyncSleeper`](super::AsyncSleeper)
/// whose sleeps advance it at once instead of waiting.
///
/// Clones share the time, so one clone can be the executor's clock and
/// another its sleeper.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::time::{Clock, ManualClock, Sleeper};
///
/// let clock = ManualClock::new();
/// let start = clock.now();
/// clock.advance(Duration::from_secs(2));
/// clock.sleep(Duration::from_millis(500)); // returns at once
/// assert_eq!(clock.now() - start, Duration::from_millis(2500));
/// assert_eq!(clock.elapsed(), Duration::from_millis(2500));
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    origin: Instant,
    /// Nanoseconds since `origin` (584 years fit).
    offset_nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading [`Instant::now`] until it is advanced.
    #[must_use]
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
            offset_nanos: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Moves the time forward by `by` (saturating, some 584 years after
    /// creation).
    pub fn advance(&self, by: Duration) {
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // An `Err` is impossible: the closure always returns `Some`.
        let _ = self
            .offset_nanos
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                Some(now.saturating_add(nanos))
            });
    }

    /// How far the clock was advanced since it was created.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.offset_nanos.load(Ordering::Acquire))
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.origin + self.elapsed()
    }
}

impl super::Sleeper for ManualClock {
    /// Advances the clock by `delay` and returns at once.
    fn sleep(&self, delay: Duration) {
        self.advance(delay);
    }
}

impl super::AsyncSleeper for ManualClock {
    type Sleep = core::future::Ready<()>;

    /// Advances the clock by `delay`; the future is ready at once.
    fn sleep(&self, delay: Duration) -> Self::Sleep {
        self.advance(delay);
        core::future::ready(())
    }
}

/// A [`Clock`] on tokio's time, [`tokio::time::Instant::now`] (feature
/// `tokio`): it stands still while tokio's clock is
/// [paused](https://docs.rs/tokio/1/tokio/time/fn.pause.html) and moves with its auto-advance, so a budget
/// works with [`DefaultSleeper`](super::DefaultSleeper) (feature `tokio`) in virtual time.
///
/// # Examples
///
/// ```
/// use rebound_runtime::time::{Clock, TokioClock};
///
/// let earlier = TokioClock.now();
/// assert!(TokioClock.now() >= earlier);
/// ```
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokioClock;

#[cfg(feature = "tokio")]
impl Clock for TokioClock {
    #[inline]
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_secs_are_within_a_rounding_of_as_secs_f64_and_never_decrease() {
        let mut previous = 0.0;
        for secs in [0, 1, 59, 3_600, 86_400 * 365, 1 << 40] {
            for nanos in (0..1_000_000_000).step_by(999_983).chain([999_999_999]) {
                let elapsed = Duration::new(secs, nanos);
                let ours = secs_f64(elapsed);
                let std = elapsed.as_secs_f64();
                let ulp = f64::from_bits(std.to_bits() + 1) - std;
                assert!((ours - std).abs() <= ulp, "{elapsed:?}: {ours} vs {std}");
                assert!(ours >= previous, "{elapsed:?} went back");
                previous = ours;
            }
            // The step to the next whole second does not go back either.
            assert!(secs_f64(Duration::new(secs + 1, 0)) >= previous);
        }
    }
}
