//! `RetryInfo` written by hand, `ErrorInfo` forgotten.
use rebound::{Retry, RetryInfo, RetrySafety, StandardRetryStrategy};

#[derive(Debug)]
struct MyError;

impl RetryInfo for MyError {
    fn retry_safety(&self) -> RetrySafety {
        RetrySafety::Yes
    }
}

fn main() {
    let strategy = StandardRetryStrategy::new();
    let _ = Retry::new(&strategy).run(|_attempt| Err::<(), _>(MyError));
}
