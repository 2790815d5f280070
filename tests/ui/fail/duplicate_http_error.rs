use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[http_error(400)]
#[http_error(404)]
struct NotFound;

fn main() {}
