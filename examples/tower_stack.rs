//! A tower client stack: reqwest's `Client` (a tower `Service`) under a
//! concurrency limit, under rebound's `RetryLayer` with adaptive mode, against
//! a local server (started here, so the example runs anywhere) that throttles
//! bursts: `cargo run --example tower_stack --features reqwest,tower,tokio`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rebound::tower::RetryLayer;
use rebound::{AdaptiveRetryStrategy, RetryBehavior, StandardRetryStrategy};
use tower::{ServiceBuilder, ServiceExt as _};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (url, served) = bursty_server().await?;

    // Behaviour 2.1: a bare 429 is a throttle, and hints are honoured (bounded).
    let standard = StandardRetryStrategy::builder()
        .behavior(RetryBehavior::V2_1)
        .build();
    let strategy = AdaptiveRetryStrategy::builder(standard).build();
    let client = ServiceBuilder::new()
        // tokio's timer, AWS classification, a streamed body sent once.
        .layer(RetryLayer::for_reqwest(strategy.clone()))
        .concurrency_limit(8) // per attempt, under the retries
        .service(reqwest::Client::new());

    let started = Instant::now();
    let requests = (0..40).map(|i| {
        let request = reqwest::Request::new(
            reqwest::Method::GET,
            format!("{url}items/{i}").parse().unwrap(),
        );
        client.clone().oneshot(request)
    });
    let mut ok = 0;
    for response in futures_util::future::join_all(requests).await {
        match response {
            Ok(response) if response.status().is_success() => ok += 1,
            Ok(response) => println!("gave up with HTTP {}", response.status()),
            Err(error) => println!("gave up: {error}"),
        }
    }
    println!(
        "{ok}/40 succeeded in {:.1?}; the server saw {} attempts; client send rate now {:?} req/s",
        started.elapsed(),
        served.load(Ordering::Relaxed),
        strategy
            .rate_limiter()
            .send_rate()
            .map(|rate| (rate * 10.0).round() / 10.0),
    );
    Ok(())
}

/// A server on 127.0.0.1 that admits 20 requests per second and answers
/// 429 beyond, counting every attempt.
async fn bursty_server() -> std::io::Result<(String, Arc<AtomicU32>)> {
    let served = Arc::new(AtomicU32::new(0));
    let window = Arc::new(std::sync::Mutex::new((Instant::now(), 0_u32)));
    let app = axum::Router::new().fallback({
        let served = Arc::clone(&served);
        move || {
            served.fetch_add(1, Ordering::Relaxed);
            let admitted = {
                let mut window = window.lock().unwrap();
                if window.0.elapsed() >= Duration::from_secs(1) {
                    *window = (Instant::now(), 0);
                }
                window.1 += 1;
                window.1 <= 20
            };
            async move {
                if admitted {
                    (axum::http::StatusCode::OK, "item")
                } else {
                    (axum::http::StatusCode::TOO_MANY_REQUESTS, "slow down")
                }
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((url, served))
}
