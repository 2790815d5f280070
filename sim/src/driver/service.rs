//! [`Service`]: what a simulated service answers to an attempt, and
//! [`Answer`]: the answers, as the failures rebound's classifiers read.

use rebound_runtime::classify::HttpErrorResponse;

/// A simulated service: answers each attempt reaching it.
pub trait Service {
    /// The answer to attempt `attempt` (1 for a request's first) for
    /// `table` reaching the service at `now` (seconds).
    fn answer(&mut self, now: f64, table: usize, attempt: u32) -> Answer;
}

/// A service's answer to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Served.
    Success,
    /// HTTP 503 without an error code: the service is down. A transient
    /// server fault for every AWS mode, not a throttle.
    Unavailable,
    /// HTTP 503 `SlowDown`: the service sheds load (as S3 does). A
    /// throttling error code for the AWS modes, so adaptive mode slows down.
    SlowDown,
    /// HTTP 429 `ThrottlingException`: over the provisioned rate.
    Throttled,
}

impl Answer {
    /// The failure the client sees, as rebound's AWS classifier reads it;
    /// `None` for a success.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{RetryKind, RetryStrategy, StandardRetryStrategy};
    /// use rebound_sim::driver::Answer;
    ///
    /// let standard = StandardRetryStrategy::new();
    /// let kind = |answer: Answer| standard.retry_kind(&answer.failure().unwrap());
    /// assert_eq!(kind(Answer::Unavailable), RetryKind::Transient);
    /// assert_eq!(kind(Answer::SlowDown), RetryKind::Throttle);
    /// assert_eq!(kind(Answer::Throttled), RetryKind::Throttle);
    /// assert!(Answer::Success.failure().is_none());
    /// ```
    #[must_use]
    pub fn failure(self) -> Option<HttpErrorResponse> {
        match self {
            Self::Success => None,
            Self::Unavailable => Some(HttpErrorResponse::new(503)),
            Self::SlowDown => Some(HttpErrorResponse::new(503).with_code("SlowDown")),
            Self::Throttled => Some(HttpErrorResponse::new(429).with_code("ThrottlingException")),
        }
    }
}
