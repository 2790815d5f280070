//! Any bytes as `~/.aws/config`: resolution never panics, and a resolved
//! value is a valid one (at least one attempt; the mode is one of three).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_runtime::config::RetryConfig;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files = [("/h/.aws/config", text)];
    for profile in ["default", "dev"] {
        let env = [("HOME", "/h"), ("AWS_PROFILE", profile)];
        if let Ok(resolved) = RetryConfig::new().resolve_from(&env, &files) {
            assert!(resolved.max_attempts.is_none_or(|n| n >= 1));
            // Whatever resolved must also build a strategy.
            let _ = resolved.build();
        }
    }
});
