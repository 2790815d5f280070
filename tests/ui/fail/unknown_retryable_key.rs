use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retryable(throtling = true)]
    Throttled,
}

fn main() {}
