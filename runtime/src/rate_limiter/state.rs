//! The adaptive rate limiter as a pure state machine: measured rate + CUBIC +
//! send token bucket, advanced only by the timestamps the caller passes in.
//!
//! Keeping the state machine free of clocks, locks and sleeping is what lets
//! it be replayed against the reference vectors in virtual time, simulated, and
//! wrapped differently (the thread-safe [`ClientRateLimiter`], or a strategy
//! that owns one per partition).
//!
//! [`ClientRateLimiter`]: super::ClientRateLimiter

use super::acquire::RateLimited;
use super::cubic::CubicCalculator;
use super::cubic_shape::CubicShape;
use super::send_rate::{SendRateMeter, TIME_BUCKET_RANGE};
use super::token_bucket::{MIN_CAPACITY, MIN_FILL_RATE, SendTokenBucket};

/// The new target rate is at most this multiple of the measured rate.
pub const MAX_RATE_ADJUST_SCALE: f64 = 2.0;

/// The adaptive client rate limiter's state, driven by explicit timestamps.
///
/// Times are `f64` seconds since any epoch you like (the same one for every
/// call on one limiter): float seconds are what the reference computes with,
/// so replaying its vectors reproduces every number. Non-finite times are
/// replaced by the last time the limiter saw.
///
/// The limiter starts *disabled*: sends cost nothing until the first throttled
/// response, while responses already feed the measured rate and CUBIC. The
/// initial state is botocore's: measured rate 0, fill rate 1 token/s, maximum
/// capacity 1, an empty bucket, `w_max` 0, last throttle at `start_time`.
///
/// ```
/// use rebound_runtime::internals::RateLimiterState;
///
/// let mut limiter = RateLimiterState::new(0.0);
/// assert_eq!(limiter.try_acquire(0.1), Ok(())); // disabled: free
/// for t in [0.2, 0.4, 0.6, 0.8] {
///     limiter.on_response(t, false);
/// }
/// limiter.on_response(1.0, true); // first throttle enables the limiter
/// assert!(limiter.is_enabled());
///
/// // Block in virtual time: sleep each wait the limiter asks for.
/// let mut now = 1.0;
/// for _ in 0..3 {
///     while let Err(limited) = limiter.try_acquire(now) {
///         now += limited.wait_secs();
///     }
/// }
/// assert!(now > 1.0); // the throttle slowed the three sends down
/// ```
// `repr(C)`, fields in this order: what a success writes (the bucket, then
// the meter's count) comes first, so that behind a mutex's lock word it
// fills one cache line; CUBIC, the flag and the throttle count, which only
// a throttle writes, and the ceiling, which a coordinator sets now and then,
// are on the next, which threads answering at once share unwritten.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct RateLimiterState {
    bucket: SendTokenBucket,
    meter: SendRateMeter,
    /// Responses that were not throttles.
    successes: u64,
    cubic: CubicCalculator,
    enabled: bool,
    /// The most the fill rate may be, set from outside (a fleet's share,
    /// [`set_ceiling`](Self::set_ceiling)); infinite by default, which
    /// leaves botocore's arithmetic exactly as it is.
    ceiling: f64,
    /// Whether the ceiling is also the fill rate ([`hold`](Self::hold)): CUBIC
    /// keeps learning from the responses but does not set the rate.
    held: bool,
    /// Throttles that went into CUBIC.
    throttles: u64,
}

/// Seconds of a held rate a process's bucket holds (at least one token);
/// botocore's bucket, which CUBIC sets, holds one second of its rate.
/// `rebound-sim fleet`'s model of the fleet limiter's process test: with
/// 10 processes warming into a throttling service, 1.5–1.7% of the requests
/// throttled at 0.1 s against 4.2–5.7% at 1 s.
const HELD_BURST_SECS: f64 = 0.1;

impl RateLimiterState {
    /// A disabled limiter created at `start_time` (botocore's initial state).
    /// A non-finite `start_time` is taken as 0.
    pub fn new(start_time: f64) -> Self {
        let start_time = if start_time.is_finite() {
            start_time
        } else {
            0.0
        };
        Self {
            enabled: false,
            meter: SendRateMeter::new(start_time),
            cubic: CubicCalculator::new(0.0, start_time),
            bucket: SendTokenBucket::new(1.0, start_time),
            ceiling: f64::INFINITY,
            held: false,
            throttles: 0,
            successes: 0,
        }
    }

