//! Properties of `internals::parse_retry_after`, the HTTP `Retry-After`
//! parser behind `#[retry_after]` string fields: it never panics, whatever the
//! text or the clock; delta-seconds are read exactly; an IMF-fixdate is the
//! time from `now` until then, zero once past.
#![cfg(not(loom))]

use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use rebound_runtime::internals::parse_retry_after;

/// The last second an HTTP-date can name: Fri, 31 Dec 9999 23:59:59 GMT.
const LAST_HTTP_DATE: u64 = 253_402_300_799;

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

/// SP and HTAB, the only padding the header allows.
fn padding() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![Just(' '), Just('\t')], 0..4)
        .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    // Failures are reported, not persisted, as the tests directory has no
    // lib.rs for proptest to anchor its files to.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Any text at any time is a hint or none, never a panic.
    #[test]
    fn never_panics(value in any::<String>(), now in 0..=LAST_HTTP_DATE) {
        let _ = parse_retry_after(&value, at(now));
    }

    /// Text shaped like the header's forms (digits, dates, padding) too.
    #[test]
    fn never_panics_on_near_misses(
        value in "[ \t]?[0-9A-Za-z,:-]{0,6}[ ,]?[0-9A-Za-z:-]{0,30}[ \t]?",
        now in 0..=LAST_HTTP_DATE,
    ) {
        let _ = parse_retry_after(&value, at(now));
    }

    /// Delta-seconds are read exactly, padding or not, whatever the clock.
    #[test]
    fn delta_seconds_are_exact(
        seconds in any::<u64>(),
        before in padding(),
        after in padding(),
        now in 0..=LAST_HTTP_DATE,
    ) {
        let value = format!("{before}{seconds}{after}");
        prop_assert_eq!(parse_retry_after(&value, at(now)), Some(Duration::from_secs(seconds)));
    }

    /// A date is the wait from now until then; zero once it has passed.
    #[cfg(feature = "httpdate")]
    #[test]
    fn a_date_is_the_wait_until_then(
        date in 0..=LAST_HTTP_DATE,
        now in 0..=LAST_HTTP_DATE,
        before in padding(),
        after in padding(),
    ) {
        let value = format!("{before}{}{after}", httpdate::fmt_http_date(at(date)));
        let expected = Duration::from_secs(date.saturating_sub(now));
        prop_assert_eq!(parse_retry_after(&value, at(now)), Some(expected));
    }
}
