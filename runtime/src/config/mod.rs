//! Retry configuration from code, the environment and the AWS shared config
//! file, resolved per setting like the AWS SDKs do.
//!
//! # Settings and sources
//!
//! Each setting is taken from the first source that sets it, highest first:
//!
//! | setting | 1. code ([`RetryConfig`]) | 2. environment | 3. config file profile | 4. default |
//! |---|---|---|---|---|
//! | retry mode | [`mode`](RetryConfig::mode) | `AWS_RETRY_MODE` | `retry_mode` | [`RetryMode::Standard`] |
//! | max attempts | [`max_attempts`](RetryConfig::max_attempts) | `AWS_MAX_ATTEMPTS` | `max_attempts` | none: the mode's ([`RetryMode::default_max_attempts`]) |
//! | behaviour | [`behavior`](RetryConfig::behavior) | `AWS_NEW_RETRIES_2026` | — | [`RetryBehavior::V2_0`] |
//!
//! The config file and profile are chosen the same way:
//!
//! | | code | environment | default |
//! |---|---|---|---|
//! | config file | [`config_file`](RetryConfig::config_file) | `AWS_CONFIG_FILE` | `~/.aws/config`, home from `HOME`, else `USERPROFILE` |
//! | profile | [`profile`](RetryConfig::profile) | `AWS_PROFILE` | `default` |
//!
//! A leading `~` in the config file path is the home directory. An empty
//! `AWS_CONFIG_FILE` or `AWS_PROFILE` counts as unset. A missing file, or a
//! profile the file does not declare, is not an error: the defaults apply.
//! The file is read only if the environment and code leave a file setting
//! open, and a lower source is not consulted once a higher one sets a value,
//! so an invalid value there goes unreported.
//!
//! # Accepted syntax
//!
//! | setting | accepted | rejected (a [`ConfigError`] naming source, key, value) |
//! |---|---|---|
//! | `retry_mode` | `legacy`, `standard`, `adaptive`, any ASCII case | empty, surrounding whitespace, any other word |
//! | `max_attempts` | digits `0-9` only, 1 to 4294967295 (leading zeros allowed) | 0, negative, empty, surrounding whitespace, signs, decimals, anything above `u32::MAX` |
//! | `AWS_NEW_RETRIES_2026` | `true`, `false` exactly | anything else (`TRUE`, `1`, empty, padded) |
//!
//! Environment values are used verbatim. In the config file, spaces and tabs
//! around a value and an inline comment (`# ...` or `; ...` after a space)
//! belong to the file format and are removed first; see
//! [the config file format](#the-config-file-format) for the rest.
//!
//! What the references do, for comparison (botocore 1.44.5, aws-config):
//! botocore compares `retry_mode` case-sensitively and registers *no retry
//! handler at all* for an unknown mode from the environment or file; it
//! converts `max_attempts` with Python's `int()`, which accepts surrounding
//! whitespace, `+5` and `1_0`, and does not reject 0. aws-sdk-rust's
//! `RetryMode::from_str` trims and ignores ASCII case; aws-config parses
//! `max_attempts` with `str::parse::<u32>()` (no trimming, `+5` accepted) and
//! rejects 0. We keep the case-insensitivity of aws-sdk-rust and reject every
//! input on which the references disagree or stay silent.
//!
//! # The config file format
//!
//! Facts from the two references, aws-config (Rust) and botocore (Python's
//! `configparser`), with the choice made where they differ:
//!
//! - Lines end in `\n`, `\r\n` or a lone `\r` (botocore reads with Python's
//!   universal newlines); a leading byte-order mark is ignored. Whitespace
//!   means spaces and tabs.
//! - A line whose first non-blank character is `#` or `;` is a comment
//!   (botocore; aws-config only recognises them in column 0).
//! - `[default]` and `[profile NAME]` are profiles; `NAME` is case-sensitive
//!   and spaces/tabs around it are ignored. `[profile default]` takes
//!   precedence over `[default]`, which is then ignored entirely (aws-config).
//!   Any other section (`[sso-session X]`, `[services X]`, `[plugins]`, a bare
//!   `[NAME]`, `[profile a b]`) is skipped with everything in it. Headers and
//!   keys may be indented (botocore).
//! - `key = value` or `key: value` (at whichever comes first, as in
//!   botocore): the key is case-insensitive (both references lowercase it);
//!   spaces and tabs around key and value are removed; a `#` or `;` preceded
//!   by a space or tab starts an inline comment (aws-config; botocore keeps it
//!   in the value). Text after a section's `]` is ignored if it is a comment.
//! - A line indented deeper than the key before it continues that key
//!   (Python's `configparser`): after an empty value the lines are
//!   sub-properties (`s3 =` then `  max_concurrent_requests = 20`) and belong
//!   to that key, never to the profile; after a non-empty value they continue
//!   it on a new line (so `max_attempts = 5` followed by an indented `6` is
//!   the invalid `"5\n6"`).
//! - Rejected, with the file, the line and the reason
//!   ([`ConfigError::ConfigFileSyntax`], [`SyntaxError`]), whichever profile
//!   the line is in — the whole file is refused, as botocore refuses it: a
//!   section declared twice, a key given twice in one section, a key before
//!   the first section, a header without `]`, a line that is neither a
//!   header, a comment nor `key = value`.
//! - The path: `AWS_CONFIG_FILE` gets `$NAME` / `${NAME}` expanded from the
//!   environment (unknown names stay as written), then a leading `~` (as
//!   botocore: `expandvars`, then `expanduser`). Paths and `HOME` are read as
//!   the OS holds them, so non-UTF-8 paths work.
//! - Only a regular file is read, up to [`MAX_CONFIG_FILE_BYTES`] (1 MiB): a
//!   directory, a FIFO (which would block), a device such as `/dev/zero`, or
//!   a larger file is refused with the path and the reason
//!   ([`ConfigError::ReadConfigFile`] around a [`RefusedFile`]).
//!
//! # Examples
//!
//! ```
//! use std::collections::HashMap;
//! use std::path::PathBuf;
//! use rebound_runtime::{RetryConfig, RetryMode};
//! use rebound_runtime::config::ConfigSource;
//!
//! let env = [("HOME", "/home/me"), ("AWS_MAX_ATTEMPTS", "5")];
//! let files = HashMap::from([(
//!     PathBuf::from("/home/me/.aws/config"),
//!     "[default]\nretry_mode = adaptive\nmax_attempts = 2\n".to_owned(),
//! )]);
//!
//! let resolved = RetryConfig::new().resolve_from(&env, &files)?;
//! assert_eq!(resolved.mode, RetryMode::Adaptive);
//! assert_eq!(resolved.max_attempts, Some(5)); // the environment beats the file
//! assert_eq!(
//!     resolved.sources.mode,
//!     Some(ConfigSource::ConfigFile {
//!         path: "/home/me/.aws/config".into(),
//!         profile: "default".into(),
//!         line: 2,
//!     })
//! );
//! # Ok::<(), rebound_runtime::ConfigError>(())
//! ```

