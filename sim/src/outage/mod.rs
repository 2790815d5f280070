//! The outage-and-recovery experiment: every attempt fails for `T` seconds,
//! then the service recovers, with a finite capacity, under `N` clients that
//! keep sending. Compared: no retries, naive fixed retries, rebound's
//! standard mode and rebound's adaptive mode.
//!
//! # The model
//!
//! * `N` clients (default 100), each with its own strategy (its own retry
//!   quota and rate limiter, as separate processes have); together they
//!   offer `rate` logical requests per second (default 800), open-loop
//!   Poisson arrivals, each to a uniformly drawn client.
//! * The service is down from `outage_start` (10 s, after a warm-up) for
//!   `outage` seconds (10): every attempt gets HTTP 503 (a transient server
//!   fault). Then it recovers with a capacity of `capacity` attempts per
//!   second (1000, so the offered load is 80% of it) and a burst of `burst`
//!   (100 attempts, 0.1 s): an attempt above it is turned away with 503
//!   `SlowDown` (a throttling code, as S3 sheds load) and costs the service
//!   `reject_cost` (0.2) of a served attempt's work ([`ServerCapacity`]).
//! * Each message takes `|Normal(10 ms, 2 ms)|`; the run goes on for
//!   `after` seconds (60) after the recovery.
//!
//! The strategies ([`OutageStrategy`]) are rebound's, configured through
//! their builders, never re-implemented; the event loop is
//! [`driver`]'s loop.
//!
//! # Metrics
//!
//! * **amplification**: attempts sent per logical request arriving, in a
//!   window (during the outage; over the whole run);
//! * **goodput**: logical requests that succeeded per second (counted when
//!   the client gets the success); as a fraction of the logical requests
//!   that arrived, over the whole run and after the recovery;
//! * **time to recover**: the smallest `k` (whole seconds) such that in
//!   every second from `recovery + k` to the end of the run, the successes
//!   are at least 90% of the logical requests that arrived in that second.
//!   Comparing with that second's own arrivals (rather than the mean rate)
//!   keeps the Poisson noise out of it. `None` if it never holds.

mod strategy;

use std::sync::Arc;

pub use strategy::{NAIVE_ATTEMPTS, NAIVE_DELAY, OutageStrategy};

use crate::driver::{self, Answer, Fleet, Latency, Pacing, Record, Service, TraceEvent, Workload};
use crate::rng::mix;
use crate::server::ServerCapacity;
use crate::vclock::VirtualClock;

/// The model's parameters; [`Default`] is the documented one.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageParams {
    /// Clients, each with its own strategy.
    pub clients: usize,
    /// Logical requests per second, all clients together.
    pub rate: f64,
    /// Attempts per second the service serves once recovered.
    pub capacity: f64,
    /// The service's burst, attempts.
    pub burst: f64,
    /// What turning an attempt away costs the service, as a fraction of
    /// serving one.
    pub reject_cost: f64,
    /// When the outage starts, seconds.
    pub outage_start: f64,
    /// How long every attempt fails, seconds (`T`).
    pub outage: f64,
    /// How long the run goes on after the recovery, seconds.
    pub after: f64,
    /// Network delay of each message.
    pub latency: Latency,
    /// Fraction of a second's arrivals that must succeed for the service to
    /// count as recovered (0.9).
    pub recovered_share: f64,
    /// What the service answers during the outage: [`Answer::Unavailable`]
    /// (503, the default) or [`Answer::SlowDown`] (503 `SlowDown`, a
    /// throttle: adaptive mode's rate limiter reacts to it).
    pub outage_answer: Answer,
}

impl Default for OutageParams {
    fn default() -> Self {
        Self {
            clients: 100,
            rate: 800.0,
            capacity: 1000.0,
            burst: 100.0,
            reject_cost: 0.2,
            outage_start: 10.0,
            outage: 10.0,
            after: 60.0,
            latency: Latency {
                mean: 0.010,
                sd: 0.002,
            },
            recovered_share: 0.9,
            outage_answer: Answer::Unavailable,
        }
    }
}

impl OutageParams {
    /// When the service recovers, seconds.
    #[must_use]
    pub fn recovery(&self) -> f64 {
        self.outage_start + self.outage
    }

    /// When the run ends, seconds.
    #[must_use]
    pub fn end(&self) -> f64 {
        self.recovery() + self.after
    }

    /// The clients' workload: `rate` logical requests per second spread
    /// over `clients` clients, arriving until the end, 1 s bins.
    #[must_use]
    pub fn workload(&self) -> Workload {
        Workload {
            clients: self.clients,
            rates: vec![self.rate],
            arrivals_until: self.end(),
            end: self.end(),
            pacing: Pacing::Poisson,
            budget: None,
            latency: self.latency,
            bin: 1.0,
        }
    }

    /// The service: down during the outage, then capacity-limited.
    #[must_use]
    pub fn service(&self) -> OutageService {
        OutageService {
            down: (self.outage_start, self.recovery()),
            answer: self.outage_answer,
            capacity: ServerCapacity::new(self.capacity, self.burst, self.reject_cost),
        }
    }
}

/// The service: down during the outage, then capacity-limited
/// ([`OutageParams::service`]).
#[derive(Debug, Clone)]
pub struct OutageService {
    down: (f64, f64),
    answer: Answer,
    capacity: ServerCapacity,
}

