//! The capacity-limited service: each table admits `R` attempts per second
//! and throttles the rest (HTTP 429 `ThrottlingException`), while the
//! clients offer two to five times that. Compared: rebound's standard mode,
//! adaptive mode blocking for send tokens (its default) and failing fast,
//! and both with the opt-in of one CUBIC decrease per congestion event
//! ([`cut_once_per_event`](rebound_runtime::AdaptiveRetryStrategyBuilder::cut_once_per_event));
//! then one rate limiter for every table against one per table
//! ([`partitioned`]).
//!
//! # The model
//!
//! * Each table admits `R` attempts per second through a server-side token
//!   bucket holding `burst_secs` (0.1 s) of capacity, full at the start.
//!   Throttling costs the service nothing (a provisioned limit, not
//!   overload).
//! * The clients together offer `k · R` logical requests per second
//!   (`k` = 2, 3, 4, 5), open-loop Poisson, each to a uniformly drawn
//!   client; each client has its own strategy.
//! * Every logical request has a time budget of `budget` seconds (2), as
//!   rebound's `Retry::budget` applies it: a request stops when its next
//!   wait (backoff or send-permit wait) would not end within it. Without
//!   one, the requests that adaptive mode holds back would wait in its line
//!   without end (open-loop callers keep coming).
//! * Each message takes `|Normal(10 ms, 2 ms)|`; a run lasts `duration`
//!   seconds (300). The first `startup` seconds (60) are reported apart
//!   from the steady state that follows.
//! * Cases ([`Case`]): `R` = 100 with one client (one application's SDK
//!   client, what adaptive mode is designed for), `R` = 1000 with one
//!   client (more attempts in flight per round trip), `R` = 100 shared by
//!   ten and by thirty clients.
//!
//! # Metrics (per window: start-up, steady state)
//!
//! * **goodput / R**: successes per second (one per logical request done)
//!   over the table's capacity;
//! * **throttled**: the share of the attempts sent that were throttled;
//! * **attempts per success**: attempts sent over successes;
//! * **gave up**: logical requests given up (by the strategy or the budget)
//!   over those that arrived — with two to five times the capacity offered,
//!   at least `1 - 1/k` of them must;
//! * **send limit**: the mean of the adaptive limiters' rates, sampled each
//!   second while on;
//! * **ramp**: the first second whose successes reach 90% of `R`.

pub mod partitioned;
mod strategy;

pub use partitioned::{PartitionedRow, PartitionedRun, run_partitioned};
pub use strategy::CapacityStrategy;

use crate::parallel::run_jobs;

use crate::driver::{self, Answer, Latency, Pacing, Record, Service, Workload, timeline::Bin};
use crate::rng::mix;
use crate::server::ServerCapacity;
use crate::vclock::VirtualClock;

/// One service size and client count, and the strategies run on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Attempts per second each table admits (`R`).
    pub capacity: f64,
    /// Clients, each with its own strategy.
    pub clients: usize,
    /// The strategies compared.
    pub strategies: Vec<CapacityStrategy>,
}

/// The model's parameters; [`Default`] is the documented one.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityParams {
    /// The cases of the single-table scenario.
    pub cases: Vec<Case>,
    /// The partitioned scenario's case (its strategies are ignored: it runs
    /// [`partitioned::PARTITIONED`]).
    pub partitioned: Case,
    /// Load offered to the partitioned scenario's hot table, multiples of
    /// `R`.
    pub hot_load: f64,
    /// Each table's burst, in seconds of its capacity.
    pub burst_secs: f64,
    /// Offered loads, multiples of `R`.
    pub loads: Vec<f64>,
    /// Time budget of each logical request, seconds, if any.
    pub budget: Option<f64>,
    /// Length of a run, seconds.
    pub duration: f64,
    /// The start-up window, seconds from the start; the steady state is the
    /// rest of the run.
    pub startup: f64,
    /// Network delay of each message.
    pub latency: Latency,
}

