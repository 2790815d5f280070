//! [`Partitions`]: one piece of shared retry state per key (endpoint, region +
//! table, ...), without process-wide statics.
//!
//! A retry quota shared by every endpoint of a client lets one failing
//! endpoint stop retries to the healthy ones; the AWS docs recommend one
//! client (and so one quota or rate limiter) per throttling scope. A
//! `Partitions` map hands out one `Arc` per key, created on first use, and the
//! caller passes it to the strategy for that scope (for example
//! [`StandardRetryStrategy::with_quota`](crate::StandardRetryStrategy::with_quota)),
//! or the value is the strategy itself:
//! [`AdaptiveRetryStrategy::partitions`](crate::AdaptiveRetryStrategy::partitions)
//! keeps each scope's quota and rate limiter together, behind one lookup.
//! The map itself is an ordinary value: own it, share it with `Arc`, drop it.
//!
//! Looking a key up takes a lock, so do it when a client or a scope is set up,
//! not on every request; the `Arc` it returns is then used lock-free. The
//! state of a new key is built outside the lock (see [`Partitions::get`]).

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use crate::RetryQuota;

/// A map from a partition key to shared state, created on first use.
///
/// # Examples
///
/// One retry quota per endpoint:
///
/// ```
/// use std::sync::Arc;
/// use rebound_runtime::{Partitions, RetryQuota};
///
/// let quotas = Partitions::retry_quotas(RetryQuota::DEFAULT_CAPACITY);
/// let east = quotas.get("dynamodb.us-east-1");
/// let west = quotas.get("dynamodb.us-west-2");
///
/// east.try_acquire(500).unwrap();
/// assert_eq!(east.available(), 0);
/// assert_eq!(west.available(), 500); // another partition is untouched
/// assert!(Arc::ptr_eq(&east, &quotas.get("dynamodb.us-east-1")));
/// assert_eq!(quotas.len(), 2);
/// ```
pub struct Partitions<K, V> {
    make: Box<dyn Fn(&K) -> V + Send + Sync>,
    entries: Mutex<HashMap<K, Arc<V>>>,
}

impl<K: Eq + Hash, V> Partitions<K, V> {
    /// An empty map that creates the state of a new key with `make`.
    pub fn new(make: impl Fn(&K) -> V + Send + Sync + 'static) -> Self {
        Self {
            make: Box::new(make),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The state of `key`, created on first use.
    ///
    /// `make` runs *outside* the map's lock: a slow `make` holds up no other
    /// lookup, and a `make` that looks up another key of the same map (or
    /// this one) does not deadlock. When two threads create the same new key
    /// at once, both run `make`, the first to finish is kept and returned to
    /// both, and the other value is dropped: keep `make` free of side
    /// effects that must happen once.
    pub fn get<Q>(&self, key: &Q) -> Arc<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(value) = self.lock().get(key) {
            return Arc::clone(value);
        }
        let key = key.to_owned();
        let made = Arc::new((self.make)(&key));
        Arc::clone(self.lock().entry(key).or_insert(made))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Arc<V>>> {
        // No map operation can panic half-way, so a poisoned map is intact.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets `key`'s state, returning it. Holders of its `Arc` keep using
    /// it; the next [`get`](Self::get) creates a new one.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::Partitions;
    ///
    /// let quotas = Partitions::<String, _>::retry_quotas(500);
    /// quotas.get("a").try_acquire(5).unwrap();
    /// assert!(quotas.remove("a").is_some());
    /// assert_eq!(quotas.get("a").available(), 500); // a fresh quota
    /// ```
    pub fn remove<Q>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().remove(key)
    }

    /// How many partitions exist.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no partition exists yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Eq + Hash> Partitions<K, RetryQuota> {
    /// One full [`RetryQuota`] of `capacity` tokens per key.
    pub fn retry_quotas(capacity: u32) -> Self {
        Self::new(move |_| RetryQuota::new(capacity))
    }
}

impl<K, V> fmt::Debug for Partitions<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let len = self.entries.lock().map_or(0, |entries| entries.len());
        f.debug_struct("Partitions")
            .field("len", &len)
            .finish_non_exhaustive()
    }
}
