//! The tower layer (feature `tower`): hand-written services, virtual time
//! (recorded sleeps on a manual clock, or tokio's paused clock), exact
//! attempt counts.
#![cfg(feature = "tower")]

#[path = "common/counting.rs"]
mod counting;
mod executor_support;

use std::future::{Future, Ready, poll_fn, ready};
use std::io;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use counting::Counting;
use executor_support::{
    DelayedStart, assert_a_refusal_yields_once, assert_dropping_leaves_the_send_line, block_on, ms,
    standard, throttled_adaptive, throttled_fail_fast,
};
use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
use rebound_runtime::time::{AsyncSleeper, ManualClock};
use rebound_runtime::tower::{CloneRequest, RetryLayer};
use rebound_runtime::{
    AdaptiveRetryStrategy, Classified, GiveUpEvent, NeverRetryStrategy, Retry, RetryError,
    RetryEvent, RetryListener, RetryQuota, RetryStrategy, StandardRetryStrategy, StopReason,
    TokenAcquisitionFailed,
};
use tower::{Layer, Service, ServiceExt};

/// What the pretend service answers: a status, and which call (1-based, over
/// all its clones) answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Response {
    status: u16,
    call: u32,
}

const fn response(status: u16, call: u32) -> Response {
    Response { status, call }
}

type Outcome = Result<Response, io::Error>;

fn reset() -> io::Error {
    io::ErrorKind::ConnectionReset.into()
}

/// Error responses (a 429 is a throttle) and every error are failures.
fn classify(result: &Outcome) -> Option<Classified> {
    match result {
        Ok(response) if response.status < 400 => None,
        Ok(response) => Some(Classified::from(
            HttpErrorResponse::new(response.status).with_throttle(response.status == 429),
        )),
        Err(error) => Some(Classified::from_failure(error)),
    }
}

type Classify = fn(&Outcome) -> Option<Classified>;

/// What the mock's clones saw, shared between them.
#[derive(Debug, Default)]
struct Seen {
    /// The requests, in call order.
    calls: Vec<u32>,
    /// `poll_ready` calls so far.
    polls: u32,
}

/// A pretend service: answers each call from `script` (by call number), and
/// is not ready (or broken) on the listed `poll_ready` calls. Each clone
/// checks the tower contract: it is only called after it said it was ready.
struct Mock {
    script: Arc<dyn Fn(u32) -> Outcome + Send + Sync>,
    pending_polls: Arc<[u32]>,
    broken_polls: Arc<[u32]>,
    seen: Arc<Mutex<Seen>>,
    ready: bool,
}

impl Mock {
    fn new(script: impl Fn(u32) -> Outcome + Send + Sync + 'static) -> Self {
        Self {
            script: Arc::new(script),
            pending_polls: Arc::new([]),
            broken_polls: Arc::new([]),
            seen: Arc::default(),
            ready: false,
        }
    }

    /// A service that answers every call with `status`.
    fn always(status: u16) -> Self {
        Self::new(move |call| Ok(response(status, call)))
    }

    /// A service that answers `status` to the first `failures` calls, then 200.
    fn failing(failures: u32, status: u16) -> Self {
        Self::new(move |call| Ok(response(if call <= failures { status } else { 200 }, call)))
    }

    fn pending_on_polls(mut self, polls: &[u32]) -> Self {
        self.pending_polls = polls.into();
        self
    }

    fn broken_on_polls(mut self, polls: &[u32]) -> Self {
        self.broken_polls = polls.into();
        self
    }

    fn calls(&self) -> Vec<u32> {
        self.seen.lock().unwrap().calls.clone()
    }

    fn polls(&self) -> u32 {
        self.seen.lock().unwrap().polls
    }
}

impl Clone for Mock {
    /// A clone shares the script and the record, but is not ready yet.
    fn clone(&self) -> Self {
        Self {
            script: Arc::clone(&self.script),
            pending_polls: Arc::clone(&self.pending_polls),
            broken_polls: Arc::clone(&self.broken_polls),
            seen: Arc::clone(&self.seen),
            ready: false,
        }
    }
}

