//! [`Pool`]: the fleet's tokens in the store, as the Lua scripts keep them
//! (`rebound:{fleet}:pool`, `:held` and `:owed`).
//!
//! Mirrors `redis/src/lua/lease.lua` and `redis/src/lua/report.lua`: a lease
//! takes `min(want, available)` more tokens, never growing beyond its fair
//! share (`capacity / live leases`, `fair_share` in `prelude.lua`); a report
//! lowers what the lease holds to what it kept, and to its fair share, and
//! gives what it trimmed back to the pool. Its refunds repay first what the
//! lease's previous report said it spent (`owed[id]`), then the tokens the
//! pool misses that no live lease owes; what this report says it spent is
//! what the lease owes until its next one. The reply's refund room is what
//! the lease owes plus an even share of what nobody owes (the remainder of
//! the division going to a lease with the matching probability, drawn from
//! the pool's seeded source where the script reads the store's clock),
//! never more than the pool misses. So `available + held_total +
//! owed_total <= capacity` holds after every call (docs/fleet.md, "The
//! invariant").
//!
//! The simulated store never fails and every process refreshes well within
//! the TTL, so no lease lapses: expiries, reclaiming and `release` are left
//! out.

use rebound_runtime::backoff::{RandomSource as _, SeededRandom};

/// A grant: what [`Pool::lease`] added, and what the lease holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// Tokens taken from the pool.
    pub granted: u32,
    /// What the lease holds in the store now.
    pub held: u32,
}

/// A report's reply: what the lease holds now, and how many refunds it may
/// bring to its next report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportAck {
    /// What the lease holds in the store now.
    pub held: u32,
    /// The lease's refund room.
    pub refund_room: u32,
}

/// The store's side of one fleet: the pool and what each lease holds and
/// owes.
#[derive(Debug)]
pub struct Pool {
    capacity: u32,
    available: u32,
    held: Vec<u32>,
    /// What each lease's last report said it spent.
    owed: Vec<u32>,
    /// Which leases exist in the store (took a lease once: no lease lapses here).
    live: Vec<bool>,
    live_count: u32,
    held_total: u32,
    owed_total: u32,
    /// Refund tokens reports added to `available`, over the run.
    refunds_taken: u64,
    /// The coin of a refund room's remainder.
    coin: SeededRandom,
}

impl Pool {
    /// A full pool of `capacity` tokens, for leases `0..leases`, none held;
    /// the remainders of refund rooms drawn from `seed`.
    #[must_use]
    pub fn new(capacity: u32, leases: usize, seed: u64) -> Self {
        Self {
            capacity,
            available: capacity,
            held: vec![0; leases],
            owed: vec![0; leases],
            live: vec![false; leases],
            live_count: 0,
            held_total: 0,
            owed_total: 0,
            refunds_taken: 0,
            coin: SeededRandom::new(seed),
        }
    }

    /// The capacity split evenly between the live leases.
    fn fair_share(&self) -> u32 {
        self.capacity / self.live_count.max(1)
    }

    /// The tokens the pool misses: neither available nor held.
    fn missing(&self) -> u32 {
        self.capacity - self.held_total - self.available
    }

    /// `lease(want)` for lease `id` (`lease.lua`): takes `min(want,
    /// available)` more tokens, up to the fair share. An unknown `id` gets
    /// nothing.
    pub fn lease(&mut self, id: usize, want: u32) -> Grant {
        if let Some(live) = self.live.get_mut(id)
            && !*live
        {
            *live = true;
            self.live_count += 1;
        }
        let share = self.fair_share();
        let Some(held) = self.held.get_mut(id) else {
            return Grant {
                granted: 0,
                held: 0,
            };
        };
        let granted = want.min(self.available).min(share.saturating_sub(*held));
        self.available -= granted;
        self.held_total += granted;
        *held += granted;
        Grant {
            granted,
            held: *held,
        }
    }

    /// `report(keep, refunds)` for lease `id` (`report.lua`): the lease
    /// keeps `min(keep, held)`, and gives what is above its fair share back;
    /// the refunds repay what it owed, then what nobody owes; it owes what it
    /// spent since its last report. An unknown `id` holds nothing and has no
    /// room.
    pub fn report(&mut self, id: usize, keep: u32, refunds: u32) -> ReportAck {
        let share = self.fair_share();
        let (Some(&tokens), Some(&owes)) = (self.held.get(id), self.owed.get(id)) else {
            return ReportAck {
                held: 0,
                refund_room: 0,
            };
        };
        let nobodys = self.missing() - self.owed_total;
        let kept = keep.min(tokens);
        let spent = tokens - kept;
        let returned = kept.saturating_sub(share);
        let kept = kept - returned;
        self.held_total = self.held_total - tokens + kept;
        self.available += returned;
        let credit = refunds.min(owes + nobodys);
        self.available += credit;
        self.refunds_taken += u64::from(credit);
        self.owed_total = self.owed_total - owes + spent;
        self.owed[id] = spent;
        self.held[id] = kept;
        let missing = self.missing();
        let nobodys = missing - self.owed_total;
        let live = self.live_count.max(1);
        let mut share = nobodys / live;
        if self.coin.unit() * f64::from(live) < f64::from(nobodys % live) {
            share += 1;
        }
        ReportAck {
            held: kept,
            refund_room: (spent + share).min(missing),
        }
    }

