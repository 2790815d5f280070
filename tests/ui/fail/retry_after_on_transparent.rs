use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparent)]
    Wrapped(#[retry_after] u64),
}

fn main() {}
