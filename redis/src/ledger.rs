//! The process-local arithmetic of a fleet lease: atomics only, no lock, no call to the store.
//!
//! [`Ledger`] counts the lease's tokens as this process sees them: `held`, what the lease holds
//! in the store as last reported, and `balance`, the part of it not spent yet. Both live in one
//! `AtomicU64` (held in the high half, balance in the low half), so every change sees and keeps
//! `balance <= held` in one compare-and-swap. Refunds that do not fit under `held` wait in
//! `pending` for the next report, as far as the last report's refund room allows.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

const fn pack(held: u32, balance: u32) -> u64 {
    ((held as u64) << 32) | balance as u64
}

#[allow(clippy::cast_possible_truncation)] // the halves of a u64, by construction
const fn unpack(word: u64) -> (u32, u32) {
    ((word >> 32) as u32, word as u32)
}

/// What a successful [`Ledger::try_acquire`] did to the balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Acquired {
    /// The balance before.
    pub(crate) before: u32,
    /// The balance after.
    pub(crate) after: u32,
}

/// What [`Ledger::release`] did with a refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Refunded {
    /// Tokens put back into the local balance (up to `held`).
    pub(crate) restored: u32,
    /// Tokens queued for the next report.
    pub(crate) pending: u32,
}

/// One lease's local accounting: `balance <= held`, plus refunds pending for the store.
#[derive(Debug)]
pub(crate) struct Ledger {
    /// `held << 32 | balance`.
    word: AtomicU64,
    /// Refunds earned beyond what the balance could take back, for the next report.
    pending: AtomicU32,
    /// How many more refunds may wait for the next report: what is left of the last report's
    /// [refund room](crate::ReportAck::refund_room) (the tokens the fleet's pool missed that
    /// this lease may refill). A refund beyond it had nothing to refill when it was earned, as
    /// a full local quota drops it, and is dropped: so refunds earned while the pool was full
    /// cannot refill it later, during an outage. 0 until the first report: a process that just
    /// joined has no refunds of its own to give.
    room: AtomicU32,
}

impl Ledger {
    /// An empty ledger: no lease yet, no refund room.
    pub(crate) const fn new() -> Self {
        Self {
            word: AtomicU64::new(0),
            pending: AtomicU32::new(0),
            room: AtomicU32::new(0),
        }
    }

    /// `(held, balance)` at one instant.
    pub(crate) fn load(&self) -> (u32, u32) {
        unpack(self.word.load(Ordering::Acquire))
    }

    /// The refunds waiting for the next report.
    pub(crate) fn pending(&self) -> u32 {
        self.pending.load(Ordering::Acquire)
    }

