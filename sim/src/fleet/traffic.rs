//! Background failures before an outage: does a fleet quota that went
//! through traffic with failing first attempts still hold the fleet to
//! `capacity / 5` retries when the service goes down? The model of
//! `redis/tests/outage_after_traffic.rs`, which runs it with OS processes on
//! a real `redis-server`, so that the two can be compared.
//!
//! # The model
//!
//! * `N` processes (1, 20, 50), each a [`Lease`] of one fleet quota
//!   ([`LeaseSettings`]: capacity 500, leases of 25, refresh every TTL / 3
//!   = 1/3 s, the test's settings) under the real
//!   [`StandardRetryStrategy`](rebound_runtime::StandardRetryStrategy)
//!   ([`quota::standard`]: full jitter from 1 s, 3 attempts, a retry costs
//!   5, a success refunds 1 or the retry's 5). The refreshers start at
//!   seeded times within the first refresh period and hold leases for
//!   [`lead`](TrafficParams::lead) seconds before the traffic starts, as the
//!   test's processes join the fleet before its go signal.
//! * The fleet offers 4000 requests/s in all: each process starts one every
//!   `N / 4000` s ([`Pacing::Every`]), from a seeded time within the 5 ms the
//!   children poll the go signal at. Each request is a task of its own, so
//!   requests overlap; the attempts reach the service at once (the test's
//!   operation is a closure in the process).
//! * The service: for 1.5 s a request's first attempt fails with
//!   probability `p` (5% or 20%; the requests so drawn are table 0, the
//!   others table 1) and its retries succeed; then for 2 s every attempt
//!   fails (503). Arrivals stop with the outage, and the requests still
//!   under way are waited for (failing).
//! * The store's calls take [`round_trip`](LeaseSettings::round_trip) there
//!   and back; the store never fails and no lease lapses.
//!
//! # Metrics
//!
//! * The retries granted from the outage's start on, the fleet's total (the
//!   test's `on_retry` hook counting once the clock is past the outage's
//!   start): [`Bin::granted`](crate::driver::timeline::Bin::granted).
//! * The requests refused a retry in the healthy phase (the test prints
//!   them too): a failed first attempt whose retry the quota refused, when
//!   a retry would have succeeded.

use std::sync::Arc;

use crate::parallel::run_jobs;
use rebound_runtime::RetryQuota;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};

use super::lease::Lease;
use super::quota;
use super::refresher::{FleetStats, Refreshers};
use super::settings::LeaseSettings;
use crate::driver::{self, Answer, Fleet, Latency, Pacing, Service, Workload};
use crate::rng::mix;
use crate::vclock::VirtualClock;

/// The scenario's parameters; [`Default`] is the test's.
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficParams {
    /// The fleet sizes compared.
    pub processes: Vec<usize>,
    /// The shares of the healthy phase's first attempts that fail.
    pub failing: Vec<f64>,
    /// Requests per second, the fleet's total.
    pub rate: f64,
    /// Seconds the leases are held before the traffic starts.
    pub lead: f64,
    /// Seconds of the healthy phase.
    pub healthy: f64,
    /// Seconds of the outage.
    pub outage: f64,
    /// Seconds after the last arrival for the requests under way to end.
    pub drain: f64,
    /// Seconds over which the processes' first requests spread.
    pub start_spread: f64,
    /// The fleet quota's settings.
    pub lease: LeaseSettings,
    /// Runs of each case, seeds `seed..seed + runs`.
    pub runs: u64,
}

impl Default for TrafficParams {
    fn default() -> Self {
        Self {
            processes: vec![1, 20, 50],
            failing: vec![0.05, 0.20],
            rate: 4000.0,
            lead: 1.5,
            healthy: 1.5,
            outage: 2.0,
            drain: 4.0,
            start_spread: 0.005,
            lease: LeaseSettings {
                refresh_period: 1.0 / 3.0,
                ..LeaseSettings::default()
            },
            runs: 10,
        }
    }
}

impl TrafficParams {
    /// When the outage starts, seconds.
    #[must_use]
    pub fn outage_start(&self) -> f64 {
        self.lead + self.healthy
    }

    /// How many runs [`run_experiment`] makes.
    #[must_use]
    pub fn run_count(&self) -> usize {
        self.processes.len() * self.failing.len() * self.runs as usize
    }
}

/// The service of the scenario: first attempts of table 0 fail while
/// healthy; everything fails from the outage on.
#[derive(Debug, Clone, Copy)]
struct TrafficService {
    outage_start: f64,
}

impl Service for TrafficService {
    fn answer(&mut self, now: f64, table: usize, attempt: u32) -> Answer {
        if now >= self.outage_start || (table == 0 && attempt == 1) {
            Answer::Unavailable
        } else {
            Answer::Success
        }
    }
}

