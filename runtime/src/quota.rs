//! [`RetryQuota`]: the token bucket that stops retries when a service keeps
//! failing.
//!
//! Every retry takes a few tokens from the bucket; every success gives some
//! back. While the service is healthy the bucket stays full and retries are
//! free; when most calls fail, the bucket drains and the clients stop adding
//! retries to a service that is already struggling ("circuit breaking", in
//! the AWS SDK docs). There is no refill over time: only successes refill.
//!
//! One bucket is shared by every request of a client (or of one endpoint, or
//! one resource: see [`Partitions`](crate::Partitions)), across threads, so it
//! is lock-free: an atomic counter. Refunding to a full bucket, what every
//! successful call does while all is well, is a single atomic load.
//!
//! A quota can also keep its tokens elsewhere, in a [`QuotaStore`] (one
//! quota for a whole fleet of processes, say): [`RetryQuota::with_store`].
//!
//! Under `--cfg loom` the counter is loom's, and a loom model checks every
//! interleaving of concurrent acquisitions and refunds:
//! `RUSTFLAGS="--cfg loom" cargo test -p rebound-runtime --lib quota`.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, Ordering};

use std::sync::Arc;

use crate::quota_store::QuotaStore;
use crate::token::TokenIssuer;

/// A retry quota (AWS SDKs' "retry quota", botocore's `RetryQuota`): a bucket
/// of `capacity` tokens, starting full.
///
/// [`try_acquire`](Self::try_acquire) takes tokens only if enough are left;
/// [`release`](Self::release) gives tokens back, never above the capacity.
/// Share it with `Arc<RetryQuota>`; it is `Send + Sync` and lock-free.
///
/// [`new`](Self::new) counts the tokens in one local atomic;
/// [`with_store`](Self::with_store) leaves them to a [`QuotaStore`], and the
/// strategies drawing from the quota work the same either way.
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetryQuota;
///
/// let quota = RetryQuota::new(10);
/// assert_eq!(quota.try_acquire(7), Ok(()));
/// assert_eq!(quota.try_acquire(7), Err(3)); // not enough left: nothing is taken
/// assert_eq!(quota.release(100), 7); // capped at the capacity
/// assert_eq!(quota.available(), 10);
/// ```
#[derive(Debug)]
pub struct RetryQuota {
    capacity: u32,
    tokens: Tokens,
    /// Makes the tokens of the strategies drawing from this quota: a token
    /// accounts for what was taken from one quota, so strategies sharing the
    /// quota accept each other's tokens and no other strategy does.
    issuer: TokenIssuer,
}

/// Where a [`RetryQuota`]'s tokens are counted.
#[derive(Debug)]
enum Tokens {
    /// In this process, in one atomic.
    Local(AtomicU32),
    /// In a store.
    Store(Arc<dyn QuotaStore>),
}

impl RetryQuota {
    /// The AWS SDKs' capacity: 500 tokens.
    pub const DEFAULT_CAPACITY: u32 = 500;

    /// A full bucket of `capacity` tokens.
    #[must_use]
    pub fn new(capacity: u32) -> Self {
        Self {
            capacity,
            tokens: Tokens::Local(AtomicU32::new(capacity)),
            issuer: TokenIssuer::new(),
        }
    }

    /// A quota whose tokens `store` keeps, of the store's capacity.
    ///
    /// Tokens account to the quota, not to the store: strategies drawing
    /// from one `Arc<RetryQuota>` accept each other's tokens; two quotas on
    /// one store do not.
    #[must_use]
    pub fn with_store(store: Arc<dyn QuotaStore>) -> Self {
        Self {
            capacity: store.capacity(),
            tokens: Tokens::Store(store),
            issuer: TokenIssuer::new(),
        }
    }

    /// The issuer of the tokens that account to this quota.
    pub(crate) const fn issuer(&self) -> &TokenIssuer {
        &self.issuer
    }

    /// The most tokens the bucket holds (and starts with).
    #[must_use]
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The tokens left now. Other threads may change it at any moment; use
    /// it for reporting, not to decide whether to acquire.
    #[must_use]
    pub fn available(&self) -> u32 {
        match &self.tokens {
            Tokens::Local(available) => available.load(Ordering::Acquire),
            Tokens::Store(store) => store.available(),
        }
    }

