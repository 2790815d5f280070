//! How long to wait before a retry: [`Backoff`] formulas, the
//! [`RandomSource`] their jitter draws from, and the [`RetryAfterPolicy`] that
//! reconciles them with a wait the service asked for.
//!
//! Exponential backoff spaces retries out so a struggling service gets time to
//! recover; jitter spreads the retries of many clients so they do not arrive
//! together (AWS Architecture Blog, "Exponential Backoff And Jitter"). All
//! formulas are computed in `f64` seconds, in the order the AWS SDKs use
//! (cap first, then the random factor), and converted to a [`Duration`] once.

mod random;
mod retry_after;

use core::time::Duration;

pub(crate) use random::ThreadRandom;
pub use random::{RandomSource, SeededRandom};
pub use retry_after::RetryAfterPolicy;

/// A backoff formula. `attempt` is the 1-based number of the attempt that
/// just failed, so the first retry uses `base * 2^0`.
///
/// With `v = min(cap, base * 2^(attempt - 1))` and `r` a uniform draw from
/// `[0, 1)`:
///
/// | variant | delay | draws |
/// |---|---|---|
/// | [`None`](Self::None) | `0` | 0 |
/// | [`Constant`](Self::Constant) | the constant | 0 |
/// | [`Exponential`](Self::Exponential) | `v` | 0 |
/// | [`FullJitter`](Self::FullJitter) | `r * v` (AWS standard mode) | 1 |
/// | [`EqualJitter`](Self::EqualJitter) | `v/2 + r * v/2` | 1 |
/// | [`DecorrelatedJitter`](Self::DecorrelatedJitter) | `min(cap, base + r * (3 * max(previous, base) - base))` | 1 |
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::backoff::Backoff;
///
/// let ms = Duration::from_millis;
/// let half = || 0.5; // an injected "random" draw
///
/// let exponential = Backoff::Exponential { base: ms(100), cap: ms(250) };
/// assert_eq!(exponential.delay(1, Duration::ZERO, &half), ms(100));
/// assert_eq!(exponential.delay(3, Duration::ZERO, &half), ms(250)); // 400 ms, capped
///
/// let full = Backoff::FullJitter { base: ms(100), cap: ms(20_000) };
/// assert_eq!(full.delay(2, Duration::ZERO, &half), ms(100)); // 0.5 * 200 ms
///
/// let equal = Backoff::EqualJitter { base: ms(100), cap: ms(20_000) };
/// assert_eq!(equal.delay(2, Duration::ZERO, &half), ms(150)); // 100 + 0.5 * 100 ms
///
/// let decorrelated = Backoff::DecorrelatedJitter { base: ms(100), cap: ms(20_000) };
/// assert_eq!(decorrelated.delay(1, ms(300), &half), ms(500)); // 100 + 0.5 * (900 - 100) ms
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backoff {
    /// Retry at once.
    None,
    /// Always the same delay.
    Constant(Duration),
    /// `min(cap, base * 2^(attempt - 1))`, no jitter.
    Exponential {
        /// The first delay.
        base: Duration,
        /// The longest delay.
        cap: Duration,
    },
    /// `r * min(cap, base * 2^(attempt - 1))`: the AWS SDKs' standard mode.
    FullJitter {
        /// The longest first delay.
        base: Duration,
        /// The longest delay.
        cap: Duration,
    },
    /// Half the exponential delay, plus a random part of the other half:
    /// never shorter than half the exponential delay.
    EqualJitter {
        /// The first exponential delay.
        base: Duration,
        /// The longest delay.
        cap: Duration,
    },
    /// `min(cap, random between base and 3 × the previous delay)`: grows with
    /// the previous delay rather than with the attempt number.
    DecorrelatedJitter {
        /// The shortest delay, and the "previous delay" of the first retry.
        base: Duration,
        /// The longest delay.
        cap: Duration,
    },
}

impl Backoff {
    /// The delay before the retry that follows failed attempt `attempt`
    /// (1-based; `0` is treated as `1`). `previous` is the delay slept before
    /// that attempt (only [`DecorrelatedJitter`](Self::DecorrelatedJitter)
    /// uses it; pass [`RetryToken::delay`](crate::RetryToken::delay)).
    #[must_use]
    pub fn delay(&self, attempt: u32, previous: Duration, random: &dyn RandomSource) -> Duration {
        secs_to_duration(self.delay_secs(attempt, previous, random))
    }

