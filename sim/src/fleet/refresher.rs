//! [`Refreshers`]: every process's lease refresher and the store they talk
//! to, as [`Background`] work on the run's event queue.
//!
//! Mirrors `redis/src/quota.rs` (`Refresher::run`, `step` and `refresh`).
//! A process refreshes every refresh period, counted from the end of its
//! last refresh, and at once when an acquisition took its balance below the
//! low-water mark (a wake-up during a refresh starts another right after
//! it, as tokio's `Notify` keeps the permit). A refresh is
//!
//! 1. `report(keep = balance, refunds = pending)`, when the process has a
//!    lease; the reply sets the refund room (`Ledger::set_room`), then
//!    settles `held` (`Ledger::settle`);
//! 2. `lease(want = lease_size - held)`, when that is more than 0 or the
//!    process has no lease yet; the reply adds the grant (`Ledger::grant`).
//!
//! Each call reaches the [`Pool`] half a round trip after it is sent and its
//! reply comes back half a round trip later; the request path goes on
//! meanwhile. Processes start at seeded times within the first refresh
//! period, as independent processes do, and take their first lease then.
//! The replies' `next_lapse_ms` is left out: it calls a refresher early only
//! to reclaim a lapsed lease, and none lapses here.

use std::sync::Arc;

use super::lease::Lease;
use super::pool::{Pool, ReportAck};
use super::settings::LeaseSettings;
use crate::driver::{Background, Timers};

/// What one process's refresher is doing.
#[derive(Debug)]
struct Process {
    lease: Arc<Lease>,
    has_lease: bool,
    /// In a refresh (a call under way).
    busy: bool,
    /// When the periodic refresh is due, while idle.
    due: f64,
    /// The report under way: `(keep, refunds)`; then the reply.
    report: (u32, u32),
    reported: ReportAck,
    /// The lease call under way: `want`; then the reply's grant.
    want: u32,
    granted: (u32, u32),
}

/// The stages of a refresh, each a timer of the process.
const TICK: usize = 0;
const REPORT_AT_STORE: usize = 1;
const REPORT_REPLY: usize = 2;
const LEASE_AT_STORE: usize = 3;
const LEASE_REPLY: usize = 4;
const STAGES: usize = 5;

/// The fleet's counts at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FleetStats {
    /// Tokens the processes spent on retries, so far.
    pub spent: u64,
    /// Refund tokens put back into the processes' balances, so far.
    pub restored: u64,
    /// Refund tokens the reports added to the pool, so far.
    pub refunds_taken: u64,
    /// Tokens the leases' last reports said they spent, not repaid yet.
    pub owed_total: u32,
    /// Tokens in the pool, not leased.
    pub available: u32,
    /// Tokens the leases hold in the store.
    pub held_total: u32,
    /// Refunds waiting in the processes for their next report.
    pub pending: u64,
    /// Processes whose balance has tokens.
    pub processes_with_tokens: usize,
    /// Calls to the store (reports and leases), so far.
    pub calls: u64,
}

/// Every process's refresher and their store.
#[derive(Debug)]
pub struct Refreshers {
    settings: LeaseSettings,
    pool: Pool,
    processes: Vec<Process>,
    calls: u64,
    /// Times at which to take [`FleetStats`], and what was taken.
    snapshots: Vec<(f64, Option<FleetStats>)>,
}

impl Refreshers {
    /// The refreshers of `leases` (process `i` owns `leases[i]`), process
    /// `i` starting at `starts[i]` seconds (0 when missing), with a full
    /// pool whose coin is seeded with `seed`. The [`stats`](Self::stats) are
    /// taken at each of `snapshot_at` ([`snapshot`](Self::snapshot)).
    #[must_use]
    pub fn new(
        settings: LeaseSettings,
        leases: &[Arc<Lease>],
        starts: &[f64],
        snapshot_at: &[f64],
        seed: u64,
    ) -> Self {
        let processes = leases
            .iter()
            .enumerate()
            .map(|(i, lease)| Process {
                lease: Arc::clone(lease),
                has_lease: false,
                busy: false,
                due: starts.get(i).copied().unwrap_or(0.0),
                report: (0, 0),
                reported: ReportAck {
                    held: 0,
                    refund_room: 0,
                },
                want: 0,
                granted: (0, 0),
            })
            .collect();
        Self {
            settings,
            pool: Pool::new(settings.capacity, leases.len(), seed),
            processes,
            calls: 0,
            snapshots: snapshot_at.iter().map(|&at| (at, None)).collect(),
        }
    }

