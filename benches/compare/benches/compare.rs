//! rebound vs aws-smithy-runtime vs tower's `TpsBudget` vs bare atomics, side
//! by side. See BENCHMARKS.md at the repository root for the figures and
//! exactly what one iteration does on each side.
//!
//! Run from `benches/compare/`: `cargo bench` (add `-- --quick` for a short run).
//!
//! Two-thread groups: two threads share one strategy (one budget, one
//! atomic); each makes `iters` simulated requests after a barrier, and the
//! time reported per request is the slower thread's elapsed time / `iters`:
//! what one caller pays per request while another hammers the same strategy.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

use aws_smithy_async::time::SystemTimeSource;
use aws_smithy_runtime::client::retries::strategy::StandardRetryStrategy as AwsStandard;
use aws_smithy_runtime::client::retries::{RetryPartition, TokenBucket};
use aws_smithy_runtime_api::client::interceptors::context::{Input, InterceptorContext, Output};
use aws_smithy_runtime_api::client::orchestrator::OrchestratorError;
use aws_smithy_runtime_api::client::retries::classifiers::SharedRetryClassifier;
use aws_smithy_runtime_api::client::retries::{RequestAttempts, RetryStrategy as _, ShouldAttempt};
use aws_smithy_runtime_api::client::runtime_components::{
    RuntimeComponents, RuntimeComponentsBuilder,
};
use aws_smithy_types::config_bag::{ConfigBag, FrozenLayer, Layer};
use aws_smithy_types::retry::RetryConfig;

use rebound::time::{CoarseClock, ManualClock, SystemClock};
use rebound::{AdaptiveRetryStrategy, Retry, RetryStrategy, StandardRetryStrategy};
mod common;

use common::FailedIsTransient;
use rebound_bench_compare::{DerivedUnavailable, HandUnavailable, Throttled, request, success};

use tower::retry::budget::{Budget, TpsBudget};

// ---------------------------------------------------------------- harness

/// Per-request time with two threads sharing whatever `make` closes over.
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

fn on_threads(c: &mut Criterion, group: &str, name: &str, f: impl Fn() + Sync) {
    let mut g = c.benchmark_group(group);
    g.bench_function(format!("{name}/1 thread"), |b| b.iter(&f));
    g.bench_function(format!("{name}/2 threads"), |b| {
        b.iter_custom(|iters| two_threads(iters, &f));
    });
    g.finish();
}

/// The adaptive success path with the limiter off, on `clock`, on 1 and 2
/// threads.
fn on_clock<C>(c: &mut Criterion, group: &str, name: &str, clock: C)
where
    C: rebound::time::Clock + std::fmt::Debug + Send + Sync,
{
    let strategy = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(clock)
        .build();
    on_threads(c, group, name, || {
        black_box(success(&strategy));
    });
    assert!(!strategy.rate_limiter().is_enabled());
}

/// [`on_threads`] for a caller that keeps state of its own between requests
/// (made by `make`, once per thread, before the clock starts).
fn on_threads_with<St>(
    c: &mut Criterion,
    group: &str,
    name: &str,
    make: impl Fn() -> St + Sync,
    f: impl Fn(&mut St) + Sync,
) {
    let mut g = c.benchmark_group(group);
    g.bench_function(format!("{name}/1 thread"), |b| {
        let mut state = make();
        b.iter(|| f(&mut state));
    });
    g.bench_function(format!("{name}/2 threads"), |b| {
        b.iter_custom(|iters| {
            let barrier = Barrier::new(2);
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..2)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut state = make();
                            barrier.wait();
                            let start = Instant::now();
                            for _ in 0..iters {
                                f(&mut state);
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
        });
    });
    g.finish();
}

/// Reads the same instant forever: the adaptive success path's floor,
/// with no clock cost (every success at the time of its thread's previous
/// one). Not a usable clock.
#[derive(Debug, Clone)]
struct ConstantClock(Instant);

impl rebound::time::Clock for ConstantClock {
    fn now(&self) -> Instant {
        self.0
    }

    #[inline]
    fn secs_since(&self, _since: Instant) -> f64 {
        1.0
    }
}

// ---------------------------------------------------------------- aws-smithy-runtime

/// What an SDK client holds for all its requests: the strategy, the runtime
/// components (classifier, time source), the client's config layer (retry
/// config, token bucket, retry partition).
struct Aws {
    strategy: AwsStandard,
    components: RuntimeComponents,
    client_layer: FrozenLayer,
}

impl Aws {
    fn new(config: RetryConfig, partition: &'static str) -> Self {
        let components = RuntimeComponentsBuilder::for_tests()
            .with_retry_classifier(SharedRetryClassifier::new(FailedIsTransient))
            .with_time_source(Some(SystemTimeSource::new()))
            .build()
            .unwrap();
        let mut layer = Layer::new("client");
        layer.store_put(config);
        layer.store_put(TokenBucket::default());
        layer.store_put(RetryPartition::new(partition));
        Self {
            strategy: AwsStandard::new(),
            components,
            client_layer: layer.freeze(),
        }
    }

