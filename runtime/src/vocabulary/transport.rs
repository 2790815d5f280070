//! [`TransportFailure`]: a failure with no response, in the HTTP client.

use crate::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// A request that got no (complete) HTTP response. All of these are
/// transient in the AWS SDKs ([`RetrySafety::Yes`]); the two timeouts also
/// report [`is_timeout`](RetryInfo::is_timeout), which costs more retry quota
/// in behaviour 2.0.
///
/// The variants follow botocore's transport exceptions.
///
/// # Examples
///
/// ```
/// use rebound_runtime::TransportFailure;
/// use rebound_runtime::{RetryInfo, RetrySafety};
///
/// assert_eq!(TransportFailure::Connect.retry_safety(), RetrySafety::Yes);
/// assert!(TransportFailure::ReadTimeout.is_timeout());
/// assert!(!TransportFailure::ConnectionClosed.is_timeout());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportFailure {
    /// Could not connect (refused, unreachable, DNS failure).
    Connect,
    /// Connecting took longer than the connect timeout.
    ConnectTimeout,
    /// The TLS handshake failed.
    Tls,
    /// The proxy could not be reached or refused the connection.
    Proxy,
    /// No response within the read timeout.
    ReadTimeout,
    /// The connection closed before the response was complete.
    ConnectionClosed,
    /// The response body stream failed part-way.
    ResponseStreaming,
    /// Any other failure of the HTTP client.
    Http,
}

impl RetryInfo for TransportFailure {
    #[inline]
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::Yes
    }

    #[inline]
    fn is_timeout(&self) -> bool {
        matches!(self, Self::ConnectTimeout | Self::ReadTimeout)
    }
}

/// No response means no side is known to be at fault.
impl ErrorInfo for TransportFailure {
    #[inline]
    fn fault(&self) -> ErrorFault {
        ErrorFault::Other
    }

    #[inline]
    fn transport_failure(&self) -> Option<TransportFailure> {
        Some(*self)
    }
}
