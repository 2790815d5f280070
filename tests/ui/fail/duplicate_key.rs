use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true, throttling = false)]
struct Throttled;

fn main() {}
