//! [`FailureInfo`]: the whole vocabulary of one failure, as a strategy sees it.

use crate::vocabulary::{ErrorInfo, RetryInfo};

/// Everything a strategy may ask about a failed attempt: the
/// [`RetryInfo`] verdicts and the [`ErrorInfo`] facts.
///
/// Implemented for every type that implements both, so any error produced by
/// `#[derive(RetryInfo)]`, [`std::io::Error`] or the response types of
/// [`classify`](crate::classify) can be handed to a strategy as
/// `&dyn FailureInfo`.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{FailureInfo, RetrySafety};
///
/// let failure: &dyn FailureInfo = &std::io::Error::from(std::io::ErrorKind::TimedOut);
/// assert_eq!(failure.retry_safety(), RetrySafety::Yes);
/// assert!(failure.is_timeout());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be classified for retrying: it needs `RetryInfo` and `ErrorInfo`",
    label = "not classifiable",
    note = "derive both on your error type with `#[derive(rebound::RetryInfo)]`, or pass a classifier closure to `Retry::run_classified`"
)]
pub trait FailureInfo: RetryInfo + ErrorInfo {}

impl<T: RetryInfo + ErrorInfo + ?Sized> FailureInfo for T {}
