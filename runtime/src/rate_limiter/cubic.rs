//! The CUBIC calculator: what send rate to aim for, given the time since the
//! last throttle.
//!
//! CUBIC comes from TCP congestion control (RFC 8312). After a throttle the
//! rate drops to `beta` (70%) of the rate that was throttled (`w_max`), then
//! grows along a cubic curve that is flat around `w_max` (probe carefully where
//! the service last pushed back) and steep far from it (recover quickly from a
//! long-gone throttle, probe fast for new capacity):
//!
//! ```text
//! k    = cbrt(w_max * (1 - beta) / C)
//! rate = C * (t - last_fail - k)^3 + w_max      (success)
//! rate = rate_throttled * beta                  (throttle; w_max = rate_throttled)
//! ```
//!
//! The arithmetic follows botocore's `CubicCalculator` operation by operation
//! (`pow` for the cube root; for the cube, `pow`'s result computed exactly,
//! see `cube.rs`), so results are bit-for-bit those of the reference on the
//! same platform `libm`.

use super::cube::cube;
use super::cubic_shape::{CubicShape, Growth, SCALE_CONSTANT};

/// A read-only copy of the CUBIC parameters, for debugging and tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicParams {
    /// The rate (requests per second) that was last throttled, `w_max`
    /// (botocore's `last_max_rate`).
    pub w_max: f64,
    /// The time window `k` (seconds after the throttle) at which the curve
    /// returns to `w_max`.
    pub k: f64,
    /// When the last throttle was received (seconds on the limiter's clock).
    pub last_fail: f64,
}

/// Computes the target send rate after each response (CUBIC, `beta` 0.7,
/// `C` 0.4).
///
/// The calculator is pure arithmetic over caller-supplied timestamps: it holds
/// `w_max`, `k` and the time of the last throttle, nothing else.
///
/// ```
/// use rebound_runtime::internals::CubicCalculator;
///
/// let mut cubic = CubicCalculator::new(0.0, 0.0);
/// // Throttled while sending 10 requests/s at t = 5 s: back off to 7/s...
/// assert_eq!(cubic.error_received(10.0, 5.0), 7.0);
/// // ...and regain 10/s after k = cbrt(10 * 0.3 / 0.4) ≈ 1.96 s.
/// assert!((cubic.success_received(5.0 + cubic.params().k) - 10.0).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicCalculator {
    w_max: f64,
    k: f64,
    last_fail: f64,
    /// The curve's scale `C` until the next throttle: botocore's constant,
    /// or fitted to `w_max` by a recovery period (see `fit`).
    scale: f64,
    shape: CubicShape,
}

impl CubicCalculator {
    /// A calculator whose last throttle was at `start_time`, at the rate
    /// `starting_max_rate` (botocore's adaptive mode starts at rate 0).
    ///
    /// A negative or NaN `starting_max_rate` is taken as 0.
    pub fn new(starting_max_rate: f64, start_time: f64) -> Self {
        Self::with_shape(CubicShape::BOTOCORE, starting_max_rate, start_time)
    }

    /// [`new`](Self::new) with another [`CubicShape`] (botocore's is
    /// [`CubicShape::BOTOCORE`]).
    pub fn with_shape(shape: CubicShape, starting_max_rate: f64, start_time: f64) -> Self {
        let w_max = non_negative(starting_max_rate);
        let (scale, k) = fit(shape, w_max);
        Self {
            w_max,
            k,
            last_fail: start_time,
            scale,
            shape,
        }
    }

    /// The target rate after a successful (non-throttled) response at `now`.
    ///
    /// Does not change the calculator. A `now` before the last throttle (a
    /// clock that stepped backwards) is treated as the moment of the throttle,
    /// so it cannot push the rate below `beta * w_max`.
    pub fn success_received(&self, now: f64) -> f64 {
        let dt = non_negative(now - self.last_fail);
        self.scale * cube(dt - self.k) + self.w_max
    }

