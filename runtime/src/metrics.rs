//! [`RetryObserver`]'s instruments through the `metrics` facade (feature
//! `metrics`): [`observer`] registers them with the recorder installed at
//! that moment, so install yours (`metrics-exporter-prometheus`, say)
//! first.
//!
//! The facade has no callbacks at collection: counters and histograms go
//! through `metrics` handles as they happen (a success adds to one counter
//! handle: in the common recorders, an atomic add), and the gauges are set
//! when you call [`publish`](RetryObserver::publish), for instance before
//! each scrape. The names and labels are those of `docs/metrics.md`, as
//! `opentelemetry` spells them (a Prometheus exporter turns the dots into
//! underscores).
//!
//! # Examples
//!
//! ```
//! use metrics_util::debugging::DebuggingRecorder;
//! use rebound_runtime::{Retry, StandardRetryStrategy, time::ManualClock};
//!
//! let recorder = DebuggingRecorder::new();
//! let snapshotter = recorder.snapshotter();
//! metrics::with_local_recorder(&recorder, || {
//!     let strategy = StandardRetryStrategy::new();
//!     let observer = rebound_runtime::metrics::observer("orders");
//!     observer.watch(strategy.clone());
//!     let retry = Retry::new(&strategy).sleeper(ManualClock::new()).listener(&observer);
//!     retry.run(|_attempt| Ok::<_, std::io::Error>(())).unwrap();
//!     observer.publish(); // the gauges
//! });
//! assert!(snapshotter.snapshot().into_vec().len() > 10);
//! ```

use core::time::Duration;

use ::metrics::{Counter, Gauge, Histogram, Label, Unit};

use crate::observe::{FailureKind, GiveUpReason, Outcome, Readings, Recorder, RetryObserver};

/// The attribute naming the observer (the client).
const CLIENT_NAME: &str = "rebound.client.name";
const OUTCOME: &str = "rebound.attempt.outcome";
const FAILURE_KIND: &str = "rebound.failure.kind";
const GIVE_UP_REASON: &str = "rebound.give_up.reason";
const PARTITION: &str = "rebound.partition";

/// Reads one gauge's value from the readings, if it is there.
type ReadGauge = fn(&Readings) -> Option<f64>;

/// The `metrics` handles an observer records into; see [`observer`].
#[derive(Debug, Clone)]
pub struct MetricsRecorder {
    /// The observer's labels: its name, and its partition if it has one.
    share: Vec<Label>,
    successes: Counter,
    /// Retryable, then non-retryable failures, each in [`FailureKind::ALL`]'s order.
    failures: [[Counter; FailureKind::ALL.len()]; 2],
    give_ups: [Counter; GiveUpReason::ALL.len()],
    refusals: Counter,
    retries: Histogram,
    retry_delay: [Histogram; FailureKind::ALL.len()],
    permit_wait: Histogram,
    gauges: Vec<(Gauge, ReadGauge)>,
    exchange_errors: Counter,
}

impl Recorder for MetricsRecorder {
    #[inline]
    fn attempt(&self, outcome: Outcome, kind: Option<FailureKind>) {
        let kind = kind.unwrap_or(FailureKind::Other) as usize;
        match outcome {
            Outcome::Success => self.successes.increment(1),
            Outcome::RetryableFailure => self.failures[0][kind].increment(1),
            Outcome::NonRetryableFailure => self.failures[1][kind].increment(1),
        }
    }

    fn retries(&self, retries: u32) {
        self.retries.record(retries);
    }

    fn give_up(&self, reason: GiveUpReason, refusal: bool) {
        self.give_ups[reason as usize].increment(1);
        if refusal {
            self.refusals.increment(1);
        }
    }

    fn retry_delay(&self, kind: FailureKind, delay: Duration) {
        self.retry_delay[kind as usize].record(delay);
    }

    fn permit_wait(&self, wait: Duration) {
        self.permit_wait.record(wait);
    }

    /// The same instruments with `rebound.partition` = `key`, registered now
    /// with the installed recorder.
    fn partition(&self, key: &str) -> Self {
        let mut share = self.share.clone();
        share.push(Label::new(PARTITION, key.to_owned()));
        MetricsRecorder::registered(share)
    }
}

impl RetryObserver<MetricsRecorder> {
    /// Sets the gauges to what the observer (and each of its
    /// [partitions](RetryObserver::partition)) watches holds now; a gauge
    /// nothing watched has is left alone. Call it before each scrape, or on
    /// an interval.
    pub fn publish(&self) {
        let readings = self.readings();
        for (gauge, read) in &self.recorder().gauges {
            if let Some(value) = read(&readings) {
                gauge.set(value);
            }
        }
        if let Some(errors) = readings.fleet_exchange_errors {
            self.recorder().exchange_errors.absolute(errors);
        }
        for partition in self.partitions() {
            partition.publish();
        }
    }
}

/// An observer named `name` whose instruments are registered now with the
/// installed `metrics` recorder. See the [module](self).
pub fn observer(name: impl Into<String>) -> RetryObserver<MetricsRecorder> {
    let name: String = name.into();
    describe();
    let recorder = MetricsRecorder::registered(vec![Label::new(CLIENT_NAME, name.clone())]);
    RetryObserver::with_recorder(name, recorder)
}