    /// Takes `cost` from the balance if it has that many.
    ///
    /// # Errors
    ///
    /// The balance, when it is less than `cost`; nothing is taken.
    pub(crate) fn try_acquire(&self, cost: u32) -> Result<Acquired, u32> {
        match self
            .word
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
                let (held, balance) = unpack(word);
                balance.checked_sub(cost).map(|left| pack(held, left))
            }) {
            Ok(word) => {
                let before = unpack(word).1;
                Ok(Acquired {
                    before,
                    after: before - cost,
                })
            }
            Err(word) => Err(unpack(word).1),
        }
    }

    /// A success's refund of `amount`: first back into the balance, up to `held`; the rest
    /// waits for the next report, as far as the refund room allows, and beyond it is dropped.
    pub(crate) fn release(&self, amount: u32) -> Refunded {
        if amount == 0 {
            return Refunded::default();
        }
        let restored = match self
            .word
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
                let (held, balance) = unpack(word);
                (balance < held).then(|| pack(held, balance + amount.min(held - balance)))
            }) {
            Ok(word) => {
                let (held, balance) = unpack(word);
                amount.min(held - balance)
            }
            Err(_full) => 0,
        };
        let pending = self.add_pending(amount - restored);
        Refunded { restored, pending }
    }

    /// A report's [refund room](crate::ReportAck::refund_room): from now on, up to `room`
    /// more refunds wait for the next report (what the room before left unused is forgotten).
    pub(crate) fn set_room(&self, room: u32) {
        self.room.store(room, Ordering::Release);
    }

    /// Adds up to `amount` to the pending refunds, as far as the room allows; returns what was
    /// added.
    fn add_pending(&self, amount: u32) -> u32 {
        if amount == 0 {
            return 0;
        }
        match self
            .room
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |room| {
                (room > 0).then(|| room - amount.min(room))
            }) {
            Ok(room) => {
                let added = amount.min(room);
                // Saturating: a room set between a report's send and its reply adds to what
                // the old room let wait.
                let _ = self
                    .pending
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |pending| {
                        Some(pending.saturating_add(added))
                    });
                added
            }
            Err(_none) => 0,
        }
    }

    /// Takes the pending refunds, for a report.
    pub(crate) fn take_pending(&self) -> u32 {
        self.pending.swap(0, Ordering::AcqRel)
    }

    /// A report that said `keep` was answered: the store now holds `held` for this lease
    /// (`keep`, or fewer when it trimmed the lease to its fair share or knew of fewer). The
    /// balance loses the difference — those tokens are the pool's again, and what the process
    /// spent since the report came out of what it kept — and is capped at `held`; what it had
    /// beyond (refunds restored since the report was sent, for tokens the store has now counted
    /// as spent) becomes pending refunds. Returns the balance.
    pub(crate) fn settle(&self, keep: u32, held: u32) -> u32 {
        let given_back = keep.saturating_sub(held);
        let before = self.update(|_, balance| (held, balance.saturating_sub(given_back).min(held)));
        let balance = unpack(before).1.saturating_sub(given_back);
        self.add_pending(balance.saturating_sub(held));
        balance.min(held)
    }

    /// A grant: the store added `granted` tokens and the lease now holds `held`. The balance
    /// gains the grant, within the new `held`. Returns the balance.
    pub(crate) fn grant(&self, granted: u32, held: u32) -> u32 {
        let after = |balance: u32| balance.saturating_add(granted).min(held);
        let before = self.update(|_, balance| (held, after(balance)));
        after(unpack(before).1)
    }

    /// The lease is gone (lapsed, or given back): nothing held, nothing to spend, and the
    /// pending refunds dropped (the tokens they refund went back to the pool with the lease).
    pub(crate) fn void(&self) {
        self.word.store(0, Ordering::Release);
        self.room.store(0, Ordering::Release);
        self.pending.store(0, Ordering::Release);
    }

    /// Replaces `(held, balance)` by `f(held, balance)`; returns the word before.
    fn update(&self, f: impl Fn(u32, u32) -> (u32, u32)) -> u64 {
        match self
            .word
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
                let (held, balance) = unpack(word);
                let (held, balance) = f(held, balance);
                Some(pack(held, balance))
            }) {
            Ok(before) | Err(before) => before,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn acquire_and_release_stay_within_held() {
        let ledger = Ledger::new();
        ledger.set_room(100);
        assert_eq!(ledger.try_acquire(5), Err(0), "no lease yet");
        assert_eq!(ledger.try_acquire(0).map(|a| a.after), Ok(0));
        assert_eq!(ledger.grant(25, 25), 25);
        assert_eq!(ledger.load(), (25, 25));
        assert_eq!(
            ledger.try_acquire(10),
            Ok(Acquired {
                before: 25,
                after: 15
            })
        );
        assert_eq!(ledger.try_acquire(16), Err(15));
        // A refund of 4 fits under held; of 10, 6 fit and 4 wait.
        assert_eq!(
            ledger.release(4),
            Refunded {
                restored: 4,
                pending: 0
            }
        );
        assert_eq!(
            ledger.release(10),
            Refunded {
                restored: 6,
                pending: 4
            }
        );
        assert_eq!(ledger.load(), (25, 25));
        assert_eq!(ledger.release(0), Refunded::default());
        assert_eq!(ledger.pending(), 4);
        assert_eq!(ledger.take_pending(), 4);
        assert_eq!(ledger.pending(), 0);
    }

    #[test]
    fn pending_refunds_stop_at_the_room() {
        let ledger = Ledger::new();
        ledger.set_room(10);
        assert_eq!(ledger.release(7).pending, 7);
        assert_eq!(ledger.release(7).pending, 3);
        assert_eq!(ledger.release(u32::MAX).pending, 0);
        assert_eq!(ledger.pending(), 10);
        // A new report's room replaces what is left of the old one.
        ledger.take_pending();
        ledger.set_room(4);
        assert_eq!(ledger.release(7).pending, 4);
    }

    #[test]
    fn reports_cap_the_balance_and_keep_the_excess_as_refunds() {
        let ledger = Ledger::new();
        ledger.set_room(100);
        ledger.grant(25, 25);
        ledger.try_acquire(15).unwrap(); // balance 10: the report says keep 10
        ledger.release(5); // meanwhile a success restores 5: balance 15
        assert_eq!(ledger.settle(10, 10), 10, "the store holds 10 now");
        assert_eq!(ledger.load(), (10, 10));
        assert_eq!(ledger.pending(), 5, "the restored 5 go to the pool instead");
        // A grant of 15 on top.
        assert_eq!(ledger.grant(15, 25), 25);
        // A grant that says the lease holds less than balance + granted (it had lapsed and was
        // taken anew): the balance is capped at what the store says.
        ledger.try_acquire(5).unwrap();
        assert_eq!(ledger.grant(25, 25), 25);
        ledger.void();
        assert_eq!(ledger.load(), (0, 0));
        assert_eq!(ledger.pending(), 0);
        assert_eq!(ledger.try_acquire(1), Err(0));
    }

    /// A report that kept 20 answered with 8 (trimmed to a fair share): the 12 given back leave
    /// the balance, including when some of the 20 were spent while the report was under way.
    #[test]
    fn tokens_given_back_leave_the_balance() {
        let ledger = Ledger::new();
        ledger.grant(25, 25);
        ledger.try_acquire(5).unwrap(); // the report says keep 20
        ledger.try_acquire(5).unwrap(); // meanwhile a retry: balance 15
        assert_eq!(ledger.settle(20, 8), 3, "8 held, 5 of them spent");
        assert_eq!(ledger.load(), (8, 3));
        ledger.try_acquire(3).unwrap();
        assert_eq!(ledger.settle(0, 0), 0);
        // Spending beyond what the store left: the balance stops at zero.
        ledger.grant(10, 10);
        ledger.try_acquire(10).unwrap();
        assert_eq!(ledger.settle(10, 4), 0);
        assert_eq!(ledger.load(), (4, 0));
        assert_eq!(ledger.pending(), 0);
    }

    /// Without refund room (before the first report, or when the last found the pool full),
    /// refunds beyond the balance are dropped; the balance is still restored.
    #[test]
    fn refunds_beyond_the_room_are_dropped() {
        let ledger = Ledger::new();
        ledger.grant(25, 25);
        assert_eq!(ledger.release(3), Refunded::default());
        ledger.try_acquire(5).unwrap();
        assert_eq!(
            ledger.release(8),
            Refunded {
                restored: 5,
                pending: 0
            }
        );
        ledger.set_room(3);
        assert_eq!(ledger.release(5).pending, 3);
        ledger.void();
        ledger.grant(25, 25);
        assert_eq!(ledger.release(5).pending, 0, "a void lease has no room");
    }

    /// 8 threads acquire and refund at random on one lease: the balance never exceeds held
    /// and never wraps below zero, and tokens are conserved: balance + spent - restored = held.
    #[test]
    fn concurrent_acquire_and_release_conserve_tokens() {
        const HELD: u32 = 200;
        let ledger = Arc::new(Ledger::new());
        ledger.set_room(u32::MAX);
        ledger.grant(HELD, HELD);
        let threads: Vec<_> = (0..8u64)
            .map(|t| {
                let ledger = Arc::clone(&ledger);
                std::thread::spawn(move || {
                    let mut rng = 0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(t + 1);
                    let (mut spent, mut restored, mut pending) = (0u64, 0u64, 0u64);
                    for _ in 0..100_000 {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        let amount = u32::try_from(rng % 11).unwrap();
                        if rng & (1 << 20) == 0 {
                            if let Ok(a) = ledger.try_acquire(amount) {
                                assert_eq!(a.before - a.after, amount);
                                spent += u64::from(amount);
                            }
                        } else {
                            let r = ledger.release(amount);
                            assert_eq!(r.restored + r.pending, amount);
                            restored += u64::from(r.restored);
                            pending += u64::from(r.pending);
                        }
                        let (held, balance) = ledger.load();
                        assert_eq!(held, HELD);
                        assert!(balance <= held, "balance {balance} > held {held}");
                    }
                    (spent, restored, pending)
                })
            })
            .collect();
        let (mut spent, mut restored, mut pending) = (0, 0, 0);
        for thread in threads {
            let (s, r, p) = thread.join().unwrap();
            spent += s;
            restored += r;
            pending += p;
        }
        let (held, balance) = ledger.load();
        assert!(
            spent > 0 && restored > 0 && pending > 0,
            "{spent} {restored} {pending}"
        );
        assert_eq!(u64::from(balance) + spent - restored, u64::from(held));
        assert_eq!(u64::from(ledger.pending()), pending);
    }
}
