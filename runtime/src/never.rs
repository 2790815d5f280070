//! [`NeverRetryStrategy`]: one attempt, never a retry.

use crate::refusal::TokenAcquisitionFailed;
use crate::strategy::{RetryKind, RetryStrategy};
use crate::token::RetryToken;
use crate::vocabulary::FailureInfo;

/// A strategy that makes exactly one attempt: every failure ends the
/// request. For calls that must not be repeated (a non-idempotent write
/// without an idempotency token), and for tests that want the executor's
/// behaviour without retries.
///
/// It holds no state, takes no quota and never waits; a refusal is
/// [`TokenAcquisitionFailed::AttemptsExhausted`] with `max_attempts` 1.
/// Having no account to keep, it accepts any strategy's token.
///
/// # Examples
///
/// ```
/// use rebound_runtime::{NeverRetryStrategy, Retry};
///
/// let retry = Retry::new(NeverRetryStrategy);
/// let mut calls = 0;
/// let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
/// let err = retry.run(|_attempt| { calls += 1; Err::<(), _>(reset()) }).unwrap_err();
/// assert_eq!(calls, 1);
/// assert_eq!(err.attempts(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NeverRetryStrategy;

impl RetryStrategy for NeverRetryStrategy {
    #[inline]
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Ok(RetryToken::unaccounted())
    }

    #[inline]
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        let _ = failure;
        Err(TokenAcquisitionFailed::AttemptsExhausted {
            attempts: token.attempt(),
            max_attempts: 1,
        })
    }

    #[inline]
    fn record_success(&self, token: RetryToken) {
        let _ = token;
    }

    /// One attempt: the first.
    #[inline]
    fn attempt_limit(&self) -> Option<u32> {
        Some(1)
    }

    /// Never asked by an executor (there is no retry); reads the failure's
    /// own flags, as the default does.
    #[inline]
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        RetryKind::from_flags(failure.is_throttle(), failure.is_timeout())
    }

    /// `None`: no quota.
    #[inline]
    fn quota_left(&self) -> Option<u32> {
        None
    }

    /// `None`: no rate limiter.
    #[inline]
    fn send_rate(&self) -> Option<f64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::HttpErrorResponse;
    use crate::strategy::SendPermit;

    #[test]
    fn every_failure_ends_the_request() {
        let strategy = NeverRetryStrategy;
        for failure in [
            HttpErrorResponse::new(503),
            HttpErrorResponse::new(429).with_code("Throttling"),
        ] {
            let mut token = strategy.acquire_initial_token().expect("a token");
            assert_eq!(token.attempt(), 1);
            assert_eq!(
                strategy.acquire_send_permit(&mut token),
                Ok(SendPermit::Granted)
            );
            assert_eq!(
                strategy.refresh_retry_token(token, &failure),
                Err(TokenAcquisitionFailed::AttemptsExhausted {
                    attempts: 1,
                    max_attempts: 1
                })
            );
        }
    }
}
