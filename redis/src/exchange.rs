//! [`ExchangeStats`]: how a fleet member's calls to the store go (their latency, their
//! failures, the pool they saw), kept in atomics by the background task and read as gauges by
//! a [`RetryObserver`](rebound_runtime::observe::RetryObserver) watching the quota or limiter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rebound_runtime::observe::Readings;

/// What is stored before anything was seen.
const NONE: u64 = u64::MAX;

/// The last exchange's latency, the failed exchanges, and the pool as last seen.
#[derive(Debug)]
pub(crate) struct ExchangeStats {
    /// Nanoseconds; [`NONE`] before the first exchange.
    latency: AtomicU64,
    errors: AtomicU64,
    /// The pool's available tokens in the store's last reply; [`NONE`] before one.
    pool: AtomicU64,
}

impl Default for ExchangeStats {
    fn default() -> Self {
        Self {
            latency: AtomicU64::new(NONE),
            errors: AtomicU64::new(0),
            pool: AtomicU64::new(NONE),
        }
    }
}

impl ExchangeStats {
    /// One exchange took `latency`, and failed or not.
    pub(crate) fn exchanged(&self, latency: Duration, failed: bool) {
        let nanos = u64::try_from(latency.as_nanos()).unwrap_or(NONE - 1);
        self.latency.store(nanos, Ordering::Relaxed);
        if failed {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The store said the pool holds `available` tokens.
    pub(crate) fn saw_pool(&self, available: u32) {
        self.pool.store(available.into(), Ordering::Relaxed);
    }

    /// Fills the exchange's readings: latency, errors, and the pool if one was seen.
    pub(crate) fn read(&self, readings: &mut Readings) {
        let latency = self.latency.load(Ordering::Relaxed);
        if latency != NONE {
            readings.fleet_exchange_latency = Some(Duration::from_nanos(latency).as_secs_f64());
        }
        readings.fleet_exchange_errors = Some(self.errors.load(Ordering::Relaxed));
        let pool = self.pool.load(Ordering::Relaxed);
        if pool != NONE {
            readings.fleet_pool = Some(pool);
        }
    }
}
