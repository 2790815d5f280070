//! The Java 1.x and JavaScript 2.x presets of `LegacyRetryStrategy` (and
//! the botocore ones beyond the vectors), driven in virtual time: a scripted
//! service fails a given number of times, an executor loop "sleeps" each
//! token's delay by advancing a virtual clock, and the delays, the attempt
//! count and the reason for giving up are compared with the SDKs' formulas
//! computed by hand. Nothing sleeps for real.

use std::time::Duration;

use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
use rebound_runtime::{Classified, FailureInfo, RetryKind, RetryStrategy, TokenAcquisitionFailed};
use rebound_runtime::{TransportFailure, classify::HttpErrorResponse};

const MS: fn(u64) -> Duration = Duration::from_millis;

/// What a request did in virtual time.
#[derive(Debug)]
struct Run {
    /// The delay slept before each retry.
    delays: Vec<Duration>,
    /// Attempts made.
    attempts: u32,
    /// `None` if the last attempt succeeded, else why the strategy stopped.
    gave_up: Option<TokenAcquisitionFailed>,
}

impl Run {
    fn elapsed(&self) -> Duration {
        self.delays.iter().sum()
    }
}

/// Drives `strategy` like an executor against a service that fails with
/// `failures[i]` on attempt `i + 1` and succeeds after the last one.
fn drive(strategy: &dyn RetryStrategy, failures: &[&dyn FailureInfo]) -> Run {
    let mut token = strategy.acquire_initial_token().unwrap();
    let mut delays = Vec::new();
    loop {
        let attempt = token.attempt();
        let Some(failure) = failures.get(attempt as usize - 1) else {
            strategy.record_success(token);
            return Run {
                delays,
                attempts: attempt,
                gave_up: None,
            };
        };
        match strategy.refresh_retry_token(token, *failure) {
            Ok(next) => {
                assert_eq!(next.attempt(), attempt + 1);
                delays.push(next.delay()); // the virtual clock advances
                token = next;
            }
            Err(why) => {
                return Run {
                    delays,
                    attempts: attempt,
                    gave_up: Some(why),
                };
            }
        }
    }
}

/// `failure`, `n` times.
fn times(failure: &dyn FailureInfo, n: usize) -> Vec<&dyn FailureInfo> {
    vec![failure; n]
}

fn with_random(preset: LegacyPreset, r: f64) -> LegacyRetryStrategy {
    LegacyRetryStrategy::builder(preset)
        .random(move || r)
        .build()
}

fn exhausted(attempts: u32) -> Option<TokenAcquisitionFailed> {
    Some(TokenAcquisitionFailed::AttemptsExhausted {
        attempts,
        max_attempts: attempts,
    })
}

const UNAVAILABLE: HttpErrorResponse = HttpErrorResponse::new(503);

fn throttled() -> HttpErrorResponse {
    HttpErrorResponse::new(400).with_code("ThrottlingException")
}

// ---------------------------------------------------------------------------
// AWS SDK for Java 1.x
// ---------------------------------------------------------------------------

#[test]
fn java_v1_full_jitter_for_service_errors() {
    let strategy = with_random(LegacyPreset::JavaV1, 0.5);
    let run = drive(&strategy, &times(&UNAVAILABLE, 10));
    // floor(0.5 * min(2^k * 100, 20000)) ms for k = 0, 1, 2; then 3 retries are spent.
    assert_eq!(run.delays, [MS(50), MS(100), MS(200)]);
    assert_eq!(run.elapsed(), MS(350));
    assert_eq!((run.attempts, run.gave_up), (4, exhausted(4)));
}

