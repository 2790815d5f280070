use rebound::RetryInfo;

/// An alias hides the type from the derive's syntactic check: the compiler's
/// trait check must still point at the field.
type Seconds = f64;

#[derive(Debug, RetryInfo)]
#[retryable(throttling = true)]
struct SlowDown {
    #[retry_after]
    retry_after: Seconds,
}

fn main() {}
