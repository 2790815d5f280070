//! [`Lease`]: one process's share of the fleet quota, as its strategy draws
//! from it — the process-local side of a lease.
//!
//! Mirrors `redis/src/ledger.rs` (`Ledger`: `held`, the lease's tokens in
//! the store as last reported; `balance`, the part not spent yet, never
//! above `held`; refunds beyond `held` pending for the next report as far
//! as the last report's refund room allows, dropped beyond it) and the
//! request path of `redis/src/quota.rs`
//! (`impl QuotaStore for Shared`: an acquisition that takes the balance
//! below the low-water mark wakes the refresher, like its `Notify`, which
//! keeps one wake-up until the refresher takes it). The counts sit behind
//! one mutex, not in atomics: a run is single-threaded, and the simulator
//! reads them, it does not race them. There is no fallback bucket: the
//! simulated store never fails.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rebound_runtime::QuotaStore;

/// A lease's counts at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeaseCounts {
    /// What the lease holds in the store, as last reported.
    pub held: u32,
    /// The part of `held` not spent yet.
    pub balance: u32,
    /// Refunds waiting for the next report.
    pub pending: u32,
    /// How many more refunds may wait for the next report: what is left of
    /// the last report's refund room (0 before the first report).
    pub room: u32,
    /// Tokens acquired (spent on retries), over the run.
    pub spent: u64,
    /// Refund tokens put back into the balance, over the run.
    pub restored: u64,
}

/// One process's lease: a [`QuotaStore`] for its `RetryQuota`.
#[derive(Debug)]
pub struct Lease {
    counts: Mutex<LeaseCounts>,
    /// Set when an acquisition crosses below the low-water mark; taken by
    /// the refresher.
    wake: AtomicBool,
    low_water: u32,
    capacity: u32,
}

impl Lease {
    /// An empty lease (no tokens until the first grant) of a fleet of
    /// `capacity` tokens, waking its refresher below `low_water`.
    #[must_use]
    pub fn new(capacity: u32, low_water: u32) -> Self {
        Self {
            counts: Mutex::new(LeaseCounts::default()),
            wake: AtomicBool::new(false),
            low_water,
            capacity,
        }
    }

    /// A report's refund room (`Ledger::set_room`): from now on, up to
    /// `room` more refunds wait for the next report (what the room before
    /// left unused is forgotten).
    pub fn set_room(&self, room: u32) {
        self.lock().room = room;
    }

    fn lock(&self) -> MutexGuard<'_, LeaseCounts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The counts now.
    #[must_use]
    pub fn counts(&self) -> LeaseCounts {
        *self.lock()
    }

    /// Takes the wake-up, if an acquisition left one (`Notify`'s permit).
    pub fn take_wake(&self) -> bool {
        self.wake.swap(false, Ordering::AcqRel)
    }

    /// Takes the pending refunds, for a report (`Ledger::take_pending`).
    pub fn take_pending(&self) -> u32 {
        std::mem::take(&mut self.lock().pending)
    }

    /// A report that said `keep` was answered with `held` (`Ledger::settle`):
    /// the balance loses what the store took back (`keep - held`), is capped
    /// at `held`, and what it had beyond becomes pending refunds (the store
    /// counted those tokens as spent).
    pub fn settle(&self, keep: u32, held: u32) {
        let mut counts = self.lock();
        let balance = counts.balance.saturating_sub(keep.saturating_sub(held));
        let excess = balance.saturating_sub(held);
        counts.held = held;
        counts.balance = balance.min(held);
        add_pending(&mut counts, excess);
    }

    /// A grant of `granted` tokens; the lease holds `held` now
    /// (`Ledger::grant`): the balance gains the grant, within `held`.
    pub fn grant(&self, granted: u32, held: u32) {
        let mut counts = self.lock();
        counts.held = held;
        counts.balance = counts.balance.saturating_add(granted).min(held);
    }
}

/// Adds up to `amount` to the pending refunds, as far as the room allows
/// (`Ledger::add_pending`); returns what was added.
fn add_pending(counts: &mut LeaseCounts, amount: u32) -> u32 {
    let added = amount.min(counts.room);
    counts.room -= added;
    counts.pending += added;
    added
}

impl QuotaStore for Lease {
    /// `Ledger::try_acquire`, waking the refresher when the balance crosses
    /// below the low-water mark.
    fn try_acquire(&self, cost: u32) -> Result<(), u32> {
        let mut counts = self.lock();
        let before = counts.balance;
        let after = before.checked_sub(cost).ok_or(before)?;
        counts.balance = after;
        counts.spent += u64::from(cost);
        if after < self.low_water && before >= self.low_water {
            self.wake.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// `Ledger::release`: back into the balance up to `held`, the rest
    /// pending for the next report as far as the room allows, and dropped
    /// beyond it.
    fn release(&self, amount: u32) -> u32 {
        let mut counts = self.lock();
        let restored = amount.min(counts.held.saturating_sub(counts.balance));
        counts.balance += restored;
        counts.restored += u64::from(restored);
        restored + add_pending(&mut counts, amount - restored)
    }

    fn available(&self) -> u32 {
        self.lock().balance
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases of `redis/src/ledger.rs`'s unit tests, on the model.
    #[test]
    fn behaves_as_the_ledger() {
        let lease = Lease::new(100, 13);
        lease.set_room(100);
        assert_eq!(lease.try_acquire(5), Err(0), "no lease yet");
        assert_eq!(lease.try_acquire(0), Ok(()));
        lease.grant(25, 25);
        assert_eq!(lease.try_acquire(10), Ok(()));
        assert!(!lease.take_wake(), "15 is not below 13");
        assert_eq!(lease.try_acquire(16), Err(15));
        assert_eq!(lease.try_acquire(5), Ok(()));
        assert!(lease.take_wake(), "10 crossed below 13");
        assert!(!lease.take_wake(), "one wake-up");
        assert_eq!(lease.release(9), 9);
        assert_eq!(lease.release(10), 10, "6 restored, 4 pending");
        let counts = lease.counts();
        assert_eq!((counts.held, counts.balance, counts.pending), (25, 25, 4));
        assert_eq!(lease.take_pending(), 4);
        // A report keeps 10 while a success restores 5: the 5 become pending.
        lease.try_acquire(15).ok();
        lease.release(5);
        lease.settle(10, 10);
        let counts = lease.counts();
        assert_eq!((counts.held, counts.balance, counts.pending), (10, 10, 5));
        lease.grant(15, 25);
        assert_eq!(lease.available(), 25);
        assert_eq!(lease.counts().spent, 30);
        assert_eq!(lease.counts().restored, 20);
    }

    #[test]
    fn pending_refunds_stop_at_the_room() {
        let lease = Lease::new(100, 1);
        assert_eq!(lease.release(3), 0, "no room before the first report");
        lease.set_room(10);
        assert_eq!(lease.release(7), 7);
        assert_eq!(lease.release(7), 3);
        assert_eq!(lease.release(u32::MAX), 0);
        assert_eq!(lease.counts().pending, 10);
        // A new report's room replaces what is left of the old one.
        lease.take_pending();
        lease.set_room(4);
        assert_eq!(lease.release(7), 4);
        // Settling moves what the balance had beyond `held` to the pending
        // refunds, within the room too: a report kept 4 of a balance of 10.
        lease.grant(10, 10);
        lease.set_room(3);
        lease.settle(4, 4);
        let counts = lease.counts();
        assert_eq!((counts.balance, counts.pending, counts.room), (4, 7, 0));
    }
}