mod behavior;
mod build;
mod env;
mod error;
mod files;
mod mode;
mod profile_file;

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::RetryBehavior;
pub use build::ConfiguredRetryStrategy;
pub use env::{Env, ProcessEnv};
pub use error::{ConfigError, ConfigSource, Problem, Setting};
pub use files::{FileSource, MAX_CONFIG_FILE_BYTES, OsFiles, RefusedFile};
pub use mode::{ParseRetryModeError, RetryMode};
pub use profile_file::SyntaxError;

use profile_file::ProfileFile;

const AWS_CONFIG_FILE: &str = "AWS_CONFIG_FILE";
const AWS_PROFILE: &str = "AWS_PROFILE";
const DEFAULT_PROFILE: &str = "default";

/// Retry settings set in code, and the resolution that fills in the rest
/// from the environment, the shared config file and the defaults.
///
/// See the [module docs](self) for the sources, their order and the accepted
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
/// use rebound_runtime::{RetryConfig, RetryMode};
///
/// let env = [("AWS_RETRY_MODE", "legacy"), ("AWS_MAX_ATTEMPTS", "4")];
/// let no_files = std::collections::BTreeMap::new();
/// let resolved = RetryConfig::new()
///     .mode(RetryMode::Adaptive) // code beats AWS_RETRY_MODE
///     .resolve_from(&env, &no_files)?;
/// assert_eq!(resolved.mode, RetryMode::Adaptive);
/// assert_eq!(resolved.max_attempts, Some(4));
/// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::RetryConfig;
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
    /// use rebound_runtime::{RetryConfig, RetryMode};
    ///
    /// let env = [("AWS_RETRY_MODE", "legacy")];
    /// let files = std::collections::BTreeMap::new();
    /// let resolved = RetryConfig::new().mode(RetryMode::Standard).resolve_from(&env, &files)?;
    /// assert_eq!(resolved.mode, RetryMode::Standard);
    /// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::RetryConfig;
    ///
    /// let files = std::collections::BTreeMap::new();
    /// let resolved = RetryConfig::new().max_attempts(1).resolve_from(&[("AWS_MAX_ATTEMPTS", "9")], &files)?;
    /// assert_eq!(resolved.max_attempts, Some(1));
    /// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::RetryConfig;
    /// use rebound_runtime::config::RetryBehavior;
    ///
    /// let files = std::collections::BTreeMap::new();
    /// let env = [("AWS_NEW_RETRIES_2026", "true")];
    /// let resolved = RetryConfig::new().behavior(RetryBehavior::V2_0).resolve_from(&env, &files)?;
    /// assert_eq!(resolved.behavior, RetryBehavior::V2_0);
    /// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::{RetryConfig, RetryMode};
    ///
    /// let files = BTreeMap::from([(
    ///     "/cfg".into(),
    ///     "[profile batch]\nretry_mode = adaptive\n".to_owned(),
    /// )]);
    /// let env = [("AWS_CONFIG_FILE", "/cfg"), ("AWS_PROFILE", "web")];
    /// let resolved = RetryConfig::new().profile("batch").resolve_from(&env, &files)?;
    /// assert_eq!(resolved.mode, RetryMode::Adaptive);
    /// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::RetryConfig;
    ///
    /// let files = BTreeMap::from([("/etc/aws".into(), "[default]\nmax_attempts = 6\n".to_owned())]);
    /// let resolved = RetryConfig::new().config_file("/etc/aws").resolve_from(&[("HOME", "/h")], &files)?;
    /// assert_eq!(resolved.max_attempts, Some(6));
    /// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// use rebound_runtime::{RetryConfig, RetryMode};
    ///
    /// // Set in code, so neither the environment nor ~/.aws/config decide.
    /// let resolved = RetryConfig::new()
    ///     .mode(RetryMode::Standard)
    ///     .max_attempts(3)
    ///     .behavior(rebound_runtime::config::RetryBehavior::V2_0)
    ///     .resolve()?;
    /// assert_eq!(resolved.max_attempts, Some(3));
    /// # Ok::<(), rebound_runtime::ConfigError>(())
    /// ```
    pub fn resolve(&self) -> Result<ResolvedRetryConfig, ConfigError> {
        self.resolve_from(&ProcessEnv, &OsFiles)
    }

    /// Resolves every setting from `env` and `files` instead of the process
    /// environment and the file system: the form tests use.
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
    /// use rebound_runtime::RetryConfig;
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
    pub fn resolve_from(
        &self,
        env: &(impl Env + ?Sized),
        files: &(impl FileSource + ?Sized),
    ) -> Result<ResolvedRetryConfig, ConfigError> {
        let mut mode = self.mode.map(|mode| (mode, ConfigSource::Code));
        let mut max_attempts = match self.max_attempts {
            Some(0) => {
                return Err(ConfigError::InvalidValue {
                    setting: Setting::MaxAttempts,
                    value: "0".to_owned(),
                    origin: ConfigSource::Code,
                    problem: Problem::Zero,
                });
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
            && let Some(profile) = self.load_profile(env, files)?
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
            sources: Sources {
                mode: mode_source,
                max_attempts: max_attempts_source,
                behavior: behavior_source,
            },
        })
    }

    /// Reads and parses the config file, if there is one.
    fn load_profile(
        &self,
        env: &(impl Env + ?Sized),
        files: &(impl FileSource + ?Sized),
    ) -> Result<Option<SelectedProfile>, ConfigError> {
        let home = non_empty_os(env, "HOME").or_else(|| non_empty_os(env, "USERPROFILE"));
        let path = match (&self.config_file, non_empty_os(env, AWS_CONFIG_FILE)) {
            (Some(path), _) => expand_home(path, home.as_deref()),
            // As botocore: `$VAR` and `${VAR}` first, then a leading `~`.
            (None, Some(path)) => expand_home(Path::new(&expand_vars(&path, env)), home.as_deref()),
            (None, None) => match &home {
                Some(home) => Path::new(home).join(".aws").join("config"),
                None => return Ok(None),
            },
        };
        let text = match files.read(&path) {
            Ok(Some(text)) if text.len() as u64 > MAX_CONFIG_FILE_BYTES => {
                let too_large = RefusedFile::TooLarge {
                    limit: MAX_CONFIG_FILE_BYTES,
                };
                return Err(ConfigError::ReadConfigFile {
                    path,
                    source: Arc::new(io::Error::new(io::ErrorKind::InvalidInput, too_large)),
                });
            }
            Ok(Some(text)) => text,
            Ok(None) => return Ok(None),
            Err(source) => {
                return Err(ConfigError::ReadConfigFile {
                    path,
                    source: Arc::new(source),
                });
            }
        };
        let from_env = match non_empty_os(env, AWS_PROFILE).map(OsString::into_string) {
            None => None,
            Some(Ok(name)) => Some(name),
            // A profile name that is not Unicode cannot name a profile of the
            // (UTF-8) file: say so rather than silently use the default.
            Some(Err(value)) if self.profile.is_none() => {
                return Err(ConfigError::NotUnicode {
                    variable: AWS_PROFILE,
                    value,
                });
            }
            Some(Err(_)) => None,
        };
        let profile = self
            .profile
            .clone()
            .or(from_env)
            .unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
        let file =
            ProfileFile::parse(&text).map_err(|(line, problem)| ConfigError::ConfigFileSyntax {
                path: path.clone(),
                line,
                problem,
            })?;
        Ok(Some(SelectedProfile {
            file,
            path,
            profile,
        }))
    }
}

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
/// use rebound_runtime::{RetryConfig, RetryMode};
///
/// let none = std::collections::BTreeMap::new();
/// let resolved = RetryConfig::new().resolve_from(&[("AWS_NEW_RETRIES_2026", "true")], &none)?;
/// assert_eq!(resolved.mode, RetryMode::Standard);
/// assert_eq!(resolved.max_attempts, None);
/// assert_eq!(resolved.effective_max_attempts(), Some(3));
/// assert_eq!(resolved.sources.mode, None); // the default
/// assert!(resolved.sources.behavior.is_some()); // the environment
/// # Ok::<(), rebound_runtime::ConfigError>(())
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
    /// Where each value came from.
    pub sources: Sources,
}

