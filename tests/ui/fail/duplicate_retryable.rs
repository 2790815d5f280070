use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retryable]
    #[retryable(throttling = true)]
    Throttled,
}

fn main() {}
