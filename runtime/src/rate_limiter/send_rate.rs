//! The measured send rate: how many requests per second the client is actually
//! getting through.
//!
//! CUBIC needs to know the rate at which the client was sending when a throttle
//! arrived, and the new target is capped at twice the measured rate (no point
//! allowing 100/s to a client that sends 3/s). The meter counts responses in
//! half-second buckets (`bucket = floor(2t) / 2`) and, each time a response
//! lands in a later bucket, folds `count / (bucket - last_bucket)` into an
//! exponentially smoothed average (weight 0.8 for the new sample).
//!
//! Like botocore's `RateClocker`, the meter counts *responses* (it is driven
//! from the response hook), so a request that never completes is not counted.
//!
//! **Late responses.** Threads answering at once time their responses and
//! record them a moment later, so responses arrive slightly out of time order
//! (the limiter's log applies what it holds in time order, but a response
//! timed before a drain can be recorded after it). A response whose bucket
//! is not later than the current one is counted in the current bucket, as
//! botocore's `RateClocker` counts it: the count over a run of buckets stays
//! exact, only shared out a little differently between neighbours. Only a
//! time more than a whole bucket before the current one (two or more buckets
//! back: at least 0.5 s earlier than the current bucket's start) is taken as
//! a clock that stepped backwards, and rebases the meter.

/// Weight of the newest sample in the smoothed rate.
pub const SMOOTHING: f64 = 0.8;

/// Width of a measurement bucket, in seconds.
pub const TIME_BUCKET_RANGE: f64 = 0.5;

/// Buckets per second (`1 / TIME_BUCKET_RANGE`), the reference's
/// `time_bucket_scale`.
const TIME_BUCKET_SCALE: f64 = 1.0 / TIME_BUCKET_RANGE;

/// How far back, in seconds, before the current bucket's start a response
/// still counts as late rather than as a clock that stepped backwards: one
/// bucket (a response in the bucket just before the current one).
const LATE_RESPONSE_WINDOW: f64 = TIME_BUCKET_RANGE;

/// Measures the request rate in 0.5 s buckets with exponential smoothing.
///
/// ```
/// use rebound_runtime::internals::SendRateMeter;
///
/// let mut meter = SendRateMeter::new(0.0);
/// assert_eq!(meter.record(0.2), 0.0); // same bucket as the start: counted only
/// assert_eq!(meter.record(0.4), 0.0);
/// // Bucket 0.5 reached: 3 responses over 0.5 s = 6/s, smoothed 0.8 * 6.
/// assert!((meter.record(0.6) - 4.8).abs() < 1e-12);
/// ```
// `repr(C)`, the count first: it is the field every response writes (see
// `RateLimiterState`'s layout).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct SendRateMeter {
    count: u64,
    measured_rate: f64,
    last_bucket: f64,
}

impl SendRateMeter {
    /// A meter with no traffic yet, whose first bucket starts at
    /// `floor(start_time)` (a whole second, as in the reference).
    pub fn new(start_time: f64) -> Self {
        Self {
            measured_rate: 0.0,
            last_bucket: start_time.floor(),
            count: 0,
        }
    }

    /// Counts one response at `now` and returns the measured rate
    /// (requests per second).
    ///
    /// A `now` in a later bucket folds the count into the rate and starts
    /// that bucket. A `now` in the current bucket, or in the one just before
    /// it (a late response, see the module's docs), is only counted. A `now`
    /// further back (a clock that stepped backwards) is counted and moves
    /// the current bucket back to its own, so that measuring resumes as soon
    /// as the clock moves forward again instead of waiting for it to catch
    /// up. A NaN or infinite `now` counts the response but moves no bucket.
    pub fn record(&mut self, now: f64) -> f64 {
        let bucket = bucket_start(now);
        self.count = self.count.saturating_add(1);
        if !bucket.is_finite() {
            return self.measured_rate;
        }
        if bucket > self.last_bucket {
            // u64 -> f64 is exact below 2^53 responses per bucket.
            #[allow(clippy::cast_precision_loss)]
            let current_rate = self.count as f64 / (bucket - self.last_bucket);
            self.measured_rate =
                (current_rate * SMOOTHING) + (self.measured_rate * (1.0 - SMOOTHING));
            self.count = 0;
            self.last_bucket = bucket;
        } else if bucket < self.last_bucket - LATE_RESPONSE_WINDOW {
            self.last_bucket = bucket;
        }
        self.measured_rate
    }

    /// `n` more responses in the current bucket, all at a time that was
    /// already recorded: only the count changes.
    pub(crate) fn count_more(&mut self, n: u64) {
        self.count = self.count.saturating_add(n);
    }

    /// The smoothed rate, requests per second.
    pub fn measured_rate(&self) -> f64 {
        self.measured_rate
    }

