//! Arbitrary values for every variable the configuration reads (and an
//! arbitrary config file behind `AWS_CONFIG_FILE`): never a panic; when
//! resolution succeeds, the values are the ones the syntax allows.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rebound_runtime::config::{RetryConfig, RetryMode};

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    retry_mode: Option<&'a str>,
    max_attempts: Option<&'a str>,
    new_retries: Option<&'a str>,
    profile: Option<&'a str>,
    config_file: Option<&'a str>,
    home: Option<&'a str>,
    file_text: &'a str,
}

fuzz_target!(|input: Input<'_>| {
    let mut env = Vec::new();
    for (name, value) in [
        ("AWS_RETRY_MODE", input.retry_mode),
        ("AWS_MAX_ATTEMPTS", input.max_attempts),
        ("AWS_NEW_RETRIES_2026", input.new_retries),
        ("AWS_PROFILE", input.profile),
        ("AWS_CONFIG_FILE", input.config_file),
        ("HOME", input.home),
    ] {
        if let Some(value) = value {
            env.push((name, value));
        }
    }
    let path = input.config_file.unwrap_or("/h/.aws/config");
    let files = [(path, input.file_text)];
    let Ok(resolved) = RetryConfig::new().resolve_from(env.as_slice(), &files) else {
        return;
    };
    if let Some(raw) = input.max_attempts.filter(|raw| !raw.is_empty()) {
        // The environment beats the file: what resolved is what was given.
        assert_eq!(resolved.max_attempts, raw.parse::<u32>().ok(), "{raw:?}");
    }
    if let Some(raw) = input.retry_mode.filter(|raw| !raw.is_empty()) {
        let expected = match raw.to_ascii_lowercase().as_str() {
            "legacy" => RetryMode::Legacy,
            "standard" => RetryMode::Standard,
            "adaptive" => RetryMode::Adaptive,
            other => panic!("resolved an invalid mode {other:?}"),
        };
        assert_eq!(resolved.mode, expected);
    }
    let _ = resolved.build();
});
