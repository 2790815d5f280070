//! [`ErrorFault`]: who caused a failure, the client or the server.

/// Which side is at fault for an error (Smithy's `@error("client" | "server")`).
///
/// A strategy that has no explicit [`RetrySafety`](crate::RetrySafety) for an
/// error may still use the fault: a server fault is often transient, a client
/// fault almost never is.
///
/// # Examples
///
/// ```
/// use rebound_runtime::ErrorFault;
///
/// assert_eq!(ErrorFault::from_http_status(404), ErrorFault::Client);
/// assert_eq!(ErrorFault::from_http_status(503), ErrorFault::Server);
/// assert_eq!(ErrorFault::from_http_status(302), ErrorFault::Other);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorFault {
    /// The client is at fault: it sent an invalid, unauthorized or excessive request.
    Client,
    /// The server is at fault: it failed to handle a valid request.
    Server,
    /// Neither side is known to be at fault (transport failures, unmodeled errors).
    Other,
}

impl ErrorFault {
    /// The fault an HTTP status implies: `4xx` is [`Client`](Self::Client),
    /// `5xx` is [`Server`](Self::Server), anything else [`Other`](Self::Other).
    #[must_use]
    pub const fn from_http_status(status: u16) -> Self {
        match status {
            400..=499 => Self::Client,
            500..=599 => Self::Server,
            _ => Self::Other,
        }
    }
}
