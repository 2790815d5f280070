//! [`CoarseClock`]: the monotonic clock in steps, advanced by a background
//! thread and read with one atomic load.

use core::time::Duration;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use super::Clock;
use super::first_since::FirstSince;

/// A monotonic clock that a thread of its own advances every `resolution`
/// (1 ms by default): reading it is one atomic load. It trades resolution for
/// the cheapest read: an adaptive strategy's success costs about a fifth of
/// what it costs on the default [`FastClock`](super::FastClock)
/// (`BENCHMARKS.md`).
///
/// Why adaptive mode may want it: the rate limiter times every response, and
/// a success at the same time as its thread's previous one is recorded as
/// one more in a run, a single store, with no arithmetic on the limiter's
/// state. With this clock nearly every success is such a one. What it gives
/// up:
/// the limiter sees time in steps of `resolution`, so at high rates tokens
/// are earned, and waiting senders wake, a step at a time. Not the default
/// for that reason, and because it runs a thread.
///
/// **The thread.** Each `CoarseClock::new` (or
/// [`with_resolution`](Self::with_resolution)) starts one thread, named
/// `rebound-coarse-clock`, that stores the time since the clock's origin
/// after every sleep of `resolution`; clones share it. It ends within one
/// `resolution` after the last clone is dropped. If the thread cannot be
/// started, the clock reads the monotonic clock on every call instead
/// ([`is_ticking`](Self::is_ticking) says which).
///
/// Its instants are the origin (an `Instant::now` taken when it was made)
/// plus the time last stored, so readings within one step are equal, and
/// they never go backwards.
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
#[derive(Debug, Clone)]
pub struct CoarseClock {
    shared: Arc<Ticks>,
}

/// What the clones and the thread share.
#[derive(Debug)]
struct Ticks {
    origin: Instant,
    /// Nanoseconds from `origin` to the last tick: what `now` adds.
    nanos: AtomicU64,
    /// The same in seconds, as an `f64`'s bits: what `secs_since` reads,
    /// so that a reading needs no conversion on the caller's path (a
    /// non-negative `f64`'s bits order as its values do). Stored just after
    /// `nanos`: a read racing a tick may see `now` a step ahead of it.
    secs: AtomicU64,
    /// Whether a thread ticks it (else every read ticks it first).
    ticking: bool,
    /// The first `since` asked about, with its distance from `origin` in
    /// seconds (0 if earlier).
    first_since: FirstSince<f64>,
}

/// The finest step accepted: finer ones are raised to it, so the thread
/// never spins.
const FINEST_RESOLUTION: Duration = Duration::from_micros(10);

impl CoarseClock {
    /// The default step: fine enough for a rate limiter whose unit is the
    /// half second, coarse enough that the thread costs nothing noticeable.
    pub const DEFAULT_RESOLUTION: Duration = Duration::from_millis(1);

    /// A clock ticking every [`DEFAULT_RESOLUTION`](Self::DEFAULT_RESOLUTION)
    /// (1 ms), from now.
    #[must_use]
    pub fn new() -> Self {
        Self::with_resolution(Self::DEFAULT_RESOLUTION)
    }

    /// A clock ticking every `resolution` (at least 10 µs: a finer one is
    /// raised to that), from now.
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::time::{Clock, CoarseClock};
    ///
    /// // Steps of 5 ms; a zero step would be raised to 10 µs, never spun.
    /// let clock = CoarseClock::with_resolution(Duration::from_millis(5));
    /// let start = clock.now();
    /// assert!(clock.secs_since(start) >= 0.0);
    /// // False only where the thread could not be started.
    /// assert!(clock.is_ticking());
    /// ```
    #[must_use]
    pub fn with_resolution(resolution: Duration) -> Self {
        let resolution = resolution.max(FINEST_RESOLUTION);
        let mut clock = Self::unticked(true);
        let weak = Arc::downgrade(&clock.shared);
        let started = std::thread::Builder::new()
            .name("rebound-coarse-clock".into())
            .spawn(move || tick_until_dropped(&weak, resolution));
        if started.is_err() {
            clock = Self::unticked(false);
        }
        clock
    }

    /// A clock at its origin, with no thread: `ticking` says whether a
    /// thread will tick it (else each read does).
    fn unticked(ticking: bool) -> Self {
        Self {
            shared: Arc::new(Ticks {
                origin: Instant::now(),
                nanos: AtomicU64::new(0),
                secs: AtomicU64::new(0.0f64.to_bits()),
                ticking,
                first_since: FirstSince::default(),
            }),
        }
    }

    /// Whether a thread advances this clock (false only if it could not be
    /// started, and then every read takes the time itself).
    #[must_use]
    pub fn is_ticking(&self) -> bool {
        self.shared.ticking
    }

    /// The shared ticks, ticked first by this read if no thread ticks them.
    #[inline]
    fn ticks(&self) -> &Ticks {
        if !self.shared.ticking {
            self.shared.tick();
        }
        &self.shared
    }

    /// Nanoseconds from the origin to the last tick (to now, without a
    /// thread).
    #[inline]
    fn nanos(&self) -> u64 {
        self.ticks().nanos.load(Ordering::Relaxed)
    }

    /// [`nanos`](Self::nanos) in seconds.
    #[inline]
    fn secs(&self) -> f64 {
        f64::from_bits(self.ticks().secs.load(Ordering::Relaxed))
    }
}

