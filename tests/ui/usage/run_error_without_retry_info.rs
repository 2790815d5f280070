//! The likeliest first mistake: an error type without the derive.
use rebound::{Retry, StandardRetryStrategy};

#[derive(Debug)]
struct MyError;

fn main() {
    let strategy = StandardRetryStrategy::new();
    let _ = Retry::new(&strategy).run(|_attempt| Err::<(), _>(MyError));
}
