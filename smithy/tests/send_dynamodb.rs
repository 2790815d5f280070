//! `rebound_smithy::send` around the real `aws-sdk-dynamodb` client,
//! against a local awsJson1_0 server: the attempts and waits of scripted
//! failures, every modeled DynamoDB error classified as the model and the
//! AWS rules say, and the SDK's own standard strategy making the same
//! attempts within the same bounds.

#[allow(dead_code, unreachable_pub)]
#[path = "../../tests/support/otel.rs"]
mod otel;
mod support;

use std::future::Future;
use std::sync::Mutex;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_types::retry::RetryConfig;
use rebound_runtime::internals::{
    THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES, TRANSIENT_STATUS_CODES,
};
use rebound_runtime::{ErrorFault, ErrorInfo, RetryKind, RetryStrategy, StandardRetryStrategy};
use rebound_runtime::{Retry, StopReason, TokenAcquisitionFailed};
use support::{RecordingSleep, Reply, Server, bound, config, dynamodb_errors, scripts};

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
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
        let result = rebound_smithy::send_detailed(&retry, || client.list_tables().send()).await;
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

/// Retries an outage of 500s gets from a full quota, one call after another
/// until a call is refused its first retry; returns the retries.
async fn retries_into_an_outage(server: &Server, call: impl AsyncFn() -> bool) -> usize {
    server.script.reset();
    let mut calls = 0;
    loop {
        server
            .script
            .push(vec![Reply::error(500, "InternalServerError"); 3]);
        calls += 1;
        let retried = call().await;
        server.script.reset_replies();
        if !retried || calls > 1000 {
            break;
        }
    }
    server.script.requests() - calls
}

#[tokio::test]
async fn by_design_a_5xx_retry_costs_rebound_5_tokens_and_the_sdk_10() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    // A retry partition of its own: the SDK's token buckets are per partition, process-wide.
    let sdk = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::standard(), &sleep)
            .retry_partition(aws_smithy_runtime::client::retries::RetryPartition::new(
                "outage",
            ))
            .build(),
    );
    let sdk_retries = retries_into_an_outage(&server, async || {
        let before = server.script.requests();
        let _ = sdk.list_tables().send().await;
        server.script.requests() - before > 1
    })
    .await;

    let plain = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let retry = Retry::new(standard()).sleeper(|_| std::future::ready(()));
    let rebound_retries = retries_into_an_outage(&server, async || {
        let error = rebound_smithy::send_detailed(&retry, || plain.list_tables().send())
            .await
            .unwrap_err();
        error.attempts() > 1
    })
    .await;
    // A quota of 500: 50 retries at 10 tokens, 100 at 5 (botocore's and the
    // published cost of a retry after a non-timeout failure).
    assert_eq!(sdk_retries, 50);
    assert_eq!(rebound_retries, 100);
}

/// Two rounds of 100 concurrent calls, each failing once (500) then
/// succeeding; returns the retries each round got. `call(n)` makes call `n`.
async fn two_rounds<F>(server: &Server, call: impl Fn(usize) -> F) -> [usize; 2]
where
    F: Future<Output = ()> + Send + 'static,
{
    let mut retries = [0; 2];
    for (round, retried) in retries.iter_mut().enumerate() {
        server.script.reset();
        let calls: Vec<_> = (0..100)
            .map(|n| tokio::spawn(call(round * 1000 + n)))
            .collect();
        for call in calls {
            call.await.unwrap();
        }
        *retried = server.script.requests() - 100;
    }
    retries
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn by_design_concurrent_successful_retries_refund_what_they_took() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let with_call = |n: usize| {
        move |request: &mut aws_smithy_runtime_api::http::Request| {
            request.headers_mut().insert("x-call", n.to_string());
        }
    };

    let sdk = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::standard(), &sleep)
            .retry_partition(aws_smithy_runtime::client::retries::RetryPartition::new(
                "rounds",
            ))
            .build(),
    );
    let sdk_rounds = two_rounds(&server, |n| {
        let sdk = sdk.clone();
        async move {
            let _ = sdk
                .list_tables()
                .customize()
                .mutate_request(with_call(n))
                .send()
                .await;
        }
    })
    .await;

    let plain = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let retry = std::sync::Arc::new(Retry::new(standard()).sleeper(|_| std::future::ready(())));
    let rebound_rounds = two_rounds(&server, |n| {
        let (plain, retry) = (plain.clone(), std::sync::Arc::clone(&retry));
        async move {
            let send = || {
                plain
                    .list_tables()
                    .customize()
                    .mutate_request(with_call(n))
                    .send()
            };
            rebound_smithy::send(&retry, send).await.unwrap();
        }
    })
    .await;
    println!("retries per round of 100 calls: SDK {sdk_rounds:?}, rebound {rebound_rounds:?}");
    // rebound: each retry's 5 tokens come back with its success, so every
    // round gets all 100 (500 tokens in flight at most).
    assert_eq!(rebound_rounds, [100, 100]);
    // The SDK: 10 tokens a retry, so about 50 a round (more as successes
    // refund during it); its one permit per client gives back only part of
    // what the successes took, so the second round gets fewer. Should the
    // SDK change, this fails and the docs' numbers are stale.
    assert!(sdk_rounds[0] < 100, "{sdk_rounds:?}");
    assert!(sdk_rounds[1] < sdk_rounds[0] / 2, "{sdk_rounds:?}");
}

