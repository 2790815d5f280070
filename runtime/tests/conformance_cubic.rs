//! Replays `shared/conformance/cubic.json` (recorded from botocore 1.44.5)
//! against the CUBIC calculator and the rate limiter.
//!
//! Every table row and every calculator op is checked; the harness-artifact
//! column of `test_calculated_rate_with_throttles` is replaced by its
//! `botocore_error_received_semantics` column, as the file's README asks.

mod common;

use common::vectors::{array, assert_close, assert_same, field, flag, num};
use rebound_runtime::internals::{
    BETA, CubicCalculator, MAX_RATE_ADJUST_SCALE, MIN_CAPACITY, MIN_FILL_RATE, RateLimiterState,
    SCALE_CONSTANT, SMOOTHING, TIME_BUCKET_RANGE,
};
use serde_json::Value;

fn tables() -> Value {
    field(&common::load_conformance("cubic.json"), "rust_tables").clone()
}

#[test]
fn constants_match() {
    let doc = common::load_conformance("cubic.json");
    let c = field(&doc, "constants");
    let ours = [
        ("scale_constant_C", SCALE_CONSTANT),
        ("beta", BETA),
        ("smoothing", SMOOTHING),
        ("time_bucket_range_s", TIME_BUCKET_RANGE),
        ("max_rate_adjust_scale", MAX_RATE_ADJUST_SCALE),
        ("min_fill_rate", MIN_FILL_RATE),
        ("min_capacity", MIN_CAPACITY),
    ];
    let recorded = c.as_object().expect("constants is an object");
    assert_eq!(
        recorded.len(),
        ours.len(),
        "every recorded constant is checked"
    );
    for (name, value) in ours {
        assert_eq!(num(c, name), value, "constant {name}");
    }
}

#[test]
fn calculated_rate_with_successes() {
    let table = tables();
    let table = field(&table, "test_calculated_rate_with_successes");
    let setup = field(table, "setup");
    let cubic = CubicCalculator::new(
        num(setup, "last_max_rate"),
        num(setup, "time_of_last_throttle"),
    );
    let agrees = flag(table, "botocore_agrees");
    let mut checked = 0;
    for row in array(table, "rows") {
        let t = num(row, "t");
        let rate = cubic.success_received(t);
        assert_same(
            rate,
            num(row, "botocore_calculated_rate"),
            &format!("t={t}"),
        );
        if agrees {
            assert_close(
                rate,
                num(row, "expected_calculated_rate"),
                &format!("t={t}"),
            );
        }
        checked += 1;
    }
    assert!(checked > 0);
}

/// Parses `name(number)...` into the number.
fn call_arg(what: &str, name: &str) -> Option<f64> {
    let rest = what.strip_prefix(name)?.strip_prefix('(')?;
    rest[..rest.find(')')?].trim().parse().ok()
}

/// Parses `... key=number...` into the number.
fn keyed(what: &str, key: &str) -> Option<f64> {
    let start = what.find(&format!("{key}="))? + key.len() + 1;
    let rest = &what[start..];
    let end = rest.find([',', ' ', ')']).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

#[test]
fn should_match_beta_decrease() {
    let table = tables();
    let mut checked = 0;
    for row in array(field(&table, "should_match_beta_decrease"), "rows") {
        let what = field(row, "what").as_str().expect("what is a string");
        let got = if let Some(rate) = call_arg(what, "cubic_throttle") {
            CubicCalculator::new(0.0, 0.0).error_received(rate, 0.0)
        } else if let Some(t) = call_arg(what, "cubic_success") {
            let w_max = keyed(what, "w_max").unwrap_or_else(|| panic!("no w_max in {what}"));
            let last_fail =
                keyed(what, "last_fail").unwrap_or_else(|| panic!("no last_fail in {what}"));
            CubicCalculator::new(w_max, last_fail).success_received(t)
        } else {
            panic!("unknown row {what:?}");
        };
        assert_same(got, num(row, "botocore"), what);
        assert_close(got, num(row, "expected"), what);
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn calculated_rate_with_throttles_botocore_semantics() {
    let table = tables();
    let table = field(&table, "test_calculated_rate_with_throttles");
    let setup = field(table, "setup");
    let mut cubic = CubicCalculator::new(
        num(setup, "last_max_rate"),
        num(setup, "time_of_last_throttle"),
    );
    let mut rate = num(setup, "calculated_rate_initial");
    let mut checked = 0;
    for row in array(table, "rows") {
        let t = num(row, "t");
        rate = if flag(row, "throttled") {
            cubic.error_received(rate, t)
        } else {
            cubic.success_received(t)
        };
        assert_same(
            rate,
            num(row, "botocore_error_received_semantics"),
            &format!("t={t}"),
        );
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn client_sending_rates() {
    let table = tables();
    let table = field(&table, "test_client_sending_rates");
    let agrees = flag(table, "botocore_agrees");
    // Setup: "fresh limiter, measured_rate=0, last_tx_rate_bucket=0, w_max=0,
    // last_fail=0, not enabled".
    let mut limiter = RateLimiterState::new(0.0);
    let start = limiter.snapshot();
    assert!(!start.enabled);
    assert_eq!(
        (
            start.measured_rate,
            start.last_bucket,
            start.w_max,
            start.last_fail
        ),
        (0.0, 0.0, 0.0, 0.0)
    );
    let mut checked = 0;
    for row in array(table, "rows") {
        let t = num(row, "t");
        limiter.on_response(t, flag(row, "throttled"));
        let s = limiter.snapshot();
        let at = format!("t={t}");
        assert_same(s.measured_rate, num(row, "botocore_measured_rate"), &at);
        assert_same(s.fill_rate, num(row, "botocore_fill_rate"), &at);
        assert_same(s.max_capacity, num(row, "botocore_max_capacity"), &at);
        if agrees {
            assert_close(s.measured_rate, num(row, "expected_measured_tx_rate"), &at);
            assert_close(s.fill_rate, num(row, "expected_fill_rate"), &at);
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn cubic_calculator_sequences() {
    let doc = common::load_conformance("cubic.json");
    let sequences = array(&doc, "cubic_calculator_sequences");
    let (mut ops_checked, mut sequences_checked) = (0, 0);
    for seq in sequences {
        let seed = field(seq, "seed");
        let mut cubic = CubicCalculator::new(num(seq, "starting_max_rate"), num(seq, "start_time"));
        for (i, op) in array(seq, "ops").iter().enumerate() {
            let t = num(op, "t");
            let at = format!("seed {seed} op {i}");
            let result = match field(op, "op").as_str() {
                Some("success") => cubic.success_received(t),
                Some("error") => cubic.error_received(num(op, "current_rate"), t),
                other => panic!("{at}: unknown op {other:?}"),
            };
            assert_same(result, num(op, "result"), &format!("{at} result"));
            let after = field(op, "after");
            let params = cubic.params();
            assert_same(params.w_max, num(after, "w_max"), &format!("{at} w_max"));
            assert_same(params.k, num(after, "k"), &format!("{at} k"));
            assert_same(
                params.last_fail,
                num(after, "last_fail"),
                &format!("{at} last_fail"),
            );
            ops_checked += 1;
        }
        sequences_checked += 1;
    }
    assert!(sequences_checked > 0 && ops_checked > 0);
    assert_eq!(sequences_checked, sequences.len());
    eprintln!("cubic_calculator_sequences: {sequences_checked} sequences, {ops_checked} ops");
}
