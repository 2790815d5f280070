//! The fleet experiment: `N` processes share a service that goes down for
//! `T` seconds, then recovers; each process runs rebound's standard mode on
//! either a retry quota of its own or its share of one fleet-wide quota
//! (`rebound-redis`'s `FleetQuota`). How many retries does the fleet send
//! into the outage, and how fast does the service recover?
//!
//! # The model
//!
//! * The outage experiment's service and workload ([`OutageParams`]:
//!   800 logical requests/s in all, down 10–20 s answering 503, then 1000
//!   attempts/s), the same requests for every `N` (1, 10, 100): each goes
//!   to a uniformly drawn process.
//! * Every process runs the real [`StandardRetryStrategy`](rebound_runtime::StandardRetryStrategy)
//!   ([`quota::standard`]), on `RetryQuota::new(500)` (per-process quotas)
//!   or on `RetryQuota::with_store(lease)` (the fleet quota).
//! * The fleet quota is a virtual-time model of `rebound-redis` (no Redis):
//!   the store's [`pool`] (`redis/src/lua/lease.lua`, `report.lua`), each
//!   process's [`lease`] (`redis/src/ledger.rs`, the request path of
//!   `redis/src/quota.rs`) and its [`refresher`] (`Refresher` in
//!   `redis/src/quota.rs`), whose calls are events of the driver's queue
//!   ([`driver::run_with`]). Defaults are `FleetQuotaConfig`'s
//!   ([`LeaseSettings`]); the store never fails and no lease lapses.
//!
//! # Metrics
//!
//! * **retries (outage)**: retries sent while the service is down (a
//!   request's second attempt and later);
//! * **attempts/request**: attempts over the logical requests arriving,
//!   during the outage and over the run;
//! * **time to recover**: the outage experiment's
//!   ([`outage::time_to_recover`]);
//! * fleet quota only: **refunds (outage)**, refund tokens credited while
//!   the service is down (restored to balances, or added to the pool by a
//!   report): what lets the fleet retry beyond `capacity / 5`, the **lease
//!   slack** (`retries − capacity / 5`); and the processes holding tokens
//!   when the outage starts.
//!
//! The fleet rate limiter has its own experiment, in [`rate`]. Two more
//! scenarios, [`traffic`] and [`rate::limited`], are the models of the
//! multi-process tests of `rebound-redis`, for comparing the two.

pub mod lease;
pub mod pool;
pub mod quota;
pub mod rate;
pub mod refresher;
pub mod settings;
pub mod traffic;

use std::sync::Arc;

use crate::parallel::run_jobs;
use rebound_runtime::RetryQuota;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};

use crate::driver::{self, Fleet, Record};
use crate::outage::{self, OutageParams, ratio};
use crate::rng::mix;
use crate::vclock::VirtualClock;
use lease::Lease;
use quota::{QuotaKind, RETRY_COST};
use refresher::{FleetStats, Refreshers};
pub use settings::LeaseSettings;

/// The experiment's parameters; [`Default`] is the documented one.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetParams {
    /// The fleet sizes compared.
    pub processes: Vec<usize>,
    /// The service and the workload; `clients` is each fleet size in turn.
    pub outage: OutageParams,
    /// The fleet quota's settings (its capacity is also each per-process
    /// quota's).
    pub lease: LeaseSettings,
}

impl Default for FleetParams {
    fn default() -> Self {
        Self {
            processes: vec![1, 10, 100],
            outage: OutageParams::default(),
            lease: LeaseSettings::default(),
        }
    }
}

/// One run: `processes` processes on one kind of quota.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRun {
    /// The record (one table, 1 s bins).
    pub record: Record,
    /// The fleet quota's counts at the outage's start, at the recovery and
    /// at the end (`None` for per-process quotas).
    pub stats: Option<[FleetStats; 3]>,
    /// The summary.
    pub row: FleetRow,
}

/// The summary of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetRow {
    /// Processes.
    pub processes: usize,
    /// Their quotas.
    pub quota: QuotaKind,
    /// Retries sent while the service was down.
    pub retries_outage: u64,
    /// Attempts per logical request while the service was down.
    pub amplification_outage: f64,
    /// Attempts per logical request over the run.
    pub amplification: f64,
    /// Successes after the recovery over arrivals after it.
    pub goodput_after: f64,
    /// Time to recover ([`outage::time_to_recover`]), seconds.
    pub time_to_recover: Option<f64>,
    /// Fleet quota: refund tokens credited while the service was down.
    pub refunds_outage: Option<u64>,
    /// Fleet quota: retries while down beyond `capacity / 5`.
    pub lease_slack: Option<i64>,
    /// Fleet quota: refunds waiting in the processes for their next report
    /// when the outage started.
    pub pending_at_outage: Option<u64>,
    /// Fleet quota: processes with tokens when the outage started.
    pub processes_with_tokens: Option<usize>,
    /// Fleet quota: calls to the store over the run.
    pub store_calls: Option<u64>,
}

