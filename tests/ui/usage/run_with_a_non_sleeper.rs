//! A value that is not a sleeper, given to the blocking executor.
use std::time::Duration;

use rebound::{Retry, StandardRetryStrategy};

fn main() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(Duration::from_secs(1));
    let _ = retry.run(|_attempt| Ok::<(), std::io::Error>(()));
}
