//! For clients that take no plugin (the AWS SDK for Rust): rebound around
//! the whole `send()`, each attempt a new call of the operation.

use core::future::Future;

use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_runtime_api::http::Response;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use aws_smithy_types::retry::ProvideErrorKind;
use rebound_runtime::time::{AsyncSleeper, Clock};
use rebound_runtime::{Retry, RetryError, RetryListener, RetryStrategy};

use crate::error::RetryStopped;
use crate::sdk_error::classify;

/// Runs `operation` (a fluent builder's `send()`) with `retry`, and returns
/// what the operation returns: `send(&retry, || client.op().send())` in
/// place of `client.op().send()`.
///
/// Each [`SdkError`] is classified by [`classify`]; every attempt calls
/// `operation` again, so it serializes, resolves its endpoint and signs
/// anew. The error is the last attempt's, or, when rebound stopped the
/// request before its first attempt (the budget, a fail-fast rate limiter),
/// a construction failure whose source is [`RetryStopped`]
/// ([`RetryStopped::find`]). [`send_detailed`] returns the attempts made and
/// why no further one was.
///
/// Build the client with its own retries off (`RetryConfig::disabled()`),
/// or each of rebound's attempts makes the client's own attempts too:
/// [`check_client_retries`](crate::check_client_retries) and
/// [`ClientRetriesGuard`](crate::ClientRetriesGuard) tell.
///
/// The waits between attempts are `retry`'s sleeper's: `Retry::new`'s
/// default sleeps on tokio's timer with the `tokio` feature of
/// `rebound-runtime` (or `rebound`), and otherwise needs one given with
/// [`Retry::sleeper`].
///
/// # Errors
///
/// The [`SdkError`] of the last attempt, or one carrying [`RetryStopped`].
///
/// # Examples
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) -> Result<(), aws_sdk_dynamodb::Error> {
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let retry = Retry::new(StandardRetryStrategy::new());
/// let tables = rebound_smithy::send(&retry, || client.list_tables().send()).await?;
/// # let _ = tables;
/// # Ok(())
/// # }
/// ```
pub async fn send<S, Sl, C, L, T, E, F, Fut>(
    retry: &Retry<S, Sl, C, L>,
    operation: F,
) -> Result<T, SdkError<E, Response>>
where
    S: RetryStrategy,
    Sl: AsyncSleeper,
    C: Clock,
    L: RetryListener,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, SdkError<E, Response>>>,
    E: ProvideErrorKind + ProvideErrorMetadata,
{
    send_detailed(retry, operation)
        .await
        .map_err(into_sdk_error)
}

/// [`send`], returning rebound's [`RetryError`]: the last [`SdkError`]
/// (`None` when no attempt was made), how many attempts were made and why
/// no further one was.
///
/// # Errors
///
/// [`RetryError`] with the last [`SdkError`].
///
/// # Examples
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) {
/// use rebound_runtime::{Retry, StandardRetryStrategy};
///
/// let retry = Retry::new(StandardRetryStrategy::new());
/// if let Err(error) = rebound_smithy::send_detailed(&retry, || client.list_tables().send()).await {
///     eprintln!("{} attempts: {}", error.attempts(), error.reason());
/// }
/// # }
/// ```
pub async fn send_detailed<S, Sl, C, L, T, E, F, Fut>(
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

/// The error [`send`] returns for `error`: its last [`SdkError`], or a
/// construction failure carrying [`RetryStopped`] when no attempt was made.
fn into_sdk_error<E, R>(error: RetryError<SdkError<E, R>>) -> SdkError<E, R> {
    let (last_error, attempts, reason) = error.into_parts();
    last_error
        .unwrap_or_else(|| SdkError::construction_failure(RetryStopped::new(attempts, reason)))
}
