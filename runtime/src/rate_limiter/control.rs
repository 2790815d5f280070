//! [`RateControl`]: a rate limiter as a coordinator outside the request
//! path sees it — what it measured, how often it was throttled — and the
//! one thing it may do to it: hold it under a ceiling.
//!
//! A fleet of processes calling one service shares what its service admits
//! (`rebound-redis`): each process's limiter keeps reacting to its own
//! throttles, and a coordinator reads every process's measured rate and
//! throttles, computes the fleet's rate, and gives each process a ceiling.

/// What a coordinator reads from a rate limiter.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RateReading {
    /// Responses per second, smoothed (the limiter's measured rate).
    pub measured_rate: f64,
    /// Throttles the limiter has reacted to since it was made; compare two
    /// readings to learn of new ones.
    pub throttles: u64,
    /// Responses the limiter has heard since it was made that were not
    /// throttles: what the service admitted. Compare two readings for the
    /// rate admitted between them.
    pub successes: u64,
    /// The rate sends are held to now; `None` while the limiter is off.
    pub send_rate: Option<f64>,
    /// The ceiling set by [`RateControl::set_ceiling`]; `None` when there is none.
    pub ceiling: Option<f64>,
}

/// A rate limiter that a coordinator can read and hold under a ceiling:
/// the adaptive strategy's, through
/// [`AdaptiveRetryStrategy`](crate::AdaptiveRetryStrategy).
///
/// Both calls take the limiter's lock; call them from a background task,
/// every second or so, not per request.
///
/// # Examples
///
/// ```
/// use rebound_runtime::AdaptiveRetryStrategy;
/// use rebound_runtime::rate_limiter::RateControl;
///
/// let strategy = AdaptiveRetryStrategy::new();
/// assert_eq!(strategy.reading().throttles, 0);
/// assert_eq!(strategy.reading().send_rate, None); // off until a throttle...
/// strategy.set_ceiling(Some(40.0)); // ...or a ceiling: other processes were throttled
/// assert!(strategy.reading().send_rate.is_some_and(|rate| rate <= 40.0));
/// assert_eq!(strategy.reading().ceiling, Some(40.0));
/// strategy.set_ceiling(None); // lifted: CUBIC alone again (the limiter stays on)
/// strategy.hold(Some(120.0)); // the fleet's share, whatever CUBIC would choose
/// assert_eq!(strategy.reading().send_rate, Some(120.0));
/// strategy.hold(None);
/// ```
pub trait RateControl: Send + Sync {
    /// The limiter's measured rate, throttles and send rate now.
    fn reading(&self) -> RateReading;

    /// Holds the send rate at or below `ceiling` sends per second (at least
    /// 0.5/s), on top of the limiter's own CUBIC, until the next call;
    /// `None` lifts the ceiling. A ceiling turns the limiter on.
    fn set_ceiling(&self, ceiling: Option<f64>);

    /// Holds the send rate at `rate` sends per second (at least 0.5/s) until
    /// the next call, in place of the limiter's own CUBIC, which keeps
    /// learning from the throttles meanwhile; `None` lets CUBIC set the rate
    /// again, from the next response on. A held rate turns the limiter on.
    ///
    /// A ceiling only lowers what the limiter chose; a held rate replaces
    /// it, so a coordinator that knows what the fleet is admitted can also
    /// raise a process its own throttles had cut.
    fn hold(&self, rate: Option<f64>);
}
