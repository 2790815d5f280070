//! `#[retry_info(transparent)]` forwards every answer of the wrapped error,
//! including which transport failure it is.

use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};
use rebound::{TransportFailure, classify::HttpErrorResponse};

#[derive(Debug, RetryInfo)]
enum CallError {
    #[retry_info(transparent)]
    Transport(TransportFailure),
    #[retry_info(transparent)]
    Response(HttpErrorResponse),
    #[error_fault(client)]
    Invalid,
}

#[test]
fn a_wrapped_transport_failure_is_still_one() {
    let err = CallError::Transport(TransportFailure::ReadTimeout);
    assert_eq!(err.transport_failure(), Some(TransportFailure::ReadTimeout));
    assert!(err.is_timeout());
    assert_eq!(err.retry_safety(), RetrySafety::Yes);
    assert_eq!(err.fault(), ErrorFault::Other);
}

#[test]
fn other_variants_are_no_transport_failure() {
    let response = CallError::Response(HttpErrorResponse::new(503).with_code("SlowDown"));
    assert_eq!(response.transport_failure(), None);
    assert_eq!(response.http_status(), Some(503));
    assert_eq!(response.error_code(), Some("SlowDown"));
    assert_eq!(CallError::Invalid.transport_failure(), None);
}

#[test]
fn legacy_botocore_judges_the_wrapper_like_the_failure_itself() {
    let strategy = rebound::legacy::LegacyRetryStrategy::botocore();
    for failure in [
        TransportFailure::Connect,
        TransportFailure::ConnectionClosed,
        TransportFailure::ResponseStreaming,
        TransportFailure::Http,
    ] {
        assert_eq!(
            strategy.classify(&CallError::Transport(failure)),
            strategy.classify(&failure),
            "{failure:?}"
        );
    }
}
