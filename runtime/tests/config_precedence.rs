//! Precedence of the retry settings' sources: code > environment > shared
//! config file > default, for every combination of sources.
//!
//! Nothing here reads the process environment or the real file system: the
//! environment is a list of pairs and the files a map.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rebound_runtime::config::{RetryConfig, RetryMode};
use rebound_runtime::{RetryBehavior, config::ConfigSource};

const HOME: &str = "/home/tester";
const CONFIG: &str = "/home/tester/.aws/config";

fn files(text: &str) -> BTreeMap<PathBuf, String> {
    BTreeMap::from([(PathBuf::from(CONFIG), text.to_owned())])
}

fn file_source(line: usize) -> ConfigSource {
    ConfigSource::ConfigFile {
        path: CONFIG.into(),
        profile: "default".into(),
        line,
    }
}

/// Which sources set a value, as a bit set.
const CODE: u8 = 1;
const ENV: u8 = 2;
const FILE: u8 = 4;

fn winner(set: u8) -> Option<u8> {
    [CODE, ENV, FILE]
        .into_iter()
        .find(|source| set & source != 0)
}

#[test]
fn retry_mode_every_combination_of_sources() {
    // Distinct values per source, so the winner is visible in the value.
    let code = RetryMode::Adaptive;
    let env = RetryMode::Legacy;
    let file = RetryMode::Standard;
    for set in 0..8u8 {
        let mut config = RetryConfig::new();
        if set & CODE != 0 {
            config = config.mode(code);
        }
        let mut vars = vec![("HOME", HOME)];
        if set & ENV != 0 {
            vars.push(("AWS_RETRY_MODE", "legacy"));
        }
        // The file always exists; it sets the mode only when FILE is in the set.
        let text = if set & FILE != 0 {
            "[default]\nregion = eu-west-1\nretry_mode = standard\n"
        } else {
            "[default]\nregion = eu-west-1\n"
        };
        let resolved = config
            .resolve_from(vars.as_slice(), &files(text))
            .unwrap_or_else(|err| panic!("set {set:03b}: {err}"));
        let (mode, source) = match winner(set) {
            Some(CODE) => (code, Some(ConfigSource::Code)),
            Some(ENV) => (
                env,
                Some(ConfigSource::Env {
                    var: "AWS_RETRY_MODE",
                }),
            ),
            Some(_) => (file, Some(file_source(3))),
            None => (RetryMode::Standard, None),
        };
        assert_eq!(resolved.mode, mode, "set {set:03b}");
        assert_eq!(resolved.mode_source, source, "set {set:03b}");
    }
}

#[test]
fn max_attempts_every_combination_of_sources() {
    for set in 0..8u8 {
        let mut config = RetryConfig::new();
        if set & CODE != 0 {
            config = config.max_attempts(1);
        }
        let mut vars = vec![("HOME", HOME)];
        if set & ENV != 0 {
            vars.push(("AWS_MAX_ATTEMPTS", "2"));
        }
        let text = if set & FILE != 0 {
            "[default]\nmax_attempts = 3\n"
        } else {
            "[default]\n"
        };
        let resolved = config
            .resolve_from(vars.as_slice(), &files(text))
            .unwrap_or_else(|err| panic!("set {set:03b}: {err}"));
        let (max_attempts, source) = match winner(set) {
            Some(CODE) => (Some(1), Some(ConfigSource::Code)),
            Some(ENV) => (
                Some(2),
                Some(ConfigSource::Env {
                    var: "AWS_MAX_ATTEMPTS",
                }),
            ),
            Some(_) => (Some(3), Some(file_source(2))),
            None => (None, None),
        };
        assert_eq!(resolved.max_attempts, max_attempts, "set {set:03b}");
        assert_eq!(resolved.max_attempts_source, source, "set {set:03b}");
    }
}

