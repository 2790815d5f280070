//! [`CubicShape`]: how deep a throttle cuts the send rate and how fast CUBIC
//! climbs back — botocore's constants by default, an opt-in variant for
//! many clients sharing one capacity.

/// botocore's CUBIC multiplicative decrease: after a throttle, send at 70%
/// of the throttled rate.
pub const BETA: f64 = 0.7;

/// botocore's CUBIC scaling constant `C`: how fast the rate grows away from
/// `w_max`.
pub const SCALE_CONSTANT: f64 = 0.4;

/// The shape of the CUBIC curve the rate limiter follows.
///
/// # Default: botocore's
///
/// [`CubicShape::BOTOCORE`] (also `Default`): a throttle cuts the rate to
/// `beta = 0.7` of the throttled rate, and the curve's scale is the constant
/// `C = 0.4` (requests/s per s³), so the time to climb back to the throttled
/// rate is `k = cbrt(w_max * 0.3 / 0.4)`: 1.96 s at 10 requests/s, 9.1 s at
/// 1000. The conformance vectors pin this shape bit for bit.
///
/// # Opt-in: the same recovery period at every rate
///
/// **Not botocore's algorithm.** [`with_recovery_period`](Self::with_recovery_period)
/// scales the curve to the throttled rate instead, so that it regains it
/// after the same number of seconds whatever the rate.
///
/// Why: each client of a shared capacity is throttled about once per climb,
/// so the share of attempts throttled is about `clients / (k * capacity)`.
/// With botocore's constant, `k` shrinks as the per-client rate does: 30
/// clients sharing 100 requests/s each send about 3.3/s, climb back in 1.35 s,
/// and about 15% of their attempts are throttled (`rebound-sim capacity`).
/// A fixed period of 8 s holds that to `30 / (8 * 100)`, under 4%, and at
/// 1000 requests/s it is about botocore's own `k`.
///
/// [`with_beta`](Self::with_beta) sets the cut. A gentler cut spends less
/// time below the capacity (the curve averages `1 - (1 - beta) / 4` of the
/// throttled rate on its way back) at the price of more steps to come down
/// from far above it.
///
/// ```
/// use rebound_runtime::rate_limiter::CubicShape;
///
/// let shape = CubicShape::BOTOCORE.with_beta(0.8)?.with_recovery_period(8.0)?;
/// assert_eq!(shape.beta(), 0.8);
/// assert_eq!(shape.recovery_period(), Some(8.0));
/// // Bad input is refused, naming it:
/// assert!(CubicShape::BOTOCORE.with_beta(1.5).is_err());
/// # Ok::<(), rebound_runtime::rate_limiter::CubicShapeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicShape {
    beta: f64,
    growth: Growth,
}

/// How the curve is scaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Growth {
    /// botocore: a fixed constant `C`, so the climb back takes longer at
    /// higher rates.
    Constant(f64),
    /// The climb back to the throttled rate takes this many seconds at
    /// every rate (`C = w_max * (1 - beta) / period³`).
    Period(f64),
}

/// A [`CubicShape`] setting out of range; the message names the value.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CubicShapeError {
    /// `beta` must be a number strictly between 0 and 1.
    #[error("CUBIC beta must be strictly between 0 and 1, got {0}")]
    Beta(f64),
    /// The recovery period must be a finite number of seconds above 0.
    #[error("CUBIC recovery period must be finite and above 0 seconds, got {0}")]
    RecoveryPeriod(f64),
}

impl CubicShape {
    /// botocore's shape: `beta` 0.7, constant `C` 0.4.
    pub const BOTOCORE: Self = Self {
        beta: BETA,
        growth: Growth::Constant(SCALE_CONSTANT),
    };

