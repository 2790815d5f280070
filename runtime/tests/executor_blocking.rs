//! The blocking executor, `Retry::run` and `Retry::run_classified`, in
//! virtual time: every sleep is recorded, none is real.

#[path = "common/counting.rs"]
mod counting;
mod executor_support;

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use counting::Counting;
use executor_support::{DelayedStart, Failure, NoInitialToken, Sleeps, ms, standard};
use rebound_runtime::{Classified, StopReason};
use rebound_runtime::{
    ErrorFault, Retry, RetryQuota, RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed,
};

/// Runs `op` with `strategy`, recording sleeps on a virtual clock.
fn retry<S: RetryStrategy>(
    strategy: S,
    sleeps: &Sleeps,
) -> Retry<S, impl Fn(Duration) + '_, rebound_runtime::time::ManualClock> {
    Retry::new(strategy)
        .sleeper(|delay| sleeps.sleep(delay))
        .clock(sleeps.clock.clone())
}

/// Fails with `failure` until attempt `succeed_on`, counting calls.
fn flaky(
    calls: &Cell<u32>,
    succeed_on: u32,
    failure: Failure,
) -> impl FnMut(u32) -> Result<u32, Failure> + '_ {
    move |attempt| {
        calls.set(calls.get() + 1);
        assert_eq!(
            attempt,
            calls.get(),
            "the operation gets the 1-based attempt number"
        );
        if attempt >= succeed_on {
            Ok(attempt)
        } else {
            Err(failure)
        }
    }
}

#[test]
fn success_on_the_first_attempt_records_success_and_refunds_the_quota() {
    let strategy = standard();
    strategy.quota().try_acquire(10).unwrap(); // another request's retry
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let value = retry(&strategy, &sleeps).run(flaky(&calls, 1, Failure::Unavailable));

    assert_eq!(value, Ok(1));
    assert_eq!(calls.get(), 1);
    assert_eq!(sleeps.slept(), []);
    // record_success refunded the success refund (1): 490 + 1.
    assert_eq!(strategy.quota().available(), 491);
}

#[test]
fn retries_sleep_exactly_the_token_delays_then_succeed() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .max_attempts(4)
        .build();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let value = retry(&strategy, &sleeps).run(flaky(&calls, 4, Failure::Unavailable));

    assert_eq!(value, Ok(4));
    // 0.5 * 1 s * 2^(n - 1) before attempts 2, 3, 4.
    assert_eq!(sleeps.slept(), [ms(500), ms(1000), ms(2000)]);
    assert_eq!(sleeps.clock.elapsed(), ms(3500));
    // Three retries at 5 each, then the last retry's cost (5) refunded.
    assert_eq!(strategy.quota().available(), 500 - 15 + 5);
}

#[test]
fn a_failure_that_is_not_retryable_stops_after_one_attempt() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .run(flaky(&calls, 10, Failure::BadRequest))
        .unwrap_err();

    assert_eq!(calls.get(), 1);
    assert_eq!(err.attempts(), 1);
    assert_eq!(err.last_error(), Some(&Failure::BadRequest));
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
    );
    assert_eq!(sleeps.slept(), []);
    assert_eq!(strategy.quota().available(), 500);
}

#[test]
fn attempts_are_exhausted_after_three() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .run(flaky(&calls, 10, Failure::Unavailable))
        .unwrap_err();

    assert_eq!(calls.get(), 3);
    assert_eq!(err.attempts(), 3);
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted {
            attempts: 3,
            max_attempts: 3
        })
    );
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
    assert_eq!(strategy.quota().available(), 490); // no refund on failure
}

#[test]
fn an_exhausted_quota_stops_retrying() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .quota(Arc::new(RetryQuota::new(7)))
        .build();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .run(flaky(&calls, 10, Failure::Unavailable))
        .unwrap_err();

    // The first retry costs 5 of 7; the second cannot be paid.
    assert_eq!(calls.get(), 2);
    assert_eq!(err.attempts(), 2);
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::QuotaExhausted {
            attempts: 2,
            cost: 5,
            available: 2,
            delay_before_giving_up: None,
        })
    );
    assert_eq!(sleeps.slept(), [ms(500)]);
}

