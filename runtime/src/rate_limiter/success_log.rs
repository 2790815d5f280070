//! Success responses recorded without a lock, applied to the state later, in
//! time order.
//!
//! A success changes the limiter's state (the measured rate's count, CUBIC's
//! rate, the send bucket's refill), and the vectors pin the state after each
//! one, so successes must be applied one at a time, in order, with botocore's
//! exact arithmetic. They need not be applied *at once*, though: nothing reads
//! the state without first taking its lock, so a success can be written down
//! here and applied by whoever takes the lock next, before it looks (a send
//! while the limiter is on, a throttle, a snapshot), or when the log is full.
//! What a reader sees is then exactly the state the same responses would have
//! left one by one.
//!
//! What this buys is a response path that writes only lines its own thread
//! uses: the log is split into shards, and each thread records into the shard
//! it was given on its first success (threads are dealt shards in turn, so up
//! to [`SHARDS`] threads never share one). Recording is one uncontended
//! compare-and-swap and one store; the lock is taken once per [`SLOTS`]
//! successes (when a shard fills) or when something needs the state.
//!
//! The shards are merged by time when applied, so successes from different
//! threads reach the state in the order their clocks read (within one drain),
//! as a single thread's would: the measured rate's half-second buckets never
//! see a later response before an earlier one from another shard.
//!
//! The protocol, per shard: `claimed` counts slots handed out (a recorder
//! claims one with a compare-and-swap, only while fewer than [`SLOTS`] are
//! unapplied), `applied` counts slots the drainer has taken (only it writes
//! it). A claimed slot holds [`EMPTY`] until its recorder stores the time;
//! the drainer takes written slots in order, resets each to [`EMPTY`], then
//! publishes the new `applied`, which is what lets a recorder reuse the slot.
//! A slot claimed but not yet written stops its shard's drain there; the
//! next drain takes it. A loom model checks that no success is lost or
//! applied twice (`RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib
//! success_log`).

use std::cell::Cell;

#[cfg(loom)]
use loom::sync::atomic::{AtomicU64, Ordering};
use std::sync::atomic::AtomicUsize;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// Shards per log: threads beyond this many share shards (correct, with
/// contention on the shared ones).
#[cfg(not(loom))]
pub(crate) const SHARDS: usize = 8;
/// Successes a shard holds before its recorder applies them under the lock.
#[cfg(not(loom))]
pub(crate) const SLOTS: usize = 32;
// Small under loom, so that the models fill shards and reuse slots.
#[cfg(loom)]
pub(crate) const SHARDS: usize = 2;
#[cfg(loom)]
pub(crate) const SLOTS: usize = 2;

/// A slot claimed but not yet written (a NaN's bits: recorded times are
/// finite).
const EMPTY: u64 = u64::MAX;

/// Successes not yet applied to the state, in per-thread shards (about
/// 3 KB: each shard on cache lines of its own).
pub(crate) struct SuccessLog {
    shards: [CachePadded<Shard>; SHARDS],
}

impl std::fmt::Debug for SuccessLog {
    /// How many successes wait to be applied, not the slots' raw contents.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unapplied: u64 = self.shards.iter().map(|s| s.unapplied()).sum();
        f.debug_struct("SuccessLog")
            .field("unapplied", &unapplied)
            .finish()
    }
}

struct Shard {
    /// Slots handed out since the log was made (never wraps in practice:
    /// 2^64 successes).
    claimed: AtomicU64,
    /// Slots applied since the log was made; written only by the drainer.
    applied: AtomicU64,
    /// Slot `i % SLOTS` holds the `i`-th success's time bits, or [`EMPTY`].
    times: [AtomicU64; SLOTS],
}

impl Shard {
    fn new() -> Self {
        Self {
            claimed: AtomicU64::new(0),
            applied: AtomicU64::new(0),
            times: std::array::from_fn(|_| AtomicU64::new(EMPTY)),
        }
    }

    /// Slots claimed and not yet applied.
    #[inline]
    fn unapplied(&self) -> u64 {
        self.claimed
            .load(Ordering::Acquire)
            .wrapping_sub(self.applied.load(Ordering::Relaxed))
    }