    /// Takes `cost` tokens if at least that many are left.
    ///
    /// # Errors
    ///
    /// The tokens left, when fewer than `cost`; then nothing is taken.
    pub fn try_acquire(&self, cost: u32) -> Result<(), u32> {
        let available = match &self.tokens {
            Tokens::Local(available) => available,
            Tokens::Store(store) => return store.try_acquire(cost),
        };
        available
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |available| {
                available.checked_sub(cost)
            })
            .map(drop)
    }

    /// Gives back up to `amount` tokens, never filling the bucket above its
    /// capacity. Returns how many were actually added.
    ///
    /// On a full local bucket this is one atomic load: no lock, no write, no
    /// allocation.
    pub fn release(&self, amount: u32) -> u32 {
        let available = match &self.tokens {
            Tokens::Local(available) => available,
            Tokens::Store(store) => return store.release(amount),
        };
        let capacity = self.capacity;
        if amount == 0 || available.load(Ordering::Acquire) >= capacity {
            return 0;
        }
        match available.fetch_update(Ordering::AcqRel, Ordering::Acquire, |available| {
            (available < capacity).then(|| available.saturating_add(amount).min(capacity))
        }) {
            Ok(before) => before.saturating_add(amount).min(capacity) - before,
            Err(_) => 0,
        }
    }
}

/// A quota is a store too: wrap one to count or log what passes through it.
impl QuotaStore for RetryQuota {
    fn try_acquire(&self, cost: u32) -> Result<(), u32> {
        Self::try_acquire(self, cost)
    }

    fn release(&self, amount: u32) -> u32 {
        Self::release(self, amount)
    }

    fn available(&self) -> u32 {
        Self::available(self)
    }

    fn capacity(&self) -> u32 {
        Self::capacity(self)
    }
}

/// A full bucket of [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) (500) tokens.
impl Default for RetryQuota {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn starts_full_and_never_goes_below_zero_or_above_capacity() {
        let quota = RetryQuota::new(14);
        assert_eq!(quota.available(), 14);
        assert_eq!(quota.try_acquire(5), Ok(()));
        assert_eq!(quota.try_acquire(14), Err(9));
        assert_eq!(quota.try_acquire(9), Ok(()));
        assert_eq!(quota.try_acquire(1), Err(0));
        assert_eq!(quota.try_acquire(0), Ok(()));
        assert_eq!(quota.release(3), 3);
        assert_eq!(quota.release(u32::MAX), 11);
        assert_eq!(quota.available(), 14);
        assert_eq!(quota.release(1), 0);
    }

    #[test]
    fn an_empty_quota_still_accepts_free_acquisitions() {
        let quota = RetryQuota::new(0);
        assert_eq!(quota.try_acquire(0), Ok(()));
        assert_eq!(quota.try_acquire(1), Err(0));
        assert_eq!(quota.release(1), 0);
    }

    #[test]
    fn a_quota_with_a_store_asks_the_store() {
        let store = Arc::new(RetryQuota::new(12));
        let quota = RetryQuota::with_store(store.clone());
        assert_eq!(quota.capacity(), 12);
        assert_eq!(quota.try_acquire(10), Ok(()));
        assert_eq!(store.available(), 2);
        assert_eq!(quota.try_acquire(10), Err(2));
        assert_eq!(quota.release(4), 4);
        assert_eq!(quota.available(), 6);
        assert_eq!(store.available(), 6);
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::Arc;

    /// Two threads acquire and refund concurrently; in every interleaving
    /// the bucket stays within `0..=capacity`, each refund gives back exactly
    /// what its thread took (the bucket is not full while a thread holds
    /// tokens), and the bucket ends full.
    #[test]
    fn concurrent_acquire_and_release_stay_in_bounds() {
        loom::model(|| {
            let quota = Arc::new(RetryQuota::new(10));
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    let quota = Arc::clone(&quota);
                    loom::thread::spawn(move || {
                        let took = quota.try_acquire(6).is_ok();
                        assert!(quota.available() <= 10);
                        let refunded = if took { quota.release(6) } else { 0 };
                        (took, refunded)
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            assert!(
                results.iter().any(|(took, _)| *took),
                "the first acquisition always succeeds"
            );
            for (took, refunded) in results {
                assert_eq!(refunded, if took { 6 } else { 0 });
            }
            assert_eq!(quota.available(), 10);
        });
    }

    /// A refund racing an acquisition on a full bucket never overfills it.
    #[test]
    fn refund_on_full_bucket_races_acquire() {
        loom::model(|| {
            let quota = Arc::new(RetryQuota::new(5));
            let refunder = {
                let quota = Arc::clone(&quota);
                loom::thread::spawn(move || quota.release(5))
            };
            let took = quota.try_acquire(3).is_ok();
            let refunded = refunder.join().unwrap();
            assert!(took);
            assert!(refunded <= 3);
            assert_eq!(quota.available(), 2 + refunded);
        });
    }
}