#[test]
fn java_v1_equal_jitter_for_throttling_errors() {
    let strategy = with_random(LegacyPreset::JavaV1, 0.5);
    let throttled = throttled();
    let run = drive(&strategy, &times(&throttled, 10));
    // c = min(2^k * 500, 20000); c/2 + floor(0.5 * (c/2 + 1)).
    assert_eq!(run.delays, [MS(250 + 125), MS(500 + 250), MS(1000 + 500)]);
    assert_eq!(run.gave_up, exhausted(4));

    // The extremes of the draw: never below half, never above the full value.
    let low = run_delays(LegacyPreset::JavaV1, 0.0, &throttled);
    assert_eq!(low, [MS(250), MS(500), MS(1000)]);
    let high = run_delays(LegacyPreset::JavaV1, 0.999_999, &throttled);
    assert_eq!(high, [MS(500), MS(1000), MS(2000)]);
}

fn run_delays(preset: LegacyPreset, r: f64, failure: &dyn FailureInfo) -> Vec<Duration> {
    drive(&with_random(preset, r), &times(failure, 20)).delays
}

#[test]
fn java_v1_backoff_depends_on_each_failure() {
    let strategy = with_random(LegacyPreset::JavaV1, 0.5);
    let throttled = throttled();
    let too_many = HttpErrorResponse::new(429); // 429 is throttling in Java 1.x
    let run = drive(&strategy, &[&UNAVAILABLE, &throttled, &too_many]);
    assert_eq!(run.delays, [MS(50), MS(750), MS(1500)]);
    assert_eq!((run.attempts, run.gave_up), (4, None));
}

#[test]
fn java_v1_caps_at_20_seconds() {
    let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
        .max_attempts(40)
        .random(|| 0.999_999)
        .build();
    let run = drive(&strategy, &times(&UNAVAILABLE, 50));
    assert_eq!(run.attempts, 40);
    assert_eq!(run.delays[7], MS(12_799)); // 2^7 * 100 ms, below the cap
    assert_eq!(run.delays[8], MS(19_999)); // 25.6 s, capped at 20 s
    assert!(run.delays[8..].iter().all(|d| *d == MS(19_999)));

    let throttled = throttled();
    let delays = run_delays(LegacyPreset::JavaV1, 0.0, &throttled);
    assert_eq!(delays[..3], [MS(250), MS(500), MS(1000)]);

    // A custom cap replaces 20 s.
    let capped = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
        .max_backoff(MS(300))
        .random(|| 0.999_999)
        .build();
    let run = drive(&capped, &times(&throttled, 3));
    assert_eq!(run.delays, [MS(300), MS(300), MS(300)]);
}

#[test]
fn java_v1_max_retries_is_configurable() {
    let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
        .max_attempts(2)
        .random(|| 0.5)
        .build();
    let run = drive(&strategy, &times(&UNAVAILABLE, 5));
    assert_eq!((run.delays.len(), run.gave_up), (1, exhausted(2)));
    let once = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
        .max_attempts(1)
        .build();
    assert_eq!(run_attempts(&once, &UNAVAILABLE), 1);
}

fn run_attempts(strategy: &LegacyRetryStrategy, failure: &dyn FailureInfo) -> u32 {
    drive(strategy, &times(failure, 30)).attempts
}

#[test]
fn java_v1_dynamodb_base_25_ms_and_10_retries() {
    let strategy = with_random(LegacyPreset::JavaV1DynamoDb, 0.5);
    let run = drive(&strategy, &times(&UNAVAILABLE, 20));
    assert_eq!(run.attempts, 11);
    assert_eq!(run.delays[..4], [MS(12), MS(25), MS(50), MS(100)]); // floor(0.5 * 25 * 2^k)
    assert_eq!(run.delays[9], MS(6400));
    // Throttling still uses 500 ms equal jitter.
    let throttled = HttpErrorResponse::new(400).with_code("ProvisionedThroughputExceededException");
    assert_eq!(
        run_delays(LegacyPreset::JavaV1DynamoDb, 0.0, &throttled)[0],
        MS(250)
    );
}

