//! The fleet rate limiter experiment: `N` adaptive processes share one
//! capacity-limited service; each process's adaptive limiter reacts to its
//! own throttles alone (per-process limiters), or also under its share of
//! a fleet-wide rate (`rebound-redis`'s `FleetLimiter`). What share of the
//! capacity does the fleet get, and how many of its attempts are
//! throttled?
//!
//! # The model
//!
//! * The capacity experiment's service ([`Tables`]): one table admitting
//!   `R` attempts per second (1000) through a bucket of 0.1 s, 429
//!   `ThrottlingException` beyond; its driver and workload: `load × R`
//!   logical requests per second (2R), open-loop Poisson, each to a
//!   uniformly drawn one of the `N` processes (1, 10, 20, 100), each with a
//!   2 s budget; `|Normal(10 ms, 2 ms)|` per message.
//! * Every process runs a real `AdaptiveRetryStrategy` on the run's virtual
//!   clock, blocking for send tokens: botocore's algorithm
//!   ([`AdaptiveRetryStrategy::new`]'s) or [`steady()`](rebound_runtime::AdaptiveRetryStrategyBuilder::steady).
//! * With the fleet limiter, each process's task ([`sharer`], mirroring
//!   `Sharer` in `redis/src/limiter.rs`) exchanges its admitted rate and
//!   new throttles with the store ([`store`], mirroring
//!   `redis/src/lua/limiter.lua`) every refresh period and as soon as its
//!   limiter was throttled, and holds its limiter at the real
//!   `rebound_redis::member_rate` through the real `RateControl`.
//!   Calls are events of the driver's queue ([`driver::run_with`]).
//!
//! # Metrics
//!
//! * **goodput / R** in the steady state (after the start-up window);
//! * **throttled after the first throttle**: the share of the attempts sent
//!   from the second of the run's first throttle to its end that were
//!   throttled; and in the steady state;
//! * fleet limiter only: the time of the store's **first cut** and the
//!   number of cuts.

pub mod limited;
pub mod parts;
pub mod sharer;
pub mod store;

use std::sync::Arc;

use crate::parallel::run_jobs;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};
use rebound_runtime::rate_limiter::RateControl;
use rebound_runtime::time::{Clock, ManualClock};
use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy, StandardRetryStrategy};

use crate::capacity::{CapacityParams, Tables, Window};
use crate::driver::{self, Fleet, Latency, Record};
use crate::rng::mix;
use crate::vclock::VirtualClock;
pub use sharer::{SharerSettings, Sharers};
pub use store::{Cut, LimiterStore};

/// The adaptive strategy every process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Adaptive {
    /// botocore's algorithm (`AdaptiveRetryStrategy::new()`'s, blocking).
    Botocore,
    /// rebound's recommendation (`.steady()`, blocking).
    Steady,
}

/// Whose limits the processes' limiters follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limiters {
    /// Each process's own limiter alone.
    PerProcess,
    /// Each process's limiter held at its share of the fleet's rate.
    Fleet,
}

/// One row: a strategy and whose limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateVariant {
    /// The strategy.
    pub adaptive: Adaptive,
    /// The limits.
    pub limiters: Limiters,
}

impl RateVariant {
    /// Every row, in table order: botocore's two, then steady's.
    pub const ALL: [Self; 4] = [
        Self {
            adaptive: Adaptive::Botocore,
            limiters: Limiters::PerProcess,
        },
        Self {
            adaptive: Adaptive::Botocore,
            limiters: Limiters::Fleet,
        },
        Self {
            adaptive: Adaptive::Steady,
            limiters: Limiters::PerProcess,
        },
        Self {
            adaptive: Adaptive::Steady,
            limiters: Limiters::Fleet,
        },
    ];

    /// The name in tables, CSV and plots.
    #[must_use]
    pub fn name(self) -> &'static str {
        match (self.adaptive, self.limiters) {
            (Adaptive::Botocore, Limiters::PerProcess) => {
                "adaptive (AWS-exact) per-process limiters"
            }
            (Adaptive::Botocore, Limiters::Fleet) => "adaptive (AWS-exact) + fleet limiter",
            (Adaptive::Steady, Limiters::PerProcess) => "adaptive steady per-process limiters",
            (Adaptive::Steady, Limiters::Fleet) => "adaptive steady + fleet limiter",
        }
    }
}

/// The experiment's parameters; [`Default`] is the documented one.
#[derive(Debug, Clone, PartialEq)]
pub struct RateParams {
    /// The fleet sizes compared.
    pub processes: Vec<usize>,
    /// The rows compared, for each fleet size.
    pub variants: Vec<RateVariant>,
    /// Attempts per second the service admits (`R`).
    pub capacity: f64,
    /// Logical requests offered per second, all processes together, in
    /// multiples of `R`.
    pub load: f64,
    /// The service's burst, seconds of its capacity.
    pub burst_secs: f64,
    /// Time budget of each logical request, seconds.
    pub budget: Option<f64>,
    /// Length of a run, seconds.
    pub duration: f64,
    /// The start-up window, seconds; the steady state is the rest.
    pub startup: f64,
    /// Network delay of each message.
    pub latency: Latency,
    /// The fleet limiter's settings.
    pub sharer: SharerSettings,
}

impl Default for RateParams {
    fn default() -> Self {
        let capacity = CapacityParams::default();
        Self {
            processes: vec![1, 10, 20, 100],
            variants: RateVariant::ALL[..2].to_vec(),
            capacity: 1000.0,
            load: 2.0,
            burst_secs: capacity.burst_secs,
            budget: capacity.budget,
            duration: capacity.duration,
            startup: capacity.startup,
            latency: capacity.latency,
            sharer: SharerSettings::default(),
        }
    }
}

