//! End to end: a real reqwest client, retried by rebound, against a real
//! HTTP server on 127.0.0.1 that scripts its failures. Server-side attempts
//! are counted exactly; waits are virtual (recorded, not slept), except the
//! one real delay a client timeout needs.
#![cfg(all(feature = "reqwest", feature = "tokio"))]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rebound::backoff::RetryAfterPolicy;
use rebound::http::ResponseClassifier;
use rebound::reqwest::RequestBuilderExt as _;
use rebound::time::ManualClock;
use rebound::{
    AdaptiveRetryStrategy, ErrorInfo as _, FailureInfo, Retry, RetryBehavior, RetryKind,
    RetryStrategy, RetryToken, StandardRetryStrategy, StopReason, TokenAcquisitionFailed,
    TokenIssuer, TransportFailure,
};
use support::scripted_server::{Reply, Server};
use support::slept::Slept;

/// Standard mode with the jitter pinned at one half: backoffs are exact.
fn standard(behavior: RetryBehavior) -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .behavior(behavior)
        .random(|| 0.5)
        .build()
}

#[tokio::test]
async fn a_503_then_200_is_retried_once() {
    let server = Server::start(vec![Reply::status(503), Reply::ok("item")]).await;
    let slept = Slept::default();
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "item");
    assert_eq!(server.attempts(), 2);
    assert_eq!(slept.waits(), [Duration::from_millis(500)]);
}

#[tokio::test]
async fn a_429_with_retry_after_1_waits_at_least_a_second() {
    let server = Server::start(vec![
        Reply::with_header(429, "retry-after", "1"),
        Reply::ok("item"),
    ])
    .await;
    let slept = Slept::default();
    // Behaviour 2.1 honours hints (bounded); 2.0, the default, ignores them.
    let retry = Retry::new(standard(RetryBehavior::V2_1)).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 2);
    assert_eq!(slept.waits(), [Duration::from_secs(1)]);
}

#[tokio::test]
async fn the_documented_http_default_honours_retry_after_as_a_minimum() {
    let server = Server::start(vec![
        Reply::with_header(429, "retry-after", "2"),
        Reply::with_header(503, "retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
        Reply::ok("item"),
    ])
    .await;
    let three_seconds_before = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_477);
    let classifier = ResponseClassifier::new().wall_clock(move || three_seconds_before);
    let slept = Slept::default();
    let retry = Retry::new(StandardRetryStrategy::for_http()).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry_classified(&retry, classifier)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 3);
    // Each backoff (jittered, at most 1 s then 2 s) is raised to the hint.
    assert_eq!(
        slept.waits(),
        [Duration::from_secs(2), Duration::from_secs(3)]
    );
}

#[tokio::test]
async fn the_documented_http_default_gives_up_at_once_on_a_retry_after_above_20_s() {
    let server = Server::start(vec![
        Reply::with_header(503, "retry-after", "21"),
        Reply::ok("never"),
    ])
    .await;
    let slept = Slept::default();
    let retry = Retry::new(StandardRetryStrategy::for_http()).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 503, "the response, as send() returns it");
    assert_eq!(server.attempts(), 1);
    assert!(slept.waits().is_empty());
}

#[tokio::test]
async fn aws_behaviour_2_0_ignores_retry_after() {
    let server = Server::start(vec![
        Reply::with_header(429, "retry-after", "2"),
        Reply::ok("item"),
    ])
    .await;
    let slept = Slept::default();
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    // The throttling backoff alone: 0.5 (the pinned jitter) x 1 s.
    assert_eq!(slept.waits(), [Duration::from_millis(500)]);
}

#[tokio::test]
async fn a_bare_429_engages_adaptive_mode_through_send_with_retry_under_2_0() {
    let server = Server::start(vec![Reply::status(429), Reply::ok("item")]).await;
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(standard(RetryBehavior::V2_0))
        .clock(clock.clone())
        .build();
    let retry = Retry::new(&strategy).sleeper(clock.clone()).clock(clock);

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 2);
    assert!(
        strategy.rate_limiter().is_enabled(),
        "the 429 is a throttle"
    );
}

