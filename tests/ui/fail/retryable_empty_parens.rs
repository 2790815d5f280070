use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable()]
struct Busy;

fn main() {}
