use rebound::{ErrorMetadata, RetryInfo};

#[derive(Debug, RetryInfo)]
enum Error {
    #[error_metadata]
    Internal(ErrorMetadata),
}

fn main() {}
