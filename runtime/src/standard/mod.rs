//! [`StandardRetryStrategy`]: the AWS standard retry mode. The builder, the
//! two behaviours' defaults and the per-service special cases each have a file.

mod aws_services;
mod behavior;
mod builder;

use core::time::Duration;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

pub use aws_services::AwsServiceDefaults;
pub use behavior::{MAX_BACKOFF, RetryBehavior};
pub use builder::StandardRetryStrategyBuilder;

use crate::backoff::{Backoff, RandomSource, RetryAfterPolicy};
use crate::classify::{AwsErrorClassifier, Verdict};
use crate::partition::Partitions;
use crate::quota::RetryQuota;
use crate::refusal::TokenAcquisitionFailed;
use crate::strategy::{RetryKind, RetryStrategy};
use crate::token::{RetryToken, TokenIssuer};
use crate::vocabulary::FailureInfo;

/// The AWS SDKs' standard retry mode (behaviour 2.0 or 2.1): a bounded
/// number of attempts, jittered exponential backoff, and a shared retry quota
/// that stops retries when a service keeps failing.
///
/// Two generations of the mode exist ([`RetryBehavior`]); the
/// [builder](StandardRetryStrategyBuilder) documents every default.
///
/// # What happens to a failed attempt
///
/// 1. The failure is [classified](crate::classify): retryable? throttling?
///    timeout? A failure that is not retryable ends the request
///    ([`NotRetryable`](TokenAcquisitionFailed::NotRetryable)).
/// 2. When `max_attempts` attempts were made, the request ends
///    ([`AttemptsExhausted`](TokenAcquisitionFailed::AttemptsExhausted)).
/// 3. A retry-after hint the [`RetryAfterPolicy`] refuses ends it
///    ([`RetryAfterTooLong`](TokenAcquisitionFailed::RetryAfterTooLong)).
/// 4. The retry is paid for from the quota — the throttling cost for a
///    throttling error, else the timeout cost for a timeout, else the retry
///    cost. If the quota cannot pay, the request ends
///    ([`QuotaExhausted`](TokenAcquisitionFailed::QuotaExhausted)), after a
///    backoff sleep for long-polling operations.
/// 5. Otherwise the next token carries the backoff delay (throttling or
///    regular backoff, then the retry-after policy) and the cost paid.
///
/// The first attempt never needs quota. A success refunds the cost of the
/// request's last retry, or [`success_refund`](StandardRetryStrategyBuilder::success_refund)
/// (1) if it paid for none. So does a request that ends on a failure carrying
/// a 2xx status (a response whose checksum failed): the refund tracks whether
/// the service answered successfully, as botocore's after-call hook does.
/// A request ending on any other failure refunds nothing.
///
/// Cloning is cheap (three `Arc`s) and clones share the quota, the settings
/// and the random source. [`with_quota`](Self::with_quota) gives a clone that
/// draws from another quota (one per endpoint or resource).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::{RetryQuota, RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed};
///
/// let strategy = StandardRetryStrategy::builder()
///     .quota(Arc::new(RetryQuota::new(500)))
///     .random(|| 0.5) // inject the jitter draw
///     .build();
///
/// let token = strategy.acquire_initial_token()?;
/// let unavailable = HttpErrorResponse::new(503);
/// let token = strategy.refresh_retry_token(token, &unavailable)?;
/// assert_eq!(token.attempt(), 2);
/// assert_eq!(token.delay(), Duration::from_millis(500)); // 0.5 * min(1 s * 2^0, 20 s)
/// assert_eq!(strategy.quota().available(), 495); // a retry costs 5 (behaviour 2.0)
///
/// let token = strategy.refresh_retry_token(token, &unavailable)?;
/// assert_eq!(token.delay(), Duration::from_secs(1)); // 0.5 * 2 s
///
/// // The third attempt is the last one.
/// let why = strategy.refresh_retry_token(token, &unavailable).unwrap_err();
/// assert_eq!(why, TokenAcquisitionFailed::AttemptsExhausted { attempts: 3, max_attempts: 3 });
/// assert_eq!(strategy.quota().available(), 490);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct StandardRetryStrategy {
    settings: Arc<Settings>,
    quota: Arc<RetryQuota>,
    random: Arc<dyn RandomSource>,
}

/// The resolved configuration, shared by clones.
#[derive(Debug)]
struct Settings {
    behavior: RetryBehavior,
    max_attempts: u32,
    retry_cost: u32,
    timeout_cost: u32,
    throttling_cost: u32,
    success_refund: u32,
    backoff: Backoff,
    throttling_backoff: Backoff,
    retry_after: RetryAfterPolicy,
    long_polling: bool,
    classifier: AwsErrorClassifier,
}

