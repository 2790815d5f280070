//! The runtime of [rebound](https://docs.rs/rebound): the retry vocabulary
//! every error speaks, and the strategies that listen.
//!
//! Most users depend on the `rebound` facade, which re-exports this crate and
//! the `#[derive(RetryInfo)]` macro. Depend on `rebound-runtime` directly only
//! to avoid the proc-macro dependencies.
//!
//! # The vocabulary
//!
//! | item | question it answers |
//! |---|---|
//! | [`RetryInfo`] | may this be retried ([`RetrySafety`]), is it a throttle, a timeout, did the service ask for a wait? |
//! | [`ErrorInfo`] | who is at fault ([`ErrorFault`]), which HTTP status and error code came back? |
//!
//! Both are implemented for [`std::io::Error`] (transport failures), and for
//! `&T`, `&mut T`, `Box<T>`, `Arc<T>` and `Rc<T>` of implementors, so a
//! strategy can take `&dyn RetryInfo` or a boxed error alike.
//!
//! ```
//! use rebound_runtime::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
//!
//! let err: Box<std::io::Error> = Box::new(std::io::ErrorKind::TimedOut.into());
//! assert_eq!(err.retry_safety(), RetrySafety::Yes);
//! assert!(err.is_timeout());
//! assert_eq!(err.fault(), ErrorFault::Other);
//! ```
//!
//! # Strategies
//!
//! | item | what it is |
//! |---|---|
//! | [`RetryStrategy`] | the Smithy interface: [`RetryToken`]s in, [`TokenAcquisitionFailed`] when no further attempt may be made |
//! | [`StandardRetryStrategy`] | the AWS standard retry mode, behaviour 2.0 (default) or 2.1 ([`RetryBehavior`]) |
//! | [`AdaptiveRetryStrategy`] | the AWS adaptive retry mode: standard mode plus a client-side rate limiter, one per throttling scope ([`AdaptivePartitions`]) |
//! | [`LegacyRetryStrategy`] | the older SDKs' policies as presets: botocore legacy mode, AWS SDK for Java 1.x, AWS SDK for JavaScript 2.x ([`legacy`]) |
//! | [`RetryQuota`] | the lock-free token bucket that stops retries while a service keeps failing |
//! | [`Partitions`] | one quota (or other shared state) per endpoint or resource |
//! | [`backoff`] | [`Backoff`] formulas, injectable [`RandomSource`]s, [`RetryAfterPolicy`] |
//! | [`classify`] | the AWS rules: throttling and transient codes and statuses, unmodeled 429 |
//! | [`executor`] | [`Retry`]: run an operation with a strategy, blocking or async, with a total-time budget |
//! | [`rate_limiter`] | adaptive mode's client-side rate limiter ([`ClientRateLimiter`]): disabled until the first throttle, then CUBIC-controlled, blocking or failing fast ([`AcquireMode`]), one per throttling scope ([`RateLimiterPartitions`]) |
//! | [`waiter`] | [`Waiter`]: poll an asynchronous operation until it is ready, with jittered growing delays, a poll limit and a budget |
//!
//! ```
//! use rebound_runtime::classify::HttpErrorResponse;
//! use rebound_runtime::{RetryBehavior, RetryStrategy, StandardRetryStrategy};
//!
//! let strategy = StandardRetryStrategy::builder().behavior(RetryBehavior::V2_1).build()?;
//! let token = strategy.acquire_initial_token()?;
//! let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
//! let token = strategy.refresh_retry_token(token, &throttled)?;
//! assert_eq!(token.attempt(), 2);
//! assert!(token.delay() < std::time::Duration::from_secs(1)); // r * 1 s
//! strategy.record_success(token);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Configuration
//!
//! [`RetryConfig`] resolves the AWS shared retry settings (`retry_mode`,
//! `max_attempts`, `AWS_NEW_RETRIES_2026`) from code, the environment and the
//! shared config file, with errors that name the source, key and value; see
//! [`config`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod adaptive;
pub mod backoff;
pub mod classify;
pub mod config;
mod error_info;
pub mod executor;
mod fault;
mod give_up;
mod io;
pub mod legacy;
mod never;
mod partition;
mod quota;
pub mod rate_limiter;
mod retry_info;
mod safety;
pub mod standard;
mod strategy;
pub mod waiter;

mod retry_after_value;

pub use adaptive::{AdaptivePartitions, AdaptiveRetryStrategy, AdaptiveRetryStrategyBuilder};
pub use backoff::{
    Backoff, RandomSource, RetryAfterExceedsCeiling, RetryAfterPolicy, SeededRandom, ThreadRandom,
};
pub use config::{ConfigError, ResolvedRetryConfig, RetryConfig, RetryMode};
pub use error_info::ErrorInfo;
pub use executor::{
    AsyncSleeper, Classified, Clock, ManualClock, Retry, RetryError, Sleeper, StopReason,
    SystemClock, ThreadSleeper,
};
#[cfg(feature = "tokio")]
pub use executor::{TokioClock, TokioSleeper};
pub use fault::ErrorFault;
pub use legacy::{
    LegacyConfigError, LegacyPreset, LegacyRetryStrategy, LegacyRetryStrategyBuilder,
};
pub use never::NeverRetryStrategy;
pub use partition::Partitions;
pub use quota::RetryQuota;
pub use rate_limiter::{AcquireMode, ClientRateLimiter, RateLimited, RateLimiterPartitions};
pub use retry_after_value::RetryAfterValue;
pub use retry_info::RetryInfo;
pub use safety::RetrySafety;
pub use standard::{
    AwsServiceDefaults, RetryBehavior, StandardConfigError, StandardRetryStrategy,
    StandardRetryStrategyBuilder,
};
pub use strategy::{FailureInfo, RetryStrategy, RetryToken, SendPermit, TokenAcquisitionFailed};
pub use waiter::{GiveUpReason, PollStatus, WaitError, Waiter, WaiterBuilder, WaiterConfigError};
