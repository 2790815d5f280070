//! [`RetryConfig`]: the settings given in code, and the resolution that
//! fills in the rest, setting by setting, from code, then the environment,
//! then the config file profile, then the defaults.
//!
//! This is the entry point of the module; choosing and reading the config
//! file lives in `selected_profile`, value parsing in `parse`, the result in
//! `resolved`.

use std::path::PathBuf;

use super::behavior;
use super::env::{Env, ProcessEnv};
use super::error::{Problem, Setting};
use super::files::{FileSource, OsFiles};
use super::parse::{from_env, parse_max_attempts};
use super::selected_profile::SelectedProfile;
use super::{ConfigError, ConfigSource, ResolvedRetryConfig, RetryBehavior, RetryMode};

/// Retry settings set in code, and the resolution that fills in the rest
/// from the environment, the shared config file and the defaults.
///
/// See the [module docs](super) for the sources, their order and the accepted
/// syntax.
///
/// # Default
///
/// Nothing is set in code: every setting comes from the environment, the
/// config file or its default ([`RetryMode::Standard`], the mode's attempt
/// count, [`RetryBehavior::V2_0`]).
///
/// # Examples
///
/// ```
/// use rebound_runtime::config::{RetryConfig, RetryMode};
///
/// let env = [("AWS_RETRY_MODE", "legacy"), ("AWS_MAX_ATTEMPTS", "4")];
/// let no_files = std::collections::BTreeMap::new();
/// let resolved = RetryConfig::new()
///     .mode(RetryMode::Adaptive) // code beats AWS_RETRY_MODE
///     .resolve_from(&env, &no_files)?;
/// assert_eq!(resolved.mode, RetryMode::Adaptive);
/// assert_eq!(resolved.max_attempts, Some(4));
/// # Ok::<(), rebound_runtime::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct RetryConfig {
    mode: Option<RetryMode>,
    max_attempts: Option<u32>,
    behavior: Option<RetryBehavior>,
    profile: Option<String>,
    config_file: Option<PathBuf>,
}

impl RetryConfig {
    /// A configuration with nothing set in code.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// assert_eq!(RetryConfig::new(), RetryConfig::default());
    /// ```
    pub const fn new() -> Self {
        Self {
            mode: None,
            max_attempts: None,
            behavior: None,
            profile: None,
            config_file: None,
        }
    }

    /// Sets the retry mode, overriding `AWS_RETRY_MODE` and `retry_mode`.
    ///
    /// # Default
    ///
    /// Unset: from the environment, the file, else [`RetryMode::Standard`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::{RetryConfig, RetryMode};
    ///
    /// let env = [("AWS_RETRY_MODE", "legacy")];
    /// let files = std::collections::BTreeMap::new();
    /// let resolved = RetryConfig::new().mode(RetryMode::Standard).resolve_from(&env, &files)?;
    /// assert_eq!(resolved.mode, RetryMode::Standard);
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub const fn mode(mut self, mode: RetryMode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// Sets the maximum number of attempts, the first included, overriding
    /// `AWS_MAX_ATTEMPTS` and `max_attempts`. 1 disables retries; 0 is
    /// rejected when resolving, with [`ConfigSource::Code`].
    ///
    /// # Default
    ///
    /// Unset: from the environment, the file, else the mode's default
    /// ([`RetryMode::default_max_attempts`]: 3 for standard and adaptive).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// let files = std::collections::BTreeMap::new();
    /// let resolved = RetryConfig::new().max_attempts(1).resolve_from(&[("AWS_MAX_ATTEMPTS", "9")], &files)?;
    /// assert_eq!(resolved.max_attempts, Some(1));
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub const fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = Some(max_attempts);
        self
    }

    /// Sets the standard-mode generation, overriding `AWS_NEW_RETRIES_2026`.
    ///
    /// # Default
    ///
    /// Unset: from `AWS_NEW_RETRIES_2026`, else [`RetryBehavior::V2_0`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::RetryConfig;
    /// use rebound_runtime::RetryBehavior;
    ///
    /// let files = std::collections::BTreeMap::new();
    /// let env = [("AWS_NEW_RETRIES_2026", "true")];
    /// let resolved = RetryConfig::new().behavior(RetryBehavior::V2_0).resolve_from(&env, &files)?;
    /// assert_eq!(resolved.behavior, RetryBehavior::V2_0);
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub const fn behavior(mut self, behavior: RetryBehavior) -> Self {
        self.behavior = Some(behavior);
        self
    }

    /// Reads the config file profile `name`, overriding `AWS_PROFILE`.
    ///
    /// # Default
    ///
    /// Unset: `AWS_PROFILE` if set and not empty, else `default`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use rebound_runtime::config::{RetryConfig, RetryMode};
    ///
    /// let files = BTreeMap::from([(
    ///     "/cfg".into(),
    ///     "[profile batch]\nretry_mode = adaptive\n".to_owned(),
    /// )]);
    /// let env = [("AWS_CONFIG_FILE", "/cfg"), ("AWS_PROFILE", "web")];
    /// let resolved = RetryConfig::new().profile("batch").resolve_from(&env, &files)?;
    /// assert_eq!(resolved.mode, RetryMode::Adaptive);
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub fn profile(mut self, name: impl Into<String>) -> Self {
        self.profile = Some(name.into());
        self
    }

