//! Lock-free counting of the successes that change nothing but a count.
//!
//! A success response at exactly the time of the last full response update
//! (after a success, not a throttle) leaves the limiter's state as it was,
//! except for the meter's response count:
//! - the meter: the time falls in the bucket the last update left (or moved)
//!   it to, so the count goes up and the measured rate stays;
//! - CUBIC: no throttle since, so the same time gives the same rate, capped by
//!   the same measured rate;
//! - the send bucket: the refill credits no time (the bucket is already at
//!   that time or later), the fill rate and maximum are set to what they are,
//!   and the capacity never exceeds the maximum.
//!
//! So such a response only needs counting, which this does with one
//! compare-and-swap and no lock. With a clock that ticks coarsely (a
//! millisecond or more, like [`CoarseClock`](crate::time::CoarseClock)), all
//! but the first response of a tick take this path; with a nanosecond clock,
//! almost none do, and the caller takes the state's lock as before.
//!
//! The protocol: the word holds an *open* flag, a generation and the count.
//! The writer (a full update, under the state's lock) *closes* the word —
//! taking the count — updates the state, publishes the new time, and *opens*
//! the word again under a new generation, but only if responses do repeat
//! times (some were counted, or this one had the latest time the state had
//! seen): with a nanosecond clock the word stays closed and unwritten. A
//! response counts only while the word is open, its time equals the
//! published time, and the word did not change between reading the time
//! and the compare-and-swap; a close in
//! between changes the generation, so a count is never made against a time
//! that is no longer the latest, nor lost. A loom model checks this
//! (`RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib same_tick`).

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering};

/// The word's bit that says responses may be counted.
const OPEN: u64 = 1 << 63;
/// The count's bits (the low 32); a full count sends responses to the slow path.
const COUNT: u64 = (1 << 32) - 1;
/// One step of the generation (bits 32..63; wrapping, so an old word could
/// reappear only after 2^31 full updates between one caller's two reads).
const GENERATION_STEP: u64 = 1 << 32;
const GENERATION: u64 = !OPEN & !COUNT;

/// The count of same-time successes since the last full update, and that
/// update's time.
#[derive(Debug)]
pub(crate) struct SameTickCounter {
    /// `OPEN | generation | count`.
    word: AtomicU64,
    /// The bits of the last full update's time (meaningful while open).
    time: AtomicU64,
}

impl SameTickCounter {
    /// Closed: the first response takes the full update.
    pub(crate) fn new() -> Self {
        Self {
            word: AtomicU64::new(0),
            time: AtomicU64::new(f64::NAN.to_bits()),
        }
    }

    /// Counts a success at `now` if it changes nothing but the count;
    /// `false` means "take the full update".
    #[inline]
    pub(crate) fn try_count(&self, now: f64) -> bool {
        let mut word = self.word.load(Ordering::Acquire);
        loop {
            if word & OPEN == 0 || word & COUNT == COUNT {
                return false;
            }
            if self.time.load(Ordering::Acquire) != now.to_bits() {
                return false;
            }
            match self.word.compare_exchange_weak(
                word,
                word + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(current) => word = current,
            }
        }
    }

    /// Starts a full update: no response is counted until [`open`](Self::open).
    /// Returns the responses counted since the last one. Only one caller at a
    /// time (the holder of the state's lock) may close and open. A closed
    /// word is left untouched: while responses never repeat a time (a
    /// nanosecond clock), the word is never written, and the response path
    /// pays one read of a cache line no one invalidates.
    pub(crate) fn close(&self) -> u64 {
        let word = self.word.load(Ordering::Acquire);
        if word & OPEN == 0 {
            return 0; // closed words hold no count
        }
        self.word.swap(word & GENERATION, Ordering::AcqRel) & COUNT
    }