    /// Start of the bucket in which the rate was last updated (seconds).
    pub fn last_bucket(&self) -> f64 {
        self.last_bucket
    }

    /// Responses counted since the rate was last updated.
    pub fn request_count(&self) -> u64 {
        self.count
    }
}

/// `floor(2t) / 2`, the start of the half-second bucket holding `t`.
///
/// For `|t|` so large that `2t` overflows, `t` is a whole number already and
/// is its own bucket start (this keeps the bucket finite; below that the
/// result is the reference's bit for bit, since scaling by 2 is exact).
fn bucket_start(t: f64) -> f64 {
    let scaled = t * TIME_BUCKET_SCALE;
    if scaled.is_finite() {
        floor(scaled) / TIME_BUCKET_SCALE
    } else {
        t
    }
}

/// `x.floor()`, bit for bit, without a call to the library's `floor` for
/// the usual times (positive, below 2^52): there, truncating to an integer
/// is exact and is the floor. Baseline x86-64 has no rounding instruction,
/// so `f64::floor` is a function call on every response.
#[inline]
fn floor(x: f64) -> f64 {
    const EXACT_INTEGERS: f64 = (1u64 << 52) as f64;
    if x > 0.0 && x < EXACT_INTEGERS {
        // Exact: a positive double below 2^52 truncates to an integer that
        // converts back without rounding.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let whole = (x as u64) as f64;
        whole
    } else {
        x.floor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_the_librarys_bit_for_bit() {
        let edges = [
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            0.5,
            1.0 - f64::EPSILON / 2.0,
            1.0,
            1.5,
            -0.5,
            -1.0,
            -1.5,
            4_503_599_627_370_495.5, // just below 2^52
            4_503_599_627_370_496.0, // 2^52
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let spread = (0..200_000).map(|i| f64::from(i) * 0.013_7 - 100.0);
        for x in edges.into_iter().chain(spread) {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "floor({x})");
        }
        assert!(floor(f64::NAN).is_nan());
    }

    #[test]
    fn first_bucket_is_the_whole_second() {
        let meter = SendRateMeter::new(1000.75);
        assert_eq!(meter.last_bucket(), 1000.0);
    }

    #[test]
    fn backwards_step_rebases_the_bucket() {
        let mut meter = SendRateMeter::new(10.0);
        meter.record(1e300);
        assert_eq!(meter.last_bucket(), 1e300);
        meter.record(11.0);
        assert_eq!(meter.last_bucket(), 11.0);
        let rate = meter.record(11.5);
        assert!(rate.is_finite() && rate > 0.0);
    }

    /// 100 responses/s, recorded in pairs swapped: every other response is
    /// late, and at each bucket boundary the late one is from the previous
    /// bucket. They count in the current bucket: the rate is the true one
    /// (a meter that moved back to the late response's bucket measured a
    /// few responses per second).
    #[test]
    fn late_responses_count_in_the_current_bucket() {
        let mut meter = SendRateMeter::new(0.0);
        let mut rates = Vec::new();
        for first in (1..2000).step_by(2) {
            for n in [first + 1, first] {
                rates.push(meter.record(f64::from(n) * 0.01 + 0.005));
            }
        }
        // After the first two seconds, the smoothed rate has reached 100/s.
        for (i, rate) in rates.iter().enumerate().skip(200) {
            assert!((rate - 100.0).abs() < 2.5, "response {i}: {rate}/s");
        }
    }

    #[test]
    fn only_a_time_two_buckets_back_rebases() {
        let mut meter = SendRateMeter::new(10.0);
        meter.record(10.7);
        assert_eq!(meter.last_bucket(), 10.5);
        let count = meter.request_count();
        meter.record(10.0); // the bucket just before: late, counted
        meter.record(10.49);
        assert_eq!(meter.last_bucket(), 10.5);
        assert_eq!(meter.request_count(), count + 2);
        meter.record(9.99); // two buckets back: the clock stepped back
        assert_eq!(meter.last_bucket(), 9.5);
        assert_eq!(meter.request_count(), count + 3);
    }

    #[test]
    fn huge_times_stay_finite() {
        let mut meter = SendRateMeter::new(0.0);
        for t in [f64::MAX, f64::MAX, -f64::MAX, 0.0, f64::MAX] {
            assert!(meter.record(t).is_finite());
            assert!(meter.last_bucket().is_finite());
        }
        for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            meter.record(t);
            assert!(meter.last_bucket().is_finite());
        }
        assert_eq!(bucket_start(f64::MAX), f64::MAX);
        assert_eq!(bucket_start(-0.75), -1.0);
        assert_eq!(bucket_start(1001.980222), 1001.5);
    }
}