    /// [`delay`](Self::delay) in `f64` seconds, before rounding to whole
    /// nanoseconds: the strategy adds a retry-after hint at this precision.
    pub(crate) fn delay_secs(
        &self,
        attempt: u32,
        previous: Duration,
        random: &dyn RandomSource,
    ) -> f64 {
        match *self {
            Self::None => 0.0,
            Self::Constant(delay) => delay.as_secs_f64(),
            Self::Exponential { base, cap } => exponential_secs(base, cap, attempt),
            Self::FullJitter { base, cap } => draw(random) * exponential_secs(base, cap, attempt),
            Self::EqualJitter { base, cap } => {
                let half = exponential_secs(base, cap, attempt) / 2.0;
                half + draw(random) * half
            }
            Self::DecorrelatedJitter { base, cap } => {
                let base = base.as_secs_f64();
                let upper = 3.0 * previous.as_secs_f64().max(base);
                (base + draw(random) * (upper - base)).min(cap.as_secs_f64())
            }
        }
    }
}

/// `min(cap, base * 2^(attempt - 1))`, in seconds. The exponent is bounded so
/// that a zero base stays zero instead of becoming `0 * inf`.
fn exponential_secs(base: Duration, cap: Duration, attempt: u32) -> f64 {
    let exponent = attempt.saturating_sub(1).min(1023) as i32;
    (base.as_secs_f64() * 2f64.powi(exponent)).min(cap.as_secs_f64())
}

/// One draw, clamped into `[0, 1]` so that a faulty source cannot produce a
/// negative or infinite delay.
pub(crate) fn draw(random: &dyn RandomSource) -> f64 {
    let r = random.unit();
    if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) }
}

/// Seconds to a `Duration`, saturating instead of panicking: negative or NaN
/// is zero, too large is [`Duration::MAX`].
pub(crate) fn secs_to_duration(secs: f64) -> Duration {
    if secs.is_nan() || secs <= 0.0 {
        Duration::ZERO
    } else {
        Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn deterministic_kinds_draw_nothing() {
        let no_draw = || -> f64 { panic!("no draw expected") };
        assert_eq!(Backoff::None.delay(5, MS(1), &no_draw), Duration::ZERO);
        assert_eq!(Backoff::Constant(MS(7)).delay(9, MS(1), &no_draw), MS(7));
        let exp = Backoff::Exponential {
            base: MS(10),
            cap: MS(1000),
        };
        let delays: Vec<_> = (0..=9)
            .map(|n| exp.delay(n, Duration::ZERO, &no_draw))
            .collect();
        assert_eq!(
            delays[..8],
            [
                MS(10),
                MS(10),
                MS(20),
                MS(40),
                MS(80),
                MS(160),
                MS(320),
                MS(640)
            ]
        );
        assert_eq!(delays[8..], [MS(1000), MS(1000)]);
    }

    #[test]
    fn jitter_bounds_hold_for_extreme_draws() {
        let (zero, one) = (|| 0.0, || 1.0);
        let full = Backoff::FullJitter {
            base: MS(100),
            cap: MS(1000),
        };
        assert_eq!(full.delay(3, Duration::ZERO, &zero), Duration::ZERO);
        assert_eq!(full.delay(3, Duration::ZERO, &one), MS(400));
        let equal = Backoff::EqualJitter {
            base: MS(100),
            cap: MS(1000),
        };
        assert_eq!(equal.delay(3, Duration::ZERO, &zero), MS(200));
        assert_eq!(equal.delay(9, Duration::ZERO, &one), MS(1000));
        let decorrelated = Backoff::DecorrelatedJitter {
            base: MS(100),
            cap: MS(1000),
        };
        assert_eq!(decorrelated.delay(1, Duration::ZERO, &zero), MS(100));
        assert_eq!(decorrelated.delay(1, Duration::ZERO, &one), MS(300));
        assert_eq!(decorrelated.delay(4, MS(900), &one), MS(1000));
    }

    #[test]
    fn faulty_draws_and_huge_values_never_panic() {
        let nan = || f64::NAN;
        let huge = || 7.0;
        let full = Backoff::FullJitter {
            base: MS(100),
            cap: MS(1000),
        };
        assert_eq!(full.delay(1, Duration::ZERO, &nan), Duration::ZERO);
        assert_eq!(full.delay(1, Duration::ZERO, &huge), MS(100));
        let uncapped = Backoff::Exponential {
            base: Duration::MAX,
            cap: Duration::MAX,
        };
        assert!(
            uncapped.delay(u32::MAX, Duration::ZERO, &huge) >= Duration::from_secs(u64::MAX / 2)
        );
        let zero_base = Backoff::Exponential {
            base: Duration::ZERO,
            cap: Duration::MAX,
        };
        assert_eq!(
            zero_base.delay(u32::MAX, Duration::ZERO, &huge),
            Duration::ZERO
        );
    }
}
