use std::time::Duration;

use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
struct Throttled {
    #[retry_after]
    wait: Duration,
    #[retry_after]
    wait_seconds: u64,
}

fn main() {}