    /// The time in slot `index` if it is below `end` and written, else
    /// +infinity: the shard's part of the drain stops there (a claimed slot
    /// not yet written is taken by the next drain, with those after it).
    fn time_at(&self, index: u64, end: u64) -> f64 {
        if index == end {
            return f64::INFINITY;
        }
        match self.slot(index).load(Ordering::Acquire) {
            EMPTY => f64::INFINITY,
            bits => f64::from_bits(bits),
        }
    }

    fn slot(&self, index: u64) -> &AtomicU64 {
        // The remainder is below SLOTS, so it fits any usize.
        #[allow(clippy::cast_possible_truncation)]
        &self.times[(index % SLOTS as u64) as usize]
    }
}

impl SuccessLog {
    /// An empty log.
    pub(crate) fn new() -> Self {
        Self {
            shards: std::array::from_fn(|_| CachePadded::new(Shard::new())),
        }
    }

    /// Records a success at `now` (finite) in shard `shard` (modulo
    /// [`SHARDS`]). `false` when the shard is full: apply the log and this
    /// success under the lock instead.
    #[inline]
    pub(crate) fn record(&self, shard: usize, now: f64) -> bool {
        let shard = &self.shards[shard % SHARDS];
        loop {
            // `applied` first: `claimed`, read after it, is at least as large
            // (the drainer read it before publishing `applied`), so the
            // difference never wraps. Acquire: the drainer emptied the slot
            // being reused before it published `applied`.
            let applied = shard.applied.load(Ordering::Acquire);
            let claimed = shard.claimed.load(Ordering::Relaxed);
            if claimed.wrapping_sub(applied) >= SLOTS as u64 {
                return false;
            }
            if shard
                .claimed
                .compare_exchange_weak(claimed, claimed + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                shard.slot(claimed).store(now.to_bits(), Ordering::Release);
                return true;
            }
        }
    }

    /// Hands every written success to `apply`, earliest time first across
    /// shards (each shard's in the order recorded), with whether it has the
    /// same time as the success handed over just before it. Only one drain
    /// may run at a time: the caller holds the state's lock (a second
    /// drainer could hand a success over twice).
    ///
    /// Successes recorded while it runs may wait for the next drain.
    #[inline]
    pub(crate) fn drain(&self, apply: impl FnMut(f64, bool)) {
        // Nothing recorded (the common case when asked often) reads each
        // shard's two counts; one shard with successes (one thread
        // answering) needs no merge.
        let mut recorded = self
            .shards
            .iter()
            .enumerate()
            .filter(|(_, shard)| shard.unapplied() != 0);
        match (recorded.next(), recorded.next()) {
            (None, _) => {}
            (Some((i, _)), None) => self.drain_one(i, apply),
            (Some(_), Some(_)) => self.drain_merged(apply),
        }
    }

    /// [`drain`](Self::drain) when only shard `i` had successes (others
    /// recorded since wait for the next drain).
    fn drain_one(&self, i: usize, mut apply: impl FnMut(f64, bool)) {
        let shard = &self.shards[i];
        let mut next = shard.applied.load(Ordering::Relaxed);
        let end = shard.claimed.load(Ordering::Acquire);
        let mut previous = f64::NAN;
        loop {
            let time = shard.time_at(next, end);
            if time == f64::INFINITY {
                break;
            }
            apply(time, time.to_bits() == previous.to_bits());
            previous = time;
            shard.slot(next).store(EMPTY, Ordering::Relaxed);
            next += 1;
        }
        shard.applied.store(next, Ordering::Release);
    }