impl Service<u32> for Mock {
    type Response = Response;
    type Error = io::Error;
    type Future = Ready<Outcome>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        let poll = {
            let mut seen = self.seen.lock().unwrap();
            seen.polls += 1;
            seen.polls
        };
        if self.pending_polls.contains(&poll) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.broken_polls.contains(&poll) {
            return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
        }
        self.ready = true;
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: u32) -> Self::Future {
        assert!(self.ready, "called before `poll_ready` said it was ready");
        self.ready = false;
        let call = {
            let mut seen = self.seen.lock().unwrap();
            seen.calls.push(request);
            u32::try_from(seen.calls.len()).unwrap()
        };
        ready((self.script)(call))
    }
}

/// A sleeper that records each delay and advances a manual clock instead of
/// waiting.
#[derive(Debug, Clone, Default)]
struct Recorder {
    clock: ManualClock,
    slept: Arc<Mutex<Vec<Duration>>>,
}

impl Recorder {
    fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }
}

impl AsyncSleeper for Recorder {
    type Sleep = Ready<()>;

    fn sleep(&self, delay: Duration) -> Ready<()> {
        self.slept.lock().unwrap().push(delay);
        self.clock.advance(delay);
        ready(())
    }
}

/// A layer with `strategy`, sleeping on `sleeper` and reading its clock.
fn layer<St: RetryStrategy + Clone>(
    strategy: St,
    sleeper: &Recorder,
) -> RetryLayer<St, Recorder, Classify, impl CloneRequest<u32> + Clone + use<St>, ManualClock> {
    RetryLayer::new(strategy, sleeper.clone(), classify as Classify).clock(sleeper.clock.clone())
}

/// Records every event it hears, as text.
#[derive(Debug, Clone, Default)]
struct Heard(Arc<Mutex<Vec<String>>>);

impl Heard {
    fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl RetryListener for Heard {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let status = event.failure().http_status();
        let line = format!(
            "retry after attempt {} ({status:?}) in {:?}",
            event.attempt(),
            event.delay()
        );
        self.0.lock().unwrap().push(line);
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let line = format!(
            "give up after {} attempts: {}",
            event.attempts(),
            event.reason()
        );
        self.0.lock().unwrap().push(line);
    }
}

fn send<S>(service: S, request: u32) -> Result<Response, RetryError<io::Error>>
where
    S: Service<u32, Response = Response, Error = RetryError<io::Error>>,
{
    block_on(service.oneshot(request))
}

#[test]
fn an_error_response_is_retried_until_a_success() {
    let sleeper = Recorder::default();
    let mock = Mock::failing(2, 503);
    let service = layer(standard(), &sleeper).layer(mock.clone());

    assert_eq!(send(service, 7).unwrap(), response(200, 3));
    assert_eq!(mock.calls(), [7, 7, 7]);
    assert_eq!(sleeper.slept(), [ms(500), ms(1000)]);
}

#[test]
fn a_permanent_error_response_is_returned_as_it_is() {
    let sleeper = Recorder::default();
    let mock = Mock::always(400);
    let service = layer(standard(), &sleeper).layer(mock.clone());

    assert_eq!(send(service, 7).unwrap(), response(400, 1));
    assert_eq!(mock.calls(), [7]);
    assert_eq!(sleeper.slept(), []);
}

#[test]
fn the_last_error_response_is_returned_when_attempts_run_out() {
    let sleeper = Recorder::default();
    let mock = Mock::always(503);
    let service = layer(standard(), &sleeper).layer(mock.clone());

    assert_eq!(send(service, 7).unwrap(), response(503, 3));
    assert_eq!(mock.calls(), [7, 7, 7]);
    assert_eq!(sleeper.slept(), [ms(500), ms(1000)]);
}

