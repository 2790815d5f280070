//! [`AtomicState`]: the limiter's state in atomics, updated without a lock.
//!
//! Every limiter operation (a response, a send) is a pure function of the
//! state and a time ([`RateLimiterState`]). So instead of holding a lock while
//! it runs, an operation reads a consistent copy of the state, runs on the
//! copy — the float work, `powf` included, happens here, outside any
//! exclusive section — and publishes the result with one compare-and-swap on
//! a version number, which fails if anyone published in between; it then
//! runs again on the newer state (optimistic concurrency). An operation
//! that changes nothing publishes nothing.
//!
//! Publishing is the only exclusive step: after its CAS the winner stores the
//! words that changed (a handful of plain stores) and bumps the version
//! again. Readers that catch the version odd, mid-publish, spin until it is
//! even; nobody ever waits for another caller's arithmetic, and no thread
//! parks. Reading is the seqlock protocol (H.-J. Boehm, "Can seqlocks get
//! along with programming language memory models?", 2012): version
//! (acquire), words (relaxed), acquire fence, version again; the writer's
//! release fence after its CAS pairs with that fence, so a reader that saw
//! any word of a publish sees the version it started with change.
//!
//! Applied one at a time, operations run exactly the reference's arithmetic
//! on exactly the reference's state, so the conformance vectors replay bit
//! for bit; concurrent operations are linearizable (each took effect on
//! the state as some publish left it). Under `--cfg loom` the atomics are
//! loom's, and a loom model checks that no update is lost and no read is
//! torn: `RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib atomic_state`.

use std::fmt;

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering, fence};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering, fence};

use super::state::RateLimiterState;

const WORDS: usize = RateLimiterState::WORDS;

/// A [`RateLimiterState`] shared between threads, read and updated without a
/// lock.
pub(crate) struct AtomicState {
    /// Even: the words are a published state. Odd: a publish is under way.
    version: AtomicU64,
    words: [AtomicU64; WORDS],
}

impl AtomicState {
    /// Holds `state`.
    pub(crate) fn new(state: RateLimiterState) -> Self {
        Self {
            version: AtomicU64::new(0),
            words: state.to_words().map(AtomicU64::new),
        }
    }

    /// A consistent copy of the state.
    pub(crate) fn load(&self) -> RateLimiterState {
        RateLimiterState::from_words(self.read().1)
    }

    /// Runs `op` on the current state and publishes what it leaves, as one
    /// atomic step; returns what `op` returned. `op` may run more than once
    /// (when another update was published meanwhile), each time on a fresh
    /// copy: it must be a pure function of the state it is given.
    pub(crate) fn update<R>(&self, mut op: impl FnMut(&mut RateLimiterState) -> R) -> R {
        loop {
            let (version, before) = self.read();
            let mut state = RateLimiterState::from_words(before);
            let result = op(&mut state);
            let after = state.to_words();
            // (Word by word: an array `==` becomes a `memcmp` call.)
            if before.iter().zip(&after).all(|(old, new)| old == new) {
                // Nothing to publish: the result held at `version`.
                return result;
            }
            if self
                .version
                .compare_exchange(version, version + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                fence(Ordering::Release);
                for ((word, old), new) in self.words.iter().zip(before).zip(after) {
                    if old != new {
                        word.store(new, Ordering::Relaxed);
                    }
                }
                self.version.store(version + 2, Ordering::Release);
                return result;
            }
            // Someone published after our read: run again on their state.
        }
    }

    /// The version and the words of a published state.
    fn read(&self) -> (u64, [u64; WORDS]) {
        let mut spins = 0_u32;
        loop {
            let version = self.version.load(Ordering::Acquire);
            if version.is_multiple_of(2) {
                let words = std::array::from_fn(|i| self.words[i].load(Ordering::Relaxed));
                fence(Ordering::Acquire);
                if self.version.load(Ordering::Relaxed) == version {
                    return (version, words);
                }
            }
            spins = spins.wrapping_add(1);
            back_off(spins);
        }
    }
}

/// A publish is under way on another thread: it is a few stores long, so
/// spin; if it takes long, that thread was preempted mid-publish, so let it
/// run.
fn back_off(spins: u32) {
    #[cfg(loom)]
    {
        let _ = spins;
        loom::thread::yield_now();
    }
    #[cfg(not(loom))]
    if spins.is_multiple_of(64) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

impl fmt::Debug for AtomicState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn updates_apply_in_turn_and_no_op_updates_publish_nothing() {
        let shared = AtomicState::new(RateLimiterState::new(0.0));
        let mut plain = RateLimiterState::new(0.0);
        for (i, t) in [0.2, 0.7, 1.3, 1.4, 2.9].into_iter().enumerate() {
            let throttle = i % 2 == 1;
            shared.update(|s| s.on_response(t, throttle));
            plain.on_response(t, throttle);
            assert_eq!(shared.load(), plain);
        }
        let version = shared.read().0;
        let _ = shared.update(|s| s.snapshot());
        assert_eq!(shared.read().0, version, "an update that changes nothing");
    }

    #[test]
    fn concurrent_responses_are_all_counted() {
        let shared = std::sync::Arc::new(AtomicState::new(RateLimiterState::new(0.0)));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let shared = std::sync::Arc::clone(&shared);
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        // One measurement bucket: every response is counted.
                        shared.update(|s| s.on_response(0.25, false));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().expect("no panic");
        }
        assert_eq!(shared.load().snapshot().request_count, 40_000);
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::Arc;

    /// Two responses published concurrently while a third thread reads:
    /// both are counted, and every read is a state some publish left.
    #[test]
    fn no_lost_update_no_torn_read() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(|| {
            let shared = Arc::new(AtomicState::new(RateLimiterState::new(0.0)));
            let writers: Vec<_> = [0.1, 0.2]
                .into_iter()
                .map(|t| {
                    let shared = Arc::clone(&shared);
                    loom::thread::spawn(move || shared.update(|s| s.on_response(t, false)))
                })
                .collect();
            let seen = shared.load();
            // Any consistent state: 0, 1 or 2 responses counted, and the
            // bucket's time is that of the last counted response.
            let count = seen.snapshot().request_count;
            let last = seen.snapshot().last_timestamp;
            assert!(
                (count == 0 && last == 0.0) || (count >= 1 && (last == 0.1 || last == 0.2)),
                "torn: {seen:?}"
            );
            for writer in writers {
                writer.join().expect("no panic");
            }
            assert_eq!(shared.load().snapshot().request_count, 2);
        });
    }
}
