//! `#[retry_after]` reads its field through `RetryAfterValue`: aliases of
//! accepted types and users' own types work.
use std::time::Duration;

use rebound::{RetryAfterValue, RetryInfo};

type Seconds = Option<u32>;

#[derive(Debug)]
struct Millis(u64);

impl RetryAfterValue for Millis {
    fn to_retry_after(&self) -> Option<Duration> {
        Some(Duration::from_millis(self.0))
    }
}

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
enum Throttled {
    Aliased {
        #[retry_after]
        wait: Seconds,
    },
    Newtype(#[retry_after] Millis),
}

fn main() {
    assert_eq!(
        Throttled::Aliased { wait: Some(2) }.retry_after(),
        Some(Duration::from_secs(2))
    );
    assert_eq!(
        Throttled::Newtype(Millis(1500)).retry_after(),
        Some(Duration::from_millis(1500))
    );
}
