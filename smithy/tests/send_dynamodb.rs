//! `rebound_smithy::send` around the real `aws-sdk-dynamodb` client,
//! against a local awsJson1_0 server: the attempts and waits of scripted
//! failures, every modeled DynamoDB error classified as the model and the
//! AWS rules say, and the SDK's own standard strategy making the same
//! attempts within the same bounds.

mod support;

use std::sync::Mutex;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_types::retry::RetryConfig;
use rebound_runtime::internals::{
    THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES, TRANSIENT_STATUS_CODES,
};
use rebound_runtime::{ErrorFault, ErrorInfo, RetryKind, RetryStrategy, StandardRetryStrategy};
use rebound_runtime::{Retry, StopReason, TokenAcquisitionFailed};
use support::{RecordingSleep, Reply, Server, config, dynamodb_errors};

/// The scripts every test runs: the replies, then how many attempts
/// standard mode makes and whether the call succeeds.
fn scripts() -> Vec<(&'static str, Vec<Reply>, usize, bool)> {
    let throughput = || Reply::error(400, "ProvisionedThroughputExceededException");
    vec![
        (
            "500",
            vec![Reply::error(500, "InternalServerError"), Reply::ok()],
            2,
            true,
        ),
        ("503", vec![Reply::status(503), Reply::ok()], 2, true),
        ("throughput", vec![throughput(), Reply::ok()], 2, true),
        (
            "throttling",
            vec![Reply::error(400, "ThrottlingException"), Reply::ok()],
            2,
            true,
        ),
        (
            "validation",
            vec![Reply::error(400, "ValidationException")],
            1,
            false,
        ),
        (
            "500 x3",
            vec![Reply::error(500, "InternalServerError"); 3],
            3,
            false,
        ),
        (
            "mixed",
            vec![Reply::status(503), throughput(), Reply::ok()],
            3,
            true,
        ),
    ]
}

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// Standard mode's published bound on the wait before retry `n` (1-based):
/// full jitter under min(1 s x 2^(n-1), 20 s).
fn bound(retry: usize) -> Duration {
    Duration::from_secs(1 << (retry - 1).min(5)).min(Duration::from_secs(20))
}

#[tokio::test]
async fn scripted_failures_through_the_wrapper() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let strategy = standard();
    for (name, replies, attempts, succeeds) in scripts() {
        server.script.reset();
        server.script.push(replies);
        let waits = Mutex::new(Vec::new());
        let retry = Retry::new(&strategy).sleeper(|delay| {
            waits.lock().unwrap().push(delay);
            std::future::ready(())
        });
        let result = rebound_smithy::send(&retry, || client.list_tables().send()).await;
        assert_eq!(server.script.requests(), attempts, "{name}");
        assert_eq!(result.is_ok(), succeeds, "{name}: {result:?}");
        // Full jitter with the random fixed at 0.5: half of each bound.
        let expected: Vec<_> = (1..attempts).map(|retry| bound(retry) / 2).collect();
        let waits = waits.into_inner().unwrap();
        assert_eq!(waits, expected, "{name}");
        // The client itself neither retried nor slept.
        assert!(sleep.waits().is_empty(), "{name}: {:?}", sleep.waits());
        // Each attempt is a new call: the header cannot count them.
        for header in server.script.attempt_headers() {
            assert!(header.starts_with("attempt=1; max=1"), "{name}: {header}");
        }
        if let Err(error) = result {
            assert_eq!(error.attempts() as usize, attempts, "{name}");
            let expected_reason = if attempts == 3 {
                matches!(
                    error.reason(),
                    StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted { .. })
                )
            } else {
                matches!(
                    error.reason(),
                    StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { .. })
                )
            };
            assert!(expected_reason, "{name}: {error}");
        }
    }
}

