//! Conformance of `StandardRetryStrategy` with the vectors recorded from
//! botocore: `standard_v21.json` (behaviour 2.1, botocore 1.44.5) and
//! `standard_v20.json` (behaviour 2.0, botocore 1.35.0).
//!
//! Every sequence is replayed attempt by attempt through the public API the
//! executors use (`acquire_initial_token`, `refresh_retry_token`,
//! `record_success`), with the recorded random draws injected, and every
//! recorded field is compared. Every `backoff_cases` and `quota_cases` entry
//! is checked too. The number of checks of each field is counted and must
//! cover every entry, so an empty or partial iteration cannot pass.
//!
//! Delays are `Duration`s (nanosecond resolution): a delay matches when it is
//! within 1e-9 relative of the recorded float, or within 1 ns.

mod common;
use common::checks::Checks;
use common::vectors::{array, flag as boolean, opt_u32 as opt_uint, string, uint};

use std::sync::Arc;
use std::time::Duration;

use common::load_conformance;
use common::replay::{Replay, transport_failure};
use rebound_runtime::{
    AwsServiceDefaults, Classified, ErrorInfo, FailureInfo, RetryBehavior, RetryKind, RetryQuota,
    RetrySafety, RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed, backoff::Backoff,
};
use rebound_runtime::{classify::HttpErrorResponse, internals::parse_x_amz_retry_after};
use serde_json::Value;

// ---------------------------------------------------------------------------
// The fake operation's errors, as the vocabulary describes them.
// ---------------------------------------------------------------------------

/// What one recorded attempt returned. Failures borrow their error code
/// from the loaded vectors.
enum Outcome<'a> {
    /// A successful response; the status is kept for the classifier check.
    Success {
        status: u16,
    },
    Failure(Box<dyn FailureInfo + 'a>),
}

struct Fixture {
    modeled: Vec<(String, bool, bool)>,
}

impl Fixture {
    fn new(file: &Value) -> Self {
        let modeled = array(file, "modeled_errors")
            .iter()
            .map(|m| {
                (
                    string(m, "code").to_owned(),
                    boolean(m, "retryable"),
                    boolean(m, "throttling"),
                )
            })
            .collect();
        Self { modeled }
    }

    /// Turns a recorded response into what an HTTP integration would hand the
    /// strategy.
    fn outcome<'a>(&self, service: &AwsServiceDefaults, attempt: &'a Value) -> Outcome<'a> {
        let response = &attempt["response"];
        let headers = &attempt["headers"];
        match response["kind"].as_str() {
            Some("http") => {
                let status = u16::try_from(uint(response, "status")).unwrap();
                let code = response["code"].as_str();
                let retry_after = headers["x-amz-retry-after"]
                    .as_str()
                    .and_then(parse_x_amz_retry_after);
                // The body is empty, whose CRC32 is 0.
                let crc_mismatch = service.checks_response_crc32
                    && headers["x-amz-crc32"]
                        .as_str()
                        .is_some_and(|crc| crc.parse::<u32>() != Ok(0));
                if crc_mismatch {
                    return Outcome::Failure(Box::new(Classified::retryable().with_status(status)));
                }
                if (200..300).contains(&status) {
                    return Outcome::Success { status };
                }
                if let Some((code, retryable, throttling)) = self
                    .modeled
                    .iter()
                    .find(|(modeled, ..)| Some(modeled.as_str()) == code)
                {
                    // A modeled error, as `#[derive(RetryInfo)]` would
                    // describe it: `@retryable` (optionally throttling) or not.
                    let safety = if *retryable {
                        RetrySafety::Yes
                    } else {
                        RetrySafety::No
                    };
                    return Outcome::Failure(Box::new(
                        Classified::new(safety)
                            .with_throttle(*throttling)
                            .with_retry_after(retry_after)
                            .with_status(status)
                            .with_code(code.clone()),
                    ));
                }
                let mut error = HttpErrorResponse::new(status).with_retry_after(retry_after);
                if let Some(code) = code {
                    error = error.with_code(code.to_owned());
                }
                Outcome::Failure(Box::new(error))
            }
            Some("exception") => Outcome::Failure(match response["exception"].as_str().unwrap() {
                // Not a transport failure: nothing is known about it.
                "ValueError" => Box::new(Classified::unknown()),
                class => Box::new(transport_failure(class)),
            }),
            other => panic!("response kind {other:?} is not in the fixture"),
        }
    }
}

