use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
struct Error {
    #[retryable]
    message: String,
}

fn main() {}