#[tokio::test]
async fn every_modeled_dynamodb_error_is_classified_as_the_model_says() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let strategy = StandardRetryStrategy::new();
    let errors = dynamodb_errors();
    assert_eq!(errors.len(), 34);
    for modeled in errors {
        let status = modeled
            .http_status
            .unwrap_or(if modeled.server_fault { 500 } else { 400 });
        server.script.reset();
        server.script.push([Reply::error(status, &modeled.name)]);
        let error = client
            .put_item()
            .table_name("table")
            .item("key", AttributeValue::S("value".into()))
            .send()
            .await
            .unwrap_err();
        let failure = rebound_smithy::classify(&error);
        let name = modeled.name.as_str();
        assert_eq!(failure.error_code(), Some(name));
        assert_eq!(failure.http_status(), Some(status), "{name}");
        // The AWS rules on what the model says: retryable when modeled so,
        // or a throttling or transient code, or a transient status.
        let throttling = modeled.throttling || THROTTLING_ERROR_CODES.contains(&name);
        let retryable = modeled.retryable
            || throttling
            || TRANSIENT_ERROR_CODES.contains(&name)
            || TRANSIENT_STATUS_CODES.contains(&status);
        let token = strategy.acquire_initial_token().unwrap();
        let verdict = strategy.refresh_retry_token(token, &failure);
        assert_eq!(verdict.is_ok(), retryable, "{name}: {verdict:?}");
        if retryable {
            let kind = strategy.retry_kind(&failure);
            assert_eq!(kind == RetryKind::Throttle, throttling, "{name}: {kind:?}");
        }
        let fault = if status >= 500 {
            ErrorFault::Server
        } else {
            ErrorFault::Client
        };
        assert_eq!(failure.fault(), fault, "{name}");
        if let Ok(token) = verdict {
            strategy.abandon(token);
        }
    }
}

#[tokio::test]
async fn the_sdks_own_standard_strategy_makes_the_same_attempts_within_the_same_bounds() {
    let server = Server::start().await;
    let sdk_sleep = RecordingSleep::default();
    let sdk = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::standard(), &sdk_sleep).build(),
    );
    let sleep = RecordingSleep::default();
    let plain = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    for (name, replies, attempts, succeeds) in scripts() {
        // The SDK's own strategy.
        server.script.reset();
        server.script.push(replies.clone());
        sdk_sleep.clear();
        let result = sdk.list_tables().send().await;
        assert_eq!(server.script.requests(), attempts, "SDK, {name}");
        assert_eq!(result.is_ok(), succeeds, "SDK, {name}");
        let sdk_waits = sdk_sleep.waits();
        assert_eq!(sdk_waits.len(), attempts - 1, "SDK, {name}: {sdk_waits:?}");

        // rebound's, with real jitter.
        server.script.reset();
        server.script.push(replies);
        let waits = Mutex::new(Vec::new());
        let retry = Retry::new(StandardRetryStrategy::new()).sleeper(|delay| {
            waits.lock().unwrap().push(delay);
            std::future::ready(())
        });
        let result = rebound_smithy::send(&retry, || plain.list_tables().send()).await;
        assert_eq!(server.script.requests(), attempts, "rebound, {name}");
        assert_eq!(result.is_ok(), succeeds, "rebound, {name}");
        let waits = waits.into_inner().unwrap();
        assert_eq!(waits.len(), attempts - 1, "rebound, {name}");

        for (retry, (sdk_wait, wait)) in sdk_waits.iter().zip(&waits).enumerate() {
            let bound = bound(retry + 1);
            assert!(*sdk_wait <= bound, "SDK, {name}: {sdk_wait:?} > {bound:?}");
            assert!(*wait <= bound, "rebound, {name}: {wait:?} > {bound:?}");
        }
    }
}

#[test]
fn a_client_retrying_by_itself_is_named() {
    let error = rebound_smithy::check_client_retries(Some(&RetryConfig::standard()))
        .expect_err("standard mode makes 3 attempts");
    assert_eq!(error.max_attempts(), 3);
    assert!(
        error.to_string().contains("RetryConfig::disabled()"),
        "{error}"
    );
    assert!(rebound_smithy::check_client_retries(Some(&RetryConfig::disabled())).is_ok());
    assert!(rebound_smithy::check_client_retries(None).is_ok());
}