    /// One simulated request as the orchestrator makes it: a config bag for
    /// the operation over the client's shared layer, an interceptor context;
    /// `should_attempt_initial_request`; per attempt, the attempt count in the
    /// bag, the outcome in the context, `should_attempt_retry`. `failures`
    /// failed attempts (`OrchestratorError::other`), then a success.
    fn request(&self, failures: u32) {
        self.request_with(&self.strategy, failures);
    }

    /// [`request`](Self::request) through `strategy` (sharing the client's
    /// token bucket): see [`standard_one_failure`] for why.
    fn request_with(&self, strategy: &AwsStandard, failures: u32) {
        let mut cfg = ConfigBag::base();
        cfg.push_shared_layer(self.client_layer.clone());
        let mut ctx = InterceptorContext::new(Input::doesnt_matter());
        self.attempts(strategy, &mut cfg, &mut ctx, failures);
        black_box(&ctx);
    }

    /// A caller's config bag and interceptor context, built once and reused by
    /// [`request_reusing`](Self::request_reusing).
    /// With a strategy of its own (sharing the client's token bucket): see
    /// [`standard_one_failure`] for why.
    fn caller_state(&self) -> (AwsStandard, ConfigBag, InterceptorContext) {
        let mut cfg = ConfigBag::base();
        cfg.push_shared_layer(self.client_layer.clone());
        (
            AwsStandard::new(),
            cfg,
            InterceptorContext::new(Input::doesnt_matter()),
        )
    }

    /// [`request`](Self::request) without building the bag and the context:
    /// only the strategy's calls and the per-attempt state they read (the
    /// attempt count, the outcome). A lower bound for aws-smithy-runtime: its
    /// orchestrator does build both per operation.
    fn request_reusing(
        &self,
        (strategy, cfg, ctx): &mut (AwsStandard, ConfigBag, InterceptorContext),
        failures: u32,
    ) {
        self.attempts(strategy, cfg, ctx, failures);
    }

    /// The strategy's calls for one request of `failures` failed attempts
    /// then a success, with the per-attempt state they read.
    fn attempts(
        &self,
        strategy: &AwsStandard,
        cfg: &mut ConfigBag,
        ctx: &mut InterceptorContext,
        failures: u32,
    ) {
        let first = strategy
            .should_attempt_initial_request(&self.components, cfg)
            .unwrap();
        assert!(!matches!(first, ShouldAttempt::No));
        for attempt in 1..=failures + 1 {
            cfg.interceptor_state()
                .store_put(RequestAttempts::new(attempt));
            if attempt <= failures {
                ctx.set_output_or_error(Err(OrchestratorError::other("503")));
            } else {
                ctx.set_output_or_error(Ok(Output::doesnt_matter()));
            }
            let next = strategy
                .should_attempt_retry(ctx, &self.components, cfg)
                .unwrap();
            assert_eq!(matches!(next, ShouldAttempt::No), attempt > failures);
        }
    }
}

// ---------------------------------------------------------------- groups

fn floor(c: &mut Criterion) {
    let counter = AtomicU64::new(0);
    on_threads(c, "floor", "AtomicU64::fetch_add relaxed", || {
        black_box(counter.fetch_add(1, Ordering::Relaxed));
    });
    on_threads(c, "floor", "AtomicU64::load relaxed", || {
        black_box(black_box(&counter).load(Ordering::Relaxed));
    });
}

fn standard_success(c: &mut Criterion) {
    let group = "standard: success";
    let rebound = StandardRetryStrategy::new();
    on_threads(c, group, "rebound", || {
        black_box(success(&rebound));
    });
    let aws = Aws::new(RetryConfig::standard(), "bench-standard-success");
    on_threads(c, group, "aws-smithy-runtime", || aws.request(0));
    on_threads_with(
        c,
        group,
        "aws-smithy-runtime, bag+context reused",
        || aws.caller_state(),
        |st| {
            aws.request_reusing(st, 0);
        },
    );
    let budget = TpsBudget::default();
    on_threads(c, group, "tower TpsBudget deposit", || budget.deposit());
}

/// aws-smithy-runtime's `StandardRetryStrategy` keeps the retry permit of
/// "the" request in one `Mutex<Option<OwnedSemaphorePermit>>` of the
/// strategy: two threads retrying through one strategy replace (and forget)
/// each other's permits, so the shared token bucket drains for good and
/// retries stop (`ShouldAttempt::No`) within a second of this benchmark. So
/// here each aws caller thread has a strategy of its own over the one shared
/// token bucket (the client's config layer), which keeps the work per request
/// the same; rebound's two threads share one strategy.
fn standard_one_failure(c: &mut Criterion) {
    let group = "standard: one failure then success";
    let rebound = StandardRetryStrategy::new();
    on_threads(c, group, "rebound", || {
        black_box(request(&rebound, 1, &HandUnavailable, &mut |_| {}));
    });
    let aws = Aws::new(RetryConfig::standard(), "bench-standard-failure");
    on_threads_with(
        c,
        group,
        "aws-smithy-runtime",
        AwsStandard::new,
        |strategy| {
            aws.request_with(strategy, 1);
        },
    );
    on_threads_with(
        c,
        group,
        "aws-smithy-runtime, bag+context reused",
        || aws.caller_state(),
        |st| {
            aws.request_reusing(st, 1);
        },
    );
    let budget = TpsBudget::default();
    on_threads(c, group, "tower TpsBudget withdraw+deposit", || {
        black_box(budget.withdraw());
        budget.deposit();
    });
}