#[test]
fn transport_errors_are_retried_then_returned_in_a_retry_error() {
    let sleeper = Recorder::default();
    let mock = Mock::new(|_call| Err(reset()));
    let service = layer(standard(), &sleeper).layer(mock.clone());

    let err = send(service, 7).unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(
        err.last_error().map(io::Error::kind),
        Some(io::ErrorKind::ConnectionReset)
    );
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted {
            attempts: 3,
            max_attempts: 3
        })
    );
    assert_eq!(mock.calls(), [7, 7, 7]);
    assert_eq!(sleeper.slept(), [ms(500), ms(1000)]);
}

#[test]
fn an_error_the_classifier_calls_a_success_is_not_retried() {
    let sleeper = Recorder::default();
    let mock = Mock::new(|_call| Err(reset()));
    let heard = Heard::default();
    let classify_responses = |result: &Outcome| match result {
        Ok(response) if response.status >= 400 => Some(Classified::retryable()),
        _ => None,
    };
    let service = RetryLayer::new(standard(), sleeper.clone(), classify_responses)
        .listener(heard.clone())
        .layer(mock.clone());

    let err = send(service, 7).unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
    );
    assert_eq!(mock.calls(), [7]);
    assert_eq!(
        heard.events(),
        ["give up after 1 attempts: the failure is not retryable"]
    );
}

#[test]
fn a_request_that_cannot_be_cloned_is_sent_once() {
    let strategy = standard();
    let quota = Arc::clone(strategy.quota());
    let sleeper = Recorder::default();
    let heard = Heard::default();
    let layer = layer(strategy, &sleeper)
        .clone_request(|_: &u32| None)
        .listener(heard.clone());

    // An error: the strategy hears of it and grants a retry, which is
    // abandoned (its cost is not refunded, as with a budget's refusal).
    let mock = Mock::new(|_call| Err(reset()));
    let err = send(layer.layer(mock.clone()), 7).unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert_eq!(*err.reason(), StopReason::RequestNotClonable);
    assert_eq!(mock.calls(), [7]);
    assert_eq!(quota.available(), quota.capacity() - 5);
    assert_eq!(
        heard.events(),
        [
            "retry after attempt 1 (None) in 500ms",
            "give up after 1 attempts: the request could not be cloned for a retry"
        ]
    );

    // An error response: returned as it is.
    let mock = Mock::always(503);
    assert_eq!(
        send(layer.layer(mock.clone()), 8).unwrap(),
        response(503, 1)
    );
    assert_eq!(mock.calls(), [8]);

    // A success: the strategy gets its token back.
    let mock = Mock::always(200);
    assert_eq!(
        send(layer.layer(mock.clone()), 9).unwrap(),
        response(200, 1)
    );
    assert_eq!(quota.available(), quota.capacity() - 9);
    assert_eq!(sleeper.slept(), []);
}

/// A retry granted for a request that cannot be cloned is never made: its
/// token goes back to the strategy as abandoned (as when a budget refuses
/// one), not dropped unseen. A success abandons nothing.
#[test]
fn a_retry_that_cannot_be_made_for_want_of_a_clone_is_abandoned() {
    let strategy = Counting::new(standard());
    let sleeper = Recorder::default();
    let layer = layer(strategy.clone(), &sleeper).clone_request(|_: &u32| None);

    let err = send(layer.layer(Mock::new(|_call| Err(reset()))), 7).unwrap_err();
    assert_eq!(*err.reason(), StopReason::RequestNotClonable);
    assert_eq!(strategy.abandoned(), 1);

    send(layer.layer(Mock::always(200)), 8).unwrap();
    assert_eq!(strategy.abandoned(), 1, "a success abandons nothing");
}

#[test]
fn a_request_cloned_once_is_sent_itself_the_second_time_then_not_again() {
    let sleeper = Recorder::default();
    let copies = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&copies);
    // Copies are marked with 100 added; only one copy can be made.
    let once = move |request: &u32| {
        (counted.fetch_add(1, Ordering::Relaxed) == 0).then_some(request + 100)
    };
    let mock = Mock::always(503);
    let service = layer(standard(), &sleeper)
        .clone_request(once)
        .layer(mock.clone());

    assert_eq!(send(service, 7).unwrap(), response(503, 2));
    assert_eq!(mock.calls(), [107, 7]);
    assert_eq!(copies.load(Ordering::Relaxed), 2);
}