    /// The same state following another CUBIC [`CubicShape`] from its next
    /// throttle on (the current throttled rate is refitted at once).
    #[must_use]
    pub fn with_cubic_shape(mut self, shape: CubicShape) -> Self {
        let params = self.cubic.params();
        self.cubic = CubicCalculator::with_shape(shape, params.w_max, params.last_fail);
        self
    }

    /// Whether a throttle has been seen, so that sends now cost a token.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Asks for permission to send at `now`.
    ///
    /// Disabled: always `Ok`, and the state is untouched. Enabled: refills the
    /// bucket and takes one token, or returns [`RateLimited`] with the wait
    /// until a token is available, taking nothing. To block, sleep that wait
    /// and call again with the later time (see
    /// [`ClientRateLimiter::acquire`](super::ClientRateLimiter::acquire));
    /// to fail fast, return the error.
    pub fn try_acquire(&mut self, now: f64) -> Result<(), RateLimited> {
        if !self.enabled {
            return Ok(());
        }
        let now = self.sanitize(now);
        self.bucket
            .try_acquire(now)
            .map_err(|wait| RateLimited::new(wait, now))
    }

    /// Takes a send token at `now` for a caller with `ahead` waiting
    /// callers in front of it: only if the bucket holds a token for each of
    /// them and one more (with no one ahead, [`try_acquire`](Self::try_acquire)
    /// exactly). Otherwise [`RateLimited`] with the wait, at the current fill
    /// rate, until it will. Nothing is taken or reserved when it must wait.
    ///
    /// A caller further back than the bucket holds tokens is served only
    /// after those ahead: the line moves as its head is served, so callers
    /// that went away must leave it ([`RetryStrategy::abandon`](crate::RetryStrategy::abandon),
    /// which the executors call) or hold it up until their places lapse.
    pub(crate) fn try_acquire_behind(&mut self, now: f64, ahead: usize) -> Result<(), RateLimited> {
        if ahead == 0 {
            // No one in line: exactly the reference's acquire.
            return self.try_acquire(now);
        }
        if !self.enabled {
            return Ok(());
        }
        let now = self.sanitize(now);
        self.bucket.refill(now);
        let needed = ahead as f64 + 1.0;
        let short = needed - self.bucket.capacity();
        if short > 0.0 {
            let wait = short / self.bucket.fill_rate();
            // A wait too small to move the clock is granted (as the bucket
            // itself does), so a caller can never be told to wait forever.
            if now + wait > now {
                return Err(RateLimited::new(wait, now));
            }
        }
        self.bucket
            .try_acquire(now)
            .map_err(|wait| RateLimited::new(wait.max(f64::MIN_POSITIVE), now))
    }

    /// Records a response received at `now`; `is_throttle` is the throttling
    /// verdict on it (a throttling error code, a modeled throttle, or HTTP
    /// 429 — see the classification in the retry strategy).
    ///
    /// Updates the measured rate, computes the CUBIC target (a throttle also
    /// enables the limiter), then sets the bucket's fill rate to
    /// `max(min(target, 2 * measured), 0.5)` after crediting the tokens earned
    /// at the old rate.
    ///
    /// # Invariants
    ///
    /// What any change to CUBIC or to this update must keep, asserted after
    /// every response in debug builds:
    ///
    /// - every number of the state is finite (no NaN or infinity ever enters
    ///   it, whatever time or rate comes in);
    /// - the measured rate is at least 0;
    /// - the fill rate is at least 0.5/s and at most
    ///   `max(2 * measured, 0.5)`;
    /// - the maximum capacity is at least 1 token and the capacity lies in
    ///   `0..=max_capacity`;
    /// - CUBIC's `w_max` and `k` are at least 0;
    /// - a throttle turns the limiter on, and nothing turns it off.
    pub fn on_response(&mut self, now: f64, is_throttle: bool) {
        self.successes += u64::from(!is_throttle);
        self.apply_response(now, is_throttle);
    }

