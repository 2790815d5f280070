//! Client-side retries that are correct by construction: the AWS SDKs' retry
//! behaviour for any Rust service client, and a derive that turns Smithy
//! error traits into the answers a retry strategy needs.
//!
//! Describe your errors once, with `#[derive(RetryInfo)]`; retry any
//! operation with a [`Retry`] executor and a strategy:
//!
//! ```
//! use rebound::{Retry, RetryInfo, StandardRetryStrategy};
//!
//! #[derive(Debug, thiserror::Error, RetryInfo)]
//! enum GetItemError {
//!     #[error("slow down")]
//!     #[retryable(throttling = true)]
//!     Throttled,
//!     #[error("no such item")]
//!     #[error_fault(client)]
//!     NotFound,
//! }
//! # fn get_item(attempt: u32) -> Result<&'static str, GetItemError> {
//! #     if attempt == 1 { Err(GetItemError::Throttled) } else { Ok("item") }
//! # }
//!
//! let strategy = StandardRetryStrategy::new(); // the AWS standard mode; share it per client
//! let retry = Retry::new(&strategy); // between attempts, sleeps the thread for the backoff
//! # let retry = retry.sleeper(rebound::time::ManualClock::new()); // (this doctest: virtual time)
//! let item = retry.run(|attempt| get_item(attempt))?; // `Throttled` is retried, `NotFound` is not
//! assert_eq!(item, "item");
//! # Ok::<(), rebound::RetryError<GetItemError>>(())
//! ```
//!
//! The same in async code, sleeping on tokio's timer (feature `tokio`; any
//! `Fn(Duration) -> impl Future` is a sleeper too, so no runtime is required):
//!
#![cfg_attr(feature = "tokio", doc = "```")]
#![cfg_attr(not(feature = "tokio"), doc = "```ignore")]
//! # use rebound::RetryInfo;
//! # #[derive(Debug, thiserror::Error, RetryInfo)]
//! # enum GetItemError { #[error("slow down")] #[retryable(throttling = true)] Throttled }
//! # async fn get_item(attempt: u32) -> Result<&'static str, GetItemError> {
//! #     if attempt == 1 { Err(GetItemError::Throttled) } else { Ok("item") }
//! # }
//! use rebound::{Retry, RetryError, StandardRetryStrategy};
//!
//! async fn get_item_with_retries(strategy: &StandardRetryStrategy) -> Result<&'static str, RetryError<GetItemError>> {
//!     Retry::new(strategy).run_async(get_item).await
//! }
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
//! # assert_eq!(runtime.block_on(get_item_with_retries(&StandardRetryStrategy::new())).unwrap(), "item");
//! ```
//!
//! # Strategies
//!
//! | strategy | what it does | use it for |
//! |---|---|---|
//! | [`StandardRetryStrategy::new()`](StandardRetryStrategy::new) | the AWS standard mode: 3 attempts, jittered exponential backoff, a shared retry quota; behaviour 2.0 or 2.1 ([`RetryBehavior`]) | the default |
//! | [`AdaptiveRetryStrategy::new()`](AdaptiveRetryStrategy::new) | standard mode plus a client-side rate limiter that slows every send down once the service throttles; one per throttling scope with [`partitions`](AdaptiveRetryStrategy::partitions) | clients that share a throttled resource |
//! | [`LegacyRetryStrategy::new(preset)`](legacy::LegacyRetryStrategy::new) | the older SDKs' policies: botocore legacy, AWS SDK for Java 1.x, JavaScript 2.x | matching an old client's behaviour exactly |
//! | [`NeverRetryStrategy`] | one attempt, never a retry | non-idempotent calls, tests |
//! | [`Waiter`](waiter::Waiter) | polls until an operation is done, with growing jittered delays (not a retry strategy) | "wait until the stack is created" |
//! | [`RetryConfig`](config::RetryConfig) | picks one of the modes from `AWS_RETRY_MODE`, `AWS_MAX_ATTEMPTS` and `~/.aws/config` | honouring the AWS shared settings |
//!
//! Every strategy implements [`RetryStrategy`], the Smithy client guide's
//! interface, which your own strategies can implement too (see
//! [`TokenIssuer`]). Everything time- or randomness-dependent is injectable:
//! [`time`] (clocks and sleepers), [`backoff`] (formulas and random
//! sources).
//!
//! Retries are observable: [`Retry::on_retry`], [`Retry::on_give_up`] or a
//! [`RetryListener`] hear of each retry (the attempt, the delay, why:
//! [`RetryKind`], the retry quota and adaptive send rate left) and of the
//! give-up; with the feature `tracing` these are `tracing` events too.
//!
//! # The vocabulary
//!
//! A strategy never looks at concrete error types. It asks [`RetryInfo`]
//! (may it be retried ([`RetrySafety`]), is it a throttle, a timeout, did the
//! service ask for a wait?) and [`ErrorInfo`] (who is at fault
//! ([`ErrorFault`]), which status and error code came back?).
//! [`derive@RetryInfo`] implements both from Smithy-style attributes; its page
//! is the attribute reference. Both traits are implemented for
//! [`std::io::Error`] and for references, `Box`, `Arc` and `Rc` of
//! implementors; [`Classified`] answers for errors that do not implement
//! them ([`Retry::run_classified`]), and [`classify`] holds the AWS rules.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `derive` | yes | `#[derive(RetryInfo)]` (from `rebound-macros`) |
//! | `tokio` | no | tokio's timer as the async executor's and waiter's default sleeper ([`DefaultSleeper`](time::DefaultSleeper)), and [`TokioClock`](time::TokioClock) |
//! | `httpdate` | no | HTTP-date `Retry-After` values and `#[retry_after] String` fields (without it a date is no hint) |
//! | `http` | no | `rebound::http`: an `http::Response`'s status and headers as a failure (AWS error code, `Retry-After`, `x-amz-retry-after`); implies `httpdate` |
//! | `tower` | no | `rebound::tower`: `RetryLayer` / `RetryService`, retrying any tower `Service` with any strategy |
//! | `reqwest` | no | `rebound::reqwest`: `send_with_retry` for a `reqwest::RequestBuilder`, and `reqwest::Error` classified; with `tower`, `RetryLayer::for_reqwest`; implies `http` and `tokio` |
//! | `tracing` | no | one `tracing` event per retry and per give-up, target `"rebound"` (fields: see [`RetryListener`]) |
//! | `redis` | no | [`redis`]: a retry quota shared by a fleet of processes through Redis or Valkey (`rebound-redis`) |
//! | `smithy` | no | [`smithy`]: rebound as the retry strategy of smithy-rs clients (a `RuntimePlugin`) and around the AWS SDK for Rust's `send()` (`rebound-smithy`; needs Rust 1.94.1) |
#![forbid(unsafe_code)]
// docs.rs builds with every feature and labels each gated item with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub use rebound_runtime::*;

