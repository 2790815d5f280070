//! `AdaptiveRetryStrategy`: the standard strategy's decisions, plus the rate
//! limiter's waits, fed by every attempt's outcome — in virtual time.

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use rebound_runtime::StopReason;
use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::rate_limiter::ClientRateLimiter;
use rebound_runtime::{
    AdaptiveRetryStrategy, Retry, RetryStrategy, RetryToken, SendPermit, StandardRetryStrategy,
    TokenAcquisitionFailed, rate_limiter::WaitPolicy, time::ManualClock,
};

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

fn adaptive(mode: WaitPolicy) -> (AdaptiveRetryStrategy<ManualClock>, ManualClock) {
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(standard())
        .wait_policy(mode)
        .clock(clock.clone())
        .build();
    (strategy, clock)
}

fn throttled() -> HttpErrorResponse {
    HttpErrorResponse::new(400).with_code("ThrottlingException")
}

fn unavailable() -> HttpErrorResponse {
    HttpErrorResponse::new(503)
}

/// The permit the strategy must give at `at` (limiter time), on a limiter
/// replaying the same events: the reference behaviour it composes with.
fn reference_permit(limiter: &ClientRateLimiter, at: f64) -> SendPermit {
    match limiter.try_acquire(at) {
        Ok(()) => SendPermit::Granted,
        // A waiting caller asks again after at most 0.25 s.
        Err(limited) => SendPermit::Wait(Duration::from_nanos(
            (limited.wait_secs().min(0.25) * 1e9).ceil() as u64,
        )),
    }
}

#[test]
fn before_any_throttle_it_is_exactly_the_standard_strategy() {
    let (strategy, clock) = adaptive(WaitPolicy::Block);
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
        let seen = |t: &RetryToken| (t.attempt(), t.delay(), t.quota_cost());
        assert_eq!(seen(&token), seen(&expected));
    }
    assert!(!strategy.rate_limiter().is_enabled());
    assert_eq!(
        strategy.standard().quota().available(),
        twin.quota().available()
    );
}

#[test]
fn a_throttle_enables_the_limiter_and_the_retry_waits_for_a_send_token() {
    let (strategy, clock) = adaptive(WaitPolicy::Block);
    let reference = ClientRateLimiter::new(0.0);

    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(100));
    let mut token = strategy.refresh_retry_token(token, &throttled()).unwrap();
    reference.on_response(0.1, true);
    assert!(strategy.rate_limiter().is_enabled());

    // The retry's token carries only its own backoff (0.5 * 1 s) ...
    assert_eq!(token.delay(), Duration::from_millis(500));
    assert_eq!(
        strategy.rate_limiter().snapshot(),
        reference.snapshot(),
        "nothing is taken or booked when the retry is granted"
    );
    // ... and the send token is taken when the retry is about to be sent.
    clock.advance(token.delay());
    let mut at = 0.6;
    for asked in 1.. {
        assert!(asked <= 20, "the token is earned after the waits");
        let permit = strategy.acquire_send_permit(&mut token).unwrap();
        assert_eq!(permit, reference_permit(&reference, at));
        assert_eq!(strategy.rate_limiter().snapshot(), reference.snapshot());
        match permit {
            SendPermit::Granted => break,
            SendPermit::Wait(wait) => {
                clock.advance(wait);
                at = clock.elapsed().as_secs_f64();
            }
        }
    }
    strategy.record_success(token);
}

