//! What happens when a send token is not available: wait, or fail fast.
//!
//! The AWS SDKs docs (seed 000): "The SDK client is configurable to either
//! fast fail the request or block until a token becomes available." Both
//! choices start from the same fact — the wait until the next token — which
//! [`RateLimited`] carries.

use std::time::Duration;

/// What an adaptive strategy does when the rate limiter has no send token
/// for an attempt: wait for one, or refuse the attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum WaitPolicy {
    /// Sleep until a token is available (the reference's behaviour).
    #[default]
    Block,
    /// Refuse the attempt at once
    /// ([`TokenAcquisitionFailed::RateLimited`](crate::TokenAcquisitionFailed::RateLimited)),
    /// with the wait that blocking would take.
    FailFast,
}

/// No send token is available yet: the client-side rate limiter asks the
/// caller to hold this request back.
///
/// Blocking callers sleep [`wait`](Self::wait) and ask again; fail-fast
/// callers report it.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("client-side rate limit: no send token available for another {:?}", self.wait())]
pub struct RateLimited {
    wait_secs: f64,
    /// The (finite) time the wait was computed at, so a blocking loop knows
    /// where to count the wait from even if the caller's clock read NaN.
    at: f64,
}

impl RateLimited {
    pub(crate) fn new(wait_secs: f64, at: f64) -> Self {
        Self { wait_secs, at }
    }

    /// The time the wait counts from (seconds on the limiter's clock).
    pub(crate) fn at(&self) -> f64 {
        self.at
    }

    /// How long until a send token is available, at the current fill rate.
    pub fn wait(&self) -> Duration {
        Duration::try_from_secs_f64(self.wait_secs).unwrap_or(Duration::MAX)
    }

    /// The same wait in float seconds, exactly as the limiter computed it
    /// (advance a virtual clock by this to replay the reference bit for bit).
    pub fn wait_secs(&self) -> f64 {
        self.wait_secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_converts_without_panicking() {
        assert_eq!(
            RateLimited::new(1.5, 0.0).wait(),
            Duration::from_millis(1500)
        );
        assert_eq!(RateLimited::new(f64::INFINITY, 0.0).wait(), Duration::MAX);
        assert!(RateLimited::new(0.25, 0.0).to_string().contains("250ms"));
    }
}
