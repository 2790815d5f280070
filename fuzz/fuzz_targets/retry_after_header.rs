//! Any header value as `Retry-After` (RFC 9110: delay-seconds or an
//! HTTP-date), read at any wall-clock time: never a panic; delay-seconds is
//! exactly its number of seconds (saturating), and a date is the time from
//! `now` to the date `httpdate` reads, or zero once it has passed.
#![no_main]

use std::time::{Duration, SystemTime};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rebound_runtime::internals::parse_retry_after;

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    /// Seconds since the epoch for `now` (any `u32`: 1970 to 2106).
    now: u32,
    value: &'a str,
}

/// The rule, written the obvious way.
fn reference(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim_matches(|c| c == ' ' || c == '\t');
    if value.is_empty()
        || value.starts_with(|c: char| c.is_ascii_whitespace())
        || value.ends_with(|c: char| c.is_ascii_whitespace())
    {
        return None;
    }
    if value.chars().all(|c| c.is_ascii_digit()) {
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

fuzz_target!(|input: Input<'_>| {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(input.now));
    let parsed = parse_retry_after(input.value, now);
    assert_eq!(parsed, reference(input.value, now), "{:?}", input.value);
});
