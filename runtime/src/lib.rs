//! The runtime of [rebound](https://docs.rs/rebound-retry): the retry vocabulary
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
//! | [`ErrorInfo`] | who is at fault ([`ErrorFault`]), which HTTP status and error code came back, which [`TransportFailure`]? |
//! | [`FailureInfo`] | both, as the one object-safe trait a strategy reads |
//! | [`Classified`] | the answers as plain data, for errors that do not implement the traits |
//! | [`RetryAfterValue`] | what a `#[retry_after]` field may hold |
//!
//! Both traits are implemented for [`std::io::Error`] (transport failures),
//! and for `&T`, `&mut T`, `Box<T>`, `Arc<T>` and `Rc<T>` of implementors,
//! so a strategy can take `&dyn FailureInfo` or a boxed error alike.
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
//! # Strategies and the executor
//!
//! | item | what it is |
//! |---|---|
//! | [`Retry`] | runs an operation with a strategy, blocking or async, with a total-time budget and retry hooks ([`RetryListener`]: each retry's [`RetryKind`], the quota and send rate left); fails with [`RetryError`] |
//! | [`RetryStrategy`] | the Smithy interface: [`RetryToken`]s in, [`TokenAcquisitionFailed`] when no further attempt may be made; [`TokenIssuer`] for your own strategies |
//! | [`StandardRetryStrategy`] | the AWS standard retry mode, behaviour 2.0 (default) or 2.1 ([`RetryBehavior`]) |
//! | [`AdaptiveRetryStrategy`] | the AWS adaptive retry mode: standard mode plus a client-side rate limiter ([`rate_limiter`]) |
//! | [`legacy::LegacyRetryStrategy`] | the older SDKs' policies as presets: botocore legacy mode, AWS SDK for Java 1.x, AWS SDK for JavaScript 2.x |
//! | [`NeverRetryStrategy`] | one attempt, never a retry |
//! | [`RetryQuota`], [`Partitions`], [`QuotaStore`] | the lock-free retry quota; one piece of shared state per endpoint or resource; a quota kept elsewhere (a fleet's, in Redis) |
//! | [`waiter::Waiter`] | polls an operation until it is ready, with jittered growing delays, a poll limit and a budget |
//! | [`config::RetryConfig`] | `retry_mode`, `max_attempts` and `AWS_NEW_RETRIES_2026` from code, the environment and the shared config file |
//!
//! | module | what it holds |
//! |---|---|
//! | [`time`] | clocks and sleepers, injectable: tests run in virtual time |
//! | [`backoff`] | backoff formulas, injectable random sources, the retry-after policy |
//! | [`classify`] | the AWS rules: throttling and transient codes and statuses, HTTP responses, `Retry-After` parsing |
//!
//! ```
//! use rebound_runtime::classify::HttpErrorResponse;
//! use rebound_runtime::{RetryBehavior, RetryStrategy, StandardRetryStrategy};
//!
//! let strategy = StandardRetryStrategy::builder().behavior(RetryBehavior::V2_1).build();
//! let token = strategy.acquire_initial_token()?;
//! let throttled = HttpErrorResponse::new(400).with_code("ThrottlingException");
//! let token = strategy.refresh_retry_token(token, &throttled)?;
//! assert_eq!(token.attempt(), 2);
//! assert!(token.delay() < std::time::Duration::from_secs(1)); // r * 1 s
//! strategy.record_success(token);
//! # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
//! ```
//!
//! # Observability
//!
//! A [`RetryListener`] (or the [`Retry::on_retry`] and [`Retry::on_give_up`]
//! closures) hears of every retry — the attempt, the delay, why
//! ([`RetryKind`]: throttle, transient, timeout), the retry quota left, the
//! adaptive send rate — and of the give-up, for metrics without any logging
//! framework. With the feature `tracing`, the executors also emit these as
//! `tracing` events (target `"rebound"`, `DEBUG` per retry, `WARN` or
//! `DEBUG` per give-up); [`RetryListener`] lists their fields.
#![forbid(unsafe_code)]
// docs.rs builds with every feature and labels each gated item with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod adaptive;
pub mod backoff;
pub mod classify;
pub mod config;
pub mod driver;
mod executor;
#[cfg(feature = "http")]
pub mod http;
pub mod legacy;
#[cfg(feature = "metrics")]
pub mod metrics;
mod never;
pub mod observe;
#[cfg(feature = "opentelemetry")]
pub mod opentelemetry;
mod partition;
mod quota;
mod quota_store;
pub mod rate_limiter;
mod refusal;
#[cfg(feature = "reqwest")]
pub mod reqwest;
mod standard;
mod strategy;
pub mod time;
mod token;
#[cfg(feature = "tower")]
pub mod tower;
mod vocabulary;
pub mod waiter;

