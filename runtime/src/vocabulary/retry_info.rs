//! [`RetryInfo`]: what a failure tells a retry strategy.

use core::time::Duration;

use crate::vocabulary::RetrySafety;

/// Retry-relevant facts about a failed attempt (Smithy's `RetryInfo`).
///
/// Strategies never inspect concrete error types; they ask these four
/// questions. Implement it by hand, or derive it from Smithy-style attributes
/// with `#[derive(RetryInfo)]` (the `rebound` crate's `derive` feature).
///
/// Only [`retry_safety`](RetryInfo::retry_safety) is required; the other
/// methods default to "no" / "no hint", as in the Smithy guide.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::{RetryInfo, RetrySafety};
///
/// /// A hand-written error for a service that answers 429 with a hint.
/// #[derive(Debug)]
/// struct SlowDown {
///     retry_after_secs: u64,
/// }
///
/// impl RetryInfo for SlowDown {
///     fn retry_safety(&self) -> RetrySafety {
///         RetrySafety::Yes
///     }
///     fn is_throttle(&self) -> bool {
///         true
///     }
///     fn retry_after(&self) -> Option<Duration> {
///         Some(Duration::from_secs(self.retry_after_secs))
///     }
/// }
///
/// let err = SlowDown { retry_after_secs: 2 };
/// assert_eq!(err.retry_safety(), RetrySafety::Yes);
/// assert!(err.is_throttle());
/// assert!(!err.is_timeout());
/// assert_eq!(err.retry_after(), Some(Duration::from_secs(2)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say whether it may be retried: it does not implement `RetryInfo`",
    label = "this error type has no retry classification",
    note = "derive it on your error type: `#[derive(rebound::RetryInfo)]` implements `RetryInfo` and `ErrorInfo`, with attributes such as `#[retryable]` and `#[error_fault(client)]`",
    note = "for an error type you cannot change, use `Retry::run_classified` (or `run_async_classified`) with a closure that returns a `Classified`"
)]
pub trait RetryInfo {
    /// Whether retrying is safe. [`RetrySafety::Yes`] permits a retry; it does
    /// not guarantee one.
    fn retry_safety(&self) -> RetrySafety;

    /// Whether the service rejected the request because too many were sent
    /// (HTTP 429, `ThrottlingException`, ...). Throttles back off longer and,
    /// in adaptive mode, slow the client down.
    fn is_throttle(&self) -> bool {
        false
    }

    /// Whether the attempt timed out (no response within the transport's
    /// limit). Timeouts cost more retry quota in the AWS standard mode.
    fn is_timeout(&self) -> bool {
        false
    }

    /// The minimum wait the service asked for before the next attempt
    /// (`Retry-After`, `x-amz-retry-after`), if it gave one. A strategy may
    /// wait longer, but should not wait less.
    fn retry_after(&self) -> Option<Duration> {
        None
    }
}

macro_rules! forward_retry_info {
    ($($pointer:ty),+ $(,)?) => {$(
        impl<T: RetryInfo + ?Sized> RetryInfo for $pointer {
            #[inline]
            fn retry_safety(&self) -> RetrySafety {
                T::retry_safety(self)
            }
            #[inline]
            fn is_throttle(&self) -> bool {
                T::is_throttle(self)
            }
            #[inline]
            fn is_timeout(&self) -> bool {
                T::is_timeout(self)
            }
            #[inline]
            fn retry_after(&self) -> Option<Duration> {
                T::retry_after(self)
            }
        }
    )+};
}

forward_retry_info!(
    &T,
    &mut T,
    std::boxed::Box<T>,
    std::sync::Arc<T>,
    std::rc::Rc<T>,
);
