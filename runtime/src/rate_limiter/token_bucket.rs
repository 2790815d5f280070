//! The send token bucket: one token per request, refilled at the CUBIC rate.
//!
//! The bucket turns a target rate into admission decisions. Tokens accrue
//! continuously at `fill_rate` per second up to `max_capacity`; a send takes
//! one token. When less than one token is left, the sender must wait
//! `(1 - capacity) / fill_rate` seconds — the bucket reports that wait instead
//! of sleeping, so a caller can block, sleep asynchronously, or fail fast, and
//! tests can run in virtual time.
//!
//! Bounds (botocore's `TokenBucket`): the fill rate never drops below 0.5
//! tokens/s (a throttled client still makes progress) and the capacity is at
//! least one token (a send is always possible eventually).

/// The lowest fill rate, tokens per second.
pub const MIN_FILL_RATE: f64 = 0.5;

/// The smallest maximum capacity, in tokens: enough for one send.
pub const MIN_CAPACITY: f64 = 1.0;

/// What one send costs. botocore charges one token for every attempt, first
/// send and retries alike (aws-smithy-runtime charges retries more; we follow
/// botocore, which the conformance vectors pin).
const SEND_COST: f64 = 1.0;

/// A token bucket whose refill is computed from elapsed (caller-supplied)
/// time.
///
/// ```
/// use rebound_runtime::internals::SendTokenBucket;
///
/// let mut bucket = SendTokenBucket::new(1.0, 0.0); // 1 token/s, starts empty
/// let wait = bucket.try_acquire(0.0).unwrap_err();
/// assert_eq!(wait, 1.0); // one token takes a second at 1/s
/// assert_eq!(bucket.try_acquire(wait), Ok(()));
/// ```
// `repr(C)`: 32 bytes at the start of `RateLimiterState`'s first line.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct SendTokenBucket {
    fill_rate: f64,
    max_capacity: f64,
    current_capacity: f64,
    last_timestamp: f64,
}

impl SendTokenBucket {
    /// An empty bucket refilling at `max_rate` tokens per second (bounded
    /// below by [`MIN_FILL_RATE`]) from `now` on.
    pub fn new(max_rate: f64, now: f64) -> Self {
        let mut bucket = Self {
            fill_rate: MIN_FILL_RATE,
            max_capacity: MIN_CAPACITY,
            current_capacity: 0.0,
            last_timestamp: now,
        };
        bucket.set_max_rate(max_rate, now);
        bucket
    }

    /// Tokens per second.
    pub fn fill_rate(&self) -> f64 {
        self.fill_rate
    }

    /// The most tokens the bucket holds.
    pub fn max_capacity(&self) -> f64 {
        self.max_capacity
    }

    /// Tokens available as of the last refill.
    pub fn capacity(&self) -> f64 {
        self.current_capacity
    }

    /// When the bucket was last refilled.
    pub fn last_timestamp(&self) -> f64 {
        self.last_timestamp
    }

    /// Sets a new target rate at `now`: tokens earned so far are credited at
    /// the old rate first, then `fill_rate = max(rate, 0.5)`,
    /// `max_capacity = max(rate, 1)`, and the capacity is clamped to the new
    /// maximum. A NaN rate counts as the minimum.
    pub fn set_max_rate(&mut self, rate: f64, now: f64) {
        self.refill(now);
        self.fill_rate = rate.max(MIN_FILL_RATE);
        self.max_capacity = if rate >= MIN_CAPACITY {
            rate
        } else {
            MIN_CAPACITY
        };
        self.current_capacity = self.current_capacity.min(self.max_capacity);
    }

    /// Holds at most `secs` seconds of the fill rate (at least one token)
    /// from `now` on, until the next [`set_max_rate`](Self::set_max_rate).
    pub fn limit_burst(&mut self, secs: f64, now: f64) {
        self.refill(now);
        self.max_capacity = (self.fill_rate * secs)
            .max(MIN_CAPACITY)
            .min(self.max_capacity);
        self.current_capacity = self.current_capacity.min(self.max_capacity);
    }

    /// Credits the tokens earned since the last refill, up to the maximum.
    ///
    /// Time never runs backwards for the bucket: a `now` earlier than the
    /// last one earns nothing, takes nothing away, and leaves the timestamp
    /// where it is, so no interval is ever credited twice. That is also how
    /// a reservation holds its place: a blocked sender that takes its token
    /// at a future time (the adaptive strategy does, see
    /// [`AdaptiveRetryStrategy`](crate::AdaptiveRetryStrategy)) moves the
    /// timestamp there, and senders asking earlier queue behind it. The price
    /// is that a bad reading far in the future stalls refilling until the
    /// clock catches up; use a monotonic clock. A NaN or infinite `now` is
    /// ignored.
    pub fn refill(&mut self, now: f64) {
        if !now.is_finite() || now <= self.last_timestamp {
            return;
        }
        let earned = (now - self.last_timestamp) * self.fill_rate;
        self.current_capacity = self.max_capacity.min(self.current_capacity + earned);
        self.last_timestamp = now;
    }

