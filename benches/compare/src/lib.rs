//! The simulated requests the side-by-side benchmarks (`benches/compare.rs`)
//! and the zero-allocation test (`tests/zero_alloc.rs`) drive through
//! rebound. Not published, not part of the root workspace.
//!
//! One *simulated request* on rebound's side is what an executor asks of a
//! strategy for one call, with no I/O and no sleeping:
//! `acquire_initial_token`, `acquire_send_permit` (asked again after each
//! `Wait`, the wait handed to `on_wait` instead of slept), then, per failed
//! attempt, `refresh_retry_token` with the failure and `acquire_send_permit`
//! again, and finally `record_success`.
#![forbid(unsafe_code)]

use std::time::Duration;

use rebound::{
    ErrorFault, ErrorInfo, FailureInfo, RetryInfo, RetrySafety, RetryStrategy, SendPermit,
};

/// A 503 from the server, retryable: the classification written by hand.
#[derive(Debug)]
pub struct HandUnavailable;

impl RetryInfo for HandUnavailable {
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::Yes
    }
}

impl ErrorInfo for HandUnavailable {
    fn fault(&self) -> ErrorFault {
        ErrorFault::Server
    }
    fn http_status(&self) -> Option<u16> {
        Some(503)
    }
}

/// The same 503, classified by `#[derive(RetryInfo)]`.
#[derive(Debug, rebound::RetryInfo)]
#[error_fault(server)]
#[http_error(503)]
#[retryable]
pub struct DerivedUnavailable;

/// A throttle (HTTP 429, client fault), classified by the derive: turns the
/// adaptive limiter on.
#[derive(Debug, rebound::RetryInfo)]
#[error_fault(client)]
#[http_error(429)]
#[retryable(throttling = true)]
pub struct Throttled;

/// Asks for a send permit until granted; each `Wait` goes to `on_wait`
/// (which may advance a virtual clock) instead of being slept.
#[inline]
fn send<S: RetryStrategy + ?Sized>(
    strategy: &S,
    token: &mut rebound::RetryToken,
    on_wait: &mut impl FnMut(Duration),
) {
    loop {
        match strategy.acquire_send_permit(token) {
            Ok(SendPermit::Granted) => return,
            Ok(SendPermit::Wait(wait)) => on_wait(wait),
            Err(why) => panic!("send refused: {why}"),
        }
    }
}

/// One simulated request: `failures` failed attempts with `failure`, then a
/// success. Returns the number of attempts made.
#[inline]
pub fn request<S: RetryStrategy + ?Sized>(
    strategy: &S,
    failures: u32,
    failure: &dyn FailureInfo,
    on_wait: &mut impl FnMut(Duration),
) -> u32 {
    let mut token = strategy
        .acquire_initial_token()
        .expect("the quota is refunded by every success");
    send(strategy, &mut token, on_wait);
    for _ in 0..failures {
        token = strategy
            .refresh_retry_token(token, failure)
            .expect("the failure is retryable and the quota refunded");
        send(strategy, &mut token, on_wait);
    }
    let attempts = token.attempt();
    strategy.record_success(token);
    attempts
}

/// A request that succeeds at once.
#[inline]
pub fn success<S: RetryStrategy + ?Sized>(strategy: &S) -> u32 {
    request(strategy, 0, &HandUnavailable, &mut |_| {})
}

/// Observers on real meters, for the observer bench and the allocation test.
pub mod observers {
    use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};
    use opentelemetry::KeyValue;
    use opentelemetry::metrics::{Counter, MeterProvider as _};
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
    use rebound::metrics::MetricsRecorder;
    use rebound::observe::RetryObserver;
    use rebound::opentelemetry::OtelRecorder;
    use rebound::{RetryListener, SuccessEvent};

    /// An OpenTelemetry SDK meter provider exporting to memory once an hour
    /// (never, during a measurement).
    pub fn otel_provider() -> SdkMeterProvider {
        let reader = PeriodicReader::builder(InMemoryMetricExporter::default())
            .with_interval(std::time::Duration::from_secs(3600))
            .build();
        SdkMeterProvider::builder().with_reader(reader).build()
    }

    /// rebound's observer on `provider`'s meter.
    pub fn otel_observer(provider: &SdkMeterProvider) -> RetryObserver<OtelRecorder> {
        rebound::opentelemetry::observer(&provider.meter("bench"), "bench")
    }

    /// rebound's observer through the `metrics` facade, on a Prometheus
    /// recorder (returned: the handles live as long as it).
    pub fn metrics_observer() -> (PrometheusRecorder, RetryObserver<MetricsRecorder>) {
        let recorder = PrometheusBuilder::new().build_recorder();
        let observer = metrics::with_local_recorder(&recorder, || rebound::metrics::observer("bench"));
        (recorder, observer)
    }

    /// The alternative to the observer's own counters: a listener adding 1
    /// to an OpenTelemetry counter (with the same attributes) per success.
    #[derive(Debug)]
    pub struct OtelCounterPerSuccess {
        counter: Counter<u64>,
        attributes: [KeyValue; 2],
    }

    impl OtelCounterPerSuccess {
        pub fn new(provider: &SdkMeterProvider) -> Self {
            Self {
                counter: provider.meter("bench").u64_counter("attempts").build(),
                attributes: [
                    KeyValue::new("rebound.client.name", "bench"),
                    KeyValue::new("rebound.attempt.outcome", "success"),
                ],
            }
        }
    }

    impl RetryListener for OtelCounterPerSuccess {
        fn on_success(&self, _: &SuccessEvent) {
            self.counter.add(1, &self.attributes);
        }
    }
}
