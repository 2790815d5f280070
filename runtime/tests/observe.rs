//! The observer: what it counts for the adaptive limiter's waits and
//! refusals, the budget, many threads at once, and the `metrics` adapter.

use std::sync::Mutex;
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::observe::{FailureKind, GiveUpReason, Outcome, Recorder, RetryObserver};
use rebound_runtime::rate_limiter::WaitPolicy;
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, Retry, RetryStrategy, StandardRetryStrategy, StopReason,
    TokenAcquisitionFailed,
};

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

fn adaptive(mode: WaitPolicy, clock: &ManualClock) -> AdaptiveRetryStrategy<ManualClock> {
    AdaptiveRetryStrategy::builder(standard())
        .wait_policy(mode)
        .clock(clock.clone())
        .build()
}

fn throttled() -> HttpErrorResponse {
    HttpErrorResponse::new(400).with_code("ThrottlingException")
}

/// A recorder keeping every sample.
#[derive(Debug, Default)]
struct Samples {
    retries: Mutex<Vec<u32>>,
    delays: Mutex<Vec<(FailureKind, Duration)>>,
    waits: Mutex<Vec<Duration>>,
}

impl Recorder for Samples {
    fn retries(&self, retries: u32) {
        self.retries.lock().unwrap().push(retries);
    }
    fn retry_delay(&self, kind: FailureKind, delay: Duration) {
        self.delays.lock().unwrap().push((kind, delay));
    }
    fn permit_wait(&self, wait: Duration) {
        self.waits.lock().unwrap().push(wait);
    }
}

#[test]
fn the_limiter_gauges_and_the_waits_for_a_permit() {
    let clock = ManualClock::new();
    let strategy = adaptive(WaitPolicy::Block, &clock);
    let observer = RetryObserver::with_recorder("adaptive", Samples::default());
    observer.watch(strategy.clone());
    assert_eq!(observer.readings().limiter_enabled, Some(false));

    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .listener(&observer);
    // Throttles turn the limiter on; the requests after them wait for permits.
    for _ in 0..20 {
        let _ = retry.run(|attempt| {
            if attempt < 2 {
                Err(throttled())
            } else {
                Ok(())
            }
        });
    }

    let readings = observer.readings();
    assert_eq!(readings.limiter_enabled, Some(true));
    assert_eq!(readings.limiter_fill_rate, strategy.send_rate());
    assert_eq!(
        readings.quota_available,
        strategy.quota_left().map(u64::from)
    );
    let waits = observer.recorder().waits.lock().unwrap().clone();
    assert!(
        !waits.is_empty(),
        "a limiter on at a low rate holds sends back"
    );
    assert!(waits.iter().all(|wait| !wait.is_zero()));

    let counts = observer.counts();
    assert_eq!(counts.attempts(Outcome::Success, None), 20);
    assert_eq!(
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Throttle)),
        20
    );
    assert_eq!(*observer.recorder().retries.lock().unwrap(), [1; 20]);
    let delays = observer.recorder().delays.lock().unwrap();
    assert!(
        delays
            .iter()
            .all(|(kind, _)| *kind == FailureKind::Throttle)
    );
}

#[test]
fn a_fail_fast_refusal_is_a_give_up_and_a_refusal_without_an_attempt() {
    let clock = ManualClock::new();
    let strategy = adaptive(WaitPolicy::FailFast, &clock);
    let observer = RetryObserver::new("fail-fast");
    // No sleeper that advances time: the limiter refills only as the clock moves.
    let retry = Retry::new(&strategy)
        .sleeper(|_| {})
        .clock(clock.clone())
        .listener(&observer);
    let (mut made, mut refused, mut refused_first) = (0u64, 0u64, 0u64);
    for _ in 0..50 {
        let Err(error) = retry.run(|_| {
            made += 1;
            Err::<(), _>(throttled())
        }) else {
            unreachable!("every attempt fails");
        };
        if let StopReason::Strategy(TokenAcquisitionFailed::RateLimited { .. }) = error.reason() {
            refused += 1;
            refused_first += u64::from(error.attempts() == 0);
        }
    }
    let counts = observer.counts();
    assert!(
        refused_first > 0,
        "the limiter must refuse some first attempts"
    );
    // Refused first attempts and refused retries alike: no attempt was sent.
    assert_eq!(counts.refusals(), refused);
    assert_eq!(counts.give_ups(GiveUpReason::RateLimited), refused);
    assert_eq!(counts.total_attempts(), made);
}

