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
//! # Configuration
//!
//! [`RetryConfig`] resolves the AWS shared retry settings (`retry_mode`,
//! `max_attempts`, `AWS_NEW_RETRIES_2026`) from code, the environment and the
//! shared config file, with errors that name the source, key and value; see
//! [`config`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod config;
mod error_info;
mod fault;
mod io;
mod retry_info;
mod safety;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use config::{ConfigError, ResolvedRetryConfig, RetryConfig, RetryMode};
pub use error_info::ErrorInfo;
pub use fault::ErrorFault;
pub use retry_info::RetryInfo;
pub use safety::RetrySafety;
