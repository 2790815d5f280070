//! The shared config file: which file, which profile, and what real files
//! contain that must not get in the way.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rebound_runtime::config::{ConfigError, ConfigSource};
use rebound_runtime::config::{RetryConfig, RetryMode};

fn files(entries: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
    entries
        .iter()
        .map(|(path, text)| (PathBuf::from(path), (*text).to_owned()))
        .collect()
}

const PROFILES: &str = "\
[default]
retry_mode = legacy
max_attempts = 1

[profile dev]
retry_mode = adaptive
max_attempts = 2

[profile default]
max_attempts = 9
";

#[test]
fn aws_profile_selects_the_profile() {
    let fs = files(&[("/h/.aws/config", PROFILES)]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "dev")], &fs)
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Adaptive);
    assert_eq!(resolved.max_attempts, Some(2));
    assert_eq!(
        resolved.max_attempts_source,
        Some(ConfigSource::ConfigFile {
            path: "/h/.aws/config".into(),
            profile: "dev".into(),
            line: 7,
        })
    );
}

#[test]
fn profile_default_wins_over_bare_default() {
    // `[profile default]` replaces `[default]` entirely (aws-config's rule):
    // its max_attempts is used and `[default]`'s retry_mode is not.
    let fs = files(&[("/h/.aws/config", PROFILES)]);
    for env in [
        &[("HOME", "/h")][..],
        &[("HOME", "/h"), ("AWS_PROFILE", "")][..],
        &[("HOME", "/h"), ("AWS_PROFILE", "default")][..],
    ] {
        let resolved = RetryConfig::new().resolve_from(env, &fs).unwrap();
        assert_eq!(resolved.max_attempts, Some(9));
        assert_eq!(resolved.mode, RetryMode::Standard);
        assert_eq!(resolved.mode_source, None);
    }
}

#[test]
fn bare_default_is_the_default_profile() {
    let fs = files(&[("/h/.aws/config", "[default]\nretry_mode = legacy\n")]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h")], &fs)
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Legacy);
}

#[test]
fn code_profile_beats_aws_profile() {
    let fs = files(&[("/h/.aws/config", PROFILES)]);
    let resolved = RetryConfig::new()
        .profile("dev")
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "default")], &fs)
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(2));
}

#[test]
fn profile_names_are_case_sensitive_and_need_the_prefix() {
    let text = "[profile Dev]\nmax_attempts = 3\n[ops]\nmax_attempts = 4\n";
    let fs = files(&[("/h/.aws/config", text)]);
    let resolve = |profile: &str| {
        RetryConfig::new()
            .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", profile)], &fs)
            .unwrap()
            .max_attempts
    };
    assert_eq!(resolve("Dev"), Some(3));
    assert_eq!(resolve("dev"), None);
    // A bare `[ops]` is not a profile in the config file (only in credentials).
    assert_eq!(resolve("ops"), None);
}

#[test]
fn missing_profile_means_defaults() {
    let fs = files(&[("/h/.aws/config", PROFILES)]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "nope")], &fs)
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Standard);
    assert_eq!(resolved.max_attempts, None);
}

#[test]
fn aws_config_file_overrides_the_home_location() {
    let fs = files(&[
        ("/h/.aws/config", "[default]\nmax_attempts = 1\n"),
        ("/etc/aws.ini", "[default]\nmax_attempts = 5\n"),
    ]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_CONFIG_FILE", "/etc/aws.ini")], &fs)
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(5));
    assert_eq!(
        resolved.max_attempts_source,
        Some(ConfigSource::ConfigFile {
            path: "/etc/aws.ini".into(),
            profile: "default".into(),
            line: 2,
        })
    );

    // Code beats AWS_CONFIG_FILE; an empty AWS_CONFIG_FILE counts as unset.
    let resolved = RetryConfig::new()
        .config_file("/h/.aws/config")
        .resolve_from(&[("HOME", "/h"), ("AWS_CONFIG_FILE", "/etc/aws.ini")], &fs)
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(1));
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_CONFIG_FILE", "")], &fs)
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(1));
}

