//! [`StandardRetryStrategyBuilder`]: every knob of the standard mode, each
//! defaulting to what the chosen [`RetryBehavior`] specifies.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::{Settings, StandardRetryStrategy};
use crate::backoff::{Backoff, RandomSource, RetryAfterPolicy, ThreadRandom};
use crate::classify::AwsErrorClassifier;
use crate::quota::RetryQuota;
use crate::standard::{AwsServiceDefaults, RetryBehavior};

/// Builds a [`StandardRetryStrategy`].
///
/// # Default
///
/// Every setting not given takes the value of the [`RetryBehavior`]
/// ([`V2_0`](RetryBehavior::V2_0) unless [`behavior`](Self::behavior) says
/// otherwise), refined by the [`AwsServiceDefaults`] of
/// [`aws_service`](Self::aws_service) where that behaviour uses them:
///
/// | setting | behaviour 2.0 | behaviour 2.1 |
/// |---|---|---|
/// | [`max_attempts`](Self::max_attempts) | 3 | 3 (service default, e.g. DynamoDB 4) |
/// | [`retry_cost`](Self::retry_cost) / [`timeout_cost`](Self::timeout_cost) / [`throttling_cost`](Self::throttling_cost) | 5 / 10 / 5 | 14 / 14 / 5 |
/// | [`success_refund`](Self::success_refund) | 1 | 1 |
/// | [`backoff`](Self::backoff) | full jitter, 1 s, cap 20 s | full jitter, 50 ms (service base, e.g. DynamoDB 25 ms), cap 20 s |
/// | [`throttling_backoff`](Self::throttling_backoff) | full jitter, 1 s, cap 20 s | same |
/// | [`retry_after`](Self::retry_after) | [`Ignore`](RetryAfterPolicy::Ignore) | [`AWS_BOUNDED`](RetryAfterPolicy::AWS_BOUNDED) (+5 s at most) |
/// | [`long_polling`](Self::long_polling) | `false` | the service default (SQS `ReceiveMessage`, ...) |
/// | unmodeled 429 is throttling | no | yes |
/// | [`quota`](Self::quota) | a new [`RetryQuota`] of 500 | same |
/// | [`random`](Self::random) | the thread-local generator of `rand::rng()` | same |
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use rebound_runtime::{RetryBehavior, RetryQuota, StandardRetryStrategy, backoff::{RetryAfterPolicy, SeededRandom}};
///
/// let strategy = StandardRetryStrategy::builder()
///     .behavior(RetryBehavior::V2_1)
///     .aws_service("dynamodb", "GetItem")
///     .retry_after(RetryAfterPolicy::AtLeast { ceiling: Duration::from_secs(30) })
///     .quota(Arc::new(RetryQuota::new(100)))
///     .random(SeededRandom::new(42))
///     .build();
/// assert_eq!(strategy.max_attempts(), 4);
/// assert_eq!(strategy.quota().available(), 100);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Default)]
pub struct StandardRetryStrategyBuilder {
    behavior: RetryBehavior,
    service: Option<AwsServiceDefaults>,
    max_attempts: Option<u32>,
    retry_cost: Option<u32>,
    timeout_cost: Option<u32>,
    throttling_cost: Option<u32>,
    success_refund: Option<u32>,
    backoff: Option<Backoff>,
    throttling_backoff: Option<Backoff>,
    retry_after: Option<RetryAfterPolicy>,
    long_polling: Option<bool>,
    unmodeled_429_is_throttling: Option<bool>,
    transient_error_codes: Vec<Cow<'static, str>>,
    quota: Option<Arc<RetryQuota>>,
    random: Option<Arc<dyn RandomSource>>,
}

impl StandardRetryStrategyBuilder {
    /// A builder with every setting at its [default](Self#default).
    pub fn new() -> Self {
        Self::default()
    }

    /// The behaviour whose defaults apply. Default: [`RetryBehavior::V2_0`].
    pub const fn behavior(mut self, behavior: RetryBehavior) -> Self {
        self.behavior = behavior;
        self
    }

    /// The special cases of an AWS service operation, looked up by name
    /// ([`AwsServiceDefaults::lookup`]). Default: none.
    pub fn aws_service(self, service: &str, operation: &str) -> Self {
        self.service_defaults(AwsServiceDefaults::lookup(service, operation))
    }

    /// Per-service special cases given as data (see [`AwsServiceDefaults`]).
    /// Explicit settings win over them. Default: none.
    pub const fn service_defaults(mut self, defaults: AwsServiceDefaults) -> Self {
        self.service = Some(defaults);
        self
    }

