//! [`TransportFailure`]: a failure with no response, in the HTTP client.

use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// A request that got no (complete) HTTP response. All of these but one are
/// transient in the AWS SDKs ([`RetrySafety::Yes`]); the two timeouts also
/// report [`is_timeout`](RetryInfo::is_timeout), which costs more retry quota
/// in behaviour 2.0. The exception is [`InvalidRequest`](Self::InvalidRequest):
/// the HTTP client refused to send the request at all, so sending it again
/// cannot help ([`RetrySafety::No`], the client's fault).
///
/// The retryable variants follow botocore's transport exceptions.
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
/// // A request the client could not build (a bad URL, say) is never retried.
/// assert_eq!(TransportFailure::InvalidRequest.retry_safety(), RetrySafety::No);
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
    /// The HTTP client could not build or send the request (an invalid URL,
    /// a header value it cannot encode, a body it cannot send): nothing
    /// reached the service, and nothing would on a retry. Never retried.
    InvalidRequest,
}

impl RetryInfo for TransportFailure {
    #[inline]
    fn retry_safety(&self) -> RetrySafety {
        match self {
            Self::InvalidRequest => RetrySafety::No,
            _ => RetrySafety::Yes,
        }
    }

    #[inline]
    fn is_timeout(&self) -> bool {
        matches!(self, Self::ConnectTimeout | Self::ReadTimeout)
    }
}

/// No response means no side is known to be at fault, except for a request
/// the client could not send: that is the client's.
impl ErrorInfo for TransportFailure {
    #[inline]
    fn fault(&self) -> ErrorFault {
        match self {
            Self::InvalidRequest => ErrorFault::Client,
            _ => ErrorFault::Other,
        }
    }

    #[inline]
    fn transport_failure(&self) -> Option<TransportFailure> {
        Some(*self)
    }
}
