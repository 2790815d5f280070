#![deny(warnings)]

use rebound::{ErrorInfo, RetryInfo, RetrySafety};

#[derive(Debug, thiserror::Error, RetryInfo)]
#[error_fault(client)]
enum Error {
    #[error("invalid parameter {name}")]
    InvalidParameter { name: String },
    #[error("throttled")]
    #[retryable(throttling = true)]
    #[http_error(429)]
    Throttled,
    #[error(transparent)]
    #[retry_info(transparent)]
    Io(#[from] std::io::Error),
}

fn main() {
    let err = Error::InvalidParameter { name: "x".into() };
    assert_eq!(err.to_string(), "invalid parameter x");
    assert_eq!(err.retry_safety(), RetrySafety::No);
    assert_eq!(Error::Throttled.http_status(), Some(429));
    let boxed: Box<dyn std::error::Error> = Box::new(Error::Throttled);
    assert_eq!(boxed.to_string(), "throttled");
    let io: Error = std::io::Error::from(std::io::ErrorKind::ConnectionRefused).into();
    assert_eq!(io.retry_safety(), RetrySafety::Yes);
}
