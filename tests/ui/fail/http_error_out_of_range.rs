use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[http_error(200)]
    NotAnError,
    #[http_error(600)]
    PastTheEnd,
}

fn main() {}