// ---------------------------------------------------------------------------
// Injected randomness: the recorded draws, replayed in order.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Checking one attempt's decision.
// ---------------------------------------------------------------------------

impl Checks {
    /// Checks what the strategy decided for one attempt against the record.
    fn decision(&mut self, decision: &Decision, attempt: &Value, has_long_poll: bool, at: &str) {
        self.eq("retry", decision.retry, boolean(attempt, "retry"), at);
        self.delay("delay", decision.delay, &attempt["delay"], at);
        self.eq(
            "quota_cost_acquired",
            decision.cost,
            opt_uint(attempt, "quota_cost_acquired"),
            at,
        );
        // botocore's handler returns a delay, `False` after a long-polling
        // sleep, or `None`.
        let handler_return = match (decision.retry, decision.long_poll_sleep) {
            (true, _) => "delay",
            (false, Some(_)) => "false",
            (false, None) => "none",
        };
        self.eq(
            "handler_return",
            handler_return,
            attempt["handler_return"].as_str().unwrap(),
            at,
        );
        if has_long_poll {
            self.delay(
                "long_poll_sleep",
                decision.long_poll_sleep,
                &attempt["long_poll_sleep"],
                at,
            );
        }
    }
}

/// What the strategy decided after one attempt.
#[derive(Default)]
struct Decision {
    retry: bool,
    delay: Option<Duration>,
    cost: Option<u32>,
    long_poll_sleep: Option<Duration>,
}

// ---------------------------------------------------------------------------
// Sequences.
// ---------------------------------------------------------------------------

const PER_ATTEMPT_FIELDS: &[&str] = &[
    "attempt",
    "is_throttling",
    "retryable_ignoring_max_attempts",
    "capacity_before",
    "retry",
    "delay",
    "quota_cost_acquired",
    "capacity_after",
    "random_values",
    "handler_return",
];

/// Checked for every call whose final attempt produced an HTTP response.
const PER_RELEASE_FIELDS: &[&str] = &[
    "after_call_release.capacity_before",
    "after_call_release.capacity_after",
    "after_call_release.last_acquired_cost",
];

struct Totals {
    sequences: usize,
    calls: usize,
    attempts: usize,
    /// Calls whose final attempt produced an HTTP response.
    releases: usize,
}

