//! Throttling from the first request: ten adaptive processes, joined to one
//! fleet rate limiter or each on its own, offer twice what one service
//! admits. The model of `redis/tests/limiter_processes.rs`, which runs it
//! with OS processes on a real `redis-server`, so that the two can be
//! compared; [`parts`](super::parts) runs the test's fleets whose members
//! differ or change on the same model ([`run_processes`]).
//!
//! # The model
//!
//! * 10 processes, each a real `AdaptiveRetryStrategy` with its defaults
//!   (botocore's algorithm, blocking, on the standard strategy: full jitter
//!   from 1 s, 3 attempts) on the run's virtual clock; with the fleet
//!   limiter, each also runs its [`Sharers`] task (the real
//!   `member_rate`, `FleetQuotaConfig`'s defaults: an exchange every 1 s).
//!   The tasks start at seeded times within the
//!   [`lead`](LimitedParams::lead) seconds before the traffic starts and
//!   exchange until it does (the test's children start theirs at the go
//!   signal, with their traffic, as [`parts`](super::parts) has it).
//! * Each process runs 4 loops, each starting a request on a 50 ms tick and
//!   waiting for it to end before the next ([`Pacing::Loops`]): 80 requests/s
//!   a process while requests are quick, 800/s in all. Each loop's first
//!   tick is at a seeded point of its first 50 ms.
//! * The service: a counter of fixed 100 ms windows (of the store's clock:
//!   a seeded phase against the go signal) admitting 40 requests per window
//!   (400/s) and throttling the rest (429 `ThrottlingException`), from the
//!   first request (cold) or from 3 s on (warm); `|Normal(0.5 ms, 0.1 ms)|`
//!   per message (a script call to a local Redis).
//!
//! # Metrics
//!
//! Per second of the 20 s run, the requests admitted and throttled; from
//! them, as the test computes them: the admitted rate averaged over the
//! last 10 s and over the whole run, and the share of the attempts
//! throttled over the whole run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::parallel::run_jobs;
use rebound_runtime::backoff::{RandomSource as _, SeededRandom};
use rebound_runtime::rate_limiter::RateControl;
use rebound_runtime::time::{Clock, ManualClock};
use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy};

use super::sharer::{SharerSettings, Sharers};
use super::{Adaptive, strategy};
use crate::driver::{self, Answer, Fleet, Latency, Loops, Pacing, Service, Workload};
use crate::rng::mix;
use crate::vclock::VirtualClock;

/// How the service and the processes start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    /// Throttling from the first request, with the fleet limiter.
    Cold,
    /// Admitting everything for the first 3 s, with the fleet limiter.
    Warm,
    /// Throttling from the first request; each process on its own limiter.
    Alone,
}

impl Start {
    /// The three, in table order.
    pub const ALL: [Self; 3] = [Self::Cold, Self::Warm, Self::Alone];

    /// The name in tables (the test's).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cold => "cold",
            Self::Warm => "warm",
            Self::Alone => "alone",
        }
    }
}

/// The scenario's parameters; [`Default`] is the test's. The service's,
/// the run's and the limiter's apply to [`parts`](super::parts) too; the
/// processes', their loops' and their joins' are the even fleets' alone.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitedParams {
    /// Processes.
    pub processes: usize,
    /// Loops per process.
    pub tasks: usize,
    /// Seconds between two ticks of a loop.
    pub period: f64,
    /// Requests the service admits per window.
    pub admitted: u32,
    /// Seconds of one window of the service.
    pub window: f64,
    /// Seconds the warm service admits everything.
    pub warm: f64,
    /// Seconds of the run, from the go signal.
    pub duration: f64,
    /// When the traffic starts (the go signal), seconds: the even fleets'
    /// limiter tasks start within the lead before it.
    pub lead: f64,
    /// Seconds before the traffic starts within which the processes join
    /// the fleet (their first exchange), at seeded times; at most
    /// [`lead`](Self::lead).
    pub join_spread: f64,
    /// Seconds over which the loops' first requests spread (each loop at its
    /// own seeded time, as the test's tasks start at their own point of their
    /// tick).
    pub start_spread: f64,
    /// Network delay of each message.
    pub latency: Latency,
    /// The fleet limiter's settings.
    pub sharer: SharerSettings,
    /// Runs of each start, seeds `seed..seed + runs`.
    pub runs: u64,
}

impl LimitedParams {
    /// The same scenario with `processes` processes, the fleet still offering
    /// twice the admitted rate (each loop's period scaled), as the test runs
    /// its 50-process cases.
    #[must_use]
    pub fn with_processes(&self, processes: usize) -> Self {
        let offered = 2.0 * self.admitted_rate();
        Self {
            processes,
            period: (self.tasks * processes) as f64 / offered,
            ..self.clone()
        }
    }
}