#[test]
fn a_retry_the_budget_refuses_is_a_budget_give_up() {
    let strategy = standard();
    let clock = ManualClock::new();
    let observer = RetryObserver::with_recorder("budget", Samples::default());
    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock)
        .budget(Duration::from_millis(700))
        .listener(&observer);
    let _ = retry.run(|_| Err::<(), _>(HttpErrorResponse::new(503)));
    let counts = observer.counts();
    // 500 ms after the first; the second retry's 1 s would end past 700 ms.
    assert_eq!(
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Transient)),
        2
    );
    assert_eq!(counts.give_ups(GiveUpReason::Budget), 1);
    assert_eq!(*observer.recorder().retries.lock().unwrap(), [1]);
}

#[test]
fn many_threads_count_every_attempt() {
    const THREADS: usize = 4;
    const REQUESTS: usize = 5_000;
    let strategy = StandardRetryStrategy::builder().random(|| 0.0).build();
    let observer = RetryObserver::new("shared");
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (strategy, observer) = (&strategy, &observer);
            scope.spawn(move || {
                let retry = Retry::new(strategy).sleeper(|_| {}).listener(observer);
                for request in 0..REQUESTS {
                    // Every third request fails once first; every fifth is not retryable.
                    let _ = retry.run(|attempt| match (request + thread) % 15 {
                        0 | 5 | 10 => Err(HttpErrorResponse::new(400)),
                        3 | 6 | 9 | 12 if attempt == 1 => Err(HttpErrorResponse::new(503)),
                        _ => Ok(()),
                    });
                }
            });
        }
    });
    let counts = observer.counts();
    let requests = (THREADS * REQUESTS) as u64;
    let not_retryable: u64 = (0..THREADS)
        .map(|t| {
            (0..REQUESTS)
                .filter(|r| matches!((r + t) % 15, 0 | 5 | 10))
                .count() as u64
        })
        .sum();
    let retried: u64 = (0..THREADS)
        .map(|t| {
            (0..REQUESTS)
                .filter(|r| matches!((r + t) % 15, 3 | 6 | 9 | 12))
                .count() as u64
        })
        .sum();
    assert_eq!(
        counts.attempts(Outcome::NonRetryableFailure, Some(FailureKind::Other)),
        not_retryable
    );
    assert_eq!(
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Transient)),
        retried
    );
    assert_eq!(
        counts.attempts(Outcome::Success, None),
        requests - not_retryable
    );
    assert_eq!(counts.give_ups(GiveUpReason::NotRetryable), not_retryable);
}

/// One success through `Retry::run` with `listener`.
#[cfg(feature = "metrics")]
fn retry_with(strategy: &StandardRetryStrategy, listener: impl rebound_runtime::RetryListener) {
    Retry::new(strategy)
        .listener(listener)
        .run(|_| Ok::<_, std::io::Error>(()))
        .unwrap();
}

#[cfg(feature = "metrics")]
#[test]
fn the_metrics_facade_gets_the_same_counts() {
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let strategy = standard();
    metrics::with_local_recorder(&recorder, || {
        let observer = rebound_runtime::metrics::observer("orders");
        observer.watch(strategy.clone());
        let retry = Retry::new(&strategy)
            .sleeper(ManualClock::new())
            .listener(&observer);
        let mut statuses = [200, 503, 200, 400].into_iter();
        for _ in 0..3 {
            let _ = retry.run(|_| match statuses.next().unwrap() {
                200 => Ok(()),
                status => Err(HttpErrorResponse::new(status)),
            });
        }
        observer.publish();
        // A partition, opted in: its own series, labelled.
        let partition = std::sync::Arc::new(observer).partition("us-east-1");
        retry_with(&strategy, &*partition);
        partition.publish();
    });
    // One snapshot: taking one resets the recorder's counters.
    let snapshot = snapshotter.snapshot().into_vec();
    let value = |name: &str, labels: &[(&str, &str)]| -> Option<&DebugValue> {
        snapshot.iter().find_map(|(key, _, _, value)| {
            let key = key.key();
            let matches = key.name() == name
                && labels
                    .iter()
                    .all(|(k, v)| key.labels().any(|l| l.key() == *k && l.value() == *v));
            matches.then_some(value)
        })
    };
    let client = ("rebound.client.name", "orders");
    let counter = |labels: &[(&str, &str)]| value("rebound.client.attempts", labels);
    assert_eq!(
        counter(&[client, ("rebound.attempt.outcome", "success")]),
        Some(&DebugValue::Counter(2))
    );
    assert_eq!(
        counter(&[
            client,
            ("rebound.attempt.outcome", "retryable_failure"),
            ("rebound.failure.kind", "transient")
        ]),
        Some(&DebugValue::Counter(1))
    );
    assert_eq!(
        counter(&[
            client,
            ("rebound.attempt.outcome", "non_retryable_failure"),
            ("rebound.failure.kind", "other")
        ]),
        Some(&DebugValue::Counter(1))
    );
    assert_eq!(
        value(
            "rebound.client.give_ups",
            &[client, ("rebound.give_up.reason", "not_retryable")]
        ),
        Some(&DebugValue::Counter(1))
    );
    let Some(DebugValue::Histogram(retries)) = value("rebound.client.request.retries", &[client])
    else {
        panic!("no retries histogram");
    };
    assert_eq!(retries.iter().map(|v| v.0).collect::<Vec<f64>>(), [1.0]);
    let partitioned = [
        client,
        ("rebound.partition", "us-east-1"),
        ("rebound.attempt.outcome", "success"),
    ];
    assert_eq!(counter(&partitioned), Some(&DebugValue::Counter(1)));
    assert_eq!(
        value("rebound.quota.available", &[client]),
        Some(&DebugValue::Gauge(
            f64::from(strategy.quota().available()).into()
        ))
    );
}