fn replay_sequences(file: &Value, behavior: RetryBehavior, checks: &mut Checks) -> Totals {
    let fixture = Fixture::new(file);
    let has_long_poll = behavior == RetryBehavior::V2_1;
    let has_metadata = behavior == RetryBehavior::V2_0;
    let mut totals = Totals {
        sequences: 0,
        calls: 0,
        attempts: 0,
        releases: 0,
    };

    for sequence in array(file, "sequences") {
        totals.sequences += 1;
        let seed = uint(sequence, "seed");
        let service = string(sequence, "service");
        let operation = string(sequence, "operation");
        let service_defaults = AwsServiceDefaults::lookup(service, operation);
        let quota = Arc::new(RetryQuota::new(
            u32::try_from(uint(sequence, "initial_capacity")).unwrap(),
        ));
        let replay = Arc::new(Replay::default());
        let mut builder = StandardRetryStrategy::builder()
            .behavior(behavior)
            .aws_service(service, operation)
            .quota(Arc::clone(&quota))
            .random({
                let replay = Arc::clone(&replay);
                move || replay.next()
            });
        if let Some(max_attempts) = opt_uint(sequence, "configured_max_attempts") {
            builder = builder.max_attempts(max_attempts);
        }
        let strategy = builder.build();
        let max_attempts = strategy.max_attempts();
        checks.eq(
            "effective_max_attempts",
            u64::from(max_attempts),
            uint(sequence, "effective_max_attempts"),
            &format!("seed {seed}"),
        );

        for (call_index, call) in array(sequence, "calls").iter().enumerate() {
            totals.calls += 1;
            let mut token = Some(strategy.acquire_initial_token().unwrap());
            let attempts = array(call, "attempts");
            let release = &call["after_call_release"];
            for (index, attempt) in attempts.iter().enumerate() {
                totals.attempts += 1;
                let is_last = index + 1 == attempts.len();
                let at = format!("seed {seed}, call {call_index}, attempt {}", index + 1);
                let current = token.take().expect("a token for every recorded attempt");
                checks.eq(
                    "attempt",
                    u64::from(current.attempt()),
                    uint(attempt, "attempt"),
                    &at,
                );
                checks.eq(
                    "capacity_before",
                    u64::from(quota.available()),
                    uint(attempt, "capacity_before"),
                    &at,
                );
                let draws = array(attempt, "random_values");
                replay.load(draws);

                let outcome = fixture.outcome(&service_defaults, attempt);
                let verdict = match &outcome {
                    Outcome::Success { status } => strategy
                        .classifier()
                        .classify(&HttpErrorResponse::new(*status)),
                    Outcome::Failure(failure) => strategy.classifier().classify(&**failure),
                };
                checks.eq(
                    "is_throttling",
                    verdict == Some(RetryKind::Throttle),
                    boolean(attempt, "is_throttling"),
                    &at,
                );
                checks.eq(
                    "retryable_ignoring_max_attempts",
                    verdict.is_some(),
                    boolean(attempt, "retryable_ignoring_max_attempts"),
                    &at,
                );

                let last_acquired_cost = current.quota_cost();
                let attempt_number = current.attempt();
                let mut gave_up: Option<TokenAcquisitionFailed> = None;
                let mut refunded_on_failure = false;
                let decision = match outcome {
                    Outcome::Success { .. } => {
                        assert!(is_last, "a success ends the call ({at})");
                        // The attempt itself changes nothing; the refund is the
                        // reference's after-call hook.
                        checks.eq(
                            "capacity_after",
                            u64::from(quota.available()),
                            uint(attempt, "capacity_after"),
                            &at,
                        );
                        checks.eq(
                            "after_call_release.capacity_before",
                            u64::from(quota.available()),
                            uint(release, "capacity_before"),
                            &at,
                        );
                        strategy.record_success(current);
                        Decision::default()
                    }
                    Outcome::Failure(failure) => {
                        let status = failure.http_status();
                        match strategy.refresh_retry_token(current, &*failure) {
                            Ok(next) => {
                                assert!(!is_last, "a retry is followed by another attempt ({at})");
                                checks.eq(
                                    "capacity_after",
                                    u64::from(quota.available()),
                                    uint(attempt, "capacity_after"),
                                    &at,
                                );
                                let decision = Decision {
                                    retry: true,
                                    delay: Some(next.delay()),
                                    cost: next.quota_cost(),
                                    long_poll_sleep: None,
                                };
                                token = Some(next);
                                decision
                            }
                            Err(why) => {
                                assert!(is_last, "giving up ends the call ({at})");
                                // The strategy refunds a request that ends on a 2xx
                                // failure within this call, which the reference
                                // does in its after-call hook: compare the quota
                                // with the state after that hook.
                                refunded_on_failure =
                                    status.is_some_and(|s| (200..300).contains(&s));
                                let expected_after = if refunded_on_failure {
                                    checks.eq(
                                        "after_call_release.capacity_before",
                                        uint(attempt, "capacity_after"),
                                        uint(release, "capacity_before"),
                                        &at,
                                    );
                                    uint(release, "capacity_after")
                                } else {
                                    uint(attempt, "capacity_after")
                                };
                                checks.eq(
                                    "capacity_after",
                                    u64::from(quota.available()),
                                    expected_after,
                                    &at,
                                );
                                let decision = Decision {
                                    long_poll_sleep: why.delay_before_giving_up(),
                                    ..Decision::default()
                                };
                                gave_up = Some(why);
                                decision
                            }
                        }
                    }
                };
                checks.decision(&decision, attempt, has_long_poll, &at);
                checks.eq(
                    "random_values",
                    draws.len() - replay.left(),
                    draws.len(),
                    &at,
                );

                if has_metadata {
                    let expected = &attempt["metadata"];
                    if attempt["response"]["kind"] == "exception" {
                        checks.eq("metadata", &Value::Null, expected, &at);
                    } else {
                        let mut metadata = serde_json::Map::new();
                        if attempt_number >= max_attempts {
                            metadata.insert("MaxAttemptsReached".into(), Value::Bool(true));
                        }
                        if matches!(gave_up, Some(TokenAcquisitionFailed::QuotaExhausted { .. })) {
                            metadata.insert("RetryQuotaReached".into(), Value::Bool(true));
                        }
                        checks.eq("metadata", &Value::Object(metadata), expected, &at);
                    }
                }

                if is_last {
                    // The reference's after-call hook runs only when the final
                    // attempt produced an HTTP response.
                    let produced_response = attempt["response"]["kind"] == "http";
                    checks.eq(
                        "after_call_release.present",
                        !release.is_null(),
                        produced_response,
                        &at,
                    );
                    if release.is_null() {
                        // No response, no refund: the quota is where the
                        // failed attempt left it (checked as capacity_after).
                        assert!(gave_up.is_some() && !refunded_on_failure, "{at}");
                    } else {
                        checks.eq(
                            "after_call_release.last_acquired_cost",
                            last_acquired_cost,
                            opt_uint(release, "last_acquired_cost"),
                            &at,
                        );
                        if gave_up.is_some() && !refunded_on_failure {
                            // A non-2xx response: nothing is released.
                            checks.eq(
                                "after_call_release.capacity_before",
                                uint(release, "capacity_before"),
                                u64::from(quota.available()),
                                &at,
                            );
                        }
                        checks.eq(
                            "after_call_release.capacity_after",
                            u64::from(quota.available()),
                            uint(release, "capacity_after"),
                            &at,
                        );
                        totals.releases += 1;
                    }
                }
            }
            assert!(
                token.is_none(),
                "seed {seed}, call {call_index}: the strategy wanted another attempt"
            );
        }
    }
    totals
}