    /// [`on_response`](Self::on_response) without counting the response as
    /// a success or not: `is_throttle` is whether it goes into CUBIC as one.
    fn apply_response(&mut self, now: f64, is_throttle: bool) {
        let was_enabled = self.enabled;
        let now = self.sanitize(now);
        let measured = self.meter.record(now);
        let cap = MAX_RATE_ADJUST_SCALE * measured;
        if self.held && !is_throttle {
            // The rate is held: a success changes nothing CUBIC keeps.
            self.debug_check_invariants(was_enabled, is_throttle);
            return;
        }
        let rate = if is_throttle {
            let rate_to_use = if self.enabled {
                measured.min(self.bucket.fill_rate())
            } else {
                measured
            };
            self.enabled = true;
            self.throttles += 1;
            self.cubic.error_received(rate_to_use, now).min(cap)
        } else {
            // The same number as `success_received(now).min(cap)`, without
            // the cube when the cap decides (most successes).
            self.cubic.success_received_capped(now, cap)
        };
        if self.held {
            self.set_held_rate(now);
        } else {
            self.bucket.set_max_rate(rate.min(self.ceiling), now);
        }
        self.debug_check_invariants(was_enabled, is_throttle);
    }

    /// Asserts, in debug builds, the invariants listed at
    /// [`on_response`](Self::on_response), after a response that found the
    /// limiter on (`was_enabled`) or off and was a throttle or not.
    #[inline]
    fn debug_check_invariants(&self, was_enabled: bool, is_throttle: bool) {
        if !cfg!(debug_assertions) {
            return;
        }
        let snap = self.snapshot();
        debug_assert!(
            [
                snap.measured_rate,
                snap.last_bucket,
                snap.fill_rate,
                snap.max_capacity,
                snap.current_capacity,
                snap.last_timestamp,
                snap.w_max,
                snap.k,
                snap.last_fail,
            ]
            .iter()
            .all(|x| x.is_finite()),
            "a number of the state is not finite: {snap:?}"
        );
        debug_assert!(snap.measured_rate >= 0.0, "{snap:?}");
        debug_assert!(
            snap.fill_rate >= MIN_FILL_RATE
                && (self.held
                    || snap.fill_rate
                        <= (MAX_RATE_ADJUST_SCALE * snap.measured_rate).max(MIN_FILL_RATE)),
            "fill rate out of [0.5, max(2 * measured, 0.5)] (unless held): {snap:?}"
        );
        debug_assert!(
            snap.max_capacity >= MIN_CAPACITY
                && (0.0..=snap.max_capacity).contains(&snap.current_capacity),
            "capacity out of bounds: {snap:?}"
        );
        debug_assert!(snap.w_max >= 0.0 && snap.k >= 0.0, "{snap:?}");
        debug_assert!(
            self.enabled || !(was_enabled || is_throttle),
            "a throttle must turn the limiter on, and nothing off: {snap:?}"
        );
    }

    /// The latest time the state has seen (its bucket's last refill): a
    /// time at which a send can be granted without reading the clock, when
    /// a token was already there then (see
    /// [`ClientRateLimiter::try_acquire_without_clock`](super::ClientRateLimiter)).
    pub(crate) fn latest_time(&self) -> f64 {
        self.bucket.last_timestamp()
    }

    /// Holds the fill rate at or below `ceiling` sends per second from `now`
    /// on (at least 0.5/s, the bucket's floor), on top of CUBIC; an infinite
    /// or NaN `ceiling` lifts it. A finite ceiling turns the limiter on: it
    /// is how a coordinator that saw other processes throttled (a fleet)
    /// slows this one down before it is throttled itself. The fill rate is
    /// cut to the ceiling at once, or, if the limiter was off, set to
    /// `min(ceiling, 2 * measured)`; later responses recompute it as usual,
    /// never above the ceiling.
    pub fn set_ceiling(&mut self, now: f64, ceiling: f64) {
        let now = self.sanitize(now);
        self.held = false;
        if !ceiling.is_finite() {
            self.ceiling = f64::INFINITY;
            return;
        }
        self.ceiling = ceiling.max(MIN_FILL_RATE);
        let local = if self.enabled {
            self.bucket.fill_rate()
        } else {
            MAX_RATE_ADJUST_SCALE * self.meter.measured_rate()
        };
        self.enabled = true;
        self.bucket.set_max_rate(local.min(self.ceiling), now);
    }

