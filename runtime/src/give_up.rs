//! The give-up gates every retrying strategy applies to a failure, in this
//! order, before any backoff or quota: not retryable, attempts exhausted, a
//! retry-after hint above the ceiling. Standard and legacy modes (and adaptive
//! through standard) share them, so their refusals read the same.

use core::time::Duration;

use crate::TokenAcquisitionFailed;

/// Whether attempt `attempts` (1-based, the one that failed) may be
/// retried: `retryable` is the classifier's verdict, `max_attempts` counts
/// the first attempt, and `refused_hint` says — only when asked, after the
/// first two gates passed — whether the failure's retry-after hint is above
/// the ceiling, as `(requested, ceiling)`.
pub(crate) fn check(
    attempts: u32,
    retryable: bool,
    max_attempts: u32,
    refused_hint: impl FnOnce() -> Option<(Duration, Duration)>,
) -> Result<(), TokenAcquisitionFailed> {
    if !retryable {
        return Err(TokenAcquisitionFailed::NotRetryable { attempts });
    }
    if attempts >= max_attempts {
        return Err(TokenAcquisitionFailed::AttemptsExhausted {
            attempts,
            max_attempts,
        });
    }
    if let Some((requested, ceiling)) = refused_hint() {
        return Err(TokenAcquisitionFailed::RetryAfterTooLong {
            attempts,
            requested,
            ceiling,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_apply_in_order() {
        let hint = || Some((Duration::from_secs(9), Duration::from_secs(5)));
        assert_eq!(
            check(1, false, 1, hint),
            Err(TokenAcquisitionFailed::NotRetryable { attempts: 1 })
        );
        assert_eq!(
            check(3, true, 3, hint),
            Err(TokenAcquisitionFailed::AttemptsExhausted {
                attempts: 3,
                max_attempts: 3
            })
        );
        assert_eq!(
            check(1, true, 3, hint),
            Err(TokenAcquisitionFailed::RetryAfterTooLong {
                attempts: 1,
                requested: Duration::from_secs(9),
                ceiling: Duration::from_secs(5)
            })
        );
        assert_eq!(check(1, true, 3, || None), Ok(()));
        // The hint is only looked at once the first two gates pass.
        assert!(check(3, true, 3, || unreachable!()).is_err());
    }
}