impl StandardRetryStrategy {
    /// The AWS standard mode with its [defaults](StandardRetryStrategyBuilder#default)
    /// (behaviour 2.0: 3 attempts, a 500-token quota, jittered exponential
    /// backoff capped at 20 s). Cannot fail: only settings given to the
    /// [builder](Self::builder) can be invalid.
    ///
    /// ```
    /// use rebound_runtime::StandardRetryStrategy;
    ///
    /// let strategy = StandardRetryStrategy::new();
    /// assert_eq!(strategy.max_attempts(), 3);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// The standard mode for a plain HTTP API: what the HTTP integrations
    /// (`send_with_retry`, the tower `RetryLayer`) document as their
    /// default. Behaviour 2.0, except that
    ///
    /// - a `Retry-After` hint is a true minimum, as RFC 9110 asks, up to 20 s
    ///   ([`RetryAfterPolicy::HTTP`]): a longer one ends the retries at once
    ///   with [`RetryAfterTooLong`](crate::TokenAcquisitionFailed::RetryAfterTooLong),
    ///   so the caller can reschedule instead of holding the request;
    /// - an HTTP 429 without a modeled error code is a retryable throttle
    ///   (as in behaviour 2.1), so it engages adaptive mode's limiter.
    ///
    /// [`new`](Self::new) is the AWS SDKs' behaviour 2.0 exactly, which
    /// ignores `Retry-After`: keep it for AWS services.
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::{RetryStrategy, StandardRetryStrategy, TokenAcquisitionFailed};
    ///
    /// let strategy = StandardRetryStrategy::for_http();
    /// let too_many = |secs| HttpErrorResponse::new(429).with_retry_after(Some(Duration::from_secs(secs)));
    ///
    /// let token = strategy.acquire_initial_token()?;
    /// let token = strategy.refresh_retry_token(token, &too_many(2))?;
    /// assert!(token.delay() >= Duration::from_secs(2)); // Retry-After: 2 is honoured
    ///
    /// let token = strategy.acquire_initial_token()?;
    /// let refused = strategy.refresh_retry_token(token, &too_many(3600)).unwrap_err();
    /// assert!(matches!(refused, TokenAcquisitionFailed::RetryAfterTooLong { .. }));
    /// # Ok::<(), TokenAcquisitionFailed>(())
    /// ```
    #[must_use]
    pub fn for_http() -> Self {
        Self::builder()
            .retry_after(RetryAfterPolicy::HTTP)
            .unmodeled_429_as_throttling(true)
            .build()
    }

    /// A builder; see its [defaults](StandardRetryStrategyBuilder#default).
    pub fn builder() -> StandardRetryStrategyBuilder {
        StandardRetryStrategyBuilder::new()
    }

    /// The same strategy drawing from `quota`: how to give each partition
    /// (endpoint, region + table, ...) its own quota. Tokens account to the
    /// quota they were paid from: strategies sharing a quota accept each
    /// other's tokens, and refuse every other strategy's
    /// ([`TokenAcquisitionFailed::ForeignToken`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{Partitions, StandardRetryStrategy};
    ///
    /// let quotas = Partitions::retry_quotas(500);
    /// let strategy = StandardRetryStrategy::new();
    /// let east = strategy.with_quota(quotas.get("us-east-1"));
    /// let west = strategy.with_quota(quotas.get("us-west-2"));
    /// assert!(!std::sync::Arc::ptr_eq(east.quota(), west.quota()));
    /// ```
    #[must_use]
    pub fn with_quota(&self, quota: Arc<RetryQuota>) -> Self {
        Self {
            quota,
            ..self.clone()
        }
    }

    /// One strategy per key (endpoint, region + table, ...), created on first
    /// use: these settings with a full quota of their own (of this one's
    /// capacity). [`with_quota`](Self::with_quota) with
    /// [`Partitions::retry_quotas`] does the same when the quota alone is to
    /// be looked up. Look the key up once per request, not per attempt: it
    /// takes a lock.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::{RetryStrategy, StandardRetryStrategy};
    ///
    /// let endpoints = StandardRetryStrategy::new().partitions::<String>();
    /// let east = endpoints.get("us-east-1");
    /// let token = east.acquire_initial_token()?;
    /// let _retry = east.refresh_retry_token(token, &HttpErrorResponse::new(503))?;
    /// assert_eq!(east.quota().available(), 495);
    /// assert_eq!(endpoints.get("us-west-2").quota().available(), 500);
    /// # Ok::<(), rebound_runtime::TokenAcquisitionFailed>(())
    /// ```
    pub fn partitions<K: Eq + Hash>(&self) -> Partitions<K, Self> {
        let base = self.clone();
        Partitions::new(move |_: &K| base.with_fresh_quota())
    }

    /// The same strategy drawing from a full quota of its own, of this one's
    /// capacity: one new partition.
    pub(crate) fn with_fresh_quota(&self) -> Self {
        self.with_quota(Arc::new(RetryQuota::new(self.quota.capacity())))
    }

    /// The behaviour whose defaults were used.
    #[must_use]
    pub fn behavior(&self) -> RetryBehavior {
        self.settings.behavior
    }