fn assert_sequences(file: &str, behavior: RetryBehavior) {
    let file = load_conformance(file);
    let mut checks = Checks::default();
    let totals = replay_sequences(&file, behavior, &mut checks);
    assert!(totals.sequences > 0 && totals.calls > 0 && totals.attempts > 0);
    assert_eq!(checks.count("effective_max_attempts"), totals.sequences);
    for field in PER_ATTEMPT_FIELDS {
        assert_eq!(
            checks.count(field),
            totals.attempts,
            "{field} checked for every attempt"
        );
    }
    if behavior == RetryBehavior::V2_1 {
        assert_eq!(checks.count("long_poll_sleep"), totals.attempts);
    } else {
        assert_eq!(checks.count("metadata"), totals.attempts);
    }
    assert_eq!(checks.count("after_call_release.present"), totals.calls);
    assert!(totals.releases > 0);
    for field in PER_RELEASE_FIELDS {
        assert_eq!(
            checks.count(field),
            totals.releases,
            "{field} checked for every release"
        );
    }
    eprintln!(
        "{} sequences, {} calls ({} ending on a response), {} attempts; checks: {:?}",
        totals.sequences, totals.calls, totals.releases, totals.attempts, checks
    );
}

#[test]
fn behaviour_2_1_sequences_match_botocore_1_44() {
    assert_sequences("standard_v21.json", RetryBehavior::V2_1);
}

