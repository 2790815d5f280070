//! `x³` as the reference computes it (`pow(x, 3.0)`), to the last bit,
//! usually without calling `pow`.
//!
//! botocore writes CUBIC's curve with Python's `**`, which is the C library's
//! `pow`. The conformance vectors pin its every bit, so the cube must be
//! `pow`'s; but `pow` is a general logarithm-and-exponential routine, and it
//! was the largest single cost of a response on the adaptive path (about
//! 15 ns of 80 with the limiter off, measured).
//!
//! Why an exact cube gives `pow`'s answer: the cube of a double is computed
//! here exactly, in integers (53-bit mantissa cubed, 159 bits), so its
//! correctly rounded value is known, and so is its distance from the
//! rounding boundary. The `pow` of glibc (2.28 and later) and musl, the one
//! CPython and Rust call on Linux, comes from Arm's optimized-routines, whose
//! documented error bound is `0.509 ulp + |y ln x| · 1.5 · 2⁻⁶⁸ / ulp`: for
//! `y = 3` and `2⁻⁶⁴ ≤ |x| < 2⁶⁴` that is below 0.52 ulp. A result within
//! 0.52 ulp of the exact cube is the correctly rounded one whenever the exact
//! cube lies more than 0.48 ulp from its nearest double. So where the exact
//! cube is at least `1/32` ulp away from a rounding boundary (15 cases in 16)
//! it is `pow`'s answer; closer, and outside that range of `x`, this calls
//! `pow`. A libm with a larger error than that bound could differ in the last
//! bit; a unit test compares this with `powf` bit for bit on two million
//! inputs, and the conformance tests replay the vectors through it.

/// The mantissa's stored bits.
const FRACTION: u64 = (1 << 52) - 1;
/// The exponent bias of `f64`.
const BIAS: i64 = 1023;
/// `|x|` in `[2^-64, 2^64)`: the range the error bound above is stated for.
const FAST_EXPONENTS: std::ops::Range<u64> = (BIAS - 64) as u64..(BIAS + 64) as u64;

/// `x.powf(3.0)`, bit for bit (see the module docs for why). On the
/// adaptive response path it costs about 5 ns where `pow` cost 15.
#[inline]
pub(crate) fn cube(x: f64) -> f64 {
    exact_cube_if_unambiguous(x).unwrap_or_else(|| x.powf(3.0))
}