#[test]
fn callers_waiting_for_the_rate_are_served_in_order_and_take_nothing_while_waiting() {
    let (strategy, clock) = adaptive(WaitPolicy::Block);
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(50));
    let retry = strategy.refresh_retry_token(token, &throttled()).unwrap();
    drop(retry); // the retry is never sent: nothing of it stays in the limiter

    // Three first attempts at the same instant, in order: no token is left.
    let before = strategy.rate_limiter().snapshot();
    let mut tokens: Vec<_> = (0..3)
        .map(|_| strategy.acquire_initial_token().unwrap())
        .collect();
    for token in &mut tokens {
        let permit = strategy.acquire_send_permit(token).unwrap();
        assert!(matches!(permit, SendPermit::Wait(_)), "{permit:?}");
    }
    assert_eq!(
        strategy.rate_limiter().snapshot().current_capacity,
        before.current_capacity,
        "waiting takes nothing"
    );
    // They come back when told, the later ones asking first; they are served
    // in the order they first asked.
    let mut served = Vec::new();
    for _ in 0..100 {
        let mut next = Duration::MAX;
        for (index, token) in tokens.iter_mut().enumerate().rev() {
            if served.contains(&index) {
                continue;
            }
            match strategy.acquire_send_permit(token).unwrap() {
                SendPermit::Granted => served.push(index),
                SendPermit::Wait(wait) => next = next.min(wait),
            }
        }
        if served.len() == tokens.len() {
            break;
        }
        clock.advance(next);
    }
    assert_eq!(served, [0, 1, 2]);
}

#[test]
fn fail_fast_refuses_the_send_and_the_executor_does_not_make_the_attempt() {
    let (strategy, clock) = adaptive(WaitPolicy::FailFast);
    // A throttle leaves the send bucket empty.
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(1));
    let mut retry = strategy.refresh_retry_token(token, &throttled()).unwrap();
    match strategy.acquire_send_permit(&mut retry) {
        Err(TokenAcquisitionFailed::RateLimited { attempts, wait }) => {
            assert_eq!(attempts, 1);
            assert!(wait > Duration::ZERO);
        }
        other => panic!("expected a fail-fast refusal, got {other:?}"),
    }
    assert!(matches!(strategy.try_acquire_send(), SendPermit::Wait(_)));

    // Through the executor, a refused request never reaches the service.
    let executor = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone());
    let sent = Cell::new(0);
    let err = executor
        .run(|_attempt| {
            sent.set(sent.get() + 1);
            Ok::<_, HttpErrorResponse>(())
        })
        .unwrap_err();
    assert_eq!(sent.get(), 0, "a refused attempt is not sent");
    assert_eq!(err.attempts(), 0);
    assert!(err.last_error().is_none());
    assert!(matches!(
        err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::RateLimited { attempts: 0, .. })
    ));
    assert!(
        err.to_string()
            .starts_with("gave up before the first attempt: rate limited")
    );
}

#[test]
fn a_refused_retry_names_the_attempt_count_once() {
    let (strategy, clock) = adaptive(WaitPolicy::FailFast);
    let executor = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone());
    // The throttle empties the send bucket, so the retry is refused.
    let err = executor
        .run(|_attempt| {
            clock.advance(Duration::from_millis(1));
            Err::<(), _>(throttled())
        })
        .unwrap_err();
    assert_eq!(err.attempts(), 1);
    let message = err.to_string();
    assert!(
        message.starts_with("gave up after 1 attempt: rate limited: the next send token is "),
        "{message}"
    );
    assert_eq!(message.matches("attempt").count(), 1, "{message}");
}

#[test]
fn a_refused_fail_fast_caller_takes_no_place_in_line() {
    // Fail fast: a refused caller does not wait, so it takes no place in
    // line. When the next token is earned, the next caller gets it.
    let (strategy, clock) = adaptive(WaitPolicy::FailFast);
    let token = strategy.acquire_initial_token().unwrap();
    clock.advance(Duration::from_millis(1));
    let mut retry = strategy.refresh_retry_token(token, &throttled()).unwrap();
    let Err(TokenAcquisitionFailed::RateLimited { wait, .. }) =
        strategy.acquire_send_permit(&mut retry)
    else {
        panic!("the bucket is empty after a throttle");
    };
    drop(retry);
    clock.advance(wait);
    let mut next = strategy.acquire_initial_token().unwrap();
    assert_eq!(
        strategy.acquire_send_permit(&mut next).unwrap(),
        SendPermit::Granted,
        "the refused caller is not ahead of it"
    );
    // (A blocking caller reported without its permit leaves the line too:
    // `adaptive::tests`, which can see the line.)
}

