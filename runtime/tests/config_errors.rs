//! Every invalid value, from code, from the environment and from the shared
//! config file: the error names the source (with the file's path, profile and
//! line), the key, the value and what is valid.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use rebound_runtime::config::{ConfigError, RetryConfig};
use rebound_runtime::config::{ConfigSource, FileSource, Problem, Setting};

const CONFIG: &str = "/cfg/aws-config";

/// Invalid `max_attempts` values and what is wrong with them.
const BAD_MAX_ATTEMPTS: &[(&str, Problem)] = &[
    ("0", Problem::Zero),
    ("00", Problem::Zero),
    ("-1", Problem::Negative),
    ("-20", Problem::Negative),
    ("three", Problem::NotANumber),
    ("3.0", Problem::NotANumber),
    ("+3", Problem::NotANumber),
    ("1e3", Problem::NotANumber),
    ("", Problem::Empty),
    ("4294967296", Problem::TooLarge),
    ("18446744073709551616", Problem::TooLarge),
    (" 3", Problem::SurroundingWhitespace),
    ("3 ", Problem::SurroundingWhitespace),
    ("\t3\n", Problem::SurroundingWhitespace),
];

/// Invalid `retry_mode` values.
const BAD_RETRY_MODES: &[(&str, Problem)] = &[
    ("", Problem::Empty),
    ("fast", Problem::UnknownMode),
    ("standard2", Problem::UnknownMode),
    ("std", Problem::UnknownMode),
    (" standard", Problem::SurroundingWhitespace),
    ("adaptive\n", Problem::SurroundingWhitespace),
];

