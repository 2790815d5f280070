//! The async executor, `Retry::run_async` and `Retry::run_async_classified`,
//! driven by a hand-written `block_on` in virtual time.

mod executor_support;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use executor_support::{
    Failure, NoInitialToken, Sleeps, assert_a_refusal_yields_once,
    assert_dropping_leaves_the_send_line, block_on, ms, standard, throttled_adaptive,
    throttled_fail_fast,
};
use rebound_runtime::{Classified, StopReason, time::AsyncSleeper};
use rebound_runtime::{
    Retry, RetryQuota, RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed,
    time::ManualClock,
};

fn retry<S: RetryStrategy>(
    strategy: S,
    sleeps: &Sleeps,
) -> Retry<S, impl AsyncSleeper + '_, ManualClock> {
    Retry::new(strategy)
        .sleeper(|delay| sleeps.sleep_async(delay))
        .clock(sleeps.clock.clone())
}

/// An async operation failing with `failure` until attempt `succeed_on`.
fn flaky(
    calls: &AtomicU32,
    succeed_on: u32,
    failure: Failure,
) -> impl FnMut(u32) -> std::future::Ready<Result<u32, Failure>> + '_ {
    move |attempt| {
        let call = calls.fetch_add(1, Ordering::Relaxed) + 1;
        assert_eq!(attempt, call);
        std::future::ready(if attempt >= succeed_on {
            Ok(attempt)
        } else {
            Err(failure)
        })
    }
}

#[test]
fn success_on_the_first_attempt_records_success() {
    let strategy = standard();
    strategy.quota().try_acquire(10).unwrap();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let value =
        block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 1, Failure::Unavailable)));

    assert_eq!(value, Ok(1));
    assert_eq!(sleeps.slept(), []);
    assert_eq!(strategy.quota().available(), 491);
}

#[test]
fn retries_sleep_exactly_the_token_delays_then_succeed() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    // An `async` block that awaits something between attempts.
    let value = block_on(retry(&strategy, &sleeps).run_async(|attempt| {
        calls.fetch_add(1, Ordering::Relaxed);
        async move {
            std::future::ready(()).await;
            if attempt < 3 {
                Err(Failure::Unavailable)
            } else {
                Ok(attempt)
            }
        }
    }));

    assert_eq!(value, Ok(3));
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
    assert_eq!(strategy.quota().available(), 495); // 10 taken, last retry's 5 refunded
}

#[test]
fn a_failure_that_is_not_retryable_stops_after_one_attempt() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 9, Failure::BadRequest)))
        .unwrap_err();

    assert_eq!(err.attempts(), 1);
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
    );
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn attempts_are_exhausted_after_three() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 9, Failure::Unavailable)))
        .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert_eq!(err.last_error(), Some(&Failure::Unavailable));
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted {
            attempts: 3,
            max_attempts: 3
        })
    );
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
}

#[test]
fn an_exhausted_quota_stops_retrying() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .quota(Arc::new(RetryQuota::new(4)))
        .build();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 9, Failure::Unavailable)))
        .unwrap_err();

    assert_eq!(err.attempts(), 1);
    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::QuotaExhausted {
            cost: 5,
            available: 4,
            ..
        })
    ));
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn a_retry_past_the_budget_is_not_slept() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).budget(ms(1000)).run_async(flaky(
        &calls,
        9,
        Failure::Unavailable,
    )))
    .unwrap_err();

    assert_eq!(err.attempts(), 2);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: ms(1000),
            elapsed: ms(500),
            next_delay: ms(1000),
        }
    );
    assert_eq!(sleeps.slept(), [ms(500)]);
}

#[test]
fn a_failed_initial_token_still_makes_exactly_one_attempt() {
    let strategy = NoInitialToken::default();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 9, Failure::Unavailable)))
        .unwrap_err();

    assert_eq!(calls.load(Ordering::Relaxed), 1);
    assert_eq!(
        *err.reason(),
        StopReason::NoInitialToken(NoInitialToken::WHY)
    );
    assert_eq!(strategy.refreshes.load(Ordering::Relaxed), 0);
}

