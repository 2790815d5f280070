//! Retry metrics in Prometheus' text format: adaptive mode against a local
//! server that throttles, with the observer's instruments served on a local
//! port.
//!
//! ```sh
//! cargo run --example prometheus_metrics --features reqwest,tokio,metrics -- --seconds 10
//! curl http://127.0.0.1:<port>/metrics   # the port is printed first
//! ```
//!
//! The server admits `--rate` requests per second (default 50) and answers
//! the rest `429` (`x-amzn-ErrorType: ThrottlingException`); `--clients` tasks (default 8) send
//! as fast as the strategy lets them for `--seconds`. Then the example
//! prints the server's own counts and the limiter's rate as one line of JSON
//! (`"counts": {...}`), and keeps serving `/metrics` until its input closes
//! (`--hold`) or exits. `tests/prometheus.rs` scrapes it with a real
//! Prometheus and compares the two.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use rebound::observe::RetryObserver;
use rebound::reqwest::RequestBuilderExt as _;
use rebound::{AdaptiveRetryStrategy, Retry, RetryStrategy};

/// What the server saw.
#[derive(Debug, Default)]
struct Served {
    attempts: AtomicU64,
    throttled: AtomicU64,
}

/// Admits `rate` requests per second (a bucket of one second's worth), and
/// throttles the rest.
async fn throttling_server(rate: f64) -> (String, Arc<Served>) {
    let served = Arc::new(Served::default());
    let bucket = Arc::new(std::sync::Mutex::new((rate, Instant::now())));
    let app = axum::Router::new().fallback({
        let served = Arc::clone(&served);
        move || {
            served.attempts.fetch_add(1, Ordering::Relaxed);
            let admitted = {
                let mut bucket = bucket.lock().unwrap();
                let (tokens, last) = *bucket;
                let now = Instant::now();
                let tokens = (tokens + rate * now.duration_since(last).as_secs_f64()).min(rate);
                *bucket = if tokens >= 1.0 {
                    (tokens - 1.0, now)
                } else {
                    (tokens, now)
                };
                tokens >= 1.0
            };
            if !admitted {
                served.throttled.fetch_add(1, Ordering::Relaxed);
            }
            async move {
                if admitted {
                    (StatusCode::OK, "{}")
                } else {
                    (StatusCode::TOO_MANY_REQUESTS, "")
                }
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, served)
}

/// Serves `/metrics`: the gauges published, then the recorder rendered.
async fn metrics_endpoint(
    observer: Arc<RetryObserver<rebound::metrics::MetricsRecorder>>,
    prometheus: PrometheusHandle,
) -> String {
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let (observer, prometheus) = (Arc::clone(&observer), prometheus.clone());
            async move {
                observer.publish();
                prometheus.render()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}/metrics")
}

struct Args {
    seconds: f64,
    rate: f64,
    clients: usize,
    hold: bool,
}

fn args() -> Args {
    let mut args = Args {
        seconds: 5.0,
        rate: 50.0,
        clients: 8,
        hold: false,
    };
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let mut value = || {
            given
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .expect("a number after the flag")
        };
        match flag.as_str() {
            "--seconds" => args.seconds = value(),
            "--rate" => args.rate = value(),
            "--clients" => args.clients = value() as usize,
            "--hold" => args.hold = true,
            other => panic!("unknown argument {other}: --seconds S, --rate R, --clients N, --hold"),
        }
    }
    args
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args();
    // Histograms as Prometheus histograms (the exporter's default is a summary).
    let prometheus = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("rebound.client.request.retries".into()),
            &[1.0, 2.0, 3.0, 5.0, 10.0],
        )?
        .set_buckets(&[0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 20.0])?
        .install_recorder()?;

    let strategy = AdaptiveRetryStrategy::new();
    let observer = Arc::new(rebound::metrics::observer("example"));
    observer.watch(strategy.clone());
    let metrics_url = metrics_endpoint(Arc::clone(&observer), prometheus).await;
    println!("metrics: {metrics_url}");

    let (url, served) = throttling_server(args.rate).await;
    let client = reqwest::Client::new();
    let (requests, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let end = Instant::now() + Duration::from_secs_f64(args.seconds);
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        let (strategy, observer, client, url) = (
            strategy.clone(),
            Arc::clone(&observer),
            client.clone(),
            url.clone(),
        );
        let (requests, failed) = (Arc::clone(&requests), Arc::clone(&failed));
        tasks.push(tokio::spawn(async move {
            let retry = Retry::new(&strategy).listener(&*observer);
            while Instant::now() < end {
                requests.fetch_add(1, Ordering::Relaxed);
                match client.get(&url).send_with_retry(&retry).await {
                    Ok(response) if response.status().is_success() => {}
                    _ => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await?;
    }

    // The server's own counts: every attempt it answered, every throttle it sent.
    let attempts = served.attempts.load(Ordering::Relaxed);
    let requests = requests.load(Ordering::Relaxed);
    println!(
        r#"counts: {{"requests": {requests}, "failed": {}, "attempts": {attempts}, "throttled": {}, "retries": {}, "fill_rate": {}}}"#,
        failed.load(Ordering::Relaxed),
        served.throttled.load(Ordering::Relaxed),
        attempts - requests,
        strategy.send_rate().unwrap_or(0.0),
    );
    if args.hold {
        // Serve /metrics until the caller closes our input.
        tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()))
            .await??;
    }
    Ok(())
}