#[test]
fn the_retry_quota_is_refunded_on_success() {
    let strategy = standard();
    let quota = Arc::clone(strategy.quota());
    let capacity = quota.capacity();
    let sleeper = Recorder::default();
    let layer = layer(strategy, &sleeper);

    // A request that fails for good pays for its two retries.
    assert_eq!(send(layer.layer(Mock::always(503)), 1).unwrap().status, 503);
    assert_eq!(quota.available(), capacity - 10);

    // One that succeeds on its retry gets that retry's cost back.
    let mock = Mock::failing(1, 503);
    assert_eq!(send(layer.layer(mock), 2).unwrap(), response(200, 2));
    assert_eq!(quota.available(), capacity - 10);

    // One that succeeds at once adds the success refund.
    assert_eq!(
        send(layer.layer(Mock::always(200)), 3).unwrap(),
        response(200, 1)
    );
    assert_eq!(quota.available(), capacity - 9);
}

#[test]
fn the_adaptive_strategy_limits_the_retry_s_send_rate() {
    let adaptive = |clock: &ManualClock| {
        AdaptiveRetryStrategy::builder(standard())
            .clock(clock.clone())
            .build()
    };
    let sleeper = Recorder::default();
    let strategy = adaptive(&sleeper.clock);
    let mock = Mock::failing(1, 429);
    let service = layer(strategy.clone(), &sleeper).layer(mock.clone());

    assert_eq!(send(service, 7).unwrap(), response(200, 2));
    assert_eq!(mock.calls(), [7, 7]);
    // The throttle turned the rate limiter on: after the throttling backoff
    // (0.5 * 1 s), the retry waited for a send token.
    assert!(strategy.rate_limiter().is_enabled());
    let slept = sleeper.slept();
    assert_eq!(slept[0], ms(500));
    assert!(slept.len() > 1, "{slept:?}");

    // Exactly the waits of the async executor, which runs the same loop.
    let same = Recorder::default();
    let strategy = adaptive(&same.clock);
    let retry = Retry::new(&strategy)
        .sleeper(same.clone())
        .clock(same.clock.clone());
    let value = block_on(retry.run_async(|attempt| {
        ready(match attempt {
            1 => Err(HttpErrorResponse::new(429).with_throttle(true)),
            _ => Ok(attempt),
        })
    }));
    assert_eq!(value, Ok(2));
    assert_eq!(same.slept(), slept);
}

#[test]
fn a_request_refused_before_its_first_attempt_yields_once() {
    let sleeper = Recorder::default();
    let strategy = throttled_fail_fast(&sleeper.clock);
    let mock = Mock::failing(0, 503);
    let mut service = layer(strategy, &sleeper).layer(mock.clone());
    block_on(poll_fn(|cx| service.poll_ready(cx))).unwrap();

    let err = assert_a_refusal_yields_once(service.call(7)).unwrap_err();

    assert!(mock.calls().is_empty(), "a refused attempt is not sent");
    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::RateLimited { attempts: 0, .. })
    ));
}

#[test]
fn every_strategy_works_through_the_layer() {
    fn attempts_for<St: RetryStrategy + Clone>(strategy: St) -> u32 {
        let sleeper = Recorder::default();
        send(layer(strategy, &sleeper).layer(Mock::always(503)), 7)
            .unwrap()
            .call
    }

    assert_eq!(attempts_for(standard()), 3);
    assert_eq!(attempts_for(AdaptiveRetryStrategy::new()), 3);
    assert_eq!(
        attempts_for(LegacyRetryStrategy::new(LegacyPreset::Botocore)),
        5
    );
    assert_eq!(attempts_for(NeverRetryStrategy), 1);
    let shared: Arc<dyn RetryStrategy> = Arc::new(standard());
    assert_eq!(attempts_for(shared), 3);
    assert_eq!(attempts_for(Arc::new(DelayedStart::new(ms(1)))), 1);
}

