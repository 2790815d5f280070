//! rebound around the AWS SDK for Rust's `send()`: a DynamoDB client, its
//! own retries off, against a local server that throttles the first call
//! once.
//!
//! `cargo run -p rebound-smithy --example sdk_send`

use aws_credential_types::Credentials;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_smithy_types::retry::RetryConfig;
use axum::http::StatusCode;
use rebound_runtime::{Retry, StandardRetryStrategy};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = throttle_once().await?;
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("AKID", "SECRET", None, None, "example"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .retry_config(RetryConfig::disabled())
        // Fails, before sending, a call the client would retry by itself.
        .interceptor(rebound_smithy::ClientRetriesGuard)
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(config);

    // The user code: rebound makes the attempts, the client one per call.
    let retry = Retry::new(StandardRetryStrategy::new()).on_retry(|event| {
        println!(
            "retry {} after {:?}: {:?}",
            event.attempt(),
            event.delay(),
            event.failure().error_code()
        );
    });
    rebound_smithy::check_client_retries(client.config().retry_config())?;
    let tables = rebound_smithy::send(&retry, || client.list_tables().send()).await?;
    println!("tables: {:?}", tables.table_names());
    Ok(())
}

/// A local awsJson1_0 server answering ListTables: a throttle, then success.
async fn throttle_once() -> std::io::Result<String> {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let app = axum::Router::new().fallback(move || {
        let first = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 0;
        async move {
            let (status, body) = if first {
                let code =
                    "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException";
                (
                    StatusCode::BAD_REQUEST,
                    format!(r#"{{"__type":"{code}","message":"slow down"}}"#),
                )
            } else {
                (StatusCode::OK, r#"{"TableNames":["orders"]}"#.to_owned())
            };
            (
                status,
                [("content-type", "application/x-amz-json-1.0")],
                body,
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let endpoint = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(endpoint)
}
