//! What a metrics dashboard shows of an outage: one adaptive client through
//! a throttling outage, each request driven by rebound's public driver
//! ([`rebound_runtime::driver`]) with a [`RetryObserver`] as its listener, and
//! the observer read once a virtual second, as a meter would collect it. The
//! figure is built from the instruments (the observer's counters, gauges and
//! retries histogram), not from the simulator's own bookkeeping.
//!
//! # The model
//!
//! * One client, `rate` logical requests per second (default 200), open-loop
//!   Poisson arrivals, an [`AdaptiveRetryStrategy`] with its defaults, and a
//!   time budget of `budget` seconds per request (5): a request that would
//!   wait past it gives up.
//! * The service throttles every attempt (503 `SlowDown`) from
//!   `outage_start` (10 s) for `outage` seconds (10); otherwise it serves
//!   `capacity` attempts per second (300) with a burst of a tenth of that,
//!   and throttles the rest.
//! * Each message takes `|Normal(10 ms, 2 ms)|`; the run ends `after`
//!   seconds (30) after the recovery.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rebound_runtime::backoff::SeededRandom;
use rebound_runtime::driver::{AfterFailure, Attempt, Next, RequestLoop};
use rebound_runtime::observe::{Counts, FailureKind, Outcome, Recorder, RetryObserver};
use rebound_runtime::time::ManualClock;
use rebound_runtime::{AdaptiveRetryStrategy, Retry, StandardRetryStrategy};

use crate::driver::Answer;
use crate::event_queue::EventQueue;
use crate::rng::{exponential, mix, normal};
use crate::server::ServerCapacity;
use crate::vclock::VirtualClock;

/// The model's parameters; [`Default`] is the documented one.
#[derive(Debug, Clone, PartialEq)]
pub struct DashboardParams {
    /// Logical requests per second.
    pub rate: f64,
    /// Attempts per second the service serves outside the outage.
    pub capacity: f64,
    /// When the outage starts, seconds.
    pub outage_start: f64,
    /// How long every attempt is throttled, seconds.
    pub outage: f64,
    /// How long the run goes on after the recovery, seconds.
    pub after: f64,
    /// Each request's time budget, seconds.
    pub budget: f64,
}

impl Default for DashboardParams {
    fn default() -> Self {
        Self {
            rate: 200.0,
            capacity: 300.0,
            outage_start: 10.0,
            outage: 10.0,
            after: 30.0,
            budget: 5.0,
        }
    }
}

impl DashboardParams {
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
}

/// One collection of the observer, at the end of second `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The end of the second, virtual seconds.
    pub t: f64,
    /// `rebound.limiter.fill_rate`, while the limiter is on.
    pub fill_rate: Option<f64>,
    /// `rebound.limiter.measured_rate`, while the limiter is on.
    pub measured_rate: Option<f64>,
    /// `rebound.quota.available`.
    pub quota: u64,
    /// Attempts that ended in the second (`rebound.client.attempts`).
    pub attempts: u64,
    /// Throttled attempts in the second.
    pub throttled: u64,
    /// Retries of the requests that ended in the second (the sum of
    /// `rebound.client.request.retries`).
    pub retries: u64,
    /// Requests that gave up in the second (`rebound.client.give_ups`).
    pub give_ups: u64,
}

/// The retries histogram's sum, as a meter keeps it.
#[derive(Debug, Default)]
struct RetriesSum(AtomicU64);

impl Recorder for RetriesSum {
    fn retries(&self, retries: u32) {
        self.0.fetch_add(retries.into(), Ordering::Relaxed);
    }
}

type Observer = Arc<RetryObserver<RetriesSum>>;
type Strategy = AdaptiveRetryStrategy<ManualClock>;
type Loop = RequestLoop<Strategy, ManualClock, Observer>;

enum Event {
    Arrive,
    /// The wait of request `.0` is over.
    Wake(usize),
    /// Request `.0`'s attempt reaches the service.
    Reach(usize),
    /// Request `.0`'s attempt comes back with the answer.
    Respond(usize, Answer),
    /// The meter collects.
    Collect,
}

enum State {
    Waiting(Loop),
    Sending(Attempt<Strategy, ManualClock, Observer>),
}