#[tokio::test]
async fn an_http_date_retry_after_is_measured_from_the_injected_clock() {
    let server = Server::start(vec![
        Reply::with_header(503, "retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
        Reply::ok("item"),
    ])
    .await;
    let three_seconds_before = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_477);
    let classifier = ResponseClassifier::new().wall_clock(move || three_seconds_before);
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .retry_after(RetryAfterPolicy::AtLeast {
            ceiling: Duration::from_secs(60),
        })
        .build();
    let slept = Slept::default();
    let retry = Retry::new(strategy).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry_classified(&retry, classifier)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 2);
    assert_eq!(slept.waits(), [Duration::from_secs(3)]);
}

#[tokio::test]
async fn an_aws_json_throttling_error_is_retried_as_a_throttle() {
    let throttled = Reply::Status(
        400,
        vec![
            (
                "x-amzn-errortype",
                "ThrottlingException:http://internal.amazon.com/coral/".into(),
            ),
            ("content-type", "application/x-amz-json-1.0".into()),
        ],
        r#"{"__type":"ThrottlingException","message":"Rate exceeded"}"#,
    );
    let server = Server::start(vec![throttled, Reply::ok("item")]).await;
    let strategy = standard(RetryBehavior::V2_0);
    let seen = Mutex::new(Vec::new());
    let retry = Retry::new(&strategy)
        .sleeper(Slept::default())
        .on_retry(|event| {
            let failure = event.failure();
            let verdict = strategy.classifier().classify(failure);
            seen.lock().unwrap().push((
                failure.http_status(),
                failure.error_code().map(str::to_owned),
                verdict == Some(RetryKind::Throttle),
            ));
        });

    let response = reqwest::Client::new()
        .post(&server.url)
        .body("{}")
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 2);
    assert_eq!(
        seen.into_inner().unwrap(),
        [(Some(400), Some("ThrottlingException".to_owned()), true)]
    );
}

#[tokio::test]
async fn a_connection_dropped_mid_body_is_retried_by_the_executor() {
    let server = Server::start(vec![Reply::DropMidBody, Reply::ok("the whole body")]).await;
    let client = reqwest::Client::new();
    let failures = Mutex::new(Vec::new());
    let retry = Retry::new(standard(RetryBehavior::V2_0))
        .sleeper(Slept::default())
        .on_retry(|event| {
            failures
                .lock()
                .unwrap()
                .push(event.failure().transport_failure())
        });

    // The plain executor: reqwest's errors classify themselves.
    let body = retry
        .run_async(|_attempt| async { client.get(&server.url).send().await?.text().await })
        .await
        .unwrap();

    assert_eq!(body, "the whole body");
    assert_eq!(server.attempts(), 2);
    assert_eq!(
        failures.into_inner().unwrap(),
        [Some(TransportFailure::ResponseStreaming)]
    );
}

#[tokio::test]
async fn a_response_slower_than_the_client_timeout_is_retried_as_a_timeout() {
    let server = Server::start(vec![Reply::Slow(Duration::from_secs(5)), Reply::ok("fast")]).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let timeouts = Mutex::new(Vec::new());
    let retry = Retry::new(standard(RetryBehavior::V2_0))
        .sleeper(Slept::default())
        .on_retry(|event| timeouts.lock().unwrap().push(event.failure().is_timeout()));

    let response = client
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.text().await.unwrap(), "fast");
    assert_eq!(server.attempts(), 2);
    assert_eq!(timeouts.into_inner().unwrap(), [true]);
}

#[tokio::test]
async fn a_permanent_400_is_not_retried_and_comes_back_as_the_response() {
    let server = Server::start(vec![Reply::status(400), Reply::ok("never")]).await;
    let slept = Slept::default();
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(slept.clone());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    assert!(response.error_for_status().is_err());
    assert_eq!(server.attempts(), 1);
    assert!(slept.waits().is_empty());
}

