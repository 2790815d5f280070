//! The main demo: a realistic service error enum, annotated the way a Smithy
//! code generator would annotate it, and the classification the derive gives
//! each variant.
//!
//! Run it with `cargo run --example classify`.

use std::time::Duration;

use rebound::{ErrorInfo, RetryInfo};

/// Errors of Amazon SQS's `SendMessage`, plus what an SDK adds around them:
/// a throttling error with a retry-after hint, and transport failures.
#[derive(Debug, thiserror::Error, RetryInfo)]
#[error_fault(client)]
enum SendMessageError {
    #[error("the queue does not exist")]
    #[error_code("AWS.SimpleQueueService.NonExistentQueue")]
    QueueDoesNotExist,
    #[error("the message contains characters outside the allowed set")]
    InvalidMessageContents,
    #[error("the request was throttled")]
    #[http_error(429)]
    #[retryable(throttling = true)]
    RequestThrottled {
        /// From the `Retry-After` header, in seconds; -1 when absent.
        #[retry_after]
        retry_after_seconds: i32,
    },
    #[error("the KMS key is unavailable")]
    #[error_fault(server)]
    #[http_error(503)]
    #[retryable]
    KmsUnavailable,
    #[error("the service failed internally")]
    #[error_fault(server)]
    InternalError,
    #[error("the request timed out")]
    #[http_error(408)]
    #[retryable(timeout = true)]
    RequestTimeout {
        #[retry_after]
        backoff: Option<Duration>,
    },
    #[error("transport: {0}")]
    #[retry_info(transparent)]
    Transport(#[from] std::io::Error),
}

fn main() {
    let errors = [
        SendMessageError::QueueDoesNotExist,
        SendMessageError::InvalidMessageContents,
        SendMessageError::RequestThrottled {
            retry_after_seconds: 2,
        },
        SendMessageError::RequestThrottled {
            retry_after_seconds: -1,
        },
        SendMessageError::KmsUnavailable,
        SendMessageError::InternalError,
        SendMessageError::RequestTimeout {
            backoff: Some(Duration::from_millis(500)),
        },
        std::io::Error::from(std::io::ErrorKind::ConnectionReset).into(),
        std::io::Error::from(std::io::ErrorKind::TimedOut).into(),
        std::io::Error::from(std::io::ErrorKind::PermissionDenied).into(),
    ];

    println!(
        "{:<58} {:<6} {:<8} {:<7} {:<6} {:<6} {:<8} code",
        "error", "retry", "throttle", "timeout", "fault", "status", "after"
    );
    for error in &errors {
        let status = error
            .http_status()
            .map_or("-".to_owned(), |s| s.to_string());
        let after = error
            .retry_after()
            .map_or("-".to_owned(), |d| format!("{d:?}"));
        println!(
            "{:<58} {:<6} {:<8} {:<7} {:<6} {:<6} {:<8} {}",
            error.to_string(),
            format!("{:?}", error.retry_safety()),
            error.is_throttle(),
            error.is_timeout(),
            format!("{:?}", error.fault()),
            status,
            after,
            error.error_code().unwrap_or("-"),
        );
    }
}
