//! Response headers are untrusted input: whatever bytes a server sends, in
//! whatever repetition, classifying the response never panics, and a hint
//! comes only from a well-formed value.
#![cfg(feature = "http")]

use std::time::{Duration, SystemTime};

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use proptest::prelude::*;
use rebound_runtime::http::ResponseClassifier;
use rebound_runtime::http::{aws_error_code, retry_after};
use rebound_runtime::{ErrorInfo, RetryInfo};

const NAMES: [&str; 5] = [
    "retry-after",
    "x-amz-retry-after",
    "x-amzn-errortype",
    "x-amzn-query-error",
    "x-other",
];

/// Header values as servers might send them: any bytes a `HeaderValue`
/// accepts (visible ASCII, obs-text, tabs, spaces), numbers near the edges,
/// and dates.
fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..40),
        any::<i128>().prop_map(|n| n.to_string().into_bytes()),
        any::<u64>().prop_map(|n| format!("{n}").into_bytes()),
        "[A-Za-z#:;. ,0-9-]{0,40}".prop_map(String::into_bytes),
        Just(b"Wed, 21 Oct 2015 07:28:00 GMT".to_vec()),
        Just(b"99999999999999999999999999999".to_vec()),
    ]
}

fn headers() -> impl Strategy<Value = HeaderMap> {
    proptest::collection::vec((0..NAMES.len(), value()), 0..8).prop_map(|pairs| {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = HeaderValue::from_bytes(&value) {
                map.append(HeaderName::from_static(NAMES[name]), value);
            }
        }
        map
    })
}

proptest! {
    #[test]
    fn classifying_never_panics(
        status in 100_u16..1000,
        headers in headers(),
        now in 0_u64..=253_402_300_799,
    ) {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(now);
        let _ = aws_error_code(&headers);
        let hint = retry_after(&headers, now);
        let status = StatusCode::from_u16(status).unwrap();
        let classifier = ResponseClassifier::new().wall_clock(move || now);
        match classifier.classify(status, &headers) {
            None => prop_assert!(status.as_u16() < 400),
            Some(failure) => {
                prop_assert_eq!(failure.http_status(), Some(status.as_u16()));
                prop_assert_eq!(failure.retry_after(), hint);
                prop_assert_eq!(failure.is_throttle(), status.as_u16() == 429);
                if let Some(code) = failure.error_code() {
                    prop_assert!(!code.is_empty());
                    prop_assert_eq!(code, code.trim_matches([' ', '\t']));
                    // A piece of one of the two code headers, never made up.
                    let from_a_code_header = ["x-amzn-errortype", "x-amzn-query-error"]
                        .iter()
                        .flat_map(|name| headers.get_all(*name))
                        .any(|value| value.to_str().is_ok_and(|value| value.contains(code)));
                    prop_assert!(from_a_code_header, "{code:?} from {headers:?}");
                }
            }
        }
    }

    /// Two different values of one header: neither is trusted.
    #[test]
    fn conflicting_repeats_are_ignored(a in 0_u32..100_000, b in 0_u32..100_000) {
        prop_assume!(a != b);
        let mut headers = HeaderMap::new();
        headers.append("retry-after", HeaderValue::from(a));
        headers.append("retry-after", HeaderValue::from(b));
        prop_assert_eq!(retry_after(&headers, SystemTime::UNIX_EPOCH), None);
        headers.remove("retry-after");
        headers.append("x-amz-retry-after", HeaderValue::from(a));
        headers.append("x-amz-retry-after", HeaderValue::from(a));
        prop_assert_eq!(
            retry_after(&headers, SystemTime::UNIX_EPOCH),
            Some(Duration::from_millis(u64::from(a)))
        );
    }
}