#[test]
fn the_service_is_polled_ready_before_each_retry() {
    let sleeper = Recorder::default();
    // Poll 1 is the caller's; poll 2, before the retry, is not ready yet.
    let mock = Mock::failing(1, 503).pending_on_polls(&[2]);
    let mut service = layer(standard(), &sleeper).layer(mock.clone());
    block_on(poll_fn(|cx| service.poll_ready(cx))).unwrap();
    let mut future = pin!(service.call(7));
    let mut cx = Context::from_waker(Waker::noop());

    assert!(future.as_mut().poll(&mut cx).is_pending());
    assert_eq!(mock.calls(), [7]);
    assert_eq!(mock.polls(), 2);
    assert_eq!(sleeper.slept(), [ms(500)]);

    match future.as_mut().poll(&mut cx) {
        Poll::Ready(Ok(answer)) => assert_eq!(answer, response(200, 2)),
        other => panic!("expected the retry's response, got {other:?}"),
    }
    assert_eq!(mock.calls(), [7, 7]);
    assert_eq!(mock.polls(), 3);
    assert_eq!(sleeper.slept(), [ms(500)]);
}

#[test]
fn a_service_that_fails_to_get_ready_ends_the_request() {
    let sleeper = Recorder::default();
    let heard = Heard::default();
    let layer = layer(standard(), &sleeper).listener(heard.clone());

    // Before a retry: the service's error, after the attempts made.
    let mock = Mock::always(503).broken_on_polls(&[2]);
    let err = send(layer.layer(mock.clone()), 7).unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert_eq!(*err.reason(), StopReason::ServiceNotReady);
    assert_eq!(
        err.last_error().map(io::Error::kind),
        Some(io::ErrorKind::NotConnected)
    );
    assert_eq!(mock.calls(), [7]);
    assert_eq!(
        heard.events(),
        [
            "retry after attempt 1 (Some(503)) in 500ms",
            "give up after 1 attempts: the service failed to get ready for an attempt"
        ]
    );

    // Before the first: from `poll_ready`, with no attempt.
    let mock = Mock::always(200).broken_on_polls(&[1]);
    let mut service = layer.layer(mock.clone());
    let err = block_on(poll_fn(|cx| service.poll_ready(cx))).unwrap_err();
    assert_eq!(err.attempts(), 0);
    assert_eq!(*err.reason(), StopReason::ServiceNotReady);
    assert!(err.last_error().is_some());
    assert_eq!(mock.calls(), []);
}

#[test]
fn the_future_is_send_and_static() {
    fn assert_send_static<T: Send + 'static>(_: &T) {}
    fn assert_future_send_static<S: Service<u32>>(_: &S)
    where
        S::Future: Send + 'static,
    {
    }

    let sleeper = Recorder::default();
    let standard = layer(standard(), &sleeper).layer(Mock::always(200));
    assert_future_send_static(&standard);

    let shared: Arc<dyn RetryStrategy> = Arc::new(StandardRetryStrategy::new());
    let tokio_sleep: fn(Duration) -> tokio::time::Sleep = tokio::time::sleep;
    let clone_request: fn(&u32) -> Option<u32> = |request| Some(*request);
    let shared = RetryLayer::new(shared, tokio_sleep, classify as Classify)
        .clone_request(clone_request)
        .layer(Mock::always(200));
    assert_future_send_static(&shared);

    let adaptive = layer(AdaptiveRetryStrategy::new(), &sleeper)
        .listener(Heard::default())
        .layer(Mock::always(200));
    assert_future_send_static(&adaptive);
    assert_send_static(&adaptive);
    assert_send_static(&RetryLayer::new(
        NeverRetryStrategy,
        sleeper,
        classify as Classify,
    ));
}