#[test]
fn long_polling_sleeps_before_giving_up() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .long_polling(true)
        .quota(Arc::new(RetryQuota::new(0)))
        .build();
    let sleeps = Sleeps::new();
    let calls = AtomicU32::new(0);

    let err = block_on(retry(&strategy, &sleeps).run_async(flaky(&calls, 9, Failure::Unavailable)))
        .unwrap_err();

    assert_eq!(err.attempts(), 1);
    assert_eq!(sleeps.slept(), [ms(500)]);
}

#[test]
fn the_classifier_closure_decides_retries() {
    let strategy = standard();
    let sleeps = Sleeps::new();

    let err = block_on(retry(&strategy, &sleeps).run_async_classified(
        |attempt| async move { Err::<(), _>(if attempt < 3 { 500_u16 } else { 403 }) },
        |status: &u16| Classified::unknown().with_status(*status),
    ))
    .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert_eq!(err.last_error(), Some(&403));
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 3 })
    );
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
}

#[test]
fn the_manual_clock_is_an_async_sleeper() {
    let strategy = standard();
    let clock = ManualClock::new();
    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone());

    let err = block_on(retry.run_async(|_attempt| async { Err::<(), _>(Failure::Unavailable) }))
        .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert_eq!(clock.elapsed(), ms(1500));
}

fn assert_send<T: Send>(value: T) -> T {
    value
}

#[test]
fn the_future_is_send_when_its_parts_are() {
    let strategy = Arc::new(standard());
    let clock = ManualClock::new();
    let retry = Retry::new(Arc::clone(&strategy))
        .sleeper(clock.clone())
        .clock(clock.clone())
        .budget(Duration::from_secs(60));

    let future = assert_send(retry.run_async(|attempt| async move {
        if attempt < 2 {
            Err(Failure::Unavailable)
        } else {
            Ok(attempt)
        }
    }));
    assert_eq!(block_on(future), Ok(2));

    let future = assert_send(retry.run_async_classified(
        |_attempt| async { Err::<(), _>(String::from("nope")) },
        |_message: &String| Classified::not_retryable(),
    ));
    assert_eq!(block_on(future).unwrap_err().attempts(), 1);
}

/// A sleeper future that is pending once before it completes, as a real
/// timer is: the executor must be woken and polled again.
struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

#[test]
fn a_pending_sleep_is_awaited() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let retry = Retry::new(&strategy).sleeper(|delay| {
        sleeps.sleep(delay);
        PendingOnce(false)
    });

    let value = block_on(retry.run_async(|attempt| async move {
        if attempt < 3 {
            Err(Failure::Unavailable)
        } else {
            Ok(attempt)
        }
    }));

    assert_eq!(value, Ok(3));
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
}

/// A request waiting for a send token stands in the limiter's line; its
/// future dropped (cancelled), it leaves the line at once, not when its
/// place lapses: a caller asking next is no longer told to wait for a token
/// for it too.
#[test]
fn a_cancelled_request_leaves_the_send_line_at_once() {
    let clock = ManualClock::new();
    let strategy = throttled_adaptive(&clock);
    let retry = Retry::new(&strategy)
        .sleeper(|_| std::future::pending::<()>())
        .clock(clock.clone());
    assert_dropping_leaves_the_send_line(
        &strategy,
        retry.run_async(|_| async { Ok::<_, Failure>(()) }),
    );
}

#[test]
fn a_request_refused_before_its_first_attempt_yields_once() {
    let sleeps = Sleeps::default();
    let strategy = throttled_fail_fast(&sleeps.clock);
    let retry = retry(&strategy, &sleeps);
    let sent = AtomicU32::new(0);

    let err = assert_a_refusal_yields_once(retry.run_async(|_attempt| {
        sent.fetch_add(1, Ordering::Relaxed);
        async { Ok::<_, Failure>(()) }
    }))
    .unwrap_err();

    assert_eq!(sent.load(Ordering::Relaxed), 0);
    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::RateLimited { attempts: 0, .. })
    ));
}
