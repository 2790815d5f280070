//! Reading the AWS error code and the retry-after hint from response headers,
//! defensively: headers are untrusted input.

use core::time::Duration;
use std::time::SystemTime;

use ::http::HeaderMap;

use crate::classify::response::parse_x_amz_retry_after;
use crate::vocabulary::retry_after_header::parse_retry_after;

/// REST-JSON and JSON 1.x protocols put the error code here.
const AMZN_ERROR_TYPE: &str = "x-amzn-errortype";
/// The AWS query protocol (in JSON-compatible mode) puts it here.
const AMZN_QUERY_ERROR: &str = "x-amzn-query-error";
/// botocore 1.44's millisecond hint.
const AMZ_RETRY_AFTER: &str = "x-amz-retry-after";

/// Response headers as the readers here take them: every value of a header,
/// by its lowercase name. Implemented for [`http::HeaderMap`](::http::HeaderMap);
/// implement it for another client's header type (a generated client's, say)
/// to read its responses the same way.
///
/// # Examples
///
/// ```
/// use rebound_runtime::http::{HeaderValues, aws_error_code};
///
/// /// Another client's headers: name-value pairs.
/// struct Pairs(Vec<(&'static str, &'static str)>);
///
/// impl HeaderValues for Pairs {
///     fn values_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a [u8]> {
///         let name = name.to_owned();
///         self.0
///             .iter()
///             .filter(move |(key, _)| key.eq_ignore_ascii_case(&name))
///             .map(|(_, value)| value.as_bytes())
///     }
/// }
///
/// let headers = Pairs(vec![("X-Amzn-ErrorType", "ThrottlingException:http://internal/")]);
/// assert_eq!(aws_error_code(&headers), Some("ThrottlingException"));
/// ```
pub trait HeaderValues {
    /// Every value of header `name` (given in lowercase), in order.
    fn values_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a [u8]>;
}

impl HeaderValues for HeaderMap {
    fn values_of<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a [u8]> {
        self.get_all(name).iter().map(::http::HeaderValue::as_bytes)
    }
}

/// The one value of header `name`: `None` when it is absent, not visible
/// ASCII, or sent more than once with different values (which one would be
/// meant is unknowable, so neither is trusted).
fn single_value<'h, H: HeaderValues + ?Sized>(headers: &'h H, name: &str) -> Option<&'h str> {
    let mut values = headers.values_of(name);
    let first = values.next()?;
    if values.any(|other| other != first) {
        return None;
    }
    let visible = |byte: &u8| *byte == b'\t' || (32..127).contains(byte);
    if !first.iter().all(visible) {
        return None;
    }
    core::str::from_utf8(first).ok()
}

/// The AWS error code the headers carry: `x-amzn-ErrorType` (the part before
/// the first `:`, then after the first `#`, as the Smithy AWS protocols
/// specify), else `x-amzn-query-error` (the part before the first `;`).
/// `None` when neither is present, usable or non-empty.
///
/// # Examples
///
/// ```
/// use http::{HeaderMap, HeaderValue};
/// use rebound_runtime::http::aws_error_code;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("x-amzn-errortype", HeaderValue::from_static("com.amazonaws.dynamodb.v20120810#ThrottlingException"));
/// assert_eq!(aws_error_code(&headers), Some("ThrottlingException"));
/// ```
#[must_use]
pub fn aws_error_code<H: HeaderValues + ?Sized>(headers: &H) -> Option<&str> {
    let from_error_type = single_value(headers, AMZN_ERROR_TYPE).map(|value| {
        let value = value.split(':').next().unwrap_or(value);
        value.split_once('#').map_or(value, |(_, name)| name)
    });
    let from_query_error = || {
        single_value(headers, AMZN_QUERY_ERROR)
            .map(|value| value.split(';').next().unwrap_or(value))
    };
    [from_error_type, from_query_error()]
        .into_iter()
        .flatten()
        .map(|code| code.trim_matches([' ', '\t']))
        .find(|code| !code.is_empty())
}