impl Default for CapacityParams {
    fn default() -> Self {
        Self {
            cases: vec![
                Case {
                    capacity: 100.0,
                    clients: 1,
                    strategies: CapacityStrategy::SINGLE_TABLE.to_vec(),
                },
                Case {
                    capacity: 1000.0,
                    clients: 1,
                    strategies: CapacityStrategy::SINGLE_TABLE.to_vec(),
                },
                Case {
                    capacity: 100.0,
                    clients: 10,
                    strategies: CapacityStrategy::SINGLE_TABLE.to_vec(),
                },
                Case {
                    capacity: 100.0,
                    clients: 30,
                    strategies: CapacityStrategy::SINGLE_TABLE.to_vec(),
                },
            ],
            partitioned: Case {
                capacity: 100.0,
                clients: 1,
                strategies: Vec::new(),
            },
            hot_load: 3.0,
            burst_secs: 0.1,
            loads: vec![2.0, 3.0, 4.0, 5.0],
            budget: Some(2.0),
            duration: 300.0,
            startup: 60.0,
            latency: Latency {
                mean: 0.010,
                sd: 0.002,
            },
        }
    }
}

impl CapacityParams {
    /// The workload of `clients` clients offering `rates` logical requests
    /// per second to each table.
    #[must_use]
    pub fn workload(&self, clients: usize, rates: Vec<f64>) -> Workload {
        Workload {
            clients,
            rates,
            arrivals_until: self.duration,
            end: self.duration,
            pacing: Pacing::Poisson,
            budget: self.budget,
            latency: self.latency,
            bin: 1.0,
        }
    }

    /// How many runs [`run_experiment`] and [`run_partitioned`] make.
    #[must_use]
    pub fn runs(&self) -> usize {
        let single: usize = self.cases.iter().map(|c| c.strategies.len()).sum();
        single * self.loads.len() + partitioned::PARTITIONED.len()
    }
}

/// Tables that each admit `R` attempts per second and throttle the rest.
#[derive(Debug, Clone)]
pub struct Tables {
    buckets: Vec<ServerCapacity>,
}

impl Tables {
    /// `count` tables of `capacity` attempts per second and a burst of
    /// `burst` attempts.
    #[must_use]
    pub fn new(count: usize, capacity: f64, burst: f64) -> Self {
        Self {
            buckets: vec![ServerCapacity::new(capacity, burst, 0.0); count],
        }
    }
}

impl Service for Tables {
    fn answer(&mut self, now: f64, table: usize, _attempt: u32) -> Answer {
        let admitted = self
            .buckets
            .get_mut(table)
            .is_some_and(|bucket| bucket.admit(now));
        if admitted {
            Answer::Success
        } else {
            Answer::Throttled
        }
    }
}

/// What a window of one table's run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Successes per second over the table's capacity.
    pub goodput: f64,
    /// Share of the attempts sent that were throttled.
    pub throttled: f64,
    /// Attempts sent per success.
    pub attempts_per_success: f64,
    /// Logical requests given up (strategy or budget) over those arrived.
    pub gave_up: f64,
    /// Successes over the logical requests that arrived: the share of the
    /// offered requests served.
    pub served: f64,
    /// Mean client-side send limit over the window's seconds where some
    /// limiter was on, requests per second.
    pub send_limit: Option<f64>,
}

fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

impl Window {
    /// The window `[from, to)` of `table` in `record`, against a capacity of
    /// `capacity` attempts per second.
    #[must_use]
    pub fn of(record: &Record, table: usize, from: f64, to: f64, capacity: f64) -> Self {
        let timeline = &record.timeline;
        let sum: Bin = timeline.window(table, from, to);
        let seconds = (to - from).max(f64::MIN_POSITIVE);
        let limits: Vec<f64> = timeline
            .bins(table)
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let start = *i as f64 * timeline.width();
                start >= from && start < to
            })
            .filter_map(|(_, b)| b.send_rate)
            .collect();
        Self {
            goodput: sum.successes as f64 / seconds / capacity.max(f64::MIN_POSITIVE),
            throttled: ratio(sum.throttled, sum.attempts),
            attempts_per_success: ratio(sum.attempts, sum.successes),
            gave_up: ratio(sum.gave_up, sum.arrivals),
            served: ratio(sum.successes, sum.arrivals),
            send_limit: (!limits.is_empty())
                .then(|| limits.iter().sum::<f64>() / limits.len() as f64),
        }
    }
}

