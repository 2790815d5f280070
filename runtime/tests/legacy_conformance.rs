//! Conformance of the botocore presets of `LegacyRetryStrategy` with
//! `legacy.json`, recorded from botocore 1.44.5's legacy retry handler
//! (`retryhandler.py` + `data/_retry.json`; `generic` = `__default__`,
//! `dynamodb` = `__default__` + the `dynamodb` entry).
//!
//! Every sequence is replayed call by call, attempt by attempt, through the
//! public API an executor uses (`acquire_initial_token`,
//! `refresh_retry_token`, `record_success`) with the recorded random draws
//! injected; DynamoDB responses go through `crc32_matches` as an integration
//! would. Every recorded field is compared; the `delay_cases`, the
//! `cross_checked_clients`, the handler's checker lists and the body CRC32
//! are checked too. Each check is counted and every count must equal the
//! number of entries, so an empty or partial iteration cannot pass.
//!
//! botocore's handler returns a delay (`delay`), `None` (`none`) or raises
//! (`raise`). rebound has no exceptions: `none` and `raise` are both "no
//! retry", after which the executor returns the failure it handed the
//! strategy — for a `raise`, that failure is checked to be the one raised.

mod common;
use common::checks::Checks;
use common::vectors::{array, flag as boolean, opt_u32, string, uint};

use std::collections::BTreeSet;
use std::sync::Arc;

use common::load_conformance;
use common::replay::{Replay, transport_failure};
use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::{Classified, FailureInfo, RetryStrategy, TokenAcquisitionFailed};
use rebound_runtime::{
    internals::{CRC32_HEADER, crc32, crc32_matches},
    legacy::{LegacyPreset, LegacyRetryStrategy},
};
use serde_json::Value;

// ---------------------------------------------------------------------------
// Failures, as an HTTP integration hands them to the strategy.
// ---------------------------------------------------------------------------

/// What the integration made of one recorded attempt.
enum Outcome<'a> {
    /// A 2xx response whose body (if checked) is intact.
    Success { status: u16 },
    /// A failure, and the botocore exception class it corresponds to when
    /// the reference raises it.
    Failure {
        failure: Box<dyn FailureInfo + 'a>,
        raised_as: &'a str,
    },
}

/// Turns a recorded attempt into what an integration would hand the
/// strategy. `body` is the response body every recorded response carries.
fn outcome<'a>(strategy: &LegacyRetryStrategy, attempt: &'a Value, body: &str) -> Outcome<'a> {
    let response = &attempt["response"];
    match response["kind"].as_str() {
        Some("http") => {
            let status = u16::try_from(uint(response, "status")).unwrap();
            let code = response["code"].as_str();
            let header = attempt["headers"][CRC32_HEADER].as_str();
            if let (true, Some(header)) = (strategy.checks_response_crc32(), header) {
                match crc32_matches(body.as_bytes(), header) {
                    Ok(true) => {}
                    Ok(false) => {
                        return Outcome::Failure {
                            failure: Box::new(Classified::retryable().with_status(status)),
                            raised_as: "ChecksumError",
                        };
                    }
                    Err(invalid) => {
                        return Outcome::Failure {
                            failure: Box::new(invalid),
                            raised_as: "ValueError",
                        };
                    }
                }
            }
            if (200..300).contains(&status) {
                return Outcome::Success { status };
            }
            let mut error = HttpErrorResponse::new(status);
            if let Some(code) = code {
                error = error.with_code(code.to_owned());
            }
            Outcome::Failure {
                failure: Box::new(error),
                raised_as: "(an error response is never raised)",
            }
        }
        Some("exception") => match response["exception"].as_str().unwrap() {
            "ValueError" => Outcome::Failure {
                // An exception that is not a transport failure (`ValueError`).
                failure: Box::new(Classified::unknown()),
                raised_as: "ValueError",
            },
            class => Outcome::Failure {
                failure: Box::new(transport_failure(class)),
                raised_as: class,
            },
        },
        other => panic!("response kind {other:?} is not in the fixture"),
    }
}

fn preset_of(service: &str) -> LegacyPreset {
    match service {
        "generic" => LegacyPreset::Botocore,
        "dynamodb" => LegacyPreset::BotocoreDynamoDb,
        other => panic!("service {other} is not in the fixture"),
    }
}

