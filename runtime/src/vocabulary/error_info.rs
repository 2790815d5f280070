//! [`ErrorInfo`]: who is at fault, and what the wire said.

use crate::vocabulary::ErrorFault;
use crate::vocabulary::TransportFailure;

/// Protocol-level facts about an error (Smithy's `ErrorInfo`, plus the HTTP
/// status and the error code where they are known).
///
/// Only [`fault`](ErrorInfo::fault) is required. The status and the code let a
/// strategy apply the AWS SDKs' rules (throttling codes, transient statuses)
/// to errors that carry no explicit [`RetryInfo`](crate::RetryInfo) verdict.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{ErrorFault, ErrorInfo};
///
/// #[derive(Debug)]
/// struct Unhandled {
///     status: u16,
///     code: String,
/// }
///
/// impl ErrorInfo for Unhandled {
///     fn fault(&self) -> ErrorFault {
///         ErrorFault::from_http_status(self.status)
///     }
///     fn http_status(&self) -> Option<u16> {
///         Some(self.status)
///     }
///     fn error_code(&self) -> Option<&str> {
///         Some(&self.code)
///     }
/// }
///
/// let err = Unhandled { status: 503, code: "SlowDown".into() };
/// assert_eq!(err.fault(), ErrorFault::Server);
/// assert_eq!(err.error_code(), Some("SlowDown"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say who is at fault: it does not implement `ErrorInfo`",
    label = "this error type has no `ErrorInfo`",
    note = "`#[derive(rebound::RetryInfo)]` implements `ErrorInfo` together with `RetryInfo`; by hand, implement `ErrorInfo::fault` (and `http_status` / `error_code` where known)",
    note = "for an error type you cannot change, use `Retry::run_classified` (or `run_async_classified`) with a closure that returns a `Classified`"
)]
pub trait ErrorInfo {
    /// Which side caused the error.
    fn fault(&self) -> ErrorFault;

    /// The HTTP status of the response that carried the error, if any.
    fn http_status(&self) -> Option<u16> {
        None
    }

    /// The service's error code (`ThrottlingException`, `SlowDown`, ...), if known.
    fn error_code(&self) -> Option<&str> {
        None
    }

    /// Which transport failure this is, if the attempt got no (complete)
    /// response: lets a strategy tell a refused connection from a broken
    /// response stream, which some AWS SDKs retry differently (botocore's
    /// legacy mode retries only connection errors). `None` (the default) for
    /// error responses and for errors that do not say.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::TransportFailure;
    /// use rebound_runtime::ErrorInfo;
    ///
    /// let failure = TransportFailure::ConnectionClosed;
    /// assert_eq!(failure.transport_failure(), Some(TransportFailure::ConnectionClosed));
    /// assert_eq!(std::io::Error::other("boom").transport_failure(), None);
    /// ```
    fn transport_failure(&self) -> Option<TransportFailure> {
        None
    }
}

macro_rules! forward_error_info {
    ($($pointer:ty),+ $(,)?) => {$(
        impl<T: ErrorInfo + ?Sized> ErrorInfo for $pointer {
            #[inline]
            fn fault(&self) -> ErrorFault {
                T::fault(self)
            }
            #[inline]
            fn http_status(&self) -> Option<u16> {
                T::http_status(self)
            }
            #[inline]
            fn error_code(&self) -> Option<&str> {
                T::error_code(self)
            }
            #[inline]
            fn transport_failure(&self) -> Option<TransportFailure> {
                T::transport_failure(self)
            }
        }
    )+};
}

forward_error_info!(
    &T,
    &mut T,
    std::boxed::Box<T>,
    std::sync::Arc<T>,
    std::rc::Rc<T>,
);
