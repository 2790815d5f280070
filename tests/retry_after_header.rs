//! `#[retry_after]` on a `String` (an HTTP `Retry-After` value, as a Smithy
//! member bound to the header holds it) and on a `SystemTime`.

use std::time::{Duration, SystemTime};

use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
struct SlowDown {
    #[retry_after]
    retry_after: Option<String>,
}

#[derive(Debug, RetryInfo)]
#[error_fault(server)]
struct Maintenance {
    #[retry_after]
    until: SystemTime,
}

fn slow_down(value: Option<&str>) -> Option<Duration> {
    SlowDown {
        retry_after: value.map(str::to_owned),
    }
    .retry_after()
}

#[test]
fn delta_seconds_dates_garbage_and_none() {
    assert_eq!(slow_down(Some("3")), Some(Duration::from_secs(3)));
    assert_eq!(slow_down(Some(" 3\t")), Some(Duration::from_secs(3)));
    assert_eq!(slow_down(Some("three")), None, "unparsable: no hint");
    assert_eq!(slow_down(Some("-3")), None);
    assert_eq!(slow_down(None), None);
    // A date long past asks for no wait (the system clock is after 1994).
    #[cfg(feature = "httpdate")]
    assert_eq!(
        slow_down(Some("Sun, 06 Nov 1994 08:49:37 GMT")),
        Some(Duration::ZERO)
    );
}

#[test]
fn a_time_asks_to_wait_until_then() {
    let past = Maintenance {
        until: SystemTime::UNIX_EPOCH,
    };
    assert_eq!(past.retry_after(), Some(Duration::ZERO));
    // Far enough ahead that the wall clock moving during the test does not
    // matter: the hint is within the hour, and more than 59 minutes.
    let ahead = Maintenance {
        until: SystemTime::now() + Duration::from_secs(3600),
    };
    let hint = ahead.retry_after().expect("a hint");
    assert!(
        hint <= Duration::from_secs(3600) && hint > Duration::from_secs(3540),
        "{hint:?}"
    );
}

/// Qualified paths and `Option<SystemTime>` pass the derive's check too.
#[derive(Debug, RetryInfo)]
#[retryable]
enum Qualified {
    Header(#[retry_after] std::string::String),
    Until {
        #[retry_after]
        until: Option<std::time::SystemTime>,
    },
}

#[test]
fn qualified_paths_and_optional_times() {
    assert_eq!(
        Qualified::Header("120".into()).retry_after(),
        Some(Duration::from_secs(120))
    );
    assert_eq!(Qualified::Header(String::new()).retry_after(), None);
    let past = Qualified::Until {
        until: Some(SystemTime::UNIX_EPOCH),
    };
    assert_eq!(past.retry_after(), Some(Duration::ZERO));
    assert_eq!(Qualified::Until { until: None }.retry_after(), None);
}