impl ResolvedRetryConfig {
    /// `max_attempts`, else the mode's default: 3 for standard and adaptive,
    /// `None` for legacy (the preset decides).
    ///
    /// # Examples
    ///
    /// ```
    /// use rebound_runtime::{RetryConfig, RetryMode};
    ///
    /// let nothing: [(&str, &str); 0] = [];
    /// let legacy = RetryConfig::new().mode(RetryMode::Legacy).resolve_from(&nothing, &nothing)?;
    /// assert_eq!(legacy.effective_max_attempts(), None);
    /// # Ok::<(), rebound_runtime::ConfigError>(())
    /// ```
    #[must_use]
    pub const fn effective_max_attempts(&self) -> Option<u32> {
        match self.max_attempts {
            Some(n) => Some(n),
            None => self.mode.default_max_attempts(),
        }
    }
}

/// Where each resolved value came from; `None` means the built-in default.
///
/// # Examples
///
/// ```
/// use rebound_runtime::RetryConfig;
/// use rebound_runtime::config::ConfigSource;
///
/// let none = std::collections::BTreeMap::new();
/// let resolved = RetryConfig::new().resolve_from(&[("AWS_RETRY_MODE", "legacy")], &none)?;
/// assert_eq!(resolved.sources.mode, Some(ConfigSource::Env { var: "AWS_RETRY_MODE" }));
/// assert_eq!(resolved.sources.max_attempts, None);
/// # Ok::<(), rebound_runtime::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sources {
    /// Of [`ResolvedRetryConfig::mode`].
    pub mode: Option<ConfigSource>,
    /// Of [`ResolvedRetryConfig::max_attempts`].
    pub max_attempts: Option<ConfigSource>,
    /// Of [`ResolvedRetryConfig::behavior`].
    pub behavior: Option<ConfigSource>,
}

