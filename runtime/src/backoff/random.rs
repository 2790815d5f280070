//! [`RandomSource`]: where jitter comes from, injectable so that tests replay
//! recorded draws and simulations are reproducible.

use std::fmt;
use std::sync::{Mutex, PoisonError};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A source of uniform draws in `[0, 1)`, the only randomness a backoff uses.
///
/// Shared by every request of a strategy, hence `&self` and `Send + Sync`.
/// Implemented for closures `Fn() -> f64`, so a test can inject exact values.
/// Draws outside `[0, 1]` (or NaN) are clamped into it by the backoffs.
///
/// # Examples
///
/// ```
/// use rebound_runtime::backoff::{RandomSource, SeededRandom};
///
/// // Same seed, same draws.
/// let (a, b) = (SeededRandom::new(7), SeededRandom::new(7));
/// assert_eq!(a.unit(), b.unit());
///
/// // A closure: always the middle of the range.
/// let half = || 0.5;
/// assert_eq!(half.unit(), 0.5);
/// ```
pub trait RandomSource: Send + Sync {
    /// One uniform draw from `[0, 1)`.
    fn unit(&self) -> f64;
}

impl<F: Fn() -> f64 + Send + Sync> RandomSource for F {
    #[inline]
    fn unit(&self) -> f64 {
        self()
    }
}

/// The default source: the thread-local generator of [`rand::rng()`], seeded
/// from the operating system. No lock, no allocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ThreadRandom;

impl RandomSource for ThreadRandom {
    #[inline]
    fn unit(&self) -> f64 {
        rand::rng().random::<f64>()
    }
}

/// A deterministic source for reproducible runs: a small fast generator
/// seeded with a `u64`.
///
/// Draws are serialized by a mutex, taken only when a retry delay is
/// computed (never on the success path). The sequence is reproducible when
/// draws happen in a reproducible order (one thread, or a simulation).
pub struct SeededRandom {
    rng: Mutex<SmallRng>,
}

impl SeededRandom {
    /// A generator whose draws are fully determined by `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Mutex::new(SmallRng::seed_from_u64(seed)),
        }
    }
}

impl RandomSource for SeededRandom {
    fn unit(&self) -> f64 {
        self.rng
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .random::<f64>()
    }
}

impl fmt::Debug for SeededRandom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededRandom").finish_non_exhaustive()
    }
}
