//! A virtual-time harness for many concurrent requests through one shared
//! adaptive strategy: the real `Retry` executor on tokio's paused clock, a
//! scripted service, and a log of every send and every limiter fill rate, so
//! a test can check that no request waited longer than the limiter's rate
//! implies.
#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::{AdaptiveRetryStrategy, Retry};
use rebound_runtime::{
    RetryError,
    time::{DefaultSleeper, TokioClock},
};
use tokio::time::Instant;

/// The strategy under test, on tokio's (paused) clock.
pub type Strategy = AdaptiveRetryStrategy<TokioClock>;
/// The executor every request runs through.
pub type Executor = Retry<Arc<Strategy>, DefaultSleeper, TokioClock>;
/// A scripted response.
pub type Response = Result<(), HttpErrorResponse>;

/// What happened to one request.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// When it arrived (since the scenario's start).
    pub arrival: Duration,
    /// When its first attempt was sent, if it was.
    pub first_send: Option<Duration>,
    /// Attempts sent.
    pub attempts: u32,
    /// The executor's answer.
    pub result: Result<(), RetryError<HttpErrorResponse>>,
}

impl Outcome {
    /// Arrival to first send (`None` when never sent).
    pub fn wait(&self) -> Option<Duration> {
        self.first_send.map(|sent| sent - self.arrival)
    }
}

/// Every send and every fill-rate sample of a scenario.
#[derive(Debug)]
pub struct World {
    pub strategy: Arc<Strategy>,
    pub start: Instant,
    /// (time, request id) of every attempt sent.
    sends: Mutex<Vec<(Duration, usize)>>,
    /// (time, fill rate) sampled at every arrival and send.
    fill: Mutex<Vec<(Duration, f64)>>,
}

impl World {
    pub fn new(strategy: Strategy) -> Arc<Self> {
        Arc::new(Self {
            strategy: Arc::new(strategy),
            start: Instant::now(),
            sends: Mutex::new(Vec::new()),
            fill: Mutex::new(Vec::new()),
        })
    }

    pub fn now(&self) -> Duration {
        Instant::now() - self.start
    }

    fn sample(&self) {
        let rate = self.strategy.rate_limiter().snapshot().fill_rate;
        lock(&self.fill).push((self.now(), rate));
    }

    /// Sends in the open interval `(from, to)` by requests other than `id`.
    pub fn sends_by_others(&self, id: usize, from: Duration, to: Duration) -> usize {
        lock(&self.sends)
            .iter()
            .filter(|(at, by)| *by != id && *at > from && *at < to)
            .count()
    }

    /// All sends so far.
    pub fn sends(&self) -> Vec<(Duration, usize)> {
        lock(&self.sends).clone()
    }

    /// The lowest fill rate sampled in `[from, to]` (and the last one before
    /// `from`, which held at `from`).
    pub fn min_fill_rate(&self, from: Duration, to: Duration) -> f64 {
        let fill = lock(&self.fill);
        let before = fill
            .iter()
            .rev()
            .find(|(at, _)| *at <= from)
            .map(|(_, rate)| *rate);
        fill.iter()
            .filter(|(at, _)| *at >= from && *at <= to)
            .map(|(_, rate)| *rate)
            .chain(before)
            .fold(f64::INFINITY, f64::min)
    }

    /// Runs request `id` through `executor` at `arrival`: each attempt gets
    /// the answer `respond(attempt)` gives.
    pub fn request(
        self: &Arc<Self>,
        executor: Arc<Executor>,
        id: usize,
        arrival: Duration,
        respond: impl Fn(u32) -> Response + Send + Sync + 'static,
    ) -> impl Future<Output = Outcome> + Send + 'static {
        let world = Arc::clone(self);
        async move {
            tokio::time::sleep_until(world.start + arrival).await;
            world.sample();
            let mut first_send = None;
            let mut attempts = 0;
            let result = executor
                .run_async(|attempt| {
                    let now = world.now();
                    first_send.get_or_insert(now);
                    attempts += 1;
                    lock(&world.sends).push((now, id));
                    world.sample();
                    std::future::ready(respond(attempt))
                })
                .await;
            Outcome {
                arrival,
                first_send,
                attempts,
                result,
            }
        }
    }

    /// Asserts that every request in `outcomes` that waited before its first
    /// send waited no longer than the limiter's rate implies: during the
    /// wait, the send tokens the bucket earned (at least the lowest fill rate
    /// seen, times the wait, less the fraction of a token it may have started
    /// short) all went to other requests' sends. A send reserved for a later
    /// time, or held for an attempt never made, breaks this.
    pub fn assert_waits_within_the_rate(&self, outcomes: &[(usize, Outcome)]) -> WaitReport {
        let mut report = WaitReport::default();
        for (id, outcome) in outcomes {
            let (Some(sent), Some(wait)) = (outcome.first_send, outcome.wait()) else {
                continue;
            };
            report.count += 1;
            report.longest = report.longest.max(wait);
            if wait > Duration::from_millis(500) {
                report.over_half_a_second += 1;
            }
            if wait.is_zero() {
                continue;
            }
            let rate = self.min_fill_rate(outcome.arrival, sent);
            let earned = rate * wait.as_secs_f64();
            let others = self.sends_by_others(*id, outcome.arrival, sent) as f64;
            assert!(
                others + 2.0 >= earned,
                "request {id} arrived at {:?} and waited {wait:?} for its first send, while the \
                 bucket earned {earned:.1} tokens (fill rate >= {rate:.3}/s) and other requests \
                 sent only {others}",
                outcome.arrival
            );
        }
        report
    }
}

/// Figures about the waits of a set of requests.
#[derive(Debug, Default, Clone, Copy)]
pub struct WaitReport {
    /// Requests sent.
    pub count: usize,
    /// The longest wait before a first send.
    pub longest: Duration,
    /// How many waited more than 0.5 s.
    pub over_half_a_second: usize,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An executor for `world`'s strategy on tokio's clock.
pub fn executor(world: &World, budget: Option<Duration>) -> Arc<Executor> {
    let retry = Retry::new(Arc::clone(&world.strategy))
        .sleeper(DefaultSleeper)
        .clock(TokioClock);
    Arc::new(match budget {
        Some(budget) => retry.budget(budget),
        None => retry,
    })
}

/// A throttling error with an optional retry-after hint.
pub fn throttled(hint: Option<Duration>) -> HttpErrorResponse {
    HttpErrorResponse::new(400)
        .with_code("ThrottlingException")
        .with_retry_after(hint)
}
