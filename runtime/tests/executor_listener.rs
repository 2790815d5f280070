//! The executors tell a listener of every retry and of the give-up, blocking
//! and async alike, whatever ends the request; the events say why each retry
//! is made and what the strategy has left, asking it only when read.

mod common;

use common::counting::Counting;
use std::sync::Mutex;
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
use rebound_runtime::{
    AdaptiveRetryStrategy, Classified, FailureInfo, RetryKind, RetryStrategy, RetryToken,
    TokenIssuer,
};
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
    // 500 ms fits in the budget; the next 1 s does not: that retry, granted
    // by the strategy, is heard as the give-up alone.
    assert_eq!(
        recorder.take(),
        [retry(502, 1, 500), give_up(2, Some(502), "budget")]
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
        [retry(502, 1, 500), give_up(2, Some(502), "budget")]
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

/// What a retry event said about why and what the strategy has left.
type Why = (RetryKind, Option<u32>, Option<f64>);

/// Records each retry's kind, quota left and send rate.
fn why_of(heard: &Mutex<Vec<Why>>) -> impl Fn(&RetryEvent<'_>) + '_ {
    |event| {
        heard
            .lock()
            .unwrap()
            .push((event.kind(), event.quota_left(), event.send_rate()))
    }
}

#[test]
fn retry_events_say_why_and_what_the_standard_strategy_has_left() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .max_attempts(4)
        .build();
    let heard = Mutex::new(Vec::new());
    let quota_at_give_up = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(ManualClock::new())
        .on_retry(why_of(&heard))
        .on_give_up(|event| {
            quota_at_give_up
                .lock()
                .unwrap()
                .push((event.quota_left(), event.send_rate()));
        });
    // A transient status, a timeout, then a throttling code on a 400 the
    // failure does not flag as a throttle: standard mode's rules say it is.
    let failures = [
        Classified::unknown().with_status(503),
        Classified::unknown().with_timeout(true),
        Classified::unknown()
            .with_status(400)
            .with_code("Throttling"),
    ];
    let value = executor.run(|attempt| match failures.get(attempt as usize - 1) {
        Some(failure) => Err(failure.clone()),
        None => Ok(attempt),
    });
    assert_eq!(value.unwrap(), 4);
    // Behaviour 2.0 charges 5 for a transient error, 10 for a timeout, 5 for
    // a throttle.
    assert_eq!(
        std::mem::take(&mut *heard.lock().unwrap()),
        [
            (RetryKind::Transient, Some(495), None),
            (RetryKind::Timeout, Some(485), None),
            (RetryKind::Throttle, Some(480), None),
        ]
    );
    assert!(quota_at_give_up.lock().unwrap().is_empty());
    // The success refunded the last retry's 5.
    assert_eq!(strategy.quota().available(), 485);

    let busy = HttpErrorResponse::new(503);
    let _ = executor.run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(
        *heard.lock().unwrap(),
        [
            (RetryKind::Transient, Some(480), None),
            (RetryKind::Transient, Some(475), None),
            (RetryKind::Transient, Some(470), None),
        ]
    );
    assert_eq!(*quota_at_give_up.lock().unwrap(), [(Some(470), None)]);
}

#[test]
fn adaptive_retry_events_report_the_send_rate_once_throttled() {
    let clock = ManualClock::new();
    let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
    let strategy = AdaptiveRetryStrategy::builder(standard)
        .clock(clock.clone())
        .build();
    let heard = Mutex::new(Vec::new());
    let rate_at_give_up = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .on_retry(why_of(&heard))
        .on_give_up(|event| {
            rate_at_give_up
                .lock()
                .unwrap()
                .push((event.quota_left(), event.send_rate()));
        });
    let failures = [
        HttpErrorResponse::new(503),
        HttpErrorResponse::new(400).with_code("Throttling"),
    ];
    let value = executor.run(|attempt| {
        clock.advance(Duration::from_millis(10)); // each attempt takes 10 ms
        match failures.get(attempt as usize - 1) {
            Some(failure) => Err(failure.clone()),
            None => Ok(attempt),
        }
    });
    assert_eq!(value.unwrap(), 3);
    let heard = std::mem::take(&mut *heard.lock().unwrap());
    assert_eq!(heard.len(), 2);
    // Before the first throttle the rate limiter is off: no send rate.
    assert_eq!(heard[0], (RetryKind::Transient, Some(495), None));
    // The throttle turned it on; the event reads the rate it now holds sends to.
    let (kind, quota_left, send_rate) = heard[1];
    assert_eq!((kind, quota_left), (RetryKind::Throttle, Some(490)));
    let send_rate = send_rate.expect("the limiter is on after a throttle");
    assert!(send_rate > 0.0 && send_rate.is_finite(), "{send_rate}");

    // A give-up reads them too.
    let bad = HttpErrorResponse::new(400);
    let _ = executor.run(|_| Err::<(), _>(bad.clone()));
    let at_give_up = std::mem::take(&mut *rate_at_give_up.lock().unwrap());
    assert_eq!(at_give_up.len(), 1);
    assert_eq!(at_give_up[0].0, strategy.standard().quota_left());
    assert!(at_give_up[0].1.is_some_and(|rate| rate > 0.0));
}

#[test]
fn legacy_retry_events_follow_the_presets_rules_and_have_no_quota() {
    // Java 1.x counts a bare 429 as a throttle, which standard mode 2.0 does
    // not even retry. Through a `Box<dyn RetryStrategy>`, which forwards.
    let strategy: Box<dyn RetryStrategy> = Box::new(
        LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
            .random(|| 0.5)
            .build(),
    );
    let heard = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(ManualClock::new())
        .on_retry(why_of(&heard));
    let failures = [HttpErrorResponse::new(429), HttpErrorResponse::new(502)];
    let value = executor.run(|attempt| match failures.get(attempt as usize - 1) {
        Some(failure) => Err(failure.clone()),
        None => Ok(attempt),
    });
    assert_eq!(value.unwrap(), 3);
    assert_eq!(
        std::mem::take(&mut *heard.lock().unwrap()),
        [
            (RetryKind::Throttle, None, None),
            (RetryKind::Transient, None, None)
        ]
    );
}

/// A strategy with no rules of its own about kinds: retries everything
/// retryable, twice, without delay.
#[derive(Debug, Default)]
struct Plain(TokenIssuer);

impl RetryStrategy for Plain {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Ok(self.0.initial_token())
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        _failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        if token.attempt() >= 3 {
            return Err(TokenAcquisitionFailed::AttemptsExhausted {
                attempts: token.attempt(),
                max_attempts: 3,
            });
        }
        self.0.next_token(token, Duration::ZERO, None)
    }
    fn record_success(&self, _token: RetryToken) {}
}

