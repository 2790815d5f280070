//! End to end through the tower layer: real clients (reqwest's `Client` and
//! hyper-util's legacy `Client`, both tower services) wrapped in rebound's
//! `RetryLayer`, against a real HTTP server on 127.0.0.1 that scripts its
//! failures. Server-side attempts are counted exactly; waits are virtual.
#![cfg(all(feature = "reqwest", feature = "tower", feature = "tokio"))]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::body::Bytes;

use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use rebound::backoff::RetryAfterPolicy;
use rebound::http::ResponseClassifier;
use rebound::reqwest::TryClone;
use rebound::tower::RetryLayer;
use rebound::{Classified, ErrorInfo as _, RetryBehavior, StandardRetryStrategy, TransportFailure};
use support::scripted_server::{Reply, Server};
use support::slept::Slept;
use tower::{Layer as _, ServiceExt as _};

fn standard(behavior: RetryBehavior) -> StandardRetryStrategy {
    StandardRetryStrategy::builder()
        .behavior(behavior)
        .random(|| 0.5)
        .build()
}

fn get(url: &str) -> reqwest::Request {
    reqwest::Request::new(reqwest::Method::GET, url.parse().unwrap())
}

// ---- reqwest::Client as a tower service ----

#[tokio::test]
async fn reqwest_under_the_layer_retries_a_503() {
    let server = Server::start(vec![Reply::status(503), Reply::ok("item")]).await;
    let slept = Slept::default();
    let layer = RetryLayer::new(
        standard(RetryBehavior::V2_0),
        slept.clone(),
        ResponseClassifier::new(),
    )
    .clone_request(TryClone);
    let client = layer.layer(reqwest::Client::new());

    let response = client.oneshot(get(&server.url)).await.unwrap();

    assert_eq!(response.text().await.unwrap(), "item");
    assert_eq!(server.attempts(), 2);
    assert_eq!(slept.waits(), [Duration::from_millis(500)]);
}

#[tokio::test]
async fn the_documented_http_default_under_the_layer_honours_retry_after() {
    let server = Server::start(vec![
        Reply::with_header(429, "retry-after", "2"),
        Reply::ok("item"),
    ])
    .await;
    let slept = Slept::default();
    let layer = RetryLayer::new(
        StandardRetryStrategy::for_http(),
        slept.clone(),
        ResponseClassifier::new(),
    );
    let client = layer.clone_request(TryClone).layer(reqwest::Client::new());

    let response = client.oneshot(get(&server.url)).await.unwrap();

    assert_eq!(response.text().await.unwrap(), "item");
    assert_eq!(server.attempts(), 2);
    assert_eq!(slept.waits(), [Duration::from_secs(2)]);
}

#[tokio::test]
async fn reqwest_under_the_layer_honours_retry_after() {
    let server = Server::start(vec![
        Reply::with_header(429, "retry-after", "1"),
        Reply::with_header(503, "retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
        Reply::ok("item"),
    ])
    .await;
    let two_seconds_before = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_478);
    let strategy = StandardRetryStrategy::builder()
        .random(|| 0.5)
        .retry_after(RetryAfterPolicy::AtLeast {
            ceiling: Duration::from_secs(60),
        })
        .build();
    let slept = Slept::default();
    let classifier = ResponseClassifier::new().wall_clock(move || two_seconds_before);
    let client = RetryLayer::new(strategy, slept.clone(), classifier)
        .clone_request(TryClone)
        .layer(reqwest::Client::new());

    let response = client.oneshot(get(&server.url)).await.unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(server.attempts(), 3);
    assert_eq!(
        slept.waits(),
        [Duration::from_secs(1), Duration::from_secs(2)]
    );
}

#[tokio::test]
async fn reqwest_under_the_layer_retries_an_aws_throttle_and_not_a_400() {
    let throttled = Reply::with_header(400, "x-amzn-errortype", "ThrottlingException");
    let server = Server::start(vec![throttled, Reply::status(400), Reply::ok("never")]).await;
    let client = RetryLayer::new(
        standard(RetryBehavior::V2_0),
        Slept::default(),
        ResponseClassifier::new(),
    )
    .clone_request(TryClone)
    .layer(reqwest::Client::new());

    let response = client.oneshot(get(&server.url)).await.unwrap();

    // The throttle is retried; the plain 400 after it is returned as it is.
    assert_eq!(response.status(), 400);
    assert_eq!(server.attempts(), 2);
}

#[tokio::test]
async fn reqwest_under_the_layer_retries_a_timeout_and_gives_up_on_a_refused_connection() {
    let server = Server::start(vec![Reply::Slow(Duration::from_secs(5)), Reply::ok("fast")]).await;
    let reqwest = reqwest::Client::builder()
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let layer = RetryLayer::new(
        standard(RetryBehavior::V2_0),
        Slept::default(),
        ResponseClassifier::new(),
    )
    .clone_request(TryClone);
    let client = layer.clone().layer(reqwest.clone());
    let response = client.oneshot(get(&server.url)).await.unwrap();
    assert_eq!(response.text().await.unwrap(), "fast");
    assert_eq!(server.attempts(), 2);

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = layer
        .layer(reqwest)
        .oneshot(get(&format!("http://{closed}/")))
        .await
        .unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(
        err.last_error().unwrap().transport_failure(),
        Some(TransportFailure::Connect)
    );
}

