//! [`QuotaStore`]: where a [`RetryQuota`](crate::RetryQuota)'s tokens live when
//! they are not this process's alone.
//!
//! A [`RetryQuota`](crate::RetryQuota) counts its tokens in one atomic by
//! default. Built [`with_store`](crate::RetryQuota::with_store), it asks a
//! store instead: a fleet-wide quota (`rebound-redis`), a quota counted by a
//! metrics system, a test double. The strategies do not know the difference:
//! they draw from the same `RetryQuota`, with the same costs and refunds.

use core::fmt::Debug;

/// The tokens of a retry quota kept somewhere other than one local atomic.
///
/// A strategy calls [`try_acquire`](Self::try_acquire) before every retry
/// and [`release`](Self::release) after every successful request, on the
/// request path: both must answer from local state, at once, without
/// waiting for a lock held across I/O or for the network. A store that
/// talks to a server does so in the background and reconciles in batches.
///
/// The contract is [`RetryQuota`](crate::RetryQuota)'s: acquisitions take all
/// of `cost` or nothing, refunds never make more tokens than the capacity,
/// and neither panics.
///
/// # Examples
///
/// A store that counts what passes through it, around a local quota:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use rebound_runtime::{QuotaStore, RetryQuota};
///
/// #[derive(Debug, Default)]
/// struct Counted { inner: RetryQuota, refused: AtomicU32 }
///
/// impl QuotaStore for Counted {
///     fn try_acquire(&self, cost: u32) -> Result<(), u32> {
///         self.inner.try_acquire(cost).inspect_err(|_| {
///             self.refused.fetch_add(1, Ordering::Relaxed);
///         })
///     }
///     fn release(&self, amount: u32) -> u32 { self.inner.release(amount) }
///     fn available(&self) -> u32 { self.inner.available() }
///     fn capacity(&self) -> u32 { self.inner.capacity() }
/// }
///
/// let counted = Arc::new(Counted::default());
/// let quota = RetryQuota::with_store(counted.clone());
/// assert_eq!(quota.capacity(), 500);
/// assert_eq!(quota.try_acquire(501), Err(500));
/// assert_eq!(counted.refused.load(Ordering::Relaxed), 1);
/// ```
pub trait QuotaStore: Send + Sync + Debug {
    /// Takes `cost` tokens if at least that many are left.
    ///
    /// # Errors
    ///
    /// The tokens left, when fewer than `cost`; then nothing is taken.
    fn try_acquire(&self, cost: u32) -> Result<(), u32>;

    /// Gives back up to `amount` tokens (a successful request's refund),
    /// never above the capacity; returns how many were taken back.
    fn release(&self, amount: u32) -> u32;

    /// The tokens that can be taken now (for reporting).
    fn available(&self) -> u32;

    /// The most tokens the quota holds. Read once, when the
    /// [`RetryQuota`](crate::RetryQuota) is built.
    fn capacity(&self) -> u32;
}