impl MetricsRecorder {
    /// Every handle, labelled `share` (and each series' own labels).
    fn registered(share: Vec<Label>) -> Self {
        let labels = |more: &[(&'static str, &'static str)]| -> Vec<Label> {
            let more = more.iter().map(|&(key, value)| Label::new(key, value));
            share.iter().cloned().chain(more).collect()
        };
        let attempts = |outcome: Outcome, kind: FailureKind| {
            let series = labels(&[(OUTCOME, outcome.as_str()), (FAILURE_KIND, kind.as_str())]);
            ::metrics::counter!("rebound.client.attempts", series)
        };
        let delay = |kind: FailureKind| {
            ::metrics::histogram!(
                "rebound.client.retry.delay",
                labels(&[(FAILURE_KIND, kind.as_str())])
            )
        };
        let gauge = |gauge: &'static str| ::metrics::gauge!(gauge, labels(&[]));
        Self {
            successes: ::metrics::counter!(
                "rebound.client.attempts",
                labels(&[(OUTCOME, Outcome::Success.as_str())])
            ),
            failures: [Outcome::RetryableFailure, Outcome::NonRetryableFailure]
                .map(|outcome| FailureKind::ALL.map(|kind| attempts(outcome, kind))),
            give_ups: GiveUpReason::ALL.map(|reason| {
                ::metrics::counter!(
                    "rebound.client.give_ups",
                    labels(&[(GIVE_UP_REASON, reason.as_str())])
                )
            }),
            refusals: ::metrics::counter!("rebound.client.refusals", labels(&[])),
            retries: ::metrics::histogram!("rebound.client.request.retries", labels(&[])),
            retry_delay: FailureKind::ALL.map(delay),
            permit_wait: ::metrics::histogram!("rebound.client.send_permit.wait", labels(&[])),
            gauges: vec![
                (gauge("rebound.quota.available"), |r| {
                    r.quota_available.map(|v| v as f64)
                }),
                (gauge("rebound.quota.capacity"), |r| {
                    r.quota_capacity.map(|v| v as f64)
                }),
                (gauge("rebound.limiter.enabled"), |r| {
                    r.limiter_enabled.map(f64::from)
                }),
                (gauge("rebound.limiter.fill_rate"), |r| r.limiter_fill_rate),
                (gauge("rebound.limiter.measured_rate"), |r| {
                    r.limiter_measured_rate
                }),
                (gauge("rebound.fleet.healthy"), |r| {
                    r.fleet_healthy.map(f64::from)
                }),
                (gauge("rebound.fleet.lease"), |r| {
                    r.fleet_lease.map(|v| v as f64)
                }),
                (gauge("rebound.fleet.pool"), |r| {
                    r.fleet_pool.map(|v| v as f64)
                }),
                (gauge("rebound.fleet.exchange.duration"), |r| {
                    r.fleet_exchange_latency
                }),
            ],
            exchange_errors: ::metrics::counter!("rebound.fleet.exchange.errors", labels(&[])),
            share,
        }
    }
}

/// Describes the instruments to the recorder (units and help texts).
fn describe() {
    use ::metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "rebound.client.attempts",
        Unit::Count,
        "Attempts made, by outcome and failure kind"
    );
    describe_counter!(
        "rebound.client.give_ups",
        Unit::Count,
        "Requests that failed for good, by reason"
    );
    describe_counter!(
        "rebound.client.refusals",
        Unit::Count,
        "Attempts a fail-fast rate limiter refused to send"
    );
    describe_histogram!(
        "rebound.client.request.retries",
        Unit::Count,
        "Retries a request made, for requests that made at least one"
    );
    describe_histogram!(
        "rebound.client.retry.delay",
        Unit::Seconds,
        "The backoff before a retry"
    );
    describe_histogram!(
        "rebound.client.send_permit.wait",
        Unit::Seconds,
        "A wait for the rate limiter's send permit"
    );
    describe_gauge!(
        "rebound.quota.available",
        Unit::Count,
        "The retry quota's tokens left"
    );
    describe_gauge!(
        "rebound.quota.capacity",
        Unit::Count,
        "The retry quota's capacity"
    );
    describe_gauge!(
        "rebound.limiter.enabled",
        "1 while the adaptive rate limiter holds sends to a rate"
    );
    describe_gauge!(
        "rebound.limiter.fill_rate",
        "The sends per second the rate limiter allows"
    );
    describe_gauge!(
        "rebound.limiter.measured_rate",
        "The send rate the rate limiter measured, per second"
    );
    describe_gauge!(
        "rebound.fleet.healthy",
        "1 while the fleet member draws from the shared store, 0 on local limits"
    );
    describe_gauge!(
        "rebound.fleet.lease",
        Unit::Count,
        "The fleet pool's tokens this member holds"
    );
    describe_gauge!(
        "rebound.fleet.pool",
        Unit::Count,
        "The fleet's pool as this member last saw it"
    );
    describe_gauge!(
        "rebound.fleet.exchange.duration",
        Unit::Seconds,
        "How long the fleet member's last exchange with the store took"
    );
    describe_counter!(
        "rebound.fleet.exchange.errors",
        Unit::Count,
        "The fleet member's exchanges with the store that failed"
    );
}