/// Runs the model, seeded by `seed`: one [`Sample`] per virtual second.
#[must_use]
pub fn run(params: &DashboardParams, seed: u64) -> Vec<Sample> {
    let mut time = VirtualClock::new();
    let standard = StandardRetryStrategy::builder()
        .random(SeededRandom::new(mix(&[seed, 7, 1])))
        .build();
    let strategy = AdaptiveRetryStrategy::builder(standard)
        .clock(time.clock())
        .build();
    let observer = Arc::new(RetryObserver::with_recorder("sim", RetriesSum::default()));
    observer.watch(strategy.clone());
    let retry = Retry::new(strategy)
        .clock(time.clock())
        .budget(Duration::from_secs_f64(params.budget))
        .listener(Arc::clone(&observer));
    let arrivals = SeededRandom::new(mix(&[seed, 7, 2]));
    let network = SeededRandom::new(mix(&[seed, 7, 3]));
    let latency = || normal(&network, 0.010, 0.002).abs();
    let mut server = ServerCapacity::new(params.capacity, params.capacity / 10.0, 0.0);

    let mut queue = EventQueue::new();
    let mut requests: Vec<Option<State>> = Vec::new();
    queue.schedule(exponential(&arrivals, params.rate), Event::Arrive);
    queue.schedule(1.0, Event::Collect);
    let mut samples = Vec::new();
    let mut last = (Counts::default(), 0);
    while let Some((now, event)) = queue.pop() {
        if now > params.end() {
            break;
        }
        time.set(now);
        let next = match event {
            Event::Arrive => {
                queue.schedule(now + exponential(&arrivals, params.rate), Event::Arrive);
                requests.push(None);
                Some((requests.len() - 1, retry.clone().into_request()))
            }
            Event::Wake(id) => match requests[id].take() {
                Some(State::Waiting(pending)) => Some((id, pending)),
                _ => None,
            },
            Event::Reach(id) => {
                let down = (params.outage_start..params.recovery()).contains(&now);
                let answer = if !down && server.admit(now) {
                    Answer::Success
                } else {
                    Answer::SlowDown
                };
                queue.schedule(now + latency(), Event::Respond(id, answer));
                None
            }
            Event::Respond(id, answer) => match (requests[id].take(), answer.failure()) {
                (Some(State::Sending(attempt)), None) => {
                    attempt.succeeded();
                    None
                }
                (Some(State::Sending(attempt)), Some(failure)) => match attempt.failed(&failure) {
                    AfterFailure::Retry(pending) => Some((id, pending)),
                    AfterFailure::Stop(_) => None,
                },
                _ => None,
            },
            Event::Collect => {
                queue.schedule(now + 1.0, Event::Collect);
                samples.push(collect(now, &observer, &mut last));
                None
            }
        };
        if let Some((id, pending)) = next {
            requests[id] = match pending.next() {
                Next::Wait(delay, pending) => {
                    queue.schedule(now + delay.as_secs_f64().max(1e-9), Event::Wake(id));
                    Some(State::Waiting(pending))
                }
                Next::Send(attempt) => {
                    queue.schedule(now + latency(), Event::Reach(id));
                    Some(State::Sending(attempt))
                }
                Next::Stop(_) => None,
            };
        }
    }
    samples
}

/// What the meter reads at `t`: the gauges now, the counters' growth since
/// `last` (which it moves on).
fn collect(t: f64, observer: &RetryObserver<RetriesSum>, last: &mut (Counts, u64)) -> Sample {
    let readings = observer.readings();
    let counts = observer.counts();
    let retries = observer.recorder().0.load(Ordering::Relaxed);
    let throttled = |counts: &Counts| {
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Throttle))
            + counts.attempts(Outcome::NonRetryableFailure, Some(FailureKind::Throttle))
    };
    let give_ups = |counts: &Counts| -> u64 {
        rebound_runtime::observe::GiveUpReason::ALL
            .iter()
            .map(|&reason| counts.give_ups(reason))
            .sum()
    };
    let on = readings.limiter_enabled == Some(true);
    let sample = Sample {
        t,
        fill_rate: readings.limiter_fill_rate.filter(|_| on),
        measured_rate: readings.limiter_measured_rate.filter(|_| on),
        quota: readings.quota_available.unwrap_or(0),
        attempts: counts.total_attempts() - last.0.total_attempts(),
        throttled: throttled(&counts) - throttled(&last.0),
        retries: retries - last.1,
        give_ups: give_ups(&counts) - give_ups(&last.0),
    };
    *last = (counts, retries);
    sample
}

/// The samples as CSV, one line per second.
#[must_use]
pub fn csv(samples: &[Sample]) -> String {
    let mut out = String::from(
        "t,limiter_fill_rate,limiter_measured_rate,quota_available,attempts,throttled,retries,give_ups\n",
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    for s in samples {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            s.t,
            opt(s.fill_rate),
            opt(s.measured_rate),
            s.quota,
            s.attempts,
            s.throttled,
            s.retries,
            s.give_ups
        ));
    }
    out
}
