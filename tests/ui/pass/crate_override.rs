#![deny(warnings)]

mod generated {
    pub mod runtime {
        pub use rebound::*;
    }
}

// `rebound` is only reachable through the re-export in the generated code.
#[derive(Debug, rebound::RetryInfo)]
#[retry_info(crate = "crate::generated::runtime")]
#[retryable(throttling = true)]
struct Throttled {
    #[retry_after]
    seconds: u32,
}

fn main() {
    use generated::runtime::RetryInfo as _;
    let err = Throttled { seconds: 1 };
    assert!(err.is_throttle());
    assert_eq!(err.retry_after(), Some(std::time::Duration::from_secs(1)));
}
