//! Responses recorded without a lock, applied to the state later, in time
//! order.
//!
//! A response changes the limiter's state (the measured rate's count, CUBIC's
//! rate, the send bucket's refill; a throttle also turns the limiter on and
//! cuts the rate), and the vectors pin the state after each one, so responses
//! must be applied one at a time, in order, with botocore's exact arithmetic.
//! They need not be applied *at once*, though: nothing reads the state without
//! first taking its lock, so a response can be written down here and applied
//! by whoever takes the lock next, before it looks (a send while the limiter
//! is on, a snapshot), or when the log is full. What a reader sees is then
//! exactly the state the same responses would have left one by one.
//!
//! What this buys is a response path that writes only lines its own thread
//! uses: the log is split into shards, and each thread records into the shard
//! it was given on its first response (threads are dealt shards in turn, so up
//! to [`SHARDS`] threads never share one). Recording is one uncontended
//! compare-and-swap and one store; the lock is taken once per [`SLOTS`]
//! responses (when a shard fills) or when something needs the state.
//!
//! The shards are merged by time when applied, so responses from different
//! threads reach the state in the order their clocks read (within one drain),
//! as a single thread's would: the measured rate's half-second buckets never
//! see a later response before an earlier one from another shard.
//!
//! A slot holds a response's time bits with the sign bit telling a throttle:
//! only times that are finite and not negative are logged (the caller applies
//! the others under the lock, where the state sanitises them), so the sign
//! bit is free.
//!
//! The protocol, per shard: `claimed` counts slots handed out (a recorder
//! claims one with a compare-and-swap, only while fewer than [`SLOTS`] are
//! unapplied), `applied` counts slots the drainer has taken (only it writes
//! it). A claimed slot holds [`EMPTY`] until its recorder stores the time;
//! the drainer takes written slots in order, resets each to [`EMPTY`], then
//! publishes the new `applied`, which is what lets a recorder reuse the slot.
//! A slot claimed but not yet written stops its shard's drain there; the
//! next drain takes it. A loom model checks that no response is lost or
//! applied twice (`RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib
//! response_log`).

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
/// Responses a shard holds before its recorder applies them under the lock.
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

/// The bit of a slot that marks a throttle (a time's sign bit: logged times
/// are not negative).
const THROTTLE: u64 = 1 << 63;

/// A response as a drain hands it over, in time order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Logged {
    /// A success at this time.
    Success(f64),
    /// A success at the time of the response handed over just before it,
    /// which was a success too: it changes only the measured rate's count.
    RepeatedSuccess,
    /// A throttle at this time.
    Throttle(f64),
}

/// Responses not yet applied to the state, in per-thread shards (about
/// 3 KB: each shard on cache lines of its own).
pub(crate) struct ResponseLog {
    shards: [CachePadded<Shard>; SHARDS],
}

impl std::fmt::Debug for ResponseLog {
    /// How many responses wait to be applied, not the slots' raw contents.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unapplied: u64 = self.shards.iter().map(|s| s.unapplied()).sum();
        f.debug_struct("ResponseLog")
            .field("unapplied", &unapplied)
            .finish()
    }
}

struct Shard {
    /// Slots handed out since the log was made (never wraps in practice:
    /// 2^64 responses).
    claimed: AtomicU64,
    /// Slots applied since the log was made; written only by the drainer.
    applied: AtomicU64,
    /// Slot `i % SLOTS` holds the `i`-th response (see [`Entry`]), or
    /// [`EMPTY`].
    slots: [AtomicU64; SLOTS],
}

/// A written slot, decoded: +infinity for "none" (the shard's part of a
/// drain ends there).
#[derive(Clone, Copy)]
struct Entry {
    time: f64,
    throttle: bool,
}

impl Entry {
    const NONE: Self = Self {
        time: f64::INFINITY,
        throttle: false,
    };

    fn encode(time: f64, throttle: bool) -> u64 {
        time.to_bits() | if throttle { THROTTLE } else { 0 }
    }

    fn decode(bits: u64) -> Self {
        Self {
            time: f64::from_bits(bits & !THROTTLE),
            throttle: bits & THROTTLE != 0,
        }
    }

    fn is_none(self) -> bool {
        self.time == f64::INFINITY
    }
}

impl Shard {
    fn new() -> Self {
        Self {
            claimed: AtomicU64::new(0),
            applied: AtomicU64::new(0),
            slots: std::array::from_fn(|_| AtomicU64::new(EMPTY)),
        }
    }

