//! For clients that take no plugin (the AWS SDK for Rust): rebound around
//! the whole `send()`, each attempt a new call of the operation.

use core::future::Future;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::{ProvideErrorKind, RetryConfig};
use rebound_runtime::time::{AsyncSleeper, Clock};
use rebound_runtime::{Retry, RetryError, RetryListener, RetryStrategy};

use crate::error::ClientRetries;
use crate::sdk_error::classify;

/// Runs `operation` (a fluent builder's `send()`) with `retry`, classifying
/// each [`SdkError`] with [`classify`]; every attempt calls `operation`
/// again, so it serializes, resolves its endpoint and signs anew.
///
/// Build the client with its own retries off (`RetryConfig::disabled()`),
/// or each of rebound's attempts makes the client's own attempts too:
/// [`check_client_retries`] tells.
///
/// # Errors
///
/// [`RetryError`] with the last [`SdkError`], the attempts made and why no
/// further one was.
///
/// # Examples
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let retry = Retry::new(StandardRetryStrategy::new());
/// rebound_smithy::check_client_retries(client.config().retry_config())?;
/// let tables = rebound_smithy::send(&retry, || client.list_tables().send()).await?;
/// # let _ = tables;
/// # Ok(())
/// # }
/// ```
pub async fn send<S, Sl, C, L, T, E, F, Fut>(
    retry: &Retry<S, Sl, C, L>,
    mut operation: F,
) -> Result<T, RetryError<SdkError<E, Response>>>
where
    S: RetryStrategy,
    Sl: AsyncSleeper,
    C: Clock,
    L: RetryListener,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, SdkError<E, Response>>>,
    E: ProvideErrorKind + ProvideErrorMetadata,
{
    retry
        .run_async_classified(|_attempt| operation(), classify)
        .await
}

/// Checks that a client makes one attempt per call, as [`send`] needs:
/// pass its retry configuration (`client.config().retry_config()`).
///
/// # Errors
///
/// [`ClientRetries`] when the client retries by itself: rebound's attempts
/// would multiply with its own.
///
/// # Examples
///
/// ```
/// use aws_smithy_types::retry::RetryConfig;
///
/// assert!(rebound_smithy::check_client_retries(Some(&RetryConfig::disabled())).is_ok());
/// let error = rebound_smithy::check_client_retries(Some(&RetryConfig::standard())).unwrap_err();
/// assert_eq!(error.max_attempts(), 3);
/// ```
pub fn check_client_retries(config: Option<&RetryConfig>) -> Result<(), ClientRetries> {
    match config.map(RetryConfig::max_attempts) {
        Some(max_attempts) if max_attempts > 1 => Err(ClientRetries::new(max_attempts)),
        _ => Ok(()),
    }
}