#[test]
fn by_default_the_kind_is_the_failures_own_flags_and_nothing_is_left() {
    let strategy = Plain::default();
    let heard = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(why_of(&heard));
    let failures = [
        // A throttling code alone does not make a throttle here.
        Classified::retryable().with_code("Throttling"),
        Classified::retryable().with_throttle(true),
    ];
    let _ = executor.run(|attempt| match failures.get(attempt as usize - 1) {
        Some(failure) => Err(failure.clone()),
        None => Ok(()),
    });
    assert_eq!(
        std::mem::take(&mut *heard.lock().unwrap()),
        [
            (RetryKind::Transient, None, None),
            (RetryKind::Throttle, None, None)
        ]
    );
    let io = std::io::Error::from(std::io::ErrorKind::TimedOut);
    assert_eq!(Plain::default().retry_kind(&io), RetryKind::Timeout);
}

#[test]
fn events_ask_the_strategy_only_when_read() {
    let strategy = Counting::new(strategy());
    let busy = HttpErrorResponse::new(503);
    // No listener, and listeners that do not ask: the strategy is not asked.
    let _ = Retry::new(&strategy)
        .sleeper(|_| {})
        .run(|_| Err::<(), _>(busy.clone()));
    let _ = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(|event| assert!(event.attempt() > 0))
        .on_give_up(|event| assert_eq!(event.attempts(), 3))
        .run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(strategy.asked(), 0);
    // Each read asks once.
    let _ = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(|event| {
            let _ = (event.kind(), event.quota_left());
        })
        .on_give_up(|event| {
            let _ = event.send_rate();
        })
        .run(|_| Err::<(), _>(busy.clone()));
    assert_eq!(strategy.asked(), 2 * 2 + 1);
}

#[test]
fn events_debug_what_they_would_answer() {
    let strategy = strategy();
    let printed = Mutex::new(Vec::new());
    let executor = Retry::new(&strategy)
        .sleeper(|_| {})
        .on_retry(|event| printed.lock().unwrap().push(format!("{event:?}")))
        .on_give_up(|event| printed.lock().unwrap().push(format!("{event:?}")));
    let throttled = HttpErrorResponse::new(400).with_code("Throttling");
    let _ = executor.run(|attempt| {
        if attempt < 2 {
            Err::<(), _>(throttled.clone())
        } else {
            Err(HttpErrorResponse::new(404))
        }
    });
    let printed = std::mem::take(&mut *printed.lock().unwrap());
    assert_eq!(printed.len(), 2);
    assert!(
        printed[0].contains("kind: Throttle, quota_left: Some(495), send_rate: None"),
        "{}",
        printed[0]
    );
    assert!(
        printed[1].starts_with("GiveUpEvent { attempts: 2, reason: Strategy(NotRetryable"),
        "{}",
        printed[1]
    );
    assert!(
        printed[1].contains("quota_left: Some(495)"),
        "{}",
        printed[1]
    );
}
