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
//!
//! The map is bounded: keys often come from requests (a table, a host name),
//! and a partition of adaptive mode costs about 7.2 KB, so a map that kept
//! every key would grow without limit under traffic with ever new keys. It
//! keeps at most [`Partitions::DEFAULT_MAX_PARTITIONS`] keys (or
//! [`with_max_partitions`](Partitions::with_max_partitions)) and, when full,
//! drops the least recently used partition that no one else holds to make
//! room (see [`Partitions::get`]).

use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use lru::LruCache;

use crate::quota::RetryQuota;

/// A map from a partition key to shared state, created on first use, that
/// keeps at most [`max_partitions`](Self::max_partitions) keys.
///
/// # Eviction
///
/// When a new key comes and the map is full, the least recently used entry
/// ([`get`](Self::get) counts as a use) is dropped from the map. An entry
/// whose `Arc` is still held outside the map is passed over if any other can
/// go: it counts as just used. Dropping an entry is safe:
///
/// - holders of its `Arc` keep using it, undisturbed;
/// - the next [`get`](Self::get) of its key creates a fresh one, as for a new
///   key: an evicted retry quota comes back full, an evicted adaptive rate
///   limiter comes back off (until its next throttle) with no measured rate.
///   While an old holder still uses the evicted value, the key has two
///   values, each with its own state.
///
/// So keep the limit above the number of keys in use at once: a key that
/// was evicted forgets that its service throttled. The default,
/// [`DEFAULT_MAX_PARTITIONS`](Self::DEFAULT_MAX_PARTITIONS), bounds a map
/// of adaptive partitions to about 7.5 MB.
///
/// Finding an entry, inserting one and evicting an unheld one take constant
/// time; held entries passed over add one step each.
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
    max: usize,
    /// Unbounded as far as the cache knows: `get` makes room itself, so that
    /// it can pass over held entries.
    entries: Mutex<LruCache<K, Arc<V>>>,
}

impl<K, V> Partitions<K, V> {
    /// How many keys a map keeps unless told otherwise: 1024.
    ///
    /// An adaptive partition ([`AdaptiveRetryStrategy::partitions`](crate::AdaptiveRetryStrategy::partitions))
    /// takes about 7.2 KB (7.19 GB were measured for a million keys), so a
    /// full map of them takes about 1024 × 7.2 KB ≈ 7.5 MB; a map of retry
    /// quotas, a small fraction of that (a quota is a few words). 1024 is far more throttling scopes (tables,
    /// endpoints) than one client talks to at once, and small enough that
    /// keys chosen by whoever sends the requests cannot exhaust memory.
    pub const DEFAULT_MAX_PARTITIONS: usize = 1024;
}

impl<K: Eq + Hash, V> Partitions<K, V> {
    /// An empty map that creates the state of a new key with `make`, keeping
    /// at most [`DEFAULT_MAX_PARTITIONS`](Self::DEFAULT_MAX_PARTITIONS) keys.
    pub fn new(make: impl Fn(&K) -> V + Send + Sync + 'static) -> Self {
        Self {
            make: Box::new(make),
            max: Self::DEFAULT_MAX_PARTITIONS,
            entries: Mutex::new(LruCache::unbounded()),
        }
    }

    /// The same map, keeping at most `max` keys (evicting down to it at
    /// once if it holds more); 0 is taken as 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::Partitions;
    ///
    /// let quotas = Partitions::<String, _>::retry_quotas(500).with_max_partitions(2);
    /// let a = quotas.get("a");
    /// quotas.get("b");
    /// quotas.get("c"); // full: "b", the least recently used that no one holds, goes
    /// assert_eq!(quotas.len(), 2);
    /// assert_eq!(quotas.max_partitions(), 2);
    ///
    /// a.try_acquire(5).unwrap();
    /// assert_eq!(quotas.get("a").available(), 495); // "a" is still there
    /// ```
    #[must_use]
    pub fn with_max_partitions(mut self, max: usize) -> Self {
        let max = max.max(1);
        self.max = max;
        let entries = self
            .entries
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        while entries.len() > max {
            evict(entries);
        }
        self
    }

    /// The most keys the map keeps.
    #[must_use]
    pub fn max_partitions(&self) -> usize {
        self.max
    }

    /// The state of `key`, created on first use.
    ///
    /// `make` runs *outside* the map's lock: a slow `make` holds up no other
    /// lookup, and a `make` that looks up another key of the same map (or
    /// this one) does not deadlock. When two threads create the same new key
    /// at once, both run `make`, the first to finish is kept and returned to
    /// both, and the other value is dropped: keep `make` free of side
    /// effects that must happen once.
    ///
    /// A new key in a full map evicts another first (see
    /// [Eviction](Self#eviction)).
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
        let mut entries = self.lock();
        if let Some(value) = entries.get::<K>(&key) {
            return Arc::clone(value);
        }
        let evicted = if entries.len() >= self.max {
            evict(&mut entries)
        } else {
            None
        };
        entries.push(key, Arc::clone(&made));
        // The evicted value is dropped after the lock is let go, like `make`
        // runs before it is taken.
        drop(entries);
        drop(evicted);
        made
    }

    fn lock(&self) -> MutexGuard<'_, LruCache<K, Arc<V>>> {
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
        self.lock().pop(key)
    }

    /// How many partitions the map holds (at most
    /// [`max_partitions`](Self::max_partitions)).
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

impl<K: Eq + Hash, V> fmt::Debug for Partitions<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partitions")
            .field("len", &self.len())
            .field("max_partitions", &self.max)
            .finish_non_exhaustive()
    }
}

/// Removes the least recently used entry that no one holds outside the map,
/// or, if every entry is held, the least recently used; returns its value.
///
/// Each held entry passed over moves to the most recently used end. The
/// count cannot rise meanwhile: the map's `Arc`s are cloned only under its
/// lock, which the caller holds.
fn evict<K: Eq + Hash, V>(entries: &mut LruCache<K, Arc<V>>) -> Option<Arc<V>> {
    for _ in 0..entries.len() {
        let (key, value) = entries.pop_lru()?;
        if Arc::strong_count(&value) == 1 {
            return Some(value);
        }
        entries.push(key, value);
    }
    // Every entry was held and has gone round once: the least recently used
    // is at the end again.
    entries.pop_lru().map(|(_, value)| value)
}