// ---- hyper-util's client as a tower service ----

type HyperRequest = http::Request<Full<Bytes>>;

fn hyper_get(url: &str) -> HyperRequest {
    http::Request::get(url)
        .body(Full::new(Bytes::new()))
        .unwrap()
}

type HyperResult = Result<http::Response<hyper::body::Incoming>, hyper_util::client::legacy::Error>;

/// A hyper-util result: an error response by its status and headers, an
/// error as [`hyper_failure`] says.
fn classify_hyper(result: &HyperResult) -> Option<Classified> {
    match result {
        Ok(response) => ResponseClassifier::new()
            .classify_response(response)
            .map(Classified::from),
        Err(error) => Some(hyper_failure(error)),
    }
}

/// hyper-util's errors do not speak the vocabulary: say what they are.
fn hyper_failure(error: &hyper_util::client::legacy::Error) -> Classified {
    if error.is_connect() {
        Classified::from(TransportFailure::Connect)
    } else {
        Classified::from(TransportFailure::ConnectionClosed)
    }
}

#[tokio::test]
async fn hyper_util_under_the_layer_retries_error_responses() {
    let server = Server::start(vec![
        Reply::status(503),
        Reply::with_header(429, "retry-after", "1"),
        Reply::ok("item"),
    ])
    .await;
    let hyper = HyperClient::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let slept = Slept::default();
    let layer = RetryLayer::new(standard(RetryBehavior::V2_1), slept.clone(), classify_hyper);
    let client = layer.layer(hyper);

    let response = client.oneshot(hyper_get(&server.url)).await.unwrap();

    assert_eq!(response.status(), 200);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, "item");
    assert_eq!(server.attempts(), 3);
    // Behaviour 2.1: a transient backoff of 50 ms × 2⁰ × 0.5, then the
    // throttle's hint of 1 s over its own backoff.
    let waits = slept.waits();
    assert_eq!(waits.len(), 2);
    assert_eq!(waits[1], Duration::from_secs(1));
}

#[tokio::test]
async fn hyper_util_reading_the_whole_body_retries_a_connection_dropped_mid_response() {
    let server = Server::start(vec![Reply::DropMidBody, Reply::ok("the whole body")]).await;
    let hyper = HyperClient::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    // The inner service reads the whole body, so a body cut short is the
    // attempt's failure, as the AWS SDKs treat it.
    let buffered = tower::service_fn(move |request: HyperRequest| {
        let hyper = hyper.clone();
        async move {
            let response = hyper
                .request(request)
                .await
                .map_err(|e| hyper_failure(&e))?;
            let (parts, body) = response.into_parts();
            let body = body
                .collect()
                .await
                .map_err(|_| Classified::from(TransportFailure::ResponseStreaming))?;
            Ok::<_, Classified>(http::Response::from_parts(parts, body.to_bytes()))
        }
    });
    let failures = Arc::new(Mutex::new(Vec::new()));
    let layer = RetryLayer::new(
        standard(RetryBehavior::V2_0),
        Slept::default(),
        ResponseClassifier::new(),
    )
    .listener(Recorder(Arc::clone(&failures)));
    let client = layer.layer(buffered);

    let response = client.oneshot(hyper_get(&server.url)).await.unwrap();

    assert_eq!(response.into_body(), "the whole body");
    assert_eq!(server.attempts(), 2);
    assert_eq!(
        *failures.lock().unwrap(),
        [Some(TransportFailure::ResponseStreaming)]
    );
}

#[tokio::test]
async fn hyper_util_under_the_layer_returns_a_permanent_400_after_one_attempt() {
    let server = Server::start(vec![Reply::status(400), Reply::ok("never")]).await;
    let hyper = HyperClient::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let slept = Slept::default();
    let client =
        RetryLayer::new(standard(RetryBehavior::V2_0), slept.clone(), classify_hyper).layer(hyper);

    let response = client.oneshot(hyper_get(&server.url)).await.unwrap();

    assert_eq!(response.status(), 400);
    assert_eq!(server.attempts(), 1);
    assert!(slept.waits().is_empty());
}

/// A listener recording each retried failure's transport failure.
#[derive(Debug, Clone)]
struct Recorder(Arc<Mutex<Vec<Option<TransportFailure>>>>);

impl rebound::RetryListener for Recorder {
    fn on_retry(&self, event: &rebound::RetryEvent<'_>) {
        self.0
            .lock()
            .unwrap()
            .push(event.failure().transport_failure());
    }
}
