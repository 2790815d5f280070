//! Any status and headers through the HTTP integrations' `ResponseClassifier`:
//! never a panic; below 400 is no failure; a failure keeps its status, is a
//! throttle exactly when it is a 429, and carries the hint the header
//! readers give (`x-amz-retry-after` first, then `Retry-After`).
#![no_main]

use std::time::{Duration, SystemTime};

use arbitrary::Arbitrary;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use libfuzzer_sys::fuzz_target;
use rebound_runtime::http::ResponseClassifier;
use rebound_runtime::{ErrorInfo as _, RetryInfo as _};

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    status: u16,
    /// Seconds since the epoch for the wall clock.
    now: u32,
    /// Header names and values; the ones `http` refuses are left out.
    headers: Vec<(&'a [u8], &'a [u8])>,
    /// Names worth hitting often: these are the ones the classifier reads.
    known: Vec<(u8, &'a [u8])>,
}

const KNOWN: [&str; 5] = [
    "retry-after",
    "x-amz-retry-after",
    "x-amzn-errortype",
    "x-amzn-query-error",
    "x-amz-error-code",
];

fuzz_target!(|input: Input<'_>| {
    let Ok(status) = StatusCode::from_u16(input.status) else {
        return;
    };
    let mut headers = HeaderMap::new();
    let named = input
        .known
        .iter()
        .map(|(index, value)| (KNOWN[usize::from(*index) % KNOWN.len()].as_bytes(), *value));
    for (name, value) in input.headers.iter().copied().chain(named) {
        if let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        {
            headers.append(name, value);
        }
    }
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(input.now));
    let classifier = ResponseClassifier::new().wall_clock(move || now);
    let Some(failure) = classifier.classify(status, &headers) else {
        assert!(status.as_u16() < 400, "{status}");
        return;
    };
    assert!(status.as_u16() >= 400);
    assert_eq!(failure.http_status(), Some(status.as_u16()));
    assert_eq!(
        failure.is_throttle(),
        status == StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        failure.retry_after(),
        rebound_runtime::http::retry_after(&headers, now)
    );
    // What a strategy asks of it answers without panicking.
    let _ = (
        failure.retry_safety(),
        failure.fault(),
        failure.error_code(),
    );
    let _ = failure.to_string();
});
