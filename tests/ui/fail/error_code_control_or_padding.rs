use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[error_code("Throttling\0")]
    Nul,
    #[error_code("Throttling\n")]
    Newline,
    #[error_code(" Throttling")]
    Leading,
    #[error_code("Throttling ")]
    Trailing,
}

fn main() {}