    /// Holds the fill rate at `rate` sends per second from `now` on (at
    /// least 0.5/s), in place of CUBIC's; an infinite or NaN `rate` lets
    /// CUBIC set it again. A held rate turns the limiter on. It is how a
    /// coordinator that measures what a whole fleet is admitted (a fleet
    /// rate limiter) sets this process's share: CUBIC keeps learning from the
    /// throttles meanwhile, and takes over from its own state when the rate
    /// is let go; until the next response the fill rate stays the held one.
    pub fn hold(&mut self, now: f64, rate: f64) {
        let now = self.sanitize(now);
        if !rate.is_finite() {
            self.held = false;
            self.ceiling = f64::INFINITY;
            return;
        }
        self.held = true;
        self.ceiling = rate.max(MIN_FILL_RATE);
        self.enabled = true;
        self.set_held_rate(now);
    }

    /// The bucket at the held rate, with a burst of [`HELD_BURST_SECS`] of it:
    /// a held rate is one process's share of what a fleet is admitted, and a
    /// second's worth from many processes at once would meet the capacity
    /// together.
    fn set_held_rate(&mut self, now: f64) {
        self.bucket.set_max_rate(self.ceiling, now);
        self.bucket.limit_burst(HELD_BURST_SECS, now);
    }

    /// [`on_response`](Self::on_response) for an attempt that was granted
    /// its send at `sent_at`, with at most one CUBIC decrease per congestion
    /// event (opt-in; not the reference's algorithm): a throttle of an
    /// attempt sent before the last decrease, or less than one measurement
    /// bucket (0.5 s) after it, counts as a plain response. The first
    /// throttle always counts (it turns the limiter on).
    ///
    /// Why the half second: an attempt sent before the cut went into the
    /// congestion the cut already answered (TCP's CUBIC reduces once per round
    /// trip for the same reason); one sent just after it still meets a
    /// service the overshoot drained, which refills only at the margin the
    /// cut opened, and the measured rate the next cut would start from has
    /// not yet seen the first. Without the half second, an event at
    /// R = 1000 attempts/s in `rebound-sim capacity` brought two cuts in
    /// some runs, and the rate settled on the second, well below R.
    ///
    /// Returns whether this response cut the rate.
    pub(crate) fn on_response_once_per_event(
        &mut self,
        now: f64,
        is_throttle: bool,
        sent_at: f64,
    ) -> bool {
        let new_event =
            !self.enabled || sent_at >= self.cubic.params().last_fail + TIME_BUCKET_RANGE;
        let cut = is_throttle && new_event;
        self.successes += u64::from(!is_throttle);
        self.apply_response(now, cut);
        cut
    }

    /// `n` more success responses at the time of the last one, which was a
    /// success too: they change nothing but the meter's response count
    /// (`ClientRateLimiter` applies its logged successes so; see
    /// `response_log`).
    pub(crate) fn count_repeated_successes(&mut self, n: u64) {
        self.meter.count_more(n);
        self.successes += n;
    }

    /// Every field of the state, for debugging, metrics and tests.
    pub fn snapshot(&self) -> RateLimiterSnapshot {
        let cubic = self.cubic.params();
        RateLimiterSnapshot {
            enabled: self.enabled,
            measured_rate: self.meter.measured_rate(),
            last_bucket: self.meter.last_bucket(),
            request_count: self.meter.request_count(),
            fill_rate: self.bucket.fill_rate(),
            max_capacity: self.bucket.max_capacity(),
            current_capacity: self.bucket.capacity(),
            last_timestamp: self.bucket.last_timestamp(),
            w_max: cubic.w_max,
            k: cubic.k,
            last_fail: cubic.last_fail,
            ceiling: self.ceiling,
            held: self.held,
            throttles: self.throttles,
            successes: self.successes,
        }
    }

    /// `now` if finite, else the last time the bucket saw (which is always
    /// finite), so no NaN or infinity ever enters the state.
    fn sanitize(&self, now: f64) -> f64 {
        if now.is_finite() {
            now
        } else {
            self.bucket.last_timestamp()
        }
    }
}

