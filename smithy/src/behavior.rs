//! rebound's standard mode set up as a smithy-rs client's retry
//! configuration says: the retry behaviour generation its behaviour version
//! chose, its attempts, its backoff and its rule for `x-amz-retry-after`.

use aws_smithy_types::retry::{RetryConfig, RetrySpec};
use rebound_runtime::backoff::{Backoff, RetryAfterPolicy};
use rebound_runtime::{RetryBehavior, StandardRetryStrategy, StandardRetryStrategyBuilder};

/// A standard-mode builder following `config`, the retry configuration an
/// AWS SDK client would have used (`sdk_config.retry_config()`, read before
/// turning the client's own retries off):
///
/// | `config` | rebound |
/// |---|---|
/// | retry behaviour 2.1 (its retry spec, from behaviour versions and settings that turn it on) | [`RetryBehavior::V2_1`]: costs 14 / 14 / 5, the spec's non-throttling base (DynamoDB's 25 ms), `x-amz-retry-after` bounded to 5 s past the backoff, the spec's long polling |
/// | no retry spec, or 2.0 (behaviour versions up to 2026-01-12 by default) | [`RetryBehavior::V2_0`]'s costs (5, 10 for timeouts, 5), with the SDK for Rust's own hint rule: the `x-amz-retry-after` wait, up to the maximum backoff, in place of the backoff ([`RetryAfterPolicy::Replace`]) |
/// | `max_attempts`, `initial_backoff`, `max_backoff` | the same attempts; full jitter from the same base (the spec's for non-throttling errors under 2.1) up to the same cap |
///
/// The retry quota's costs are the published ones in both rows: the SDK for
/// Rust charges a 5xx as a timeout under 2.0 (10 tokens, not 5), and keeps
/// one retry permit per client; rebound does neither (see the crate README).
/// An adaptive `config` gets the same builder: wrap the strategy in
/// [`AdaptiveRetryStrategy`](rebound_runtime::AdaptiveRetryStrategy).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use aws_smithy_types::retry::RetryConfig;
/// use rebound_runtime::RetryBehavior;
///
/// let strategy = rebound_smithy::standard_like(&RetryConfig::standard().with_max_attempts(5)).build();
/// assert_eq!(strategy.behavior(), RetryBehavior::V2_0);
/// assert_eq!(strategy.max_attempts(), 5);
/// ```
pub fn standard_like(config: &RetryConfig) -> StandardRetryStrategyBuilder {
    let cap = config.max_backoff();
    let spec_2_1 = config
        .retry_spec()
        .filter(|spec| spec.is_at_least(RetrySpec::V2_1));
    let builder = StandardRetryStrategy::builder()
        .max_attempts(config.max_attempts())
        .throttling_backoff(Backoff::FullJitter {
            base: config.initial_backoff(),
            cap,
        });
    match spec_2_1 {
        Some(spec) => builder
            .behavior(RetryBehavior::V2_1)
            .backoff(Backoff::FullJitter {
                base: spec.non_throttling_initial_backoff(),
                cap,
            })
            .retry_after(RetryAfterPolicy::AWS_BOUNDED)
            .long_polling(spec.long_polling()),
        None => builder
            .behavior(RetryBehavior::V2_0)
            .backoff(Backoff::FullJitter {
                base: config.initial_backoff(),
                cap,
            })
            .retry_after(RetryAfterPolicy::Replace { cap }),
    }
}
