//! [`FirstSince`]: what a clock remembers about the first `since` it is
//! asked about, so that reading the time from it costs no `Instant`
//! subtraction.

use std::sync::OnceLock;
use std::time::Instant;

/// The first instant a clock's [`secs_since`](super::Clock::secs_since) was
/// asked about, with its distance from the clock's origin (in whatever unit
/// the clock counts). Callers count from one fixed instant (the adaptive
/// strategy from the time it was built), and an `Instant` subtraction is
/// two calls into `std` on every read otherwise; any other instant is
/// measured afresh each time.
#[derive(Debug, Clone, Default)]
pub(super) struct FirstSince<T>(OnceLock<(Instant, T)>);

impl<T: Copy> FirstSince<T> {
    /// The distance kept for `since` if it is the first instant asked
    /// about, else `measure(since)` (kept if none was yet).
    #[inline]
    pub(super) fn distance(&self, since: Instant, measure: impl FnOnce(Instant) -> T) -> T {
        match self.0.get() {
            Some(&(first, distance)) if first == since => distance,
            _ => self.remember(since, measure),
        }
    }

    #[cold]
    fn remember(&self, since: Instant, measure: impl FnOnce(Instant) -> T) -> T {
        let distance = measure(since);
        let _ = self.0.set((since, distance));
        distance
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_first_instant_is_kept_and_others_are_measured_each_time() {
        let first = FirstSince::default();
        let origin = Instant::now();
        let later = origin + Duration::from_secs(2);
        let mut measured = 0;
        let mut measure = |since: Instant| {
            measured += 1;
            since.duration_since(origin).as_secs()
        };
        assert_eq!(first.distance(later, &mut measure), 2);
        assert_eq!(first.distance(later, &mut measure), 2);
        assert_eq!(first.distance(origin, &mut measure), 0);
        assert_eq!(first.distance(origin, &mut measure), 0);
        assert_eq!(measured, 3, "kept for the first instant only");
    }
}
