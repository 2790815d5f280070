use rebound::{ErrorMetadata, RetryInfo};

#[derive(Debug, RetryInfo)]
#[error_fault(server)]
struct Internal {
    #[error_metadata]
    meta: ErrorMetadata,
    #[error_metadata]
    other: ErrorMetadata,
}

fn main() {}
