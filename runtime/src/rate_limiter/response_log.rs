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
//! What this buys is a response path without a lock or a read-modify-write
//! instruction: the log is split into shards, each written by one thread at
//! a time (its *lane*, see `lane.rs`), so recording is plain stores to lines
//! only that thread writes. The lock is taken once per [`SLOTS`] distinct
//! response times (when a shard fills) or when something needs the state.
//!
//! **Runs.** A slot holds a response's time, and the shard counts the
//! responses recorded in it so far (`total`): slot `i` holds those from its
//! `start` up to the next slot's. A success at exactly the time of the
//! shard's latest slot, a success too, only adds one to `total`. This is
//! exact, not an approximation: a success at the time of the success applied
//! just before it changes nothing but the measured rate's count (the bucket
//! refills for no time, the rate is the same), so a run of them is applied as
//! one success and a count. With a clock that ticks in steps
//! ([`CoarseClock`](crate::time::CoarseClock), `CoarseClock`), nearly every
//! success extends a run, and its whole cost here is one store.
//!
//! The shards are merged by time when applied, so responses from different
//! threads reach the state in the order their clocks read within one drain,
//! as a single thread's would. Across drains they may not: a thread that read
//! its clock before a drain and records after it hands the next drain a time
//! earlier than some already applied (as does a response applied at once,
//! under the lock). The measured rate counts such a late response in its
//! current bucket (see `send_rate.rs`), so no response is lost to the rate.
//!
//! A slot's time bits carry a throttle in the sign bit: only times that are
//! finite and not negative are logged (the caller applies the others under
//! the lock, where the state sanitises them), so the sign bit is free. A
//! throttle's slot is never extended.
//!
//! **The protocol**, per shard. The writer (one at a time: the lane's owner,
//! or a thread that borrowed the shard) writes a new slot's `start` and
//! time, then publishes `claimed` (slots written) and then `total`, with
//! release stores; it opens a slot only while fewer than [`SLOTS`] are
//! unapplied. The drainer (under the state's lock) reads `total`, then
//! `claimed`, so every slot holding a counted response is visible; applies
//! the responses from `applied_total` to `total`; and publishes `applied`,
//! the slot holding the next response to apply, which stays open: the
//! writer may still extend it, and the next drain applies only what was
//! added. Slots before `applied` are free for the writer to reuse. A loom
//! model checks that no response is lost or applied twice
//! (`RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib
//! response_log`).

#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::lane::{BORROWED, OWNED, this_threads_lane, this_threads_lane_if_taken};

/// Shards per log: one per lane, then the borrowed ones.
pub(crate) const SHARDS: usize = OWNED + BORROWED;
/// Distinct response times a shard holds before its writer applies them
/// under the lock.
#[cfg(not(loom))]
pub(crate) const SLOTS: usize = 32;
// Small under loom, so that the models fill shards and reuse slots.
#[cfg(loom)]
pub(crate) const SLOTS: usize = 2;

/// The bit of a slot's time that marks a throttle (a time's sign bit: logged
/// times are not negative).
const THROTTLE: u64 = 1 << 63;

/// `last` before the first slot: a NaN's bits, which no logged time has.
const NO_SLOT: u64 = u64::MAX;

/// Responses as a drain hands them over, in time order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Logged {
    /// A success at this time.
    Success(f64),
    /// This many more successes at the time of the response handed over
    /// just before, which was a success too: they change only the measured
    /// rate's count.
    RepeatedSuccesses(u64),
    /// A throttle at this time.
    Throttle(f64),
}

/// Responses not yet applied to the state, in shards written by one thread
/// at a time (about 6 KB: each shard on cache lines of its own).
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

/// One shard: its writer's words, the drainer's two, and the slots. One
/// cache-padded block: the drainer writes its words once per drain.
struct Shard {
    /// Responses recorded in this shard since the log was made (writer).
    total: AtomicU64,
    /// Slots written since the log was made (writer).
    claimed: AtomicU64,
    /// The latest slot's time bits, or [`NO_SLOT`] (writer; read only by
    /// writers).
    last: AtomicU64,
    /// A borrowed shard's writer holds it (unused on lanes' shards).
    busy: AtomicBool,
    /// The slot holding the next response to apply (drainer).
    applied: AtomicU64,
    /// Responses applied since the log was made (drainer; read only by
    /// drainers, under the lock).
    applied_total: AtomicU64,
    /// Slot `i % SLOTS` is the `i`-th slot written.
    slots: [Slot; SLOTS],
}