    /// Takes one send token at `now`, or returns how many seconds to wait
    /// before one is available.
    ///
    /// To block, sleep the returned wait and call again with a later time: the
    /// wait is recomputed each time, as the reference's condition-variable
    /// loop does (float rounding can leave a sliver short of a token, then a
    /// second, tiny wait follows).
    ///
    /// The send is granted without a full token in two corner cases where
    /// waiting could never help: when the clock has not moved since the bucket
    /// last looked and the wait is too short for it to show
    /// (`now + wait == now`, e.g. a rounding sliver of 5e-14 s on a clock at
    /// 1000 s, whose resolution is 1.1e-13 s: a caller that slept it reads
    /// the same time again), and at `f64::MAX`, after which no time can pass.
    /// The capacity then stays at 0 rather than going into debt.
    pub fn try_acquire(&mut self, now: f64) -> Result<(), f64> {
        let clock_moved = now > self.last_timestamp;
        self.refill(now);
        if SEND_COST <= self.current_capacity {
            self.current_capacity -= SEND_COST;
            return Ok(());
        }
        // A sender whose `now` is behind the bucket (queued behind a
        // reservation) also waits for the bucket's time to come.
        let behind = if now.is_finite() {
            (self.last_timestamp - now).max(0.0)
        } else {
            0.0
        };
        let wait = (behind + (SEND_COST - self.current_capacity) / self.fill_rate).min(f64::MAX);
        let unobservable = !clock_moved && now + wait <= now;
        if wait > 0.0 && now < f64::MAX && !unobservable {
            return Err(wait);
        }
        self.current_capacity = (self.current_capacity - SEND_COST).max(0.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_empty_with_minimum_bounds() {
        let bucket = SendTokenBucket::new(0.1, 7.0);
        assert_eq!(bucket.fill_rate(), MIN_FILL_RATE);
        assert_eq!(bucket.max_capacity(), MIN_CAPACITY);
        assert_eq!(bucket.capacity(), 0.0);
        assert_eq!(bucket.last_timestamp(), 7.0);
    }

    #[test]
    fn refill_is_capped_and_ignores_backwards_time() {
        let mut bucket = SendTokenBucket::new(4.0, 0.0);
        bucket.refill(10.0);
        assert_eq!(bucket.capacity(), 4.0);
        bucket.try_acquire(10.0).unwrap();
        bucket.refill(-5.0);
        assert_eq!(bucket.capacity(), 3.0);
        assert_eq!(bucket.last_timestamp(), 10.0);
        bucket.refill(10.125);
        assert_eq!(
            bucket.capacity(),
            3.5,
            "only the interval after 10 s is credited"
        );
    }

    #[test]
    fn non_finite_times_are_ignored() {
        let mut bucket = SendTokenBucket::new(1.0, 0.0);
        for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            bucket.refill(t);
        }
        assert_eq!(bucket.last_timestamp(), 0.0);
        bucket.refill(0.5);
        assert_eq!(bucket.capacity(), 0.5);
    }

    #[test]
    fn lowering_the_rate_clamps_capacity() {
        let mut bucket = SendTokenBucket::new(4.0, 0.0);
        bucket.refill(10.0);
        bucket.set_max_rate(2.0, 10.0);
        assert_eq!(bucket.capacity(), 2.0);
        bucket.set_max_rate(f64::NAN, 10.0);
        assert_eq!(bucket.fill_rate(), MIN_FILL_RATE);
        assert_eq!(bucket.max_capacity(), MIN_CAPACITY);
    }

    #[test]
    fn a_wait_below_clock_resolution_is_granted() {
        // A rounding sliver short of a token, at a time whose resolution
        // (1.1e-13 s) cannot show the 1e-15 s wait.
        let mut bucket = SendTokenBucket {
            fill_rate: 1.0,
            max_capacity: 1.0,
            current_capacity: 1.0 - 1e-15,
            last_timestamp: 1000.0,
        };
        assert_eq!(bucket.try_acquire(1000.0), Ok(()));
        assert_eq!(bucket.capacity(), 0.0);
    }

    #[test]
    fn the_end_of_time_grants() {
        let mut bucket = SendTokenBucket::new(1.0, f64::MAX);
        assert_eq!(bucket.try_acquire(f64::MAX), Ok(()));
    }

    #[test]
    fn waits_are_recomputed_after_each_sleep() {
        let mut bucket = SendTokenBucket::new(2.0, 0.0);
        bucket.refill(0.25);
        assert_eq!(bucket.try_acquire(0.25), Err(0.25));
        assert_eq!(bucket.try_acquire(0.375), Err(0.125));
        assert_eq!(bucket.try_acquire(0.5), Ok(()));
        assert_eq!(bucket.capacity(), 0.0);
    }
}
