//! What an observer adds to a request through `Retry::run` (standard mode):
//! none, rebound's observer with its own counters only, on an OpenTelemetry
//! SDK meter, through the `metrics` facade on a Prometheus recorder, and the
//! alternative of an OpenTelemetry counter added to on every success. See
//! BENCHMARKS.md.
//!
//! Run from `benches/compare/`: `cargo bench --bench observer`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rebound::observe::RetryObserver;
use rebound::{Retry, RetryListener, StandardRetryStrategy};
use rebound_bench_compare::HandUnavailable;
use rebound_bench_compare::observers::{
    OtelCounterPerSuccess, metrics_observer, otel_observer, otel_provider,
};

fn success<L: RetryListener>(retry: &Retry<&StandardRetryStrategy, impl Fn(Duration), rebound::time::SystemClock, L>) {
    black_box(retry.run(|attempt| Ok::<u32, HandUnavailable>(black_box(attempt)))).unwrap();
}

fn one_failure<L: RetryListener>(retry: &Retry<&StandardRetryStrategy, impl Fn(Duration), rebound::time::SystemClock, L>) {
    black_box(retry.run(|attempt| if attempt < 2 { Err(HandUnavailable) } else { Ok(attempt) })).unwrap();
}

fn observer(c: &mut Criterion) {
    let strategy = StandardRetryStrategy::new();
    let provider = otel_provider();
    let otel = otel_observer(&provider);
    let (_recorder, metrics) = metrics_observer();
    let counters_only = RetryObserver::new("bench");
    let per_success = OtelCounterPerSuccess::new(&provider);
    let sleep = |_: Duration| {};

    let mut g = c.benchmark_group("observer");
    let none = Retry::new(&strategy).sleeper(sleep);
    g.bench_function("success: no observer", |b| b.iter(|| success(&none)));
    let with = Retry::new(&strategy).sleeper(sleep).listener(&counters_only);
    g.bench_function("success: observer, own counters only", |b| b.iter(|| success(&with)));
    let with = Retry::new(&strategy).sleeper(sleep).listener(&otel);
    g.bench_function("success: observer on an opentelemetry meter", |b| b.iter(|| success(&with)));
    let with = Retry::new(&strategy).sleeper(sleep).listener(&metrics);
    g.bench_function("success: observer through metrics (Prometheus recorder)", |b| {
        b.iter(|| success(&with))
    });
    let with = Retry::new(&strategy).sleeper(sleep).listener(&per_success);
    g.bench_function("success: alternative, an opentelemetry counter per success", |b| {
        b.iter(|| success(&with))
    });

    g.bench_function("one failure then success: no observer", |b| b.iter(|| one_failure(&none)));
    let with = Retry::new(&strategy).sleeper(sleep).listener(&otel);
    g.bench_function("one failure then success: observer on an opentelemetry meter", |b| {
        b.iter(|| one_failure(&with))
    });
    let with = Retry::new(&strategy).sleeper(sleep).listener(&metrics);
    g.bench_function("one failure then success: observer through metrics (Prometheus recorder)", |b| {
        b.iter(|| one_failure(&with))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = observer
}
criterion_main!(benches);