/// Derives [`RetryInfo`](trait@RetryInfo) and [`ErrorInfo`](trait@ErrorInfo).
///
///
/// Implements both traits from attributes that mirror Smithy's error traits,
/// on structs and enums (unit, tuple and struct variants; generics, lifetimes
/// and where-clauses; empty enums). It composes with
/// `#[derive(Debug, thiserror::Error)]`. Every method compiles to one `match`
/// on the variant with constant arms, a read of a field, or a call into a
/// wrapped error.
///
/// | attribute (on the type or a variant) | Smithy trait | effect |
/// |---|---|---|
/// | `#[retryable]` | `@retryable` | `retry_safety()` is `Yes` |
/// | `#[retryable(throttling = true)]` | `@retryable(throttling: true)` | also `is_throttle()` |
/// | `#[retryable(timeout = true)]` | (none) | also `is_timeout()` |
/// | `#[retryable(false)]` | (none) | `retry_safety()` is `No`: never retried, whatever the fault or status; overrides an enum default |
/// | `#[error_fault(client \| server \| other)]` | `@error` | `fault()`; not retryable: client is `No`, server `Maybe` |
/// | `#[http_error(NNN)]` | `@httpError` | `http_status()`, 400..=599; sets the fault when none is declared |
/// | `#[error_code("Code")]` | shape name | `error_code()`; defaults to the variant's (or struct's) name |
/// | `#[retry_info(transparent)]` | | every method delegates to the one field |
/// | `#[retry_info(crate = "path")]` (type only) | | path of the `rebound` crate in generated code |
///
/// | attribute (on a field) | effect |
/// |---|---|
/// | `#[retry_after]` | `retry_after()` reads the field |
/// | `#[error_metadata]` | the field is the response's [`ErrorMetadata`] (or any [`ProvideErrorMetadata`]): `http_status()` is its status when it has one |
///
/// The mapping is Smithy's, exactly:
///
/// | declared | `retry_safety` | `is_throttle` | `fault` |
/// |---|---|---|---|
/// | `#[retryable(throttling = true)]` | `Yes` | `true` | as declared, else from the status |
/// | `#[retryable]` | `Yes` | `false` | as declared, else from the status |
/// | `#[error_fault(client)]`, not retryable | `No` | `false` | `Client` |
/// | `#[error_fault(server)]`, not retryable | `Maybe` | `false` | `Server` |
/// | nothing | `Maybe` | `false` | from `#[http_error]` (4xx `Client`, 5xx `Server`), else `Other` |
///
/// `http_status()` is the declared status, else Smithy's `@httpError` default
/// for a declared fault (400 for client, 500 for server), else `None`.
///
/// Attributes on an enum are defaults that each variant may override
/// (`error_code` excepted: each variant has its own).
///
/// # A modeled operation error
///
/// ```
/// use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// #[derive(Debug, RetryInfo)]
/// enum PutItemError {
///     #[error_fault(client)]
///     #[retryable(throttling = true)]
///     ProvisionedThroughputExceededException { message: String },
///     #[error_fault(server)]
///     InternalServerError { message: String },
///     #[error_fault(client)]
///     ConditionalCheckFailedException { message: String },
/// }
///
/// let throttled = PutItemError::ProvisionedThroughputExceededException { message: "slow down".into() };
/// assert_eq!(throttled.retry_safety(), RetrySafety::Yes);
/// assert!(throttled.is_throttle());
/// assert_eq!(throttled.fault(), ErrorFault::Client);
/// assert_eq!(throttled.http_status(), Some(400));
/// assert_eq!(throttled.error_code(), Some("ProvisionedThroughputExceededException"));
///
/// let internal = PutItemError::InternalServerError { message: "oops".into() };
/// assert_eq!(internal.retry_safety(), RetrySafety::Maybe);
/// assert_eq!(internal.http_status(), Some(500));
///
/// let failed = PutItemError::ConditionalCheckFailedException { message: "no".into() };
/// assert_eq!(failed.retry_safety(), RetrySafety::No);
/// ```
///
/// # `#[retryable]`, `#[retryable(throttling = true)]`, `#[retryable(timeout = true)]`
///
/// ```
/// use rebound::{RetryInfo, RetrySafety};
///
/// #[derive(Debug, RetryInfo)]
/// #[retryable]
/// struct ServiceUnavailable;
///
/// #[derive(Debug, RetryInfo)]
/// #[retryable(throttling = true)]
/// struct SlowDown;
///
/// #[derive(Debug, RetryInfo)]
/// #[retryable(timeout = true)]
/// struct RequestTimeout;
///
/// assert_eq!(ServiceUnavailable.retry_safety(), RetrySafety::Yes);
/// assert!(!ServiceUnavailable.is_throttle());
/// assert!(SlowDown.is_throttle());
/// assert!(RequestTimeout.is_timeout() && !RequestTimeout.is_throttle());
/// ```
///
/// # `#[retryable(false)]`: overriding an enum default
///
/// ```
/// use rebound::{RetryInfo, RetrySafety};
///
/// #[derive(Debug, RetryInfo)]
/// #[retryable]
/// #[error_fault(server)]
/// enum StorageError {
///     Busy,
///     Degraded,
///     #[retryable(false)]
///     Corrupted,
/// }
///
/// assert_eq!(StorageError::Busy.retry_safety(), RetrySafety::Yes);
/// // Explicitly not retryable: never retried, even as a server fault.
/// assert_eq!(StorageError::Corrupted.retry_safety(), RetrySafety::No);
/// ```
///
/// # `#[error_fault(...)]` and `#[http_error(NNN)]`
///
/// ```
/// use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// #[derive(Debug, RetryInfo)]
/// enum GetObjectError {
///     #[error_fault(client)]
///     #[http_error(404)]
///     NoSuchKey,
///     // No fault declared: 503 makes it a server fault.
///     #[http_error(503)]
///     Unavailable,
///     #[error_fault(other)]
///     Unknown,
/// }
///
/// assert_eq!(GetObjectError::NoSuchKey.fault(), ErrorFault::Client);
/// assert_eq!(GetObjectError::NoSuchKey.http_status(), Some(404));
/// assert_eq!(GetObjectError::NoSuchKey.retry_safety(), RetrySafety::No);
/// assert_eq!(GetObjectError::Unavailable.fault(), ErrorFault::Server);
/// assert_eq!(GetObjectError::Unknown.fault(), ErrorFault::Other);
/// assert_eq!(GetObjectError::Unknown.http_status(), None);
/// ```
///
/// A declared fault must agree with the status: `#[error_fault(client)]` with
/// `#[http_error(503)]` is a compile error.
///
/// # `#[error_code("...")]`
///
/// ```
/// use rebound::{ErrorInfo, RetryInfo};
///
/// #[derive(Debug, RetryInfo)]
/// enum QueueError {
///     #[error_code("AWS.SimpleQueueService.NonExistentQueue")]
///     QueueDoesNotExist,
///     OverLimit,
/// }
///
/// assert_eq!(QueueError::QueueDoesNotExist.error_code(), Some("AWS.SimpleQueueService.NonExistentQueue"));
/// assert_eq!(QueueError::OverLimit.error_code(), Some("OverLimit"));
/// ```
///
/// # `#[retry_after]`
///
/// On one field of type `Duration`, a whole number of seconds as `u16`,
/// `u32`, `u64`, `i16`, `i32` or `i64`, a `String`, a `SystemTime`, or an
/// `Option` of any of these. The rule: a `Duration` is the hint itself; an
/// integer is seconds, and a **negative integer means no hint** (models use
/// `-1` for "absent"); a `String` is an HTTP `Retry-After` value,
/// delta-seconds or an HTTP-date (RFC 9110; dates
/// need the `httpdate` feature, which `http` and `reqwest` turn on), and one
/// that does not parse is no hint (never a panic); a `SystemTime` asks to
/// wait until then; `None` means no hint. Dates are measured from the system
/// clock. The field is read through [`RetryAfterValue`], so aliases work, and
/// so does a type of your own that implements it.
///
/// ```
/// use std::time::Duration;
/// use rebound::RetryInfo;
///
/// #[derive(Debug, RetryInfo)]
/// #[retryable(throttling = true)]
/// enum Throttled {
///     Hinted { #[retry_after] wait: Option<Duration> },
///     Seconds(#[retry_after] i32),
///     Header(#[retry_after] Option<String>),
///     Silent,
/// }
///
/// let hinted = Throttled::Hinted { wait: Some(Duration::from_millis(1500)) };
/// assert_eq!(hinted.retry_after(), Some(Duration::from_millis(1500)));
/// assert_eq!(Throttled::Seconds(3).retry_after(), Some(Duration::from_secs(3)));
/// assert_eq!(Throttled::Seconds(-1).retry_after(), None);
/// assert_eq!(Throttled::Header(Some("2".into())).retry_after(), Some(Duration::from_secs(2)));
/// assert_eq!(Throttled::Header(Some("soon".into())).retry_after(), None); // unparsable: no hint
/// assert_eq!(Throttled::Silent.retry_after(), None);
/// ```
///
/// # `#[error_metadata]`
///
/// On one field of type [`ErrorMetadata`] (or of any type implementing
/// [`ProvideErrorMetadata`]): what the response said about the
/// error. `http_status()` is then the status the response carried, when the
/// metadata has one, and the declared (or Smithy's default) status
/// otherwise, so the AWS rules see the status that came back. Generated
/// errors (`rebound-codegen`) carry such a field.
///
/// ```
/// use rebound::{ErrorInfo, ErrorMetadata, RetryInfo};
///
/// #[derive(Debug, Default, RetryInfo)]
/// #[error_fault(server)]
/// struct InternalError {
///     #[error_metadata]
///     meta: ErrorMetadata,
/// }
///
/// assert_eq!(InternalError::default().http_status(), Some(500));
/// let received = InternalError { meta: ErrorMetadata::new().with_http_status(503) };
/// assert_eq!(received.http_status(), Some(503));
/// ```
///
/// # `#[retry_info(transparent)]`
///
/// On a one-field variant, or on the enum to make every variant transparent:
/// every method delegates to the field. This is how an operation error wraps
/// per-error structs that derive the traits themselves, and how `#[from]`
/// sources such as `std::io::Error` keep their own classification.
///
/// ```
/// use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// #[derive(Debug, RetryInfo)]
/// #[error_fault(client)]
/// #[http_error(429)]
/// #[retryable(throttling = true)]
/// struct TooManyRequestsException {
///     message: String,
/// }
///
/// #[derive(Debug, thiserror::Error, RetryInfo)]
/// enum InvokeError {
///     #[error("too many requests: {}", .0.message)]
///     #[retry_info(transparent)]
///     TooManyRequests(TooManyRequestsException),
///     #[error("transport: {0}")]
///     #[retry_info(transparent)]
///     Io(#[from] std::io::Error),
/// }
///
/// let err = InvokeError::TooManyRequests(TooManyRequestsException { message: "wait".into() });
/// assert!(err.is_throttle());
/// assert_eq!(err.http_status(), Some(429));
/// assert_eq!(err.error_code(), Some("TooManyRequestsException"));
///
/// let err = InvokeError::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
/// assert_eq!(err.retry_safety(), RetrySafety::Yes);
/// assert_eq!(err.fault(), ErrorFault::Other);
/// ```
///
/// # `#[retry_info(crate = "...")]`
///
/// For code generators that re-export rebound under another path:
///
/// ```
/// mod sdk {
///     pub use rebound as retries;
/// }
///
/// #[derive(Debug, rebound::RetryInfo)]
/// #[retry_info(crate = "sdk::retries")]
/// #[retryable]
/// struct Transient;
///
/// use sdk::retries::RetryInfo as _;
/// assert!(Transient.retry_safety().is_retryable());
/// ```
///
/// # Mistakes are compile errors
///
/// Unknown keys (with a suggestion), wrong value types, duplicates, a status
/// outside 400..=599, a fault that contradicts the status, two
/// `#[retry_after]` fields or one of an unsupported type, `transparent` on a
/// variant without exactly one field, and unions are rejected, each at the
/// token to fix, all in one compilation.
///
/// ```compile_fail
/// #[derive(rebound::RetryInfo)]
/// enum Bad {
///     #[error_fault(client)]
///     #[http_error(503)] // error: a client fault takes a 4xx status
///     Oops,
/// }
/// ```
#[cfg(feature = "derive")]
pub use rebound_macros::RetryInfo;

/// A retry quota shared by a fleet of processes through Redis or Valkey (`rebound-redis`):
/// [`FleetQuota::retry_quota`](rebound_redis::FleetQuota::retry_quota) is the
/// [`RetryQuota`] the strategies draw from.
#[cfg(feature = "redis")]
pub use rebound_redis as redis;

/// rebound in smithy-rs clients and the AWS SDK for Rust (`rebound-smithy`):
/// [`RetryPlugin`](rebound_smithy::RetryPlugin) makes a strategy the
/// orchestrator's, [`send`](rebound_smithy::send) wraps a fluent builder's
/// `send()`.
#[cfg(feature = "smithy")]
pub use rebound_smithy as smithy;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The set-ups of `docs/metrics.md`, compiled and run as doctests.
#[cfg(all(doctest, feature = "opentelemetry", feature = "metrics"))]
#[doc = include_str!("../docs/metrics.md")]
struct MetricsDoctests;

/// The examples of `docs/adaptive-mode.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/adaptive-mode.md")]
struct AdaptiveModeDoctests;
