//! From a [`ResolvedRetryConfig`] to the strategy it selects.
//!
//! The resolved settings fix the mode, the attempt count and the standard
//! generation; everything else (the quota, the random source, per-service
//! special cases, the legacy preset) is the caller's to choose on the
//! builders this module hands out.

use crate::adaptive::{AdaptiveRetryStrategy, AdaptiveRetryStrategyBuilder};
use crate::legacy::{LegacyPreset, LegacyRetryStrategy, LegacyRetryStrategyBuilder};
use crate::refusal::TokenAcquisitionFailed;
use crate::standard::{StandardRetryStrategy, StandardRetryStrategyBuilder};
use crate::strategy::{RetryKind, RetryStrategy, SendPermit};
use crate::token::RetryToken;
use crate::vocabulary::FailureInfo;

use super::{ResolvedRetryConfig, RetryMode};

/// The strategy a configuration selects: one of the modes, without boxing.
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::ConfiguredRetryStrategy;
/// use rebound_runtime::{RetryStrategy, config::{RetryConfig, RetryMode}};
///
/// let nothing: [(&str, &str); 0] = [];
/// let strategy = RetryConfig::new()
///     .mode(RetryMode::Legacy)
///     .resolve_from(&nothing, &nothing)?
///     .build();
/// assert!(matches!(strategy, ConfiguredRetryStrategy::Legacy(_)));
/// let token = strategy.acquire_initial_token()?;
/// assert_eq!(token.attempt(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ConfiguredRetryStrategy {
    /// `retry_mode = legacy`: a [`LegacyRetryStrategy`] preset.
    Legacy(LegacyRetryStrategy),
    /// `retry_mode = standard`.
    Standard(StandardRetryStrategy),
    /// `retry_mode = adaptive`.
    Adaptive(AdaptiveRetryStrategy),
}

impl ConfiguredRetryStrategy {
    /// The mode this strategy implements.
    #[must_use]
    pub const fn mode(&self) -> RetryMode {
        match self {
            Self::Legacy(_) => RetryMode::Legacy,
            Self::Standard(_) => RetryMode::Standard,
            Self::Adaptive(_) => RetryMode::Adaptive,
        }
    }

    /// Attempts per request, the first included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        match self {
            Self::Legacy(strategy) => strategy.max_attempts(),
            Self::Standard(strategy) => strategy.max_attempts(),
            Self::Adaptive(strategy) => strategy.max_attempts(),
        }
    }
}

impl RetryStrategy for ConfiguredRetryStrategy {
    fn acquire_initial_token(&self) -> Result<RetryToken, TokenAcquisitionFailed> {
        match self {
            Self::Legacy(strategy) => strategy.acquire_initial_token(),
            Self::Standard(strategy) => strategy.acquire_initial_token(),
            Self::Adaptive(strategy) => strategy.acquire_initial_token(),
        }
    }

    fn refresh_retry_token(
        &self,
        token: RetryToken,
        failure: &dyn FailureInfo,
    ) -> Result<RetryToken, TokenAcquisitionFailed> {
        match self {
            Self::Legacy(strategy) => strategy.refresh_retry_token(token, failure),
            Self::Standard(strategy) => strategy.refresh_retry_token(token, failure),
            Self::Adaptive(strategy) => strategy.refresh_retry_token(token, failure),
        }
    }

    fn record_success(&self, token: RetryToken) {
        match self {
            Self::Legacy(strategy) => strategy.record_success(token),
            Self::Standard(strategy) => strategy.record_success(token),
            Self::Adaptive(strategy) => strategy.record_success(token),
        }
    }

    fn acquire_send_permit(
        &self,
        token: &mut RetryToken,
    ) -> Result<SendPermit, TokenAcquisitionFailed> {
        match self {
            Self::Legacy(strategy) => strategy.acquire_send_permit(token),
            Self::Standard(strategy) => strategy.acquire_send_permit(token),
            Self::Adaptive(strategy) => strategy.acquire_send_permit(token),
        }
    }

    fn retry_kind(&self, failure: &dyn FailureInfo) -> RetryKind {
        match self {
            Self::Legacy(strategy) => strategy.retry_kind(failure),
            Self::Standard(strategy) => strategy.retry_kind(failure),
            Self::Adaptive(strategy) => strategy.retry_kind(failure),
        }
    }

    fn attempt_limit(&self) -> Option<u32> {
        Some(self.max_attempts())
    }

    fn quota_left(&self) -> Option<u32> {
        match self {
            Self::Legacy(strategy) => strategy.quota_left(),
            Self::Standard(strategy) => strategy.quota_left(),
            Self::Adaptive(strategy) => strategy.quota_left(),
        }
    }