/// Runs `processes` processes on `quota`, every draw determined by `seed`:
/// the arrivals are the same for every fleet size and quota, each
/// process's jitter the same for both quotas.
#[must_use]
pub fn run_case(params: &FleetParams, processes: usize, quota: QuotaKind, seed: u64) -> FleetRun {
    let outage = OutageParams {
        clients: processes,
        ..params.outage.clone()
    };
    let settings = params.lease;
    let mut time = VirtualClock::new();
    let jitter = |process: usize| mix(&[seed, 6, processes as u64, process as u64]);
    let arrivals = mix(&[seed, 5]);
    let workload = outage.workload();
    let mut service = outage.service();
    let (record, stats) = match quota {
        QuotaKind::PerProcess => {
            let fleet = Fleet::new(processes, 1, |process, _| {
                quota::standard(
                    Arc::new(RetryQuota::new(settings.capacity)),
                    jitter(process),
                )
            });
            let record = driver::run(&workload, &fleet, &mut service, &mut time, arrivals);
            (record, None)
        }
        QuotaKind::Fleet => {
            let leases: Vec<Arc<Lease>> = (0..processes)
                .map(|_| Arc::new(Lease::new(settings.capacity, settings.low_water())))
                .collect();
            let fleet = Fleet::new(processes, 1, |process, _| {
                let store = Arc::clone(&leases[process]);
                quota::standard(Arc::new(RetryQuota::with_store(store)), jitter(process))
            });
            let phases = SeededRandom::new(mix(&[seed, 7, processes as u64]));
            let starts: Vec<f64> = (0..processes)
                .map(|_| phases.unit() * settings.refresh_period)
                .collect();
            let mut refreshers = Refreshers::new(
                settings,
                &leases,
                &starts,
                &[outage.outage_start, outage.recovery()],
                mix(&[seed, 11, processes as u64]),
            );
            let record = driver::run_with(
                &workload,
                &fleet,
                &mut service,
                &mut time,
                arrivals,
                &mut refreshers,
            );
            let end = refreshers.stats();
            let at = |i| refreshers.snapshot(i).unwrap_or(end);
            (record, Some([at(0), at(1), end]))
        }
    };
    let row = summarize(
        &outage,
        &settings,
        processes,
        quota,
        &record,
        stats.as_ref(),
    );
    FleetRun { record, stats, row }
}

/// Every fleet size and quota of `params` (fleet sizes outer, quotas in
/// [`QuotaKind::ALL`] order), on every core (rayon; each run is seeded from
/// its own key, so the result does not depend on the thread), calling
/// `progress` after each run.
#[must_use]
pub fn run_experiment(
    params: &FleetParams,
    seed: u64,
    progress: impl Fn() + Sync,
) -> Vec<FleetRun> {
    let jobs: Vec<(usize, QuotaKind)> = params
        .processes
        .iter()
        .flat_map(|&n| QuotaKind::ALL.map(|quota| (n, quota)))
        .collect();
    run_jobs(
        &jobs,
        |&(processes, quota)| run_case(params, processes, quota, seed),
        progress,
    )
}

fn summarize(
    params: &OutageParams,
    settings: &LeaseSettings,
    processes: usize,
    quota: QuotaKind,
    record: &Record,
    stats: Option<&[FleetStats; 3]>,
) -> FleetRow {
    let timeline = &record.timeline;
    let (start, recovery, end) = (params.outage_start, params.recovery(), params.end());
    let outage = timeline.window(0, start, recovery);
    let whole = timeline.window(0, 0.0, end);
    let after = timeline.window(0, recovery, end);
    let credited = |s: &FleetStats| s.restored + s.refunds_taken;
    let beyond = i64::try_from(outage.retries).unwrap_or(i64::MAX)
        - i64::from(settings.capacity / RETRY_COST);
    FleetRow {
        processes,
        quota,
        retries_outage: outage.retries,
        amplification_outage: ratio(outage.attempts, outage.arrivals),
        amplification: ratio(whole.attempts, whole.arrivals),
        goodput_after: ratio(after.successes, after.arrivals),
        time_to_recover: outage::time_to_recover(record, recovery, params.recovered_share),
        refunds_outage: stats
            .map(|[at_start, at_recovery, _]| credited(at_recovery) - credited(at_start)),
        lease_slack: stats.map(|_| beyond),
        pending_at_outage: stats.map(|[at_start, ..]| at_start.pending),
        processes_with_tokens: stats.map(|[at_start, ..]| at_start.processes_with_tokens),
        store_calls: stats.map(|[.., at_end]| at_end.calls),
    }
}