/// The correctly rounded `x³` when `pow`'s answer cannot differ from it;
/// `None` near a rounding boundary or outside the range of `x` covered.
#[inline]
fn exact_cube_if_unambiguous(x: f64) -> Option<f64> {
    let bits = x.to_bits();
    let biased = (bits >> 52) & 0x7ff;
    if !FAST_EXPONENTS.contains(&biased) {
        return None; // zero, subnormal, huge, infinite or NaN: pow decides
    }
    // |x| = m · 2^e with a 53-bit integer m, so |x|³ = m³ · 2^(3e).
    let m = (bits & FRACTION) | (1 << 52);
    let square = u128::from(m) * u128::from(m); // < 2^106
    let low = u128::from(square as u64) * u128::from(m); // < 2^117
    let high = u128::from((square >> 64) as u64) * u128::from(m); // < 2^95
    // m³ = high · 2^64 + low, in [2^156, 2^159). Its top 53 bits come from
    // `top` = m³ >> 64 (93 to 95 bits), and the bits below those are `rest`;
    // the 64 bits below `top` can only move the fraction by less than one
    // unit of `rest`, which the margin covers.
    let top = high + (low >> 64);
    let (top_high, top_low) = ((top >> 64) as u64, top as u64);
    // The cube's binade from the mantissa alone (the smallest m whose cube
    // reaches 2^157, and 2^158): 40, 41 or 42 bits of `top` are dropped.
    let dropped =
        40 + u32::from(m >= 5_674_179_970_822_795) + u32::from(m >= 7_149_018_786_131_517);
    let mantissa = (top_high << (64 - dropped)) | (top_low >> dropped);
    let rest = top_low & ((1 << dropped) - 1);
    let half = 1u64 << (dropped - 1);
    if rest.abs_diff(half) < (1 << (dropped - 5)) {
        return None; // within 1/32 ulp of a tie: pow's last bit is pow's call
    }
    // Rounding up never carries into the exponent: no cube of a 53-bit
    // integer lies within 1.9 ulp below a power of two (the closest are
    // checked in the tests), so the top 53 bits are never all ones.
    let mantissa = mantissa + u64::from(rest > half);
    let scale = i64::from(dropped) + 64 + 3 * (biased as i64 - BIAS - 52);
    // mantissa · 2^scale, with 2^52 <= mantissa < 2^53; always a normal
    // double for |x| in [2^-64, 2^64).
    let exponent = (scale + 52 + BIAS) as u64;
    let sign = bits & (1 << 63);
    Some(f64::from_bits(
        sign | (exponent << 52) | (mantissa & FRACTION),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a fixed, dependency-free stream of test inputs.
    fn inputs(seed: u64) -> impl Iterator<Item = u64> {
        let mut state = seed;
        std::iter::repeat_with(move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    }

    fn assert_same_as_pow(x: f64) {
        assert_eq!(
            cube(x).to_bits(),
            x.powf(3.0).to_bits(),
            "cube({x:e}) = {:e}, pow = {:e}",
            cube(x),
            x.powf(3.0)
        );
    }

    #[test]
    fn is_pow_bit_for_bit_on_random_doubles_in_range() {
        let mut exact = 0;
        for bits in inputs(7).take(1_000_000) {
            // A random mantissa and sign, and an exponent spread over the
            // covered range and a little beyond it.
            let exponent = (BIAS - 70) as u64 + (bits >> 53) % 140;
            let x = f64::from_bits((bits & (FRACTION | 1 << 63)) | exponent << 52);
            assert_same_as_pow(x);
            exact += usize::from(exact_cube_if_unambiguous(x).is_some());
        }
        // The fast path does the work: about 15 in 16 of the 128/140 in range.
        assert!(exact > 800_000, "only {exact} of 1e6 computed exactly");
    }

    #[test]
    fn is_pow_bit_for_bit_on_the_curves_inputs() {
        // What CUBIC cubes: seconds since a throttle minus k, at clock
        // resolutions from a nanosecond to a tick, and k from botocore's fit.
        for bits in inputs(12).take(1_000_000) {
            let t = (bits >> 11) as f64 / (1u64 << 53) as f64 * 600.0;
            let w_max = (bits & 0xfffff) as f64 / 16.0;
            let k = (w_max * (1.0 - 0.7) / 0.4).powf(1.0 / 3.0);
            assert_same_as_pow(t - k);
            assert_same_as_pow((t * 1e3).round() / 1e3 - k);
        }
        for n in -100_000..=100_000 {
            assert_same_as_pow(f64::from(n) / 1024.0); // exact cubes, ties of none
        }
    }

    #[test]
    fn leaves_the_special_values_to_pow() {
        for x in [
            0.0,
            -0.0,
            f64::MIN_POSITIVE / 4.0,
            -f64::MIN_POSITIVE,
            1e-30,
            2f64.powi(-64),
            2f64.powi(64),
            1e200,
            -1e200,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_same_as_pow(x);
        }
        assert!(cube(f64::NAN).is_nan());
        assert_eq!(exact_cube_if_unambiguous(2f64.powi(64)), None);
        assert_eq!(
            exact_cube_if_unambiguous(2f64.powi(-64)),
            Some(2f64.powi(-192))
        );
    }

    #[test]
    fn the_cubes_closest_below_a_power_of_two_round_within_their_binade() {
        // The 53-bit mantissas whose cubes come closest below 2^157, 2^158
        // and 2^159 (1.9 to 4.2 ulp below): rounding them up must not carry.
        for (mantissa, power) in [
            (5_674_179_970_822_794_u64, 157),
            (7_149_018_786_131_516, 158),
            (9_007_199_254_740_991, 159),
        ] {
            let x = mantissa as f64 / 2f64.powi(52); // in [1, 2)
            let cubed = exact_cube_if_unambiguous(x).expect("far from a tie");
            assert!(cubed < 2f64.powi(power - 156), "{cubed}");
            assert_same_as_pow(x);
            assert_same_as_pow(-x);
        }
        assert_eq!(cube(3.0), 27.0);
        assert_eq!(cube(-0.5), -0.125);
    }
}
