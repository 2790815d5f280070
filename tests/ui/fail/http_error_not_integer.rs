use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[http_error("429")]
struct TooManyRequests;

fn main() {}