impl RateParams {
    /// How many runs [`run_experiment`] makes.
    #[must_use]
    pub fn runs(&self) -> usize {
        self.processes.len() * self.variants.len()
    }
}

/// The summary of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateRow {
    /// Processes.
    pub processes: usize,
    /// The row.
    pub variant: RateVariant,
    /// The start-up window.
    pub startup: Window,
    /// The steady state.
    pub steady: Window,
    /// The share of the attempts sent from the second of the first throttle
    /// on that were throttled.
    pub throttled_after_first: f64,
    /// The start of the second of the run's first throttle.
    pub first_throttle: Option<f64>,
    /// Fleet limiter: when the store first cut, seconds.
    pub first_cut: Option<f64>,
    /// Fleet limiter: the store's cuts.
    pub cuts: Option<u64>,
    /// Fleet limiter: calls to the store.
    pub store_calls: Option<u64>,
}

/// One run: its record (1 s bins) and summary.
#[derive(Debug, Clone, PartialEq)]
pub struct RateRun {
    /// The record.
    pub record: Record,
    /// Fleet limiter: the store as the run left it (`None` for per-process
    /// limiters).
    pub store: Option<LimiterStore>,
    /// The summary.
    pub row: RateRow,
}

/// Process `client`'s strategy, on `clock`, jitter from `seed`.
fn strategy<C: Clock>(adaptive: Adaptive, clock: C, seed: u64) -> AdaptiveRetryStrategy<C> {
    let standard = StandardRetryStrategy::builder()
        .random(SeededRandom::new(seed))
        .build();
    let builder = AdaptiveRetryStrategy::builder(standard).clock(clock);
    match adaptive {
        Adaptive::Botocore => builder.build(),
        Adaptive::Steady => builder.steady().build(),
    }
}

/// Runs `processes` processes as `variant`, every draw determined by
/// `seed`: the arrivals are the same for every row and fleet size, each
/// process's jitter the same for both limits.
#[must_use]
pub fn run_case(params: &RateParams, processes: usize, variant: RateVariant, seed: u64) -> RateRun {
    let service = CapacityParams {
        burst_secs: params.burst_secs,
        budget: params.budget,
        duration: params.duration,
        startup: params.startup,
        latency: params.latency,
        ..CapacityParams::default()
    };
    let workload = service.workload(processes, vec![params.load * params.capacity]);
    let mut time = VirtualClock::new();
    let clock = time.clock();
    let strategies: Vec<Arc<AdaptiveRetryStrategy<ManualClock>>> = (0..processes)
        .map(|process| {
            let jitter = mix(&[seed, 9, processes as u64, process as u64]);
            Arc::new(strategy(variant.adaptive, clock.clone(), jitter))
        })
        .collect();
    let fleet = Fleet::new(processes, 1, |process, _| {
        Arc::clone(&strategies[process]) as Arc<dyn RetryStrategy>
    });
    let mut tables = Tables::new(1, params.capacity, params.capacity * params.burst_secs);
    let arrivals = mix(&[seed, 8]);
    let (record, sharers) = match variant.limiters {
        Limiters::PerProcess => {
            let record = driver::run(&workload, &fleet, &mut tables, &mut time, arrivals);
            (record, None)
        }
        Limiters::Fleet => {
            let controls: Vec<Arc<dyn RateControl>> = strategies
                .iter()
                .map(|s| Arc::clone(s) as Arc<dyn RateControl>)
                .collect();
            let phases = SeededRandom::new(mix(&[seed, 10, processes as u64]));
            let starts: Vec<f64> = (0..processes)
                .map(|_| phases.unit() * params.sharer.refresh_period)
                .collect();
            let mut sharers = Sharers::new(params.sharer, &controls, &starts);
            let record = driver::run_with(
                &workload,
                &fleet,
                &mut tables,
                &mut time,
                arrivals,
                &mut sharers,
            );
            (record, Some(sharers))
        }
    };
    let window = |from, to| Window::of(&record, 0, from, to, params.capacity);
    let timeline = &record.timeline;
    let first_throttle = timeline
        .bins(0)
        .iter()
        .position(|b| b.throttled > 0)
        .map(|i| i as f64 * timeline.width());
    let throttled_after_first =
        first_throttle.map_or(0.0, |from| window(from, params.duration).throttled);
    let row = RateRow {
        processes,
        variant,
        startup: window(0.0, params.startup),
        steady: window(params.startup, params.duration),
        throttled_after_first,
        first_throttle,
        first_cut: sharers.as_ref().and_then(Sharers::first_cut),
        cuts: sharers.as_ref().map(|s| s.store().cuts().len() as u64),
        store_calls: sharers.as_ref().map(|s| s.store().calls()),
    };
    let store = sharers.map(|s| s.store().clone());
    RateRun { record, store, row }
}

/// Every fleet size and row of `params` (fleet sizes outer, then rows), on every core (rayon; each run is seeded
/// from its own key, so the result does not depend on the thread), calling
/// `progress` after each run.
#[must_use]
pub fn run_experiment(params: &RateParams, seed: u64, progress: impl Fn() + Sync) -> Vec<RateRun> {
    let jobs: Vec<(usize, RateVariant)> = params
        .processes
        .iter()
        .flat_map(|&n| params.variants.iter().map(move |&variant| (n, variant)))
        .collect();
    run_jobs(
        &jobs,
        |&(processes, variant)| run_case(params, processes, variant, seed),
        progress,
    )
}
