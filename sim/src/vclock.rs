//! [`VirtualClock`]: the event loop's time, as the `ManualClock` the
//! strategies read.
//!
//! The adaptive strategy's rate limiter reads the time from its clock. In a
//! simulation that clock must say the virtual time of the event being
//! handled, so the loop moves one shared [`ManualClock`] forward to each
//! event's time before it calls a strategy. Nothing here reads the wall
//! clock: a `ManualClock` only measures how far it was advanced, so the
//! strategies see exactly the virtual time, to the nanosecond.

use std::time::Duration;

use rebound_runtime::time::ManualClock;

/// One run's time: virtual seconds since the start, mirrored on a
/// [`ManualClock`] to the nanosecond.
///
/// # Examples
///
/// ```
/// use rebound_sim::vclock::VirtualClock;
///
/// let mut time = VirtualClock::new();
/// let clock = time.clock(); // what the strategies are built with
/// time.set(1.5);
/// assert_eq!(clock.elapsed(), std::time::Duration::from_millis(1500));
/// time.set(1.0); // never backwards
/// assert_eq!(clock.elapsed(), std::time::Duration::from_millis(1500));
/// ```
#[derive(Debug, Clone, Default)]
pub struct VirtualClock {
    clock: ManualClock,
    nanos: u64,
}

impl VirtualClock {
    /// A clock at virtual time zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A handle on the same time, for building strategies: clones of a
    /// `ManualClock` share it.
    #[must_use]
    pub fn clock(&self) -> ManualClock {
        self.clock.clone()
    }

    /// Moves the time forward to `secs` virtual seconds (rounded to the
    /// nanosecond). Earlier times, NaN and negative values leave it where it
    /// is: time never runs backwards.
    pub fn set(&mut self, secs: f64) {
        let target = secs_to_nanos(secs);
        if target > self.nanos {
            self.clock
                .advance(Duration::from_nanos(target - self.nanos));
            self.nanos = target;
        }
    }

    /// The time as [`Clock::secs_since`](rebound_runtime::time::Clock::secs_since)
    /// reads it from time 0 (`Duration::as_secs_f64` of the whole
    /// nanoseconds): the time a strategy built at 0 gives its rate limiter.
    #[must_use]
    pub fn limiter_secs(&self) -> f64 {
        Duration::from_nanos(self.nanos).as_secs_f64()
    }

    /// The current virtual time, seconds.
    #[must_use]
    pub fn now(&self) -> f64 {
        self.nanos as f64 / 1e9
    }
}

/// `secs` as whole nanoseconds, saturating; 0 for NaN and negative values.
fn secs_to_nanos(secs: f64) -> u64 {
    let nanos = (secs * 1e9).round();
    if nanos.is_nan() || nanos <= 0.0 {
        0
    } else if nanos >= u64::MAX as f64 {
        u64::MAX
    } else {
        nanos as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_times_do_not_move_it() {
        let mut time = VirtualClock::new();
        for bad in [f64::NAN, -1.0, f64::NEG_INFINITY] {
            time.set(bad);
            assert_eq!(time.now(), 0.0);
        }
        time.set(f64::INFINITY);
        assert_eq!(time.clock().elapsed(), Duration::from_nanos(u64::MAX));
    }
}
