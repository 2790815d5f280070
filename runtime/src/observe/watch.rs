//! Gauges: what a strategy (or a fleet store) holds now, read only when the
//! meter collects, never on the request path.

use std::sync::Arc;

use crate::adaptive::AdaptiveRetryStrategy;
use crate::quota::RetryQuota;
use crate::rate_limiter::ClientRateLimiter;
use crate::standard::StandardRetryStrategy;
use crate::time::Clock;

/// The gauges' values at one moment; a field is `None` when nothing watched
/// has it (no quota, no rate limiter, no fleet).
///
/// # Examples
///
/// ```
/// use rebound_runtime::AdaptiveRetryStrategy;
/// use rebound_runtime::observe::{Readings, Watched};
///
/// let strategy = AdaptiveRetryStrategy::new();
/// let mut readings = Readings::default();
/// strategy.read(&mut readings);
/// assert_eq!(readings.quota_available, Some(500));
/// assert_eq!(readings.limiter_enabled, Some(false)); // until the first throttle
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub struct Readings {
    /// The retry quota's tokens left.
    pub quota_available: Option<u64>,
    /// The retry quota's capacity.
    pub quota_capacity: Option<u64>,
    /// Whether the adaptive rate limiter holds sends to a rate (it turns on
    /// at the first throttle).
    pub limiter_enabled: Option<bool>,
    /// The rate limiter's fill rate: the sends per second it allows.
    pub limiter_fill_rate: Option<f64>,
    /// The send rate the limiter measured, per second.
    pub limiter_measured_rate: Option<f64>,
    /// A fleet member's state: `true` while it draws from the fleet's
    /// store, `false` while it fell back to local limits.
    pub fleet_healthy: Option<bool>,
    /// The tokens of the fleet's pool this member holds as its lease.
    pub fleet_lease: Option<u64>,
    /// The fleet's pool as this member last saw it.
    pub fleet_pool: Option<u64>,
    /// How long the member's last exchange with the fleet's store took, in seconds.
    pub fleet_exchange_latency: Option<f64>,
    /// The member's exchanges with the fleet's store that failed, since it started.
    pub fleet_exchange_errors: Option<u64>,
}

/// Something with gauges an observer reads when the meter collects:
/// register it with [`RetryObserver::watch`](super::RetryObserver::watch).
/// Implemented for the AWS strategies, their quota and rate limiter, and
/// `Arc`s of them; `rebound-redis` implements it for its fleet stores.
///
/// `read` fills the fields it knows and leaves the others as they are.
pub trait Watched: Send + Sync {
    /// Writes the current values into `readings`.
    fn read(&self, readings: &mut Readings);
}

impl<W: Watched + ?Sized> Watched for Arc<W> {
    fn read(&self, readings: &mut Readings) {
        W::read(self, readings);
    }
}

impl<W: Watched + ?Sized> Watched for &'static W {
    fn read(&self, readings: &mut Readings) {
        W::read(self, readings);
    }
}

impl Watched for RetryQuota {
    fn read(&self, readings: &mut Readings) {
        readings.quota_available = Some(self.available().into());
        readings.quota_capacity = Some(self.capacity().into());
    }
}

impl Watched for ClientRateLimiter {
    fn read(&self, readings: &mut Readings) {
        let state = self.snapshot();
        readings.limiter_enabled = Some(state.enabled);
        readings.limiter_fill_rate = Some(state.fill_rate);
        readings.limiter_measured_rate = Some(state.measured_rate);
    }
}

impl Watched for StandardRetryStrategy {
    fn read(&self, readings: &mut Readings) {
        self.quota().read(readings);
    }
}

impl<C: Clock + Send + Sync> Watched for AdaptiveRetryStrategy<C> {
    fn read(&self, readings: &mut Readings) {
        self.standard().read(readings);
        self.rate_limiter().read(readings);
    }
}