/// A run of responses at one time.
struct Slot {
    /// The time's bits, with [`THROTTLE`] for a throttle.
    time: AtomicU64,
    /// The shard's `total` when the slot was opened: its first response.
    start: AtomicU64,
}

/// A slot's time, decoded.
#[derive(Clone, Copy)]
struct Entry {
    time: f64,
    throttle: bool,
}

impl Entry {
    fn encode(time: f64, throttle: bool) -> u64 {
        time.to_bits() | if throttle { THROTTLE } else { 0 }
    }

    fn decode(bits: u64) -> Self {
        Self {
            time: f64::from_bits(bits & !THROTTLE),
            throttle: bits & THROTTLE != 0,
        }
    }
}

impl Shard {
    fn new() -> Self {
        Self {
            total: AtomicU64::new(0),
            claimed: AtomicU64::new(0),
            last: AtomicU64::new(NO_SLOT),
            busy: AtomicBool::new(false),
            applied: AtomicU64::new(0),
            applied_total: AtomicU64::new(0),
            slots: std::array::from_fn(|_| Slot {
                time: AtomicU64::new(0),
                start: AtomicU64::new(0),
            }),
        }
    }

    /// Responses recorded and not yet applied.
    #[inline]
    fn unapplied(&self) -> u64 {
        self.total
            .load(Ordering::Acquire)
            .wrapping_sub(self.applied_total.load(Ordering::Relaxed))
    }

    fn slot(&self, index: u64) -> &Slot {
        #[allow(clippy::cast_possible_truncation)]
        &self.slots[(index % SLOTS as u64) as usize]
    }

    /// Records a response; the caller is this shard's only writer until it
    /// returns. False if a new slot was needed and none is free.
    #[inline]
    fn record(&self, bits: u64, is_throttle: bool) -> bool {
        // The writer's own words (or its predecessor's, ordered before it
        // by the lane or the borrow): relaxed loads.
        let total = self.total.load(Ordering::Relaxed);
        if !is_throttle && self.last.load(Ordering::Relaxed) == bits {
            // A success at the time of the latest slot, a success: the run
            // grows by one. The slot is still open (the drainer keeps the
            // latest one), so a later drain applies it.
            self.total.store(total + 1, Ordering::Release);
            return true;
        }
        let claimed = self.claimed.load(Ordering::Relaxed);
        // Acquire: the drainer's reads of the slots it freed come before
        // they are overwritten.
        if claimed.wrapping_sub(self.applied.load(Ordering::Acquire)) >= SLOTS as u64 {
            return false;
        }
        let slot = self.slot(claimed);
        slot.start.store(total, Ordering::Relaxed);
        slot.time.store(bits, Ordering::Relaxed);
        self.last.store(bits, Ordering::Relaxed);
        // Release, in this order: a drainer that sees the new total sees
        // the slot, so it never counts a response into the slot before.
        self.claimed.store(claimed + 1, Ordering::Release);
        self.total.store(total + 1, Ordering::Release);
        true
    }

    /// Takes a borrowed shard for one record, if no one holds it.
    fn borrow(&self) -> Option<Borrowed<'_>> {
        // Acquire: the previous borrower's writes come before ours.
        // `then`, not `then_some`: a guard built for nothing would give the
        // shard back when dropped.
        (!self.busy.swap(true, Ordering::Acquire)).then(|| Borrowed(self))
    }
}

/// A borrowed shard, given back when dropped.
struct Borrowed<'a>(&'a Shard);

impl Drop for Borrowed<'_> {
    fn drop(&mut self) {
        // Release: our writes come before the next borrower's.
        self.0.busy.store(false, Ordering::Release);
    }
}

/// Where a drain is in one shard.
struct Cursor<'a> {
    shard: &'a Shard,
    /// The slot holding response `at`.
    index: u64,
    /// Slots visible to this drain.
    end: u64,
    /// The next response to apply.
    at: u64,
    /// The shard's total when the drain began: where it stops.
    total: u64,
}

impl<'a> Cursor<'a> {
    /// The shard's responses from the last drain's end to its `total` now,
    /// if there are any.
    fn new(shard: &'a Shard) -> Option<Self> {
        // Acquire, `total` first: the slots holding those responses are
        // visible through `claimed`.
        let total = shard.total.load(Ordering::Acquire);
        let at = shard.applied_total.load(Ordering::Relaxed);
        if total == at {
            return None;
        }
        let mut cursor = Self {
            shard,
            index: shard.applied.load(Ordering::Relaxed),
            end: shard.claimed.load(Ordering::Acquire),
            at,
            total,
        };
        cursor.settle();
        Some(cursor)
    }

