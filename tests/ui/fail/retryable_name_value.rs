use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable = true]
struct Transient;

fn main() {}
