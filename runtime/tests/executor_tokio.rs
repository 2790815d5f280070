//! The tokio sleeper and clock (feature `tokio`), in tokio's paused time.
#![cfg(feature = "tokio")]

mod executor_support;

use std::time::Duration;

use executor_support::{Failure, ms, standard, throttled_fail_fast};
use rebound_runtime::Retry;
use rebound_runtime::{
    StopReason,
    time::{DefaultSleeper, TokioClock},
};

#[tokio::test(start_paused = true)]
async fn retries_sleep_on_tokio_s_timer() {
    let strategy = standard();
    let retry = Retry::new(&strategy)
        .sleeper(DefaultSleeper)
        .clock(TokioClock);
    let start = tokio::time::Instant::now();

    let value = retry
        .run_async(|attempt| async move {
            if attempt < 3 {
                Err(Failure::Unavailable)
            } else {
                Ok(attempt)
            }
        })
        .await;

    assert_eq!(value, Ok(3));
    // The paused clock auto-advances through each sleep: exactly 500 ms + 1 s.
    assert_eq!(start.elapsed(), ms(1500));
}

#[tokio::test(start_paused = true)]
async fn the_budget_reads_tokio_s_clock() {
    let strategy = standard();
    let retry = Retry::new(&strategy)
        .sleeper(DefaultSleeper)
        .clock(TokioClock)
        .budget(Duration::from_secs(1));

    let err = retry
        .run_async(|_attempt| async {
            tokio::time::sleep(ms(100)).await; // a slow attempt, in virtual time
            Err::<(), _>(Failure::Unavailable)
        })
        .await
        .unwrap_err();

    assert_eq!(err.attempts(), 2);
    assert_eq!(
        *err.reason(),
        StopReason::BudgetExhausted {
            budget: Duration::from_secs(1),
            elapsed: ms(700),
            next_delay: ms(1000),
        }
    );
}

#[tokio::test(start_paused = true)]
async fn a_closure_around_tokio_sleep_is_a_sleeper() {
    let strategy = standard();
    let retry = Retry::new(&strategy).sleeper(tokio::time::sleep);
    let start = tokio::time::Instant::now();

    let err = retry
        .run_async(|_attempt| async { Err::<(), _>(Failure::Unavailable) })
        .await
        .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert_eq!(start.elapsed(), ms(1500));
}

#[tokio::test(start_paused = true)]
async fn the_future_can_be_spawned() {
    let strategy = std::sync::Arc::new(standard());
    let task = tokio::spawn(async move {
        let retry = Retry::new(strategy)
            .sleeper(DefaultSleeper)
            .clock(TokioClock);
        retry
            .run_async(|attempt| async move {
                if attempt < 2 {
                    Err(Failure::Unavailable)
                } else {
                    Ok(attempt)
                }
            })
            .await
    });
    assert_eq!(task.await.unwrap(), Ok(2));
}

/// A caller looping on fail-fast refusals, on a one-thread runtime, must let
/// the other tasks run: each refusal yields to the scheduler.
#[tokio::test(flavor = "current_thread")]
async fn callers_looping_on_refusals_do_not_starve_other_tasks() {
    let clock = rebound_runtime::time::ManualClock::new();
    let strategy = throttled_fail_fast(&clock);
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Spawned first, so it is polled first.
    let looping = tokio::spawn({
        let ran = std::sync::Arc::clone(&ran);
        async move {
            let retry = Retry::new(&strategy)
                .sleeper(clock.clone())
                .clock(clock.clone());
            for _ in 0..1_000 {
                let refused = retry.run_async(|_| async { Ok::<_, Failure>(()) }).await;
                assert!(
                    refused.is_err(),
                    "the clock never moves: every send is refused"
                );
            }
            ran.load(std::sync::atomic::Ordering::Relaxed)
        }
    });
    let other = tokio::spawn({
        let ran = std::sync::Arc::clone(&ran);
        async move { ran.store(true, std::sync::atomic::Ordering::Relaxed) }
    });

    assert!(
        looping.await.unwrap(),
        "the other task ran while the loop did"
    );
    other.await.unwrap();
}

/// With the `tokio` feature the default sleeper awaits tokio's timer: no
/// `.sleeper(..)` needed.
#[tokio::test(start_paused = true)]
async fn the_default_sleeper_is_tokio_s_timer() {
    let strategy = standard();
    let retry = Retry::new(&strategy).clock(TokioClock);
    let start = tokio::time::Instant::now();

    let value = retry
        .run_async(|attempt| async move {
            if attempt < 2 {
                Err(Failure::Unavailable)
            } else {
                Ok(attempt)
            }
        })
        .await;

    assert_eq!(value, Ok(2));
    assert_eq!(start.elapsed(), ms(500));
}
