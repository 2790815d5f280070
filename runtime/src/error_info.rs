//! [`ErrorInfo`]: who is at fault, and what the wire said.

use crate::ErrorFault;

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