    /// Moves to the slot holding response `at`: the last one opened at or
    /// before it.
    fn settle(&mut self) {
        while self.index + 1 < self.end
            && self
                .shard
                .slot(self.index + 1)
                .start
                .load(Ordering::Relaxed)
                <= self.at
        {
            self.index += 1;
        }
    }

    /// The next run to apply: its time bits and how many responses, if any
    /// are left.
    fn head(&self) -> Option<(Entry, u64)> {
        if self.at == self.total {
            return None;
        }
        let next_start = if self.index + 1 < self.end {
            let start = self
                .shard
                .slot(self.index + 1)
                .start
                .load(Ordering::Relaxed);
            start.min(self.total)
        } else {
            self.total
        };
        let bits = self.shard.slot(self.index).time.load(Ordering::Relaxed);
        Some((Entry::decode(bits), next_start - self.at))
    }

    /// Past the run [`head`](Self::head) returned.
    fn advance(&mut self, count: u64) {
        self.at += count;
        self.settle();
    }

    /// Publishes what was applied: the slots before the one holding the
    /// next response are free again.
    fn finish(&self) {
        self.shard.applied_total.store(self.at, Ordering::Relaxed);
        // Release: this drain's reads of the freed slots come before the
        // writer reuses them.
        self.shard.applied.store(self.index, Ordering::Release);
    }
}

/// Hands runs over as [`Logged`] values: a success at the time of the
/// success handed over just before it is a repeat (a throttle ends the
/// run).
struct Repeats {
    /// The bits of the last success handed over, or [`NO_SLOT`].
    previous_success: u64,
}

impl Repeats {
    const fn new() -> Self {
        Self {
            previous_success: NO_SLOT,
        }
    }

    fn hand_over(&mut self, bits: Entry, count: u64, apply: &mut impl FnMut(Logged)) {
        if bits.throttle {
            self.previous_success = NO_SLOT;
            // A throttle's slot is never extended: `count` is 1.
            for _ in 0..count {
                apply(Logged::Throttle(bits.time));
            }
            return;
        }
        let time_bits = bits.time.to_bits();
        let more = if self.previous_success == time_bits {
            count
        } else {
            self.previous_success = time_bits;
            apply(Logged::Success(bits.time));
            count - 1
        };
        if more > 0 {
            apply(Logged::RepeatedSuccesses(more));
        }
    }
}

impl ResponseLog {
    pub(crate) fn new() -> Self {
        Self {
            shards: std::array::from_fn(|_| CachePadded::new(Shard::new())),
        }
    }

    /// Whether a response at `now` can be logged: a finite time that is not
    /// negative (see the module's docs). In one compare: the bits of the
    /// finite doubles without a sign are exactly those below infinity's.
    #[inline]
    pub(crate) const fn takes(now: f64) -> bool {
        now.to_bits() < f64::INFINITY.to_bits()
    }

    /// Records a response at `now` in this thread's lane, or in a borrowed
    /// shard. False if there was no room (its shard is full, or every
    /// borrowed shard was busy): the caller applies it under the lock.
    #[inline]
    pub(crate) fn record(&self, now: f64, is_throttle: bool) -> bool {
        match this_threads_lane() {
            Some(lane) => self.record_in_lane(lane, now, is_throttle),
            None => self.record_borrowing(now, is_throttle),
        }
    }

    /// Records a success at `now` in this thread's lane, if it has one
    /// and there is room: the cheapest record, with no call on its way
    /// (the lane is not taken here, nor a shard borrowed). False if that
    /// is not enough: nothing was recorded, and [`record`](Self::record)
    /// (or the lock) is the way.
    #[inline(always)]
    pub(crate) fn record_success_in_own_lane(&self, now: f64) -> bool {
        Self::takes(now)
            && this_threads_lane_if_taken()
                .is_some_and(|lane| self.record_in_lane(lane, now, false))
    }

    /// Records in shard `lane`, whose only writer the caller is.
    #[inline]
    pub(crate) fn record_in_lane(&self, lane: usize, now: f64, is_throttle: bool) -> bool {
        debug_assert!(Self::takes(now), "{now}");
        debug_assert!(lane < OWNED, "{lane}");
        self.shards[lane].record(Entry::encode(now, is_throttle), is_throttle)
    }

