//! [`Pool`]: the fleet's tokens in the store, as the Lua scripts keep them
//! (`rebound:{fleet}:pool` and `rebound:{fleet}:held`).
//!
//! Mirrors `redis/src/lua/lease.lua` and `redis/src/lua/report.lua`: a lease
//! takes `min(want, available)` more tokens, never growing beyond its fair
//! share (`capacity / live leases`, `fair_share` in `prelude.lua`); a report
//! lowers what the lease holds to what it kept, and to its fair share, and
//! adds what it gave back and the refunds to the pool, capped so that
//! `available + held_total <= capacity` (docs/fleet.md, "The invariant").
//! The simulated store never fails and every process refreshes well within
//! the TTL, so no lease lapses: expiries, reclaiming and `release` are left
//! out.

/// A grant: what [`Pool::lease`] added, and what the lease holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// Tokens taken from the pool.
    pub granted: u32,
    /// What the lease holds in the store now.
    pub held: u32,
}

/// The store's side of one fleet: the pool and what each lease holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    capacity: u32,
    available: u32,
    held: Vec<u32>,
    /// Which leases exist in the store (took a lease once: no lease lapses here).
    live: Vec<bool>,
    live_count: u32,
    held_total: u32,
    /// Refund tokens reports added to `available`, over the run.
    refunds_taken: u64,
}

impl Pool {
    /// A full pool of `capacity` tokens, for leases `0..leases`, none held.
    #[must_use]
    pub fn new(capacity: u32, leases: usize) -> Self {
        Self {
            capacity,
            available: capacity,
            held: vec![0; leases],
            live: vec![false; leases],
            live_count: 0,
            held_total: 0,
            refunds_taken: 0,
        }
    }

    /// The capacity split evenly between the live leases.
    fn fair_share(&self) -> u32 {
        self.capacity / self.live_count.max(1)
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
    /// that and the refunds fill the pool up to what the leases leave room
    /// for. Returns what the lease holds now.
    pub fn report(&mut self, id: usize, keep: u32, refunds: u32) -> u32 {
        let share = self.fair_share();
        let Some(held) = self.held.get_mut(id) else {
            return 0;
        };
        let kept = keep.min(*held);
        let returned = kept.saturating_sub(share);
        let kept = kept - returned;
        self.held_total = self.held_total - *held + kept;
        *held = kept;
        let room = self.capacity.saturating_sub(self.held_total);
        let with_returns = self.available.saturating_add(returned).min(room);
        let available = with_returns.saturating_add(refunds).min(room);
        self.refunds_taken += u64::from(available - with_returns);
        self.available = available;
        kept
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

    /// What lease `id` holds (0 for an unknown one).
    #[must_use]
    pub fn held(&self, id: usize) -> u32 {
        self.held.get(id).copied().unwrap_or(0)
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
    fn leases_take_what_is_left_and_refunds_fill_only_the_room() {
        let mut pool = Pool::new(50, 3);
        assert_eq!(pool.lease(0, 25).granted, 25);
        assert_eq!(
            pool.lease(1, 30),
            Grant {
                granted: 25,
                held: 25
            }
        );
        assert_eq!(pool.lease(2, 25).granted, 0, "the pool is empty");
        // Lease 0 spent 15 of its 25 and earned 20 refunds: the pool takes
        // only the 15 the spending made room for.
        assert_eq!(pool.report(0, 10, 20), 10);
        assert_eq!((pool.available(), pool.held_total()), (15, 35));
        assert_eq!(pool.refunds_taken(), 15);
        // A report never grows a lease, and trims it to its fair share
        // (50 / 3 live leases).
        assert_eq!(pool.report(1, 40, 0), 16);
        assert_eq!(pool.lease(9, 5).granted, 0, "unknown lease");
    }

    #[test]
    fn leases_are_held_to_a_fair_share() {
        let mut pool = Pool::new(50, 5);
        assert_eq!(pool.lease(0, 25).held, 25);
        assert_eq!(pool.lease(1, 25).held, 25);
        assert_eq!(pool.lease(2, 25).held, 0, "the pool is empty");
        // Three live leases: a fair share is 16; the report gives 9 back.
        assert_eq!(pool.report(0, 25, 0), 16);
        assert_eq!(pool.available(), 9);
        assert_eq!(pool.lease(2, 25).held, 9);
    }
}
