//! `reqwest::Error` in the vocabulary: which transport failure it is, and so
//! whether it is retried.

use std::error::Error as _;

use crate::vocabulary::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety, TransportFailure};

/// Which transport failure `error` is; `None` for the errors that are not
/// one (a status from `error_for_status`, a redirect loop).
fn transport_failure(error: &::reqwest::Error) -> Option<TransportFailure> {
    if error.is_builder() {
        return Some(TransportFailure::InvalidRequest);
    }
    if error.is_status() || error.is_redirect() {
        return None;
    }
    Some(if error.is_connect() {
        if error.is_timeout() {
            TransportFailure::ConnectTimeout
        } else {
            TransportFailure::Connect
        }
    } else if error.is_timeout() {
        TransportFailure::ReadTimeout
    } else if error.is_body() || error.is_decode() {
        TransportFailure::ResponseStreaming
    } else if connection_cut(error) {
        TransportFailure::ConnectionClosed
    } else {
        TransportFailure::Http
    })
}

/// Whether an error underneath says the connection was reset, aborted or
/// closed before the response was complete: hyper's "incomplete message" /
/// "closed" / "canceled", or such an I/O error.
fn connection_cut(error: &::reqwest::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<::hyper::Error>()
            && (hyper.is_incomplete_message() || hyper.is_closed() || hyper.is_canceled())
        {
            return true;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// See the [module](crate::reqwest) for the table.
impl RetryInfo for ::reqwest::Error {
    fn retry_safety(&self) -> RetrySafety {
        match transport_failure(self) {
            Some(failure) => failure.retry_safety(),
            None if self.is_redirect() => RetrySafety::No,
            None => RetrySafety::Maybe,
        }
    }

    fn is_timeout(&self) -> bool {
        transport_failure(self).is_some_and(|failure| failure.is_timeout())
    }
}

/// A transport failure's fault, or the status's (4xx client, 5xx server).
impl ErrorInfo for ::reqwest::Error {
    fn fault(&self) -> ErrorFault {
        match (transport_failure(self), self.status()) {
            (Some(failure), _) => failure.fault(),
            (None, Some(status)) => ErrorFault::from_http_status(status.as_u16()),
            (None, None) => ErrorFault::Other,
        }
    }

    fn http_status(&self) -> Option<u16> {
        self.status().map(|status| status.as_u16())
    }

    fn transport_failure(&self) -> Option<TransportFailure> {
        transport_failure(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_that_cannot_be_built_is_never_retried() {
        let error = ::reqwest::Client::new()
            .get("not a url")
            .build()
            .expect_err("a bad URL");
        assert!(error.is_builder());
        assert_eq!(
            error.transport_failure(),
            Some(TransportFailure::InvalidRequest)
        );
        assert_eq!(error.retry_safety(), RetrySafety::No);
        assert_eq!(error.fault(), ErrorFault::Client);
    }

    #[test]
    fn a_status_error_keeps_its_status() {
        let response = ::http::Response::builder().status(503).body("").unwrap();
        let error = ::reqwest::Response::from(response)
            .error_for_status()
            .expect_err("a 503");
        assert_eq!(error.transport_failure(), None);
        assert_eq!(error.retry_safety(), RetrySafety::Maybe);
        assert_eq!(error.http_status(), Some(503));
        assert_eq!(error.fault(), ErrorFault::Server);
    }
}