    /// Records in the first borrowed shard free.
    #[cold]
    pub(crate) fn record_borrowing(&self, now: f64, is_throttle: bool) -> bool {
        debug_assert!(Self::takes(now), "{now}");
        let bits = Entry::encode(now, is_throttle);
        self.shards[OWNED..].iter().any(|shard| {
            shard
                .borrow()
                .is_some_and(|held| held.0.record(bits, is_throttle))
        })
    }

    /// Hands every recorded response to `apply`, in time order, and frees
    /// the slots for reuse. The caller holds the state's lock: one drainer
    /// at a time.
    #[inline]
    pub(crate) fn drain(&self, mut apply: impl FnMut(Logged)) {
        // The shards with responses to apply, packed at the front.
        let mut cursors: [Option<Cursor<'_>>; SHARDS] = std::array::from_fn(|_| None);
        let mut active = 0;
        for shard in &self.shards {
            if let Some(cursor) = Cursor::new(shard) {
                cursors[active] = Some(cursor);
                active += 1;
            }
        }
        let cursors = &mut cursors[..active];
        let mut repeats = Repeats::new();
        // One shard is already in time order: no merge, straight through.
        if let [Some(only)] = cursors {
            while let Some((entry, count)) = only.head() {
                repeats.hand_over(entry, count, &mut apply);
                only.advance(count);
            }
            only.finish();
            return;
        }
        loop {
            // The cursor whose next run is earliest (the first on a tie).
            let mut earliest: Option<(usize, Entry, u64)> = None;
            for (i, cursor) in cursors.iter().enumerate() {
                if let Some((entry, count)) = cursor.as_ref().and_then(Cursor::head)
                    && earliest.is_none_or(|(_, best, _)| entry.time < best.time)
                {
                    earliest = Some((i, entry, count));
                }
            }
            let Some((i, entry, count)) = earliest else {
                break;
            };
            repeats.hand_over(entry, count, &mut apply);
            if let Some(cursor) = cursors[i].as_mut() {
                cursor.advance(count);
            }
        }
        for cursor in cursors.iter().flatten() {
            cursor.finish();
        }
    }

    /// How many responses are recorded and not yet applied (exact when no
    /// response is being recorded meanwhile).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn pending(&self) -> u64 {
        self.shards.iter().map(|s| s.unapplied()).sum()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use Logged::{RepeatedSuccesses, Success, Throttle};

    fn drained(log: &ResponseLog) -> Vec<Logged> {
        let mut seen = Vec::new();
        log.drain(|logged| seen.push(logged));
        seen
    }

    #[test]
    fn a_shard_holds_slots_times_then_says_full_but_runs_still_grow() {
        let log = ResponseLog::new();
        for i in 0..SLOTS {
            // The last a success, whose run can grow.
            assert!(log.record_in_lane(3, i as f64, i % 5 == 1 && i + 1 < SLOTS));
        }
        assert!(!log.record_in_lane(3, 99.0, false), "full");
        assert!(!log.record_in_lane(3, 99.0, true), "full for throttles too");
        let last = (SLOTS - 1) as f64;
        assert!(log.record_in_lane(3, last, false), "the latest run grows");
        assert!(
            log.record_in_lane(4, 99.0, false),
            "other shards are not full"
        );
        assert_eq!(log.pending(), SLOTS as u64 + 2);
        let seen = drained(&log);
        assert_eq!(seen.len(), SLOTS + 2);
        assert_eq!(
            seen[SLOTS - 1..],
            [Success(last), RepeatedSuccesses(1), Success(99.0)]
        );
        assert_eq!(log.pending(), 0);
        assert!(
            log.record_in_lane(3, 100.0, false),
            "room again after the drain"
        );
    }

    #[test]
    fn shards_are_merged_by_time_and_runs_counted() {
        let log = ResponseLog::new();
        for t in [1.0, 3.0, 3.0, 6.0] {
            assert!(log.record_in_lane(0, t, false));
        }
        for t in [2.0, 3.0, 5.0] {
            assert!(log.record_in_lane(1, t, false));
        }
        assert!(log.record_borrowing(4.0, false), "a borrowed shard");
        assert_eq!(
            drained(&log),
            [
                Success(1.0),
                Success(2.0),
                Success(3.0),
                RepeatedSuccesses(1),
                RepeatedSuccesses(1),
                Success(4.0),
                Success(5.0),
                Success(6.0),
            ]
        );
        assert!(drained(&log).is_empty(), "each response is applied once");
    }

    /// A throttle keeps its place in time and its kind (time 0 included,
    /// whose bits are all clear but the throttle's), is never extended, and
    /// a success after it at the same time is applied in full, not counted
    /// as a repeat.
    #[test]
    fn throttles_are_merged_by_time_and_end_a_run() {
        let log = ResponseLog::new();
        for (t, throttle) in [
            (0.0, true),
            (1.0, false),
            (1.0, true),
            (1.0, true),
            (1.0, false),
        ] {
            assert!(log.record_in_lane(0, t, throttle));
        }
        for t in [0.5, 1.0] {
            assert!(log.record_in_lane(1, t, false));
        }
        assert_eq!(
            drained(&log),
            [
                Throttle(0.0),
                Success(0.5),
                Success(1.0),
                Throttle(1.0),
                Throttle(1.0),
                Success(1.0),
                RepeatedSuccesses(1),
            ]
        );
        assert!(log.record_in_lane(2, 7.0, true));
        assert_eq!(drained(&log), [Throttle(7.0)], "one shard, no merge");
    }

    /// The latest slot stays open across a drain: what its run gains after
    /// it is applied by the next drain, and only that.
    #[test]
    fn a_run_that_grows_after_a_drain_is_applied_once() {
        let log = ResponseLog::new();
        for _ in 0..3 {
            assert!(log.record_in_lane(0, 1.0, false));
        }
        assert_eq!(drained(&log), [Success(1.0), RepeatedSuccesses(2)]);
        for _ in 0..2 {
            assert!(log.record_in_lane(0, 1.0, false));
        }
        // Applied in full first: another shard's response may have been
        // applied in between.
        assert_eq!(drained(&log), [Success(1.0), RepeatedSuccesses(1)]);
        assert!(log.record_in_lane(0, 2.0, false));
        assert!(
            log.record_in_lane(0, 1.0, false),
            "a new run, not the old one"
        );
        assert_eq!(drained(&log), [Success(2.0), Success(1.0)]);
        assert!(drained(&log).is_empty());
    }

    #[test]
    fn only_finite_times_that_are_not_negative_are_logged() {
        for t in [0.0, 5e-324, 1e-300, 5.0, f64::MAX] {
            assert!(ResponseLog::takes(t), "{t}");
        }
        for t in [
            -0.0,
            -5e-324,
            -1.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
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
                assert!(log.record_in_lane(5, t, false));
                expected.push(Success(t));
            }
            log.drain(|logged| seen.push(logged));
        }
        assert_eq!(seen, expected);
    }

