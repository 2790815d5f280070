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
//!   ([`ConfigError::ConfigFileSyntax`]), whichever profile the line is in —
//!   the whole file is refused, as botocore refuses it: a section declared
//!   twice, a key given twice in one section, a key before the first
//!   section, a header without `]`, a line that is neither a header, a
//!   comment nor `key = value`.
//! - The path: `AWS_CONFIG_FILE` gets `$NAME` / `${NAME}` expanded from the
//!   environment (unknown names stay as written), then a leading `~` (as
//!   botocore: `expandvars`, then `expanduser`). Paths and `HOME` are read as
//!   the OS holds them, so non-UTF-8 paths work.
//! - Only a regular file is read, up to 1 MiB (1048576 bytes): a directory,
//!   a FIFO (which would block), a device such as `/dev/zero`, or a larger
//!   file is refused with the path and the reason
//!   ([`ConfigError::ReadConfigFile`], whose I/O error says why).
//!
//! # Examples
//!
//! ```
//! use std::collections::HashMap;
//! use std::path::PathBuf;
//! use rebound_runtime::config::{RetryConfig, RetryMode};
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
//!     resolved.mode_source,
//!     Some(ConfigSource::ConfigFile {
//!         path: "/home/me/.aws/config".into(),
//!         profile: "default".into(),
//!         line: 2,
//!     })
//! );
//! # Ok::<(), rebound_runtime::config::ConfigError>(())
//! ```

// `ConfigError::InvalidValue` carries its setting, value, origin, expected
// text and reason as plain public fields: 128 bytes, at clippy's threshold.
// Resolution runs once per client and fails rarely; the size is the price of
// fields a caller can match on without crate-private types.
#![allow(clippy::result_large_err)]

mod behavior;
mod build;
// `pub(crate)` so that `crate::internals` can re-export the test seam's
// traits, `Env` and `FileSource`, which are not part of this module's API.
pub(crate) mod env;
mod error;
pub(crate) mod files;
mod mode;
mod parse;
mod paths;
mod profile_file;
mod resolved;
mod retry_config;
mod selected_profile;

use crate::standard::RetryBehavior;
pub use build::ConfiguredRetryStrategy;
pub use error::{ConfigError, ConfigSource};
pub use mode::RetryMode;
pub use resolved::ResolvedRetryConfig;
pub use retry_config::RetryConfig;
