use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[error_fault(server)]
struct Internal {
    #[error_metadata]
    status: u16,
}

fn main() {}