/// A value and where it was found.
type Found<T> = Option<(T, ConfigSource)>;

/// The parsed config file and the profile resolution reads from it.
#[derive(Debug)]
struct SelectedProfile {
    file: ProfileFile,
    path: PathBuf,
    profile: String,
}

impl SelectedProfile {
    /// Reads and parses `setting` from the profile, if it is there.
    fn setting<T>(
        &self,
        setting: Setting,
        parse: impl FnOnce(&str) -> Result<T, Problem>,
    ) -> Result<Found<T>, ConfigError> {
        let Some(key) = setting.profile_key() else {
            return Ok(None);
        };
        let Some(property) = self.file.get(&self.profile, key) else {
            return Ok(None);
        };
        let origin = ConfigSource::ConfigFile {
            path: self.path.clone(),
            profile: self.profile.clone(),
            line: property.line,
        };
        checked(setting, &property.value, origin, parse).map(Some)
    }
}

/// Reads and parses `setting` from its environment variable, if set.
fn from_env<T>(
    env: &(impl Env + ?Sized),
    setting: Setting,
    parse: impl FnOnce(&str) -> Result<T, Problem>,
) -> Result<Found<T>, ConfigError> {
    let var = setting.env_var();
    match env.var(var) {
        Some(value) => checked(setting, &value, ConfigSource::Env { var }, parse).map(Some),
        None => Ok(None),
    }
}

