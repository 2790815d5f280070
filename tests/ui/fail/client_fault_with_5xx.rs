use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[error_fault(client)]
    #[http_error(503)]
    Unavailable,
}

fn main() {}
