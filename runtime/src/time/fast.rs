//! [`FastClock`]: the monotonic clock read through the CPU's counter, the
//! adaptive strategy's default.

use core::time::Duration;
use std::time::Instant;

use super::Clock;
use super::first_since::FirstSince;

/// A nanosecond monotonic clock read through the CPU's time-stamp counter,
/// by the [`quanta`] crate: as precise as [`SystemClock`](super::SystemClock)
/// and cheaper to read, at the price of a calibration the first time one is
/// made. The default clock of
/// [`AdaptiveRetryStrategy`](crate::AdaptiveRetryStrategy), whose rate
/// limiter times every response.
///
/// Where quanta finds an invariant counter (x86-64 with an invariant TSC and
/// `rdtscp`, or AArch64's system counter), a read is the counter scaled to
/// nanoseconds, with the scale quanta measured against the operating
/// system's monotonic clock the first time a clock is made in the process
/// (a calibration loop of well under a millisecond here, at most 200 ms).
/// Elsewhere quanta reads the monotonic clock itself. So the time it tells
/// runs at the monotonic clock's rate to within the calibration's error
/// (parts per million), not to the nanosecond: fine for a rate limiter, whose
/// unit is the half second, but use [`SystemClock`](super::SystemClock) where
/// instants must agree with `Instant::now` exactly.
///
/// [`now`](Clock::now) and [`secs_since`](Clock::secs_since) both read the
/// counter, so they agree with each other: an instant is the clock's origin
/// (an `Instant::now` taken when it was made) plus the counted time since.
/// Clones share the origin.
///
/// # Examples
///
/// ```
/// use rebound_runtime::time::{Clock, FastClock};
///
/// let clock = FastClock::new();
/// let start = clock.now();
/// assert!(clock.now() >= start);
/// assert!(clock.secs_since(start) >= 0.0);
/// ```
#[derive(Debug, Clone)]
pub struct FastClock {
    counter: quanta::Clock,
    /// An `Instant::now()` taken together with `raw_origin`.
    origin: Instant,
    /// The counter's raw reading at `origin`.
    raw_origin: u64,
    /// The first `since` asked about, with its distance from `origin` in
    /// seconds (negative if earlier).
    first_since: FirstSince<f64>,
}

impl FastClock {
    /// A clock starting now. The first one made in a process calibrates the
    /// counter (see above); later ones reuse that calibration.
    #[must_use]
    pub fn new() -> Self {
        let counter = quanta::Clock::new();
        let raw_origin = counter.raw();
        Self {
            counter,
            origin: Instant::now(),
            raw_origin,
            first_since: FirstSince::default(),
        }
    }

    /// Nanoseconds counted since `origin` (0 if the counter reads earlier,
    /// as one core's counter might against another's).
    #[inline]
    fn nanos(&self) -> u64 {
        self.counter
            .delta_as_nanos(self.raw_origin, self.counter.raw())
    }
}

impl Default for FastClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for FastClock {
    #[inline]
    fn now(&self) -> Instant {
        self.origin + Duration::from_nanos(self.nanos())
    }

    /// Straight from the counted nanoseconds, without building an `Instant`:
    /// one multiplication (within one rounding of the exact seconds, like
    /// [`SystemClock`](super::SystemClock)'s), then the distance from
    /// `since` to the origin. Both steps are monotonic, so the answer never
    /// decreases while the counter does not.
    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        // Exact below 2^53 ns (104 days); one rounding beyond.
        #[allow(clippy::cast_precision_loss)]
        let counted = self.nanos() as f64 * 1e-9;
        let offset = self.first_since.distance(since, |since| {
            match since.checked_duration_since(self.origin) {
                Some(after_origin) => after_origin.as_secs_f64(),
                None => -self.origin.duration_since(since).as_secs_f64(),
            }
        });
        (counted - offset).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_never_go_backwards_and_agree_with_each_other() {
        let clock = FastClock::new();
        let since = clock.now();
        let mut last_instant = since;
        let mut last_secs = 0.0;
        for _ in 0..100_000 {
            let secs = clock.secs_since(since);
            let instant = clock.now();
            assert!(secs >= last_secs, "{secs} < {last_secs}");
            assert!(instant >= last_instant);
            // Read in this order: the instant is no earlier than the seconds
            // (to within the seconds' rounding).
            let instant_secs = instant.duration_since(since).as_secs_f64();
            assert!(secs <= instant_secs + 1e-9, "{secs} > {instant_secs}");
            last_secs = secs;
            last_instant = instant;
        }
        let later = clock.now() + Duration::from_secs(1);
        assert_eq!(clock.secs_since(later), 0.0, "never negative");
    }

    #[test]
    fn an_instant_before_the_origin_counts_from_there() {
        let early = Instant::now();
        let clock = FastClock::new();
        let gap = clock.origin.duration_since(early).as_secs_f64();
        let secs = clock.secs_since(early);
        let again = clock.secs_since(clock.origin);
        assert!(secs >= gap, "{secs} < {gap}");
        assert!((secs - gap - again).abs() < 1e-3, "{secs} {gap} {again}");
    }

    /// Whatever time passes between the reads (no sleeping: a loop of a
    /// hundred thousand monotonic-clock reads, however long they take), the
    /// counter's interval lies between the monotonic clock's inner and outer
    /// intervals around it, give or take the calibration's error. Does not
    /// depend on the machine's speed.
    #[test]
    fn counts_at_the_monotonic_clocks_rate() {
        let clock = FastClock::new();
        let since = clock.now();
        let outer_start = Instant::now();
        let start = clock.secs_since(since);
        let inner_start = Instant::now();
        let mut inner_end = inner_start;
        for _ in 0..100_000 {
            inner_end = std::hint::black_box(Instant::now());
        }
        let end = clock.secs_since(since);
        let outer_end = Instant::now();
        let counted = end - start;
        let inner = inner_end.duration_since(inner_start).as_secs_f64();
        let outer = outer_end.duration_since(outer_start).as_secs_f64();
        let slack = 1e-3 * outer + 1e-6;
        assert!(
            inner - slack <= counted && counted <= outer + slack,
            "counted {counted} s, monotonic between {inner} and {outer} s"
        );
    }

    /// The distance kept for the first `since` is used for it only.
    #[test]
    fn each_since_counts_from_itself() {
        let clock = FastClock::new();
        let first = clock.now();
        let second = first + Duration::from_secs(1);
        let early = clock.origin.checked_sub(Duration::from_secs(1));
        for _ in 0..3 {
            let from_first = clock.secs_since(first);
            let from_second = clock.secs_since(second);
            assert_eq!(from_second, 0.0, "second is a second ahead");
            if let Some(early) = early {
                // Counted from `early`, one second and `first`'s lead on the
                // origin more than from `first`, read between two reads of it.
                let lead = first.duration_since(clock.origin).as_secs_f64();
                let from_early = clock.secs_since(early) - 1.0 - lead;
                let again = clock.secs_since(first);
                assert!(
                    from_first - 1e-6 <= from_early && from_early <= again + 1e-6,
                    "{from_first} {from_early} {again}"
                );
            }
        }
    }

    #[test]
    fn is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<FastClock>();
    }
}
