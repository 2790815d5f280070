//! The HTTP `Retry-After` header (RFC 9110, section 10.2.3): delta-seconds
//! or an HTTP-date.

use std::time::{Duration, SystemTime};

/// The wait an HTTP `Retry-After` value asks for, at `now`: delta-seconds
/// (`120`), or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`; the obsolete
/// RFC 850 and asctime forms too) turned into the time from `now` until then
/// (zero for a date in the past). Only SP and HTAB around the value are
/// ignored. Anything else — empty, negative, fractional, a date that does not
/// parse — is `None`: no hint. Delta-seconds too large for a `u64` saturate
/// at `u64::MAX` seconds (a retry-after policy then caps or refuses the
/// hint).
///
/// `now` is a parameter so that callers (and tests) control the clock; the
/// derive's `String` fields use `SystemTime::now()`.
///
/// **The date form needs the `httpdate` feature** (which `http` and
/// `reqwest` enable): without it, a date is no hint, and only delta-seconds
/// count. The default features stay free of a date parser.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use rebound_runtime::internals::parse_retry_after;
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470); // 07:27:50
/// assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
/// # #[cfg(feature = "httpdate")]
/// assert_eq!(
///     parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
///     Some(Duration::from_secs(10)),
/// );
/// assert_eq!(parse_retry_after("soon", now), None);
/// ```
#[must_use]
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim_matches(|c| c == ' ' || c == '\t');
    // Nothing to parse, or other whitespace at an end: `httpdate` would trim
    // CR, LF and FF around a date, which the header's grammar does not allow.
    let (first, last) = (value.bytes().next()?, value.bytes().last()?);
    if first.is_ascii_whitespace() || last.is_ascii_whitespace() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = value.parse::<u64>().unwrap_or(u64::MAX);
        return Some(Duration::from_secs(seconds));
    }
    http_date(value, now)
}

/// The wait until the HTTP-date `value`, from `now`.
#[cfg(feature = "httpdate")]
fn http_date(value: &str, now: SystemTime) -> Option<Duration> {
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Without the `httpdate` feature, a date is no hint.
#[cfg(not(feature = "httpdate"))]
fn http_date(_value: &str, _now: SystemTime) -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wed, 21 Oct 2015 07:28:00 GMT
    const DATE: u64 = 1_445_412_480;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn delta_seconds() {
        let now = at(DATE);
        assert_eq!(parse_retry_after("0", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after(" \t7\t ", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(parse_retry_after("007", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            parse_retry_after("18446744073709551616", now),
            Some(Duration::from_secs(u64::MAX))
        );
        // Delta-seconds do not depend on the clock.
        assert_eq!(
            parse_retry_after("120", SystemTime::UNIX_EPOCH),
            Some(Duration::from_secs(120))
        );
    }

    #[test]
    #[cfg(feature = "httpdate")]
    fn the_latest_http_date_does_not_overflow() {
        let hint = parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", SystemTime::UNIX_EPOCH);
        assert_eq!(hint, Some(Duration::from_secs(253_402_300_799)));
    }

    #[test]
    #[cfg(feature = "httpdate")]
    fn http_dates_in_every_form() {
        let now = at(DATE - 30);
        let thirty = Some(Duration::from_secs(30));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            thirty
        );
        assert_eq!(
            parse_retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", now),
            thirty
        );
        assert_eq!(parse_retry_after("Wed Oct 21 07:28:00 2015", now), thirty);
        // A date already past asks for no wait.
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", at(DATE + 5)),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn anything_else_is_no_hint() {
        let now = at(DATE);
        for value in [
            "",
            " ",
            "-1",
            "+5",
            "1.5",
            "1e3",
            "soon",
            "５",
            "\u{a0}5",
            "5\u{a0}",
            "\n5",
            "5\r\n",
            "5 5",
            "\u{1f600}",
            "é",
            "\nWed, 21 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28:00 GMT\r",
            "Wed, 21 Oct 2015 07:28:00 GMT, 5",
            "Thu, 21 Oct 2015 07:28:00 GMT",
            "Mon, 21 Oct 1969 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28:00",
            "Wed, 32 Oct 2015 07:28:00 GMT",
            "0x10",
        ] {
            assert_eq!(parse_retry_after(value, now), None, "{value:?}");
        }
    }
}