    /// The store.
    #[must_use]
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The fleet's counts now.
    #[must_use]
    pub fn stats(&self) -> FleetStats {
        let mut stats = FleetStats {
            refunds_taken: self.pool.refunds_taken(),
            available: self.pool.available(),
            held_total: self.pool.held_total(),
            owed_total: self.pool.owed_total(),
            calls: self.calls,
            ..FleetStats::default()
        };
        for process in &self.processes {
            let counts = process.lease.counts();
            stats.spent += counts.spent;
            stats.restored += counts.restored;
            stats.pending += u64::from(counts.pending);
            stats.processes_with_tokens += usize::from(counts.balance > 0);
        }
        stats
    }

    /// The counts taken at the `index`-th snapshot time, once it has passed.
    #[must_use]
    pub fn snapshot(&self, index: usize) -> Option<FleetStats> {
        self.snapshots.get(index).and_then(|(_, stats)| *stats)
    }

    /// Sends a call to the store: it reaches it at `stage`.
    fn call(&mut self, timers: &mut Timers, now: f64, process: usize, stage: usize) {
        self.calls += 1;
        self.half_trip(timers, now, process, stage);
    }

    /// Half a round trip from now, `stage` of `process`.
    fn half_trip(&self, timers: &mut Timers, now: f64, process: usize, stage: usize) {
        timers.set(
            now + self.settings.round_trip / 2.0,
            process * STAGES + stage,
        );
    }

    /// Starts a refresh (`Refresher::refresh`).
    fn begin(&mut self, timers: &mut Timers, now: f64, index: usize) {
        let process = &mut self.processes[index];
        process.busy = true;
        if process.has_lease {
            let refunds = process.lease.take_pending();
            let keep = process.lease.counts().balance;
            process.report = (keep, refunds);
            self.call(timers, now, index, REPORT_AT_STORE);
        } else {
            self.top_up(timers, now, index);
        }
    }

    /// After the report: leases what `held` lacks of a full lease.
    fn top_up(&mut self, timers: &mut Timers, now: f64, index: usize) {
        let lease_size = self.settings.lease_size;
        let process = &mut self.processes[index];
        let want = lease_size.saturating_sub(process.lease.counts().held);
        if want > 0 || !process.has_lease {
            process.want = want;
            self.call(timers, now, index, LEASE_AT_STORE);
        } else {
            self.end(timers, now, index);
        }
    }

    /// The refresh is over: another at once if a wake-up came meanwhile,
    /// else one refresh period from now.
    fn end(&mut self, timers: &mut Timers, now: f64, index: usize) {
        let period = self.settings.refresh_period;
        let process = &mut self.processes[index];
        process.busy = false;
        if process.lease.take_wake() {
            self.begin(timers, now, index);
        } else {
            process.due = now + period;
            timers.set(process.due, index * STAGES + TICK);
        }
    }
}

impl Background for Refreshers {
    fn start(&mut self, timers: &mut Timers) {
        for (index, process) in self.processes.iter().enumerate() {
            timers.set(process.due, index * STAGES + TICK);
        }
        let first = self.processes.len() * STAGES;
        for (i, (at, _)) in self.snapshots.iter().enumerate() {
            timers.set(*at, first + i);
        }
    }