    /// Reads the shared config file at `path`, overriding `AWS_CONFIG_FILE`.
    /// A leading `~` is the home directory.
    ///
    /// # Default
    ///
    /// Unset: `AWS_CONFIG_FILE` if set and not empty, else `~/.aws/config`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// let files = BTreeMap::from([("/etc/aws".into(), "[default]\nmax_attempts = 6\n".to_owned())]);
    /// let resolved = RetryConfig::new().config_file("/etc/aws").resolve_from(&[("HOME", "/h")], &files)?;
    /// assert_eq!(resolved.max_attempts, Some(6));
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_file = Some(path.into());
        self
    }

    /// Resolves every setting from the process environment and the real
    /// shared config file.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] for the first invalid value found (code, then the
    /// environment, then the file), or if the file exists but cannot be read.
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::config::{RetryConfig, RetryMode};
    ///
    /// // Set in code, so neither the environment nor ~/.aws/config decide.
    /// let resolved = RetryConfig::new()
    ///     .mode(RetryMode::Standard)
    ///     .max_attempts(3)
    ///     .behavior(rebound_runtime::RetryBehavior::V2_0)
    ///     .resolve()?;
    /// assert_eq!(resolved.max_attempts, Some(3));
    /// # Ok::<(), rebound_runtime::config::ConfigError>(())
    /// ```
    pub fn resolve(&self) -> Result<ResolvedRetryConfig, ConfigError> {
        self.resolve_from(&ProcessEnv, &OsFiles)
    }

    /// Resolves every setting from `env` and `files` instead of the process
    /// environment and the file system: the form tests use.
    ///
    /// **Unstable, not part of the API**: hidden from the documentation and
    /// exempt from semantic versioning, like its `Env` and `FileSource`
    /// traits (reachable only through the hidden `internals` module); it may
    /// change or go in any release. Applications call
    /// [`resolve`](Self::resolve).
    ///
    /// # Errors
    ///
    /// As [`resolve`](Self::resolve).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use std::path::PathBuf;
    /// use rebound_runtime::config::RetryConfig;
    ///
    /// let files = HashMap::from([(
    ///     PathBuf::from("/h/.aws/config"),
    ///     "[default]\r\nmax_attempts = lots\r\n".to_owned(),
    /// )]);
    /// let err = RetryConfig::new().resolve_from(&[("HOME", "/h")], &files).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     r#"invalid max_attempts "lots" in /h/.aws/config, profile "default", line 2: expected a whole number from 1 to 4294967295 (only the digits 0-9 are allowed)"#
    /// );
    /// ```
    #[doc(hidden)]
    pub fn resolve_from(
        &self,
        env: &(impl Env + ?Sized),
        files: &(impl FileSource + ?Sized),
    ) -> Result<ResolvedRetryConfig, ConfigError> {
        let mut mode = self.mode.map(|mode| (mode, ConfigSource::Code));
        let mut max_attempts = match self.max_attempts {
            Some(0) => {
                return Err(ConfigError::invalid(
                    Setting::MaxAttempts,
                    "0",
                    ConfigSource::Code,
                    Problem::Zero,
                ));
            }
            Some(n) => Some((n, ConfigSource::Code)),
            None => None,
        };
        let mut behavior = self.behavior.map(|behavior| (behavior, ConfigSource::Code));

        if mode.is_none() {
            mode = from_env(env, Setting::RetryMode, RetryMode::parse_setting)?;
        }
        if max_attempts.is_none() {
            max_attempts = from_env(env, Setting::MaxAttempts, parse_max_attempts)?;
        }
        if behavior.is_none() {
            behavior = from_env(env, Setting::Behavior, behavior::parse_new_retries_flag)?;
        }

        // The file is read only if it can still decide something.
        if (mode.is_none() || max_attempts.is_none())
            && let Some(profile) = SelectedProfile::load(
                self.config_file.as_deref(),
                self.profile.as_deref(),
                env,
                files,
            )?
        {
            if mode.is_none() {
                mode = profile.setting(Setting::RetryMode, RetryMode::parse_setting)?;
            }
            if max_attempts.is_none() {
                max_attempts = profile.setting(Setting::MaxAttempts, parse_max_attempts)?;
            }
        }

        let (mode, mode_source) = mode.unzip();
        let (max_attempts, max_attempts_source) = max_attempts.unzip();
        let (behavior, behavior_source) = behavior.unzip();
        Ok(ResolvedRetryConfig {
            mode: mode.unwrap_or_default(),
            max_attempts,
            behavior: behavior.unwrap_or_default(),
            mode_source,
            max_attempts_source,
            behavior_source,
        })
    }
}