    /// The fleet's capacity.
    #[must_use]
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Tokens not leased.
    #[must_use]
    pub fn available(&self) -> u32 {
        self.available
    }

    /// What the leases hold, added up.
    #[must_use]
    pub fn held_total(&self) -> u32 {
        self.held_total
    }

    /// What the leases' last reports said they spent, added up.
    #[must_use]
    pub fn owed_total(&self) -> u32 {
        self.owed_total
    }

    /// What lease `id` holds (0 for an unknown one).
    #[must_use]
    pub fn held(&self, id: usize) -> u32 {
        self.held.get(id).copied().unwrap_or(0)
    }

    /// What lease `id` owes (0 for an unknown one).
    #[must_use]
    pub fn owed(&self, id: usize) -> u32 {
        self.owed.get(id).copied().unwrap_or(0)
    }

    /// Refund tokens the reports added to the pool so far.
    #[must_use]
    pub fn refunds_taken(&self) -> u64 {
        self.refunds_taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refunds_repay_what_the_lease_owes_then_what_nobody_owes() {
        let mut pool = Pool::new(50, 3, 1);
        assert_eq!(pool.lease(0, 25).granted, 25);
        assert_eq!(
            pool.lease(1, 30),
            Grant {
                granted: 25,
                held: 25
            }
        );
        assert_eq!(pool.lease(2, 25).granted, 0, "the pool is empty");
        // Lease 0 spent 15 of its 25 and earned 20 refunds: it owed nothing
        // and nobody owed anything (the pool missed nothing), so none count;
        // it owes 15 now, and its room is those 15 (nobody owes the rest).
        assert_eq!(
            pool.report(0, 10, 20),
            ReportAck {
                held: 10,
                refund_room: 15
            }
        );
        assert_eq!((pool.available(), pool.held_total()), (0, 35));
        assert_eq!((pool.owed(0), pool.owed_total()), (15, 15));
        assert_eq!(pool.refunds_taken(), 0);
        // Its next report brings 20 refunds: 15 repay what it owed.
        assert_eq!(
            pool.report(0, 10, 20),
            ReportAck {
                held: 10,
                refund_room: 0
            }
        );
        assert_eq!((pool.available(), pool.owed_total()), (15, 0));
        assert_eq!(pool.refunds_taken(), 15);
        // A report never grows a lease, and trims it to its fair share
        // (50 / 3 live leases).
        assert_eq!(pool.report(1, 40, 0).held, 16);
        assert_eq!(pool.lease(9, 5).granted, 0, "unknown lease");
    }

    /// What a lease spent is its own to repay: another lease's refunds do
    /// not refill it. Once it is repaid or forgotten (a report that spent
    /// nothing), it is nobody's, split between the live leases' rooms.
    #[test]
    fn a_lease_repays_its_own_spending() {
        let mut pool = Pool::new(40, 2, 3);
        pool.lease(0, 20);
        pool.lease(1, 20);
        assert_eq!(pool.report(0, 0, 0).refund_room, 20, "it spent 20");
        let ack = pool.report(1, 20, 50);
        assert_eq!(ack.refund_room, 0, "lease 0 owes the 20 the pool misses");
        assert_eq!(pool.available(), 0);
        // Lease 0's next report spent nothing and brings no refunds: the 20
        // are nobody's now, 10 of room each.
        assert_eq!(pool.report(0, 0, 0).refund_room, 10);
        assert_eq!(pool.report(1, 20, 0).refund_room, 10);
        assert_eq!(pool.report(1, 20, 30).refund_room, 0);
        assert_eq!(pool.available(), 20);
        assert!(pool.available() + pool.held_total() + pool.owed_total() <= pool.capacity());
    }

    /// A deficit smaller than the fleet: the remainder's coin gives a lease
    /// one token of room with the matching probability.
    #[test]
    fn the_remainder_of_the_room_is_a_coin() {
        let mut pool = Pool::new(40, 4, 5);
        for id in 0..4 {
            pool.lease(id, 10);
        }
        pool.report(0, 9, 0); // spent 1: owed
        pool.report(0, 9, 0); // spent nothing: the 1 is nobody's
        let rooms: u32 = (0..4000).map(|_| pool.report(1, 10, 0).refund_room).sum();
        assert!((800..1200).contains(&rooms), "about a quarter: {rooms}");
    }

    #[test]
    fn leases_are_held_to_a_fair_share() {
        let mut pool = Pool::new(50, 5, 1);
        assert_eq!(pool.lease(0, 25).held, 25);
        assert_eq!(pool.lease(1, 25).held, 25);
        assert_eq!(pool.lease(2, 25).held, 0, "the pool is empty");
        // Three live leases: a fair share is 16; the report gives 9 back.
        assert_eq!(pool.report(0, 25, 0).held, 16);
        assert_eq!(pool.available(), 9);
        assert_eq!(pool.lease(2, 25).held, 9);
    }
}