/// One run's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrafficRun {
    /// Processes.
    pub processes: usize,
    /// The share of first attempts failing while healthy.
    pub failing: f64,
    /// The run's seed.
    pub seed: u64,
    /// Retries granted from the outage's start on.
    pub outage_retries: u64,
    /// Retries granted in the healthy phase.
    pub healthy_retries: u64,
    /// Requests that arrived in the healthy phase.
    pub healthy_requests: u64,
    /// Requests the quota refused a retry in the healthy phase (their
    /// first attempt failed; a retry would have succeeded).
    pub healthy_refused: u64,
    /// The fleet's counts when the outage started.
    pub at_outage: FleetStats,
}

/// One run of `processes` processes with `failing` of the first attempts
/// failing while healthy, every draw determined by `seed`.
#[must_use]
pub fn run_case(params: &TrafficParams, processes: usize, failing: f64, seed: u64) -> TrafficRun {
    let settings = params.lease;
    let outage_start = params.outage_start();
    let arrivals_until = outage_start + params.outage;
    let workload = Workload {
        clients: processes,
        rates: vec![params.rate * failing, params.rate * (1.0 - failing)],
        pacing: Pacing::Every {
            interval: processes as f64 / params.rate,
            start: params.lead,
            spread: params.start_spread,
        },
        arrivals_until,
        end: arrivals_until + params.drain,
        budget: None,
        latency: Latency { mean: 0.0, sd: 0.0 },
        bin: 0.5,
    };
    let leases: Vec<Arc<Lease>> = (0..processes)
        .map(|_| Arc::new(Lease::new(settings.capacity, settings.low_water())))
        .collect();
    // One strategy per process, serving both tables.
    let strategies: Vec<_> = leases
        .iter()
        .enumerate()
        .map(|(process, lease)| {
            let store = Arc::clone(lease);
            let jitter = mix(&[seed, 12, processes as u64, process as u64]);
            quota::standard(Arc::new(RetryQuota::with_store(store)), jitter)
        })
        .collect();
    let fleet = Fleet::new(processes, 2, |process, _| Arc::clone(&strategies[process]));
    let phases = SeededRandom::new(mix(&[seed, 13, processes as u64]));
    let starts: Vec<f64> = (0..processes)
        .map(|_| phases.unit() * settings.refresh_period)
        .collect();
    let mut refreshers = Refreshers::new(
        settings,
        &leases,
        &starts,
        &[outage_start],
        mix(&[seed, 14, processes as u64]),
    );
    let mut service = TrafficService { outage_start };
    let record = driver::run_with(
        &workload,
        &fleet,
        &mut service,
        &mut VirtualClock::new(),
        mix(&[seed, 15]),
        &mut refreshers,
    );
    let timeline = &record.timeline;
    TrafficRun {
        processes,
        failing,
        seed,
        outage_retries: timeline.window_all(outage_start, workload.end).granted,
        healthy_retries: timeline.window_all(params.lead, outage_start).granted,
        healthy_requests: timeline.window_all(params.lead, outage_start).arrivals,
        healthy_refused: timeline.window(0, params.lead, outage_start).gave_up,
        at_outage: refreshers.snapshot(0).unwrap_or_else(|| refreshers.stats()),
    }
}

/// Every case of `params` (fleet sizes outer, then shares failing, then
/// seeds from `seed` on), on every core (rayon; each run is seeded from its
/// own key), calling `progress` after each run.
#[must_use]
pub fn run_experiment(
    params: &TrafficParams,
    seed: u64,
    progress: impl Fn() + Sync,
) -> Vec<TrafficRun> {
    let jobs: Vec<(usize, f64, u64)> = params
        .processes
        .iter()
        .flat_map(|&n| {
            params
                .failing
                .iter()
                .flat_map(move |&p| (0..params.runs).map(move |i| (n, p, seed + i)))
        })
        .collect();
    run_jobs(
        &jobs,
        |&(processes, failing, seed)| run_case(params, processes, failing, seed),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_retries_what_its_quota_pays_for() {
        let params = TrafficParams {
            healthy: 0.5,
            outage: 1.0,
            drain: 3.0,
            ..TrafficParams::default()
        };
        let run = run_case(&params, 1, 0.05, 1);
        assert!(run.healthy_retries > 50, "{run:?}");
        assert!(run.healthy_requests > 1900, "{run:?}");
        assert_eq!(run.healthy_refused, 0, "a full quota of 500: {run:?}");
        assert!((95..=101).contains(&run.outage_retries), "{run:?}");
    }
}
