//! Any sequence of timed responses (throttled or not) and send attempts,
//! at any times (steps forward and back, repeats, NaN, infinities, huge
//! values), fed to the adaptive rate limiter.
//!
//! Checks:
//! - no panic;
//! - at every look and at the end, `ClientRateLimiter`, whose responses wait
//!   in its lock-free log until a look or a send applies them, is in exactly
//!   the state the plain `RateLimiterState` reaches by applying the same
//!   calls one by one (the log's claim: one thread's responses are applied
//!   in order, a run of successes as a count), and every send gets the same
//!   answer from both;
//! - after every step, every number of the state is finite; the measured rate is at least 0
//!   and at most 2 per response seen so far (a half-second bucket's count
//!   over at least half a second); the fill rate is at least the floor of
//!   0.5/s and, after a response, at most `max(2 × measured rate, 0.5)`;
//!   the capacity is between 0 and its maximum, which is at least 1;
//! - the limiter is on exactly when a throttle was seen, and `send_rate` says
//!   so; a refused send's wait is positive, finite and at most the time the
//!   bucket is ahead of the send plus one token at the floor rate (2 s).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rebound_runtime::internals::{
    MAX_RATE_ADJUST_SCALE, MIN_CAPACITY, MIN_FILL_RATE, RateLimiterSnapshot, RateLimiterState,
};
use rebound_runtime::rate_limiter::{ClientRateLimiter, CubicShape};

/// When a step happens, relative to the previous step's time.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Time {
    /// The same time again (a clock that ticks in steps).
    Same,
    /// Milliseconds later.
    Millis(u16),
    /// Nanoseconds later.
    Nanos(u32),
    /// Milliseconds earlier (a late response, or a clock stepping back).
    Back(u16),
    /// This time exactly, whatever it is (NaN, infinite, negative, huge).
    At(f64),
}

#[derive(Arbitrary, Debug)]
enum Step {
    Response {
        time: Time,
        throttle: bool,
    },
    Send {
        time: Time,
    },
    /// A look at the limiter's state, which applies its log (sends do too,
    /// once the limiter is on; between looks responses wait in the log).
    Look,
}

#[derive(Arbitrary, Debug)]
struct Input {
    start: f64,
    gentle: bool,
    steps: Vec<Step>,
}

/// The longest wait a send is told, beyond the time the bucket is ahead of
/// it: one token at the floor rate.
const ONE_TOKEN_AT_THE_FLOOR: f64 = 1.0 / MIN_FILL_RATE;

/// Room for the rounding of one smoothing step or one subtraction.
const SLACK: f64 = 1.0 + 1e-9;

fn check(snap: &RateLimiterSnapshot, responses: u64) {
    for (name, value) in [
        ("measured_rate", snap.measured_rate),
        ("last_bucket", snap.last_bucket),
        ("fill_rate", snap.fill_rate),
        ("max_capacity", snap.max_capacity),
        ("current_capacity", snap.current_capacity),
        ("last_timestamp", snap.last_timestamp),
        ("w_max", snap.w_max),
        ("k", snap.k),
        ("last_fail", snap.last_fail),
    ] {
        assert!(value.is_finite(), "{name} = {value}: {snap:?}");
    }
    #[allow(clippy::cast_precision_loss)]
    let most = 2.0 * responses as f64 * SLACK;
    assert!(
        snap.measured_rate >= 0.0 && snap.measured_rate <= most,
        "measured rate {} after {responses} responses: {snap:?}",
        snap.measured_rate
    );
    assert!(snap.fill_rate >= MIN_FILL_RATE, "{snap:?}");
    assert!(snap.max_capacity >= MIN_CAPACITY, "{snap:?}");
    assert!(
        snap.current_capacity >= 0.0 && snap.current_capacity <= snap.max_capacity,
        "{snap:?}"
    );
    assert!(snap.w_max >= 0.0 && snap.k >= 0.0, "{snap:?}");
}

fuzz_target!(|input: Input| {
    let shape = if input.gentle {
        CubicShape::GENTLE
    } else {
        CubicShape::BOTOCORE
    };
    let limiter = ClientRateLimiter::new(input.start).with_cubic_shape(shape);
    let mut mirror = RateLimiterState::new(input.start).with_cubic_shape(shape);
    let mut now = if input.start.is_finite() {
        input.start
    } else {
        0.0
    };
    let (mut responses, mut throttled) = (0_u64, false);
    for step in input.steps.iter().take(2000) {
        let time = match step {
            Step::Response { time, .. } | Step::Send { time } => *time,
            Step::Look => {
                same_state(&limiter, &mirror);
                continue;
            }
        };
        let at = match time {
            Time::Same => now,
            Time::Millis(ms) => now + f64::from(ms) * 1e-3,
            Time::Nanos(ns) => now + f64::from(ns) * 1e-9,
            Time::Back(ms) => now - f64::from(ms) * 1e-3,
            Time::At(t) => t,
        };
        if at.is_finite() {
            now = at;
        }
        if let Step::Response { throttle, .. } = *step {
            limiter.on_response(at, throttle);
            mirror.on_response(at, throttle);
            responses += 1;
            throttled |= throttle;
            let snap = mirror.snapshot();
            let most = (MAX_RATE_ADJUST_SCALE * snap.measured_rate).max(MIN_FILL_RATE);
            assert!(snap.fill_rate <= most * SLACK, "{snap:?}");
        } else {
            let ahead = (mirror.snapshot().last_timestamp - at).max(0.0);
            let got = limiter.try_acquire(at);
            assert_eq!(got, mirror.try_acquire(at), "send at {at}");
            if let Err(limited) = got {
                let wait = limited.wait_secs();
                assert!(wait > 0.0 && wait.is_finite(), "wait {wait} at {at}");
                if ahead.is_finite() {
                    let most = (ahead + ONE_TOKEN_AT_THE_FLOOR) * SLACK;
                    assert!(wait <= most, "wait {wait} at {at}, bucket {ahead} s ahead");
                }
            }
        }
        check(&mirror.snapshot(), responses);
        assert_eq!(mirror.is_enabled(), throttled);
        assert_eq!(limiter.is_enabled(), throttled);
    }
    same_state(&limiter, &mirror);
});

/// The limiter, its log applied, is in the mirror's state, bit for bit.
fn same_state(limiter: &ClientRateLimiter, mirror: &RateLimiterState) {
    let snap = limiter.snapshot();
    assert_eq!(format!("{snap:?}"), format!("{:?}", mirror.snapshot()));
    let enabled = mirror.is_enabled();
    assert_eq!(limiter.send_rate(), enabled.then_some(snap.fill_rate));
}
