use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_after]
    Throttled(u64),
}

fn main() {}
