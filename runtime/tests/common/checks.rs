//! Counting assertions: every recorded field a conformance test compares is
//! counted, so a test can assert that it compared what it meant to (an empty
//! or skipped iteration cannot pass).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

/// How many times each recorded field was checked.
#[derive(Debug, Default)]
pub struct Checks(BTreeMap<&'static str, usize>);

impl Checks {
    /// Asserts `actual == expected` for `field` (at `at`, for the message).
    pub fn eq<T: PartialEq + std::fmt::Debug>(
        &mut self,
        field: &'static str,
        actual: T,
        expected: T,
        at: &str,
    ) {
        assert_eq!(actual, expected, "{field} at {at}");
        self.count_one(field);
    }

    /// Asserts a duration in seconds (or its absence, as JSON null) is the
    /// recorded one within 1e-9 relative.
    pub fn secs(&mut self, field: &'static str, actual: Option<f64>, expected: &Value, at: &str) {
        match (actual, expected.as_f64()) {
            (None, None) => {}
            (Some(actual), Some(expected)) => assert!(
                (actual - expected).abs() <= expected.abs() * 1e-9,
                "{field} at {at}: got {actual} s, recorded {expected} s"
            ),
            (actual, _) => panic!("{field} at {at}: got {actual:?}, recorded {expected}"),
        }
        self.count_one(field);
    }

    /// Asserts a delay (or its absence, as JSON null) is the recorded number
    /// of seconds, see [`delay_matches`].
    pub fn delay(
        &mut self,
        field: &'static str,
        actual: Option<Duration>,
        expected: &Value,
        at: &str,
    ) {
        match (actual, expected.as_f64()) {
            (None, None) => {}
            (Some(actual), Some(expected)) => assert!(
                delay_matches(actual, expected),
                "{field} at {at}: got {actual:?} ({} s), recorded {expected} s",
                actual.as_secs_f64()
            ),
            (actual, _) => panic!("{field} at {at}: got {actual:?}, recorded {expected}"),
        }
        self.count_one(field);
    }

    /// How many times `field` was checked.
    pub fn count(&self, field: &str) -> usize {
        self.0.get(field).copied().unwrap_or(0)
    }

    /// Counts a check of `field` the caller made itself.
    pub fn counted(&mut self, field: &'static str) {
        self.count_one(field);
    }

    fn count_one(&mut self, field: &'static str) {
        *self.0.entry(field).or_default() += 1;
    }
}

/// A `Duration` holds whole nanoseconds: within 1e-9 relative of the
/// recorded seconds, or within 1 ns.
pub fn delay_matches(actual: Duration, expected: f64) -> bool {
    let actual_ns = actual.as_nanos() as f64;
    let expected_ns = expected * 1e9;
    (actual_ns - expected_ns).abs() <= (expected_ns.abs() * 1e-9).max(1.0)
}
