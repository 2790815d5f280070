//! [`LimiterStore`]: the fleet rate limiter's state in the store, as the
//! Lua script keeps it (`rebound:{fleet}:limiter`, `:members`, `:rates`,
//! `:demands`).
//!
//! Mirrors `redis/src/lua/limiter.lua`: a call reclaims the members whose
//! membership lapsed (their rates leave the sum, their demands the totals)
//! and takes the caller's previous rate and demand out of the totals. With a
//! TTL of 0 the caller leaves: its membership goes too, and nothing else
//! changes. Otherwise its new rate, demand and expiry go in, and the call
//! cuts when the caller reports throttles and the window since the last cut
//! has passed (or there was none): `w_max` is then the sum of the members'
//! rates, this caller's included, and `cut_members` how many they are;
//! within the window after a cut, a larger sum raises `w_max`. The totals
//! are `asked`, the bounded demands added up, and `unbounded`, how many
//! members' demands are unbounded ([`UNBOUNDED`]). The reply is
//! [`FleetRateState`], as `rebound-redis` parses it. Times are whole
//! milliseconds of the store's clock (`TIME`), rates and demands whole
//! milli-requests per second. The simulated store never fails and holds one
//! fleet; the script's argument checks, key types, key expiry (an idle
//! fleet) and its bound on the members reclaimed per call (100) are left
//! out.

use rebound_redis::FleetRateState;

/// The demand of a member whose held rate limits it (`Demand::Unbounded`'s
/// `milli()`, the script's `UNBOUNDED`).
pub const UNBOUNDED: u32 = u32::MAX;

/// One member's entry: its rate, its demand and when its membership lapses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Member {
    rate_milli: u64,
    /// Milli-requests per second, or [`UNBOUNDED`].
    demand_milli: u32,
    expiry_ms: u64,
}

impl Member {
    /// Takes this member's demand out of the totals (`count_demand(d, -1)`).
    fn leave(&self, asked: &mut u64, unbounded: &mut u64) {
        if self.demand_milli == UNBOUNDED {
            *unbounded = unbounded.saturating_sub(1);
        } else {
            *asked = asked.saturating_sub(u64::from(self.demand_milli));
        }
    }
}

/// One cut of the fleet's rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// When, milliseconds of the store's clock.
    pub at_ms: u64,
    /// The fleet's rate it was cut from (`w_max`), milli-requests per
    /// second.
    pub w_max_milli: u64,
}

/// The store's side of one fleet's rate limiter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimiterStore {
    cuts: u64,
    w_max: u64,
    cut_ms: u64,
    sum: u64,
    /// The bounded demands added up, milli-requests per second.
    asked: u64,
    /// How many members' demands are unbounded.
    unbounded: u64,
    /// How many members the fleet had at the last cut.
    cut_members: u64,
    /// Member `i` is process `i`'s lease id.
    members: Vec<Option<Member>>,
    /// Every cut, in order.
    cut_log: Vec<Cut>,
    calls: u64,
}

