//! [`LegacyRetryStrategy`]: the retry behaviour of older AWS SDKs, as
//! presets — botocore's legacy mode, the AWS SDK for Java 1.x default policy
//! and the AWS SDK for JavaScript 2.x policy, each with its DynamoDB variant.
//!
//! | preset | attempts | delay before the retry after failed attempt `n` | cap | retry-after |
//! |---|---|---|---|---|
//! | [`botocore`](LegacyRetryStrategy::botocore) | 5 | `rand * 2^(n-1)` s | none | ignored |
//! | [`botocore_dynamodb`](LegacyRetryStrategy::botocore_dynamodb) | 10 | `0.05 * 2^(n-1)` s, no jitter | none | ignored |
//! | [`java_v1`](LegacyRetryStrategy::java_v1) | 4 (3 retries) | full jitter 100 ms; equal jitter 500 ms for throttling | 20 s | ignored |
//! | [`java_v1_dynamodb`](LegacyRetryStrategy::java_v1_dynamodb) | 11 (10 retries) | full jitter 25 ms; equal jitter 500 ms for throttling | 20 s | ignored |
//! | [`javascript_v2`](LegacyRetryStrategy::javascript_v2) | 4 (3 retries) | `rand * 2^(n-1) * 100 ms` | none | added |
//! | [`javascript_v2_dynamodb`](LegacyRetryStrategy::javascript_v2_dynamodb) | 11 (10 retries) | `rand * 2^(n-1) * 50 ms` | none | added |
//!
//! What each preset retries follows its SDK's source (botocore's
//! `_retry.json` and handlers, the Java SDK's `PredefinedRetryPolicies`, the
//! JavaScript SDK's `retryableError`); see [`LegacyPreset`]. Extra `(status, code)` rules can be added
//! to any preset ([`LegacyRetryStrategyBuilder::retry_rule`]);
//! [`LegacyRetryStrategy::botocore_for_service`] adds those of a service's
//! `_retry.json` entry (`s3`, `sqs`, `ec2`, ...).
//!
//! # How a failure is judged
//!
//! Legacy SDKs decide by what the wire said, not by the service model:
//!
//! 1. A failure without an HTTP status got no (complete) response. If it says
//!    which [`TransportFailure`](crate::TransportFailure) it is
//!    ([`ErrorInfo::transport_failure`](crate::ErrorInfo::transport_failure)),
//!    the preset's rule for that kind applies (botocore retries connection
//!    errors only; Java and JavaScript retry them all). Otherwise it is
//!    retried if it says [`RetrySafety::Yes`]
//!    (`std::io::Error`: refused, reset, aborted, timed out).
//! 2. An error response is retried if the preset's status/code rules match,
//!    or if the error declares itself [`RetrySafety::Yes`]:
//!    a `@retryable` modeled error, or a failed `x-amz-crc32` check
//!    (`Classified::retryable().with_status(status)`).
//!    An explicit [`RetrySafety::No`] does not stop
//!    the status rules: the legacy SDKs retry a 503 whatever its model says.
//!
//! Legacy modes have no retry quota and keep no state between requests: a
//! retry is made while attempts are left and the failure is retryable.
//! [`record_success`](RetryStrategy::record_success) does nothing.
//!
//! # botocore's exceptions
//!
//! Where botocore's legacy handler *raises* (a non-retryable transport
//! exception, a checksum error on the last attempt, an unparsable CRC32
//! header), rebound answers "no retry" and the executor returns the failure
//! it was given: the same call outcome.

pub(crate) mod botocore;
mod builder;
pub(crate) mod java_v1;
pub(crate) mod javascript_v2;
mod preset;

use core::time::Duration;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

pub use builder::LegacyRetryStrategyBuilder;
pub use preset::LegacyPreset;

use botocore::{BOTOCORE_DYNAMODB_BASE_SECS, botocore_service_retry_rules};

use crate::backoff::{RandomSource, ThreadRandom};
use crate::backoff::{draw, secs_to_duration};
use crate::classify::Verdict;
use crate::refusal::TokenAcquisitionFailed;
use crate::strategy::{RetryKind, RetryStrategy};
use crate::token::{RetryToken, TokenIssuer};
use crate::vocabulary::{FailureInfo, RetrySafety};