    /// [`drain`](Self::drain) merging several shards by time.
    fn drain_merged(&self, mut apply: impl FnMut(f64, bool)) {
        // Per shard with successes: its next slot, where its part ends, and
        // the time at the next slot (+infinity once done: times are finite).
        // Fixed arrays: a drain allocates nothing.
        let mut shards = [0_usize; SHARDS];
        let mut next = [0_u64; SHARDS];
        let mut end = [0_u64; SHARDS];
        let mut head = [f64::INFINITY; SHARDS];
        let mut active = 0;
        for (i, shard) in self.shards.iter().enumerate() {
            // Only the drainer writes `applied`.
            let from = shard.applied.load(Ordering::Relaxed);
            let to = shard.claimed.load(Ordering::Acquire);
            if to != from {
                shards[active] = i;
                next[active] = from;
                end[active] = to;
                head[active] = shard.time_at(from, to);
                active += 1;
            }
        }
        let mut previous = f64::NAN;
        loop {
            // The earliest head: a scan, as `active` is at most `SHARDS`.
            let mut earliest = 0;
            for k in 1..active {
                if head[k] < head[earliest] {
                    earliest = k;
                }
            }
            let time = head[earliest];
            if time == f64::INFINITY {
                break;
            }
            apply(time, time.to_bits() == previous.to_bits());
            previous = time;
            let shard = &self.shards[shards[earliest]];
            shard.slot(next[earliest]).store(EMPTY, Ordering::Relaxed);
            next[earliest] += 1;
            head[earliest] = shard.time_at(next[earliest], end[earliest]);
        }
        for k in 0..active {
            // Release: the slots' resets come before a recorder reuses them.
            self.shards[shards[k]]
                .applied
                .store(next[k], Ordering::Release);
        }
    }

    /// How many successes are recorded and not yet applied (exact when no
    /// success is being recorded meanwhile).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn pending(&self) -> u64 {
        self.shards.iter().map(|s| s.unapplied()).sum()
    }
}

