use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[http_error]
struct NoStatus;

fn main() {}
