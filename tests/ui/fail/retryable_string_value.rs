use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(timeout = "true")]
struct TimedOut;

fn main() {}
