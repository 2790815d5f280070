//! The executor through the facade, as a user writes it: an error type that
//! derives `RetryInfo`, a standard strategy, `Retry::run`.

use std::cell::RefCell;
use std::time::Duration;

use rebound::StopReason;
use rebound::{Retry, RetryInfo, StandardRetryStrategy, TokenAcquisitionFailed};

#[derive(Debug, thiserror::Error, RetryInfo)]
enum GetItemError {
    #[error("throttled")]
    #[error_fault(client)]
    #[http_error(429)]
    #[retryable(throttling = true)]
    Throttled,
    #[error("not found")]
    #[error_fault(client)]
    #[http_error(404)]
    NotFound,
}

#[test]
fn a_derived_error_is_retried_until_success() {
    let strategy = StandardRetryStrategy::builder().random(|| 0.5).build();
    let slept = RefCell::new(Vec::new());
    let retry = Retry::new(&strategy).sleeper(|delay| slept.borrow_mut().push(delay));

    let item = retry.run(|attempt| {
        if attempt < 3 {
            Err(GetItemError::Throttled)
        } else {
            Ok("item")
        }
    });

    assert_eq!(item.unwrap(), "item");
    assert_eq!(
        slept.into_inner(),
        [Duration::from_millis(500), Duration::from_secs(1)]
    );
}

#[test]
fn a_client_error_is_returned_at_once_with_why() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(|_: Duration| unreachable!("no retry"));

    let err = retry
        .run(|_attempt| Err::<(), _>(GetItemError::NotFound))
        .unwrap_err();

    assert_eq!(err.attempts(), 1);
    assert!(matches!(err.last_error(), Some(GetItemError::NotFound)));
    assert_eq!(
        *err.reason(),
        StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
    );
    let report: Box<dyn std::error::Error> = err.into();
    assert_eq!(
        report.to_string(),
        "gave up after 1 attempt: the failure is not retryable; last error: \
         not found"
    );
    // The message shows the last error, so the chain does not repeat it.
    assert!(report.source().is_none());
}
