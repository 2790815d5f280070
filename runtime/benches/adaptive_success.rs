//! One successful request through `AdaptiveRetryStrategy`, as the executors
//! drive it: `acquire_initial_token`, `acquire_send_permit`,
//! `record_success`. On 1 and 2 threads sharing one strategy, with the rate
//! limiter off (no throttle yet) and on (after one throttle).
//!
//! With the limiter on, the strategy's clock is the default clock's reading
//! multiplied by 1000 (`Faster`): a send rate of tens of millions per second
//! becomes tens of thousands per limiter-second, which CUBIC recovers to
//! within the warm-up, so the benchmark measures what a granted send and a
//! success cost rather than the limiter holding the loop to a rate. A
//! permit that says wait is asked for again at once; the share of such
//! answers is printed after each benchmark.
//!
//! Run: `cargo bench -p rebound-runtime --bench adaptive_success`.
//! Pass `--noplot` when
//! comparing two builds run by turns.
#![allow(missing_docs)]

use std::fmt;
use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::time::{Clock, CoarseClock, FastClock, SystemClock};
use rebound_runtime::{AdaptiveRetryStrategy, RetryStrategy, SendPermit, StandardRetryStrategy};

/// A clock `C` running 1000 times faster, from the first reading on.
struct Faster<C> {
    inner: C,
    start: Instant,
}

impl<C: Clock> Faster<C> {
    fn new(inner: C) -> Self {
        let start = inner.now();
        Self { inner, start }
    }
}

impl<C> fmt::Debug for Faster<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Faster")
    }
}

impl<C: Clock> Clock for Faster<C> {
    fn now(&self) -> Instant {
        let elapsed = self.inner.now().saturating_duration_since(self.start);
        self.start + elapsed * 1000
    }

    #[inline]
    fn secs_since(&self, since: Instant) -> f64 {
        let base = since.saturating_duration_since(self.start).as_secs_f64();
        (self.inner.secs_since(self.start) * 1000.0 - base).max(0.0)
    }
}

/// Permits that said wait, and all permits asked for.
static WAITS: AtomicU64 = AtomicU64::new(0);
static PERMITS: AtomicU64 = AtomicU64::new(0);

/// One successful request; a permit that says wait is asked for again.
#[inline]
fn success<S: RetryStrategy>(strategy: &S) {
    let mut token = strategy.acquire_initial_token().unwrap();
    loop {
        match strategy.acquire_send_permit(&mut token) {
            Ok(SendPermit::Granted) => break,
            Ok(SendPermit::Wait(_)) => {
                WAITS.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => panic!("{e}"),
        }
    }
    strategy.record_success(black_box(token));
}

/// Counts the permits of the limiter-on benchmarks, which loop on waits.
#[inline]
fn counted_success<S: RetryStrategy>(strategy: &S) {
    PERMITS.fetch_add(1, Ordering::Relaxed);
    success(strategy);
}

/// Per-request time with two threads sharing `f`'s strategy: the slower
/// thread's time for `iters` requests.
fn two_threads(iters: u64, f: &(impl Fn() + Sync)) -> Duration {
    let barrier = Barrier::new(2);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..iters {
                        f();
                    }
                    start.elapsed()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .max()
            .unwrap()
    })
}

fn on_threads(c: &mut Criterion, group: &str, f: impl Fn() + Sync) {
    let mut g = c.benchmark_group(group);
    g.bench_function("1 thread", |b| b.iter(&f));
    g.bench_function("2 threads", |b| {
        b.iter_custom(|iters| two_threads(iters, &f))
    });
    g.finish();
}

fn off<C: Clock + fmt::Debug + Send + Sync>(c: &mut Criterion, name: &str, clock: C) {
    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(clock)
        .build();
    on_threads(c, &format!("adaptive success, limiter off, {name}"), || {
        success(&strategy);
    });
    assert!(!strategy.rate_limiter().is_enabled());
}

fn on<C: Clock + fmt::Debug + Send + Sync>(c: &mut Criterion, name: &str, clock: C) {
    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(Faster::new(clock))
        .build();
    let throttle = HttpErrorResponse::new(400).with_code("ThrottlingException");
    let token = strategy.acquire_initial_token().unwrap();
    let token = strategy.refresh_retry_token(token, &throttle).unwrap();
    strategy.abandon(token);
    assert!(strategy.rate_limiter().is_enabled());
    let group = format!("adaptive success, limiter on, {name}");
    WAITS.store(0, Ordering::Relaxed);
    PERMITS.store(0, Ordering::Relaxed);
    on_threads(c, &group, || counted_success(&strategy));
    #[allow(clippy::cast_precision_loss)]
    let share =
        WAITS.load(Ordering::Relaxed) as f64 / PERMITS.load(Ordering::Relaxed).max(1) as f64;
    eprintln!("{group}: {share:.2e} of permits said wait");
}

fn benches(c: &mut Criterion) {
    off(c, "default clock", FastClock::new());
    on(c, "default clock", FastClock::new());
    // The other clocks, limiter off only: with it on, every send within one
    // of the coarse clock's steps finds the bucket as the step's first left it.
    off(c, "SystemClock", SystemClock);
    off(c, "CoarseClock", CoarseClock::new());
}

criterion_group!(adaptive, benches);
criterion_main!(adaptive);
