use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[error_fault(clinet)]
struct BadRequest;

fn main() {}