fn expect_invalid(err: &ConfigError, setting: Setting, value: &str, problem: Problem) {
    match err {
        ConfigError::InvalidValue {
            setting: s,
            value: v,
            problem: p,
            ..
        } => {
            assert_eq!((*s, v.as_str(), *p), (setting, value, problem), "{err}");
        }
        other => panic!("expected InvalidValue, got {other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains(setting.name()), "{message}");
    assert!(message.contains(&format!("{value:?}")), "{message}");
    assert!(message.contains(setting.expected()), "{message}");
}

#[test]
fn max_attempts_from_env() {
    let no_files = BTreeMap::<PathBuf, String>::new();
    for &(value, problem) in BAD_MAX_ATTEMPTS {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_MAX_ATTEMPTS", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, Setting::MaxAttempts, value, problem);
        assert_eq!(
            err.origin(),
            Some(&ConfigSource::Env {
                var: "AWS_MAX_ATTEMPTS"
            })
        );
        assert!(
            err.to_string()
                .contains("in environment variable AWS_MAX_ATTEMPTS:")
        );
    }
}

#[test]
fn retry_mode_from_env() {
    let no_files = BTreeMap::<PathBuf, String>::new();
    for &(value, problem) in BAD_RETRY_MODES {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_RETRY_MODE", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, Setting::RetryMode, value, problem);
        assert_eq!(
            err.origin(),
            Some(&ConfigSource::Env {
                var: "AWS_RETRY_MODE"
            })
        );
    }
}

#[test]
fn behavior_flag_from_env() {
    let no_files = BTreeMap::<PathBuf, String>::new();
    let cases = [
        ("", Problem::Empty),
        (" true", Problem::SurroundingWhitespace),
        ("TRUE", Problem::NotABoolean),
        ("1", Problem::NotABoolean),
        ("yes", Problem::NotABoolean),
    ];
    for (value, problem) in cases {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_NEW_RETRIES_2026", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, Setting::Behavior, value, problem);
        assert!(
            err.to_string()
                .contains("in environment variable AWS_NEW_RETRIES_2026:")
        );
    }
}

/// Resolves with the config file holding `text` as the `dev` profile, its
/// bad key on line 4.
fn from_file(key: &str, value: &str) -> ConfigError {
    let text = format!(
        "# team settings\n[profile dev]\nregion = eu-west-1\n{key} = {value}\n[default]\n{key} = 2\n"
    );
    let files = BTreeMap::from([(PathBuf::from(CONFIG), text)]);
    RetryConfig::new()
        .resolve_from(
            &[("AWS_CONFIG_FILE", CONFIG), ("AWS_PROFILE", "dev")],
            &files,
        )
        .unwrap_err()
}

fn dev_line_4() -> ConfigSource {
    ConfigSource::ConfigFile {
        path: CONFIG.into(),
        profile: "dev".into(),
        line: 4,
    }
}

#[test]
fn max_attempts_from_file_with_line() {
    // Spaces and tabs around a value belong to the file format, so padding
    // in a file is any other whitespace; the rest are written as they are.
    let mut cases: Vec<(&str, Problem)> = BAD_MAX_ATTEMPTS
        .iter()
        .copied()
        .filter(|(value, _)| value.trim() == *value)
        .collect();
    cases.extend([
        ("\u{a0}3", Problem::SurroundingWhitespace),
        ("3\u{c}", Problem::SurroundingWhitespace),
        ("\u{3000}3", Problem::SurroundingWhitespace),
        ("3 4", Problem::NotANumber),
    ]);
    for (value, problem) in cases {
        let err = from_file("max_attempts", value);
        expect_invalid(&err, Setting::MaxAttempts, value, problem);
        assert_eq!(err.origin(), Some(&dev_line_4()), "{value:?}");
        assert!(
            err.to_string()
                .contains(r#"in /cfg/aws-config, profile "dev", line 4:"#),
            "{err}"
        );
    }
}

#[test]
fn retry_mode_from_file_with_line() {
    let cases = [
        ("", Problem::Empty),
        ("fast", Problem::UnknownMode),
        ("standard2", Problem::UnknownMode),
        ("\u{a0}standard", Problem::SurroundingWhitespace),
        ("standard adaptive", Problem::UnknownMode),
    ];
    for (value, problem) in cases {
        let err = from_file("retry_mode", value);
        expect_invalid(&err, Setting::RetryMode, value, problem);
        assert_eq!(err.origin(), Some(&dev_line_4()), "{value:?}");
    }
}

#[test]
fn spaces_tabs_and_comments_around_file_values_are_format() {
    let files = BTreeMap::from([(
        PathBuf::from(CONFIG),
        "[default]\nmax_attempts =\t 4 \t# four\nretry_mode=  ADAPTIVE;x\n".to_owned(),
    )]);
    // `ADAPTIVE;x`: a `;` without a space before it is part of the value.
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_CONFIG_FILE", CONFIG)], &files)
        .unwrap_err();
    expect_invalid(&err, Setting::RetryMode, "ADAPTIVE;x", Problem::UnknownMode);

    let files = BTreeMap::from([(
        PathBuf::from(CONFIG),
        "[default]\nmax_attempts =\t 4 \t# four\nretry_mode=  ADAPTIVE ;x\n".to_owned(),
    )]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("AWS_CONFIG_FILE", CONFIG)], &files)
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(4));
    assert_eq!(resolved.mode, rebound_runtime::config::RetryMode::Adaptive);
}

#[test]
fn continuation_line_makes_an_invalid_value() {
    let files = BTreeMap::from([(
        PathBuf::from(CONFIG),
        "[default]\r\nmax_attempts = 5\r\n  6\r\n".to_owned(),
    )]);
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_CONFIG_FILE", CONFIG)], &files)
        .unwrap_err();
    expect_invalid(&err, Setting::MaxAttempts, "5\n6", Problem::NotANumber);
}

#[test]
fn empty_value_with_sub_properties_is_empty() {
    let files = BTreeMap::from([(
        PathBuf::from(CONFIG),
        "[default]\nmax_attempts =\n  s3 = 4\n".to_owned(),
    )]);
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_CONFIG_FILE", CONFIG)], &files)
        .unwrap_err();
    expect_invalid(&err, Setting::MaxAttempts, "", Problem::Empty);
}

#[test]
fn zero_from_code() {
    let err = RetryConfig::new()
        .max_attempts(0)
        .resolve_from(&[("AWS_MAX_ATTEMPTS", "3")], &BTreeMap::new())
        .unwrap_err();
    expect_invalid(&err, Setting::MaxAttempts, "0", Problem::Zero);
    assert_eq!(err.origin(), Some(&ConfigSource::Code));
    assert_eq!(
        err.to_string(),
        r#"invalid max_attempts "0" set in code: expected a whole number from 1 to 4294967295 (the count includes the first attempt, so 0 would allow none)"#
    );
}

#[test]
fn full_messages() {
    let err = from_file("max_attempts", "-1");
    assert_eq!(
        err.to_string(),
        r#"invalid max_attempts "-1" in /cfg/aws-config, profile "dev", line 4: expected a whole number from 1 to 4294967295 (a negative count is meaningless)"#
    );
    let err = from_file("retry_mode", "fast");
    assert_eq!(
        err.to_string(),
        r#"invalid retry_mode "fast" in /cfg/aws-config, profile "dev", line 4: expected one of legacy, standard, adaptive, in any ASCII case (not a retry mode)"#
    );
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_MAX_ATTEMPTS", " 3")], &BTreeMap::new())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid max_attempts " 3" in environment variable AWS_MAX_ATTEMPTS: expected a whole number from 1 to 4294967295 (remove the surrounding whitespace)"#
    );
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_MAX_ATTEMPTS", "4294967296")], &BTreeMap::new())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid max_attempts "4294967296" in environment variable AWS_MAX_ATTEMPTS: expected a whole number from 1 to 4294967295 (the value does not fit in 32 bits)"#
    );
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_NEW_RETRIES_2026", "TRUE")], &BTreeMap::new())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid AWS_NEW_RETRIES_2026 "TRUE" in environment variable AWS_NEW_RETRIES_2026: expected true or false, in lowercase (not a boolean the other AWS SDKs recognise)"#
    );
}

/// A file system where every read fails.
#[derive(Debug)]
struct Unreadable;

impl FileSource for Unreadable {
    fn read(&self, _: &Path) -> io::Result<Option<String>> {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, "denied"))
    }
}

#[test]
fn unreadable_file_is_an_error_naming_the_path() {
    let err = RetryConfig::new()
        .resolve_from(&[("AWS_CONFIG_FILE", CONFIG)], &Unreadable)
        .unwrap_err();
    assert!(matches!(&err, ConfigError::ReadConfigFile { path, .. } if path == Path::new(CONFIG)));
    assert_eq!(
        err.to_string(),
        "cannot read the AWS shared config file /cfg/aws-config: denied"
    );
    assert!(std::error::Error::source(&err).is_some());
    assert_eq!(err.setting(), None);
}

#[test]
fn file_is_not_read_when_code_and_env_decide() {
    // `Unreadable` would fail any read: none happens.
    let resolved = RetryConfig::new()
        .mode(rebound_runtime::config::RetryMode::Standard)
        .resolve_from(
            &[("AWS_CONFIG_FILE", CONFIG), ("AWS_MAX_ATTEMPTS", "2")],
            &Unreadable,
        )
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(2));
}