    /// A writer between publishing a slot and counting its response: the
    /// drain applies what was counted, and the next one the rest.
    #[test]
    fn a_slot_written_but_not_counted_waits_for_its_count() {
        let log = ResponseLog::new();
        let shard = &log.shards[0];
        assert!(log.record_in_lane(0, 1.0, false));
        // The writer's steps for a throttle at 2.0, but the last.
        shard.slot(1).start.store(1, Ordering::Relaxed);
        shard
            .slot(1)
            .time
            .store(Entry::encode(2.0, true), Ordering::Relaxed);
        shard
            .last
            .store(Entry::encode(2.0, true), Ordering::Relaxed);
        shard.claimed.store(2, Ordering::Release);
        assert!(log.record_in_lane(1, 1.5, false));
        assert_eq!(drained(&log), [Success(1.0), Success(1.5)]);
        shard.total.store(2, Ordering::Release);
        assert!(log.record_in_lane(0, 3.0, false));
        assert_eq!(drained(&log), [Throttle(2.0), Success(3.0)]);
        assert_eq!(log.pending(), 0);
    }

    #[test]
    fn a_busy_borrowed_shard_is_skipped_and_all_busy_says_no_room() {
        let log = ResponseLog::new();
        let first = log.shards[OWNED].borrow().expect("free");
        assert!(log.shards[OWNED].borrow().is_none(), "held");
        assert!(log.record_borrowing(1.0, false), "the next one is free");
        let rest: Vec<_> = log.shards[OWNED + 1..]
            .iter()
            .map(|s| s.borrow().expect("free"))
            .collect();
        assert!(!log.record_borrowing(2.0, false), "all busy");
        drop((first, rest));
        assert!(log.record_borrowing(3.0, true), "given back");
        assert_eq!(drained(&log), [Success(1.0), Throttle(3.0)]);
    }