    fn fire(&mut self, now: f64, key: usize, timers: &mut Timers) {
        let (index, stage) = (key / STAGES, key % STAGES);
        if index >= self.processes.len() {
            let stats = self.stats();
            if let Some(slot) = self.snapshots.get_mut(key - self.processes.len() * STAGES) {
                slot.1 = Some(stats);
            }
            return;
        }
        match stage {
            TICK => {
                // A tick cancelled by an early refresh is stale.
                let process = &self.processes[index];
                if !process.busy && process.due == now {
                    self.begin(timers, now, index);
                }
            }
            REPORT_AT_STORE => {
                let (keep, refunds) = self.processes[index].report;
                self.processes[index].reported = self.pool.report(index, keep, refunds);
                self.half_trip(timers, now, index, REPORT_REPLY);
            }
            REPORT_REPLY => {
                let process = &self.processes[index];
                // The room first: what settling moves from the balance to the
                // pending refunds repays tokens this report said were spent.
                process.lease.set_room(process.reported.refund_room);
                process
                    .lease
                    .settle(process.report.0, process.reported.held);
                self.top_up(timers, now, index);
            }
            LEASE_AT_STORE => {
                let grant = self.pool.lease(index, self.processes[index].want);
                self.processes[index].granted = (grant.granted, grant.held);
                self.half_trip(timers, now, index, LEASE_REPLY);
            }
            LEASE_REPLY => {
                let process = &mut self.processes[index];
                let (granted, held) = process.granted;
                process.lease.grant(granted, held);
                process.has_lease = true;
                self.end(timers, now, index);
            }
            _ => {}
        }
        debug_assert!(
            self.pool.available() + self.pool.held_total() + self.pool.owed_total()
                <= self.pool.capacity()
        );
    }

    fn after_event(&mut self, now: f64, timers: &mut Timers) {
        for index in 0..self.processes.len() {
            let process = &self.processes[index];
            if !process.busy && process.lease.take_wake() {
                self.begin(timers, now, index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rebound_runtime::QuotaStore as _;

    use super::*;

    /// Fires the timers due by `until`, earliest first (first set on ties),
    /// calling `after_event` after each, as the driver does.
    fn run_until(refreshers: &mut Refreshers, timers: &mut Vec<(f64, usize)>, until: f64) {
        let mut set = Timers::default();
        loop {
            let next = timers
                .iter()
                .enumerate()
                .filter(|(_, (at, _))| *at <= until)
                .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0))
                .map(|(i, _)| i);
            let Some(next) = next else { break };
            let (now, key) = timers.remove(next);
            refreshers.fire(now, key, &mut set);
            refreshers.after_event(now, &mut set);
            timers.extend(set.drain());
        }
    }

    #[test]
    fn a_balance_below_low_water_is_topped_up_at_once() {
        let settings = LeaseSettings::default();
        let lease = Arc::new(Lease::new(settings.capacity, settings.low_water()));
        let mut refreshers = Refreshers::new(settings, &[Arc::clone(&lease)], &[0.5], &[], 1);
        let mut set = Timers::default();
        refreshers.start(&mut set);
        let mut timers: Vec<_> = set.drain().collect();
        run_until(&mut refreshers, &mut timers, 0.4);
        assert_eq!(lease.available(), 0, "no lease before the process starts");
        run_until(&mut refreshers, &mut timers, 1.0);
        assert_eq!(lease.available(), 25, "one lease call, 1 ms");
        assert_eq!(refreshers.stats().calls, 1);
        // 10 leaves 15: no wake-up; 5 more leave 10, below 13: a report and
        // a lease, 2 ms, not the next period.
        lease.try_acquire(10).unwrap();
        refreshers.after_event(1.0, &mut set);
        assert!(set.drain().next().is_none());
        lease.try_acquire(5).unwrap();
        refreshers.after_event(1.0, &mut set);
        timers.extend(set.drain());
        run_until(&mut refreshers, &mut timers, 1.0021);
        assert_eq!(lease.available(), 25);
        let pool = refreshers.pool();
        assert_eq!((pool.available(), pool.held_total()), (460, 25));
        assert_eq!(refreshers.stats().calls, 3);
        // The periodic tick set before the early refresh is stale; the next
        // refresh is a period after the early one ended: a report only (the
        // lease is full).
        run_until(
            &mut refreshers,
            &mut timers,
            1.0015 + settings.refresh_period,
        );
        assert_eq!(refreshers.stats().calls, 3);
        run_until(
            &mut refreshers,
            &mut timers,
            1.0025 + settings.refresh_period,
        );
        assert_eq!(refreshers.stats().calls, 4);
    }
}
