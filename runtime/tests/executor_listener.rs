//! The executors tell a listener of every retry and of the give-up, blocking
//! and async alike, whatever ends the request.

use std::sync::Mutex;
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::{GiveUpEvent, RetryEvent, RetryListener, StopReason, time::ManualClock};
use rebound_runtime::{Retry, StandardRetryStrategy, TokenAcquisitionFailed};

fn strategy() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// What the listener heard, as plain values.
#[derive(Debug, Clone, PartialEq)]
enum Heard {
    Retry {
        attempt: u32,
        delay: Duration,
        status: Option<u16>,
    },
    GiveUp {
        attempts: u32,
        status: Option<u16>,
        reason: String,
    },
}

#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<Heard>>);

impl RetryListener for Recorder {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self.0.lock().unwrap().push(Heard::Retry {
            attempt: event.attempt(),
            delay: event.delay(),
            status: event.failure().http_status(),
        });
    }

    fn on_give_up(&self, event: &GiveUpEvent<'_>) {
        let reason = match event.reason() {
            StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted { .. }) => "exhausted",
            StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { .. }) => "not retryable",
            StopReason::BudgetExhausted { .. } => "budget",
            _ => "other",
        };
        self.0.lock().unwrap().push(Heard::GiveUp {
            attempts: event.attempts(),
            status: event.failure().and_then(|f| f.http_status()),
            reason: reason.to_owned(),
        });
    }
}

impl Recorder {
    fn take(&self) -> Vec<Heard> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

fn retry(status: u16, attempt: u32, ms: u64) -> Heard {
    Heard::Retry {
        attempt,
        delay: Duration::from_millis(ms),
        status: Some(status),
    }
}

fn give_up(attempts: u32, status: Option<u16>, reason: &str) -> Heard {
    Heard::GiveUp {
        attempts,
        status,
        reason: reason.to_owned(),
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[test]
fn retries_then_success_tell_each_retry_and_no_give_up() {
    let strategy = strategy();
    let recorder = Recorder::default();
    let clock = ManualClock::new();
    let executor = Retry::new(&strategy)
        .sleeper(clock.clone())
        .listener(&recorder);
    let busy = HttpErrorResponse::new(503);
    let value = executor.run(|attempt| {
        if attempt < 3 {
            Err(busy.clone())
        } else {
            Ok(attempt)
        }
    });
    assert_eq!(value.unwrap(), 3);
    assert_eq!(recorder.take(), [retry(503, 1, 500), retry(503, 2, 1000)]);

    // The same through the async executor.
    let executor = Retry::new(&strategy)
        .sleeper(|_: Duration| std::future::ready(()))
        .listener(&recorder);
    let value = block_on(executor.run_async(|attempt| {
        let busy = busy.clone();
        async move { if attempt < 3 { Err(busy) } else { Ok(attempt) } }
    }));
    assert_eq!(value.unwrap(), 3);
    assert_eq!(recorder.take(), [retry(503, 1, 500), retry(503, 2, 1000)]);
}

#[test]
fn a_request_that_fails_for_good_tells_the_give_up_once() {
    let strategy = strategy();
    let recorder = Recorder::default();
    let executor = Retry::new(&strategy).sleeper(|_| {}).listener(&recorder);
    let busy = HttpErrorResponse::new(503);
    let _ = executor.run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(
        recorder.take(),
        [
            retry(503, 1, 500),
            retry(503, 2, 1000),
            give_up(3, Some(503), "exhausted")
        ]
    );
    let bad = HttpErrorResponse::new(400);
    let _ = executor.run(|_| Err::<(), _>(bad.clone()));
    assert_eq!(recorder.take(), [give_up(1, Some(400), "not retryable")]);
}

#[test]
fn a_budget_that_stops_the_next_attempt_tells_the_last_failure() {
    let strategy = strategy();
    let recorder = Recorder::default();
    let clock = ManualClock::new();
    let executor = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .budget(Duration::from_millis(800))
        .listener(&recorder);
    let busy = HttpErrorResponse::new(502);
    let _ = executor.run(|_| Err::<(), _>(busy.clone()));
    // 500 ms fits in the budget; the next 1 s does not.
    assert_eq!(
        recorder.take(),
        [
            retry(502, 1, 500),
            retry(502, 2, 1000),
            give_up(2, Some(502), "budget")
        ]
    );
    // Async alike.
    let executor = Retry::new(&strategy)
        .sleeper(|delay| {
            clock.advance(delay);
            std::future::ready(())
        })
        .clock(clock.clone())
        .budget(Duration::from_millis(800))
        .listener(&recorder);
    let _ = block_on(executor.run_async(|_| async { Err::<(), _>(busy.clone()) }));
    assert_eq!(
        recorder.take(),
        [
            retry(502, 1, 500),
            retry(502, 2, 1000),
            give_up(2, Some(502), "budget")
        ]
    );
}

#[test]
fn closures_hear_the_same_and_one_hook_may_be_left_out() {
    let strategy = strategy();
    let retries = Mutex::new(Vec::new());
    let give_ups = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(|event| retries.lock().unwrap().push(event.attempt()))
        .on_give_up(|event| give_ups.lock().unwrap().push(event.attempts()));
    let busy = HttpErrorResponse::new(429).with_code("Throttling");
    let _ = executor.run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(*retries.lock().unwrap(), [1, 2]);
    assert_eq!(*give_ups.lock().unwrap(), [3]);

    let only_retries = Mutex::new(0);
    let executor = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(|_| *only_retries.lock().unwrap() += 1);
    let _ = executor.run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(*only_retries.lock().unwrap(), 2);
}
