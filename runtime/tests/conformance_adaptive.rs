//! Replays `shared/conformance/adaptive.json` (botocore 1.44.5's
//! `ClientRateLimiter` on a fake clock) against [`ClientRateLimiter`]: every
//! event of every sequence, the full limiter state after each, and the waits
//! of blocked sends, bit for bit.
//!
//! Blocking sends go through `ClientRateLimiter::acquire` with a virtual clock:
//! the `sleep` callback advances the clock by the wait the limiter asked for,
//! which is what the reference's condition-variable loop did on its fake clock.

mod common;

use std::cell::Cell;

use common::vectors::{array, assert_same, field, flag, num};
use rebound_runtime::{internals::RateLimiterSnapshot, rate_limiter::ClientRateLimiter};
use serde_json::Value;

/// The state fields the vectors record; each is compared.
const STATE_FIELDS: [&str; 11] = [
    "enabled",
    "measured_rate",
    "last_bucket",
    "request_count",
    "fill_rate",
    "max_capacity",
    "current_capacity",
    "last_timestamp",
    "w_max",
    "k",
    "last_fail",
];

/// Compares every recorded field; returns how many were compared.
#[track_caller]
fn assert_state(s: &RateLimiterSnapshot, recorded: &Value, at: &str) -> usize {
    let keys = recorded.as_object().expect("state is an object");
    assert_eq!(
        keys.len(),
        STATE_FIELDS.len(),
        "{at}: unexpected state fields {keys:?}"
    );
    assert_eq!(
        field(recorded, "enabled").as_bool(),
        Some(s.enabled),
        "{at}: enabled"
    );
    assert_eq!(
        field(recorded, "request_count").as_u64(),
        Some(s.request_count),
        "{at}: request_count"
    );
    let floats = [
        ("measured_rate", s.measured_rate),
        ("last_bucket", s.last_bucket),
        ("fill_rate", s.fill_rate),
        ("max_capacity", s.max_capacity),
        ("current_capacity", s.current_capacity),
        ("last_timestamp", s.last_timestamp),
        ("w_max", s.w_max),
        ("k", s.k),
        ("last_fail", s.last_fail),
    ];
    for (name, ours) in floats {
        assert_same(ours, num(recorded, name), &format!("{at}: {name}"));
    }
    2 + floats.len()
}

/// A private re-check of the recorded throttling verdict (botocore's
/// `ThrottlingErrorDetector`): a throttling error code; else, if the code is
/// a modeled error, the model decides; else HTTP status 429. The real
/// classification belongs to the retry strategy; this only makes sure the
/// vectors mean what we think they mean.
fn reference_verdict(doc: &Value, status: Option<u64>, code: Option<&str>) -> bool {
    let strings = |key| {
        array(doc, key)
            .iter()
            .map(|v| v.as_str().expect("string"))
            .collect::<Vec<_>>()
    };
    if let Some(code) = code {
        if strings("throttling_error_codes").contains(&code) {
            return true;
        }
        if let Some(modeled) = array(doc, "modeled_errors")
            .iter()
            .find(|m| field(m, "code").as_str() == Some(code))
        {
            return flag(modeled, "retryable") && flag(modeled, "throttling");
        }
    }
    status.is_some_and(|status| {
        array(doc, "throttling_status_codes")
            .iter()
            .any(|s| s.as_u64() == Some(status))
    })
}

/// The recording harness's fake clock: a wait advances it by the wait, and
/// by at least one representable step (in 116 recorded sends the second,
/// tiny wait is below half an ulp of the clock, and the clock still moved by
/// one ulp — otherwise the reference would have waited forever).
fn fake_clock_sleep(now: f64, wait: f64) -> f64 {
    (now + wait).max(now.next_up())
}

#[test]
fn adaptive_sequences() {
    let doc = common::load_conformance("adaptive.json");
    let sequences = array(&doc, "sequences");
    let mut counts = Counts::default();
    for seq in sequences {
        let seed = field(seq, "seed");
        let clock = Cell::new(num(seq, "start_time"));
        let limiter = ClientRateLimiter::new(clock.get());
        counts.fields += assert_state(
            &limiter.snapshot(),
            field(seq, "initial_state"),
            &format!("seed {seed} initial"),
        );
        for (i, event) in array(seq, "events").iter().enumerate() {
            let at = format!("seed {seed} event {i}");
            clock.set(clock.get() + num(event, "dt"));
            assert_eq!(clock.get(), num(event, "t"), "{at}: t");
            match field(event, "op").as_str() {
                Some("send") => {
                    let mut waits = Vec::new();
                    let acquired = limiter.acquire(
                        || clock.get(),
                        |limited| {
                            waits.push(limited.wait_secs());
                            clock.set(fake_clock_sleep(clock.get(), limited.wait_secs()));
                        },
                    );
                    assert_eq!(acquired, Ok(()), "{at}: blocking acquire");
                    let recorded = array(event, "waits");
                    assert_eq!(waits.len(), recorded.len(), "{at}: waits {waits:?}");
                    for (j, (ours, theirs)) in waits.iter().zip(recorded).enumerate() {
                        let theirs = theirs.as_f64().expect("wait is a number");
                        assert!(*ours > 0.0, "{at}: wait {j} not positive");
                        assert_same(*ours, theirs, &format!("{at}: wait {j}"));
                    }
                    counts.waits += waits.len();
                    assert_same(
                        clock.get(),
                        num(event, "t_after"),
                        &format!("{at}: t_after"),
                    );
                    counts.sends += 1;
                }
                Some("response") => {
                    let throttle = flag(event, "throttle");
                    let verdict = reference_verdict(
                        &doc,
                        field(event, "status").as_u64(),
                        field(event, "error_code").as_str(),
                    );
                    assert_eq!(verdict, throttle, "{at}: throttling verdict");
                    limiter.on_response(clock.get(), throttle);
                    counts.responses += 1;
                    counts.throttles += usize::from(throttle);
                }
                other => panic!("{at}: unknown op {other:?}"),
            }
            counts.fields += assert_state(&limiter.snapshot(), field(event, "state"), &at);
        }
        counts.sequences += 1;
    }
    eprintln!("{counts:?}");
    assert_eq!(counts.sequences, sequences.len());
    assert!(counts.sequences > 0 && counts.sends > 0 && counts.responses > 0);
    assert!(counts.throttles > 0 && counts.waits > 0 && counts.fields > 0);
}

#[derive(Debug, Default)]
struct Counts {
    sequences: usize,
    sends: usize,
    responses: usize,
    throttles: usize,
    waits: usize,
    fields: usize,
}