    fn send_rate(&self) -> Option<f64> {
        match self {
            Self::Legacy(strategy) => strategy.send_rate(),
            Self::Standard(strategy) => strategy.send_rate(),
            Self::Adaptive(strategy) => strategy.send_rate(),
        }
    }

    fn abandon(&self, token: RetryToken) {
        match self {
            Self::Legacy(strategy) => strategy.abandon(token),
            Self::Standard(strategy) => strategy.abandon(token),
            Self::Adaptive(strategy) => strategy.abandon(token),
        }
    }
}

impl ResolvedRetryConfig {
    /// The strategy for the resolved mode, with every other setting at its
    /// default: standard mode with the resolved behaviour and attempts;
    /// adaptive mode likewise, with a blocking rate limiter on the system
    /// clock;
    /// legacy mode as botocore's generic preset ([`LegacyPreset::Botocore`])
    /// with the resolved attempts, if any.
    ///
    /// To choose more (a service's special cases, a shared quota, another
    /// legacy preset, a seeded random source), start from
    /// [`standard_builder`](Self::standard_builder) or
    /// [`legacy_builder`](Self::legacy_builder) instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{RetryBehavior, config::{RetryConfig, RetryMode}};
    ///
    /// let env = [("AWS_RETRY_MODE", "standard"), ("AWS_MAX_ATTEMPTS", "5"), ("AWS_NEW_RETRIES_2026", "true")];
    /// let none: [(&str, &str); 0] = [];
    /// let strategy = RetryConfig::new().resolve_from(&env, &none)?.build();
    /// assert_eq!(strategy.mode(), RetryMode::Standard);
    /// assert_eq!(strategy.max_attempts(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(&self) -> ConfiguredRetryStrategy {
        match self.mode {
            RetryMode::Legacy => {
                ConfiguredRetryStrategy::Legacy(self.legacy_builder(LegacyPreset::Botocore).build())
            }
            RetryMode::Standard => {
                ConfiguredRetryStrategy::Standard(self.standard_builder().build())
            }
            RetryMode::Adaptive => {
                ConfiguredRetryStrategy::Adaptive(self.adaptive_builder().build())
            }
        }
    }

    /// A standard strategy builder with the resolved behaviour and, if
    /// configured, attempt count.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// let env = [("AWS_MAX_ATTEMPTS", "2")];
    /// let none: [(&str, &str); 0] = [];
    /// let strategy = RetryConfig::new()
    ///     .resolve_from(&env, &none)?
    ///     .standard_builder()
    ///     .aws_service("dynamodb", "GetItem")
    ///     .build();
    /// assert_eq!(strategy.max_attempts(), 2); // configured beats DynamoDB's default
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn standard_builder(&self) -> StandardRetryStrategyBuilder {
        let builder = StandardRetryStrategy::builder().behavior(self.behavior);
        match self.max_attempts {
            Some(max_attempts) => builder.max_attempts(max_attempts),
            None => builder,
        }
    }

    /// An adaptive strategy builder around the standard strategy of
    /// [`standard_builder`](Self::standard_builder).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{config::{RetryConfig, RetryMode}, rate_limiter::WaitPolicy};
    ///
    /// let none: [(&str, &str); 0] = [];
    /// let strategy = RetryConfig::new()
    ///     .mode(RetryMode::Adaptive)
    ///     .resolve_from(&none, &none)?
    ///     .adaptive_builder()
    ///     .wait_policy(WaitPolicy::FailFast)
    ///     .build();
    /// assert_eq!(strategy.max_attempts(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn adaptive_builder(&self) -> AdaptiveRetryStrategyBuilder {
        AdaptiveRetryStrategy::builder(self.standard_builder().build())
    }

    /// A builder for the legacy `preset` with the resolved attempt count, if
    /// configured (else the preset's own).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::legacy::LegacyPreset;
    /// use rebound_runtime::config::{RetryConfig, RetryMode};
    ///
    /// let none: [(&str, &str); 0] = [];
    /// let resolved = RetryConfig::new().mode(RetryMode::Legacy).resolve_from(&none, &none)?;
    /// let java = resolved.legacy_builder(LegacyPreset::JavaV1).build();
    /// assert_eq!(java.max_attempts(), 4); // 3 retries
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn legacy_builder(&self, preset: LegacyPreset) -> LegacyRetryStrategyBuilder {
        let builder = LegacyRetryStrategy::builder(preset);
        match self.max_attempts {
            Some(max_attempts) => builder.max_attempts(max_attempts),
            None => builder,
        }
    }
}