/// Nanoseconds in seconds. Through i64, whose conversion is one instruction
/// (u64's is several): 2^63 ns is 292 years.
fn secs_of(nanos: u64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let secs = i64::try_from(nanos).unwrap_or(i64::MAX) as f64 * 1e-9;
    secs
}

impl Default for CoarseClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Ticks {
    /// Stores the time since the origin, never less than the last stored
    /// (the monotonic clock never goes backwards; `fetch_max` makes sure
    /// of it with several tickers), in nanoseconds and in seconds.
    fn tick(&self) {
        let elapsed = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let nanos = self
            .nanos
            .fetch_max(elapsed, Ordering::Relaxed)
            .max(elapsed);
        self.secs
            .fetch_max(secs_of(nanos).to_bits(), Ordering::Relaxed);
    }
}

/// The thread's loop: tick after every sleep, until no clock is left.
fn tick_until_dropped(ticks: &Weak<Ticks>, resolution: Duration) {
    loop {
        std::thread::sleep(resolution);
        match ticks.upgrade() {
            Some(ticks) => ticks.tick(),
            None => return,
        }
    }
}

impl Clock for CoarseClock {
    #[inline]
    fn now(&self) -> Instant {
        self.shared.origin + Duration::from_nanos(self.nanos())
    }

    /// Straight from the stored seconds, without building an `Instant`: a
    /// load and a subtraction, the shortest chain from the clock to the
    /// response log's compare. Within a nanosecond of `now`'s while the
    /// clock is younger than about a month (three `f64` roundings, each
    /// within half a unit in the last place of the clock's age in seconds;
    /// an `f64` of seconds has nanosecond steps from 48 days on anyway).
    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        let offset = self.shared.first_since.distance(since, |since| {
            let offset = since
                .saturating_duration_since(self.shared.origin)
                .as_nanos();
            secs_of(u64::try_from(offset).unwrap_or(u64::MAX))
        });
        let secs = self.secs() - offset;
        // Never negative: 0 for a `since` after the last tick.
        if secs > 0.0 { secs } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticked by hand: readings stand still between ticks, agree with each
    /// other, and never go backwards.
    #[test]
    fn readings_step_with_the_ticks_and_agree() {
        let clock = CoarseClock::unticked(true);
        let since = clock.now();
        assert_eq!(clock.secs_since(since), 0.0);
        assert_eq!(clock.now(), since, "no tick, no time");
        let mut last = 0.0;
        for _ in 0..1000 {
            clock.shared.tick();
            let secs = clock.secs_since(since);
            let instant = clock.now();
            assert!(secs >= last, "{secs} < {last}");
            let from_instant = instant.duration_since(since).as_secs_f64();
            assert!(
                (secs - from_instant).abs() <= 1e-9,
                "{secs} vs {from_instant}"
            );
            assert_eq!(
                clock.secs_since(since),
                secs,
                "one reading until the next tick"
            );
            last = secs;
        }
        let later = clock.now() + Duration::from_secs(1);
        assert_eq!(clock.secs_since(later), 0.0, "never negative");
        assert_eq!(
            clock.secs_since(since),
            last,
            "the first `since` is still known"
        );
    }

    /// A tick never stores less than the last one.
    #[test]
    fn a_tick_never_moves_the_clock_back() {
        let clock = CoarseClock::unticked(true);
        clock.shared.nanos.store(u64::MAX / 2, Ordering::Relaxed);
        clock.shared.secs.store(1e9f64.to_bits(), Ordering::Relaxed);
        clock.shared.tick();
        assert_eq!(clock.nanos(), u64::MAX / 2);
        assert_eq!(clock.secs(), secs_of(u64::MAX / 2), "the seconds follow");
        clock
            .shared
            .secs
            .store(1e12f64.to_bits(), Ordering::Relaxed);
        clock.shared.tick();
        assert_eq!(clock.secs(), 1e12, "nor the seconds");
    }

    /// Without its thread, every read takes the time.
    #[test]
    fn without_a_thread_each_read_ticks() {
        let clock = CoarseClock::unticked(false);
        assert!(!clock.is_ticking());
        let first = clock.now();
        // Monotonic reads, each at least the stored time.
        let mut last = first;
        let mut last_secs = 0.0;
        for _ in 0..1000 {
            let now = clock.now();
            assert!(now >= last);
            last = now;
            let secs = clock.secs_since(first);
            assert!(secs >= last_secs, "{secs} < {last_secs}");
            last_secs = secs;
        }
        assert!(clock.shared.nanos.load(Ordering::Relaxed) > 0 || last == first);
    }

    /// Many readers ticking one clock at once (no thread: every read ticks
    /// it): each sees time that never goes back, in seconds and in instants.
    #[test]
    fn concurrent_readers_that_tick_never_see_time_go_back() {
        let clock = CoarseClock::unticked(false);
        let since = clock.now();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let (mut last_secs, mut last_now) = (0.0, since);
                    for _ in 0..200_000 {
                        let secs = clock.secs_since(since);
                        let now = clock.now();
                        assert!(secs >= last_secs, "{secs} < {last_secs}");
                        assert!(now >= last_now);
                        (last_secs, last_now) = (secs, now);
                    }
                });
            }
        });
        assert!(clock.secs() >= 0.0);
    }

    /// A real clock starts its thread; clones share one time.
    #[test]
    fn clones_share_the_ticks() {
        let clock = CoarseClock::with_resolution(Duration::ZERO);
        assert!(clock.is_ticking());
        let clone = clock.clone();
        assert!(Arc::ptr_eq(&clock.shared, &clone.shared));
        assert!(clone.now() >= clock.shared.origin);
    }
}
