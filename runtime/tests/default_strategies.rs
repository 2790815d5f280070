//! Every strategy has a default that cannot fail, equal to what its builder
//! gives with no settings.

use rebound_runtime::{
    AdaptiveRetryStrategy, Retry, RetryBehavior, StandardRetryStrategy,
    legacy::{LegacyPreset, LegacyRetryStrategy},
};

#[test]
fn standard_and_adaptive_defaults_are_the_builders_defaults() {
    let built = StandardRetryStrategy::new();
    for strategy in [
        StandardRetryStrategy::new(),
        StandardRetryStrategy::default(),
    ] {
        assert_eq!(strategy.max_attempts(), built.max_attempts());
        assert_eq!(strategy.behavior(), RetryBehavior::V2_0);
        assert_eq!(strategy.quota().capacity(), built.quota().capacity());
    }
    let adaptive = AdaptiveRetryStrategy::default();
    assert_eq!(adaptive.standard().max_attempts(), 3);
    assert!(!adaptive.rate_limiter().is_enabled());
}

#[test]
fn every_legacy_preset_has_an_infallible_default() {
    for preset in [
        LegacyPreset::Botocore,
        LegacyPreset::BotocoreDynamoDb,
        LegacyPreset::JavaV1,
        LegacyPreset::JavaV1DynamoDb,
        LegacyPreset::JavaScriptV2,
        LegacyPreset::JavaScriptV2DynamoDb,
    ] {
        let strategy = LegacyRetryStrategy::new(preset);
        assert_eq!(
            strategy.max_attempts(),
            preset.default_max_attempts(),
            "{preset:?}"
        );
        assert!(strategy.max_attempts() >= 1);
    }
}

#[test]
fn a_default_strategy_retries_with_no_question_mark() {
    let strategy = StandardRetryStrategy::new();
    let retry = Retry::new(&strategy).sleeper(|_| {});
    let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
    let value = retry.run(|attempt| {
        if attempt < 3 {
            Err(reset())
        } else {
            Ok(attempt)
        }
    });
    assert_eq!(value.unwrap(), 3);
}