#[tokio::test]
async fn a_503_that_outlives_its_retries_comes_back_as_the_last_response() {
    let server = Server::start(vec![Reply::status(503)]).await;
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(Slept::default());

    let response = reqwest::Client::new()
        .get(&server.url)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 503);
    assert_eq!(server.attempts(), 3);
}

#[tokio::test]
async fn a_refused_connection_is_retried_until_the_attempts_run_out() {
    // A port nobody listens on: bind one, then close it.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let slept = Slept::default();
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(slept.clone());

    let err = reqwest::Client::new()
        .get(format!("http://{address}/"))
        .send_with_retry(&retry)
        .await
        .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert!(err.last_error().unwrap().is_connect());
    assert_eq!(
        err.last_error().unwrap().transport_failure(),
        Some(TransportFailure::Connect)
    );
    assert_eq!(slept.waits().len(), 2);
    assert!(err.to_string().contains("; last error: "), "{err}");
}

#[tokio::test]
async fn a_request_that_cannot_be_built_is_tried_once_and_never_retried() {
    let slept = Slept::default();
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(slept.clone());

    let err = reqwest::Client::new()
        .get("http://[::1")
        .send_with_retry(&retry)
        .await
        .unwrap_err();

    assert_eq!(err.attempts(), 1);
    assert!(err.last_error().unwrap().is_builder());
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
    );
    assert!(slept.waits().is_empty());
}

/// A strategy that retries every failure, three attempts in all, with no
/// backoff: it asks for an unbuildable request again.
#[derive(Debug, Default)]
struct RetryEverything(TokenIssuer);

impl RetryStrategy for RetryEverything {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Ok(self.0.initial_token())
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        _failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        if token.attempt() >= 3 {
            let attempts = token.attempt();
            return Err(TokenAcquisitionFailed::AttemptsExhausted {
                attempts,
                max_attempts: 3,
            });
        }
        self.0.next_token(token, Duration::ZERO, None)
    }
    fn record_success(&self, _token: RetryToken) {}
}

#[tokio::test]
async fn an_unbuildable_request_retried_by_a_custom_strategy_returns_its_error() {
    let retry = Retry::new(RetryEverything::default()).sleeper(Slept::default());

    let err = reqwest::Client::new()
        .get("http://127.0.0.1:9/")
        .header("x-bad", "a\nb")
        .send_with_retry(&retry)
        .await
        .unwrap_err();

    assert_eq!(err.attempts(), 3);
    assert!(err.last_error().unwrap().is_builder());
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::AttemptsExhausted {
            attempts: 3,
            max_attempts: 3
        })
    );
}

#[tokio::test]
async fn a_streaming_body_is_sent_once() {
    let server = Server::start(vec![Reply::status(503), Reply::ok("never")]).await;
    let retry = Retry::new(standard(RetryBehavior::V2_0)).sleeper(Slept::default());
    let chunks: Vec<Result<&'static str, std::io::Error>> = vec![Ok("streamed")];
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));

    let response = reqwest::Client::new()
        .post(&server.url)
        .body(body)
        .send_with_retry(&retry)
        .await
        .unwrap();

    assert_eq!(response.status(), 503);
    assert_eq!(server.attempts(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_requests_share_one_strategy() {
    // The server answers 503 to the very first attempt, 200 to all others.
    let server = Server::start(vec![Reply::status(503), Reply::ok("item")]).await;
    let strategy = Arc::new(standard(RetryBehavior::V2_0));
    let retry = Arc::new(Retry::new(Arc::clone(&strategy)).sleeper(Slept::default()));
    let client = reqwest::Client::new();
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let (retry, client, url) = (Arc::clone(&retry), client.clone(), server.url.clone());
            tokio::spawn(async move { client.get(&url).send_with_retry(&retry).await })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap().unwrap().status(), 200);
    }
    assert_eq!(server.attempts(), 101);
    // One retry was paid (5 tokens) and refunded on its success.
    assert_eq!(strategy.quota().available(), 500);
}
