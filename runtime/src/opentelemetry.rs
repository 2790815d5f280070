//! [`RetryObserver`]'s instruments on an `opentelemetry` [`Meter`] (feature
//! `opentelemetry`): give [`observer`] the meter of your
//! `SdkMeterProvider` (no global provider needed) and the observer to your
//! executors.
//!
//! Counters and gauges are observable instruments: their callbacks read the
//! observer's atomics and watched sources when the meter collects, so a
//! successful request never calls into `opentelemetry`. Histograms have no
//! observable form: their samples are recorded as they happen, on requests
//! that retry or wait for a send permit. The instruments are listed in
//! `docs/metrics.md`.
//!
//! # Examples
//!
//! ```
//! use opentelemetry::metrics::MeterProvider as _;
//! use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
//! use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
//!
//! let exporter = InMemoryMetricExporter::default();
//! let provider = SdkMeterProvider::builder()
//!     .with_reader(PeriodicReader::builder(exporter.clone()).build())
//!     .build();
//!
//! let strategy = StandardRetryStrategy::new();
//! let observer = rebound_runtime::opentelemetry::observer(&provider.meter("app"), "orders");
//! observer.watch(strategy.clone());
//! let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&observer);
//! retry.run(|_attempt| Ok::<_, std::io::Error>(()))?;
//!
//! provider.force_flush()?;
//! let exported = exporter.get_finished_metrics()?;
//! assert!(!exported.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::time::Duration;
use std::sync::{Arc, Weak};

use ::opentelemetry::KeyValue;
use ::opentelemetry::metrics::{AsyncInstrument, Histogram, Meter};

use crate::observe::{FailureKind, GiveUpReason, Observed, Readings, Recorder, RetryObserver};

/// The attribute naming the observer (the client).
pub const CLIENT_NAME: &str = "rebound.client.name";
/// The attribute of an attempt's [`Outcome`](crate::observe::Outcome).
pub const OUTCOME: &str = "rebound.attempt.outcome";
/// The attribute of a failed attempt's [`FailureKind`].
pub const FAILURE_KIND: &str = "rebound.failure.kind";
/// The attribute of a give-up's [`GiveUpReason`].
pub const GIVE_UP_REASON: &str = "rebound.give_up.reason";
/// The attribute of an observer's partition key, for the partitions a user
/// opts in to ([`RetryObserver::partition`]).
pub const PARTITION: &str = "rebound.partition";

/// Buckets of the retries-per-request histogram.
const RETRY_BUCKETS: [f64; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0, 50.0, 100.0];
/// Buckets of the delay histograms, in seconds: 1 ms to 2 minutes.
const DELAY_BUCKETS: [f64; 15] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 60.0, 120.0,
];

/// The histograms an observer records into; see [`observer`].
#[derive(Debug, Clone)]
pub struct OtelRecorder {
    retries: Histogram<u64>,
    retry_delay: Histogram<f64>,
    permit_wait: Histogram<f64>,
    /// The observer's attributes: its name, and its partition if it has one.
    share: Box<[KeyValue]>,
    /// `share` and each [`FailureKind`], in [`FailureKind::ALL`]'s order.
    by_kind: [Box<[KeyValue]>; FailureKind::ALL.len()],
}

impl OtelRecorder {
    /// The same histograms, recorded with the attributes `share`.
    fn labelled(&self, share: Vec<KeyValue>) -> Self {
        Self {
            by_kind: FailureKind::ALL
                .map(|kind| with(&share, [KeyValue::new(FAILURE_KIND, kind.as_str())]).into()),
            share: share.into(),
            ..self.clone()
        }
    }
}

impl Recorder for OtelRecorder {
    fn retries(&self, retries: u32) {
        self.retries.record(retries.into(), &self.share);
    }

    fn retry_delay(&self, kind: FailureKind, delay: Duration) {
        self.retry_delay
            .record(delay.as_secs_f64(), &self.by_kind[kind as usize]);
    }