/// Replies hold whole numbers up to `u32::MAX`, as the script caps them.
fn capped(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

impl LimiterStore {
    /// An empty store: no member, no cut.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `limiter(id, rate, throttles, ttl_ms, window_ms, demand)` at
    /// `now_ms`, the script's one call (`demand_milli` in milli-requests per
    /// second, or [`UNBOUNDED`]; a `ttl_ms` of 0: the member leaves); returns
    /// its reply.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &mut self,
        now_ms: u64,
        id: usize,
        rate_milli: u32,
        throttles: u32,
        ttl_ms: u64,
        window_ms: u64,
        demand_milli: u32,
    ) -> FleetRateState {
        self.calls += 1;
        // Members that stopped calling leave, with their rates and demands.
        for slot in &mut self.members {
            if let Some(member) = slot
                && member.expiry_ms <= now_ms
            {
                self.sum = self.sum.saturating_sub(member.rate_milli);
                member.leave(&mut self.asked, &mut self.unbounded);
                *slot = None;
            }
        }
        if self.members.len() <= id {
            self.members.resize(id + 1, None);
        }
        // The caller's previous rate and demand leave the totals.
        if let Some(old) = self.members[id].take() {
            self.sum = self.sum.saturating_sub(old.rate_milli);
            old.leave(&mut self.asked, &mut self.unbounded);
        }
        if ttl_ms == 0 {
            // The member leaves: nothing else changes.
            return self.state(now_ms);
        }
        // Its new ones join them.
        self.sum += u64::from(rate_milli);
        if demand_milli == UNBOUNDED {
            self.unbounded += 1;
        } else {
            self.asked += u64::from(demand_milli);
        }
        self.members[id] = Some(Member {
            rate_milli: u64::from(rate_milli),
            demand_milli,
            expiry_ms: now_ms + ttl_ms,
        });
        // Cut once per event: the first throttle after the window since the
        // last cut, from what the fleet measured, this member's rate added.
        if throttles > 0 && (self.cuts == 0 || now_ms.saturating_sub(self.cut_ms) >= window_ms) {
            self.cuts += 1;
            self.w_max = self.sum;
            self.cut_ms = now_ms;
            self.cut_members = self.members.iter().flatten().count() as u64;
            self.cut_log.push(Cut {
                at_ms: now_ms,
                w_max_milli: self.w_max,
            });
        } else if self.cuts > 0
            && now_ms.saturating_sub(self.cut_ms) < window_ms
            && self.sum > self.w_max
        {
            // Within the window the members report what they were admitted before they heard
            // of the cut: the fleet was admitted at least that much.
            self.w_max = self.sum;
            if let Some(cut) = self.cut_log.last_mut() {
                cut.w_max_milli = self.w_max;
            }
        }
        self.state(now_ms)
    }

    /// What a call at `now_ms` would reply, without changing anything (no
    /// member lapses): the fleet's state as every member sees it then.
    #[must_use]
    pub fn state(&self, now_ms: u64) -> FleetRateState {
        let since = if self.cuts > 0 {
            now_ms.saturating_sub(self.cut_ms)
        } else {
            0
        };
        FleetRateState {
            cuts: capped(self.cuts),
            w_max_milli: capped(self.w_max),
            since_cut_ms: capped(since),
            sum_milli: capped(self.sum),
            members: capped(self.members.iter().flatten().count() as u64),
            asked_milli: capped(self.asked),
            unbounded: capped(self.unbounded),
            cut_members: capped(self.cut_members),
        }
    }

    /// Every member's rate, milli-requests per second, by id (`None` for
    /// an id that never called or lapsed).
    #[must_use]
    pub fn rates(&self) -> Vec<Option<u32>> {
        self.members
            .iter()
            .map(|m| m.map(|m| capped(m.rate_milli)))
            .collect()
    }

    /// Every member's demand, milli-requests per second or [`UNBOUNDED`],
    /// by id (`None` for an id that never called or lapsed).
    #[must_use]
    pub fn demands(&self) -> Vec<Option<u32>> {
        self.members
            .iter()
            .map(|m| m.map(|m| m.demand_milli))
            .collect()
    }

    /// Every cut so far, in order.
    #[must_use]
    pub fn cuts(&self) -> &[Cut] {
        &self.cut_log
    }

    /// Calls so far.
    #[must_use]
    pub fn calls(&self) -> u64 {
        self.calls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_once_per_window_from_the_sum() {
        let mut store = LimiterStore::new();
        let (ttl, window) = (10_000, 6_666);
        let s = store.call(0, 0, 300_000, 0, ttl, window, UNBOUNDED);
        assert_eq!((s.cuts, s.sum_milli, s.members), (0, 300_000, 1));
        let s = store.call(10, 1, 500_000, 2, ttl, window, UNBOUNDED);
        assert_eq!((s.cuts, s.w_max_milli, s.since_cut_ms), (1, 800_000, 0));
        // Within the window: no second cut.
        let s = store.call(6_000, 0, 200_000, 5, ttl, window, UNBOUNDED);
        assert_eq!((s.cuts, s.w_max_milli, s.since_cut_ms), (1, 800_000, 5_990));
        assert_eq!(s.sum_milli, 700_000);
        let s = store.call(6_676, 1, 400_000, 1, ttl, window, UNBOUNDED);
        assert_eq!((s.cuts, s.w_max_milli, s.since_cut_ms), (2, 600_000, 0));
        let times: Vec<u64> = store.cuts().iter().map(|c| c.at_ms).collect();
        assert_eq!(times, [10, 6_676]);
    }

    #[test]
    fn lapsed_members_leave_with_their_rates() {
        let mut store = LimiterStore::new();
        store.call(0, 0, 300_000, 0, 1_000, 100, UNBOUNDED);
        store.call(500, 2, 100_000, 0, 1_000, 100, 80_000);
        let s = store.call(1_000, 1, 50_000, 0, 1_000, 100, 40_000);
        assert_eq!((s.sum_milli, s.members), (150_000, 2));
        assert_eq!(store.rates(), [None, Some(50_000), Some(100_000)]);
        assert_eq!(store.demands(), [None, Some(40_000), Some(80_000)]);
    }

    #[test]
    fn a_member_that_leaves_takes_out_its_rate_and_demand_and_nothing_else() {
        let mut store = LimiterStore::new();
        let (ttl, window) = (10_000, 2_000);
        store.call(0, 0, 300_000, 0, ttl, window, UNBOUNDED);
        store.call(10, 1, 100_000, 0, ttl, window, 80_000);
        let cut = store.call(20, 2, 200_000, 3, ttl, window, UNBOUNDED);
        assert_eq!(
            (cut.cuts, cut.w_max_milli, cut.sum_milli),
            (1, 600_000, 600_000)
        );
        // Member 0 leaves with throttles to report, within the window: no
        // cut, `w_max` and the cut's time stay.
        let s = store.call(500, 0, 0, 7, 0, 0, 0);
        assert_eq!((s.cuts, s.w_max_milli, s.since_cut_ms), (1, 600_000, 480));
        assert_eq!((s.sum_milli, s.members, s.cut_members), (300_000, 2, 3));
        assert_eq!((s.asked_milli, s.unbounded), (80_000, 1));
        assert_eq!(store.rates(), [None, Some(100_000), Some(200_000)]);
        assert_eq!(store.demands(), [None, Some(80_000), Some(UNBOUNDED)]);
        assert_eq!(store.state(500), s);
        // The bounded one leaves too; leaving twice, or without having
        // joined, changes nothing.
        let s = store.call(600, 1, 0, 0, 0, 0, 0);
        assert_eq!(
            (s.sum_milli, s.members, s.asked_milli, s.unbounded),
            (200_000, 1, 0, 1)
        );
        assert_eq!(store.call(700, 1, 0, 0, 0, 0, 0), store.state(700));
        assert_eq!(store.call(800, 5, 0, 0, 0, 0, 0), store.state(800));
        assert_eq!(store.cuts().len(), 1);
        // Past the window, a member's throttles cut from what is left.
        let s = store.call(2_100, 2, 190_000, 1, ttl, window, UNBOUNDED);
        assert_eq!(
            (s.cuts, s.w_max_milli, s.members, s.cut_members),
            (2, 190_000, 1, 1)
        );
    }

    #[test]
    fn the_demands_are_totalled_as_the_members_report_and_lapse() {
        let mut store = LimiterStore::new();
        let totals = |s: FleetRateState| (s.asked_milli, s.unbounded, s.members);
        // A bounded member and an unbounded one.
        let s = store.call(0, 0, 20_000, 0, 1_000, 100, 25_000);
        assert_eq!(totals(s), (25_000, 0, 1));
        let s = store.call(10, 1, 90_000, 0, 1_000, 100, UNBOUNDED);
        assert_eq!(totals(s), (25_000, 1, 2));
        // The bounded one asks for more: its old demand is replaced.
        let s = store.call(20, 0, 30_000, 0, 1_000, 100, 60_000);
        assert_eq!(totals(s), (60_000, 1, 2));
        // The unbounded one becomes bounded, then unbounded again.
        let s = store.call(30, 1, 90_000, 0, 1_000, 100, 70_000);
        assert_eq!(totals(s), (130_000, 0, 2));
        let s = store.call(40, 1, 90_000, 0, 1_000, 100, UNBOUNDED);
        assert_eq!(totals(s), (60_000, 1, 2));
        // The bounded one is limited now: it counts as unbounded.
        let s = store.call(50, 0, 30_000, 0, 1_000, 100, UNBOUNDED);
        assert_eq!(totals(s), (0, 2, 2));
        let s = store.call(60, 0, 30_000, 0, 1_000, 100, 10_000);
        assert_eq!(totals(s), (10_000, 1, 2));
        // The unbounded one stops calling: its membership lapses at 1040,
        // and the next call takes it out.
        assert_eq!(totals(store.state(1_040)), (10_000, 1, 2));
        let s = store.call(1_040, 0, 30_000, 0, 1_000, 100, 15_000);
        assert_eq!(totals(s), (15_000, 0, 1));
        assert_eq!(store.demands(), [Some(15_000), None]);
        // The bounded one lapses too; a new member finds only its own demand.
        let s = store.call(3_000, 2, 5_000, 0, 1_000, 100, UNBOUNDED);
        assert_eq!(totals(s), (0, 1, 1));
        // A member that lapsed and calls again counts once.
        let s = store.call(5_000, 2, 5_000, 0, 1_000, 100, 4_000);
        assert_eq!(totals(s), (4_000, 0, 1));
        assert_eq!(s.sum_milli, 5_000);
    }

    /// Many callers in virtual time: fifty members call at random times
    /// with random rates, throttles and demands, some leave and rejoin, and
    /// every tenth stops calling for a while and lapses. After every call the
    /// totals equal what the members' entries add up to.
    #[test]
    fn fifty_members_calling_in_turn_keep_the_totals_exact() {
        use crate::rng::mix;
        use rebound_runtime::backoff::{RandomSource as _, SeededRandom};

        for seed in 0..5 {
            let draws = SeededRandom::new(mix(&[seed, 29]));
            let draw = |n: u64| (draws.unit() * n as f64) as u64;
            let mut store = LimiterStore::new();
            let mut now_ms = 0;
            for _ in 0..20_000 {
                now_ms += draw(20);
                let id = draw(50) as usize;
                // Every tenth member calls only in the first second of each
                // ten: it lapses in between.
                if id.is_multiple_of(10) && now_ms % 10_000 > 1_000 {
                    continue;
                }
                let demand = if draw(3) == 0 {
                    UNBOUNDED
                } else {
                    draw(400_000) as u32
                };
                let ttl_ms = if draw(20) == 0 { 0 } else { 1_000 };
                let throttles = u32::from(draw(10) == 0);
                let s = store.call(
                    now_ms,
                    id,
                    draw(500_000) as u32,
                    throttles,
                    ttl_ms,
                    100,
                    demand,
                );
                let live: Vec<Member> = store.members.iter().flatten().copied().collect();
                let bounded = live.iter().filter(|m| m.demand_milli != UNBOUNDED);
                assert_eq!(store.sum, live.iter().map(|m| m.rate_milli).sum::<u64>());
                assert_eq!(
                    store.asked,
                    bounded.map(|m| u64::from(m.demand_milli)).sum::<u64>()
                );
                assert_eq!(
                    store.unbounded,
                    live.iter().filter(|m| m.demand_milli == UNBOUNDED).count() as u64
                );
                assert_eq!(s.members as usize, live.len());
                assert!(
                    live.iter().all(|m| m.expiry_ms > now_ms),
                    "lapsed members reclaimed"
                );
            }
            assert!(store.cuts > 0);
        }
    }
}
