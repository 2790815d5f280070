//! Issue #8, defect 7: `#[retryable(false)]` means "never retry", even for a
//! server fault or a 5xx status that would otherwise leave the decision to
//! the strategy (`Maybe`, which the standard strategy retries).

use rebound::StopReason;
use rebound::{
    ErrorFault, ErrorInfo, Retry, RetryInfo, RetrySafety, StandardRetryStrategy,
    TokenAcquisitionFailed,
};

#[derive(Debug, RetryInfo)]
#[retryable]
#[error_fault(server)]
enum StorageError {
    Busy,
    #[retryable(false)]
    Corrupted,
    #[retryable(false)]
    #[http_error(503)]
    Unavailable,
}

#[derive(Debug, RetryInfo)]
#[retryable(false)]
#[http_error(500)]
struct Poisoned;

fn attempts_for<E: RetryInfo + ErrorInfo>(error: impl Fn() -> E) -> (u32, StopReason) {
    let strategy = StandardRetryStrategy::new();
    let err = Retry::new(&strategy)
        .sleeper(|_| {})
        .run(|_attempt| Err::<(), _>(error()))
        .unwrap_err();
    (err.attempts(), err.reason().clone())
}

#[test]
fn retryable_false_is_never_retried_whatever_the_fault_or_status() {
    assert_eq!(StorageError::Corrupted.retry_safety(), RetrySafety::No);
    assert_eq!(StorageError::Corrupted.fault(), ErrorFault::Server);
    assert_eq!(StorageError::Unavailable.retry_safety(), RetrySafety::No);
    assert_eq!(StorageError::Unavailable.http_status(), Some(503));
    assert_eq!(Poisoned.retry_safety(), RetrySafety::No);

    for (attempts, reason) in [
        attempts_for(|| StorageError::Corrupted),
        attempts_for(|| StorageError::Unavailable),
        attempts_for(|| Poisoned),
    ] {
        assert_eq!(attempts, 1);
        assert_eq!(
            reason,
            StopReason::Strategy(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
    }
    // The enum's default still applies to the other variants.
    assert_eq!(attempts_for(|| StorageError::Busy).0, 3);
}
