//! The errors of this crate: a request rebound stopped before an attempt,
//! and a client whose own retries are on.

use core::fmt;
use std::error::Error;

use rebound_runtime::StopReason;

/// rebound allowed no further attempt, and no attempt's failure is there to
/// return: the budget ran out before the attempt, or a fail-fast rate
/// limiter refused it.
///
/// Both routes return it inside the client's own `SdkError`, as its source
/// or deeper: [`send`](crate::send) as a construction failure (the request
/// was never sent), [`RetryPlugin`](crate::RetryPlugin) as the dispatch
/// failure the orchestrator makes of a retry strategy's refusal.
/// [`RetryStopped::find`] finds it in either, and
/// [`classify`](crate::classify) calls it not retryable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryStopped {
    attempts: u32,
    reason: StopReason,
}

impl RetryStopped {
    pub(crate) const fn new(attempts: u32, reason: StopReason) -> Self {
        Self { attempts, reason }
    }

    /// The `RetryStopped` in `error` or among its sources, if rebound
    /// stopped the request before an attempt.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn example(client: aws_sdk_dynamodb::Client) {
    /// use rebound_runtime::{Retry, StandardRetryStrategy};
    /// use rebound_smithy::RetryStopped;
    ///
    /// let retry = Retry::new(StandardRetryStrategy::new());
    /// if let Err(error) = rebound_smithy::send(&retry, || client.list_tables().send()).await {
    ///     match RetryStopped::find(&error) {
    ///         Some(stopped) => eprintln!("not sent after {} attempts: {}", stopped.attempts(), stopped.reason()),
    ///         None => eprintln!("the service or the connection failed: {error}"),
    ///     }
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn find<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a Self> {
        std::iter::successors(Some(error), |&error| error.source())
            .find_map(|error| error.downcast_ref::<Self>())
    }

    /// How many attempts were made (0 when the first one was not).
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Why no further attempt was made.
    #[must_use]
    pub const fn reason(&self) -> &StopReason {
        &self.reason
    }
}

impl fmt::Display for RetryStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rebound made no further attempt after {} attempts: {}",
            self.attempts, self.reason
        )
    }
}

impl Error for RetryStopped {}

/// A client retries by itself beside rebound
/// ([`check_client_retries`](crate::check_client_retries),
/// [`ClientRetriesGuard`](crate::ClientRetriesGuard)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientRetries {
    max_attempts: Option<u32>,
}

impl ClientRetries {
    pub(crate) const fn new(max_attempts: Option<u32>) -> Self {
        Self { max_attempts }
    }

    /// The attempts the client makes per call; `None` when its retry
    /// configuration is not set, so that its behaviour version decides
    /// (3 attempts from `BehaviorVersion::v2026_01_12()` on).
    #[must_use]
    pub const fn max_attempts(&self) -> Option<u32> {
        self.max_attempts
    }
}

impl fmt::Display for ClientRetries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max_attempts {
            Some(max_attempts) => write!(
                f,
                "the client retries by itself (up to {max_attempts} attempts per call)"
            )?,
            None => f.write_str(
                "the client's retry configuration is not set, and from behaviour version \
                 2026-01-12 on an AWS SDK client then retries by itself (3 attempts per call)",
            )?,
        }
        f.write_str(
            ", so each of rebound's attempts would be several: \
             build it with `retry_config(RetryConfig::disabled())`",
        )
    }
}

impl Error for ClientRetries {}
