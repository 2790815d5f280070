//! Every invalid value, from code, from the environment and from the shared
//! config file: the error names the source (with the file's path, profile and
//! line), the key, the value and what is valid.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use rebound_runtime::config::ConfigSource;
use rebound_runtime::config::{ConfigError, RetryConfig};
use rebound_runtime::internals::FileSource;

const CONFIG: &str = "/cfg/aws-config";

/// The settings as errors name them, and what a valid value of each is.
#[derive(Debug, Clone, Copy)]
struct Setting {
    name: &'static str,
    expected: &'static str,
}

const MAX_ATTEMPTS: Setting = Setting {
    name: "max_attempts",
    expected: "a whole number from 1 to 4294967295",
};
const RETRY_MODE: Setting = Setting {
    name: "retry_mode",
    expected: "one of legacy, standard, adaptive, in any ASCII case",
};
const BEHAVIOR: Setting = Setting {
    name: "AWS_NEW_RETRIES_2026",
    expected: "true or false, in lowercase",
};

/// What is wrong with a value: the reason each error gives, word for word.
const EMPTY: &str = "the value is empty";
const SURROUNDING_WHITESPACE: &str = "remove the surrounding whitespace";
const ZERO: &str = "the count includes the first attempt, so 0 would allow none";
const NEGATIVE: &str = "a negative count is meaningless";
const NOT_A_NUMBER: &str = "only the digits 0-9 are allowed";
const TOO_LARGE: &str = "the value does not fit in 32 bits";
const UNKNOWN_MODE: &str = "not a retry mode";
const NOT_A_BOOLEAN: &str = "not a boolean the other AWS SDKs recognise";

/// Invalid `max_attempts` values and what is wrong with them.
const BAD_MAX_ATTEMPTS: &[(&str, &str)] = &[
    ("0", ZERO),
    ("00", ZERO),
    ("-1", NEGATIVE),
    ("-20", NEGATIVE),
    ("three", NOT_A_NUMBER),
    ("3.0", NOT_A_NUMBER),
    ("+3", NOT_A_NUMBER),
    ("1e3", NOT_A_NUMBER),
    ("", EMPTY),
    ("4294967296", TOO_LARGE),
    ("18446744073709551616", TOO_LARGE),
    (" 3", SURROUNDING_WHITESPACE),
    ("3 ", SURROUNDING_WHITESPACE),
    ("\t3\n", SURROUNDING_WHITESPACE),
];

/// Invalid `retry_mode` values.
const BAD_RETRY_MODES: &[(&str, &str)] = &[
    ("", EMPTY),
    ("fast", UNKNOWN_MODE),
    ("standard2", UNKNOWN_MODE),
    ("std", UNKNOWN_MODE),
    (" standard", SURROUNDING_WHITESPACE),
    ("adaptive\n", SURROUNDING_WHITESPACE),
];

fn expect_invalid(err: &ConfigError, setting: Setting, value: &str, reason: &str) {
    match err {
        ConfigError::InvalidValue {
            setting: s,
            value: v,
            expected: e,
            reason: r,
            ..
        } => {
            assert_eq!(
                (*s, v.as_str(), *e, *r),
                (setting.name, value, setting.expected, reason),
                "{err}"
            );
        }
        other => panic!("expected InvalidValue, got {other:?}"),
    }
    assert_eq!(err.setting(), Some(setting.name));
    assert_eq!(err.reason(), Some(reason));
    let message = err.to_string();
    assert!(message.contains(setting.name), "{message}");
    assert!(message.contains(&format!("{value:?}")), "{message}");
    assert!(message.contains(setting.expected), "{message}");
    assert!(message.ends_with(&format!("({reason})")), "{message}");
}

#[test]
fn max_attempts_from_env() {
    let no_files = BTreeMap::<PathBuf, String>::new();
    for &(value, reason) in BAD_MAX_ATTEMPTS {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_MAX_ATTEMPTS", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, MAX_ATTEMPTS, value, reason);
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
    for &(value, reason) in BAD_RETRY_MODES {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_RETRY_MODE", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, RETRY_MODE, value, reason);
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
        ("", EMPTY),
        (" true", SURROUNDING_WHITESPACE),
        ("TRUE", NOT_A_BOOLEAN),
        ("1", NOT_A_BOOLEAN),
        ("yes", NOT_A_BOOLEAN),
    ];
    for (value, reason) in cases {
        let err = RetryConfig::new()
            .resolve_from(&[("AWS_NEW_RETRIES_2026", value)], &no_files)
            .unwrap_err();
        expect_invalid(&err, BEHAVIOR, value, reason);
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
    let mut cases: Vec<(&str, &str)> = BAD_MAX_ATTEMPTS
        .iter()
        .copied()
        .filter(|(value, _)| value.trim() == *value)
        .collect();
    cases.extend([
        ("\u{a0}3", SURROUNDING_WHITESPACE),
        ("3\u{c}", SURROUNDING_WHITESPACE),
        ("\u{3000}3", SURROUNDING_WHITESPACE),
        ("3 4", NOT_A_NUMBER),
    ]);
    for (value, reason) in cases {
        let err = from_file("max_attempts", value);
        expect_invalid(&err, MAX_ATTEMPTS, value, reason);
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
        ("", EMPTY),
        ("fast", UNKNOWN_MODE),
        ("standard2", UNKNOWN_MODE),
        ("\u{a0}standard", SURROUNDING_WHITESPACE),
        ("standard adaptive", UNKNOWN_MODE),
    ];
    for (value, reason) in cases {
        let err = from_file("retry_mode", value);
        expect_invalid(&err, RETRY_MODE, value, reason);
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
    expect_invalid(&err, RETRY_MODE, "ADAPTIVE;x", UNKNOWN_MODE);

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
    expect_invalid(&err, MAX_ATTEMPTS, "5\n6", NOT_A_NUMBER);
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
    expect_invalid(&err, MAX_ATTEMPTS, "", EMPTY);
}

#[test]
fn zero_from_code() {
    let err = RetryConfig::new()
        .max_attempts(0)
        .resolve_from(&[("AWS_MAX_ATTEMPTS", "3")], &BTreeMap::new())
        .unwrap_err();
    expect_invalid(&err, MAX_ATTEMPTS, "0", ZERO);
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
    assert_eq!(err.reason(), None);
    assert_eq!(err.origin(), None);
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

#[test]
fn parsing_a_retry_mode_reports_a_value_set_in_code() {
    for &(value, reason) in BAD_RETRY_MODES {
        let err = value
            .parse::<rebound_runtime::config::RetryMode>()
            .unwrap_err();
        expect_invalid(&err, RETRY_MODE, value, reason);
        assert_eq!(err.origin(), Some(&ConfigSource::Code));
    }
    let err = "fast"
        .parse::<rebound_runtime::config::RetryMode>()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid retry_mode "fast" set in code: expected one of legacy, standard, adaptive, in any ASCII case (not a retry mode)"#
    );
}