#[test]
fn the_budget_stops_the_loop() {
    let sleeper = Recorder::default();
    let layer = layer(standard(), &sleeper).budget(Duration::from_secs(1));

    // After an error response: that response. The first retry waited 500 ms;
    // the second would wait 1 s, past the budget.
    let mock = Mock::always(503);
    assert_eq!(
        send(layer.layer(mock.clone()), 7).unwrap(),
        response(503, 2)
    );
    assert_eq!(mock.calls(), [7, 7]);
    assert_eq!(sleeper.slept(), [ms(500)]);

    // After an error: the error, and why.
    let sleeper = Recorder::default();
    let layer = self::layer(standard(), &sleeper).budget(Duration::from_secs(1));
    let err = send(layer.layer(Mock::new(|_call| Err(reset()))), 7).unwrap_err();
    assert_eq!(err.attempts(), 2);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: Duration::from_secs(1),
            elapsed: ms(500),
            next_delay: ms(1000),
        }
    );

    // Before the first attempt: no error, no attempt.
    let sleeper = Recorder::default();
    let strategy = Arc::new(DelayedStart::new(Duration::from_secs(2)));
    let layer = self::layer(strategy, &sleeper).budget(Duration::from_secs(1));
    let mock = Mock::always(200);
    let err = send(layer.layer(mock.clone()), 7).unwrap_err();
    assert_eq!(err.attempts(), 0);
    assert!(err.last_error().is_none());
    assert!(err.reason().is_budget_exhausted());
    assert_eq!(mock.calls(), []);
    assert_eq!(sleeper.slept(), []);
}

#[test]
fn a_long_polling_give_up_sleeps_then_returns_the_last_outcome() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .long_polling(true)
        .quota(Arc::new(RetryQuota::new(0)))
        .build();
    let sleeper = Recorder::default();
    let layer = layer(strategy, &sleeper);

    let mock = Mock::always(503);
    assert_eq!(
        send(layer.layer(mock.clone()), 7).unwrap(),
        response(503, 1)
    );
    assert_eq!(mock.calls(), [7]);
    assert_eq!(sleeper.slept(), [ms(500)]);

    let err = send(layer.layer(Mock::new(|_call| Err(reset()))), 8).unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::QuotaExhausted { .. })
    ));
    assert_eq!(sleeper.slept(), [ms(500), ms(500)]);
}

#[test]
fn the_listener_hears_each_retry_and_the_give_up() {
    let sleeper = Recorder::default();
    let heard = Heard::default();
    let layer = layer(standard(), &sleeper).listener(heard.clone());

    assert_eq!(
        send(layer.layer(Mock::failing(2, 503)), 7).unwrap(),
        response(200, 3)
    );
    assert_eq!(
        heard.events(),
        [
            "retry after attempt 1 (Some(503)) in 500ms",
            "retry after attempt 2 (Some(503)) in 1s"
        ]
    );

    heard.0.lock().unwrap().clear();
    assert_eq!(
        send(layer.layer(Mock::always(503)), 8).unwrap(),
        response(503, 3)
    );
    assert_eq!(
        heard.events(),
        [
            "retry after attempt 1 (Some(503)) in 500ms",
            "retry after attempt 2 (Some(503)) in 1s",
            "give up after 3 attempts: all 3 allowed attempts were made"
        ]
    );
}

/// A service whose every third call (over all requests) answers 503 after
/// 10 ms of (virtual) work; the others answer 200. Records which request
/// each call was for.
#[derive(Clone, Default)]
struct Flaky {
    calls: Arc<Mutex<Vec<u32>>>,
}

