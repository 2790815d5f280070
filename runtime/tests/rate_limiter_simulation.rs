//! Behaviour of the adaptive rate limiter in a small virtual-time simulation:
//! a client that would like to send far faster than a service allows.

use std::cell::Cell;
use std::collections::VecDeque;

use rebound_runtime::rate_limiter::{ClientRateLimiter, WaitPolicy};

/// A service that throttles any request beyond `capacity` in the last second.
struct Service {
    capacity: usize,
    accepted: VecDeque<f64>,
}

impl Service {
    fn handle(&mut self, now: f64) -> bool {
        while self.accepted.front().is_some_and(|&t| t <= now - 1.0) {
            self.accepted.pop_front();
        }
        let throttle = self.accepted.len() >= self.capacity;
        if !throttle {
            self.accepted.push_back(now);
        }
        throttle
    }
}

/// Runs `seconds` of a client that sends every `interval` unless held back;
/// returns (requests sent, throttles received) in the last half of the run.
fn simulate(capacity: usize, interval: f64, seconds: f64) -> (usize, usize) {
    let limiter = ClientRateLimiter::new(0.0);
    let mut service = Service {
        capacity,
        accepted: VecDeque::new(),
    };
    let now = Cell::new(0.0);
    let (mut sent, mut throttled) = (0, 0);
    while now.get() < seconds {
        now.set(now.get() + interval);
        limiter
            .acquire(|| now.get(), |l| now.set(now.get() + l.wait_secs()))
            .expect("blocking acquire");
        let throttle = service.handle(now.get());
        now.set(now.get() + 0.001); // round trip
        limiter.on_response(now.get(), throttle);
        if now.get() > seconds / 2.0 {
            sent += 1;
            throttled += usize::from(throttle);
        }
    }
    (sent, throttled)
}

#[test]
fn converges_near_the_service_capacity() {
    // The client would send 1000/s; the service accepts 20/s.
    let (sent, throttled) = simulate(20, 0.001, 120.0);
    #[allow(clippy::cast_precision_loss)]
    let rate = sent as f64 / 60.0;
    assert!((14.0..=22.0).contains(&rate), "settled at {rate}/s");
    // Far fewer throttles than sends: the limiter, not the service, paces.
    assert!(
        throttled * 5 < sent,
        "{throttled} throttles in {sent} sends"
    );
}

#[test]
fn never_throttled_means_never_limited() {
    let limiter = ClientRateLimiter::new(0.0).with_wait_policy(WaitPolicy::FailFast);
    for i in 0..10_000u32 {
        let now = f64::from(i) * 0.0001;
        assert_eq!(limiter.try_acquire(now), Ok(()));
        limiter.on_response(now, false);
    }
    assert!(!limiter.is_enabled());
}

#[test]
fn fail_fast_reports_the_wait_blocking_would_take() {
    let blocking = ClientRateLimiter::new(0.0);
    let fail_fast = ClientRateLimiter::new(0.0).with_wait_policy(WaitPolicy::FailFast);
    for limiter in [&blocking, &fail_fast] {
        limiter.on_response(0.25, false);
        limiter.on_response(0.75, true);
    }
    let refused = fail_fast
        .acquire(|| 0.75, |_| panic!("fail-fast must not sleep"))
        .unwrap_err();
    let mut waited = Vec::new();
    blocking
        .acquire(|| 0.75, |l| waited.push(l.wait_secs()))
        .unwrap();
    assert_eq!(waited.first(), Some(&refused.wait_secs()));
}
