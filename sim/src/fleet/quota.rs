//! [`QuotaKind`]: where each process's retry quota keeps its tokens, and
//! the strategy every process runs on it.

use std::sync::Arc;

use rebound_runtime::backoff::SeededRandom;
use rebound_runtime::{RetryQuota, RetryStrategy, StandardRetryStrategy};

/// What a retry costs the quota in standard mode (behaviour 2.0's
/// `retry_cost`, also its `throttling_cost`): `capacity / RETRY_COST`
/// retries empty a full quota.
pub const RETRY_COST: u32 = 5;

/// How the processes' retry quotas are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuotaKind {
    /// Each process its own `RetryQuota::new(capacity)`, as today.
    PerProcess,
    /// One quota for the fleet: each process's `RetryQuota::with_store`
    /// draws from its [`Lease`](super::lease::Lease) of the shared
    /// [`Pool`](super::pool::Pool).
    Fleet,
}

impl QuotaKind {
    /// Both, in table order.
    pub const ALL: [Self; 2] = [Self::PerProcess, Self::Fleet];

    /// The name in tables and CSV.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::PerProcess => "per-process quotas",
            Self::Fleet => "fleet quota",
        }
    }
}

/// One process's strategy: rebound's [`StandardRetryStrategy`] with its
/// defaults (3 attempts, full jitter from 1 s, a retry costs 5, a success
/// refunds 1) drawing from `quota`, jitter from `seed`.
#[must_use]
pub fn standard(quota: Arc<RetryQuota>, seed: u64) -> Arc<dyn RetryStrategy> {
    Arc::new(
        StandardRetryStrategy::builder()
            .random(SeededRandom::new(seed))
            .quota(quota)
            .build(),
    )
}
