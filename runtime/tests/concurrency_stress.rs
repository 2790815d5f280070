//! Issue #8, item 14: many threads share one standard and one adaptive
//! strategy for a million mixed operations each (about a second in a debug
//! build), checking the shared state as they go:
//!
//! - the retry quota never leaves `0..=capacity`, and is full again after a
//!   final run of successes;
//! - a retry's delay is only its own backoff (never a wait booked by another
//!   request), and a send permit's wait is at most the limiter's 0.25 s
//!   recheck interval, whatever the other threads do;
//! - a ceiling a coordinator sets on the adaptive limiter (`RateControl`, what a fleet's
//!   background task does) holds while the threads send and answer.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::{
    AdaptiveRetryStrategy, RetryBehavior, RetryStrategy, SendPermit, StandardRetryStrategy,
    time::ManualClock,
};

const THREADS: u64 = 8;

fn operations_per_thread() -> u64 {
    1_000_000 / THREADS
}

/// A small deterministic generator per thread (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn percent(&mut self) -> u64 {
        self.next() % 100
    }
}

fn failure(rng: &mut Rng) -> HttpErrorResponse {
    match rng.percent() {
        0..=39 => HttpErrorResponse::new(503),
        40..=79 => HttpErrorResponse::new(400).with_code("ThrottlingException"),
        _ => HttpErrorResponse::new(500),
    }
}