/// Parses `value`, turning a [`Problem`] into a [`ConfigError`].
fn checked<T>(
    setting: Setting,
    value: &str,
    origin: ConfigSource,
    parse: impl FnOnce(&str) -> Result<T, Problem>,
) -> Result<(T, ConfigSource), ConfigError> {
    match parse(value) {
        Ok(parsed) => Ok((parsed, origin)),
        Err(problem) => Err(ConfigError::InvalidValue {
            setting,
            value: value.to_owned(),
            origin,
            problem,
        }),
    }
}

/// `max_attempts`: digits only, 1 to `u32::MAX`.
fn parse_max_attempts(value: &str) -> Result<u32, Problem> {
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if value.is_empty() {
        Err(Problem::Empty)
    } else if value.trim() != value {
        Err(Problem::SurroundingWhitespace)
    } else if value.strip_prefix('-').is_some_and(all_digits) {
        Err(Problem::Negative)
    } else if !all_digits(value) {
        Err(Problem::NotANumber)
    } else {
        match value.parse::<u32>() {
            Ok(0) => Err(Problem::Zero),
            Ok(n) => Ok(n),
            // Only digits, so the only way to fail is to overflow.
            Err(_) => Err(Problem::TooLarge),
        }
    }
}

/// The variable's value, unless it is unset or empty.
fn non_empty_os(env: &(impl Env + ?Sized), name: &str) -> Option<OsString> {
    env.var_os(name).filter(|value| !value.is_empty())
}

/// Expands `$NAME` and `${NAME}` (`NAME` of ASCII letters, digits and `_`)
/// from `env`, leaving unknown variables and anything else as written:
/// Python's `os.path.expandvars`, which botocore applies to
/// `AWS_CONFIG_FILE`. Works on the OS bytes, so non-UTF-8 paths and values
/// pass through unchanged (on non-Unix systems only UTF-8 paths expand).
fn expand_vars(path: &OsStr, env: &(impl Env + ?Sized)) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
        OsString::from_vec(expand_var_bytes(path.as_bytes(), |name| {
            let name = std::str::from_utf8(name).ok()?;
            env.var_os(name).map(OsString::into_vec)
        }))
    }
    #[cfg(not(unix))]
    {
        match path.to_str() {
            Some(text) => {
                let bytes = expand_var_bytes(text.as_bytes(), |name| {
                    let name = std::str::from_utf8(name).ok()?;
                    env.var(name).map(String::into_bytes)
                });
                OsString::from(String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned()))
            }
            None => path.to_owned(),
        }
    }
}

