//! The public request loop (`rebound_runtime::driver`): a driver of its own
//! gets what `Retry` does — the same attempts and delays, the listener's
//! events, the budget, fail-fast refusals — and a loop or attempt dropped
//! before it ends hands its token back.

#[path = "common/counting.rs"]
mod counting;

use std::cell::RefCell;
use std::time::Duration;

use counting::Counting;
use rebound_runtime::driver::{AfterFailure, Next, Stopped};
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, Classified, GiveUpEvent, Retry, RetryEvent, RetryListener,
    StandardRetryStrategy, StopReason, TokenAcquisitionFailed,
};

/// A status as a failure: 429 with a throttling code, as AWS services send it.
fn classify(status: u16) -> Classified {
    let failure = Classified::unknown().with_status(status);
    if status == 429 {
        failure.with_code("ThrottlingException")
    } else {
        failure
    }
}

fn strategy() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// Drives `retry`'s loop over `statuses` (200 is a success), advancing
/// `clock` for every wait; returns the outcome and the waits.
fn drive<S, C, L>(
    retry: &Retry<S, ManualClock, C, L>,
    clock: &ManualClock,
    statuses: &[u16],
) -> (Result<u16, Stopped>, Vec<Duration>)
where
    S: rebound_runtime::RetryStrategy,
    C: rebound_runtime::time::Clock,
    L: RetryListener,
{
    let mut statuses = statuses.iter().copied();
    let mut waits = Vec::new();
    let mut request = retry.request();
    let outcome = loop {
        let attempt = match request.next() {
            Next::Wait(delay, pending) => {
                waits.push(delay);
                clock.advance(delay);
                request = pending;
                continue;
            }
            Next::Send(attempt) => attempt,
            Next::Stop(stopped) => break Err(stopped),
        };
        let status = statuses.next().expect("the script covers every attempt");
        if status == 200 {
            attempt.succeeded();
            break Ok(status);
        }
        match attempt.failed(&classify(status)) {
            AfterFailure::Retry(pending) => request = pending,
            AfterFailure::Stop(stopped) => break Err(stopped),
        }
    };
    (outcome, waits)
}

#[test]
fn the_loop_makes_the_attempts_and_waits_that_run_makes() {
    for script in [
        &[200][..],
        &[503, 200],
        &[503, 500, 200],
        &[503, 503, 503],
        &[400],
        &[429, 502, 200],
    ] {
        let clock = ManualClock::new();
        let driven = Retry::new(strategy()).sleeper(clock.clone());
        let (outcome, waits) = drive(&driven, &clock, script);

        let slept = RefCell::new(Vec::new());
        let run = Retry::new(strategy()).sleeper(|delay| slept.borrow_mut().push(delay));
        let mut statuses = script.iter().copied();
        let ran = run.run_classified(
            |_attempt| match statuses.next().unwrap() {
                200 => Ok(200),
                status => Err(status),
            },
            |status| classify(*status),
        );
        assert_eq!(waits, *slept.borrow(), "{script:?}");
        match (outcome, ran) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(stopped), Err(error)) => {
                assert_eq!(stopped.attempts(), error.attempts(), "{script:?}");
                assert_eq!(stopped.reason(), error.reason(), "{script:?}");
            }
            (a, b) => panic!("{script:?}: the loop gave {a:?}, run gave {b:?}"),
        }
        // The quota ends where `run` leaves it.
        assert_eq!(
            driven.strategy().quota().available(),
            run.strategy().quota().available(),
            "{script:?}"
        );
    }
}

#[derive(Debug, Default)]
struct Heard(RefCell<Vec<String>>);

impl RetryListener for Heard {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let status = event.failure().http_status();
        let line = format!("retry {} {:?} {status:?}", event.attempt(), event.delay());
        self.0.borrow_mut().push(line);
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let status = event.failure().and_then(|failure| failure.http_status());
        let budget = event.reason().is_budget_exhausted();
        let line = format!("give up {} {status:?} budget={budget}", event.attempts());
        self.0.borrow_mut().push(line);
    }
}

#[test]
fn the_listener_and_the_budget_work_under_any_driver() {
    let clock = ManualClock::new();
    let heard = Heard::default();
    let retry = Retry::new(strategy())
        .sleeper(clock.clone())
        .clock(clock.clone())
        .budget(Duration::from_millis(1200))
        .listener(&heard);
    let (outcome, waits) = drive(&retry, &clock, &[503, 500, 200]);
    // The second retry's 1 s backoff would end past the 1.2 s budget.
    let stopped = outcome.unwrap_err();
    assert_eq!(stopped.attempts(), 2);
    assert!(stopped.reason().is_budget_exhausted());
    assert_eq!(waits, [Duration::from_millis(500)]);
    assert_eq!(
        heard.0.into_inner(),
        [
            "retry 1 500ms Some(503)",
            // Granted by the strategy, refused by the budget: heard as a
            // give-up only, carrying the last failure.
            "give up 2 Some(500) budget=true",
        ]
    );
    // The error an executor returns for it.
    let error = stopped.into_error(Some(500_u16));
    assert_eq!(error.last_error(), Some(&500));
    assert_eq!(error.attempts(), 2);
}

#[test]
fn a_fail_fast_refusal_stops_before_the_attempt_with_a_typed_reason() {
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(strategy())
        .wait_policy(WaitPolicy::FailFast)
        .clock(clock.clone())
        .build();
    let retry = Retry::new(&strategy).sleeper(clock.clone());
    // A throttle leaves the limiter's bucket empty: the retry is refused.
    let (outcome, _) = drive(&retry, &clock, &[429]);
    let stopped = outcome.unwrap_err();
    assert_eq!(stopped.attempts(), 1);
    assert!(
        matches!(
            stopped.reason(),
            StopReason::Strategy(TokenAcquisitionFailed::RateLimited { attempts: 1, .. })
        ),
        "{stopped:?}"
    );
    assert!(
        stopped
            .to_string()
            .starts_with("gave up after 1 attempts: rate limited")
    );
}

#[test]
fn a_loop_or_an_attempt_dropped_before_it_ends_abandons_its_token() {
    let strategy = Counting::new(strategy());
    let retry = Retry::new(&strategy);

    // Dropped before the first attempt.
    drop(retry.request());
    assert_eq!(strategy.abandoned(), 1);

    // Dropped while the attempt is in flight (a cancelled operation).
    let Next::Send(attempt) = retry.request().next() else {
        panic!("standard mode sends at once")
    };
    drop(attempt);
    assert_eq!(strategy.abandoned(), 2);

    // Dropped during the backoff.
    let Next::Send(attempt) = retry.request().next() else {
        panic!("standard mode sends at once")
    };
    let AfterFailure::Retry(pending) = attempt.failed(&Classified::unknown().with_status(503))
    else {
        panic!("a 503 is retried")
    };
    assert_eq!(pending.attempts_made(), 1);
    drop(pending);
    assert_eq!(strategy.abandoned(), 3);

    // Ended requests abandon nothing.
    let Next::Send(attempt) = retry.request().next() else {
        panic!("standard mode sends at once")
    };
    attempt.succeeded();
    assert_eq!(strategy.abandoned(), 3);
}

#[test]
fn an_owned_loop_outlives_its_executor() {
    let retry = Retry::new(std::sync::Arc::new(strategy()));
    let request = retry.clone().into_request();
    drop(retry);
    let Next::Send(attempt) = request.next() else {
        panic!("standard mode sends at once")
    };
    assert_eq!(attempt.number(), 1);
    attempt.succeeded();
}