#[test]
fn java_v1_retry_condition() {
    let strategy = LegacyRetryStrategy::java_v1();
    let retried: [&dyn FailureInfo; 9] = [
        &HttpErrorResponse::new(500),
        &HttpErrorResponse::new(502),
        &HttpErrorResponse::new(504),
        &HttpErrorResponse::new(429),
        &HttpErrorResponse::new(403).with_code("RequestTimeTooSkewed"),
        &HttpErrorResponse::new(400).with_code("SlowDown"),
        &TransportFailure::ResponseStreaming, // every IOException
        &TransportFailure::Http,
        &Classified::retryable().with_status(200),
    ];
    for failure in retried {
        assert!(
            strategy.classify(failure).is_some(),
            "{failure:?}",
            failure = failure.http_status()
        );
    }
    let io = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    assert!(strategy.classify(&io).is_some());
    let not_retried: [&dyn FailureInfo; 4] = [
        &HttpErrorResponse::new(501),
        &HttpErrorResponse::new(509),
        &HttpErrorResponse::new(400).with_code("ValidationException"),
        &std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    ];
    for failure in not_retried {
        let run = drive(&strategy, &[failure]);
        assert_eq!(run.attempts, 1);
        assert_eq!(
            run.gave_up,
            Some(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
    }
}

#[test]
fn java_v1_ignores_retry_after() {
    let strategy = with_random(LegacyPreset::JavaV1, 0.5);
    let hinted = HttpErrorResponse::new(503).with_retry_after(Some(Duration::from_secs(3600)));
    let run = drive(&strategy, &[&hinted]);
    assert_eq!(run.delays, [MS(50)]);
}

// ---------------------------------------------------------------------------
// AWS SDK for JavaScript 2.x
// ---------------------------------------------------------------------------

#[test]
fn javascript_v2_delay_doubles_from_100_ms() {
    let strategy = with_random(LegacyPreset::JavaScriptV2, 0.5);
    let run = drive(&strategy, &times(&UNAVAILABLE, 10));
    // random * 2^retryCount * 100 ms, no cap; 3 retries.
    assert_eq!(run.delays, [MS(50), MS(100), MS(200)]);
    assert_eq!((run.attempts, run.gave_up), (4, exhausted(4)));

    let throttled = throttled();
    let one = run_delays(LegacyPreset::JavaScriptV2, 1.0, &throttled);
    assert_eq!(one, [MS(100), MS(200), MS(400)]); // throttling backs off the same
}

#[test]
fn javascript_v2_has_no_cap_unless_configured() {
    let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2)
        .max_attempts(21)
        .random(|| 1.0)
        .build();
    let run = drive(&strategy, &times(&UNAVAILABLE, 30));
    assert_eq!(run.attempts, 21);
    assert_eq!(run.delays[19], Duration::from_millis(100 << 19)); // ~14.6 hours
    let capped = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2)
        .max_attempts(21)
        .max_backoff(Duration::from_secs(20))
        .random(|| 1.0)
        .build();
    let run = drive(&capped, &times(&UNAVAILABLE, 30));
    assert_eq!(run.delays[19], Duration::from_secs(20));
    assert_eq!(run.delays[7], MS(12_800));
}

#[test]
fn javascript_v2_dynamodb_50_ms_and_10_retries() {
    let strategy = with_random(LegacyPreset::JavaScriptV2DynamoDb, 0.5);
    let run = drive(&strategy, &times(&UNAVAILABLE, 20));
    assert_eq!(run.attempts, 11);
    assert_eq!(run.delays.len(), 10);
    assert_eq!(run.delays[..3], [MS(25), MS(50), MS(100)]);
    assert_eq!(run.delays[9], MS(12_800));
    assert_eq!(run.gave_up, exhausted(11));
    // Its responses are CRC32-checked; a mismatch is retried.
    assert!(strategy.checks_response_crc32());
    let corrupted = Classified::retryable().with_status(200);
    assert_eq!(run_attempts(&strategy, &corrupted), 11);
}

