//! Under load: 200 callers loop on DynamoDB `ListTables` for a 20 s window
//! against a local awsJson1_0 server admitting 50 requests a second (a
//! token bucket, burst 5; a `ThrottlingException` otherwise), with the
//! SDK's own standard and adaptive retry strategies, and with rebound's
//! standard, adaptive and `steady()` strategies around `send()`. Real time:
//! about 2 to 3 minutes. Run from `benches/compare/`:
//! `cargo bench --bench smithy_load` (`LOAD_SECS`, `LOAD_CALLERS`,
//! `LOAD_RATE` change the window, the callers, the admitted rate).
#![allow(missing_docs, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_credential_types::Credentials;
use aws_sdk_dynamodb::config::retry::RetryPartition;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_smithy_types::retry::RetryConfig;
use axum::http::StatusCode;
use rebound::{AdaptiveRetryStrategy, Retry, RetryStrategy, StandardRetryStrategy};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The server: admits `rate` requests a second, counts what it answered.
#[derive(Debug)]
struct Server {
    bucket: Mutex<(f64, Instant)>,
    rate: f64,
    admitted: std::sync::atomic::AtomicU64,
    throttled: std::sync::atomic::AtomicU64,
}

impl Server {
    const BURST: f64 = 5.0;

    fn admit(&self) -> bool {
        let mut bucket = self.bucket.lock().unwrap();
        let now = Instant::now();
        let (tokens, at) = *bucket;
        let tokens = (tokens + now.duration_since(at).as_secs_f64() * self.rate).min(Self::BURST);
        let admitted = tokens >= 1.0;
        *bucket = (if admitted { tokens - 1.0 } else { tokens }, now);
        let counter = if admitted {
            &self.admitted
        } else {
            &self.throttled
        };
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        admitted
    }

    fn reset(&self) {
        *self.bucket.lock().unwrap() = (Self::BURST, Instant::now());
        self.admitted.store(0, std::sync::atomic::Ordering::Relaxed);
        self.throttled
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }

    fn counts(&self) -> (u64, u64) {
        (
            self.admitted.load(std::sync::atomic::Ordering::Relaxed),
            self.throttled.load(std::sync::atomic::Ordering::Relaxed),
        )
    }
}

async fn start(rate: f64) -> (Arc<Server>, String) {
    let server = Arc::new(Server {
        bucket: Mutex::new((Server::BURST, Instant::now())),
        rate,
        admitted: 0.into(),
        throttled: 0.into(),
    });
    let state = Arc::clone(&server);
    let app = axum::Router::new().fallback(move || {
        let admitted = state.admit();
        async move {
            let json = [("content-type", "application/x-amz-json-1.0")];
            if admitted {
                (StatusCode::OK, json, r#"{"TableNames":[]}"#.to_owned())
            } else {
                let code = "com.amazonaws.dynamodb.v20120810#ThrottlingException";
                let body = format!(r#"{{"__type":"{code}","message":"rate exceeded"}}"#);
                (StatusCode::BAD_REQUEST, json, body)
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (server, endpoint)
}

fn client(endpoint: &str, retry: RetryConfig, partition: &'static str) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "load"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .retry_config(retry)
        .retry_partition(RetryPartition::new(partition))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// One operation's outcome.
struct Outcome {
    ok: bool,
    latency: Duration,
    ended: Instant,
}

/// How a row retries.
#[derive(Clone)]
enum Route {
    Sdk(aws_sdk_dynamodb::Client),
    Rebound(
        aws_sdk_dynamodb::Client,
        Arc<Retry<Arc<dyn RetryStrategy + Send + Sync>>>,
    ),
}

impl Route {
    async fn call(&self) -> bool {
        match self {
            Self::Sdk(client) => client.list_tables().send().await.is_ok(),
            Self::Rebound(client, retry) => {
                rebound::smithy::send(retry, || client.list_tables().send())
                    .await
                    .is_ok()
            }
        }
    }
}

async fn row(name: &str, route: Route, server: &Server, window: Duration, callers: u64) {
    server.reset();
    let start = Instant::now();
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = (0..callers)
        .map(|_| {
            let (route, outcomes) = (route.clone(), Arc::clone(&outcomes));
            tokio::spawn(async move {
                while start.elapsed() < window {
                    let begun = Instant::now();
                    let ok = route.call().await;
                    let ended = Instant::now();
                    let latency = ended - begun;
                    outcomes
                        .lock()
                        .unwrap()
                        .push(Outcome { ok, latency, ended });
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let outcomes = outcomes.lock().unwrap();
    let (admitted, throttled) = server.counts();
    let successes = outcomes.iter().filter(|outcome| outcome.ok).count();
    let in_window = outcomes
        .iter()
        .filter(|outcome| outcome.ok && outcome.ended - start <= window)
        .count();
    let mut latencies: Vec<_> = outcomes
        .iter()
        .filter(|o| o.ok)
        .map(|o| o.latency)
        .collect();
    latencies.sort();
    let p99 = latencies
        .get(latencies.len() * 99 / 100)
        .copied()
        .unwrap_or_default();
    let last = outcomes
        .iter()
        .map(|outcome| outcome.ended)
        .max()
        .unwrap_or(start);
    #[allow(clippy::cast_precision_loss)]
    let attempts_per_success = (admitted + throttled) as f64 / successes.max(1) as f64;
    #[allow(clippy::cast_precision_loss)]
    let throttled_share = throttled as f64 / (admitted + throttled).max(1) as f64;
    println!(
        "| {name} | {:.1}/s | {:.1}% | {attempts_per_success:.2} | {} failed | {:.2} s | {:.1} s |",
        in_window as f64 / window.as_secs_f64(),
        throttled_share * 100.0,
        outcomes.len() - successes,
        p99.as_secs_f64(),
        (last - start).saturating_sub(window).as_secs_f64(),
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let window = Duration::from_secs(env("LOAD_SECS", 20));
    let callers = env("LOAD_CALLERS", 200);
    #[allow(clippy::cast_precision_loss)]
    let rate = env("LOAD_RATE", 50) as f64;
    let (server, endpoint) = start(rate).await;
    println!(
        "{callers} callers, {window:?} window, a server admitting {rate}/s (burst {}):\n",
        Server::BURST
    );
    println!(
        "| retries | goodput in the window | throttled | attempts per success | failed calls | p99 latency (successes) | last call ends after the window |"
    );
    println!("|---|---|---|---|---|---|---|");
    let sdk = |config, partition| Route::Sdk(client(&endpoint, config, partition));
    row(
        "SDK standard",
        sdk(RetryConfig::standard(), "standard"),
        &server,
        window,
        callers,
    )
    .await;
    row(
        "SDK adaptive",
        sdk(RetryConfig::adaptive(), "adaptive"),
        &server,
        window,
        callers,
    )
    .await;
    let plain = client(&endpoint, RetryConfig::disabled(), "plain");
    let rebound = |strategy: Arc<dyn RetryStrategy + Send + Sync>| {
        Route::Rebound(plain.clone(), Arc::new(Retry::new(strategy)))
    };
    row(
        "rebound standard",
        rebound(Arc::new(StandardRetryStrategy::new())),
        &server,
        window,
        callers,
    )
    .await;
    row(
        "rebound adaptive",
        rebound(Arc::new(AdaptiveRetryStrategy::new())),
        &server,
        window,
        callers,
    )
    .await;
    row(
        "rebound steady()",
        rebound(Arc::new(AdaptiveRetryStrategy::steady())),
        &server,
        window,
        callers,
    )
    .await;
}