#[test]
fn a_retry_past_the_budget_is_not_slept() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .budget(ms(1200))
        .run(flaky(&calls, 10, Failure::Unavailable))
        .unwrap_err();

    // 500 ms fit in 1.2 s; then 1 s does not fit in the 700 ms left.
    assert_eq!(calls.get(), 2);
    assert_eq!(sleeps.slept(), [ms(500)]);
    assert_eq!(err.attempts(), 2);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: ms(1200),
            elapsed: ms(500),
            next_delay: ms(1000),
        }
    );
    assert!(err.reason().is_budget_exhausted());
    assert!(err.reason().strategy().is_none());
}

#[test]
fn time_spent_in_attempts_counts_against_the_budget() {
    let strategy = standard();
    let sleeps = Sleeps::new();

    let err = retry(&strategy, &sleeps)
        .budget(ms(1000))
        .run(|_attempt| {
            sleeps.clock.advance(ms(600)); // a slow attempt
            Err::<(), _>(Failure::Unavailable)
        })
        .unwrap_err();

    // After 600 ms, a 500 ms retry would start at 1.1 s: past the budget.
    assert_eq!(err.attempts(), 1);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: ms(1000),
            elapsed: ms(600),
            next_delay: ms(500),
        }
    );
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn a_retry_that_fits_the_budget_is_made() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let value =
        retry(&strategy, &sleeps)
            .budget(ms(1501))
            .run(flaky(&calls, 3, Failure::Unavailable));

    assert_eq!(value, Ok(3));
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
}

#[test]
fn a_failed_initial_token_still_makes_exactly_one_attempt() {
    let strategy = NoInitialToken::default();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .run(flaky(&calls, 10, Failure::Unavailable))
        .unwrap_err();

    assert_eq!(calls.get(), 1);
    assert_eq!(err.attempts(), 1);
    assert_eq!(
        *err.reason(),
        StopReason::NoInitialToken(NoInitialToken::WHY)
    );
    assert_eq!(err.reason().strategy(), Some(&NoInitialToken::WHY));
    assert_eq!(strategy.refreshes.load(Ordering::Relaxed), 0);

    // A success without a token has nothing to hand back.
    let calls = Cell::new(0);
    let value = retry(&strategy, &sleeps).run(flaky(&calls, 1, Failure::Unavailable));
    assert_eq!(value, Ok(1));
    assert_eq!(strategy.successes.load(Ordering::Relaxed), 0);
    assert_eq!(sleeps.slept(), []);
}

#[test]
fn long_polling_sleeps_before_giving_up_on_an_exhausted_quota() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .long_polling(true)
        .quota(Arc::new(RetryQuota::new(0)))
        .build();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .run(flaky(&calls, 10, Failure::Unavailable))
        .unwrap_err();

    assert_eq!(calls.get(), 1);
    assert_eq!(
        err.reason().strategy().unwrap().delay_before_giving_up(),
        Some(ms(500))
    );
    assert_eq!(sleeps.slept(), [ms(500)]);
}

#[test]
fn the_long_polling_sleep_is_cut_at_the_budget() {
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .long_polling(true)
        .quota(Arc::new(RetryQuota::new(0)))
        .build();
    let sleeps = Sleeps::new();

    let err = retry(&strategy, &sleeps)
        .budget(ms(300))
        .run(|_attempt| {
            sleeps.clock.advance(ms(100));
            Err::<(), _>(Failure::Unavailable)
        })
        .unwrap_err();

    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::QuotaExhausted { .. })
    ));
    assert_eq!(sleeps.slept(), [ms(200)]);
}

#[test]
fn the_initial_token_delay_is_slept_before_the_first_attempt() {
    let sleeps = Sleeps::new();
    let strategy = DelayedStart::new(ms(250));

    let value = retry(&strategy, &sleeps)
        .budget(ms(300))
        .run(Ok::<_, Failure>);

    assert_eq!(value, Ok(1));
    assert_eq!(sleeps.slept(), [ms(250)]);
}

#[test]
fn the_budget_bounds_the_wait_before_the_first_attempt_too() {
    // Issue #8: a 30 s budget waited 59 s before the first attempt, then
    // succeeded. The wait is not slept and no attempt is made.
    let sleeps = Sleeps::new();
    let strategy = DelayedStart::new(Duration::from_secs(59));
    let calls = std::cell::Cell::new(0);

    let err = retry(&strategy, &sleeps)
        .budget(Duration::from_secs(30))
        .run(|attempt| {
            calls.set(calls.get() + 1);
            Ok::<_, Failure>(attempt)
        })
        .unwrap_err();

    assert_eq!(calls.get(), 0);
    assert!(sleeps.slept().is_empty(), "{:?}", sleeps.slept());
    assert_eq!(err.attempts(), 0);
    assert_eq!(err.last_error(), None);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: Duration::from_secs(30),
            elapsed: Duration::ZERO,
            next_delay: Duration::from_secs(59),
        }
    );
    assert!(
        err.to_string()
            .starts_with("gave up before the first attempt")
    );
}

