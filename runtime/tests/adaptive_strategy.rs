//! `AdaptiveRetryStrategy`: the standard strategy's decisions, plus the rate
//! limiter's waits, fed by every attempt's outcome — in virtual time.

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::rate_limiter::ClientRateLimiter;
use rebound_runtime::{
    AcquireMode, AdaptivePartitions, AdaptiveRetryStrategy, ManualClock, Retry, RetryStrategy,
    StandardRetryStrategy, TokenAcquisitionFailed,
};

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .random(|| 0.5)
        .build()
        .expect("valid")
}

fn adaptive(mode: AcquireMode) -> (AdaptiveRetryStrategy<ManualClock>, ManualClock) {
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(standard())
        .acquire_mode(mode)
        .clock(clock.clone())
        .build();
    (strategy, clock)
}

fn throttled() -> HttpErrorResponse<'static> {
    HttpErrorResponse::new(400).with_code("ThrottlingException")
}

fn unavailable() -> HttpErrorResponse<'static> {
    HttpErrorResponse::new(503)
}

/// The time a blocking send taken at `at` starts on a limiter replaying the
/// same events (the reference behaviour the strategy must compose with).
fn reference_start(limiter: &ClientRateLimiter, at: f64) -> f64 {
    let now = Cell::new(at);
    limiter
        .acquire(
            || now.get(),
            |limited| now.set(now.get() + limited.wait_secs()),
        )
        .expect("blocking");
    now.get()
}

#[test]
fn before_any_throttle_it_is_exactly_the_standard_strategy() {
    let (strategy, clock) = adaptive(AcquireMode::Block);
    let twin = standard();
    let (mut token, mut expected) = (
        strategy.acquire_initial_token().unwrap(),
        twin.acquire_initial_token().unwrap(),
    );
    assert_eq!(token.delay(), expected.delay());
    for _ in 0..2 {
        clock.advance(Duration::from_millis(10));
        token = strategy.refresh_retry_token(token, &unavailable()).unwrap();
        expected = twin.refresh_retry_token(expected, &unavailable()).unwrap();
        assert_eq!(token, expected);
    }
    assert!(!strategy.rate_limiter().is_enabled());
    assert_eq!(
        strategy.standard().quota().available(),
        twin.quota().available()
    );
}

#[test]
fn a_throttle_enables_the_limiter_and_the_retry_waits_for_a_send_token() {
    let (strategy, clock) = adaptive(AcquireMode::Block);
    let reference = ClientRateLimiter::new(0.0);

    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(100));
    let token = strategy.refresh_retry_token(token, &throttled()).unwrap();
    reference.on_response(0.1, true);
    assert!(strategy.rate_limiter().is_enabled());

    // The throttling backoff (0.5 * 1 s) ends at 0.6 s; the send token is
    // taken then, or later if the limiter makes the retry wait.
    let start = reference_start(&reference, 0.6);
    let expected = Duration::from_secs_f64(start - 0.1).max(Duration::from_millis(500));
    let delay = token.delay();
    assert!(
        delay.abs_diff(expected) < Duration::from_micros(1),
        "{delay:?} vs {expected:?}"
    );
    assert_eq!(
        strategy.rate_limiter().snapshot(),
        reference.snapshot(),
        "the strategy took exactly one send token, at the retry's start"
    );
}

#[test]
fn blocked_first_attempts_are_delayed_and_each_costs_one_send_token() {
    let (strategy, clock) = adaptive(AcquireMode::Block);
    let reference = ClientRateLimiter::new(0.0);
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(50));
    assert!(strategy.refresh_retry_token(token, &throttled()).is_ok());
    reference.on_response(0.05, true);
    reference_start(&reference, 0.55); // the retry's reservation

    // Back-to-back first attempts at the same instant queue behind each other.
    let mut previous = Duration::ZERO;
    for _ in 0..3 {
        let token = strategy.acquire_initial_token().unwrap();
        let start = reference_start(&reference, 0.05);
        let expected = Duration::from_secs_f64(start - 0.05);
        assert!(token.delay().abs_diff(expected) < Duration::from_micros(1));
        assert!(token.delay() > previous, "each waits longer than the last");
        previous = token.delay();
    }
    assert_eq!(strategy.rate_limiter().snapshot(), reference.snapshot());
}

#[test]
fn fail_fast_refuses_the_retry_and_refunds_its_quota() {
    let (strategy, clock) = adaptive(AcquireMode::FailFast);
    // Throttle twice in a row, quickly: the bucket is empty for the retry.
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(1));
    let outcome = strategy.refresh_retry_token(token, &throttled());
    match outcome {
        Err(TokenAcquisitionFailed::RateLimited { attempts, wait }) => {
            assert_eq!(attempts, 1);
            assert!(wait > Duration::ZERO);
            assert_eq!(strategy.standard().quota().available(), 500, "refunded");
        }
        Ok(token) => {
            // The first throttle may leave one token: the next must fail.
            clock.advance(Duration::from_millis(1));
            let why = strategy
                .refresh_retry_token(token, &throttled())
                .unwrap_err();
            assert!(
                matches!(why, TokenAcquisitionFailed::RateLimited { attempts: 2, .. }),
                "{why:?}"
            );
        }
        Err(other) => panic!("unexpected {other:?}"),
    }
    assert!(strategy.try_acquire_send().is_err());
}

#[test]
fn successes_and_failures_are_all_fed_to_the_limiter() {
    let (strategy, clock) = adaptive(AcquireMode::Block);
    let reference = ClientRateLimiter::new(0.0);
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(200));
    let token = strategy.refresh_retry_token(token, &unavailable()).unwrap();
    reference.on_response(0.2, false);
    clock.advance(token.delay());
    let at = clock.elapsed().as_secs_f64();
    strategy.record_success(token);
    reference.on_response(at, false);
    assert_eq!(strategy.rate_limiter().snapshot(), reference.snapshot());
    assert_eq!(strategy.standard().quota().available(), 500);
}

#[test]
fn partitions_keep_throttling_to_their_own_key() {
    let (base, _clock) = adaptive(AcquireMode::Block);
    let tables = AdaptivePartitions::new(base, 500);
    let orders = tables.strategy(&"orders");
    let token = orders.acquire_initial_token().unwrap();
    let _retry = orders.refresh_retry_token(token, &throttled()).unwrap();

    let users = tables.strategy(&"users");
    assert!(tables.strategy(&"orders").rate_limiter().is_enabled());
    assert!(!users.rate_limiter().is_enabled());
    assert_eq!(users.standard().quota().available(), 500);
    assert_eq!(
        tables.strategy(&"orders").standard().quota().available(),
        495
    );
    assert!(Arc::ptr_eq(
        orders.rate_limiter(),
        tables.strategy(&"orders").rate_limiter()
    ));
    assert_eq!(tables.len(), 2);
}

#[test]
fn the_executor_sleeps_the_combined_waits_in_virtual_time() {
    let (strategy, clock) = adaptive(AcquireMode::Block);
    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone());
    let calls = Cell::new(0);
    let result = retry.run(|attempt| {
        calls.set(calls.get() + 1);
        if attempt < 3 {
            Err(throttled())
        } else {
            Ok(attempt)
        }
    });
    assert_eq!(result.unwrap(), 3);
    assert_eq!(calls.get(), 3);
    // Two throttling backoffs of at least 0.5 s and 1 s were slept.
    assert!(clock.elapsed() >= Duration::from_millis(1500));
    assert!(strategy.rate_limiter().is_enabled());
}
