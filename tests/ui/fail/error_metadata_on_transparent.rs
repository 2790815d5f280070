use rebound::{ErrorMetadata, RetryInfo};

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparent)]
    Wrapped(#[error_metadata] ErrorMetadata),
}

fn main() {}