    /// **Opt-in, not botocore's algorithm.** The shape `rebound-sim capacity`
    /// found to hold a shared capacity at 95% or more with at most 5% of
    /// attempts throttled, together with
    /// [`cut_once_per_event`](crate::AdaptiveRetryStrategyBuilder::cut_once_per_event):
    /// a cut to 85% and a recovery period of 8 s at every rate.
    ///
    /// The price: coming down from far above the capacity takes more cuts
    /// (each keeps 85% rather than 70%), and a client throttled at a low rate
    /// probes upward more slowly than botocore's (relative to its rate: 15%
    /// above it 16 s after the throttle, 2.2 times it after 24 s, whatever the
    /// rate; below 1 request/s botocore's curve is kept, so a rate cut far
    /// down by a long run of throttles finds the capacity again in seconds).
    pub const GENTLE: Self = Self {
        beta: 0.85,
        growth: Growth::Period(8.0),
    };

    /// **Opt-in, not botocore's algorithm.** A cut to 95%, back in 6 s at
    /// every rate: the shape of a rate cut from a measured capacity rather
    /// than from a process's own sending rate, as `rebound-redis`'s fleet
    /// limiter cuts from what the whole fleet was admitted when it was
    /// throttled. The capacity being known, a shallow cut clears the
    /// overload that the probe above it made.
    pub const SHALLOW: Self = Self {
        beta: 0.95,
        growth: Growth::Period(6.0),
    };

    /// The same shape with the cut `beta`: after a throttle the rate is
    /// `beta` times the throttled rate. Must be strictly between 0 and 1.
    ///
    /// # Errors
    ///
    /// [`CubicShapeError::Beta`] otherwise (NaN included).
    pub fn with_beta(self, beta: f64) -> Result<Self, CubicShapeError> {
        if beta > 0.0 && beta < 1.0 {
            Ok(Self { beta, ..self })
        } else {
            Err(CubicShapeError::Beta(beta))
        }
    }

    /// **Opt-in.** The same cut, with the curve scaled so that the rate
    /// climbs back to the throttled rate `secs` seconds after a throttle,
    /// at every rate (see the [type docs](Self#opt-in-the-same-recovery-period-at-every-rate)).
    ///
    /// # Errors
    ///
    /// [`CubicShapeError::RecoveryPeriod`] unless `secs` is finite and above 0.
    pub fn with_recovery_period(self, secs: f64) -> Result<Self, CubicShapeError> {
        if secs.is_finite() && secs > 0.0 {
            Ok(Self {
                growth: Growth::Period(secs),
                ..self
            })
        } else {
            Err(CubicShapeError::RecoveryPeriod(secs))
        }
    }

    /// The cut: the share of the throttled rate kept after a throttle.
    pub const fn beta(&self) -> f64 {
        self.beta
    }

    /// The fixed recovery period, or `None` for botocore's constant scale.
    pub const fn recovery_period(&self) -> Option<f64> {
        match self.growth {
            Growth::Constant(_) => None,
            Growth::Period(secs) => Some(secs),
        }
    }

    pub(crate) const fn growth(&self) -> Growth {
        self.growth
    }
}

impl Default for CubicShape {
    fn default() -> Self {
        Self::BOTOCORE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn botocore_is_the_default() {
        assert_eq!(CubicShape::default(), CubicShape::BOTOCORE);
        assert_eq!(CubicShape::BOTOCORE.beta(), 0.7);
        assert_eq!(CubicShape::BOTOCORE.recovery_period(), None);
    }

    #[test]
    fn out_of_range_settings_are_refused_by_name() {
        for beta in [0.0, 1.0, -0.5, 2.0, f64::NAN, f64::INFINITY] {
            let err = CubicShape::BOTOCORE.with_beta(beta).unwrap_err();
            assert!(matches!(err, CubicShapeError::Beta(_)));
            assert!(err.to_string().contains("beta"), "{err}");
        }
        for secs in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = CubicShape::BOTOCORE.with_recovery_period(secs).unwrap_err();
            assert!(matches!(err, CubicShapeError::RecoveryPeriod(_)));
            assert!(err.to_string().contains("recovery period"), "{err}");
        }
        assert_eq!(
            CubicShape::BOTOCORE
                .with_recovery_period(2.5)
                .unwrap()
                .recovery_period(),
            Some(2.5)
        );
    }
}
