//! One deterministic test per rule of the standard-mode table in
//! `shared/design/BEHAVIOUR.md`, for both retry behaviours, in virtual time:
//! a small executor loop adds each token's delay to a virtual clock instead
//! of sleeping, and the jitter draws are injected.

use std::sync::Arc;
use std::time::Duration;

use rebound_runtime::{
    ErrorFault, ErrorInfo, FailureInfo, Partitions, RetryBehavior, RetryInfo, RetryQuota,
    RetrySafety, RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed,
    backoff::{Backoff, RetryAfterPolicy, SeededRandom},
};
use rebound_runtime::{TransportFailure, classify::HttpErrorResponse};

use RetryBehavior::{V2_0, V2_1};

const MS: fn(u64) -> Duration = Duration::from_millis;
const SECS: fn(u64) -> Duration = Duration::from_secs;

/// What a virtual-time run of one request observed.
#[derive(Debug)]
struct Run {
    attempts: u32,
    /// The delay before each retry, in order.
    delays: Vec<Duration>,
    /// Virtual time slept, including a long-polling sleep before giving up.
    slept: Duration,
    /// Why the strategy stopped, if the request failed.
    gave_up: Option<TokenAcquisitionFailed>,
}

/// Drives `strategy` like an executor would: `outcomes[i]` is the result of
/// attempt `i + 1` (`None` = success); the last outcome repeats.
fn run(strategy: &dyn RetryStrategy, outcomes: &[Option<&dyn FailureInfo>]) -> Run {
    let mut token = strategy
        .acquire_initial_token()
        .expect("the standard mode always issues a token");
    let mut run = Run {
        attempts: 0,
        delays: Vec::new(),
        slept: Duration::ZERO,
        gave_up: None,
    };
    loop {
        run.slept += token.delay();
        run.attempts += 1;
        let outcome = outcomes[(run.attempts as usize - 1).min(outcomes.len() - 1)];
        match outcome {
            None => {
                strategy.record_success(token);
                return run;
            }
            Some(failure) => match strategy.refresh_retry_token(token, failure) {
                Ok(next) => {
                    run.delays.push(next.delay());
                    token = next;
                }
                Err(why) => {
                    run.slept += why.delay_before_giving_up().unwrap_or_default();
                    run.gave_up = Some(why);
                    return run;
                }
            },
        }
    }
}

fn strategy(behavior: RetryBehavior, capacity: u32, draw: f64) -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .behavior(behavior)
        .quota(Arc::new(RetryQuota::new(capacity)))
        .random(move || draw)
        .build()
}

fn status(code: u16) -> HttpErrorResponse {
    HttpErrorResponse::new(code)
}

fn coded(status: u16, code: &'static str) -> HttpErrorResponse {
    HttpErrorResponse::new(status).with_code(code)
}

// --- max attempts ----------------------------------------------------------

#[test]
fn max_attempts_default_to_three_in_both_behaviours() {
    for behavior in [V2_0, V2_1] {
        let strategy = strategy(behavior, 500, 0.5);
        assert_eq!(strategy.max_attempts(), 3);
        let run = run(&strategy, &[Some(&status(503))]);
        assert_eq!(run.attempts, 3, "{behavior:?}");
        assert_eq!(
            run.gave_up,
            Some(TokenAcquisitionFailed::AttemptsExhausted {
                attempts: 3,
                max_attempts: 3
            })
        );
    }
}

#[test]
fn dynamodb_gets_four_attempts_in_2_1_only_and_configuration_wins() {
    let build = |behavior, max: Option<u32>| {
        let builder = StandardRetryStrategy::builder()
            .behavior(behavior)
            .aws_service("dynamodb", "GetItem");
        match max {
            Some(max) => builder.max_attempts(max),
            None => builder,
        }
        .build()
    };
    assert_eq!(build(V2_0, None).max_attempts(), 3);
    assert_eq!(build(V2_1, None).max_attempts(), 4);
    assert_eq!(build(V2_1, Some(2)).max_attempts(), 2);
    assert_eq!(
        StandardRetryStrategy::builder()
            .behavior(V2_1)
            .aws_service("dynamodb-streams", "GetRecords")
            .build()
            .max_attempts(),
        4
    );
}

#[test]
fn zero_max_attempts_means_one_attempt_and_one_means_no_retry() {
    for max_attempts in [0, 1] {
        let once = StandardRetryStrategy::builder()
            .max_attempts(max_attempts)
            .build();
        assert_eq!(once.max_attempts(), 1);
        let run = run(&once, &[Some(&status(503))]);
        assert_eq!(run.attempts, 1);
        assert_eq!(once.quota().available(), 500, "no retry, no cost");
    }
}

