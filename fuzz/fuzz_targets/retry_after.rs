//! Any header value as `x-amz-retry-after`: never a panic, and a parsed hint
//! is exactly the milliseconds a plain reading of the digits gives.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rebound_runtime::backoff::RetryAfterPolicy;
use rebound_runtime::internals::parse_x_amz_retry_after;

/// The rule, written the obvious way: optional SP/HTAB, an optional `+`,
/// ASCII digits that fit in a `u64`, optional SP/HTAB.
fn reference(value: &str) -> Option<Duration> {
    let trimmed = value.trim_matches(|c| c == ' ' || c == '\t');
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(Duration::from_millis)
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_x_amz_retry_after(value);
    assert_eq!(parsed, reference(value), "{value:?}");
    // Whatever the hint, the policies answer without panicking.
    for policy in [
        RetryAfterPolicy::Ignore,
        RetryAfterPolicy::AwsBounded {
            max_additional: Duration::from_secs(5),
        },
        RetryAfterPolicy::AtLeast {
            ceiling: Duration::from_secs(60),
        },
        RetryAfterPolicy::Replace {
            cap: Duration::from_secs(20),
        },
    ] {
        let _ = policy.honours(parsed);
        let _ = policy.apply(Duration::from_millis(250), parsed);
    }
});