pub use adaptive::{AdaptiveRetryStrategy, AdaptiveRetryStrategyBuilder};
pub use driver::error::{RetryError, StopReason};
pub use driver::listen::{GiveUpEvent, PermitWaitEvent, RetryEvent, RetryListener, SuccessEvent};
pub use executor::Retry;
pub use never::NeverRetryStrategy;
pub use partition::Partitions;
pub use quota::RetryQuota;
pub use quota_store::QuotaStore;
pub use refusal::TokenAcquisitionFailed;
pub use standard::{
    AwsServiceDefaults, RetryBehavior, StandardRetryStrategy, StandardRetryStrategyBuilder,
};
pub use strategy::{RetryKind, RetryStrategy, SendPermit};
pub use token::{RetryToken, TokenIssuer};
pub use vocabulary::{
    Classified, ErrorFault, ErrorInfo, ErrorMetadata, FailureInfo, ProvideErrorMetadata,
    RetryAfterValue, RetryInfo, RetrySafety, TransportFailure,
};

/// What the code `rebound-codegen` emits calls: the AWS SDKs' error-code
/// tables.
///
/// **Not part of the API**: hidden from the documentation, exempt from
/// semantic versioning, and free to change in any release together with
/// `rebound-codegen`. Generated code is regenerated with the version that
/// matches it.
#[doc(hidden)]
pub mod __codegen {
    pub use crate::classify::codes::{is_throttling_error_code, is_transient_error_code};
}

/// The reference algorithms' building blocks and the parsers of outside
/// input, public only so that the conformance tests and the fuzz targets can
/// reach each piece.
///
/// **Not part of the API**: hidden from the documentation, exempt from
/// semantic versioning, and free to change in any release. Use the
/// strategies instead.
#[doc(hidden)]
pub mod internals {
    pub use crate::classify::codes::{
        THROTTLING_ERROR_CODES, THROTTLING_STATUS_CODE, TRANSIENT_ERROR_CODES,
        TRANSIENT_STATUS_CODES, is_transient_status,
    };
    pub use crate::classify::response::parse_x_amz_retry_after;
    // The configuration's test seam: the environment and the files that
    // tests and fuzz targets hand to `RetryConfig::resolve_from` (itself
    // hidden) instead of the real ones.
    pub use crate::config::env::Env;
    pub use crate::config::files::FileSource;
    pub use crate::legacy::botocore::{
        BOTOCORE_DYNAMODB_BASE_SECS, BOTOCORE_DYNAMODB_MAX_ATTEMPTS, BOTOCORE_MAX_ATTEMPTS,
        BOTOCORE_SERVICE_RETRY_RULES, BOTOCORE_THROTTLING_ERROR_CODES, CRC32_HEADER,
        DYNAMODB_EXTRA_RETRY_RULES, InvalidCrc32Header, LIMIT_EXCEEDED_STATUS,
        botocore_retries_response, botocore_retries_transport_failure,
        botocore_service_retry_rules, crc32, crc32_matches,
    };
    pub use crate::legacy::java_v1::{
        CLOCK_SKEW_ERROR_CODES, JAVA_V1_BASE_DELAY, JAVA_V1_DYNAMODB_BASE_DELAY,
        JAVA_V1_DYNAMODB_MAX_ERROR_RETRY, JAVA_V1_MAX_BACKOFF, JAVA_V1_MAX_ERROR_RETRY,
        JAVA_V1_THROTTLED_BASE_DELAY, java_v1_is_throttling, java_v1_retries_response,
    };
    pub use crate::legacy::javascript_v2::{
        EXPIRED_CREDENTIALS_ERROR_CODE, JAVASCRIPT_V2_BASE_DELAY,
        JAVASCRIPT_V2_DYNAMODB_BASE_DELAY, JAVASCRIPT_V2_DYNAMODB_MAX_RETRIES,
        JAVASCRIPT_V2_MAX_RETRIES, JAVASCRIPT_V2_THROTTLING_ERROR_CODES,
        javascript_v2_is_throttling, javascript_v2_retries_response,
    };
    pub use crate::rate_limiter::acquire::RateLimited;
    pub use crate::rate_limiter::cubic::{CubicCalculator, CubicParams};
    pub use crate::rate_limiter::cubic_shape::{BETA, SCALE_CONSTANT};
    pub use crate::rate_limiter::send_rate::{SMOOTHING, SendRateMeter, TIME_BUCKET_RANGE};
    pub use crate::rate_limiter::state::{
        MAX_RATE_ADJUST_SCALE, RateLimiterSnapshot, RateLimiterState,
    };
    pub use crate::rate_limiter::token_bucket::{MIN_CAPACITY, MIN_FILL_RATE, SendTokenBucket};
    pub use crate::standard::MAX_BACKOFF;
    pub use crate::vocabulary::retry_after_header::parse_retry_after;
}