    /// Slots claimed and not yet applied.
    #[inline]
    fn unapplied(&self) -> u64 {
        self.claimed
            .load(Ordering::Acquire)
            .wrapping_sub(self.applied.load(Ordering::Relaxed))
    }

    /// The response in slot `index` if it is below `end` and written, else
    /// [`Entry::NONE`]: the shard's part of the drain stops there (a claimed
    /// slot not yet written is taken by the next drain, with those after it).
    fn entry_at(&self, index: u64, end: u64) -> Entry {
        if index == end {
            return Entry::NONE;
        }
        match self.slot(index).load(Ordering::Acquire) {
            EMPTY => Entry::NONE,
            bits => Entry::decode(bits),
        }
    }

    fn slot(&self, index: u64) -> &AtomicU64 {
        // The remainder is below SLOTS, so it fits any usize.
        #[allow(clippy::cast_possible_truncation)]
        &self.slots[(index % SLOTS as u64) as usize]
    }
}

/// Turns the entries of one drain, in time order, into [`Logged`]s: a
/// success at the time of a success just before it is a repeat.
struct Repeats {
    /// The time of the success handed over last (NaN after a throttle or
    /// at the start: equal to no time).
    previous_success: f64,
}

impl Repeats {
    const fn new() -> Self {
        Self {
            previous_success: f64::NAN,
        }
    }

    fn logged(&mut self, entry: Entry) -> Logged {
        if entry.throttle {
            self.previous_success = f64::NAN;
            return Logged::Throttle(entry.time);
        }
        let repeat = entry.time.to_bits() == self.previous_success.to_bits();
        self.previous_success = entry.time;
        if repeat {
            Logged::RepeatedSuccess
        } else {
            Logged::Success(entry.time)
        }
    }
}

impl ResponseLog {
    /// An empty log.
    pub(crate) fn new() -> Self {
        Self {
            shards: std::array::from_fn(|_| CachePadded::new(Shard::new())),
        }
    }

    /// Whether a response at `now` can be logged: its time is finite and not
    /// negative (the others are applied at once, under the lock).
    #[inline]
    pub(crate) fn takes(now: f64) -> bool {
        now.is_finite() && now.is_sign_positive()
    }

    /// Records a response at `now` (one the log [`takes`](Self::takes)) in
    /// shard `shard` (modulo [`SHARDS`]). `false` when the shard is full:
    /// apply the log and this response under the lock instead.
    #[inline]
    pub(crate) fn record(&self, shard: usize, now: f64, is_throttle: bool) -> bool {
        debug_assert!(Self::takes(now), "{now}");
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
                shard
                    .slot(claimed)
                    .store(Entry::encode(now, is_throttle), Ordering::Release);
                return true;
            }
        }
    }

    /// Hands every written response to `apply`, earliest time first across
    /// shards (each shard's in the order recorded). Only one drain may run
    /// at a time: the caller holds the state's lock (a second drainer could
    /// hand a response over twice).
    ///
    /// Responses recorded while it runs may wait for the next drain.
    #[inline]
    pub(crate) fn drain(&self, apply: impl FnMut(Logged)) {
        // Nothing recorded (the common case when asked often) reads each
        // shard's two counts; one shard with responses (one thread
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

    /// [`drain`](Self::drain) when only shard `i` had responses (others
    /// recorded since wait for the next drain).
    fn drain_one(&self, i: usize, mut apply: impl FnMut(Logged)) {
        let shard = &self.shards[i];
        let mut next = shard.applied.load(Ordering::Relaxed);
        let end = shard.claimed.load(Ordering::Acquire);
        let mut repeats = Repeats::new();
        loop {
            let entry = shard.entry_at(next, end);
            if entry.is_none() {
                break;
            }
            apply(repeats.logged(entry));
            shard.slot(next).store(EMPTY, Ordering::Relaxed);
            next += 1;
        }
        shard.applied.store(next, Ordering::Release);
    }

    /// [`drain`](Self::drain) merging several shards by time.
    fn drain_merged(&self, mut apply: impl FnMut(Logged)) {
        // Per shard with responses: its next slot, where its part ends, and
        // the response at the next slot (none once done). Fixed arrays: a
        // drain allocates nothing.
        let mut shards = [0_usize; SHARDS];
        let mut next = [0_u64; SHARDS];
        let mut end = [0_u64; SHARDS];
        let mut head = [Entry::NONE; SHARDS];
        let mut active = 0;
        for (i, shard) in self.shards.iter().enumerate() {
            // Only the drainer writes `applied`.
            let from = shard.applied.load(Ordering::Relaxed);
            let to = shard.claimed.load(Ordering::Acquire);
            if to != from {
                shards[active] = i;
                next[active] = from;
                end[active] = to;
                head[active] = shard.entry_at(from, to);
                active += 1;
            }
        }
        let mut repeats = Repeats::new();
        loop {
            // The earliest head: a scan, as `active` is at most `SHARDS`.
            let mut earliest = 0;
            for k in 1..active {
                if head[k].time < head[earliest].time {
                    earliest = k;
                }
            }
            let entry = head[earliest];
            if entry.is_none() {
                break;
            }
            apply(repeats.logged(entry));
            let shard = &self.shards[shards[earliest]];
            shard.slot(next[earliest]).store(EMPTY, Ordering::Relaxed);
            next[earliest] += 1;
            head[earliest] = shard.entry_at(next[earliest], end[earliest]);
        }
        for k in 0..active {
            // Release: the slots' resets come before a recorder reuses them.
            self.shards[shards[k]]
                .applied
                .store(next[k], Ordering::Release);
        }
    }

    /// How many responses are recorded and not yet applied (exact when no
    /// response is being recorded meanwhile).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn pending(&self) -> u64 {
        self.shards.iter().map(|s| s.unapplied()).sum()
    }
}

