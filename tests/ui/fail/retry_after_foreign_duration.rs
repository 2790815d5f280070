use rebound::RetryInfo;

/// A `Duration` that is not `std::time::Duration` (as `chrono::Duration`):
/// the compiler's trait check must
/// point at the field and name no hidden item.
mod clock {
    #[derive(Debug)]
    pub struct Duration;
}

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
struct SlowDown {
    #[retry_after]
    retry_after: clock::Duration,
}

fn main() {}
