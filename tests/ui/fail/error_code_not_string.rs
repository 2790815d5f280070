use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[error_code(ThrottlingException)]
    Throttled,
}

fn main() {}
