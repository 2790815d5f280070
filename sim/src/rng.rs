//! Seeds and draws for the simulations, all on rebound's own
//! [`SeededRandom`], so a seed fixes every draw.

use rebound_runtime::backoff::{RandomSource, SeededRandom};

/// SplitMix64's finaliser: mixes words into an independent seed, so every
/// trial (and every stream in it) gets its own reproducible generator.
#[must_use]
pub fn mix(words: &[u64]) -> u64 {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for &word in words {
        state ^= word;
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        state = z ^ (z >> 31);
    }
    state
}

/// A draw from `Normal(mean, sd)` by the Box–Muller transform on two
/// uniform draws of `random`.
#[must_use]
pub fn normal(random: &SeededRandom, mean: f64, sd: f64) -> f64 {
    // 1 - u is in (0, 1], so the logarithm is finite.
    let u1 = 1.0 - random.unit();
    let u2 = random.unit();
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    mean + sd * z
}

/// A draw from the exponential distribution of rate `rate` (mean
/// `1 / rate`): the time between two arrivals of a Poisson process.
/// Infinite for a rate that is not a positive number (no arrival ever).
#[must_use]
pub fn exponential(random: &SeededRandom, rate: f64) -> f64 {
    if rate.is_nan() || rate <= 0.0 {
        return f64::INFINITY;
    }
    // 1 - u is in (0, 1], so the logarithm is finite.
    -(1.0 - random.unit()).ln() / rate
}