#[test]
fn a_waiter_reports_its_polls_as_attempts() {
    use rebound_runtime::waiter::{PollStatus, Waiter};
    use std::sync::Arc;

    let observer = Arc::new(RetryObserver::with_recorder("stack", Samples::default()));
    let clock = ManualClock::new();
    let waiter = Waiter::builder()
        .min_delay(Duration::from_secs(1))
        .max_polls(4)
        .jitter(false)
        .sleeper(clock.clone())
        .clock(clock)
        .listener(Arc::clone(&observer))
        .build()
        .unwrap();
    // Ready at the third poll, after a throttled one.
    let ready = waiter.wait(|poll| match poll {
        1 => PollStatus::<(), ()>::Throttled,
        2 => PollStatus::NotReady,
        _ => PollStatus::Ready(()),
    });
    assert!(ready.is_ok());
    // Pending until the polls are used up; then failed at once.
    let _ = waiter.wait(|_| PollStatus::<(), ()>::NotReady);
    let _ = waiter.wait(|_| PollStatus::<(), ()>::Failed(()));

    let counts = observer.counts();
    assert_eq!(counts.attempts(Outcome::Success, None), 1);
    assert_eq!(
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Throttle)),
        1
    );
    // 1 in the first wait, 4 in the second (the last one gives up).
    assert_eq!(
        counts.attempts(Outcome::RetryableFailure, Some(FailureKind::Transient)),
        5
    );
    assert_eq!(
        counts.attempts(Outcome::NonRetryableFailure, Some(FailureKind::Other)),
        1
    );
    assert_eq!(counts.give_ups(GiveUpReason::AttemptsExhausted), 1);
    assert_eq!(counts.give_ups(GiveUpReason::NotRetryable), 1);
    assert_eq!(*observer.recorder().retries.lock().unwrap(), [2, 3]);
    let delays: Vec<Duration> = observer
        .recorder()
        .delays
        .lock()
        .unwrap()
        .iter()
        .map(|(_, d)| *d)
        .collect();
    let s = Duration::from_secs;
    assert_eq!(delays, [s(1), s(2), s(1), s(2), s(4)]);
}

#[test]
fn partitions_are_an_opt_in_within_a_bound() {
    use std::sync::Arc;

    let observer = Arc::new(RetryObserver::new("orders"));
    assert!(
        observer.partitions().is_empty(),
        "no partition until asked for"
    );
    let bound = RetryObserver::<()>::MAX_PARTITIONS;
    let strategy = StandardRetryStrategy::new();
    for key in 0..bound + 5 {
        let partition = observer.partition(&key.to_string());
        Retry::new(&strategy)
            .listener(&*partition)
            .run(|_| Ok::<_, std::io::Error>(()))
            .unwrap();
    }
    let partitions = observer.partitions();
    // The bound's keys, then one partition for every key past it.
    assert_eq!(partitions.len(), bound + 1);
    let other = observer.partition(rebound_runtime::observe::OTHER_PARTITION);
    assert_eq!(other.partition_key(), Some("other"));
    assert_eq!(other.counts().attempts(Outcome::Success, None), 5);
    assert_eq!(
        observer
            .partition("0")
            .counts()
            .attempts(Outcome::Success, None),
        1
    );
    // A key seen again is the same partition; a partition's own partition is itself.
    assert!(Arc::ptr_eq(
        &observer.partition("7"),
        &observer.partition("7")
    ));
    let seven = observer.partition("7");
    assert!(Arc::ptr_eq(&seven.partition("8"), &seven));
    assert_eq!(observer.counts().total_attempts(), 0);
}