impl Service<u32> for Flaky {
    type Response = Response;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = Outcome> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: u32) -> Self::Future {
        let call = {
            let mut calls = self.calls.lock().unwrap();
            calls.push(request);
            u32::try_from(calls.len()).unwrap()
        };
        Box::pin(async move {
            tokio::time::sleep(ms(10)).await;
            Ok(response(if call % 3 == 0 { 503 } else { 200 }, call))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn many_concurrent_requests_share_one_service_and_quota() {
    const REQUESTS: u32 = 200;
    let strategy = standard();
    let quota = Arc::clone(strategy.quota());
    // Start below the capacity, so that no success refund is capped away.
    let start = quota.capacity() / 2;
    assert_eq!(quota.try_acquire(quota.capacity() - start), Ok(()));

    let flaky = Flaky::default();
    let sleeper = |delay| tokio::time::sleep(delay);
    let service = RetryLayer::new(strategy, sleeper, classify as Classify).layer(flaky.clone());

    let tasks: Vec<_> = (0..REQUESTS)
        .map(|request| tokio::spawn(service.clone().oneshot(request)))
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap().unwrap().status);
    }

    // Every request ended; what each paid follows from its attempts.
    let calls = flaky.calls.lock().unwrap().clone();
    let mut expected = i64::from(start);
    for (request, status) in (0..REQUESTS).zip(&statuses) {
        let attempts = calls.iter().filter(|&&r| r == request).count();
        let retries = i64::try_from(attempts).unwrap() - 1;
        expected += match (*status, retries) {
            (200, 0) => 1,                      // the success refund
            (200, retries) => -5 * retries + 5, // the last retry's cost comes back
            (503, 2) => -10,                    // gave up: both retries paid
            other => panic!("request {request}: unexpected {other:?}"),
        };
    }
    assert_eq!(i64::from(quota.available()), expected);
    assert_eq!(statuses.len(), 200);
    assert!(
        calls.len() > 260,
        "every third call failed: {} calls",
        calls.len()
    );
    assert!(statuses.iter().filter(|&&s| s == 200).count() >= 190);
}

#[cfg(feature = "http")]
#[test]
fn the_response_classifier_judges_http_responses_and_errors() {
    use rebound_runtime::http::ResponseClassifier;

    let calls = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&calls);
    let client = tower::service_fn(move |request: http::Request<String>| {
        let call = counted.fetch_add(1, Ordering::Relaxed) + 1;
        let answer = match request.uri().path() {
            "/flaky" if call == 1 => Ok(503),
            "/flaky" | "/ok" => Ok(200),
            "/missing" => Ok(404),
            _ => Err(reset()),
        };
        ready(answer.map(|status| {
            http::Response::builder()
                .status(status)
                .header("x-amzn-ErrorType", "ServiceUnavailableException")
                .body(request.into_body())
                .unwrap()
        }))
    });
    let sleeper = Recorder::default();
    let layer = RetryLayer::new(standard(), sleeper.clone(), ResponseClassifier::new());
    let get = |path: &str| {
        let request = http::Request::builder()
            .uri(path)
            .body(format!("to {path}"))
            .unwrap();
        calls.store(0, Ordering::Relaxed);
        let outcome = block_on(layer.layer(client.clone()).oneshot(request));
        (outcome, calls.load(Ordering::Relaxed))
    };

    // A 503 is retried; the retry's response carries the request's body, so
    // the request was copied.
    let (outcome, attempts) = get("/flaky");
    let answer = outcome.unwrap();
    assert_eq!((answer.status().as_u16(), attempts), (200, 2));
    assert_eq!(answer.body(), "to /flaky");
    assert_eq!(sleeper.slept(), [ms(500)]);

    // A 404 is not: it is returned as it is.
    let (outcome, attempts) = get("/missing");
    assert_eq!((outcome.unwrap().status().as_u16(), attempts), (404, 1));

    // An error says what it is: a reset connection is retried.
    let (outcome, attempts) = get("/reset");
    let err = outcome.unwrap_err();
    assert_eq!((err.attempts(), attempts), (3, 3));
    assert_eq!(
        err.last_error().map(io::Error::kind),
        Some(io::ErrorKind::ConnectionReset)
    );
}

/// A request through the layer waiting for a send token stands in the
/// limiter's line; its future dropped (cancelled, e.g. by a timeout layer
/// above), it leaves the line at once, not when its place lapses.
#[test]
fn a_cancelled_response_future_leaves_the_send_line_at_once() {
    let clock = ManualClock::new();
    let strategy = throttled_adaptive(&clock);
    let layer = RetryLayer::new(
        strategy.clone(),
        |_: Duration| std::future::pending::<()>(),
        classify as Classify,
    )
    .clock(clock.clone());
    let mut service = layer.layer(Mock::always(200));
    assert_dropping_leaves_the_send_line(&strategy, service.call(7));
}
