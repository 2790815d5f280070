use rebound::RetryInfo;

/// An alias of a type that is not a retry-after value: the compiler's
/// trait check points at the field.
type Seconds = f64;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
struct SlowDown {
    #[retry_after]
    retry_after: Seconds,
}

fn main() {}