fn adaptive(c: &mut Criterion) {
    let group = "adaptive: success, limiter off";
    let rebound = AdaptiveRetryStrategy::new();
    on_threads(c, group, "rebound", || {
        black_box(success(&rebound));
    });
    assert!(!rebound.rate_limiter().is_enabled());
    // The same on `Instant::now` (`SystemClock`).
    on_clock(c, group, "rebound, SystemClock", SystemClock);
    // The same on the opt-in coarse clock (one atomic load a read, advanced
    // every 1 ms by a thread): nearly every success extends its thread's run
    // in the limiter's log, one store.
    on_clock(c, group, "rebound, CoarseClock", CoarseClock::new());
    // Not a clock: every reading the same, so nothing is spent reading it
    // and every success extends its run. The floor under the rows above:
    // what the adaptive strategy's own steps cost.
    on_clock(
        c,
        group,
        "rebound, constant clock (floor)",
        ConstantClock(Instant::now()),
    );
    let aws = Aws::new(RetryConfig::adaptive(), "bench-adaptive-success");
    on_threads(c, group, "aws-smithy-runtime", || aws.request(0));
    on_threads_with(
        c,
        group,
        "aws-smithy-runtime, bag+context reused",
        || aws.caller_state(),
        |st| {
            aws.request_reusing(st, 0);
        },
    );

    // After a throttle turned the limiter on: a virtual clock moves 1 ms per
    // request, and every wait the limiter asks for is "slept" by moving it on.
    let group = "adaptive: success, limiter on after a throttle";
    let clock = ManualClock::new();
    let rebound = AdaptiveRetryStrategy::builder(StandardRetryStrategy::new())
        .clock(clock.clone())
        .build();
    let token = rebound.acquire_initial_token().unwrap();
    let token = rebound.refresh_retry_token(token, &Throttled).unwrap();
    rebound.record_success(token);
    assert!(rebound.rate_limiter().is_enabled());
    on_threads(c, group, "rebound (virtual clock +1 ms/request)", || {
        clock.advance(Duration::from_millis(1));
        black_box(request(&rebound, 0, &Throttled, &mut |wait| {
            clock.advance(wait)
        }));
    });
}

fn classification(c: &mut Criterion) {
    let strategy = StandardRetryStrategy::new();
    let classifier = strategy.classifier();
    let mut g = c.benchmark_group("classification");
    g.bench_function("hand-written RetryInfo: classify", |b| {
        b.iter(|| black_box(classifier.classify(black_box(&HandUnavailable))));
    });
    g.bench_function("derive(RetryInfo): classify", |b| {
        b.iter(|| black_box(classifier.classify(black_box(&DerivedUnavailable))));
    });
    g.bench_function("hand-written RetryInfo: one failure then success", |b| {
        b.iter(|| {
            black_box(request(
                &strategy,
                1,
                black_box(&HandUnavailable),
                &mut |_| {},
            ))
        });
    });
    g.bench_function("derive(RetryInfo): one failure then success", |b| {
        b.iter(|| {
            black_box(request(
                &strategy,
                1,
                black_box(&DerivedUnavailable),
                &mut |_| {},
            ))
        });
    });
    g.finish();
}

fn executor(c: &mut Criterion) {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(|_: Duration| {});
    let mut g = c.benchmark_group("executor");
    g.bench_function("direct call (no strategy)", |b| {
        b.iter(|| black_box(Ok::<u32, HandUnavailable>(black_box(1))))
    });
    g.bench_function("strategy driven by hand: success", |b| {
        b.iter(|| black_box(success(&strategy)));
    });
    g.bench_function("Retry::run: success", |b| {
        b.iter(|| black_box(retry.run(|attempt| Ok::<u32, HandUnavailable>(black_box(attempt)))));
    });
    g.bench_function("strategy driven by hand: one failure then success", |b| {
        b.iter(|| black_box(request(&strategy, 1, &HandUnavailable, &mut |_| {})));
    });
    g.bench_function("Retry::run: one failure then success", |b| {
        b.iter(|| {
            black_box(retry.run(|attempt| {
                if attempt < 2 {
                    Err(HandUnavailable)
                } else {
                    Ok(attempt)
                }
            }))
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = floor, standard_success, standard_one_failure, adaptive, classification, executor
}
criterion_main!(benches);