#[test]
fn behaviour_2_0_sequences_match_botocore_1_35() {
    assert_sequences("standard_v20.json", RetryBehavior::V2_0);
}

// ---------------------------------------------------------------------------
// Backoff and quota cases.
// ---------------------------------------------------------------------------

#[test]
fn behaviour_2_1_backoff_cases() {
    let file = load_conformance("standard_v21.json");
    let mut checks = Checks::default();
    let cases = array(&file, "backoff_cases");
    for (index, case) in cases.iter().enumerate() {
        let random = case["random"].as_f64().unwrap();
        let strategy = StandardRetryStrategy::builder()
            .behavior(RetryBehavior::V2_1)
            .aws_service(string(case, "service"), "")
            .random(move || random)
            .build();
        let hint = case["x_amz_retry_after"]
            .as_str()
            .and_then(parse_x_amz_retry_after);
        let attempt = u32::try_from(uint(case, "attempt")).unwrap();
        let delay =
            strategy.retry_delay(attempt, boolean(case, "throttling"), Duration::ZERO, hint);
        checks.delay(
            "delay",
            Some(delay),
            &case["delay"],
            &format!("backoff case {index}"),
        );
    }
    assert!(!cases.is_empty());
    assert_eq!(checks.count("delay"), cases.len());
}

#[test]
fn behaviour_2_0_backoff_cases() {
    let file = load_conformance("standard_v20.json");
    let mut checks = Checks::default();
    let cases = array(&file, "backoff_cases");
    for (index, case) in cases.iter().enumerate() {
        let random = case["random"].as_f64().unwrap();
        let mut builder = StandardRetryStrategy::builder().random(move || random);
        if let Some(cap) = case["max_backoff"].as_f64() {
            let base = Duration::from_secs(1);
            let cap = Duration::from_secs_f64(cap);
            builder = builder
                .backoff(Backoff::FullJitter { base, cap })
                .throttling_backoff(Backoff::FullJitter { base, cap });
        }
        let strategy = builder.build();
        // Behaviour 2.0 ignores x-amz-retry-after: pass the hint anyway.
        let hint = case["x_amz_retry_after"]
            .as_str()
            .and_then(parse_x_amz_retry_after);
        let attempt = u32::try_from(uint(case, "attempt")).unwrap();
        let delay = strategy.retry_delay(attempt, false, Duration::ZERO, hint);
        checks.delay(
            "delay",
            Some(delay),
            &case["delay"],
            &format!("backoff case {index}"),
        );
    }
    assert!(!cases.is_empty());
    assert_eq!(checks.count("delay"), cases.len());
}

fn assert_quota_cases(file: &str) {
    let file = load_conformance(file);
    let mut checks = Checks::default();
    let mut ops = 0;
    for case in array(&file, "quota_cases") {
        let quota = RetryQuota::new(u32::try_from(uint(case, "initial_capacity")).unwrap());
        let seed = uint(case, "seed");
        for (index, op) in array(case, "ops").iter().enumerate() {
            ops += 1;
            let at = format!("quota case seed {seed}, op {index}");
            let amount = u32::try_from(uint(op, "amount")).unwrap();
            match op["op"].as_str().unwrap() {
                "acquire" => checks.eq(
                    "ok",
                    quota.try_acquire(amount).is_ok(),
                    boolean(op, "ok"),
                    &at,
                ),
                "release" => {
                    quota.release(amount);
                }
                other => panic!("unknown quota op {other} at {at}"),
            }
            checks.eq(
                "available",
                u64::from(quota.available()),
                uint(op, "available"),
                &at,
            );
        }
    }
    assert!(ops > 0);
    assert_eq!(checks.count("available"), ops);
    assert!(checks.count("ok") > 0);
}

#[test]
fn behaviour_2_1_quota_cases() {
    assert_quota_cases("standard_v21.json");
}

#[test]
fn behaviour_2_0_quota_cases() {
    assert_quota_cases("standard_v20.json");
}