    /// Attempts per request, the first one included. 0 is taken as 1: the
    /// first attempt is always made.
    pub const fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = Some(max_attempts);
        self
    }

    /// Quota cost of a retry that is neither a throttling error nor a timeout.
    pub const fn retry_cost(mut self, cost: u32) -> Self {
        self.retry_cost = Some(cost);
        self
    }

    /// Quota cost of retrying a timeout that is not a throttling error.
    pub const fn timeout_cost(mut self, cost: u32) -> Self {
        self.timeout_cost = Some(cost);
        self
    }

    /// Quota cost of retrying a throttling error.
    pub const fn throttling_cost(mut self, cost: u32) -> Self {
        self.throttling_cost = Some(cost);
        self
    }

    /// What a success gives back when the request paid for no retry.
    pub const fn success_refund(mut self, refund: u32) -> Self {
        self.success_refund = Some(refund);
        self
    }

    /// The backoff after failures that are not throttling errors.
    pub const fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = Some(backoff);
        self
    }

    /// The backoff after throttling errors.
    pub const fn throttling_backoff(mut self, backoff: Backoff) -> Self {
        self.throttling_backoff = Some(backoff);
        self
    }

    /// How retry-after hints change the backoff, and which are too long.
    pub const fn retry_after(mut self, policy: RetryAfterPolicy) -> Self {
        self.retry_after = Some(policy);
        self
    }

    /// Whether the operation long-polls: when the quota cannot pay for a
    /// retry, the strategy asks the executor to sleep the backoff before
    /// giving up
    /// ([`TokenAcquisitionFailed::delay_before_giving_up`](crate::TokenAcquisitionFailed::delay_before_giving_up)).
    pub const fn long_polling(mut self, long_polling: bool) -> Self {
        self.long_polling = Some(long_polling);
        self
    }

    /// Whether an HTTP 429 whose code is not a modeled error is a retryable
    /// throttling error.
    pub const fn unmodeled_429_as_throttling(mut self, enabled: bool) -> Self {
        self.unmodeled_429_is_throttling = Some(enabled);
        self
    }

    /// Another error code to retry as transient (added to the service's).
    pub fn transient_error_code(mut self, code: impl Into<Cow<'static, str>>) -> Self {
        self.transient_error_codes.push(code.into());
        self
    }

    /// The retry quota to draw from: share one `Arc` between strategies (and
    /// see [`Partitions`](crate::Partitions) for one quota per endpoint).
    pub fn quota(mut self, quota: Arc<RetryQuota>) -> Self {
        self.quota = Some(quota);
        self
    }

    /// Where jitter comes from: [`SeededRandom`](crate::backoff::SeededRandom) for
    /// reproducible runs, a closure to inject exact draws.
    pub fn random(mut self, random: impl RandomSource + 'static) -> Self {
        self.random = Some(Arc::new(random));
        self
    }

    /// The strategy. Cannot fail: every setting has a meaning.
    pub fn build(self) -> StandardRetryStrategy {
        let behavior = self.behavior;
        let service = self
            .service
            .filter(|_| behavior.uses_service_defaults())
            .unwrap_or(AwsServiceDefaults::NONE);
        let max_attempts = self
            .max_attempts
            .or(service.max_attempts)
            .unwrap_or(behavior.max_attempts())
            .max(1);
        let backoff = self.backoff.unwrap_or_else(|| {
            match (service.non_throttling_base, behavior.backoff()) {
                (Some(base), Backoff::FullJitter { cap, .. }) => Backoff::FullJitter { base, cap },
                (_, default) => default,
            }
        });
        // Transient codes of a service are facts about its errors, valid in
        // every behaviour (botocore 1.35 retries STS's IDPCommunicationError too).
        let service_codes = self.service.map_or(&[][..], |s| s.transient_error_codes);
        let classifier = service_codes
            .iter()
            .map(|code| Cow::Borrowed(*code))
            .chain(self.transient_error_codes)
            .fold(
                AwsErrorClassifier::new().with_unmodeled_429_as_throttling(
                    self.unmodeled_429_is_throttling
                        .unwrap_or(behavior.unmodeled_429_is_throttling()),
                ),
                AwsErrorClassifier::with_transient_error_code,
            );
        let settings = Settings {
            behavior,
            max_attempts,
            retry_cost: self.retry_cost.unwrap_or(behavior.retry_cost()),
            timeout_cost: self.timeout_cost.unwrap_or(behavior.timeout_cost()),
            throttling_cost: self.throttling_cost.unwrap_or(behavior.throttling_cost()),
            success_refund: self.success_refund.unwrap_or(behavior.success_refund()),
            backoff,
            throttling_backoff: self
                .throttling_backoff
                .unwrap_or(behavior.throttling_backoff()),
            retry_after: self.retry_after.unwrap_or(behavior.retry_after()),
            long_polling: self.long_polling.unwrap_or(service.long_polling),
            classifier,
        };
        StandardRetryStrategy {
            settings: Arc::new(settings),
            quota: self.quota.unwrap_or_default(),
            random: self.random.unwrap_or_else(|| Arc::new(ThreadRandom)),
        }
    }
}

impl fmt::Debug for StandardRetryStrategyBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StandardRetryStrategyBuilder")
            .field("behavior", &self.behavior)
            .field("service", &self.service)
            .field("max_attempts", &self.max_attempts)
            .field("retry_cost", &self.retry_cost)
            .field("timeout_cost", &self.timeout_cost)
            .field("throttling_cost", &self.throttling_cost)
            .field("success_refund", &self.success_refund)
            .field("backoff", &self.backoff)
            .field("throttling_backoff", &self.throttling_backoff)
            .field("retry_after", &self.retry_after)
            .field("long_polling", &self.long_polling)
            .field(
                "unmodeled_429_is_throttling",
                &self.unmodeled_429_is_throttling,
            )
            .field("transient_error_codes", &self.transient_error_codes)
            .field("quota", &self.quota)
            .field("random", &self.random.as_ref().map(|_| "<custom>"))
            .finish()
    }
}