/// The shard this thread records into: threads are dealt shards in turn on
/// their first success, so up to [`SHARDS`] threads never share one.
#[inline]
pub(crate) fn this_threads_shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    SHARD.with(|shard| {
        let mine = shard.get();
        if mine != usize::MAX {
            return mine;
        }
        let mine = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % SHARDS;
        shard.set(mine);
        mine
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn drained(log: &SuccessLog) -> Vec<(f64, bool)> {
        let mut seen = Vec::new();
        log.drain(|time, repeat| seen.push((time, repeat)));
        seen
    }

    #[test]
    fn a_shard_holds_slots_successes_then_says_full() {
        let log = SuccessLog::new();
        for i in 0..SLOTS {
            assert!(log.record(3, i as f64));
        }
        assert!(!log.record(3, 99.0), "full");
        assert!(log.record(4, 99.0), "other shards are not");
        assert_eq!(log.pending(), SLOTS as u64 + 1);
        assert_eq!(drained(&log).len(), SLOTS + 1);
        assert_eq!(log.pending(), 0);
        assert!(log.record(3, 100.0), "room again after the drain");
    }

    #[test]
    fn shards_are_merged_by_time_and_repeats_flagged() {
        let log = SuccessLog::new();
        for t in [1.0, 3.0, 3.0, 6.0] {
            assert!(log.record(0, t));
        }
        for t in [2.0, 3.0, 5.0] {
            assert!(log.record(1, t));
        }
        assert!(log.record(SHARDS + 2, 4.0), "shards wrap");
        assert_eq!(
            drained(&log),
            [
                (1.0, false),
                (2.0, false),
                (3.0, false),
                (3.0, true),
                (3.0, true),
                (4.0, false),
                (5.0, false),
                (6.0, false),
            ]
        );
        assert!(drained(&log).is_empty(), "each success is applied once");
    }

    #[test]
    fn slots_are_reused_across_many_drains() {
        let log = SuccessLog::new();
        let mut expected = Vec::new();
        let mut seen = Vec::new();
        for round in 0..10 {
            for i in 0..(SLOTS - round) {
                let t = (round * 100 + i) as f64;
                assert!(log.record(5, t));
                expected.push(t);
            }
            log.drain(|t, _| seen.push(t));
        }
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_claimed_unwritten_slot_stops_its_shard_until_written() {
        let log = SuccessLog::new();
        let shard = &log.shards[0];
        assert!(log.record(0, 1.0));
        // A recorder that claimed slot 1 and has not stored yet.
        shard.claimed.fetch_add(1, Ordering::Relaxed);
        assert!(log.record(0, 3.0));
        assert!(log.record(1, 2.0));
        assert_eq!(drained(&log), [(1.0, false), (2.0, false)]);
        shard.slot(1).store(2.5_f64.to_bits(), Ordering::Release);
        assert_eq!(drained(&log), [(2.5, false), (3.0, false)]);
        assert_eq!(log.pending(), 0);
    }

    #[test]
    fn debug_shows_the_count_not_the_slots() {
        let log = SuccessLog::new();
        assert!(log.record(0, 1.0) && log.record(1, 2.0));
        assert_eq!(format!("{log:?}"), "SuccessLog { unapplied: 2 }");
    }

    #[test]
    fn threads_are_dealt_shards_in_turn() {
        let mine = this_threads_shard();
        assert_eq!(this_threads_shard(), mine, "a thread keeps its shard");
        let others: Vec<usize> = (0..SHARDS - 1)
            .map(|_| std::thread::spawn(this_threads_shard).join().unwrap())
            .collect();
        assert!(others.iter().all(|&s| s < SHARDS));
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::{Arc, Mutex};

    /// Two recorders (one filling its shard and applying under the lock, as
    /// the limiter does) and a drainer: every success is applied exactly
    /// once, and each shard's in the order recorded.
    #[test]
    fn no_success_is_lost_or_applied_twice() {
        loom::model(|| {
            let log = Arc::new(SuccessLog::new());
            let applied = Arc::new(Mutex::new(Vec::new()));
            let record = |shard: usize, times: &'static [f64]| {
                let log = Arc::clone(&log);
                let applied = Arc::clone(&applied);
                loom::thread::spawn(move || {
                    for &t in times {
                        if !log.record(shard, t) {
                            let mut applied = applied.lock().unwrap();
                            log.drain(|t, _| applied.push(t));
                            applied.push(t);
                        }
                    }
                })
            };
            let first = record(0, &[1.0, 2.0]);
            let second = record(1, &[10.0]);
            {
                let mut applied = applied.lock().unwrap();
                log.drain(|t, _| applied.push(t));
            }
            first.join().unwrap();
            second.join().unwrap();
            let mut applied = applied.lock().unwrap();
            log.drain(|t, _| applied.push(t));
            let mut sorted = applied.clone();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(sorted, [1.0, 2.0, 10.0], "applied: {applied:?}");
            let one = applied.iter().position(|&t| t == 1.0);
            let two = applied.iter().position(|&t| t == 2.0);
            assert!(one < two, "a shard's order: {applied:?}");
        });
    }

    /// A shard small enough to fill: recorders sharing it and a drainer
    /// racing a reuse of its slots.
    #[test]
    fn slots_are_reused_only_after_they_were_applied() {
        loom::model(|| {
            let log = Arc::new(SuccessLog::new());
            for i in 0..SLOTS - 1 {
                assert!(log.record(0, i as f64));
            }
            let applied = Arc::new(Mutex::new(Vec::new()));
            let recorder = {
                let log = Arc::clone(&log);
                let applied = Arc::clone(&applied);
                loom::thread::spawn(move || {
                    for t in [100.0, 101.0] {
                        if !log.record(0, t) {
                            let mut applied = applied.lock().unwrap();
                            log.drain(|t, _| applied.push(t));
                            applied.push(t);
                        }
                    }
                })
            };
            {
                let mut applied = applied.lock().unwrap();
                log.drain(|t, _| applied.push(t));
            }
            recorder.join().unwrap();
            let mut applied = applied.lock().unwrap();
            log.drain(|t, _| applied.push(t));
            assert_eq!(applied.len(), SLOTS + 1, "applied: {applied:?}");
            let mut sorted = applied.clone();
            sorted.sort_by(f64::total_cmp);
            sorted.dedup();
            assert_eq!(sorted.len(), SLOTS + 1, "none twice: {applied:?}");
        });
    }
}
