//! reqwest, retried with AWS semantics (feature `reqwest`).
//!
//! The strategy is yours to pick. The documented default for a plain HTTP
//! API is [`StandardRetryStrategy::for_http`](crate::StandardRetryStrategy::for_http):
//! the AWS standard mode with `Retry-After` honoured as RFC 9110 asks, up to
//! 20 s. [`StandardRetryStrategy::new`](crate::StandardRetryStrategy::new)
//! is the AWS SDKs' behaviour 2.0 exactly, which ignores `Retry-After`.
//!
//! - [`reqwest::Error`] speaks the vocabulary: it
//!   implements [`RetryInfo`](crate::RetryInfo) and
//!   [`ErrorInfo`](crate::ErrorInfo), so the executors retry it as the AWS
//!   SDKs retry the same failure (table below).
//! - [`RequestBuilderExt::send_with_retry`] sends a request through a
//!   [`Retry`](crate::Retry) executor: an error response is classified from
//!   its status and headers ([`ResponseClassifier`](crate::http::ResponseClassifier):
//!   the AWS error code, `Retry-After`, `x-amz-retry-after`), a failed send
//!   from the error, and the request is cloned for each retry.
//! - [`ResponseClassifier::classify`](crate::http::ResponseClassifier::classify)
//!   on a response's status and headers is the classification alone, for
//!   your own loop.
//! - With the `tower` feature too, `reqwest::Client` (a tower `Service`)
//!   goes under `tower::RetryLayer`, with
//!   [`ResponseClassifier`](crate::http::ResponseClassifier) as the
//!   classifier and `TryClone` to copy requests.
//!
//! | `reqwest::Error` | as | retried |
//! |---|---|---|
//! | [`is_builder`](::reqwest::Error::is_builder) (bad URL, header) | [`TransportFailure::InvalidRequest`](crate::TransportFailure::InvalidRequest) | never: it was never sent |
//! | [`is_connect`](::reqwest::Error::is_connect) | [`Connect`](crate::TransportFailure::Connect), or [`ConnectTimeout`](crate::TransportFailure::ConnectTimeout) when it timed out | yes |
//! | [`is_timeout`](::reqwest::Error::is_timeout) | [`ReadTimeout`](crate::TransportFailure::ReadTimeout) (a timeout) | yes |
//! | [`is_body`](::reqwest::Error::is_body), [`is_decode`](::reqwest::Error::is_decode): the body failed after the status | [`ResponseStreaming`](crate::TransportFailure::ResponseStreaming) | yes, as the AWS SDKs retry a broken response |
//! | [`is_request`](::reqwest::Error::is_request) with a reset, aborted or cut-short connection underneath (before the response was complete) | [`ConnectionClosed`](crate::TransportFailure::ConnectionClosed) | yes |
//! | [`is_redirect`](::reqwest::Error::is_redirect) (a redirect loop) | not retryable | never: it would loop again |
//! | [`is_status`](::reqwest::Error::is_status) (from `error_for_status`) | its status, safety unknown | by the AWS status rules (500, 502, 503, 504) |
//! | anything else | [`Http`](crate::TransportFailure::Http) | yes |
//!
//! # Examples
//!
//! A client for a plain HTTP API:
//!
//! ```no_run
//! use rebound_runtime::reqwest::RequestBuilderExt as _;
//! use rebound_runtime::{Retry, StandardRetryStrategy};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = reqwest::Client::new();
//! let retry = Retry::new(StandardRetryStrategy::for_http()); // tokio's timer (feature `tokio`)
//! let body = client
//!     .get("http://127.0.0.1:8080/items/1")
//!     .send_with_retry(&retry) // 3 attempts, jittered backoff, Retry-After honoured up to 20 s
//!     .await?
//!     .error_for_status()? // a 4xx, or a 5xx that outlived its retries
//!     .text()
//!     .await?;
//! # let _ = body; Ok(()) }
//! ```

mod error;
mod send;
#[cfg(feature = "tower")]
mod tower;

pub use send::RequestBuilderExt;
#[cfg(feature = "tower")]
pub use tower::TryClone;
