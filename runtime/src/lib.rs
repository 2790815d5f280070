//! The runtime of [rebound](https://docs.rs/rebound): the retry vocabulary
//! every error speaks, and (in later modules) the strategies that listen.
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
//! # Adaptive mode
//!
//! [`rate_limiter`] holds the client-side rate limiter of AWS adaptive retry
//! mode ([`ClientRateLimiter`]): disabled until the first throttle, then
//! CUBIC-controlled, blocking or failing fast ([`AcquireMode`]) when short of
//! send tokens, one per throttling scope ([`RateLimiterPartitions`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error_info;
mod fault;
mod io;
mod retry_info;
mod safety;

pub mod rate_limiter;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use error_info::ErrorInfo;
pub use fault::ErrorFault;
pub use rate_limiter::{AcquireMode, ClientRateLimiter, RateLimited, RateLimiterPartitions};
pub use retry_info::RetryInfo;
pub use safety::RetrySafety;