    fn permit_wait(&self, wait: Duration) {
        self.permit_wait.record(wait.as_secs_f64(), &self.share);
    }

    fn partition(&self, key: &str) -> Self {
        self.labelled(with(
            &self.share,
            [KeyValue::new(PARTITION, key.to_owned())],
        ))
    }
}

/// `base` followed by `more`.
fn with<const N: usize>(base: &[KeyValue], more: [KeyValue; N]) -> Vec<KeyValue> {
    base.iter().cloned().chain(more).collect()
}

/// The attributes of one observer's share: its name, and its partition key
/// if it has one.
fn share_attributes(share: &Observed) -> Vec<KeyValue> {
    let mut attributes = vec![KeyValue::new(CLIENT_NAME, share.name().to_owned())];
    if let Some(key) = share.partition() {
        attributes.push(KeyValue::new(PARTITION, key.to_owned()));
    }
    attributes
}

/// An observer named `name` whose instruments live on `meter`: the
/// counters and gauges as observable instruments read when `meter`
/// collects (with its [partitions'](RetryObserver::partition)), the
/// histograms recorded as they happen. See the [module](self).
pub fn observer(meter: &Meter, name: impl Into<String>) -> RetryObserver<OtelRecorder> {
    let name: String = name.into();
    let recorder = OtelRecorder {
        retries: meter
            .u64_histogram("rebound.client.request.retries")
            .with_unit("{retry}")
            .with_description("Retries a request made, for requests that made at least one")
            .with_boundaries(RETRY_BUCKETS.to_vec())
            .build(),
        retry_delay: meter
            .f64_histogram("rebound.client.retry.delay")
            .with_unit("s")
            .with_description("The backoff before a retry")
            .with_boundaries(DELAY_BUCKETS.to_vec())
            .build(),
        permit_wait: meter
            .f64_histogram("rebound.client.send_permit.wait")
            .with_unit("s")
            .with_description("A wait for the rate limiter's send permit")
            .with_boundaries(DELAY_BUCKETS.to_vec())
            .build(),
        share: Box::new([]),
        by_kind: FailureKind::ALL.map(|_| Box::from([])),
    }
    .labelled(vec![KeyValue::new(CLIENT_NAME, name.clone())]);
    let observer = RetryObserver::with_recorder(name, recorder);
    register_counters(meter, Arc::downgrade(observer.observed()));
    register_gauges(meter, Arc::downgrade(observer.observed()));
    observer
}

/// Calls `f` with each share of the observer (its own, then its
/// partitions') and that share's attributes, if the observer is alive.
fn each_share(observed: &Weak<Observed>, mut f: impl FnMut(&Observed, &[KeyValue])) {
    if let Some(observed) = observed.upgrade() {
        observed.each(|share| f(share, &share_attributes(share)));
    }
}

/// The attempt, give-up and refusal counters, read from `observed`.
fn register_counters(meter: &Meter, observed: Weak<Observed>) {
    let source = observed.clone();
    meter
        .u64_observable_counter("rebound.client.attempts")
        .with_unit("{attempt}")
        .with_description("Attempts made, by outcome and failure kind")
        .with_callback(move |counter| {
            each_share(&source, |share, attributes| {
                let counts = share.counts();
                for (outcome, kind, count) in counts.attempt_series() {
                    let outcome = KeyValue::new(OUTCOME, outcome.as_str());
                    let series = match kind {
                        Some(kind) => with(
                            attributes,
                            [outcome, KeyValue::new(FAILURE_KIND, kind.as_str())],
                        ),
                        None => with(attributes, [outcome]),
                    };
                    counter.observe(count, &series);
                }
            });
        })
        .build();

    let source = observed.clone();
    meter
        .u64_observable_counter("rebound.client.give_ups")
        .with_unit("{request}")
        .with_description("Requests that failed for good, by reason")
        .with_callback(move |counter| {
            each_share(&source, |share, attributes| {
                let counts = share.counts();
                for reason in GiveUpReason::ALL {
                    let series = with(attributes, [KeyValue::new(GIVE_UP_REASON, reason.as_str())]);
                    counter.observe(counts.give_ups(reason), &series);
                }
            });
        })
        .build();

    meter
        .u64_observable_counter("rebound.client.refusals")
        .with_unit("{request}")
        .with_description("Attempts a fail-fast rate limiter refused to send")
        .with_callback(move |counter| {
            each_share(&observed, |share, attributes| {
                counter.observe(share.counts().refusals(), attributes);
            });
        })
        .build();
}

