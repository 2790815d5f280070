//! `RetryPlugin` on aws-smithy-runtime's orchestrator: an operation built by
//! hand (as a smithy-rs client generated with runtime plugins on builds
//! its own), retried by rebound's adaptive strategy against a local server
//! that fails twice.
//!
//! `cargo run -p rebound-smithy --example plugin_operation`

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_smithy_runtime::client::orchestrator::operation::Operation;
use aws_smithy_runtime::client::retries::classifiers::HttpStatusCodeClassifier;
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse, OrchestratorError};
use aws_smithy_types::body::SdkBody;
use axum::http::StatusCode;
use rebound_runtime::{AdaptiveRetryStrategy, RetryEvent, RetryListener};
use rebound_smithy::RetryPlugin;

#[derive(Debug)]
struct Printer;

impl RetryListener for Printer {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        let status = event.failure().http_status();
        println!(
            "retry {} after {:?} ({status:?})",
            event.attempt(),
            event.delay()
        );
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = fail_twice().await?;

    // The user code: the plugin makes rebound the operation's retry strategy.
    let plugin = RetryPlugin::new(AdaptiveRetryStrategy::steady()).listener(Printer);
    let operation = Operation::builder()
        .service_name("example")
        .operation_name("Get")
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .endpoint_url(&endpoint)
        .no_auth()
        .sleep_impl(aws_smithy_async::rt::sleep::TokioSleep::new())
        .retry_classifier(HttpStatusCodeClassifier::default())
        .runtime_plugin(plugin)
        .serializer(|_: ()| Ok(HttpRequest::new(SdkBody::empty())))
        .deserializer(
            |response: &HttpResponse| match response.status().is_success() {
                true => Ok(
                    String::from_utf8_lossy(response.body().bytes().unwrap_or_default())
                        .into_owned(),
                ),
                false => Err(OrchestratorError::<std::io::Error>::other(
                    "an error response",
                )),
            },
        )
        .build();
    println!("got {:?}", operation.invoke(()).await?);
    Ok(())
}

/// A local server: 503, 503, then "done".
async fn fail_twice() -> std::io::Result<String> {
    let calls = Arc::new(AtomicU32::new(0));
    let app = axum::Router::new().fallback(move || {
        let call = calls.fetch_add(1, Ordering::Relaxed);
        async move {
            match call {
                0 | 1 => (StatusCode::SERVICE_UNAVAILABLE, ""),
                _ => (StatusCode::OK, "done"),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let endpoint = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(endpoint)
}
