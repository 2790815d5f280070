//! Every route of the runtime reports the same instruments: four scripted
//! requests (a success; a 503 then a success; three throttles; a 400) go
//! through the blocking and async executors, the driver, the tower layer
//! and reqwest, each with a `RetryObserver` on an OpenTelemetry meter, and
//! the counts are read back from an in-memory exporter.
#![cfg(all(
    feature = "opentelemetry",
    feature = "reqwest",
    feature = "tower",
    feature = "tokio"
))]

mod support;

use std::cell::Cell;
use std::time::Duration;

use rebound::classify::HttpErrorResponse;
use rebound::driver::{AfterFailure, Next};
use rebound::http::ResponseClassifier;
use rebound::observe::RetryObserver;
use rebound::opentelemetry::OtelRecorder;
use rebound::reqwest::{RequestBuilderExt as _, TryClone};
use rebound::time::ManualClock;
use rebound::tower::RetryLayer;
use rebound::{Retry, StandardRetryStrategy};
use support::otel::MemoryMeter;
use support::scripted_server::{Reply, Server};
use support::slept::Slept;
use tower::{Layer as _, ServiceExt as _};

/// The statuses the four requests' attempts meet, in order.
const SCRIPT: [u16; 7] = [200, 503, 200, 429, 429, 429, 400];
const REQUESTS: usize = 4;

fn strategy() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

fn observed(meter: &MemoryMeter, strategy: &StandardRetryStrategy) -> RetryObserver<OtelRecorder> {
    let observer = rebound::opentelemetry::observer(&meter.meter(), "orders");
    observer.watch(strategy.clone());
    observer
}

/// The next status of the script, for routes that call in process.
fn scripted() -> impl FnMut() -> Result<(), HttpErrorResponse> {
    let mut statuses = SCRIPT.into_iter();
    move || match statuses.next().expect("no more attempts than scripted") {
        200 => Ok(()),
        // The HTTP routes read a bare 429 as a throttle; in process, the code says it.
        429 => Err(HttpErrorResponse::new(429).with_code("Throttling")),
        status => Err(HttpErrorResponse::new(status)),
    }
}

/// What every route must have reported for the script.
fn assert_reported(meter: &MemoryMeter, strategy: &StandardRetryStrategy) {
    let exported = meter.collect();
    let client = ("rebound.client.name", "orders");
    let attempts = |outcome: &str, kind: Option<&str>| {
        let mut with = vec![client, ("rebound.attempt.outcome", outcome)];
        with.extend(kind.map(|kind| ("rebound.failure.kind", kind)));
        exported.number("rebound.client.attempts", &with)
    };
    assert_eq!(attempts("success", None), 2.0);
    assert_eq!(attempts("retryable_failure", Some("transient")), 1.0);
    assert_eq!(attempts("retryable_failure", Some("throttle")), 3.0);
    assert_eq!(attempts("retryable_failure", None), 4.0);
    assert_eq!(attempts("non_retryable_failure", Some("other")), 1.0);
    assert_eq!(attempts("non_retryable_failure", None), 1.0);
    assert_eq!(exported.number("rebound.client.attempts", &[client]), 7.0);

    let give_ups = |reason| {
        exported.number(
            "rebound.client.give_ups",
            &[client, ("rebound.give_up.reason", reason)],
        )
    };
    assert_eq!(give_ups("attempts_exhausted"), 1.0);
    assert_eq!(give_ups("not_retryable"), 1.0);
    assert_eq!(exported.number("rebound.client.give_ups", &[client]), 2.0);
    assert_eq!(exported.number("rebound.client.refusals", &[client]), 0.0);

    // Two requests retried: once and twice.
    assert_eq!(
        exported.histogram("rebound.client.request.retries", &[client]),
        (2, 3.0)
    );
    // Backoffs with jitter 0.5: 500 ms after the 503; 500 ms and 1 s after the throttles.
    let delay = |kind| {
        exported.histogram(
            "rebound.client.retry.delay",
            &[client, ("rebound.failure.kind", kind)],
        )
    };
    assert_eq!(delay("transient"), (1, 0.5));
    assert_eq!(delay("throttle"), (2, 1.5));
    assert_eq!(
        exported.histogram("rebound.client.send_permit.wait", &[client]),
        (0, 0.0)
    );

    let available = f64::from(strategy.quota().available());
    assert_eq!(
        exported.number("rebound.quota.available", &[client]),
        available
    );
    assert!(available < 500.0, "the throttles spent tokens: {available}");
    assert_eq!(exported.number("rebound.quota.capacity", &[client]), 500.0);
}

