//! The vocabulary for [`std::io::Error`]: transport failures with no response.
//!
//! An I/O error means no (complete) response arrived, so no side is known to
//! be at fault. Connection failures that happen before or while a request is
//! sent (refused, reset, aborted) and timeouts are what the AWS SDKs retry as
//! transient transport errors; every other kind is treated as not retryable,
//! because retrying a permission or invalid-input error only repeats it.

use std::io::{Error, ErrorKind};

use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// Classifies by kind: [`TimedOut`](ErrorKind::TimedOut),
/// [`ConnectionRefused`](ErrorKind::ConnectionRefused),
/// [`ConnectionReset`](ErrorKind::ConnectionReset) and
/// [`ConnectionAborted`](ErrorKind::ConnectionAborted) are retryable
/// ([`RetrySafety::Yes`]); `TimedOut` is also a timeout. Every other kind is
/// [`RetrySafety::No`].
///
/// # Examples
///
/// ```
/// use std::io::ErrorKind;
/// use rebound_runtime::{RetryInfo, RetrySafety};
///
/// assert_eq!(ErrorKind::ConnectionReset.retry_safety(), RetrySafety::Yes);
/// assert!(ErrorKind::TimedOut.is_timeout());
/// assert_eq!(ErrorKind::PermissionDenied.retry_safety(), RetrySafety::No);
/// ```
impl RetryInfo for ErrorKind {
    #[inline]
    fn retry_safety(&self) -> RetrySafety {
        match self {
            ErrorKind::TimedOut
            | ErrorKind::ConnectionRefused
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted => RetrySafety::Yes,
            _ => RetrySafety::No,
        }
    }

    #[inline]
    fn is_timeout(&self) -> bool {
        *self == ErrorKind::TimedOut
    }
}

/// Transport failures are nobody's declared fault: always [`ErrorFault::Other`].
impl ErrorInfo for ErrorKind {
    #[inline]
    fn fault(&self) -> ErrorFault {
        ErrorFault::Other
    }
}

/// Classifies by [`Error::kind`], exactly as the [`ErrorKind`] impl does.
///
/// # Examples
///
/// ```
/// use std::io;
/// use rebound_runtime::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
///
/// let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
/// assert_eq!(refused.retry_safety(), RetrySafety::Yes);
/// assert!(!refused.is_timeout());
/// assert_eq!(refused.fault(), ErrorFault::Other);
///
/// let timed_out = io::Error::new(io::ErrorKind::TimedOut, "read timed out");
/// assert!(timed_out.is_timeout());
///
/// let not_found = io::Error::from(io::ErrorKind::NotFound);
/// assert_eq!(not_found.retry_safety(), RetrySafety::No);
/// ```
impl RetryInfo for Error {
    #[inline]
    fn retry_safety(&self) -> RetrySafety {
        self.kind().retry_safety()
    }

    #[inline]
    fn is_timeout(&self) -> bool {
        self.kind().is_timeout()
    }
}

/// Always [`ErrorFault::Other`]: see the [`ErrorKind`] impl.
impl ErrorInfo for Error {
    #[inline]
    fn fault(&self) -> ErrorFault {
        ErrorFault::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connection_failures_and_timeouts_are_retryable() {
        let retryable = [
            ErrorKind::TimedOut,
            ErrorKind::ConnectionRefused,
            ErrorKind::ConnectionReset,
            ErrorKind::ConnectionAborted,
        ];
        for kind in retryable {
            assert_eq!(
                Error::from(kind).retry_safety(),
                RetrySafety::Yes,
                "{kind:?}"
            );
            assert_eq!(Error::from(kind).is_timeout(), kind == ErrorKind::TimedOut);
        }
        for kind in [
            ErrorKind::NotFound,
            ErrorKind::PermissionDenied,
            ErrorKind::InvalidInput,
            ErrorKind::InvalidData,
            ErrorKind::Other,
        ] {
            let err = Error::from(kind);
            assert_eq!(err.retry_safety(), RetrySafety::No, "{kind:?}");
            assert!(!err.is_timeout() && !err.is_throttle());
            assert_eq!(err.retry_after(), None);
        }
    }

    #[test]
    fn io_errors_have_no_status_code_or_fault() {
        let err = Error::other("boom");
        assert_eq!(err.fault(), ErrorFault::Other);
        assert_eq!(err.http_status(), None);
        assert_eq!(err.error_code(), None);
    }
}