// ---------------------------------------------------------------------------
// Injected randomness: the recorded draws, replayed in order.
// ---------------------------------------------------------------------------

impl Replay {
    /// The preset's strategy, drawing the recorded values.
    fn strategy(
        self: &Arc<Self>,
        preset: LegacyPreset,
        max_attempts: Option<u32>,
    ) -> LegacyRetryStrategy {
        let replay = Arc::clone(self);
        let mut builder = LegacyRetryStrategy::builder(preset).random(move || replay.next());
        if let Some(max_attempts) = max_attempts {
            builder = builder.max_attempts(max_attempts);
        }
        builder.build()
    }
}

// ---------------------------------------------------------------------------
// Sequences.
// ---------------------------------------------------------------------------

const PER_ATTEMPT_FIELDS: &[&str] = &[
    "attempt",
    "retryable_ignoring_max_attempts",
    "retry",
    "delay",
    "random_values",
    "handler_return",
    "raised",
    "max_attempts_reached_metadata",
    "retries_context_max",
];

#[test]
fn sequences_match_botocore_legacy() {
    let file = load_conformance("legacy.json");
    let body = string(&file, "body");
    let mut checks = Checks::default();
    let (mut sequences, mut calls, mut attempts, mut raises) = (0, 0, 0, 0);

    for sequence in array(&file, "sequences") {
        sequences += 1;
        let seed = uint(sequence, "seed");
        let preset = preset_of(string(sequence, "service"));
        let replay = Arc::new(Replay::default());
        let strategy = replay.strategy(preset, opt_u32(sequence, "total_max_attempts"));
        let max_attempts = strategy.max_attempts();
        let at = format!("seed {seed}");
        checks.eq(
            "effective_max_attempts",
            u64::from(max_attempts),
            uint(sequence, "effective_max_attempts"),
            &at,
        );
        // The delay base: a draw for the generic policy, 0.05 for DynamoDB.
        let expected_base = match &sequence["delay_base"] {
            Value::String(rand) if rand == "rand" => None,
            base => Some(base.as_f64().unwrap()),
        };
        checks.eq(
            "delay_base",
            preset == LegacyPreset::BotocoreDynamoDb,
            expected_base == Some(0.05),
            &at,
        );

        for (call_index, call) in array(sequence, "calls").iter().enumerate() {
            calls += 1;
            let mut token = Some(strategy.acquire_initial_token().unwrap());
            let recorded = array(call, "attempts");
            for (index, attempt) in recorded.iter().enumerate() {
                attempts += 1;
                let is_last = index + 1 == recorded.len();
                let at = format!(
                    "seed {seed}, call {call_index}, attempt {} ({})",
                    index + 1,
                    string(attempt, "outcome")
                );
                let current = token.take().expect("a token for every recorded attempt");
                checks.eq(
                    "attempt",
                    u64::from(current.attempt()),
                    uint(attempt, "attempt"),
                    &at,
                );
                let draws = array(attempt, "random_values");
                replay.load(draws);
                let handler_return = string(attempt, "handler_return");
                let raised = attempt["raised"].as_str();
                checks.eq(
                    "retries_context_max",
                    u64::from(strategy.max_attempts()),
                    uint(attempt, "retries_context_max"),
                    &at,
                );

                // Judged ignoring the attempt limit: `raise:<Exception>`
                // means the reference raises whatever the attempt, which is
                // "not retryable" here.
                let retryable_expected = match &attempt["retryable_ignoring_max_attempts"] {
                    Value::Bool(b) => *b,
                    Value::String(raise) if raise.starts_with("raise:") => false,
                    other => panic!("retryable_ignoring_max_attempts {other} at {at}"),
                };

                match outcome(&strategy, attempt, body) {
                    Outcome::Success { status } => {
                        assert!(is_last, "a success ends the call ({at})");
                        let verdict = strategy.classify(&HttpErrorResponse::new(status));
                        checks.eq(
                            "retryable_ignoring_max_attempts",
                            verdict.is_some(),
                            retryable_expected,
                            &at,
                        );
                        strategy.record_success(current);
                        checks.eq("retry", false, boolean(attempt, "retry"), &at);
                        checks.delay("delay", None, &attempt["delay"], &at);
                        checks.eq("handler_return", "none", handler_return, &at);
                        checks.eq("raised", None, raised, &at);
                        checks.eq(
                            "max_attempts_reached_metadata",
                            false,
                            boolean(attempt, "max_attempts_reached_metadata"),
                            &at,
                        );
                    }
                    Outcome::Failure { failure, raised_as } => {
                        checks.eq(
                            "retryable_ignoring_max_attempts",
                            strategy.classify(&*failure).is_some(),
                            retryable_expected,
                            &at,
                        );
                        match strategy.refresh_retry_token(current, &*failure) {
                            Ok(next) => {
                                assert!(!is_last, "a retry is followed by an attempt ({at})");
                                checks.eq("retry", true, boolean(attempt, "retry"), &at);
                                checks.delay("delay", Some(next.delay()), &attempt["delay"], &at);
                                checks.eq("handler_return", "delay", handler_return, &at);
                                checks.eq("raised", None, raised, &at);
                                checks.eq(
                                    "max_attempts_reached_metadata",
                                    false,
                                    boolean(attempt, "max_attempts_reached_metadata"),
                                    &at,
                                );
                                token = Some(next);
                            }
                            Err(why) => {
                                assert!(is_last, "giving up ends the call ({at})");
                                checks.eq("retry", false, boolean(attempt, "retry"), &at);
                                checks.delay("delay", None, &attempt["delay"], &at);
                                assert!(
                                    matches!(handler_return, "none" | "raise"),
                                    "handler_return {handler_return} at {at}: no retry"
                                );
                                checks.counted("handler_return");
                                if handler_return == "raise" {
                                    // The executor returns what the reference raised.
                                    raises += 1;
                                    checks.eq("raised", Some(raised_as), raised, &at);
                                } else {
                                    checks.eq("raised", None, raised, &at);
                                }
                                // botocore marks the response when a status/code
                                // policy matched on the last allowed attempt.
                                let response = &attempt["response"];
                                let policy_matched = response["kind"] == "http"
                                    && strategy.preset().retries_response(
                                        u16::try_from(uint(response, "status")).unwrap(),
                                        response["code"].as_str(),
                                    );
                                let exhausted =
                                    matches!(why, TokenAcquisitionFailed::AttemptsExhausted { .. });
                                checks.eq(
                                    "max_attempts_reached_metadata",
                                    exhausted && policy_matched,
                                    boolean(attempt, "max_attempts_reached_metadata"),
                                    &at,
                                );
                            }
                        }
                    }
                }
                checks.eq(
                    "random_values",
                    draws.len() - replay.left(),
                    draws.len(),
                    &at,
                );
            }
            assert!(
                token.is_none(),
                "seed {seed}, call {call_index}: the strategy wanted another attempt"
            );
        }
    }

    assert!(sequences > 0 && calls > 0 && attempts > 0 && raises > 0);
    assert_eq!(sequences, array(&file, "sequences").len());
    assert_eq!(checks.count("effective_max_attempts"), sequences);
    assert_eq!(checks.count("delay_base"), sequences);
    for field in PER_ATTEMPT_FIELDS {
        assert_eq!(
            checks.count(field),
            attempts,
            "{field} checked for every attempt"
        );
    }
    eprintln!(
        "{sequences} sequences, {calls} calls, {attempts} attempts ({raises} raise); checks: {checks:?}"
    );
}