#[test]
fn blocking_executor() {
    let (meter, strategy) = (MemoryMeter::new(), strategy());
    let observer = observed(&meter, &strategy);
    let retry = Retry::new(&strategy)
        .sleeper(ManualClock::new())
        .listener(&observer);
    let mut next = scripted();
    for _ in 0..REQUESTS {
        let _ = retry.run(|_| next());
    }
    assert_reported(&meter, &strategy);
}

#[tokio::test]
async fn async_executor() {
    let (meter, strategy) = (MemoryMeter::new(), strategy());
    let observer = observed(&meter, &strategy);
    let retry = Retry::new(&strategy)
        .sleeper(|_: Duration| std::future::ready(()))
        .listener(&observer);
    let next = Cell::new(Some(scripted()));
    for _ in 0..REQUESTS {
        let _ = retry
            .run_async(|_| {
                let mut script = next.take().unwrap();
                let result = script();
                next.set(Some(script));
                std::future::ready(result)
            })
            .await;
    }
    assert_reported(&meter, &strategy);
}

#[test]
fn driver() {
    let (meter, strategy) = (MemoryMeter::new(), strategy());
    let observer = observed(&meter, &strategy);
    let retry = Retry::new(&strategy).listener(&observer);
    let mut next = scripted();
    for _ in 0..REQUESTS {
        let mut request = retry.request();
        loop {
            let attempt = match request.next() {
                Next::Wait(_, pending) => {
                    request = pending;
                    continue;
                }
                Next::Send(attempt) => attempt,
                Next::Stop(_) => break,
            };
            match next() {
                Ok(()) => {
                    attempt.succeeded();
                    break;
                }
                Err(failure) => match attempt.failed(&failure) {
                    AfterFailure::Retry(pending) => request = pending,
                    AfterFailure::Stop(_) => break,
                },
            }
        }
    }
    assert_reported(&meter, &strategy);
}

fn server_script() -> Vec<Reply> {
    SCRIPT
        .iter()
        .map(|&status| {
            if status == 200 {
                Reply::ok("ok")
            } else {
                Reply::status(status)
            }
        })
        .collect()
}

#[tokio::test]
async fn tower_layer() {
    let (meter, strategy) = (MemoryMeter::new(), strategy());
    let observer = std::sync::Arc::new(observed(&meter, &strategy));
    let server = Server::start(server_script()).await;
    let layer = RetryLayer::new(
        strategy.clone(),
        Slept::default(),
        ResponseClassifier::new(),
    )
    .clone_request(TryClone)
    .listener(observer.clone());
    let client = layer.layer(reqwest::Client::new());
    for _ in 0..REQUESTS {
        let request = reqwest::Request::new(reqwest::Method::GET, server.url.parse().unwrap());
        let _ = client.clone().oneshot(request).await;
    }
    assert_eq!(server.attempts(), 7);
    assert_reported(&meter, &strategy);
}

#[tokio::test]
async fn reqwest_send_with_retry() {
    let (meter, strategy) = (MemoryMeter::new(), strategy());
    let observer = observed(&meter, &strategy);
    let server = Server::start(server_script()).await;
    let retry = Retry::new(&strategy)
        .sleeper(Slept::default())
        .listener(&observer);
    let client = reqwest::Client::new();
    for _ in 0..REQUESTS {
        let _ = client.get(&server.url).send_with_retry(&retry).await;
    }
    assert_eq!(server.attempts(), 7);
    assert_reported(&meter, &strategy);
}

