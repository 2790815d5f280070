use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparent)]
    #[retryable]
    Io(std::io::Error),
}

fn main() {}