// ---------------------------------------------------------------------------
// The delay function, the clients, the handlers, the CRC32.
// ---------------------------------------------------------------------------

#[test]
fn delay_cases_match_delay_exponential() {
    let file = load_conformance("legacy.json");
    let mut checks = Checks::default();
    let cases = array(&file, "delay_cases");
    for (index, case) in cases.iter().enumerate() {
        let at = format!("delay case {index}");
        let preset = preset_of(string(case, "service"));
        let replay = Arc::new(Replay::default());
        let strategy = replay.strategy(preset, None);
        let draws = array(case, "random_values");
        replay.load(draws);
        let attempt = u32::try_from(uint(case, "attempt")).unwrap();
        let delay = strategy.backoff_secs(attempt, false);
        // No cap: `None` is the reference's OverflowError.
        checks.eq(
            "error",
            delay.is_none().then_some("OverflowError"),
            case["error"].as_str(),
            &at,
        );
        checks.secs("delay", delay, &case["delay"], &at);
        checks.eq(
            "random_values",
            draws.len() - replay.left(),
            draws.len(),
            &at,
        );
        let base = match &case["base"] {
            Value::String(rand) if rand == "rand" => None,
            base => base.as_f64(),
        };
        checks.eq(
            "base",
            preset == LegacyPreset::BotocoreDynamoDb,
            base == Some(0.05),
            &at,
        );
        checks.eq("growth_factor", 2, uint(case, "growth_factor"), &at);
    }
    assert!(!cases.is_empty());
    for field in ["error", "delay", "random_values", "base", "growth_factor"] {
        assert_eq!(
            checks.count(field),
            cases.len(),
            "{field} checked for every case"
        );
    }
}

