//! Choosing the shared config file and the profile in it (code, then
//! `AWS_CONFIG_FILE` / `AWS_PROFILE`, then `~/.aws/config` and `default`),
//! reading and parsing the file, and looking settings up in the chosen
//! profile: everything resolution needs from the file, in one place.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::env::Env;
use super::error::{Problem, Setting};
use super::files::{FileSource, MAX_CONFIG_FILE_BYTES, RefusedFile};
use super::parse::{Found, checked};
use super::paths::{expand_home, expand_vars};
use super::profile_file::ProfileFile;
use super::{ConfigError, ConfigSource};

const AWS_CONFIG_FILE: &str = "AWS_CONFIG_FILE";
const AWS_PROFILE: &str = "AWS_PROFILE";
const DEFAULT_PROFILE: &str = "default";

/// The parsed config file and the profile resolution reads from it.
#[derive(Debug)]
pub(super) struct SelectedProfile {
    file: ProfileFile,
    path: PathBuf,
    profile: String,
}

impl SelectedProfile {
    /// Reads and parses `setting` from the profile, if it is there.
    pub(super) fn setting<T>(
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

    /// Reads and parses the config file, if there is one.
    ///
    /// `config_file` and `profile` are the ones set in code, if any.
    pub(super) fn load(
        config_file: Option<&Path>,
        profile: Option<&str>,
        env: &(impl Env + ?Sized),
        files: &(impl FileSource + ?Sized),
    ) -> Result<Option<SelectedProfile>, ConfigError> {
        let home = non_empty_os(env, "HOME").or_else(|| non_empty_os(env, "USERPROFILE"));
        let path = match (config_file, non_empty_os(env, AWS_CONFIG_FILE)) {
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
            Some(Err(value)) if profile.is_none() => {
                return Err(ConfigError::NotUnicode {
                    variable: AWS_PROFILE,
                    value,
                });
            }
            Some(Err(_)) => None,
        };
        let profile = profile
            .map(str::to_owned)
            .or(from_env)
            .unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
        let file =
            ProfileFile::parse(&text).map_err(|(line, problem)| ConfigError::ConfigFileSyntax {
                path: path.clone(),
                line,
                reason: problem.to_string(),
            })?;
        Ok(Some(SelectedProfile {
            file,
            path,
            profile,
        }))
    }
}

/// The variable's value, unless it is unset or empty.
fn non_empty_os(env: &(impl Env + ?Sized), name: &str) -> Option<OsString> {
    env.var_os(name).filter(|value| !value.is_empty())
}