/// A copy of every field of a rate limiter's state (the names are the
/// reference's, so logs compare side by side).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RateLimiterSnapshot {
    /// Whether sends cost a token (a throttle has been seen).
    pub enabled: bool,
    /// Smoothed responses per second.
    pub measured_rate: f64,
    /// Start of the measurement bucket last folded into `measured_rate`.
    pub last_bucket: f64,
    /// Responses counted since `last_bucket`.
    pub request_count: u64,
    /// Send tokens per second (botocore's `TokenBucket.max_rate`).
    pub fill_rate: f64,
    /// The most tokens the bucket holds.
    pub max_capacity: f64,
    /// Tokens available as of `last_timestamp`.
    pub current_capacity: f64,
    /// When the bucket was last refilled.
    pub last_timestamp: f64,
    /// CUBIC: the rate last throttled.
    pub w_max: f64,
    /// CUBIC: seconds after the throttle at which the target regains `w_max`.
    pub k: f64,
    /// CUBIC: when the last throttle arrived.
    pub last_fail: f64,
    /// The ceiling on the fill rate set from outside (infinite: none).
    pub ceiling: f64,
    /// Whether the ceiling is also the fill rate (held from outside).
    pub held: bool,
    /// Throttles that went into CUBIC so far.
    pub throttles: u64,
    /// Responses so far that were not throttles.
    pub successes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A limiter that measured about 100 responses/s and was then cut once,
    /// at t = 10 s; returns it and the rate it was cut from.
    fn cut_at_ten() -> (RateLimiterState, f64) {
        let mut state = RateLimiterState::new(0.0);
        let mut now = 0.0;
        while now < 10.0 {
            now += 0.01;
            state.on_response(now, false);
        }
        assert!(state.on_response_once_per_event(10.0, true, 9.99));
        let w_max = state.snapshot().w_max;
        assert!(w_max > 50.0, "{w_max}");
        (state, w_max)
    }

    /// Throttles of attempts sent before the cut, or within half a second
    /// after it, belong to the event the cut answered; later ones do not.
    #[test]
    fn one_event_spans_the_half_second_after_its_cut() {
        for (sent_at, cuts) in [
            (9.5_f64, false),
            (10.0, false),
            (10.3, false),
            (10.499, false),
            (10.5, true),
            (11.2, true),
        ] {
            let (mut state, w_max) = cut_at_ten();
            let cut = state.on_response_once_per_event(sent_at.max(10.0) + 0.05, true, sent_at);
            assert_eq!(cut, cuts, "sent at {sent_at}");
            let after = state.snapshot().w_max;
            if cuts {
                assert!(after < w_max, "sent at {sent_at}: {after} vs {w_max}");
            } else {
                assert_eq!(after, w_max, "sent at {sent_at}");
            }
        }
    }

    /// A ceiling turns a limiter that never saw a throttle on, at most at the
    /// ceiling; responses never raise the fill rate above it; lifting it
    /// lets CUBIC and the measured rate decide again.
    #[test]
    fn a_ceiling_holds_the_fill_rate_until_lifted() {
        let mut state = RateLimiterState::new(0.0);
        let mut now = 0.0;
        while now < 5.0 {
            now += 0.01;
            state.on_response(now, false);
        }
        let measured = state.snapshot().measured_rate;
        assert!(measured > 50.0, "{measured}");
        state.set_ceiling(now, 30.0);
        assert!(state.is_enabled());
        assert_eq!(state.snapshot().fill_rate, 30.0);
        assert_eq!(state.snapshot().throttles, 0);
        while now < 10.0 {
            now += 0.01;
            state.on_response(now, false);
            assert!(state.snapshot().fill_rate <= 30.0);
        }
        state.set_ceiling(now, 0.0);
        assert_eq!(state.snapshot().fill_rate, MIN_FILL_RATE);
        state.set_ceiling(now, f64::NAN);
        state.on_response(now + 0.01, false);
        assert!(state.snapshot().fill_rate > 30.0, "{:?}", state.snapshot());
        state.on_response(now + 0.02, true);
        assert_eq!(state.snapshot().throttles, 1);
    }

    /// A plain `on_response` (botocore's rule) cuts on every throttle.
    #[test]
    fn every_throttle_cuts_without_the_opt_in() {
        let (mut state, w_max) = cut_at_ten();
        state.on_response(10.05, true);
        assert!(state.snapshot().w_max < w_max);
    }

    /// A shape set on the state applies from the next throttle on.
    #[test]
    fn a_cubic_shape_applies_to_the_next_cut() {
        let shape = CubicShape::GENTLE;
        let mut state = RateLimiterState::new(0.0).with_cubic_shape(shape);
        let mut now = 0.0;
        while now < 10.0 {
            now += 0.01;
            state.on_response(now, false);
        }
        state.on_response(10.0, true);
        let snap = state.snapshot();
        assert_eq!(Some(snap.k), shape.recovery_period());
        assert!((snap.fill_rate - shape.beta() * snap.w_max).abs() < 1e-9);
    }
}
