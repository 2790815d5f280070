//! [`OutageStrategy`]: the four client behaviours the outage experiment
//! compares, each a real rebound strategy.

use std::sync::Arc;
use std::time::Duration;

use rebound_runtime::backoff::{Backoff, SeededRandom};
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, NeverRetryStrategy, RetryStrategy, StandardRetryStrategy,
};

/// Attempts of the naive fixed retries, the first included.
pub const NAIVE_ATTEMPTS: u32 = 5;

/// The naive fixed retries' delay between attempts.
pub const NAIVE_DELAY: Duration = Duration::from_secs(1);

/// How a client retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutageStrategy {
    /// [`NeverRetryStrategy`]: one attempt per logical request.
    NoRetries,
    /// Naive fixed retries: [`NAIVE_ATTEMPTS`] attempts, [`NAIVE_DELAY`]
    /// apart, no jitter and no retry quota. Rebound has no preset for it; it
    /// is the [`StandardRetryStrategy`] builder with a
    /// [`Backoff::Constant`] for every failure and every retry cost set to
    /// 0, so the quota never refuses a retry.
    Naive,
    /// [`StandardRetryStrategy`] with its defaults (behaviour 2.0: 3
    /// attempts, full jitter from 1 s, a 500-token quota per client, a retry
    /// costs 5, a success refunds 1).
    Standard,
    /// [`AdaptiveRetryStrategy`] around those defaults, on the run's virtual
    /// clock, blocking for send tokens (its default): botocore's algorithm,
    /// AWS-exact.
    Adaptive,
    /// [`Adaptive`](Self::Adaptive) with rebound's recommended settings
    /// ([`AdaptiveRetryStrategyBuilder::steady`](rebound_runtime::AdaptiveRetryStrategyBuilder::steady)).
    Steady,
}

impl OutageStrategy {
    /// All of them, in table order.
    pub const ALL: [Self; 5] = [
        Self::NoRetries,
        Self::Naive,
        Self::Standard,
        Self::Adaptive,
        Self::Steady,
    ];

    /// The name in tables and CSV.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::NoRetries => "no retries",
            Self::Naive => "naive fixed",
            Self::Standard => "standard",
            Self::Adaptive => "adaptive (AWS-exact)",
            Self::Steady => "adaptive steady (recommended)",
        }
    }

    /// Whether the strategy has a client-side rate limiter (adaptive mode).
    #[must_use]
    pub fn has_limiter(self) -> bool {
        matches!(self, Self::Adaptive | Self::Steady)
    }

    /// One client's strategy: jitter from `seed`, time from `clock`.
    #[must_use]
    pub fn build(self, clock: ManualClock, seed: u64) -> Arc<dyn RetryStrategy> {
        let standard = || {
            StandardRetryStrategy::builder()
                .random(SeededRandom::new(seed))
                .build()
        };
        match self {
            Self::NoRetries => Arc::new(NeverRetryStrategy),
            Self::Naive => Arc::new(
                StandardRetryStrategy::builder()
                    .max_attempts(NAIVE_ATTEMPTS)
                    .backoff(Backoff::Constant(NAIVE_DELAY))
                    .throttling_backoff(Backoff::Constant(NAIVE_DELAY))
                    .retry_cost(0)
                    .timeout_cost(0)
                    .throttling_cost(0)
                    .build(),
            ),
            Self::Standard => Arc::new(standard()),
            Self::Adaptive => Arc::new(
                AdaptiveRetryStrategy::builder(standard())
                    .clock(clock)
                    .build(),
            ),
            Self::Steady => Arc::new(
                AdaptiveRetryStrategy::builder(standard())
                    .clock(clock)
                    .steady()
                    .build(),
            ),
        }
    }
}
