use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[error_code("ServiceError")]
enum Error {
    A,
    B,
}

fn main() {}