/// One observable gauge per field of [`Readings`], each reported only when
/// something watched has it.
fn register_gauges(meter: &Meter, observed: Weak<Observed>) {
    type Read<T> = fn(&Readings) -> Option<T>;
    let u64_gauges: [(&'static str, &'static str, &'static str, Read<u64>); 5] = [
        (
            "rebound.quota.available",
            "{token}",
            "The retry quota's tokens left",
            |r| r.quota_available,
        ),
        (
            "rebound.quota.capacity",
            "{token}",
            "The retry quota's capacity",
            |r| r.quota_capacity,
        ),
        (
            "rebound.limiter.enabled",
            "1",
            "1 while the adaptive rate limiter holds sends to a rate",
            |r| r.limiter_enabled.map(u64::from),
        ),
        (
            "rebound.fleet.healthy",
            "1",
            "1 while the fleet member draws from the shared store, 0 on local limits",
            |r| r.fleet_healthy.map(u64::from),
        ),
        (
            "rebound.fleet.lease",
            "{token}",
            "The fleet pool's tokens this member holds",
            |r| r.fleet_lease,
        ),
    ];
    for (name, unit, description, read) in u64_gauges {
        let source = observed.clone();
        meter
            .u64_observable_gauge(name)
            .with_unit(unit)
            .with_description(description)
            .with_callback(move |gauge| observe(&source, read, gauge))
            .build();
    }
    let pool_source = observed.clone();
    meter
        .u64_observable_gauge("rebound.fleet.pool")
        .with_unit("{token}")
        .with_description("The fleet's pool as this member last saw it")
        .with_callback(move |gauge| {
            observe(&pool_source, |r| r.fleet_pool, gauge);
        })
        .build();
    let f64_gauges: [(&'static str, &'static str, Read<f64>); 2] = [
        (
            "rebound.limiter.fill_rate",
            "The sends per second the rate limiter allows",
            |r| r.limiter_fill_rate,
        ),
        (
            "rebound.limiter.measured_rate",
            "The send rate the rate limiter measured",
            |r| r.limiter_measured_rate,
        ),
    ];
    for (name, description, read) in f64_gauges {
        let source = observed.clone();
        meter
            .f64_observable_gauge(name)
            .with_unit("{request}/s")
            .with_description(description)
            .with_callback(move |gauge| observe(&source, read, gauge))
            .build();
    }
    let source = observed.clone();
    meter
        .f64_observable_gauge("rebound.fleet.exchange.duration")
        .with_unit("s")
        .with_description("How long the fleet member's last exchange with the store took")
        .with_callback(move |gauge| {
            observe(&source, |r| r.fleet_exchange_latency, gauge);
        })
        .build();
    meter
        .u64_observable_counter("rebound.fleet.exchange.errors")
        .with_unit("{exchange}")
        .with_description("The fleet member's exchanges with the store that failed")
        .with_callback(move |counter| {
            observe(&observed, |r| r.fleet_exchange_errors, counter);
        })
        .build();
}

/// Reports `read` of each share's readings where something it watches has
/// the value, if the observer is alive.
fn observe<T>(
    source: &Weak<Observed>,
    read: fn(&Readings) -> Option<T>,
    instrument: &dyn AsyncInstrument<T>,
) {
    each_share(source, |share, attributes| {
        if let Some(value) = read(&share.readings()) {
            instrument.observe(value, attributes);
        }
    });
}
