use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = 1)]
struct Throttled;

fn main() {}
