use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
enum Error {
    Throttled {
        #[retry_after]
        retry_after: f64,
    },
}

fn main() {}