/// A waiter's polls are attempts: pending twice (once throttled), then ready;
/// then pending until its polls run out.
#[test]
fn waiter() {
    use rebound::waiter::{PollStatus, Waiter};

    let meter = MemoryMeter::new();
    let observer = std::sync::Arc::new(rebound::opentelemetry::observer(&meter.meter(), "orders"));
    let clock = ManualClock::new();
    let waiter = Waiter::builder()
        .max_polls(3)
        .jitter(false)
        .sleeper(clock.clone())
        .clock(clock)
        .listener(std::sync::Arc::clone(&observer))
        .build()
        .unwrap();
    let ready = waiter.wait(|poll| match poll {
        1 => PollStatus::<(), ()>::Throttled,
        2 => PollStatus::NotReady,
        _ => PollStatus::Ready(()),
    });
    assert!(ready.is_ok());
    assert!(waiter.wait(|_| PollStatus::<(), ()>::NotReady).is_err());

    let exported = meter.collect();
    let client = ("rebound.client.name", "orders");
    let attempts = |outcome, kind: Option<&str>| {
        let mut with = vec![client, ("rebound.attempt.outcome", outcome)];
        with.extend(kind.map(|kind| ("rebound.failure.kind", kind)));
        exported.number("rebound.client.attempts", &with)
    };
    assert_eq!(attempts("success", None), 1.0);
    assert_eq!(attempts("retryable_failure", Some("throttle")), 1.0);
    assert_eq!(attempts("retryable_failure", Some("transient")), 4.0);
    let give_ups = ("rebound.give_up.reason", "attempts_exhausted");
    assert_eq!(
        exported.number("rebound.client.give_ups", &[client, give_ups]),
        1.0
    );
    assert_eq!(
        exported.histogram("rebound.client.request.retries", &[client]),
        (2, 4.0)
    );
    // The waiter's delays, 2 s then 4 s (no jitter): after the two pending polls of each wait.
    assert_eq!(
        exported.histogram("rebound.client.retry.delay", &[client]),
        (4, 12.0)
    );
}

/// Partition keys, opted in: each key's strategy and observer, read back
/// with `rebound.partition`.
#[test]
fn partitions() {
    let meter = MemoryMeter::new();
    let observer = std::sync::Arc::new(rebound::opentelemetry::observer(&meter.meter(), "orders"));
    let strategies = strategy().partitions::<&str>();
    let mut next = scripted();
    for region in ["us-east-1", "eu-west-1", "us-east-1", "eu-west-1"] {
        let (strategy, observed) = (strategies.get(&region), observer.partition(region));
        if observed.readings().quota_available.is_none() {
            observed.watch(strategy.clone()); // the key's first request
        }
        let retry = Retry::new(strategy)
            .sleeper(ManualClock::new())
            .listener(observed);
        let _ = retry.run(|_| next());
    }
    let exported = meter.collect();
    let attempts = |region, outcome| {
        let with = [
            ("rebound.partition", region),
            ("rebound.attempt.outcome", outcome),
        ];
        exported.number("rebound.client.attempts", &with)
    };
    // us-east-1: the success, and the three throttles; eu-west-1: the 503 then the success, and the 400.
    assert_eq!(attempts("us-east-1", "success"), 1.0);
    assert_eq!(attempts("us-east-1", "retryable_failure"), 3.0);
    assert_eq!(attempts("eu-west-1", "success"), 1.0);
    assert_eq!(attempts("eu-west-1", "retryable_failure"), 1.0);
    assert_eq!(attempts("eu-west-1", "non_retryable_failure"), 1.0);
    let quota =
        |region| exported.number("rebound.quota.available", &[("rebound.partition", region)]);
    assert_eq!(
        quota("us-east-1"),
        f64::from(strategies.get(&"us-east-1").quota().available())
    );
    assert_eq!(
        quota("eu-west-1"),
        f64::from(strategies.get(&"eu-west-1").quota().available())
    );
    assert_eq!(
        exported.histogram(
            "rebound.client.retry.delay",
            &[("rebound.partition", "us-east-1")]
        ),
        (2, 1.5)
    );
    // The observer's own series, without a partition, counted nothing.
    let unpartitioned: f64 = exported
        .points("rebound.client.attempts", &[])
        .filter(|point| {
            point
                .attributes
                .iter()
                .all(|(key, _)| key != "rebound.partition")
        })
        .map(|point| match point.value {
            support::otel::Value::Number(value) => value,
            support::otel::Value::Histogram { .. } => unreachable!(),
        })
        .sum();
    assert_eq!(unpartitioned, 0.0);
}