    /// Attempts per request, the first one included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.settings.max_attempts
    }

    /// The retry quota this strategy draws from.
    #[must_use]
    pub fn quota(&self) -> &Arc<RetryQuota> {
        &self.quota
    }

    /// The rules that decide which failures are retried.
    #[must_use]
    pub fn classifier(&self) -> &AwsErrorClassifier {
        &self.settings.classifier
    }

    /// What a retry after a failure of this kind costs.
    #[must_use]
    pub fn cost_of(&self, kind: RetryKind) -> u32 {
        let settings = &*self.settings;
        match kind {
            RetryKind::Throttle => settings.throttling_cost,
            RetryKind::Timeout => settings.timeout_cost,
            RetryKind::Transient => settings.retry_cost,
        }
    }

    /// The delay before the retry that follows failed attempt
    /// `failed_attempt` (1-based): the throttling or regular backoff, then
    /// the retry-after policy applied to `retry_after`. `previous` is the
    /// delay slept before the failed attempt. Draws from the random source
    /// as the backoff requires (once, for the default full jitter).
    #[must_use]
    pub fn retry_delay(
        &self,
        failed_attempt: u32,
        throttling: bool,
        previous: Duration,
        retry_after: Option<Duration>,
    ) -> Duration {
        let settings = &*self.settings;
        let backoff = if throttling {
            settings.throttling_backoff
        } else {
            settings.backoff
        };
        let secs = backoff.delay_secs(failed_attempt, previous, &*self.random);
        crate::backoff::secs_to_duration(settings.retry_after.apply_secs(secs, retry_after))
    }

    /// Gives back what a finished request holds: its last retry's cost, or
    /// the success refund if it paid for no retry.
    /// The issuer of this strategy's tokens, its quota's: strategies that
    /// share a quota accept each other's tokens (a refund goes to the quota
    /// the retry was paid from), and no other strategy does.
    pub(crate) fn issuer(&self) -> &TokenIssuer {
        self.quota.issuer()
    }

    /// Pays `quota_cost` (a request's last retry cost; the success refund
    /// if it made none) back to the quota: a successful request's refund.
    #[inline]
    pub(crate) fn refund(&self, quota_cost: Option<u32>) {
        self.quota
            .release(quota_cost.unwrap_or(self.settings.success_refund));
    }

    /// Ends a request on `failure`; see the module docs for the 2xx refund.
    fn give_up(
        &self,
        quota_cost: Option<u32>,
        failure: &dyn FailureInfo,
        why: TokenAcquisitionFailed,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        if failure
            .http_status()
            .is_some_and(|status| (200..300).contains(&status))
        {
            self.refund(quota_cost);
        }
        Err(why)
    }
}

impl RetryStrategy for StandardRetryStrategy {
    /// Always succeeds: the first attempt needs no quota.
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Ok(self.issuer().initial_token())
    }

    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        let verdict = self.settings.classifier.verdict(failure);
        self.refresh_classified(token, failure, verdict)
    }

    /// Refunds the request's last retry cost to the quota; a token another
    /// strategy issued refunds nothing.
    #[inline]
    fn record_success(&self, token: RetryToken) {
        if self.issuer().issued(&token) {
            self.refund(token.quota_cost());
        }
    }

    /// The [classifier's](Self::classifier) verdict: a throttling error code
    /// is a throttle even when the failure does not say it is one. The same
    /// verdict prices the retry ([`cost_of`](Self::cost_of)).
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        self.settings.classifier.verdict(failure).kind()
    }

    /// [`max_attempts`](Self::max_attempts).
    fn attempt_limit(&self) -> Option<u32> {
        Some(self.max_attempts())
    }

    /// What the [quota](Self::quota) has left.
    fn quota_left(&self) -> Option<u32> {
        Some(self.quota.available())
    }
}

impl StandardRetryStrategy {
    /// [`refresh_retry_token`](RetryStrategy::refresh_retry_token) with the
    /// failure already classified, for strategies built on this one (adaptive
    /// mode needs the verdict too, and classifies once).
    pub(crate) fn refresh_classified(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
        verdict: Verdict,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.issuer().check(&token)?;
        let settings = &*self.settings;
        let attempts = token.attempt();
        let paid = token.quota_cost();
        let retry_after = failure.retry_after();
        let gates =
            crate::refusal::check(attempts, verdict.retryable, settings.max_attempts, || {
                settings.retry_after.refusal(retry_after)
            });
        if let Err(why) = gates {
            return self.give_up(paid, failure, why);
        }
        let cost = self.cost_of(verdict.kind());
        let previous = token.delay();
        let delay = || self.retry_delay(attempts, verdict.throttling, previous, retry_after);
        match self.quota.try_acquire(cost) {
            Ok(()) => Ok(token.next(delay(), Some(cost))),
            Err(available) => {
                let why = TokenAcquisitionFailed::QuotaExhausted {
                    attempts,
                    cost,
                    available,
                    delay_before_giving_up: settings.long_polling.then(delay),
                };
                self.give_up(paid, failure, why)
            }
        }
    }
}

impl Default for StandardRetryStrategy {
    /// [`StandardRetryStrategy::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for StandardRetryStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StandardRetryStrategy")
            .field("settings", &self.settings)
            .field("quota", &self.quota)
            .finish_non_exhaustive()
    }
}
