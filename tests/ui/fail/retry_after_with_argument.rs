use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retryable]
struct Busy {
    #[retry_after(seconds)]
    wait: u64,
}

fn main() {}