#[tokio::test]
async fn the_wrapper_reads_a_retry_after_hint() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    server.script.push([
        Reply::error(400, "ThrottlingException").with_header("retry-after", "4"),
        Reply::ok(),
    ]);
    let waits = Mutex::new(Vec::new());
    // The hint honoured as a minimum, the jitter fixed (the backoff alone: 500 ms).
    let strategy = StandardRetryStrategy::builder()
        .retry_after(rebound_runtime::backoff::RetryAfterPolicy::HTTP)
        .random(|| 0.5)
        .build();
    let retry = Retry::new(strategy).sleeper(|delay| {
        waits.lock().unwrap().push(delay);
        std::future::ready(())
    });
    rebound_smithy::send(&retry, || client.list_tables().send())
        .await
        .unwrap();
    assert_eq!(
        waits.into_inner().unwrap(),
        [std::time::Duration::from_secs(4)]
    );
}

/// `send` makes each attempt a new SDK call: the observer counts attempts,
/// not calls (read back through an OpenTelemetry meter).
#[tokio::test]
async fn an_observer_counts_sends_attempts_not_calls() {
    let server = Server::start().await;
    let sleep = RecordingSleep::default();
    let client = aws_sdk_dynamodb::Client::from_conf(
        config(&server, RetryConfig::disabled(), &sleep).build(),
    );
    let strategy = standard();
    let meter = otel::MemoryMeter::new();
    let observer = rebound_runtime::opentelemetry::observer(&meter.meter(), "dynamodb");
    let retry = Retry::new(&strategy)
        .sleeper(|_| std::future::ready(()))
        .listener(&observer);
    server.script.push([
        Reply::error(400, "ThrottlingException"),
        Reply::error(500, "InternalServerError"),
        Reply::ok(),
        Reply::error(500, "InternalServerError"),
        Reply::error(500, "InternalServerError"),
        Reply::error(500, "InternalServerError"),
    ]);
    let first = rebound_smithy::send(&retry, || client.list_tables().send()).await;
    let second = rebound_smithy::send(&retry, || client.list_tables().send()).await;
    assert!(first.is_ok() && second.is_err());
    assert_eq!(server.script.requests(), 6);
    let exported = meter.collect();
    let attempts = |with: &[(&str, &str)]| exported.number("rebound.client.attempts", with);
    let outcome = |o| ("rebound.attempt.outcome", o);
    let kind = |k| ("rebound.failure.kind", k);
    assert_eq!(attempts(&[outcome("success")]), 1.0);
    assert_eq!(
        attempts(&[outcome("retryable_failure"), kind("throttle")]),
        1.0
    );
    assert_eq!(
        attempts(&[outcome("retryable_failure"), kind("transient")]),
        4.0
    );
    assert_eq!(attempts(&[]), 6.0);
    let reason = ("rebound.give_up.reason", "attempts_exhausted");
    assert_eq!(exported.number("rebound.client.give_ups", &[reason]), 1.0);
    // Two requests, two retries each.
    assert_eq!(
        exported.histogram("rebound.client.request.retries", &[]),
        (2, 4.0)
    );
}