    /// `min(success_received(now), cap)`, bit for bit, without the cube
    /// when it is not needed: once the curve is far above the cap (the usual
    /// case a few seconds after a throttle, and before the first one, when
    /// the cap is twice the measured rate), the answer is the cap whatever
    /// the last bits of the cube. A cube computed by multiplication differs
    /// from `powf`'s by a few ulps at most; the margin is a thousand times
    /// wider, so the shortcut is taken only where it cannot change the result.
    pub(crate) fn success_received_capped(&self, now: f64, cap: f64) -> f64 {
        let x = non_negative(now - self.last_fail) - self.k;
        let cube = self.scale * (x * x * x);
        let rough = cube + self.w_max;
        let margin = 1e-12 * (cube.abs() + self.w_max.abs());
        if rough - margin > cap {
            return cap;
        }
        self.success_received(now).min(cap)
    }

    /// Records a throttle at `now` while sending at `current_rate`, and returns
    /// the reduced target rate `current_rate * beta`.
    ///
    /// A negative or NaN `current_rate` is taken as 0.
    pub fn error_received(&mut self, current_rate: f64, now: f64) -> f64 {
        let current_rate = non_negative(current_rate);
        self.w_max = current_rate;
        (self.scale, self.k) = fit(self.shape, current_rate);
        self.last_fail = now;
        current_rate * self.shape.beta()
    }

    /// The current parameters (`w_max`, `k`, time of the last throttle).
    pub fn params(&self) -> CubicParams {
        CubicParams {
            w_max: self.w_max,
            k: self.k,
            last_fail: self.last_fail,
        }
    }
}

/// The throttled rate (requests/s) below which a recovery period gives way
/// to botocore's constant scale. A curve scaled to the rate grows in
/// proportion to it, so from a rate this low (a throttle before the meter
/// measured anything, `w_max = 0`, or a client cut down by a long run of
/// throttles) it would take minutes to find the capacity again: in
/// `rebound-sim outage`, after 10 s of `SlowDown` answers, clients cut to
/// 0.7/s took 37 s to reach their demand of 8/s (3 s with this floor,
/// botocore's curve 4 s). Above it are the per-client rates the period is
/// for (30 clients sharing 100/s send about 3.3/s each).
const PERIOD_MIN_RATE: f64 = 1.0;

/// The scale `C` and the zero point `k` of the curve after a throttle at
/// `w_max`.
///
/// botocore's constant scale: `k = cbrt(w_max * (1 - beta) / C)`, as the
/// reference writes it (`x ** (1/3.0)`, i.e. C `pow`), so that `k` matches it
/// to the last bit. A recovery period `T`: `C = w_max * (1 - beta) / T³`, so
/// that `k = T`; but below [`PERIOD_MIN_RATE`] botocore's constant `C` is
/// kept, which probes upward from there in seconds.
fn fit(shape: CubicShape, w_max: f64) -> (f64, f64) {
    let beta = shape.beta();
    let constant = |scale: f64| {
        let scaled = (w_max * (1.0 - beta)) / scale;
        (scale, scaled.powf(1.0 / 3.0))
    };
    match shape.growth() {
        Growth::Constant(scale) => constant(scale),
        Growth::Period(_) if w_max < PERIOD_MIN_RATE => constant(SCALE_CONSTANT),
        Growth::Period(secs) => {
            let scale = w_max * (1.0 - beta) / (secs * secs * secs);
            (scale, secs)
        }
    }
}

/// `x` if it is a number `>= 0`, else 0 (`f64::max` ignores a NaN operand).
fn non_negative(x: f64) -> f64 {
    x.max(0.0)
}