#[test]
fn javascript_v2_adds_retry_after() {
    let strategy = with_random(LegacyPreset::JavaScriptV2, 0.5);
    let hinted = HttpErrorResponse::new(429).with_retry_after(Some(Duration::from_secs(2)));
    let run = drive(&strategy, &[&hinted, &UNAVAILABLE, &hinted]);
    assert_eq!(run.delays, [MS(2050), MS(100), MS(2200)]);
    assert_eq!(run.elapsed(), MS(4350));
    assert_eq!((run.attempts, run.gave_up), (4, None));
}

#[test]
fn javascript_v2_refuses_a_hint_above_the_ceiling() {
    let strategy = with_random(LegacyPreset::JavaScriptV2, 0.5);
    let hour = HttpErrorResponse::new(503).with_retry_after(Some(Duration::from_secs(3600)));
    let run = drive(&strategy, &[&UNAVAILABLE, &hour]);
    assert_eq!(run.delays, [MS(50)]); // no hour-long sleep
    assert_eq!(
        run.gave_up,
        Some(TokenAcquisitionFailed::RetryAfterTooLong {
            attempts: 2,
            requested: Duration::from_secs(3600),
            ceiling: Duration::from_secs(60),
        })
    );
    // At the ceiling it is honoured; the ceiling is configurable.
    let minute = HttpErrorResponse::new(503).with_retry_after(Some(Duration::from_secs(60)));
    assert_eq!(
        run_delays(LegacyPreset::JavaScriptV2, 0.0, &minute)[0],
        Duration::from_secs(60)
    );
    let patient = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2)
        .retry_after_ceiling(Duration::from_secs(7200))
        .random(|| 0.0)
        .build();
    assert_eq!(
        drive(&patient, &[&hour]).delays,
        [Duration::from_secs(3600)]
    );
}

#[test]
fn javascript_v2_retry_condition() {
    let strategy = LegacyRetryStrategy::javascript_v2();
    let retried: [&dyn FailureInfo; 8] = [
        &HttpErrorResponse::new(500),
        &HttpErrorResponse::new(501), // every status from 500 up
        &HttpErrorResponse::new(509),
        &HttpErrorResponse::new(429),
        &HttpErrorResponse::new(400).with_code("TooManyRequestsException"),
        &HttpErrorResponse::new(400).with_code("ExpiredTokenException"),
        &TransportFailure::ReadTimeout,
        &TransportFailure::ResponseStreaming,
    ];
    for failure in retried {
        assert_eq!(
            run_attempts(&strategy, failure),
            4,
            "{:?}",
            failure.http_status()
        );
    }
    let not_retried: [&dyn FailureInfo; 3] = [
        &HttpErrorResponse::new(400).with_code("SlowDown"), // not a JS 2.x throttling code
        &HttpErrorResponse::new(403).with_code("RequestTimeTooSkewed"),
        &HttpErrorResponse::new(404),
    ];
    for failure in not_retried {
        assert_eq!(
            run_attempts(&strategy, failure),
            1,
            "{:?}",
            failure.error_code()
        );
    }
    assert_eq!(
        strategy.classify(&HttpErrorResponse::new(429)),
        Some(RetryKind::Throttle)
    );
}

// ---------------------------------------------------------------------------
// botocore, beyond the recorded vectors
// ---------------------------------------------------------------------------

