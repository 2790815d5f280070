//! [`AdaptivePartitions`]: one retry quota and one rate limiter per
//! throttling scope, so that throttling on one resource does not slow down
//! requests to another.
//!
//! AWS throttles per resource (a DynamoDB table, an API, a region): a client
//! that shares one limiter across tables would slow every table down after
//! one of them throttles (the AWS SDK docs' warning about adaptive mode). Key
//! the partitions by whatever the service throttles on, for example
//! `(region, table)`.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use super::AdaptiveRetryStrategy;
use crate::executor::{Clock, SystemClock};
use crate::rate_limiter::RateLimiterPartitions;
use crate::{Partitions, RetryQuota};

/// Hands out an [`AdaptiveRetryStrategy`] per key: the same settings, each key
/// with its own [`RetryQuota`] and [`ClientRateLimiter`](crate::ClientRateLimiter),
/// created on first use. No process-wide state: keep one per client.
///
/// Looking a key up takes a lock; do it once per request (or cache the
/// strategy per resource), not per attempt.
///
/// # Examples
///
/// ```
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{AdaptivePartitions, AdaptiveRetryStrategy, RetryStrategy, StandardRetryStrategy};
///
/// let base = AdaptiveRetryStrategy::builder(StandardRetryStrategy::builder().build()?).build();
/// let tables = AdaptivePartitions::new(base, 500);
///
/// let orders = tables.strategy(&"orders");
/// let token = orders.acquire_initial_token()?;
/// let throttled = HttpErrorResponse::new(400).with_code("ProvisionedThroughputExceededException");
/// let _retry = orders.refresh_retry_token(token, &throttled)?;
///
/// // Only the "orders" limiter is on; "users" sends at full speed.
/// assert!(tables.strategy(&"orders").rate_limiter().is_enabled());
/// assert!(!tables.strategy(&"users").rate_limiter().is_enabled());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AdaptivePartitions<K, C = SystemClock> {
    base: AdaptiveRetryStrategy<C>,
    quotas: Partitions<K, RetryQuota>,
    limiters: RateLimiterPartitions<K>,
}

impl<K: Eq + Hash + Clone, C: Clock + Clone> AdaptivePartitions<K, C> {
    /// Partitions of `base`'s settings, each key with a full quota of
    /// `quota_capacity` tokens and a limiter in `base`'s acquire mode.
    #[must_use]
    pub fn new(base: AdaptiveRetryStrategy<C>, quota_capacity: u32) -> Self {
        let mode = base.rate_limiter().acquire_mode();
        Self {
            base,
            quotas: Partitions::retry_quotas(quota_capacity),
            limiters: RateLimiterPartitions::new(mode),
        }
    }

    /// The strategy for `key`: its own quota and limiter, created now if the
    /// key is new.
    #[must_use]
    pub fn strategy(&self, key: &K) -> AdaptiveRetryStrategy<C> {
        let quota: Arc<RetryQuota> = self.quotas.get(key);
        // Clone the key only to create a partition, not to find one.
        let limiter = self
            .limiters
            .get(key)
            .unwrap_or_else(|| self.limiters.get_or_create(key.clone(), self.base.now()));
        self.base.with_partition(quota, limiter)
    }

    /// How many keys have a partition.
    #[must_use]
    pub fn len(&self) -> usize {
        self.limiters.len()
    }

    /// Whether no key has been used yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.limiters.is_empty()
    }
}

impl<K, C: fmt::Debug> fmt::Debug for AdaptivePartitions<K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdaptivePartitions")
            .field("base", &self.base)
            .field("quotas", &self.quotas)
            .finish_non_exhaustive()
    }
}
