use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[error_fault(server)]
enum Error {
    Internal,
    #[http_error(404)]
    NotFound,
}

fn main() {}
