//! Retries for any tower [`Service`](tower_service::Service) (feature
//! `tower`): [`RetryLayer`] wraps a service in a [`RetryService`], which
//! sends each request again while the strategy retries its outcome.
//!
//! It runs the same request loop as [`Retry::run_async`](crate::Retry::run_async)
//! — initial token, send permit, backoff, budget, listener — but as a tower
//! middleware: the outcome of a call is a whole `Result`, so an error
//! *response* (an HTTP 503) can be retried as well as an error, and a
//! response that is not retried is returned as it came.
//!
//! | item | what it is |
//! |---|---|
//! | [`RetryLayer`] | the settings: strategy, sleeper, classifier, request copies, clock, budget, listener |
//! | [`RetryService`] | the wrapped service; its page says what a request returns; its future is unboxed, `Send` and `'static` when its parts are |
//! | [`ClassifyResult`] | which outcomes are failures, and what they are (closures; `ResponseClassifier` with the `http` feature) |
//! | [`CloneRequest`] | how a request is copied for a retry: `Clone` by default, a closure, or `reqwest::TryClone`; a request type that is not `Clone` needs one, or the layer does not compile |
//!
//! # Examples
//!
//! An HTTP client stack (feature `http`): error responses are classified by
//! their status and AWS headers, and retried on tokio's timer.
//!
#![cfg_attr(feature = "http", doc = "```")]
#![cfg_attr(not(feature = "http"), doc = "```ignore")]
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::time::Duration;
//! use http::{Request, Response};
//! use rebound_runtime::http::ResponseClassifier;
//! use rebound_runtime::tower::RetryLayer;
//! use rebound_runtime::StandardRetryStrategy;
//! use tower::{ServiceBuilder, ServiceExt, service_fn};
//!
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build()?;
//! # runtime.block_on(async {
//! // A pretend HTTP client: throttled once, then fine.
//! let calls = Arc::new(AtomicU32::new(0));
//! let client = service_fn(move |_request: Request<String>| {
//!     let call = calls.fetch_add(1, Ordering::Relaxed) + 1;
//!     async move {
//!         let status = if call == 1 { 429 } else { 200 };
//!         Ok::<_, std::io::Error>(Response::builder().status(status).body(String::new()).unwrap())
//!     }
//! });
//!
//! let client = ServiceBuilder::new()
//!     .layer(RetryLayer::new(
//!         StandardRetryStrategy::for_http(), // Retry-After honoured up to 20 s; share one per client
//!         |delay| tokio::time::sleep(delay), // or `DefaultSleeper` (feature `tokio`)
//!         ResponseClassifier::new(),
//!     ))
//!     .service(client);
//!
//! let request = Request::builder().uri("https://example.com/items/7").body(String::new())?;
//! let response = client.oneshot(request).await?;
//! assert_eq!(response.status(), 200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod classify;
mod clone_request;
mod future;
mod layer;
mod service;

pub use classify::ClassifyResult;
pub use clone_request::CloneRequest;
pub use layer::RetryLayer;
pub use service::RetryService;
