//! [`Counting`]: a standard strategy that counts how often it is asked what
//! the retry events report (a kind, a quota, a send rate), to show that the
//! events ask only when read, and how many tokens are handed back to it as
//! abandoned. Also included on its own (`#[path]`) by tests that need no
//! other helper of `common`, each using only part of it.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use rebound_runtime::{
    FailureInfo, RetryKind, RetryStrategy, RetryToken, StandardRetryStrategy,
    TokenAcquisitionFailed,
};

/// Standard mode, counting how often it is asked for a kind, a quota or a
/// send rate, and the tokens abandoned (clones share the counts).
#[derive(Debug, Clone)]
pub struct Counting {
    inner: StandardRetryStrategy,
    asked: Arc<AtomicU32>,
    abandoned: Arc<AtomicU32>,
}

impl Counting {
    pub fn new(inner: StandardRetryStrategy) -> Self {
        Self {
            inner,
            asked: Arc::default(),
            abandoned: Arc::default(),
        }
    }

    /// How many questions it was asked so far.
    pub fn asked(&self) -> u32 {
        self.asked.load(Ordering::Relaxed)
    }

    /// How many tokens were handed back as abandoned so far.
    pub fn abandoned(&self) -> u32 {
        self.abandoned.load(Ordering::Relaxed)
    }
}

impl RetryStrategy for Counting {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.inner.acquire_initial_token()
    }
    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.inner.refresh_retry_token(token, failure)
    }
    fn record_success(&self, token: RetryToken) {
        self.inner.record_success(token);
    }
    fn abandon(&self, token: RetryToken) {
        self.abandoned.fetch_add(1, Ordering::Relaxed);
        self.inner.abandon(token);
    }
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.inner.retry_kind(failure)
    }
    fn quota_left(&self) -> Option<u32> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.inner.quota_left()
    }
    fn send_rate(&self) -> Option<f64> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.inner.send_rate()
    }
}
