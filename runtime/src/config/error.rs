//! [`ConfigError`]: a configured value that cannot be used, with where it came
//! from, what it was and what would have been accepted.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// One of the retry settings that [`RetryConfig`](super::RetryConfig)
/// resolves. Crate-private: errors carry its [`name`](Self::name) and
/// [`expected`](Self::expected) text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Setting {
    /// `retry_mode` / `AWS_RETRY_MODE`: a [`RetryMode`](super::RetryMode).
    RetryMode,
    /// `max_attempts` / `AWS_MAX_ATTEMPTS`: total attempts, the first included.
    MaxAttempts,
    /// `AWS_NEW_RETRIES_2026`: the [`RetryBehavior`](super::RetryBehavior)
    /// (environment only; there is no config file key).
    Behavior,
}

impl Setting {
    /// The name used in messages: the config file key where there is one.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::RetryMode => "retry_mode",
            Self::MaxAttempts => "max_attempts",
            Self::Behavior => "AWS_NEW_RETRIES_2026",
        }
    }

    /// The environment variable that sets it.
    pub(crate) const fn env_var(self) -> &'static str {
        match self {
            Self::RetryMode => "AWS_RETRY_MODE",
            Self::MaxAttempts => "AWS_MAX_ATTEMPTS",
            Self::Behavior => "AWS_NEW_RETRIES_2026",
        }
    }

    /// The key in a shared config file profile, if the setting has one.
    pub(crate) const fn profile_key(self) -> Option<&'static str> {
        match self {
            Self::RetryMode => Some("retry_mode"),
            Self::MaxAttempts => Some("max_attempts"),
            Self::Behavior => None,
        }
    }

    /// What a valid value looks like, as error messages say it.
    pub(crate) const fn expected(self) -> &'static str {
        match self {
            Self::RetryMode => "one of legacy, standard, adaptive, in any ASCII case",
            Self::MaxAttempts => "a whole number from 1 to 4294967295",
            Self::Behavior => "true or false, in lowercase",
        }
    }
}

/// Where a configured value came from.
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::ConfigSource;
///
/// let file = ConfigSource::ConfigFile {
///     path: "/home/me/.aws/config".into(),
///     profile: "dev".into(),
///     line: 7,
/// };
/// assert_eq!(file.to_string(), r#"in /home/me/.aws/config, profile "dev", line 7"#);
/// assert_eq!(
///     ConfigSource::Env { var: "AWS_MAX_ATTEMPTS" }.to_string(),
///     "in environment variable AWS_MAX_ATTEMPTS"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigSource {
    /// Set in code, on the [`RetryConfig`](super::RetryConfig) builder.
    Code,
    /// An environment variable.
    Env {
        /// The variable's name, e.g. `AWS_MAX_ATTEMPTS`.
        var: &'static str,
    },
    /// A key of a profile in the shared config file.
    ConfigFile {
        /// The file, as resolved (after `~` expansion).
        path: PathBuf,
        /// The profile's name (`default` for `[default]`).
        profile: String,
        /// The 1-based line of the key.
        line: usize,
    },
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Code => f.write_str("set in code"),
            Self::Env { var } => write!(f, "in environment variable {var}"),
            Self::ConfigFile {
                path,
                profile,
                line,
            } => write!(f, "in {}, profile {profile:?}, line {line}", path.display()),
        }
    }
}

/// What is wrong with a rejected value. Crate-private: errors carry its
/// [`reason`](Self::reason), the hint that ends the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Problem {
    /// The value is the empty string.
    Empty,
    /// The value starts or ends with whitespace.
    SurroundingWhitespace,
    /// `max_attempts` is 0.
    Zero,
    /// `max_attempts` is a negative number.
    Negative,
    /// `max_attempts` holds something other than the digits 0-9.
    NotANumber,
    /// `max_attempts` is above 4294967295 (`u32::MAX`).
    TooLarge,
    /// `retry_mode` is not `legacy`, `standard` or `adaptive`.
    UnknownMode,
    /// `AWS_NEW_RETRIES_2026` is not `true` or `false`.
    NotABoolean,
}

impl Problem {
    /// The hint that ends an error message.
    pub(crate) const fn reason(self) -> &'static str {
        match self {
            Self::Empty => "the value is empty",
            Self::SurroundingWhitespace => "remove the surrounding whitespace",
            Self::Zero => "the count includes the first attempt, so 0 would allow none",
            Self::Negative => "a negative count is meaningless",
            Self::NotANumber => "only the digits 0-9 are allowed",
            Self::TooLarge => "the value does not fit in 32 bits",
            Self::UnknownMode => "not a retry mode",
            Self::NotABoolean => "not a boolean the other AWS SDKs recognise",
        }
    }
}