/// A legacy AWS SDK retry policy (see the [module docs](self) for the
/// presets and their rules).
///
/// Cloning is cheap: clones share the random source.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::classify::HttpErrorResponse;
/// use rebound_runtime::legacy::LegacyRetryStrategy;
/// use rebound_runtime::{RetryStrategy, TokenAcquisitionFailed};
///
/// let strategy = LegacyRetryStrategy::botocore_dynamodb();
/// let mut token = strategy.acquire_initial_token()?;
/// let throttled = HttpErrorResponse::new(400).with_code("ProvisionedThroughputExceededException");
/// let mut delays = Vec::new();
/// loop {
///     match strategy.refresh_retry_token(token, &throttled) {
///         Ok(next) => {
///             delays.push(next.delay());
///             token = next;
///         }
///         Err(why) => {
///             assert_eq!(why, TokenAcquisitionFailed::AttemptsExhausted { attempts: 10, max_attempts: 10 });
///             break;
///         }
///     }
/// }
/// assert_eq!(delays.len(), 9);
/// assert_eq!(delays[0], Duration::from_millis(50));
/// assert_eq!(delays[8], Duration::from_millis(12_800)); // 0.05 * 2^8 s
/// # Ok::<(), TokenAcquisitionFailed>(())
/// ```
#[derive(Clone)]
pub struct LegacyRetryStrategy {
    preset: LegacyPreset,
    max_attempts: u32,
    max_backoff: Option<Duration>,
    retry_after_ceiling: Duration,
    extra_rules: Arc<[(u16, Cow<'static, str>)]>,
    random: Arc<dyn RandomSource>,
    issuer: TokenIssuer,
}

impl LegacyRetryStrategy {
    /// The longest `Retry-After` hint the JavaScript presets add to a delay
    /// by default: 60 s. A longer hint ends the request
    /// ([`TokenAcquisitionFailed::RetryAfterTooLong`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// let js = LegacyRetryStrategy::javascript_v2();
    /// assert_eq!(js.retry_after_ceiling(), LegacyRetryStrategy::DEFAULT_RETRY_AFTER_CEILING);
    /// ```
    pub const DEFAULT_RETRY_AFTER_CEILING: Duration = Duration::from_secs(60);

    /// botocore's legacy mode: 5 attempts, `rand * 2^(n-1)` s.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::botocore();
    /// assert_eq!(strategy.max_attempts(), 5);
    /// ```
    #[must_use]
    pub fn botocore() -> Self {
        Self::from_preset(LegacyPreset::Botocore)
    }

    /// botocore's legacy mode for DynamoDB: 10 attempts, `0.05 * 2^(n-1)` s,
    /// CRC32-checked responses.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::botocore_dynamodb();
    /// assert_eq!(strategy.max_attempts(), 10);
    /// assert!(strategy.checks_response_crc32());
    /// ```
    #[must_use]
    pub fn botocore_dynamodb() -> Self {
        Self::from_preset(LegacyPreset::BotocoreDynamoDb)
    }

    /// The AWS SDK for Java 1.x default: 3 retries, full jitter 100 ms (equal
    /// jitter 500 ms for throttling), cap 20 s.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::java_v1();
    /// assert_eq!(strategy.max_attempts(), 4);
    /// assert_eq!(strategy.max_backoff(), Some(std::time::Duration::from_secs(20)));
    /// ```
    #[must_use]
    pub fn java_v1() -> Self {
        Self::from_preset(LegacyPreset::JavaV1)
    }

    /// The AWS SDK for Java 1.x DynamoDB default: 10 retries, full jitter
    /// 25 ms (equal jitter 500 ms for throttling), cap 20 s.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::java_v1_dynamodb();
    /// assert_eq!(strategy.max_attempts(), 11);
    /// ```
    #[must_use]
    pub fn java_v1_dynamodb() -> Self {
        Self::from_preset(LegacyPreset::JavaV1DynamoDb)
    }

    /// The AWS SDK for JavaScript 2.x: 3 retries, `rand * 2^k * 100 ms`
    /// plus any retry-after hint.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::javascript_v2();
    /// assert_eq!(strategy.max_attempts(), 4);
    /// ```
    #[must_use]
    pub fn javascript_v2() -> Self {
        Self::from_preset(LegacyPreset::JavaScriptV2)
    }

    /// The AWS SDK for JavaScript 2.x DynamoDB client: 10 retries,
    /// `rand * 2^k * 50 ms` plus any retry-after hint, CRC32-checked
    /// responses.
    ///
    /// # Examples
    ///
    /// ```
    /// let strategy = rebound_runtime::legacy::LegacyRetryStrategy::javascript_v2_dynamodb();
    /// assert_eq!(strategy.max_attempts(), 11);
    /// assert!(strategy.checks_response_crc32());
    /// ```
    #[must_use]
    pub fn javascript_v2_dynamodb() -> Self {
        Self::from_preset(LegacyPreset::JavaScriptV2DynamoDb)
    }

    /// botocore's legacy policy for the service with this endpoint prefix,
    /// as botocore builds it: `_retry.json`'s `__default__` merged with the
    /// service's entry — the DynamoDB preset for `dynamodb`, else the generic
    /// preset plus the service's extra rules.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let bad_digest = HttpErrorResponse::new(400).with_code("BadDigest");
    /// assert!(LegacyRetryStrategy::botocore_for_service("s3").classify(&bad_digest).is_some());
    /// assert!(LegacyRetryStrategy::botocore().classify(&bad_digest).is_none());
    /// let dynamodb = LegacyRetryStrategy::botocore_for_service("dynamodb");
    /// assert_eq!(dynamodb.preset(), LegacyPreset::BotocoreDynamoDb);
    /// ```
    #[must_use]
    pub fn botocore_for_service(endpoint_prefix: &str) -> Self {
        let preset = if endpoint_prefix.eq_ignore_ascii_case("dynamodb") {
            LegacyPreset::BotocoreDynamoDb
        } else {
            LegacyPreset::Botocore
        };
        let mut strategy = Self::from_preset(preset);
        if preset == LegacyPreset::Botocore {
            strategy.extra_rules = botocore_service_retry_rules(endpoint_prefix)
                .iter()
                .map(|&(status, code)| (status, Cow::Borrowed(code)))
                .collect();
        }
        strategy
    }

    /// The preset with its own defaults (its number of attempts, backoff and
    /// retry-after handling).
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let strategy = LegacyRetryStrategy::new(LegacyPreset::BotocoreDynamoDb);
    /// assert_eq!(strategy.max_attempts(), 10);
    /// ```
    #[must_use]
    pub fn new(preset: LegacyPreset) -> Self {
        Self::builder(preset).build()
    }

    /// A builder starting from `preset`'s defaults.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let strategy = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
    ///     .max_attempts(3)
    ///     .random(|| 0.5)
    ///     .build();
    /// assert_eq!(strategy.max_attempts(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(preset: LegacyPreset) -> LegacyRetryStrategyBuilder {
        LegacyRetryStrategyBuilder::new(preset)
    }

    fn from_preset(preset: LegacyPreset) -> Self {
        Self {
            preset,
            max_attempts: preset.default_max_attempts(),
            max_backoff: preset.default_max_backoff(),
            retry_after_ceiling: Self::DEFAULT_RETRY_AFTER_CEILING,
            extra_rules: Arc::new([]),
            random: Arc::new(ThreadRandom),
            issuer: TokenIssuer::new(),
        }
    }

    /// The preset this strategy follows.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// assert_eq!(LegacyRetryStrategy::java_v1().preset(), LegacyPreset::JavaV1);
    /// ```
    #[must_use]
    pub fn preset(&self) -> LegacyPreset {
        self.preset
    }

    /// Attempts per request, the first one included.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// assert_eq!(LegacyRetryStrategy::javascript_v2().max_attempts(), 4);
    /// ```
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The cap on every delay, if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// assert_eq!(LegacyRetryStrategy::botocore().max_backoff(), None);
    /// ```
    #[must_use]
    pub fn max_backoff(&self) -> Option<Duration> {
        self.max_backoff
    }

    /// The longest retry-after hint honoured (JavaScript presets).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// assert_eq!(LegacyRetryStrategy::javascript_v2().retry_after_ceiling(), Duration::from_secs(60));
    /// ```
    #[must_use]
    pub fn retry_after_ceiling(&self) -> Duration {
        self.retry_after_ceiling
    }

    /// The `(status, code)` pairs retried beyond the preset's rules
    /// ([`LegacyRetryStrategyBuilder::retry_rule`],
    /// [`LegacyRetryStrategyBuilder::botocore_service`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// let sqs = LegacyRetryStrategy::botocore_for_service("sqs");
    /// assert_eq!(sqs.extra_retry_rules().collect::<Vec<_>>(), [(403, "RequestThrottled")]);
    /// ```
    pub fn extra_retry_rules(&self) -> impl Iterator<Item = (u16, &str)> {
        self.extra_rules
            .iter()
            .map(|(status, code)| (*status, &**code))
    }

    fn has_extra_rule(&self, status: u16, code: Option<&str>) -> bool {
        code.is_some_and(|code| {
            self.extra_rules
                .iter()
                .any(|(s, c)| *s == status && c == code)
        })
    }

    /// Whether responses must be checked against `x-amz-crc32`
    /// ([`LegacyPreset::checks_response_crc32`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// assert!(!LegacyRetryStrategy::botocore().checks_response_crc32());
    /// ```
    #[must_use]
    pub fn checks_response_crc32(&self) -> bool {
        self.preset.checks_response_crc32()
    }

    /// Judges one failure as the preset does (see the [module docs](self)),
    /// whatever the attempts left.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{Classified, RetryKind, TransportFailure, classify::HttpErrorResponse};
    /// use rebound_runtime::legacy::LegacyRetryStrategy;
    ///
    /// let botocore = LegacyRetryStrategy::botocore();
    /// assert_eq!(botocore.classify(&HttpErrorResponse::new(509)), Some(RetryKind::Transient));
    /// assert_eq!(botocore.classify(&TransportFailure::ResponseStreaming), None);
    /// let checksum_mismatch = Classified::retryable().with_status(200);
    /// assert_eq!(botocore.classify(&checksum_mismatch), Some(RetryKind::Transient));
    /// let throttled = HttpErrorResponse::new(400).with_code("Throttling");
    /// assert_eq!(LegacyRetryStrategy::java_v1().classify(&throttled), Some(RetryKind::Throttle));
    /// ```
    #[must_use]
    pub fn classify(&self, failure: &dyn FailureInfo) -> Option<RetryKind> {
        self.verdict(failure).retry()
    }

    /// The preset's verdict on one failure.
    fn verdict(&self, failure: &dyn FailureInfo) -> Verdict {
        let preset = self.preset;
        let explicit_yes = failure.retry_safety() == RetrySafety::Yes;
        let (retryable, throttling) = match failure.http_status() {
            None => {
                let retryable = match failure.transport_failure() {
                    Some(kind) => preset.retries_transport_failure(kind),
                    None => explicit_yes,
                };
                (retryable, false)
            }
            Some(status) => {
                let code = failure.error_code();
                (
                    explicit_yes
                        || preset.retries_response(status, code)
                        || self.has_extra_rule(status, code),
                    preset.is_throttling(status, code),
                )
            }
        };
        let throttling = throttling || failure.is_throttle();
        Verdict {
            retryable,
            throttling,
            timeout: failure.is_timeout(),
        }
    }

    /// The preset's backoff before the retry that follows failed attempt
    /// `failed_attempt` (1-based), in seconds, capped at
    /// [`max_backoff`](Self::max_backoff) but before any retry-after hint.
    /// Draws from the random source as the preset does (botocore DynamoDB:
    /// never; the others: once). `None` when the uncapped delay is not a
    /// finite number (botocore from attempt 1025, where it raises
    /// `OverflowError`).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let botocore = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
    ///     .random(|| 0.5)
    ///     .build();
    /// assert_eq!(botocore.backoff_secs(4, false), Some(4.0)); // 0.5 * 2^3
    /// assert_eq!(LegacyRetryStrategy::botocore_dynamodb().backoff_secs(1025, false), None);
    ///
    /// let java = LegacyRetryStrategy::builder(LegacyPreset::JavaV1).random(|| 0.5).build();
    /// assert_eq!(java.backoff_secs(1, false), Some(0.05)); // floor(0.5 * 100) ms
    /// assert_eq!(java.backoff_secs(1, true), Some(0.375)); // 250 + floor(0.5 * 251) ms
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn backoff_secs(&self, failed_attempt: u32, throttling: bool) -> Option<f64> {
        let retries = failed_attempt.saturating_sub(1);
        let random = &*self.random;
        let secs = match self.preset {
            LegacyPreset::Botocore => {
                botocore::delay_exponential_secs(None, failed_attempt, random)
            }
            LegacyPreset::BotocoreDynamoDb => botocore::delay_exponential_secs(
                Some(BOTOCORE_DYNAMODB_BASE_SECS),
                failed_attempt,
                random,
            ),
            LegacyPreset::JavaV1 | LegacyPreset::JavaV1DynamoDb => {
                let base = if self.preset == LegacyPreset::JavaV1 {
                    java_v1::JAVA_V1_BASE_DELAY
                } else {
                    java_v1::JAVA_V1_DYNAMODB_BASE_DELAY
                };
                let cap = self.max_backoff.unwrap_or(Duration::MAX);
                Some(java_v1::delay(retries, throttling, base, cap, random).as_secs_f64())
            }
            LegacyPreset::JavaScriptV2 | LegacyPreset::JavaScriptV2DynamoDb => {
                let base = if self.preset == LegacyPreset::JavaScriptV2 {
                    javascript_v2::JAVASCRIPT_V2_BASE_DELAY
                } else {
                    javascript_v2::JAVASCRIPT_V2_DYNAMODB_BASE_DELAY
                };
                Some(javascript_v2::delay_secs(retries, base, random)).filter(|s| s.is_finite())
            }
        };
        match (secs, self.max_backoff) {
            (Some(secs), Some(cap)) => Some(secs.min(cap.as_secs_f64())),
            (None, Some(cap)) => Some(cap.as_secs_f64()),
            (secs, None) => secs,
        }
    }

    /// The delay before the retry that follows failed attempt
    /// `failed_attempt`: [`backoff_secs`](Self::backoff_secs), plus the hint
    /// for the JavaScript presets. Saturates at [`Duration::MAX`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let js = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2).random(|| 0.5).build();
    /// let hint = Some(Duration::from_secs(2));
    /// assert_eq!(js.retry_delay(2, false, hint), Duration::from_millis(2100)); // 0.5 * 2 * 100 ms + 2 s
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn retry_delay(
        &self,
        failed_attempt: u32,
        throttling: bool,
        retry_after: Option<Duration>,
    ) -> Duration {
        let backoff = self
            .backoff_secs(failed_attempt, throttling)
            .unwrap_or(f64::INFINITY);
        let hint = retry_after
            .filter(|_| self.preset.uses_retry_after())
            .map_or(0.0, |hint| hint.as_secs_f64());
        secs_to_duration(backoff + hint)
    }
}

impl RetryStrategy for LegacyRetryStrategy {
    /// Always succeeds: legacy modes have no quota.
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        Ok(self.issuer.initial_token())
    }

    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        self.issuer.check(&token)?;
        let attempts = token.attempt();
        let verdict = self.verdict(failure);
        let retry_after = failure
            .retry_after()
            .filter(|_| self.preset.uses_retry_after());
        crate::refusal::check(attempts, verdict.retryable, self.max_attempts, || {
            let requested = retry_after.filter(|hint| *hint > self.retry_after_ceiling)?;
            Some((requested, self.retry_after_ceiling))
        })?;
        let delay = self.retry_delay(attempts, verdict.throttling, retry_after);
        Ok(token.next(delay, None))
    }

    /// Nothing to give back: legacy modes have no quota.
    fn record_success(&self, _token: RetryToken) {}

    /// [`max_attempts`](Self::max_attempts).
    fn attempt_limit(&self) -> Option<u32> {
        Some(self.max_attempts())
    }

    /// The preset's own verdict: its
    /// throttling codes and statuses count as throttles.
    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        self.verdict(failure).kind()
    }
}

impl fmt::Debug for LegacyRetryStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyRetryStrategy")
            .field("preset", &self.preset)
            .field("max_attempts", &self.max_attempts)
            .field("max_backoff", &self.max_backoff)
            .field("retry_after_ceiling", &self.retry_after_ceiling)
            .field("extra_rules", &self.extra_rules)
            .finish_non_exhaustive()
    }
}