impl Default for LimitedParams {
    fn default() -> Self {
        Self {
            processes: 10,
            tasks: 4,
            period: 0.05,
            admitted: 40,
            window: 0.1,
            warm: 3.0,
            duration: 20.0,
            lead: 1.0,
            join_spread: 1.0,
            start_spread: 0.05,
            latency: Latency {
                mean: 0.0005,
                sd: 0.0001,
            },
            sharer: SharerSettings::default(),
            runs: 10,
        }
    }
}

impl LimitedParams {
    /// Requests per second the service admits.
    #[must_use]
    pub fn admitted_rate(&self) -> f64 {
        f64::from(self.admitted) / self.window
    }

    /// How many runs [`run_experiment`] makes.
    #[must_use]
    pub fn run_count(&self) -> usize {
        Start::ALL.len() * self.runs as usize
    }
}

/// The service: `limit` requests per fixed window of `width` seconds from
/// `from` on, everything before.
#[derive(Debug, Clone, Copy)]
struct FixedWindow {
    limit: u32,
    width: f64,
    /// The windows' phase: window `i` is `[i * width - phase, ...)`.
    phase: f64,
    from: f64,
    /// The current window and its count.
    current: (i64, u32),
}

impl Service for FixedWindow {
    fn answer(&mut self, now: f64, _table: usize, _attempt: u32) -> Answer {
        let window = ((now + self.phase) / self.width).floor() as i64;
        if window != self.current.0 {
            self.current = (window, 0);
        }
        self.current.1 += 1;
        if now >= self.from && self.current.1 > self.limit {
            Answer::Throttled
        } else {
            Answer::Success
        }
    }
}

/// The run's clock as a process started at `from` reads it: a strategy
/// built on it at time 0 measures its time from `from`, as one the process
/// makes when it starts.
#[derive(Debug, Clone)]
pub struct ProcessClock {
    clock: ManualClock,
    from: Instant,
}

impl ProcessClock {
    /// `clock` (at time 0) for a process that starts `from` seconds on.
    #[must_use]
    pub fn new(clock: &ManualClock, from: f64) -> Self {
        Self {
            clock: clock.clone(),
            from: clock.now() + Duration::from_secs_f64(from.max(0.0)),
        }
    }
}

impl Clock for ProcessClock {
    fn now(&self) -> Instant {
        self.clock.now().max(self.from)
    }
}

/// A run's processes and service, drawn: what [`run_processes`] runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// Each process's loops (their table: the index of its group).
    pub loops: Vec<Loops>,
    /// The groups, in table order.
    pub groups: Vec<&'static str>,
    /// When each process starts, seconds: its strategy's time starts then.
    pub starts: Vec<f64>,
    /// With the fleet limiter, when each process's task starts (its first
    /// exchange), seconds; `None`: per-process limiters.
    pub joins: Option<Vec<f64>>,
    /// The phase of the service's windows, seconds.
    pub phase: f64,
    /// When the service starts throttling, seconds.
    pub throttle_from: f64,
}

/// One group's requests, per second of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSeconds {
    /// The group.
    pub group: &'static str,
    /// Requests admitted, per second.
    pub admitted: Vec<u64>,
    /// Requests throttled, per second.
    pub throttled: Vec<u64>,
}

/// Runs `setup` against the service of `params`, the traffic from
/// [`lead`](LimitedParams::lead) on for [`duration`](LimitedParams::duration)
/// seconds (the test's go signal and run), every other draw determined by
/// `seed`; the requests of each group per second of the run.
#[must_use]
pub fn run_processes(params: &LimitedParams, setup: &Setup, seed: u64) -> Vec<GroupSeconds> {
    let go = params.lead;
    let processes = setup.loops.len();
    let workload = Workload {
        clients: processes,
        rates: vec![1.0; setup.groups.len()],
        pacing: Pacing::Loops(setup.loops.clone()),
        arrivals_until: go + params.duration,
        end: go + params.duration,
        budget: None,
        latency: params.latency,
        bin: 1.0,
    };
    let mut time = VirtualClock::new();
    let clock = time.clock();
    let strategies: Vec<Arc<AdaptiveRetryStrategy<ProcessClock>>> = (0..processes)
        .map(|process| {
            let jitter = mix(&[seed, 16, process as u64]);
            let from = setup.starts.get(process).copied().unwrap_or(0.0);
            let clock = ProcessClock::new(&clock, from);
            Arc::new(strategy(Adaptive::Botocore, clock, jitter))
        })
        .collect();
    let fleet = Fleet::new(processes, setup.groups.len(), |process, _| {
        Arc::clone(&strategies[process]) as Arc<dyn RetryStrategy>
    });
    let mut service = FixedWindow {
        limit: params.admitted,
        width: params.window,
        phase: setup.phase,
        from: setup.throttle_from,
        current: (i64::MIN, 0),
    };
    let arrivals = mix(&[seed, 18]);
    let record = match &setup.joins {
        None => driver::run(&workload, &fleet, &mut service, &mut time, arrivals),
        Some(joins) => {
            let controls: Vec<Arc<dyn RateControl>> = strategies
                .iter()
                .map(|s| Arc::clone(s) as Arc<dyn RateControl>)
                .collect();
            let mut sharers = Sharers::new(params.sharer, &controls, joins);
            driver::run_with(
                &workload,
                &fleet,
                &mut service,
                &mut time,
                arrivals,
                &mut sharers,
            )
        }
    };
    let seconds = params.duration as usize;
    let skip = go as usize;
    setup
        .groups
        .iter()
        .enumerate()
        .map(|(table, &group)| {
            let bins = record.timeline.bins(table);
            let per_second = |f: fn(&driver::timeline::Bin) -> u64| -> Vec<u64> {
                bins.iter().skip(skip).take(seconds).map(f).collect()
            };
            GroupSeconds {
                group,
                admitted: per_second(|b| b.successes),
                throttled: per_second(|b| b.throttled),
            }
        })
        .collect()
}