/// Runs requests on `strategy` from `THREADS` threads: each attempt fails
/// with probability `fail_percent`. `check` runs after every operation.
fn hammer<S: RetryStrategy + 'static>(
    strategy: &Arc<S>,
    fail_percent: u64,
    check: impl Fn(&S) + Send + Sync + 'static,
    now: impl Fn() -> Duration + Send + Sync + 'static,
    on_permit: impl Fn(SendPermit, Duration) + Send + Sync + 'static,
) {
    let now = Arc::new(now);
    let check = Arc::new(check);
    let on_permit = Arc::new(on_permit);
    let handles: Vec<_> = (0..THREADS)
        .map(|seed| {
            let (strategy, check, on_permit, now) = (
                Arc::clone(strategy),
                Arc::clone(&check),
                Arc::clone(&on_permit),
                Arc::clone(&now),
            );
            thread::spawn(move || {
                let mut rng = Rng(seed * 0x9E37_79B9 + 1);
                let mut ops = 0;
                while ops < operations_per_thread() {
                    let mut token = strategy.acquire_initial_token().expect("initial token");
                    loop {
                        let before = now();
                        let permit = strategy.acquire_send_permit(&mut token).expect("blocking");
                        // How far other threads moved the shared clock meanwhile.
                        on_permit(permit, now().saturating_sub(before));
                        ops += 1;
                        if rng.percent() >= fail_percent {
                            strategy.record_success(token);
                            break;
                        }
                        let failed = failure(&mut rng);
                        match strategy.refresh_retry_token(token, &failed) {
                            Ok(next) => {
                                assert!(next.delay() <= Duration::from_secs(20), "{next:?}");
                                token = next;
                            }
                            Err(_) => break,
                        }
                        check(&strategy);
                    }
                    check(&strategy);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("no thread panicked");
    }
}

/// Successes only, until the quota has had every chance to refill.
fn settle<S: RetryStrategy + 'static>(strategy: &Arc<S>) {
    hammer(strategy, 0, |_| {}, || Duration::ZERO, |_, _| {});
}

#[test]
fn a_shared_standard_strategy_keeps_its_quota_in_bounds() {
    let strategy = Arc::new(
        StandardRetryStrategy::builder()
            .behavior(RetryBehavior::V2_1)
            .random(|| 0.5)
            .build(),
    );
    let capacity = strategy.quota().capacity();
    hammer(
        &strategy,
        30,
        move |s: &StandardRetryStrategy| {
            let available = s.quota().available();
            assert!(available <= capacity, "{available} > {capacity}");
        },
        || Duration::ZERO,
        |permit, _| assert_eq!(permit, SendPermit::Granted),
    );
    settle(&strategy);
    assert_eq!(
        strategy.quota().available(),
        capacity,
        "full after successes"
    );
}

#[test]
fn a_shared_adaptive_strategy_keeps_quota_and_waits_in_bounds() {
    adaptive_keeps_quota_and_waits_in_bounds(false);
}

/// The same with the opt-in of one cut per congestion event, whose check
/// reads each token's send time against the limiter's last cut.
#[test]
fn a_shared_adaptive_strategy_cutting_once_per_event_keeps_its_bounds() {
    adaptive_keeps_quota_and_waits_in_bounds(true);
}

fn adaptive_keeps_quota_and_waits_in_bounds(cut_once_per_event: bool) {
    let clock = ManualClock::new();
    let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
    let strategy = Arc::new(
        AdaptiveRetryStrategy::builder(standard)
            .clock(clock.clone())
            .cut_once_per_event(cut_once_per_event)
            .build(),
    );
    let capacity = strategy.standard().quota().capacity();
    let (advance, read) = (clock.clone(), clock.clone());
    hammer(
        &strategy,
        30,
        move |s: &AdaptiveRetryStrategy<ManualClock>| {
            let available = s.standard().quota().available();
            assert!(available <= capacity, "{available} > {capacity}");
        },
        move || read.elapsed(),
        move |permit, moved| {
            // A waiting caller is told to ask again after at most 0.25 s
            // (rounding up to whole nanoseconds adds at most 1 ns), plus
            // however far other threads moved the shared clock between this
            // thread's reading and the limiter's lock (a stale reading
            // counts as behind).
            let bound = Duration::from_nanos(250_000_001) + moved;
            assert!(permit.wait() <= bound, "{permit:?} > {bound:?}");
            // Time passes for everyone: virtual, shared, advanced by waits.
            advance.advance(permit.wait() / 64 + Duration::from_micros(50));
        },
    );
    assert!(strategy.rate_limiter().is_enabled());
    settle(&strategy);
    assert_eq!(strategy.standard().quota().available(), capacity);
}

/// A coordinator (a fleet's background task) sets and lifts a ceiling on a shared adaptive
/// strategy while 8 threads send and answer through it: after each ceiling is set, every
/// reading shows it and a send rate at or below it, whatever the responses recompute.
#[test]
fn a_ceiling_set_by_a_coordinator_holds_under_load() {
    use rebound_runtime::rate_limiter::RateControl;
    use std::sync::atomic::{AtomicBool, Ordering};

    let clock = ManualClock::new();
    let standard = StandardRetryStrategy::builder().random(|| 0.5).build();
    let strategy = Arc::new(
        AdaptiveRetryStrategy::builder(standard)
            .clock(clock.clone())
            .build(),
    );
    let done = Arc::new(AtomicBool::new(false));
    let coordinator = {
        let (strategy, done) = (Arc::clone(&strategy), Arc::clone(&done));
        thread::spawn(move || {
            let mut rng = Rng(0x00c0_ffee);
            let mut checked = 0_u64;
            while !done.load(Ordering::Acquire) {
                let ceiling = (rng.percent() > 10).then(|| 0.5 + (rng.next() % 2000) as f64 / 10.0);
                strategy.set_ceiling(ceiling);
                for _ in 0..16 {
                    let reading = strategy.reading();
                    assert_eq!(reading.ceiling, ceiling.map(|c| c.max(0.5)));
                    if let (Some(ceiling), Some(rate)) = (ceiling, reading.send_rate) {
                        assert!(rate <= ceiling.max(0.5), "{rate} > {ceiling}");
                        checked += 1;
                    }
                }
            }
            checked
        })
    };
    let advance = clock.clone();
    let read = clock.clone();
    hammer(
        &strategy,
        30,
        |_: &AdaptiveRetryStrategy<ManualClock>| {},
        move || read.elapsed(),
        move |permit, _| advance.advance(permit.wait() / 64 + Duration::from_micros(50)),
    );
    done.store(true, Ordering::Release);
    let checked = coordinator.join().unwrap();
    assert!(checked > 1000, "{checked} readings under a ceiling");
}
