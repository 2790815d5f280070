//! The second likeliest: `run_async` with the default, blocking sleeper.
use rebound::{Retry, StandardRetryStrategy};

async fn call() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy);
    let _ = retry
        .run_async(|_attempt| async { Ok::<(), std::io::Error>(()) })
        .await;
}

fn main() {
    let _ = call();
}
