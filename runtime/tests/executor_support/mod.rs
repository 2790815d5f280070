//! Shared helpers for the executor tests: failures that speak the retry
//! traits, a strategy that gives no initial token, a recording sleeper on a
//! virtual clock, and a tiny `block_on`.
#![allow(dead_code, unreachable_pub)]

use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    ErrorFault, ErrorInfo, FailureInfo, RetryInfo, RetrySafety, RetryStrategy, RetryToken,
    SendPermit, StandardRetryStrategy, TokenAcquisitionFailed, TokenIssuer,
};

pub const fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

/// A failure of the pretend service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// 503: retryable.
    Unavailable,
    /// 400: not retryable.
    BadRequest,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "service unavailable",
            Self::BadRequest => "bad request",
        })
    }
}

impl std::error::Error for Failure {}

impl RetryInfo for Failure {
    fn retry_safety(&self) -> RetrySafety {
        match self {
            Self::Unavailable => RetrySafety::Yes,
            Self::BadRequest => RetrySafety::No,
        }
    }
}

impl ErrorInfo for Failure {
    fn fault(&self) -> ErrorFault {
        match self {
            Self::Unavailable => ErrorFault::Server,
            Self::BadRequest => ErrorFault::Client,
        }
    }
    fn http_status(&self) -> Option<u16> {
        Some(match self {
            Self::Unavailable => 503,
            Self::BadRequest => 400,
        })
    }
}

/// The standard strategy (behaviour 2.0) with the jitter draw fixed at 0.5:
/// retry delays are 500 ms, 1 s, 2 s, ...
pub fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// An adaptive strategy on `clock` whose limiter a throttle just turned on:
/// its bucket is empty, and refills at 0.5 tokens a second.
pub fn throttled_adaptive(
    clock: &ManualClock,
) -> rebound_runtime::AdaptiveRetryStrategy<ManualClock> {
    throttled(clock, WaitPolicy::Block)
}

/// [`throttled_adaptive`] with a limiter that fails fast: a send is refused
/// until the clock moves on (the bucket holds no token).
pub fn throttled_fail_fast(
    clock: &ManualClock,
) -> rebound_runtime::AdaptiveRetryStrategy<ManualClock> {
    throttled(clock, WaitPolicy::FailFast)
}

fn throttled(
    clock: &ManualClock,
    mode: WaitPolicy,
) -> rebound_runtime::AdaptiveRetryStrategy<ManualClock> {
    let strategy = rebound_runtime::AdaptiveRetryStrategy::builder(standard())
        .wait_policy(mode)
        .clock(clock.clone())
        .build();
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(ms(1));
    let throttle = rebound_runtime::classify::HttpErrorResponse::new(429).with_throttle(true);
    let _ = strategy.refresh_retry_token(token, &throttle);
    assert!(strategy.rate_limiter().is_enabled());
    assert!(
        matches!(strategy.try_acquire_send(), SendPermit::Wait(_)),
        "the bucket is empty"
    );
    strategy
}

/// Counts the wake-ups of the task it wakes.
#[derive(Debug, Default)]
struct CountWakes(AtomicU32);

impl std::task::Wake for CountWakes {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Polls `request`, which stops before an attempt (a fail-fast refusal),
/// and checks that it yields once: its first poll is pending with its task
/// woken at once, its second is ready with the outcome.
pub fn assert_a_refusal_yields_once<F: Future>(request: F) -> F::Output {
    let wakes = std::sync::Arc::new(CountWakes::default());
    let waker = Waker::from(std::sync::Arc::clone(&wakes));
    let mut cx = Context::from_waker(&waker);
    let mut request = pin!(request);
    assert!(request.as_mut().poll(&mut cx).is_pending(), "it yields");
    assert_eq!(wakes.0.load(Ordering::Relaxed), 1, "woken at once");
    match request.as_mut().poll(&mut cx) {
        Poll::Ready(outcome) => outcome,
        Poll::Pending => panic!("it yields once"),
    }
}

/// Polls `request` (a request through `strategy`, made but not yet polled)
/// until it sleeps for a send token, standing in the limiter's line, then
/// drops it (a cancelled future): the line must be left at once, not when
/// the place lapses. A caller asking for a token is told to wait for one
/// token for the request too while it waits, and only for its own after.
pub fn assert_dropping_leaves_the_send_line<F: Future>(
    strategy: &rebound_runtime::AdaptiveRetryStrategy<ManualClock>,
    request: F,
) {
    let alone = strategy.try_acquire_send().wait();
    let mut waiting = Box::pin(request);
    let mut cx = Context::from_waker(Waker::noop());
    assert!(
        waiting.as_mut().poll(&mut cx).is_pending(),
        "sleeping for a token"
    );
    let behind = strategy.try_acquire_send().wait();
    assert!(
        behind > alone + ms(1500),
        "one token each: {behind:?} vs {alone:?}"
    );
    drop(waiting);
    // The clock has not moved: the place has not lapsed, it was given up.
    assert_eq!(strategy.try_acquire_send().wait(), alone);
}

/// A virtual clock and a record of every sleep; sleeping advances the clock.
#[derive(Debug, Default)]
pub struct Sleeps {
    pub clock: ManualClock,
    slept: Mutex<Vec<Duration>>,
}

impl Sleeps {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a blocking sleep.
    pub fn sleep(&self, delay: Duration) {
        self.slept.lock().unwrap().push(delay);
        self.clock.advance(delay);
    }

    /// Records an async sleep; the future is ready at once.
    pub fn sleep_async(&self, delay: Duration) -> std::future::Ready<()> {
        self.sleep(delay);
        std::future::ready(())
    }

    pub fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }
}

/// A strategy whose `acquire_initial_token` always fails, counting the calls
/// it gets.
#[derive(Debug, Default)]
pub struct NoInitialToken {
    pub refreshes: AtomicU32,
    pub successes: AtomicU32,
    issuer: TokenIssuer,
}

impl NoInitialToken {
    pub const WHY: TokenAcquisitionFailed = TokenAcquisitionFailed::QuotaExhausted {
        attempts: 0,
        cost: 1,
        available: 0,
        delay_before_giving_up: None,
    };
}

impl RetryStrategy for NoInitialToken {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Err(Self::WHY)
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        _failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.refreshes.fetch_add(1, Ordering::Relaxed);
        self.issuer.next_token(token, Duration::ZERO, None)
    }
    fn record_success(&self, _token: RetryToken) {
        self.successes.fetch_add(1, Ordering::Relaxed);
    }
}

/// A strategy whose initial token carries a delay, then never retries.
#[derive(Debug)]
pub struct DelayedStart(pub Duration, TokenIssuer);

impl DelayedStart {
    pub fn new(delay: Duration) -> Self {
        Self(delay, TokenIssuer::new())
    }
}

impl RetryStrategy for DelayedStart {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.1.next_token(self.1.initial_token(), self.0, None)
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        _failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        Err(TokenAcquisitionFailed::NotRetryable {
            attempts: token.attempt(),
        })
    }
    fn record_success(&self, _token: RetryToken) {}
}

/// Polls `future` to completion with a no-op waker: enough for futures whose
/// sleeps are ready at once.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("the future did not complete: something slept for real");
}
