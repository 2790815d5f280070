//! [`RetryMode`]: which family of retry rules to follow (`retry_mode`).

use core::fmt;
use core::str::FromStr;

use super::error::{Problem, Setting};
use super::{ConfigError, ConfigSource};

/// How failed requests are retried: the AWS shared setting `retry_mode`.
///
/// # Accepted syntax
///
/// `legacy`, `standard` or `adaptive`, in any ASCII case (`Standard` and
/// `ADAPTIVE` are accepted, as aws-sdk-rust accepts them). Nothing else:
/// surrounding whitespace, an empty string or another word is an error.
///
/// # Parsing
///
/// [`FromStr`] fails with [`ConfigError::InvalidValue`] whose origin is
/// [`ConfigSource::Code`]: a mode parsed from a string is a value given in
/// code. Resolution from the environment or the config file reports the
/// same error with that source instead.
///
/// ```
/// use rebound_runtime::config::{ConfigError, ConfigSource, RetryMode};
///
/// let err = "fast".parse::<RetryMode>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"invalid retry_mode "fast" set in code: expected one of legacy, standard, adaptive, in any ASCII case (not a retry mode)"#
/// );
/// assert!(matches!(
///     err,
///     ConfigError::InvalidValue { setting: "retry_mode", origin: ConfigSource::Code, .. }
/// ));
/// assert_eq!("".parse::<RetryMode>().unwrap_err().reason(), Some("the value is empty"));
/// ```
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::RetryMode;
///
/// assert_eq!("standard".parse::<RetryMode>().ok(), Some(RetryMode::Standard));
/// assert_eq!("ADAPTIVE".parse::<RetryMode>().ok(), Some(RetryMode::Adaptive));
/// assert!(" standard".parse::<RetryMode>().is_err());
/// assert_eq!(RetryMode::default(), RetryMode::Standard);
/// assert_eq!(RetryMode::Legacy.to_string(), "legacy");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryMode {
    /// An SDK-specific preset (botocore's `_retry.json`, the Java 1.x or
    /// JavaScript 2.x rules); its default attempt count depends on the preset.
    Legacy,
    /// The standard rules shared by the AWS SDKs: retry quota, jittered
    /// exponential backoff, 3 attempts unless configured.
    ///
    /// The default, as in botocore 1.44 and aws-sdk-rust (the older SDK
    /// reference page, seed 000, still names `legacy` as the default).
    #[default]
    Standard,
    /// Standard plus a client-side rate limiter that slows down after
    /// throttling responses.
    Adaptive,
}

impl RetryMode {
    /// Every mode, in the order the docs list them.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryMode;
    ///
    /// assert_eq!(RetryMode::ALL.len(), 3);
    /// ```
    pub const ALL: [Self; 3] = [Self::Legacy, Self::Standard, Self::Adaptive];

    /// The lowercase name used in configuration: `legacy`, `standard` or
    /// `adaptive`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryMode;
    ///
    /// assert_eq!(RetryMode::Adaptive.as_str(), "adaptive");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Legacy => "legacy",
            Self::Standard => "standard",
            Self::Adaptive => "adaptive",
        }
    }

    /// The attempt count this mode uses when `max_attempts` is not configured:
    /// 3 for standard and adaptive, `None` for legacy (the preset decides:
    /// botocore's legacy preset makes 5 attempts, 10 for DynamoDB).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryMode;
    ///
    /// assert_eq!(RetryMode::Standard.default_max_attempts(), Some(3));
    /// assert_eq!(RetryMode::Legacy.default_max_attempts(), None);
    /// ```
    #[must_use]
    pub const fn default_max_attempts(self) -> Option<u32> {
        match self {
            Self::Legacy => None,
            Self::Standard | Self::Adaptive => Some(3),
        }
    }

    /// Parses a configured value, reporting what is wrong with it.
    pub(crate) fn parse_setting(value: &str) -> Result<Self, Problem> {
        if value.is_empty() {
            return Err(Problem::Empty);
        }
        if value.trim() != value {
            return Err(Problem::SurroundingWhitespace);
        }
        Self::ALL
            .into_iter()
            .find(|mode| value.eq_ignore_ascii_case(mode.as_str()))
            .ok_or(Problem::UnknownMode)
    }
}

impl fmt::Display for RetryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RetryMode {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse_setting(s).map_err(|problem| {
            ConfigError::invalid(Setting::RetryMode, s, ConfigSource::Code, problem)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_mode_in_any_ascii_case() {
        for mode in RetryMode::ALL {
            let name = mode.as_str();
            assert_eq!(name.parse::<RetryMode>().ok(), Some(mode));
            assert_eq!(
                name.to_ascii_uppercase().parse::<RetryMode>().ok(),
                Some(mode)
            );
            let mixed: String = name
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            assert_eq!(mixed.parse::<RetryMode>().ok(), Some(mode));
        }
    }

    #[test]
    fn rejects_padding_empty_and_unknown_words() {
        let cases = [
            ("", Problem::Empty),
            (" standard", Problem::SurroundingWhitespace),
            ("standard\t", Problem::SurroundingWhitespace),
            ("standard\n", Problem::SurroundingWhitespace),
            ("std", Problem::UnknownMode),
            ("standard adaptive", Problem::UnknownMode),
            // ASCII case folding only: the long s (U+017F) is not an `s`.
            ("ſtandard", Problem::UnknownMode),
        ];
        for (input, problem) in cases {
            assert_eq!(RetryMode::parse_setting(input), Err(problem), "{input:?}");
            let err = input.parse::<RetryMode>().unwrap_err();
            match &err {
                ConfigError::InvalidValue {
                    setting,
                    value,
                    origin,
                    expected,
                    reason,
                } => {
                    assert_eq!(*setting, "retry_mode");
                    assert_eq!(value, input);
                    assert_eq!(*origin, ConfigSource::Code);
                    assert_eq!(*expected, Setting::RetryMode.expected());
                    assert_eq!(*reason, problem.reason(), "{input:?}");
                }
                other => panic!("expected InvalidValue, got {other:?}"),
            }
        }
    }
}
