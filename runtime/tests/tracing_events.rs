//! Feature `tracing`: one `DEBUG` event per retry and one event per give-up,
//! target `"rebound"`, with the fields `RetryListener`'s docs list; fields
//! are computed only for events a subscriber wants.
#![cfg(feature = "tracing")]

mod common;

use common::counting::Counting;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
use rebound_runtime::time::ManualClock;
use rebound_runtime::{
    AdaptiveRetryStrategy, FailureInfo, Retry, RetryStrategy, StandardRetryStrategy,
};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber, span};

/// One field's value, as recorded.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    U64(u64),
    F64(f64),
    Str(String),
    /// `Debug` and `Display` values (the message, `%reason`).
    Text(String),
}

/// One event, as recorded.
#[derive(Debug, Clone)]
struct Recorded {
    target: String,
    level: Level,
    fields: BTreeMap<&'static str, Value>,
}

impl Recorded {
    fn message(&self) -> &str {
        match self.fields.get("message") {
            Some(Value::Text(message)) => message,
            other => panic!("no message: {other:?}"),
        }
    }

    fn u64(&self, name: &str) -> Option<u64> {
        match self.fields.get(name)? {
            Value::U64(value) => Some(*value),
            other => panic!("{name} is not a u64: {other:?}"),
        }
    }