/// The curve as a function, here beside the calculator that computes it
/// (`cubic_shape.rs` holds only the constants, and imports nothing).
impl CubicShape {
    /// The curve's rate `secs` seconds after a throttle at `w_max`
    /// requests/s: `beta * w_max` at 0, `w_max` again after the recovery
    /// period, growing on. What a coordinator sharing one rate between
    /// processes computes from a fleet's throttled rate (`rebound-redis`).
    /// Negative or non-finite inputs count as 0.
    ///
    /// ```
    /// use rebound_runtime::rate_limiter::CubicShape;
    ///
    /// let shape = CubicShape::BOTOCORE;
    /// assert!((shape.rate_after(1000.0, 0.0) - 700.0).abs() < 1e-9);
    /// assert!(shape.rate_after(1000.0, 5.0) < 1000.0);
    /// assert!(shape.rate_after(1000.0, 20.0) > 1000.0);
    /// ```
    #[must_use]
    pub fn rate_after(&self, w_max: f64, secs: f64) -> f64 {
        let secs = if secs.is_finite() { secs } else { 0.0 };
        let w_max = if w_max.is_finite() { w_max } else { 0.0 };
        CubicCalculator::with_shape(*self, w_max, 0.0).success_received(secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate_limiter::cubic_shape::BETA;

    #[test]
    fn starts_flat_at_zero() {
        let cubic = CubicCalculator::new(0.0, 3.0);
        assert_eq!(
            cubic.params(),
            CubicParams {
                w_max: 0.0,
                k: 0.0,
                last_fail: 3.0
            }
        );
        assert_eq!(cubic.success_received(3.0), 0.0);
    }

    #[test]
    fn backwards_clock_does_not_undercut_beta() {
        let mut cubic = CubicCalculator::new(0.0, 0.0);
        cubic.error_received(10.0, 100.0);
        let at_throttle = cubic.success_received(100.0);
        assert!((at_throttle - 7.0).abs() < 1e-12);
        assert_eq!(cubic.success_received(-1e300), at_throttle);
    }

    #[test]
    fn capped_success_is_the_plain_minimum() {
        let mut cubic = CubicCalculator::new(0.0, 0.0);
        for (t, cap) in [
            (0.1, 0.0),
            (1.2, 0.6912),
            (2.0, 1e9),
            (50.0, 3.0),
            (1e200, 1.0),
        ] {
            assert_eq!(
                cubic.success_received_capped(t, cap).to_bits(),
                cubic.success_received(t).min(cap).to_bits(),
                "t={t} cap={cap}"
            );
        }
        cubic.error_received(100.0, 10.0);
        for t in [10.0, 11.0, 14.2, 20.0, 1e6] {
            for cap in [0.0, 70.0, 99.999, 100.0, 250.0] {
                assert_eq!(
                    cubic.success_received_capped(t, cap).to_bits(),
                    cubic.success_received(t).min(cap).to_bits(),
                    "t={t} cap={cap}"
                );
            }
        }
    }

    proptest::proptest! {
        /// The shortcut never changes a bit, wherever the cap falls
        /// relative to the curve (including right next to it).
        #[test]
        fn capped_success_is_always_the_plain_minimum(
            throttled_at in 0.0..1e5_f64,
            rate in 0.0..1e6_f64,
            later in 0.0..1e4_f64,
            cap_scale in 0.0..4.0_f64,
            nudge in -8_i64..8,
        ) {
            let mut cubic = CubicCalculator::new(0.0, 0.0);
            cubic.error_received(rate, throttled_at);
            let now = throttled_at + later;
            let exact = cubic.success_received(now);
            // Caps near the curve, a few ulps either side, and far from it.
            let near = f64::from_bits(exact.abs().to_bits().saturating_add_signed(nudge));
            for cap in [near, exact * cap_scale, cap_scale * 1e3] {
                proptest::prop_assert_eq!(
                    cubic.success_received_capped(now, cap).to_bits(),
                    exact.min(cap).to_bits()
                );
            }
        }
    }

    /// A recovery period: the cut keeps `beta`, the curve is back at the
    /// throttled rate after the period at any rate, and the shape is the
    /// same relative to the rate (15% above it one more period later), from
    /// 1 request/s up.
    #[test]
    fn a_recovery_period_is_the_same_at_every_rate() {
        let shape = CubicShape::BOTOCORE
            .with_beta(0.85)
            .unwrap()
            .with_recovery_period(8.0)
            .unwrap();
        for rate in [1.0, 3.3, 100.0, 1000.0, 1e6] {
            let mut cubic = CubicCalculator::with_shape(shape, 0.0, 0.0);
            assert_eq!(cubic.error_received(rate, 5.0), rate * 0.85);
            assert_eq!(cubic.params().k, 8.0);
            let relative = |t: f64| cubic.success_received(t) / rate;
            assert!((relative(5.0) - 0.85).abs() < 1e-12, "{rate}");
            assert!((relative(9.0) - (1.0 - 0.15 / 8.0)).abs() < 1e-12, "{rate}");
            assert!((relative(13.0) - 1.0).abs() < 1e-12, "{rate}");
            assert!((relative(21.0) - 1.15).abs() < 1e-12, "{rate}");
            for (t, cap) in [(6.0, rate), (13.5, 2.0 * rate), (40.0, 1.1 * rate)] {
                assert_eq!(
                    cubic.success_received_capped(t, cap).to_bits(),
                    cubic.success_received(t).min(cap).to_bits()
                );
            }
        }
    }

    /// Below 1 request/s (a throttle before any rate was measured, or a
    /// rate cut far down by a run of throttles): botocore's constant `C`,
    /// which climbs from it in seconds rather than minutes.
    #[test]
    fn a_recovery_period_keeps_botocores_curve_below_one_request_a_second() {
        let shape = CubicShape::GENTLE;
        let constant = CubicShape::BOTOCORE.with_beta(shape.beta()).unwrap();
        for rate in [0.0, 0.2, 0.49, 0.7, 0.999] {
            let mut gentle = CubicCalculator::with_shape(shape, 0.0, 0.0);
            let mut botocore = CubicCalculator::with_shape(constant, 0.0, 0.0);
            gentle.error_received(rate, 1.0);
            botocore.error_received(rate, 1.0);
            assert_eq!(gentle.params().k, botocore.params().k);
            assert_eq!(gentle.success_received(7.0), botocore.success_received(7.0));
        }
        let mut gentle = CubicCalculator::with_shape(shape, 0.0, 0.0);
        gentle.error_received(PERIOD_MIN_RATE, 1.0);
        assert_eq!(gentle.params().k, 8.0, "the period from 1 request/s up");
    }

    /// botocore's shape is the reference's arithmetic, bit for bit: the
    /// formulas written out here with its constants (the conformance
    /// vectors check the same on recorded values).
    #[test]
    fn the_botocore_shape_is_the_reference_arithmetic() {
        let mut cubic = CubicCalculator::with_shape(CubicShape::BOTOCORE, 0.0, 0.0);
        for (rate, at) in [(10.0_f64, 1.0), (123.456, 7.5), (1e4, 30.0)] {
            let k = ((rate * (1.0 - BETA)) / SCALE_CONSTANT).powf(1.0 / 3.0);
            assert_eq!(
                cubic.error_received(rate, at).to_bits(),
                (rate * BETA).to_bits()
            );
            assert_eq!(cubic.params().k.to_bits(), k.to_bits());
            for dt in [0.0_f64, 0.7, 3.3, 100.0] {
                let elapsed = (at + dt) - at; // as the calculator sees it
                let reference = SCALE_CONSTANT * (elapsed - k).powf(3.0) + rate;
                assert_eq!(
                    cubic.success_received(at + dt).to_bits(),
                    reference.to_bits()
                );
            }
        }
    }

    #[test]
    fn bad_rates_are_zero() {
        let mut cubic = CubicCalculator::new(f64::NAN, 0.0);
        assert_eq!(cubic.params().w_max, 0.0);
        assert_eq!(cubic.error_received(-5.0, 1.0), 0.0);
        assert_eq!(cubic.params().k, 0.0);
    }
}
