//! Issue #8, defect 1: in adaptive mode one request's backoff or retry-after
//! hint must delay only that request. Each scenario runs many requests
//! concurrently through one shared `AdaptiveRetryStrategy` with the real
//! async executor, in tokio's paused (virtual) time, and checks that the
//! unrelated requests waited no longer than the rate limiter's fill rate
//! implies (see `World::assert_waits_within_the_rate`). Before the fix, a
//! granted retry booked its send token at "now + backoff" and every request
//! behind it waited for that booking: ~3599 s after a 1 h hint, 59 s for a
//! retry the budget never sent.
#![cfg(feature = "tokio")]

mod many_callers;

use std::time::Duration;

use many_callers::{Outcome, Strategy, World, executor, throttled};
use rebound_runtime::StopReason;
use rebound_runtime::{
    AdaptiveRetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed,
    backoff::RetryAfterPolicy, rate_limiter::WaitPolicy,
};
use tokio::task::JoinSet;

const VICTIM: usize = usize::MAX;

fn strategy(standard: StandardRetryStrategy, mode: WaitPolicy) -> Strategy {
    AdaptiveRetryStrategy::builder(standard)
        .wait_policy(mode)
        .clock(rebound_runtime::time::TokioClock)
        .build()
}

fn honouring_hints_up_to(ceiling: Duration) -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .retry_after(RetryAfterPolicy::AtLeast { ceiling })
        .random(|| 0.5)
        .build()
}

/// Warm-up traffic at `per_second` for `secs` seconds, so the limiter has a
/// measured rate when the throttle comes; then one throttled request
/// (`victim`), then unrelated requests at `rate` per second for `for_secs`.
async fn scenario(
    world: &std::sync::Arc<World>,
    budget: Option<Duration>,
    victim: impl Fn(u32) -> many_callers::Response + Send + Sync + 'static,
    unrelated_per_second: u32,
    for_secs: u32,
) -> (Vec<(usize, Outcome)>, Outcome) {
    let exec = executor(world, budget);
    let mut warm_up = JoinSet::new();
    for i in 0..30 {
        let arrival = Duration::from_millis(100 * i);
        warm_up.spawn(world.request(exec.clone(), 1_000_000 + i as usize, arrival, |_| Ok(())));
    }
    warm_up.join_all().await;
    let victim_task =
        tokio::spawn(world.request(exec.clone(), VICTIM, Duration::from_secs(3), victim));

    let mut unrelated = JoinSet::new();
    let step = Duration::from_secs(1) / unrelated_per_second;
    for i in 0..(unrelated_per_second * for_secs) as usize {
        let arrival = Duration::from_millis(3_100) + step * i as u32;
        let request = world.request(exec.clone(), i, arrival, |_| Ok(()));
        unrelated.spawn(async move { (i, request.await) });
    }
    let mut outcomes = unrelated.join_all().await;
    outcomes.sort_by_key(|(id, _)| *id);
    // The victim's own retry may still be waiting for its hint: the test is
    // about everyone else. Dropping it abandons the retry unsent.
    let victim = if victim_task.is_finished() {
        victim_task.await.expect("victim")
    } else {
        victim_task.abort();
        Outcome {
            arrival: Duration::from_secs(3),
            first_send: Some(Duration::from_secs(3)),
            attempts: 1,
            result: Ok(()),
        }
    };
    (outcomes, victim)
}

#[tokio::test(start_paused = true)]
async fn a_one_hour_hint_delays_only_its_own_request() {
    let world = World::new(strategy(
        honouring_hints_up_to(Duration::from_secs(7200)),
        WaitPolicy::Block,
    ));
    let hour = Duration::from_secs(3600);
    let (outcomes, _victim) = scenario(
        &world,
        None,
        move |attempt| {
            if attempt == 1 {
                Err(throttled(Some(hour)))
            } else {
                Ok(())
            }
        },
        5,
        60,
    )
    .await;
    assert!(
        world.strategy.rate_limiter().is_enabled(),
        "the throttle engaged the limiter"
    );
    let report = world.assert_waits_within_the_rate(&outcomes);
    assert_eq!(report.count, 300, "every unrelated request was sent");
    assert!(report.longest < Duration::from_secs(3), "{report:?}");
    eprintln!("1 h hint, 5 req/s after it: {report:?}");
}

#[tokio::test(start_paused = true)]
async fn fail_fast_does_not_refuse_unrelated_requests_for_the_length_of_a_hint() {
    let world = World::new(strategy(
        honouring_hints_up_to(Duration::from_secs(7200)),
        WaitPolicy::FailFast,
    ));
    let hour = Duration::from_secs(3600);
    let (outcomes, _victim) = scenario(
        &world,
        None,
        move |attempt| {
            if attempt == 1 {
                Err(throttled(Some(hour)))
            } else {
                Ok(())
            }
        },
        5,
        60,
    )
    .await;
    let refused: Vec<Duration> = outcomes
        .iter()
        .filter(|(_, outcome)| outcome.first_send.is_none())
        .map(|(_, outcome)| outcome.arrival)
        .collect();
    for (_, outcome) in &outcomes {
        if outcome.first_send.is_none() {
            let err = outcome.result.as_ref().unwrap_err();
            assert!(matches!(
                err.reason(),
                StopReason::Strategy(TokenAcquisitionFailed::RateLimited { attempts: 0, .. })
            ));
        }
    }
    // Arrivals at 5/s stay below the fill rate: once the bucket has refilled
    // after the throttle (about a second), nothing is refused.
    assert!(
        refused.iter().all(|at| *at < Duration::from_secs(5)),
        "refused long after the throttle: {refused:?}"
    );
    assert!(refused.len() < 10, "{} of 300 refused", refused.len());
}

#[tokio::test(start_paused = true)]
async fn a_retry_the_budget_never_sends_holds_nothing_back() {
    let world = World::new(strategy(
        honouring_hints_up_to(Duration::from_secs(60)),
        WaitPolicy::Block,
    ));
    let hint = Duration::from_secs(59);
    let (outcomes, victim) = scenario(
        &world,
        Some(Duration::from_secs(30)),
        move |_| Err(throttled(Some(hint))),
        5,
        20,
    )
    .await;
    // The victim's retry was granted (59 s) but refused by its 30 s budget.
    let err = victim.result.as_ref().unwrap_err();
    assert!(err.reason().is_budget_exhausted(), "{err}");
    assert_eq!(victim.attempts, 1);
    let report = world.assert_waits_within_the_rate(&outcomes);
    assert!(report.longest < Duration::from_secs(3), "{report:?}");
}

#[tokio::test(start_paused = true)]
async fn a_throttled_request_s_backoffs_do_not_hold_back_unrelated_ones() {
    // Defaults, with AWS_MAX_ATTEMPTS=10: one request is throttled on every
    // attempt while unrelated requests arrive at 2/s for 120 s.
    let standard = StandardRetryStrategy::builder()
        .max_attempts(10)
        .random(|| 0.5)
        .build();
    let world = World::new(strategy(standard, WaitPolicy::Block));
    let (outcomes, victim) = scenario(&world, None, |_| Err(throttled(None)), 2, 120).await;
    assert_eq!(victim.attempts, 10, "the victim used all its attempts");
    let report = world.assert_waits_within_the_rate(&outcomes);
    eprintln!("10 throttled attempts, 2 req/s beside them: {report:?}");
    // Before the fix, 184 of 240 waited more than 0.5 s, tracking the
    // victim's backoffs (up to 20 s each).
    assert!(report.over_half_a_second < 24, "{report:?}");
    assert!(report.longest < Duration::from_secs(3), "{report:?}");
}
