use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[error_code("")]
struct Nameless;

fn main() {}