/// The byte-level core of [`expand_vars`].
fn expand_var_bytes(path: &[u8], lookup: impl Fn(&[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        if path[i] == b'$' {
            let braced = path.get(i + 1) == Some(&b'{');
            let start = i + 1 + usize::from(braced);
            let len = path[start..].iter().take_while(|b| is_name(b)).count();
            let end = start + len;
            let closed = !braced || path.get(end) == Some(&b'}');
            if len > 0 && closed {
                let after = end + usize::from(braced);
                if let Some(value) = lookup(&path[start..end]) {
                    out.extend_from_slice(&value);
                    i = after;
                    continue;
                }
            }
        }
        out.push(path[i]);
        i += 1;
    }
    out
}

/// Replaces a leading `~` (alone, or before a separator) with `home`.
fn expand_home(path: &Path, home: Option<&OsStr>) -> PathBuf {
    let Some(home) = home else {
        return path.to_path_buf();
    };
    match path.strip_prefix("~") {
        Ok(rest) => Path::new(home).join(rest),
        Err(_) => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_vars_like_python() {
        let env = [("A", "/x"), ("B_2", "y"), ("EMPTY", "")];
        let expand = |path: &str| expand_vars(OsStr::new(path), &env);
        assert_eq!(expand("$A/c"), "/x/c");
        assert_eq!(expand("${A}/${B_2}"), "/x/y");
        assert_eq!(expand("$A$B_2"), "/xy");
        assert_eq!(expand("$UNKNOWN/c"), "$UNKNOWN/c");
        assert_eq!(expand("${A"), "${A");
        assert_eq!(expand("$"), "$");
        assert_eq!(expand("a$-b"), "a$-b");
        assert_eq!(expand("$EMPTY/c"), "/c");
    }

    #[test]
    fn max_attempts_syntax() {
        assert_eq!(parse_max_attempts("1"), Ok(1));
        assert_eq!(parse_max_attempts("007"), Ok(7));
        assert_eq!(parse_max_attempts("4294967295"), Ok(u32::MAX));
        let rejected = [
            ("", Problem::Empty),
            (" 3", Problem::SurroundingWhitespace),
            ("3\t", Problem::SurroundingWhitespace),
            ("\u{a0}3", Problem::SurroundingWhitespace),
            ("0", Problem::Zero),
            ("000", Problem::Zero),
            ("-1", Problem::Negative),
            ("-0", Problem::Negative),
            ("+3", Problem::NotANumber),
            ("-", Problem::NotANumber),
            ("3.0", Problem::NotANumber),
            ("1_000", Problem::NotANumber),
            ("0x10", Problem::NotANumber),
            ("three", Problem::NotANumber),
            ("3 4", Problem::NotANumber),
            ("٣", Problem::NotANumber),
            ("4294967296", Problem::TooLarge),
            ("99999999999999999999999", Problem::TooLarge),
        ];
        for (input, problem) in rejected {
            assert_eq!(parse_max_attempts(input), Err(problem), "{input:?}");
        }
    }

    #[test]
    fn tilde_expansion() {
        let home = Some(OsStr::new("/h"));
        assert_eq!(expand_home(Path::new("~/c"), home), PathBuf::from("/h/c"));
        assert_eq!(expand_home(Path::new("~"), home), PathBuf::from("/h"));
        assert_eq!(expand_home(Path::new("~x/c"), home), PathBuf::from("~x/c"));
        assert_eq!(
            expand_home(Path::new("/a/~/c"), home),
            PathBuf::from("/a/~/c")
        );
        assert_eq!(expand_home(Path::new("~/c"), None), PathBuf::from("~/c"));
    }
}