/// The wait the headers ask for at `now`: `x-amz-retry-after` (whole
/// milliseconds) when it is present and valid, else `Retry-After`
/// (delta-seconds, or an HTTP-date measured from `now`; the date form needs
/// the `httpdate` feature, which `http` enables). `None` when neither gives a
/// valid hint.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use http::{HeaderMap, HeaderValue};
/// use rebound_runtime::http::retry_after;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("retry-after", HeaderValue::from_static("3"));
/// assert_eq!(retry_after(&headers, SystemTime::now()), Some(Duration::from_secs(3)));
/// ```
#[must_use]
pub fn retry_after<H: HeaderValues + ?Sized>(headers: &H, now: SystemTime) -> Option<Duration> {
    single_value(headers, AMZ_RETRY_AFTER)
        .and_then(parse_x_amz_retry_after)
        .or_else(|| {
            single_value(headers, ::http::header::RETRY_AFTER.as_str())
                .and_then(|value| parse_retry_after(value, now))
        })
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_error_code_of_each_protocol() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-amzn-ErrorType",
            HeaderValue::from_static(
                "aws.protocoltests#ThrottlingException:http://internal.amazon.com/",
            ),
        );
        assert_eq!(aws_error_code(&headers), Some("ThrottlingException"));

        let mut headers = HeaderMap::new();
        headers.insert(
            "x-amzn-query-error",
            HeaderValue::from_static("AWS.SimpleQueueService.NonExistentQueue;Sender"),
        );
        assert_eq!(
            aws_error_code(&headers),
            Some("AWS.SimpleQueueService.NonExistentQueue")
        );
    }

    #[test]
    fn x_amz_retry_after_wins_over_retry_after() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470); // 07:27:50
        let mut headers = HeaderMap::new();
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(10)));

        headers.insert("x-amz-retry-after", HeaderValue::from_static("1500"));
        assert_eq!(
            retry_after(&headers, now),
            Some(Duration::from_millis(1500))
        );

        headers.insert("retry-after", HeaderValue::from_static("-1"));
        headers.remove("x-amz-retry-after");
        assert_eq!(retry_after(&headers, now), None);
    }
    use ::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_bytes(value).unwrap());
        }
        map
    }

    const NOW: SystemTime = SystemTime::UNIX_EPOCH;

    #[test]
    fn error_type_forms() {
        for (value, code) in [
            (&b"ThrottlingException"[..], Some("ThrottlingException")),
            (b"ThrottlingException:http://internal.amazon.com/coral/", Some("ThrottlingException")),
            (b"com.amazon#SlowDown", Some("SlowDown")),
            (b"aws.protocoltests.restjson#FooError:http://internal.amazon.com/coral/com.amazon.coral.validate/", Some("FooError")),
            (b"", None),
            (b":", None),
            (b"ns#", None),
            (b"Throttling\xff", None),
        ] {
            assert_eq!(aws_error_code(&headers(&[("x-amzn-errortype", value)])), code, "{value:?}");
        }
    }

    #[test]
    fn the_error_type_wins_over_the_query_error_and_an_unusable_one_falls_back() {
        let both = headers(&[
            ("x-amzn-errortype", b"Throttling"),
            ("x-amzn-query-error", b"Other;Sender"),
        ]);
        assert_eq!(aws_error_code(&both), Some("Throttling"));
        let bad_first = headers(&[
            ("x-amzn-errortype", b"\xe9"),
            ("x-amzn-query-error", b"RequestThrottled;Sender"),
        ]);
        assert_eq!(aws_error_code(&bad_first), Some("RequestThrottled"));
    }

    #[test]
    fn repeated_headers_count_only_when_they_agree() {
        let agree = headers(&[("retry-after", b"3"), ("retry-after", b"3")]);
        assert_eq!(retry_after(&agree, NOW), Some(Duration::from_secs(3)));
        let disagree = headers(&[("retry-after", b"3"), ("retry-after", b"300")]);
        assert_eq!(retry_after(&disagree, NOW), None);
        let codes = headers(&[("x-amzn-errortype", b"A"), ("x-amzn-errortype", b"B")]);
        assert_eq!(aws_error_code(&codes), None);
    }

    #[test]
    fn bad_hints_are_no_hints_and_the_millisecond_header_falls_back_when_bad() {
        for value in [
            &b"-1"[..],
            b"1.5",
            b"",
            b"\xc3\xa9",
            b"\xff\xfe",
            b"soon",
            b"1e3",
        ] {
            assert_eq!(
                retry_after(&headers(&[("retry-after", value)]), NOW),
                None,
                "{value:?}"
            );
        }
        let huge = headers(&[("retry-after", b"99999999999999999999999999")]);
        assert_eq!(retry_after(&huge, NOW), Some(Duration::from_secs(u64::MAX)));
        let fallback = headers(&[("x-amz-retry-after", b"abc"), ("retry-after", b"2")]);
        assert_eq!(retry_after(&fallback, NOW), Some(Duration::from_secs(2)));
    }
}