    #[test]
    fn debug_shows_the_count_not_the_slots() {
        let log = ResponseLog::new();
        assert!(log.record_in_lane(0, 1.0, false) && log.record_in_lane(1, 2.0, true));
        assert!(log.record_in_lane(0, 1.0, false));
        assert_eq!(format!("{log:?}"), "ResponseLog { unapplied: 3 }");
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::{Arc, Mutex};

    /// What was applied, one time per response (throttles negated, so that
    /// a model can tell them apart), in the order applied.
    #[derive(Default)]
    struct Applied {
        times: Vec<f64>,
        last_success: f64,
    }

    impl Applied {
        fn push(&mut self, logged: Logged) {
            match logged {
                Logged::Success(t) => {
                    self.last_success = t;
                    self.times.push(t);
                }
                Logged::RepeatedSuccesses(n) => {
                    for _ in 0..n {
                        self.times.push(self.last_success);
                    }
                }
                Logged::Throttle(t) => self.times.push(-t),
            }
        }

        fn drain(&mut self, log: &ResponseLog) {
            log.drain(|logged| self.push(logged));
        }

        /// A response that found no room: applied after the log, as the
        /// limiter does under its lock.
        fn apply_now(&mut self, log: &ResponseLog, t: f64, throttle: bool) {
            self.drain(log);
            self.times.push(if throttle { -t } else { t });
        }

        fn sorted(&self) -> Vec<f64> {
            let mut sorted = self.times.clone();
            sorted.sort_by(f64::total_cmp);
            sorted
        }
    }

    /// A lane's writer filling its shard (a run, a throttle, then no room)
    /// and a borrower, racing a drainer: every response is applied exactly
    /// once, with its kind, and the lane's in the order recorded.
    #[test]
    fn no_response_is_lost_or_applied_twice() {
        loom::model(|| {
            let log = Arc::new(ResponseLog::new());
            let applied = Arc::new(Mutex::new(Applied::default()));
            let lane = {
                let (log, applied) = (Arc::clone(&log), Arc::clone(&applied));
                loom::thread::spawn(move || {
                    for (t, throttle) in [(1.0, false), (1.0, false), (2.0, true), (3.0, false)] {
                        if !log.record_in_lane(0, t, throttle) {
                            applied.lock().unwrap().apply_now(&log, t, throttle);
                        }
                    }
                })
            };
            let borrower = {
                let (log, applied) = (Arc::clone(&log), Arc::clone(&applied));
                loom::thread::spawn(move || {
                    if !log.record_borrowing(10.0, false) {
                        applied.lock().unwrap().apply_now(&log, 10.0, false);
                    }
                })
            };
            applied.lock().unwrap().drain(&log);
            lane.join().unwrap();
            borrower.join().unwrap();
            let mut applied = applied.lock().unwrap();
            applied.drain(&log);
            assert_eq!(
                applied.sorted(),
                [-2.0, 1.0, 1.0, 3.0, 10.0],
                "applied: {:?}",
                applied.times
            );
            let lane_order: Vec<f64> = applied
                .times
                .iter()
                .copied()
                .filter(|&t| t != 10.0)
                .collect();
            assert_eq!(lane_order, [1.0, 1.0, -2.0, 3.0], "a lane's order");
        });
    }

    /// Two threads borrowing the one shared shard, a full one, while a
    /// drainer frees its slots: no response is lost or applied twice.
    #[test]
    fn borrowers_take_turns_and_slots_are_reused_only_after_applied() {
        loom::model(|| {
            let log = Arc::new(ResponseLog::new());
            for i in 0..SLOTS - 1 {
                assert!(log.record_borrowing(i as f64, false));
            }
            let applied = Arc::new(Mutex::new(Applied::default()));
            let spawn = |t: f64| {
                let (log, applied) = (Arc::clone(&log), Arc::clone(&applied));
                loom::thread::spawn(move || {
                    if !log.record_borrowing(t, false) {
                        applied.lock().unwrap().apply_now(&log, t, false);
                    }
                })
            };
            let (first, second) = (spawn(100.0), spawn(101.0));
            applied.lock().unwrap().drain(&log);
            first.join().unwrap();
            second.join().unwrap();
            let mut applied = applied.lock().unwrap();
            applied.drain(&log);
            let mut expected: Vec<f64> = (0..SLOTS - 1).map(|i| i as f64).collect();
            expected.extend([100.0, 101.0]);
            assert_eq!(applied.sorted(), expected, "applied: {:?}", applied.times);
        });
    }
}