#[test]
fn behavior_code_over_env_over_default() {
    let none = BTreeMap::<PathBuf, String>::new();
    let env_true = [("AWS_NEW_RETRIES_2026", "true")];
    let env_false = [("AWS_NEW_RETRIES_2026", "false")];
    let no_env: [(&str, &str); 0] = [];

    let default = RetryConfig::new().resolve_from(&no_env, &none).unwrap();
    assert_eq!(default.behavior, RetryBehavior::V2_0);
    assert_eq!(default.behavior_source, None);

    let env = RetryConfig::new().resolve_from(&env_true, &none).unwrap();
    assert_eq!(env.behavior, RetryBehavior::V2_1);
    assert_eq!(
        env.behavior_source,
        Some(ConfigSource::Env {
            var: "AWS_NEW_RETRIES_2026"
        })
    );
    let env = RetryConfig::new().resolve_from(&env_false, &none).unwrap();
    assert_eq!(env.behavior, RetryBehavior::V2_0);
    assert!(env.behavior_source.is_some());

    for env in [&env_true[..], &env_false[..], &no_env[..]] {
        for behavior in [RetryBehavior::V2_0, RetryBehavior::V2_1] {
            let code = RetryConfig::new()
                .behavior(behavior)
                .resolve_from(env, &none)
                .unwrap();
            assert_eq!(code.behavior, behavior);
            assert_eq!(code.behavior_source, Some(ConfigSource::Code));
        }
    }
}

#[test]
fn behavior_has_no_config_file_key() {
    let text = "[default]\naws_new_retries_2026 = true\nnew_retries_2026 = true\n";
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", HOME)], &files(text))
        .unwrap();
    assert_eq!(resolved.behavior, RetryBehavior::V2_0);
}

#[test]
fn settings_resolve_independently() {
    // Mode from the file, attempts from the environment, behaviour from code.
    let resolved = RetryConfig::new()
        .behavior(RetryBehavior::V2_1)
        .resolve_from(
            &[("HOME", HOME), ("AWS_MAX_ATTEMPTS", "8")],
            &files("[default]\nmax_attempts = 4\nretry_mode = adaptive\n"),
        )
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Adaptive);
    assert_eq!(resolved.mode_source, Some(file_source(3)));
    assert_eq!(resolved.max_attempts, Some(8));
    assert_eq!(resolved.behavior, RetryBehavior::V2_1);
}

#[test]
fn defaults_when_nothing_is_set() {
    let resolved = RetryConfig::new()
        .resolve_from(&[("HOME", HOME)], &BTreeMap::new())
        .unwrap();
    assert_eq!(resolved.mode, RetryMode::Standard);
    assert_eq!(resolved.max_attempts, None);
    assert_eq!(resolved.effective_max_attempts(), Some(3));
    assert_eq!(resolved.behavior, RetryBehavior::V2_0);
    assert_eq!(resolved.mode_source, None);
    assert_eq!(resolved.max_attempts_source, None);
    assert_eq!(resolved.behavior_source, None);
}

#[test]
fn default_attempts_follow_the_resolved_mode() {
    let none = BTreeMap::<PathBuf, String>::new();
    for (mode, attempts) in [
        ("standard", Some(3)),
        ("adaptive", Some(3)),
        ("legacy", None),
    ] {
        let resolved = RetryConfig::new()
            .resolve_from(&[("AWS_RETRY_MODE", mode)], &none)
            .unwrap();
        assert_eq!(resolved.effective_max_attempts(), attempts, "{mode}");
    }
    let resolved = RetryConfig::new()
        .mode(RetryMode::Legacy)
        .max_attempts(7)
        .resolve_from(&[("HOME", HOME)], &none)
        .unwrap();
    assert_eq!(resolved.effective_max_attempts(), Some(7));
}

#[test]
fn a_higher_source_hides_an_invalid_lower_one() {
    // Lower sources are not consulted once a higher one sets the value.
    let bad_file = files("[default]\nmax_attempts = zero\nretry_mode = fast\n");
    let resolved = RetryConfig::new()
        .resolve_from(
            &[
                ("HOME", HOME),
                ("AWS_MAX_ATTEMPTS", "2"),
                ("AWS_RETRY_MODE", "legacy"),
            ],
            &bad_file,
        )
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(2));
    assert_eq!(resolved.mode, RetryMode::Legacy);

    let resolved = RetryConfig::new()
        .mode(RetryMode::Standard)
        .max_attempts(5)
        .behavior(RetryBehavior::V2_1)
        .resolve_from(
            &[
                ("AWS_MAX_ATTEMPTS", "-1"),
                ("AWS_RETRY_MODE", ""),
                ("AWS_NEW_RETRIES_2026", "yes"),
            ],
            &bad_file,
        )
        .unwrap();
    assert_eq!(resolved.max_attempts, Some(5));
}
