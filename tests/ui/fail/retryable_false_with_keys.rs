use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(false, throttling = true)]
struct Confused;

fn main() {}
