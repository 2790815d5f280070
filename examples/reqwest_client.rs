//! A reqwest client retried with the standard mode for plain HTTP
//! (`StandardRetryStrategy::for_http`: `Retry-After` honoured up to 20 s), against a local
//! server (started here, so the example runs anywhere) that fails twice
//! before it answers: `cargo run --example reqwest_client --features reqwest,tokio`.
//!
//! The client part is `main`'s last five statements: no header parsing, no
//! status matching, no loop.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use rebound::reqwest::RequestBuilderExt as _;
use rebound::{Retry, StandardRetryStrategy};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = flaky_server().await?;

    let client = reqwest::Client::new();
    // With the `tokio` feature, the default sleeper is tokio's timer.
    let retry = Retry::new(StandardRetryStrategy::for_http()).on_retry(|event| {
        let status = event.failure().http_status();
        println!(
            "attempt {} failed ({status:?}); next in {:?}",
            event.attempt(),
            event.delay()
        );
    });
    let item = client
        .get(format!("{url}items/1"))
        .send_with_retry(&retry)
        .await?
        .error_for_status()?
        .text()
        .await?;
    println!("got {item}");
    Ok(())
}

/// A server on 127.0.0.1 that answers 503, then 429 with an AWS throttling
/// code, then 200.
async fn flaky_server() -> std::io::Result<String> {
    let calls = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new().fallback(move || {
        let call = calls.fetch_add(1, Ordering::SeqCst);
        async move {
            match call {
                0 => (
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    [("x-amzn-errortype", "ServiceUnavailable")],
                    "busy",
                ),
                1 => (
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    [("x-amzn-errortype", "ThrottlingException")],
                    "slow down",
                ),
                _ => (
                    axum::http::StatusCode::OK,
                    [("content-type", "application/json")],
                    r#"{"id":1,"name":"rebound"}"#,
                ),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(url)
}
