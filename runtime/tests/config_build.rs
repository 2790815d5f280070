//! A resolved configuration builds the strategy its mode selects, with the
//! resolved attempts and behaviour.

use rebound_runtime::classify::HttpErrorResponse;
use rebound_runtime::config::ConfiguredRetryStrategy;
use rebound_runtime::legacy::LegacyPreset;
use rebound_runtime::{
    RetryBehavior, RetryStrategy,
    config::{RetryConfig, RetryMode},
};

const NONE: [(&str, &str); 0] = [];

fn build(env: &[(&str, &str)]) -> ConfiguredRetryStrategy {
    RetryConfig::new()
        .resolve_from(env, &NONE)
        .expect("valid configuration")
        .build()
}

#[test]
fn each_mode_builds_its_strategy() {
    let standard = build(&[("AWS_RETRY_MODE", "standard")]);
    assert!(matches!(standard, ConfiguredRetryStrategy::Standard(_)));
    assert_eq!(
        (standard.mode(), standard.max_attempts()),
        (RetryMode::Standard, 3)
    );

    let adaptive = build(&[("AWS_RETRY_MODE", "adaptive")]);
    assert!(matches!(adaptive, ConfiguredRetryStrategy::Adaptive(_)));
    assert_eq!(
        (adaptive.mode(), adaptive.max_attempts()),
        (RetryMode::Adaptive, 3)
    );

    let legacy = build(&[("AWS_RETRY_MODE", "legacy")]);
    assert!(matches!(legacy, ConfiguredRetryStrategy::Legacy(_)));
    assert_eq!(
        (legacy.mode(), legacy.max_attempts()),
        (RetryMode::Legacy, 5)
    ); // botocore's preset
}

#[test]
fn configured_attempts_reach_every_mode() {
    for mode in ["legacy", "standard", "adaptive"] {
        let strategy = build(&[("AWS_RETRY_MODE", mode), ("AWS_MAX_ATTEMPTS", "7")]);
        assert_eq!(strategy.max_attempts(), 7, "{mode}");
    }
}

#[test]
fn the_behaviour_flag_reaches_the_standard_strategy() {
    let ConfiguredRetryStrategy::Standard(v2_1) = build(&[("AWS_NEW_RETRIES_2026", "true")]) else {
        panic!("standard mode is the default");
    };
    assert_eq!(v2_1.behavior(), RetryBehavior::V2_1);
    // 2.1 retries an unmodeled 429; 2.0 does not.
    let bare_429 = HttpErrorResponse::new(429);
    let token = v2_1.acquire_initial_token().unwrap();
    assert!(v2_1.refresh_retry_token(token, &bare_429).is_ok());
    let v2_0 = build(&[]);
    let token = v2_0.acquire_initial_token().unwrap();
    assert!(v2_0.refresh_retry_token(token, &bare_429).is_err());
}

#[test]
fn builders_start_from_the_resolved_settings() {
    let resolved = RetryConfig::new()
        .mode(RetryMode::Legacy)
        .max_attempts(2)
        .resolve_from(&NONE, &NONE)
        .unwrap();
    let java = resolved.legacy_builder(LegacyPreset::JavaV1).build();
    assert_eq!(java.max_attempts(), 2);
    let standard = resolved.standard_builder().build();
    assert_eq!(standard.max_attempts(), 2);
}

#[test]
fn a_resolved_configuration_always_builds_even_with_zero_attempts_set_by_hand() {
    for mode in [RetryMode::Legacy, RetryMode::Standard, RetryMode::Adaptive] {
        let mut resolved = RetryConfig::new()
            .mode(mode)
            .resolve_from(&NONE, &NONE)
            .unwrap();
        resolved.max_attempts = Some(0);
        let strategy = resolved.build();
        assert_eq!(strategy.mode(), mode);
        assert_eq!(
            strategy.max_attempts(),
            1,
            "{mode:?}: the first attempt is always made"
        );
    }
}
