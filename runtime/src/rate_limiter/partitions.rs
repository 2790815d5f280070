//! One rate limiter per throttling scope.
//!
//! Adaptive mode assumes a limiter per resource the service throttles
//! separately (the AWS docs: DynamoDB throttles per region and table; a single
//! limiter would let throttles on one table slow down all the others). This
//! map hands out a shared limiter per key, created on first use, without any
//! process-wide state: whoever owns the map decides its scope.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::acquire::AcquireMode;
use super::client::ClientRateLimiter;

/// Shared [`ClientRateLimiter`]s keyed by throttling scope, created on first
/// use.
///
/// Look-ups lock the map briefly; callers that send many requests to one
/// scope should keep the returned `Arc` rather than look it up each time.
///
/// ```
/// use rebound_runtime::rate_limiter::{AcquireMode, RateLimiterPartitions};
///
/// let limiters = RateLimiterPartitions::new(AcquireMode::Block);
/// let orders = limiters.get_or_create(("eu-west-1", "orders"), 0.0);
/// let users = limiters.get_or_create(("eu-west-1", "users"), 0.0);
/// orders.on_response(0.5, true);
/// assert!(orders.is_enabled());
/// assert!(!users.is_enabled()); // throttles on one table leave the other alone
/// assert!(std::sync::Arc::ptr_eq(&orders, &limiters.get_or_create(("eu-west-1", "orders"), 9.0)));
/// ```
pub struct RateLimiterPartitions<K> {
    mode: AcquireMode,
    limiters: Mutex<HashMap<K, Arc<ClientRateLimiter>>>,
}

impl<K: Eq + Hash> RateLimiterPartitions<K> {
    /// An empty map whose limiters use `mode` when short of tokens.
    pub fn new(mode: AcquireMode) -> Self {
        Self {
            mode,
            limiters: Mutex::new(HashMap::new()),
        }
    }

    /// The limiter for `key`, created at `now` if there is none yet.
    pub fn get_or_create(&self, key: K, now: f64) -> Arc<ClientRateLimiter> {
        let mode = self.mode;
        Arc::clone(
            self.lock()
                .entry(key)
                .or_insert_with(|| Arc::new(ClientRateLimiter::new(now).with_acquire_mode(mode))),
        )
    }

    /// The limiter for `key`, if one was created.
    pub fn get<Q>(&self, key: &Q) -> Option<Arc<ClientRateLimiter>>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().get(key).cloned()
    }

    /// Forgets the limiter for `key` (holders of its `Arc` keep using it).
    pub fn remove<Q>(&self, key: &Q) -> Option<Arc<ClientRateLimiter>>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().remove(key)
    }

    /// How many partitions have a limiter.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no limiter was created yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<K, Arc<ClientRateLimiter>>> {
        // Map operations cannot leave the map inconsistent, even on panic.
        self.limiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K: Eq + Hash> Default for RateLimiterPartitions<K> {
    fn default() -> Self {
        Self::new(AcquireMode::default())
    }
}

impl<K> fmt::Debug for RateLimiterPartitions<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let partitions = self
            .limiters
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("RateLimiterPartitions")
            .field("mode", &self.mode)
            .field("partitions", &partitions)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_independent_and_removable() {
        let limiters = RateLimiterPartitions::<String>::default();
        assert!(limiters.is_empty());
        let a = limiters.get_or_create("a".to_owned(), 0.0);
        limiters.get_or_create("b".to_owned(), 0.0);
        assert_eq!(limiters.len(), 2);
        a.on_response(1.0, true);
        assert!(limiters.get("a").is_some_and(|l| l.is_enabled()));
        assert!(limiters.get("b").is_some_and(|l| !l.is_enabled()));
        assert!(limiters.remove("a").is_some());
        assert!(limiters.get("a").is_none());
        assert!(a.is_enabled());
    }
}