/// The start of the first bin of `table` whose successes reach `share` of
/// `capacity` per second, seconds; `None` if none does.
#[must_use]
pub fn ramp(record: &Record, table: usize, capacity: f64, share: f64) -> Option<f64> {
    let timeline = &record.timeline;
    let needed = share * capacity * timeline.width();
    timeline
        .bins(table)
        .iter()
        .position(|b| b.successes as f64 >= needed)
        .map(|i| i as f64 * timeline.width())
}

/// One (case, load, strategy) run of the single-table scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityRun {
    /// The summary.
    pub row: CapacityRow,
    /// The whole record (one table), 1 s bins.
    pub record: Record,
}

/// The summary of one (case, load, strategy) run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapacityRow {
    /// The table's capacity, `R`.
    pub capacity: f64,
    /// Clients.
    pub clients: usize,
    /// Offered load, multiples of `R`.
    pub load: f64,
    /// The strategy.
    pub strategy: CapacityStrategy,
    /// The start-up window.
    pub startup: Window,
    /// The steady state.
    pub steady: Window,
    /// The first second whose successes reach 90% of `R` ([`ramp`]).
    pub ramp: Option<f64>,
    /// Logical requests still going at the end of the run (waiting in a
    /// rate limiter's line, mostly).
    pub unfinished: u64,
}

/// Runs `strategy` on `case` at `load` × `R`, every draw determined by
/// `seed`. The arrivals do not depend on the strategy, so strategies are
/// compared on the same requests.
#[must_use]
pub fn run_load(
    params: &CapacityParams,
    case: &Case,
    load: f64,
    strategy: CapacityStrategy,
    seed: u64,
) -> CapacityRun {
    let key = [
        seed,
        case.capacity.to_bits(),
        case.clients as u64,
        load.to_bits(),
    ];
    let mut time = VirtualClock::new();
    let fleet = strategy.fleet(case.clients, 1, &time.clock(), |client| {
        mix(&[mix(&key), 2, strategy as u64, client as u64])
    });
    let mut tables = Tables::new(1, case.capacity, case.capacity * params.burst_secs);
    let record = driver::run(
        &params.workload(case.clients, vec![load * case.capacity]),
        &fleet,
        &mut tables,
        &mut time,
        mix(&[mix(&key), 1]),
    );
    let window = |from, to| Window::of(&record, 0, from, to, case.capacity);
    let row = CapacityRow {
        capacity: case.capacity,
        clients: case.clients,
        load,
        strategy,
        startup: window(0.0, params.startup),
        steady: window(params.startup, params.duration),
        ramp: ramp(&record, 0, case.capacity, 0.9),
        unfinished: record.unfinished,
    };
    CapacityRun { row, record }
}

/// Runs every case, load and strategy of `params` (results in that order:
/// cases outer, then loads, then strategies) on every core (rayon; each run
/// is seeded from its own key and owns its clock and strategies, so the
/// result does not depend on which thread ran it), calling `progress` after
/// each run.
#[must_use]
pub fn run_experiment(
    params: &CapacityParams,
    seed: u64,
    progress: impl Fn() + Sync,
) -> Vec<CapacityRun> {
    let mut jobs = Vec::new();
    for case in &params.cases {
        for &load in &params.loads {
            for &strategy in &case.strategies {
                jobs.push((case, load, strategy));
            }
        }
    }
    run_jobs(
        &jobs,
        |&(case, load, strategy)| run_load(params, case, load, strategy, seed),
        progress,
    )
}
