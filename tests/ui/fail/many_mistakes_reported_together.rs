use rebound::{RetryInfo, RetrySafety};

// Four independent mistakes: all are reported in one compilation, and the
// use of the trait below adds no follow-on error.
#[derive(Debug, RetryInfo)]
enum Error {
    #[retryable(throtling = true)]
    Throttled,
    #[error_fault(client)]
    #[http_error(500)]
    Internal,
    #[http_error(999)]
    Weird,
    #[retry_info(transparent)]
    Empty,
}

fn main() {
    let safety: RetrySafety = Error::Throttled.retry_safety();
    let _ = safety;
}