impl Service for OutageService {
    fn answer(&mut self, now: f64, _table: usize, _attempt: u32) -> Answer {
        if now >= self.down.0 && now < self.down.1 {
            self.answer
        } else if self.capacity.admit(now) {
            Answer::Success
        } else {
            Answer::SlowDown
        }
    }
}

/// One strategy's run: what it recorded, and the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageRun {
    /// The strategy.
    pub strategy: OutageStrategy,
    /// The whole record (one table), 1 s bins.
    pub record: Record,
    /// Every attempt and answer of client 0 ([`driver::run_traced`]).
    pub trace: Vec<TraceEvent>,
    /// The summary of the record.
    pub row: OutageRow,
}

/// The summary of one strategy's run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutageRow {
    /// What the service answered during the outage.
    pub outage_answer: Answer,
    /// The strategy.
    pub strategy: OutageStrategy,
    /// Attempts per logical request during the outage.
    pub amplification_outage: f64,
    /// Attempts per logical request over the whole run.
    pub amplification: f64,
    /// Most attempts sent in one second after the recovery, per second.
    pub peak_attempts: f64,
    /// Share of the logical requests that succeeded, whole run.
    pub goodput: f64,
    /// Share of the logical requests that succeeded, from the recovery on
    /// (successes after the recovery over arrivals after it).
    pub goodput_after: f64,
    /// Time to recover (see the [module docs](self)), seconds.
    pub time_to_recover: Option<f64>,
    /// The clients' send rates added up, sampled as the service recovers
    /// (at the end of the outage's last bin); `None` if every limiter was
    /// off.
    pub send_limit_at_recovery: Option<f64>,
    /// Logical requests still going when the run stopped.
    pub unfinished: u64,
}

/// Runs one strategy, every draw determined by `seed`.
#[must_use]
pub fn run_strategy(params: &OutageParams, strategy: OutageStrategy, seed: u64) -> OutageRun {
    let mut time = VirtualClock::new();
    let clock = time.clock();
    let fleet = Fleet::new(params.clients, 1, |client, _| -> Arc<_> {
        strategy.build(
            clock.clone(),
            mix(&[seed, 2, strategy as u64, client as u64]),
        )
    });
    let workload = params.workload();
    let mut service = params.service();
    let (record, trace) = driver::run_traced(
        &workload,
        &fleet,
        &mut service,
        &mut time,
        mix(&[seed, 1, strategy as u64]),
        0,
    );
    let row = summarize(params, strategy, &record);
    OutageRun {
        strategy,
        record,
        trace,
        row,
    }
}

/// Runs every strategy of [`OutageStrategy::ALL`], calling `progress` after
/// each.
#[must_use]
pub fn run_experiment(params: &OutageParams, seed: u64, progress: impl Fn()) -> Vec<OutageRun> {
    OutageStrategy::ALL
        .into_iter()
        .map(|strategy| {
            let run = run_strategy(params, strategy, seed);
            progress();
            run
        })
        .collect()
}

/// `numerator / denominator`, 0 when the denominator is.
#[must_use]
pub fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

fn summarize(params: &OutageParams, strategy: OutageStrategy, record: &Record) -> OutageRow {
    let timeline = &record.timeline;
    let (start, recovery, end) = (params.outage_start, params.recovery(), params.end());
    let outage = timeline.window(0, start, recovery);
    let whole = timeline.window(0, 0.0, end);
    let after = timeline.window(0, recovery, end);
    let peak_attempts = timeline
        .bins(0)
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as f64 * timeline.width() >= recovery)
        .map(|(_, b)| b.attempts as f64 / timeline.width())
        .fold(0.0, f64::max);
    OutageRow {
        outage_answer: params.outage_answer,
        strategy,
        amplification_outage: ratio(outage.attempts, outage.arrivals),
        amplification: ratio(whole.attempts, whole.arrivals),
        peak_attempts,
        goodput: ratio(whole.successes, whole.arrivals),
        goodput_after: ratio(after.successes, after.arrivals),
        time_to_recover: time_to_recover(record, recovery, params.recovered_share),
        send_limit_at_recovery: ((recovery / timeline.width()).ceil() as usize)
            .checked_sub(1)
            .and_then(|last_down| timeline.bins(0).get(last_down))
            .and_then(|bin| bin.send_rate),
        unfinished: record.unfinished,
    }
}

/// The smallest whole number of bins `k` such that every bin starting at
/// or after `recovery + k` bins has successes ≥ `share` × arrivals, as
/// seconds; `None` if even the last bin fails it.
#[must_use]
pub fn time_to_recover(record: &Record, recovery: f64, share: f64) -> Option<f64> {
    let timeline = &record.timeline;
    let width = timeline.width();
    let bins = timeline.bins(0);
    let first = (recovery / width).ceil() as usize;
    let healthy =
        |b: &crate::driver::timeline::Bin| b.successes as f64 >= share * b.arrivals as f64;
    let mut recovered_from = None;
    for index in (first..bins.len()).rev() {
        if healthy(&bins[index]) {
            recovered_from = Some(index);
        } else {
            break;
        }
    }
    recovered_from.map(|index| (index - first) as f64 * width)
}
