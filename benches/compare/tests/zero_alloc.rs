//! Zero heap allocations per request on rebound's standard and adaptive
//! request paths, after warm-up, counted by a global allocator wrapper.
//!
//! The counter is per thread, so tests running in parallel do not see each
//! other's allocations. The only `unsafe` of the bench crate is here: a
//! `GlobalAlloc` impl must be `unsafe`, and it forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use rebound::time::CoarseClock;
use rebound::time::ManualClock;
use rebound::{AdaptiveRetryStrategy, Retry, RetryStrategy, StandardRetryStrategy};
use rebound_bench_compare::{DerivedUnavailable, HandUnavailable, Throttled, request, success};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every call is forwarded unchanged to `System`; counting touches a
// const-initialised thread-local `Cell` without a destructor, which neither
// allocates nor re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by 1,000 runs of `request`, after 100 runs of warm-up.
fn allocations_per_1000(mut request: impl FnMut()) -> u64 {
    for _ in 0..100 {
        request();
    }
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..1000 {
        request();
    }
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn the_counter_sees_an_allocation() {
    assert!(allocations_per_1000(|| drop(std::hint::black_box(Box::new(1u64)))) >= 1000);
}

#[test]
fn standard_success_does_not_allocate() {
    let strategy = StandardRetryStrategy::new();
    assert_eq!(
        allocations_per_1000(|| assert_eq!(success(&strategy), 1)),
        0
    );
}

#[test]
fn standard_failure_then_success_does_not_allocate() {
    let strategy = StandardRetryStrategy::new();
    assert_eq!(
        allocations_per_1000(|| assert_eq!(
            request(&strategy, 1, &HandUnavailable, &mut |_| {}),
            2
        )),
        0,
        "hand-written classification"
    );
    assert_eq!(
        allocations_per_1000(|| assert_eq!(
            request(&strategy, 1, &DerivedUnavailable, &mut |_| {}),
            2
        )),
        0,
        "derive(RetryInfo) classification"
    );
}

#[test]
fn adaptive_with_the_limiter_off_does_not_allocate() {
    let strategy = AdaptiveRetryStrategy::new();
    assert_eq!(
        allocations_per_1000(|| assert_eq!(success(&strategy), 1)),
        0,
        "success"
    );
    assert_eq!(
        allocations_per_1000(|| assert_eq!(
            request(&strategy, 1, &HandUnavailable, &mut |_| {}),
            2
        )),
        0,
        "failure then success"
    );
    assert!(!strategy.rate_limiter().is_enabled());
}

#[test]
fn adaptive_on_the_coarse_clock_does_not_allocate() {
    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(CoarseClock::new())
        .build();
    assert_eq!(
        allocations_per_1000(|| assert_eq!(success(&strategy), 1)),
        0,
        "success"
    );
    assert!(!strategy.rate_limiter().is_enabled());
}

#[test]
fn adaptive_with_the_limiter_on_does_not_allocate() {
    // Virtual time: 1 ms per request, every wait "slept" by moving the clock.
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(clock.clone())
        .build();
    let token = strategy.acquire_initial_token().unwrap();
    let token = strategy.refresh_retry_token(token, &Throttled).unwrap();
    strategy.record_success(token);
    assert!(strategy.rate_limiter().is_enabled());
    let mut waits = 0u64;
    let mut on_wait = |wait: Duration| {
        waits += 1;
        clock.advance(wait);
    };
    let allocations = allocations_per_1000(|| {
        clock.advance(Duration::from_millis(1));
        request(&strategy, 0, &Throttled, &mut on_wait);
    });
    assert_eq!(allocations, 0, "success");
    let allocations = allocations_per_1000(|| {
        clock.advance(Duration::from_millis(1));
        request(&strategy, 1, &Throttled, &mut on_wait);
    });
    assert_eq!(allocations, 0, "throttle then success");
    assert!(waits > 0, "the limiter made requests wait");
}

#[test]
fn the_blocking_executor_does_not_allocate() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(|_: Duration| {});
    assert_eq!(
        allocations_per_1000(|| {
            let out = retry.run(|attempt| {
                if attempt < 2 {
                    Err(HandUnavailable)
                } else {
                    Ok(attempt)
                }
            });
            assert_eq!(out.unwrap(), 2);
        }),
        0
    );
}

/// `Retry::run` with `listener` on a success, and on a failure then a
/// success: allocations per 1,000 requests of each.
fn observed_allocations(listener: impl rebound::RetryListener) -> (u64, u64) {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(|_: Duration| {}).listener(listener);
    let success = allocations_per_1000(|| {
        assert_eq!(retry.run(|attempt| Ok::<_, HandUnavailable>(attempt)).unwrap(), 1);
    });
    let failure = allocations_per_1000(|| {
        let out = retry.run(|attempt| if attempt < 2 { Err(HandUnavailable) } else { Ok(attempt) });
        assert_eq!(out.unwrap(), 2);
    });
    (success, failure)
}

#[test]
fn an_observer_on_an_opentelemetry_meter_does_not_allocate() {
    let provider = rebound_bench_compare::observers::otel_provider();
    let observer = rebound_bench_compare::observers::otel_observer(&provider);
    assert_eq!(observed_allocations(&observer), (0, 0));
    assert_eq!(observer.counts().total_attempts(), 2 * 1100 + 1100);
}

#[test]
fn an_observer_through_metrics_does_not_allocate_on_a_success() {
    let (_recorder, observer) = rebound_bench_compare::observers::metrics_observer();
    let (success, failure) = observed_allocations(&observer);
    assert_eq!(success, 0);
    // The Prometheus recorder keeps every histogram sample until it renders:
    // a block per so many samples, freed at the next scrape.
    assert!(failure < 100, "{failure} per 1,000 requests that retry");
    eprintln!("metrics observer: {failure} allocations per 1,000 requests that retry");
}