/// The shard this thread records into: threads are dealt shards in turn on
/// their first response, so up to [`SHARDS`] threads never share one.
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
    use Logged::{RepeatedSuccess, Success, Throttle};

    fn drained(log: &ResponseLog) -> Vec<Logged> {
        let mut seen = Vec::new();
        log.drain(|logged| seen.push(logged));
        seen
    }

    #[test]
    fn a_shard_holds_slots_responses_then_says_full() {
        let log = ResponseLog::new();
        for i in 0..SLOTS {
            assert!(log.record(3, i as f64, i % 5 == 0));
        }
        assert!(!log.record(3, 99.0, false), "full");
        assert!(!log.record(3, 99.0, true), "full for throttles too");
        assert!(log.record(4, 99.0, false), "other shards are not");
        assert_eq!(log.pending(), SLOTS as u64 + 1);
        assert_eq!(drained(&log).len(), SLOTS + 1);
        assert_eq!(log.pending(), 0);
        assert!(log.record(3, 100.0, false), "room again after the drain");
    }

    #[test]
    fn shards_are_merged_by_time_and_repeats_flagged() {
        let log = ResponseLog::new();
        for t in [1.0, 3.0, 3.0, 6.0] {
            assert!(log.record(0, t, false));
        }
        for t in [2.0, 3.0, 5.0] {
            assert!(log.record(1, t, false));
        }
        assert!(log.record(SHARDS + 2, 4.0, false), "shards wrap");
        assert_eq!(
            drained(&log),
            [
                Success(1.0),
                Success(2.0),
                Success(3.0),
                RepeatedSuccess,
                RepeatedSuccess,
                Success(4.0),
                Success(5.0),
                Success(6.0),
            ]
        );
        assert!(drained(&log).is_empty(), "each response is applied once");
    }

    /// A throttle keeps its place in time and its kind (time 0 included,
    /// whose bits are all clear but the throttle's), and a success after
    /// it at the same time is applied in full, not counted as a repeat.
    #[test]
    fn throttles_are_merged_by_time_and_end_a_run_of_repeats() {
        let log = ResponseLog::new();
        for (t, throttle) in [(0.0, true), (1.0, false), (1.0, true), (1.0, false)] {
            assert!(log.record(0, t, throttle));
        }
        for t in [0.5, 1.0] {
            assert!(log.record(1, t, false));
        }
        assert_eq!(
            drained(&log),
            [
                Throttle(0.0),
                Success(0.5),
                Success(1.0),
                Throttle(1.0),
                Success(1.0),
                RepeatedSuccess,
            ]
        );
        assert!(log.record(2, 7.0, true));
        assert_eq!(drained(&log), [Throttle(7.0)], "one shard, no merge");
    }

    #[test]
    fn only_finite_times_that_are_not_negative_are_logged() {
        for t in [0.0, 1e-300, 5.0, f64::MAX] {
            assert!(ResponseLog::takes(t), "{t}");
        }
        for t in [-0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(!ResponseLog::takes(t), "{t}");
        }
    }

    #[test]
    fn slots_are_reused_across_many_drains() {
        let log = ResponseLog::new();
        let mut expected = Vec::new();
        let mut seen = Vec::new();
        for round in 0..10 {
            for i in 0..(SLOTS - round) {
                let t = (round * 100 + i) as f64;
                assert!(log.record(5, t, false));
                expected.push(Success(t));
            }
            log.drain(|logged| seen.push(logged));
        }
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_claimed_unwritten_slot_stops_its_shard_until_written() {
        let log = ResponseLog::new();
        let shard = &log.shards[0];
        assert!(log.record(0, 1.0, false));
        // A recorder that claimed slot 1 and has not stored yet.
        shard.claimed.fetch_add(1, Ordering::Relaxed);
        assert!(log.record(0, 3.0, false));
        assert!(log.record(1, 2.0, false));
        assert_eq!(drained(&log), [Success(1.0), Success(2.0)]);
        shard
            .slot(1)
            .store(Entry::encode(2.5, true), Ordering::Release);
        assert_eq!(drained(&log), [Throttle(2.5), Success(3.0)]);
        assert_eq!(log.pending(), 0);
    }

    #[test]
    fn debug_shows_the_count_not_the_slots() {
        let log = ResponseLog::new();
        assert!(log.record(0, 1.0, false) && log.record(1, 2.0, true));
        assert_eq!(format!("{log:?}"), "ResponseLog { unapplied: 2 }");
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

    /// The time of a drained response, with throttles negated, so that a
    /// model can tell them apart.
    fn signed(logged: Logged) -> f64 {
        match logged {
            Logged::Success(t) => t,
            Logged::Throttle(t) => -t,
            Logged::RepeatedSuccess => f64::NAN,
        }
    }

    /// Two recorders (one filling its shard and applying under the lock, as
    /// the limiter does) and a drainer: every response is applied exactly
    /// once, with its kind, and each shard's in the order recorded.
    #[test]
    fn no_response_is_lost_or_applied_twice() {
        loom::model(|| {
            let log = Arc::new(ResponseLog::new());
            let applied = Arc::new(Mutex::new(Vec::new()));
            let record = |shard: usize, responses: &'static [(f64, bool)]| {
                let log = Arc::clone(&log);
                let applied = Arc::clone(&applied);
                loom::thread::spawn(move || {
                    for &(t, throttle) in responses {
                        if !log.record(shard, t, throttle) {
                            let mut applied = applied.lock().unwrap();
                            log.drain(|logged| applied.push(signed(logged)));
                            applied.push(if throttle { -t } else { t });
                        }
                    }
                })
            };
            let first = record(0, &[(1.0, false), (2.0, true)]);
            let second = record(1, &[(10.0, false)]);
            {
                let mut applied = applied.lock().unwrap();
                log.drain(|logged| applied.push(signed(logged)));
            }
            first.join().unwrap();
            second.join().unwrap();
            let mut applied = applied.lock().unwrap();
            log.drain(|logged| applied.push(signed(logged)));
            let mut sorted = applied.clone();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(sorted, [-2.0, 1.0, 10.0], "applied: {applied:?}");
            let one = applied.iter().position(|&t| t == 1.0);
            let two = applied.iter().position(|&t| t == -2.0);
            assert!(one < two, "a shard's order: {applied:?}");
        });
    }

    /// A shard small enough to fill: recorders sharing it and a drainer
    /// racing a reuse of its slots.
    #[test]
    fn slots_are_reused_only_after_they_were_applied() {
        loom::model(|| {
            let log = Arc::new(ResponseLog::new());
            for i in 0..SLOTS - 1 {
                assert!(log.record(0, i as f64, false));
            }
            let applied = Arc::new(Mutex::new(Vec::new()));
            let recorder = {
                let log = Arc::clone(&log);
                let applied = Arc::clone(&applied);
                loom::thread::spawn(move || {
                    for t in [100.0, 101.0] {
                        if !log.record(0, t, false) {
                            let mut applied = applied.lock().unwrap();
                            log.drain(|logged| applied.push(signed(logged)));
                            applied.push(t);
                        }
                    }
                })
            };
            {
                let mut applied = applied.lock().unwrap();
                log.drain(|logged| applied.push(signed(logged)));
            }
            recorder.join().unwrap();
            let mut applied = applied.lock().unwrap();
            log.drain(|logged| applied.push(signed(logged)));
            assert_eq!(applied.len(), SLOTS + 1, "applied: {applied:?}");
            let mut sorted = applied.clone();
            sorted.sort_by(f64::total_cmp);
            sorted.dedup();
            assert_eq!(sorted.len(), SLOTS + 1, "none twice: {applied:?}");
        });
    }
}