#[test]
fn botocore_generic_and_dynamodb_in_virtual_time() {
    let generic = with_random(LegacyPreset::Botocore, 0.5);
    let run_generic = drive(&generic, &times(&UNAVAILABLE, 10));
    // rand * 2^(n-1) s: 0.5, 1, 2, 4 s; 5 attempts.
    assert_eq!(run_generic.delays, [MS(500), MS(1000), MS(2000), MS(4000)]);
    assert_eq!(run_generic.gave_up, exhausted(5));

    let dynamodb = LegacyRetryStrategy::botocore_dynamodb();
    let run_dynamodb = drive(&dynamodb, &times(&UNAVAILABLE, 20));
    assert_eq!(run_dynamodb.attempts, 10);
    assert_eq!(run_dynamodb.elapsed(), MS(50 * 511)); // 0.05 * (2^9 - 1) s
    // Hints are ignored, and nothing is capped unless asked.
    let hinted = HttpErrorResponse::new(503).with_retry_after(Some(Duration::from_secs(9)));
    assert_eq!(drive(&dynamodb, &[&hinted]).delays, [MS(50)]);
    let capped = LegacyRetryStrategy::builder(LegacyPreset::BotocoreDynamoDb)
        .max_attempts(30)
        .max_backoff(Duration::from_secs(5))
        .build();
    let run_capped = drive(&capped, &times(&UNAVAILABLE, 40));
    assert_eq!(run_capped.delays[6], MS(3200));
    assert_eq!(run_capped.delays[7], Duration::from_secs(5));
}

#[test]
fn every_preset_ends_a_request_on_success_with_nothing_to_refund() {
    for preset in [
        LegacyPreset::Botocore,
        LegacyPreset::BotocoreDynamoDb,
        LegacyPreset::JavaV1,
        LegacyPreset::JavaV1DynamoDb,
        LegacyPreset::JavaScriptV2,
        LegacyPreset::JavaScriptV2DynamoDb,
    ] {
        let strategy = with_random(preset, 0.25);
        let run = drive(&strategy, &[&UNAVAILABLE, &TransportFailure::Connect]);
        assert_eq!((run.attempts, run.gave_up), (3, None), "{preset:?}");
        // No quota: the same strategy serves any number of failing requests.
        for _ in 0..100 {
            assert_eq!(
                run_attempts(&strategy, &UNAVAILABLE),
                preset.default_max_attempts(),
                "{preset:?}"
            );
        }
    }
}

#[test]
fn botocore_service_entries_add_their_rules() {
    // The vectors' "<service>_only" outcomes: not retried by the generic
    // policy, retried by the service's own.
    let cases: [(&str, u16, &str); 8] = [
        ("s3", 400, "BadDigest"),
        ("s3", 400, "RequestTimeout"),
        ("sqs", 403, "RequestThrottled"),
        ("kinesis", 400, "LimitExceededException"),
        ("glacier", 408, "RequestTimeoutException"),
        ("route53", 400, "PriorRequestNotComplete"),
        ("sts", 400, "IDPCommunicationError"),
        ("organizations", 400, "TooManyRequestsException"),
    ];
    let generic = LegacyRetryStrategy::botocore();
    for (service, status, code) in cases {
        let error = HttpErrorResponse::new(status).with_code(code);
        assert!(generic.classify(&error).is_none(), "{service} {code}");
        let own = LegacyRetryStrategy::botocore_for_service(service);
        assert_eq!(own.preset(), LegacyPreset::Botocore);
        assert_eq!(run_attempts(&own, &error), 5, "{service} {code}");
        // Status and code must both match.
        let other_status = HttpErrorResponse::new(418).with_code(code);
        assert!(own.classify(&other_status).is_none(), "{service} {code}");
    }
    // DynamoDB is a preset of its own; unknown services get the defaults.
    let dynamodb = LegacyRetryStrategy::botocore_for_service("DynamoDB");
    assert_eq!(
        (dynamodb.preset(), dynamodb.max_attempts()),
        (LegacyPreset::BotocoreDynamoDb, 10)
    );
    let sns = LegacyRetryStrategy::botocore_for_service("sns");
    assert_eq!(sns.extra_retry_rules().count(), 0);
    // The builder composes the same rules with other settings.
    let built = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
        .botocore_service("s3")
        .retry_rule(400, "Custom")
        .max_attempts(2)
        .build();
    let custom = HttpErrorResponse::new(400).with_code("Custom");
    assert_eq!(run_attempts(&built, &custom), 2);
    assert_eq!(built.extra_retry_rules().count(), 3);
}
