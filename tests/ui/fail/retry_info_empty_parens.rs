use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retry_info()]
#[retryable]
struct Busy;

fn main() {}
