//! [`LegacyRetryStrategyBuilder`]: a preset plus overrides, checked when built.

use core::time::Duration;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::botocore::botocore_service_retry_rules;
use super::{LegacyPreset, LegacyRetryStrategy};
use crate::backoff::RandomSource;

/// Builds a [`LegacyRetryStrategy`] from a [`LegacyPreset`].
///
/// # Default
///
/// | setting | default |
/// |---|---|
/// | [`max_attempts`](Self::max_attempts) | [`LegacyPreset::default_max_attempts`] |
/// | [`max_backoff`](Self::max_backoff) | [`LegacyPreset::default_max_backoff`] (Java 20 s, else none) |
/// | [`retry_after_ceiling`](Self::retry_after_ceiling) | [`DEFAULT_RETRY_AFTER_CEILING`](LegacyRetryStrategy::DEFAULT_RETRY_AFTER_CEILING) (60 s) |
/// | [`random`](Self::random) | the thread-local generator of `rand::rng()` |
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::backoff::SeededRandom;
/// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
///
/// let strategy = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
///     .max_attempts(8)
///     .max_backoff(Duration::from_secs(30))
///     .random(SeededRandom::new(7))
///     .build();
/// assert_eq!(strategy.max_attempts(), 8);
/// assert_eq!(strategy.backoff_secs(40, false).map(|s| s <= 30.0), Some(true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct LegacyRetryStrategyBuilder {
    preset: LegacyPreset,
    max_attempts: Option<u32>,
    max_backoff: Option<Duration>,
    retry_after_ceiling: Option<Duration>,
    extra_rules: Vec<(u16, Cow<'static, str>)>,
    random: Option<Arc<dyn RandomSource>>,
}

impl LegacyRetryStrategyBuilder {
    /// A builder with every setting at `preset`'s [default](Self#default).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategyBuilder};
    ///
    /// let strategy = LegacyRetryStrategyBuilder::new(LegacyPreset::JavaV1).build();
    /// assert_eq!(strategy.max_attempts(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(preset: LegacyPreset) -> Self {
        Self {
            preset,
            max_attempts: None,
            max_backoff: None,
            retry_after_ceiling: None,
            extra_rules: Vec::new(),
            random: None,
        }
    }

    /// Attempts per request, the first included (botocore's
    /// `total_max_attempts`; an SDK's "max retries" `n` is `n + 1` attempts).
    /// 0 is taken as 1: the first attempt is always made.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// // The Java SDK's `maxErrorRetry = 5`:
    /// let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaV1).max_attempts(5 + 1).build();
    /// assert_eq!(strategy.max_attempts(), 6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = Some(max_attempts);
        self
    }

    /// A cap on every backoff delay (replaces Java's 20 s; the other presets
    /// have none).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let strategy = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
    ///     .max_backoff(Duration::from_secs(2))
    ///     .random(|| 0.9)
    ///     .build();
    /// assert_eq!(strategy.backoff_secs(5, false), Some(2.0)); // 0.9 * 16 s, capped
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn max_backoff(mut self, cap: Duration) -> Self {
        self.max_backoff = Some(cap);
        self
    }

    /// The longest retry-after hint the JavaScript presets add to a delay; a
    /// longer one ends the request with
    /// [`TokenAcquisitionFailed::RetryAfterTooLong`](crate::TokenAcquisitionFailed::RetryAfterTooLong).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    /// use rebound_runtime::{RetryStrategy, TokenAcquisitionFailed};
    ///
    /// let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaScriptV2)
    ///     .retry_after_ceiling(Duration::from_secs(5))
    ///     .build();
    /// let busy = HttpErrorResponse::new(503).with_retry_after(Some(Duration::from_secs(30)));
    /// let token = strategy.acquire_initial_token().unwrap();
    /// let why = strategy.refresh_retry_token(token, &busy).unwrap_err();
    /// assert!(matches!(why, TokenAcquisitionFailed::RetryAfterTooLong { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn retry_after_ceiling(mut self, ceiling: Duration) -> Self {
        self.retry_after_ceiling = Some(ceiling);
        self
    }

    /// Also retry error responses with this status and code, beyond the
    /// preset's rules.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let strategy = LegacyRetryStrategy::builder(LegacyPreset::JavaV1)
    ///     .retry_rule(409, "ConcurrentModification")
    ///     .build();
    /// let conflict = HttpErrorResponse::new(409).with_code("ConcurrentModification");
    /// assert!(strategy.classify(&conflict).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retry_rule(mut self, status: u16, code: impl Into<Cow<'static, str>>) -> Self {
        self.extra_rules.push((status, code.into()));
        self
    }

    /// Adds the extra rules botocore's `_retry.json` has for the service
    /// with this endpoint prefix ([`botocore_service_retry_rules`]). For
    /// DynamoDB, whose entry also changes attempts, delay and CRC32
    /// checking, start from [`LegacyPreset::BotocoreDynamoDb`] instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::classify::HttpErrorResponse;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let kinesis = LegacyRetryStrategy::builder(LegacyPreset::Botocore)
    ///     .botocore_service("kinesis")
    ///     .max_attempts(3)
    ///     .build();
    /// let limited = HttpErrorResponse::new(400).with_code("LimitExceededException");
    /// assert!(kinesis.classify(&limited).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn botocore_service(mut self, endpoint_prefix: &str) -> Self {
        self.extra_rules.extend(
            botocore_service_retry_rules(endpoint_prefix)
                .iter()
                .map(|&(status, code)| (status, Cow::Borrowed(code))),
        );
        self
    }

    /// Where jitter comes from: [`SeededRandom`](crate::backoff::SeededRandom) for
    /// reproducible runs, a closure to inject exact draws.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::backoff::SeededRandom;
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let a = LegacyRetryStrategy::builder(LegacyPreset::Botocore).random(SeededRandom::new(1)).build();
    /// let b = LegacyRetryStrategy::builder(LegacyPreset::Botocore).random(SeededRandom::new(1)).build();
    /// assert_eq!(a.backoff_secs(3, false), b.backoff_secs(3, false));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn random(mut self, random: impl RandomSource + 'static) -> Self {
        self.random = Some(Arc::new(random));
        self
    }

    /// The strategy. Cannot fail: every setting has a meaning.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::{LegacyPreset, LegacyRetryStrategy};
    ///
    /// let none = LegacyRetryStrategy::builder(LegacyPreset::Botocore).max_attempts(0).build();
    /// assert_eq!(none.max_attempts(), 1); // the first attempt is always made
    /// ```
    pub fn build(self) -> LegacyRetryStrategy {
        let defaults = LegacyRetryStrategy::from_preset(self.preset);
        let max_attempts = self.max_attempts.unwrap_or(defaults.max_attempts).max(1);
        LegacyRetryStrategy {
            max_attempts,
            max_backoff: self.max_backoff.or(defaults.max_backoff),
            retry_after_ceiling: self
                .retry_after_ceiling
                .unwrap_or(defaults.retry_after_ceiling),
            extra_rules: self.extra_rules.into(),
            random: self.random.unwrap_or(defaults.random),
            ..defaults
        }
    }
}

impl fmt::Debug for LegacyRetryStrategyBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LegacyRetryStrategyBuilder")
            .field("preset", &self.preset)
            .field("max_attempts", &self.max_attempts)
            .field("max_backoff", &self.max_backoff)
            .field("retry_after_ceiling", &self.retry_after_ceiling)
            .field("extra_rules", &self.extra_rules)
            .field("random", &self.random.as_ref().map(|_| "<custom>"))
            .finish()
    }
}
