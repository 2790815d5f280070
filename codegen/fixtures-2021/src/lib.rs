//! The hostile models that must compile (`codegen/tests/hostile/compiles`),
//! generated into an edition 2021 crate: names that are keywords in one
//! edition only (`async`, `dyn`, `try`, `gen`) work in both.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Generated code must pass pedantic clippy too: CI denies its warnings.
#![warn(clippy::pedantic)]

include!(concat!(env!("OUT_DIR"), "/hostile.rs"));

#[cfg(test)]
mod tests {
    use rebound::RetryInfo;

    #[test]
    fn keyword_errors_dispatch_by_their_code() {
        for code in ["async", "try", "dyn", "gen", "type", "Self", "Option"] {
            let error = super::keywords::Error::from_code(code, None, None);
            assert!(
                !matches!(error, super::keywords::Error::Unhandled(_)),
                "{code}"
            );
            assert_eq!(error.retry_safety(), rebound::RetrySafety::Yes, "{code}");
        }
    }
}