#[test]
fn successes_and_failures_are_all_fed_to_the_limiter() {
    let (strategy, clock) = adaptive(WaitPolicy::Block);
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
    let (base, _clock) = adaptive(WaitPolicy::Block);
    let tables = base.partitions::<&str>();
    let orders = tables.get(&"orders");
    let token = orders.acquire_initial_token().unwrap();
    let _retry = orders.refresh_retry_token(token, &throttled()).unwrap();

    let users = tables.get(&"users");
    assert!(tables.get(&"orders").rate_limiter().is_enabled());
    assert!(!users.rate_limiter().is_enabled());
    assert_eq!(users.standard().quota().available(), 500);
    assert_eq!(tables.get(&"orders").standard().quota().available(), 495);
    assert!(Arc::ptr_eq(
        orders.rate_limiter(),
        tables.get(&"orders").rate_limiter()
    ));
    assert_eq!(tables.len(), 2);
}

#[test]
fn the_executor_sleeps_the_combined_waits_in_virtual_time() {
    let (strategy, clock) = adaptive(WaitPolicy::Block);
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

#[test]
fn partitions_hand_every_concurrent_caller_the_same_strategy_per_key() {
    let (base, _clock) = adaptive(WaitPolicy::Block);
    let tables = Arc::new(base.partitions::<u32>());
    let seen: Vec<Vec<Arc<AdaptiveRetryStrategy<ManualClock>>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                let tables = Arc::clone(&tables);
                scope.spawn(move || {
                    (0..200)
                        .map(|i| {
                            let strategy = tables.get(&(i % 4));
                            if i % 4 == 0 {
                                // Only table 0 is throttled.
                                let token = strategy.acquire_initial_token().unwrap();
                                let _ = strategy.refresh_retry_token(token, &throttled());
                            }
                            strategy
                        })
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(tables.len(), 4);
    for per_thread in &seen {
        for (i, strategy) in per_thread.iter().enumerate() {
            let key = u32::try_from(i % 4).unwrap();
            assert!(
                Arc::ptr_eq(strategy, &tables.get(&key)),
                "one strategy per key"
            );
        }
    }
    assert!(tables.get(&0).rate_limiter().is_enabled());
    for key in 1..4 {
        let untouched = tables.get(&key);
        assert!(!untouched.rate_limiter().is_enabled(), "table {key}");
        assert_eq!(untouched.standard().quota().available(), 500, "table {key}");
    }
}

/// `docs/adaptive-mode.md`'s "Which errors engage the limiter", statement by
/// statement.
#[cfg(feature = "http")]
#[test]
fn a_bare_429_engages_the_limiter_exactly_where_the_docs_say() {
    let bare = || rebound_runtime::Classified::unknown().with_status(429);
    let engages = |standard: StandardRetryStrategy, failure: &dyn rebound_runtime::FailureInfo| {
        let strategy = AdaptiveRetryStrategy::builder(standard).build();
        let token = strategy.acquire_initial_token().unwrap();
        let retried = strategy.refresh_retry_token(token, failure).is_ok();
        (retried, strategy.rate_limiter().is_enabled())
    };

    // The AWS rules alone, behaviour 2.0: neither retried nor a throttle.
    assert_eq!(
        engages(StandardRetryStrategy::new(), &bare()),
        (false, false)
    );
    // `for_http` and behaviour 2.1: a retryable throttle.
    assert_eq!(
        engages(StandardRetryStrategy::for_http(), &bare()),
        (true, true)
    );
    let v2_1 = StandardRetryStrategy::builder()
        .behavior(rebound_runtime::RetryBehavior::V2_1)
        .build();
    assert_eq!(engages(v2_1, &bare()), (true, true));
    // Through the HTTP integrations' classifier, behaviour 2.0 included.
    let classified = rebound_runtime::http::ResponseClassifier::new()
        .classify(http::StatusCode::TOO_MANY_REQUESTS, &http::HeaderMap::new())
        .expect("a 429 is a failure");
    assert_eq!(
        engages(StandardRetryStrategy::new(), &classified),
        (true, true)
    );
    // An AWS throttling code: everywhere.
    assert_eq!(
        engages(StandardRetryStrategy::new(), &throttled()),
        (true, true)
    );
}
