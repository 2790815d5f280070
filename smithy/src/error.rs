//! The errors of this crate: a request rebound stopped before an attempt,
//! and a client whose own retries are on.

use core::fmt;

use rebound_runtime::driver::Stopped;

/// The orchestrator's error when rebound allows no attempt: the budget ran
/// out before it, or a fail-fast rate limiter refused it. It is the source
/// of the [`SdkError`](aws_smithy_runtime_api::client::result::SdkError)
/// the operation returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryStopped(Stopped);

impl RetryStopped {
    pub(crate) const fn new(stopped: Stopped) -> Self {
        Self(stopped)
    }

    /// How the request stopped: the attempts made and why.
    #[must_use]
    pub const fn stopped(&self) -> &Stopped {
        &self.0
    }
}

impl fmt::Display for RetryStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rebound made no further attempt: {}", self.0)
    }
}

impl std::error::Error for RetryStopped {}

/// A client retries by itself beside rebound
/// ([`check_client_retries`](crate::check_client_retries)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientRetries {
    max_attempts: u32,
}

impl ClientRetries {
    pub(crate) const fn new(max_attempts: u32) -> Self {
        Self { max_attempts }
    }

    /// The attempts the client makes per call.
    #[must_use]
    pub const fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
}

impl fmt::Display for ClientRetries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the client retries by itself (up to {} attempts per call), so each of rebound's \
             attempts would be that many: build it with `RetryConfig::disabled()`",
            self.max_attempts
        )
    }
}

impl std::error::Error for ClientRetries {}