#[test]
fn tilde_and_home_variables() {
    let fs = files(&[
        ("/h/custom", "[default]\nmax_attempts = 6\n"),
        ("/users/me/.aws/config", "[default]\nmax_attempts = 7\n"),
    ]);
    let attempts = |env: &[(&str, &str)]| {
        RetryConfig::new()
            .resolve_from(env, &fs)
            .unwrap()
            .max_attempts
    };
    assert_eq!(
        attempts(&[("HOME", "/h"), ("AWS_CONFIG_FILE", "~/custom")]),
        Some(6)
    );
    // USERPROFILE when HOME is unset or empty (Windows).
    assert_eq!(attempts(&[("USERPROFILE", "/users/me")]), Some(7));
    assert_eq!(
        attempts(&[("HOME", ""), ("USERPROFILE", "/users/me")]),
        Some(7)
    );
    // No home and no AWS_CONFIG_FILE: no file, defaults.
    assert_eq!(attempts(&[]), None);
}

#[test]
fn missing_file_means_defaults() {
    let resolved = RetryConfig::new()
        .resolve_from(
            &[("HOME", "/h"), ("AWS_CONFIG_FILE", "/does/not/exist")],
            &BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Standard);
    assert_eq!(resolved.max_attempts, None);
}

// The real file system (`OsFiles`, crate-private) is tested inside the
// crate: `config::files::tests` reads a real file, non-UTF-8 `HOME` and
// `AWS_CONFIG_FILE` paths, and refuses FIFOs, devices, directories and files
// over the 1 MiB limit.

/// A config file with what real ones contain: comments of both kinds (full
/// line, indented, inline), SSO sessions, services sections, sub-properties,
/// plugin sections, odd spacing, CRLF line ends and unrelated invalid values.
const REALISTIC: &str = "# ~/.aws/config written by `aws configure sso` and by hand\r
; an ini-style comment\r
[default]\r
region = us-east-1\r
output = json\r
\r
[sso-session corp]\r
sso_start_url = https://corp.awsapps.com/start#/\r
sso_region = us-east-1\r
sso_registration_scopes = sso:account:access\r
max_attempts = not-a-number\r
\r
[profile dev]   # the team profile\r
sso_session = corp\r
sso_account_id = 111122223333\r
sso_role_name = Developer\r
region = eu-west-1\r
  # an indented comment\r
s3 =\r
  max_concurrent_requests = 20\r
  max_attempts = 0\r
  retry_mode = nonsense\r
services = local-ddb\r
RETRY_MODE = Adaptive ; inline comment\r
max_attempts\t=\t6\r
cli_pager=\r
\r
[services local-ddb]\r
dynamodb =\r
  endpoint_url = http://localhost:8000\r
  max_attempts = -5\r
\r
[plugins]\r
cli_legacy_plugin_path = /opt/plugins\r
\r
[profile broken]\r
max_attempts = -1\r
retry_mode = ???\r
credential_process = /usr/bin/creds --json # comment\r
\r
[preview]\r
cloudfront = true\r
";

#[test]
fn realistic_file_is_read_without_tripping_on_unrelated_content() {
    let fs = files(&[("/h/.aws/config", REALISTIC)]);
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "dev")], &fs)
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Adaptive);
    assert_eq!(resolved.max_attempts, Some(6));
    let line = |source: Option<ConfigSource>| match source {
        Some(ConfigSource::ConfigFile { line, .. }) => line,
        other => panic!("not from the file: {other:?}"),
    };
    assert_eq!(line(resolved.mode_source), 24);
    assert_eq!(line(resolved.max_attempts_source), 25);

    // The default profile of the same file has no retry settings, and the
    // invalid values in `broken`, the SSO session and the services section
    // are never looked at.
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", "/h")], &fs)
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Standard);
    assert_eq!(resolved.max_attempts, None);
}

#[test]
fn invalid_values_are_reported_only_for_the_selected_profile() {
    let fs = files(&[("/h/.aws/config", REALISTIC)]);
    let err = RetryConfig::new()
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "broken")], &fs)
        .unwrap_err();
    // Settings are resolved mode first.
    assert_eq!(err.setting(), Some("retry_mode"));
    assert_eq!(err.reason(), Some("not a retry mode"));
    assert_eq!(
        err.origin(),
        Some(&ConfigSource::ConfigFile {
            path: "/h/.aws/config".into(),
            profile: "broken".into(),
            line: 38,
        })
    );
    let err = RetryConfig::new()
        .mode(RetryMode::Standard)
        .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "broken")], &fs)
        .unwrap_err();
    assert_eq!(err.setting(), Some("max_attempts"));
    assert_eq!(err.reason(), Some("a negative count is meaningless"));
    assert!(
        err.to_string().contains(r#"profile "broken", line 37"#),
        "{err}"
    );
}

