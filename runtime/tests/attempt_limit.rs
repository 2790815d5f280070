//! Every strategy says its maximum attempts through the `RetryStrategy` interface (for attempt
//! headers): what it enforces, through references, boxes and `Arc`s too.

use std::sync::Arc;

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::config::RetryConfig;
use rebound_runtime::legacy::LegacyRetryStrategy;
use rebound_runtime::{
    AdaptiveRetryStrategy, NeverRetryStrategy, RetryStrategy, StandardRetryStrategy,
    TokenAcquisitionFailed,
};

/// The attempts `strategy` makes on a request that always fails with a 500.
fn attempts_made(strategy: &dyn RetryStrategy) -> u32 {
    let failure = HttpErrorResponse::new(500);
    let mut token = strategy.acquire_initial_token().unwrap();
    loop {
        match strategy.refresh_retry_token(token, &failure) {
            Ok(next) => token = next,
            Err(TokenAcquisitionFailed::AttemptsExhausted { attempts, .. }) => return attempts,
            Err(other) => panic!("{other:?}"),
        }
    }
}

/// A strategy configured with `max_attempts` (no environment, no file).
fn configured(max_attempts: u32) -> impl RetryStrategy {
    let none: [(&str, &str); 0] = [];
    RetryConfig::new()
        .max_attempts(max_attempts)
        .resolve_from(&none, &none)
        .unwrap()
        .build()
}

#[test]
fn the_limit_is_the_one_enforced() {
    let strategies: Vec<Box<dyn RetryStrategy>> = vec![
        Box::new(StandardRetryStrategy::new()),
        Box::new(StandardRetryStrategy::builder().max_attempts(7).build()),
        Box::new(AdaptiveRetryStrategy::new()),
        Box::new(LegacyRetryStrategy::java_v1_dynamodb()),
        Box::new(NeverRetryStrategy),
        Box::new(configured(4)),
    ];
    for strategy in &strategies {
        let limit = strategy.attempt_limit().expect("a fixed limit");
        assert_eq!(attempts_made(strategy.as_ref()), limit, "{strategy:?}");
    }
    let shared = Arc::new(StandardRetryStrategy::builder().max_attempts(5).build());
    assert_eq!(shared.attempt_limit(), Some(5));
    let borrowed: &StandardRetryStrategy = &shared;
    assert_eq!(RetryStrategy::attempt_limit(&borrowed), Some(5));
}