/// Why retry configuration could not be resolved.
///
/// Every message names the source, the key, the value and what is valid:
///
/// ```
/// use std::collections::HashMap;
/// use rebound_runtime::config::{ConfigError, RetryConfig};
///
/// let env = HashMap::from([("AWS_MAX_ATTEMPTS".to_owned(), "0".to_owned())]);
/// let files: HashMap<std::path::PathBuf, String> = HashMap::new();
/// let err = RetryConfig::new().resolve_from(&env, &files).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"invalid max_attempts "0" in environment variable AWS_MAX_ATTEMPTS: expected a whole number from 1 to 4294967295 (the count includes the first attempt, so 0 would allow none)"#
/// );
/// assert!(matches!(
///     err,
///     ConfigError::InvalidValue { setting: "max_attempts", reason, .. }
///         if reason == "the count includes the first attempt, so 0 would allow none"
/// ));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A setting holds a value that cannot be used.
    #[error("invalid {setting} {value:?} {origin}: expected {expected} ({reason})")]
    InvalidValue {
        /// Which setting, by the name messages use: `"retry_mode"`,
        /// `"max_attempts"` or `"AWS_NEW_RETRIES_2026"` (the config file key
        /// where there is one).
        setting: &'static str,
        /// The value as found (for the config file: after the format's own
        /// trimming of spaces and tabs around it and of an inline comment).
        value: String,
        /// Where it was found.
        origin: ConfigSource,
        /// What a valid value of the setting looks like, e.g.
        /// `"a whole number from 1 to 4294967295"`.
        expected: &'static str,
        /// What is wrong with this value, e.g.
        /// `"a negative count is meaningless"`.
        reason: &'static str,
    },
    /// The shared config file exists but could not be read: permissions, not
    /// UTF-8, or refused — not a regular file (a directory, a FIFO, a device
    /// such as `/dev/zero`) or larger than the 1 MiB limit. A missing file is
    /// not an error.
    #[error("cannot read the AWS shared config file {}: {source}", path.display())]
    ReadConfigFile {
        /// The file, as resolved.
        path: PathBuf,
        /// The I/O error; for a refused file, its message says why
        /// (`not a regular file (it is a directory)`,
        /// `larger than the 1048576-byte limit for a config file`).
        source: Arc<io::Error>,
    },
    /// An environment variable that must be text (`AWS_PROFILE`) holds bytes
    /// that are not valid Unicode.
    #[error("environment variable {variable} is not valid Unicode: {value:?}")]
    NotUnicode {
        /// The variable.
        variable: &'static str,
        /// Its value, as the OS holds it.
        value: std::ffi::OsString,
    },
    /// A line of the shared config file is not in the format: a section or
    /// key declared twice, a key before any section, a header without `]`, a
    /// line that is not `key = value`. The whole file is rejected, as botocore
    /// rejects it, whichever profile the line is in.
    #[error("invalid AWS shared config file {}, line {line}: {reason}", path.display())]
    ConfigFileSyntax {
        /// The file, as resolved.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it, e.g.
        /// `key "max_attempts" is set a second time in this section (first on line 2)`.
        reason: String,
    },
}

impl ConfigError {
    /// A rejected value of `setting`.
    pub(crate) fn invalid(
        setting: Setting,
        value: &str,
        origin: ConfigSource,
        problem: Problem,
    ) -> Self {
        Self::InvalidValue {
            setting: setting.name(),
            value: value.to_owned(),
            origin,
            expected: setting.expected(),
            reason: problem.reason(),
        }
    }

    /// The name of the setting at fault (`"retry_mode"`, `"max_attempts"` or
    /// `"AWS_NEW_RETRIES_2026"`), if the error is about a value.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// // 0 set in code is rejected before anything else is read.
    /// let err = RetryConfig::new().max_attempts(0).resolve().unwrap_err();
    /// assert_eq!(err.setting(), Some("max_attempts"));
    /// assert_eq!(
    ///     err.reason(),
    ///     Some("the count includes the first attempt, so 0 would allow none")
    /// );
    /// ```
    #[must_use]
    pub const fn setting(&self) -> Option<&'static str> {
        match self {
            Self::InvalidValue { setting, .. } => Some(*setting),
            Self::ReadConfigFile { .. }
            | Self::ConfigFileSyntax { .. }
            | Self::NotUnicode { .. } => None,
        }
    }

    /// What is wrong with the value, if the error is about a value: the hint
    /// in parentheses at the end of the message.
    ///
    /// # Examples
    ///
    /// See [`ConfigError::setting`].
    #[must_use]
    pub const fn reason(&self) -> Option<&'static str> {
        match self {
            Self::InvalidValue { reason, .. } => Some(*reason),
            Self::ReadConfigFile { .. }
            | Self::ConfigFileSyntax { .. }
            | Self::NotUnicode { .. } => None,
        }
    }

    /// Where the rejected value came from, if the error is about a value.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::{ConfigSource, RetryConfig};
    ///
    /// let err = RetryConfig::new().max_attempts(0).resolve().unwrap_err();
    /// assert_eq!(err.origin(), Some(&ConfigSource::Code));
    /// ```
    #[must_use]
    pub const fn origin(&self) -> Option<&ConfigSource> {
        match self {
            Self::InvalidValue { origin, .. } => Some(origin),
            Self::ReadConfigFile { .. }
            | Self::ConfigFileSyntax { .. }
            | Self::NotUnicode { .. } => None,
        }
    }
}