// --- what is retried -------------------------------------------------------

#[test]
fn bare_429_is_retried_as_throttling_only_in_2_1() {
    let bare = status(429);
    let v20 = strategy(V2_0, 500, 0.5);
    let run20 = run(&v20, &[Some(&bare)]);
    assert_eq!(
        (run20.attempts, run20.gave_up),
        (
            1,
            Some(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        )
    );

    let v21 = strategy(V2_1, 500, 0.5);
    let run21 = run(&v21, &[Some(&bare), None]);
    assert_eq!(run21.attempts, 2);
    assert_eq!(run21.delays, [MS(500)], "throttling base 1 s");
    assert_eq!(
        v21.quota().available(),
        500,
        "cost 5 taken, then refunded on success"
    );
}

#[test]
fn a_modeled_429_that_is_not_retryable_is_never_retried() {
    #[derive(Debug)]
    struct QuotaExceeded;
    impl RetryInfo for QuotaExceeded {
        fn retry_safety(&self) -> RetrySafety {
            RetrySafety::No
        }
    }
    impl ErrorInfo for QuotaExceeded {
        fn fault(&self) -> ErrorFault {
            ErrorFault::Client
        }
        fn http_status(&self) -> Option<u16> {
            Some(429)
        }
    }
    for behavior in [V2_0, V2_1] {
        let run = run(&strategy(behavior, 500, 0.5), &[Some(&QuotaExceeded)]);
        assert_eq!(
            run.gave_up,
            Some(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
    }
}

#[test]
fn client_errors_and_unknown_5xx_are_not_retried_transient_ones_are() {
    for behavior in [V2_0, V2_1] {
        let strategy = strategy(behavior, 500, 0.5);
        for failure in [
            coded(400, "ValidationException"),
            coded(403, "AccessDenied"),
            status(404),
            status(501),
        ] {
            assert_eq!(run(&strategy, &[Some(&failure)]).attempts, 1, "{failure:?}");
        }
        for failure in [
            status(500),
            status(502),
            status(503),
            status(504),
            coded(400, "RequestTimeout"),
            coded(400, "SlowDown"),
        ] {
            assert_eq!(
                run(&strategy, &[Some(&failure), None]).attempts,
                2,
                "{failure:?}"
            );
        }
        assert_eq!(
            run(&strategy, &[Some(&TransportFailure::Connect), None]).attempts,
            2
        );
    }
}

// --- quota -----------------------------------------------------------------

#[test]
fn quota_holds_500_starts_full_and_only_successes_refill_it() {
    for behavior in [V2_0, V2_1] {
        let strategy = StandardRetryStrategy::builder()
            .behavior(behavior)
            .random(|| 0.0)
            .build();
        assert_eq!(
            (strategy.quota().capacity(), strategy.quota().available()),
            (500, 500)
        );
        run(&strategy, &[Some(&status(500))]);
        let drained = strategy.quota().available();
        assert!(drained < 500);
        // No refill with time: the quota has no clock. Failed first attempts
        // that are not retried change nothing either.
        run(&strategy, &[Some(&coded(400, "ValidationException"))]);
        assert_eq!(strategy.quota().available(), drained);
        run(&strategy, &[None]);
        assert_eq!(strategy.quota().available(), drained + 1);
    }
}

#[test]
fn retry_costs_follow_the_behaviour() {
    let cases: &[(RetryBehavior, &dyn FailureInfo, u32)] = &[
        (V2_0, &status(503), 5),
        (V2_0, &coded(400, "ThrottlingException"), 5),
        (V2_0, &TransportFailure::ReadTimeout, 10),
        (V2_0, &TransportFailure::ConnectTimeout, 10),
        (V2_0, &TransportFailure::ConnectionClosed, 5),
        (V2_1, &status(503), 14),
        (V2_1, &TransportFailure::ReadTimeout, 14),
        (V2_1, &coded(400, "ThrottlingException"), 5),
        (V2_1, &status(429), 5),
    ];
    for (index, &(behavior, failure, cost)) in cases.iter().enumerate() {
        let strategy = strategy(behavior, 500, 0.5);
        let token = strategy.acquire_initial_token().unwrap();
        let token = strategy.refresh_retry_token(token, failure).unwrap();
        assert_eq!(token.quota_cost(), Some(cost), "case {index}: {behavior:?}");
        assert_eq!(strategy.quota().available(), 500 - cost);
        strategy.record_success(token);
    }
}

#[test]
fn success_refunds_one_or_the_last_retry_cost_capped_at_capacity() {
    let strategy = strategy(V2_0, 500, 0.5);
    strategy.quota().try_acquire(100).unwrap();
    run(&strategy, &[None]);
    assert_eq!(strategy.quota().available(), 401, "first-try success: +1");
    // A timeout (10), then a 503 (5), then success: the last cost (5) comes back.
    run(
        &strategy,
        &[
            Some(&TransportFailure::ReadTimeout),
            Some(&status(503)),
            None,
        ],
    );
    assert_eq!(strategy.quota().available(), 401 - 10 - 5 + 5);
    let full = self::strategy(V2_0, 500, 0.5);
    run(&full, &[None]);
    assert_eq!(full.quota().available(), 500, "never above capacity");
}

#[test]
fn the_first_attempt_never_needs_quota() {
    for behavior in [V2_0, V2_1] {
        let empty = strategy(behavior, 0, 0.5);
        let run = run(&empty, &[Some(&status(503))]);
        assert_eq!(run.attempts, 1);
        assert!(matches!(
            run.gave_up,
            Some(TokenAcquisitionFailed::QuotaExhausted {
                attempts: 1,
                available: 0,
                ..
            })
        ));
    }
}

#[test]
fn an_exhausted_quota_stops_retries_and_long_polling_sleeps_first_in_2_1() {
    let plain = strategy(V2_1, 13, 0.5);
    let run_plain = run(&plain, &[Some(&status(503))]);
    assert_eq!(
        run_plain.gave_up,
        Some(TokenAcquisitionFailed::QuotaExhausted {
            attempts: 1,
            cost: 14,
            available: 13,
            delay_before_giving_up: None
        })
    );
    assert_eq!(run_plain.slept, Duration::ZERO);

    let polling = |behavior| {
        StandardRetryStrategy::builder()
            .behavior(behavior)
            .aws_service("sqs", "ReceiveMessage")
            .quota(Arc::new(RetryQuota::new(0)))
            .random(|| 0.5)
            .build()
    };
    let run_polling = run(&polling(V2_1), &[Some(&status(503))]);
    assert_eq!(
        run_polling
            .gave_up
            .as_ref()
            .and_then(TokenAcquisitionFailed::delay_before_giving_up),
        Some(MS(25))
    );
    assert_eq!(
        run_polling.slept,
        MS(25),
        "0.5 * 50 ms before returning the error"
    );
    assert_eq!(
        run(&polling(V2_0), &[Some(&status(503))]).slept,
        Duration::ZERO,
        "2.0 has no long-polling sleep"
    );
}

// --- backoff ---------------------------------------------------------------

#[test]
fn backoff_is_full_jitter_capped_at_20_seconds() {
    // 2.0: r * min(1 s * 2^(n-1), 20 s) for every error.
    let v20 = StandardRetryStrategy::builder()
        .max_attempts(8)
        .random(|| 0.5)
        .build();
    let delays = run(&v20, &[Some(&status(503))]).delays;
    assert_eq!(
        delays,
        [
            MS(500),
            SECS(1),
            SECS(2),
            SECS(4),
            SECS(8),
            SECS(10),
            SECS(10)
        ]
    );
    assert_eq!(
        run(&v20, &[Some(&coded(400, "Throttling"))]).delays[..2],
        [MS(500), SECS(1)]
    );

    // 2.1: base 1 s for throttling, 50 ms otherwise, 25 ms for DynamoDB.
    let v21 = StandardRetryStrategy::builder()
        .behavior(V2_1)
        .max_attempts(12)
        .random(|| 1.0)
        .build();
    assert_eq!(
        run(&v21, &[Some(&coded(400, "Throttling"))]).delays[..3],
        [SECS(1), SECS(2), SECS(4)]
    );
    let transient = run(&v21, &[Some(&status(503))]).delays;
    assert_eq!(transient[..3], [MS(50), MS(100), MS(200)]);
    assert_eq!(
        transient[9..],
        [SECS(20), SECS(20)],
        "50 ms * 2^9 = 25.6 s, capped"
    );
    let ddb = StandardRetryStrategy::builder()
        .behavior(V2_1)
        .aws_service("dynamodb", "GetItem")
        .random(|| 1.0)
        .build();
    assert_eq!(
        run(&ddb, &[Some(&status(503))]).delays,
        [MS(25), MS(50), MS(100)]
    );
}

#[test]
fn seeded_randomness_reproduces_the_same_delays() {
    let delays = || {
        let strategy = StandardRetryStrategy::builder()
            .max_attempts(5)
            .random(SeededRandom::new(7))
            .build();
        run(&strategy, &[Some(&status(503))]).delays
    };
    let first = delays();
    assert_eq!(first, delays());
    assert!(first.iter().enumerate().all(|(n, d)| *d < SECS(1 << n)));
}

// --- retry-after -----------------------------------------------------------

#[test]
fn x_amz_retry_after_is_ignored_in_2_0_and_bounded_in_2_1() {
    let hinted = |ms| status(503).with_retry_after(Some(MS(ms)));
    let v20 = strategy(V2_0, 500, 0.5);
    assert_eq!(run(&v20, &[Some(&hinted(3000)), None]).delays, [MS(500)]);

    let v21 = strategy(V2_1, 500, 0.5); // t = 25 ms
    assert_eq!(
        run(&v21, &[Some(&hinted(3000)), None]).delays,
        [MS(3000)],
        "max(t, hint)"
    );
    assert_eq!(
        run(&v21, &[Some(&hinted(30_000)), None]).delays,
        [MS(5025)],
        "at most t + 5 s"
    );
    assert_eq!(
        run(&v21, &[Some(&hinted(0)), None]).delays,
        [MS(25)],
        "never below t"
    );
}

#[test]
fn a_hint_above_the_ceiling_gives_up_at_once_without_taking_quota() {
    let strategy = StandardRetryStrategy::builder()
        .retry_after(RetryAfterPolicy::AtLeast { ceiling: SECS(60) })
        .random(|| 0.5)
        .build();
    let two_hours = status(503).with_retry_after(Some(SECS(7200)));
    let run_long = run(&strategy, &[Some(&two_hours)]);
    assert_eq!(
        run_long.gave_up,
        Some(TokenAcquisitionFailed::RetryAfterTooLong {
            attempts: 1,
            requested: SECS(7200),
            ceiling: SECS(60)
        })
    );
    assert_eq!(run_long.slept, Duration::ZERO, "no multi-hour sleep");
    assert_eq!(strategy.quota().available(), 500);

    // Up to the ceiling the hint is a true minimum.
    let thirty = status(503).with_retry_after(Some(SECS(30)));
    assert_eq!(run(&strategy, &[Some(&thirty), None]).delays, [SECS(30)]);
    // And it never shortens the backoff.
    let tiny = status(503).with_retry_after(Some(MS(1)));
    assert_eq!(run(&strategy, &[Some(&tiny), None]).delays, [MS(500)]);
}

// --- tokens, partitions, sharing ---------------------------------------------

#[test]
fn a_request_ending_on_a_2xx_failure_is_refunded_like_a_success() {
    let strategy = strategy(V2_0, 500, 0.5);
    strategy.quota().try_acquire(50).unwrap();
    let corrupted = rebound_runtime::Classified::retryable().with_status(200);
    let run = run(&strategy, &[Some(&status(503)), Some(&corrupted)]);
    assert_eq!(run.attempts, 3);
    // Two retries of 5 each, then the last cost (5) comes back.
    assert_eq!(strategy.quota().available(), 450 - 5 - 5 + 5);
}

#[test]
fn partitions_isolate_quotas_and_clones_share_them() {
    let quotas = Partitions::retry_quotas(10);
    let base = strategy(V2_0, 500, 0.5);
    let east = base.with_quota(quotas.get("us-east-1"));
    let east_again = base.with_quota(quotas.get("us-east-1"));
    let west = base.with_quota(quotas.get("us-west-2"));
    run(&east, &[Some(&status(503)), None]);
    run(&east_again, &[Some(&status(503)), Some(&status(503))]);
    // +5 -5 (refunded), then two retries of 5 and no success.
    assert_eq!(east.quota().available(), 0);
    assert!(run(&east, &[Some(&status(503))]).gave_up.is_some());
    assert_eq!(west.quota().available(), 10);
    assert_eq!(base.quota().available(), 500);
}

#[test]
fn strategies_are_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<StandardRetryStrategy>();
    assert_send_sync::<RetryQuota>();
    assert_send_sync::<Partitions<String, RetryQuota>>();
    let shared: Arc<dyn RetryStrategy> = Arc::new(strategy(V2_0, 500, 0.5));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || run(&*shared, &[Some(&status(503)), None]).attempts)
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap(), 2);
    }
}

#[test]
fn custom_backoffs_plug_into_the_standard_strategy() {
    let strategy = StandardRetryStrategy::builder()
        .max_attempts(4)
        .backoff(Backoff::DecorrelatedJitter {
            base: MS(100),
            cap: SECS(1),
        })
        .random(|| 1.0)
        .build();
    // Each delay is 3x the previous one (r = 1), capped.
    assert_eq!(
        run(&strategy, &[Some(&status(503))]).delays,
        [MS(300), MS(900), SECS(1)]
    );
}