/// A foreign error type that implements no retry trait.
#[derive(Debug, PartialEq)]
struct HttpStatus(u16);

fn classify(status: &HttpStatus) -> Classified {
    match status.0 {
        429 => Classified::retryable().with_throttle(true).with_status(429),
        status => Classified::unknown().with_status(status),
    }
}

#[test]
fn the_classifier_closure_decides_retries() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let statuses = [503, 429, 404];

    let err = retry(&strategy, &sleeps)
        .run_classified(
            |attempt| Err::<(), _>(HttpStatus(statuses[attempt as usize - 1])),
            classify,
        )
        .unwrap_err();

    // 503 (a server fault) and 429 (a throttle) retry; 404 (client) stops.
    assert_eq!(err.attempts(), 3);
    assert_eq!(err.last_error(), Some(&HttpStatus(404)));
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 3 })
    );
    assert_eq!(sleeps.slept(), [ms(500), ms(1000)]);
}

#[test]
fn the_classifier_closure_may_return_any_failure_info() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let value = retry(&strategy, &sleeps).run_classified(
        |attempt| {
            calls.set(attempt);
            if attempt < 2 {
                Err("connection reset")
            } else {
                Ok("done")
            }
        },
        // An io::Error built from the message: a transport failure.
        |_message: &&str| std::io::Error::from(std::io::ErrorKind::ConnectionReset),
    );

    assert_eq!(value, Ok("done"));
    assert_eq!(calls.get(), 2);
    assert_eq!(sleeps.slept(), [ms(500)]);
}

#[test]
fn classified_fault_follows_the_status_unless_declared() {
    use rebound_runtime::ErrorInfo;
    assert_eq!(
        Classified::unknown().with_status(503).fault(),
        ErrorFault::Server
    );
    assert_eq!(
        Classified::unknown().with_status(404).fault(),
        ErrorFault::Client
    );
    assert_eq!(Classified::unknown().fault(), ErrorFault::Other);
    assert_eq!(Classified::default(), Classified::unknown());
    assert_eq!(
        Classified::unknown()
            .with_status(503)
            .with_fault(ErrorFault::Client)
            .fault(),
        ErrorFault::Client
    );
}

#[test]
fn a_strategy_behind_an_arc_dyn_works() {
    let strategy: Arc<dyn RetryStrategy> = Arc::new(standard());
    let sleeps = Sleeps::new();
    let calls = Cell::new(0);

    let value = retry(strategy, &sleeps).run(flaky(&calls, 2, Failure::Unavailable));
    assert_eq!(value, Ok(2));
}

#[test]
fn an_executor_runs_many_requests() {
    let strategy = standard();
    let sleeps = Sleeps::new();
    let retry = retry(&strategy, &sleeps);
    for _ in 0..3 {
        let calls = Cell::new(0);
        assert_eq!(retry.run(flaky(&calls, 2, Failure::Unavailable)), Ok(2));
    }
    assert_eq!(sleeps.slept(), [ms(500); 3]);
    assert_eq!(strategy.quota().available(), 500);
}

#[test]
fn the_manual_clock_is_a_sleeper() {
    let strategy = standard();
    let clock = rebound_runtime::time::ManualClock::new();
    let err = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .run(|_attempt| Err::<(), _>(Failure::Unavailable))
        .unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(clock.elapsed(), ms(1500));
}

/// An operation that panics unwinds through the executor, which hands the
/// request's token back as abandoned on the way (so an adaptive strategy's
/// send line does not keep its place); a request that ends normally
/// abandons nothing.
#[test]
fn a_panicking_operation_abandons_its_token() {
    let sleeps = Sleeps::new();
    let strategy = Counting::new(standard());
    let retry = retry(&strategy, &sleeps);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        retry.run(|attempt| -> Result<(), Failure> {
            if attempt == 2 {
                panic!("the operation panics");
            }
            Err(Failure::Unavailable)
        })
    }));
    assert!(panicked.is_err());
    assert_eq!(strategy.abandoned(), 1);
    assert_eq!(retry.run(|_| Ok::<_, Failure>(())), Ok(()));
    assert_eq!(strategy.abandoned(), 1);
}
