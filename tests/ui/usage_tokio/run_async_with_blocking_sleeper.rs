//! The second likeliest: `run_async` with a blocking sleeper
//! (`std::thread::sleep`), which would stall the async runtime.
use rebound::{Retry, StandardRetryStrategy};

async fn call() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(std::thread::sleep);
    let _ = retry
        .run_async(|_attempt| async { Ok::<(), std::io::Error>(()) })
        .await;
}

fn main() {
    let _ = call();
}