#[test]
fn duplicate_keys_and_profiles_are_rejected_with_the_line() {
    // Issue #8: duplicates were merged silently. botocore's reader (strict
    // configparser) rejects the whole file.
    for (text, line, what) in [
        (
            "[profile a]\nmax_attempts = 2\nmax_attempts = 3\n",
            3,
            "key \"max_attempts\" is set a second time",
        ),
        (
            "[profile a]\nretry_mode = legacy\n[profile b]\n[profile a]\nmax_attempts = 4\n",
            4,
            "section [profile a] is declared a second time (first on line 1)",
        ),
    ] {
        let fs = files(&[("/h/.aws/config", text)]);
        // Even when another profile is selected.
        let err = RetryConfig::new()
            .resolve_from(&[("HOME", "/h"), ("AWS_PROFILE", "b")], &fs)
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("/h/.aws/config"), "{message}");
        assert!(message.contains(&format!("line {line}:")), "{message}");
        assert!(message.contains(what), "{message}");
        assert!(
            matches!(&err, ConfigError::ConfigFileSyntax { line: l, reason, .. }
                if *l == line && reason.contains(what)),
            "{err:?}"
        );
    }
}

#[test]
fn indented_keys_indented_headers_and_cr_only_files_are_read() {
    // Issue #8: each of these gave the default 3 attempts.
    for text in [
        "[default]\n  max_attempts = 4\n",
        "  [default]\nmax_attempts = 4\n",
        "[default]\rmax_attempts = 4\r",
        "[default]\nmax_attempts: 4\n",
    ] {
        let fs = files(&[("/h/.aws/config", text)]);
        let resolved = RetryConfig::new()
            .resolve_from(&[("HOME", "/h")], &fs)
            .unwrap();
        assert_eq!(resolved.max_attempts, Some(4), "{text:?}");
    }
}

#[test]
fn lines_the_format_does_not_accept_are_reported() {
    for (text, line, what) in [
        (
            "max_attempts = 4\n[default]\n",
            1,
            "before any section header",
        ),
        ("[default]\nmax_attempts 4\n", 2, "expected `key = value`"),
        ("[default\nmax_attempts = 4\n", 1, "no closing `]`"),
    ] {
        let fs = files(&[("/h/.aws/config", text)]);
        let err = RetryConfig::new()
            .resolve_from(&[("HOME", "/h")], &fs)
            .unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(&format!("/h/.aws/config, line {line}:")),
            "{message}"
        );
        assert!(message.contains(what), "{message}");
    }
}

#[test]
fn variables_in_aws_config_file_are_expanded() {
    let fs = files(&[("/cfg/dev/config", "[default]\nmax_attempts = 6\n")]);
    for path in ["$CFG/dev/config", "${CFG}/$STAGE/config"] {
        let env = [
            ("HOME", "/h"),
            ("CFG", "/cfg"),
            ("STAGE", "dev"),
            ("AWS_CONFIG_FILE", path),
        ];
        let resolved = RetryConfig::new().resolve_from(&env, &fs).unwrap();
        assert_eq!(resolved.max_attempts, Some(6), "{path}");
    }
}

#[test]
fn in_memory_sources_are_held_to_the_size_limit() {
    let huge = format!("[default]\n{}", "#\n".repeat(600 * 1024));
    let fs = files(&[("/h/.aws/config", &huge)]);
    let err = RetryConfig::new()
        .resolve_from(&[("HOME", "/h")], &fs)
        .unwrap_err();
    let ConfigError::ReadConfigFile { path, source } = &err else {
        panic!("expected ReadConfigFile, got {err:?}");
    };
    assert_eq!(path, &PathBuf::from("/h/.aws/config"));
    assert_eq!(source.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(
        source.to_string(),
        "larger than the 1048576-byte limit for a config file"
    );
    assert_eq!(
        err.to_string(),
        "cannot read the AWS shared config file /h/.aws/config: larger than the 1048576-byte limit for a config file"
    );
}

#[test]
fn lines_count_crlf_and_lf_alike() {
    for newline in ["\n", "\r\n"] {
        let text = ["# c", "", "[default]", "", "max_attempts = x"].join(newline);
        let fs = files(&[("/h/.aws/config", &text)]);
        let err = RetryConfig::new()
            .resolve_from(&[("HOME", "/h")], &fs)
            .unwrap_err();
        assert!(err.to_string().contains("line 5:"), "{err}");
        assert!(err.to_string().contains(r#""x""#), "{err}");
    }
}