#[test]
fn cross_checked_clients_have_the_recorded_max_attempts() {
    let file = load_conformance("legacy.json");
    let mut checked = 0;
    let clients = array(&file, "cross_checked_clients");
    for client in clients {
        let preset = match string(client, "client") {
            "dynamodb" => LegacyPreset::BotocoreDynamoDb,
            _ => LegacyPreset::Botocore,
        };
        let configured = opt_u32(client, "equivalent_total_max_attempts");
        let replay = Arc::new(Replay::default());
        let strategy = replay.strategy(preset, configured);
        assert_eq!(
            u64::from(strategy.max_attempts()),
            uint(client, "max_attempts"),
            "{client}"
        );
        checked += 1;
    }
    assert!(checked > 0);
    assert_eq!(checked, clients.len());
}

/// The handler's checkers, as data, against the preset's rules: every
/// status and every (status, code) the reference retries, and nothing else
/// among the statuses and codes it names.
#[test]
fn handler_checkers_are_the_preset_rules() {
    let file = load_conformance("legacy.json");
    let services = file["services"].as_object().unwrap();
    let mut checked = 0;
    for (service, spec) in services {
        let preset = preset_of(service);
        let handler = &spec["handler"];
        assert_eq!(
            u64::from(preset.default_max_attempts()),
            uint(handler, "max_attempts"),
            "{service}"
        );
        let mut statuses = BTreeSet::new();
        let mut pairs = BTreeSet::new();
        let mut crc_header = None;
        for checker in array(handler, "checkers_in_order") {
            checked += 1;
            match string(checker, "class") {
                "ExceptionRaiser" => {}
                "HTTPStatusCodeChecker" => {
                    statuses.insert(uint(checker, "status_code"));
                }
                "ServiceErrorCodeChecker" => {
                    pairs.insert((uint(checker, "status_code"), string(checker, "error_code")));
                }
                "CRC32Checker" => crc_header = Some(string(checker, "header")),
                other => panic!("checker {other}"),
            }
        }
        assert_eq!(
            preset.checks_response_crc32(),
            crc_header.is_some(),
            "{service}"
        );
        if let Some(header) = crc_header {
            assert_eq!(header, CRC32_HEADER);
        }
        let codes: BTreeSet<&str> = pairs.iter().map(|(_, code)| *code).collect();
        for status in 100..600u16 {
            let by_status = statuses.contains(&u64::from(status));
            assert_eq!(
                preset.retries_response(status, None),
                by_status,
                "{service} {status}"
            );
            for code in &codes {
                let expected = by_status || pairs.contains(&(u64::from(status), *code));
                assert_eq!(
                    preset.retries_response(status, Some(code)),
                    expected,
                    "{service} {status} {code}"
                );
            }
        }
        // Exceptions: the retryable ones and the ones the handler re-raises.
        let retryable: BTreeSet<&str> = array(handler, "retryable_exceptions")
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        let replay = Arc::new(Replay::default());
        let strategy = replay.strategy(preset, None);
        for (class, description) in file["exception_classes"].as_object().unwrap() {
            let description = description.as_str().unwrap();
            let expected = retryable.contains(class.as_str())
                || description.contains("subclass of ConnectionError");
            let verdict = if class == "ValueError" {
                strategy.classify(&Classified::unknown())
            } else {
                strategy.classify(&transport_failure(class))
            };
            assert_eq!(
                verdict.is_some(),
                expected,
                "{service} {class}: {description}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn body_crc32_is_zlib_crc32() {
    let file = load_conformance("legacy.json");
    let body = string(&file, "body");
    assert_eq!(u64::from(crc32(body.as_bytes())), uint(&file, "body_crc32"));
}