    fn f64(&self, name: &str) -> Option<f64> {
        match self.fields.get(name)? {
            Value::F64(value) => Some(*value),
            other => panic!("{name} is not an f64: {other:?}"),
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        match self.fields.get(name)? {
            Value::Str(value) | Value::Text(value) => Some(value),
            other => panic!("{name} is not text: {other:?}"),
        }
    }
}

impl Visit for Recorded {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.fields.insert(field.name(), Value::U64(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        let value = u64::try_from(value).expect("no negative fields");
        self.fields.insert(field.name(), Value::U64(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.fields.insert(field.name(), Value::F64(value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.fields
            .insert(field.name(), Value::Str(value.to_owned()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.fields
            .insert(field.name(), Value::Text(format!("{value:?}")));
    }
}

/// The smallest subscriber that records events: spans are not needed.
/// `max_level` filters by level, as a subscriber's filter would.
#[derive(Debug, Clone)]
struct Capture {
    max_level: Level,
    events: Arc<Mutex<Vec<Recorded>>>,
}

impl Capture {
    fn new() -> Self {
        Self::up_to(Level::TRACE)
    }

    fn up_to(max_level: Level) -> Self {
        Self {
            max_level,
            events: Arc::default(),
        }
    }

    /// The events recorded since the last call.
    fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut self.events.lock().unwrap())
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        // More verbose levels compare greater.
        *metadata.level() <= self.max_level
    }

    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }

    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut recorded = Recorded {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            fields: BTreeMap::new(),
        };
        event.record(&mut recorded);
        self.events.lock().unwrap().push(recorded);
    }

    fn enter(&self, _: &span::Id) {}

    fn exit(&self, _: &span::Id) {}
}

fn standard() -> StandardRetryStrategy {
    StandardRetryStrategy::builder().random(|| 0.5).build()
}

/// Runs `op` with `strategy` in virtual time, recording the events.
fn traced<S: RetryStrategy, T, E: FailureInfo>(
    strategy: S,
    op: impl FnMut(u32) -> Result<T, E>,
) -> (Result<T, rebound_runtime::RetryError<E>>, Vec<Recorded>) {
    let capture = Capture::new();
    let clock = ManualClock::new();
    let retry = Retry::new(strategy).sleeper(clock.clone()).clock(clock);
    let result = tracing::subscriber::with_default(capture.clone(), || retry.run(op));
    (result, capture.take())
}

fn retrying(events: &[Recorded]) -> Vec<&Recorded> {
    events
        .iter()
        .filter(|event| event.message() == "retrying")
        .collect()
}

fn giving_up(events: &[Recorded]) -> Vec<&Recorded> {
    events
        .iter()
        .filter(|event| event.message() == "giving up")
        .collect()
}

#[test]
fn each_retry_is_one_debug_event_with_its_attempt_delay_why_and_quota_left() {
    let strategy = standard();
    let busy = HttpErrorResponse::new(503).with_code("ServiceUnavailable");
    let (result, events) = traced(&strategy, |attempt| {
        if attempt < 3 {
            Err(busy.clone())
        } else {
            Ok(attempt)
        }
    });
    assert_eq!(result.unwrap(), 3);
    assert_eq!(events.len(), 2, "{events:#?}");
    let retries = retrying(&events);
    assert_eq!(retries.len(), 2);
    // 500 -> 495 -> 490: behaviour 2.0 charges 5 per transient retry.
    for (event, (attempt, delay_ms, quota_left)) in
        retries.iter().zip([(1, 500.0, 495), (2, 1000.0, 490)])
    {
        assert_eq!(event.target, "rebound");
        assert_eq!(event.level, Level::DEBUG);
        assert_eq!(event.u64("attempt"), Some(attempt));
        assert_eq!(event.f64("delay_ms"), Some(delay_ms));
        assert_eq!(event.text("why"), Some("transient"));
        assert_eq!(event.u64("quota_left"), Some(quota_left));
        assert_eq!(event.u64("http_status"), Some(503));
        assert_eq!(event.text("error_code"), Some("ServiceUnavailable"));
        // Standard mode has no rate limiter: the field is left out.
        assert_eq!(event.f64("send_rate"), None);
    }
}

#[test]
fn the_async_executor_emits_the_same_events() {
    let strategy = standard();
    let capture = Capture::new();
    let retry = Retry::new(&strategy).sleeper(|_: Duration| std::future::ready(()));
    let busy = HttpErrorResponse::new(503);
    let result = tracing::subscriber::with_default(capture.clone(), || {
        block_on(retry.run_async(|attempt| {
            let busy = busy.clone();
            async move { if attempt < 3 { Err(busy) } else { Ok(attempt) } }
        }))
    });
    assert_eq!(result.unwrap(), 3);
    let events = capture.take();
    let retries = retrying(&events);
    assert_eq!(retries.len(), 2, "{events:#?}");
    assert_eq!(retries[1].u64("attempt"), Some(2));
    assert_eq!(retries[1].u64("quota_left"), Some(490));
    assert_eq!(retries[1].f64("delay_ms"), Some(1000.0));
    assert_eq!(retries[1].u64("http_status"), Some(503));
    assert_eq!(retries[1].text("error_code"), None);
}

#[test]
fn a_driver_of_its_own_emits_the_same_events() {
    use rebound_runtime::driver::{AfterFailure, Next};

    let strategy = standard();
    let capture = Capture::new();
    let retry = Retry::new(&strategy);
    let busy = HttpErrorResponse::new(503);
    tracing::subscriber::with_default(capture.clone(), || {
        let mut request = retry.request();
        loop {
            let attempt = match request.next() {
                Next::Wait(_, pending) => {
                    request = pending;
                    continue;
                }
                Next::Send(attempt) => attempt,
                Next::Stop(stopped) => panic!("{stopped}"),
            };
            match attempt.failed(&busy) {
                AfterFailure::Retry(pending) => request = pending,
                AfterFailure::Stop(_) => break,
            }
        }
    });
    let events = capture.take();
    let retries = retrying(&events);
    assert_eq!(retries.len(), 2, "{events:#?}");
    assert_eq!(retries[1].u64("attempt"), Some(2));
    assert_eq!(retries[1].f64("delay_ms"), Some(1000.0));
    let give_ups = giving_up(&events);
    assert_eq!(give_ups.len(), 1, "{events:#?}");
    assert_eq!(give_ups[0].u64("attempts"), Some(3));
    assert_eq!(give_ups[0].level, Level::WARN);
}

#[test]
fn a_throttling_code_is_why_throttle() {
    let throttled = HttpErrorResponse::new(400).with_code("Throttling");
    let (result, events) = traced(standard(), |attempt| {
        if attempt < 2 {
            Err(throttled.clone())
        } else {
            Ok(())
        }
    });
    assert!(result.is_ok());
    let retries = retrying(&events);
    assert_eq!(retries.len(), 1, "{events:#?}");
    assert_eq!(retries[0].text("why"), Some("throttle"));
    assert_eq!(retries[0].u64("quota_left"), Some(495)); // a throttle costs 5
    assert_eq!(retries[0].u64("http_status"), Some(400));
    assert_eq!(retries[0].text("error_code"), Some("Throttling"));

    let timed_out = std::io::Error::from(std::io::ErrorKind::TimedOut);
    let (_, events) = traced(standard(), |attempt| {
        if attempt < 2 {
            Err(std::io::Error::from(timed_out.kind()))
        } else {
            Ok(())
        }
    });
    let retries = retrying(&events);
    assert_eq!(retries[0].text("why"), Some("timeout"));
    assert_eq!(retries[0].u64("quota_left"), Some(490)); // a timeout costs 10
    assert_eq!(retries[0].u64("http_status"), None);
}

#[test]
fn adaptive_mode_reports_its_send_rate_once_throttled() {
    let clock = ManualClock::new();
    let strategy = AdaptiveRetryStrategy::builder(standard())
        .clock(clock.clone())
        .build();
    let capture = Capture::new();
    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone());
    let failures = [
        HttpErrorResponse::new(503),
        HttpErrorResponse::new(400).with_code("ThrottlingException"),
    ];
    let result = tracing::subscriber::with_default(capture.clone(), || {
        retry.run(|attempt| {
            clock.advance(Duration::from_millis(10));
            match failures.get(attempt as usize - 1) {
                Some(failure) => Err(failure.clone()),
                None => Ok(attempt),
            }
        })
    });
    assert_eq!(result.unwrap(), 3);
    let events = capture.take();
    let retries = retrying(&events);
    assert_eq!(retries.len(), 2, "{events:#?}");
    // Before the first throttle the limiter is off: no send rate.
    assert_eq!(retries[0].text("why"), Some("transient"));
    assert_eq!(retries[0].f64("send_rate"), None);
    assert_eq!(retries[0].u64("quota_left"), Some(495));
    assert_eq!(retries[1].text("why"), Some("throttle"));
    assert_eq!(retries[1].u64("quota_left"), Some(490));
    let send_rate = retries[1]
        .f64("send_rate")
        .expect("a send rate once throttled");
    assert!(send_rate > 0.0 && send_rate.is_finite(), "{send_rate}");
}

#[test]
fn giving_up_is_one_warn_event_with_the_attempts_and_the_reason() {
    let busy = HttpErrorResponse::new(503);
    let (result, events) = traced(standard(), |_| Err::<(), _>(busy.clone()));
    assert_eq!(result.unwrap_err().attempts(), 3);
    assert_eq!(retrying(&events).len(), 2, "{events:#?}");
    let give_ups = giving_up(&events);
    assert_eq!(give_ups.len(), 1, "{events:#?}");
    let give_up = give_ups[0];
    assert_eq!(events.last().map(Recorded::message), Some("giving up"));
    assert_eq!(give_up.target, "rebound");
    assert_eq!(give_up.level, Level::WARN);
    assert_eq!(give_up.u64("attempts"), Some(3));
    assert_eq!(
        give_up.text("reason"),
        Some("all 3 allowed attempts were made")
    );
    assert_eq!(give_up.u64("quota_left"), Some(490));
    assert_eq!(give_up.f64("send_rate"), None);
    assert_eq!(give_up.u64("http_status"), Some(503));
}

#[test]
fn a_failure_that_is_not_retryable_gives_up_at_debug() {
    let not_found = HttpErrorResponse::new(404).with_code("ResourceNotFoundException");
    let (result, events) = traced(standard(), |_| Err::<(), _>(not_found.clone()));
    assert_eq!(result.unwrap_err().attempts(), 1);
    assert_eq!(events.len(), 1, "{events:#?}");
    let give_up = &events[0];
    assert_eq!(give_up.message(), "giving up");
    assert_eq!(give_up.level, Level::DEBUG);
    assert_eq!(give_up.u64("attempts"), Some(1));
    assert_eq!(give_up.text("reason"), Some("the failure is not retryable"));
    assert_eq!(give_up.u64("quota_left"), Some(500));
    assert_eq!(
        give_up.text("error_code"),
        Some("ResourceNotFoundException")
    );

    // After a retry, the same refusal is a warning: retries did not help.
    let busy = HttpErrorResponse::new(503);
    let (_, events) = traced(standard(), |attempt| {
        Err::<(), _>(if attempt < 2 {
            busy.clone()
        } else {
            not_found.clone()
        })
    });
    let give_ups = giving_up(&events);
    assert_eq!(give_ups.len(), 1, "{events:#?}");
    assert_eq!(give_ups[0].level, Level::WARN);
    assert_eq!(give_ups[0].u64("attempts"), Some(2));

    // A strategy that allows one attempt gives up at debug too.
    let (_, events) = traced(rebound_runtime::NeverRetryStrategy, |_| {
        Err::<(), _>(busy.clone())
    });
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].level, Level::DEBUG);
    assert_eq!(events[0].u64("quota_left"), None);
}

#[test]
fn a_budget_that_stops_the_next_attempt_gives_up_with_the_quota_left() {
    let strategy = standard();
    let capture = Capture::new();
    let clock = ManualClock::new();
    let retry = Retry::new(&strategy)
        .sleeper(clock.clone())
        .clock(clock.clone())
        .budget(Duration::from_millis(800));
    let busy = HttpErrorResponse::new(502);
    let result = tracing::subscriber::with_default(capture.clone(), || {
        retry.run(|_| Err::<(), _>(busy.clone()))
    });
    assert_eq!(result.unwrap_err().attempts(), 2);
    let events = capture.take();
    // The second retry, granted but past the budget, is no retry event.
    assert_eq!(retrying(&events).len(), 1, "{events:#?}");
    let give_ups = giving_up(&events);
    assert_eq!(give_ups.len(), 1);
    assert_eq!(give_ups[0].level, Level::WARN);
    assert_eq!(give_ups[0].u64("attempts"), Some(2));
    // Stopped before the next attempt, the give-up still reads the strategy.
    assert_eq!(give_ups[0].u64("quota_left"), Some(490));
    assert_eq!(give_ups[0].u64("http_status"), Some(502));
    assert!(
        give_ups[0]
            .text("reason")
            .is_some_and(|reason| reason.contains("within the 800ms budget")),
        "{give_ups:#?}"
    );
}

#[test]
fn legacy_modes_have_no_quota_field() {
    let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
        .random(|| 0.5)
        .build();
    let (_, events) = traced(&strategy, |attempt| {
        if attempt < 2 {
            Err(HttpErrorResponse::new(429))
        } else {
            Ok(())
        }
    });
    let retries = retrying(&events);
    assert_eq!(retries.len(), 1, "{events:#?}");
    assert_eq!(retries[0].text("why"), Some("throttle"));
    assert_eq!(retries[0].u64("quota_left"), None);
    assert_eq!(retries[0].f64("send_rate"), None);
}

#[test]
fn fields_are_computed_only_for_events_the_subscriber_wants() {
    let strategy = Counting::new(standard());
    let busy = HttpErrorResponse::new(503);
    let retry = Retry::new(&strategy).sleeper(|_| {});
    // `WARN` and above: the retries are filtered out, the give-up is not.
    let capture = Capture::up_to(Level::WARN);
    let result = tracing::subscriber::with_default(capture.clone(), || {
        retry.run(|_| Err::<(), _>(busy.clone()))
    });
    assert!(result.is_err());
    let events = capture.take();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].message(), "giving up");
    // The give-up asked for the quota and the send rate; the filtered
    // retries asked nothing.
    assert_eq!(strategy.asked(), 2);

    // Nothing wanted: nothing asked.
    let capture = Capture::up_to(Level::ERROR);
    let _ = tracing::subscriber::with_default(capture.clone(), || {
        retry.run(|_| Err::<(), _>(busy.clone()))
    });
    assert!(capture.take().is_empty());
    assert_eq!(strategy.asked(), 2);
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}