    /// Ends a full update at `now` after a success: successes at `now` may
    /// be counted, under a new generation (so that a caller that read the
    /// word before the close cannot count against it). After a throttle, or
    /// at a time that is not finite, the caller does not open it: a success
    /// at the same time would change the rate.
    pub(crate) fn open(&self, now: f64) {
        if !now.is_finite() {
            return;
        }
        self.time.store(now.to_bits(), Ordering::Release);
        let closed = self.word.load(Ordering::Acquire);
        let generation = closed.wrapping_add(GENERATION_STEP) & GENERATION;
        self.word.store(generation | OPEN, Ordering::Release);
    }

    /// The responses counted since the last full update (exact when no
    /// response is being counted meanwhile).
    pub(crate) fn pending(&self) -> u64 {
        self.word.load(Ordering::Acquire) & COUNT
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn counts_only_at_the_open_time() {
        let counter = SameTickCounter::new();
        assert!(!counter.try_count(1.0), "closed until the first update");
        assert_eq!(counter.close(), 0);
        assert_eq!(
            counter.word.load(Ordering::Relaxed),
            0,
            "a closed word is not written"
        );
        counter.open(1.0);
        assert!(counter.try_count(1.0));
        assert!(counter.try_count(1.0));
        assert!(!counter.try_count(1.5));
        assert!(!counter.try_count(-1.0));
        assert_eq!(counter.pending(), 2);
        assert_eq!(counter.close(), 2);
        assert!(!counter.try_count(1.0), "closed during an update");
        counter.open(2.0);
        assert!(
            !counter.try_count(1.0),
            "an old time is no longer the latest"
        );
        assert!(counter.try_count(2.0));
    }

    #[test]
    fn non_finite_times_never_open_it() {
        let counter = SameTickCounter::new();
        for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            counter.close();
            counter.open(t);
            assert!(!counter.try_count(t));
        }
    }

    #[test]
    fn a_full_count_sends_responses_to_the_update() {
        let counter = SameTickCounter::new();
        counter.close();
        counter.open(3.0);
        counter.word.fetch_add(COUNT - 1, Ordering::Relaxed);
        assert!(counter.try_count(3.0));
        assert!(!counter.try_count(3.0));
        assert_eq!(counter.close(), COUNT);
    }

    #[test]
    fn the_generation_wraps_without_touching_the_flag_or_count() {
        let counter = SameTickCounter::new();
        counter.word.store(GENERATION | OPEN | 5, Ordering::Relaxed);
        assert_eq!(counter.close(), 5);
        assert_eq!(counter.word.load(Ordering::Relaxed), GENERATION);
        counter.open(1.0);
        assert_eq!(counter.word.load(Ordering::Relaxed), OPEN);
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::Arc;

    /// A counter opened at `time`, shared.
    fn opened_at(time: f64) -> Arc<SameTickCounter> {
        let counter = Arc::new(SameTickCounter::new());
        counter.close();
        counter.open(time);
        counter
    }

    /// A writer moves the time from 1 to 2 while another thread counts
    /// responses at time 1: every count made is folded by the writer or
    /// still pending (none lost), and none lands after the writer moved on.
    #[test]
    fn no_count_is_lost_or_made_against_a_stale_time() {
        loom::model(|| {
            let counter = opened_at(1.0);
            let counting = {
                let counter = Arc::clone(&counter);
                loom::thread::spawn(move || {
                    (0..2).filter(|_| counter.try_count(1.0)).count() as u64
                })
            };
            let folded = counter.close();
            counter.open(2.0);
            let counted = counting.join().unwrap();
            assert_eq!(
                counter.pending(),
                0,
                "a count at time 1 after the writer opened at 2"
            );
            assert_eq!(folded, counted, "a count lost");
        });
    }

    /// Two threads counting at once: every success is counted once.
    #[test]
    fn concurrent_counts_add_up() {
        loom::model(|| {
            let counter = opened_at(1.0);
            let threads: Vec<_> = (0..2)
                .map(|_| {
                    let counter = Arc::clone(&counter);
                    loom::thread::spawn(move || counter.try_count(1.0))
                })
                .collect();
            let counted = threads
                .into_iter()
                .map(|t| u64::from(t.join().unwrap()))
                .sum::<u64>();
            assert_eq!(counted, 2);
            assert_eq!(counter.close(), 2);
        });
    }
}
