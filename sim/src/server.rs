//! [`ServerCapacity`]: how many attempts per second a simulated service can
//! serve, as a token bucket on the server side.
//!
//! Both service models use it. The capacity-limited service admits `rate`
//! attempts per second with a burst of `burst` and throttles the rest; the
//! service recovering from an outage serves `rate` attempts per second and
//! turns the rest away. Turning an attempt away is cheap but not free for a
//! real server (it still accepts the connection, parses and authenticates
//! the request: the "cost of rejection" of the Google SRE book's chapter on
//! handling overload), so a rejection may cost a fraction of a served
//! attempt's work. That fraction is what lets a retry storm keep a recovered
//! service down: the more attempts it turns away, the fewer it can serve.

/// A server-side token bucket: one token serves one attempt.
///
/// Tokens accrue at `rate` per second up to `burst`. An attempt finding a
/// whole token is served and takes it; otherwise it is turned away and takes
/// `reject_cost` tokens (as many as are left, never going into debt).
///
/// # Examples
///
/// ```
/// use rebound_sim::server::ServerCapacity;
///
/// // 10 attempts/s, a burst of 2, starting full; rejections are free.
/// let mut server = ServerCapacity::new(10.0, 2.0, 0.0);
/// assert!(server.admit(0.0));
/// assert!(server.admit(0.0));
/// assert!(!server.admit(0.0)); // the burst is spent
/// assert!(server.admit(0.1)); // 0.1 s at 10/s earned one token
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerCapacity {
    rate: f64,
    burst: f64,
    reject_cost: f64,
    tokens: f64,
    last: f64,
}

impl ServerCapacity {
    /// A full bucket at time zero. Negative or NaN values are taken as 0,
    /// except `burst`, which is at least one token (one attempt can always
    /// be served eventually); `reject_cost` is at most 1.
    #[must_use]
    pub fn new(rate: f64, burst: f64, reject_cost: f64) -> Self {
        let burst = burst.max(1.0);
        Self {
            rate: rate.max(0.0),
            burst,
            // `max` first: it turns NaN into 0, which `clamp` would keep.
            reject_cost: reject_cost.max(0.0).clamp(0.0, 1.0),
            tokens: burst,
            last: 0.0,
        }
    }

    /// Attempts served per second, at most.
    #[must_use]
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The burst: tokens the bucket holds at most.
    #[must_use]
    pub fn burst(&self) -> f64 {
        self.burst
    }

    /// Serves (`true`) or turns away (`false`) an attempt arriving at
    /// `now` seconds. A `now` earlier than the last one earns nothing.
    pub fn admit(&mut self, now: f64) -> bool {
        if now.is_finite() && now > self.last {
            self.tokens = (self.tokens + (now - self.last) * self.rate).min(self.burst);
            self.last = now;
        }
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.tokens = (self.tokens - self.reject_cost).max(0.0);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_cost_what_they_are_told_to() {
        let mut free = ServerCapacity::new(10.0, 1.0, 0.0);
        let mut costly = ServerCapacity::new(10.0, 1.0, 0.5);
        assert!(free.admit(0.0) && costly.admit(0.0));
        // 0.06 s later: 0.6 tokens each; a rejection takes 0.5 from the costly one.
        assert!(!free.admit(0.06) && !costly.admit(0.06));
        assert!(free.admit(0.1));
        assert!(!costly.admit(0.1)); // 0.1 + 0.4 = 0.5 tokens
    }

    #[test]
    fn bad_parameters_do_not_panic() {
        let mut server = ServerCapacity::new(f64::NAN, -3.0, 7.0);
        assert_eq!(server.burst(), 1.0);
        assert!(server.admit(f64::NAN));
        assert!(!server.admit(100.0));
    }
}
