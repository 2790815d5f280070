//! Cost of the adaptive rate limiter on the hot path: one send-token acquire
//! plus one response update, as every attempt in adaptive mode pays.
//!
//! Run: `cargo bench -p rebound-runtime --bench rate_limiter`
//! (add `-- --quick` for a short run).
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use rebound_runtime::{internals::RateLimiterState, rate_limiter::ClientRateLimiter};

/// Acquire (sleeping in virtual time until granted) + response update.
/// `now` is the virtual clock: each call spends 1 ms before the send, any
/// wait the limiter asks for, and 0.5 ms until the response.
fn send_and_record(limiter: &ClientRateLimiter, now: &mut f64, throttle: bool) {
    *now += 0.001;
    while let Err(limited) = limiter.try_acquire(black_box(*now)) {
        *now += limited.wait_secs();
    }
    *now += 0.0005;
    limiter.on_response(black_box(*now), black_box(throttle));
}

fn acquire_and_update(c: &mut Criterion) {
    let mut group = c.benchmark_group("rate_limiter/acquire+update");

    group.bench_function("disabled (no throttle yet)", |b| {
        let limiter = ClientRateLimiter::new(0.0);
        let mut now = 0.0;
        b.iter(|| send_and_record(&limiter, &mut now, false));
    });

    group.bench_function("enabled, 1 throttle in 10", |b| {
        let limiter = ClientRateLimiter::new(0.0);
        limiter.on_response(0.0, true);
        let mut now = 0.0;
        let mut i = 0u32;
        b.iter(|| {
            i = i.wrapping_add(1);
            send_and_record(&limiter, &mut now, i.is_multiple_of(10));
        });
    });

    group.bench_function("pure state machine (no lock), 1 throttle in 10", |b| {
        let mut state = RateLimiterState::new(0.0);
        state.on_response(0.0, true);
        let mut now = 0.0;
        let mut i = 0u32;
        b.iter(|| {
            i = i.wrapping_add(1);
            now += 0.001;
            while let Err(limited) = state.try_acquire(black_box(now)) {
                now += limited.wait_secs();
            }
            now += 0.0005;
            state.on_response(black_box(now), black_box(i.is_multiple_of(10)));
        });
    });

    group.finish();
}

/// The same with 4 threads sharing one limiter and one virtual clock (an
/// atomic nanosecond counter: threads read nearly the same time, slightly out
/// of order, as with a real clock). Reported per acquire+update: wall time /
/// operations. The machine may have fewer cores than threads; this shows lock
/// contention, not parallel speed-up.
fn contended(c: &mut Criterion) {
    const THREADS: u64 = 4;
    let mut group = c.benchmark_group("rate_limiter/contended");
    group.bench_function("4 threads, enabled, 1 throttle in 10", |b| {
        b.iter_custom(|iters| {
            let limiter = Arc::new(ClientRateLimiter::new(0.0));
            limiter.on_response(0.0, true);
            let clock_ns = Arc::new(AtomicU64::new(0));
            let per_thread = iters.div_ceil(THREADS);
            let start = Instant::now();
            std::thread::scope(|scope| {
                for _ in 0..THREADS {
                    let limiter = Arc::clone(&limiter);
                    let clock_ns = Arc::clone(&clock_ns);
                    scope.spawn(move || {
                        for i in 0..per_thread {
                            let mut now = secs(clock_ns.fetch_add(1_000_000, Ordering::Relaxed));
                            while let Err(limited) = limiter.try_acquire(black_box(now)) {
                                now += limited.wait_secs();
                                // Sleeping moves the shared clock on.
                                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                                clock_ns.fetch_max((now * 1e9).ceil() as u64, Ordering::Relaxed);
                            }
                            let now = secs(clock_ns.fetch_add(500_000, Ordering::Relaxed));
                            limiter.on_response(black_box(now), black_box(i.is_multiple_of(10)));
                        }
                    });
                }
            });
            start.elapsed()
        });
    });
    group.finish();
}

#[allow(clippy::cast_precision_loss)]
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

criterion_group!(benches, acquire_and_update, contended);
criterion_main!(benches);
