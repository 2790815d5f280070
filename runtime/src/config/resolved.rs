//! [`ResolvedRetryConfig`]: what resolution produces, one value per setting
//! and where each came from, kept apart from the
//! resolution itself so the result type reads on its own.

#[cfg(doc)]
use super::ConfiguredRetryStrategy;
use super::{ConfigSource, RetryBehavior, RetryMode};

/// The outcome of resolution: one value per setting, and where each came
/// from.
///
/// # Building a strategy
///
/// [`build`](Self::build) turns it into the matching strategy
/// ([`ConfiguredRetryStrategy`]): [`RetryMode::Standard`] into the standard
/// strategy with `behavior` and `max_attempts`, [`RetryMode::Adaptive`] into
/// the adaptive strategy likewise, [`RetryMode::Legacy`] into a legacy preset
/// (with `max_attempts` overriding the preset's count when set).
/// [`standard_builder`](Self::standard_builder) and
/// [`legacy_builder`](Self::legacy_builder) start from the same settings and
/// let you choose the rest.
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::{RetryConfig, RetryMode};
///
/// let none = std::collections::BTreeMap::new();
/// let resolved = RetryConfig::new().resolve_from(&[("AWS_NEW_RETRIES_2026", "true")], &none)?;
/// assert_eq!(resolved.mode, RetryMode::Standard);
/// assert_eq!(resolved.max_attempts, None);
/// assert_eq!(resolved.effective_max_attempts(), Some(3));
/// assert_eq!(resolved.mode_source, None); // the default
/// assert!(resolved.behavior_source.is_some()); // the environment
/// # Ok::<(), rebound_runtime::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResolvedRetryConfig {
    /// The retry mode.
    pub mode: RetryMode,
    /// The configured attempt count, or `None` when no source set it and the
    /// strategy's own default applies (see
    /// [`effective_max_attempts`](Self::effective_max_attempts)).
    pub max_attempts: Option<u32>,
    /// The standard-mode generation (also used by adaptive mode).
    pub behavior: RetryBehavior,
    /// Where [`mode`](Self::mode) came from; `None` means the built-in
    /// default.
    ///
    /// ```
    /// use rebound_runtime::config::{ConfigSource, RetryConfig};
    ///
    /// let none = std::collections::BTreeMap::new();
    /// let resolved = RetryConfig::new().resolve_from(&[("AWS_RETRY_MODE", "legacy")], &none)?;
    /// assert_eq!(resolved.mode_source, Some(ConfigSource::Env { var: "AWS_RETRY_MODE" }));
    /// assert_eq!(resolved.max_attempts_source, None);
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub mode_source: Option<ConfigSource>,
    /// Where [`max_attempts`](Self::max_attempts) came from; `None` when no
    /// source set it.
    pub max_attempts_source: Option<ConfigSource>,
    /// Where [`behavior`](Self::behavior) came from; `None` means the
    /// built-in default.
    pub behavior_source: Option<ConfigSource>,
}

impl ResolvedRetryConfig {
    /// `max_attempts`, else the mode's default: 3 for standard and adaptive,
    /// `None` for legacy (the preset decides).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::{RetryConfig, RetryMode};
    ///
    /// let nothing: [(&str, &str); 0] = [];
    /// let legacy = RetryConfig::new().mode(RetryMode::Legacy).resolve_from(&nothing, &nothing)?;
    /// assert_eq!(legacy.effective_max_attempts(), None);
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    #[must_use]
    pub const fn effective_max_attempts(&self) -> Option<u32> {
        match self.max_attempts {
            Some(n) => Some(n),
            None => self.mode.default_max_attempts(),
        }
    }
}