/// One run's figures, per second of the run as the test counts them.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitedRun {
    /// Processes in the fleet.
    pub processes: usize,
    /// The start.
    pub start: Start,
    /// The run's seed.
    pub seed: u64,
    /// Requests admitted, per second.
    pub admitted: Vec<u64>,
    /// Requests throttled, per second.
    pub throttled: Vec<u64>,
}

impl LimitedRun {
    /// Requests admitted per second over the last `seconds` seconds.
    #[must_use]
    pub fn last(&self, seconds: usize) -> f64 {
        let from = self.admitted.len().saturating_sub(seconds);
        let sum: u64 = self.admitted[from..].iter().sum();
        sum as f64 / seconds.max(1) as f64
    }

    /// Requests admitted per second over the whole run.
    #[must_use]
    pub fn whole(&self) -> f64 {
        let sum: u64 = self.admitted.iter().sum();
        sum as f64 / self.admitted.len().max(1) as f64
    }

    /// The share of the requests sent that were throttled.
    #[must_use]
    pub fn throttled_share(&self) -> f64 {
        let throttled: u64 = self.throttled.iter().sum();
        let sent = throttled + self.admitted.iter().sum::<u64>();
        throttled as f64 / sent.max(1) as f64
    }
}

/// One run of `start`, every draw determined by `seed`.
#[must_use]
pub fn run_case(params: &LimitedParams, start: Start, seed: u64) -> LimitedRun {
    let go = params.lead;
    let draws = SeededRandom::new(mix(&[seed, 17]));
    let phase = draws.unit() * params.window;
    let joins = (start != Start::Alone).then(|| {
        (0..params.processes)
            .map(|_| go - draws.unit() * params.join_spread.min(go))
            .collect()
    });
    let loops = Loops {
        tasks: params.tasks,
        period: params.period,
        start: go,
        spread: params.start_spread,
        until: go + params.duration,
        table: 0,
    };
    let setup = Setup {
        loops: vec![loops; params.processes],
        groups: vec!["all"],
        starts: vec![0.0; params.processes],
        joins,
        phase,
        throttle_from: if start == Start::Warm {
            go + params.warm
        } else {
            0.0
        },
    };
    let all = run_processes(params, &setup, seed).swap_remove(0);
    LimitedRun {
        processes: params.processes,
        start,
        seed,
        admitted: all.admitted,
        throttled: all.throttled,
    }
}

/// Every start of `params` ([`Start::ALL`] order, then seeds from `seed`
/// on), on every core (rayon; each run is seeded from its own key), calling
/// `progress` after each run.
#[must_use]
pub fn run_experiment(
    params: &LimitedParams,
    seed: u64,
    progress: impl Fn() + Sync,
) -> Vec<LimitedRun> {
    let jobs: Vec<(Start, u64)> = Start::ALL
        .iter()
        .flat_map(|&start| (0..params.runs).map(move |i| (start, seed + i)))
        .collect();
    run_jobs(
        &jobs,
        |&(start, seed)| run_case(params, start, seed),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_admits_a_window_s_worth() {
        let mut service = FixedWindow {
            limit: 2,
            width: 0.1,
            phase: 0.0,
            from: 0.0,
            current: (i64::MIN, 0),
        };
        let answers: Vec<_> = [0.01, 0.02, 0.03, 0.11, 0.12]
            .iter()
            .map(|&t| service.answer(t, 0, 1))
            .collect();
        assert_eq!(
            answers,
            [
                Answer::Success,
                Answer::Success,
                Answer::Throttled,
                Answer::Success,
                Answer::Success
            ]
        );
    }

    #[test]
    fn a_short_cold_run_throttles_and_admits() {
        let params = LimitedParams {
            duration: 3.0,
            ..LimitedParams::default()
        };
        let run = run_case(&params, Start::Cold, 1);
        assert_eq!(run.admitted.len(), 3);
        assert!(run.admitted.iter().all(|&n| n <= 200), "{run:?}");
        assert!(run.throttled_share() > 0.0, "{run:?}");
    }
}
